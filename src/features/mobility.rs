//! Mobility shared by `mb` and `mc`: the squares each piece can move to,
//! pseudo-legally (pins and checks ignored), whoever is to move: sliders and
//! steppers to any square they attack that is not their own side's; pawns one
//! or two squares forward onto empty squares, and diagonally onto enemy pieces.

use shakmaty::attacks::{attacks, pawn_attacks};
use shakmaty::{Bitboard, Board, Color, Piece, Rank, Role, Square};

pub fn destinations(board: &Board, sq: Square, piece: Piece) -> Bitboard {
    let own = board.by_color(piece.color);
    let occupied = board.occupied();
    if piece.role != Role::Pawn {
        return attacks(sq, piece, occupied) & !own;
    }
    let enemy = board.by_color(!piece.color);
    let captures = pawn_attacks(piece.color, sq) & enemy;
    let (step, start) = match piece.color {
        Color::White => (8i32, Rank::Second),
        Color::Black => (-8, Rank::Seventh),
    };
    let mut pushes = Bitboard::EMPTY;
    if let Some(one) = sq.offset(step).filter(|s| !occupied.contains(*s)) {
        pushes.add(one);
        if sq.rank() == start
            && let Some(two) = one.offset(step).filter(|s| !occupied.contains(*s))
        {
            pushes.add(two);
        }
    }
    captures | pushes
}

/// Per role index (0..6) and colour (`Color as usize`: shakmaty numbers
/// black 0, white 1): the union of the destinations and the sum of each
/// piece's destination count.
pub struct Mobility {
    pub squares: [[Bitboard; 2]; 6],
    pub counts: [[u32; 2]; 6],
}

pub fn mobility(board: &Board) -> Mobility {
    let mut m = Mobility { squares: [[Bitboard::EMPTY; 2]; 6], counts: [[0; 2]; 6] };
    for (sq, piece) in board {
        let targets = destinations(board, sq, piece);
        let (r, c) = (piece.role as usize - 1, piece.color as usize);
        m.squares[r][c] |= targets;
        m.counts[r][c] += targets.count() as u32;
    }
    m
}

/// The colour `mobility` stores at `index`.
pub fn colour_of(index: usize) -> Color {
    Color::ALL.into_iter().find(|&c| c as usize == index).expect("colour index is 0 or 1")
}

//! `mt`: the squares each side's legal moves reach, square × side (ours,
//! theirs), 128 inputs: the planes' form of `mb` (legal moves, not
//! pseudo-legal ones, and one plane per side instead of one per piece type).
//! The side not to move is asked as if it were to move (a null move); where
//! that is impossible (the side to move is in check), its pseudo-legal
//! destinations stand in. A castling move reaches the king's destination.
//! The side to move's en-passant capture makes the block change on a pass.

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position};

use super::Perspective;
use super::mobility::destinations;
use super::planes::Planes;

#[derive(Default)]
pub struct Reach;

fn legal_targets(pos: &Chess) -> Bitboard {
    pos.legal_moves()
        .into_iter()
        .map(|m| match m {
            Move::Castle { king, rook } => CastlingSide::from_queen_side(rook < king).king_to(pos.turn()),
            _ => m.to(),
        })
        .collect()
}

/// The squares `color`'s legal moves reach.
pub fn reach(pos: &Chess, color: Color) -> Bitboard {
    if pos.turn() == color {
        return legal_targets(pos);
    }
    match pos.clone().swap_turn() {
        Ok(passed) => legal_targets(&passed),
        Err(_) => {
            let board = pos.board();
            board
                .by_color(color)
                .into_iter()
                .map(|sq| destinations(board, sq, board.piece_at(sq).expect("a piece stands there")))
                .fold(Bitboard::EMPTY, |a, b| a | b)
        }
    }
}

impl Planes for Reach {
    const NAME: &'static str = "mt";
    const CHANNELS: usize = 2;
    const CHANGES_ON_PASS: bool = true;

    fn planes(pos: &Chess, p: Perspective, out: &mut [Bitboard]) {
        out[0] = reach(pos, p.0);
        out[1] = reach(pos, !p.0);
    }
}

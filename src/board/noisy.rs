//! Legal captures and promotions only, for the quiescence search.
//!
//! shakmaty generates a subset of the moves only through its full legal move
//! generator followed by a filter, so quiescence paid for every quiet move of
//! every node it visited. This generator produces exactly the list
//! `legal_moves()` filtered to captures and promotions would give, in the same
//! order — the search's move ordering breaks ties by list position, so the
//! same order means the same tree.
//!
//! The order mirrors shakmaty 0.30's `legal_moves`: en passant, pawn captures
//! towards the a-file then towards the h-file (plain before promoting), pushes
//! that promote, then knights, bishops, rooks, queens, the king; each piece's
//! targets in square order.

use shakmaty::attacks::{aligned, between, bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square};

/// Promotion pieces in shakmaty's order.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Every legal capture and promotion of `pos`. In check, every legal move
/// that captures or promotes among the evasions.
pub fn noisy_moves(pos: &Chess) -> MoveList {
    let mut moves = MoveList::new();
    noisy_moves_into(pos, &mut moves);
    moves
}

/// [`noisy_moves`] written into `moves` (emptied first): the quiescence
/// search fills its picker's own list, where a returned list of 256 moves
/// would be copied into it whole.
pub fn noisy_moves_into(pos: &Chess, moves: &mut MoveList) {
    moves.clear();
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn).filter(|_| pos.checkers().is_empty()) else {
        // Evasions (or a position without a king): the full generator decides.
        *moves = filtered_legal_moves(pos);
        return;
    };
    let them = pos.them();
    let occupied = board.occupied();

    // En passant comes with its own legality check; asked only where a
    // pawn just moved two squares (its answer is a whole list).
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }

    // Pawn captures: towards the a-file, then towards the h-file. A white
    // pawn reaches its left capture square 7 squares up, a black pawn 9
    // down; the right one 9 up or 7 down.
    let pawns = pos.our(Role::Pawn);
    let (left_offset, right_offset) = match turn {
        Color::White => (7, 9),
        Color::Black => (-9, -7),
    };
    let left = (pawns & !Bitboard::from(shakmaty::File::A)).shift(left_offset) & them;
    let right = (pawns & !Bitboard::from(shakmaty::File::H)).shift(right_offset) & them;
    for (captures, offset) in [(left, left_offset), (right, right_offset)] {
        for to in captures & !Bitboard::BACKRANKS {
            let from = square_minus(to, offset);
            moves.push(Move::Normal { role: Role::Pawn, from, capture: board.role_at(to), to, promotion: None });
        }
        for to in captures & Bitboard::BACKRANKS {
            push_promotions(moves, square_minus(to, offset), to, board.role_at(to));
        }
    }
    let forward = if turn == Color::White { 8 } else { -8 };
    let pushes = pawns.shift(forward) & !occupied & Bitboard::BACKRANKS;
    for to in pushes {
        push_promotions(moves, square_minus(to, forward), to, None);
    }

    // Pieces, each capturing only.
    for from in pos.our(Role::Knight) {
        push_captures(moves, board, Role::Knight, from, knight_attacks(from) & them);
    }
    for from in pos.our(Role::Bishop) {
        push_captures(moves, board, Role::Bishop, from, bishop_attacks(from, occupied) & them);
    }
    for from in pos.our(Role::Rook) {
        push_captures(moves, board, Role::Rook, from, rook_attacks(from, occupied) & them);
    }
    for from in pos.our(Role::Queen) {
        push_captures(moves, board, Role::Queen, from, queen_attacks(from, occupied) & them);
    }
    // Not in check, so no slider looks through the king: the full occupancy
    // is the right one for the king's safety.
    for to in king_attacks(king) & them {
        if board.attacks_to(to, !turn, occupied).is_empty() {
            moves.push(Move::Normal { role: Role::King, from: king, capture: board.role_at(to), to, promotion: None });
        }
    }

    // Pinned pieces may only move along the pin.
    let blockers = pinned(board, them, king);
    if blockers.any() {
        moves.retain(|m| match *m {
            Move::Normal { from, to, .. } => !blockers.contains(from) || aligned(from, to, king),
            _ => true,
        });
    }
}

/// shakmaty's full legal list filtered to captures and promotions: the
/// answer in check, and what the fast path must equal.
fn filtered_legal_moves(pos: &Chess) -> MoveList {
    let mut moves = pos.legal_moves();
    moves.retain(|m| m.is_capture() || m.is_promotion());
    moves
}

/// The square `offset` squares before `to` (the pawn's origin).
fn square_minus(to: Square, offset: i32) -> Square {
    // The offset was applied by a shift that kept the square on the board,
    // so undoing it does too.
    Square::new((i32::from(to) - offset) as u32)
}

fn push_promotions(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    for promotion in PROMOTIONS {
        moves.push(Move::Normal { role: Role::Pawn, from, capture, to, promotion: Some(promotion) });
    }
}

fn push_captures(moves: &mut MoveList, board: &shakmaty::Board, role: Role, from: Square, targets: Bitboard) {
    for to in targets {
        moves.push(Move::Normal { role, from, capture: board.role_at(to), to, promotion: None });
    }
}

/// Pieces (of either side) standing alone between `king` and an enemy slider.
fn pinned(board: &shakmaty::Board, enemy: Bitboard, king: Square) -> Bitboard {
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers & enemy {
        let b = between(king, sniper) & board.occupied();
        if !b.more_than_one() {
            blockers |= b;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::XorShift;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Chess960).unwrap()
    }

    /// Random games from positions rich in captures, pins, en passant and
    /// promotions: at every position the list equals the filtered full list,
    /// order included.
    #[test]
    fn equals_the_filtered_legal_moves_in_order() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/1P6/8/3pP3/8/8/6p1/4K2R w K d6 0 1",
            "8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K2r w - - 0 1",
        ];
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15_u64);
        let mut checked = 0;
        // One list for every position, as the quiescence search fills its
        // picker's: what the last position left in it must not show.
        let mut reused = MoveList::new();
        for fen in starts {
            for _game in 0..40 {
                let mut pos = position(fen);
                for _ply in 0..120 {
                    noisy_moves_into(&pos, &mut reused);
                    assert_eq!(reused, filtered_legal_moves(&pos));
                    if !pos.is_check() {
                        assert_eq!(
                            noisy_moves(&pos),
                            filtered_legal_moves(&pos),
                            "{}",
                            Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        );
                        checked += 1;
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let r = rng.next_u64();
                    // Prefer captures half of the time, so games reach the
                    // sparse, tactical positions quiescence sees.
                    let noisy = filtered_legal_moves(&pos);
                    let m = if r & 1 == 0 && !noisy.is_empty() {
                        noisy[(r >> 8) as usize % noisy.len()]
                    } else {
                        moves[(r >> 8) as usize % moves.len()]
                    };
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(checked > 10_000, "only {checked} positions checked");
    }

    #[test]
    fn in_check_gives_the_capturing_evasions() {
        let pos = position("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
        assert_eq!(noisy_moves(&pos), filtered_legal_moves(&pos));
        assert_eq!(noisy_moves(&pos).len(), 1);
    }
}

//! Static exchange evaluation: does a capture sequence on one square gain at
//! least a threshold for the side to move?

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

use super::piece_value;

/// True if playing `m` and then the best sequence of recaptures on its target
/// square leaves the mover at least `threshold` centipawns up.
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to, captured, promotion, ep_victim) = match m {
        Move::Normal { from, to, capture, promotion, .. } => (from, to, capture, promotion, None),
        Move::EnPassant { from, to } => {
            (from, to, Some(Role::Pawn), None, Some(Square::from_coords(to.file(), from.rank())))
        }
        // Castling and drops exchange nothing.
        Move::Castle { .. } | Move::Put { .. } => return 0 >= threshold,
    };
    let promo_gain = promotion.map_or(0, |r| piece_value(r) - piece_value(Role::Pawn));
    let mut swap = captured.map_or(0, piece_value) + promo_gain - threshold;
    if swap < 0 {
        return false;
    }
    let mover = promotion.unwrap_or(m.role());
    swap = piece_value_see(mover) - swap;
    if swap <= 0 {
        return true;
    }

    let board = pos.board();
    let mut occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
    if let Some(victim) = ep_victim {
        occupied ^= Bitboard::from(victim);
    }
    let diagonal = board.bishops_and_queens();
    let straight = board.rooks_and_queens();
    let mut attackers = board.attacks_to(to, Color::White, occupied) | board.attacks_to(to, Color::Black, occupied);
    let mut side = pos.turn();
    let mut gains = true;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        gains = !gains;
        let (role, sq) = least_valuable(board, ours);
        if role == Role::King {
            // The king may only take last: if the other side still attacks,
            // the capture is illegal and the result flips back.
            if (attackers & !board.by_color(side)).any() {
                gains = !gains;
            }
            break;
        }
        swap = piece_value_see(role) - swap;
        if swap < gains as i32 {
            break;
        }
        occupied ^= Bitboard::from(sq);
        // Sliders behind the piece that just took are now uncovered.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
    }
    gains
}

/// Kings count as very valuable in exchanges.
fn piece_value_see(role: Role) -> i32 {
    if role == Role::King { 20_000 } else { piece_value(role) }
}

fn least_valuable(board: &shakmaty::Board, candidates: Bitboard) -> (Role, Square) {
    for role in Role::ALL {
        if let Some(sq) = (candidates & board.by_role(role)).first() {
            return (role, sq);
        }
    }
    unreachable!("least_valuable called with no candidates")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let board = Board::from_fen(fen, false).unwrap();
        let m = board.parse_uci_move(uci).unwrap();
        see_ge(board.pos(), m, threshold)
    }

    #[test]
    fn exchanges() {
        // Rook takes an undefended pawn.
        let fen = "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1";
        assert!(see(fen, "e1e5", 100));
        assert!(!see(fen, "e1e5", 101));
        // Knight takes a pawn defended by a pawn: loses the knight for a pawn.
        let fen = "1k6/8/3p4/4p3/8/5N2/8/1K6 w - - 0 1";
        assert!(see(fen, "f3e5", 100 - 320));
        assert!(!see(fen, "f3e5", 0));
        // Queen takes a rook defended by a bishop: rook for queen.
        let fen = "1k6/8/5b2/8/3r4/8/8/1K1Q4 w - - 0 1";
        assert!(!see(fen, "d1d4", 0));
        assert!(see(fen, "d1d4", 500 - 900));
        // Quiet move to a square attacked by a pawn.
        let fen = "1k6/8/2p5/8/8/8/8/1K1Q4 w - - 0 1";
        assert!(!see(fen, "d1d5", 0));
        assert!(see(fen, "d1d3", 0));
    }
}

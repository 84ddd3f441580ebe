//! Incremental Zobrist keys.
//!
//! The key values are shakmaty's (Polyglot's), so a key computed here from
//! scratch equals `Position::zobrist_hash` with `EnPassantMode::Legal`. The
//! en passant file only counts when a legal en passant capture exists, so
//! two positions that differ only by an unusable en passant square share a key
//! and repetitions are detected correctly.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square};

/// The full key of a position, computed from scratch.
pub fn key_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn piece(sq: Square, role: Role, color: Color) -> u64 {
    Zobrist64::zobrist_for_piece(sq, role.of(color)).0
}

fn castling_part(pos: &Chess) -> u64 {
    let castles = pos.castles();
    let mut key = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    key
}

fn en_passant_part(pos: &Chess) -> u64 {
    pos.ep_square(EnPassantMode::Legal).map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

/// What the castling rights and en passant captures add to a key from
/// `before` to `after` (zero for most moves): the key of `after` is
/// [`key_after_pieces`] of the move with this added. Only the pieces the
/// move touches are rehashed.
pub fn rights_and_en_passant_change(before: &Chess, after: &Chess) -> u64 {
    castling_part(before) ^ castling_part(after) ^ en_passant_part(before) ^ en_passant_part(after)
}

/// `key` with the turn passed and the pieces `m` moves rehashed: the key
/// after `m` wherever the move changes no castling right and neither
/// position has an en passant capture (most moves), known before the move
/// is played.
pub fn key_after_pieces(key: u64, us: Color, m: Move) -> u64 {
    let mut key = key ^ Zobrist64::zobrist_for_white_turn().0;
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            key ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(captured) = capture {
                key ^= piece(to, captured, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let captured_sq = Square::from_coords(to.file(), from.rank());
            key ^= piece(from, Role::Pawn, us) ^ piece(to, Role::Pawn, us);
            key ^= piece(captured_sq, Role::Pawn, !us);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            key ^= piece(king, Role::King, us) ^ piece(side.king_to(us), Role::King, us);
            key ^= piece(rook, Role::Rook, us) ^ piece(side.rook_to(us), Role::Rook, us);
        }
        Move::Put { role, to } => key ^= piece(to, role, us),
    }
    key
}

//! Shared arithmetic of the king-relative blocks (`rk-h`, `rk-v`, `rk-hv`):
//! offsets of a piece from our king, shifted to be non-negative.

use shakmaty::Square;

/// The king's file minus the piece's file, plus 7: 0..15.
pub fn file_offset(king: Square, sq: Square) -> usize {
    king.file() as usize + 7 - sq.file() as usize
}

/// The king's rank minus the piece's rank, plus 7: 0..15.
pub fn rank_offset(king: Square, sq: Square) -> usize {
    king.rank() as usize + 7 - sq.rank() as usize
}

/// Kings have no feature in these blocks (role index 5).
pub const KING: usize = 5;

//! `rk-hv`: file offset × rank offset from our king × role × colour of every
//! non-king piece, 2250 inputs. Refreshed when our king moves.

use shakmaty::Square;

use super::king_relative::{KING, file_offset, rank_offset};
use super::line::PieceFeature;

pub struct RkHv;

impl PieceFeature for RkHv {
    const NAME: &'static str = "rk-hv";
    const SIZE: usize = 15 * 15 * 5 * 2;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        (role != KING).then(|| (((file_offset(king, sq) * 15 + rank_offset(king, sq)) * 5 + role) * 2 + colour) as u32)
    }
}

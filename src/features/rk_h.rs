//! `rk-h`: (our king's file − piece file + 7) × piece rank × role × colour of
//! every non-king piece, 1200 inputs. Refreshed when our king moves.

use shakmaty::Square;

use super::king_relative::{KING, file_offset};
use super::line::PieceFeature;

pub struct RkH;

impl PieceFeature for RkH {
    const NAME: &'static str = "rk-h";
    const SIZE: usize = 15 * 8 * 5 * 2;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        (role != KING).then(|| (((file_offset(king, sq) * 8 + sq.rank() as usize) * 5 + role) * 2 + colour) as u32)
    }
}

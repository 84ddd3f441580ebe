//! `rk-v`: (our king's rank − piece rank + 7) × piece file × role × colour of
//! every non-king piece, 1200 inputs. Refreshed when our king moves.

use shakmaty::Square;

use super::king_relative::{KING, rank_offset};
use super::line::PieceFeature;

pub struct RkV;

impl PieceFeature for RkV {
    const NAME: &'static str = "rk-v";
    const SIZE: usize = 15 * 8 * 5 * 2;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        (role != KING).then(|| (((rank_offset(king, sq) * 8 + sq.file() as usize) * 5 + role) * 2 + colour) as u32)
    }
}

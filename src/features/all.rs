//! `all` (PIECE): square × role × colour, 768 inputs.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct All;

impl PieceFeature for All {
    const NAME: &'static str = "all";
    const SIZE: usize = 64 * 6 * 2;

    fn index(sq: Square, role: usize, colour: usize, _king: Square) -> Option<u32> {
        Some(((sq as usize * 6 + role) * 2 + colour) as u32)
    }
}

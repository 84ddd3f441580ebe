//! `v`: rank × role × colour, one feature per piece; the rank of a
//! square is the rank 1..8. 96 inputs.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct V;

impl PieceFeature for V {
    const NAME: &'static str = "v";
    const SIZE: usize = 8 * 6 * 2;

    fn index(sq: Square, role: usize, colour: usize, _king: Square) -> Option<u32> {
        Some(((sq.rank() as usize) * 12 + role * 2 + colour) as u32)
    }
}

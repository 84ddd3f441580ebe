//! `d1`: diagonal × role × colour, one feature per piece; the diagonal of a
//! square is the a1–h8 diagonal (file − rank + 7). 180 inputs.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct D1;

impl PieceFeature for D1 {
    const NAME: &'static str = "d1";
    const SIZE: usize = 15 * 6 * 2;

    fn index(sq: Square, role: usize, colour: usize, _king: Square) -> Option<u32> {
        Some(((sq.file() as usize + 7 - sq.rank() as usize) * 12 + role * 2 + colour) as u32)
    }
}

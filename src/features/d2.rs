//! `d2`: anti-diagonal × role × colour, one feature per piece; the anti-diagonal of a
//! square is the a8–h1 diagonal (file + rank). 180 inputs.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct D2;

impl PieceFeature for D2 {
    const NAME: &'static str = "d2";
    const SIZE: usize = 15 * 6 * 2;

    fn index(sq: Square, role: usize, colour: usize, _king: Square) -> Option<u32> {
        Some(((sq.file() as usize + sq.rank() as usize) * 12 + role * 2 + colour) as u32)
    }
}

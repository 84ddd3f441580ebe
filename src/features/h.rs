//! `h`: file × role × colour, one feature per piece; the file of a
//! square is the file a..h. 96 inputs.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct H;

impl PieceFeature for H {
    const NAME: &'static str = "h";
    const SIZE: usize = 8 * 6 * 2;

    fn index(sq: Square, role: usize, colour: usize, _king: Square) -> Option<u32> {
        Some(((sq.file() as usize) * 12 + role * 2 + colour) as u32)
    }
}

//! `ka` (KING-ALL, HalfKA): our king's square × square × role × colour of
//! every piece, kings included, 49152 inputs. Refreshed when our king moves.

use shakmaty::Square;

use super::line::PieceFeature;

pub struct Ka;

impl PieceFeature for Ka {
    const NAME: &'static str = "ka";
    const SIZE: usize = 64 * 64 * 6 * 2;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        Some((((king as usize * 64 + sq as usize) * 6 + role) * 2 + colour) as u32)
    }
}

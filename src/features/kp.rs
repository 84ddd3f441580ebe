//! `kp` (KING-PIECE, HalfKP): our king's square × square × role × colour of
//! every non-king piece, 40960 inputs. Refreshed when our king moves.

use shakmaty::Square;

use super::king_relative::KING;
use super::line::PieceFeature;

pub struct Kp;

impl PieceFeature for Kp {
    const NAME: &'static str = "kp";
    const SIZE: usize = 64 * 64 * 5 * 2;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        (role != KING).then(|| (((king as usize * 64 + sq as usize) * 5 + role) * 2 + colour) as u32)
    }
}

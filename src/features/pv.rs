//! `pv`: pairwise along files. For each file, each two pieces next to each
//! other from bottom to top (seen from our side): file × (role, colour) of the
//! lower piece × (role, colour) of the upper piece, 1152 inputs.

use shakmaty::{File, Rank, Square};

use super::pairwise::Lines;

pub struct Pv;

impl Lines for Pv {
    const NAME: &'static str = "pv";
    fn line(sq: Square) -> usize {
        sq.file() as usize
    }
    fn square(line: usize, k: usize) -> Square {
        Square::from_coords(File::new(line as u32), Rank::new(k as u32))
    }
}

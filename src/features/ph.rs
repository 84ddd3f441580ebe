//! `ph`: pairwise along ranks. For each rank, each two pieces next to each
//! other from left to right: rank × (role, colour) of the left piece ×
//! (role, colour) of the right piece, 1152 inputs.

use shakmaty::{File, Rank, Square};

use super::pairwise::Lines;

pub struct Ph;

impl Lines for Ph {
    const NAME: &'static str = "ph";
    fn line(sq: Square) -> usize {
        sq.rank() as usize
    }
    fn square(line: usize, k: usize) -> Square {
        Square::from_coords(File::new(k as u32), Rank::new(line as u32))
    }
}

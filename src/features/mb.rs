//! `mb`: mobility bitset. For each (role, colour), the squares at least one
//! such piece can move to: square × role × colour, 768 inputs.

use shakmaty::{Chess, Move, Position};

use super::mobility::{Mobility, colour_of, mobility};
use super::{FeatureBlock, Perspective};

#[derive(Default)]
pub struct Mb;

fn index(p: Perspective, sq: shakmaty::Square, role: usize, colour: usize) -> u32 {
    ((p.square(sq) as usize * 6 + role) * 2 + p.colour(colour_of(colour))) as u32
}

impl FeatureBlock for Mb {
    fn name(&self) -> &'static str {
        "mb"
    }

    fn size(&self) -> usize {
        64 * 6 * 2
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        let m = mobility(pos.board());
        for role in 0..6 {
            for colour in 0..2 {
                out.extend(m.squares[role][colour].into_iter().map(|sq| index(p, sq, role, colour)));
            }
        }
    }

    /// Exact by construction: the difference of the two bitsets.
    fn changes(
        &self,
        pos: &Chess,
        _m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        let (before, now): (Mobility, Mobility) = (mobility(pos.board()), mobility(after.board()));
        for role in 0..6 {
            for colour in 0..2 {
                let (old, new) = (before.squares[role][colour], now.squares[role][colour]);
                added.extend((new & !old).into_iter().map(|sq| index(p, sq, role, colour)));
                removed.extend((old & !new).into_iter().map(|sq| index(p, sq, role, colour)));
            }
        }
    }
}

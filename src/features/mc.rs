//! `mc`: mobility counts. For each (role, colour), how many moves its pieces
//! have in all, bucketed: pawn 0..8+, knight 0..15+, bishop 0..16+, rook and
//! queen 0..25+, king 0..8 (103 buckets) × colour, 206 inputs, one active
//! per (role, colour).

use shakmaty::{Chess, Move, Position};

use super::mobility::{colour_of, mobility};
use super::{FeatureBlock, Perspective};

/// Highest bucket per role; counts above it share it.
const CAPS: [u32; 6] = [8, 15, 16, 25, 25, 8];
/// First bucket of each role.
const OFFSETS: [u32; 6] = [0, 9, 25, 42, 68, 94];
const BUCKETS: usize = 103;

#[derive(Default)]
pub struct Mc;

fn buckets(pos: &Chess, p: Perspective) -> [u32; 12] {
    let m = mobility(pos.board());
    let mut out = [0; 12];
    for role in 0..6 {
        for colour in 0..2 {
            let bucket = OFFSETS[role] + m.counts[role][colour].min(CAPS[role]);
            out[role * 2 + colour] = bucket * 2 + p.colour(colour_of(colour)) as u32;
        }
    }
    out
}

impl FeatureBlock for Mc {
    fn name(&self) -> &'static str {
        "mc"
    }

    fn size(&self) -> usize {
        BUCKETS * 2
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        out.extend(buckets(pos, p));
    }

    fn changes(
        &self,
        pos: &Chess,
        _m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        for (old, new) in buckets(pos, p).into_iter().zip(buckets(after, p)) {
            if old != new {
                removed.push(old);
                added.push(new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_block() {
        for role in 0..5 {
            assert_eq!(OFFSETS[role] + CAPS[role] + 1, OFFSETS[role + 1]);
        }
        assert_eq!(OFFSETS[5] + CAPS[5] + 1, BUCKETS as u32);
    }
}

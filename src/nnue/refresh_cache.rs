//! The refresh cache ("Finny table"): for each perspective and each square
//! of that side's king, the accumulator last computed there and the active
//! features it was computed for.
//!
//! A refresh (a king move under a king-relative set, a null move) starts
//! from the cached accumulator of the new king square and adds and removes
//! only the features that differ, usually a handful, instead of summing
//! every active feature's column from the biases. The cache keeps feature
//! lists rather than piece bitboards, so it works for every feature set and
//! every ⊕ combination: whatever `FeatureSet::active` lists is diffed.

use shakmaty::{Chess, Color, Position};

use super::network::Network;
use crate::features::Perspective;

/// One cached accumulator (empty until first used).
#[derive(Clone, Default)]
struct Entry {
    accumulator: Vec<i16>,
    /// Sorted active features the accumulator holds.
    features: Vec<u32>,
}

#[derive(Clone, Default)]
pub struct RefreshCache {
    /// `[color][king square]`, allocated on first use.
    entries: Vec<Entry>,
    current: Vec<u32>,
    added: Vec<u32>,
    removed: Vec<u32>,
}

impl RefreshCache {
    /// Writes the accumulator of `color`'s perspective of `pos` into `out`,
    /// exactly what [`Network::refresh`] writes.
    pub fn refresh(&mut self, net: &Network, pos: &Chess, color: Color, out: &mut [i16]) {
        if self.entries.is_empty() {
            self.entries = vec![Entry::default(); 2 * 64];
        }
        self.current.clear();
        net.features.active(pos, Perspective(color), &mut self.current);
        self.current.sort_unstable();
        let king = pos.board().king_of(color).map_or(0, |sq| sq as usize);
        let entry = &mut self.entries[color as usize * 64 + king];
        multiset_difference(&self.current, &entry.features, &mut self.added, &mut self.removed);
        let changes = self.added.len() + self.removed.len();
        if entry.accumulator.is_empty() || changes >= self.current.len() {
            // From the biases: no entry yet, or the diff would cost more.
            net.update_accumulator(net.biases(), out, &self.current, &[]);
        } else {
            net.update_accumulator(&entry.accumulator, out, &self.added, &self.removed);
        }
        entry.accumulator.clear();
        entry.accumulator.extend_from_slice(out);
        std::mem::swap(&mut entry.features, &mut self.current);
    }
}

/// `added = now − before`, `removed = before − now`, as multisets of sorted
/// lists (a feature listed twice counts twice in the accumulator).
fn multiset_difference(now: &[u32], before: &[u32], added: &mut Vec<u32>, removed: &mut Vec<u32>) {
    added.clear();
    removed.clear();
    let (mut i, mut j) = (0, 0);
    while i < now.len() && j < before.len() {
        match now[i].cmp(&before[j]) {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                added.push(now[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                removed.push(before[j]);
                j += 1;
            }
        }
    }
    added.extend_from_slice(&now[i..]);
    removed.extend_from_slice(&before[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureSet;
    use crate::nnue::network::FloatNetwork;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn a_cached_refresh_equals_a_full_one_and_only_diffs() {
        let fs: FeatureSet = "kp+ph".parse().unwrap();
        let bytes = FloatNetwork::random(&fs, 32, 8, 0, 5).quantize("cache test").to_bytes();
        let net = Network::from_bytes(&bytes).unwrap();
        let mut cache = RefreshCache::default();
        let (mut cached, mut full, mut scratch) = (vec![0i16; 32], vec![0i16; 32], Vec::new());
        // The same king squares with a few pieces moved in between, then a
        // king square the cache has not seen.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3P4/1p2P3/2N2QNp/PPPBBPPP/R3K2R b KQkq - 1 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3P4/1p2P3/2N2QNp/PPPBBPPP/R4RK1 b kq - 1 1",
            "r3k2r/p1pp1pb1/bn2pnp1/3P4/1p2P3/2N2QNp/PPPBBPPP/R3K2R w KQkq - 2 2",
        ];
        for (i, fen) in fens.iter().enumerate() {
            let pos = position(fen);
            for color in Color::ALL {
                cache.refresh(&net, &pos, color, &mut cached);
                net.refresh(&pos, color, &mut full, &mut scratch);
                assert_eq!(cached, full, "{fen} {color:?}");
                let changes = cache.added.len() + cache.removed.len();
                match i {
                    // Same position again: nothing to add or remove.
                    1 => assert_eq!(changes, 0),
                    // A knight moved (and the queen, for the last one): a few rows.
                    2 | 4 => assert!(changes > 0 && changes <= 12, "{changes} changes"),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn multiset_difference_counts_repeats() {
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        multiset_difference(&[1, 2, 2, 5, 9], &[2, 3, 5, 5], &mut added, &mut removed);
        assert_eq!((added.as_slice(), removed.as_slice()), (&[1, 2, 9][..], &[3, 5][..]));
        multiset_difference(&[4], &[], &mut added, &mut removed);
        assert_eq!((added.as_slice(), removed.as_slice()), (&[4][..], &[][..]));
    }
}

//! Batches: the active features of each position for both perspectives (side
//! to move first, as the engine concatenates them) and the targets, built
//! on a producer thread while the optimizer works on the previous batch.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

use rayon::prelude::*;
use shakmaty::{Chess, Position};
use tessera::features::{FeatureSet, Perspective};
use tessera::rng::Rng;

use crate::data::samples::Samples;

#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Positions in the batch (3 per PQR triplet, P, Q, R in order).
    pub positions: usize,
    pub indices: Vec<u32>,
    /// `indices[starts[2i + k]..starts[2i + k + 1]]` are position i's features
    /// for perspective k (0: side to move, 1: the other side).
    pub starts: Vec<u32>,
    /// Per sample: (score cp, result), side to move's view; zeros for PQR.
    pub targets: Vec<[f32; 2]>,
    /// Per position: pieces on the board (which output bucket it trains).
    pub pieces: Vec<u8>,
}

impl Batch {
    pub fn features(&self, position: usize, perspective: usize) -> &[u32] {
        let at = 2 * position + perspective;
        &self.indices[self.starts[at] as usize..self.starts[at + 1] as usize]
    }

    /// The features of consecutive positions, both perspectives each, in one list.
    pub fn features_of(&self, positions: std::ops::Range<usize>) -> &[u32] {
        &self.indices[self.starts[2 * positions.start] as usize..self.starts[2 * positions.end] as usize]
    }

    fn push_position(&mut self, fs: &FeatureSet, pos: &Chess) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        for color in [pos.turn(), !pos.turn()] {
            fs.active(pos, Perspective(color), &mut self.indices);
            self.starts.push(self.indices.len() as u32);
        }
        self.pieces.push(pos.board().occupied().count() as u8);
        self.positions += 1;
    }

    /// Position `p` of the cache, as `push_position` would have built it.
    fn push_cached(&mut self, cache: &FeatureCache, p: usize) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let (ours, theirs) = cache.features(p);
        for part in [ours, theirs] {
            self.indices.extend(part.iter().map(|&f| u32::from(f)));
            self.starts.push(self.indices.len() as u32);
        }
        self.pieces.push(cache.pieces(p));
        self.positions += 1;
    }

    /// The batch of the given samples, in that order.
    pub fn build(fs: &FeatureSet, samples: &Samples, order: &[u32]) -> Batch {
        let mut batch = Batch::default();
        for &i in order {
            let i = i as usize;
            for j in 0..samples.positions_per_sample() {
                batch.push_position(fs, &samples.position(i, j));
            }
            batch.targets.push(samples.target(i));
        }
        batch
    }

    /// The same batch as [`Batch::build`] for the samples the cache was
    /// built from, its features copied instead of worked out again.
    pub fn from_cache(cache: &FeatureCache, samples: &Samples, order: &[u32]) -> Batch {
        let mut batch = Batch::default();
        let per_sample = samples.positions_per_sample();
        for &i in order {
            let i = i as usize;
            for j in 0..per_sample {
                batch.push_cached(cache, i * per_sample + j);
            }
            batch.targets.push(samples.target(i));
        }
        batch
    }
}

/// Every training position's active features, worked out once for a run
/// instead of once an epoch on the producer thread (where, on two cores,
/// they took 6% of the CPU from the passes, and far more for sets such as
/// `all+mb` whose features take a move generation). Indices are 16-bit, so
/// sets of up to 65,536 inputs only: 85 bytes a position for `all`
/// (measured). Held in the parts it was built in, never joined: a cache of
/// 13 GB needs 13 GB, not twice that while its parts are copied together.
#[derive(Debug, Default)]
pub struct FeatureCache {
    /// Positions `part_positions · i ..` are part i's.
    parts: Vec<CachePart>,
    part_positions: usize,
}

/// The positions of one cache part (fewer where a sample is several).
const PART: usize = 1 << 14;

/// The feature lists of the positions of consecutive samples.
#[derive(Debug, Default)]
struct CachePart {
    indices: Vec<u16>,
    /// Position p's features are `indices[ends[p - 1]..ends[p]]` (from 0
    /// for the first), the side to move's `ours[p]` of them first.
    ends: Vec<u32>,
    ours: Vec<u16>,
    pieces: Vec<u8>,
}

impl CachePart {
    fn from_batch(batch: &Batch) -> CachePart {
        let narrow = |f: &u32| u16::try_from(*f).expect("a set of at most 65,536 inputs");
        let count = |range: &[u32]| u16::try_from(range.len()).expect("fewer than 65,536 features a position");
        CachePart {
            indices: batch.indices.iter().map(narrow).collect(),
            ends: (0..batch.positions).map(|p| batch.starts[2 * p + 2]).collect(),
            ours: (0..batch.positions).map(|p| count(batch.features(p, 0))).collect(),
            pieces: batch.pieces.clone(),
        }
    }

    fn features(&self, p: usize) -> (&[u16], &[u16]) {
        let start = if p == 0 { 0 } else { self.ends[p - 1] as usize };
        self.indices[start..self.ends[p] as usize].split_at(self.ours[p] as usize)
    }

    fn bytes(&self) -> usize {
        2 * self.indices.len() + 4 * self.ends.len() + 2 * self.ours.len() + self.pieces.len()
    }
}

impl FeatureCache {
    /// The cache of every sample's positions, built in parallel, or why
    /// not: the set's indices do not fit 16 bits, or the cache would not
    /// leave a sixteenth of the `available` bytes of memory free. The
    /// training is the same without it, only slower.
    pub fn build(fs: &FeatureSet, samples: &Samples, available: Option<usize>) -> Result<FeatureCache, String> {
        FeatureCache::build_in_parts(fs, samples, available, PART)
    }

    /// [`FeatureCache::build`] in parts of about `positions` positions.
    fn build_in_parts(
        fs: &FeatureSet,
        samples: &Samples,
        available: Option<usize>,
        positions: usize,
    ) -> Result<FeatureCache, String> {
        if fs.size() > 1 << 16 {
            return Err(format!("{} inputs do not fit 16-bit indices", fs.size()));
        }
        let per_sample = samples.positions_per_sample();
        // Parts hold whole samples (a PQR triplet is three positions).
        let part = (positions / per_sample).max(1);
        let order: Vec<u32> = (0..samples.len() as u32).collect();
        if let Some(available) = available.filter(|_| !order.is_empty()) {
            // A part's worth of samples spread evenly over the set (files
            // differ: endings have fewer features than openings), scaled to
            // all, with a tenth to spare.
            let probe: Vec<u32> = order.iter().step_by((order.len() / part).max(1)).take(part).copied().collect();
            let sample = CachePart::from_batch(&Batch::build(fs, samples, &probe));
            let estimate = sample.bytes() * samples.len() / probe.len() / 10 * 11;
            if estimate > available - available / 16 {
                return Err(format!(
                    "about {} MB, more than fifteen sixteenths of the {} MB of memory available",
                    estimate >> 20,
                    available >> 20
                ));
            }
        }
        let parts =
            order.par_chunks(part).map(|part| CachePart::from_batch(&Batch::build(fs, samples, part))).collect();
        Ok(FeatureCache { parts, part_positions: part * per_sample })
    }

    /// Position `p`'s features: the side to move's, the other side's.
    fn features(&self, p: usize) -> (&[u16], &[u16]) {
        self.parts[p / self.part_positions].features(p % self.part_positions)
    }

    fn pieces(&self, p: usize) -> u8 {
        self.parts[p / self.part_positions].pieces[p % self.part_positions]
    }

    /// Positions held.
    pub fn positions(&self) -> usize {
        self.parts.iter().map(|part| part.ends.len()).sum()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.parts.iter().map(CachePart::bytes).sum()
    }
}

/// The sample order of one epoch: a shuffle that depends only on the seed
/// and the epoch, so a resumed run sees the same batches.
pub fn epoch_order(samples: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..samples as u32).collect();
    let mut rng = Rng::new(seed ^ (epoch as u64).wrapping_mul(0xa076_1d64_78bd_642f));
    rng.shuffle(&mut order);
    order
}

/// Builds the epoch's batches on a separate thread, a few ahead: from the
/// cache where there is one.
pub fn produce(
    fs: Arc<FeatureSet>,
    cache: Option<Arc<FeatureCache>>,
    samples: Arc<Samples>,
    order: Vec<u32>,
    batch_size: usize,
) -> Receiver<Batch> {
    let (send, receive) = sync_channel(3);
    std::thread::spawn(move || {
        for chunk in order.chunks(batch_size) {
            let batch = match &cache {
                Some(cache) => Batch::from_cache(cache, &samples, chunk),
                None => Batch::build(&fs, &samples, chunk),
            };
            if send.send(batch).is_err() {
                return;
            }
        }
    });
    receive
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::samples::{parse_eval_line, parse_pqr_line};

    const FENS: [&str; 3] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    ];

    fn same(a: &Batch, b: &Batch) {
        assert_eq!((a.positions, &a.indices, &a.starts, &a.pieces), (b.positions, &b.indices, &b.starts, &b.pieces));
        assert_eq!(a.targets, b.targets);
    }

    /// Batches copied from the cache are the batches built directly, for
    /// eval samples and triplets, in a shuffled order with repeats, however
    /// the cache is cut into parts.
    #[test]
    fn cached_batches_equal_built_ones() {
        let order = [2u32, 0, 1, 1, 2];
        for expression in ["all", "all+ph+pv", "kb4+cr"] {
            let fs: FeatureSet = expression.parse().unwrap();
            let eval = Samples::Eval(
                FENS.iter()
                    .enumerate()
                    .map(|(i, f)| parse_eval_line(&format!("{f} | {} | 0.5", 10 * i)).unwrap())
                    .collect(),
            );
            let pqr = Samples::Pqr(
                ["e1g1 | a2a3", "d7c8q | b2b3", "c7c6 | h5h6"]
                    .iter()
                    .zip(FENS)
                    .map(|(moves, f)| parse_pqr_line(&format!("{f} | {moves}")).unwrap())
                    .collect(),
            );
            for samples in [eval, pqr] {
                // One part, and parts of one or two samples.
                for part in [PART, 1, 2, 3, 4] {
                    let cache = FeatureCache::build_in_parts(&fs, &samples, None, part)
                        .expect("a set of fewer than 65,536 inputs");
                    assert_eq!(cache.positions(), 3 * samples.positions_per_sample());
                    same(&Batch::from_cache(&cache, &samples, &order), &Batch::build(&fs, &samples, &order));
                }
            }
        }
    }

    /// The features of a run of positions are theirs in order, both
    /// perspectives each.
    #[test]
    fn features_of_a_run_are_its_positions_in_order() {
        let fs: FeatureSet = "all+ph".parse().unwrap();
        let samples = Samples::Eval(FENS.iter().map(|f| parse_eval_line(&format!("{f} | 0 | 0.5")).unwrap()).collect());
        let batch = Batch::build(&fs, &samples, &[2, 0, 1]);
        for (from, to) in [(0, 3), (1, 3), (0, 1), (2, 2)] {
            let expected: Vec<u32> =
                (from..to).flat_map(|p| [batch.features(p, 0), batch.features(p, 1)].concat()).collect();
            assert_eq!(batch.features_of(from..to), expected);
        }
    }

    /// No cache where it would not fit the memory available, or where the
    /// set's indices need more than 16 bits; one where it fits.
    #[test]
    fn the_cache_is_left_out_where_it_does_not_fit() {
        let samples = Samples::Eval(FENS.iter().map(|f| parse_eval_line(&format!("{f} | 0 | 0.5")).unwrap()).collect());
        let all: FeatureSet = "all".parse().unwrap();
        let size = FeatureCache::build(&all, &samples, None).unwrap().bytes();
        let Err(why) = FeatureCache::build(&all, &samples, Some(size)) else { panic!("more than its size is needed") };
        assert!(why.contains("MB of memory available"), "{why}");
        assert!(FeatureCache::build(&all, &samples, Some(3 * size)).is_ok());
        let ka: FeatureSet = "ka".parse().unwrap();
        assert!(FeatureCache::build(&ka, &samples, None).is_ok(), "ka has 49,152 inputs");
        let wide: FeatureSet = "ka+kp".parse().unwrap();
        let Err(why) = FeatureCache::build(&wide, &samples, None) else { panic!("more than 65,536 inputs") };
        assert!(why.contains("16-bit"), "{why}");
    }
}

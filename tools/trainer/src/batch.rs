//! Batches: the active features of each position for both perspectives (side
//! to move first, as the engine concatenates them) and the targets, built
//! on a producer thread while the optimizer works on the previous batch.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

use shakmaty::{Chess, Position};
use tessera::features::{FeatureSet, Perspective};
use tessera::rng::Rng;

use crate::data::Samples;

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

    /// The batch of the given samples, in that order.
    pub fn build(fs: &FeatureSet, samples: &Samples, order: &[u32]) -> Batch {
        let mut batch = Batch::default();
        for &i in order {
            match samples {
                Samples::Eval(v) => {
                    let s = &v[i as usize];
                    batch.push_position(fs, &s.pos);
                    batch.targets.push([s.score, s.result]);
                }
                Samples::Pqr(v) => {
                    let s = &v[i as usize];
                    for pos in [&s.p, &s.q, &s.r] {
                        batch.push_position(fs, pos);
                    }
                    batch.targets.push([0.0; 2]);
                }
            }
        }
        batch
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

/// Builds the epoch's batches on a separate thread, a few ahead.
pub fn produce(fs: Arc<FeatureSet>, samples: Arc<Samples>, order: Vec<u32>, batch_size: usize) -> Receiver<Batch> {
    let (send, receive) = sync_channel(3);
    std::thread::spawn(move || {
        for chunk in order.chunks(batch_size) {
            if send.send(Batch::build(&fs, &samples, chunk)).is_err() {
                return;
            }
        }
    });
    receive
}

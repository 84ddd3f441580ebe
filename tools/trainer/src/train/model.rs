//! The float network as one flat parameter vector, in a layout made for
//! sparse training (its passes: `passes`, `sparse`).
//!
//! Layout (offsets in `Layout`):
//! - feature transformer weights in column slices of `slice` neurons:
//!   `[M / slice][N][slice]`, so that a thread owns one slice of every row
//!   when it adds up the sparse gradient;
//! - feature transformer bias `[M]`;
//! - hidden weights row-major `[K][O][L]` as in the engine (gradients and
//!   both passes run along whole rows), hidden bias `[K][O]`, where L is
//!   2M, or M for a pairwise net (each perspective's halves multiplied);
//! - second hidden weights `[K][O][P]`, bias `[K][P]` (P may be 0);
//! - output weights `[K][O or P]`, output biases `[K]`;
//!
//! where K is the number of output buckets (1 without): each position
//! runs through, and trains, only the stack of its bucket.

use rayon::prelude::*;
use tessera::nnue::format::{DEFAULT_SCALES, Shape};
use tessera::nnue::network::FloatNetwork;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    pub slice: usize,
    pub ft_w: usize,
    pub ft_b: usize,
    pub l1_w: usize,
    pub l1_b: usize,
    pub l2_w: usize,
    pub l2_b: usize,
    pub out_w: usize,
    pub out_b: usize,
    pub total: usize,
}

impl Layout {
    pub fn new(shape: Shape) -> Layout {
        let Shape { inputs: n, ft: m, hidden: o, hidden2: p, buckets: k, .. } = shape;
        let slice = if m % 64 == 0 { 64 } else { m };
        let ft_w = 0;
        let ft_b = ft_w + n * m;
        let l1_w = ft_b + m;
        let l1_b = l1_w + k * shape.l1_inputs() * o;
        let l2_w = l1_b + k * o;
        let l2_b = l2_w + k * o * p;
        let out_w = l2_b + k * p;
        let out_b = out_w + k * shape.last();
        Layout { shape, slice, ft_w, ft_b, l1_w, l1_b, l2_w, l2_b, out_w, out_b, total: out_b + k }
    }

    pub(super) fn last(&self) -> usize {
        self.shape.last()
    }

    /// The offsets of bucket `b`'s stack.
    pub(super) fn stack(&self, b: usize) -> Stack {
        let Shape { hidden: o, hidden2: p, .. } = self.shape;
        Stack {
            l1_w: self.l1_w + b * o * self.shape.l1_inputs(),
            l1_b: self.l1_b + b * o,
            l2_w: self.l2_w + b * o * p,
            l2_b: self.l2_b + b * p,
            out_w: self.out_w + b * self.last(),
            out_b: self.out_b + b,
        }
    }

    /// Where feature `f`'s weight for neuron `j` lives.
    pub fn ft_index(&self, f: usize, j: usize) -> usize {
        self.ft_w + (j / self.slice) * self.shape.inputs * self.slice + f * self.slice + j % self.slice
    }

    /// The parameters after the feature transformer, whose gradients are
    /// summed per chunk of positions.
    pub(super) fn dense(&self) -> std::ops::Range<usize> {
        self.l1_w..self.total
    }

    /// Each parameter range with the bound that keeps quantization exact:
    /// i8 weights at scale 64 allow ±127/64; feature-transformer values stay
    /// far inside i16 at scale 127 even summed over 64 active features.
    pub fn clip_ranges(&self) -> [(std::ops::Range<usize>, f32); 4] {
        let hidden = 127.0 / 64.0;
        [
            (self.ft_w..self.l1_w, 32767.0 / 127.0 / 64.0),
            (self.l1_w..self.l1_b, hidden),
            (self.l2_w..self.l2_b, hidden),
            (self.out_w..self.out_b, hidden),
        ]
    }

    /// Each parameter range with the scale the engine stores it at
    /// (`FloatNetwork::quantize`): values on the grid of steps 1/scale are
    /// what the quantized net holds. Biases after the feature transformer
    /// are added to sums of (activation ×127)·(weight ×64).
    pub fn quantization_grid(&self) -> [(std::ops::Range<usize>, f32); 7] {
        let s = DEFAULT_SCALES;
        let (ft, weight, bias) = (s.ft as f32, s.weight as f32, (s.ft * s.weight) as f32);
        [
            (self.ft_w..self.l1_w, ft),
            (self.l1_w..self.l1_b, weight),
            (self.l1_b..self.l2_w, bias),
            (self.l2_w..self.l2_b, weight),
            (self.l2_b..self.out_w, bias),
            (self.out_w..self.out_b, weight),
            (self.out_b..self.total, bias),
        ]
    }
}

/// Where one output bucket's parameters start.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stack {
    pub l1_w: usize,
    pub l1_b: usize,
    pub l2_w: usize,
    pub l2_b: usize,
    pub out_w: usize,
    pub out_b: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub features: String,
    pub layout: Layout,
    pub params: Vec<f32>,
}

impl Model {
    pub fn from_float(net: &FloatNetwork) -> Model {
        let layout = Layout::new(net.shape);
        let Shape { inputs: n, ft: m, hidden: o, hidden2: p, buckets: k, .. } = net.shape;
        let mut params = vec![0.0; layout.total];
        for f in 0..n {
            for j in 0..m {
                params[layout.ft_index(f, j)] = net.ft_weights[f * m + j];
            }
        }
        params[layout.ft_b..layout.l1_w].copy_from_slice(&net.ft_bias);
        params[layout.l1_w..layout.l1_b].copy_from_slice(&net.hidden_weights);
        params[layout.l1_b..layout.l2_w].copy_from_slice(&net.hidden_bias);
        for b in 0..k {
            for q in 0..p {
                for j in 0..o {
                    params[layout.l2_w + b * o * p + j * p + q] = net.hidden2_weights[b * p * o + q * o + j];
                }
            }
        }
        params[layout.l2_b..layout.out_w].copy_from_slice(&net.hidden2_bias);
        params[layout.out_w..layout.out_b].copy_from_slice(&net.output_weights);
        params[layout.out_b..layout.total].copy_from_slice(&net.output_bias);
        Model { features: net.features.clone(), layout, params }
    }

    /// Writes into `out` this model with every parameter rounded to the
    /// grid the engine stores it on: the net the engine will run, but for
    /// the rounding of activations. Quantization-aware training computes
    /// each batch's loss and gradient on it and applies the step to the
    /// unrounded parameters (a straight-through estimate), so that many
    /// steps each smaller than a grid step still add up.
    pub fn round_to_grid_into(&self, out: &mut Model) {
        if out.layout != self.layout || out.params.len() != self.params.len() {
            *out = self.clone();
        }
        for (range, scale) in self.layout.quantization_grid() {
            let (from, to) = (&self.params[range.clone()], &mut out.params[range]);
            to.par_chunks_mut(1 << 16).zip(from.par_chunks(1 << 16)).for_each(|(to, from)| {
                for (t, &f) in to.iter_mut().zip(from) {
                    *t = (f * scale).round() / scale;
                }
            });
        }
    }

    pub fn to_float(&self) -> FloatNetwork {
        let l = &self.layout;
        let Shape { inputs: n, ft: m, hidden: o, hidden2: p, buckets: k, .. } = l.shape;
        let x = &self.params;
        FloatNetwork {
            features: self.features.clone(),
            shape: l.shape,
            ft_bias: x[l.ft_b..l.l1_w].to_vec(),
            ft_weights: (0..n * m).map(|i| x[l.ft_index(i / m, i % m)]).collect(),
            hidden_bias: x[l.l1_b..l.l2_w].to_vec(),
            hidden_weights: x[l.l1_w..l.l1_b].to_vec(),
            hidden2_bias: x[l.l2_b..l.out_w].to_vec(),
            hidden2_weights: (0..k * p * o)
                .map(|i| {
                    let (b, q, j) = (i / (p * o), i % (p * o) / o, i % o);
                    x[l.l2_w + b * o * p + j * p + q]
                })
                .collect(),
            output_bias: x[l.out_b..l.total].to_vec(),
            output_weights: x[l.out_w..l.out_b].to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::features::FeatureSet;

    #[test]
    fn layout_round_trips_through_the_float_network() {
        let fs: FeatureSet = "all+ph".parse().unwrap();
        for (hidden2, buckets, pairwise) in [(0, 1, false), (4, 1, false), (0, 8, false), (4, 3, false), (4, 3, true)] {
            let shape = Shape { pairwise, ..Shape::new(fs.size(), 128, 8, hidden2, buckets) };
            let net = FloatNetwork::random_bucketed(&fs, shape, 9);
            assert_eq!(Model::from_float(&net).to_float(), net);
        }
    }

    #[test]
    fn rounding_to_the_grid_gives_the_quantized_net_exactly() {
        let fs: FeatureSet = "all".parse().unwrap();
        for (hidden2, buckets, pairwise) in [(0, 1, false), (4, 3, false), (0, 1, true)] {
            let shape = Shape { pairwise, ..Shape::new(fs.size(), 64, 8, hidden2, buckets) };
            let model = Model::from_float(&FloatNetwork::random_bucketed(&fs, shape, 5));
            let mut rounded = Model::from_float(&FloatNetwork::random(&fs, 16, 8, 0, 1));
            model.round_to_grid_into(&mut rounded);
            assert_ne!(rounded.params, model.params);
            // Every rounded value is one the engine's file holds: quantizing
            // and reading back gives it unchanged, and the same file as the
            // unrounded model's.
            let file = model.to_float().quantize("");
            assert_eq!(rounded.to_float().quantize(""), file);
            assert_eq!(Model::from_float(&FloatNetwork::dequantize(&file)).params, rounded.params);
        }
    }
}

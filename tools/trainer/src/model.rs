//! The float network as one flat parameter vector in a layout made for
//! sparse training, and its forward and backward passes over a batch.
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
//!
//! Every gradient element is summed over the batch in the same order
//! whatever the number of threads, so a seed gives one network.

use rayon::prelude::*;
use tessera::nnue::format::{DEFAULT_SCALES, Shape, output_bucket};
use tessera::nnue::network::{FloatNetwork, PAIRWISE_SCALE, pairwise_products};

use crate::batch::Batch;
use crate::kernels::{self, passes};
use crate::loss::Objective;

/// Positions per parallel work item (a multiple of every objective's group).
const CHUNK: usize = 126;

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

    fn last(&self) -> usize {
        self.shape.last()
    }

    /// The offsets of bucket `b`'s stack.
    fn stack(&self, b: usize) -> Stack {
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
    fn dense(&self) -> std::ops::Range<usize> {
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
struct Stack {
    l1_w: usize,
    l1_b: usize,
    l2_w: usize,
    l2_b: usize,
    out_w: usize,
    out_b: usize,
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

/// Buffers reused from batch to batch.
#[derive(Default)]
pub struct Scratch {
    /// d loss / d accumulator, per position and perspective, of one sub-batch.
    dacc: Vec<f32>,
    /// Gradients of the dense parameters, one set per chunk of a sub-batch.
    partials: Vec<f32>,
    /// The sub-batch's rows grouped by feature.
    by_feature: ByFeature,
}

/// Chunks per sub-batch: the accumulator gradients of a sub-batch are
/// added into the feature transformer's gradient while they are still in
/// cache, instead of a whole batch's (64 MB at batch 16384) going out to
/// memory and back. For `all` (768 inputs) 8 chunks (1,008 positions, 4 MB
/// at width 512) measured 10% faster than 16: one slice of them (516 KB)
/// stays in a core's L2 while it is scattered. Larger sets have fewer rows
/// per active feature in a sub-batch, so each feature's sum is added to its
/// weights more often per row: `kb4` (3,072 inputs) measured 15% slower at 8
/// chunks than at 16.
fn sub_batch_chunks(inputs: usize) -> usize {
    if inputs <= 1024 { 8 } else { 16 }
}

/// Where a batch's time goes (`--profile`): seconds in each phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Forward and backward passes of the chunks (all but the feature
    /// transformer's weight gradient).
    pub passes: f64,
    /// The dense layers' gradient sums over the chunks.
    pub reduce: f64,
    /// The feature transformer's weight gradient (the sparse scatter).
    pub scatter: f64,
}

/// The loss summed over the batch's samples; with `grad`, also its gradient
/// (overwritten, summed over samples).
pub fn loss_and_gradient(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    grad: Option<&mut [f32]>,
    scratch: &mut Scratch,
) -> f64 {
    loss_and_gradient_timed(model, batch, objective, grad, scratch, &mut PhaseTimes::default())
}

/// [`loss_and_gradient`], adding the time of each phase to `times`.
pub fn loss_and_gradient_timed(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    grad: Option<&mut [f32]>,
    scratch: &mut Scratch,
    times: &mut PhaseTimes,
) -> f64 {
    let l = &model.layout;
    let m2 = 2 * l.shape.ft;
    let chunk = CHUNK / objective.group() * objective.group();
    let chunks = batch.positions.div_ceil(chunk);
    let dense = l.dense().len();
    // Each chunk's set starts on a cache line (the allocator aligns the
    // buffer), as the hidden weights' rows inside it then do.
    let stride = dense.next_multiple_of(16);
    let Some(grad) = grad else {
        let clock = std::time::Instant::now();
        let losses: Vec<f64> = (0..chunks)
            .into_par_iter()
            .map(|c| run_chunk(model, batch, objective, c * chunk..((c + 1) * chunk).min(batch.positions), None))
            .collect();
        times.passes += clock.elapsed().as_secs_f64();
        return losses.iter().sum();
    };
    let sub = sub_batch_chunks(l.shape.inputs).min(chunks.max(1));
    scratch.dacc.resize(sub * chunk * m2, 0.0);
    scratch.partials.resize(sub * stride, 0.0);
    let mut loss = 0.0;
    for first in (0..chunks).step_by(sub) {
        let last = (first + sub).min(chunks);
        let from = first * chunk;
        let to = (last * chunk).min(batch.positions);
        let clock = std::time::Instant::now();
        // The accumulator gradients are laid out slice by slice (all the
        // sub-batch's positions for slice 0, then slice 1, …) so that the
        // scatter below reads each slice's in one stream; each chunk writes
        // its positions' part of every slice.
        let (w, slices) = (l.slice, l.shape.ft / l.slice);
        let block = scratch.dacc.len() / slices;
        let mut views: Vec<Vec<&mut [f32]>> = (first..last).map(|_| Vec::with_capacity(slices)).collect();
        for slice in scratch.dacc.chunks_mut(block) {
            for (view, part) in views.iter_mut().zip(slice.chunks_mut(chunk * 2 * w)) {
                view.push(part);
            }
        }
        // The scatter's sort by feature needs only the batch: it runs beside
        // the passes instead of holding up the other thread after them.
        let n = l.shape.inputs;
        let (losses, ()) = rayon::join(
            || {
                views
                    .into_par_iter()
                    .zip(scratch.partials.par_chunks_mut(stride))
                    .enumerate()
                    .map(|(c, (mut dacc, partial))| {
                        let c = first + c;
                        let range = c * chunk..((c + 1) * chunk).min(batch.positions);
                        run_chunk(model, batch, objective, range, Some((&mut dacc, &mut partial[..dense])))
                    })
                    .collect::<Vec<f64>>()
            },
            || scratch.by_feature.sort(batch, from..to, n),
        );
        loss += losses.iter().sum::<f64>();
        times.passes += clock.elapsed().as_secs_f64();

        // Dense parameters: the chunks' partial sums, added in chunk order.
        let clock = std::time::Instant::now();
        let partials = &scratch.partials;
        let used = last - first;
        grad[l.dense()].par_chunks_mut(1024).enumerate().for_each(|(b, g)| {
            if first == 0 {
                g.fill(0.0);
            }
            for c in 0..used {
                let part = &partials[c * stride + b * 1024..][..g.len()];
                g.iter_mut().zip(part).for_each(|(g, p)| *g += p);
            }
        });
        times.reduce += clock.elapsed().as_secs_f64();

        // Feature transformer: each task owns one column slice of every row and
        // of the bias, and walks the sub-batch in order.
        let clock = std::time::Instant::now();
        let (ft_w, rest) = grad.split_at_mut(l.ft_b);
        let ft_b = &mut rest[..l.shape.ft];
        let by_feature = &scratch.by_feature;
        let rows = 2 * (to - from);
        ft_w.par_chunks_mut(n * w).zip(ft_b.par_chunks_mut(w)).zip(scratch.dacc.par_chunks(block)).for_each(
            |((gw, gb), dacc)| {
                if first == 0 {
                    gw.fill(0.0);
                    gb.fill(0.0);
                }
                scatter_slice(by_feature, &dacc[..rows * w], gw, gb)
            },
        );
        times.scatter += clock.elapsed().as_secs_f64();
    }
    loss
}

/// A sub-batch's (position, perspective) rows grouped by active feature
/// (a counting sort), so that each feature's gradient is summed in
/// registers and added to its weights once.
#[derive(Default)]
pub struct ByFeature {
    /// `rows[starts[f]..starts[f + 1]]`: the rows (2 × position + perspective,
    /// from the sub-batch's first position) where feature f is active, in order.
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl ByFeature {
    fn sort(&mut self, batch: &Batch, positions: std::ops::Range<usize>, inputs: usize) {
        self.starts.clear();
        self.starts.resize(inputs + 2, 0);
        let first = positions.start;
        for pos in positions.clone() {
            for k in 0..2 {
                for &f in batch.features(pos, k) {
                    self.starts[f as usize + 2] += 1;
                }
            }
        }
        for f in 2..self.starts.len() {
            self.starts[f] += self.starts[f - 1];
        }
        self.rows.resize(self.starts[inputs + 1] as usize, 0);
        for pos in positions {
            for k in 0..2 {
                let row = (2 * (pos - first) + k) as u32;
                for &f in batch.features(pos, k) {
                    let at = &mut self.starts[f as usize + 1];
                    self.rows[*at as usize] = row;
                    *at += 1;
                }
            }
        }
    }

    fn feature(&self, f: usize) -> &[u32] {
        &self.rows[self.starts[f] as usize..self.starts[f + 1] as usize]
    }

    fn inputs(&self) -> usize {
        self.starts.len() - 2
    }
}

/// Adds to one column slice of the feature transformer's gradient (`gw`
/// its rows, `gb` its bias) the slice's accumulator gradients (`dacc`, one
/// row per position and perspective of the sub-batch), each to the rows of
/// its active features.
fn scatter_slice(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if kernels::avx512() {
        // SAFETY: the CPU has AVX-512 (F, BW), AVX2 and FMA (`kernels::avx512`).
        return unsafe { scatter_slice_avx512(by_feature, dacc, gw, gb) };
    }
    #[cfg(target_arch = "x86_64")]
    if kernels::avx2() {
        // SAFETY: the CPU has AVX2 and FMA (`kernels::avx2`).
        return unsafe { scatter_slice_avx2(by_feature, dacc, gw, gb) };
    }
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

/// The same code in 16-lane registers. Every sum is taken element by
/// element in the same order at any width, so the result is the AVX2
/// path's bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
fn scatter_slice_avx512(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn scatter_slice_avx2(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

#[inline(always)]
fn scatter_slice_generic(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    let w = gb.len();
    for d in dacc.chunks_exact(w) {
        add(gb, d);
    }
    for f in 0..by_feature.inputs() {
        let rows = by_feature.feature(f);
        if rows.is_empty() {
            continue;
        }
        if w == SLICE {
            // The feature's sum stays in registers across its rows.
            let mut sum = [0.0f32; SLICE];
            let from = by_feature.starts[f] as usize;
            for (at, &r) in (from..).zip(rows) {
                if let Some(&next) = by_feature.rows.get(at + AHEAD) {
                    prefetch_row(dacc, next as usize * SLICE);
                }
                let d: &[f32; SLICE] = dacc[r as usize * SLICE..][..SLICE].try_into().expect("a row");
                for t in 0..SLICE {
                    sum[t] += d[t];
                }
            }
            add(&mut gw[f * SLICE..][..SLICE], &sum);
        } else {
            for &r in rows {
                add(&mut gw[f * w..][..w], &dacc[r as usize * w..][..w]);
            }
        }
    }
}

/// The feature transformer's column slice when its width allows.
const SLICE: usize = 64;

/// How many rows ahead the feature transformer's forward pass and scatter
/// prefetch: their rows are drawn at random from a slice that lives in L2 at
/// best, and each one's first load otherwise stalls the additions behind it.
/// On a 2-core EPYC (AVX2) 16 and 32 ran alike, 8 and 4 slower.
const AHEAD: usize = 16;

/// Asks the CPU to bring the `SLICE` values of `data` from `at` into L1: a
/// hint, which changes no result.
#[inline(always)]
fn prefetch_row(data: &[f32], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let row = data.as_ptr().wrapping_add(at).cast::<i8>();
        for line in 0..size_of::<[f32; SLICE]>() / 64 {
            // SAFETY: a prefetch reads nothing the program sees and never
            // faults, whatever the address; `wrapping_add` keeps the
            // pointer arithmetic defined.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(64 * line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}

fn clipped(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// `a · b + c`, fused where the kernel is compiled for FMA (`mul_add`
/// without the instruction would be a slow library call).
#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `acc += x · row`
#[inline(always)]
fn axpy<const FMA: bool>(acc: &mut [f32], x: f32, row: &[f32]) {
    acc.iter_mut().zip(row).for_each(|(a, &r)| *a = madd::<FMA>(x, r, *a));
}

/// `acc += row`
#[inline(always)]
fn add(acc: &mut [f32], row: &[f32]) {
    acc.iter_mut().zip(row).for_each(|(a, r)| *a += r);
}

/// A dot product in 8 lanes, so it vectorizes without reordering hints.
#[inline(always)]
fn dot<const FMA: bool>(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] = madd::<FMA>(x[i], y[i], lanes[i]);
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Forward pass, loss and (with `grads`) backward pass for the positions in
/// `range`, whose samples lie wholly inside it.
fn run_chunk(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    range: std::ops::Range<usize>,
    grads: Option<(&mut [&mut [f32]], &mut [f32])>,
) -> f64 {
    // Taken out of the thread's slot rather than borrowed in a closure: a
    // closure would not inherit the kernel's target features.
    let mut buffers = BUFFERS.take();
    let loss = run_chunk_with(model, batch, objective, range, grads, &mut buffers);
    BUFFERS.set(buffers);
    loss
}

fn run_chunk_with(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    range: std::ops::Range<usize>,
    grads: Option<(&mut [&mut [f32]], &mut [f32])>,
    buffers: &mut ChunkBuffers,
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if kernels::avx512() {
        // SAFETY: the CPU has AVX-512 (F, BW), AVX2 and FMA (`kernels::avx512`).
        return unsafe { run_chunk_avx512(model, batch, objective, range, grads, buffers) };
    }
    #[cfg(target_arch = "x86_64")]
    if kernels::avx2() {
        // SAFETY: the CPU has AVX2 and FMA (`kernels::avx2`).
        return unsafe { run_chunk_avx2(model, batch, objective, range, grads, buffers) };
    }
    chunk_passes::<false>(model, batch, objective, range, grads, buffers)
}

/// The same code compiled with AVX2 and FMA enabled, for 8-lane vectorization.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_chunk_avx2(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    range: std::ops::Range<usize>,
    grads: Option<(&mut [&mut [f32]], &mut [f32])>,
    buffers: &mut ChunkBuffers,
) -> f64 {
    chunk_passes::<true>(model, batch, objective, range, grads, buffers)
}

/// The same code in 16-lane registers: the element-wise loops (the feature
/// transformer's row sums, the activations, the pairwise gradient) give the
/// same bits at any width, and the reductions (`dot`, the output sums) keep
/// their order, so the result is the AVX2 path's bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
fn run_chunk_avx512(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    range: std::ops::Range<usize>,
    grads: Option<(&mut [&mut [f32]], &mut [f32])>,
    buffers: &mut ChunkBuffers,
) -> f64 {
    chunk_passes::<true>(model, batch, objective, range, grads, buffers)
}

/// One thread's buffers for a chunk's passes, kept from chunk to chunk so
/// that no batch allocates.
#[derive(Default)]
struct ChunkBuffers {
    /// Per position: accumulators and their activations (clipped, or the
    /// pairwise products), and for a pairwise net the activations' gradient.
    acc: Vec<f32>,
    act: Vec<f32>,
    dact: Vec<f32>,
    /// Per position: hidden sums, their gradients, the outputs and theirs.
    z1: Vec<f32>,
    z2: Vec<f32>,
    dz1: Vec<f32>,
    outs: Vec<f32>,
    douts: Vec<f32>,
    /// The chunk's positions ordered by output bucket.
    rows: Vec<usize>,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<ChunkBuffers> = std::cell::RefCell::new(ChunkBuffers::default());
}

/// The runs of `rows` (ordered by bucket) that share a bucket.
fn bucket_runs<'a>(rows: &'a [usize], bucket: impl Fn(usize) -> usize + 'a) -> impl Iterator<Item = &'a [usize]> + 'a {
    rows.chunk_by(move |&a, &b| bucket(a) == bucket(b))
}

#[inline(always)]
fn chunk_passes<const FMA: bool>(
    model: &Model,
    batch: &Batch,
    objective: &Objective,
    range: std::ops::Range<usize>,
    grads: Option<(&mut [&mut [f32]], &mut [f32])>,
    b: &mut ChunkBuffers,
) -> f64 {
    let l = &model.layout;
    let x = &model.params;
    let Shape { inputs: n, ft: m, hidden: o, hidden2: p, buckets, pairwise } = l.shape;
    let (w, last, m2, l1) = (l.slice, l.last(), 2 * l.shape.ft, l.shape.l1_inputs());
    let first = range.start;
    let count = range.len();
    let bucket = |i: usize| output_bucket(batch.pieces[first + i] as u32, buckets);
    b.acc.resize(count * m2, 0.0);
    b.act.resize(count * l1, 0.0);
    b.z1.resize(count * o, 0.0);
    b.z2.resize(count * p, 0.0);
    b.dz1.resize(count * o, 0.0);
    b.outs.resize(count, 0.0);
    b.douts.resize(count, 0.0);

    // Feature transformer, one column slice at a time so that a slice of
    // the accumulator stays in registers while the rows are added; the
    // slice is the outer loop so that its columns (196 KB for `all`) stay
    // in the core's cache for the whole chunk instead of the whole
    // transformer (1.5 MB) passing through it for every position.
    // The chunk's features in one list (positions are consecutive in the
    // batch), to prefetch the row `AHEAD` features on across positions.
    let stream = batch.features_of(first..first + count);
    for s in 0..m / w {
        let bias = &x[l.ft_b + s * w..][..w];
        let columns = &x[l.ft_w + s * n * w..][..n * w];
        let mut at = 0;
        for i in 0..count {
            for k in 0..2 {
                let acc = &mut b.acc[i * m2 + k * m..][..m];
                let features = batch.features(first + i, k);
                if w == SLICE {
                    let mut sum: [f32; SLICE] = bias.try_into().expect("a full slice");
                    for &f in features {
                        if let Some(&next) = stream.get(at + AHEAD) {
                            prefetch_row(columns, next as usize * SLICE);
                        }
                        at += 1;
                        let row: &[f32; SLICE] = columns[f as usize * SLICE..][..SLICE].try_into().expect("a row");
                        for t in 0..SLICE {
                            sum[t] += row[t];
                        }
                    }
                    acc[s * w..][..w].copy_from_slice(&sum);
                } else {
                    let acc = &mut acc[s * w..][..w];
                    acc.copy_from_slice(bias);
                    for &f in features {
                        add(acc, &columns[f as usize * w..][..w]);
                    }
                }
            }
        }
    }
    if pairwise {
        // Each perspective's M accumulators give its M/2 products.
        for (act, acc) in b.act.chunks_exact_mut(m / 2).zip(b.acc.chunks_exact(m)) {
            act.iter_mut().zip(pairwise_products(acc)).for_each(|(a, p)| *a = p);
        }
    } else {
        b.act.iter_mut().zip(&b.acc).for_each(|(a, &v)| *a = clipped(v));
    }

    // The hidden layer as a matrix product over the chunk, bucket by bucket.
    b.rows.clear();
    b.rows.extend(0..count);
    if buckets > 1 {
        b.rows.sort_by_key(|&i| bucket(i));
    }
    for rows in bucket_runs(&b.rows, bucket) {
        let st = l.stack(bucket(rows[0]));
        kernels::hidden_forward(&x[st.l1_w..][..o * l1], &x[st.l1_b..][..o], &b.act, rows, &mut b.z1);
    }
    for i in 0..count {
        let st = l.stack(bucket(i));
        let z1 = &b.z1[i * o..][..o];
        let hidden_out = if p > 0 {
            let z2 = &mut b.z2[i * p..][..p];
            z2.copy_from_slice(&x[st.l2_b..st.l2_b + p]);
            for (k, &z) in z1.iter().enumerate() {
                if z > 0.0 {
                    axpy::<FMA>(z2, clipped(z), &x[st.l2_w + k * p..][..p]);
                }
            }
            &*z2
        } else {
            z1
        };
        b.outs[i] = x[st.out_b]
            + hidden_out.iter().zip(&x[st.out_w..st.out_w + last]).map(|(&h, w)| clipped(h) * w).sum::<f32>();
    }

    let group = objective.group();
    let first_sample = first / group;
    let mut loss = 0.0;
    for s in 0..count / group {
        let at = s * group..(s + 1) * group;
        loss += objective.loss(&b.outs[at.clone()], batch.targets[first_sample + s], &mut b.douts[at]);
    }

    let Some((dacc, partial)) = grads else { return loss };
    partial.fill(0.0);
    let base = l.l1_w;
    let mut dz_last = vec![0.0f32; last];
    for i in 0..count {
        let dout = b.douts[i];
        let st = l.stack(bucket(i));
        let z1 = &b.z1[i * o..][..o];
        let dz1 = &mut b.dz1[i * o..][..o];
        let last_z = if p > 0 { &b.z2[i * p..][..p] } else { z1 };
        partial[st.out_b - base] += dout;
        for j in 0..last {
            partial[st.out_w - base + j] += dout * clipped(last_z[j]);
            dz_last[j] = if passes(last_z[j]) { dout * x[st.out_w + j] } else { 0.0 };
        }
        if p > 0 {
            add(&mut partial[st.l2_b - base..][..p], &dz_last);
            for k in 0..o {
                if z1[k] > 0.0 {
                    axpy::<FMA>(&mut partial[st.l2_w - base + k * p..][..p], clipped(z1[k]), &dz_last);
                }
                dz1[k] = if passes(z1[k]) { dot::<FMA>(&x[st.l2_w + k * p..][..p], &dz_last) } else { 0.0 };
            }
        } else {
            dz1.copy_from_slice(&dz_last);
        }
        add(&mut partial[st.l1_b - base..][..o], dz1);
    }
    // The hidden layer's weight gradient and the gradient reaching the
    // accumulators, as matrix products over each bucket's rows.
    for rows in bucket_runs(&b.rows, bucket) {
        let st = l.stack(bucket(rows[0]));
        kernels::hidden_weight_gradient(&mut partial[st.l1_w - base..][..o * l1], &b.dz1, &b.act, rows, o);
        if pairwise {
            // The products' gradient first, in one slice of the natural
            // layout (row r's M values at r·M). Masked where a product is
            // 0 or at its top (both factors clipped at 1): there neither
            // factor passes gradient, so nothing is lost.
            b.dact.resize(count * l1, 0.0);
            let dact: &mut [f32] = &mut b.dact;
            kernels::hidden_input_gradient(&x[st.l1_w..][..o * l1], &b.dz1, &b.act, rows, o, &mut [dact], l1 / 2);
            for &r in rows {
                pairwise_backward(&b.acc[r * m2..][..m2], &b.dact[r * l1..][..l1], r, w, dacc);
            }
        } else {
            kernels::hidden_input_gradient(&x[st.l1_w..][..o * m2], &b.dz1, &b.acc, rows, o, dacc, w);
        }
    }
    loss
}

/// The accumulator gradient of row `r` of a pairwise net from its products'
/// gradient `dact` (M values, each perspective's M/2 in turn): for product
/// `a·b·c`, `a` gets `dact · b · c` where it is inside its clip, and `b`
/// likewise. Written to the column slices of width `width` as
/// `kernels::hidden_input_gradient` writes them, in runs that lie in one
/// half of the accumulator (a slice is 64 wide, inside a half, or the whole
/// accumulator of a narrow net).
#[inline(always)]
fn pairwise_backward(acc: &[f32], dact: &[f32], r: usize, width: usize, dacc: &mut [&mut [f32]]) {
    let m = acc.len() / 2;
    let half = m / 2;
    let run = width.min(half);
    debug_assert!(width.is_multiple_of(run) && half.is_multiple_of(run));
    for k in 0..2 {
        let (acc, dact) = (&acc[k * m..][..m], &dact[k * half..][..half]);
        for (s, out) in dacc.iter_mut().enumerate() {
            let out = &mut out[(2 * r + k) * width..][..width];
            for (i, out) in out.chunks_exact_mut(run).enumerate() {
                let start = s * width + i * run;
                // These accumulators, their partners in the other half, and
                // the products they share.
                let (partner, product) =
                    if start < half { (start + half, start) } else { (start - half, start - half) };
                let own = &acc[start..][..run];
                let other = &acc[partner..][..run];
                let d = &dact[product..][..run];
                for t in 0..run {
                    out[t] = if passes(own[t]) { d[t] * PAIRWISE_SCALE * clipped(other[t]) } else { 0.0 };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Samples, parse_eval_line, parse_pqr_line};
    use tessera::features::FeatureSet;

    const FENS: [&str; 4] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ];

    fn eval_batch(fs: &FeatureSet) -> Batch {
        let samples: Vec<_> = FENS
            .iter()
            .zip([120, -40, 300, 15])
            .map(|(fen, cp)| parse_eval_line(&format!("{fen} | {cp} | 0.5")).unwrap())
            .collect();
        Batch::build(fs, &Samples::Eval(samples), &[0, 1, 2, 3])
    }

    fn model(fs: &FeatureSet, hidden2: usize) -> Model {
        bucketed_model(fs, hidden2, 1)
    }

    fn bucketed_model(fs: &FeatureSet, hidden2: usize, buckets: usize) -> Model {
        wide_model(fs, 16, hidden2, buckets)
    }

    fn wide_model(fs: &FeatureSet, ft: usize, hidden2: usize, buckets: usize) -> Model {
        shaped_model(fs, Shape::new(fs.size(), ft, 8, hidden2, buckets))
    }

    /// The pairwise twin of [`wide_model`].
    fn pairwise_model(fs: &FeatureSet, ft: usize, hidden2: usize, buckets: usize) -> Model {
        shaped_model(fs, Shape { pairwise: true, ..Shape::new(fs.size(), ft, 8, hidden2, buckets) })
    }

    fn shaped_model(fs: &FeatureSet, shape: Shape) -> Model {
        // Seed 3 leaves one pairwise net's hidden sum within 1e-3 of a clip
        // kink, where the finite difference steps across it (smaller steps
        // agree with the analytic gradient); seed 4 has none near.
        let mut net = FloatNetwork::random_bucketed(fs, shape, if shape.pairwise { 4 } else { 3 });
        // Spread the activations over the clipped range.
        net.ft_bias.iter_mut().for_each(|b| *b += 0.3);
        Model::from_float(&net)
    }

    /// A prefetch is only a hint: one far past the data, or of an empty
    /// slice, reads nothing and does not fault.
    #[test]
    fn prefetching_past_the_data_is_harmless() {
        let data = [1.0f32; SLICE];
        for at in [0, SLICE, 1 << 40, usize::MAX] {
            prefetch_row(&data, at);
            prefetch_row(&[], at);
        }
        assert_eq!(data, [1.0; SLICE]);
    }

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

    #[test]
    fn forward_pass_matches_the_engine_reference() {
        let fs: FeatureSet = "all+ph".parse().unwrap();
        for (hidden2, buckets, pairwise) in [(0, 1, false), (4, 1, false), (0, 8, false), (4, 8, false), (4, 8, true)] {
            let mdl = if pairwise {
                pairwise_model(&fs, 16, hidden2, buckets)
            } else {
                bucketed_model(&fs, hidden2, buckets)
            };
            let batch = eval_batch(&fs);
            let float = mdl.to_float();
            // With λ = 1, power 2 and a result of 0.5 the loss is (σ(out·400/361) − 0.5)².
            let obj = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 1.0, power: 2.0 };
            for (i, fen) in FENS.iter().enumerate() {
                let pos = tessera::board::Board::from_fen(fen, false).unwrap();
                let cp = float.evaluate(&fs, pos.pos());
                let single = Batch::build(
                    &fs,
                    &Samples::Eval(vec![parse_eval_line(&format!("{fen} | 0 | 0.5")).unwrap()]),
                    &[0],
                );
                let loss = loss_and_gradient(&mdl, &single, &obj, None, &mut Scratch::default());
                let expected = (1.0 / (1.0 + (-(cp as f64) / 361.0).exp()) - 0.5).powi(2);
                assert!((loss - expected).abs() < 1e-6, "{i}: {loss} vs {expected}");
            }
            let _ = batch;
        }
    }

    /// Every parameter's gradient against central finite differences.
    fn check_gradients(mdl: &Model, batch: &Batch, obj: &Objective) {
        let mut grad = vec![0.0; mdl.layout.total];
        loss_and_gradient(mdl, batch, obj, Some(&mut grad), &mut Scratch::default());
        let mut probe = mdl.clone();
        let (mut checked, mut nonzero) = (0, 0);
        for (i, &g) in grad.iter().enumerate() {
            // The feature transformer has thousands of rows no position uses.
            if i < mdl.layout.ft_b && g == 0.0 && !i.is_multiple_of(97) {
                continue;
            }
            let eps = 1e-3;
            let original = probe.params[i];
            probe.params[i] = original + eps;
            let up = loss_and_gradient(&probe, batch, obj, None, &mut Scratch::default());
            probe.params[i] = original - eps;
            let down = loss_and_gradient(&probe, batch, obj, None, &mut Scratch::default());
            probe.params[i] = original;
            let numeric = (up - down) / (2.0 * eps as f64);
            let analytic = g as f64;
            // A step across a clipped ReLU's kink makes the difference quotient
            // meaningless; those are rare with these weights and tolerated once.
            assert!(
                (numeric - analytic).abs() <= 2e-4 + 2e-2 * numeric.abs().max(analytic.abs()),
                "parameter {i}: numeric {numeric} vs analytic {analytic} ({:?})",
                mdl.layout
            );
            checked += 1;
            nonzero += (analytic != 0.0) as usize;
        }
        assert!(checked > 500 && nonzero > 200, "{checked} checked, {nonzero} nonzero");
    }

    #[test]
    fn eval_gradients_match_finite_differences() {
        let fs: FeatureSet = "all".parse().unwrap();
        let obj = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 0.3, power: 2.6 };
        for hidden2 in [0, 4] {
            check_gradients(&model(&fs, hidden2), &eval_batch(&fs), &obj);
        }
        // With 8 output buckets the four positions (32, 30, 9 and 32
        // pieces) train three different stacks.
        check_gradients(&bucketed_model(&fs, 4, 8), &eval_batch(&fs), &obj);
        // Width 128: the feature transformer in 64-wide slices, the layout
        // and kernels of real nets.
        check_gradients(&wide_model(&fs, 128, 0, 1), &eval_batch(&fs), &obj);
        // The pairwise product, narrow and in real nets' 64-wide slices
        // (where the products' gradient takes the AVX2 kernel).
        check_gradients(&pairwise_model(&fs, 16, 4, 8), &eval_batch(&fs), &obj);
        check_gradients(&pairwise_model(&fs, 128, 0, 1), &eval_batch(&fs), &obj);
    }

    #[test]
    fn pqr_gradients_match_finite_differences() {
        let fs: FeatureSet = "all+pv".parse().unwrap();
        let triplets = vec![
            parse_pqr_line(&format!("{} | e1g1 | a2a3", FENS[0])).unwrap(),
            parse_pqr_line(&format!("{} | d7c8q | b2b3", FENS[1])).unwrap(),
        ];
        let batch = Batch::build(&fs, &Samples::Pqr(triplets), &[0, 1]);
        assert_eq!(batch.positions, 6);
        check_gradients(&model(&fs, 0), &batch, &Objective::Pqr { out_scale: 361.0 });
    }

    #[test]
    fn gradients_do_not_depend_on_the_number_of_threads() {
        let fs: FeatureSet = "all".parse().unwrap();
        let samples: Vec<_> =
            (0..400).map(|i| parse_eval_line(&format!("{} | {} | 1.0", FENS[i % 4], i)).unwrap()).collect();
        let order: Vec<u32> = (0..400).collect();
        let batch = Batch::build(&fs, &Samples::Eval(samples), &order);
        let obj = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 0.0, power: 2.6 };
        for (buckets, pairwise) in [(1, false), (8, false), (8, true)] {
            let mdl = if pairwise { pairwise_model(&fs, 64, 0, buckets) } else { bucketed_model(&fs, 0, buckets) };
            let run = |threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    let mut grad = vec![0.0; mdl.layout.total];
                    let loss = loss_and_gradient(&mdl, &batch, &obj, Some(&mut grad), &mut Scratch::default());
                    (loss, grad)
                })
            };
            assert_eq!(run(1), run(3), "{buckets} buckets, pairwise {pairwise}");
        }
    }
}

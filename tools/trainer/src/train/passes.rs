//! The forward and backward passes of the float network over a batch: the
//! loss and its gradient, chunk by chunk in parallel, the dense layers'
//! gradients summed in chunk order and the feature transformer's scattered
//! slice by slice (`sparse`).
//!
//! Every gradient element is summed over the batch in the same order
//! whatever the number of threads, so a seed gives one network.

use rayon::prelude::*;
use tessera::nnue::format::{Shape, output_bucket};
use tessera::nnue::network::{PAIRWISE_SCALE, pairwise_products};

use crate::train::batch::Batch;
use crate::train::kernels::{self, passes};
use crate::train::loss::Objective;
use crate::train::model::Model;
use crate::train::sparse::{AHEAD, ByFeature, SLICE, prefetch_row, scatter_slice};

/// Positions per parallel work item (a multiple of every objective's group).
const CHUNK: usize = 126;

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
pub(super) fn add(acc: &mut [f32], row: &[f32]) {
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

/// `chunk_passes` compiled for a CPU level: with AVX2 and FMA for 8-lane
/// vectorization, or in 16-lane AVX-512 registers, where the element-wise
/// loops (the feature transformer's row sums, the activations, the pairwise
/// gradient) give the same bits at any width, and the reductions (`dot`,
/// the output sums) keep their order, so the result is the AVX2 path's bit
/// for bit.
macro_rules! run_chunk_for {
    ($name:ident, $features:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name(
            model: &Model,
            batch: &Batch,
            objective: &Objective,
            range: std::ops::Range<usize>,
            grads: Option<(&mut [&mut [f32]], &mut [f32])>,
            buffers: &mut ChunkBuffers,
        ) -> f64 {
            chunk_passes::<true>(model, batch, objective, range, grads, buffers)
        }
    };
}

run_chunk_for!(run_chunk_avx2, "avx2,fma");
run_chunk_for!(run_chunk_avx512, "avx512f,avx512bw,avx2,fma");

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

/// The chunk's accumulators (`2M` per position, both perspectives) from the
/// feature transformer.
#[inline(always)]
fn accumulate(model: &Model, batch: &Batch, range: std::ops::Range<usize>, acc: &mut [f32]) {
    let (l, x) = (&model.layout, &model.params);
    let (n, m, w) = (l.shape.inputs, l.shape.ft, l.slice);
    let m2 = 2 * m;
    // Feature transformer, one column slice at a time so that a slice of
    // the accumulator stays in registers while the rows are added; the
    // slice is the outer loop so that its columns (196 KB for `all`) stay
    // in the core's cache for the whole chunk instead of the whole
    // transformer (1.5 MB) passing through it for every position.
    // The chunk's features in one list (positions are consecutive in the
    // batch), to prefetch the row `AHEAD` features on across positions.
    let stream = batch.features_of(range.clone());
    for s in 0..m / w {
        let bias = &x[l.ft_b + s * w..][..w];
        let columns = &x[l.ft_w + s * n * w..][..n * w];
        let mut at = 0;
        for (i, pos) in range.clone().enumerate() {
            for k in 0..2 {
                let acc = &mut acc[i * m2 + k * m..][..m];
                let features = batch.features(pos, k);
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
    let Shape { ft: m, hidden: o, hidden2: p, buckets, pairwise, .. } = l.shape;
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

    accumulate(model, batch, first..first + count, &mut b.acc);
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
    use crate::data::samples::{Samples, parse_eval_line, parse_pqr_line};
    use tessera::features::FeatureSet;
    use tessera::nnue::network::FloatNetwork;

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

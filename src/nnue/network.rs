//! The network: a float reference (what the trainer optimises) and its
//! quantized form (what the engine runs), plus the conversion between them.

use shakmaty::{Chess, Color, Position};

use super::accumulator;
use super::format::{DEFAULT_SCALES, FormatError, NetFile, Scales, Shape, Tensors, output_bucket};
use super::layers::affine::{affine, affine_grouped, interleave_groups, pairs_fit_in_16_bits};
use super::layers::clipped_relu::{crelu_i16, crelu_i32, pairwise_i16};
use crate::features::{FeatureSet, Perspective};
use crate::simd::Avx2;

/// Float weights are kept inside this range so that ×64 fits an i8.
pub const MAX_HIDDEN_WEIGHT: f32 = 127.0 / 64.0;

/// The float network. Activations are clipped to 0..1; the output times
/// `Scales::output_cp` is the evaluation in centipawns, side to move's view.
/// The tensors after the feature transformer hold `shape.buckets` stacks,
/// one after the other, laid out as in the file (nets/FORMAT.md).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    pub features: String,
    pub shape: Shape,
    pub ft_bias: Vec<f32>,
    pub ft_weights: Vec<f32>,
    pub hidden_bias: Vec<f32>,
    pub hidden_weights: Vec<f32>,
    pub hidden2_bias: Vec<f32>,
    pub hidden2_weights: Vec<f32>,
    pub output_bias: Vec<f32>,
    pub output_weights: Vec<f32>,
}

fn dense(input: &[f32], weights: &[f32], bias: &[f32]) -> Vec<f32> {
    bias.iter()
        .enumerate()
        .map(|(o, b)| b + input.iter().zip(&weights[o * input.len()..]).map(|(x, w)| x * w).sum::<f32>())
        .collect()
}

fn clip(v: Vec<f32>) -> Vec<f32> {
    v.into_iter().map(|x| x.clamp(0.0, 1.0)).collect()
}

/// The engine's pairwise product `(a·b) >> 7` of two activations at scale
/// 127 stands for `a·b·127/128` at scale 1: the float network multiplies
/// by this so that its quantized twin computes the same function.
pub const PAIRWISE_SCALE: f32 = 127.0 / 128.0;

/// One perspective's activations of a pairwise net: the first half of the
/// clipped accumulator times the second, element by element.
pub fn pairwise_products(acc: &[f32]) -> impl Iterator<Item = f32> + '_ {
    let (first, second) = acc.split_at(acc.len() / 2);
    first.iter().zip(second).map(|(a, b)| a.clamp(0.0, 1.0) * b.clamp(0.0, 1.0) * PAIRWISE_SCALE)
}

impl FloatNetwork {
    /// A network with small random weights (deterministic in `seed`), for
    /// tests and as the trainer's starting point.
    pub fn random(features: &FeatureSet, ft: usize, hidden: usize, hidden2: usize, seed: u64) -> FloatNetwork {
        FloatNetwork::random_bucketed(features, Shape::new(features.size(), ft, hidden, hidden2, 1), seed)
    }

    /// [`FloatNetwork::random`] for any shape (`shape.inputs` must be the
    /// feature set's size).
    pub fn random_bucketed(features: &FeatureSet, shape: Shape, seed: u64) -> FloatNetwork {
        let Shape { ft, hidden, hidden2, buckets: k, .. } = shape;
        let l1 = shape.l1_inputs();
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        let mut uniform = move |scale: f32| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        };
        let last = shape.last();
        let mut fill = |n: usize, scale: f32| (0..n).map(|_| uniform(scale)).collect::<Vec<f32>>();
        FloatNetwork {
            features: features.expression().to_string(),
            shape,
            ft_bias: fill(ft, 0.1),
            ft_weights: fill(shape.inputs * ft, 0.1),
            hidden_bias: fill(k * hidden, 0.1),
            hidden_weights: fill(k * hidden * l1, 1.0 / (l1 as f32 / 2.0).sqrt()),
            hidden2_bias: fill(k * hidden2, 0.1),
            hidden2_weights: fill(k * hidden2 * hidden, 1.0 / (hidden as f32).sqrt()),
            output_bias: fill(k, 0.1),
            output_weights: fill(k * last, 1.0 / (last as f32).sqrt()),
        }
    }

    /// The reference forward pass, in centipawns for the side to move.
    pub fn evaluate(&self, fs: &FeatureSet, pos: &Chess) -> f32 {
        let m = self.shape.ft;
        let mut input = Vec::with_capacity(2 * m);
        let mut active = Vec::new();
        for color in [pos.turn(), !pos.turn()] {
            let mut acc = self.ft_bias.clone();
            active.clear();
            fs.active(pos, Perspective(color), &mut active);
            for &i in &active {
                for (a, w) in acc.iter_mut().zip(&self.ft_weights[i as usize * m..(i as usize + 1) * m]) {
                    *a += w;
                }
            }
            if self.shape.pairwise {
                input.extend(pairwise_products(&acc));
            } else {
                input.extend(clip(acc));
            }
        }
        let Shape { hidden: o, hidden2: p, .. } = self.shape;
        let (b, last) = (output_bucket(pos.board().occupied().count() as u32, self.shape.buckets), self.shape.last());
        let l1 = self.shape.l1_inputs();
        let mut h = clip(dense(&input, &self.hidden_weights[b * o * l1..], &self.hidden_bias[b * o..(b + 1) * o]));
        if p > 0 {
            h = clip(dense(&h, &self.hidden2_weights[b * p * o..], &self.hidden2_bias[b * p..(b + 1) * p]));
        }
        let out = self.output_bias[b]
            + h.iter().zip(&self.output_weights[b * last..(b + 1) * last]).map(|(x, w)| x * w).sum::<f32>();
        out * DEFAULT_SCALES.output_cp as f32
    }

    /// The float network a quantized file stands for: every integer divided
    /// by its scale, the inverse of [`FloatNetwork::quantize`] (so quantizing
    /// the result gives the file's tensors back). The trainer starts from it
    /// with `--init`, so a committed net can seed the next one.
    pub fn dequantize(file: &NetFile) -> FloatNetwork {
        let s = file.scales;
        let t = &file.tensors;
        let ft = |v: &[i16]| v.iter().map(|&x| f32::from(x) / s.ft as f32).collect();
        let weight = |v: &[i8]| v.iter().map(|&x| f32::from(x) / s.weight as f32).collect();
        let bias = |v: &[i32]| v.iter().map(|&x| x as f32 / (s.ft * s.weight) as f32).collect();
        FloatNetwork {
            features: file.features.clone(),
            shape: file.shape,
            ft_bias: ft(&t.ft_bias),
            ft_weights: ft(&t.ft_weights),
            hidden_bias: bias(&t.hidden_bias),
            hidden_weights: weight(&t.hidden_weights),
            hidden2_bias: bias(&t.hidden2_bias),
            hidden2_weights: weight(&t.hidden2_weights),
            output_bias: bias(&t.output_bias),
            output_weights: weight(&t.output_weights),
        }
    }

    /// Stockfish's quantization (nets/FORMAT.md, "Arithmetic").
    pub fn quantize(&self, description: &str) -> NetFile {
        let s = DEFAULT_SCALES;
        let ft = |v: &[f32]| v.iter().map(|x| (x * s.ft as f32).round().clamp(-32768.0, 32767.0) as i16).collect();
        let weight = |v: &[f32]| v.iter().map(|x| (x * s.weight as f32).round().clamp(-127.0, 127.0) as i8).collect();
        let bias = |v: &[f32]| v.iter().map(|x| (x * (s.ft * s.weight) as f32).round() as i32).collect();
        NetFile {
            features: self.features.clone(),
            description: description.to_string(),
            shape: self.shape,
            scales: s,
            tensors: Tensors {
                ft_bias: ft(&self.ft_bias),
                ft_weights: ft(&self.ft_weights),
                hidden_bias: bias(&self.hidden_bias),
                hidden_weights: weight(&self.hidden_weights),
                hidden2_bias: bias(&self.hidden2_bias),
                hidden2_weights: weight(&self.hidden2_weights),
                output_bias: bias(&self.output_bias),
                output_weights: weight(&self.output_weights),
            },
        }
    }
}

/// The layers of one output bucket.
struct Stack<'a> {
    hidden_weights: &'a [i8],
    hidden_grouped: Option<&'a [i8]>,
    hidden_bias: &'a [i32],
    hidden2_weights: &'a [i8],
    hidden2_bias: &'a [i32],
    output_weights: &'a [i8],
    output_bias: i32,
}

/// The first hidden layer of every bucket in the grouped kernels' layout,
/// concatenated (`None` where that kernel does not apply).
fn interleave_buckets(weights: &[i8], shape: Shape) -> Option<Vec<i8>> {
    let per_bucket = shape.hidden * shape.l1_inputs();
    let mut out = Vec::with_capacity(weights.len());
    for bucket in weights.chunks_exact(per_bucket) {
        out.extend(interleave_groups(bucket, shape.l1_inputs(), shape.hidden)?);
    }
    Some(out)
}

/// Whether the fused AVX2 first layer is exact for every bucket: inputs are
/// at most 126 for a pairwise net (`(127 · 127) >> 7`), 127 otherwise.
fn fused_exact(weights: &[i8], shape: Shape) -> bool {
    let per_bucket = shape.hidden * shape.l1_inputs();
    let max_input = if shape.pairwise { 126 } else { 127 };
    weights.chunks_exact(per_bucket).all(|b| pairs_fit_in_16_bits(b, shape.l1_inputs(), shape.hidden, max_input))
}

/// Why a net could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    Format(FormatError),
    Features(String),
    Mismatch(String),
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::Format(e) => write!(f, "{e}"),
            NetError::Features(e) => write!(f, "net file names an unusable feature set: {e}"),
            NetError::Mismatch(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for NetError {}

/// The quantized network the engine runs.
pub struct Network {
    pub features: FeatureSet,
    pub shape: Shape,
    pub scales: Scales,
    pub description: String,
    /// Short hash of the file's bytes, to name the net in logs.
    pub hash: String,
    tensors: Tensors,
    /// The first hidden layer's weights in the grouped kernels' layout, bucket
    /// after bucket.
    hidden_grouped: Option<Vec<i8>>,
    /// Whether every bucket's first hidden layer admits the fused AVX2
    /// kernel exactly (`pairs_fit_in_16_bits`).
    hidden_fused: bool,
    /// The SIMD kernels this net runs with (none: the scalar ones).
    simd: Option<Avx2>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({} {} {})", self.features.expression(), self.shape, self.hash)
    }
}

impl Network {
    /// Reads a net file; checks that the tensors fit the feature set it names.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let file = NetFile::parse(bytes).map_err(NetError::Format)?;
        let features: FeatureSet = file.features.parse().map_err(|e| NetError::Features(format!("{e}")))?;
        if features.size() != file.shape.inputs {
            return Err(NetError::Mismatch(format!(
                "feature set '{}' has {} inputs but the net has {}",
                file.features,
                features.size(),
                file.shape.inputs
            )));
        }
        if file.scales != DEFAULT_SCALES {
            return Err(NetError::Mismatch(format!("unsupported quantization scales {:?}", file.scales)));
        }
        Ok(Network {
            features,
            shape: file.shape,
            scales: file.scales,
            description: file.description,
            hash: NetFile::content_hash(bytes),
            hidden_grouped: interleave_buckets(&file.tensors.hidden_weights, file.shape),
            hidden_fused: fused_exact(&file.tensors.hidden_weights, file.shape),
            tensors: file.tensors,
            simd: Avx2::detect(),
        })
    }

    /// Refuses a net whose feature set or shape differs from `other`'s
    /// (a net loaded at run time must match the compiled one).
    pub fn check_same_kind(&self, features: &str, shape: Shape) -> Result<(), NetError> {
        if self.features.expression() != features || self.shape != shape {
            return Err(NetError::Mismatch(format!(
                "net is '{}' {} but this engine was built for '{features}' {shape}",
                self.features.expression(),
                self.shape
            )));
        }
        Ok(())
    }

    /// Uses the scalar kernels even where AVX2 exists (tests, benchmarks).
    pub fn force_scalar(&mut self, scalar: bool) {
        self.simd = if scalar { None } else { Avx2::detect() };
    }

    /// One line naming the net: feature set, sizes, content hash.
    pub fn summary(&self) -> String {
        format!("net {} {} hash {}", self.features.expression(), self.shape, self.hash)
    }

    /// The accumulator of one perspective, from scratch.
    pub fn refresh(&self, pos: &Chess, color: Color, acc: &mut [i16], scratch: &mut Vec<u32>) {
        scratch.clear();
        self.features.active(pos, Perspective(color), scratch);
        accumulator::apply(self.columns(), &self.tensors.ft_bias, acc, scratch, &[], self.simd);
    }

    /// `child = parent + Σ added − Σ removed` feature columns, in one pass.
    pub fn update_accumulator(&self, parent: &[i16], child: &mut [i16], added: &[u32], removed: &[u32]) {
        accumulator::apply(self.columns(), parent, child, added, removed, self.simd);
    }

    /// The feature transformer's biases: the accumulator of no features.
    pub fn biases(&self) -> &[i16] {
        &self.tensors.ft_bias
    }

    fn columns(&self) -> accumulator::Columns<'_> {
        accumulator::Columns { weights: &self.tensors.ft_weights, width: self.shape.ft }
    }

    /// The output bucket of a position with `pieces` pieces on the board.
    #[inline]
    pub fn bucket(&self, pieces: u32) -> usize {
        output_bucket(pieces, self.shape.buckets)
    }

    /// The evaluation in centipawns from the two accumulators, the side to
    /// move's first, through the layers of output bucket `bucket`
    /// ([`Network::bucket`]). A net of the shape the engine was built for
    /// takes the path compiled for those sizes (stack buffers, fixed loop
    /// counts).
    pub fn evaluate(&self, ours: &[i16], theirs: &[i16], bucket: usize) -> i32 {
        use super::compiled::{FT, HIDDEN, HIDDEN2, L1_INPUTS, PAIRWISE};
        let s = self.shape;
        let bucket = bucket.min(s.buckets - 1);
        if FT > 0 && (s.ft, s.hidden, s.hidden2, s.pairwise) == (FT, HIDDEN, HIDDEN2, PAIRWISE) {
            self.evaluate_fixed::<FT, L1_INPUTS, HIDDEN, HIDDEN2>(ours, theirs, bucket)
        } else {
            self.evaluate_any(ours, theirs, bucket)
        }
    }

    /// Bucket `b`'s layers: first hidden weights (and their grouped layout),
    /// biases, second hidden layer, output weights and bias.
    fn stack(&self, b: usize) -> Stack<'_> {
        let (t, Shape { hidden: o, hidden2: p, .. }) = (&self.tensors, self.shape);
        let (l1, last) = (o * self.shape.l1_inputs(), self.shape.last());
        Stack {
            hidden_weights: &t.hidden_weights[b * l1..(b + 1) * l1],
            hidden_grouped: self.hidden_grouped.as_deref().map(|w| &w[b * l1..(b + 1) * l1]),
            hidden_bias: &t.hidden_bias[b * o..(b + 1) * o],
            hidden2_weights: &t.hidden2_weights[b * p * o..(b + 1) * p * o],
            hidden2_bias: &t.hidden2_bias[b * p..(b + 1) * p],
            output_weights: &t.output_weights[b * last..(b + 1) * last],
            output_bias: t.output_bias[b],
        }
    }

    /// The first hidden layer's input from the two accumulators: each
    /// clipped, or (pairwise) each one's halves multiplied.
    fn activate(&self, ours: &[i16], theirs: &[i16], input: &mut [u8]) {
        let (first, second) = input.split_at_mut(input.len() / 2);
        if self.shape.pairwise {
            pairwise_i16(ours, first, self.simd);
            pairwise_i16(theirs, second, self.simd);
        } else {
            crelu_i16(ours, first, self.simd);
            crelu_i16(theirs, second, self.simd);
        }
    }

    fn evaluate_fixed<const M: usize, const L1: usize, const H: usize, const H2: usize>(
        &self,
        ours: &[i16],
        theirs: &[i16],
        bucket: usize,
    ) -> i32 {
        let stack = self.stack(bucket);
        let mut input = [0u8; L1];
        self.activate(&ours[..M], &theirs[..M], &mut input);
        let mut sums = [0i32; H];
        self.first_layer(&stack, &input, &mut sums);
        let mut hidden = [0u8; H];
        crelu_i32(&sums, &mut hidden);
        if H2 == 0 {
            return self.output(&stack, &hidden);
        }
        let mut sums2 = [0i32; H2];
        affine(&hidden, stack.hidden2_weights, stack.hidden2_bias, &mut sums2, self.simd);
        let mut hidden2 = [0u8; H2];
        crelu_i32(&sums2, &mut hidden2);
        self.output(&stack, &hidden2)
    }

    /// Any shape (nets loaded into a build without an embedded one).
    fn evaluate_any(&self, ours: &[i16], theirs: &[i16], bucket: usize) -> i32 {
        let stack = self.stack(bucket);
        let mut input = vec![0u8; self.shape.l1_inputs()];
        self.activate(ours, theirs, &mut input);
        let mut sums = vec![0i32; self.shape.hidden];
        self.first_layer(&stack, &input, &mut sums);
        let mut hidden = vec![0u8; self.shape.hidden];
        crelu_i32(&sums, &mut hidden);
        if self.shape.hidden2 > 0 {
            let mut sums2 = vec![0i32; self.shape.hidden2];
            affine(&hidden, stack.hidden2_weights, stack.hidden2_bias, &mut sums2, self.simd);
            hidden = vec![0u8; self.shape.hidden2];
            crelu_i32(&sums2, &mut hidden);
        }
        self.output(&stack, &hidden)
    }

    /// The output neuron, scaled to centipawns.
    /// The first hidden layer of a bucket: `sums = bias + weights · input`,
    /// on the grouped kernels where they apply.
    fn first_layer(&self, stack: &Stack<'_>, input: &[u8], sums: &mut [i32]) {
        affine_grouped(
            input,
            stack.hidden_weights,
            stack.hidden_grouped,
            self.hidden_fused,
            stack.hidden_bias,
            sums,
            self.simd,
        );
    }

    fn output(&self, stack: &Stack<'_>, hidden: &[u8]) -> i32 {
        let out = stack.output_bias
            + hidden.iter().zip(stack.output_weights).map(|(&h, &w)| h as i32 * w as i32).sum::<i32>();
        (out as i64 * self.scales.output_cp as i64 / (self.scales.ft * self.scales.weight) as i64) as i32
    }

    /// The evaluation of a position from scratch (no incremental state).
    pub fn evaluate_position(&self, pos: &Chess) -> i32 {
        let m = self.shape.ft;
        let (mut ours, mut theirs, mut scratch) = (vec![0i16; m], vec![0i16; m], Vec::new());
        self.refresh(pos, pos.turn(), &mut ours, &mut scratch);
        self.refresh(pos, !pos.turn(), &mut theirs, &mut scratch);
        self.evaluate(&ours, &theirs, self.bucket(pos.board().occupied().count() as u32))
    }
}

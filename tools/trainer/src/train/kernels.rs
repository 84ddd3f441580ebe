//! The hidden layer's three matrix products over a chunk of positions: the
//! forward pass, the weight gradient and the gradient reaching the
//! accumulators. Each has a scalar version (the reference, and the path of
//! CPUs without AVX2 and FMA), an AVX2 twin that keeps a tile of the result
//! in registers so that every vector loaded serves several products, and an
//! AVX-512 twin giving the AVX2 twin's results bit for bit.
//!
//! Shapes: `w` holds O rows of 2M weights; `act`, `acc` and `dacc` 2M values
//! per position and `z`, `dz` O per position, each indexed by the position's
//! row number; `rows` lists the positions to work on (those of one output
//! bucket), in the order their contributions are summed.

/// Whether the CPU has AVX2 and FMA, which every SIMD path here needs, and
/// `TESSERA_SIMD` allows them (the engine's detection: `tessera::simd`).
pub(crate) fn avx2() -> bool {
    tessera::simd::Fma::detect().is_some()
}

/// Whether the CPU also has the AVX-512 subsets the 16-lane paths use (F and
/// BW), with FMA, and the cap allows them.
pub(crate) fn avx512() -> bool {
    tessera::simd::Avx512::detect().and_then(tessera::simd::Avx512::fma).is_some()
}

/// Whether the AVX2 kernels can run here (and the widths suit them).
fn use_avx2(m2: usize) -> bool {
    m2.is_multiple_of(16) && avx2()
}

/// Whether the clipped ReLU passes gradient at `x`. Branch-free (`&`, not
/// `&&`), so that the loops testing it vectorize.
pub(crate) fn passes(x: f32) -> bool {
    (x > 0.0) & (x < 1.0)
}

/// `z[r][k] = bias[k] + w[k] · act[r]` for each row `r`.
pub fn hidden_forward(w: &[f32], bias: &[f32], act: &[f32], rows: &[usize], z: &mut [f32]) {
    let (o, m2) = (bias.len(), w.len() / bias.len());
    check(w, act, rows, o, m2);
    assert!(rows.iter().all(|&r| (r + 1) * o <= z.len()));
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) && avx512() {
        // SAFETY: as below, and the CPU has AVX-512 F and BW.
        return unsafe { avx512::hidden_forward(w, bias, act, rows, z) };
    }
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) {
        // SAFETY: the CPU has AVX2 and FMA and 2M is a multiple of 16
        // (`use_avx2`); every row read or written is inside its slice
        // (asserted above).
        return unsafe { avx2::hidden_forward(w, bias, act, rows, z) };
    }
    hidden_forward_scalar(w, bias, act, rows, z)
}

/// `g[k] += Σ_r dz[r][k] · act[r]`, the rows summed in order.
pub fn hidden_weight_gradient(g: &mut [f32], dz: &[f32], act: &[f32], rows: &[usize], o: usize) {
    let m2 = g.len() / o;
    check(g, act, rows, o, m2);
    assert!(rows.iter().all(|&r| (r + 1) * o <= dz.len()));
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) && avx512() {
        // SAFETY: as in `hidden_forward`, and the CPU has AVX-512 F and BW.
        return unsafe { avx512::hidden_weight_gradient(g, dz, act, rows, o) };
    }
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) {
        // SAFETY: as in `hidden_forward`.
        return unsafe { avx2::hidden_weight_gradient(g, dz, act, rows, o) };
    }
    hidden_weight_gradient_scalar(g, dz, act, rows, o)
}

/// `dacc[r] = Σ_k dz[r][k] · w[k]`, zero where `acc[r]` was clipped (the
/// clipped ReLU passes no gradient there), written slice by slice: input
/// `j = k·M + s·width + t` of row `r` (perspective k, column slice s) goes
/// to `out[s][(2r + k)·width + t]`, the layout the feature transformer's
/// gradient is summed from.
pub fn hidden_input_gradient(
    w: &[f32],
    dz: &[f32],
    acc: &[f32],
    rows: &[usize],
    o: usize,
    out: &mut [&mut [f32]],
    width: usize,
) {
    let m2 = w.len() / o;
    check(w, acc, rows, o, m2);
    let slices = m2 / 2 / width;
    assert!(width * slices * 2 == m2 && out.len() == slices, "{slices} slices of {width}");
    assert!(rows.iter().all(|&r| (r + 1) * o <= dz.len() && out.iter().all(|s| (2 * r + 2) * width <= s.len())));
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) && width.is_multiple_of(16) && avx512() {
        // SAFETY: as for the AVX2 kernel below, and the CPU has AVX-512 F and BW.
        return unsafe { avx512::hidden_input_gradient(w, dz, acc, rows, o, out, width) };
    }
    #[cfg(target_arch = "x86_64")]
    if use_avx2(m2) && width.is_multiple_of(16) {
        // SAFETY: as in `hidden_forward`; 16-input blocks never straddle
        // a slice (width a multiple of 16).
        return unsafe { avx2::hidden_input_gradient(w, dz, acc, rows, o, out, width) };
    }
    hidden_input_gradient_scalar(w, dz, acc, rows, o, out, width)
}

/// Where input `j` of row `r` goes: (slice, offset in it).
fn place(j: usize, r: usize, m: usize, width: usize) -> (usize, usize) {
    let (k, c) = (j / m, j % m);
    (c / width, (2 * r + k) * width + c % width)
}

/// A block of 16 inputs of the accumulator gradient: from input `j`,
/// written to `out` (its column slice), row r's at `start + r · stride`
/// (`place` for row 0, and a row spans both perspectives).
#[cfg(target_arch = "x86_64")]
struct Block<'a> {
    j: usize,
    out: &'a mut [f32],
    start: usize,
    stride: usize,
}

#[cfg(target_arch = "x86_64")]
impl<'a> Block<'a> {
    /// The block of 16 inputs from `j` of a net with `m2` inputs and column
    /// slices of `width`, in its slice of `out`.
    fn new(j: usize, m2: usize, width: usize, out: &'a mut [&mut [f32]]) -> Block<'a> {
        let (slice, start) = place(j, 0, m2 / 2, width);
        Block { j, out: &mut *out[slice], start, stride: 2 * width }
    }

    /// Where row `r`'s 16 values start in `out`.
    fn at(&self, r: usize) -> usize {
        self.start + r * self.stride
    }
}

fn check(w: &[f32], per_position: &[f32], rows: &[usize], o: usize, m2: usize) {
    assert!(o > 0 && w.len() == o * m2, "weights of {o} rows of {m2}");
    assert!(rows.iter().all(|&r| (r + 1) * m2 <= per_position.len()), "a row beyond the chunk");
}

pub fn hidden_forward_scalar(w: &[f32], bias: &[f32], act: &[f32], rows: &[usize], z: &mut [f32]) {
    let (o, m2) = (bias.len(), w.len() / bias.len());
    for &r in rows {
        let a = &act[r * m2..][..m2];
        for k in 0..o {
            z[r * o + k] = bias[k] + w[k * m2..][..m2].iter().zip(a).map(|(w, a)| w * a).sum::<f32>();
        }
    }
}

pub fn hidden_weight_gradient_scalar(g: &mut [f32], dz: &[f32], act: &[f32], rows: &[usize], o: usize) {
    let m2 = g.len() / o;
    for &r in rows {
        for k in 0..o {
            let d = dz[r * o + k];
            g[k * m2..][..m2].iter_mut().zip(&act[r * m2..][..m2]).for_each(|(g, a)| *g += d * a);
        }
    }
}

pub fn hidden_input_gradient_scalar(
    w: &[f32],
    dz: &[f32],
    acc: &[f32],
    rows: &[usize],
    o: usize,
    out: &mut [&mut [f32]],
    width: usize,
) {
    let m2 = w.len() / o;
    for &r in rows {
        for j in 0..m2 {
            let mut x = 0.0;
            for k in 0..o {
                x += dz[r * o + k] * w[k * m2 + j];
            }
            let (s, at) = place(j, r, m2 / 2, width);
            out[s][at] = if passes(acc[r * m2 + j]) { x } else { 0.0 };
        }
    }
}

/// The two gradient kernels' one body, for a register set that holds a
/// block of 16 floats as its module's `Lanes16` (AVX2: two registers,
/// AVX-512: one), through five operations the module defines: `zero`,
/// `load`, `store`, `fmadd` (`s + d · a`, `d` broadcast) and `store_live`
/// (the sum where the clipped ReLU passed gradient, zero elsewhere).
/// `wide` is how many blocks of 16 inputs a weight-gradient tile spans where
/// the inputs allow, `rows` how many rows an input-gradient tile holds: what
/// the register file has room for. Every result element is the same chain
/// of multiply-adds in the same order whatever the tiling (over the rows for
/// the weight gradient, over the neurons for the input gradient; the
/// products skipped are exact zeros), so both instantiations give the same
/// bits.
#[cfg(target_arch = "x86_64")]
macro_rules! gradient_kernels {
    ($features:literal, wide: $wide:literal, rows: $rows:literal) => {
        /// SAFETY (for callers): the module's CPU features present, 2M a
        /// multiple of 16, every row in bounds.
        ///
        /// The block of inputs is the outer loop: its activations of every
        /// row (8 KB for a chunk at 16 inputs) come from L2 once and stay in
        /// L1 for all the neuron groups, where walking the rows inside each
        /// group would fetch them again for every group, 4 KB apart.
        #[target_feature(enable = $features)]
        pub unsafe fn hidden_weight_gradient(g: &mut [f32], dz: &[f32], act: &[f32], rows: &[usize], o: usize) {
            let m2 = g.len() / o;
            let mut j = 0;
            while j < m2 {
                let wide = j + 16 * $wide <= m2;
                // Four neurons at a time (six measured no faster with AVX2),
                // then what is left in pairs and singles.
                let mut k = 0;
                while k < o {
                    let n = if k + 4 <= o {
                        4
                    } else if k + 2 <= o {
                        2
                    } else {
                        1
                    };
                    // SAFETY: the caller's promise, passed on.
                    unsafe {
                        match (n, wide) {
                            (4, true) => weight_gradient_tile::<4, $wide>(g, dz, act, rows, o, k, j),
                            (4, false) => weight_gradient_tile::<4, 1>(g, dz, act, rows, o, k, j),
                            (2, true) => weight_gradient_tile::<2, $wide>(g, dz, act, rows, o, k, j),
                            (2, false) => weight_gradient_tile::<2, 1>(g, dz, act, rows, o, k, j),
                            (_, true) => weight_gradient_tile::<1, $wide>(g, dz, act, rows, o, k, j),
                            (_, false) => weight_gradient_tile::<1, 1>(g, dz, act, rows, o, k, j),
                        }
                    }
                    k += n;
                }
                j += if wide { 16 * $wide } else { 16 };
            }
        }

        /// N neurons (from k) × B blocks of 16 inputs (from j) of the
        /// gradient in registers while the rows go by.
        #[target_feature(enable = $features)]
        unsafe fn weight_gradient_tile<const N: usize, const B: usize>(
            g: &mut [f32],
            dz: &[f32],
            act: &[f32],
            rows: &[usize],
            o: usize,
            k: usize,
            j: usize,
        ) {
            let m2 = g.len() / o;
            let out: [*mut f32; N] = std::array::from_fn(|i| g[(k + i) * m2 + j..][..16 * B].as_mut_ptr());
            // SAFETY: each pointer starts 16·B floats inside g.
            let mut s: [[Lanes16; B]; N] =
                std::array::from_fn(|i| std::array::from_fn(|b| unsafe { load(out[i].add(16 * b)) }));
            for &r in rows {
                let d = &dz[r * o + k..][..N];
                // Neurons the clipped ReLU stopped pass no gradient: often
                // all four of a tile.
                if d.iter().all(|&d| d == 0.0) {
                    continue;
                }
                let a = act[r * m2 + j..][..16 * B].as_ptr();
                // SAFETY: a points at 16·B floats of act.
                let av: [Lanes16; B] = std::array::from_fn(|b| unsafe { load(a.add(16 * b)) });
                for i in 0..N {
                    for b in 0..B {
                        s[i][b] = fmadd(d[i], av[b], s[i][b]);
                    }
                }
            }
            for (out, s) in out.iter().zip(s) {
                for (b, s) in s.into_iter().enumerate() {
                    // SAFETY: as for the loads.
                    unsafe { store(out.add(16 * b), s) };
                }
            }
        }

        /// SAFETY (for callers): the module's CPU features present, 2M and
        /// the width multiples of 16, every row in bounds.
        ///
        /// The block of 16 inputs is the outer loop: its weights of every
        /// neuron (2 KB at 32 neurons) stay in L1 while the rows go by, and
        /// where the block goes in the output is worked out once for all rows.
        #[target_feature(enable = $features)]
        pub unsafe fn hidden_input_gradient(
            w: &[f32],
            dz: &[f32],
            acc: &[f32],
            rows: &[usize],
            o: usize,
            out: &mut [&mut [f32]],
            width: usize,
        ) {
            let m2 = w.len() / o;
            for j in (0..m2).step_by(16) {
                let mut block = Block::new(j, m2, width, out);
                // A tile of rows at a time: its sums in registers hide the
                // multiply-adds' latency, and each weight loaded serves all
                // of them; then pairs and singles.
                let mut tiles = rows.chunks_exact($rows);
                for q in &mut tiles {
                    // SAFETY: the caller's promise, passed on.
                    unsafe { input_gradient_rows::<$rows>(w, dz, acc, q.try_into().expect("a tile"), o, &mut block) };
                }
                let mut pairs = tiles.remainder().chunks_exact(2);
                for q in &mut pairs {
                    // SAFETY: as above.
                    unsafe { input_gradient_rows::<2>(w, dz, acc, [q[0], q[1]], o, &mut block) };
                }
                for &r in pairs.remainder() {
                    // SAFETY: as above.
                    unsafe { input_gradient_rows::<1>(w, dz, acc, [r], o, &mut block) };
                }
            }
        }

        /// R rows × 16 inputs (the block's) of the result in registers
        /// while the neurons go by.
        #[target_feature(enable = $features)]
        unsafe fn input_gradient_rows<const R: usize>(
            w: &[f32],
            dz: &[f32],
            acc: &[f32],
            rows: [usize; R],
            o: usize,
            block: &mut Block,
        ) {
            let (j, m2) = (block.j, w.len() / o);
            let mut s = [zero(); R];
            for k in 0..o {
                if rows.iter().all(|&r| dz[r * o + k] == 0.0) {
                    continue;
                }
                // SAFETY: 16 floats of w.
                let wk = unsafe { load(w[k * m2 + j..][..16].as_ptr()) };
                for i in 0..R {
                    s[i] = fmadd(dz[rows[i] * o + k], wk, s[i]);
                }
            }
            for i in 0..R {
                let a = acc[rows[i] * m2 + j..][..16].as_ptr();
                let at = block.at(rows[i]);
                // SAFETY: 16 floats of acc and of the output slice.
                unsafe { store_live(block.out[at..][..16].as_mut_ptr(), a, s[i]) };
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Block;
    use std::arch::x86_64::*;

    /// 16 floats in two registers.
    type Lanes16 = [__m256; 2];

    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn zero() -> Lanes16 {
        [_mm256_setzero_ps(); 2]
    }

    /// SAFETY (for callers): 16 readable floats at `p`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn load(p: *const f32) -> Lanes16 {
        // SAFETY: the caller's promise.
        unsafe { [_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8))] }
    }

    /// SAFETY (for callers): 16 writable floats at `p`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store(p: *mut f32, v: Lanes16) {
        // SAFETY: the caller's promise.
        unsafe {
            _mm256_storeu_ps(p, v[0]);
            _mm256_storeu_ps(p.add(8), v[1]);
        }
    }

    /// `s + d · a`, lane by lane.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn fmadd(d: f32, a: Lanes16, s: Lanes16) -> Lanes16 {
        let d = _mm256_set1_ps(d);
        [_mm256_fmadd_ps(d, a[0], s[0]), _mm256_fmadd_ps(d, a[1], s[1])]
    }

    /// `s` where `0 < acc < 1` (the clipped ReLU passed gradient), else 0.
    ///
    /// SAFETY (for callers): 16 readable floats at `acc`, 16 writable at `out`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store_live(out: *mut f32, acc: *const f32, s: Lanes16) {
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        for (h, sum) in s.into_iter().enumerate() {
            // SAFETY: the caller's promise.
            unsafe {
                let x = _mm256_loadu_ps(acc.add(8 * h));
                let live = _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_GT_OQ), _mm256_cmp_ps(x, one, _CMP_LT_OQ));
                _mm256_storeu_ps(out.add(8 * h), _mm256_and_ps(live, sum));
            }
        }
    }

    // Six rows to an input-gradient tile: 12 sums in registers hide the
    // multiply-adds' latency (8 did not quite).
    gradient_kernels!("avx2,fma", wide: 1, rows: 6);

    /// The sum of a vector's lanes.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn sum(v: __m256) -> f32 {
        let pair = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let pair = _mm_add_ps(pair, _mm_movehl_ps(pair, pair));
        _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1)))
    }

    /// The R × C dot products of R rows of `act` with C rows of `w`, each
    /// vector loaded once for all of them.
    ///
    /// SAFETY (for callers): AVX2 and FMA present; `a` and `w` point at
    /// `m2` readable floats each, `m2` a multiple of 8.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dots<const R: usize, const C: usize>(
        a: [*const f32; R],
        w: [*const f32; C],
        m2: usize,
    ) -> [[f32; C]; R] {
        let mut s = [[_mm256_setzero_ps(); C]; R];
        for j in (0..m2).step_by(8) {
            // SAFETY: j + 8 <= m2, inside every row (the caller's promise).
            let wv: [__m256; C] = std::array::from_fn(|c| unsafe { _mm256_loadu_ps(w[c].add(j)) });
            for r in 0..R {
                // SAFETY: as above.
                let av = unsafe { _mm256_loadu_ps(a[r].add(j)) };
                for c in 0..C {
                    s[r][c] = _mm256_fmadd_ps(av, wv[c], s[r][c]);
                }
            }
        }
        std::array::from_fn(|r| std::array::from_fn(|c| sum(s[r][c])))
    }

    /// SAFETY: AVX2 and FMA present, 2M a multiple of 16, every row in bounds.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn hidden_forward(w: &[f32], bias: &[f32], act: &[f32], rows: &[usize], z: &mut [f32]) {
        // SAFETY: the caller's promise, passed on.
        unsafe { forward(w, bias, act, rows, z, None) }
    }

    /// Four rows' dot products with four neurons' weights, each as [`dots`]
    /// computes it (a wider kernel's).
    pub(super) type QuadDots = unsafe fn([*const f32; 4], [*const f32; 4], usize) -> [[f32; 4]; 4];

    /// The forward pass, four rows at a time: neurons four at a time by
    /// `quad` if given, then in pairs and singles.
    ///
    /// SAFETY (for callers): as for `hidden_forward`, and `quad` may be
    /// called where it runs.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn forward(
        w: &[f32],
        bias: &[f32],
        act: &[f32],
        rows: &[usize],
        z: &mut [f32],
        quad: Option<QuadDots>,
    ) {
        let (o, m2) = (bias.len(), w.len() / bias.len());
        let row = |k: usize| w[k * m2..][..m2].as_ptr();
        let mut quads = rows.chunks_exact(4);
        for q in &mut quads {
            let a = [q[0], q[1], q[2], q[3]].map(|r| act[r * m2..][..m2].as_ptr());
            let mut k = 0;
            if let Some(quad) = quad {
                while k + 4 <= o {
                    // SAFETY: four rows of act and four of w, each m2 long;
                    // the caller vouches for the kernel.
                    let s = unsafe { quad(a, [row(k), row(k + 1), row(k + 2), row(k + 3)], m2) };
                    for (&r, s) in q.iter().zip(s) {
                        z[r * o + k..][..4].iter_mut().zip(&bias[k..k + 4]).zip(s).for_each(|((z, b), s)| *z = b + s);
                    }
                    k += 4;
                }
            }
            while k + 2 <= o {
                // SAFETY: four rows of act and two of w, each m2 long.
                let s = unsafe { dots::<4, 2>(a, [row(k), row(k + 1)], m2) };
                for (&r, s) in q.iter().zip(s) {
                    z[r * o + k] = bias[k] + s[0];
                    z[r * o + k + 1] = bias[k + 1] + s[1];
                }
                k += 2;
            }
            if k < o {
                // SAFETY: as above.
                let s = unsafe { dots::<4, 1>(a, [row(k)], m2) };
                for (&r, s) in q.iter().zip(s) {
                    z[r * o + k] = bias[k] + s[0];
                }
            }
        }
        for &r in quads.remainder() {
            for k in 0..o {
                // SAFETY: one row of act and one of w, each m2 long.
                let s = unsafe { dots::<1, 1>([act[r * m2..][..m2].as_ptr()], [row(k)], m2) };
                z[r * o + k] = bias[k] + s[0][0];
            }
        }
    }
}

/// The kernels in 16-lane registers, each giving the AVX2 kernel's results
/// bit for bit: the gradients are the same body (`gradient_kernels`) with a
/// block of 16 inputs in one register; the forward pass's dot products run
/// in 8 lanes as in AVX2, two neurons to a register (one in each half), and
/// each half is summed across its lanes as the AVX2 kernel sums its register.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::Block;
    use super::avx2::{forward, sum};
    use std::arch::x86_64::*;

    /// 16 floats in one register.
    type Lanes16 = __m512;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    fn zero() -> Lanes16 {
        _mm512_setzero_ps()
    }

    /// SAFETY (for callers): 16 readable floats at `p`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn load(p: *const f32) -> Lanes16 {
        // SAFETY: the caller's promise.
        unsafe { _mm512_loadu_ps(p) }
    }

    /// SAFETY (for callers): 16 writable floats at `p`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn store(p: *mut f32, v: Lanes16) {
        // SAFETY: the caller's promise.
        unsafe { _mm512_storeu_ps(p, v) }
    }

    /// `s + d · a`, lane by lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    fn fmadd(d: f32, a: Lanes16, s: Lanes16) -> Lanes16 {
        _mm512_fmadd_ps(_mm512_set1_ps(d), a, s)
    }

    /// `s` where `0 < acc < 1` (the clipped ReLU passed gradient), else 0.
    ///
    /// SAFETY (for callers): 16 readable floats at `acc`, 16 writable at `out`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn store_live(out: *mut f32, acc: *const f32, s: Lanes16) {
        // SAFETY: the caller's promise.
        let x = unsafe { _mm512_loadu_ps(acc) };
        let (zero, one) = (_mm512_setzero_ps(), _mm512_set1_ps(1.0));
        let live = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, zero) & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, one);
        // SAFETY: the caller's promise.
        unsafe { _mm512_storeu_ps(out, _mm512_maskz_mov_ps(live, s)) }
    }

    // Two blocks of 16 inputs to a weight-gradient tile: four neurons × two
    // registers keep eight multiply-add chains in flight, as the AVX2 tile
    // does; eight rows to an input-gradient tile, for the same reason.
    gradient_kernels!("avx512f,avx512bw,avx2,fma", wide: 2, rows: 8);

    /// SAFETY: AVX-512 F and BW, AVX2 and FMA present, 2M a multiple of 16,
    /// every row in bounds.
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    pub unsafe fn hidden_forward(w: &[f32], bias: &[f32], act: &[f32], rows: &[usize], z: &mut [f32]) {
        // SAFETY: the caller's promise, and this CPU runs `pair_dots`.
        unsafe { forward(w, bias, act, rows, z, Some(pair_dots)) }
    }

    /// The 4 × 4 dot products of four rows of `act` with four rows of `w`,
    /// in 8 lanes each: neurons 0 and 1 share a register (one a half), as
    /// do 2 and 3, and every row's 8 inputs fill both halves.
    ///
    /// SAFETY (for callers): AVX-512 F, AVX2 and FMA present; `a` and `w`
    /// point at `m2` readable floats each, `m2` a multiple of 8.
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn pair_dots(a: [*const f32; 4], w: [*const f32; 4], m2: usize) -> [[f32; 4]; 4] {
        let mut s = [[_mm512_setzero_ps(); 2]; 4];
        for j in (0..m2).step_by(8) {
            // SAFETY: j + 8 <= m2, inside every row (the caller's promise).
            let wv = unsafe { [pair(w[0].add(j), w[1].add(j)), pair(w[2].add(j), w[3].add(j))] };
            for r in 0..4 {
                // SAFETY: as above.
                let av = unsafe { pair(a[r].add(j), a[r].add(j)) };
                s[r][0] = _mm512_fmadd_ps(av, wv[0], s[r][0]);
                s[r][1] = _mm512_fmadd_ps(av, wv[1], s[r][1]);
            }
        }
        let mut out = [[0.0; 4]; 4];
        for (out, [first, second]) in out.iter_mut().zip(s) {
            let ((a, b), (c, d)) = (halves(first), halves(second));
            *out = [sum(a), sum(b), sum(c), sum(d)];
        }
        out
    }

    /// 8 floats at `low` and 8 at `high` in one register, in that order.
    ///
    /// SAFETY (for callers): AVX-512 F present; 8 readable floats at each.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn pair(low: *const f32, high: *const f32) -> __m512 {
        // SAFETY: the caller's promise.
        let (low, high) = unsafe { (_mm256_loadu_ps(low), _mm256_loadu_ps(high)) };
        let joined = _mm512_insertf64x4::<1>(_mm512_castpd256_pd512(_mm256_castps_pd(low)), _mm256_castps_pd(high));
        _mm512_castpd_ps(joined)
    }

    /// A register's low and high 8 floats.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    fn halves(v: __m512) -> (__m256, __m256) {
        (_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::rng::Rng;

    fn random(n: usize, rng: &mut Rng, low: f32, high: f32) -> Vec<f32> {
        (0..n).map(|_| low + (high - low) * (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32).collect()
    }

    fn close(a: &[f32], b: &[f32]) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() <= 1e-4 * (1.0 + x.abs().max(y.abs())), "{i}: {x} vs {y}");
        }
    }

    /// The 16-lane kernels give the AVX2 kernels' results bit for bit (where
    /// the CPU has AVX-512), with some neurons' gradients zero as the clipped
    /// ReLU leaves them, over shapes that leave remainders (rows not a
    /// multiple of 4 or 8, neurons not a multiple of 4, inputs not of 32).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_kernels_are_the_avx2_kernels_bit_for_bit() {
        if !avx512() {
            tessera::testing::skip("avx512", "this CPU has no AVX-512");
            return;
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        let mut rng = Rng::new(11);
        for (o, m2, count) in [(32, 1024, 21), (7, 48, 13), (5, 32, 3), (4, 96, 9), (6, 16, 7)] {
            let w = random(o * m2, &mut rng, -1.0, 1.0);
            let acc = random(count * m2, &mut rng, -0.5, 1.5);
            let act: Vec<f32> = acc.iter().map(|a| a.clamp(0.0, 1.0)).collect();
            let dz: Vec<f32> =
                random(count * o, &mut rng, -1.5, 1.5).iter().map(|&d| if d.abs() > 0.5 { 0.0 } else { d }).collect();
            let rows: Vec<usize> = (0..count).rev().collect();

            let bias = random(o, &mut rng, -1.0, 1.0);
            let (mut z, mut z2) = (vec![0.0; count * o], vec![0.0; count * o]);
            // SAFETY: the CPU has AVX-512 F and BW, AVX2 and FMA (checked
            // above); m2 is a multiple of 16 and every row is in bounds.
            unsafe {
                avx512::hidden_forward(&w, &bias, &act, &rows, &mut z);
                avx2::hidden_forward(&w, &bias, &act, &rows, &mut z2);
            }
            assert_eq!(bits(&z), bits(&z2), "forward, {o} × {m2}");

            let start = random(o * m2, &mut rng, -1.0, 1.0);
            let (mut g, mut g2) = (start.clone(), start);
            // SAFETY: as above.
            unsafe {
                avx512::hidden_weight_gradient(&mut g, &dz, &act, &rows, o);
                avx2::hidden_weight_gradient(&mut g2, &dz, &act, &rows, o);
            }
            assert_eq!(bits(&g), bits(&g2), "weight gradient, {o} × {m2}");

            // The input gradient's blocks of 16 must not straddle a slice.
            if !(m2 / 2).is_multiple_of(16) {
                continue;
            }
            let width = 16;
            let (mut d, mut d2) = (vec![9.0; count * m2], vec![9.0; count * m2]);
            let mut views: Vec<&mut [f32]> = d.chunks_mut(count * 2 * width).collect();
            let mut views2: Vec<&mut [f32]> = d2.chunks_mut(count * 2 * width).collect();
            // SAFETY: as above, and the width is a multiple of 16.
            unsafe {
                avx512::hidden_input_gradient(&w, &dz, &acc, &rows, o, &mut views, width);
                avx2::hidden_input_gradient(&w, &dz, &acc, &rows, o, &mut views2, width);
            }
            assert_eq!(bits(&d), bits(&d2), "input gradient, {o} × {m2}");
        }
    }

    /// The dispatching kernels (AVX-512 or AVX2 where the CPU has it) against their
    /// scalar twins, over shapes that leave remainders: rows not a multiple
    /// of 4, neurons not a multiple of 2 or 4.
    #[test]
    fn kernels_match_their_scalar_twins() {
        let mut rng = Rng::new(7);
        for (o, m2, count) in [(32, 1024, 11), (7, 48, 6), (5, 16, 3), (1, 32, 4)] {
            let w = random(o * m2, &mut rng, -1.0, 1.0);
            let bias = random(o, &mut rng, -1.0, 1.0);
            // Activations and accumulators with some values clipped at 0 and 1.
            let acc = random(count * m2, &mut rng, -0.5, 1.5);
            let act: Vec<f32> = acc.iter().map(|a| a.clamp(0.0, 1.0)).collect();
            let dz = random(count * o, &mut rng, -1.0, 1.0);
            let rows: Vec<usize> = (0..count).rev().collect();

            let (mut z, mut z_ref) = (vec![0.0; count * o], vec![0.0; count * o]);
            hidden_forward(&w, &bias, &act, &rows, &mut z);
            hidden_forward_scalar(&w, &bias, &act, &rows, &mut z_ref);
            close(&z, &z_ref);

            let start = random(o * m2, &mut rng, -1.0, 1.0);
            let (mut g, mut g_ref) = (start.clone(), start);
            hidden_weight_gradient(&mut g, &dz, &act, &rows, o);
            hidden_weight_gradient_scalar(&mut g_ref, &dz, &act, &rows, o);
            close(&g, &g_ref);

            // Slices of 16 where the width allows, else one slice per perspective.
            let width = if (m2 / 2).is_multiple_of(16) { 16 } else { m2 / 2 };
            let slices = m2 / 2 / width;
            let (mut d, mut d_ref) = (vec![9.0; count * m2], vec![9.0; count * m2]);
            let mut views: Vec<&mut [f32]> = d.chunks_mut(count * 2 * width).collect();
            hidden_input_gradient(&w, &dz, &acc, &rows, o, &mut views, width);
            let mut views: Vec<&mut [f32]> = d_ref.chunks_mut(count * 2 * width).collect();
            hidden_input_gradient_scalar(&w, &dz, &acc, &rows, o, &mut views, width);
            close(&d, &d_ref);
            assert_eq!(slices * count * 2 * width, d.len());
            for r in 0..count {
                for j in 0..m2 {
                    let (s, at) = place(j, r, m2 / 2, width);
                    let x = d[s * count * 2 * width + at];
                    assert!(passes(acc[r * m2 + j]) || x == 0.0, "no gradient through a clip");
                    let direct: f32 = (0..o).map(|k| dz[r * o + k] * w[k * m2 + j]).sum();
                    if passes(acc[r * m2 + j]) {
                        assert!((x - direct).abs() <= 1e-4 * (1.0 + direct.abs()), "row {r} input {j}");
                    }
                }
            }
        }
    }
}

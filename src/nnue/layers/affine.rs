//! Dense int8 layer: `out[o] = bias[o] + Σ input[k] · weights[o][k]`, with
//! unsigned 8-bit inputs (0..127) and signed 8-bit weights.

use crate::simd::Avx2;
#[cfg(tessera_avx2)]
use crate::simd::Avx512;

pub fn affine_scalar(input: &[u8], weights: &[i8], bias: &[i32], out: &mut [i32]) {
    let n = input.len();
    for (o, (b, result)) in bias.iter().zip(out.iter_mut()).enumerate() {
        let row = &weights[o * n..(o + 1) * n];
        *result = b + input.iter().zip(row).map(|(&x, &w)| x as i32 * w as i32).sum::<i32>();
    }
}

/// AVX2 version: `maddubs` multiplies u8 by i8 into pairs of i16 (inputs
/// are at most 127, so the pair sums never saturate), `madd` widens to i32.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
pub unsafe fn affine_avx2(input: &[u8], weights: &[i8], bias: &[i32], out: &mut [i32]) {
    use std::arch::x86_64::*;
    let n = input.len();
    let chunks = n / 32;
    let ones = _mm256_set1_epi16(1);
    for (o, (b, result)) in bias.iter().zip(out.iter_mut()).enumerate() {
        let row = &weights[o * n..(o + 1) * n];
        let mut sum = _mm256_setzero_si256();
        for c in 0..chunks {
            // SAFETY: c·32 + 32 ≤ n for both slices; unaligned loads.
            let (x, w) = unsafe {
                (
                    _mm256_loadu_si256(input.as_ptr().add(c * 32) as *const __m256i),
                    _mm256_loadu_si256(row.as_ptr().add(c * 32) as *const __m256i),
                )
            };
            let products = _mm256_maddubs_epi16(x, w);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(products, ones));
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 bytes; unaligned store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum) };
        let tail: i32 = input[chunks * 32..].iter().zip(&row[chunks * 32..]).map(|(&x, &w)| x as i32 * w as i32).sum();
        *result = b + lanes.iter().sum::<i32>() + tail;
    }
}

/// The weights of an `inputs → outputs` layer (row per output) rearranged
/// for [`affine_grouped`]: for each group of 4 inputs, the 4 weights of
/// output 0, then those of output 1, and so on. `None` where the grouped
/// kernel does not apply (inputs not a multiple of 32, or an output count
/// it has no variant for).
pub fn interleave_groups(weights: &[i8], inputs: usize, outputs: usize) -> Option<Vec<i8>> {
    if !inputs.is_multiple_of(32) || ![8, 16, 32, 64].contains(&outputs) || weights.len() != inputs * outputs {
        return None;
    }
    let mut out = vec![0i8; weights.len()];
    for k in 0..inputs / 4 {
        for o in 0..outputs {
            for j in 0..4 {
                out[(k * outputs + o) * 4 + j] = weights[o * inputs + 4 * k + j];
            }
        }
    }
    Some(out)
}

/// Whether two groups' `maddubs` lanes (the sum of 2 inputs times 2
/// weights) can be added in 16 bits without overflow for these weights
/// (row per output) and inputs of at most `max_input`: for every output and
/// lane, the two largest `|w_a| + |w_b|` over the groups, times the largest
/// input, stay within `i16::MAX`. Then [`affine_grouped_avx2`] with `PAIRED`
/// is exact.
pub fn pairs_fit_in_16_bits(weights: &[i8], inputs: usize, outputs: usize, max_input: i32) -> bool {
    if !inputs.is_multiple_of(4) || weights.len() != inputs * outputs {
        return false;
    }
    (0..outputs).all(|o| {
        (0..2).all(|lane| {
            let (mut first, mut second) = (0i32, 0i32);
            for k in 0..inputs / 4 {
                let at = o * inputs + 4 * k + 2 * lane;
                let s = i32::from(weights[at]).abs() + i32::from(weights[at + 1]).abs();
                if s > first {
                    second = first;
                    first = s;
                } else if s > second {
                    second = s;
                }
            }
            max_input * (first + second) <= i32::from(i16::MAX)
        })
    })
}

/// The first hidden layer with the weights grouped by 4 inputs
/// ([`interleave_groups`]): each group of 4 inputs is broadcast to every
/// lane and multiplied by the matching weights of every output at once, `G`
/// registers of 8 outputs each, with no horizontal sum at the end. Integer
/// sums are exact, so the result equals [`affine_scalar`]'s on the original
/// weights bit for bit.
///
/// Every group is visited, zero or not. The pairwise products the nets feed
/// this layer are about 46% non-zero bytes, so some 115 of 128 groups of 4
/// have a non-zero byte: finding and skipping the zero ones (Stockfish's
/// sparse product) cost more than it saved (`research/speed.md`).
///
/// With `PAIRED`, two groups' `maddubs` products are added in 16 bits and
/// widened by one `madd` for both, as Stockfish does without VNNI. That is
/// exact only where [`pairs_fit_in_16_bits`] holds for the weights.
///
/// # Safety
/// The CPU must support AVX2; `input.len()` is a multiple of 32;
/// `interleaved` is [`interleave_groups`]'s output for `input.len()`
/// inputs and `8·G` outputs; `bias` and `out` hold `8·G` values.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
unsafe fn affine_grouped_avx2<const G: usize, const PAIRED: bool>(
    input: &[u8],
    interleaved: &[i8],
    bias: &[i32],
    out: &mut [i32],
) {
    use std::arch::x86_64::*;
    let stride = 8 * G * 4;
    let ones = _mm256_set1_epi16(1);
    let mut sums = [_mm256_setzero_si256(); G];
    for (x, w) in input.chunks_exact(8).zip(interleaved.chunks_exact(2 * stride)) {
        // SAFETY: `x` holds two groups' 8 bytes and `w` their 2·stride
        // weights (the caller's contract); unaligned loads.
        unsafe {
            let x1 = _mm256_set1_epi32((x.as_ptr() as *const i32).read_unaligned());
            let x2 = _mm256_set1_epi32((x.as_ptr().add(4) as *const i32).read_unaligned());
            let load = |at: usize| _mm256_loadu_si256(w.as_ptr().add(at) as *const __m256i);
            for (g, sum) in sums.iter_mut().enumerate() {
                let first = _mm256_maddubs_epi16(x1, load(g * 32));
                let second = _mm256_maddubs_epi16(x2, load(stride + g * 32));
                *sum = if PAIRED {
                    _mm256_add_epi32(*sum, _mm256_madd_epi16(_mm256_add_epi16(first, second), ones))
                } else {
                    let both = _mm256_add_epi32(_mm256_madd_epi16(first, ones), _mm256_madd_epi16(second, ones));
                    _mm256_add_epi32(*sum, both)
                };
            }
        }
    }
    for (g, sum) in sums.iter().enumerate() {
        // SAFETY: bias and out hold 8·G values; unaligned load and store.
        unsafe {
            let b = _mm256_loadu_si256(bias.as_ptr().add(g * 8) as *const __m256i);
            _mm256_storeu_si256(out.as_mut_ptr().add(g * 8) as *mut __m256i, _mm256_add_epi32(*sum, b));
        }
    }
}

/// [`affine_grouped_avx2`] for an output count it has a variant for (8, 16,
/// 32 or 64); false, doing nothing, otherwise.
///
/// # Safety
/// As for [`affine_grouped_avx2`], whatever `8·G` the output count is.
#[cfg(tessera_avx2)]
unsafe fn affine_grouped_avx2_any<const PAIRED: bool>(
    input: &[u8],
    interleaved: &[i8],
    bias: &[i32],
    out: &mut [i32],
) -> bool {
    // SAFETY: the caller's contract, with G = out.len() / 8.
    unsafe {
        match out.len() {
            8 => affine_grouped_avx2::<1, PAIRED>(input, interleaved, bias, out),
            16 => affine_grouped_avx2::<2, PAIRED>(input, interleaved, bias, out),
            32 => affine_grouped_avx2::<4, PAIRED>(input, interleaved, bias, out),
            64 => affine_grouped_avx2::<8, PAIRED>(input, interleaved, bias, out),
            _ => return false,
        }
    }
    true
}

/// One grouped `vpdpbusd` kernel per register width, from one body: `R`
/// registers of outputs, `$chains` chains of accumulators (each group of 4
/// inputs adds into the next chain, which hides the multiply-add's
/// latency), summed with the biases at the end.
macro_rules! dpbusd_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $reg:ty, $lanes:literal, $chains:literal,
     $zero:ident, $set1:ident, $load:ident, $store:ident, $dpbusd:ident, $add:ident) => {
        $(#[$doc])*
        #[cfg(tessera_avx2)]
        #[target_feature(enable = $features)]
        unsafe fn $name<const R: usize>(input: &[u8], interleaved: &[i8], bias: &[i32], out: &mut [i32]) {
            use std::arch::x86_64::*;
            // The weights of one group of 4 inputs: 4 bytes for each output.
            let stride = 4 * $lanes * R;
            let mut chains: [[$reg; R]; $chains] = [[$zero(); R]; $chains];
            for (x, w) in input.chunks_exact(4 * $chains).zip(interleaved.chunks_exact($chains * stride)) {
                for (c, chain) in chains.iter_mut().enumerate() {
                    // SAFETY: `x` holds the chains' groups' bytes and `w`
                    // their weights (the caller's contract); unaligned loads.
                    unsafe {
                        let word = $set1((x.as_ptr().add(4 * c) as *const i32).read_unaligned());
                        for (r, sum) in chain.iter_mut().enumerate() {
                            let weights = $load(w.as_ptr().add(c * stride + r * 4 * $lanes) as *const _);
                            *sum = $dpbusd(*sum, word, weights);
                        }
                    }
                }
            }
            let mut totals = chains[0];
            for chain in &chains[1..] {
                for (total, &sum) in totals.iter_mut().zip(chain) {
                    *total = $add(*total, sum);
                }
            }
            for (r, &total) in totals.iter().enumerate() {
                // SAFETY: bias and out hold `$lanes`·R values; unaligned load and store.
                unsafe {
                    let b = $load(bias.as_ptr().add(r * $lanes) as *const _);
                    $store(out.as_mut_ptr().add(r * $lanes) as *mut _, $add(total, b));
                }
            }
        }
    };
}

dpbusd_kernel!(
    /// [`affine_grouped_avx2`] with AVX-VNNI's `vpdpbusd`, which multiplies,
    /// pairs and accumulates in one instruction instead of three: 8 outputs
    /// a register, two chains.
    ///
    /// # Safety
    /// As for [`affine_grouped_avx2`] with `8·R` outputs, and the CPU must
    /// support AVX-VNNI.
    affine_grouped_vnni, "avx2,avxvnni", __m256i, 8, 2,
    _mm256_setzero_si256, _mm256_set1_epi32, _mm256_loadu_si256, _mm256_storeu_si256,
    _mm256_dpbusd_avx_epi32, _mm256_add_epi32
);

dpbusd_kernel!(
    /// [`affine_grouped_vnni`] on 512-bit registers (AVX-512 VNNI): 16
    /// outputs a register, so half the multiply-adds and weight loads per
    /// group of 4 inputs; four chains.
    ///
    /// # Safety
    /// As for [`affine_grouped_avx2`] with `16·R` outputs, and the CPU must
    /// support AVX-512 F, BW and VNNI.
    affine_grouped_avx512, "avx2,avx512f,avx512bw,avx512vnni", __m512i, 16, 4,
    _mm512_setzero_si512, _mm512_set1_epi32, _mm512_loadu_si512, _mm512_storeu_si512,
    _mm512_dpbusd_epi32, _mm512_add_epi32
);

/// The first hidden layer: the grouped kernels where they apply
/// (`interleaved` from [`interleave_groups`]), else [`affine`]. `fused`
/// says that [`pairs_fit_in_16_bits`] holds for `weights` (the AVX2 kernel
/// without VNNI then adds two groups in 16 bits).
pub fn affine_grouped(
    input: &[u8],
    weights: &[i8],
    interleaved: Option<&[i8]>,
    fused: bool,
    bias: &[i32],
    out: &mut [i32],
    simd: Option<Avx2>,
) {
    #[cfg(tessera_avx2)]
    if let Some(avx2) = simd
        && let Some(interleaved) = interleaved
        && input.len().is_multiple_of(32)
        && interleaved.len() == input.len() * out.len()
        && bias.len() == out.len()
    {
        // SAFETY: the token proves the CPU has AVX2, and VNNI is used only
        // where detection reports it; the lengths were checked above and
        // `interleaved` has the grouped layout.
        unsafe {
            if avx2.avx512().is_some_and(Avx512::vnni) {
                match out.len() {
                    16 => return affine_grouped_avx512::<1>(input, interleaved, bias, out),
                    32 => return affine_grouped_avx512::<2>(input, interleaved, bias, out),
                    64 => return affine_grouped_avx512::<4>(input, interleaved, bias, out),
                    _ => {}
                }
            }
            if avx2.vnni() {
                match out.len() {
                    8 => return affine_grouped_vnni::<1>(input, interleaved, bias, out),
                    16 => return affine_grouped_vnni::<2>(input, interleaved, bias, out),
                    32 => return affine_grouped_vnni::<4>(input, interleaved, bias, out),
                    64 => return affine_grouped_vnni::<8>(input, interleaved, bias, out),
                    _ => {}
                }
            }
            let done = if fused {
                affine_grouped_avx2_any::<true>(input, interleaved, bias, out)
            } else {
                affine_grouped_avx2_any::<false>(input, interleaved, bias, out)
            };
            if done {
                return;
            }
        }
    }
    let _ = (interleaved, fused);
    affine(input, weights, bias, out, simd);
}

/// The fastest kernel the token allows.
pub fn affine(input: &[u8], weights: &[i8], bias: &[i32], out: &mut [i32], simd: Option<Avx2>) {
    #[cfg(tessera_avx2)]
    if simd.is_some() {
        // SAFETY: the token proves the CPU has AVX2.
        unsafe { affine_avx2(input, weights, bias, out) };
        return;
    }
    let _ = simd;
    affine_scalar(input, weights, bias, out);
}

// The AVX2 twins exist only where they are compiled in (not with `portable`).
#[cfg(all(test, tessera_avx2))]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_scalar() {
        if Avx2::detect().is_none() {
            crate::testing::skip("avx2", "no AVX2 on this CPU");
            return;
        }
        let mut rng = crate::testing::XorShift(12345);
        let mut next = || (rng.next_u64() >> 32) as u32;
        for n in [32, 64, 96, 1024, 45] {
            let outs = 7;
            let input: Vec<u8> = (0..n).map(|_| (next() % 128) as u8).collect();
            let weights: Vec<i8> = (0..n * outs).map(|_| next() as u8 as i8).collect();
            let bias: Vec<i32> = (0..outs).map(|_| next() as i32 % 100_000).collect();
            let (mut a, mut b) = (vec![0; outs], vec![0; outs]);
            affine_scalar(&input, &weights, &bias, &mut a);
            // SAFETY: checked above that the CPU has AVX2.
            unsafe { affine_avx2(&input, &weights, &bias, &mut b) };
            assert_eq!(a, b, "n = {n}");
        }
    }

    #[test]
    fn grouped_kernels_match_scalar() {
        let Some(avx2) = Avx2::detect() else {
            crate::testing::skip("avx2", "no AVX2 on this CPU");
            return;
        };
        let mut rng = crate::testing::XorShift(99);
        let mut next = || (rng.next_u64() >> 32) as u32;
        for (n, outs) in [(1024, 32), (64, 8), (512, 16), (1024, 64), (32, 32)] {
            // Dense, half zero, mostly zero, all zero; extremes of both ranges.
            for zero_share in [0, 50, 95, 100] {
                let input: Vec<u8> =
                    (0..n).map(|_| if next() % 100 < zero_share { 0 } else { (next() % 128) as u8 }).collect();
                let weights: Vec<i8> = (0..n * outs).map(|_| next() as u8 as i8).collect();
                let bias: Vec<i32> = (0..outs).map(|_| next() as i32 % 100_000).collect();
                let interleaved = interleave_groups(&weights, n, outs).unwrap();
                let (mut a, mut b, mut c) = (vec![0; outs], vec![0; outs], vec![0; outs]);
                affine_scalar(&input, &weights, &bias, &mut a);
                // SAFETY: AVX2 checked above; sizes as the kernels require.
                assert!(unsafe { affine_grouped_avx2_any::<false>(&input, &interleaved, &bias, &mut b) });
                assert_eq!(a, b, "AVX2: n = {n}, outputs = {outs}, {zero_share}% zero");
                if avx2.avx512().is_some_and(Avx512::vnni) && outs >= 16 {
                    let mut d = vec![0; outs];
                    // SAFETY: AVX-512 VNNI checked; sizes as the kernel requires.
                    unsafe {
                        match outs {
                            16 => affine_grouped_avx512::<1>(&input, &interleaved, &bias, &mut d),
                            32 => affine_grouped_avx512::<2>(&input, &interleaved, &bias, &mut d),
                            _ => affine_grouped_avx512::<4>(&input, &interleaved, &bias, &mut d),
                        }
                    }
                    assert_eq!(a, d, "AVX-512: n = {n}, outputs = {outs}, {zero_share}% zero");
                }
                if avx2.vnni() {
                    let mut v = vec![0; outs];
                    // SAFETY: AVX-VNNI checked; sizes as the kernel requires.
                    unsafe {
                        match outs {
                            8 => affine_grouped_vnni::<1>(&input, &interleaved, &bias, &mut v),
                            16 => affine_grouped_vnni::<2>(&input, &interleaved, &bias, &mut v),
                            32 => affine_grouped_vnni::<4>(&input, &interleaved, &bias, &mut v),
                            _ => affine_grouped_vnni::<8>(&input, &interleaved, &bias, &mut v),
                        }
                    }
                    assert_eq!(a, v, "AVX-VNNI: n = {n}, outputs = {outs}, {zero_share}% zero");
                }
                affine_grouped(&input, &weights, Some(&interleaved), false, &bias, &mut c, Some(avx2));
                assert_eq!(a, c, "dispatched (VNNI where present): n = {n}, outputs = {outs}, {zero_share}% zero");
            }
        }
        let (input, weights, bias) = (vec![127u8; 64], vec![-128i8; 64 * 8], vec![0; 8]);
        let interleaved = interleave_groups(&weights, 64, 8).unwrap();
        let (mut a, mut b) = (vec![0; 8], vec![0; 8]);
        affine_scalar(&input, &weights, &bias, &mut a);
        affine_grouped(&input, &weights, Some(&interleaved), false, &bias, &mut b, Some(avx2));
        assert_eq!(a, b, "the most negative weights");
        assert!(!pairs_fit_in_16_bits(&weights, 64, 8, 127), "-128 everywhere overflows two groups");
    }

    #[test]
    fn fused_avx2_matches_scalar_where_the_weights_allow() {
        if Avx2::detect().is_none() {
            crate::testing::skip("avx2", "no AVX2 on this CPU");
            return;
        }
        let mut rng = crate::testing::XorShift(7);
        let mut next = || (rng.next_u64() >> 32) as u32;
        for (n, outs) in [(512, 32), (64, 8), (512, 16), (1024, 64), (32, 32)] {
            for zero_share in [0, 50, 95, 100] {
                let input: Vec<u8> =
                    (0..n).map(|_| if next() % 100 < zero_share { 0 } else { (next() % 128) as u8 }).collect();
                // Weights in -64..=63: |w_a| + |w_b| <= 128, two groups at most 127 * 256.
                let weights: Vec<i8> = (0..n * outs).map(|_| (next() % 128) as i8 - 64).collect();
                assert!(pairs_fit_in_16_bits(&weights, n, outs, 127));
                let bias: Vec<i32> = (0..outs).map(|_| next() as i32 % 100_000).collect();
                let interleaved = interleave_groups(&weights, n, outs).unwrap();
                let (mut a, mut b) = (vec![0; outs], vec![0; outs]);
                affine_scalar(&input, &weights, &bias, &mut a);
                // SAFETY: AVX2 checked above; sizes as the kernel requires.
                assert!(unsafe { affine_grouped_avx2_any::<true>(&input, &interleaved, &bias, &mut b) });
                assert_eq!(a, b, "fused AVX2: n = {n}, outputs = {outs}, {zero_share}% zero");
            }
        }
        // The bound, at inputs of at most 126: two groups of |w_a| + |w_b| = 128 pass
        // (126 * 256 = 32,256); of 131 they do not (126 * 262 = 33,012).
        let w = |a: i8, b: i8| [a, b, 0, 0].repeat(2);
        assert!(pairs_fit_in_16_bits(&w(127, 1), 8, 1, 126));
        assert!(!pairs_fit_in_16_bits(&w(127, 4), 8, 1, 126));
    }
}

//! Dense int8 layer: `out[o] = bias[o] + Σ input[k] · weights[o][k]`, with
//! unsigned 8-bit inputs (0..127) and signed 8-bit weights.

#[cfg(tessera_avx2)]
use std::mem::MaybeUninit;

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
/// for [`affine_sparse`]: for each group of 4 inputs, the 4 weights of
/// output 0, then those of output 1, and so on. `None` where the sparse
/// kernel does not apply (inputs not a multiple of 32, or an output count
/// it has no variant for).
pub fn interleave_for_sparse(weights: &[i8], inputs: usize, outputs: usize) -> Option<Vec<i8>> {
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
/// input, stay within `i16::MAX`. Then [`affine_sparse_avx2`] with `PAIRED`
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

/// The dense layer for inputs that are mostly zero (clipped activations of
/// the feature transformer): only the groups of 4 inputs with a non-zero
/// byte are visited; each adds its 4 inputs times the matching weights of
/// every output at once, `G` registers of 8 outputs each, with no
/// horizontal sum at the end. Integer sums are exact, so the result equals
/// [`affine_scalar`]'s on the original weights bit for bit.
///
/// With `PAIRED`, the non-zero groups are taken two at a time, as Stockfish
/// does without VNNI: their `maddubs` products are added in 16 bits and
/// widened by one `madd` for both. That is exact only where
/// [`pairs_fit_in_16_bits`] holds for the weights.
///
/// # Safety
/// The CPU must support AVX2; `input.len()` is a multiple of 32;
/// `interleaved` is [`interleave_for_sparse`]'s output for `input.len()`
/// inputs and `8·G` outputs; `bias` and `out` hold `8·G` values.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
unsafe fn affine_sparse_avx2<const G: usize, const PAIRED: bool>(
    input: &[u8],
    interleaved: &[i8],
    bias: &[i32],
    out: &mut [i32],
) {
    use std::arch::x86_64::*;
    let outputs = 8 * G;
    let ones = _mm256_set1_epi16(1);
    let zero = _mm256_setzero_si256();
    let mut sums = [zero; G];
    // Group k's 4 inputs in every lane, and its weights. SAFETY (for every
    // call below): k < input.len() / 4, so the 4 bytes at 4k are in `input`
    // and the outputs·4 weights at k·outputs·4 are in `interleaved` (the
    // caller's contract); unaligned load.
    let group = |k: usize| unsafe {
        let word = (input.as_ptr().add(4 * k) as *const i32).read_unaligned();
        (_mm256_set1_epi32(word), interleaved.as_ptr().add(k * outputs * 4))
    };
    // SAFETY (for every call below): g·32 + 32 ≤ the outputs·4 weights of a
    // group; unaligned load.
    let load = |w: *const i8, g: usize| unsafe { _mm256_loadu_si256(w.add(g * 32) as *const __m256i) };
    let add_one = |sums: &mut [__m256i; G], k: usize| {
        let (x, w) = group(k);
        for (g, sum) in sums.iter_mut().enumerate() {
            *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(_mm256_maddubs_epi16(x, load(w, g)), ones));
        }
    };
    // With `PAIRED`, a non-zero group waiting for its partner.
    let mut waiting: Option<usize> = None;
    for block in 0..input.len() / 32 {
        // SAFETY: block·32 + 32 ≤ input.len() (a multiple of 32); unaligned load.
        let bytes = unsafe { _mm256_loadu_si256(input.as_ptr().add(block * 32) as *const __m256i) };
        let zero_words = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bytes, zero))) as u32;
        let mut nonzero = !zero_words & 0xff;
        while nonzero != 0 {
            let k = block * 8 + nonzero.trailing_zeros() as usize;
            nonzero &= nonzero - 1;
            if !PAIRED {
                add_one(&mut sums, k);
                continue;
            }
            let Some(j) = waiting.take() else {
                waiting = Some(k);
                continue;
            };
            let ((x1, w1), (x2, w2)) = (group(j), group(k));
            for (g, sum) in sums.iter_mut().enumerate() {
                let pairs =
                    _mm256_add_epi16(_mm256_maddubs_epi16(x1, load(w1, g)), _mm256_maddubs_epi16(x2, load(w2, g)));
                *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(pairs, ones));
            }
        }
    }
    if let Some(j) = waiting {
        add_one(&mut sums, j);
    }
    for (g, sum) in sums.iter().enumerate() {
        // SAFETY: bias and out hold 8·G values; unaligned load and store.
        unsafe {
            let b = _mm256_loadu_si256(bias.as_ptr().add(g * 8) as *const __m256i);
            _mm256_storeu_si256(out.as_mut_ptr().add(g * 8) as *mut __m256i, _mm256_add_epi32(*sum, b));
        }
    }
}

/// [`affine_sparse_avx2`] for an output count it has a variant for (8, 16,
/// 32 or 64); false, doing nothing, otherwise.
///
/// # Safety
/// As for [`affine_sparse_avx2`], whatever `8·G` the output count is.
#[cfg(tessera_avx2)]
unsafe fn affine_sparse_avx2_any<const PAIRED: bool>(
    input: &[u8],
    interleaved: &[i8],
    bias: &[i32],
    out: &mut [i32],
) -> bool {
    // SAFETY: the caller's contract, with G = out.len() / 8.
    unsafe {
        match out.len() {
            8 => affine_sparse_avx2::<1, PAIRED>(input, interleaved, bias, out),
            16 => affine_sparse_avx2::<2, PAIRED>(input, interleaved, bias, out),
            32 => affine_sparse_avx2::<4, PAIRED>(input, interleaved, bias, out),
            64 => affine_sparse_avx2::<8, PAIRED>(input, interleaved, bias, out),
            _ => return false,
        }
    }
    true
}

/// [`affine_sparse_avx2`] with AVX-VNNI's `vpdpbusd`, which multiplies,
/// pairs and accumulates in one instruction instead of three.
///
/// # Safety
/// As for [`affine_sparse_avx2`], and the CPU must support AVX-VNNI.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2,avxvnni")]
unsafe fn affine_sparse_vnni<const G: usize>(input: &[u8], interleaved: &[i8], bias: &[i32], out: &mut [i32]) {
    use std::arch::x86_64::*;
    let outputs = 8 * G;
    let zero = _mm256_setzero_si256();
    // First the indices of the non-zero groups of 4 inputs, then the sums
    // over them two at a time into two sets of registers: `vpdpbusd` chains
    // on its accumulator, and two chains hide half of its latency.
    let mut buffer = [MaybeUninit::uninit(); MAX_SPARSE_GROUPS + 8];
    // SAFETY: the caller's contract (AVX2, a multiple of 32 inputs).
    let nonzero_groups = unsafe { nonzero_groups_of(input, &mut buffer) };
    let (mut first, mut second) = ([zero; G], [zero; G]);
    // SAFETY (both helpers' callers below): every listed k < input.len() / 4,
    // so the 4 bytes at 4k are in `input` and the outputs·4 weights at
    // k·outputs·4 are in `interleaved` (the caller's contract); unaligned loads.
    let add = |sums: &mut [__m256i; G], k: usize| unsafe {
        let word = (input.as_ptr().add(4 * k) as *const i32).read_unaligned();
        let x = _mm256_set1_epi32(word);
        let weights = interleaved.as_ptr().add(k * outputs * 4);
        for (g, sum) in sums.iter_mut().enumerate() {
            let w = _mm256_loadu_si256(weights.add(g * 32) as *const __m256i);
            *sum = _mm256_dpbusd_avx_epi32(*sum, x, w);
        }
    };
    let pairs = nonzero_groups.chunks_exact(2);
    if let &[last] = pairs.remainder() {
        add(&mut first, last as usize);
    }
    for pair in pairs {
        add(&mut first, pair[0] as usize);
        add(&mut second, pair[1] as usize);
    }
    for g in 0..G {
        // SAFETY: bias and out hold 8·G values; unaligned load and store.
        unsafe {
            let b = _mm256_loadu_si256(bias.as_ptr().add(g * 8) as *const __m256i);
            let sum = _mm256_add_epi32(_mm256_add_epi32(first[g], second[g]), b);
            _mm256_storeu_si256(out.as_mut_ptr().add(g * 8) as *mut __m256i, sum);
        }
    }
}

/// Writes the indices of the groups of 4 inputs with a non-zero byte to
/// `groups`, lowest first, and returns how many there are. Branch-free:
/// eight indices at a time from a table of the set bits of each 8-bit
/// mask, the count moving on by the popcount.
///
/// # Safety
/// The CPU must support AVX2; `input.len()` is a multiple of 32.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn nonzero_groups_of<'a>(input: &[u8], groups: &'a mut [MaybeUninit<u16>; MAX_SPARSE_GROUPS + 8]) -> &'a [u16] {
    use std::arch::x86_64::*;
    assert!(input.len() / 4 <= MAX_SPARSE_GROUPS, "sparse layer wider than {} inputs", 4 * MAX_SPARSE_GROUPS);
    let zero = _mm256_setzero_si256();
    let mut count = 0;
    let mut base = _mm_setzero_si128();
    let eight = _mm_set1_epi16(8);
    for block in 0..input.len() / 32 {
        // SAFETY: block·32 + 32 ≤ input.len() (a multiple of 32); the
        // store of 8 indices at `count` ≤ 8·block stays inside `groups`
        // (MAX_SPARSE_GROUPS + 8 long); unaligned loads and store.
        unsafe {
            let bytes = _mm256_loadu_si256(input.as_ptr().add(block * 32) as *const __m256i);
            let zero_words = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bytes, zero))) as usize;
            let mask = !zero_words & 0xff;
            let lanes = _mm_loadu_si128(SET_BITS[mask].as_ptr() as *const __m128i);
            _mm_storeu_si128(groups.as_mut_ptr().add(count) as *mut __m128i, _mm_add_epi16(base, lanes));
            count += mask.count_ones() as usize;
        }
        base = _mm_add_epi16(base, eight);
    }
    // SAFETY: the stores above wrote every index before `count`.
    unsafe { std::slice::from_raw_parts(groups.as_ptr() as *const u16, count) }
}

/// [`affine_sparse_vnni`] on 512-bit registers (AVX-512 VNNI): 16 outputs a
/// register, so half the multiply-adds and weight loads per group of 4
/// inputs; four chains of accumulators hide the multiply-add's latency.
///
/// # Safety
/// As for [`affine_sparse_avx2`] with `16·Z` outputs, and the CPU must
/// support AVX-512 F, BW and VNNI.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
unsafe fn affine_sparse_avx512<const Z: usize>(input: &[u8], interleaved: &[i8], bias: &[i32], out: &mut [i32]) {
    use std::arch::x86_64::*;
    let outputs = 16 * Z;
    let mut buffer = [MaybeUninit::uninit(); MAX_SPARSE_GROUPS + 8];
    // SAFETY: the caller's contract (AVX2, a multiple of 32 inputs).
    let nonzero_groups = unsafe { nonzero_groups_of(input, &mut buffer) };
    let zero = _mm512_setzero_si512();
    let mut chains = [[zero; Z]; 4];
    // SAFETY: every listed k < input.len() / 4, so the 4 bytes at 4k are in
    // `input` and the outputs·4 weights at k·outputs·4 are in `interleaved`
    // (the caller's contract); unaligned loads.
    let add = |sums: &mut [__m512i; Z], k: usize| unsafe {
        let word = (input.as_ptr().add(4 * k) as *const i32).read_unaligned();
        let x = _mm512_set1_epi32(word);
        let weights = interleaved.as_ptr().add(k * outputs * 4);
        for (z, sum) in sums.iter_mut().enumerate() {
            let w = _mm512_loadu_si512(weights.add(z * 64) as *const _);
            *sum = _mm512_dpbusd_epi32(*sum, x, w);
        }
    };
    let quads = nonzero_groups.chunks_exact(4);
    for &k in quads.remainder() {
        add(&mut chains[0], k as usize);
    }
    for quad in quads {
        for (chain, &k) in chains.iter_mut().zip(quad) {
            add(chain, k as usize);
        }
    }
    for (z, &first) in chains[0].iter().enumerate() {
        // SAFETY: bias and out hold 16·Z values; unaligned load and store.
        unsafe {
            let b = _mm512_loadu_si512(bias.as_ptr().add(z * 16) as *const _);
            let pairs =
                _mm512_add_epi32(_mm512_add_epi32(first, chains[1][z]), _mm512_add_epi32(chains[2][z], chains[3][z]));
            _mm512_storeu_si512(out.as_mut_ptr().add(z * 16) as *mut _, _mm512_add_epi32(pairs, b));
        }
    }
}

/// Whether the CPU has AVX-512 F, BW and VNNI (checked once).
#[cfg(tessera_avx2)]
pub fn avx512_vnni_available() -> bool {
    static AVX512_VNNI: once_cell::sync::Lazy<bool> =
        once_cell::sync::Lazy::new(|| std::is_x86_feature_detected!("avx512vnni"));
    super::avx512_available() && *AVX512_VNNI
}

/// Widest input the VNNI sparse kernel takes, in groups of 4 inputs.
#[cfg(tessera_avx2)]
const MAX_SPARSE_GROUPS: usize = 1024;

/// For each 8-bit mask, the positions of its set bits, lowest first.
#[cfg(tessera_avx2)]
static SET_BITS: [[u16; 8]; 256] = {
    let mut table = [[0u16; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if mask & (1 << bit) != 0 {
                table[mask][n] = bit as u16;
                n += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// Whether the CPU has AVX-VNNI (checked once).
#[cfg(tessera_avx2)]
pub fn vnni_available() -> bool {
    static VNNI: once_cell::sync::Lazy<bool> = once_cell::sync::Lazy::new(|| std::is_x86_feature_detected!("avxvnni"));
    *VNNI && super::avx2_available() && super::allowed(super::SimdLevel::AvxVnni)
}

/// The first hidden layer: the sparse AVX2 kernel where it applies
/// (`interleaved` from [`interleave_for_sparse`]), else [`affine`]. `fused`
/// says that [`pairs_fit_in_16_bits`] holds for `weights` (the AVX2 kernel
/// without VNNI then takes two groups a time).
pub fn affine_sparse(
    input: &[u8],
    weights: &[i8],
    interleaved: Option<&[i8]>,
    fused: bool,
    bias: &[i32],
    out: &mut [i32],
    avx2: bool,
) {
    #[cfg(tessera_avx2)]
    if avx2
        && let Some(interleaved) = interleaved
        && input.len().is_multiple_of(32)
        && interleaved.len() == input.len() * out.len()
        && bias.len() == out.len()
    {
        // SAFETY: `avx2` is only true when the CPU reports AVX2, and VNNI is
        // used only where the CPU reports it; the lengths were checked above
        // and `interleaved` has the sparse layout.
        unsafe {
            if avx512_vnni_available() {
                match out.len() {
                    16 => return affine_sparse_avx512::<1>(input, interleaved, bias, out),
                    32 => return affine_sparse_avx512::<2>(input, interleaved, bias, out),
                    64 => return affine_sparse_avx512::<4>(input, interleaved, bias, out),
                    _ => {}
                }
            }
            if vnni_available() {
                match out.len() {
                    8 => return affine_sparse_vnni::<1>(input, interleaved, bias, out),
                    16 => return affine_sparse_vnni::<2>(input, interleaved, bias, out),
                    32 => return affine_sparse_vnni::<4>(input, interleaved, bias, out),
                    64 => return affine_sparse_vnni::<8>(input, interleaved, bias, out),
                    _ => {}
                }
            }
            let done = if fused {
                affine_sparse_avx2_any::<true>(input, interleaved, bias, out)
            } else {
                affine_sparse_avx2_any::<false>(input, interleaved, bias, out)
            };
            if done {
                return;
            }
        }
    }
    let _ = (interleaved, fused);
    affine(input, weights, bias, out, avx2);
}

/// The fastest available kernel.
pub fn affine(input: &[u8], weights: &[i8], bias: &[i32], out: &mut [i32], avx2: bool) {
    #[cfg(tessera_avx2)]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU reports AVX2.
        unsafe { affine_avx2(input, weights, bias, out) };
        return;
    }
    let _ = avx2;
    affine_scalar(input, weights, bias, out);
}

// The AVX2 twins exist only where they are compiled in (not with `portable`).
#[cfg(all(test, tessera_avx2))]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_scalar() {
        if !super::super::avx2_available() {
            eprintln!("skipping: no AVX2 on this CPU");
            return;
        }
        let mut rng = 12345u64;
        let mut next = || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) as u32
        };
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
    fn sparse_avx2_matches_scalar() {
        if !super::super::avx2_available() {
            eprintln!("skipping: no AVX2 on this CPU");
            return;
        }
        let mut rng = 99u64;
        let mut next = || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) as u32
        };
        for (n, outs) in [(1024, 32), (64, 8), (512, 16), (1024, 64), (32, 32)] {
            // Dense, half zero, mostly zero, all zero; extremes of both ranges.
            for zero_share in [0, 50, 95, 100] {
                let input: Vec<u8> =
                    (0..n).map(|_| if next() % 100 < zero_share { 0 } else { (next() % 128) as u8 }).collect();
                let weights: Vec<i8> = (0..n * outs).map(|_| next() as u8 as i8).collect();
                let bias: Vec<i32> = (0..outs).map(|_| next() as i32 % 100_000).collect();
                let interleaved = interleave_for_sparse(&weights, n, outs).unwrap();
                let (mut a, mut b, mut c) = (vec![0; outs], vec![0; outs], vec![0; outs]);
                affine_scalar(&input, &weights, &bias, &mut a);
                // SAFETY: AVX2 checked above; sizes as the kernels require.
                assert!(unsafe { affine_sparse_avx2_any::<false>(&input, &interleaved, &bias, &mut b) });
                assert_eq!(a, b, "AVX2: n = {n}, outputs = {outs}, {zero_share}% zero");
                if avx512_vnni_available() && outs >= 16 {
                    let mut d = vec![0; outs];
                    // SAFETY: AVX-512 VNNI checked; sizes as the kernel requires.
                    unsafe {
                        match outs {
                            16 => affine_sparse_avx512::<1>(&input, &interleaved, &bias, &mut d),
                            32 => affine_sparse_avx512::<2>(&input, &interleaved, &bias, &mut d),
                            _ => affine_sparse_avx512::<4>(&input, &interleaved, &bias, &mut d),
                        }
                    }
                    assert_eq!(a, d, "AVX-512: n = {n}, outputs = {outs}, {zero_share}% zero");
                }
                affine_sparse(&input, &weights, Some(&interleaved), false, &bias, &mut c, true);
                assert_eq!(a, c, "dispatched (VNNI where present): n = {n}, outputs = {outs}, {zero_share}% zero");
            }
        }
        let (input, weights, bias) = (vec![127u8; 64], vec![-128i8; 64 * 8], vec![0; 8]);
        let interleaved = interleave_for_sparse(&weights, 64, 8).unwrap();
        let (mut a, mut b) = (vec![0; 8], vec![0; 8]);
        affine_scalar(&input, &weights, &bias, &mut a);
        affine_sparse(&input, &weights, Some(&interleaved), false, &bias, &mut b, true);
        assert_eq!(a, b, "the most negative weights");
        assert!(!pairs_fit_in_16_bits(&weights, 64, 8, 127), "-128 everywhere overflows two groups");
    }

    #[test]
    fn fused_avx2_matches_scalar_where_the_weights_allow() {
        if !super::super::avx2_available() {
            eprintln!("skipping: no AVX2 on this CPU");
            return;
        }
        let mut rng = 7u64;
        let mut next = || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) as u32
        };
        for (n, outs) in [(512, 32), (64, 8), (512, 16), (1024, 64), (32, 32)] {
            for zero_share in [0, 50, 95, 100] {
                let input: Vec<u8> =
                    (0..n).map(|_| if next() % 100 < zero_share { 0 } else { (next() % 128) as u8 }).collect();
                // Weights in -64..=63: |w_a| + |w_b| <= 128, two groups at most 127 * 256.
                let weights: Vec<i8> = (0..n * outs).map(|_| (next() % 128) as i8 - 64).collect();
                assert!(pairs_fit_in_16_bits(&weights, n, outs, 127));
                let bias: Vec<i32> = (0..outs).map(|_| next() as i32 % 100_000).collect();
                let interleaved = interleave_for_sparse(&weights, n, outs).unwrap();
                let (mut a, mut b) = (vec![0; outs], vec![0; outs]);
                affine_scalar(&input, &weights, &bias, &mut a);
                // SAFETY: AVX2 checked above; sizes as the kernel requires.
                assert!(unsafe { affine_sparse_avx2_any::<true>(&input, &interleaved, &bias, &mut b) });
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

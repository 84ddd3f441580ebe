//! Clipped ReLU: integer activations clamped to 0..127 as u8. The feature
//! transformer's i16 sums are clamped directly; hidden i32 sums are first
//! shifted right by 6 (undoing the ×64 weight scale). A pairwise net's
//! feature transformer multiplies its clamped halves instead.

pub const ACTIVATION_MAX: i32 = 127;
pub const HIDDEN_SHIFT: u32 = 6;
/// The pairwise product of two activations (each 0..127) shifted back into
/// 0..126: `(a·b) >> 7` (the float net's `a·b·127/128`).
pub const PAIRWISE_SHIFT: u32 = 7;

use crate::simd::Avx2;

pub fn crelu_i16_scalar(input: &[i16], out: &mut [u8]) {
    for (o, &x) in out.iter_mut().zip(input) {
        *o = (x as i32).clamp(0, ACTIVATION_MAX) as u8;
    }
}

/// AVX2 version: clamp 16 lanes, pack to bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
pub unsafe fn crelu_i16_avx2(input: &[i16], out: &mut [u8]) {
    use std::arch::x86_64::*;
    let n = input.len().min(out.len());
    let chunks = n / 32;
    for c in 0..chunks {
        // SAFETY: c·32 + 32 ≤ n; unaligned loads and store.
        unsafe {
            let a = _mm256_loadu_si256(input.as_ptr().add(c * 32) as *const __m256i);
            let b = _mm256_loadu_si256(input.as_ptr().add(c * 32 + 16) as *const __m256i);
            let packed = pack_bytes(clamp_activation(a), clamp_activation(b));
            _mm256_storeu_si256(out.as_mut_ptr().add(c * 32) as *mut __m256i, packed);
        }
    }
    crelu_i16_scalar(&input[chunks * 32..n], &mut out[chunks * 32..n]);
}

/// 16 lanes of i16 clamped to 0..127.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
#[inline]
fn clamp_activation(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), _mm256_set1_epi16(ACTIVATION_MAX as i16))
}

/// Two registers of 16 values in 0..255 as one of 32 bytes, in order.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
#[inline]
fn pack_bytes(low: std::arch::x86_64::__m256i, high: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // packus interleaves 128-bit halves; permute restores the order.
    _mm256_permute4x64_epi64(_mm256_packus_epi16(low, high), 0b11_01_10_00)
}

pub fn crelu_i16(input: &[i16], out: &mut [u8], simd: Option<Avx2>) {
    #[cfg(tessera_avx2)]
    if simd.is_some() {
        // SAFETY: the token proves the CPU has AVX2.
        unsafe { crelu_i16_avx2(input, out) };
        return;
    }
    let _ = simd;
    crelu_i16_scalar(input, out);
}

/// A pairwise net's activations of one perspective: `out[j]` is
/// `(clamp(acc[j]) · clamp(acc[j + M/2])) >> 7` for the accumulator's
/// M values, `out` holding M/2.
pub fn pairwise_i16_scalar(acc: &[i16], out: &mut [u8]) {
    let (first, second) = acc.split_at(acc.len() / 2);
    pairwise_halves(first, second, out);
}

/// `out[j] = (clamp(first[j]) · clamp(second[j])) >> 7`.
fn pairwise_halves(first: &[i16], second: &[i16], out: &mut [u8]) {
    for ((o, &a), &b) in out.iter_mut().zip(first).zip(second) {
        let (a, b) = ((a as i32).clamp(0, ACTIVATION_MAX), (b as i32).clamp(0, ACTIVATION_MAX));
        *o = ((a * b) >> PAIRWISE_SHIFT) as u8;
    }
}

/// AVX2 version: 32 products a step. Both factors are at most 127, so the
/// product (at most 16,129) fits the low 16 bits that `mullo` keeps.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
pub unsafe fn pairwise_i16_avx2(acc: &[i16], out: &mut [u8]) {
    use std::arch::x86_64::*;
    let half = acc.len() / 2;
    let n = half.min(out.len());
    let chunks = n / 32;
    let (first, second) = acc.split_at(half);
    for c in 0..chunks {
        // SAFETY: c·32 + 32 ≤ n ≤ each half's length and out's; unaligned
        // loads and store.
        unsafe {
            let load = |half: &[i16], at: usize| {
                clamp_activation(_mm256_loadu_si256(half.as_ptr().add(c * 32 + at) as *const __m256i))
            };
            let low = _mm256_srli_epi16(_mm256_mullo_epi16(load(first, 0), load(second, 0)), PAIRWISE_SHIFT as i32);
            let high = _mm256_srli_epi16(_mm256_mullo_epi16(load(first, 16), load(second, 16)), PAIRWISE_SHIFT as i32);
            _mm256_storeu_si256(out.as_mut_ptr().add(c * 32) as *mut __m256i, pack_bytes(low, high));
        }
    }
    let done = chunks * 32;
    pairwise_halves(&first[done..n], &second[done..n], &mut out[done..n]);
}

pub fn pairwise_i16(acc: &[i16], out: &mut [u8], simd: Option<Avx2>) {
    #[cfg(tessera_avx2)]
    if simd.is_some() {
        // SAFETY: the token proves the CPU has AVX2.
        unsafe { pairwise_i16_avx2(acc, out) };
        return;
    }
    let _ = simd;
    pairwise_i16_scalar(acc, out);
}

/// Hidden-layer activation (few lanes: scalar only).
pub fn crelu_i32(input: &[i32], out: &mut [u8]) {
    for (o, &x) in out.iter_mut().zip(input) {
        *o = (x >> HIDDEN_SHIFT).clamp(0, ACTIVATION_MAX) as u8;
    }
}

// The AVX2 twins exist only where they are compiled in (not with `portable`).
#[cfg(all(test, tessera_avx2))]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_scalar() {
        if crate::simd::Avx2::detect().is_none() {
            crate::testing::skip("avx2", "no AVX2 on this CPU");
            return;
        }
        for n in [32, 64, 512, 50] {
            let input: Vec<i16> = (0..n).map(|i| ((i as i32 * 7919) % 700 - 300) as i16).collect();
            let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
            crelu_i16_scalar(&input, &mut a);
            // SAFETY: checked above that the CPU has AVX2.
            unsafe { crelu_i16_avx2(&input, &mut b) };
            assert_eq!(a, b, "n = {n}");
        }
    }

    #[test]
    fn pairwise_avx2_matches_scalar() {
        if crate::simd::Avx2::detect().is_none() {
            crate::testing::skip("avx2", "no AVX2 on this CPU");
            return;
        }
        // Widths with and without a remainder after the 32-lane steps;
        // values beyond both ends of the clamp, and the largest product.
        for n in [64, 128, 1024, 100] {
            let acc: Vec<i16> = (0..n).map(|i| ((i as i32 * 7919) % 700 - 300) as i16).collect();
            let (mut a, mut b) = (vec![0u8; n / 2], vec![0u8; n / 2]);
            pairwise_i16_scalar(&acc, &mut a);
            // SAFETY: checked above that the CPU has AVX2.
            unsafe { pairwise_i16_avx2(&acc, &mut b) };
            assert_eq!(a, b, "n = {n}");
            assert!(a.iter().any(|&x| x > 0) && a.contains(&0), "n = {n}: both sides of the clamp");
        }
        let (mut a, mut b) = (vec![0u8; 32], vec![0u8; 32]);
        pairwise_i16_scalar(&[i16::MAX; 64], &mut a);
        // SAFETY: as above.
        unsafe { pairwise_i16_avx2(&[i16::MAX; 64], &mut b) };
        assert_eq!((a[0], b), (126, a.clone()));
    }
}

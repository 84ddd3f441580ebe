//! Clipped ReLU: integer activations clamped to 0..127 as u8. The feature
//! transformer's i16 sums are clamped directly; hidden i32 sums are first
//! shifted right by 6 (undoing the ×64 weight scale).

pub const ACTIVATION_MAX: i32 = 127;
pub const HIDDEN_SHIFT: u32 = 6;

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
    let zero = _mm256_setzero_si256();
    let max = _mm256_set1_epi16(ACTIVATION_MAX as i16);
    for c in 0..chunks {
        // SAFETY: c·32 + 32 ≤ n; unaligned loads and store.
        unsafe {
            let a = _mm256_loadu_si256(input.as_ptr().add(c * 32) as *const __m256i);
            let b = _mm256_loadu_si256(input.as_ptr().add(c * 32 + 16) as *const __m256i);
            let a = _mm256_min_epi16(_mm256_max_epi16(a, zero), max);
            let b = _mm256_min_epi16(_mm256_max_epi16(b, zero), max);
            // packus interleaves 128-bit halves; permute restores the order.
            let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0b11_01_10_00);
            _mm256_storeu_si256(out.as_mut_ptr().add(c * 32) as *mut __m256i, packed);
        }
    }
    crelu_i16_scalar(&input[chunks * 32..n], &mut out[chunks * 32..n]);
}

pub fn crelu_i16(input: &[i16], out: &mut [u8], avx2: bool) {
    #[cfg(tessera_avx2)]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU reports AVX2.
        unsafe { crelu_i16_avx2(input, out) };
        return;
    }
    let _ = avx2;
    crelu_i16_scalar(input, out);
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
        if !super::super::avx2_available() {
            eprintln!("skipping: no AVX2 on this CPU");
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
}

//! Dense int8 layer: `out[o] = bias[o] + Σ input[k] · weights[o][k]`, with
//! unsigned 8-bit inputs (0..127) and signed 8-bit weights.

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
}

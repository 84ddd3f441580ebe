//! The feature transformer's running sums: one i16 vector per perspective,
//! moved forward by adding and subtracting weight columns.

/// `acc += column`, wrapping like the AVX2 lanes do.
pub fn add_scalar(acc: &mut [i16], column: &[i16]) {
    for (a, &c) in acc.iter_mut().zip(column) {
        *a = a.wrapping_add(c);
    }
}

pub fn sub_scalar(acc: &mut [i16], column: &[i16]) {
    for (a, &c) in acc.iter_mut().zip(column) {
        *a = a.wrapping_sub(c);
    }
}

/// # Safety
/// The CPU must support AVX2.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2(acc: &mut [i16], column: &[i16], subtract: bool) {
    use std::arch::x86_64::*;
    let n = acc.len().min(column.len());
    let chunks = n / 16;
    for c in 0..chunks {
        // SAFETY: c·16 + 16 ≤ n for both slices; unaligned loads and store.
        unsafe {
            let a = _mm256_loadu_si256(acc.as_ptr().add(c * 16) as *const __m256i);
            let w = _mm256_loadu_si256(column.as_ptr().add(c * 16) as *const __m256i);
            let r = if subtract { _mm256_sub_epi16(a, w) } else { _mm256_add_epi16(a, w) };
            _mm256_storeu_si256(acc.as_mut_ptr().add(c * 16) as *mut __m256i, r);
        }
    }
    if subtract {
        sub_scalar(&mut acc[chunks * 16..n], &column[chunks * 16..n]);
    } else {
        add_scalar(&mut acc[chunks * 16..n], &column[chunks * 16..n]);
    }
}

pub fn add(acc: &mut [i16], column: &[i16], avx2: bool) {
    #[cfg(tessera_avx2)]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU reports AVX2.
        unsafe { add_sub_avx2(acc, column, false) };
        return;
    }
    let _ = avx2;
    add_scalar(acc, column);
}

pub fn sub(acc: &mut [i16], column: &[i16], avx2: bool) {
    #[cfg(tessera_avx2)]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU reports AVX2.
        unsafe { add_sub_avx2(acc, column, true) };
        return;
    }
    let _ = avx2;
    sub_scalar(acc, column);
}

// The AVX2 twins exist only where they are compiled in (not with `portable`).
#[cfg(all(test, tessera_avx2))]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_scalar() {
        if !super::super::layers::avx2_available() {
            eprintln!("skipping: no AVX2 on this CPU");
            return;
        }
        for n in [16, 512, 37] {
            let base: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(3001)).collect();
            let column: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(-7717)).collect();
            for subtract in [false, true] {
                let (mut a, mut b) = (base.clone(), base.clone());
                if subtract {
                    sub_scalar(&mut a, &column)
                } else {
                    add_scalar(&mut a, &column)
                }
                // SAFETY: checked above that the CPU has AVX2.
                unsafe { add_sub_avx2(&mut b, &column, subtract) };
                assert_eq!(a, b, "n = {n}, subtract = {subtract}");
            }
        }
    }
}

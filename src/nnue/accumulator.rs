//! The feature transformer's running sums: one i16 vector per perspective.
//!
//! A child's accumulator is written in one pass from its parent's:
//! `child = parent + Σ added columns − Σ removed columns`. The AVX2 kernel
//! holds a tile of the accumulator in registers across every changed column
//! (Stockfish's approach), so each accumulator value is loaded and stored
//! once per move however many features change, instead of once per feature.
//! A refresh is the same pass with the biases as the parent.
//!
//! Arithmetic wraps (i16), like the AVX2 lanes, so both kernels agree bit
//! for bit in every case.

use crate::simd::Avx2;

/// The weight matrix of the feature transformer: one column of `width`
/// values per input feature.
#[derive(Clone, Copy)]
pub struct Columns<'a> {
    pub weights: &'a [i16],
    pub width: usize,
}

impl Columns<'_> {
    fn column(&self, index: u32) -> &[i16] {
        &self.weights[index as usize * self.width..(index as usize + 1) * self.width]
    }

    /// Whether every index names a whole column (what the AVX2 kernel's raw
    /// loads rely on).
    fn holds(&self, indices: &[u32]) -> bool {
        // No division: this runs twice for every accumulator update.
        indices.iter().all(|&i| (i as usize + 1) * self.width.max(1) <= self.weights.len())
    }
}

/// `child = parent + Σ columns[added] − Σ columns[removed]`.
pub fn apply_scalar(columns: Columns, parent: &[i16], child: &mut [i16], added: &[u32], removed: &[u32]) {
    child.copy_from_slice(parent);
    for &i in added {
        for (a, &c) in child.iter_mut().zip(columns.column(i)) {
            *a = a.wrapping_add(c);
        }
    }
    for &i in removed {
        for (a, &c) in child.iter_mut().zip(columns.column(i)) {
            *a = a.wrapping_sub(c);
        }
    }
}

/// One tiled kernel per register width, from one body: a tile of `$regs`
/// registers of the accumulator is held in registers across every changed
/// column, so each accumulator value is loaded and stored once per move;
/// widths that are not a multiple of the tile finish without tiling.
macro_rules! tiled_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $reg:ty, $lanes:literal, $regs:literal,
     $zero:ident, $load:ident, $store:ident, $add:ident, $sub:ident) => {
        $(#[$doc])*
        #[cfg(tessera_avx2)]
        #[target_feature(enable = $features)]
        unsafe fn $name(columns: Columns, parent: &[i16], child: &mut [i16], added: &[u32], removed: &[u32]) {
            use std::arch::x86_64::*;
            let width = columns.width;
            let base = columns.weights.as_ptr();
            let tile = $regs * $lanes;
            let tiles = width / tile;
            for t in 0..tiles {
                let offset = t * tile;
                let mut regs: [$reg; $regs] = [$zero(); $regs];
                // SAFETY (this block and the loops below): offset + tile ≤
                // width, the length of `parent`, `child` and every column
                // (the caller's contract); unaligned loads and stores.
                unsafe {
                    for (r, reg) in regs.iter_mut().enumerate() {
                        *reg = $load(parent.as_ptr().add(offset + r * $lanes) as *const _);
                    }
                    for &i in added {
                        let column = base.add(i as usize * width + offset);
                        for (r, reg) in regs.iter_mut().enumerate() {
                            *reg = $add(*reg, $load(column.add(r * $lanes) as *const _));
                        }
                    }
                    for &i in removed {
                        let column = base.add(i as usize * width + offset);
                        for (r, reg) in regs.iter_mut().enumerate() {
                            *reg = $sub(*reg, $load(column.add(r * $lanes) as *const _));
                        }
                    }
                    for (r, reg) in regs.iter().enumerate() {
                        $store(child.as_mut_ptr().add(offset + r * $lanes) as *mut _, *reg);
                    }
                }
            }
            let done = tiles * tile;
            if done < width {
                apply_scalar_range(columns, &parent[done..], &mut child[done..], added, removed, done);
            }
        }
    };
}

tiled_kernel!(
    /// AVX2: tiles of 8 registers × 16 lanes (eight accumulators leave room
    /// for the column loads among AVX2's sixteen registers).
    ///
    /// # Safety
    /// The CPU must support AVX2; `parent` and `child` hold `columns.width`
    /// values and every index names a column of `columns`.
    apply_avx2, "avx2", __m256i, 16, 8,
    _mm256_setzero_si256, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_add_epi16, _mm256_sub_epi16
);

tiled_kernel!(
    /// AVX-512: tiles of 8 registers × 32 lanes, half the loads, adds and
    /// stores of AVX2's, and widths of 256·n (512, 768, 1024) need no
    /// remainder pass.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F and BW; as for [`apply_avx2`] otherwise.
    apply_avx512, "avx2,avx512f,avx512bw", __m512i, 32, 8,
    _mm512_setzero_si512, _mm512_loadu_si512, _mm512_storeu_si512, _mm512_add_epi16, _mm512_sub_epi16
);

/// `apply_scalar` over the values `from..` of each column.
#[cfg(tessera_avx2)]
fn apply_scalar_range(
    columns: Columns,
    parent: &[i16],
    child: &mut [i16],
    added: &[u32],
    removed: &[u32],
    from: usize,
) {
    child.copy_from_slice(parent);
    for (&i, sign) in added.iter().map(|i| (i, 1)).chain(removed.iter().map(|i| (i, -1))) {
        let column = &columns.column(i)[from..];
        for (a, &c) in child.iter_mut().zip(column) {
            *a = if sign > 0 { a.wrapping_add(c) } else { a.wrapping_sub(c) };
        }
    }
}

/// The fastest available kernel. Panics if an index names no column (a bug
/// in a feature block), before any unchecked load.
pub fn apply(columns: Columns, parent: &[i16], child: &mut [i16], added: &[u32], removed: &[u32], simd: Option<Avx2>) {
    assert!(parent.len() == columns.width && child.len() == columns.width, "accumulator and column widths differ");
    assert!(columns.holds(added) && columns.holds(removed), "feature index out of range");
    #[cfg(tessera_avx2)]
    if let Some(avx2) = simd {
        // SAFETY: the token proves the CPU has AVX2, and AVX-512 is used only
        // with its own token; widths and indices were checked above.
        unsafe {
            if avx2.avx512().is_some() {
                apply_avx512(columns, parent, child, added, removed);
            } else {
                apply_avx2(columns, parent, child, added, removed);
            }
        }
        return;
    }
    let _ = simd;
    apply_scalar(columns, parent, child, added, removed);
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
        // Tiled widths, a width with a remainder, and one below a tile;
        // values chosen to wrap.
        for width in [128, 256, 512, 768, 1024, 37, 200, 300] {
            let features = 40;
            let weights: Vec<i16> = (0..width * features).map(|i| (i as i16).wrapping_mul(-7717)).collect();
            let columns = Columns { weights: &weights, width };
            let parent: Vec<i16> = (0..width).map(|i| (i as i16).wrapping_mul(3001)).collect();
            for (added, removed) in
                [(vec![], vec![]), (vec![3], vec![]), (vec![1, 39], vec![0]), (vec![5, 6, 7], vec![8, 9, 10, 11])]
            {
                let (mut a, mut b) = (vec![0i16; width], vec![0i16; width]);
                apply_scalar(columns, &parent, &mut a, &added, &removed);
                // SAFETY: checked above that the CPU has AVX2; widths and
                // indices fit.
                unsafe { apply_avx2(columns, &parent, &mut b, &added, &removed) };
                assert_eq!(a, b, "width {width}, +{added:?} −{removed:?}");
                if crate::simd::Avx512::detect().is_some() {
                    let mut c = vec![0i16; width];
                    // SAFETY: AVX-512 F and BW checked; widths and indices fit.
                    unsafe { apply_avx512(columns, &parent, &mut c, &added, &removed) };
                    assert_eq!(a, c, "AVX-512: width {width}, +{added:?} −{removed:?}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "feature index out of range")]
    fn an_index_past_the_columns_is_refused() {
        let weights = vec![0i16; 32];
        let (parent, mut child) = (vec![0i16; 16], vec![0i16; 16]);
        apply(Columns { weights: &weights, width: 16 }, &parent, &mut child, &[2], &[], crate::simd::Avx2::detect());
    }
}

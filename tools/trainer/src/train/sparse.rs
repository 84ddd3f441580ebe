//! The feature transformer's sparse side: a sub-batch's rows grouped by
//! active feature, the scatter of their gradients into the weights, and the
//! prefetch of the randomly drawn rows that both passes read.

use crate::train::batch::Batch;
use crate::train::kernels;
use crate::train::passes::add;

/// A sub-batch's (position, perspective) rows grouped by active feature
/// (a counting sort), so that each feature's gradient is summed in
/// registers and added to its weights once.
#[derive(Default)]
pub struct ByFeature {
    /// `rows[starts[f]..starts[f + 1]]`: the rows (2 × position + perspective,
    /// from the sub-batch's first position) where feature f is active, in order.
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl ByFeature {
    pub(super) fn sort(&mut self, batch: &Batch, positions: std::ops::Range<usize>, inputs: usize) {
        self.starts.clear();
        self.starts.resize(inputs + 2, 0);
        let first = positions.start;
        for pos in positions.clone() {
            for k in 0..2 {
                for &f in batch.features(pos, k) {
                    self.starts[f as usize + 2] += 1;
                }
            }
        }
        for f in 2..self.starts.len() {
            self.starts[f] += self.starts[f - 1];
        }
        self.rows.resize(self.starts[inputs + 1] as usize, 0);
        for pos in positions {
            for k in 0..2 {
                let row = (2 * (pos - first) + k) as u32;
                for &f in batch.features(pos, k) {
                    let at = &mut self.starts[f as usize + 1];
                    self.rows[*at as usize] = row;
                    *at += 1;
                }
            }
        }
    }

    pub(super) fn feature(&self, f: usize) -> &[u32] {
        &self.rows[self.starts[f] as usize..self.starts[f + 1] as usize]
    }

    pub(super) fn inputs(&self) -> usize {
        self.starts.len() - 2
    }
}

/// Adds to one column slice of the feature transformer's gradient (`gw`
/// its rows, `gb` its bias) the slice's accumulator gradients (`dacc`, one
/// row per position and perspective of the sub-batch), each to the rows of
/// its active features.
pub(super) fn scatter_slice(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if kernels::avx512() {
        // SAFETY: the CPU has AVX-512 (F, BW), AVX2 and FMA (`kernels::avx512`).
        return unsafe { scatter_slice_avx512(by_feature, dacc, gw, gb) };
    }
    #[cfg(target_arch = "x86_64")]
    if kernels::avx2() {
        // SAFETY: the CPU has AVX2 and FMA (`kernels::avx2`).
        return unsafe { scatter_slice_avx2(by_feature, dacc, gw, gb) };
    }
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

/// The same code in 16-lane registers. Every sum is taken element by
/// element in the same order at any width, so the result is the AVX2
/// path's bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
fn scatter_slice_avx512(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn scatter_slice_avx2(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    scatter_slice_generic(by_feature, dacc, gw, gb)
}

#[inline(always)]
fn scatter_slice_generic(by_feature: &ByFeature, dacc: &[f32], gw: &mut [f32], gb: &mut [f32]) {
    let w = gb.len();
    for d in dacc.chunks_exact(w) {
        add(gb, d);
    }
    for f in 0..by_feature.inputs() {
        let rows = by_feature.feature(f);
        if rows.is_empty() {
            continue;
        }
        if w == SLICE {
            // The feature's sum stays in registers across its rows.
            let mut sum = [0.0f32; SLICE];
            let from = by_feature.starts[f] as usize;
            for (at, &r) in (from..).zip(rows) {
                if let Some(&next) = by_feature.rows.get(at + AHEAD) {
                    prefetch_row(dacc, next as usize * SLICE);
                }
                let d: &[f32; SLICE] = dacc[r as usize * SLICE..][..SLICE].try_into().expect("a row");
                for t in 0..SLICE {
                    sum[t] += d[t];
                }
            }
            add(&mut gw[f * SLICE..][..SLICE], &sum);
        } else {
            for &r in rows {
                add(&mut gw[f * w..][..w], &dacc[r as usize * w..][..w]);
            }
        }
    }
}

/// The feature transformer's column slice when its width allows.
pub(super) const SLICE: usize = 64;

/// How many rows ahead the feature transformer's forward pass and scatter
/// prefetch: their rows are drawn at random from a slice that lives in L2 at
/// best, and each one's first load otherwise stalls the additions behind it.
/// On a 2-core EPYC (AVX2) 16 and 32 ran alike, 8 and 4 slower.
pub(super) const AHEAD: usize = 16;

/// Asks the CPU to bring the `SLICE` values of `data` from `at` into L1: a
/// hint, which changes no result.
#[inline(always)]
pub(super) fn prefetch_row(data: &[f32], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let row = data.as_ptr().wrapping_add(at).cast::<i8>();
        for line in 0..size_of::<[f32; SLICE]>() / 64 {
            // SAFETY: a prefetch reads nothing the program sees and never
            // faults, whatever the address; `wrapping_add` keeps the
            // pointer arithmetic defined.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(64 * line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prefetch is only a hint: one far past the data, or of an empty
    /// slice, reads nothing and does not fault.
    #[test]
    fn prefetching_past_the_data_is_harmless() {
        let data = [1.0f32; SLICE];
        for at in [0, SLICE, 1 << 40, usize::MAX] {
            prefetch_row(&data, at);
            prefetch_row(&[], at);
        }
        assert_eq!(data, [1.0; SLICE]);
    }
}

//! The position of the first largest score in a list: the move picker's
//! selection, a tenth of the search's time when done one score at a time
//! (a baseline x86-64 build has no 32-bit vector maximum: SSE2 lacks
//! `pmaxsd`). With AVX2, eight scores an instruction, the same answer.

/// Scores after the last real one, so that eight-lane reads never run past
/// the list: lower than any score, they are never the maximum.
pub const PADDING: usize = 8;
pub const PAD: i32 = i32::MIN;

/// The index of the first maximum of `scores`, which ends with at least
/// [`PADDING`] pads (`PAD`) after its real scores, among the real ones
/// (`real` of them, at least one).
pub fn first_max(scores: &[i32], real: usize) -> usize {
    assert!(real > 0 && scores.len() >= real + PADDING, "a score, and the padding after the scores");
    #[cfg(tessera_avx2)]
    if crate::simd::Avx2::detect().is_some() {
        // SAFETY: the token proves AVX2 is there; the slice holds `real`
        // rounded up to eight.
        return unsafe { first_max_avx2(&scores[..real.next_multiple_of(8)]) };
    }
    first_max_scalar(&scores[..real])
}

/// One score at a time: a maximum, then a search for it (two branch-free
/// passes instead of one that branches on every comparison).
fn first_max_scalar(scores: &[i32]) -> usize {
    let top = scores.iter().copied().max().expect("a score");
    scores.iter().position(|&s| s == top).expect("the maximum is there")
}

/// Eight scores a step: the lanes' maxima, their maximum, then the first
/// block of eight that holds it and the first lane there.
///
/// # Safety
/// The CPU must support AVX2; `scores.len()` is a non-zero multiple of 8.
#[cfg(tessera_avx2)]
#[target_feature(enable = "avx2")]
unsafe fn first_max_avx2(scores: &[i32]) -> usize {
    use std::arch::x86_64::*;
    let blocks = scores.chunks_exact(8);
    // SAFETY (every load below): a chunk holds 8 i32, 32 bytes; unaligned.
    let load = |block: &[i32]| unsafe { _mm256_loadu_si256(block.as_ptr() as *const __m256i) };
    let mut lanes = _mm256_set1_epi32(PAD);
    for block in blocks.clone() {
        lanes = _mm256_max_epi32(lanes, load(block));
    }
    // Every lane gets the maximum of all eight: halves, then pairs, then neighbours.
    lanes = _mm256_max_epi32(lanes, _mm256_permute2x128_si256::<1>(lanes, lanes));
    lanes = _mm256_max_epi32(lanes, _mm256_shuffle_epi32::<0b01_00_11_10>(lanes));
    lanes = _mm256_max_epi32(lanes, _mm256_shuffle_epi32::<0b10_11_00_01>(lanes));
    for (b, block) in blocks.enumerate() {
        let hits = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(load(block), lanes))) as u32;
        if hits != 0 {
            return b * 8 + hits.trailing_zeros() as usize;
        }
    }
    unreachable!("the maximum is in some block")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::XorShift;

    #[test]
    fn every_path_finds_the_first_maximum() {
        let mut rng = XorShift(0x853c_49e6_748f_ea9b);
        for len in 1..=70 {
            for round in 0..50 {
                // Few distinct values (many ties) in some rounds, the
                // extremes a picker uses in others.
                let spread = [3u64, 1000, u32::MAX as u64][round % 3];
                let mut scores: Vec<i32> =
                    (0..len).map(|_| (rng.next_u64() % spread) as i32 - (spread / 2) as i32).collect();
                if round % 7 == 0 {
                    scores[(rng.next_u64() % len as u64) as usize] = PAD + 1;
                }
                let expected = (0..len).rev().max_by_key(|&i| scores[i]).unwrap();
                scores.extend([PAD; PADDING]);
                assert_eq!(first_max_scalar(&scores[..len]), expected, "{scores:?}");
                assert_eq!(first_max(&scores, len), expected, "{scores:?}");
                #[cfg(tessera_avx2)]
                if crate::simd::Avx2::detect().is_some() {
                    // SAFETY: AVX2 checked; padded to a multiple of eight.
                    let found = unsafe { first_max_avx2(&scores[..len.next_multiple_of(8)]) };
                    assert_eq!(found, expected, "{scores:?}");
                }
            }
        }
        let all_low = [PAD + 1, PAD + 1, PAD, PAD, PAD, PAD, PAD, PAD, PAD, PAD];
        assert_eq!(first_max(&all_low, 2), 0);
    }
}

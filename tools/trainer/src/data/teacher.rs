//! Distillation: training scores replaced, wholly or in part, by a trained
//! net's own evaluation of each position. A net of a new shape (a pairwise
//! one, say) cannot start from the default net's weights, but it can learn
//! the default net's function, and with it what the default learnt from data
//! that no longer exists.

use rayon::prelude::*;
use tessera::nnue::network::Network;

use crate::data::samples::Samples;

/// The teacher's share of each training sample's score: `--teacher-weight`,
/// or its source's own (`PATH:tW`). Sources are runs of consecutive samples;
/// mirrors, appended after them, take their original's share.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// The end (exclusive) of each source's run of samples, ascending.
    ends: Vec<usize>,
    weights: Vec<f32>,
    /// The original of each appended mirror.
    origins: Vec<u32>,
}

impl Weights {
    /// From the sources' runs (length, own weight if any) and the default.
    pub fn new(spans: &[(usize, Option<f32>)], default: f32) -> Weights {
        let ends = spans
            .iter()
            .scan(0, |end, (len, _)| {
                *end += len;
                Some(*end)
            })
            .collect();
        let weights = spans.iter().map(|(_, w)| w.unwrap_or(default)).collect();
        Weights { ends, weights, origins: Vec::new() }
    }

    /// The same with the samples where `removed` is true taken out (the
    /// validation split of a run without validation files).
    pub fn without(self, removed: &[bool]) -> Weights {
        let mut start = 0;
        let ends = self
            .ends
            .iter()
            .scan(0, |kept, &end| {
                *kept += removed[start..end].iter().filter(|r| !**r).count();
                start = end;
                Some(*kept)
            })
            .collect();
        Weights { ends, ..self }
    }

    /// The same after mirrors were appended, `origins` naming each one's original.
    pub fn with_mirrors(self, origins: Vec<u32>) -> Weights {
        Weights { origins, ..self }
    }

    fn originals(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The teacher's share of sample `i`'s score.
    pub fn of(&self, i: usize) -> f32 {
        let originals = self.originals();
        let original = if i < originals { i } else { self.origins[i - originals] as usize };
        self.weights[self.ends.partition_point(|&end| end <= original)]
    }

    /// Whether every source has the same share (the one `--teacher-weight` gives).
    pub fn uniform(&self) -> Option<f32> {
        let first = *self.weights.first()?;
        self.weights.iter().all(|w| *w == first).then_some(first)
    }
}

/// What relabelling changed.
#[derive(Debug, Default, PartialEq)]
pub struct Report {
    /// Samples whose teacher weight is above 0.
    pub relabelled: usize,
    /// Mean |teacher − label| over the relabelled samples, in centipawns.
    pub mean_difference: f64,
}

/// Sets each eval sample's score to `w · teacher + (1 − w) · score` (both
/// the side to move's view, in centipawns), `w` its weight, the teacher's
/// score its static evaluation of the sample's position; samples of weight 0
/// are not evaluated. Triplets (PQR) have no score and are left alone.
pub fn relabel(samples: &mut Samples, teacher: &Network, weights: &Weights) -> Report {
    let Samples::Eval(samples) = samples else { return Report::default() };
    let (relabelled, total) = samples
        .par_iter_mut()
        .enumerate()
        .map(|(i, s)| {
            let weight = weights.of(i);
            if weight == 0.0 {
                return (0, 0.0);
            }
            let taught = teacher.evaluate_position(&s.pos()) as f32;
            let difference = (taught - s.score).abs() as f64;
            s.score = weight * taught + (1.0 - weight) * s.score;
            (1, difference)
        })
        .reduce(|| (0usize, 0.0f64), |a, b| (a.0 + b.0, a.1 + b.1));
    Report { relabelled, mean_difference: total / relabelled.max(1) as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::samples::parse_eval_line;
    use tessera::features::FeatureSet;
    use tessera::nnue::network::FloatNetwork;

    #[test]
    fn scores_become_the_teachers_blended_by_the_weight() {
        let fs: FeatureSet = "all".parse().unwrap();
        let teacher = Network::from_bytes(&FloatNetwork::random(&fs, 32, 8, 0, 5).quantize("t").to_bytes()).unwrap();
        let lines = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 | 120 | 0.5",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1 | -300 | 0.0",
        ];
        let samples = || Samples::Eval(lines.iter().map(|l| parse_eval_line(l).unwrap()).collect());
        let Samples::Eval(original) = samples() else { unreachable!() };
        let taught: Vec<f32> = original.iter().map(|s| teacher.evaluate_position(&s.pos()) as f32).collect();
        assert!(taught.iter().zip(&original).all(|(t, s)| *t != s.score), "the test needs scores that differ");
        for weight in [1.0, 0.5, 0.0] {
            let mut relabelled = samples();
            let report = relabel(&mut relabelled, &teacher, &Weights::new(&[(2, None)], weight));
            let Samples::Eval(new) = relabelled else { unreachable!() };
            for ((n, o), t) in new.iter().zip(&original).zip(&taught) {
                assert_eq!(n.score, weight * t + (1.0 - weight) * o.score, "weight {weight}");
                assert_eq!(n.result, o.result);
            }
            let mean = taught.iter().zip(&original).map(|(t, o)| (t - o.score).abs() as f64).sum::<f64>() / 2.0;
            let expected =
                if weight == 0.0 { Report::default() } else { Report { relabelled: 2, mean_difference: mean } };
            assert_eq!(report, expected);
        }
        // Per source: the first sample's source takes the teacher whole, the
        // second's keeps its label.
        let mut relabelled = samples();
        let report = relabel(&mut relabelled, &teacher, &Weights::new(&[(1, Some(1.0)), (1, Some(0.0))], 0.5));
        let Samples::Eval(new) = relabelled else { unreachable!() };
        assert_eq!([new[0].score, new[1].score], [taught[0], original[1].score]);
        assert_eq!(report.relabelled, 1);
    }

    #[test]
    fn weights_follow_sources_through_the_split_and_the_mirrors() {
        // Three sources of 2, 3 and 1 samples.
        let w = Weights::new(&[(2, Some(0.9)), (3, None), (1, Some(0.0))], 0.5);
        assert_eq!((0..6).map(|i| w.of(i)).collect::<Vec<_>>(), [0.9, 0.9, 0.5, 0.5, 0.5, 0.0]);
        assert_eq!(w.uniform(), None);
        assert_eq!(Weights::new(&[(2, None), (3, Some(0.5))], 0.5).uniform(), Some(0.5));
        // Samples 1 and 2 split off for validation: runs of 1, 2 and 1 remain.
        let split = w.without(&[false, true, true, false, false, false]);
        assert_eq!((0..4).map(|i| split.of(i)).collect::<Vec<_>>(), [0.9, 0.5, 0.5, 0.0]);
        // Mirrors of samples 3 and 0 appended.
        let mirrored = split.with_mirrors(vec![3, 0]);
        assert_eq!((4..6).map(|i| mirrored.of(i)).collect::<Vec<_>>(), [0.0, 0.9]);
        // A source that kept nothing is an empty run.
        let empty = Weights::new(&[(1, Some(0.2)), (0, Some(0.7)), (1, None)], 0.4);
        assert_eq!([empty.of(0), empty.of(1)], [0.2, 0.4]);
    }
}

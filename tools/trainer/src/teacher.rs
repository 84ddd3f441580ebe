//! Distillation: training scores replaced, wholly or in part, by a trained
//! net's own evaluation of each position. A net of a new shape (a pairwise
//! one, say) cannot start from the default net's weights, but it can learn
//! the default net's function, and with it what the default learnt from data
//! that no longer exists.

use rayon::prelude::*;
use tessera::nnue::network::Network;

use crate::data::Samples;

/// What relabelling changed.
#[derive(Debug, Default, PartialEq)]
pub struct Report {
    pub relabelled: usize,
    /// Mean |teacher − label| over the relabelled samples, in centipawns.
    pub mean_difference: f64,
}

/// Sets every eval sample's score to `weight · teacher + (1 − weight) · score`
/// (both the side to move's view, in centipawns), the teacher's score being
/// its static evaluation of the sample's position. Triplets (PQR) have no
/// score and are left alone.
pub fn relabel(samples: &mut Samples, teacher: &Network, weight: f32) -> Report {
    let Samples::Eval(samples) = samples else { return Report::default() };
    let total: f64 = samples
        .par_iter_mut()
        .map(|s| {
            let taught = teacher.evaluate_position(&s.pos()) as f32;
            let difference = (taught - s.score).abs() as f64;
            s.score = weight * taught + (1.0 - weight) * s.score;
            difference
        })
        .sum();
    Report { relabelled: samples.len(), mean_difference: total / samples.len().max(1) as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::parse_eval_line;
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
            let report = relabel(&mut relabelled, &teacher, weight);
            let Samples::Eval(new) = relabelled else { unreachable!() };
            for ((n, o), t) in new.iter().zip(&original).zip(&taught) {
                assert_eq!(n.score, weight * t + (1.0 - weight) * o.score, "weight {weight}");
                assert_eq!(n.result, o.result);
            }
            let mean = taught.iter().zip(&original).map(|(t, o)| (t - o.score).abs() as f64).sum::<f64>() / 2.0;
            assert_eq!(report, Report { relabelled: 2, mean_difference: mean });
        }
    }
}

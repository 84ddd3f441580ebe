//! Training objectives (tools/trainer/README.md): each maps the network's outputs for a
//! group of positions to a loss and its derivative with respect to each output.
//! Outputs are in float units; the engine's centipawns are `out × 400`.

use tessera::nnue::format::DEFAULT_SCALES;

/// Centipawns per float output unit.
pub const CP_PER_UNIT: f32 = DEFAULT_SCALES.output_cp as f32;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    /// The thesis's eval loss `|σ(out/out_scale) − t|^power`, with the
    /// target `t = (1 − λ)·σ(score/target_scale) + λ·result`.
    Eval { out_scale: f32, target_scale: f32, lambda: f32, power: f32 },
    /// The thesis's triplet loss on o = 2σ(out/out_scale) − 1 for P, Q, R:
    /// `−log σ(r − q) − log σ(p + q) − log σ(−p − q)`.
    Pqr { out_scale: f32 },
}

impl Objective {
    /// Positions per sample: 1, or 3 for a PQR triplet.
    pub fn group(&self) -> usize {
        match self {
            Objective::Eval { .. } => 1,
            Objective::Pqr { .. } => 3,
        }
    }

    /// The loss of one sample and its derivative with respect to each of its
    /// outputs, written to `douts`. `target` is (score cp, result) for eval.
    pub fn loss(&self, outs: &[f32], target: [f32; 2], douts: &mut [f32]) -> f64 {
        match *self {
            Objective::Eval { out_scale, target_scale, lambda, power } => {
                let (power, lambda) = (power as f64, lambda as f64);
                let unit = CP_PER_UNIT as f64 / out_scale as f64;
                let p = sigmoid(outs[0] as f64 * unit);
                let t = (1.0 - lambda) * sigmoid(target[0] as f64 / target_scale as f64) + lambda * target[1] as f64;
                let d = p - t;
                let grad = power * d.abs().powf(power - 1.0) * d.signum() * p * (1.0 - p) * unit;
                douts[0] = grad as f32;
                d.abs().powf(power)
            }
            Objective::Pqr { out_scale } => {
                let unit = CP_PER_UNIT as f64 / out_scale as f64;
                let o = |x: f32| 2.0 * sigmoid(x as f64 * unit) - 1.0;
                // d o / d out
                let slope = |x: f32| {
                    let s = sigmoid(x as f64 * unit);
                    2.0 * s * (1.0 - s) * unit
                };
                let (p, q, r) = (o(outs[0]), o(outs[1]), o(outs[2]));
                let (a, b, c) = (r - q, p + q, -p - q);
                let loss = -sigmoid(a).ln() - sigmoid(b).ln() - sigmoid(c).ln();
                // d(−log σ(x))/dx = σ(x) − 1
                let (ga, gb, gc) = (sigmoid(a) - 1.0, sigmoid(b) - 1.0, sigmoid(c) - 1.0);
                douts[0] = ((gb - gc) * slope(outs[0])) as f32;
                douts[1] = ((-ga + gb - gc) * slope(outs[1])) as f32;
                douts[2] = (ga * slope(outs[2])) as f32;
                loss
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_derivatives(obj: Objective, outs: &[f32], target: [f32; 2]) {
        let mut douts = vec![0.0; outs.len()];
        obj.loss(outs, target, &mut douts);
        for i in 0..outs.len() {
            let eps = 1e-3f32;
            let (mut up, mut down) = (outs.to_vec(), outs.to_vec());
            up[i] += eps;
            down[i] -= eps;
            let mut scratch = vec![0.0; outs.len()];
            let numeric =
                (obj.loss(&up, target, &mut scratch) - obj.loss(&down, target, &mut scratch)) / (2.0 * eps as f64);
            assert!(
                (numeric - douts[i] as f64).abs() < 1e-4 + 1e-3 * numeric.abs(),
                "{obj:?} {i}: {numeric} vs {}",
                douts[i]
            );
        }
    }

    #[test]
    fn eval_loss_matches_the_thesis_formula_and_its_derivative() {
        let obj = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 0.0, power: 2.6 };
        let mut d = [0.0];
        // 200 cp predicted for a 100 cp target.
        let expected = (sigmoid(200.0 / 361.0) - sigmoid(100.0 / 410.0)).abs().powf(2.6);
        // (2.6 as f32 differs from 2.6 in the 8th digit.)
        assert!((obj.loss(&[0.5], [100.0, 0.0], &mut d) - expected).abs() < 1e-6 * expected);
        assert!(d[0] > 0.0, "predicting too high pushes the output down");
        // A perfect prediction costs nothing.
        let exact = 100.0 * 361.0 / 410.0 / CP_PER_UNIT;
        assert!(obj.loss(&[exact], [100.0, 0.0], &mut d) < 1e-12);
        for out in [-1.0, -0.1, 0.3, 2.0] {
            check_derivatives(obj, &[out], [150.0, 1.0]);
        }
        // λ = 1 trains on the result alone.
        let result_only = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 1.0, power: 2.0 };
        let l = result_only.loss(&[0.0], [900.0, 0.0], &mut d);
        assert!((l - 0.25).abs() < 1e-12);
        check_derivatives(result_only, &[0.7], [-300.0, 0.5]);
    }

    #[test]
    fn pqr_loss_prefers_the_move_played() {
        let obj = Objective::Pqr { out_scale: 361.0 };
        let mut d = [0.0; 3];
        // Good: Q (after the move played) is bad for the opponent, R better
        // for them, and p = −q.
        let good = obj.loss(&[0.5, -0.5, 0.2], [0.0; 2], &mut d);
        let bad = obj.loss(&[0.5, 0.2, -0.5], [0.0; 2], &mut d);
        assert!(good < bad);
        let o = |x: f64| 2.0 * sigmoid(x * 400.0 / 361.0) - 1.0;
        let (p, q, r) = (o(0.5), o(-0.5), o(0.2));
        let expected = -sigmoid(r - q).ln() - sigmoid(p + q).ln() - sigmoid(-p - q).ln();
        assert!((good - expected).abs() < 1e-9);
        check_derivatives(obj, &[0.5, -0.5, 0.2], [0.0; 2]);
        check_derivatives(obj, &[-1.2, 0.3, 0.9], [0.0; 2]);
    }
}

//! Adam and AdamW over the flat parameter vector, and learning-rate schedules.

use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamConfig {
    pub beta1: f32,
    pub beta2: f32,
    pub epsilon: f32,
    /// Decoupled weight decay (AdamW); 0 is plain Adam.
    pub weight_decay: f32,
}

impl Default for AdamConfig {
    fn default() -> Self {
        AdamConfig { beta1: 0.9, beta2: 0.999, epsilon: 1e-8, weight_decay: 0.0 }
    }
}

/// The optimizer's state; saved in checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    pub config: AdamConfig,
    pub step: u64,
    pub m: Vec<f32>,
    pub v: Vec<f32>,
}

impl Adam {
    pub fn new(config: AdamConfig, parameters: usize) -> Adam {
        Adam { config, step: 0, m: vec![0.0; parameters], v: vec![0.0; parameters] }
    }

    /// One step along `grad` (the mean gradient of a batch).
    #[cfg(test)]
    pub fn update(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        self.update_scaled(params, grad, 1.0, lr, &[]);
    }

    /// One step along `grad · scale` (a batch's summed gradient times
    /// 1 / its samples), then each range of `bounds` clamped to ±its bound:
    /// one pass over the parameters.
    pub fn update_scaled(
        &mut self,
        params: &mut [f32],
        grad: &[f32],
        scale: f32,
        lr: f32,
        bounds: &[(std::ops::Range<usize>, f32)],
    ) {
        self.step += 1;
        let AdamConfig { beta1, beta2, epsilon, weight_decay } = self.config;
        let t = self.step as i32;
        let step_size = lr * (1.0 - beta2.powi(t)).sqrt() / (1.0 - beta1.powi(t));
        let decay = 1.0 - lr * weight_decay;
        const PIECE: usize = 4096;
        params
            .par_chunks_mut(PIECE)
            .zip(grad.par_chunks(PIECE))
            .zip(self.m.par_chunks_mut(PIECE))
            .zip(self.v.par_chunks_mut(PIECE))
            .enumerate()
            .for_each(|(piece, (((x, g), m), v))| {
                for i in 0..x.len() {
                    let g = g[i] * scale;
                    m[i] = beta1 * m[i] + (1.0 - beta1) * g;
                    v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
                    x[i] = x[i] * decay - step_size * m[i] / (v[i].sqrt() + epsilon);
                }
                let at = piece * PIECE..piece * PIECE + x.len();
                for (range, bound) in bounds {
                    let (from, to) = (range.start.max(at.start), range.end.min(at.end));
                    if from < to {
                        x[from - at.start..to - at.start].iter_mut().for_each(|w| *w = w.clamp(-bound, *bound));
                    }
                }
            });
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// `lr · gamma^epoch` (the thesis: gamma 0.99).
    Step { gamma: f32 },
    /// Cosine from `lr` down to `lr · floor`, over the run or, with
    /// `restarts` > 1, over each of that many equal cycles (warm restarts:
    /// back to `lr` at the start of each).
    Cosine { floor: f32, restarts: usize },
}

/// A last phase at a low constant rate: its last `epochs` epochs at
/// `lr · factor`, the schedule fitted into the epochs before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalPhase {
    pub epochs: usize,
    pub factor: f32,
}

impl Schedule {
    /// The learning rate for `epoch` (0-based) of `epochs`.
    pub fn rate(&self, lr: f32, epoch: usize, epochs: usize) -> f32 {
        match *self {
            Schedule::Step { gamma } => lr * gamma.powi(epoch as i32),
            Schedule::Cosine { floor, restarts } => {
                let cycle = epochs.max(1).div_ceil(restarts.max(1));
                let progress = (epoch % cycle) as f32 / cycle as f32;
                let low = lr * floor;
                low + (lr - low) * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos())
            }
        }
    }

    /// [`Schedule::rate`] with a final low-rate phase, if any.
    pub fn rate_with(&self, last: Option<FinalPhase>, lr: f32, epoch: usize, epochs: usize) -> f32 {
        match last {
            Some(phase) if epoch + phase.epochs >= epochs => lr * phase.factor,
            Some(phase) => self.rate(lr, epoch, epochs - phase.epochs),
            None => self.rate(lr, epoch, epochs),
        }
    }
}

/// The share of the scheduled rate at optimizer step `step` (1-based) of a
/// run that ramps it up linearly over its first `warmup` steps (0: none).
/// A run from a trained net needs it: Adam's first steps move every weight
/// by about the full rate whatever its gradient, before the moment estimates
/// know which weights matter, and that shakes what the net already knows.
pub fn warmup_factor(step: u64, warmup: u64) -> f32 {
    if warmup == 0 { 1.0 } else { (step as f32 / warmup as f32).min(1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adam_minimizes_a_quadratic() {
        // f(x) = Σ (x_i − c_i)²
        let target = [1.0f32, -2.0, 0.5];
        let mut x = vec![0.0f32; 3];
        let mut adam = Adam::new(AdamConfig::default(), 3);
        for _ in 0..2000 {
            let grad: Vec<f32> = x.iter().zip(&target).map(|(x, c)| 2.0 * (x - c)).collect();
            adam.update(&mut x, &grad, 0.01);
        }
        for (x, c) in x.iter().zip(&target) {
            assert!((x - c).abs() < 1e-2, "{x} vs {c}");
        }
    }

    #[test]
    fn first_adam_step_moves_each_weight_by_the_learning_rate() {
        let mut x = vec![0.0f32, 0.0];
        let mut adam = Adam::new(AdamConfig::default(), 2);
        adam.update(&mut x, &[3.0, -0.001], 0.1);
        assert!((x[0] + 0.1).abs() < 1e-5 && (x[1] - 0.1).abs() < 1e-3, "{x:?}");
    }

    #[test]
    fn a_scaled_clamped_step_is_a_step_then_a_clamp() {
        let grad: Vec<f32> = (0..10_000).map(|i| (i as f32 * 0.37).sin()).collect();
        let start: Vec<f32> = (0..10_000).map(|i| (i as f32 * 0.11).cos() * 2.0).collect();
        let (mut a, mut b) = (start.clone(), start);
        let (mut adam_a, mut adam_b) =
            (Adam::new(AdamConfig::default(), 10_000), Adam::new(AdamConfig::default(), 10_000));
        let bounds = [(100..5000, 0.5), (6000..9000, 1.5)];
        for _ in 0..3 {
            adam_a.update_scaled(&mut a, &grad, 0.25, 0.01, &bounds);
            let scaled: Vec<f32> = grad.iter().map(|g| g * 0.25).collect();
            adam_b.update(&mut b, &scaled, 0.01);
            for (range, bound) in &bounds {
                b[range.clone()].iter_mut().for_each(|w| *w = w.clamp(-bound, *bound));
            }
        }
        assert_eq!(a, b);
        assert!(a[100..5000].iter().all(|w| w.abs() <= 0.5) && a[5000..6000].iter().any(|w| w.abs() > 1.5));
    }

    #[test]
    fn adamw_decays_weights_without_gradient() {
        let mut x = vec![1.0f32];
        let mut adam = Adam::new(AdamConfig { weight_decay: 0.1, ..AdamConfig::default() }, 1);
        adam.update(&mut x, &[0.0], 0.5);
        assert!((x[0] - 0.95).abs() < 1e-6);
    }

    #[test]
    fn warmup_ramps_the_rate_linearly_then_holds_it() {
        assert_eq!(warmup_factor(1, 0), 1.0);
        assert_eq!(warmup_factor(250, 1000), 0.25);
        assert_eq!(warmup_factor(1000, 1000), 1.0);
        assert_eq!(warmup_factor(5000, 1000), 1.0);
    }

    #[test]
    fn schedules() {
        let step = Schedule::Step { gamma: 0.99 };
        assert_eq!(step.rate(1.0, 0, 10), 1.0);
        assert!((step.rate(1.0, 2, 10) - 0.9801).abs() < 1e-6);
        let cosine = Schedule::Cosine { floor: 0.1, restarts: 1 };
        assert_eq!(cosine.rate(1.0, 0, 10), 1.0);
        assert!((cosine.rate(1.0, 5, 10) - 0.55).abs() < 1e-6);
        assert!(cosine.rate(1.0, 9, 10) < 0.13);
        // Two cycles of five epochs: back to the full rate at epoch 5.
        let restarts = Schedule::Cosine { floor: 0.1, restarts: 2 };
        let rates: Vec<f32> = (0..10).map(|e| restarts.rate(1.0, e, 10)).collect();
        assert_eq!((rates[0], rates[5]), (1.0, 1.0));
        assert!(rates[1] > rates[4] && rates[6] > rates[9] && (rates[4] - rates[9]).abs() < 1e-6);
        // A final phase: the last 2 of 10 epochs at 0.01, the cosine over the first 8.
        let last = Some(FinalPhase { epochs: 2, factor: 0.01 });
        assert_eq!(cosine.rate_with(last, 1.0, 4, 10), cosine.rate(1.0, 4, 8));
        assert_eq!((cosine.rate_with(last, 1.0, 8, 10), cosine.rate_with(last, 1.0, 9, 10)), (0.01, 0.01));
        assert_eq!(cosine.rate_with(None, 1.0, 9, 10), cosine.rate(1.0, 9, 10));
    }
}

//! Playing weaker on purpose: `UCI_LimitStrength` and `UCI_Elo`.
//!
//! A limited engine is the same engine with less to think with and a human
//! kind of imprecision, not one that blunders at random:
//! - it searches a small node budget (512 nodes at level 0, 65,536 at
//!   level 1), so it misses what lies deeper than that budget sees,
//!   as a weaker player misses longer combinations (below about 500 nodes
//!   four lines do not get past depth 1, and the choice would be among
//!   unsearched moves);
//! - it searches four MultiPV lines and plays one of them drawn by a softmax of
//!   their scores, so a move a few centipawns worse is often chosen and one a
//!   piece worse almost never; moves more than `max_loss` below the best are
//!   never played; a mate or tablebase win found is always played, and a
//!   line into a mate or a tablebase loss never is (unless all are).
//!
//! Both knobs move together with one level λ in [0, 1]. Above it, up to
//! λ = 2, the engine no longer errs on purpose: it searches one line, with a
//! node budget that keeps growing (a line at λ = 1 gets about a quarter of
//! 65,536 nodes; λ = 2 gets 2^20), so the upper settings reach the
//! engine's full strength at short time controls.
//!
//! UCI_Elo is turned into λ by the calibration table below, measured with
//! matches against Stockfish limited to known Elo levels and refitted for
//! every default net by tournaments/refit-strength.sh (the measurements are
//! named above the table), so the number a user sets is the rating the
//! engine played at. The node budget also makes a limited engine's strength
//! nearly independent of the time control and of the machine, which a
//! time-based handicap is not, as long as the clock allows the budget: on a
//! machine of about a million nodes a second, 10+0.1 allows the budgets up
//! to about a quarter of a million nodes; the highest settings ask for more,
//! so there the clock binds and the rating holds for the time control it was
//! measured at.

use shakmaty::Move;

use super::score::is_decisive;
use super::worker::Line;
use crate::rng::Rng;

/// The `UCI_Elo` range backed by the calibration's measurements: from about
/// Stockfish's own lowest setting to the highest rating a measured level
/// played at (tournaments/refit-strength.sh writes MAX_ELO with the table).
pub const MIN_ELO: i64 = 1320;
pub const MAX_ELO: i64 = 2883;

/// The highest level a handicap can be made at: one line of 2^20 nodes a
/// move, the level the refit measures at its highest setting, so that
/// MAX_ELO is the rating this level played at.
const MAX_LEVEL: f64 = 2.0;

/// (Elo, λ) rows, in rising order; between rows λ is interpolated linearly.
/// Refitted by tournaments/refit-strength.sh from the measurements in
/// tournaments/results/uci-elo-v10-levels.md: each measured level at the rating it played
/// at against Stockfish's own UCI_Elo levels, pooled to rise with the level.
#[rustfmt::skip]
const CALIBRATION: &[(f64, f64)] = &[
    (900.0, 0.0000),
    (1355.0, 0.3300),
    (1642.0, 0.4263),
    (2220.0, 1.0000),
    (2490.0, 1.5560),
    (2883.0, 2.0000),
];

/// How a limited engine searches and chooses its move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handicap {
    /// Nodes a move, whatever the clock allows.
    pub nodes: u64,
    /// MultiPV lines to choose among.
    pub candidates: usize,
    /// Softmax temperature of the choice in centipawns (0: always the best line).
    pub temperature: f64,
    /// Lines scored more than this below the best are never chosen.
    pub max_loss: i32,
}

impl Handicap {
    /// The handicap of level `level` (clamped to [0, MAX_LEVEL]).
    pub fn at_level(level: f64) -> Handicap {
        let level = level.clamp(0.0, MAX_LEVEL);
        if level > 1.0 {
            // One line, with the nodes a line had at level 1 (a quarter of
            // its four lines' budget) doubled every sixth of a level.
            return Handicap {
                nodes: 2f64.powf(14.0 + 6.0 * (level - 1.0)).round() as u64,
                candidates: 1,
                temperature: 0.0,
                max_loss: 0,
            };
        }
        let weakness = 1.0 - level;
        Handicap {
            nodes: 2f64.powf(9.0 + 7.0 * level).round() as u64,
            candidates: 4,
            temperature: 150.0 * weakness * weakness,
            max_loss: (50.0 + 250.0 * weakness).round() as i32,
        }
    }

    /// The handicap that plays at `elo` (clamped to the calibrated range).
    pub fn for_elo(elo: i64) -> Handicap {
        Handicap::at_level(level_for_elo(elo))
    }

    /// Chooses among `lines` (score, principal variation; best first, as the
    /// search reports them): the index of the line to play.
    pub fn choose(&self, lines: &[(i32, Line)], rng: &mut Rng) -> usize {
        let Some(&(best, _)) = lines.first() else { return 0 };
        if self.temperature <= 0.0 || is_decisive(best) {
            return 0;
        }
        let weights: Vec<f64> = lines
            .iter()
            .map(|&(score, _)| {
                let loss = best - score;
                if loss > self.max_loss || is_decisive(score) { 0.0 } else { (-(loss as f64) / self.temperature).exp() }
            })
            .collect();
        let mut draw = rng.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if draw < *w {
                return i;
            }
            draw -= w;
        }
        0
    }

    /// The move to play and the reply to ponder on, chosen from `lines`.
    pub fn pick(&self, lines: &[(i32, Line)], rng: &mut Rng) -> Option<(Move, Option<Move>)> {
        let line = &lines.get(self.choose(lines, rng))?.1;
        Some((*line.first()?, line.get(1).copied()))
    }
}

/// The settings as a Markdown table: [`MIN_ELO`], every multiple of `step`
/// above it, and [`MAX_ELO`], with the nodes a move and the lines chosen
/// among. The README's table is this one (a test checks it).
pub fn table(step: i64) -> String {
    let step = step.max(1);
    // The ends, and the round numbers between them.
    let mut elos = vec![MIN_ELO];
    elos.extend((MIN_ELO / step + 1..).map(|k| k * step).take_while(|&e| e < MAX_ELO));
    elos.push(MAX_ELO);
    let mut out = String::from("| `UCI_Elo` | nodes a move | lines chosen among |\n|---|---|---|\n");
    for elo in elos {
        let h = Handicap::for_elo(elo);
        out += &format!("| {elo} | {} | {} |\n", thousands(h.nodes), h.candidates);
    }
    out
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// λ for `elo`, by the calibration table.
pub fn level_for_elo(elo: i64) -> f64 {
    let elo = elo.clamp(MIN_ELO, MAX_ELO) as f64;
    let upper = CALIBRATION.iter().position(|&(e, _)| e >= elo).unwrap_or(CALIBRATION.len() - 1).max(1);
    let (e0, l0) = CALIBRATION[upper - 1];
    let (e1, l1) = CALIBRATION[upper];
    l0 + (l1 - l0) * (elo - e0) / (e1 - e0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::search::score::mated_in;
    use shakmaty::Position;

    fn lines(scores: &[i32]) -> Vec<(i32, Line)> {
        let board = Board::default();
        let moves = board.pos().legal_moves();
        scores.iter().zip(moves.iter()).map(|(&s, &m)| (s, [m].into_iter().collect())).collect()
    }

    #[test]
    fn the_calibration_is_monotone_and_spans_the_range() {
        assert!(CALIBRATION.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        assert!(CALIBRATION.first().unwrap().0 <= MIN_ELO as f64);
        assert!(CALIBRATION.last().unwrap().0 >= MAX_ELO as f64);
        assert!(level_for_elo(MAX_ELO) <= MAX_LEVEL && level_for_elo(MIN_ELO) >= 0.0);
        assert_eq!(level_for_elo(MIN_ELO - 500), level_for_elo(MIN_ELO));
        assert_eq!(level_for_elo(MAX_ELO + 500), level_for_elo(MAX_ELO));
        // Every step up gives each line at least as many nodes and no more
        // freedom to choose a worse line.
        let per_line = |h: Handicap| h.nodes / h.candidates as u64;
        let mut previous = Handicap::for_elo(MIN_ELO);
        for elo in (MIN_ELO..=MAX_ELO).step_by(10) {
            let h = Handicap::for_elo(elo);
            assert!(per_line(h) >= per_line(previous) && h.temperature <= previous.temperature, "{elo}");
            assert!(h.max_loss <= previous.max_loss && h.candidates <= previous.candidates, "{elo}");
            previous = h;
        }
        assert_eq!(Handicap::at_level(1.0).temperature, 0.0);
    }

    #[test]
    fn the_upper_levels_search_one_line_with_a_growing_budget() {
        let top = Handicap::for_elo(MAX_ELO);
        assert_eq!((top.candidates, top.temperature), (1, 0.0));
        // Wherever a refit puts the top, it is above level 1 and within the highest level.
        assert!(level_for_elo(MAX_ELO) > 1.0, "{}", level_for_elo(MAX_ELO));
        assert!(top.nodes > Handicap::at_level(1.0).nodes / 4 && top.nodes <= 1 << 20, "{}", top.nodes);
        // Just above level 1 a line keeps the nodes it had among four.
        let joint = Handicap::at_level(1.0 + 1e-9);
        assert_eq!(joint.candidates, 1);
        assert_eq!(joint.nodes, Handicap::at_level(1.0).nodes / 4);
        assert!(Handicap::for_elo(2500).nodes > Handicap::for_elo(2200).nodes);
        assert_eq!(Handicap::at_level(7.0).nodes, 1 << 20);
    }

    #[test]
    fn the_choice_prefers_better_lines_and_never_the_excluded_ones() {
        let h = Handicap::at_level(0.0);
        let lines = lines(&[50, 30, -100, -400]);
        let mut rng = Rng::new(7);
        let mut counts = [0usize; 4];
        for _ in 0..20_000 {
            counts[h.choose(&lines, &mut rng)] += 1;
        }
        // -400 is 450 below the best: beyond max_loss (300), never played.
        assert_eq!(counts[3], 0);
        assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > 0, "{counts:?}");
        // The softmax: the share of the 20 cp worse line is e^(-20/150) of the best's.
        let ratio = counts[1] as f64 / counts[0] as f64;
        assert!((ratio - (-20.0f64 / 150.0).exp()).abs() < 0.05, "{ratio}");
    }

    #[test]
    fn mates_and_full_strength_take_the_best_line() {
        let mut rng = Rng::new(1);
        let weak = Handicap::at_level(0.0);
        // A mate found is always played; a line into a mate never is.
        let mating = lines(&[-mated_in(5), 200, 190]);
        let mated = lines(&[0, -10, mated_in(4)]);
        for _ in 0..1000 {
            assert_eq!(weak.choose(&mating, &mut rng), 0);
            assert_ne!(weak.choose(&mated, &mut rng), 2);
        }
        let full = Handicap::at_level(1.0);
        let close = lines(&[10, 9, 8, 7]);
        assert!((0..1000).all(|_| full.choose(&close, &mut rng) == 0));
        assert_eq!(weak.pick(&[], &mut rng), None);
    }
}

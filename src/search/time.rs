//! Time allocation: a soft limit (don't start another iteration) and a hard
//! limit (abort the search), both measured from the moment `go` arrived.
//!
//! On a clock the soft limit is a plan, scaled after each iteration by how
//! settled the search is (`SoftScale`): a best move that has not changed for
//! several iterations and that took most of the nodes, with a steady score,
//! stops early; a new best move, a contested one or a falling score buys more
//! time, up to the hard limit.

use std::time::{Duration, Instant};

use shakmaty::Color;

use super::limits::Limits;
use super::params;

#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
    /// Whether the soft limit is a plan that the search's state may scale
    /// (a clock), not a time the GUI asked for (`movetime`).
    scalable: bool,
}

/// Moves planned beyond a given `movestogo`: the reserve kept at a control.
const MOVES_TO_GO_MARGIN: i64 = 2;

/// Move overheads the bank must hold before a move plans to spend its whole
/// share of the increment; below that the share shrinks in proportion. A
/// clock run down by an increment about the size of the overhead then
/// refills instead of hovering just above the overheads: at 1+0.01 the bank
/// had settled near 40 ms, and a GUI process stalled for 50 ms (a Python
/// harness on a busy machine) forfeited. At 10+0.1 it acts only late in long
/// games, where moves that overran their plan sank the bank under 250 ms.
const BANK_OVERHEADS: i64 = 25;

impl TimeManager {
    pub fn new(start: Instant, limits: &Limits, us: Color, move_overhead_ms: i64) -> TimeManager {
        let ms = |v: i64| Some(Duration::from_millis(v.max(1) as u64));
        // A move time is what the GUI asked for, used as asked (as
        // Stockfish does): the overhead is a clock's safety margin, and
        // taken off `movetime` a high one left nothing (5000 ms of overhead
        // made `go movetime 300` a depth-1 move).
        if let Some(movetime) = limits.movetime {
            let t = movetime as i64;
            return TimeManager { start, soft: ms(t), hard: ms(t), scalable: false };
        }
        let (time, inc) = match us {
            Color::White => (limits.wtime, limits.winc),
            Color::Black => (limits.btime, limits.binc),
        };
        let Some(time) = time else {
            return TimeManager { start, soft: None, hard: None, scalable: false };
        };
        let inc = inc.unwrap_or(0).max(0);
        // Keep the overhead plus a small reserve that grows with the clock.
        let available = (time - move_overhead_ms - time / 50).max(1);
        // With `movestogo` (a clock that refills every N moves) we plan for
        // two moves more than are due and let an iteration overrun its
        // target at most twice: a period then ends with a few moves' share
        // in hand instead of a clock run down to nothing on the moves before
        // the control (40/60 games reached move 40 with 0.03–0.5 s left).
        // Unused time carries over to the next period, so little is lost.
        let (moves_to_go, overrun) = match limits.movestogo {
            Some(m) => ((m as i64).clamp(1, 50) + MOVES_TO_GO_MARGIN, 2),
            None => (params::tm_moves_to_go() as i64, params::tm_hard_factor() as i64),
        };
        let increment_share = inc * params::tm_increment() as i64 / 100;
        let bank = BANK_OVERHEADS * move_overhead_ms.max(0);
        let increment_share = if available >= bank { increment_share } else { increment_share * available / bank };
        let planned = available / moves_to_go + increment_share;
        let target = planned.min(available / 2);
        // The hard limit also leaves three move overheads on the clock. At
        // bullet speed the bank can sink to a few overheads, where the few
        // milliseconds between the GUI's clock and ours (process wake-up, a
        // helper thread's stop) forfeit a game; below that line we move at
        // once and let the increments refill the bank.
        let hard = (target * overrun).min(available * 3 / 4).min(time - 3 * move_overhead_ms).max(1);
        let soft = target.min(hard);
        TimeManager { start, soft: ms(soft), hard: ms(hard), scalable: true }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Past the soft limit: finish the current iteration, start no other.
    pub fn soft_expired(&self) -> bool {
        self.soft.is_some_and(|s| self.elapsed() >= s)
    }

    /// Past the soft limit scaled by `scale` (where the limit is a plan;
    /// `movetime` is kept as asked).
    pub fn soft_expired_scaled(&self, scale: f64) -> bool {
        match self.soft {
            Some(s) if self.scalable => self.elapsed().as_secs_f64() >= s.as_secs_f64() * scale,
            _ => self.soft_expired(),
        }
    }

    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    pub fn limits(&self) -> (Option<Duration>, Option<Duration>) {
        (self.soft, self.hard)
    }
}

/// What the iterations so far say about how settled the search is, and the
/// factor it puts on the soft limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftScale {
    /// Iterations in a row that ended with the same best move.
    pub stability: i32,
    /// Share of the last iteration's nodes spent below the best move.
    pub best_move_fraction: f64,
    /// The best score of the iteration a few iterations back, and now.
    pub earlier_score: i32,
    pub score: i32,
}

impl SoftScale {
    /// The factor on the soft limit: the product of three, each a tunable.
    pub fn factor(&self) -> f64 {
        let pct = |v: i32| v as f64 / 100.0;
        let settled = self.stability.clamp(0, 10);
        let stability = pct(params::tm_stability_base() - settled * params::tm_stability_step()).max(0.3);
        let nodes = (pct(params::tm_nodes_base()) - self.best_move_fraction).max(0.1) * pct(params::tm_nodes_scale());
        let fall = (self.earlier_score - self.score) as f64;
        let score = (1.0 + fall * params::tm_score_scale() as f64 / 10_000.0)
            .clamp(pct(params::tm_score_min()), pct(params::tm_score_max()));
        stability * nodes * score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settled_search_stops_early_and_an_unsettled_one_takes_longer() {
        let settled = SoftScale { stability: 8, best_move_fraction: 0.9, earlier_score: 30, score: 35 };
        let unsettled = SoftScale { stability: 0, best_move_fraction: 0.3, earlier_score: 30, score: -20 };
        assert!(settled.factor() < 0.8, "{}", settled.factor());
        assert!(unsettled.factor() > 1.5, "{}", unsettled.factor());
        // Each of the three moves the factor the way it should.
        let base = SoftScale { stability: 3, best_move_fraction: 0.5, earlier_score: 0, score: 0 };
        assert!(SoftScale { stability: 6, ..base }.factor() < base.factor());
        assert!(SoftScale { best_move_fraction: 0.8, ..base }.factor() < base.factor());
        assert!(SoftScale { score: -40, ..base }.factor() > base.factor());
        assert!(SoftScale { score: 40, ..base }.factor() < base.factor());
    }

    #[test]
    fn only_a_clock_plan_is_scaled() {
        let start = Instant::now() - Duration::from_millis(300);
        let clock = TimeManager::new(start, &Limits { wtime: Some(30_000), ..Limits::default() }, Color::White, 0);
        let (soft, _) = clock.limits();
        assert!(soft.unwrap() > Duration::from_millis(300));
        assert!(!clock.soft_expired_scaled(1.0));
        assert!(clock.soft_expired_scaled(0.01));
        let fixed = TimeManager::new(start, &Limits { movetime: Some(1_000), ..Limits::default() }, Color::White, 0);
        assert!(!fixed.soft_expired_scaled(0.01), "movetime is used as asked");
    }

    fn tm(limits: Limits) -> (Option<Duration>, Option<Duration>) {
        TimeManager::new(Instant::now(), &limits, Color::White, 10).limits()
    }

    #[test]
    fn never_plans_more_than_the_clock() {
        for time in [5, 50, 1_000, 60_000] {
            for inc in [0, 10, 1_000] {
                for mtg in [None, Some(1), Some(40)] {
                    let (soft, hard) =
                        tm(Limits { wtime: Some(time), winc: Some(inc), movestogo: mtg, ..Limits::default() });
                    let (soft, hard) = (soft.unwrap().as_millis() as i64, hard.unwrap().as_millis() as i64);
                    assert!(soft <= hard, "{time} {inc} {mtg:?}");
                    assert!(hard <= (time - 10).max(1), "{time} {inc} {mtg:?}: hard {hard}");
                }
            }
        }
    }

    /// A bullet game played by the clock rules of a GUI: each move costs
    /// `share` of the way from the soft to the hard limit plus `latency` (the
    /// GUI's view of our reaction time), then the increment is added. Returns
    /// the lowest bank seen after the opening.
    fn lowest_bank(base: i64, inc: i64, overhead: i64, latency: i64, share: f64, moves: usize) -> i64 {
        let mut clock = base;
        let mut lowest = i64::MAX;
        for n in 0..moves {
            let limits = Limits { wtime: Some(clock), winc: Some(inc), ..Limits::default() };
            let tm = TimeManager::new(Instant::now(), &limits, Color::White, overhead);
            let (soft, hard) = (tm.soft.unwrap().as_millis() as f64, tm.hard.unwrap().as_millis() as f64);
            clock -= (soft + share * (hard - soft)) as i64 + latency;
            assert!(clock > 0, "lost on time at move {n} ({base}+{inc}, latency {latency} ms)");
            clock += inc;
            if n > 40 {
                lowest = lowest.min(clock);
            }
        }
        lowest
    }

    #[test]
    fn a_bullet_bank_stays_above_the_overheads() {
        // 1+0.01 with the default 10 ms overhead, every move to its hard
        // limit: a 2-thread stress run lost a game with a bank of about 15 ms
        // when the engine answered ~4 ms after its hard limit. The bank stays
        // above three overheads, so a reaction up to ~25 ms late still fits.
        for latency in [0, 2, 4, 6, 8] {
            let low = lowest_bank(1_000, 10, 10, latency, 1.0, 300);
            assert!(low >= 30, "latency {latency} ms: the bank fell to {low} ms");
        }
        // Moves that stop at their plan, as most do, leave the increments a
        // part to refill the bank: it settles past ten overheads, not near
        // four (40 ms before), so a 50 ms stall of the GUI fits.
        for latency in [0, 1, 2, 3] {
            let low = lowest_bank(1_000, 10, 10, latency, 0.0, 300);
            assert!(low >= 100, "latency {latency} ms: the bank fell to {low} ms");
        }
        // At 10+0.1, moves that stop at their plan keep the bank above 25
        // overheads (250 ms): the plan there spends the increment's whole share.
        let low = lowest_bank(10_000, 100, 10, 2, 0.0, 300);
        assert!(low >= 500, "10+0.1: the bank fell to {low} ms");
        let (soft, _) = tm(Limits { wtime: Some(700), winc: Some(100), ..Limits::default() });
        assert_eq!(soft.unwrap().as_millis(), (700 - 10 - 14) / 30 + 75);
        // A long clock is unaffected by the reserve: available = 60000 − 10 −
        // 1200 = 58790, soft = 58790 / 30 + 750 = 2709, hard = 4 · soft.
        let (soft, hard) = tm(Limits { wtime: Some(60_000), winc: Some(1_000), ..Limits::default() });
        assert_eq!((soft.unwrap().as_millis(), hard.unwrap().as_millis()), (2_709, 10_836));
    }

    /// One period of `moves` moves in `base` ms with `movestogo` counted
    /// down, each move spending `share` of the way from its soft to its
    /// hard limit: the clock left when the control refills it.
    fn clock_at_control(base: i64, moves: u32, share: f64) -> i64 {
        let mut clock = base;
        for to_go in (1..=moves).rev() {
            let limits = Limits { wtime: Some(clock), movestogo: Some(to_go), ..Limits::default() };
            let (soft, hard) = tm(limits);
            let (soft, hard) = (soft.unwrap().as_millis() as f64, hard.unwrap().as_millis() as f64);
            clock -= (soft + share * (hard - soft)) as i64;
            assert!(clock > 0, "out of time with {to_go} moves to go");
        }
        clock
    }

    #[test]
    fn a_repeating_control_ends_with_time_in_hand() {
        // 40/60: moves that stop at their target keep about two moves' share
        // (the old plan reached the control with next to nothing);
        // moves that all overrun to the hard limit still never flag.
        let typical = clock_at_control(60_000, 40, 0.0);
        assert!(typical >= 2_000, "{typical} ms left at the control");
        let worst = clock_at_control(60_000, 40, 1.0);
        assert!(worst > 10, "{worst} ms left at the control");
        // Sudden death keeps its plan (see a_bullet_bank_stays_above_the_overheads).
    }

    #[test]
    fn movetime_and_infinite() {
        let (soft, hard) = tm(Limits { movetime: Some(500), ..Limits::default() });
        assert_eq!(soft, Some(Duration::from_millis(500)), "the overhead is not taken off a move time");
        assert_eq!(hard, soft);
        assert_eq!(tm(Limits { infinite: true, ..Limits::default() }), (None, None));
    }
}

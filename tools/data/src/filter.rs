//! The one position filter of the tools: applied when labelled positions are
//! read (trainer, `convert`, `stats`) and when they are labelled (datagen's
//! `pgn` and `fens`): positions in check, positions where the side to move can
//! win material at once, where the labeller's best move is a capture, and
//! scores beyond a bound. Such positions are noisy
//! targets for a static evaluation: the score they carry is the result of a
//! tactic the network cannot see, not of the position's character.
//!
//! Winning captures are judged by the engine's static exchange evaluation
//! (`tessera::board::see`), the same the search prunes with.

use shakmaty::{Chess, Move, Position};
use tessera::board::see::see_ge;

/// Which positions to drop. The default keeps everything.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Filter {
    /// Drop positions whose side to move is in check.
    pub skip_check: bool,
    /// Drop positions where the side to move has a capture that wins
    /// material by static exchange (SEE > 0).
    pub skip_winning_capture: bool,
    /// Drop positions whose best move, as the labeller found it, is a capture
    /// (known only where positions are labelled: `Filter::check_labelled`).
    pub skip_best_capture: bool,
    /// Drop positions whose |score| (centipawns) is above this.
    pub max_score: Option<i32>,
}

/// Why a position was dropped, the first filter that matched (in the order
/// the fields of [`Filter`] list them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    InCheck,
    WinningCapture,
    BestMoveCapture,
    ScoreBeyondBound,
}

/// How many positions each filter dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterCounts {
    pub kept: u64,
    pub in_check: u64,
    pub winning_capture: u64,
    pub best_move_capture: u64,
    pub score_beyond_bound: u64,
}

impl FilterCounts {
    pub fn count(&mut self, verdict: Result<(), Dropped>) {
        match verdict {
            Ok(()) => self.kept += 1,
            Err(Dropped::InCheck) => self.in_check += 1,
            Err(Dropped::WinningCapture) => self.winning_capture += 1,
            Err(Dropped::BestMoveCapture) => self.best_move_capture += 1,
            Err(Dropped::ScoreBeyondBound) => self.score_beyond_bound += 1,
        }
    }

    pub fn add(&mut self, other: &FilterCounts) {
        self.kept += other.kept;
        self.in_check += other.in_check;
        self.winning_capture += other.winning_capture;
        self.best_move_capture += other.best_move_capture;
        self.score_beyond_bound += other.score_beyond_bound;
    }

    pub fn dropped(&self) -> u64 {
        self.in_check + self.winning_capture + self.best_move_capture + self.score_beyond_bound
    }
}

impl std::fmt::Display for FilterCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} kept, {} dropped ({} in check, {} with a winning capture, {} beyond the score bound",
            self.kept,
            self.dropped(),
            self.in_check,
            self.winning_capture,
            self.score_beyond_bound
        )?;
        // Only where positions were labelled: no other reader knows a best move.
        if self.best_move_capture > 0 {
            write!(f, ", {} whose best move is a capture", self.best_move_capture)?;
        }
        write!(f, ")")
    }
}

impl Filter {
    /// Drops positions in check and with a winning capture: what "quiet"
    /// means for validation sets.
    pub const QUIET: Filter =
        Filter { skip_check: true, skip_winning_capture: true, skip_best_capture: false, max_score: None };

    pub fn is_active(&self) -> bool {
        *self != Filter::default()
    }

    /// Whether a position with this score (centipawns, any side's view) passes,
    /// where no best move is known (`skip_best_capture` cannot apply).
    pub fn check(&self, pos: &Chess, score: i32) -> Result<(), Dropped> {
        self.check_labelled(pos, score, None)
    }

    /// Whether a position passes with its labeller's score and best move.
    pub fn check_labelled(&self, pos: &Chess, score: i32, best: Option<&Move>) -> Result<(), Dropped> {
        if self.skip_check && pos.is_check() {
            return Err(Dropped::InCheck);
        }
        if self.skip_winning_capture && has_winning_capture(pos) {
            return Err(Dropped::WinningCapture);
        }
        if self.skip_best_capture && best.is_some_and(|m| m.is_capture()) {
            return Err(Dropped::BestMoveCapture);
        }
        if self.max_score.is_some_and(|bound| score.unsigned_abs() > bound.unsigned_abs()) {
            return Err(Dropped::ScoreBeyondBound);
        }
        Ok(())
    }
}

/// True if some legal capture (en passant and capturing promotions included)
/// gains material by static exchange.
pub fn has_winning_capture(pos: &Chess) -> bool {
    pos.capture_moves().into_iter().any(|m| see_ge(pos, m, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn each_filter_drops_what_it_names() {
        let quiet = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let check = pos("4k3/8/8/8/8/8/8/4RK2 b - - 0 1");
        // White's pawn takes a knight defended by nothing: SEE = +knight.
        let hanging = pos("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1");
        // Rook takes a pawn defended by a pawn: SEE < 0, not a winning capture.
        let defended = pos("4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1");
        let all =
            Filter { skip_check: true, skip_winning_capture: true, skip_best_capture: true, max_score: Some(1000) };
        assert_eq!(all.check(&quiet, 20), Ok(()));
        assert_eq!(all.check(&check, 0), Err(Dropped::InCheck));
        assert_eq!(all.check(&hanging, 0), Err(Dropped::WinningCapture));
        assert_eq!(all.check(&defended, 0), Ok(()));
        assert_eq!(all.check(&quiet, -1001), Err(Dropped::ScoreBeyondBound));
        assert_eq!(all.check(&quiet, 1000), Ok(()));
        // The default keeps everything.
        for p in [&quiet, &check, &hanging] {
            assert_eq!(Filter::default().check(p, 5000), Ok(()));
        }
        assert!(!Filter::default().is_active() && all.is_active());
        // The labeller's best move: a capture drops the position where the
        // filter asks, whatever its exchange is worth; a quiet move keeps it.
        let takes = quiet.legal_moves().into_iter().find(|m| m.is_capture());
        let hanging_takes = hanging.capture_moves().into_iter().next().unwrap();
        let quiet_move = quiet.legal_moves().into_iter().find(|m| !m.is_capture()).unwrap();
        assert!(takes.is_none());
        let best_only = Filter { skip_best_capture: true, ..Filter::default() };
        assert_eq!(best_only.check_labelled(&hanging, 0, Some(&hanging_takes)), Err(Dropped::BestMoveCapture));
        assert_eq!(best_only.check_labelled(&quiet, 0, Some(&quiet_move)), Ok(()));
        assert_eq!(best_only.check_labelled(&hanging, 0, None), Ok(()));
        assert_eq!(best_only.check(&hanging, 0), Ok(()));
    }

    #[test]
    fn counts_add_up() {
        let mut c = FilterCounts::default();
        for v in [Ok(()), Err(Dropped::InCheck), Err(Dropped::WinningCapture), Ok(()), Err(Dropped::ScoreBeyondBound)] {
            c.count(v);
        }
        assert_eq!((c.kept, c.dropped()), (2, 3));
        let mut d = c;
        d.add(&c);
        assert_eq!(d.in_check, 2);
        assert!(c.to_string().starts_with("2 kept, 3 dropped (1 in check, 1 with a winning capture, 1 beyond"));
    }
}

//! Move ordering: every legal move gets a score once, then moves are handed
//! out best first by selection (most nodes need only the first few).

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position};

use super::history::{Histories, PieceTo, is_quiet};
use super::see::see_ge;
use super::tt::PackedMove;
use crate::board::Board;
use crate::board::noisy::noisy_moves;
use crate::evaluate::piece_value;

const TT_MOVE: i32 = 10_000_000;
const GOOD_CAPTURE: i32 = 2_000_000;
const KILLER: i32 = 1_000_002;
pub const COUNTER: i32 = 1_000_000;
const BAD_CAPTURE: i32 = -2_000_000;

/// What the move loop needs to know about the ordering of each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    TtMove,
    GoodNoisy,
    Quiet,
    BadNoisy,
}

pub struct MovePicker {
    moves: MoveList,
    scores: ArrayVec<i32, 256>,
    next: usize,
}

fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value);
    victim * 8 - m.role() as i32
}

impl MovePicker {
    /// Ordering for the main search: all legal moves.
    pub fn main(
        board: &Board,
        tt_move: PackedMove,
        hist: &Histories,
        ply: usize,
        prev: [Option<PieceTo>; 2],
        use_history: bool,
    ) -> MovePicker {
        let moves = board.pos().legal_moves();
        let color = board.turn();
        let killers = hist.killers(ply);
        let counter = hist.counter(prev[0]);
        let scores = moves
            .iter()
            .map(|&m| {
                if tt_move.matches(m) {
                    TT_MOVE
                } else if !is_quiet(m) {
                    let history = if use_history { hist.capture_score(color, m) / 16 } else { 0 };
                    let base = if see_ge(board.pos(), m, 0) { GOOD_CAPTURE } else { BAD_CAPTURE };
                    base + mvv_lva(m) + history
                } else if !use_history {
                    0
                } else if killers[0] == Some(m) {
                    KILLER
                } else if killers[1] == Some(m) {
                    KILLER - 1
                } else if counter == Some(m) {
                    COUNTER
                } else {
                    hist.quiet_score(color, m, prev)
                }
            })
            .collect();
        MovePicker { moves, scores, next: 0 }
    }

    /// Ordering for quiescence: captures and promotions, or every evasion
    /// when in check.
    pub fn quiescence(board: &Board, tt_move: PackedMove, hist: &Histories) -> MovePicker {
        let moves = if board.in_check() { board.pos().legal_moves() } else { noisy_moves(board.pos()) };
        let color = board.turn();
        let scores = moves
            .iter()
            .map(|&m| {
                if tt_move.matches(m) {
                    TT_MOVE
                } else if is_quiet(m) {
                    0
                } else {
                    GOOD_CAPTURE + mvv_lva(m) + hist.capture_score(color, m) / 16
                }
            })
            .collect();
        MovePicker { moves, scores, next: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl Iterator for MovePicker {
    /// A move, how it was ordered, and its ordering score (the history score
    /// for quiet moves other than killers and counters).
    type Item = (Move, Kind, i32);

    /// The next best move.
    fn next(&mut self) -> Option<(Move, Kind, i32)> {
        if self.next >= self.moves.len() {
            return None;
        }
        // The first of the best-scored moves left (a maximum, then a search
        // for it: two branch-free passes instead of one that branches on
        // every comparison).
        let rest = &self.scores[self.next..];
        let top = rest.iter().copied().max().expect("a move is left");
        let best = self.next + rest.iter().position(|&s| s == top).expect("the maximum is there");
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let (m, score) = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        let kind = if score >= TT_MOVE {
            Kind::TtMove
        } else if is_quiet(m) {
            Kind::Quiet
        } else if score > BAD_CAPTURE / 2 {
            Kind::GoodNoisy
        } else {
            Kind::BadNoisy
        };
        Some((m, kind, score))
    }
}

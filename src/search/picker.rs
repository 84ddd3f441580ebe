//! Move ordering: the main search's table move first, before anything is
//! generated (it often ends the node); then every other legal move gets a
//! score once and moves are handed out best first by selection (most nodes
//! need only the first few).

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position};

use super::first_max::{PAD, PADDING, first_max};
use super::history::{Histories, PieceTo, is_quiet};
use super::tt::PackedMove;
use crate::board::Board;
use crate::board::noisy::noisy_moves_into;
use crate::board::piece_value;
use crate::board::see::see_ge;

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
    /// A score for each move, then the padding `first_max` reads past them.
    scores: ArrayVec<i32, { 256 + PADDING }>,
    next: usize,
    stage: Stage,
}

/// Where the main search's picker stands. The main search's table move,
/// when legal here, is handed out before any other move is generated: when
/// it cuts the node off, generating and scoring the rest is never needed.
enum Stage {
    /// The table move is next; the rest is not generated yet.
    TableMove(Move, Pending),
    /// The table move was handed out; the rest is generated on the next call.
    Rest(Move, Pending),
    /// Every move is generated and scored.
    Picking,
}

/// The main search's ordering inputs, for moves generated after the table move.
#[derive(Clone, Copy)]
struct Pending {
    tt_move: PackedMove,
    ply: usize,
    prev: [Option<PieceTo>; 2],
    use_history: bool,
}

/// The legal move `packed` names in `board`'s position, found among the moves
/// of its piece to its square (castling, rare as a table move, is left to the
/// full generation).
fn decode(board: &Board, packed: PackedMove) -> Option<Move> {
    if packed.is_none() {
        return None;
    }
    let pos = board.pos();
    let (from, to) = packed.squares();
    let role = pos.board().role_at(from).filter(|_| pos.us().contains(from))?;
    pos.san_candidates(role, to).into_iter().find(|&m| packed.matches(m))
}

fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value);
    victim * 8 - m.role() as i32
}

/// A picker with no move yet: `start_main` or `start_quiescence` fills it.
/// The search keeps its picker in its own frame and fills it there: a picker
/// made and returned by a constructor was copied whole (its two 256-entry
/// lists) at every node.
impl Default for MovePicker {
    fn default() -> MovePicker {
        MovePicker { moves: MoveList::new(), scores: ArrayVec::new(), next: 0, stage: Stage::Picking }
    }
}

impl MovePicker {
    /// Ordering for the main search (in a new picker): the table move first
    /// if it is legal, then every other legal move, generated when the table
    /// move is done.
    pub fn start_main(
        &mut self,
        board: &Board,
        tt_move: PackedMove,
        hist: &Histories,
        ply: usize,
        prev: [Option<PieceTo>; 2],
        use_history: bool,
    ) {
        let pending = Pending { tt_move, ply, prev, use_history };
        match decode(board, tt_move) {
            Some(first) => self.stage = Stage::TableMove(first, pending),
            None => self.generate(board, hist, &pending, None),
        }
    }

    /// Every legal move but `handed_out` (the table move, if it went first),
    /// scored.
    fn generate(&mut self, board: &Board, hist: &Histories, p: &Pending, handed_out: Option<Move>) {
        // Straight into the picker's list: a list made here and moved there
        // afterwards is one more copy of its 256 entries.
        self.moves = board.pos().legal_moves();
        if let Some(first) = handed_out {
            self.moves.retain(|m| *m != first);
        }
        let color = board.turn();
        let killers = hist.killers(p.ply);
        let counter = hist.counter(p.prev[0]);
        // The table move is looked for only where it was not handed out first
        // (a castling move, which `decode` leaves to this generation).
        let tt_move = (handed_out.is_none() && !p.tt_move.is_none()).then_some(p.tt_move);
        // Extended in place: collecting into a new list and moving it here
        // copies the whole 256-entry array.
        self.scores.clear();
        self.scores.extend(self.moves.iter().map(|&m| {
            if tt_move.is_some_and(|t| t.matches(m)) {
                TT_MOVE
            } else if !is_quiet(m) {
                let history = if p.use_history { hist.capture_score(color, m) / 16 } else { 0 };
                let base = if see_ge(board.pos(), m, 0) { GOOD_CAPTURE } else { BAD_CAPTURE };
                base + mvv_lva(m) + history
            } else if !p.use_history {
                0
            } else if killers[0] == Some(m) {
                KILLER
            } else if killers[1] == Some(m) {
                KILLER - 1
            } else if counter == Some(m) {
                COUNTER
            } else {
                hist.quiet_score(color, m, p.prev)
            }
        }));
        self.scores.extend([PAD; PADDING]);
    }

    /// Ordering for quiescence (in a new picker): captures and promotions,
    /// or every evasion when in check.
    pub fn start_quiescence(&mut self, board: &Board, tt_move: PackedMove, hist: &Histories) {
        if board.in_check() {
            self.moves = board.pos().legal_moves();
        } else {
            noisy_moves_into(board.pos(), &mut self.moves);
        }
        let color = board.turn();
        self.scores.extend(self.moves.iter().map(|&m| {
            if tt_move.matches(m) {
                TT_MOVE
            } else if is_quiet(m) {
                0
            } else {
                GOOD_CAPTURE + mvv_lva(m) + hist.capture_score(color, m) / 16
            }
        }));
        self.scores.extend([PAD; PADDING]);
    }

    /// True when the position has no legal move.
    pub fn is_empty(&self) -> bool {
        !matches!(self.stage, Stage::TableMove(..)) && self.moves.is_empty()
    }

    /// The next best move, its kind and its ordering score (the history
    /// score for quiet moves other than killers and counters), or `None`
    /// when every move was handed out. `board` and `hist` are those the
    /// picker was made with, at the same position.
    pub fn next(&mut self, board: &Board, hist: &Histories) -> Option<(Move, Kind, i32)> {
        match std::mem::replace(&mut self.stage, Stage::Picking) {
            Stage::TableMove(first, pending) => {
                self.stage = Stage::Rest(first, pending);
                return Some((first, Kind::TtMove, TT_MOVE));
            }
            Stage::Rest(first, pending) => self.generate(board, hist, &pending, Some(first)),
            Stage::Picking => {}
        }
        self.pick()
    }

    /// The best-scored move left among those generated.
    fn pick(&mut self) -> Option<(Move, Kind, i32)> {
        if self.next >= self.moves.len() {
            return None;
        }
        // The first of the best-scored moves left.
        let best = self.next + first_max(&self.scores[self.next..], self.moves.len() - self.next);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::XorShift;

    /// Hands out every move of `picker` (the position does not change).
    fn drain(mut picker: MovePicker, board: &Board, hist: &Histories) -> Vec<(Move, Kind)> {
        std::iter::from_fn(|| picker.next(board, hist)).map(|(m, kind, _)| (m, kind)).collect()
    }

    #[test]
    fn main_picker_hands_out_every_legal_move_once_and_the_table_move_first() {
        let hist = Histories::default();
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1",
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        ];
        for fen in fens {
            let board = Board::from_fen(fen, false).unwrap();
            let legal = board.pos().legal_moves();
            // Every legal move as the table move, an illegal one (a random
            // square pair) and none.
            let mut tables: Vec<PackedMove> = legal.iter().map(|&m| PackedMove::of(m)).collect();
            tables.push(PackedMove((rng.next_u64() & 0xfff) as u16));
            tables.push(PackedMove::NONE);
            for tt in tables {
                let mut picker = MovePicker::default();
                picker.start_main(&board, tt, &hist, 0, [None, None], true);
                assert_eq!(picker.is_empty(), legal.is_empty(), "{fen}");
                let out = drain(picker, &board, &hist);
                let mut handed: Vec<Move> = out.iter().map(|&(m, _)| m).collect();
                let mut expected: Vec<Move> = legal.to_vec();
                handed.sort_by_key(|m| format!("{m:?}"));
                expected.sort_by_key(|m| format!("{m:?}"));
                assert_eq!(handed, expected, "{fen} with table move {:?}", tt.0);
                if let Some(&m) = legal.iter().find(|&&m| tt.matches(m)) {
                    assert_eq!(out[0], (m, Kind::TtMove), "{fen}: the table move first");
                    assert!(out[1..].iter().all(|&(_, kind)| kind != Kind::TtMove), "{fen}: the table move once");
                }
            }
        }
    }
}

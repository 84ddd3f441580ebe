//! One search thread: principal variation search with quiescence, and the
//! pruning, reduction and extension techniques that make it strong.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arrayvec::ArrayVec;
use shakmaty::{Move, Position};

use super::SharedState;
use super::correction;
use super::history::{Histories, PieceTo, bonus, is_quiet, malus};
use super::params::*;
use super::picker::{self, Kind, MovePicker};
use super::score::*;
use super::tt::{Bound, PackedMove, TranspositionTable};
use crate::board::Board;
use crate::board::see::see_ge;
use crate::evaluate::{EVAL_LIMIT, evaluate};

/// False in the `baseline` build: plain alpha-beta with quiescence, TT and
/// MVV-LVA ordering, none of the techniques below.
const FULL: bool = !cfg!(feature = "baseline");

pub type Line = ArrayVec<Move, MAX_PLY>;

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: Option<i32>,
    excluded: Option<Move>,
    /// The move played from this ply (None: null move or not yet played).
    played: Option<PieceTo>,
}

pub struct Worker<'a> {
    pub board: Board,
    pub hist: &'a mut Histories,
    pub tt: &'a TranspositionTable,
    pub shared: &'a SharedState,
    pub id: usize,
    pub nodes: u64,
    pub seldepth: usize,
    /// Root moves allowed (searchmoves) and already used by earlier MultiPV lines.
    pub root_allowed: Vec<Move>,
    pub root_excluded: Vec<Move>,
    /// Best root move and line of the iteration in progress, set as soon as
    /// a root move raises alpha.
    pub root_best: Option<(Move, i32)>,
    /// Nodes searched below each root move since the search began (for the
    /// time manager: how much of the effort the best move took).
    pub root_nodes: Vec<(Move, u64)>,
    pub stopped: bool,
    frames: Vec<Frame>,
    pv: Vec<Line>,
    /// Late-move reductions in plies by depth and move number (of the
    /// tunables' values when the worker is made).
    lmr: Arc<LmrTable>,
}

impl<'a> Worker<'a> {
    pub fn new(
        board: Board,
        hist: &'a mut Histories,
        tt: &'a TranspositionTable,
        shared: &'a SharedState,
        id: usize,
    ) -> Worker<'a> {
        Worker {
            board,
            hist,
            tt,
            shared,
            id,
            nodes: 0,
            seldepth: 0,
            root_allowed: Vec::new(),
            root_excluded: Vec::new(),
            root_best: None,
            root_nodes: Vec::new(),
            stopped: false,
            frames: vec![Frame::default(); MAX_PLY + 8],
            pv: vec![Line::new(); MAX_PLY + 2],
            lmr: lmr_table(),
        }
    }

    pub fn root_pv(&self) -> &Line {
        &self.pv[0]
    }

    /// Counts a node and notices a stop request (from the GUI, the clock or
    /// the node limit, all raised by the main thread).
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        // Every 256 nodes (about half a millisecond): at bullet speed a
        // coarser check overshoots a hard limit of a few milliseconds.
        if self.id == 0 && (self.nodes & 255 == 0 || self.shared.node_limit.is_some()) {
            self.shared.check_limits();
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        self.stopped
    }

    fn previous_moves(&self, ply: usize) -> [Option<PieceTo>; 2] {
        let at = |back: usize| {
            if ply >= back { self.frames[ply - back].played } else { None }
        };
        [at(1), at(2)]
    }

    fn set_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        for &next in tail[0].iter() {
            if line.try_push(next).is_err() {
                break;
            }
        }
    }

    fn count_root_nodes(&mut self, m: Move, nodes: u64) {
        match self.root_nodes.iter_mut().find(|(rm, _)| *rm == m) {
            Some((_, n)) => *n += nodes,
            None => self.root_nodes.push((m, nodes)),
        }
    }

    /// Share of this thread's nodes spent below root move `m`.
    pub fn root_node_fraction(&self, m: Move) -> f64 {
        let below = self.root_nodes.iter().find(|(rm, _)| *rm == m).map_or(0, |&(_, n)| n);
        below as f64 / self.nodes.max(1) as f64
    }

    fn root_move_allowed(&self, m: Move) -> bool {
        (self.root_allowed.is_empty() || self.root_allowed.contains(&m)) && !self.root_excluded.contains(&m)
    }

    /// The correction history's slots for this position (none in the
    /// baseline build, none in check), their entries starting to load: they
    /// are read after the evaluation, which hides the wait.
    fn correction_slots(&self, in_check: bool) -> Option<correction::Slots> {
        let slots = (FULL && !in_check).then(|| correction::slots(self.board.pos().board(), self.board.turn()));
        if let Some(s) = slots {
            self.hist.correction.prefetch(s);
        }
        slots
    }

    /// The raw static evaluation moved by the correction of `slots`.
    fn corrected(&self, slots: Option<correction::Slots>, raw_eval: Option<i32>) -> Option<i32> {
        raw_eval.map(|raw| slots.map_or(raw, |s| self.hist.correction.corrected(s, raw)))
    }

    /// The principal variation search of one node (alpha-beta, negamax).
    ///
    /// One long function on purpose, as in Stockfish: its steps (table
    /// probe, tablebases, static evaluation and its correction, the
    /// pruning before the moves, the move loop with its reductions and
    /// extensions, the table store) share a dozen values of the node and
    /// their order is the algorithm; split into helpers, each would take
    /// most of them as arguments and the order would be harder to read.
    pub fn search(&mut self, mut alpha: i32, mut beta: i32, mut depth: i32, ply: usize, cut_node: bool) -> i32 {
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply);
        }
        if self.tick() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = self.board.in_check();

        if !root {
            if self.board.is_draw() {
                return DRAW;
            }
            if ply >= MAX_PLY {
                return if in_check { DRAW } else { evaluate(&mut self.board) };
            }
            // A mate found closer to the root makes deeper mates irrelevant.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(-mated_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        let excluded = self.frames[ply].excluded;
        let key = self.board.key();
        let tt_entry = if excluded.is_none() { self.tt.probe(key) } else { None };
        let tt_move = tt_entry.map_or(PackedMove::NONE, |e| e.mv);
        let tt_score = tt_entry.map(|e| from_tt(e.score, ply));
        if let (Some(e), Some(score)) = (tt_entry, tt_score)
            && !pv_node
            && e.depth >= depth
            && self.board.pos().halfmoves() < 90
            && e.bound.cuts(score, alpha, beta)
        {
            return score;
        }

        // Endgame tablebases, right after a capture or a pawn move (where a
        // WDL probe is exact): a bound that cuts, or an exact draw, ends the node.
        if !root
            && excluded.is_none()
            && self.board.pos().halfmoves() == 0
            && let Some(tb) = &self.shared.syzygy
        {
            let pieces = self.board.pos().board().occupied().count();
            if (pieces < tb.cardinality() || (pieces == tb.cardinality() && depth >= tb.probe_depth))
                && let Some((score, bound)) = tb.probe_score(self.board.pos(), ply)
            {
                self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
                if bound == Bound::Exact
                    || (bound == Bound::Lower && score >= beta)
                    || (bound == Bound::Upper && score <= alpha)
                {
                    // The entry's static evaluation stays an evaluation.
                    let eval = score.clamp(-EVAL_LIMIT, EVAL_LIMIT);
                    self.tt.store(
                        key,
                        PackedMove::NONE,
                        to_tt(score, ply),
                        eval,
                        (depth + 6).min(MAX_PLY as i32 - 1),
                        bound,
                    );
                    return score;
                }
            }
        }

        // Static evaluation: the network's (kept in the table), moved by what
        // the correction history learnt about positions like this one, then
        // sharpened by the table's bound where it applies.
        let slots = self.correction_slots(in_check);
        let raw_eval =
            if in_check { None } else { Some(tt_entry.map_or_else(|| evaluate(&mut self.board), |e| e.eval)) };
        let static_eval = self.corrected(slots, raw_eval);
        let eval = match (static_eval, tt_entry, tt_score) {
            (Some(se), Some(e), Some(score)) if !is_mate(score) => match e.bound {
                Bound::Exact => score,
                Bound::Lower if score > se => score,
                Bound::Upper if score < se => score,
                _ => se,
            },
            (Some(se), ..) => se,
            _ => -INFINITE,
        };
        self.frames[ply].static_eval = static_eval;
        let improving = match static_eval {
            Some(se) if ply >= 2 => self.frames[ply - 2].static_eval.is_none_or(|prev| se > prev),
            _ => false,
        };
        self.hist.clear_killers(ply + 1);

        if FULL && !pv_node && !in_check && excluded.is_none() {
            // Reverse futility: far enough above beta that nothing should drop it.
            let margin = rfp_margin() * (depth - improving as i32);
            if depth <= rfp_depth() && eval - margin >= beta && !is_mate(beta) {
                return (eval + beta) / 2;
            }
            // Razoring: hopeless near the leaves unless a capture saves it.
            if depth <= razor_depth() && eval + razor_base() + razor_margin() * depth < alpha {
                let score = self.quiescence(alpha, alpha + 1, ply);
                if score < alpha {
                    return score;
                }
            }
            // Null move: if passing still beats beta, a real move will too.
            // Not without pieces (zugzwang) and not twice in a row.
            if depth >= nmp_depth()
                && eval >= beta
                && self.frames[ply.saturating_sub(1)].played.is_some()
                && self.board.has_non_pawn_material()
                && !is_mate(beta)
            {
                let r = nmp_base() + depth / nmp_depth_divisor() + ((eval - beta) / nmp_eval_divisor()).min(3);
                if self.board.push_null() {
                    self.frames[ply].played = None;
                    let score = -self.search(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
                    self.board.pop();
                    if self.stopped {
                        return DRAW;
                    }
                    if score >= beta {
                        return if is_mate(score) { beta } else { score };
                    }
                }
            }
        }

        // Internal iterative reduction: no table move, probably not worth full depth.
        if FULL && depth >= iir_depth() && tt_move.is_none() && (pv_node || cut_node) && excluded.is_none() {
            depth -= 1;
        }

        let prev = self.previous_moves(ply);
        let mut picker = MovePicker::default();
        picker.start_main(&self.board, tt_move, self.hist, ply, prev, FULL);
        if picker.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut moves_searched = 0;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let mut skip_quiets = false;
        let us = self.board.turn();
        let checks = self.board.check_info();

        while let Some((m, kind, order_score)) = picker.next(&self.board, self.hist) {
            if Some(m) == excluded || (root && !self.root_move_allowed(m)) {
                continue;
            }
            // The child's table entry starts loading while the move is
            // weighed and played (the child probes it first thing).
            let likely_key = self.board.likely_key_after(m);
            self.tt.prefetch(likely_key);
            let quiet = is_quiet(m);
            // The picker's score is the history for ordinary quiet moves;
            // killers, counters and the table move get theirs looked up.
            let history = if !quiet {
                self.hist.capture_score(us, m)
            } else if kind == Kind::Quiet && order_score < picker::COUNTER {
                order_score
            } else {
                self.hist.quiet_score(us, m, prev)
            };

            // Singular extension: is the table move much better than all
            // others? (Decided before the move is played: it searches this node.)
            let mut extension = 0;
            if FULL
                && !root
                && depth >= singular_depth()
                && kind == Kind::TtMove
                && excluded.is_none()
                && let (Some(e), Some(score)) = (tt_entry, tt_score)
                && e.depth >= depth - 3
                && e.bound != Bound::Upper
                && !is_mate(score)
                && ply < MAX_PLY / 2
            {
                let singular_beta = score - singular_margin() * depth / 16;
                self.frames[ply].excluded = Some(m);
                let s = self.search(singular_beta - 1, singular_beta, (depth - 1) / 2, ply, cut_node);
                self.frames[ply].excluded = None;
                if self.stopped {
                    return DRAW;
                }
                if s < singular_beta {
                    extension = if !pv_node && s < singular_beta - double_ext_margin() { 2 } else { 1 };
                } else if singular_beta >= beta {
                    // Several moves beat beta: cut now (multi-cut).
                    return singular_beta;
                } else if score >= beta {
                    extension = -1;
                }
            }

            let lmr_depth = (depth - self.lmr[depth.min(63) as usize][(moves_searched + 1).min(63)]).max(0);
            let may_prune = FULL && !root && best_score > -MATE_BOUND;
            // Pruning of moves unlikely to matter, decided before the move is
            // made (most late quiet moves of a node end here). Checks are
            // always searched.
            let gives_check = checks.gives_check(self.board.pos(), m);
            if may_prune && !gives_check {
                let mut prune = quiet && skip_quiets;
                if !prune && depth <= see_depth() && kind != Kind::TtMove {
                    let threshold = if quiet { -see_quiet() * lmr_depth } else { -see_noisy() * depth * depth };
                    prune = !see_ge(self.board.pos(), m, threshold);
                }
                if quiet && !in_check && !prune {
                    // Late move pruning.
                    if depth <= lmp_depth()
                        && quiets_tried.len() as i32 >= (lmp_base() + depth * depth) / (2 - improving as i32)
                    {
                        skip_quiets = true;
                        prune = true;
                    }
                    // Futility pruning.
                    if lmr_depth <= fp_depth()
                        && eval + fp_base() + fp_margin() * lmr_depth <= alpha
                        && history < fp_history()
                    {
                        skip_quiets = true;
                        prune = true;
                    }
                }
                if prune {
                    continue;
                }
            }

            let nodes_before = self.nodes;
            self.frames[ply].played = Some(PieceTo::of(us, m));
            self.board.push_prepared(m, likely_key, Some(gives_check));
            if self.board.key() != likely_key {
                self.tt.prefetch(self.board.key());
            }
            if FULL && extension == 0 && gives_check {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;
            moves_searched += 1;

            let mut score;
            if FULL && depth >= 3 && moves_searched > 1 + root as usize && (quiet || kind == Kind::BadNoisy) {
                let mut r = self.lmr[depth.min(63) as usize][moves_searched.min(63)];
                r += !pv_node as i32 + cut_node as i32;
                r -= improving as i32 + gives_check as i32;
                r -= history / lmr_history();
                let reduced = (new_depth - r).clamp(1, new_depth.max(1));
                score = -self.search(-alpha - 1, -alpha, reduced, ply + 1, true);
                if score > alpha && reduced < new_depth {
                    score = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
            } else if !pv_node || moves_searched > 1 {
                score = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
            } else {
                score = alpha + 1; // forces the full-window search below
            }
            if pv_node && score > alpha && (moves_searched == 1 || score < beta) {
                score = -self.search(-beta, -alpha, new_depth, ply + 1, false);
            }
            self.board.pop();
            if root {
                self.count_root_nodes(m, self.nodes - nodes_before);
            }
            if self.stopped {
                return DRAW;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.set_pv(ply, m);
                    }
                    if root {
                        self.root_best = Some((m, score));
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
            if Some(m) != best_move {
                if quiet {
                    let _ = quiets_tried.try_push(m);
                } else {
                    let _ = captures_tried.try_push(m);
                }
            }
        }

        if moves_searched == 0 {
            // Every move was excluded (singular search or root filters).
            return if excluded.is_some() || root {
                alpha
            } else if in_check {
                mated_in(ply)
            } else {
                DRAW
            };
        }

        if FULL && let Some(m) = best_move.filter(|_| best_score >= beta) {
            let (b, penalty) = (bonus(depth), malus(depth));
            if is_quiet(m) {
                self.hist.add_killer(ply, m);
                self.hist.set_counter(prev[0], m);
                self.hist.update_quiet(us, m, prev, b);
                for &q in &quiets_tried {
                    self.hist.update_quiet(us, q, prev, -penalty);
                }
            } else {
                self.hist.update_capture(us, m, b);
            }
            for &c in &captures_tried {
                self.hist.update_capture(us, c, -penalty);
            }
        }

        if excluded.is_none() {
            let bound = Bound::of(best_score, original_alpha, beta);
            // Learn the evaluation's error where the result measures it: a
            // quiet best move (or none), a bound on the side that says something.
            if let (Some(raw), Some(corrected), Some(s)) = (raw_eval, static_eval, slots)
                && best_move.is_none_or(is_quiet)
                && !is_decisive(best_score)
                && !(bound == Bound::Lower && best_score <= corrected)
                && !(bound == Bound::Upper && best_score >= corrected)
            {
                self.hist.correction.update(s, depth, raw, best_score);
            }
            let stored_move = best_move.map_or(tt_move, PackedMove::of);
            self.tt.store(key, stored_move, to_tt(best_score, ply), raw_eval.unwrap_or(0), depth, bound);
        }
        best_score
    }

    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return DRAW;
        }
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply);
        if self.board.is_draw() {
            return DRAW;
        }
        let in_check = self.board.in_check();
        if ply >= MAX_PLY {
            return if in_check { DRAW } else { evaluate(&mut self.board) };
        }
        let key = self.board.key();
        let tt_entry = self.tt.probe(key);
        if let Some(e) = tt_entry {
            let score = from_tt(e.score, ply);
            if beta - alpha == 1 && e.bound.cuts(score, alpha, beta) {
                return score;
            }
        }

        // The standing-pat score is corrected as in the main search (the
        // table keeps the raw evaluation); quiescence does not learn.
        let slots = self.correction_slots(in_check);
        let raw_eval =
            if in_check { None } else { Some(tt_entry.map_or_else(|| evaluate(&mut self.board), |e| e.eval)) };
        let static_eval = self.corrected(slots, raw_eval);
        let mut best_score = -INFINITE;
        if let Some(stand_pat) = static_eval {
            // Standing pat: the side to move may decline every capture.
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }

        let mut picker = MovePicker::default();
        picker.start_quiescence(&self.board, tt_entry.map_or(PackedMove::NONE, |e| e.mv), self.hist);
        let mut best_move = None;
        let original_alpha = alpha;
        let mut any_legal = false;
        while let Some((m, ..)) = picker.next(&self.board, self.hist) {
            any_legal = true;
            // Captures that lose material cannot raise a standing-pat score.
            if !in_check && !see_ge(self.board.pos(), m, 0) {
                continue;
            }
            let likely_key = self.board.likely_key_after(m);
            self.tt.prefetch(likely_key);
            self.board.push_prepared(m, likely_key, None);
            if self.board.key() != likely_key {
                self.tt.prefetch(self.board.key());
            }
            let score = -self.quiescence(-beta, -alpha, ply + 1);
            self.board.pop();
            if self.stopped {
                return DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.set_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && !any_legal {
            return mated_in(ply);
        }
        let bound = Bound::of(best_score, original_alpha, beta);
        let mv = best_move.map_or(PackedMove::NONE, PackedMove::of);
        self.tt.store(key, mv, to_tt(best_score, ply), raw_eval.unwrap_or(0), 0, bound);
        best_score
    }
}

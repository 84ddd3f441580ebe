//! The search: iterative deepening with aspiration windows and MultiPV over
//! a principal variation search, run on one or more threads (Lazy SMP: the
//! threads share only the transposition table).

pub mod correction;
mod first_max;
pub mod history;
pub mod limits;
pub mod params;
pub mod picker;
mod prefetch;
pub mod score;
pub mod strength;
pub mod syzygy;
pub mod time;
pub mod tt;
pub mod wdl;
pub mod worker;

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::board::Board;
use crate::nnue::network::Network;
use history::Histories;
use limits::Limits;
use score::*;
use time::{SoftScale, TimeManager};
use tt::TranspositionTable;
use worker::{Line, Worker};

/// Stack size of search threads: the recursion keeps a move list per ply.
const SEARCH_STACK_BYTES: usize = 32 << 20;

thread_local! {
    /// True on a thread started by [`with_search_stack`]: its stack holds a
    /// search, so one-thread searches run on it.
    static ON_SEARCH_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on a new thread with a search thread's stack and returns what it
/// returns (a panic in `f` goes on in the caller). One-thread searches made
/// from `f` run on that thread instead of each starting a thread of its own:
/// datagen's games of 400 nodes a move spent a quarter of their CPU starting
/// threads and faulting in fresh stacks.
pub fn with_search_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .stack_size(SEARCH_STACK_BYTES)
            .spawn_scoped(scope, || {
                ON_SEARCH_STACK.with(|on| on.set(true));
                f()
            })
            .expect("spawn search thread");
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// What all threads of one search share besides the table.
pub struct SharedState {
    /// Every thread stops searching: the GUI said so, or a limit is reached.
    pub stop: AtomicBool,
    /// The GUI said `stop` (or `quit`): unlike `stop`, which a node budget
    /// also raises, this is what a `go infinite` or `go ponder` search waits
    /// for before its `bestmove`.
    pub released: AtomicBool,
    /// True while a `go ponder` search waits for `ponderhit`: no clock yet.
    pub pondering: AtomicBool,
    pub nodes: Vec<AtomicU64>,
    pub node_limit: Option<u64>,
    pub time: TimeManager,
    /// Endgame tablebases, if `SyzygyPath` found any, and how often they answered.
    pub syzygy: Option<syzygy::Syzygy>,
    pub tbhits: AtomicU64,
}

impl SharedState {
    pub fn new(threads: usize, limits: &Limits, time: TimeManager) -> SharedState {
        SharedState {
            stop: AtomicBool::new(false),
            released: AtomicBool::new(false),
            pondering: AtomicBool::new(limits.ponder),
            nodes: (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect(),
            node_limit: limits.nodes,
            time,
            syzygy: None,
            tbhits: AtomicU64::new(0),
        }
    }

    /// The same, probing `syzygy`'s tables.
    pub fn with_syzygy(mut self, syzygy: Option<syzygy::Syzygy>) -> SharedState {
        self.syzygy = syzygy.filter(|s| s.cardinality() > 0);
        self
    }

    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    /// Raises `stop` when the node budget or the hard time limit is spent.
    pub fn check_limits(&self) {
        let out_of_nodes = self.node_limit.is_some_and(|limit| self.total_nodes() >= limit);
        let out_of_time = !self.pondering.load(Ordering::Relaxed) && self.time.hard_expired();
        if out_of_nodes || out_of_time {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// UCI `stop`: the search ends, and its answer is due now.
    pub fn release(&self) {
        self.released.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the answer must wait for a word from the GUI: `go infinite`
    /// until `stop`, `go ponder` until `ponderhit` or `stop`, however the
    /// search itself ended (a node budget, the strength limit's, included).
    pub fn awaits_word(&self, limits: &Limits) -> bool {
        !self.released.load(Ordering::Relaxed) && (limits.infinite || self.pondering.load(Ordering::Relaxed))
    }

    /// UCI: after `go infinite` or `go ponder`, the answer waits for `stop`
    /// or `ponderhit`; then every thread is told to stop.
    pub fn wait_for_release(&self, limits: &Limits) {
        while self.awaits_word(limits) {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SearchOptions {
    pub threads: usize,
    pub multipv: usize,
    /// How many of the lines `report` receives (0: all of them). The
    /// strength limit searches more lines than the user asked for, to
    /// choose among them; a spectator should not see the ones turned down.
    pub shown_lines: usize,
    pub show_wdl: bool,
    /// Whether `report` receives the UCI `info` lines. Callers that read
    /// only the result leave it off: formatting the lines of a 400-node
    /// search was a thirtieth of datagen's games.
    pub info: bool,
}

impl SearchOptions {
    /// Whether the `info` lines of MultiPV line `line` (from 1) are shown.
    fn shows(&self, line: usize) -> bool {
        self.shown_lines == 0 || line <= self.shown_lines
    }
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    /// The last completed iteration's lines (score, PV), best first: one
    /// per MultiPV line.
    pub lines: Vec<(i32, Line)>,
}

/// State that outlives one `go`: the table, each thread's histories, and
/// the network.
pub struct Search {
    pub tt: TranspositionTable,
    // Boxed: `Box::default()` builds the (large) tables on the heap, where a
    // `Histories` passed by value would first be built on the stack.
    #[allow(clippy::vec_box)]
    histories: Vec<Box<Histories>>,
    pub network: Arc<Network>,
}

impl Search {
    /// A search with the embedded network.
    pub fn new(hash_mb: usize) -> Search {
        Search {
            tt: TranspositionTable::new(hash_mb),
            histories: Vec::new(),
            network: crate::nnue::embedded::default_network(),
        }
    }

    /// Replaces the table with one of `hash_mb` megabytes; the old one stays
    /// if the memory cannot be had.
    pub fn resize(&mut self, hash_mb: usize) -> Result<(), String> {
        self.tt = TranspositionTable::try_new(hash_mb)?;
        Ok(())
    }

    /// Forget everything learned: a new game.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.histories.clear();
    }

    /// Searches `board` and returns the best move. `report` receives every
    /// `info` line (without the trailing newline).
    pub fn run(
        &mut self,
        board: &Board,
        limits: &Limits,
        options: SearchOptions,
        shared: &SharedState,
        report: &(dyn Fn(&str) + Sync),
    ) -> SearchResult {
        // In a tablebase ending the tables choose the root moves that keep
        // the best outcome within the 50-move rule; the search picks among them.
        let tablebase_limits;
        let limits = match shared.syzygy.as_ref().and_then(|tb| tb.root_moves(board.pos())) {
            Some(kept) => {
                shared.tbhits.fetch_add(1, Ordering::Relaxed);
                let mut narrowed = limits.clone();
                let allowed: Vec<Move> = kept
                    .into_iter()
                    .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
                    .collect();
                if !allowed.is_empty() {
                    narrowed.searchmoves = allowed;
                }
                tablebase_limits = narrowed;
                &tablebase_limits
            }
            None => limits,
        };
        let threads = options.threads.max(1).min(shared.nodes.len());
        while self.histories.len() < threads {
            self.histories.push(Box::default());
        }
        self.tt.new_search();
        let mut root = board.clone();
        root.set_search_root();
        root.attach_network(Arc::clone(&self.network));
        root.reserve(MAX_PLY + 8);
        let tt = &self.tt;
        let mut histories = self.histories.iter_mut();
        let main_hist = histories.next().expect("at least one thread");
        let mut main_search = move |root: Board| {
            let mut w = Worker::new(root, main_hist, tt, shared, 0);
            let result = iterate(&mut w, limits, options, report);
            shared.wait_for_release(limits);
            result
        };

        let mut result = if threads == 1 && ON_SEARCH_STACK.with(Cell::get) {
            main_search(root)
        } else {
            std::thread::scope(|scope| {
                let helpers: Vec<_> = histories
                    .take(threads - 1)
                    .enumerate()
                    .map(|(i, hist)| {
                        let root = root.clone();
                        std::thread::Builder::new()
                            .stack_size(SEARCH_STACK_BYTES)
                            .spawn_scoped(scope, move || {
                                let mut w = Worker::new(root, hist, tt, shared, i + 1);
                                iterate(&mut w, limits, options, &|_: &str| {});
                            })
                            .expect("spawn search thread")
                    })
                    .collect();
                let main = std::thread::Builder::new()
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || main_search(root))
                    .expect("spawn search thread");
                let result = main.join().expect("main search thread panicked");
                for h in helpers {
                    let _ = h.join();
                }
                result
            })
        };
        result.nodes = shared.total_nodes();
        result
    }
}

/// One thread's iterative deepening. Only the main thread (id 0) reports
/// and decides when to stop.
///
/// Over 150 lines because the iteration's parts (aspiration windows per
/// line, an interrupted iteration's move, the time manager's view, the
/// reports) read and write the same few running values (the lines, the
/// result, the stability count); the reporting it could lose is already in
/// `info_line`.
fn iterate(w: &mut Worker, limits: &Limits, options: SearchOptions, report: &(dyn Fn(&str) + Sync)) -> SearchResult {
    let main = w.id == 0;
    let shared = w.shared;
    // The first move of the last line reported with a `pv`: the search ends by
    // reporting the line of the move it plays if that is another (below).
    let last_reported = Cell::new(None);
    let report = |first: Option<Move>, line: &dyn Fn() -> String| {
        if main && options.info {
            report(&line());
            last_reported.set(first);
        }
    };
    w.root_allowed = limits.searchmoves.clone();
    let root_moves: Vec<Move> = w
        .board
        .pos()
        .legal_moves()
        .into_iter()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .collect();
    if root_moves.is_empty() {
        let score = if w.board.in_check() { uci_score(mated_in(0)) } else { "cp 0".to_string() };
        report(None, &|| format!("info depth 0 score {score}"));
        return SearchResult::default();
    }
    let multipv = options.multipv.clamp(1, root_moves.len());
    let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
    let mut lines: Vec<(i32, Line)> = Vec::new();
    let mut result = SearchResult { best: Some(root_moves[0]), ..SearchResult::default() };
    // The time manager's view of the iterations: how long the best move has
    // held and the best score of each iteration.
    let mut stability = 0;
    let mut scores: Vec<i32> = Vec::new();

    for depth in 1..=max_depth {
        w.root_excluded.clear();
        w.seldepth = 0;
        let mut completed: Vec<(i32, Line)> = Vec::new();
        for pv_index in 0..multipv {
            let previous = lines.get(pv_index).map(|l| l.0);
            let mut delta = params::asp_delta();
            let (mut alpha, mut beta) = match previous {
                Some(p) if depth >= 4 && !is_mate(p) => ((p - delta).max(-INFINITE), (p + delta).min(INFINITE)),
                _ => (-INFINITE, INFINITE),
            };
            w.root_best = None;
            let score = loop {
                let score = w.search(alpha, beta, depth, 0, false);
                if w.stopped {
                    break score;
                }
                if score <= alpha {
                    if options.shows(pv_index + 1) {
                        report(lines_or_pv(&lines, pv_index, w).first().copied(), &|| {
                            let pv = lines_or_pv(&lines, pv_index, w);
                            info_line(w, depth, pv_index + 1, score, Some("upperbound"), pv, options)
                        });
                    }
                    beta = (alpha + beta) / 2;
                    alpha = (score - delta).max(-INFINITE);
                } else if score >= beta {
                    if options.shows(pv_index + 1) {
                        let first = w.root_pv().first().copied();
                        report(first, &|| {
                            info_line(w, depth, pv_index + 1, score, Some("lowerbound"), w.root_pv(), options)
                        });
                    }
                    beta = (score + delta).min(INFINITE);
                } else {
                    break score;
                }
                delta += delta / 2;
                if delta > 600 {
                    (alpha, beta) = (-INFINITE, INFINITE);
                }
            };
            if w.stopped {
                break;
            }
            let pv = w.root_pv().clone();
            let Some(&first) = pv.first() else { break };
            w.root_excluded.push(first);
            completed.push((score, pv));
        }
        if completed.len() < multipv {
            // An interrupted iteration: trust its first line only if the
            // best move of the last full iteration was already beaten.
            if let (Some((m, s)), Some((best_score, _))) = (w.root_best, lines.first())
                && w.root_excluded.is_empty()
                && s > *best_score
            {
                // The root's line was set with root_best (worker.rs), so it
                // starts with m; it is reported, so that the last `info … pv`
                // before `bestmove` begins with the move played (match runners
                // such as fastchess warn otherwise, and GUIs show that line).
                let pv: Line = match w.root_pv().first() {
                    Some(&first) if first == m => w.root_pv().clone(),
                    _ => [m].into_iter().collect(),
                };
                // The score and lines stay the last full iteration's: data
                // generation labels with that score, and the strength limit
                // picks among those lines.
                result.best = Some(m);
                result.ponder = pv.get(1).copied();
                if options.shows(1) {
                    report(Some(m), &|| info_line(w, depth, 1, s, None, &pv, options));
                }
            }
            break;
        }
        completed.sort_by_key(|(score, _)| -score);
        lines = completed;
        let best = lines[0].1.first().copied();
        stability = if depth > 1 && best == result.best { stability + 1 } else { 0 };
        scores.push(lines[0].0);
        result.best = best;
        result.ponder = lines[0].1.get(1).copied();
        result.score = lines[0].0;
        result.depth = depth;
        result.lines.clone_from(&lines);
        if main {
            for (i, (score, pv)) in lines.iter().enumerate().filter(|(i, _)| options.shows(i + 1)) {
                report(pv.first().copied(), &|| info_line(w, depth, i + 1, *score, None, pv, options));
            }
            let mate_found = limits.mate.is_some_and(|n| mate_in_moves(lines[0].0).is_some_and(|m| m > 0 && m <= n));
            let pondering = shared.pondering.load(Ordering::Relaxed);
            let scale = if depth >= params::tm_scale_depth() {
                SoftScale {
                    stability,
                    best_move_fraction: best.map_or(0.0, |m| w.root_node_fraction(m)),
                    earlier_score: scores[scores.len().saturating_sub(4)],
                    score: lines[0].0,
                }
                .factor()
            } else {
                1.0
            };
            if mate_found || (!pondering && shared.time.soft_expired_scaled(scale)) {
                break;
            }
        }
        if shared.stopped() {
            break;
        }
    }
    if main && lines.is_empty() {
        // Stopped inside the first iteration (a budget of a few nodes or
        // milliseconds): still name the move and a score before `bestmove`,
        // as GUIs and tools expect: the best root move found so far, or
        // else the first legal one at the static evaluation.
        let (best, score) = match w.root_best {
            Some((m, s)) => (m, s),
            None => (root_moves[0], crate::evaluate::evaluate(&mut w.board)),
        };
        result.best = Some(best);
        result.score = score;
        let pv: Line = [best].into_iter().collect();
        report(Some(best), &|| info_line(w, 1, 1, score, None, &pv, options));
        result.lines = vec![(score, pv)];
    }
    // A bound reported by an iteration that was then cut off (a fail high on
    // a move that did not hold, say) may name another move than the one
    // played: the played line is reported again, so that the last `info … pv`
    // before `bestmove` starts with its move, as match runners check.
    if let Some((score, pv)) = lines.first()
        && pv.first().copied() == result.best
        && last_reported.get() != result.best
        && options.shows(1)
    {
        report(result.best, &|| info_line(w, result.depth, 1, *score, None, pv, options));
    }
    if result.ponder.is_none() {
        result.ponder = result.best.and_then(|m| ponder_from_table(w, m));
    }
    result
}

fn lines_or_pv<'l>(lines: &'l [(i32, Line)], index: usize, w: &'l Worker) -> &'l Line {
    lines.get(index).map_or(w.root_pv(), |l| &l.1)
}

/// The expected reply to `best`, read from the table when the PV is short.
fn ponder_from_table(w: &Worker, best: Move) -> Option<Move> {
    let mut board = w.board.clone();
    board.push(best);
    let entry = w.tt.probe(board.key())?;
    board.pos().legal_moves().into_iter().find(|&m| entry.mv.matches(m))
}

fn info_line(
    w: &Worker,
    depth: i32,
    multipv: usize,
    score: i32,
    bound: Option<&str>,
    pv: &Line,
    options: SearchOptions,
) -> String {
    let elapsed = w.shared.time.elapsed();
    let nodes = w.shared.total_nodes();
    let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let mut line =
        format!("info depth {depth} seldepth {} multipv {multipv} score {}", w.seldepth.max(1), uci_score(score));
    if let Some(b) = bound {
        line.push(' ');
        line.push_str(b);
    }
    if options.show_wdl {
        let (win, draw, loss) = wdl::FITTED.per_mille(score, wdl::material(w.board.pos()));
        line.push_str(&format!(" wdl {win} {draw} {loss}"));
    }
    line.push_str(&format!(" nodes {nodes} nps {nps} hashfull {}", w.tt.hashfull()));
    if w.shared.syzygy.is_some() {
        line.push_str(&format!(" tbhits {}", w.shared.tbhits.load(Ordering::Relaxed)));
    }
    line.push_str(&format!(" time {} pv", elapsed.as_millis()));
    // A move's UCI text needs only the castling notation, not the position:
    // no board is cloned or played along (with its accumulators, that was a
    // twentieth of a 400-node search).
    let mode = w.board.castling_mode();
    for &m in pv {
        line.push(' ');
        line.push_str(&m.to_uci(mode).to_string());
    }
    line
}

/// Convenience for tools and tests: search `board` alone to `depth`.
pub fn search_depth(board: &Board, depth: i32, hash_mb: usize) -> SearchResult {
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    let time = TimeManager::new(Instant::now(), &limits, board.turn(), 0);
    let shared = SharedState::new(1, &limits, time);
    let mut search = Search::new(hash_mb);
    let options = SearchOptions { threads: 1, multipv: 1, ..SearchOptions::default() };
    search.run(board, &limits, options, &shared, &|_: &str| {})
}

//! The UCI protocol loop. The calling thread reads input; each `go` runs on
//! a search thread of its own, so `stop`, `isready`, `ponderhit` and `quit`
//! are handled at once while a search runs.
//!
//! Only protocol lines go to stdout, in ASCII; problems with the input are
//! reported as `info string error: …` (or `warning:` where the engine went
//! on with what it understood). Whatever a `go` line holds, it is answered
//! with exactly one `bestmove`.

pub mod command;
pub mod options;

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::Instant;

use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::board::{Board, gui_fen};
use crate::nnue::network::Network;
use crate::rng::Rng;
use crate::search::limits::Limits;
use crate::search::strength::Handicap;
use crate::search::syzygy::{Syzygy, Tablebases};
use crate::search::time::TimeManager;
use crate::search::{Search, SearchOptions, SharedState, params};
use command::{Command, GoParams, Start};
use options::{Options, Setting};

/// The version and the embedded net's short hash (build.rs), so that a GUI,
/// a PGN header or a rating list names exactly what played.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " net ",
    env!("TESSERA_NET_HASH"),
    " (",
    env!("TESSERA_NET_KIND"),
    ") for ",
    env!("TESSERA_CPU_LEVEL")
);
pub const ENGINE_AUTHOR: &str = "the Tessera developers";

/// The UCI `id name`: the version and the hash of the net loaded now (the
/// embedded one unless `EvalFile` named another).
pub fn engine_name(net_hash: &str) -> String {
    format!("Tessera {} {net_hash}", env!("CARGO_PKG_VERSION"))
}

/// A `go` whose words were all ignored (`go depth abc`, `go foo`) searches
/// to this depth: the GUI gets its `bestmove` in a moment instead of after
/// a `stop` it never meant to send. A bare `go` is still a search without
/// bound, as the protocol has it.
pub const FALLBACK_DEPTH: i32 = 10;

fn send(line: &str) {
    let line = ascii(line);
    let mut out = std::io::stdout().lock();
    // A closed stdout means the GUI is gone; nothing useful is left to do.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The line with every character outside printable ASCII replaced by `?`:
/// GUIs such as Arena read the protocol as a single-byte code page, a
/// control byte (NUL, ESC, a stray newline) can end or garble a line, and
/// text from outside (a file name, an input line quoted back, an error of a
/// library) may hold anything.
fn ascii(line: &str) -> std::borrow::Cow<'_, str> {
    let printable = |c: char| c == ' ' || c.is_ascii_graphic();
    if line.chars().all(printable) {
        return line.into();
    }
    line.chars().map(|c| if printable(c) { c } else { '?' }).collect::<String>().into()
}

fn error(message: &str) {
    send(&format!("info string error: {}", cut(message)));
}

/// A message cut to a length a GUI's log shows whole (inputs quoted in it
/// are cut already; this bounds the rest).
fn cut(message: &str) -> std::borrow::Cow<'_, str> {
    const LONGEST: usize = 600;
    if message.len() <= LONGEST {
        return message.into();
    }
    let mut end = LONGEST;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... (cut)", &message[..end]).into()
}

struct Running {
    handle: JoinHandle<Search>,
    shared: Arc<SharedState>,
    limits: Limits,
    /// Whether nothing but `stop` ends the search: `go infinite`, or a `go`
    /// with no depth, nodes, move time or clock of the side to move (a bare
    /// `go`, `go mate 3`: searched as long as it takes, as in Stockfish).
    unbounded: bool,
}

impl Running {
    /// Whether the search ends only when told (`go infinite`, or `go
    /// ponder` before `ponderhit`): waiting for it would wait forever.
    fn waits_for_word(&self) -> bool {
        self.shared.awaits_word(&self.limits) || (self.unbounded && !self.shared.stop.load(Ordering::Relaxed))
    }
}

pub struct Engine {
    board: Board,
    options: Options,
    /// `None` while a search thread has it.
    search: Option<Search>,
    running: Option<Running>,
    /// The tables of `SyzygyPath`, if it found any.
    tablebases: Option<Arc<Tablebases>>,
    /// Seeds the deliberate mistakes of `UCI_LimitStrength`: a new stream per
    /// `go`, different in every session.
    seeds: Rng,
    /// The content hash of the net in use, for `id name` (the search, which
    /// holds the net, is away on its thread while a search runs).
    net_hash: String,
    /// The last `position` line, where it was refused: until the next good
    /// one, `go` answers `bestmove 0000` rather than a move for an older
    /// position than the GUI's.
    refused: Option<String>,
}

impl Default for Engine {
    fn default() -> Self {
        let options = Options::default();
        let search = Search::new(options.hash_mb);
        Engine {
            board: Board::default(),
            net_hash: search.network.hash.clone(),
            search: Some(search),
            options,
            running: None,
            tablebases: None,
            seeds: Rng::new(session_seed()),
            refused: None,
        }
    }
}

impl Engine {
    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        // Lines as bytes: input that is not UTF-8 is an error to report, not
        // the end of the session.
        for line in input.split(b'\n') {
            let Ok(bytes) = line else { break };
            let line = String::from_utf8_lossy(&bytes);
            // A bug while handling one command must not take the session down:
            // report it and read on (the search thread guards itself likewise).
            let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle_line(&line)));
            match handled {
                Ok(true) => {}
                Ok(false) => return,
                Err(_) => error(&format!(
                    "internal error while handling '{}'; state may be reset",
                    command::quote(line.trim())
                )),
            }
        }
        self.stop_search();
    }

    /// Acts on one input line. Returns false on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        let command = match command::parse(line) {
            Ok(Some(command)) => command,
            Ok(None) => return true,
            Err(message) => {
                error(&message);
                return true;
            }
        };
        match command {
            Command::Uci => {
                send(&format!("id name {}", engine_name(&self.net_hash)));
                send(&format!("id author {ENGINE_AUTHOR}"));
                for declaration in options::declarations() {
                    send(&declaration);
                }
                send("uciok");
            }
            Command::IsReady => send("readyok"),
            Command::Debug | Command::Register => {}
            Command::Stop => self.stop_search(),
            Command::PonderHit => {
                if let Some(running) = &self.running {
                    running.shared.pondering.store(false, Ordering::Relaxed);
                }
            }
            Command::Quit => {
                self.stop_search();
                return false;
            }
            Command::UciNewGame => {
                if let Some(search) = self.idle_search("ucinewgame") {
                    search.clear();
                }
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves, notes } => {
                for note in notes {
                    send(&format!("info string warning: {note}"));
                }
                self.set_position(start, &moves, line);
            }
            Command::Go(params) => self.go(params),
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::Bench { depth } => self.bench(depth),
            Command::Perft { depth } => self.perft(depth),
        }
        true
    }

    /// `d`: the board as text, its FEN and Zobrist key.
    fn display(&self) {
        for line in board_diagram(&self.board) {
            send(&line);
        }
        send(&format!("Fen: {}", self.board.fen()));
        send(&format!("Key: {:016X}", self.board.key()));
        let checkers: Vec<String> = self.board.pos().checkers().into_iter().map(|sq| sq.to_string()).collect();
        send(&format!("Checkers: {}", checkers.join(" ")));
    }

    /// `eval`: the network's static evaluation of the current position.
    fn eval(&mut self) {
        let Some(search) = self.idle_search("eval") else { return };
        let network = Arc::clone(&search.network);
        send(&format!("info string eval {}", crate::evaluate::describe(&self.board, network)));
    }

    /// `bench [depth]`: `tessera bench` with the net in use, on the input
    /// thread (nothing else is read until it ends, as in Stockfish).
    fn bench(&mut self, depth: Option<i32>) {
        let Some(search) = self.idle_search("bench") else { return };
        let network = Arc::clone(&search.network);
        let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
        send(&format!("info string bench kernels: {}", crate::simd::summary()));
        let report = crate::bench::run_with(network, depth, |i, fen, nodes| {
            send(&format!("info string bench position {:>2}: {nodes:>10} nodes  {fen}", i + 1));
        });
        send(&format!("info string bench: {} nodes {} nps", report.nodes, report.nps));
    }

    /// `perft <depth>`: the count below each legal move, then the total.
    fn perft(&mut self, depth: u32) {
        if !self.ensure_idle("perft") {
            return;
        }
        let rows = crate::board::perft::divide(&self.board, depth);
        for (m, n) in &rows {
            send(&format!("info string {m}: {n}"));
        }
        send(&format!("info string perft {depth}: {} nodes", rows.iter().map(|(_, n)| n).sum::<u64>()));
    }

    /// Makes the engine idle for `what`, as Stockfish does: a search with a
    /// bound (depth, nodes, clock) is waited for, and answers first; one
    /// that ends only with `stop` or `ponderhit` cannot be waited for, so
    /// `what` is refused and reported (false).
    fn ensure_idle(&mut self, what: &str) -> bool {
        if self.running.as_ref().is_some_and(Running::waits_for_word) {
            error(&format!("'{what}' ignored: an infinite or ponder search is running (send 'stop' first)"));
            return false;
        }
        self.join_search();
        true
    }

    fn idle_search(&mut self, what: &str) -> Option<&mut Search> {
        if self.ensure_idle(what) { self.search.as_mut() } else { None }
    }

    fn join_search(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(search) => self.search = Some(search),
                Err(_) => {
                    error("the search thread failed; starting with a fresh table");
                    self.search = Some(Search::new(self.options.hash_mb));
                }
            }
        }
    }

    fn stop_search(&mut self) {
        if let Some(running) = &self.running {
            running.shared.release();
        }
        self.join_search();
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let setting = match options::parse_setting(name, value) {
            Ok(setting) => setting,
            Err(message) => return error(&message),
        };
        if !self.ensure_idle("setoption") {
            return;
        }
        let search = self.search.as_mut().expect("idle engine owns its search");
        let options = &mut self.options;
        match setting {
            Setting::Hash(mb) => match search.resize(mb) {
                Ok(()) => options.hash_mb = mb,
                Err(e) => error(&format!("{e}; keeping {} MB", options.hash_mb)),
            },
            Setting::Threads(n) => options.threads = n,
            Setting::MoveOverhead(ms) => options.move_overhead_ms = ms,
            Setting::MultiPv(n) => options.multipv = n,
            Setting::Ponder(on) => options.ponder = on,
            Setting::ClearHash => search.clear(),
            Setting::Chess960(on) => options.chess960 = on,
            Setting::ShowWdl(on) => options.show_wdl = on,
            Setting::LimitStrength(on) => options.limit_strength = on,
            Setting::Elo(elo) => options.elo = elo,
            Setting::EvalFile(path) => match load_network(&path) {
                Ok(net) => {
                    send(&format!("info string evaluation: {}", net.summary()));
                    self.net_hash.clone_from(&net.hash);
                    search.network = net;
                }
                Err(e) => {
                    error(&format!("EvalFile '{}': {e}; keeping {}", command::quote(&path), search.network.summary()))
                }
            },
            Setting::SyzygyPath(path) => {
                self.tablebases = None;
                if path.trim().is_empty() || path == options::NO_PATH {
                    send("info string syzygy: no tables");
                } else {
                    let (tables, notes) = Tablebases::load(&path);
                    for note in notes {
                        send(&format!("info string {note}"));
                    }
                    // `SharedState::with_syzygy` leaves out tables with nothing to probe.
                    self.tablebases = Some(Arc::new(tables));
                }
            }
            Setting::SyzygyProbeDepth(d) => options.syzygy_probe_depth = d,
            Setting::Syzygy50MoveRule(on) => options.syzygy_rule50 = on,
            Setting::SyzygyProbeLimit(n) => options.syzygy_probe_limit = n,
            Setting::Tunable(name, value) => {
                if let Err(message) = params::set(name, value) {
                    error(&message);
                }
            }
        }
    }

    /// Sets the position of the next `go`; a running search has its own copy
    /// and goes on undisturbed. A FEN is read forgivingly (`board::gui_fen`:
    /// each repair reported); a position that cannot be played is refused,
    /// and remembered, so that the next `go` says so instead of answering
    /// for the position before it.
    fn set_position(&mut self, start: Start, moves: &[String], line: &str) {
        let mut board = match start {
            Start::StartPos => {
                let mode = if self.options.chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
                Board::from_position(Chess::default(), mode)
            }
            Start::Fen(fen) => match gui_fen::read(&fen, self.options.chess960) {
                Ok((board, notes)) => {
                    for note in notes {
                        send(&format!("info string warning: {note}"));
                    }
                    board
                }
                Err(e) => return self.refuse_position(&format!("{e} ('{}')", command::quote(&fen)), line),
            },
            Start::Unreadable(why) => return self.refuse_position(&why, line),
        };
        for (i, text) in moves.iter().enumerate() {
            match board.parse_uci_move(text) {
                Ok(m) => board.push(m),
                Err(e) => {
                    // As Stockfish: play on from where the list went wrong.
                    // The position before it is the one the GUI and the
                    // engine last agreed on; an older one would have the
                    // other side to move.
                    error(&format!(
                        "{} (move {} of the list); the position is the one after the {i} moves before it",
                        command::quote(&e.to_string()),
                        i + 1
                    ));
                    break;
                }
            }
            // Moves before an irreversible one can never repeat: drop them so
            // long games don't grow the history without bound.
            if board.pos().halfmoves() == 0 {
                board.truncate_history();
            }
        }
        self.board = board;
        self.refused = None;
    }

    fn refuse_position(&mut self, why: &str, line: &str) {
        error(&format!("{why}; position refused: the next 'go' answers bestmove 0000 until a position is set"));
        self.refused = Some(command::quote(line.trim()));
    }

    fn go(&mut self, params: GoParams) {
        // A `go` during a search is answered after that search's own
        // `bestmove`: a bounded search is waited for, an unbounded one
        // stopped (nothing else would end it).
        if self.running.as_ref().is_some_and(Running::waits_for_word) {
            send("info string warning: 'go' during an infinite or ponder search: stopping that search first");
            self.stop_search();
        }
        self.join_search();
        let start = Instant::now();
        // One warning line a `go`, however many words it got wrong.
        if !params.warnings.is_empty() {
            send(&format!("info string warning: {}", cut(&params.warnings.join("; "))));
        }
        if let Some(line) = &self.refused {
            error(&format!("no position to search: '{line}' was refused"));
            send("bestmove 0000");
            return;
        }
        // What ends the search by itself: a depth, a node budget, a move
        // time, or the clock of the side to move (the other side's alone
        // does not).
        let white = self.board.turn().is_white();
        let (mut wtime, mut btime) = (params.limits.wtime, params.limits.btime);
        let (own_clock, other_clock) = if white { (&mut wtime, btime) } else { (&mut btime, wtime) };
        // A clock for the other side only: the side to move's own is missing,
        // taken as spent (a short search and a legal move), not as no clock.
        if own_clock.is_none() && other_clock.is_some() && params.limits.movetime.is_none() && !params.limits.infinite {
            let (own, other) = if white { ("wtime", "btime") } else { ("btime", "wtime") };
            send(&format!(
                "info string warning: go has {other} but no {own} for the side to move: its time taken as spent"
            ));
            *own_clock = Some(0);
        }
        let own_clock = if white { wtime } else { btime };
        let mut depth = params.limits.depth;
        let mut bounded =
            depth.is_some() || params.limits.nodes.is_some() || params.limits.movetime.is_some() || own_clock.is_some();
        // Words that bound nothing by themselves (an increment or moves to go
        // without a clock, or words not understood): the README's rule, a
        // search to depth 10, not a search until `stop` the GUI never sends.
        let half_given =
            params.limits.winc.is_some() || params.limits.binc.is_some() || params.limits.movestogo.is_some();
        if (params.ignored || half_given) && !bounded && !params.limits.infinite {
            send(&format!("info string warning: no limit understood in 'go'; searching to depth {FALLBACK_DEPTH}"));
            depth = Some(FALLBACK_DEPTH);
            bounded = true;
        }
        let unbounded = params.limits.infinite || !bounded;
        let mut searchmoves = Vec::new();
        for text in &params.limits.searchmoves {
            match self.board.parse_uci_move(text) {
                Ok(m) if !searchmoves.contains(&m) => searchmoves.push(m),
                Ok(_) => {}
                Err(e) => send(&format!("info string warning: go searchmoves: {e}; dropped")),
            }
        }
        if searchmoves.is_empty() && !params.limits.searchmoves.is_empty() {
            send("info string warning: go searchmoves: no legal move given; searching every move");
        }
        let mut limits = Limits { depth, wtime, btime, ..params.limits }.with_searchmoves(searchmoves);
        // Limited strength: a node budget whatever the clock, several lines,
        // and one of them drawn after the search.
        let handicap = self.options.limit_strength.then(|| Handicap::for_elo(self.options.elo));
        let mut search_options = SearchOptions {
            threads: self.options.threads,
            multipv: self.options.multipv,
            shown_lines: self.options.multipv,
            show_wdl: self.options.show_wdl,
            info: true,
        };
        if let Some(h) = handicap {
            limits.nodes = Some(limits.nodes.map_or(h.nodes, |n| n.min(h.nodes)));
            search_options.multipv = search_options.multipv.max(h.candidates);
        }
        let mut rng = Rng::new(self.seeds.next_u64());
        let time = TimeManager::new(start, &limits, self.board.turn(), self.options.move_overhead_ms);
        let syzygy = self.tablebases.as_ref().map(|tables| Syzygy {
            tables: Arc::clone(tables),
            probe_depth: self.options.syzygy_probe_depth,
            rule50: self.options.syzygy_rule50,
            probe_limit: self.options.syzygy_probe_limit,
        });
        let shared = Arc::new(SharedState::new(self.options.threads, &limits, time).with_syzygy(syzygy));
        let mut search = self.search.take().expect("idle engine owns its search");
        let board = self.board.clone();
        let thread_shared = Arc::clone(&shared);
        let hash_mb = self.options.hash_mb;
        let running_limits = limits.clone();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || {
                let network = Arc::clone(&search.network);
                // A bug in the search must not leave the GUI waiting for a
                // move forever: catch it, answer with a legal move, and go on
                // with a fresh search (its tables may be half-updated).
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    search.run(&board, &limits, search_options, &thread_shared, &|line: &str| send(line))
                }));
                let (lines, search) = match run {
                    Ok(result) => {
                        let (best, ponder) = match handicap.and_then(|h| h.pick(&result.lines, &mut rng)) {
                            Some((best, ponder)) => (Some(best), ponder),
                            None => (result.best, result.ponder),
                        };
                        (vec![bestmove_line(&board, best, ponder)], search)
                    }
                    Err(payload) => {
                        thread_shared.wait_for_release(&limits);
                        let mut fresh = Search::new(hash_mb);
                        fresh.network = network;
                        (search_failed_lines(&board, payload.as_ref()), fresh)
                    }
                };
                for line in lines {
                    send(&line);
                }
                search
            })
            .expect("spawn search thread");
        self.running = Some(Running { handle, shared, limits: running_limits, unbounded });
    }
}

/// A seed that differs from session to session (a limited engine should not
/// repeat its mistakes game after game).
fn session_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

fn bestmove_line(board: &Board, best: Option<Move>, ponder: Option<Move>) -> String {
    let Some(best) = best else { return "bestmove 0000".into() };
    let mut after = board.clone();
    after.push(best);
    match ponder {
        Some(p) => format!("bestmove {} ponder {}", board.uci(best), after.uci(p)),
        None => format!("bestmove {}", board.uci(best)),
    }
}

/// The board as eight ranks of piece letters (`.` for an empty square),
/// White's side at the bottom, with the files and ranks named.
fn board_diagram(board: &Board) -> Vec<String> {
    use shakmaty::{File, Rank, Square};
    let mut lines = vec!["   +-----------------+".to_string()];
    for rank in Rank::ALL.into_iter().rev() {
        let mut line = format!(" {} |", rank.char());
        for file in File::ALL {
            let piece = board.pos().board().piece_at(Square::from_coords(file, rank));
            line.push(' ');
            line.push(piece.map_or('.', |p| p.char()));
        }
        line.push_str(" |");
        lines.push(line);
    }
    lines.push("   +-----------------+".to_string());
    lines.push("     a b c d e f g h".to_string());
    lines
}

/// What the engine says after its search thread panicked: the reason, and
/// a legal move so that the game goes on.
fn search_failed_lines(board: &Board, payload: &(dyn std::any::Any + Send)) -> Vec<String> {
    let why = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    let fallback = board.pos().legal_moves().first().copied();
    vec![
        format!("info string error: the search failed ({why}); playing a legal move, tables cleared"),
        bestmove_line(board, fallback, None),
    ]
}

/// The network `EvalFile` names: `<embedded>` (or nothing) for the built-in
/// one; a file must match the feature set and shape this engine was built for.
fn load_network(path: &str) -> Result<Arc<Network>, String> {
    if path.is_empty() || path == options::EMBEDDED_NET {
        return Ok(crate::nnue::embedded::default_network());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let net = Network::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let (features, shape) = crate::nnue::embedded::compiled_kind();
    net.check_same_kind(features, shape).map_err(|e| e.to_string())?;
    Ok(Arc::new(net))
}

/// Runs the protocol on stdin/stdout.
pub fn run_stdio() {
    let stdin = std::io::stdin();
    let mut engine = Engine::default();
    send(&format!(
        "info string evaluation: {}",
        engine
            .search
            .as_ref()
            .map_or_else(|| crate::nnue::embedded::default_network().summary(), |s| s.network.summary())
    ));
    send(&format!("info string build: {}, kernels: {}", crate::cpu_level::LEVEL, crate::simd::summary()));
    engine.run(stdin.lock());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines made of UCI words, numbers and junk: closer to what breaks a
    /// parser than uniformly random text.
    fn uci_words() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            Just("position".to_string()),
            Just("startpos".to_string()),
            Just("fen".to_string()),
            Just("moves".to_string()),
            Just("setoption".to_string()),
            Just("name".to_string()),
            Just("value".to_string()),
            Just("Hash".to_string()),
            Just("Threads".to_string()),
            Just("MultiPV".to_string()),
            Just("e2e4".to_string()),
            Just("e7e5".to_string()),
            Just("8/8/8/8/8/8/8/8".to_string()),
            Just("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".to_string()),
            Just("w".to_string()),
            Just("KQkq".to_string()),
            Just("-".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            "[a-h][1-8][a-h][1-8][qrbn]?",
            "\\PC{0,12}",
        ];
        prop::collection::vec(word, 0..14).prop_map(|w| w.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Any text: the parser answers, it never panics.
        #[test]
        fn any_line_parses_or_is_refused(line in "\\PC{0,200}") {
            let _ = command::parse(&line);
        }

        /// `position` and `setoption` lines built from UCI words: handled
        /// without a panic; a refused line leaves the position as it was.
        #[test]
        fn refused_lines_keep_the_state(line in uci_words()) {
            let mut engine = Engine::default();
            engine.handle_line("position startpos moves e2e4");
            let before = engine.board.fen();
            let line = if line.starts_with("setoption") || line.starts_with("position") { line } else { format!("position {line}") };
            engine.handle_line(&line);
            let after = engine.board.fen();
            // Either the line set a new position, or the old one stands.
            if after != before {
                prop_assert!(line.starts_with("position"));
            }
            // The engine still works: a legal position and a quick search.
            prop_assert!(Board::from_fen(&after, false).is_ok() || Board::from_fen(&after, true).is_ok());
        }
    }

    #[test]
    fn a_failed_search_still_answers_with_a_legal_move() {
        let board = Board::from_fen("7k/8/8/8/8/8/6PP/7K w - - 0 1", false).unwrap();
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("index out of bounds"));
        let lines = search_failed_lines(&board, payload.as_ref());
        assert!(lines[0].starts_with("info string error: the search failed (index out of bounds)"), "{lines:?}");
        let mv = lines[1].strip_prefix("bestmove ").expect("a bestmove line");
        assert!(board.parse_uci_move(mv).is_ok(), "{mv} is legal");
        // Where there is no legal move, the null move, as after a normal search.
        let mated = Board::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
        assert_eq!(search_failed_lines(&mated, payload.as_ref())[1], "bestmove 0000");
    }
}

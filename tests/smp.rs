//! Lazy SMP: several threads sharing one table give legal moves and scores
//! close to one thread's on the bench positions, and a stop ends them all.
//! `cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu --test smp`
//! with `RUSTFLAGS=-Zsanitizer=thread` runs this file under ThreadSanitizer.

use std::time::{Duration, Instant};

use shakmaty::Position;
use tessera::board::Board;
use tessera::search::limits::Limits;
use tessera::search::score::is_mate;
use tessera::search::time::TimeManager;
use tessera::search::{Search, SearchOptions, SharedState};

fn search(board: &Board, threads: usize, limits: &Limits) -> tessera::search::SearchResult {
    let options = SearchOptions { threads, multipv: 1, ..SearchOptions::default() };
    search_with(board, limits, options, &|_: &str| {})
}

/// A search with a fresh table, these options and this reader of its lines.
fn search_with(
    board: &Board,
    limits: &Limits,
    options: SearchOptions,
    report: &(dyn Fn(&str) + Sync),
) -> tessera::search::SearchResult {
    let mut search = Search::new(16);
    let time = TimeManager::new(Instant::now(), limits, board.turn(), 0);
    let shared = SharedState::new(options.threads, limits, time);
    search.run(board, limits, options, &shared, report)
}

#[test]
fn two_threads_give_legal_moves_and_sane_scores() {
    let depth = if cfg!(debug_assertions) { 4 } else { 7 };
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    for fen in tessera::bench::POSITIONS.iter().step_by(5) {
        let board = Board::from_fen(fen, false).unwrap();
        let one = search(&board, 1, &limits);
        let two = search(&board, 2, &limits);
        let best = two.best.expect("a legal move");
        assert!(board.pos().legal_moves().contains(&best), "{fen}: {best:?}");
        assert!(two.depth >= depth, "{fen}: depth {}", two.depth);
        // Helpers change the tree, not the verdict: same sign of mate, and
        // ordinary scores within a few pawns.
        if is_mate(one.score) || is_mate(two.score) {
            assert_eq!(one.score.signum(), two.score.signum(), "{fen}: {} vs {}", one.score, two.score);
        } else {
            assert!((one.score - two.score).abs() <= 300, "{fen}: {} vs {}", one.score, two.score);
        }
    }
}

#[test]
fn a_stop_ends_every_thread() {
    let board = Board::from_fen(tessera::bench::POSITIONS[1], false).unwrap();
    let limits = Limits { infinite: true, ..Limits::default() };
    let mut search = Search::new(16);
    let time = TimeManager::new(Instant::now(), &limits, board.turn(), 0);
    let shared = SharedState::new(2, &limits, time);
    let options = SearchOptions { threads: 2, multipv: 1, ..SearchOptions::default() };
    std::thread::scope(|scope| {
        let running = scope.spawn(|| search.run(&board, &limits, options, &shared, &|_: &str| {}));
        std::thread::sleep(Duration::from_millis(300));
        let stopped = Instant::now();
        // The GUI's `stop` (an infinite search waits for it, not for the
        // internal stop flag that a node budget also raises).
        shared.release();
        let result = running.join().unwrap();
        // Generous: a loaded 2-core machine can delay the join; a thread that
        // missed the stop would run on until the test's own timeout.
        assert!(stopped.elapsed() < Duration::from_secs(5), "{:?} after stop", stopped.elapsed());
        assert!(board.pos().legal_moves().contains(&result.best.unwrap()));
    });
}

/// On a thread of `with_search_stack` a one-thread search runs on that very
/// thread (its `info` lines come from it) and finds what a search on a
/// thread of its own finds; two threads still start their own.
#[test]
fn one_thread_searches_run_inline_on_a_search_stack() {
    let limits = Limits { nodes: Some(20_000), ..Limits::default() };
    let run = |threads: usize, board: &Board| {
        let options = SearchOptions { threads, multipv: 1, info: true, ..SearchOptions::default() };
        let reporters = std::sync::Mutex::new(std::collections::HashSet::new());
        let report = |_: &str| {
            reporters.lock().unwrap().insert(std::thread::current().id());
        };
        let result = search_with(board, &limits, options, &report);
        let on_caller = reporters.into_inner().unwrap() == [std::thread::current().id()].into();
        (result.best, result.score, result.nodes, on_caller)
    };
    for fen in tessera::bench::POSITIONS.iter().step_by(10) {
        let board = Board::from_fen(fen, false).unwrap();
        let spawned = run(1, &board);
        let inline = tessera::search::with_search_stack(|| run(1, &board));
        assert!(!spawned.3 && inline.3, "{fen}: inline only on a search stack");
        assert_eq!((spawned.0, spawned.1, spawned.2), (inline.0, inline.1, inline.2), "{fen}");
        let two = tessera::search::with_search_stack(|| run(2, &board));
        assert!(!two.3, "{fen}: two threads are started as before");
    }
}

/// A search asked for no `info` lines reports none and finds exactly what
/// the same search that reports them finds (the lines are only formatted,
/// never read by the search).
#[test]
fn a_search_without_info_lines_reports_none_and_finds_the_same() {
    let limits = Limits { nodes: Some(5_000), ..Limits::default() };
    let run = |info: bool, board: &Board| {
        let options = SearchOptions { threads: 1, multipv: 2, info, ..SearchOptions::default() };
        let lines = std::sync::Mutex::new(0);
        let result = search_with(board, &limits, options, &|_: &str| *lines.lock().unwrap() += 1);
        (result.best, result.score, result.nodes, result.lines, lines.into_inner().unwrap())
    };
    for fen in tessera::bench::POSITIONS.iter().step_by(7) {
        let board = Board::from_fen(fen, false).unwrap();
        let (quiet, told) = (run(false, &board), run(true, &board));
        assert_eq!(quiet.4, 0, "{fen}: no line without info");
        assert!(told.4 > 0, "{fen}: lines with info");
        assert_eq!((quiet.0, quiet.1, quiet.2, quiet.3), (told.0, told.1, told.2, told.3), "{fen}");
    }
}

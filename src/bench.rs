//! `tessera bench`: a fixed search over a fixed set of positions, the
//! node count of which identifies the search (OpenBench's convention).

use std::sync::Arc;
use std::time::Instant;

use crate::board::Board;
use crate::nnue::network::Network;
use crate::search::limits::Limits;
use crate::search::time::TimeManager;
use crate::search::{Search, SearchOptions, SharedState};

/// About 10 M nodes with the default net: well under a minute, as OpenBench wants.
pub const DEFAULT_DEPTH: i32 = 13;
const BENCH_HASH_MB: usize = 16;

/// Openings, middlegames and endgames sampled from Lichess games, tactics from
/// Lichess puzzles, and a few classic test positions.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // start
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", // perft "kiwipete"
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                // perft position 3
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", // perft position 4
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",                  // pawn endgame with a deep win
    "rn2kb1r/ppp2ppp/4pn2/q4b2/2B5/2N2N2/PPPP1PPP/R1BQ1RK1 w kq - 0 7", // opening
    "r3kbnr/ppp1pppp/5q2/3N4/2Pn2b1/P4N2/1P1PQPPP/R1B1KB1R b KQkq - 4 8", // opening
    "r2qkb1r/pp3ppp/2n1p1n1/3pP3/3p1Pb1/2P2N2/PP2B1PP/RNBQ1RK1 w kq - 0 9", // opening
    "r1bq1rk1/1ppnnpbp/p2pp1pB/8/3PP3/2NB1N2/PPPQ1PPP/R3K2R w KQ - 2 9", // opening
    "r1bq1rk1/pp1pnpbp/2n1p1p1/2p5/2B1P3/P1NP1N2/1PP2PPP/R1BQR1K1 b - - 0 8", // opening
    "rn3rk1/ppq2ppp/2pbpn2/3pNb2/3P1B2/2P1PN2/PP3PPP/R2QKB1R w KQ - 8 9", // opening
    "rnbqk2r/ppp2ppp/3b1n2/3p4/3P4/3B1N2/PPP2PPP/RNBQ1RK1 b kq - 5 6", // opening
    "r1bq1rk1/1p1pppbp/p1n2np1/1B6/3NP3/P1N1B3/1PP2PPP/R2QK2R w KQ - 0 9", // opening
    "r2qkb1r/pp2nppp/2n1p3/2ppP3/5Pb1/5N2/PPPPB1PP/RNBQ1RK1 w kq - 2 7", // opening
    "r1bqk2r/pp1pbppp/2n1pn2/8/4P3/1NN1B3/PPPQ1PPP/R3KB1R w KQkq - 6 9", // opening
    "1k1r1b1r/pp5p/3p3n/1npN1B2/8/2P4P/PP3PP1/R1B2RK1 w - - 3 18", // middlegame
    "2r1r1k1/pp1qbppp/5n2/5pB1/3P1N2/3Q1P2/PP4PP/R3R2K b - - 5 20", // middlegame
    "6k1/1r3p1p/4p1p1/p1Bp4/P2P4/1rPbPP2/5KPP/R1R5 w - - 0 23", // middlegame
    "r4rk1/p1pqb1pp/2pppn2/8/4P3/2N2PQ1/PPP3PP/R1B2RK1 w - - 0 13", // middlegame
    "2rqnrk1/4bpp1/4p1bp/p3P3/1pPB4/1N1n1NP1/P4PBP/2RQR1K1 w - - 3 21", // middlegame
    "r4rk1/1ppqbppp/p1n1p3/3b4/3P1B2/2PB1N1Q/PP4PP/R4RK1 b - - 5 15", // middlegame
    "Q1b2rk1/p4pn1/1p2p1p1/4N3/3P3q/P1PBB3/5PPP/R4RK1 b - - 2 18", // middlegame
    "r4rk1/pp1n1ppp/1q2pn2/2bp2B1/2P5/1P1QPN2/P2N1PPP/R4RK1 b - - 2 11", // middlegame
    "2r2rk1/2nqbp1p/2n1p1p1/ppp1P3/2PpBPQ1/1P1P3P/P5P1/RNB2RK1 b - - 1 19", // middlegame
    "r5nr/1p1nk1pp/p2bpp2/2p3B1/4P3/2N2N2/PPP2PPP/R2R2K1 w - - 0 12", // middlegame
    "2kr1b1r/ppp1pppp/8/7q/3n2b1/3BRN2/PPPB1PPP/R2Q2K1 b - - 7 13", // middlegame
    "4rrk1/p1p3pp/bp1b2q1/3P1p2/2P4B/1P3N2/P1Q2PPP/R3R1K1 b - - 0 18", // middlegame
    "r1b2rk1/3nqpp1/2n1p2p/3pP3/pppP4/2P3NN/PPBQ1PPP/R4RK1 b - - 1 17", // middlegame
    "r3kb1Q/p3p2p/2pq1pp1/8/8/3BnP1b/PPP4P/RN2K2R w KQq - 0 16", // middlegame
    "r1b2k1r/2q3pp/p1n5/1p5B/3P2n1/BQP2N2/P4PPP/R3K2R b KQ - 1 15", // middlegame
    "6r1/8/4R1P1/3k1PK1/8/8/8/8 w - - 3 56",                    // endgame
    "8/6k1/4KNp1/6PP/7P/8/8/8 b - - 0 71",                      // endgame
    "8/7k/6p1/5pp1/1P1R4/1q6/5K2/8 w - - 0 47",                 // endgame
    "8/5Qpk/4p1p1/5q2/7P/1p3P1K/6P1/8 w - - 3 42",              // endgame
    "8/8/3b1p2/1K3P2/1p5p/1Pp1k2P/P1B5/8 w - - 7 57",           // endgame
    "7r/2P5/8/2R3pk/8/4B1P1/7K/8 w - - 2 53",                   // endgame
    "8/6pp/R1P2pk1/8/p2r2P1/7P/6K1/8 b - - 0 42",               // endgame
    "8/8/p3k1N1/1p3p1p/1P1KbP1P/P7/8/8 w - - 8 52",             // endgame
    "8/3bP3/p5R1/1k4P1/1P1K1P2/2P5/8/8 w - - 1 41",             // endgame
    "7k/4p2p/3pK3/n6P/1p3P2/2q5/8/8 b - - 2 45",                // endgame
    "6k1/6P1/8/1p6/p1bp4/P7/1P6/K5R1 w - - 1 51",               // endgame
    "8/8/3R4/4k1K1/7P/8/8/5r2 w - - 6 54",                      // endgame
    "7k/q1r2p1p/1p4p1/8/8/4R1PP/5PB1/4R1K1 w - - 0 35",         // tactic
    "8/5pp1/1R3r1p/Pp6/4k3/7P/6PK/8 w - - 0 43",                // tactic
    "r4rk1/2p2pp1/3b2p1/5q1P/8/1P2BB2/2Q2PP1/2KR3R b - - 4 27", // tactic
    "r1b1kb1r/5ppp/pqNp1n2/8/Q3P3/8/PP3PPP/RNB2RK1 b kq - 2 11", // tactic
    "r1b2k1r/pp3ppp/1qp2n2/2nP4/5P2/2N1QN2/PPP3PP/2KR1B1R b - - 3 12", // tactic
    "r1b2r2/ppq1k3/2n1ppR1/3p3Q/3P4/2P5/PP3PPP/RN4K1 w - - 3 20", // tactic
    "4r1k1/3R1pbp/8/3N1n2/4r3/6P1/7P/4R1K1 w - - 0 27",         // tactic
    "8/pp2Qpk1/6p1/3Pn2r/q7/3B1NK1/PP6/8 w - - 0 35",           // tactic
    "3r4/ppq3k1/2pr1p1p/5Pp1/1P6/1B4Q1/P2RP2P/3R2K1 b - - 1 29", // tactic
];

pub struct BenchReport {
    pub nodes: u64,
    pub nps: u64,
}

/// Searches every position to `depth` on one thread with a fresh table.
pub fn run(depth: i32, progress: impl FnMut(usize, &str, u64)) -> BenchReport {
    run_with(crate::nnue::embedded::default_network(), depth, progress)
}

/// The bench with another network (or the same one on other kernels).
pub fn run_with(network: Arc<Network>, depth: i32, progress: impl FnMut(usize, &str, u64)) -> BenchReport {
    run_threads(network, depth, 1, progress)
}

/// The bench on `threads` search threads (Lazy SMP): a speed measurement
/// only, since the node count of several threads varies from run to run.
pub fn run_threads(
    network: Arc<Network>,
    depth: i32,
    threads: usize,
    mut progress: impl FnMut(usize, &str, u64),
) -> BenchReport {
    let threads = threads.max(1);
    let mut search = Search::new(BENCH_HASH_MB);
    search.network = network;
    let options = SearchOptions { threads, multipv: 1, ..SearchOptions::default() };
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    let start = Instant::now();
    let mut nodes = 0;
    for (i, fen) in POSITIONS.iter().enumerate() {
        let board = Board::from_fen(fen, false).expect("bench positions are valid");
        let time = TimeManager::new(Instant::now(), &limits, board.turn(), 0);
        let shared = SharedState::new(threads, &limits, time);
        let result = search.run(&board, &limits, options, &shared, &|_: &str| {});
        nodes += result.nodes;
        progress(i, fen, result.nodes);
    }
    let seconds = start.elapsed().as_secs_f64().max(1e-3);
    BenchReport { nodes, nps: (nodes as f64 / seconds) as u64 }
}

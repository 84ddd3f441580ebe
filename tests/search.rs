//! Search behaviour: mates found with the right distance, draws scored 0,
//! and a bench whose node count never changes.

use std::process::Command;

use tessera::board::Board;
use tessera::search::score::{DRAW, mate_in_moves};
use tessera::search::search_depth;

fn best(fen: &str, depth: i32) -> (String, i32) {
    let board = Board::from_fen(fen, false).unwrap();
    let result = search_depth(&board, depth, 16);
    (board.uci(result.best.expect("a legal move exists")), result.score)
}

#[test]
fn mate_in_one() {
    let (m, score) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 6);
    assert_eq!(m, "d1d8");
    assert_eq!(mate_in_moves(score), Some(1));
}

#[test]
fn mate_in_two() {
    let (m, score) = best("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 8);
    assert_eq!(m, "g2g1");
    assert_eq!(mate_in_moves(score), Some(2));
}

#[test]
fn mate_in_three() {
    let (m, score) = best("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 10);
    assert_eq!(m, "f6a6");
    assert_eq!(mate_in_moves(score), Some(3));
    let (_, score) = best("2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", 10);
    assert_eq!(mate_in_moves(score), Some(3));
}

#[test]
fn being_mated_is_negative_mate() {
    // White to move, mated next move whatever it plays.
    let (_, score) = best("7K/8/5k2/8/8/8/8/6q1 w - - 0 1", 6);
    assert_eq!(mate_in_moves(score), Some(-1));
}

#[test]
fn draws_score_zero() {
    // A rook up, but the 100th reversible half-move ends the game first.
    let (_, score) = best("8/8/4k3/8/8/3K4/7R/8 w - - 99 90", 8);
    assert_eq!(score, DRAW);
    // Bishop and king cannot mate.
    let (_, score) = best("8/8/4k3/8/8/3KB3/8/8 w - - 0 1", 8);
    assert_eq!(score, DRAW);
    // Stalemate: black has no move.
    let board = Board::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
    let result = search_depth(&board, 4, 16);
    assert!(result.best.is_none());
    assert_eq!(result.score, DRAW);
}

fn bench_line(depth: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera")).args(["bench", depth]).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().last().expect("bench prints a line").to_string()
}

#[test]
fn bench_node_count_is_reproducible() {
    let parse = |line: &str| {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 4, "'{line}'");
        assert_eq!((fields[1], fields[3]), ("nodes", "nps"), "'{line}'");
        let nodes: u64 = fields[0].parse().unwrap();
        let _nps: u64 = fields[2].parse().unwrap();
        nodes
    };
    let first = parse(&bench_line("9"));
    let second = parse(&bench_line("9"));
    assert!(first > 10_000);
    assert_eq!(first, second);
}

/// The portable build (`--features portable`) runs the scalar kernels only;
/// they must search exactly the same tree as the AVX2 ones.
#[test]
fn bench_node_count_is_the_same_on_the_scalar_kernels() {
    use std::sync::Arc;
    use tessera::nnue::network::Network;
    let kernels = |scalar: bool| {
        let mut net = Network::from_bytes(tessera::nnue::embedded::bytes()).unwrap();
        net.force_scalar(scalar);
        tessera::bench::run_with(Arc::new(net), 7, |_, _, _| {}).nodes
    };
    let scalar = kernels(true);
    assert!(scalar > 10_000);
    assert_eq!(scalar, kernels(false));
}

#[test]
fn version_names_the_embedded_net() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera")).arg("--version").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let hash = tessera::nnue::embedded::default_network().summary();
    let hash = hash.rsplit(' ').next().unwrap();
    assert_eq!(hash.len(), 12);
    assert!(text.starts_with(&format!("tessera {} net {hash} (", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(text.trim_end().ends_with(&format!(" for {}", tessera::cpu_level::LEVEL)), "{text}");
    assert_eq!(tessera::uci::engine_name(hash), format!("Tessera {} {hash}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn the_changelog_opens_with_this_version() {
    let changelog = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CHANGELOG.md")).unwrap();
    // Changes since the last release are listed first, under "Unreleased".
    let first =
        changelog.lines().find(|l| l.starts_with("## ") && !l.starts_with("## Unreleased")).expect("a version heading");
    assert!(first.starts_with(&format!("## {} ", env!("CARGO_PKG_VERSION"))), "{first}");
}

/// `TESSERA_SIMD` caps the kernels at run time: every level searches the same
/// tree (bit-identical kernels), `bench` says which ran, and a value it does
/// not know is reported and ignored.
#[test]
fn every_forced_kernel_level_searches_the_same_tree() {
    let bench = |simd: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
        command.args(["bench", "5"]);
        if let Some(level) = simd {
            command.env("TESSERA_SIMD", level);
        }
        let out = command.output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let nodes = stdout.lines().last().unwrap().split(' ').next().unwrap().to_string();
        let kernels = stderr.lines().find_map(|l| l.strip_prefix("kernels: ")).unwrap().to_string();
        (nodes, kernels)
    };
    let (nodes, native) = bench(None);
    for level in ["scalar", "avx2", "avxvnni", "avx512"] {
        let (n, kernels) = bench(Some(level));
        assert_eq!(n, nodes, "{level}: {kernels}");
        assert!(kernels.contains(&format!("(TESSERA_SIMD={level}")), "{kernels}");
    }
    assert!(bench(Some("scalar")).1.starts_with("scalar "));
    let (n, kernels) = bench(Some("sse9"));
    assert_eq!(n, nodes);
    assert!(
        kernels.starts_with(native.split(' ').next().unwrap()) && kernels.contains("'sse9' is not one of"),
        "{kernels}"
    );
}

/// The README's table of the strength limit's settings is the one the code
/// prints (`tessera strength-table`), so a changed calibration cannot leave
/// it behind.
#[test]
fn the_readme_strength_table_is_the_codes() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera")).arg("strength-table").output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().count() > 5 && table.contains("| 2500 | "), "{table}");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains(&table), "README.md's strength table differs from `tessera strength-table`:\n{table}");
}

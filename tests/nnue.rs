//! The network inside the engine: accumulators that follow make/unmake
//! exactly, EvalFile at run time, and a build with TESSERA_NET.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use shakmaty::Position;

use tessera::board::Board;
use tessera::features::FeatureSet;
use tessera::nnue::format::Shape;
use tessera::nnue::network::{FloatNetwork, Network};
use tessera::testing::XorShift;

fn random_net(expr: &str, ft: usize, hidden: usize, seed: u64) -> Vec<u8> {
    let fs: FeatureSet = expr.parse().unwrap();
    FloatNetwork::random(&fs, ft, hidden, 0, seed).quantize(&format!("random {expr} for tests")).to_bytes()
}

/// A random net of exactly `shape` (pairwise or plain, with or without buckets).
fn random_net_shaped(expr: &str, shape: Shape, seed: u64) -> Vec<u8> {
    let fs: FeatureSet = expr.parse().unwrap();
    FloatNetwork::random_bucketed(&fs, shape, seed).quantize(&format!("random {expr} for tests")).to_bytes()
}

/// A random net with 8 output buckets.
fn random_bucketed_net(expr: &str, ft: usize, hidden: usize, seed: u64) -> Vec<u8> {
    let fs: FeatureSet = expr.parse().unwrap();
    let shape = Shape::new(fs.size(), ft, hidden, 0, 8);
    FloatNetwork::random_bucketed(&fs, shape, seed).quantize("random bucketed net for tests").to_bytes()
}

/// A random pairwise net (the feature transformer's halves multiplied).
fn random_pairwise_net(expr: &str, ft: usize, hidden: usize, seed: u64) -> Vec<u8> {
    let fs: FeatureSet = expr.parse().unwrap();
    let shape = Shape { pairwise: true, ..Shape::new(fs.size(), ft, hidden, 0, 1) };
    let mut net = FloatNetwork::random_bucketed(&fs, shape, seed);
    // Lifted so that both factors of most products are active.
    net.ft_bias.iter_mut().for_each(|b| *b += 0.4);
    net.quantize("random pairwise net for tests").to_bytes()
}

/// Writes a random net file; run with `--ignored` to make one by hand:
/// `TESSERA_RANDOM_NET=/tmp/all.nnue TESSERA_RANDOM_FEATURES=all cargo test --release --test nnue -- --ignored`.
#[test]
#[ignore]
fn write_random_net() {
    let path = std::env::var("TESSERA_RANDOM_NET").expect("set TESSERA_RANDOM_NET");
    let expr = std::env::var("TESSERA_RANDOM_FEATURES").unwrap_or_else(|_| "all".into());
    let ft: usize = std::env::var("TESSERA_RANDOM_FT").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    std::fs::write(path, random_net(&expr, ft, 32, 1)).unwrap();
}

#[test]
fn accumulators_follow_push_and_pop_exactly() {
    for (expr, bucketed) in [
        ("all", false),
        ("ka", false),
        ("all+ph+pv", false),
        ("mb+mc+kp", false),
        ("pm", false),
        ("rk-hv+d1+d2", false),
        ("kb4", true),
        ("kb16", false),
        ("kp+pm", true),
    ] {
        let bytes = if bucketed { random_bucketed_net(expr, 32, 8, 3) } else { random_net(expr, 32, 8, 3) };
        let net = Arc::new(Network::from_bytes(&bytes).unwrap());
        let mut board =
            Board::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", false).unwrap();
        board.attach_network(net.clone());
        let mut random = XorShift(99);
        let mut depth = 0;
        for step in 0..400 {
            let rng = random.next_u64();
            let moves = board.pos().legal_moves();
            if moves.is_empty() || (depth > 0 && rng.is_multiple_of(5)) {
                board.pop();
                depth -= 1;
            } else if step % 37 == 0 && !board.in_check() && board.push_null() {
                depth += 1;
            } else {
                board.push(moves[(rng >> 16) as usize % moves.len()]);
                depth += 1;
            }
            assert_eq!(board.nnue_evaluate(), Some(net.evaluate_position(board.pos())), "{expr} at {}", board.fen());
        }
    }
}

/// The accumulators are lazy: evaluating only now and then, after several
/// pushes, after pops back past uncomputed plies, or after a null move, must
/// give what a refresh gives. Also with a width that is not a multiple of the
/// AVX2 kernel's tile.
#[test]
fn lazy_accumulators_catch_up_across_unevaluated_plies() {
    for (expr, ft) in [("all", 128), ("ka", 32), ("all+ph+pv", 40), ("pm", 32)] {
        let net = Arc::new(Network::from_bytes(&random_net(expr, ft, 8, 5)).unwrap());
        let mut board = Board::default();
        board.attach_network(net.clone());
        let mut random = XorShift(7);
        let mut depth = 0;
        let mut evaluated = 0;
        for step in 0..2000 {
            let rng = random.next_u64();
            let moves = board.pos().legal_moves();
            if moves.is_empty() || (depth > 0 && rng.is_multiple_of(3)) {
                // Pop one to three plies at a time.
                for _ in 0..=(rng >> 20) % 3 {
                    if depth > 0 {
                        board.pop();
                        depth -= 1;
                    }
                }
            } else if step % 29 == 0 && !board.in_check() && board.push_null() {
                depth += 1;
            } else {
                board.push(moves[(rng >> 16) as usize % moves.len()]);
                depth += 1;
            }
            if (rng >> 30).is_multiple_of(4) {
                evaluated += 1;
                assert_eq!(
                    board.nnue_evaluate(),
                    Some(net.evaluate_position(board.pos())),
                    "{expr} at {}",
                    board.fen()
                );
            }
        }
        assert!(evaluated > 300, "{expr}: only {evaluated} evaluations");
    }
}

fn uci_session(args: &[&str], input: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn eval_file_loads_at_run_time_and_bad_files_keep_the_current_net() {
    let dir_tmp = tempfile::tempdir().unwrap();
    let dir = dir_tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    // A net of the compiled kind (the default net's feature set, sizes and activation).
    let (features, shape) = tessera::nnue::embedded::compiled_kind();
    let good_bytes = random_net_shaped(features, shape, 5);
    let good_hash = Network::from_bytes(&good_bytes).unwrap().hash;
    let good = dir.join("good.nnue");
    std::fs::write(&good, &good_bytes).unwrap();
    let other_shape = dir.join("other-shape.nnue");
    std::fs::write(&other_shape, random_net(features, 64, 16, 5)).unwrap();
    let corrupt = dir.join("corrupt.nnue");
    let mut bytes = good_bytes.clone();
    bytes.truncate(bytes.len() - 100);
    std::fs::write(&corrupt, bytes).unwrap();
    let input = format!(
        "setoption name EvalFile value {}\nsetoption name EvalFile value {}\nsetoption name EvalFile value {}\n\
         setoption name EvalFile value /nonexistent.nnue\nposition startpos\ngo depth 4\n",
        good.display(),
        other_shape.display(),
        corrupt.display()
    );
    // Give the search time to answer before input ends.
    let out = uci_session(&[], &(input + "isready\n"), &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.contains(&format!("info string evaluation: net {features} {shape} hash {good_hash}")), "{out}");
    assert!(out.contains("other-shape.nnue': net is"), "{out}");
    assert!(out.contains("but this engine was built for"), "{out}");
    assert!(out.contains("corrupt.nnue': corrupt net file: checksum"), "{out}");
    assert!(out.contains(&format!("keeping net {features} {shape} hash {good_hash}")), "{out}");
    assert!(out.contains("/nonexistent.nnue': cannot read it"), "{out}");
    assert!(out.contains("bestmove "), "{out}");
}

/// OpenBench's build, `make EXE=… EVALFILE=…`, in a target folder of its own
/// (the one `cargo test` runs from is locked while tests run), without LTO
/// or optimisation to keep the test short.
fn openbench_make(target: &std::path::Path, net: &std::path::Path, exe: &std::path::Path) -> std::process::Output {
    Command::new("make")
        .args(["--no-print-directory", "-s"])
        .arg(format!("EXE={}", exe.display()))
        .arg(format!("EVALFILE={}", net.display()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1")
        .output()
        .unwrap()
}

/// `make EXE=… EVALFILE=…` (OpenBench) and so `TESSERA_NET=… cargo build`
/// embed that net, and `--version` names it; a damaged net fails the build
/// with a message naming the file and the cause. The net is a pairwise one,
/// so that the evaluation compiled for its sizes (the build's) is checked
/// against the any-shape path (this test's, built for the default net).
#[test]
fn building_with_tessera_net_embeds_it() {
    let root = env!("CARGO_MANIFEST_DIR");
    let target = std::path::Path::new(root).join("target/tessera-net-test");
    let dir_tmp = tempfile::tempdir().unwrap();
    let dir = dir_tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let net_path = dir.join("kp+ph_32x2p-8-1.nnue");
    let bytes = random_pairwise_net("kp+ph", 32, 8, 11);
    std::fs::write(&net_path, &bytes).unwrap();
    let exe = dir.join("tessera");
    let build = |net: &std::path::Path| openbench_make(&target, net, &exe);
    let out = build(&net_path);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1";
    let eval = Command::new(&exe).args(["eval", fen]).output().unwrap();
    let text = String::from_utf8(eval.stdout).unwrap();
    let net = Network::from_bytes(&bytes).unwrap();
    let board = Board::from_fen(fen, false).unwrap();
    let expected = net.evaluate_position(board.pos());
    assert!(text.starts_with(&format!("{expected} cp (side to move: black; net kp+ph")), "{text}");
    let version = Command::new(&exe).arg("--version").output().unwrap();
    let hash = tessera::nnue::format::NetFile::content_hash(&bytes);
    let version = String::from_utf8(version.stdout).unwrap();
    assert!(version.contains(&format!("net {hash} (kp+ph 32x2p-8-1)")), "{version}");

    let broken = dir.join("broken.nnue");
    std::fs::write(&broken, &bytes[..bytes.len() - 1]).unwrap();
    let out = build(&broken);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.nnue is not usable: corrupt net file: checksum"), "{stderr}");
}

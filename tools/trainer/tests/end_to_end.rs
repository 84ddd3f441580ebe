//! The README's path from nothing to an engine, on a small run: self-play
//! data from `tessera-datagen`, shuffled, a net trained on it, an engine
//! built with it (`make EXE=… EVALFILE=…`, which sets `TESSERA_NET`), and
//! that engine's evaluation and bench.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use shakmaty::fen::Fen;
use shakmaty::{Chess, Position};
use tessera::nnue::network::Network;

const TRAINER: &str = env!("CARGO_BIN_EXE_tessera-trainer");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds in a target folder of its own: the one `cargo test` runs from is
/// locked while tests run.
fn cargo_build(args: &[&str]) -> PathBuf {
    let target = root().join("target/tessera-net-test");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet"]).args(args).current_dir(root()).env("CARGO_TARGET_DIR", &target);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "cargo build {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    target.join("debug")
}

/// The datagen binary beside ours (`cargo test --workspace` builds it), or
/// a fresh build of it.
fn datagen() -> PathBuf {
    let beside = Path::new(TRAINER).with_file_name("tessera-datagen");
    if beside.exists() { beside } else { cargo_build(&["-p", "tessera-datagen"]).join("tessera-datagen") }
}

fn run(program: &Path, args: &[&str]) -> Output {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}\n{}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn selfplay_data_trains_a_net_that_builds_into_an_engine() {
    let dir_tmp = tempfile::tempdir().unwrap();
    let dir = dir_tmp.path().to_path_buf();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = |x: &Path| x.display().to_string();
    let datagen = datagen();

    // 1. Data: self-play with our own search, then one shuffled training file.
    let selfplay = dir.join("selfplay.bin");
    let out = run(&datagen, &["selfplay", "-o", &p(&selfplay), "--games", "8", "--nodes", "800", "--jobs", "2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("8 games played now"));
    let train = dir.join("train.bin");
    run(&datagen, &["shuffle", &p(&selfplay), "-o", &p(&train)]);
    let stats = String::from_utf8(run(&datagen, &["stats", &p(&train)]).stdout).unwrap();
    let positions: usize = stats
        .lines()
        .find_map(|l| l.strip_prefix("positions: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in {stats}"));
    assert!(positions > 300, "{stats}");

    // 2. A small net trained on it, with output buckets (format version 2).
    let runs = dir.join("runs");
    let out = run(
        Path::new(TRAINER),
        &["--data", &p(&train), "--features", "all", "--ft", "32", "--hidden", "8", "--epochs", "2"]
            .into_iter()
            .chain(["--output-buckets", "4"])
            .chain(["--batch", "64", "--validation-permille", "100", "--out", &p(&runs)])
            .collect::<Vec<_>>(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("{positions} lines, 0 rejected")), "{text}");
    let net_path = runs.join("all_32x2-8-1-ob4.nnue");
    let net = Network::from_bytes(&std::fs::read(&net_path).unwrap()).unwrap();
    assert_eq!(net.shape.buckets, 4);

    // 3. An engine with that net embedded, given zstd-compressed as large
    // committed nets are: its evaluation is the net's, its version names the
    // uncompressed net's hash, and it plays.
    let packed = dir.join("all_32x2-8-1-ob4.nnue.zst");
    std::fs::write(&packed, zstd::encode_all(&std::fs::read(&net_path).unwrap()[..], 19).unwrap()).unwrap();
    let engine = dir.join("tessera");
    let make = Command::new("make")
        .args(["--no-print-directory", "-s"])
        .arg(format!("EXE={}", engine.display()))
        .arg(format!("EVALFILE={}", packed.display()))
        .current_dir(root())
        .env("CARGO_TARGET_DIR", root().join("target/tessera-net-test"))
        // Quick to build: the test checks what is embedded, not speed.
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1")
        .output()
        .unwrap();
    assert!(make.status.success(), "make: {}", String::from_utf8_lossy(&make.stderr));
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let eval = String::from_utf8(run(&engine, &["eval", fen]).stdout).unwrap();
    let pos: Chess = fen.parse::<Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap();
    assert!(pos.turn().is_white());
    let expected = net.evaluate_position(&pos);
    assert!(eval.starts_with(&format!("{expected} cp (side to move: white; net all")), "{eval}");
    let version = String::from_utf8(run(&engine, &["--version"]).stdout).unwrap();
    assert!(version.contains(&format!("net {} (all 32x2-8-1-ob4)", net.hash)), "{version}");
    let bench = String::from_utf8(run(&engine, &["bench", "3"]).stdout).unwrap();
    let last = bench.lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert!(words.len() == 4 && words[1] == "nodes" && words[3] == "nps", "{bench}");
    assert!(words[0].parse::<u64>().unwrap() > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

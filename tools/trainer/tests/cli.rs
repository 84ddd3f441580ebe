//! The trainer as a user runs it: a small data file, a run killed and
//! resumed, the same seed giving the same network. (The engine built with a
//! trained net is in `end_to_end.rs`.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position, Role};
use tessera::nnue::format::NetFile;
use tessera::nnue::network::Network;

const TRAINER: &str = env!("CARGO_BIN_EXE_tessera-trainer");

/// Random games from the start position, labelled with the material balance
/// (white's view) and the side ahead at the end as the result: enough signal
/// for a small net to learn something in seconds.
fn write_data(path: &Path, lines: usize) {
    let value = |pos: &Chess| -> i32 {
        let b = pos.board();
        [(Role::Pawn, 100), (Role::Knight, 300), (Role::Bishop, 300), (Role::Rook, 500), (Role::Queen, 900)]
            .iter()
            .map(|&(r, v)| v * ((b.by_role(r) & b.white()).count() as i32 - (b.by_role(r) & b.black()).count() as i32))
            .sum()
    };
    let mut rng = 0x1234_5678_9abc_def1u64;
    let mut out = String::new();
    let mut written = 0;
    while written < lines {
        let mut pos = Chess::default();
        let mut game = Vec::new();
        for _ in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos.play_unchecked(moves[(rng >> 11) as usize % moves.len()]);
            if !pos.is_check() {
                game.push((Fen::from_position(&pos, EnPassantMode::Legal).to_string(), value(&pos)));
            }
        }
        let end = value(&pos);
        let result = if end > 0 {
            "1.0"
        } else if end < 0 {
            "0.0"
        } else {
            "0.5"
        };
        for (fen, cp) in game {
            out += &format!("{fen} | {cp} | {result}\n");
            written += 1;
        }
    }
    std::fs::write(path, out).unwrap();
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-trainer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn train(data: &Path, out: &Path, epochs: usize, extra: &[&str]) -> Command {
    let mut cmd = Command::new(TRAINER);
    cmd.arg("--data").arg(data).arg("--out").arg(out);
    cmd.args(["--ft", "32", "--hidden", "8", "--batch", "256", "--lr", "2e-3", "--validation-permille", "100"]);
    cmd.args(["--epochs", &epochs.to_string(), "--threads", "2"]).args(extra);
    cmd
}

fn run(mut cmd: Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

fn tensors(path: &Path) -> tessera::nnue::format::Tensors {
    NetFile::parse(&std::fs::read(path).unwrap()).unwrap().tensors
}

#[test]
fn trains_resumes_after_kill_and_reproduces() {
    let dir = temp_dir("run");
    let data = dir.join("data.txt");
    write_data(&data, 20_000);

    // A straight run of 4 epochs.
    let straight = dir.join("straight");
    let out = run(train(&data, &straight, 4, &[]));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("sigmoid scale fitted to the training results"), "{text}");
    assert!(text.contains("samples/s"), "{text}");
    assert!(text.contains("quantization error on the validation set: mean"), "{text}");
    let losses: Vec<f64> = std::fs::read_to_string(straight.join("loss.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    assert_eq!(losses.len(), 4);
    assert!(losses[3] < losses[0], "validation loss should fall: {losses:?}");
    let net_path = straight.join("all_32x2-8-1.nnue");
    let net = Network::from_bytes(&std::fs::read(&net_path).unwrap()).unwrap();
    assert!(net.description.contains("--epochs 4"), "the command line is in the description: {}", net.description);

    // The same run killed once its first checkpoint exists, then resumed.
    let resumed = dir.join("resumed");
    let mut child = train(&data, &resumed, 4, &[]).stdout(std::process::Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    while !resumed.join("checkpoint.bin").exists() {
        assert!(start.elapsed() < Duration::from_secs(120), "no checkpoint written");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = run(train(&data, &resumed, 4, &[]));
    let text = String::from_utf8(out.stdout).unwrap();
    let finished = std::fs::read_to_string(resumed.join("loss.csv")).unwrap().lines().count() - 1;
    assert_eq!(finished, 4);
    if text.contains("resuming after epoch") {
        assert!(!text.contains("epoch 1/4"), "a resumed run skips finished epochs: {text}");
    }
    assert_eq!(tensors(&resumed.join("all_32x2-8-1.nnue")), tensors(&net_path), "resume must not change the result");

    // Other settings refuse the checkpoint rather than mixing runs.
    let out = train(&data, &resumed, 5, &["--lambda", "0.5"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("other settings"), "{err}");

    // Another seed gives another net.
    let other = dir.join("other");
    run(train(&data, &other, 1, &["--seed", "7"]));
    assert_ne!(tensors(&other.join("all_32x2-8-1.nnue")), tensors(&net_path));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = temp_dir("bad");
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello\nworld\n").unwrap();
    let cases: [(Vec<&str>, &str); 4] = [
        (vec!["--data", junk.to_str().unwrap()], "no usable training samples"),
        (vec!["--data", "/nonexistent/file.txt"], "cannot read"),
        (vec!["--data", junk.to_str().unwrap(), "--features", "queen"], "unknown block 'queen'"),
        (vec!["--data", junk.to_str().unwrap(), "--batch", "0"], "must be positive"),
    ];
    for (args, why) in cases {
        let out = Command::new(TRAINER).args(&args).arg("--out").arg(dir.join("out")).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

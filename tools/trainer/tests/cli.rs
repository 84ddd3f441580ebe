//! The trainer as a user runs it: a small data file, a run killed and
//! resumed, the same seed giving the same network. (The engine built with a
//! trained net is in `end_to_end.rs`.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position, Role};
use tessera::nnue::format::NetFile;
use tessera::nnue::network::Network;
use tessera::testing::XorShift;

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
    let mut random = XorShift(0x1234_5678_9abc_def1);
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
            let rng = random.next_u64();
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

/// [`write_data`]'s lines for `total` lines, cut into files of `dir`: each
/// (name, range of lines) one file.
fn write_parts<const N: usize>(dir: &Path, total: usize, parts: [(&str, std::ops::Range<usize>); N]) -> [PathBuf; N] {
    let all = dir.join("all.txt");
    write_data(&all, total);
    let text = std::fs::read_to_string(&all).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    parts.map(|(name, range)| {
        let path = dir.join(name);
        std::fs::write(&path, lines[range].join("\n") + "\n").unwrap();
        path
    })
}

fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("tessera-{name}-")).tempdir().unwrap()
}

fn train(data: &Path, out: &Path, epochs: usize, extra: &[&str]) -> Command {
    train_at(data, out, epochs, "2e-3", extra)
}

/// [`train`] with another learning rate.
fn train_at(data: &Path, out: &Path, epochs: usize, lr: &str, extra: &[&str]) -> Command {
    let mut cmd = small_net(data, out, lr);
    cmd.args(["--epochs", &epochs.to_string()]).args(extra);
    cmd
}

/// The trainer on a small net, without a budget.
fn small_net(data: &Path, out: &Path, lr: &str) -> Command {
    let mut cmd = Command::new(TRAINER);
    cmd.arg("--data").arg(data).arg("--out").arg(out);
    cmd.args(["--ft", "32", "--hidden", "8", "--batch", "256", "--lr", lr, "--validation-permille", "100"]);
    cmd.args(["--threads", "2"]);
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

/// One column of a run's loss table (`loss.csv`), found by its header, one value per epoch.
fn loss_column(out: &Path, name: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(out.join("loss.csv")).unwrap();
    let mut lines = text.lines();
    let column = lines.next().unwrap().split(',').position(|h| h == name).unwrap();
    lines.map(|l| l.split(',').nth(column).unwrap().parse().unwrap()).collect()
}

#[test]
fn trains_resumes_after_kill_and_reproduces() {
    let dir_tmp = temp_dir("run");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 20_000);

    // A straight run of 4 epochs.
    let straight = dir.join("straight");
    let out = run(train(&data, &straight, 4, &[]));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("sigmoid scale fitted to the training results"), "{text}");
    assert!(text.contains("samples/s"), "{text}");
    assert!(text.contains("quantization error on the validation set: mean"), "{text}");
    let losses = loss_column(&straight, "validation_loss");
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
    let finished = loss_column(&resumed, "epoch").len();
    assert_eq!(finished, 4);
    if text.contains("resuming after epoch") {
        assert!(!text.contains("epoch 1/4"), "a resumed run skips finished epochs: {text}");
    }
    assert_eq!(tensors(&resumed.join("all_32x2-8-1.nnue")), tensors(&net_path), "resume must not change the result");

    // Killed after its last checkpoint but before its reports: a rerun has no
    // epoch left to train and still rewrites the loss table from the checkpoint.
    std::fs::remove_file(resumed.join("loss.csv")).unwrap();
    let out = run(train(&data, &resumed, 4, &[]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("resuming after epoch 4"));
    assert_eq!(loss_column(&resumed, "epoch").len(), 4);
    assert_eq!(tensors(&resumed.join("all_32x2-8-1.nnue")), tensors(&net_path));

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
fn the_loss_table_reports_the_rate_applied_during_warmup() {
    let dir_tmp = temp_dir("warmup");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 5_000);
    // About 4 batches an epoch once filtered and held out: a warmup of 8
    // spans the first two epochs, whose steps run at 1/8 .. 8/8 of the rate.
    let out = dir.join("warm");
    let stdout = run(train(&data, &out, 3, &["--gamma", "1", "--warmup", "8"])).stdout;
    let text = String::from_utf8_lossy(&stdout);
    let rates = loss_column(&out, "learning_rate");
    assert_eq!(rates.len(), 3);
    assert!(rates[0] > 0.0 && rates[0] < 0.5 * 2e-3, "first epoch's mean rate: {rates:?}");
    assert!(rates[1] > rates[0] && rates[1] < 2e-3, "second epoch still ramps: {rates:?}");
    assert!((rates[2] - 2e-3).abs() < 1e-9, "after the warmup the scheduled rate: {rates:?}");
    assert!(text.contains("warming up"), "{text}");
    // Without a warmup every epoch applies the scheduled rate.
    let plain = dir.join("plain");
    run(train(&data, &plain, 2, &["--gamma", "1"]));
    assert!(loss_column(&plain, "learning_rate").iter().all(|r| (r - 2e-3).abs() < 1e-9));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same positions as text, records, binpack and viriformat train to the
/// same losses, epoch by epoch, and the same net.
#[test]
fn every_format_trains_to_the_same_net() {
    use tessera_data::formats::{self, Format};
    let dir_tmp = temp_dir("formats");
    let dir = dir_tmp.path().to_path_buf();
    let text = dir.join("data.txt");
    write_data(&text, 3_000);
    let mut runs = Vec::new();
    for name in ["data.txt", "data.bin", "data.binpack", "data.vf"] {
        let data = dir.join(name);
        if name != "data.txt" {
            let mut writer = formats::create(&data, Format::of_path(&data)).unwrap();
            formats::read(&text, Format::Text, &mut |e| writer.write(&e).unwrap()).unwrap();
            writer.finish().unwrap();
        }
        let out = dir.join(format!("run-{name}"));
        run(train(&data, &out, 2, &[]));
        let net = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "nnue"))
            .unwrap();
        runs.push((name, loss_column(&out, "validation_loss"), tensors(&net)));
    }
    for (name, losses, net) in &runs[1..] {
        assert_eq!(losses, &runs[0].1, "{name}: validation losses");
        assert!(net == &runs[0].2, "{name}: the net's weights");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The schedules of a long run: cosine with warm restarts and a final phase
/// at a low constant rate, each epoch's rate in the loss table.
#[test]
fn warm_restarts_and_a_final_low_rate_phase() {
    let dir_tmp = temp_dir("restarts");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 2_000);
    let out = dir.join("run");
    let args = [
        "--schedule",
        "cosine",
        "--cosine-floor",
        "0.1",
        "--restarts",
        "2",
        "--final-epochs",
        "2",
        "--final-lr",
        "0.01",
    ];
    run(train(&data, &out, 6, &[&args[..], &["--nets-every", "2"]].concat()));
    let rates = loss_column(&out, "learning_rate");
    // The nets along the way: after epochs 2 and 4 (the 6th is the run's own).
    let mut along: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".e") && n.ends_with(".nnue"))
        .collect();
    along.sort();
    assert_eq!(along.len(), 2, "{along:?}");
    assert!(along[0].ends_with(".e2.nnue") && along[1].ends_with(".e4.nnue"), "{along:?}");
    let net = tessera::nnue::network::Network::from_bytes(&std::fs::read(out.join(&along[0])).unwrap()).unwrap();
    assert!(net.description.contains("after epoch 2 of 6"), "{}", net.description);
    // Epochs 0-3: two cosine cycles of two epochs from 2e-3; epochs 4-5 at 2e-5.
    assert_eq!(rates.len(), 6);
    assert!((rates[0] - 2e-3).abs() < 1e-9 && (rates[2] - 2e-3).abs() < 1e-9, "{rates:?}");
    assert!(rates[1] < rates[0] && (rates[1] - rates[3]).abs() < 1e-9, "{rates:?}");
    assert!(rates[4..].iter().all(|r| (r - 2e-5).abs() < 1e-9), "{rates:?}");
    for (extra, why) in [
        (&["--restarts", "2"][..], "--restarts needs --schedule cosine"),
        (&["--final-epochs", "6"][..], "--final-epochs must leave epochs"),
    ] {
        let refused = train(&data, &dir.join("refused"), 6, extra).output().unwrap();
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success() && err.contains(why), "{extra:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The mean of the trainer's last line `quantization error on the validation set: mean X cp, …`.
fn quantization_error(text: &str) -> f64 {
    let line = text.lines().find(|l| l.starts_with("quantization error on the validation set: mean ")).unwrap();
    line.split_whitespace().nth(7).unwrap().parse().unwrap()
}

#[test]
fn quantization_aware_training_trains_the_net_the_engine_runs() {
    let dir_tmp = temp_dir("qat");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 5_000);
    let plain = run(train(&data, &dir.join("plain"), 3, &[])).stdout;
    let aware = dir.join("aware");
    let rounded = run(train(&data, &aware, 3, &["--quantization-aware"])).stdout;
    let (plain, rounded) = (String::from_utf8_lossy(&plain), String::from_utf8_lossy(&rounded));
    // The float net trained and validated is the rounded one: what is left
    // between it and the engine's net is the integer activations' rounding,
    // far below the weights' rounding of a plain run.
    let (before, after) = (quantization_error(&plain), quantization_error(&rounded));
    assert!(after < before / 2.0, "plain {before} cp, quantization-aware {after} cp");
    // It trains: the validation loss falls.
    let losses = loss_column(&aware, "validation_loss");
    assert!(losses[2] < losses[0], "{losses:?}");
    // The option is part of the run's settings: a checkpoint made without it is not resumed with it.
    let out = train(&data, &dir.join("plain"), 4, &["--quantization-aware"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("was made with other settings"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_starts_from_a_net_and_refuses_another_shape() {
    let dir_tmp = temp_dir("init");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 5_000);
    let first = dir.join("first");
    run(train(&data, &first, 2, &[]));
    let net = first.join("all_32x2-8-1.nnue");

    // A learning rate too small to move any weight by a quantization step:
    // the net comes back as it went in, so training started from it.
    let again = dir.join("again");
    let out = run(train_at(&data, &again, 1, "1e-12", &["--init", net.to_str().unwrap()]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("starting from"));
    assert_eq!(tensors(&again.join("all_32x2-8-1.nnue")), tensors(&net));
    // The same from the zstd of the file.
    let packed = dir.join("first.nnue.zst");
    std::fs::write(&packed, zstd::encode_all(std::fs::read(&net).unwrap().as_slice(), 3).unwrap()).unwrap();
    let zst = dir.join("zst");
    run(train_at(&data, &zst, 1, "1e-12", &["--init", packed.to_str().unwrap()]));
    assert_eq!(tensors(&zst.join("all_32x2-8-1.nnue")), tensors(&net));
    // Without --init, the same run starts from random weights.
    let random = dir.join("random");
    run(train_at(&data, &random, 1, "1e-12", &[]));
    assert_ne!(tensors(&random.join("all_32x2-8-1.nnue")), tensors(&net));

    // Another shape or feature set, or a file that is no net: refused, with the reason.
    let cases: [(&[&str], &str); 3] = [
        (
            &["--init", net.to_str().unwrap(), "--hidden2", "4"],
            "is a 'all' 32x2-8-1 net; this run trains a 'all' 32x2-8-4-1 net",
        ),
        (&["--init", net.to_str().unwrap(), "--features", "ka"], "this run trains a 'ka'"),
        (&["--init", data.to_str().unwrap()], "not a Tessera net file"),
    ];
    for (extra, why) in cases {
        let out = train(&data, &dir.join("refused"), 1, extra).output().unwrap();
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir_tmp = temp_dir("bad");
    let dir = dir_tmp.path().to_path_buf();
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

/// The report line of one file (`training …` or `validation …`).
fn report_line<'a>(text: &'a str, prefix: &str, file: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix) && l.contains(file))
        .unwrap_or_else(|| panic!("no {prefix} line for {file}:\n{text}"))
}

#[test]
fn filters_mixing_deduplication_and_held_out_files() {
    let dir_tmp = temp_dir("mix");
    let dir = dir_tmp.path().to_path_buf();
    let quiet = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    ];
    let in_check = "4k3/8/8/8/8/8/8/4RK2 b - - 0 1";
    let winning_capture = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1";
    let mut a = String::new();
    for fen in quiet {
        a += &format!("{fen} | 30 | 0.5\n");
    }
    a += &format!("{in_check} | 900 | 1.0\n{winning_capture} | 300 | 1.0\n");
    a += &format!("{} | 5000 | 1.0\n", "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1");
    std::fs::write(dir.join("a.txt"), &a).unwrap();
    // b repeats a's first position, holds one new one and the held-out one.
    let held = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1";
    let b = format!(
        "{} | 40 | 0.5\n{} | 10 | 0.5\n{held} | 20 | 0.5\n",
        quiet[0], "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    );
    std::fs::write(dir.join("b.txt"), b).unwrap();
    std::fs::write(dir.join("val.txt"), format!("{held} | 20 | 0.5\n{in_check} | 900 | 1.0\n")).unwrap();
    let glob = dir.join("*.txt");
    let validation = dir.join("val.txt");
    let common = ["--ft", "16", "--hidden", "8", "--batch", "4", "--epochs", "1", "--threads", "2"];

    // The glob names a, b and val; val's positions are held out of training.
    let out = Command::new(TRAINER)
        .arg("--data")
        .arg(&glob)
        .arg("--validation")
        .arg(&validation)
        .args(["--skip-check", "--skip-capture", "--max-score", "3000"])
        .args(common)
        .arg("--out")
        .arg(dir.join("run"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = report_line(&text, "training", "a.txt");
    assert!(
        line.ends_with(
            "7 lines, 0 rejected, 1 in check, 1 with a winning capture, 1 beyond the score bound, \
             0 not taken, 0 duplicates, 0 held out → 4 used"
        ),
        "{line}"
    );
    let line = report_line(&text, "training", "b.txt");
    assert!(line.ends_with("0 not taken, 1 duplicates, 1 held out → 1 used"), "{line}");
    let line = report_line(&text, "training", "val.txt");
    assert!(line.ends_with("1 in check, 0 with a winning capture, 0 beyond the score bound, 0 not taken, 0 duplicates, 1 held out → 0 used"), "{line}");
    // Validation sets keep only quiet positions, whatever the training filters.
    let line = report_line(&text, "validation", "val.txt");
    assert!(line.contains("2 lines") && line.ends_with("→ 1 used"), "{line}");
    assert!(text.contains("5 training samples, 1 validation samples in 1 set(s)"), "{text}");

    // With the filters turned off every position counts; a cap keeps at most that many
    // per file, a share about that fraction; duplicates can be kept.
    let out = Command::new(TRAINER)
        .arg("--data")
        .arg(format!("{}:2", dir.join("a.txt").display()))
        .arg(dir.join("b.txt"))
        .arg("--validation")
        .arg(&validation)
        .args(["--keep-duplicates", "--keep-check", "--keep-captures"])
        .args(common)
        .arg("--out")
        .arg(dir.join("run2"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        report_line(&text, "training", "a.txt").ends_with("5 not taken, 0 duplicates, 0 held out → 2 used"),
        "{text}"
    );
    assert!(report_line(&text, "training", "b.txt").ends_with("0 duplicates, 1 held out → 2 used"), "{text}");

    let out = Command::new(TRAINER)
        .arg("--data")
        .arg(format!("{}:0.000001", dir.join("a.txt").display()))
        .arg("--validation")
        .arg(&validation)
        .args(common)
        .arg("--out")
        .arg(dir.join("run3"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "a share that keeps nothing leaves no training data");
    for (spec, why) in [
        (format!("{}:1.5", dir.join("a.txt").display()), "(0, 1]"),
        (dir.join("nothing-*.txt").display().to_string(), "no file matches"),
    ] {
        let out = Command::new(TRAINER)
            .arg("--data")
            .arg(&spec)
            .args(common)
            .arg("--out")
            .arg(dir.join("run4"))
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains(why), "{spec}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The number before " training samples" in a run's report.
fn training_samples(text: &str) -> usize {
    let line = text.lines().find(|l| l.contains(" training samples")).unwrap_or_else(|| panic!("{text}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

/// A budget in samples seen: the fewest whole passes over the training set
/// (as filtered and held out) that reach it.
#[test]
fn a_samples_budget_becomes_whole_epochs() {
    let dir_tmp = temp_dir("samples");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 5_000);
    let out = dir.join("run");
    let mut cmd = small_net(&data, &out, "2e-3");
    cmd.args(["--samples", "10000"]);
    let text = String::from_utf8_lossy(&run(cmd).stdout).to_string();
    let n = training_samples(&text);
    let epochs = 10_000usize.div_ceil(n);
    assert!(epochs >= 2, "{n} training samples");
    assert!(text.contains(&format!("--samples 10000: {epochs} epochs, {} samples seen", epochs * n)), "{text}");
    assert_eq!(loss_column(&out, "validation_loss").len(), epochs);
    // Not both budgets, and not an empty one.
    for extra in [&["--samples", "1000", "--epochs", "2"][..], &["--samples", "0"][..]] {
        let out = Command::new(TRAINER)
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(dir.join("x"))
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--samples"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mirror_adds_the_castling_free_positions_mirrored() {
    let dir_tmp = temp_dir("mirror");
    let dir = dir_tmp.path().to_path_buf();
    let data = dir.join("data.txt");
    write_data(&data, 3_000);
    let plain = String::from_utf8(run(train(&data, &dir.join("plain"), 1, &[])).stdout).unwrap();
    let mirrored = String::from_utf8(run(train(&data, &dir.join("mirrored"), 1, &["--mirror"])).stdout).unwrap();
    assert!(!plain.contains("mirrors:"), "{plain}");
    let line = mirrored.lines().find(|l| l.starts_with("mirrors: ")).unwrap_or_else(|| panic!("{mirrored}"));
    let counts: Vec<usize> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    let [added, present, castling] = counts[..] else { panic!("{line}") };
    assert!(added > 0, "random games lose their castling rights: {line}");
    assert_eq!(added + present + castling, training_samples(&plain), "every sample is counted once: {line}");
    assert_eq!(training_samples(&mirrored), training_samples(&plain) + added, "{mirrored}");
    // A run folder made without mirrors refuses to go on with them.
    let out = train(&data, &dir.join("plain"), 2, &["--mirror"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("other settings"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `eval-net` scores a finished net as the engine runs it, with the trainer's
/// objective: for a quantization-aware run (whose validation loss is already
/// the rounded weights') it gives the trainer's own figure up to the integer
/// activations' rounding.
#[test]
fn eval_net_scores_the_net_the_engine_runs_on_held_out_files() {
    let dir_tmp = temp_dir("eval-net");
    let dir = dir_tmp.path().to_path_buf();
    let [data, val_a, val_b] =
        write_parts(&dir, 6_000, [("data.txt", 0..4_000), ("a.txt", 4_000..5_000), ("b.txt", 5_000..6_000)]);
    let net = dir.join("net.nnue");
    let mut cmd = train(&data, &dir.join("run"), 3, &["--quantization-aware", "--net", net.to_str().unwrap()]);
    cmd.arg("--validation").arg(&val_a);
    let trained = String::from_utf8(run(cmd).stdout).unwrap();
    let figure = |text: &str, prefix: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix:?} in\n{text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let trainer_loss = figure(&trained, "validation loss 0");

    let mut cmd = Command::new(TRAINER);
    cmd.arg("eval-net").arg(&net).arg("--validation").arg(&val_a).arg(&val_b);
    let scored = String::from_utf8(run(cmd).stdout).unwrap();
    // The net named after the files (as `--validation val/*.txt net.nnue` reads): the same figures.
    let mut cmd = Command::new(TRAINER);
    cmd.arg("eval-net").arg("--validation").arg(&val_a).arg(&val_b).arg(&net);
    assert_eq!(String::from_utf8(run(cmd).stdout).unwrap(), scored);
    let hash = NetFile::content_hash(&std::fs::read(&net).unwrap());
    assert!(scored.lines().next().unwrap().contains(&hash), "{scored}");
    let (a, b, mean) = (
        figure(&scored, "validation loss a.txt:"),
        figure(&scored, "validation loss b.txt:"),
        figure(&scored, "validation loss 0"),
    );
    assert!((a - trainer_loss).abs() < 0.02 * trainer_loss, "eval-net {a}, trainer {trainer_loss}\n{scored}");
    assert!((mean - (a + b) / 2.0).abs() < 2e-6, "{scored}");

    // Bad input: a clear refusal.
    let refused = |args: &[&str], why: &str| {
        let out = Command::new(TRAINER).args(args).output().unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    };
    let (net, val) = (net.to_str().unwrap(), val_a.to_str().unwrap());
    refused(&["eval-net", "missing.nnue", "--validation", val], "cannot read missing.nnue");
    refused(&["eval-net", val, "--validation", val], "eval-net:");
    refused(&["eval-net", net, "--validation", val, "--lambda", "2"], "--lambda must be within 0 and 1");
    refused(&["eval-net", net], "--validation");
    refused(&["eval-net", "--validation", val], "no net given");
    refused(&["eval-net", "--validation", net], "no held-out files given");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `PATH:tW`: the teacher's share of one file's scores, in place of
/// `--teacher-weight`; a file at weight 0 is not even evaluated.
#[test]
fn a_files_teacher_weight_replaces_the_default_for_its_samples() {
    let dir_tmp = temp_dir("teacher-weight");
    let dir = dir_tmp.path().to_path_buf();
    let [a, b, val] =
        write_parts(&dir, 7_000, [("a.txt", 0..3_000), ("b.txt", 3_000..6_000), ("val.txt", 6_000..7_000)]);
    let teacher = dir.join("teacher.nnue");
    run(train(&a, &dir.join("teacher"), 1, &["--net", teacher.to_str().unwrap()]));

    let used = |text: &str, file: &str| -> usize {
        let line = report_line(text, "training", file);
        line.rsplit("→ ").next().unwrap().trim_end_matches(" used").parse().unwrap()
    };
    let relabelled = |text: &str| -> usize {
        let line = text.lines().find(|l| l.starts_with("teacher ")).unwrap_or_else(|| panic!("{text}"));
        line.split(": ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap()
    };
    let with_weights = |name: &str, a_spec: &str, b_spec: &str, extra: &[&str]| -> String {
        let mut cmd = Command::new(TRAINER);
        cmd.arg("--data").arg(format!("{}{a_spec}", a.display())).arg(format!("{}{b_spec}", b.display()));
        cmd.arg("--validation").arg(&val).arg("--teacher").arg(&teacher).args(extra);
        cmd.args(["--ft", "16", "--hidden", "8", "--batch", "256", "--epochs", "1", "--threads", "2"]);
        cmd.arg("--out").arg(dir.join(name));
        String::from_utf8(run(cmd).stdout).unwrap()
    };
    let only_a = with_weights("a", ":t1", ":t0", &[]);
    assert!(only_a.contains("blended by each file's weight (default 1)"), "{only_a}");
    assert_eq!(relabelled(&only_a), used(&only_a, "a.txt"), "{only_a}");
    let only_b = with_weights("b", ":x1.5:t0", "", &["--teacher-weight", "0.5"]);
    assert!(only_b.contains("(default 0.5)"), "{only_b}");
    assert_eq!(relabelled(&only_b), used(&only_b, "b.txt"), "{only_b}");
    let both = with_weights("both", ":t0.5", "", &["--teacher-weight", "0.5"]);
    assert!(both.contains("0.5 × its evaluation + 0.5 × the label"), "one weight for all: {both}");
    assert_eq!(relabelled(&both), used(&both, "a.txt") + used(&both, "b.txt"), "{both}");

    let refused = |args: &[String], why: &str| {
        let out = Command::new(TRAINER).args(args).arg("--out").arg(dir.join("refused")).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    };
    let (a, val, teacher) = (a.display().to_string(), val.display().to_string(), teacher.display().to_string());
    refused(&["--data".into(), format!("{a}:t0.5")], "needs --teacher");
    refused(&["--data".into(), format!("{a}:t1.5"), "--teacher".into(), teacher.clone()], "within 0 and 1");
    refused(&["--data".into(), format!("{a}:t0.5:t0.2"), "--teacher".into(), teacher.clone()], "more than one");
    refused(
        &["--data".into(), a, "--validation".into(), format!("{val}:t0.5"), "--teacher".into(), teacher],
        "applies to training files",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The trainer in `dir` (a campaign's paths are relative to where it runs).
fn trainer_in(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(TRAINER);
    cmd.current_dir(dir).args(args);
    cmd
}

#[test]
fn a_campaign_resumes_on_a_machine_without_its_local_files() {
    let dir_tmp = temp_dir("campaign");
    let dir = dir_tmp.path().to_path_buf();
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    write_data(&dir.join("shared/games.txt"), 12_000);
    std::fs::create_dir_all(dir.join("val")).unwrap();
    let remake = "tail -n 2000 shared/games.txt > val/tail.txt";
    let mut make_val = Command::new("sh");
    make_val.current_dir(&dir).args(["-c", remake]);
    run(make_val);
    let net = "all_32x2-8-1.nnue";
    let training: Vec<&str> = vec![
        "--data",
        "shared/*.txt",
        "--validation",
        "val/tail.txt",
        "--ft",
        "32",
        "--hidden",
        "8",
        "--batch",
        "256",
        "--lr",
        "2e-3",
        "--epochs",
        "4",
    ];

    // The uninterrupted run.
    let mut straight = training.clone();
    straight.extend(["--out", "straight", "--threads", "2"]);
    run(trainer_in(&dir, &straight));

    // A machine-local input needs the command that remakes it.
    let mut start = vec!["campaign", "start", "camp", "--name", "t", "--durable", "shared", "--"];
    start.extend(&training);
    let out = trainer_in(&dir, &start).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("val/tail.txt is machine-local"), "{out:?}");

    let remake_arg = format!("val/tail.txt={remake}");
    let mut start =
        vec!["campaign", "start", "camp", "--name", "t", "--durable", "shared", "--remake", &remake_arg, "--"];
    start.extend(&training);
    run(trainer_in(&dir, &start));
    let manifest = std::fs::read_to_string(dir.join("camp/manifest.json")).unwrap();
    assert!(manifest.contains("\"shared/games.txt\""), "globs are pinned as files: {manifest}");
    assert!(manifest.contains("\"sha256\""), "{manifest}");

    // Two epochs, a clean stop; then the machine is gone: every file outside
    // the campaign folder and the durable data deleted.
    let out = run(trainer_in(&dir, &["campaign", "resume", "camp", "--stop-after", "2", "--threads", "2"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("stopped after epoch 2"), "{out:?}");
    assert!(std::fs::read_to_string(dir.join("camp/manifest.json")).unwrap().contains("\"epochs_done\": 2"));
    assert!(dir.join("camp/checkpoint.bin.zst").exists());
    std::fs::remove_dir_all(dir.join("runs")).unwrap();
    std::fs::remove_dir_all(dir.join("val")).unwrap();
    let out = run(trainer_in(&dir, &["campaign", "status", "camp"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("missing (resume remakes it)"), "{out:?}");
    // A reader that stops early (`campaign status camp | head -1`) is not a crash.
    let mut status = trainer_in(&dir, &["campaign", "status", "camp"]);
    let mut child = status.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "a closed stdout: {}", String::from_utf8_lossy(&out.stderr));

    // Resumed on the "new machine": remade, restored, the last two epochs only.
    let out = run(trainer_in(&dir, &["campaign", "resume", "camp", "--threads", "1"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("remaking val/tail.txt"), "{text}");
    assert!(text.contains("restoring the committed checkpoint (epoch 2)"), "{text}");
    assert!(!text.contains("epoch 2/4") && text.contains("epoch 4/4"), "{text}");
    assert_eq!(
        tensors(&dir.join("runs/campaign-t").join(net)),
        tensors(&dir.join("straight").join(net)),
        "a campaign moved between machines ends with the uninterrupted run's weights"
    );
    let out = run(trainer_in(&dir, &["campaign", "resume", "camp"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("is finished"), "{out:?}");

    // Durable data that changed is refused, not trained on.
    std::fs::remove_file(dir.join("camp/manifest.json")).unwrap();
    run(trainer_in(&dir, &start));
    std::fs::write(dir.join("shared/games.txt"), "8/8/8/8/8/8/8/K1k5 w - - 0 1 | 0 | 0.5\n").unwrap();
    let out = trainer_in(&dir, &["campaign", "resume", "camp"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the file the campaign pinned"), "{out:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `campaign branch` ends a constant-rate trunk at its committed epoch: the
/// trunk's epochs restored, then a share of them at the low rate, in a run
/// folder of its own; the trunk itself goes on untouched.
#[test]
fn a_campaign_branches_into_a_low_rate_phase() {
    let dir_tmp = temp_dir("branch");
    let dir = dir_tmp.path().to_path_buf();
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    write_data(&dir.join("shared/games.txt"), 6_000);
    let common = ["--data", "shared/games.txt", "--ft", "32", "--hidden", "8", "--batch", "256", "--lr", "2e-3"];
    let mut start = vec!["campaign", "start", "camp", "--name", "b", "--durable", "shared", "--"];
    start.extend(common);
    start.extend(["--epochs", "6", "--schedule", "step", "--gamma", "1"]);
    run(trainer_in(&dir, &start));
    let out = trainer_in(&dir, &["campaign", "branch", "camp"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("resume it first"), "{out:?}");
    run(trainer_in(&dir, &["campaign", "resume", "camp", "--stop-after", "2", "--threads", "2"]));

    let out = run(trainer_in(&dir, &["campaign", "branch", "camp", "--share", "0.5", "--final-lr", "0.1"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("branch of campaign b at epoch 2"), "{text}");
    // One more epoch (half of two), at a tenth of the trunk's rate.
    assert!(!text.contains("epoch 2/3") && text.contains("epoch 3/3") && text.contains("lr 2.000e-4"), "{text}");
    assert!(dir.join("runs/campaign-b-branch-e2/all_32x2-8-1.nnue").exists());
    // The trunk goes on from its own epoch 2, at its own rate.
    let out = run(trainer_in(&dir, &["campaign", "resume", "camp", "--stop-after", "1", "--threads", "2"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("epoch 3/6") && text.contains("lr 2.000e-3"), "{text}");

    // A trunk whose rate falls (cosine) has no branch that ends where it stands.
    std::fs::remove_dir_all(dir.join("camp")).unwrap();
    let mut start = vec!["campaign", "start", "camp", "--name", "c", "--durable", "shared", "--"];
    start.extend(common);
    start.extend(["--epochs", "4", "--schedule", "cosine"]);
    run(trainer_in(&dir, &start));
    run(trainer_in(&dir, &["campaign", "resume", "camp", "--stop-after", "1", "--threads", "2"]));
    let out = trainer_in(&dir, &["campaign", "branch", "camp"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("constant rate"), "{out:?}");
}

/// `average` writes the weighted mean of nets of one kind, weight by weight
/// (as the engine stores them: the mean's rounding is the only change), and
/// refuses nets of different kinds.
#[test]
fn average_writes_the_mean_of_nets_of_one_kind() {
    let dir_tmp = temp_dir("average");
    let dir = dir_tmp.path();
    let fs: tessera::features::FeatureSet = "all".parse().unwrap();
    let write = |name: &str, ft: usize, seed: u64| {
        let path = dir.join(name);
        let net = tessera::nnue::network::FloatNetwork::random(&fs, ft, 8, 0, seed);
        std::fs::write(&path, net.quantize("test net").to_bytes()).unwrap();
        path
    };
    let (a, b, other) = (write("a.nnue", 32, 1), write("b.nnue", 32, 2), write("c.nnue", 64, 3));
    let average = |nets: &[&Path], extra: &[&str], out: &str| {
        let mut cmd = Command::new(TRAINER);
        cmd.arg("average").args(nets).args(extra).arg("--out").arg(dir.join(out));
        cmd.output().unwrap()
    };
    let ok = |out: Output| assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    ok(average(&[&a, &a], &[], "aa.nnue"));
    assert_eq!(tensors(&dir.join("aa.nnue")), tensors(&a), "the mean of a net and itself is that net");

    ok(average(&[&a, &b], &[], "ab.nnue"));
    ok(average(&[&a, &b], &["--weights", "3,1"], "ab31.nnue"));
    let (ta, tb) = (tensors(&a), tensors(&b));
    let (mean, mean31) = (tensors(&dir.join("ab.nnue")), tensors(&dir.join("ab31.nnue")));
    let pairs = ta.ft_weights.iter().zip(&tb.ft_weights).zip(mean.ft_weights.iter().zip(&mean31.ft_weights));
    let mut differ = 0;
    for ((&x, &y), (&m, &m31)) in pairs {
        let (x, y, m, m31) = (f64::from(x), f64::from(y), f64::from(m), f64::from(m31));
        assert!((m - (x + y) / 2.0).abs() <= 0.5, "{x} {y} -> {m}");
        assert!((m31 - (3.0 * x + y) / 4.0).abs() <= 0.5, "{x} {y} -> {m31} at 3:1");
        differ += usize::from(x != y);
    }
    assert!(differ > 0, "two random nets differ");
    let hidden = ta.hidden_weights.iter().zip(&tb.hidden_weights).zip(&mean.hidden_weights);
    for ((&x, &y), &m) in hidden {
        assert!((f64::from(m) - (f64::from(x) + f64::from(y)) / 2.0).abs() <= 0.5, "{x} {y} -> {m}");
    }

    let refused = |out: Output, why: &str| {
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{stderr}");
    };
    refused(average(&[&a, &other], &[], "x.nnue"), "only nets of one kind");
    refused(average(&[&a, &b], &["--weights", "1"], "x.nnue"), "--weights has 1 values for 2 nets");
    refused(average(&[&a, &b], &["--weights", "1,-1"], "x.nnue"), "positive");
    refused(average(&[&a, &dir.join("missing.nnue")], &[], "x.nnue"), "missing.nnue");
    assert!(!dir.join("x.nnue").exists());
}

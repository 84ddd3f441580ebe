//! The datagen tool as a user runs it: self-play killed and resumed, Ctrl-C,
//! PGN sampling with labels and as PQR triplets, FEN lists, convert, shuffle,
//! stats and agree.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DATAGEN: &str = env!("CARGO_BIN_EXE_tessera-datagen");

fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("tessera-{name}-")).tempdir().unwrap()
}

fn run(args: &[&str]) -> Output {
    let out = Command::new(DATAGEN).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}\n{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The position of a record's text line (`<FEN> | <score> | <result>`).
fn position_of(line: &str) -> shakmaty::Chess {
    let fen = line.split('|').next().unwrap().trim();
    fen.parse::<shakmaty::fen::Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap()
}

/// The positions of a file in any format, as text lines.
fn records(path: &Path) -> Vec<String> {
    use tessera_data::formats::{self, Format};
    let mut lines = Vec::new();
    formats::read(path, Format::of_path(path), &mut |e| lines.push(e.record.to_text())).unwrap();
    lines
}

/// Runs `selfplay` with `extra` once whole and once killed after its first
/// chunk and rerun: the records must be the same. Returns them.
fn killed_and_resumed(name: &str, extra: &[&str]) -> Vec<String> {
    killed_and_resumed_games(name, 6, extra)
}

/// `killed_and_resumed` with `games` games.
fn killed_and_resumed_games(name: &str, games: usize, extra: &[&str]) -> Vec<String> {
    killed_and_resumed_as(name, games, "bin", extra)
}

/// `killed_and_resumed` with `games` games into a file of extension `ext`.
fn killed_and_resumed_as(name: &str, games: usize, ext: &str, extra: &[&str]) -> Vec<String> {
    let dir_tmp = temp_dir(name);
    let dir = dir_tmp.path().to_path_buf();
    let whole = dir.join(format!("whole.{ext}"));
    let args = |out: &Path| {
        vec!["selfplay".to_string(), "-o".into(), out.display().to_string(), "--games".into(), games.to_string()]
            .into_iter()
            .chain(["--jobs", "2", "--seed", "3"].map(String::from))
            .chain(extra.iter().map(|a| a.to_string()))
            .collect::<Vec<_>>()
    };
    let text = String::from_utf8(run(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>()).stdout).unwrap();
    assert!(text.contains(&format!("{games} games played now")), "{text}");
    let expected = records(&whole);

    let resumed = dir.join(format!("resumed.{ext}"));
    let mut child = Command::new(DATAGEN).args(args(&resumed)).stderr(std::process::Stdio::null()).spawn().unwrap();
    let progress = dir.join(format!("resumed.{ext}.progress"));
    let start = Instant::now();
    while !progress.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    run(&args(&resumed).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(records(&resumed), expected);
    std::fs::remove_dir_all(&dir).unwrap();
    expected
}

#[test]
fn selfplay_killed_and_resumed_gives_the_uninterrupted_output() {
    let every = killed_and_resumed("selfplay", &["--nodes", "400"]);
    assert!(every.len() > 20, "{} positions", every.len());
}

/// Binpack and viriformat output: whole games as moves, resumable, holding
/// the same scored positions as records of the same run, in far fewer bytes.
#[test]
fn selfplay_writes_whole_games_to_binpack_and_viriformat() {
    let args = ["--nodes", "400"];
    let records = killed_and_resumed_as("as-bin", 6, "bin", &args);
    for ext in ["binpack", "vf"] {
        let games = killed_and_resumed_as(&format!("as-{ext}"), 6, ext, &args);
        // The records keep the full-move number at 1; compare without it.
        let strip = |l: &String| {
            let (fen, rest) = l.split_once(" | ").unwrap();
            let fields: Vec<&str> = fen.split_whitespace().collect();
            format!("{} | {rest}", fields[..5].join(" "))
        };
        assert_eq!(games.iter().map(strip).collect::<Vec<_>>(), records.iter().map(strip).collect::<Vec<_>>(), "{ext}");
    }
}

#[test]
fn selfplay_skip_capture_keeps_only_what_the_trainer_keeps_and_resumes() {
    let noisy = ["--nodes", "400", "--random-move-prob", "0.3"];
    let every = killed_and_resumed("noisy", &noisy);
    let quiet = killed_and_resumed("skip-capture", &[&noisy[..], &["--skip-capture"]].concat());
    let expected: Vec<&String> =
        every.iter().filter(|l| !tessera_data::filter::has_winning_capture(&position_of(l))).collect();
    assert!(expected.len() < every.len(), "random moves leave pieces hanging");
    assert_eq!(quiet.iter().collect::<Vec<_>>(), expected, "the same games, those positions left out");
}

/// `--syzygy`: games end where they reach the tables, so no position they
/// hold is kept; the rest is the same games' records; bad paths are refused.
#[test]
fn selfplay_syzygy_ends_games_at_the_tables_and_resumes() {
    let tables = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/syzygy");
    if !tables.is_dir() {
        tessera::testing::skip("shared-data", &format!("{} is absent", tables.display()));
        return;
    }
    // Ten games, so that one reaches the tables: with net v9 the first six all
    // end above four pieces and the first eight reach three (a later net may need more).
    let noisy = ["--nodes", "400", "--random-move-prob", "0.3"];
    let every = killed_and_resumed_games("noisy-tables", 10, &noisy);
    let cut = killed_and_resumed_games("syzygy", 10, &[&noisy[..], &["--syzygy", tables.to_str().unwrap()]].concat());
    let pieces = |line: &str| shakmaty::Position::board(&position_of(line)).occupied().count();
    let scored = |line: &str| line.rsplit_once('|').unwrap().0.to_string();
    assert!(every.iter().any(|l| pieces(l) <= 4), "no game reached four pieces");
    assert!(cut.iter().all(|l| pieces(l) > 4), "a position the tables hold was kept");
    let before: std::collections::HashSet<String> = every.iter().map(|l| scored(l)).collect();
    assert!(cut.iter().all(|l| before.contains(&scored(l))), "the same games until the tables");
    assert!(cut.len() < every.len());

    let dir_tmp = temp_dir("syzygy-bad");
    let dir = dir_tmp.path().to_path_buf();
    for (path, why) in [("/no/such/folder", "cannot read folder"), (dir.to_str().unwrap(), "no Syzygy WDL table")] {
        let out = Command::new(DATAGEN)
            .args(["selfplay", "-o", &dir.join("x.bin").display().to_string(), "--syzygy", path])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(why), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Double Fischer Random openings: the games start from the drawn
/// arrangements (kept here from ply 0), resume to the same records, and a
/// book beside them is refused.
#[test]
fn dfrc_openings_start_from_drawn_back_ranks_and_resume() {
    let records = killed_and_resumed("dfrc", &["--nodes", "300", "--dfrc", "--random-plies", "0", "--min-ply", "0"]);
    let starts: Vec<&String> = records.iter().filter(|r| r.contains("/pppppppp/8/8/8/8/PPPPPPPP/")).collect();
    assert!(!starts.is_empty(), "no game's first position kept: {records:?}");
    for r in &starts {
        assert!(r.contains(" w - - 0 1"), "{r}");
    }
    // Six games, each side's rank one of 960: not all of them the usual one.
    assert!(starts.iter().any(|r| !r.starts_with("rnbqkbnr/") || !r.contains("/RNBQKBNR w")), "{starts:?}");
    let dir_tmp = temp_dir("dfrc-book");
    let dir = dir_tmp.path().to_path_buf();
    let out = Command::new(DATAGEN)
        .args(["selfplay", "-o", &dir.join("x.bin").display().to_string(), "--dfrc", "--book", "b.epd"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--dfrc") && err.contains("--book"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The net v3 recipe in small: book openings, random plies and moves,
/// MultiPV picks, a few positions a game re-scored by a deeper search.
#[test]
fn per_game_samples_with_a_labeller_resume_to_the_same_records() {
    let dir_tmp = temp_dir("per-game-book");
    let dir = dir_tmp.path().to_path_buf();
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n\
         rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5\n",
    )
    .unwrap();
    let book = book.display().to_string();
    let sampled_args =
        ["--nodes", "300", "--book", &book, "--random-plies", "1-3", "--per-game", "3", "--label-depth", "4"];
    let sampled = killed_and_resumed(
        "per-game",
        &[&sampled_args[..], &["--random-move-prob", "0.05", "--multipv-pick", "2"]].concat(),
    );
    assert!(!sampled.is_empty() && sampled.len() <= 18, "at most 3 a game: {}", sampled.len());
    // A labeller that keeps its hash table within each game resumes to the
    // same records too (the table is cleared at every game).
    let kept = killed_and_resumed("keep-hash", &[&sampled_args[..], &["--label-keep-hash"]].concat());
    assert!(!kept.is_empty() && kept.len() <= 18, "{}", kept.len());
    let out = Command::new(DATAGEN)
        .args(["selfplay", "-o", &dir.join("y.bin").display().to_string(), "--label-keep-hash"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--label-keep-hash needs a labeller"));
    // Bad values are refused with the flag's name.
    for (flag, value) in [("--random-plies", "5-2"), ("--per-game", "0"), ("--random-move-prob", "2")] {
        let out = Command::new(DATAGEN)
            .args(["selfplay", "-o", &dir.join("x.bin").display().to_string(), flag, value])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(flag),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A real opening, 24 plies.
const OPENING_24: &str = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Bd2 Bxd2+ \
                          8. Nbxd2 d5 9. exd5 Nxd5 10. Qb3 Nce7 11. O-O O-O 12. Rfe1 c6";

/// Three games of the same `moves`, without names, won by White, by Black, drawn.
fn three_copies(moves: &str) -> String {
    let mut text = String::new();
    for (i, result) in ["1-0", "0-1", "1/2-1/2"].iter().enumerate() {
        text += &format!("[Event \"test {i}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n");
    }
    text
}

#[test]
fn pgn_sampling_labelling_pqr_convert_shuffle_and_stats() {
    let dir_tmp = temp_dir("pgn");
    let dir = dir_tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    // Three copies of one real 24-ply opening, with different results.
    std::fs::write(&pgn, three_copies(OPENING_24)).unwrap();
    let labelled = dir.join("labelled.bin");
    let p = |x: &Path| x.display().to_string();
    let out = run(&["pgn", &p(&pgn), "-o", &p(&labelled), "--depth", "4", "--jobs", "2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 positions"));
    let got = records(&labelled);
    assert!(!got.is_empty() && got.len() <= 3);
    let results: Vec<&str> = got.iter().map(|l| l.rsplit(" | ").next().unwrap()).collect();
    assert!(results.iter().all(|r| ["1.0", "0.0", "0.5"].contains(r)));

    let pqr = dir.join("triplets.txt");
    run(&["pgn", &p(&pgn), "-o", &p(&pqr), "--method", "pqr"]);
    assert_eq!(std::fs::read_to_string(&pqr).unwrap().lines().count(), 3);
    // Every position from ply 20 on (4 a game); with --unique a game is taken
    // once however often the inputs hold it (same players, date and moves:
    // here the three games, without names, are one, given twice).
    let every = dir.join("every.txt");
    run(&["pgn", &p(&pgn), "-o", &p(&every), "--method", "pqr", "--per-game", "all"]);
    assert_eq!(std::fs::read_to_string(&every).unwrap().lines().count(), 12);
    let twice = dir.join("twice.txt");
    run(&["pgn", &p(&pgn), &p(&pgn), "-o", &p(&twice), "--method", "pqr", "--per-game", "all"]);
    assert_eq!(std::fs::read_to_string(&twice).unwrap().lines().count(), 24);
    let once = dir.join("once.txt");
    let out = run(&["pgn", &p(&pgn), &p(&pgn), "-o", &p(&once), "--method", "pqr", "--per-game", "all", "--unique"]);
    let first_game: Vec<String> = std::fs::read_to_string(&every).unwrap().lines().take(4).map(String::from).collect();
    assert_eq!(std::fs::read_to_string(&once).unwrap().lines().collect::<Vec<_>>(), first_game, "{out:?}");
    let refused =
        Command::new(DATAGEN).args(["pgn", &p(&pgn), "-o", &p(&once), "--per-game", "every"]).output().unwrap();
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("`all`"));

    // Text and binary hold the same records; shuffling keeps them all.
    let as_text = dir.join("labelled.txt");
    run(&["convert", &p(&labelled), "-o", &p(&as_text)]);
    assert_eq!(records(&as_text), got);
    let shuffled = dir.join("shuffled.bin");
    run(&["shuffle", &p(&labelled), &p(&as_text), "-o", &p(&shuffled), "--seed", "4"]);
    let mut a = records(&shuffled);
    let mut b: Vec<String> = got.iter().chain(&got).cloned().collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let stats = String::from_utf8(run(&["stats", &p(&shuffled)]).stdout).unwrap();
    assert!(stats.contains(&format!("positions: {}", 2 * got.len())), "{stats}");

    // Bad input is refused with a reason, never a panic.
    let bad = Command::new(DATAGEN).args(["stats", "/nonexistent.bin"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("cannot read"));
    let bad = Command::new(DATAGEN).args(["convert", &p(&labelled), "-o", &p(&labelled)]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("must not be one of the inputs"));
    // An existing file that no run of ours left is not appended to.
    let bad = Command::new(DATAGEN).args(["pgn", &p(&pgn), "-o", &p(&as_text), "--depth", "2"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("without a progress file"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--keep-hash`: a game's positions labelled in order by one labeller that
/// keeps its table between them and clears it before each game.
#[test]
fn pgn_keep_hash_labels_a_game_at_a_time_whatever_the_jobs() {
    let dir_tmp = temp_dir("pgn-keep-hash");
    let dir = dir_tmp.path().to_path_buf();
    let pgn = dir.join("games.pgn");
    // Three copies of one game: the table cleared before each, every copy's
    // labels are the first's (left over from the copy before, they would not be).
    std::fs::write(&pgn, three_copies(&format!("{OPENING_24} 13. a4 Qb6 14. Qa3 Be6"))).unwrap();
    let p = |x: &Path| x.display().to_string();
    let label = |jobs: &str, name: &str| {
        let out = dir.join(name);
        let args =
            ["pgn", &p(&pgn), "-o", &p(&out), "--per-game", "all", "--depth", "6", "--keep-hash", "--jobs", jobs];
        let stdout = String::from_utf8_lossy(&run(&args).stdout).to_string();
        assert!(stdout.contains("24 positions, 3 games labelled now"), "{stdout}");
        records(&out)
    };
    let one = label("1", "one.bin");
    assert_eq!(one, label("2", "two.bin"), "the same labels whatever the jobs");
    assert_eq!(one.len() % 3, 0, "{one:?}");
    let score = |l: &String| l.split(" | ").nth(1).unwrap().to_string();
    let per_copy: Vec<Vec<String>> = one.chunks(one.len() / 3).map(|c| c.iter().map(score).collect()).collect();
    assert!(per_copy.iter().all(|c| *c == per_copy[0]), "{per_copy:?}");
    // A list of positions has no games to keep a table within.
    let fens = dir.join("list.epd");
    std::fs::write(&fens, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 0.5\n").unwrap();
    let out = Command::new(DATAGEN)
        .args(["fens", &p(&fens), "-o", &p(&dir.join("list.bin")), "--depth", "4", "--keep-hash"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--keep-hash needs games"), "{out:?}");
}

/// `relabel`: a self-play binpack's games scored again a game at a time; given
/// twice, the second copy's labels are the first's (the table cleared between
/// games), whatever the jobs, and every position keeps its game's result.
#[test]
fn relabel_scores_a_binpack_again_a_game_at_a_time() {
    let dir_tmp = temp_dir("relabel");
    let dir = dir_tmp.path().to_path_buf();
    let p = |x: &Path| x.display().to_string();
    let games = dir.join("games.binpack");
    run(&["selfplay", "-o", &p(&games), "--games", "3", "--nodes", "300", "--jobs", "2", "--seed", "7"]);
    let played = records(&games);
    let label = |copies: usize, jobs: &str, name: &str| {
        let out = dir.join(name);
        let mut args = vec!["relabel".to_string()];
        args.extend(std::iter::repeat_n(p(&games), copies));
        args.extend(["-o", &p(&out), "--depth", "5", "--keep-hash", "--jobs", jobs].map(String::from));
        let result = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let stdout = String::from_utf8_lossy(&result.stdout).to_string();
        let expected = format!("{} positions, {} games labelled now", copies * played.len(), 3 * copies);
        assert!(stdout.contains(&expected), "{stdout}");
        assert!(String::from_utf8_lossy(&result.stderr).contains("positions in 3 games"), "{result:?}");
        records(&out)
    };
    let once = label(1, "1", "once.bin");
    let twice = label(2, "1", "twice.bin");
    assert_eq!(twice, [once.clone(), once.clone()].concat(), "each copy labelled from a cleared table");
    assert_eq!(twice, label(2, "2", "twice-2.bin"), "the same labels whatever the jobs");
    // Each record is one of the games' positions, in order, with its result
    // (mate scores are left out), and the scores are the new search's.
    // (A `.bin` record keeps no move numbers: positions compare without them.)
    let fields = |l: &String| {
        let mut f: Vec<String> = l.split(" | ").map(str::to_string).collect();
        f[0] = f[0].split(' ').take(4).collect::<Vec<_>>().join(" ");
        f
    };
    let mut rest = played.iter().map(fields);
    for record in once.iter().map(fields) {
        assert!(rest.any(|old| (&old[0], &old[2]) == (&record[0], &record[2])), "{record:?} not in order");
    }
    assert!(once.len() > played.len() * 9 / 10, "{} of {}", once.len(), played.len());
    let moved = once.iter().map(fields).filter(|r| played.iter().map(fields).any(|o| o[0] == r[0] && o[1] != r[1]));
    assert!(moved.count() > once.len() / 2, "scores from the new search");
    // The output must not overwrite an input.
    let bad = Command::new(DATAGEN).args(["relabel", &p(&games), "-o", &p(&games), "--depth", "2"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("must not be one of the inputs"));
    // Records keep no move numbers, so no games to keep a table within.
    let bad = Command::new(DATAGEN)
        .args(["relabel", &p(&dir.join("once.bin")), "-o", &p(&dir.join("x.bin")), "--depth", "2", "--keep-hash"])
        .output()
        .unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("keep no move numbers"), "{bad:?}");
}

/// `--static-eval` labels each position with the embedded net's evaluation,
/// no search: the score of every record is the net's, from White's view.
#[test]
fn pgn_static_labels_are_the_embedded_nets_evaluation() {
    let dir_tmp = temp_dir("static");
    let dir = dir_tmp.path();
    let pgn = dir.join("games.pgn");
    let mut text = String::from("[Event \"a\"]\n[Result \"1-0\"]\n\n");
    text += "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Bd2 Bxd2+ \
             8. Nbxd2 d5 9. exd5 Nxd5 10. Qb3 Nce7 11. O-O O-O 12. Rfe1 c6 13. a4 Qb6 1-0\n\n";
    std::fs::write(&pgn, text).unwrap();
    let out_path = dir.join("static.bin");
    let p = |x: &Path| x.display().to_string();
    let out = run(&[
        "pgn",
        &p(&pgn),
        "-o",
        &p(&out_path),
        "--per-game",
        "all",
        "--static-eval",
        "--skip-check",
        "--skip-capture",
    ]);
    assert!(out.status.success(), "{out:?}");
    let got = records(&out_path);
    assert!(got.len() >= 3, "{got:?}");
    let net = tessera::nnue::embedded::default_network();
    for line in &got {
        let pos = position_of(line);
        let score: i32 = line.split(" | ").nth(1).unwrap().parse().unwrap();
        let own = net.evaluate_position(&pos);
        let white = if shakmaty::Position::turn(&pos) == shakmaty::Color::White { own } else { -own };
        assert_eq!(score, white, "{line}");
    }
    // A search budget or the labeller's best move makes no sense without a search.
    for extra in ["--depth", "--skip-best-capture"] {
        let mut args =
            vec!["pgn".to_string(), p(&pgn), "-o".into(), p(&out_path), "--static-eval".into(), extra.into()];
        if extra == "--depth" {
            args.push("3".into());
        }
        let refused = Command::new(DATAGEN).args(&args).output().unwrap();
        assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("cannot be used with"));
    }
}

#[test]
fn ctrl_c_saves_the_finished_games_and_a_rerun_completes() {
    let dir_tmp = temp_dir("ctrl-c");
    let dir = dir_tmp.path().to_path_buf();
    let args = |out: &Path| {
        // Enough games that the interrupt, sent once the first is saved, comes
        // long before the last (with four the run could end before it arrived).
        ["selfplay", "-o", &out.display().to_string(), "--games", "24", "--nodes", "1500", "--seed", "5"]
            .map(String::from)
            .to_vec()
    };
    let whole = dir.join("whole.bin");
    run(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>());

    let stopped = dir.join("stopped.bin");
    let child = Command::new(DATAGEN).args(args(&stopped)).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let progress = dir.join("stopped.bin.progress");
    let start = Instant::now();
    while !progress.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("rerun the same command"), "{stderr}");
    // The file ends on a finished game: exactly the length the progress file names.
    let saved = std::fs::read_to_string(&progress).unwrap();
    let len = std::fs::metadata(&stopped).unwrap().len();
    assert!(saved.contains(&format!("bytes {len}\n")), "{saved} vs {len}");
    assert!(saved.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap() < 24, "{saved}");

    run(&args(&stopped).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(records(&stopped), records(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fen_lists_are_labelled_with_their_results() {
    let dir_tmp = temp_dir("fens");
    let dir = dir_tmp.path().to_path_buf();
    let p = |x: &Path| x.display().to_string();
    let list = dir.join("list.epd");
    std::fs::write(
        &list,
        "# three positions, three spellings of a result\n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; c9 \"1-0\";\n\
         8/8/4k3/8/8/4K3/4P3/8 w - - 0 60 [0.5]\n\
         rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2 | 0-1\n",
    )
    .unwrap();
    let out = dir.join("out.bin");
    let stdout = run(&["fens", &p(&list), "-o", &p(&out), "--depth", "3", "--jobs", "2"]).stdout;
    // The last position is mate in one for black: a mate score, so it is dropped.
    assert!(String::from_utf8_lossy(&stdout).contains("3 positions, 3 positions labelled now, 2 written"));
    let got = records(&out);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -"));
    assert!(got[0].ends_with(" | 1.0") && got[1].ends_with(" | 0.5"), "{got:?}");

    // A line without a result is refused unless the user says what it means.
    let bare = dir.join("bare.fen");
    std::fs::write(&bare, "8/8/4k3/8/8/4K3/4P3/8 w - - 0 60\n").unwrap();
    let refused = Command::new(DATAGEN).args(["fens", &p(&bare), "-o", &p(&dir.join("x.bin"))]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("bare.fen:1: no game result"), "{stderr}");
    let drawn = dir.join("drawn.txt");
    run(&["fens", &p(&bare), "-o", &p(&drawn), "--nodes", "2000", "--missing-result", "draw"]);
    assert!(records(&drawn)[0].ends_with(" | 0.5"));

    let broken = dir.join("broken.epd");
    std::fs::write(&broken, "8/8/4k3/8/8/4K3/4P3/8 w - - [1.0]\nnot a fen at all\n").unwrap();
    let refused = Command::new(DATAGEN).args(["fens", &p(&broken), "-o", &p(&dir.join("y.bin"))]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("broken.epd:2:"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn convert_and_stats_filter_and_count_what_they_drop() {
    let dir_tmp = temp_dir("filters");
    let dir = dir_tmp.path().to_path_buf();
    let p = |x: &Path| x.display().to_string();
    let text = dir.join("mixed.txt");
    std::fs::write(
        &text,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 0.5\n\
         4k3/8/8/8/8/8/8/4RK2 b - - 0 1 | 900 | 1.0\n\
         4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1 | 300 | 1.0\n\
         4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1 | 5000 | 1.0\n\
         4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1 | 100 | 0.5\n",
    )
    .unwrap();
    let out = dir.join("quiet.txt");
    let o = run(&["convert", &p(&text), "-o", &p(&out), "--skip-check", "--skip-capture", "--max-score", "3000"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("filters: 2 kept, 3 dropped (1 in check, 1 with a winning capture, 1 beyond the score bound)"),
        "{stdout}"
    );
    assert!(stdout.contains("wrote 2 positions"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
    // Through every format and back: the same two lines.
    let mut from = out.clone();
    for name in ["q.bin", "q.binpack", "q.vf", "q2.bin", "back.txt"] {
        let to = dir.join(name);
        let o = run(&["convert", &p(&from), "-o", &p(&to)]);
        assert!(String::from_utf8_lossy(&o.stdout).contains("wrote 2 positions"), "{name}");
        from = to;
    }
    assert_eq!(std::fs::read_to_string(&from).unwrap(), std::fs::read_to_string(&out).unwrap());
    let o = run(&["convert", &p(&out), "-o", &p(&dir.join("q.data")), "--to", "bulletformat"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("wrote 2 positions"));
    assert_eq!(std::fs::metadata(dir.join("q.data")).unwrap().len(), 64);
    // Damage is an error with the file and where, not a panic.
    std::fs::write(dir.join("junk.binpack"), b"BINPjunkjunkjunk").unwrap();
    let bad = Command::new(DATAGEN)
        .args(["convert", &p(&dir.join("junk.binpack")), "-o", &p(&dir.join("junk.txt"))])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && stderr.contains("junk.binpack") && stderr.contains("byte"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let o = run(&["stats", &p(&text), "--skip-check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("filters: 4 kept, 1 dropped (1 in check, 0 with"), "{stdout}");
    // Without filters nothing is dropped and no filter line is printed.
    let o = run(&["stats", &p(&text)]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("filters:"));
}

/// The UCI engines the `selfplay --engine` tests can use: Tessera's release
/// binary (built by `make test` first) and Debian's stockfish if installed.
fn uci_engines() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut engines = Vec::new();
    let tessera = root.join("target/release/tessera");
    if tessera.exists() {
        engines.push(tessera.display().to_string());
    } else {
        tessera::testing::skip("release-build", "tessera: build it with `cargo build --release` first");
    }
    match ["/usr/games/stockfish", "/usr/bin/stockfish"].into_iter().find(|p| Path::new(p).exists()) {
        Some(sf) => engines.push(sf.to_string()),
        None => tessera::testing::skip("stockfish", "stockfish: not installed"),
    }
    engines
}

#[test]
fn uci_selfplay_is_reproducible_resumable_and_refuses_bad_engines() {
    let dir_tmp = temp_dir("uci-selfplay");
    let dir = dir_tmp.path().to_path_buf();
    let book = dir.join("book.epd");
    std::fs::write(&book, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\nrnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -\n").unwrap();
    for (n, engine) in uci_engines().into_iter().enumerate() {
        let args = |out: &Path| {
            let mut a: Vec<String> = ["selfplay", "-o"].map(String::from).to_vec();
            a.push(out.display().to_string());
            a.extend(["--engine", &engine, "--engine-option", "Hash=8", "--book"].map(String::from));
            a.push(book.display().to_string());
            a.extend(
                ["--games", "4", "--nodes", "300", "--jobs", "2", "--seed", "5", "--random-plies", "2"]
                    .map(String::from),
            );
            a.extend(["--random-move-prob", "0.05", "--multipv-pick", "2"].map(String::from));
            a
        };
        let whole = dir.join(format!("whole-{n}.bin"));
        let text = String::from_utf8(run(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>()).stdout).unwrap();
        assert!(text.contains("4 games played now"), "{engine}: {text}");
        let expected = records(&whole);
        assert!(expected.len() > 10, "{engine}: {} positions", expected.len());
        for line in &expected {
            let pos = position_of(line);
            assert!(!shakmaty::Position::is_check(&pos), "{engine}: a position in check was kept: {line}");
        }
        // The same seed gives the same games (one search thread, a new game
        // for each): killed after its first chunk and rerun, the same output.
        let resumed = dir.join(format!("resumed-{n}.bin"));
        let mut child = Command::new(DATAGEN).args(args(&resumed)).stderr(std::process::Stdio::null()).spawn().unwrap();
        let progress = dir.join(format!("resumed-{n}.bin.progress"));
        let start = Instant::now();
        while !progress.exists() && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        run(&args(&resumed).iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(records(&resumed), expected, "{engine}");
    }

    // A missing engine, and one that dies when asked to search: a clear
    // error, no records beyond what the progress file names.
    let missing = Command::new(DATAGEN)
        .args(["selfplay", "-o", &dir.join("m.bin").display().to_string(), "--engine", "/nonexistent/engine"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot start /nonexistent/engine"));
    let crashing = dir.join("crashing.sh");
    std::fs::write(
        &crashing,
        "#!/bin/sh\nwhile read line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; go*) exit 3;; esac; done\n",
    )
    .unwrap();
    std::process::Command::new("chmod").args(["+x", &crashing.display().to_string()]).status().unwrap();
    let out = dir.join("c.bin");
    let crashed = Command::new(DATAGEN)
        .args([
            "selfplay",
            "-o",
            &out.display().to_string(),
            "--engine",
            &crashing.display().to_string(),
            "--games",
            "2",
        ])
        .output()
        .unwrap();
    assert!(!crashed.status.success());
    assert!(
        String::from_utf8_lossy(&crashed.stderr).contains("exited"),
        "{}",
        String::from_utf8_lossy(&crashed.stderr)
    );
    assert!(records(&out).is_empty());
    let bad_option = Command::new(DATAGEN)
        .args([
            "selfplay",
            "-o",
            &out.display().to_string(),
            "--engine",
            &crashing.display().to_string(),
            "--engine-option",
            "novalue",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad_option.stderr).contains("expected NAME=VALUE"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn agree_ranks_labellings_of_the_same_positions_and_refuses_disjoint_ones() {
    let dir_tmp = temp_dir("agree");
    let dir = dir_tmp.path().to_path_buf();
    let p = |x: &Path| x.display().to_string();
    let write = |name: &str, lines: &[(&str, i32)]| {
        let path = dir.join(name);
        let text: String = lines.iter().map(|(fen, cp)| format!("{fen} | {cp} | 0.5\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    const A: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const B: &str = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    const C: &str = "4k3/8/8/8/8/8/8/4K2R b K - 0 1";
    let reference = write("deep.txt", &[(A, 20), (B, 700), (C, 650)]);
    let close = write("close.txt", &[(A, 30), (B, 690), (C, 600)]);
    // Far off at the start position, and without C: only A and B are shared.
    let far = write("far.txt", &[(A, 300), (B, 900)]);
    let out = run(&["agree", &p(&close), &p(&far), "--reference", &p(&reference)]).stdout;
    let table = String::from_utf8_lossy(&out);
    assert!(table.contains("positions held by the reference and every candidate: 2"), "{table}");
    assert!(table.contains("far.txt: 2 records, 2 distinct positions"), "{table}");
    let row = |name: &str| table.lines().find(|l| l.starts_with("| ") && l.contains(name)).unwrap().to_string();
    assert!(row("close.txt").contains("| 10.0 | —"), "{table}");
    assert!(row("far.txt").contains("| 240.0 | +0.0"), "{table}");

    let disjoint = write("disjoint.txt", &[(C, 0)]);
    let refused = Command::new(DATAGEN).args(["agree", &p(&far), "--reference", &p(&disjoint)]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("no position is held by"), "{stderr}");
    let refused = Command::new(DATAGEN)
        .args(["agree", &p(&close), "--reference", &p(&reference), "--scale", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("--scale must be a positive"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

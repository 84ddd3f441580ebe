//! Labelling sampled positions in parallel into a record file, resumably:
//! after every chunk the output is synced and `<output>.progress` records how
//! many samples are done and how long the output was. A rerun truncates the
//! output to that length and goes on from there, so a kill at any moment
//! neither loses finished work nor leaves a half-written record behind.
//! Ctrl-C (see [`crate::interrupt`]) stops the run once the items in hand are
//! finished and saved.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::{Chess, Color, Position};

use crate::fenlist::Listed;
use crate::label::{Label, Labeller};
use tessera_data::filter::Filter;
use tessera_data::formats::{self, Entry, EntryWriter, Format};
use tessera_data::record::Record;

fn progress_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// What a run's items are, as its progress file records them: a run
/// resumed with another kind of item would misread the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Self-play games.
    Games,
    /// Positions, each labelled alone.
    Positions,
    /// The positions of a game, labelled in order by one labeller.
    GamesOfPositions,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Games => "games",
            Unit::Positions => "positions",
            Unit::GamesOfPositions => "games-of-positions",
        }
    }

    /// Progress files written before units were recorded counted self-play
    /// games or single positions: their runs resume as before.
    fn resumes_unmarked(self) -> bool {
        self != Unit::GamesOfPositions
    }

    fn what(self) -> &'static str {
        match self {
            Unit::Games => "playing self-play games",
            Unit::Positions => "labelling positions one at a time",
            Unit::GamesOfPositions => "labelling positions a game at a time (--keep-hash)",
        }
    }
}

/// (items done, output bytes) of an earlier run, if any.
fn read_progress(output: &Path, unit: Unit) -> Result<Option<(usize, u64)>, String> {
    let path = progress_path(output);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    let mut words = text.split_whitespace();
    let mut number = |tag: &str| -> Result<u64, String> {
        (words.next() == Some(tag)).then_some(()).ok_or("")?;
        words.next().and_then(|w| w.parse().ok()).ok_or_else(|| format!("{}: damaged progress file", path.display()))
    };
    let bad = |_| format!("{}: damaged progress file; remove it to start over", path.display());
    let done = number("done").map_err(bad)?;
    let bytes = number("bytes").map_err(bad)?;
    let counted = match (words.next(), words.next()) {
        (Some("unit"), Some(name)) => Some(name),
        (None, _) => None,
        _ => return Err(bad(String::new())),
    };
    let same = match counted {
        Some(name) => name == unit.name(),
        None => unit.resumes_unmarked(),
    };
    if !same {
        let earlier = [Unit::Games, Unit::Positions, Unit::GamesOfPositions]
            .into_iter()
            .find(|u| Some(u.name()) == counted)
            .map_or("with items of another kind", |u| u.what());
        return Err(format!(
            "{} was begun {earlier}; this run is {}: resume it as it was begun, or choose another output",
            output.display(),
            unit.what()
        ));
    }
    Ok(Some((done as usize, bytes)))
}

fn write_progress(output: &Path, done: usize, bytes: u64, unit: Unit) -> Result<(), String> {
    let path = progress_path(output);
    let tmp = path.with_extension("progress.tmp");
    std::fs::write(&tmp, format!("done {done}\nbytes {bytes}\nunit {}\n", unit.name())).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, &path).map_err(|e| e.to_string())
}

/// Opens `output` (creating it empty) and locks it for this run alone. A
/// second run on the same file (a resume started while the first still
/// runs, say) would cut it back to the progress file's count and write
/// beside the first: both runs' records would be lost in the mix.
fn lock_output(output: &Path) -> Result<std::fs::File, String> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(output)
        .map_err(|e| format!("{}: {e}", output.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "{} is being written by another run (it holds the file's lock): stop that one, or wait for it, \
             before resuming",
            output.display()
        )),
        // A file system without locks: run as before, unguarded.
        Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => Ok(file),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: cannot lock: {e}", output.display())),
    }
}

/// What a run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Items finished by an earlier run.
    pub resumed_from: usize,
    /// Items processed by this run.
    pub labelled: usize,
    pub written: usize,
    /// Stopped by Ctrl-C before the last item; a rerun goes on.
    pub interrupted: bool,
}

/// Progress on stderr: a bar on a terminal, else a line every half minute.
struct Progress {
    bar: ProgressBar,
    clock: Instant,
    last_line: Instant,
}

impl Progress {
    fn new(items: usize, start: usize) -> Progress {
        let bar = ProgressBar::new(items as u64).with_position(start as u64);
        if let Ok(style) = ProgressStyle::with_template("[{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.reset_eta();
        Progress { bar, clock: Instant::now(), last_line: Instant::now() }
    }

    fn update(&mut self, done: usize, items: usize, written: usize) {
        let seconds = self.clock.elapsed().as_secs_f64().max(1e-9);
        let per_hour = written as f64 / seconds * 3600.0;
        self.bar.set_position(done as u64);
        self.bar.set_message(format!("{per_hour:.0} positions/hour"));
        if self.bar.is_hidden() && (self.last_line.elapsed() > Duration::from_secs(30) || done == items) {
            self.last_line = Instant::now();
            eprintln!("{done}/{items} done, {written} positions written, {per_hour:.0} positions/hour");
        }
    }
}

/// Runs `work` for items `0..items`, spread over `workers` (each item's
/// records must depend only on the item, not on the worker), and appends the
/// records to `output` in item order, resuming where an earlier run stopped.
///
/// Each worker takes the next item as soon as it is free, so a long game or a
/// slow label holds up only its own worker (the items of a fixed block, each
/// worker's share waiting for the slowest, left a third of two cores idle).
/// Finished items wait in order to be written; workers stay within a window of
/// items ahead of the writer. The output is synced and the progress file
/// written after every `chunk × workers` items, after a failure (the items
/// before it) and at the end. Ctrl-C stops the taking of new items; the items
/// in hand are finished and saved.
pub fn produce_into<W: Send>(
    items: usize,
    unit: Unit,
    workers: &mut [W],
    output: &Path,
    chunk: usize,
    work: impl Fn(&mut W, usize) -> Result<Vec<Entry>, String> + Sync,
) -> Result<Outcome, String> {
    let mut outcome = Outcome::default();
    // Held until the run ends; the system drops it with the process.
    let only_writer = lock_output(output)?;
    let start = match read_progress(output, unit)? {
        Some((done, bytes)) => {
            only_writer.set_len(bytes).map_err(|e| e.to_string())?;
            done.min(items)
        }
        None => {
            if only_writer.metadata().map_err(|e| e.to_string())?.len() > 0 {
                return Err(format!(
                    "{} exists without a progress file: choose another output or remove it",
                    output.display()
                ));
            }
            0
        }
    };
    outcome.resumed_from = start;
    // Any format: each item's entries are a game (or a position), and a sync
    // ends the game being written, so the file is whole at every sync.
    let mut writer = formats::append(output, Format::of_path(output))?;
    let mut progress = Progress::new(items, start);
    let jobs = workers.len().max(1);
    let sync_every = chunk.max(1) * jobs;
    let window = 16 * sync_every;
    let next = AtomicUsize::new(start);
    let stop = AtomicBool::new(false);
    // Items written so far, for the workers' window.
    let written_to = (Mutex::new(start), Condvar::new());
    let halted = || stop.load(Ordering::SeqCst) || crate::interrupt::requested();
    let work = &work;
    let mut done = start;
    let mut synced = start;
    let mut failure = None;
    let mut save = |writer: &mut Box<dyn EntryWriter>, done: usize, outcome: &Outcome| -> Result<(), String> {
        writer.sync()?;
        let bytes = std::fs::metadata(output).map_err(|e| e.to_string())?.len();
        write_progress(output, done, bytes, unit)?;
        progress.update(done, items, outcome.written);
        Ok(())
    };
    std::thread::scope(|scope| -> Result<(), String> {
        let (sender, finished) = mpsc::channel::<(usize, Result<Vec<Entry>, String>)>();
        for worker in workers.iter_mut() {
            let sender = sender.clone();
            let (next, written_to, halted) = (&next, &written_to, &halted);
            // On a search thread's stack: the worker's own searches (games,
            // labels by Tessera) then run on it instead of each starting a thread.
            scope.spawn(move || {
                tessera::search::with_search_stack(move || {
                    while !halted() {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= items {
                            break;
                        }
                        let (lock, moved) = written_to;
                        let mut written = lock.lock().expect("writer position");
                        // Timed waits: Ctrl-C sets a flag and wakes no one.
                        while i >= *written + window && !halted() {
                            written =
                                moved.wait_timeout(written, Duration::from_millis(100)).expect("writer position").0;
                        }
                        drop(written);
                        if halted() {
                            break;
                        }
                        // A panic becomes the item's error, so the writer stops the
                        // others instead of waiting for an item that never comes.
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(worker, i)))
                            .unwrap_or_else(|_| Err(format!("item {i}: the worker panicked")));
                        if sender.send((i, result)).is_err() {
                            break;
                        }
                    }
                })
            });
        }
        drop(sender);
        let mut waiting = std::collections::BTreeMap::new();
        let write_in_order = || -> Result<(), String> {
            for (i, result) in finished {
                waiting.insert(i, result);
                while failure.is_none() {
                    let Some(result) = waiting.remove(&done) else { break };
                    match result {
                        Ok(entries) => {
                            for e in &entries {
                                writer.write(e)?;
                            }
                            outcome.labelled += 1;
                            outcome.written += entries.iter().filter(|e| e.record.score != formats::NO_SCORE).count();
                            done += 1;
                        }
                        Err(e) => {
                            failure = Some(e);
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                    if done - synced >= sync_every {
                        save(&mut writer, done, &outcome)?;
                        synced = done;
                    }
                    let (lock, moved) = &written_to;
                    *lock.lock().expect("writer position") = done;
                    moved.notify_all();
                }
            }
            Ok(())
        };
        let written = write_in_order();
        // Also when the writer failed (a full disk): no worker may wait for it.
        stop.store(true, Ordering::SeqCst);
        written
    })?;
    if done > synced {
        save(&mut writer, done, &outcome)?;
    }
    progress.bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    outcome.interrupted = done < items;
    Ok(outcome)
}

/// How samples are dealt to the labellers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dealing<'a> {
    /// One at a time: each label depends on its position alone.
    Positions,
    /// A game at a time, `starts` holding the index of each game's first
    /// sample (ascending, the first 0): the labeller is told of each game
    /// before its positions and labels them in order, so a labeller that keeps
    /// its table between a game's positions gives labels that depend on that
    /// game alone, whichever worker takes it.
    Games { starts: &'a [usize] },
}

/// Labels `samples` with one labeller per worker and appends the kept ones
/// to `output` in sample order (the same output whatever the worker count).
pub fn label_into(
    samples: &[Listed],
    dealing: Dealing,
    labellers: &mut [Box<dyn Labeller>],
    filter: Filter,
    output: &Path,
    chunk: usize,
) -> Result<Outcome, String> {
    let one = |labeller: &mut Box<dyn Labeller>, s: &Listed| -> Result<Option<Entry>, String> {
        let label = labeller.label(&s.pos)?;
        Ok(kept_score(&filter, &s.pos, &label).map(|score| {
            let white = if s.pos.turn() == Color::White { score } else { -score };
            let score = white.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16;
            Record { pos: s.pos.clone(), score, result: s.result }.into()
        }))
    };
    match dealing {
        Dealing::Positions => produce_into(samples.len(), Unit::Positions, labellers, output, chunk, |labeller, i| {
            Ok(one(labeller, &samples[i])?.into_iter().collect())
        }),
        Dealing::Games { starts } => {
            if starts.is_empty() != samples.is_empty()
                || starts.first().is_some_and(|&s| s != 0)
                || starts.windows(2).any(|w| w[0] >= w[1])
                || starts.last().is_some_and(|&s| s >= samples.len())
            {
                return Err("the games' first samples are out of order".into());
            }
            produce_into(starts.len(), Unit::GamesOfPositions, labellers, output, chunk, |labeller, g| {
                let end = starts.get(g + 1).copied().unwrap_or(samples.len());
                labeller.new_game()?;
                let mut kept = Vec::new();
                for s in &samples[starts[g]..end] {
                    kept.extend(one(labeller, s)?);
                }
                Ok(kept)
            })
        }
    }
}

/// The score a labelled position is kept with: none where the labeller gave
/// no score (a mate) or the filter drops it.
fn kept_score(filter: &Filter, pos: &Chess, label: &Label) -> Option<i32> {
    let score = label.score?;
    filter.check_labelled(pos, score, label.best.as_ref()).ok().map(|()| score)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Move};

    /// Scores by ply count; can be told to fail, like an engine that dies.
    struct Fake {
        fail_after: Option<usize>,
        seen: usize,
    }

    impl Labeller for Fake {
        fn label(&mut self, pos: &Chess) -> Result<Label, String> {
            self.seen += 1;
            if self.fail_after.is_some_and(|n| self.seen > n) {
                return Err("engine died".into());
            }
            let score = pos.fullmoves().get() as i32 * 10 - 500;
            Ok(Label { score: (score != -490).then_some(score), best: None })
        }
    }

    fn samples() -> Vec<Listed> {
        let mut pos = Chess::default();
        let mut out = Vec::new();
        for game in 0..200u64 {
            let moves = pos.legal_moves();
            let m: Move = moves[game as usize % moves.len()];
            out.push(Listed { pos: pos.clone(), result: (game % 3) as u8 });
            pos.play_unchecked(m);
            if pos.legal_moves().is_empty() || pos.fullmoves().get() > 60 {
                pos = Chess::default();
            }
        }
        out
    }

    fn labellers(n: usize, fail_after: Option<usize>) -> Vec<Box<dyn Labeller>> {
        (0..n).map(|_| Box::new(Fake { fail_after, seen: 0 }) as Box<dyn Labeller>).collect()
    }

    /// An empty folder of this test process's own.
    fn fresh_dir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("tessera-{tag}-")).tempdir().unwrap()
    }

    /// Item `i`'s record: its score is `i`, so the order of a file shows.
    fn numbered(samples: &[Listed], i: usize) -> Record {
        Record { pos: samples[i].pos.clone(), score: i as i16, result: 1 }
    }

    #[test]
    fn an_interrupted_run_resumes_to_the_same_output() {
        let dir_tmp = fresh_dir("");
        let dir = dir_tmp.path().to_path_buf();
        let samples = samples();
        let whole = dir.join("whole.bin");
        let outcome =
            label_into(&samples, Dealing::Positions, &mut labellers(3, None), Filter::default(), &whole, 4).unwrap();
        assert_eq!(outcome.labelled, 200);
        assert!(outcome.written < 200, "mates (here: one fake score) are dropped");

        let broken = dir.join("broken.bin");
        let err = label_into(&samples, Dealing::Positions, &mut labellers(2, Some(30)), Filter::default(), &broken, 4)
            .unwrap_err();
        assert!(err.contains("engine died"));
        // A kill during the next write leaves a torn record; the rerun cuts it.
        let mut f = std::fs::OpenOptions::new().append(true).open(&broken).unwrap();
        std::io::Write::write_all(&mut f, &[1, 2, 3]).unwrap();
        let outcome =
            label_into(&samples, Dealing::Positions, &mut labellers(1, None), Filter::default(), &broken, 4).unwrap();
        assert!(outcome.resumed_from > 0 && outcome.resumed_from < 200, "{outcome:?}");
        assert_eq!(std::fs::read(&broken).unwrap(), std::fs::read(&whole).unwrap());

        // Without its progress file an existing output is not touched.
        std::fs::remove_file(progress_path(&whole)).unwrap();
        assert!(
            label_into(&samples, Dealing::Positions, &mut labellers(1, None), Filter::default(), &whole, 4).is_err()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_on_a_file_another_run_writes_is_refused_and_changes_nothing() {
        let dir_tmp = fresh_dir("locked-");
        let dir = dir_tmp.path().to_path_buf();
        let samples = samples();
        let output = dir.join("out.bin");
        let first =
            produce_into(10, Unit::Positions, &mut [()], &output, 1, |_, i| Ok(vec![numbered(&samples, i).into()]))
                .unwrap();
        assert_eq!(first.written, 10);
        let before = std::fs::read(&output).unwrap();
        // A run still writing holds the lock (as a separate open would).
        let running = std::fs::OpenOptions::new().write(true).open(&output).unwrap();
        running.lock().unwrap();
        let err =
            produce_into(20, Unit::Positions, &mut [()], &output, 1, |_, i| Ok(vec![numbered(&samples, i).into()]))
                .unwrap_err();
        assert!(err.contains("another run"), "{err}");
        assert_eq!(std::fs::read(&output).unwrap(), before, "the file untouched");
        assert_eq!(read_progress(&output, Unit::Positions).unwrap(), Some((10, 10 * 32)));
        // Once that run ends the resume goes on.
        drop(running);
        let resumed =
            produce_into(20, Unit::Positions, &mut [()], &output, 1, |_, i| Ok(vec![numbered(&samples, i).into()]))
                .unwrap();
        assert_eq!((resumed.resumed_from, resumed.written), (10, 10));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_slow_item_holds_up_only_its_own_worker() {
        let dir_tmp = fresh_dir("slow-");
        let dir = dir_tmp.path().to_path_buf();
        let samples = samples();
        // Item 0 finishes only once every other item has: with fixed blocks
        // (each worker's share of a block awaited) this would never end.
        let items = 20;
        let others_done = AtomicUsize::new(0);
        let output = dir.join("out.bin");
        let outcome = produce_into(items, Unit::Positions, &mut [(), ()], &output, 1, |_, i| {
            if i == 0 {
                let waited = Instant::now();
                while others_done.load(Ordering::SeqCst) < items - 1 {
                    assert!(waited.elapsed() < Duration::from_secs(60), "the other items never ran");
                    std::thread::sleep(Duration::from_millis(1));
                }
            } else {
                others_done.fetch_add(1, Ordering::SeqCst);
            }
            Ok(vec![numbered(&samples, i).into()])
        })
        .unwrap();
        assert_eq!((outcome.labelled, outcome.written, outcome.interrupted), (items, items, false));
        assert_eq!(scores(&output), (0..items as i16).collect::<Vec<_>>(), "written in item order");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_panicking_item_is_an_error_and_the_items_before_it_are_saved() {
        let dir_tmp = fresh_dir("panic-");
        let dir = dir_tmp.path().to_path_buf();
        let samples = samples();
        let output = dir.join("out.bin");
        let err = produce_into(40, Unit::Positions, &mut [(), (), ()], &output, 1, |_, i| {
            assert!(i != 7, "a bug at item 7");
            Ok(vec![numbered(&samples, i).into()])
        })
        .unwrap_err();
        assert!(err.contains("item 7") && err.contains("panicked"), "{err}");
        assert_eq!(read_progress(&output, Unit::Positions).unwrap(), Some((7, 7 * 32)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Keeps a table between positions, like an engine's hash: a label
    /// depends on what the labeller saw since it was last told of a game.
    struct Remembering {
        seen_since_game: i32,
    }

    impl Labeller for Remembering {
        fn label(&mut self, pos: &Chess) -> Result<Label, String> {
            self.seen_since_game += 1;
            Ok(Label { score: Some(self.seen_since_game * 1000 + pos.fullmoves().get() as i32), best: None })
        }

        fn new_game(&mut self) -> Result<(), String> {
            self.seen_since_game = 0;
            Ok(())
        }
    }

    fn remembering(n: usize) -> Vec<Box<dyn Labeller>> {
        (0..n).map(|_| Box::new(Remembering { seen_since_game: 0 }) as Box<dyn Labeller>).collect()
    }

    fn scores(path: &Path) -> Vec<i16> {
        let mut scores = Vec::new();
        tessera_data::store::read_records(path, |r| scores.push(r.score)).unwrap();
        scores
    }

    #[test]
    fn games_dealt_whole_give_the_same_labels_whatever_the_workers_and_resume() {
        let dir_tmp = fresh_dir("games-");
        let dir = dir_tmp.path();
        let samples = samples();
        let starts: Vec<usize> = (0..samples.len()).step_by(7).collect();
        let games = Dealing::Games { starts: &starts };
        let one = dir.join("one.bin");
        let outcome = label_into(&samples, games, &mut remembering(1), Filter::default(), &one, 2).unwrap();
        assert_eq!((outcome.labelled, outcome.written), (starts.len(), samples.len()));
        let three = dir.join("three.bin");
        label_into(&samples, games, &mut remembering(3), Filter::default(), &three, 2).unwrap();
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&three).unwrap());
        // Each game's positions labelled in order by one labeller, told of the game first.
        let seen: Vec<i16> = scores(&one).iter().map(|s| s.abs() / 1000).collect();
        let expected: Vec<i16> = (0..samples.len()).map(|i| (i % 7) as i16 + 1).collect();
        assert_eq!(seen, expected);

        // Stopped after some games, resumed by another number of workers.
        let resumed = dir.join("resumed.bin");
        let partial = &samples[..starts[10]];
        label_into(
            partial,
            Dealing::Games { starts: &starts[..10] },
            &mut remembering(2),
            Filter::default(),
            &resumed,
            2,
        )
        .unwrap();
        let outcome = label_into(&samples, games, &mut remembering(3), Filter::default(), &resumed, 2).unwrap();
        assert_eq!(outcome.resumed_from, 10);
        assert_eq!(std::fs::read(&resumed).unwrap(), std::fs::read(&one).unwrap());

        let bad = [0, 9, 5];
        let err = label_into(
            &samples,
            Dealing::Games { starts: &bad },
            &mut remembering(1),
            Filter::default(),
            &dir.join("bad.bin"),
            2,
        )
        .unwrap_err();
        assert!(err.contains("out of order"), "{err}");
    }

    #[test]
    fn a_run_resumes_only_with_the_items_it_was_begun_with() {
        let dir_tmp = fresh_dir("unit-");
        let dir = dir_tmp.path();
        let samples = samples();
        let starts: Vec<usize> = (0..samples.len()).step_by(7).collect();
        let by_position = dir.join("positions.bin");
        label_into(&samples[..50], Dealing::Positions, &mut labellers(1, None), Filter::default(), &by_position, 4)
            .unwrap();
        let err = label_into(
            &samples,
            Dealing::Games { starts: &starts },
            &mut remembering(1),
            Filter::default(),
            &by_position,
            4,
        )
        .unwrap_err();
        assert!(err.contains("one at a time") && err.contains("--keep-hash"), "{err}");
        let by_game = dir.join("games.bin");
        label_into(
            &samples[..49],
            Dealing::Games { starts: &starts[..7] },
            &mut remembering(1),
            Filter::default(),
            &by_game,
            4,
        )
        .unwrap();
        let err = label_into(&samples, Dealing::Positions, &mut labellers(1, None), Filter::default(), &by_game, 4)
            .unwrap_err();
        assert!(err.contains("a game at a time"), "{err}");

        // A progress file from before units were recorded counted positions
        // (or self-play games): such a run resumes as it was begun, and only so.
        let text = std::fs::read_to_string(progress_path(&by_position)).unwrap();
        let unmarked: String = text.lines().filter(|l| !l.starts_with("unit")).map(|l| format!("{l}\n")).collect();
        std::fs::write(progress_path(&by_position), unmarked).unwrap();
        assert!(
            label_into(
                &samples,
                Dealing::Games { starts: &starts },
                &mut remembering(1),
                Filter::default(),
                &by_position,
                4
            )
            .is_err()
        );
        let outcome =
            label_into(&samples, Dealing::Positions, &mut labellers(1, None), Filter::default(), &by_position, 4)
                .unwrap();
        assert_eq!(outcome.resumed_from, 50);
    }

    #[test]
    fn filters() {
        let s = &samples()[0].pos;
        let label = |score| Label { score: Some(score), best: None };
        assert_eq!(kept_score(&Filter::default(), s, &label(5000)), Some(5000));
        assert_eq!(kept_score(&Filter { max_score: Some(3000), ..Filter::default() }, s, &label(5000)), None);
        assert_eq!(kept_score(&Filter::default(), s, &Label { score: None, best: None }), None);
    }
}

//! Training sources: `--data` and `--validation` arguments, each a file or
//! a glob with an optional share or cap, read, filtered, deduplicated and
//! held apart from the validation files.
//!
//! `PATH`            every sample of every file the path or glob names
//! `PATH:0.5`        a share (a number with a decimal point, 0 < x ≤ 1): each
//!                   file keeps that fraction of its samples, chosen by
//!                   position hash and seed
//! `PATH:200000`     a cap (an integer): each file keeps at most that many
//!                   samples, the same hash order deciding which
//! `PATH:x1.2`       a score factor: each eval score of the file is multiplied
//!                   by it (after the filters), for files whose labeller scores
//!                   on another scale (a game's own search scores run about
//!                   0.83× Stockfish's); it may follow a share or cap
//!                   (`PATH:0.5:x1.2`)
//! `PATH:t0.8`       a teacher weight: the `--teacher`'s share of the file's
//!                   training scores, in place of `--teacher-weight` (own
//!                   shallow labels mostly replaced, a deep labeller's kept);
//!                   with a score factor in either order (`PATH:x1.15:t0.8`)
//!
//! Positions of the validation files are never trained on: every training
//! sample whose position appears in a validation file is dropped, so holding
//! out the tail of a game-ordered file (`zstdcat f | tail -n N > val.txt`)
//! holds out whole games.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tessera_data::filter::{Filter, FilterCounts};

use crate::data::samples::{self, DataError, Method, Samples, key};

/// How much of each file a source keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Take {
    All,
    Share(f64),
    Cap(usize),
}

/// One `--data` or `--validation` argument.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSpec {
    pub pattern: String,
    pub take: Take,
    /// Multiplies every eval score of the source (1: as labelled).
    pub score_factor: f32,
    /// The teacher's share of this source's training scores, where it is not
    /// `--teacher-weight` (`None`).
    pub teacher_weight: Option<f32>,
}

/// Whether a `:`-suffix reads as a number (a share or a cap).
fn is_number(suffix: &str) -> bool {
    suffix.starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// The per-file modifiers a `:`-suffix may be: a letter and a number.
#[derive(Clone, Copy)]
enum Modifier {
    /// `xF`
    ScoreFactor,
    /// `tW`
    TeacherWeight,
}

impl Modifier {
    fn name(self) -> &'static str {
        match self {
            Modifier::ScoreFactor => "score factor",
            Modifier::TeacherWeight => "teacher weight",
        }
    }
}

/// The modifier a `:`-suffix is, if any.
fn modifier(suffix: &str) -> Option<Modifier> {
    if suffix.strip_prefix('x').is_some_and(is_number) {
        Some(Modifier::ScoreFactor)
    } else if suffix.strip_prefix('t').is_some_and(is_number) {
        Some(Modifier::TeacherWeight)
    } else {
        None
    }
}

impl std::str::FromStr for SourceSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<SourceSpec, String> {
        // Modifiers (`:xF`, `:tW`) are peeled off the end first, in any order;
        // what remains is the path and its optional share or cap.
        let mut rest = text;
        let (mut score_factor, mut teacher_weight) = (None, None);
        while let Some((head, suffix)) = rest.rsplit_once(':')
            && !head.is_empty()
            && let Some(kind) = modifier(suffix)
        {
            let value: f32 = suffix[1..].parse().map_err(|_| format!("{text}: bad {} '{suffix}'", kind.name()))?;
            let slot = match kind {
                Modifier::ScoreFactor => {
                    if !(value.is_finite() && value > 0.0) {
                        return Err(format!("{text}: a score factor must be positive, got {suffix}"));
                    }
                    &mut score_factor
                }
                Modifier::TeacherWeight => {
                    if !(0.0..=1.0).contains(&value) {
                        return Err(format!("{text}: a teacher weight must be within 0 and 1, got {suffix}"));
                    }
                    &mut teacher_weight
                }
            };
            if slot.replace(value).is_some() {
                return Err(format!("{text}: more than one {}", kind.name()));
            }
            rest = head;
        }
        let score_factor = score_factor.unwrap_or(1.0);
        if let Some((pattern, suffix)) = rest.rsplit_once(':')
            && !pattern.is_empty()
            && is_number(suffix)
        {
            if pattern.rsplit_once(':').is_some_and(|(_, s)| modifier(s).is_some()) {
                return Err(format!(
                    "{text}: a score factor or teacher weight comes after the share or cap (PATH:0.5:x1.2)"
                ));
            }
            let take = if suffix.contains('.') {
                let share: f64 = suffix.parse().map_err(|_| format!("{text}: bad share '{suffix}'"))?;
                if !(share > 0.0 && share <= 1.0) {
                    return Err(format!("{text}: a share must be in (0, 1], got {suffix}"));
                }
                Take::Share(share)
            } else {
                let cap: usize = suffix.parse().map_err(|_| format!("{text}: bad cap '{suffix}'"))?;
                if cap == 0 {
                    return Err(format!("{text}: a cap must be at least 1"));
                }
                Take::Cap(cap)
            };
            return Ok(SourceSpec { pattern: pattern.to_string(), take, score_factor, teacher_weight });
        }
        Ok(SourceSpec { pattern: rest.to_string(), take: Take::All, score_factor, teacher_weight })
    }
}

impl fmt::Display for SourceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.take {
            Take::All => write!(f, "{}", self.pattern)?,
            Take::Share(s) => write!(f, "{}:{s}", self.pattern)?,
            Take::Cap(c) => write!(f, "{}:{c}", self.pattern)?,
        }
        if self.score_factor != 1.0 {
            write!(f, ":x{}", self.score_factor)?;
        }
        if let Some(weight) = self.teacher_weight {
            write!(f, ":t{weight}")?;
        }
        Ok(())
    }
}

impl SourceSpec {
    /// The files the pattern names, sorted: itself if it exists, else the
    /// glob's matches. A pattern that names nothing is an error.
    pub fn files(&self) -> Result<Vec<PathBuf>, String> {
        let path = Path::new(&self.pattern);
        if path.exists() || !self.pattern.contains(['*', '?', '[']) {
            return Ok(vec![path.to_path_buf()]);
        }
        let mut files: Vec<PathBuf> = glob::glob(&self.pattern)
            .map_err(|e| format!("{}: bad pattern: {e}", self.pattern))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!("{}: no file matches", self.pattern));
        }
        Ok(files)
    }
}

/// A per-sample pseudo-random rank from its key and the seed: which samples a
/// share or cap keeps. Keyed by position, so the choice does not depend on
/// file order.
fn rank(key: u64, seed: u64) -> u64 {
    let mut z = key ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What one file gave.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    pub path: PathBuf,
    pub lines: usize,
    pub rejected: usize,
    pub filtered: FilterCounts,
    /// Left out by the share or cap.
    pub not_taken: usize,
    /// Left out because an earlier file (or this one) already had the position.
    pub duplicates: usize,
    /// Left out because a validation file has the position.
    pub held_out: usize,
    pub used: usize,
}

impl fmt::Display for FileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} lines, {} rejected, {} in check, {} with a winning capture, {} beyond the score bound, \
             {} not taken, {} duplicates, {} held out → {} used",
            self.path.display(),
            self.lines,
            self.rejected,
            self.filtered.in_check,
            self.filtered.winning_capture,
            self.filtered.score_beyond_bound,
            self.not_taken,
            self.duplicates,
            self.held_out,
            self.used
        )
    }
}

/// Everything the trainer reads.
pub struct Loaded {
    pub train: Samples,
    /// The training samples in runs of one source each, in order: each run's
    /// length and its source's teacher weight (`:tW`, if given).
    pub teacher_spans: Vec<(usize, Option<f32>)>,
    /// One named set per validation file.
    pub validation: Vec<(String, Samples)>,
    pub train_files: Vec<FileReport>,
    pub validation_files: Vec<FileReport>,
    /// The first line rejected, if any: file, line number, reason.
    pub first_rejection: Option<String>,
}

/// Settings that shape what is read.
#[derive(Clone, Copy, Debug)]
pub struct ReadSettings {
    pub method: Method,
    pub filter: Filter,
    /// Lines read at most over all training files.
    pub limit: usize,
    pub seed: u64,
    pub deduplicate: bool,
}

/// Reads one file and keeps what the filter and the take allow.
fn read_file(
    path: &Path,
    spec: &SourceSpec,
    filter: Filter,
    settings: &ReadSettings,
    limit: usize,
) -> Result<(Samples, FileReport, Option<String>), DataError> {
    let modifiers =
        [(spec.score_factor != 1.0, Modifier::ScoreFactor), (spec.teacher_weight.is_some(), Modifier::TeacherWeight)];
    if settings.method == Method::Pqr
        && let Some((_, kind)) = modifiers.iter().find(|(given, _)| *given)
    {
        return Err(DataError::Empty(format!(
            "{}: a {} needs eval data; PQR triplets have no score",
            path.display(),
            kind.name()
        )));
    }
    let (samples, load) = samples::load_file(path, settings.method, limit)?;
    let mut report =
        FileReport { path: path.to_path_buf(), lines: load.lines, rejected: load.rejected, ..Default::default() };
    let verdicts: Vec<_> = (0..samples.len()).into_par_iter().map(|i| samples.filter_verdict(i, &filter)).collect();
    for v in &verdicts {
        report.filtered.count(*v);
    }
    let mut keep: Vec<bool> = verdicts.iter().map(Result::is_ok).collect();
    let before = report.filtered.kept as usize;
    match spec.take {
        Take::All => {}
        Take::Share(share) => {
            let bound = (share * u64::MAX as f64) as u64;
            let ranks: Vec<u64> = (0..samples.len())
                .into_par_iter()
                .map(|i| rank(key(&samples.key_position(i)), settings.seed))
                .collect();
            for (k, r) in keep.iter_mut().zip(ranks) {
                *k &= r <= bound;
            }
        }
        Take::Cap(cap) if cap < before => {
            let mut ranked: Vec<(u64, usize)> = (0..samples.len())
                .into_par_iter()
                .filter(|&i| keep[i])
                .map(|i| (rank(key(&samples.key_position(i)), settings.seed), i))
                .collect();
            ranked.select_nth_unstable(cap);
            keep.iter_mut().for_each(|k| *k = false);
            for &(_, i) in &ranked[..cap] {
                keep[i] = true;
            }
        }
        Take::Cap(_) => {}
    }
    let mut kept = samples.select(&keep, true);
    report.not_taken = before - kept.len();
    if spec.score_factor != 1.0 {
        kept.scale_scores(spec.score_factor);
    }
    Ok((kept, report, load.first_rejection))
}

/// The validation files alone: one named set per file.
pub struct HeldOut {
    pub sets: Vec<(String, Samples)>,
    pub files: Vec<FileReport>,
    pub first_rejection: Option<String>,
}

/// Reads validation files, keeping only their quiet positions ([`Filter::QUIET`]);
/// a file with none is an error.
pub fn load_held_out(validation: &[SourceSpec], settings: &ReadSettings) -> Result<HeldOut, DataError> {
    let mut held = HeldOut { sets: Vec::new(), files: Vec::new(), first_rejection: None };
    for spec in validation {
        if spec.teacher_weight.is_some() {
            return Err(DataError::Empty(format!(
                "{spec}: a teacher weight applies to training files; held-out positions keep their own scores"
            )));
        }
        for path in spec.files().map_err(DataError::Empty)? {
            let (samples, mut report, rejection) = read_file(&path, spec, Filter::QUIET, settings, usize::MAX)?;
            if held.first_rejection.is_none() {
                held.first_rejection = rejection;
            }
            report.used = samples.len();
            let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().to_string());
            if samples.is_empty() {
                return Err(DataError::Empty(format!("validation file {} has no quiet sample", path.display())));
            }
            held.sets.push((name, samples));
            held.files.push(report);
        }
    }
    Ok(held)
}

/// Reads the training and validation sources. Training samples are filtered
/// by `settings.filter`; validation samples always by [`Filter::QUIET`] (so
/// that runs with different filters are judged on the same positions).
pub fn load(train: &[SourceSpec], validation: &[SourceSpec], settings: &ReadSettings) -> Result<Loaded, DataError> {
    let held = load_held_out(validation, settings)?;
    let (validation_sets, validation_files) = (held.sets, held.files);
    let mut first_rejection = held.first_rejection;
    let mut note = |r: Option<String>| {
        if first_rejection.is_none() {
            first_rejection = r;
        }
    };
    let held_keys: HashSet<u64> = validation_sets
        .iter()
        .flat_map(|(_, samples)| (0..samples.len()).map(|i| key(&samples.key_position(i))))
        .collect();

    let mut parts = Vec::new();
    let mut teacher_spans = Vec::new();
    let mut train_files = Vec::new();
    let mut seen = HashSet::new();
    let mut lines = 0usize;
    for spec in train {
        for path in spec.files().map_err(DataError::Empty)? {
            if lines >= settings.limit {
                break;
            }
            let (samples, mut report, rejection) =
                read_file(&path, spec, settings.filter, settings, settings.limit - lines)?;
            note(rejection);
            lines += report.lines;
            let keys: Vec<u64> = (0..samples.len()).into_par_iter().map(|i| key(&samples.key_position(i))).collect();
            let keep: Vec<bool> = keys
                .iter()
                .map(|k| {
                    if held_keys.contains(k) {
                        report.held_out += 1;
                        false
                    } else if settings.deduplicate && !seen.insert(*k) {
                        report.duplicates += 1;
                        false
                    } else {
                        true
                    }
                })
                .collect();
            let kept = samples.select(&keep, true);
            report.used = kept.len();
            teacher_spans.push((kept.len(), spec.teacher_weight));
            parts.push(kept);
            train_files.push(report);
        }
    }
    let train = Samples::concat(parts, settings.method);
    if train.is_empty() {
        let why = first_rejection.clone().unwrap_or_else(|| "the inputs hold no usable lines".into());
        return Err(DataError::Empty(why));
    }
    Ok(Loaded { train, teacher_spans, validation: validation_sets, train_files, validation_files, first_rejection })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_shares_caps_and_plain_paths() {
        let p = |s: &str| s.parse::<SourceSpec>();
        assert_eq!(p("a.txt").unwrap().take, Take::All);
        assert_eq!(
            p("data/*.zst:0.5").unwrap(),
            SourceSpec {
                pattern: "data/*.zst".into(),
                take: Take::Share(0.5),
                score_factor: 1.0,
                teacher_weight: None
            }
        );
        assert_eq!(p("x.bin:200000").unwrap().take, Take::Cap(200000));
        assert_eq!(p("C:\\data\\x.txt").unwrap().take, Take::All, "a drive letter is not a suffix");
        assert!(p("a.txt:1.5").unwrap_err().contains("(0, 1]"));
        assert!(p("a.txt:0").unwrap_err().contains("at least 1"));
        assert!(p("a.txt:0.").is_err());
        assert_eq!(p("a.txt:0.25").unwrap().to_string(), "a.txt:0.25");
    }

    #[test]
    fn specs_parse_score_factors_alone_and_after_a_take() {
        let p = |s: &str| s.parse::<SourceSpec>();
        assert_eq!(
            p("own.bin:x1.2").unwrap(),
            SourceSpec { pattern: "own.bin".into(), take: Take::All, score_factor: 1.2, teacher_weight: None }
        );
        assert_eq!(
            p("d/*.bin:0.5:x0.8").unwrap(),
            SourceSpec { pattern: "d/*.bin".into(), take: Take::Share(0.5), score_factor: 0.8, teacher_weight: None }
        );
        assert_eq!(p("a.bin:300:x2").unwrap().take, Take::Cap(300));
        assert_eq!(p("a.bin:300:x2").unwrap().to_string(), "a.bin:300:x2");
        assert!(p("a.bin:x0").unwrap_err().contains("positive"));
        assert!(p("a.bin:x1.2.3").unwrap_err().contains("bad score factor"));
        assert!(p("a.bin:x1.2:0.5").unwrap_err().contains("comes after the share"));
        assert_eq!(p("dir:xy/a.bin").unwrap().pattern, "dir:xy/a.bin", "not a factor: a plain path");
    }

    #[test]
    fn specs_parse_teacher_weights_in_either_order_with_a_factor() {
        let p = |s: &str| s.parse::<SourceSpec>();
        let expected = SourceSpec {
            pattern: "own.bin".into(),
            take: Take::Share(0.5),
            score_factor: 1.15,
            teacher_weight: Some(0.8),
        };
        assert_eq!(p("own.bin:0.5:x1.15:t0.8").unwrap(), expected);
        assert_eq!(p("own.bin:0.5:t0.8:x1.15").unwrap(), expected);
        assert_eq!(expected.to_string(), "own.bin:0.5:x1.15:t0.8", "the canonical order reads back");
        assert_eq!(p("own.bin:t0").unwrap().teacher_weight, Some(0.0));
        assert_eq!(p("own.bin:t1").unwrap().to_string(), "own.bin:t1");
        assert!(p("a.bin:t1.5").unwrap_err().contains("within 0 and 1"));
        assert!(p("a.bin:t0.5:t0.6").unwrap_err().contains("more than one teacher weight"));
        assert!(p("a.bin:x2:x3").unwrap_err().contains("more than one score factor"));
        assert!(p("a.bin:t0.5:0.5").unwrap_err().contains("comes after the share"));
        assert_eq!(p("dir:top/a.bin").unwrap().pattern, "dir:top/a.bin", "not a weight: a plain path");
    }

    #[test]
    fn a_score_factor_scales_each_score_of_its_file_only() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "4k3/8/8/8/8/8/8/4K2R w - - 0 1 | 100 | 1.0\n").unwrap();
        std::fs::write(&b, "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 | -50 | 0.5\n").unwrap();
        let settings =
            ReadSettings { method: Method::Eval, filter: Filter::QUIET, limit: usize::MAX, seed: 1, deduplicate: true };
        let spec = |s: String| s.parse::<SourceSpec>().unwrap();
        let train = [spec(format!("{}:x1.5", a.display())), spec(b.display().to_string())];
        let loaded = load(&train, &[], &settings).unwrap();
        let scores: Vec<f32> = (0..loaded.train.len()).map(|i| loaded.train.target(i)[0]).collect();
        assert_eq!(scores, vec![150.0, 50.0], "a's 100 scaled, b's 50 (black to move's view) as read");
        let pqr = ReadSettings { method: Method::Pqr, ..settings };
        std::fs::write(&b, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 | a1a2 | a1b1\n").unwrap();
        let err = load(&[spec(format!("{}:x2", b.display()))], &[], &pqr).err().expect("PQR has no score to scale");
        assert!(err.to_string().contains("needs eval data"), "{err}");
        let unread = load(&[spec(format!("{}:x2", dir.join("absent.txt").display()))], &[], &pqr).err().unwrap();
        assert!(unread.to_string().contains("needs eval data"), "refused before the file is read: {unread}");
        let err = load(&[spec(format!("{}:t0.5", b.display()))], &[], &pqr).err().expect("PQR has no score to teach");
        assert!(err.to_string().contains("a teacher weight needs eval data"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The same positions as text, records, binpack and viriformat: the same
    /// samples, the same batches, the same loss and gradient (so the same
    /// training).
    #[test]
    fn every_format_gives_the_same_batches_and_loss() {
        use crate::train::batch::Batch;
        use crate::train::loss::Objective;
        use crate::train::model::Model;
        use crate::train::passes::{Scratch, loss_and_gradient};
        use shakmaty::Position;
        use tessera::nnue::network::FloatNetwork;
        use tessera_data::formats::{self, Format};

        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Games of pseudo-random moves, every position a line (as datagen's
        // text has them), with captures and checks for the filters to drop.
        let mut text = String::new();
        let mut rng = tessera::testing::XorShift(11);
        for game in 0..20 {
            let mut pos = shakmaty::Chess::default();
            for ply in 0..80 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let fen = shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal);
                let result = ["0.0", "0.5", "1.0"][game % 3];
                text += &format!("{fen} | {} | {result}\n", ply * 53 % 1200 - 600);
                pos.play_unchecked(legal[rng.below(legal.len())]);
            }
        }
        let txt = dir.join("a.txt");
        std::fs::write(&txt, &text).unwrap();
        let mut paths = vec![txt.clone()];
        for name in ["a.bin", "a.binpack", "a.vf"] {
            let path = dir.join(name);
            let mut writer = formats::create(&path, Format::of_path(&path)).unwrap();
            formats::read(&txt, Format::Text, &mut |e| writer.write(&e).unwrap()).unwrap();
            writer.finish().unwrap();
            paths.push(path);
        }
        let settings =
            ReadSettings { method: Method::Eval, filter: Filter::QUIET, limit: usize::MAX, seed: 1, deduplicate: true };
        let fs: tessera::features::FeatureSet = "all".parse().unwrap();
        let model = Model::from_float(&FloatNetwork::random(&fs, 16, 8, 0, 1));
        let objective = Objective::Eval { out_scale: 361.0, target_scale: 410.0, lambda: 0.2, power: 2.6 };
        let mut seen = Vec::new();
        for path in &paths {
            let loaded = load(&[path.display().to_string().parse().unwrap()], &[], &settings).unwrap();
            let n = loaded.train.len();
            let order: Vec<u32> = (0..n as u32).collect();
            let batch = Batch::build(&fs, &loaded.train, &order);
            let mut grad = vec![0.0; model.layout.total];
            let loss = loss_and_gradient(&model, &batch, &objective, Some(&mut grad), &mut Scratch::default());
            seen.push((n, batch.indices, batch.starts, batch.targets, batch.pieces, loss, grad));
        }
        assert!(seen[0].0 > 300, "{} samples", seen[0].0);
        for (path, other) in paths.iter().zip(&seen).skip(1) {
            assert_eq!(other.0, seen[0].0, "{}: samples", path.display());
            assert!(other.1 == seen[0].1 && other.2 == seen[0].2, "{}: features", path.display());
            assert_eq!(other.3, seen[0].3, "{}: targets", path.display());
            assert_eq!(other.4, seen[0].4, "{}: pieces", path.display());
            assert_eq!((other.5, &other.6), (seen[0].5, &seen[0].6), "{}: loss and gradient", path.display());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ranks_spread_evenly() {
        let below = (0..10_000u64).filter(|&k| rank(k, 7) <= u64::MAX / 4).count();
        assert!((2200..2800).contains(&below), "{below}");
    }
}

//! Training data: the text formats read into memory, and the validation
//! split.
//!
//! Eval lines (bullet's text format, tools/data/README.md):
//! `<FEN> | <score cp, white's view> | <result 1.0/0.5/0.0, white's view>`.
//! PQR lines: `<FEN of P> | <move played, UCI> | <another legal move, UCI>`;
//! Q and R are P after each move.
//! Files are plain text or zstd (recognised by its magic bytes), or, for
//! eval, any other format `tessera_data::formats` reads, known by its name:
//! 32-byte records (`.bin`), Stockfish's binpack (`.binpack`), viriformat
//! (`.vf`) or bulletformat (`.bullet`).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};
use tessera_data::filter::{Dropped, Filter};
use tessera_data::formats::{self, Format};

use crate::data::packed::PackedPosition;

/// One eval sample, from the side to move's view; its position packed
/// (a run holds tens of millions of them).
#[derive(Clone, Debug)]
pub struct EvalSample {
    packed: PackedPosition,
    /// Centipawns.
    pub score: f32,
    /// 1 win, 0.5 draw, 0 loss.
    pub result: f32,
}

impl EvalSample {
    pub fn new(pos: &Chess, score: f32, result: f32) -> EvalSample {
        EvalSample { packed: PackedPosition::pack(pos), score, result }
    }

    pub fn pos(&self) -> Chess {
        self.packed.unpack()
    }
}

/// One PQR triplet: P, Q = P + the move played, R = P + another move.
#[derive(Clone, Debug)]
pub struct PqrSample {
    pub p: Chess,
    pub q: Chess,
    pub r: Chess,
}

#[derive(Clone, Debug)]
pub enum Samples {
    Eval(Vec<EvalSample>),
    Pqr(Vec<PqrSample>),
}

impl Samples {
    pub fn len(&self) -> usize {
        match self {
            Samples::Eval(v) => v.len(),
            Samples::Pqr(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Positions a sample trains: 1, or P, Q and R of a triplet.
    pub fn positions_per_sample(&self) -> usize {
        match self {
            Samples::Eval(_) => 1,
            Samples::Pqr(_) => 3,
        }
    }

    /// Position `j` of sample `i`, in the order a batch holds them.
    pub fn position(&self, i: usize, j: usize) -> Chess {
        match self {
            Samples::Eval(v) => v[i].pos(),
            Samples::Pqr(v) => [&v[i].p, &v[i].q, &v[i].r][j].clone(),
        }
    }

    /// Sample `i`'s target: (score cp, result), side to move's view; zeros
    /// for triplets.
    pub fn target(&self, i: usize) -> [f32; 2] {
        match self {
            Samples::Eval(v) => [v[i].score, v[i].result],
            Samples::Pqr(_) => [0.0; 2],
        }
    }

    /// The position that identifies sample `i` (P for triplets).
    pub fn key_position(&self, i: usize) -> Chess {
        self.position(i, 0)
    }

    /// Whether sample `i` passes `filter` (PQR triplets have no score bound).
    pub fn filter_verdict(&self, i: usize, filter: &Filter) -> Result<(), Dropped> {
        match self {
            Samples::Eval(v) => filter.check(&v[i].pos(), v[i].score.round() as i32),
            Samples::Pqr(v) => filter.check(&v[i].p, 0),
        }
    }

    /// The parts one after the other (an empty set of `method`'s kind if none).
    pub fn concat(parts: Vec<Samples>, method: Method) -> Samples {
        let mut out = match method {
            Method::Eval => Samples::Eval(Vec::new()),
            Method::Pqr => Samples::Pqr(Vec::new()),
        };
        for part in parts {
            match (&mut out, part) {
                (Samples::Eval(all), Samples::Eval(v)) => all.extend(v),
                (Samples::Pqr(all), Samples::Pqr(v)) => all.extend(v),
                _ => unreachable!("every part is read with the same method"),
            }
        }
        out
    }

    /// Multiplies every eval score by `factor`. Triplets have no score: a
    /// factor on PQR data is refused before its file is read.
    pub fn scale_scores(&mut self, factor: f32) {
        match self {
            Samples::Eval(v) => v.iter_mut().for_each(|s| s.score *= factor),
            Samples::Pqr(_) => unreachable!("score factors on PQR data are refused before reading"),
        }
    }

    pub fn select(&self, keep: &[bool], wanted: bool) -> Samples {
        fn pick<T: Clone>(v: &[T], keep: &[bool], wanted: bool) -> Vec<T> {
            v.iter().zip(keep).filter(|(_, k)| **k == wanted).map(|(s, _)| s.clone()).collect()
        }
        match self {
            Samples::Eval(v) => Samples::Eval(pick(v, keep, wanted)),
            Samples::Pqr(v) => Samples::Pqr(pick(v, keep, wanted)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Eval,
    Pqr,
}

#[derive(Debug)]
pub enum DataError {
    Io(PathBuf, std::io::Error),
    /// No usable line in the inputs; the first bad line, if any, says why.
    Empty(String),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            DataError::Empty(why) => write!(f, "no usable training samples: {why}"),
        }
    }
}

impl std::error::Error for DataError {}

/// What loading found, for the log.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub lines: usize,
    pub rejected: usize,
    /// The first rejected line: file, line number, reason.
    pub first_rejection: Option<String>,
}

fn read_all_lines(path: &Path, limit: usize) -> Result<Vec<String>, DataError> {
    let io = |e| DataError::Io(path.to_path_buf(), e);
    let mut text = String::new();
    tessera_data::store::open_text(path).map_err(io)?.read_to_string(&mut text).map_err(io)?;
    Ok(text.lines().filter(|l| !l.trim().is_empty()).take(limit).map(str::to_string).collect())
}

fn parse_position(fen: &str) -> Result<Chess, String> {
    tessera_data::text::parse_fen(fen, CastlingMode::Chess960)
}

/// Parses one eval line (`tessera_data::text`, Chess960 castling accepted)
/// into a sample from the side to move's view.
pub fn parse_eval_line(line: &str) -> Result<EvalSample, String> {
    let tessera_data::text::TextLine { pos, score, result } =
        tessera_data::text::parse_line(line, CastlingMode::Chess960)?;
    let white = pos.turn() == Color::White;
    Ok(EvalSample::new(&pos, if white { score } else { -score }, if white { result } else { 1.0 - result }))
}

/// Parses one PQR line.
pub fn parse_pqr_line(line: &str) -> Result<PqrSample, String> {
    let fields: Vec<&str> = line.split('|').collect();
    let [fen, played, other] = fields[..] else {
        return Err(format!("expected 3 fields separated by '|', found {}", fields.len()));
    };
    let p = parse_position(fen)?;
    let after = |text: &str| -> Result<Chess, String> {
        let uci: UciMove = text.trim().parse().map_err(|_| format!("bad move '{}'", text.trim()))?;
        let m = uci.to_move(&p).map_err(|_| format!("illegal move '{}'", text.trim()))?;
        let mut next = p.clone();
        next.play_unchecked(m);
        Ok(next)
    };
    let (q, r) = (after(played)?, after(other)?);
    if played.trim() == other.trim() {
        return Err("the other move is the move played".into());
    }
    Ok(PqrSample { p, q, r })
}

/// Reads one file (at most `limit` lines), parsing in parallel. Bad lines
/// are skipped and counted; the result may be empty.
pub fn load_file(path: &Path, method: Method, limit: usize) -> Result<(Samples, LoadReport), DataError> {
    let path = path.to_path_buf();
    let (samples, report) = read_paths(std::slice::from_ref(&path), method, limit)?;
    Ok((samples, report))
}

/// Reads every file (at most `limit` lines in all), in parallel. Bad lines
/// are skipped and counted; no usable line at all is an error.
#[cfg(test)]
pub fn load(paths: &[PathBuf], method: Method, limit: usize) -> Result<(Samples, LoadReport), DataError> {
    let (samples, report) = read_paths(paths, method, limit)?;
    if samples.is_empty() {
        let why = report.first_rejection.clone().unwrap_or_else(|| "the inputs hold no lines".into());
        return Err(DataError::Empty(why));
    }
    Ok((samples, report))
}

fn read_paths(paths: &[PathBuf], method: Method, limit: usize) -> Result<(Samples, LoadReport), DataError> {
    let mut report = LoadReport::default();
    let mut eval = Vec::new();
    let mut pqr = Vec::new();
    for path in paths {
        let format = Format::of_path(path);
        if format != Format::Text {
            if method != Method::Eval {
                return Err(DataError::Empty(format!("{}: {format} files hold eval data, not PQR", path.display())));
            }
            let room = limit - report.lines.min(limit);
            let mut taken = 0;
            let read = formats::read(path, format, &mut |entry| {
                if taken < room {
                    taken += 1;
                    eval.push(sample_of_record(&entry.record));
                }
            })
            .map_err(|e| DataError::Io(path.clone(), std::io::Error::other(e)))?;
            report.lines += taken;
            report.rejected += read.rejected as usize;
            if report.first_rejection.is_none() {
                report.first_rejection = read.first_rejection;
            }
            continue;
        }
        let lines = read_all_lines(path, limit - report.lines.min(limit))?;
        report.lines += lines.len();
        let name = path.display().to_string();
        let mut note = |errors: Vec<(usize, String)>| {
            report.rejected += errors.len();
            if report.first_rejection.is_none() {
                report.first_rejection = errors.first().map(|(n, e)| format!("{name}:{}: {e}", n + 1));
            }
        };
        match method {
            Method::Eval => {
                let parsed: Vec<_> = lines.par_iter().map(|l| parse_eval_line(l)).collect();
                let (ok, errors) = split_results(parsed);
                eval.extend(ok);
                note(errors);
            }
            Method::Pqr => {
                let parsed: Vec<_> = lines.par_iter().map(|l| parse_pqr_line(l)).collect();
                let (ok, errors) = split_results(parsed);
                pqr.extend(ok);
                note(errors);
            }
        }
    }
    let samples = match method {
        Method::Eval => Samples::Eval(eval),
        Method::Pqr => Samples::Pqr(pqr),
    };
    Ok((samples, report))
}

/// A binary record (white's view) as a sample from the side to move's view.
fn sample_of_record(r: &tessera_data::record::Record) -> EvalSample {
    let result = r.result as f32 / 2.0;
    if r.pos.turn() == Color::White {
        EvalSample::new(&r.pos, r.score as f32, result)
    } else {
        EvalSample::new(&r.pos, -(r.score as f32), 1.0 - result)
    }
}

fn split_results<T>(parsed: Vec<Result<T, String>>) -> (Vec<T>, Vec<(usize, String)>) {
    let mut ok = Vec::with_capacity(parsed.len());
    let mut errors = Vec::new();
    for (n, r) in parsed.into_iter().enumerate() {
        match r {
            Ok(s) => ok.push(s),
            Err(e) => errors.push((n, e)),
        }
    }
    (ok, errors)
}

/// The validation split of a run without validation files: a sample is held
/// out when its position's Zobrist hash falls in the lowest `permille`/1000
/// of the range, so repeated positions always land on the same side.
pub fn validation_mask(samples: &Samples, permille: u32) -> Vec<bool> {
    (0..samples.len()).map(|i| key(&samples.key_position(i)) % 1000 < permille as u64).collect()
}

/// The position key used for deduplication and hold-out.
pub fn key(pos: &shakmaty::Chess) -> u64 {
    pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::Legal).0
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The scale K for which σ(score / K) best predicts the game result (least
/// squares), by golden-section search over 50..2000 cp.
pub fn fit_sigmoid_scale(samples: &[EvalSample]) -> f64 {
    let error = |k: f64| -> f64 {
        samples
            .par_iter()
            .map(|s| {
                let d = sigmoid(s.score as f64 / k) - s.result as f64;
                d * d
            })
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (50.0f64, 2000.0f64);
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - golden * (hi - lo), lo + golden * (hi - lo));
    let (mut ea, mut eb) = (error(a), error(b));
    while hi - lo > 0.5 {
        if ea < eb {
            hi = b;
            (b, eb) = (a, ea);
            a = hi - golden * (hi - lo);
            ea = error(a);
        } else {
            lo = a;
            (a, ea) = (b, eb);
            b = lo + golden * (hi - lo);
            eb = error(b);
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::EnPassantMode;
    use shakmaty::fen::Fen;

    #[test]
    fn eval_lines_are_turned_to_the_side_to_move() {
        let s = parse_eval_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 1.0").unwrap();
        assert_eq!((s.score, s.result), (-35.0, 0.0));
        let s = parse_eval_line("4k3/8/8/8/8/8/8/4K2R w K - 0 1 | 500 | 0.5").unwrap();
        assert_eq!((s.score, s.result), (500.0, 0.5));
    }

    #[test]
    fn bad_lines_say_why() {
        let cases = [
            ("x | 1 | 1.0", "bad FEN"),
            ("8/8/8/8/8/8/8/8 w - - 0 1 | 1 | 1.0", "illegal position"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | abc | 1.0", "bad score"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | NaN | 1.0", "bad score"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 1 | 2", "bad result"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 1", "expected 3 fields"),
        ];
        for (line, why) in cases {
            assert!(parse_eval_line(line).unwrap_err().contains(why), "{line}");
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert!(parse_pqr_line(&format!("{start} | e2e5 | d2d4")).unwrap_err().contains("illegal move"));
        assert!(parse_pqr_line(&format!("{start} | e2e4 | e2e4")).unwrap_err().contains("move played"));
        let t = parse_pqr_line(&format!("{start} | e2e4 | g1f3")).unwrap();
        assert_eq!(t.q.turn(), Color::Black);
        assert_ne!(t.q.board(), t.r.board());
    }

    #[test]
    fn loading_skips_and_counts_bad_lines_and_reads_zstd() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let text =
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1 | 500 | 1.0\nnot a line\n\n4k3/8/8/8/8/8/8/4K2R b K - 0 1 | 20 | 0.5\n";
        let plain = dir.join("a.txt");
        std::fs::write(&plain, text).unwrap();
        let packed = dir.join("a.txt.zst");
        std::fs::write(&packed, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        for path in [&plain, &packed] {
            let (samples, report) = load(std::slice::from_ref(path), Method::Eval, usize::MAX).unwrap();
            assert_eq!((samples.len(), report.lines, report.rejected), (2, 3, 1));
            assert!(report.first_rejection.unwrap().ends_with(":2: expected 3 fields separated by '|', found 1"));
        }
        // The datagen tool's binary records give the same samples.
        let binary = dir.join("a.bin");
        let mut writer = tessera_data::store::RecordWriter::append(&binary).unwrap();
        for line in text.lines().filter(|l| l.contains('|')) {
            writer.write(&tessera_data::record::Record::from_text(line).unwrap()).unwrap();
        }
        writer.sync().unwrap();
        let (from_binary, _) = load(std::slice::from_ref(&binary), Method::Eval, usize::MAX).unwrap();
        let (from_text, _) = load(std::slice::from_ref(&plain), Method::Eval, usize::MAX).unwrap();
        let (Samples::Eval(a), Samples::Eval(b)) = (from_binary, from_text) else { unreachable!() };
        let key = |s: &EvalSample| (Fen::from_position(&s.pos(), EnPassantMode::Legal).to_string(), s.score, s.result);
        assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
        let (samples, _) = load(&[plain.clone(), packed.clone()], Method::Eval, 3).unwrap();
        assert_eq!(samples.len(), 2, "the line limit counts lines across files");
        let empty = dir.join("empty.txt");
        std::fs::write(&empty, "junk\n").unwrap();
        assert!(load(&[empty], Method::Eval, usize::MAX).unwrap_err().to_string().contains("no usable"));
        assert!(load(&[dir.join("missing")], Method::Eval, 10).unwrap_err().to_string().contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn validation_split_is_by_position() {
        let line = |fen: &str| parse_eval_line(&format!("{fen} | 0 | 0.5")).unwrap();
        let fens =
            ["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "4k3/8/8/8/8/8/8/4K2R b K - 0 1", "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1"];
        let mut all = Vec::new();
        for i in 0..300 {
            all.push(line(fens[i % 3]));
        }
        let held = validation_mask(&Samples::Eval(all), 500);
        let (train, val) = (held.iter().filter(|h| !**h).count(), held.iter().filter(|h| **h).count());
        assert_eq!(train + val, 300);
        // Each position's copies all land on one side.
        assert!(train % 100 == 0 && val % 100 == 0);
    }

    #[test]
    fn fitted_scale_recovers_the_generating_one() {
        // Results drawn so that P(win) = σ(score / 300) exactly on average.
        let mut samples = Vec::new();
        for i in -400..=400 {
            let score = i as f32 * 2.0;
            let p = sigmoid(score as f64 / 300.0);
            let wins = (p * 100.0).round() as usize;
            for k in 0..100 {
                let result = if k < wins { 1.0 } else { 0.0 };
                samples.push(EvalSample::new(&Chess::default(), score, result));
            }
        }
        let k = fit_sigmoid_scale(&samples);
        assert!((k - 300.0).abs() < 5.0, "{k}");
    }
}

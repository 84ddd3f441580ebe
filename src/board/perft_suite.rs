//! Perft suites: EPD files of `FEN ;D1 n ;D2 n …` lines, every count
//! checked (up to a depth or node limit), lines spread over threads.
//! `tessera perft-suite` and `make perft-full` run them; the test suite runs
//! the cheap part of the same files.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::Board;
use super::perft::perft;

/// One line of a suite: the position and its published counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteLine {
    /// 1-based line number in the file.
    pub number: usize,
    pub fen: String,
    /// `(depth, expected count)`, in the file's order.
    pub counts: Vec<(u32, u64)>,
}

/// Why a line could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    pub number: usize,
    pub reason: String,
}

/// Parses a suite; lines that are not `FEN ;Dn count …` are returned as
/// bad lines with the reason (blank lines and `#` comments are skipped).
pub fn parse_suite(text: &str) -> (Vec<SuiteLine>, Vec<BadLine>) {
    let (mut lines, mut bad) = (Vec::new(), Vec::new());
    for (i, raw) in text.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut fields = raw.split(';');
        let fen = fields.next().unwrap_or_default().trim().to_string();
        let mut counts = Vec::new();
        let mut problem = None;
        for field in fields.map(str::trim).filter(|f| f.starts_with('D')) {
            let mut parts = field[1..].split_whitespace();
            match (parts.next().map(str::parse::<u32>), parts.next().map(str::parse::<u64>)) {
                (Some(Ok(depth)), Some(Ok(count))) => counts.push((depth, count)),
                _ => problem = Some(format!("unreadable count field '{field}'")),
            }
        }
        match problem {
            Some(reason) => bad.push(BadLine { number: i + 1, reason }),
            None if counts.is_empty() => bad.push(BadLine { number: i + 1, reason: "no ;Dn counts".into() }),
            None => lines.push(SuiteLine { number: i + 1, fen, counts }),
        }
    }
    (lines, bad)
}

/// Limits on what is checked: counts deeper than `max_depth` or larger than
/// `max_nodes` are skipped (and counted as such).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_depth: u32,
    pub max_nodes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_depth: u32::MAX, max_nodes: u64::MAX }
    }
}

/// What happened to one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineOutcome {
    /// Every checked count matched.
    Passed { checked: usize, skipped: usize, nodes: u64 },
    /// A count differs: the first mismatch.
    Failed { depth: u32, expected: u64, found: u64 },
    /// The board refuses the FEN (an impossible position, say).
    Refused(String),
}

/// Checks one line (Chess960 castling accepted; standard FENs parse the same).
pub fn check_line(line: &SuiteLine, limits: Limits) -> LineOutcome {
    let board = match Board::from_fen(&line.fen, true) {
        Ok(board) => board,
        Err(e) => return LineOutcome::Refused(e.to_string()),
    };
    let (mut checked, mut skipped, mut nodes) = (0, 0, 0);
    for &(depth, expected) in &line.counts {
        if depth > limits.max_depth || expected > limits.max_nodes {
            skipped += 1;
            continue;
        }
        let found = perft(board.pos(), depth);
        if found != expected {
            return LineOutcome::Failed { depth, expected, found };
        }
        checked += 1;
        nodes += found;
    }
    LineOutcome::Passed { checked, skipped, nodes }
}

/// The totals of a suite run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteReport {
    pub positions: usize,
    pub passed: usize,
    pub failed: usize,
    pub refused: usize,
    pub counts_checked: usize,
    pub counts_skipped: usize,
    pub nodes: u64,
    pub seconds: f64,
}

/// Runs every line on `jobs` threads; `on_line` hears each outcome as it
/// comes (in completion order).
pub fn run_suite(
    lines: &[SuiteLine],
    limits: Limits,
    jobs: usize,
    on_line: impl Fn(&SuiteLine, &LineOutcome) + Sync,
) -> SuiteReport {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let report = Mutex::new(SuiteReport { positions: lines.len(), ..SuiteReport::default() });
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                while let Some(line) = lines.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let outcome = check_line(line, limits);
                    let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
                    match &outcome {
                        LineOutcome::Passed { checked, skipped, nodes } => {
                            r.passed += 1;
                            r.counts_checked += checked;
                            r.counts_skipped += skipped;
                            r.nodes += nodes;
                        }
                        LineOutcome::Failed { .. } => r.failed += 1,
                        LineOutcome::Refused(_) => r.refused += 1,
                    }
                    on_line(line, &outcome);
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.seconds = started.elapsed().as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "\
# a comment
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902

8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 ;D1 14 ;D2 191 ;D3 2813
4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 banana
8/8/8/8/8/8/8/8 w - - 0 1 ;D1 0
bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21 ;D2 528
";

    #[test]
    fn a_suite_reports_passes_failures_refusals_and_bad_lines() {
        let (lines, bad) = parse_suite(SUITE);
        assert_eq!(bad, vec![BadLine { number: 5, reason: "unreadable count field 'D1 banana'".into() }]);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].number, 2);
        let outcomes = Mutex::new(Vec::new());
        let report = run_suite(&lines, Limits { max_depth: 3, max_nodes: 5000 }, 2, |line, outcome| {
            outcomes.lock().unwrap().push((line.number, outcome.clone()))
        });
        let mut outcomes = outcomes.into_inner().unwrap();
        outcomes.sort_by_key(|(n, _)| *n);
        // The start position's depth 3 (8902) is over the node limit.
        assert_eq!(outcomes[0], (2, LineOutcome::Passed { checked: 2, skipped: 1, nodes: 420 }));
        // 2813 is a deliberately wrong count (the true one is 2812).
        assert_eq!(outcomes[1], (4, LineOutcome::Failed { depth: 3, expected: 2813, found: 2812 }));
        assert!(matches!(&outcomes[2], (6, LineOutcome::Refused(reason)) if reason.contains("invalid FEN")));
        // Chess960 castling rights (Shredder FEN) are accepted.
        assert_eq!(outcomes[3], (7, LineOutcome::Passed { checked: 2, skipped: 0, nodes: 549 }));
        assert_eq!((report.positions, report.passed, report.failed, report.refused), (4, 2, 1, 1));
        assert_eq!((report.counts_checked, report.counts_skipped, report.nodes), (4, 1, 969));
    }
}

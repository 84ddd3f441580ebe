//! A UCI engine run as a child process: start-up with options, searches of
//! a position with a budget, and the scores and moves it reports (every
//! MultiPV line). Used to label positions and to play self-play games.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A search score as engines report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

/// What one `go` produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The best move, as sent (`None` for `bestmove 0000` or `(none)`).
    pub best: Option<String>,
    /// The last exact score of each MultiPV line (index 0 = line 1) with the
    /// line's first move.
    pub lines: Vec<Option<(Score, String)>>,
}

impl Report {
    /// The best line's score.
    pub fn score(&self) -> Option<Score> {
        self.lines.first().and_then(|l| l.as_ref()).map(|(s, _)| *s)
    }
}

pub struct UciEngine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    pub name: String,
}

impl UciEngine {
    /// Starts `path`, sets `options` (`(name, value)`), and waits until it is
    /// ready. A missing binary, an engine that dies or never answers `uciok`
    /// is an error naming the engine.
    pub fn start(path: &Path, options: &[(String, String)]) -> Result<UciEngine, String> {
        let name = path.display().to_string();
        let mut command = Command::new(path);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        // Its own process group, so that a Ctrl-C meant for us does not kill
        // the engine in the middle of the chunk we are finishing.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| format!("cannot start {name}: {e}"))?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let mut engine = UciEngine { child, input, output, name };
        engine.send("uci")?;
        engine.wait_for("uciok")?;
        for (option, value) in options {
            engine.send(&format!("setoption name {option} value {value}"))?;
        }
        engine.ready()?;
        Ok(engine)
    }

    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}").and_then(|_| self.input.flush()).map_err(|e| format!("{}: {e}", self.name))
    }

    fn read_line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.output.read_line(&mut line) {
            Ok(0) => Err(format!("{} exited", self.name)),
            Ok(_) => Ok(line),
            Err(e) => Err(format!("{}: {e}", self.name)),
        }
    }

    fn wait_for(&mut self, token: &str) -> Result<(), String> {
        loop {
            if self.read_line()?.trim() == token {
                return Ok(());
            }
        }
    }

    pub fn ready(&mut self) -> Result<(), String> {
        self.send("isready")?;
        self.wait_for("readyok")
    }

    /// A new game: the engine forgets its table, so that what follows
    /// depends only on the positions and budgets it is given.
    pub fn new_game(&mut self) -> Result<(), String> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// Sends `position` (the arguments after the word) and `go` (likewise)
    /// and reads until `bestmove`.
    pub fn search(&mut self, position: &str, go: &str) -> Result<Report, String> {
        self.send(&format!("position {position}"))?;
        self.send(&format!("go {go}"))?;
        let mut report = Report::default();
        loop {
            let line = self.read_line()?;
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first() {
                Some(&"info") => read_info(&words, &mut report),
                Some(&"bestmove") => {
                    report.best = words.get(1).filter(|m| **m != "0000" && **m != "(none)").map(|m| m.to_string());
                    return Ok(report);
                }
                _ => {}
            }
        }
    }
}

/// Takes an `info` line's score and first move into `report`. Bounds from
/// a failed aspiration window are not scores.
pub fn read_info(words: &[&str], report: &mut Report) {
    let value = |key: &str| words.iter().position(|w| *w == key).and_then(|at| words.get(at + 1));
    let Some(at) = words.iter().position(|w| *w == "score") else { return };
    if words.get(at + 3).is_some_and(|w| *w == "lowerbound" || *w == "upperbound") {
        return;
    }
    let score = match (words.get(at + 1), words.get(at + 2).and_then(|v| v.parse::<i32>().ok())) {
        (Some(&"cp"), Some(cp)) => Score::Cp(cp),
        (Some(&"mate"), Some(n)) => Score::Mate(n),
        _ => return,
    };
    let line = value("multipv").and_then(|k| k.parse::<usize>().ok()).unwrap_or(1).max(1);
    let first = value("pv").map(|m| m.to_string()).unwrap_or_default();
    if report.lines.len() < line {
        report.lines.resize(line, None);
    }
    report.lines[line - 1] = Some((score, first));
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // An engine that ignores `quit` must not hang us.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_scores_per_line() {
        let mut report = Report::default();
        let lines = [
            "info depth 5 score cp 20 pv e2e4 e7e5",
            "info depth 6 multipv 1 score cp 31 nodes 10 pv d2d4 d7d5",
            "info depth 6 multipv 2 score mate -3 pv a2a3",
            "info depth 7 multipv 1 score cp 90 lowerbound pv g1f3",
            "info string hello",
        ];
        for l in lines {
            read_info(&l.split_whitespace().collect::<Vec<_>>(), &mut report);
        }
        assert_eq!(report.lines, vec![Some((Score::Cp(31), "d2d4".into())), Some((Score::Mate(-3), "a2a3".into()))]);
        assert_eq!(report.score(), Some(Score::Cp(31)));
    }
}

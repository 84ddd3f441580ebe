//! Parsing UCI input lines into commands. Pure text handling: nothing here
//! knows about the board, so every error names what was wrong with the text.

use crate::search::limits::Limits;

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
    /// A line that names no position (`position`, `position somewhere`):
    /// the reason. The engine answers no move until a position comes.
    Unreadable(String),
}

/// A `go` line: the search's limits (with `searchmoves` still text, checked
/// against the position later) and what was wrong with the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// The limits as the line gave them; the root moves as written, checked
    /// against the position when the search starts.
    pub limits: Limits<String>,
    /// What was wrong with the line: values out of range (clamped), words
    /// not understood or without a usable value (ignored). The engine
    /// reports each and searches anyway: a GUI that sent `go` waits for a
    /// `bestmove`, whatever else the line held.
    pub warnings: Vec<String>,
    /// Whether any word was ignored (not only clamped).
    pub ignored: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    Debug,
    Register,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: Start,
        moves: Vec<String>,
        /// What was ignored in the line, for warnings.
        notes: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    /// Not UCI, but what people type into an engine (Stockfish's names):
    /// the board, its FEN and key.
    Display,
    /// The static evaluation of the current position.
    Eval,
    /// The benchmark (`bench [depth]`), as `tessera bench` runs it.
    Bench {
        depth: Option<i32>,
    },
    /// Leaf counts below each legal move (`perft <depth>`).
    Perft {
        depth: u32,
    },
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
];

/// The deepest `perft` the loop runs: deeper counts take minutes and block
/// the input thread (`tessera perft` has no such bound).
pub const MAX_LOOP_PERFT: u32 = 7;

/// Parses one line. `Ok(None)` for a blank line. `go` is never refused (see
/// [`GoParams::warnings`]); other malformed lines are, with the reason.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let command = match head {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "debug" => Command::Debug,
        "register" => Command::Register,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)),
        "d" => Command::Display,
        "eval" => Command::Eval,
        "bench" => Command::Bench { depth: parse_depth("bench", rest.first(), 1, 64)?.map(|d| d as i32) },
        "perft" => Command::Perft {
            depth: parse_depth("perft", rest.first(), 0, MAX_LOOP_PERFT)?
                .ok_or_else(|| "perft needs a depth".to_string())?,
        },
        other => return Err(format!("unknown command '{}'", quote(other))),
    };
    Ok(Some(command))
}

fn parse_depth(what: &str, token: Option<&&str>, min: u32, max: u32) -> Result<Option<u32>, String> {
    let Some(text) = token else { return Ok(None) };
    match text.parse::<u32>() {
        Ok(d) if (min..=max).contains(&d) => Ok(Some(d)),
        _ => Err(format!("{what} takes a depth from {min} to {max}, not '{}'", quote(text))),
    }
}

/// `setoption name <name> [value <value>]`. The value may be empty
/// (`value` with nothing after it, or no `value` at all): string options
/// take that as the empty string, as Stockfish does; the option table
/// decides what other kinds make of it.
fn parse_setoption(rest: &[&str]) -> Result<Command, String> {
    if rest.first() != Some(&"name") {
        return Err("setoption needs 'name <option>'".to_string());
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_tokens = &rest[1..value_at.unwrap_or(rest.len())];
    if name_tokens.is_empty() {
        return Err("setoption has an empty option name".to_string());
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption { name: name_tokens.join(" "), value })
}

/// `position`: never an error, so that the engine always knows whether it
/// holds the position the GUI meant (a line that names none is `Unreadable`).
fn parse_position(rest: &[&str]) -> Result<Command, String> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let head = &rest[..moves_at.unwrap_or(rest.len())];
    let moves = moves_at.map_or_else(Vec::new, |i| rest[i + 1..].iter().map(|s| s.to_string()).collect());
    let mut notes = Vec::new();
    let start = match head.first() {
        Some(&"startpos") => {
            if head.len() > 1 {
                notes.push(format!(
                    "ignored '{}' after 'position startpos' (moves follow the word 'moves')",
                    quote(&head[1..].join(" "))
                ));
            }
            Start::StartPos
        }
        Some(&"fen") if head.len() > 1 => Start::Fen(head[1..].join(" ")),
        Some(&"fen") => Start::Unreadable("'position fen' needs a FEN".to_string()),
        Some(other) => Start::Unreadable(format!("position needs 'startpos' or 'fen', not '{}'", quote(other))),
        None => Start::Unreadable("position needs 'startpos' or 'fen'".to_string()),
    };
    Ok(Command::Position { start, moves, notes })
}

/// The longest piece of an input line quoted back in a message.
pub const QUOTED: usize = 200;

/// `text` as a message quotes it: control characters as `?`, cut to
/// [`QUOTED`] characters (marked as cut).
pub fn quote(text: &str) -> String {
    let mut out: String = text.chars().take(QUOTED).map(|c| if c.is_control() { '?' } else { c }).collect();
    if text.chars().nth(QUOTED).is_some() {
        out.push_str("... (cut)");
    }
    out
}

/// Times beyond this (ms, about 35 years) are clamped: no arithmetic on
/// them can overflow.
const MAX_TIME_MS: i64 = 1 << 40;

/// The value after a numeric `go` word: an integer within `min..=max`. A
/// value outside (however many digits it has) is clamped to the nearer
/// bound, with a warning; text that is not an integer gives `None`, with a
/// warning. `None` without a warning cannot happen: the caller has
/// checked that a value is there.
fn number<T: TryFrom<i128> + Into<i128> + Copy>(
    key: &str,
    text: &str,
    min: T,
    max: T,
    warnings: &mut Vec<String>,
) -> Option<T> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        warnings.push(format!("go {key}: '{}' is not a number; ignored", quote(text)));
        return None;
    }
    let negative = text.starts_with('-');
    // More digits than i128 holds: beyond any bound, on its side.
    let wide: i128 = text.parse().unwrap_or(if negative { i128::MIN } else { i128::MAX });
    let (lo, hi) = (min.into(), max.into());
    let value = wide.clamp(lo, hi);
    if value != wide {
        warnings.push(format!("go {key} {} is out of range; using {value}", quote(text)));
    }
    Some(T::try_from(value).unwrap_or(if value == lo { min } else { max }))
}

/// `go`'s words, forgiving as Stockfish is: a word it does not know is
/// reported and skipped, a value that is not a number is reported and
/// skipped with its key, and whatever was understood still runs.
fn parse_go(rest: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        i += 1;
        if key == "infinite" || key == "ponder" {
            *(if key == "infinite" { &mut go.limits.infinite } else { &mut go.limits.ponder }) = true;
            continue;
        }
        if key == "searchmoves" {
            let moves: Vec<String> =
                rest[i..].iter().take_while(|t| !GO_KEYWORDS.contains(t)).map(|s| s.to_string()).collect();
            if moves.is_empty() {
                go.warnings.push("go searchmoves without moves; searching every move".to_string());
            }
            i += moves.len();
            go.limits.searchmoves.extend(moves);
            continue;
        }
        if !GO_KEYWORDS.contains(&key) {
            go.ignored = true;
            if key == "perft" {
                // Stockfish's `go perft N`: a count, not a search. Skip the
                // depth too; the `perft` command is the way to count.
                if rest.get(i).is_some_and(|t| t.parse::<u32>().is_ok()) {
                    i += 1;
                }
                go.warnings.push("'go perft' is not a search here; use 'perft <depth>'; ignored".to_string());
            } else {
                go.warnings.push(format!("go: unknown word '{}' ignored", quote(key)));
            }
            continue;
        }
        // A numeric key: its value is the next word, unless that is a key.
        let Some(&text) = rest.get(i).filter(|t| !GO_KEYWORDS.contains(t)) else {
            go.ignored = true;
            go.warnings.push(format!("go {key} needs a value; ignored"));
            continue;
        };
        i += 1;
        let w = &mut go.warnings;
        let understood = match key {
            "wtime" => number(key, text, 0, MAX_TIME_MS, w).map(|v| go.limits.wtime = Some(v)),
            "btime" => number(key, text, 0, MAX_TIME_MS, w).map(|v| go.limits.btime = Some(v)),
            "winc" => number(key, text, 0, MAX_TIME_MS, w).map(|v| go.limits.winc = Some(v)),
            "binc" => number(key, text, 0, MAX_TIME_MS, w).map(|v| go.limits.binc = Some(v)),
            "movestogo" => number(key, text, 1, u32::MAX, w).map(|v| go.limits.movestogo = Some(v)),
            "depth" => number(key, text, 1, i32::MAX, w).map(|v| go.limits.depth = Some(v)),
            "nodes" => number(key, text, 1, u64::MAX, w).map(|v| go.limits.nodes = Some(v)),
            "mate" => number(key, text, 1, i32::MAX, w).map(|v| go.limits.mate = Some(v)),
            "movetime" => number(key, text, 0, MAX_TIME_MS as u64, w).map(|v| go.limits.movetime = Some(v)),
            _ => unreachable!("every numeric key of GO_KEYWORDS is matched"),
        };
        go.ignored |= understood.is_none();
    }
    // A line of garbage must not become as many lines of warnings: the
    // first few, and how many more.
    if go.warnings.len() > MAX_GO_WARNINGS {
        let more = go.warnings.len() - MAX_GO_WARNINGS;
        go.warnings.truncate(MAX_GO_WARNINGS);
        go.warnings.push(format!("and {more} more"));
    }
    go
}

/// Warnings of one `go` line quoted in full; the rest are counted.
const MAX_GO_WARNINGS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> GoParams {
        match parse(line) {
            Ok(Some(Command::Go(go))) => go,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn out_of_range_go_values_are_clamped_and_noted() {
        let g = go("go movestogo 0 depth -3 mate 0 nodes 0");
        assert_eq!(
            (g.limits.movestogo, g.limits.depth, g.limits.mate, g.limits.nodes),
            (Some(1), Some(1), Some(1), Some(1))
        );
        assert_eq!(g.warnings.len(), 4);
        assert!(g.warnings[0].contains("go movestogo 0 is out of range; using 1"), "{:?}", g.warnings);
        assert!(!g.ignored, "clamped values are used, not ignored");
        let g = go("go wtime 99999999999999999999 btime -500 winc 99999999999999999999999999999999999999999999");
        assert_eq!((g.limits.wtime, g.limits.btime, g.limits.winc), (Some(MAX_TIME_MS), Some(0), Some(MAX_TIME_MS)));
        assert_eq!(g.warnings.len(), 3);
        let g = go("go wtime 1000 btime 900 movestogo 40");
        assert!(g.warnings.is_empty() && !g.ignored);
    }

    #[test]
    fn go_never_fails_and_keeps_what_it_understood() {
        // Each case: the line, what must survive, the warning it gives.
        let g = go("go depth abc");
        assert_eq!(g.limits.depth, None);
        assert!(g.ignored);
        assert!(g.warnings[0].contains("'abc' is not a number"), "{:?}", g.warnings);
        let g = go("go foo");
        assert!(g.ignored && g.warnings[0].contains("unknown word 'foo'"));
        let g = go("go perft 3");
        assert!(g.ignored && g.warnings.len() == 1 && g.warnings[0].contains("perft"), "{:?}", g.warnings);
        let g = go("go depth 4 searchmoves");
        assert_eq!(g.limits.depth, Some(4));
        assert!(g.limits.searchmoves.is_empty() && !g.ignored);
        assert!(g.warnings[0].contains("without moves"));
        let g = go("go depth wtime 100 foo 7 nodes 1.5 movetime 50");
        assert_eq!(
            (g.limits.depth, g.limits.wtime, g.limits.nodes, g.limits.movetime),
            (None, Some(100), None, Some(50))
        );
        assert_eq!(g.warnings.len(), 4, "{:?}", g.warnings);
        assert!(g.warnings[0].contains("go depth needs a value"));
        let g = go("go depth");
        assert!(g.warnings[0].contains("needs a value") && g.ignored && g.limits.depth.is_none());
        let g = go("go wtime --5 nodes -");
        assert!(g.warnings.iter().all(|w| w.contains("not a number")) && g.warnings.len() == 2);
        assert!(go("go").warnings.is_empty() && !go("go").ignored);
    }

    #[test]
    fn well_formed_commands() {
        assert_eq!(parse("  "), Ok(None));
        assert_eq!(parse("isready"), Ok(Some(Command::IsReady)));
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Some(Command::SetOption { name: "Move Overhead".into(), value: Some("30".into()) }))
        );
        assert_eq!(
            parse("setoption name SyzygyPath value"),
            Ok(Some(Command::SetOption { name: "SyzygyPath".into(), value: Some(String::new()) }))
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Ok(Some(Command::Position {
                start: Start::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()],
                notes: vec![]
            }))
        );
        let g = go("go wtime 1000 btime 900 winc 10 binc 10 searchmoves e2e4 d2d4 depth 5");
        assert_eq!(
            (g.limits.wtime, g.limits.btime, g.limits.winc, g.limits.depth),
            (Some(1000), Some(900), Some(10), Some(5))
        );
        assert_eq!(g.limits.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(go("go infinite").limits.infinite && go("go ponder wtime 5").limits.ponder);
        assert_eq!(parse("d"), Ok(Some(Command::Display)));
        assert_eq!(parse("eval"), Ok(Some(Command::Eval)));
        assert_eq!(parse("bench"), Ok(Some(Command::Bench { depth: None })));
        assert_eq!(parse("bench 5"), Ok(Some(Command::Bench { depth: Some(5) })));
        assert_eq!(parse("perft 3"), Ok(Some(Command::Perft { depth: 3 })));
    }

    #[test]
    fn malformed_commands_name_the_problem() {
        assert!(parse("foo bar").unwrap_err().contains("unknown command 'foo'"));
        let unreadable = |line: &str| match parse(line) {
            Ok(Some(Command::Position { start: Start::Unreadable(why), .. })) => why,
            other => panic!("{line}: {other:?}"),
        };
        assert!(unreadable("position").contains("startpos"));
        assert!(unreadable("position fen").contains("needs a FEN"));
        assert!(unreadable("position somewhere").contains("somewhere"));
        match parse("position startpos e2e4") {
            Ok(Some(Command::Position { start: Start::StartPos, moves, notes })) => {
                assert!(moves.is_empty() && notes[0].contains("ignored 'e2e4'"), "{notes:?}")
            }
            other => panic!("{other:?}"),
        }
        assert!(parse("setoption Hash 3").unwrap_err().contains("name"));
        assert!(parse("perft").unwrap_err().contains("needs a depth"));
        assert!(parse("perft 99").unwrap_err().contains("from 0 to 7"));
        assert!(parse("bench x").unwrap_err().contains("'x'"));
    }
}

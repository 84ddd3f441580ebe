//! Parsing UCI input lines into commands. Pure text handling: nothing here
//! knows about the board, so every error names what was wrong with the text.

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// The numeric and flag parameters of `go`; `searchmoves` stay text until
/// they are checked against the position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    /// Values that were out of range and were clamped, one message each
    /// (the engine reports them and searches anyway: a GUI waits for the move).
    pub clamped: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    Debug,
    Register,
    SetOption { name: String, value: Option<String> },
    Position { start: Start, moves: Vec<String> },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
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

/// Parses one line. `Ok(None)` for a blank line.
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
        "go" => Command::Go(parse_go(&rest)?),
        other => return Err(format!("unknown command '{other}'")),
    };
    Ok(Some(command))
}

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
    if value.as_deref() == Some("") {
        return Err(format!("setoption '{}' has 'value' with nothing after it", name_tokens.join(" ")));
    }
    Ok(Command::SetOption { name: name_tokens.join(" "), value })
}

fn parse_position(rest: &[&str]) -> Result<Command, String> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let head = &rest[..moves_at.unwrap_or(rest.len())];
    let moves = moves_at.map_or_else(Vec::new, |i| rest[i + 1..].iter().map(|s| s.to_string()).collect());
    let start = match head.first() {
        Some(&"startpos") if head.len() == 1 => Start::StartPos,
        Some(&"startpos") => {
            return Err(format!("unexpected '{}' after 'position startpos'", head[1]));
        }
        Some(&"fen") if head.len() > 1 => Start::Fen(head[1..].join(" ")),
        Some(&"fen") => return Err("'position fen' needs a FEN".to_string()),
        Some(other) => return Err(format!("position needs 'startpos' or 'fen', not '{other}'")),
        None => return Err("position needs 'startpos' or 'fen'".to_string()),
    };
    Ok(Command::Position { start, moves })
}

/// Times beyond this (ms, about 35 years) are clamped: no arithmetic on
/// them can overflow.
const MAX_TIME_MS: i64 = 1 << 40;

/// An integer within `min..=max`: a value outside (however many digits it
/// has) is clamped to the nearer bound and a note is added to `clamped`;
/// text that is not an integer is an error.
fn clamped<T: TryFrom<i128> + Into<i128> + Copy>(
    key: &str,
    value: Option<&&str>,
    min: T,
    max: T,
    clamped: &mut Vec<String>,
) -> Result<T, String> {
    let text = value.ok_or_else(|| format!("go {key} needs a value"))?;
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("go {key}: '{text}' is not a valid number"));
    }
    let negative = text.starts_with('-');
    // More digits than i128 holds: beyond any bound, on its side.
    let wide: i128 = text.parse().unwrap_or(if negative { i128::MIN } else { i128::MAX });
    let (lo, hi) = (min.into(), max.into());
    let value = wide.clamp(lo, hi);
    if value != wide {
        clamped.push(format!("go {key} {text} is out of range; using {value}"));
    }
    Ok(T::try_from(value).unwrap_or(if value == lo { min } else { max }))
}

fn parse_go(rest: &[&str]) -> Result<GoParams, String> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let value = rest.get(i + 1);
        let mut used = 2;
        match key {
            "wtime" => go.wtime = Some(clamped(key, value, 0, MAX_TIME_MS, &mut go.clamped)?),
            "btime" => go.btime = Some(clamped(key, value, 0, MAX_TIME_MS, &mut go.clamped)?),
            "winc" => go.winc = Some(clamped(key, value, 0, MAX_TIME_MS, &mut go.clamped)?),
            "binc" => go.binc = Some(clamped(key, value, 0, MAX_TIME_MS, &mut go.clamped)?),
            "movestogo" => go.movestogo = Some(clamped(key, value, 1, u32::MAX, &mut go.clamped)?),
            "depth" => go.depth = Some(clamped(key, value, 1, i32::MAX, &mut go.clamped)?),
            "nodes" => go.nodes = Some(clamped(key, value, 1, u64::MAX, &mut go.clamped)?),
            "mate" => go.mate = Some(clamped(key, value, 1, i32::MAX, &mut go.clamped)?),
            "movetime" => go.movetime = Some(clamped(key, value, 0, MAX_TIME_MS as u64, &mut go.clamped)?),
            "infinite" => {
                go.infinite = true;
                used = 1;
            }
            "ponder" => {
                go.ponder = true;
                used = 1;
            }
            "searchmoves" => {
                let moves: Vec<String> =
                    rest[i + 1..].iter().take_while(|t| !GO_KEYWORDS.contains(t)).map(|s| s.to_string()).collect();
                if moves.is_empty() {
                    return Err("go searchmoves needs at least one move".to_string());
                }
                used = 1 + moves.len();
                go.searchmoves = moves;
            }
            other => return Err(format!("unknown go parameter '{other}'")),
        }
        i += used;
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_go_values_are_clamped_and_noted() {
        let go = |line: &str| match parse(line) {
            Ok(Some(Command::Go(go))) => go,
            other => panic!("{line}: {other:?}"),
        };
        let g = go("go movestogo 0 depth -3 mate 0 nodes 0");
        assert_eq!((g.movestogo, g.depth, g.mate, g.nodes), (Some(1), Some(1), Some(1), Some(1)));
        assert_eq!(g.clamped.len(), 4);
        assert!(g.clamped[0].contains("go movestogo 0 is out of range; using 1"), "{:?}", g.clamped);
        let g = go("go wtime 99999999999999999999 btime -500 winc 99999999999999999999999999999999999999999999");
        assert_eq!((g.wtime, g.btime, g.winc), (Some(MAX_TIME_MS), Some(0), Some(MAX_TIME_MS)));
        assert_eq!(g.clamped.len(), 3);
        let g = go("go wtime 1000 btime 900 movestogo 40");
        assert!(g.clamped.is_empty());
        assert!(parse("go wtime --5").unwrap_err().contains("not a valid number"));
        assert!(parse("go nodes -").unwrap_err().contains("not a valid number"));
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
            parse("position startpos moves e2e4 e7e5"),
            Ok(Some(Command::Position { start: Start::StartPos, moves: vec!["e2e4".into(), "e7e5".into()] }))
        );
        let Ok(Some(Command::Go(go))) = parse("go wtime 1000 btime 900 winc 10 binc 10 searchmoves e2e4 d2d4 depth 5")
        else {
            panic!("go did not parse");
        };
        assert_eq!((go.wtime, go.btime, go.winc, go.depth), (Some(1000), Some(900), Some(10), Some(5)));
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(matches!(parse("go infinite"), Ok(Some(Command::Go(GoParams { infinite: true, .. })))));
    }

    #[test]
    fn malformed_commands_name_the_problem() {
        assert!(parse("foo bar").unwrap_err().contains("unknown command 'foo'"));
        assert!(parse("go depth").unwrap_err().contains("needs a value"));
        assert!(parse("go depth x").unwrap_err().contains("'x'"));
        assert!(parse("go wtime -").unwrap_err().contains("'-'"));
        assert!(parse("go depth 1.5").unwrap_err().contains("not a valid number"));
        assert!(parse("go sideways").unwrap_err().contains("sideways"));
        assert!(parse("position").unwrap_err().contains("startpos"));
        assert!(parse("position fen").unwrap_err().contains("needs a FEN"));
        assert!(parse("position somewhere").unwrap_err().contains("somewhere"));
        assert!(parse("setoption Hash 3").unwrap_err().contains("name"));
        assert!(parse("setoption name Hash value").unwrap_err().contains("nothing after"));
    }
}

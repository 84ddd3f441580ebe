//! Lists of positions to label: one FEN or EPD line each, plain or zstd.
//!
//! A line is a FEN (4 to 6 fields) followed, optionally, by the game's result
//! in any of the usual spellings:
//! - an EPD operation `c9 "1-0";` (EPD lines may carry other operations too);
//! - a bracketed result `[1.0]`, `[0.5]`, `[0-1]`, as in many training sets;
//! - a last `|`-separated field, `… | 1-0` or `… | 0.5`.
//!
//! Results are kept from white's view: 0 black won, 1 draw, 2 white won.

use std::io::BufRead;
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

use crate::store::open_text;

/// What to do with a position whose line carries no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MissingResult {
    /// Refuse the file, naming the first such line.
    Refuse,
    /// Record it as a draw.
    Draw,
    /// Leave the position out.
    Skip,
}

/// A position read from a list.
#[derive(Clone, Debug)]
pub struct Listed {
    pub pos: Chess,
    pub result: u8,
}

/// What reading a list found besides its positions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ListReport {
    pub read: usize,
    pub without_result: usize,
    pub skipped_without_result: usize,
}

fn parse_result(word: &str) -> Option<u8> {
    match word.trim().trim_end_matches(';').trim_matches('"') {
        "1-0" | "1.0" | "1" => Some(2),
        "0-1" | "0.0" | "0" => Some(0),
        "1/2-1/2" | "0.5" | "1/2" | "=" => Some(1),
        _ => None,
    }
}

/// Splits a line into its FEN and its result, if any.
fn split_line(line: &str) -> Result<(String, Option<u8>), String> {
    let (head, piped) = match line.rsplit_once('|') {
        Some((head, last)) => {
            let result = parse_result(last).ok_or_else(|| format!("'{}' after '|' is not a result", last.trim()))?;
            // A text record `<FEN> | score | result` keeps only its FEN here.
            (head.split('|').next().unwrap_or(head), Some(result))
        }
        None => (line, None),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    if words.len() < 4 {
        return Err("a FEN needs at least 4 fields".into());
    }
    let mut fen_words = words[..4].to_vec();
    let mut rest = &words[4..];
    // Full FENs carry the two clocks; EPD lines carry operations instead.
    while fen_words.len() < 6 && rest.first().is_some_and(|w| w.parse::<u32>().is_ok()) {
        fen_words.push(rest[0]);
        rest = &rest[1..];
    }
    let mut result = piped;
    let mut i = 0;
    while i < rest.len() {
        let word = rest[i];
        if let Some(inner) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            result = Some(parse_result(inner).ok_or_else(|| format!("'{word}' is not a result"))?);
        } else if word == "c9" {
            let value = rest.get(i + 1).ok_or("c9 without a value")?;
            result = Some(parse_result(value).ok_or_else(|| format!("c9 {value} is not a result"))?);
            i += 1;
        }
        i += 1;
    }
    Ok((fen_words.join(" "), result))
}

/// Parses one line; `Ok(None)` for blank lines and `#` comments.
pub fn parse_line(line: &str) -> Result<Option<(Chess, Option<u8>)>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (fen, result) = split_line(line)?;
    let pos: Chess = fen
        .parse::<Fen>()
        .map_err(|e| format!("bad FEN '{fen}': {e}"))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("illegal position '{fen}': {e}"))?;
    if pos.legal_moves().is_empty() {
        return Err(format!("'{fen}' is mate or stalemate: nothing to search"));
    }
    Ok(Some((pos, result)))
}

/// Reads every position of a list; the first bad line stops the read with
/// its file and line number.
pub fn read(path: &Path, missing: MissingResult) -> Result<(Vec<Listed>, ListReport), String> {
    let reader = open_text(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut report = ListReport::default();
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        let at = || format!("{}:{}", path.display(), n + 1);
        let Some((pos, result)) = parse_line(&line).map_err(|e| format!("{}: {e}", at()))? else { continue };
        report.read += 1;
        let result = match (result, missing) {
            (Some(r), _) => r,
            (None, MissingResult::Refuse) => {
                return Err(format!(
                    "{}: no game result on this line; add one (c9 \"1-0\", [0.5] or | 0-1) \
                     or pass --missing-result draw|skip",
                    at()
                ));
            }
            (None, MissingResult::Draw) => {
                report.without_result += 1;
                1
            }
            (None, MissingResult::Skip) => {
                report.without_result += 1;
                report.skipped_without_result += 1;
                continue;
            }
        };
        out.push(Listed { pos, result });
    }
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    fn result_of(line: &str) -> Option<u8> {
        parse_line(line).unwrap().unwrap().1
    }

    #[test]
    fn reads_the_usual_spellings_of_a_result() {
        assert_eq!(result_of(START), None);
        assert_eq!(result_of(&format!("{START} 0 1")), None);
        assert_eq!(result_of(&format!("{START} bm e4; c9 \"1-0\";")), Some(2));
        assert_eq!(result_of(&format!("{START} 0 1 [0.5]")), Some(1));
        assert_eq!(result_of(&format!("{START} 0 1 [0-1]")), Some(0));
        assert_eq!(result_of(&format!("{START} 0 1 | 35 | 1.0")), Some(2));
        assert_eq!(result_of(&format!("{START} | 1/2-1/2")), Some(1));
        assert!(parse_line("   ").unwrap().is_none());
        assert!(parse_line("# a comment").unwrap().is_none());
    }

    #[test]
    fn keeps_the_clocks_of_a_full_fen() {
        let (pos, _) = parse_line("8/8/8/4k3/8/8/4P3/4K3 w - - 37 90 [1.0]").unwrap().unwrap();
        assert_eq!(pos.halfmoves(), 37);
        assert_eq!(pos.fullmoves().get(), 90);
    }

    #[test]
    fn refuses_bad_lines_with_a_reason() {
        for (line, why) in [
            ("rnbqkbnr/pppppppp w", "4 fields"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -", "bad FEN"),
            ("8/8/8/8/8/8/8/8 w - -", "illegal position"),
            (&format!("{START} [2.0]"), "not a result"),
            (&format!("{START} | win"), "not a result"),
            ("7k/6Q1/6K1/8/8/8/8/8 b - -", "mate or stalemate"),
        ] {
            let err = parse_line(line).unwrap_err();
            assert!(err.contains(why), "{line}: {err}");
        }
    }

    #[test]
    fn a_missing_result_is_refused_drawn_or_skipped_as_asked() {
        let path = std::env::temp_dir().join(format!("tessera-fenlist-{}.epd", std::process::id()));
        std::fs::write(&path, format!("{START} c9 \"0-1\";\n\n{START} 0 1\n")).unwrap();
        let err = read(&path, MissingResult::Refuse).unwrap_err();
        assert!(err.contains(":3: no game result"), "{err}");
        let (drawn, report) = read(&path, MissingResult::Draw).unwrap();
        assert_eq!(drawn.iter().map(|l| l.result).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(report, ListReport { read: 2, without_result: 1, skipped_without_result: 0 });
        let (kept, report) = read(&path, MissingResult::Skip).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(report.skipped_without_result, 1);
        std::fs::remove_file(&path).unwrap();
    }
}

//! Position lines: one FEN or EPD position a line, plain or zstd, as opening
//! books, lists to label and test suites have them. The one reader of such
//! lines: datagen's lists, books and feature statistics read
//! through it.
//!
//! A line is a FEN (4 to 6 fields) followed, optionally, by the game's result
//! in any of the usual spellings:
//! - an EPD operation `c9 "1-0";` (EPD lines may carry other operations too);
//! - a bracketed result `[1.0]`, `[0.5]`, `[0-1]`, as in many training sets;
//! - a last `|`-separated field, `… | 1-0` or `… | 0.5` (so a text training
//!   line `<FEN> | score | result` is a position line too).
//!
//! Results are kept from white's view: 0 black won, 1 draw, 2 white won.
//! Blank lines and lines starting with `#` are skipped.

use std::io::BufRead;
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// A position read from a line, and the result the line gave, if any.
#[derive(Clone, Debug)]
pub struct PositionLine {
    pub pos: Chess,
    /// White's view: 0 black won, 1 draw, 2 white won.
    pub result: Option<u8>,
}

/// A result in any of the usual spellings, white's view.
fn parse_result(word: &str) -> Option<u8> {
    match word.trim().trim_end_matches(';').trim_matches('"') {
        "1-0" | "1.0" | "1" => Some(2),
        "0-1" | "0.0" | "0" => Some(0),
        "1/2-1/2" | "0.5" | "1/2" | "=" => Some(1),
        _ => None,
    }
}

/// Splits a line into its FEN (with its clocks where the line has them) and
/// its result, if any.
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

/// Parses one line; `Ok(None)` for blank lines and `#` comments. `mode` says
/// how castling rights are read (Chess960 accepts Shredder and X-FEN letters).
pub fn parse_line(line: &str, mode: CastlingMode) -> Result<Option<PositionLine>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (fen, result) = split_line(line)?;
    let pos: Chess = fen
        .parse::<Fen>()
        .map_err(|e| format!("bad FEN '{fen}': {e}"))?
        .into_position(mode)
        .map_err(|e| format!("illegal position '{fen}': {e}"))?;
    Ok(Some(PositionLine { pos, result }))
}

/// Calls `each` with every position line of `path` (plain or zstd) and its
/// line number (from 1). The first bad line stops the read with an error
/// naming the file and the line; an error `each` returns stops it the same way.
pub fn read(
    path: &Path,
    mode: CastlingMode,
    mut each: impl FnMut(usize, PositionLine) -> Result<(), String>,
) -> Result<(), String> {
    let reader = crate::store::open_text(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let at = |e: String| format!("{}:{}: {e}", path.display(), n + 1);
        if let Some(parsed) = parse_line(&line, mode).map_err(at)? {
            each(n + 1, parsed).map_err(at)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    fn result_of(line: &str) -> Option<u8> {
        parse_line(line, CastlingMode::Standard).unwrap().unwrap().result
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
        assert!(parse_line("   ", CastlingMode::Standard).unwrap().is_none());
        assert!(parse_line("# a comment", CastlingMode::Standard).unwrap().is_none());
    }

    #[test]
    fn keeps_the_clocks_of_a_full_fen() {
        let line = parse_line("8/8/8/4k3/8/8/4P3/4K3 w - - 37 90 [1.0]", CastlingMode::Standard).unwrap().unwrap();
        assert_eq!(line.pos.halfmoves(), 37);
        assert_eq!(line.pos.fullmoves().get(), 90);
    }

    #[test]
    fn chess960_castling_only_in_chess960_mode() {
        let line = "qrbbnkrn/pppppppp/8/8/8/8/PPPPPPPP/QRBBNKRN w GBgb - 0 1";
        assert!(parse_line(line, CastlingMode::Standard).is_err());
        let pos = parse_line(line, CastlingMode::Chess960).unwrap().unwrap().pos;
        assert_eq!(pos.castles().castling_rights().count(), 4);
    }

    #[test]
    fn refuses_bad_lines_with_a_reason() {
        for (line, why) in [
            ("rnbqkbnr/pppppppp w", "4 fields"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -", "bad FEN"),
            ("8/8/8/8/8/8/8/8 w - -", "illegal position"),
            (&format!("{START} [2.0]"), "not a result"),
            (&format!("{START} | win"), "not a result"),
        ] {
            let err = parse_line(line, CastlingMode::Standard).unwrap_err();
            assert!(err.contains(why), "{line}: {err}");
        }
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_number() {
        let path_tmp = tempfile::tempdir().unwrap();
        let path = path_tmp.path().join("list.epd");
        std::fs::write(&path, format!("# book\n{START} c9 \"0-1\";\n\nnot a position\n")).unwrap();
        let mut seen = Vec::new();
        let err = read(&path, CastlingMode::Standard, |n, l| {
            seen.push((n, l.result));
            Ok(())
        })
        .unwrap_err();
        assert_eq!(seen, [(2, Some(0))]);
        assert!(err.contains(":4: ") && err.contains("4 fields"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }
}

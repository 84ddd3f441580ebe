//! Lists of positions to label: one FEN or EPD line each, plain or zstd,
//! read by `tessera_data::lines` (which says how a line may carry the game's
//! result), and what to do with a line that carries none.

use std::path::Path;

use shakmaty::{CastlingMode, Chess, Position};
use tessera_data::lines::{self, PositionLine};

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

/// Parses one line (`tessera_data::lines`); `Ok(None)` for blank lines and
/// `#` comments. A position without a legal move is refused: there is
/// nothing to search.
pub fn parse_line(line: &str) -> Result<Option<(Chess, Option<u8>)>, String> {
    let Some(PositionLine { pos, result }) = lines::parse_line(line, CastlingMode::Standard)? else {
        return Ok(None);
    };
    playable(&pos)?;
    Ok(Some((pos, result)))
}

fn playable(pos: &Chess) -> Result<(), String> {
    if pos.legal_moves().is_empty() {
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        return Err(format!("'{fen}' is mate or stalemate: nothing to search"));
    }
    Ok(())
}

/// Reads every position of a list; the first bad line stops the read with
/// its file and line number.
pub fn read(path: &Path, missing: MissingResult) -> Result<(Vec<Listed>, ListReport), String> {
    let mut out = Vec::new();
    let mut report = ListReport::default();
    lines::read(path, CastlingMode::Standard, |_, PositionLine { pos, result }| {
        playable(&pos)?;
        report.read += 1;
        let result = match (result, missing) {
            (Some(r), _) => r,
            (None, MissingResult::Refuse) => {
                return Err("no game result on this line; add one (c9 \"1-0\", [0.5] or | 0-1) \
                     or pass --missing-result draw|skip"
                    .into());
            }
            (None, MissingResult::Draw) => {
                report.without_result += 1;
                1
            }
            (None, MissingResult::Skip) => {
                report.without_result += 1;
                report.skipped_without_result += 1;
                return Ok(());
            }
        };
        out.push(Listed { pos, result });
        Ok(())
    })?;
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn refuses_bad_lines_with_a_reason() {
        for (line, why) in [
            ("rnbqkbnr/pppppppp w", "4 fields"),
            (&format!("{START} | win"), "not a result"),
            ("7k/6Q1/6K1/8/8/8/8/8 b - -", "mate or stalemate"),
        ] {
            let err = parse_line(line).unwrap_err();
            assert!(err.contains(why), "{line}: {err}");
        }
    }

    #[test]
    fn a_missing_result_is_refused_drawn_or_skipped_as_asked() {
        let path_tmp = tempfile::tempdir().unwrap();
        let path = path_tmp.path().join("list.epd");
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

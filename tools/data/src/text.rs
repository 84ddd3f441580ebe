//! The text interchange line (bullet's): `<FEN> | <score> | <result>`, the
//! score in centipawns and the result (1.0, 0.5 or 0.0) both from white's
//! view. The one parser of the format: records, the trainer's samples and
//! the statistics all read lines through [`parse_line`].

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// One parsed line.
#[derive(Clone, Debug, PartialEq)]
pub struct TextLine {
    pub pos: Chess,
    /// Centipawns, white's view (finite).
    pub score: f32,
    /// 1.0 white won, 0.5 draw, 0.0 black won.
    pub result: f32,
}

/// Parses a line. `mode` says how castling rights are read: standard (KQkq
/// only) or Chess960 (Shredder and X-FEN letters too).
pub fn parse_line(line: &str, mode: CastlingMode) -> Result<TextLine, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(format!("expected 3 fields separated by '|', found {}", fields.len()));
    };
    let pos = parse_fen(fen, mode)?;
    let score: f32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    if !score.is_finite() {
        return Err(format!("bad score '{score}'"));
    }
    let result = parse_result(result)?;
    Ok(TextLine { pos, score, result })
}

/// A FEN as a legal position.
pub fn parse_fen(fen: &str, mode: CastlingMode) -> Result<Chess, String> {
    let fen: Fen = fen.trim().parse().map_err(|e| format!("bad FEN: {e}"))?;
    fen.into_position(mode).map_err(|e| format!("illegal position: {e}"))
}

/// `1.0`/`1`, `0.5`, `0.0`/`0`.
pub fn parse_result(text: &str) -> Result<f32, String> {
    match text.trim() {
        "1" | "1.0" => Ok(1.0),
        "0.5" => Ok(0.5),
        "0" | "0.0" => Ok(0.0),
        other => Err(format!("bad result '{other}' (1.0, 0.5 or 0.0)")),
    }
}

/// Writes a result as the line format has it.
pub fn format_result(result: f32) -> &'static str {
    if result >= 0.75 {
        "1.0"
    } else if result >= 0.25 {
        "0.5"
    } else {
        "0.0"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn lines_parse_in_either_castling_mode() {
        let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | -12.5 | 0.5";
        let parsed = parse_line(line, CastlingMode::Standard).unwrap();
        assert_eq!((parsed.score, parsed.result), (-12.5, 0.5));
        // A Chess960 start (rooks on b and g): Shredder letters only in Chess960 mode.
        let chess960 = "qrbbnkrn/pppppppp/8/8/8/8/PPPPPPPP/QRBBNKRN w GBgb - 0 1 | 30 | 1.0";
        assert!(parse_line(chess960, CastlingMode::Standard).is_err());
        let parsed = parse_line(chess960, CastlingMode::Chess960).unwrap();
        assert_eq!(parsed.pos.castles().castling_rights().count(), 4);
        assert_eq!(parsed.result, 1.0);
    }

    #[test]
    fn bad_lines_name_the_field() {
        let fen = "8/8/8/8/8/8/8/K6k w - - 0 1";
        assert!(parse_line("x | 1 | 1.0", CastlingMode::Standard).unwrap_err().contains("bad FEN"));
        assert!(parse_line(&format!("{fen} | nan | 1.0"), CastlingMode::Standard).unwrap_err().contains("bad score"));
        assert!(parse_line(&format!("{fen} | abc | 1.0"), CastlingMode::Standard).unwrap_err().contains("bad score"));
        assert!(parse_line(&format!("{fen} | 1 | 2"), CastlingMode::Standard).unwrap_err().contains("bad result"));
        assert!(parse_line(fen, CastlingMode::Standard).unwrap_err().contains("expected 3 fields"));
        assert_eq!(format_result(parse_result("0").unwrap()), "0.0");
    }
}

//! The FEN of a GUI's `position fen`, read forgivingly: what can be repaired
//! without guessing is repaired and noted (the README's table "What
//! `position` does with a doubtful FEN"), and only a position no game can
//! reach is refused, so that the engine never answers for a position the
//! GUI did not send.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, PositionErrorKinds};

use super::{Board, BoardError};

/// Longest piece of the input quoted back in a note.
const QUOTED: usize = 60;

/// The board of a FEN, with a note for each repair made to it. Missing fields
/// take the FEN defaults (`w - - 0 1`); fields after the sixth are ignored;
/// castling rights whose king or rook is not on its square, and an en
/// passant square no pawn can have just crossed, are dropped. Refused: text
/// that is not a FEN, no king or more than one of a colour, pawns on the
/// first or last rank, the side not to move in check.
pub fn read(text: &str, chess960: bool) -> Result<(Board, Vec<String>), BoardError> {
    let mut notes = Vec::new();
    let mut fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(BoardError::Fen("empty".into()));
    }
    if fields.len() > 6 {
        notes.push(format!("ignored what follows the six FEN fields: '{}'", quote(&fields[6..].join(" "))));
        fields.truncate(6);
    }
    if fields.len() == 1 {
        notes.push("no side to move in the FEN: White to move (the FEN defaults, w - - 0 1)".into());
    }
    const DEFAULTS: [&str; 6] = ["", "w", "-", "-", "0", "1"];
    let full: Vec<&str> = fields.iter().copied().chain(DEFAULTS[fields.len()..].iter().copied()).collect();
    let fen: Fen = full.join(" ").parse().map_err(|e| BoardError::Fen(format!("{e}")))?;
    let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
    let asked_castling = full[2];
    let asked_ep = full[3];
    // shakmaty's error is large (it carries the position); it is built only
    // on bad input, so its size costs nothing.
    #[allow(clippy::result_large_err)]
    let pos: Chess = match fen.into_position(mode) {
        Ok(pos) => pos,
        Err(e) => {
            let kinds = e.kinds();
            let repairable = PositionErrorKinds::INVALID_CASTLING_RIGHTS
                | PositionErrorKinds::INVALID_EP_SQUARE
                | PositionErrorKinds::IMPOSSIBLE_CHECK
                | PositionErrorKinds::TOO_MUCH_MATERIAL;
            if !(kinds - repairable).is_empty() {
                return Err(BoardError::Fen(refusal(kinds - repairable)));
            }
            // Checks no game could reach, and more material than a game
            // allows, are still playable: kept as they are, as other
            // engines keep them.
            let pos = e
                .ignore_impossible_check()
                .or_else(|e| e.ignore_too_much_material())
                .or_else(|e| e.ignore_invalid_castling_rights())
                .or_else(|e| e.ignore_invalid_ep_square())
                .map_err(|e| BoardError::Fen(format!("{e}")))?;
            if kinds.contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) {
                let kept = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                let kept = kept.split(' ').nth(2).unwrap_or("-").to_string();
                let shredder = asked_castling.chars().any(|c| !"KQkq-".contains(c));
                let hint = if shredder && !chess960 { " (Chess960 castling needs UCI_Chess960)" } else { "" };
                notes.push(format!(
                    "castling rights '{}' name a king or rook not on its square{hint}: '{kept}' kept",
                    quote(asked_castling)
                ));
            }
            if kinds.contains(PositionErrorKinds::INVALID_EP_SQUARE) {
                notes.push(format!("en passant square '{}' dropped: no pawn can just have passed it", quote(asked_ep)));
            }
            pos
        }
    };
    Ok((Board::from_position(pos, mode), notes))
}

/// What makes a position unplayable, in words.
fn refusal(kinds: PositionErrorKinds) -> String {
    let mut why = Vec::new();
    for (kind, words) in [
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (PositionErrorKinds::MISSING_KING, "a king is missing"),
        (PositionErrorKinds::TOO_MANY_KINGS, "a side has more than one king"),
        (PositionErrorKinds::PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
        (PositionErrorKinds::OPPOSITE_CHECK, "the side not to move is in check"),
    ] {
        if kinds.contains(kind) {
            why.push(words);
        }
    }
    if why.is_empty() {
        why.push("not a legal chess position");
    }
    why.join("; ")
}

/// `text` cut to [`QUOTED`] characters, control characters replaced.
fn quote(text: &str) -> String {
    let clean: String = text.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if clean.chars().count() > QUOTED {
        format!("{}... (cut)", clean.chars().take(QUOTED).collect::<String>())
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen_of(text: &str) -> (String, Vec<String>) {
        let (board, notes) = read(text, false).unwrap_or_else(|e| panic!("{text}: {e}"));
        (board.fen(), notes)
    }

    #[test]
    fn every_row_of_the_policy() {
        // Castling with no rook: dropped, noted.
        let (fen, notes) = fen_of("4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        assert!(notes[0].contains("castling rights 'KQ'") && notes[0].contains("'Q' kept"), "{notes:?}");
        // Without any rook (Stockfish 15.1 reads past the board here).
        let (fen, _) = fen_of("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        // An en passant square no pawn crossed: dropped, noted.
        let (fen, notes) = fen_of("4k3/8/8/8/8/8/8/4K3 w - e6 0 1");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert!(notes[0].contains("en passant square 'e6' dropped"), "{notes:?}");
        // Tokens after the six fields: ignored, noted.
        let (fen, notes) = fen_of("4k3/8/8/8/8/8/8/4K3 b - - 3 40 extra words");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 b - - 3 40");
        assert!(notes[0].contains("'extra words'"), "{notes:?}");
        // Missing fields: the defaults; a missing side to move is noted.
        let (fen, notes) = fen_of("4k3/8/8/8/8/8/8/4K3");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert!(notes[0].contains("no side to move"));
        let (fen, notes) = fen_of("4k3/8/8/8/8/8/8/4K3 b");
        assert_eq!((fen.as_str(), notes.len()), ("4k3/8/8/8/8/8/8/4K3 b - - 0 1", 0));
        // Shredder letters outside Chess960: read where they name corner rooks.
        let (fen, notes) = fen_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
        assert_eq!((fen.as_str(), notes.len()), ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0));
        let (_, notes) = fen_of("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1");
        assert!(notes[0].contains("UCI_Chess960"), "{notes:?}");
        let (board, notes) = read("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", true).unwrap();
        use shakmaty::Position;
        assert!(notes.is_empty() && board.pos().castles().castling_rights().count() == 4, "{}", board.fen());
    }

    #[test]
    fn positions_no_game_reaches_are_refused_with_the_reason() {
        for (text, why) in [
            ("8/8/8/8/8/8/8/4K3 w - - 0 1", "king is missing"),
            ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "more than one king"),
            ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank"),
            ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "not to move is in check"),
            ("not a fen", "invalid"),
        ] {
            let e = read(text, false).err().unwrap_or_else(|| panic!("{text} accepted")).to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn quotes_are_cut_and_clean() {
        let long = "x".repeat(500);
        let (_, notes) = fen_of(&format!("4k3/8/8/8/8/8/8/4K3 w - - 0 1 \u{1b}[31m{long}"));
        assert!(notes[0].len() < 120 && notes[0].contains("(cut)") && !notes[0].contains('\u{1b}'), "{notes:?}");
    }
}

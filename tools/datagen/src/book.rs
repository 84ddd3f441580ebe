//! Opening books for self-play: EPD or PGN files, plain or zstd, read by
//! `tessera_data::lines` and `tessera_data::pgn`.

use std::path::Path;

use shakmaty::{CastlingMode, Chess, Position};
use tessera_data::{lines, pgn};

/// Opening positions from an EPD file (the first four fields of each line,
/// and its move counters where it has them) or a PGN file (the position after
/// each game's moves; a game with an illegal move is left out), plain or zstd.
pub fn load_book(path: &Path) -> Result<Vec<Chess>, String> {
    let mut positions = Vec::new();
    if pgn::is_pgn(path) {
        pgn::read_games(path, &mut |game| {
            if game.complete {
                positions.push(game.position_after(game.moves.len()));
            }
        })?;
    } else {
        lines::read(path, CastlingMode::Standard, |_, line| {
            positions.push(line.pos);
            Ok(())
        })?;
    }
    positions.retain(|p| !p.legal_moves().is_empty());
    if positions.is_empty() {
        return Err(format!("{}: no playable opening in the book", path.display()));
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    #[test]
    fn books_of_both_kinds_load() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("b.epd");
        std::fs::write(&epd, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"x\";\n\n").unwrap();
        assert_eq!(load_book(&epd).unwrap().len(), 1);
        let pgn = dir.join("b.pgn");
        std::fs::write(&pgn, "[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n[Result \"*\"]\n\n1. d4 *\n").unwrap();
        let book = load_book(&pgn).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].turn(), Color::Black);
        std::fs::write(&epd, "not a position\n").unwrap();
        assert!(load_book(&epd).unwrap_err().contains("b.epd:1"));
        // Move counters, where a line has them, are kept: a book position's ply is known.
        std::fs::write(&epd, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n").unwrap();
        assert_eq!(load_book(&epd).unwrap()[0].fullmoves().get(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Opening books for self-play: EPD or PGN files, plain or zstd.

use std::ops::ControlFlow;
use std::path::Path;

use pgn_reader::{Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// Opening positions from an EPD file (the first four fields of each line,
/// and its move counters where it has them) or a PGN file (the position after each game's moves), plain or zstd.
pub fn load_book(path: &Path) -> Result<Vec<Chess>, String> {
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let name = path.to_string_lossy().to_lowercase();
    let mut positions = Vec::new();
    if name.ends_with(".pgn") || name.ends_with(".pgn.zst") {
        let mut visitor = BookVisitor;
        let mut reader = Reader::new(crate::store::open_text(path).map_err(io)?);
        while let Some(pos) = reader.read_game(&mut visitor).map_err(io)? {
            positions.extend(pos);
        }
    } else {
        use std::io::BufRead;
        for (n, line) in crate::store::open_text(path).map_err(io)?.lines().enumerate() {
            let line = line.map_err(io)?;
            let fields: Vec<&str> = line.split_whitespace().take(6).collect();
            if fields.is_empty() {
                continue;
            }
            // EPD's four fields, and the move counters where the line has
            // them (so that a position's ply is known).
            let counters = fields.len() == 6 && fields[4..].iter().all(|f| f.parse::<u32>().is_ok());
            let fen =
                if counters { fields.join(" ") } else { format!("{} 0 1", fields[..fields.len().min(4)].join(" ")) };
            let pos = fen
                .parse::<Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).map_err(|e| e.to_string()))
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            positions.push(pos);
        }
    }
    positions.retain(|p| !p.legal_moves().is_empty());
    if positions.is_empty() {
        return Err(format!("{}: no playable opening in the book", path.display()));
    }
    Ok(positions)
}

struct BookVisitor;

impl Visitor for BookVisitor {
    type Tags = ();
    type Movetext = Option<Chess>;
    type Output = Option<Chess>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<Self::Output, Option<Chess>> {
        ControlFlow::Continue(Some(Chess::default()))
    }

    fn san(&mut self, pos: &mut Option<Chess>, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if let Some(p) = pos {
            match san_plus.san.to_move(p) {
                Ok(m) => p.play_unchecked(m),
                Err(_) => *pos = None,
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, pos: Option<Chess>) -> Self::Output {
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    #[test]
    fn books_of_both_kinds_load() {
        let dir = std::env::temp_dir().join(format!("tessera-book-{}", std::process::id()));
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

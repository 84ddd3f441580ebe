//! The thesis's statistics table for a feature set: per block and in total,
//! the mean number of active features per position and of features added and
//! removed per move, and how often a move forces a refresh.
//!
//! Positions come from a PGN file (every position from the 20th half-move
//! on, with the move played from it, as in the thesis) or from a file of FEN,
//! EPD or `FEN | score | result` lines (each line a position; every legal
//! move from it counts as a move). Both perspectives are counted; means are
//! per perspective.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

use pgn_reader::{Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::{FeatureSet, Perspective};

/// Plies skipped at the start of each PGN game.
pub const PGN_SKIP_PLIES: usize = 20;

#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub name: String,
    pub size: usize,
    pub active: u64,
    pub added: u64,
    pub removed: u64,
    pub refreshes: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Position–perspective pairs seen.
    pub positions: u64,
    /// Move–perspective pairs seen.
    pub moves: u64,
    pub blocks: Vec<Counts>,
    pub total: Counts,
}

impl Stats {
    fn new(fs: &FeatureSet) -> Stats {
        let counts = |name: &str, size| Counts { name: name.to_string(), size, ..Counts::default() };
        Stats {
            blocks: fs.blocks().into_iter().map(|(b, _)| counts(b.name(), b.size())).collect(),
            total: counts(fs.expression(), fs.size()),
            ..Stats::default()
        }
    }

    fn add_position(&mut self, fs: &FeatureSet, pos: &Chess) {
        let mut scratch = Vec::new();
        let blocks = fs.blocks();
        for color in Color::ALL {
            let p = Perspective(color);
            for ((block, _), counts) in blocks.iter().zip(&mut self.blocks) {
                scratch.clear();
                block.active(pos, p, &mut scratch);
                counts.active += scratch.len() as u64;
                self.total.active += scratch.len() as u64;
            }
            self.positions += 1;
        }
    }

    fn add_move(&mut self, fs: &FeatureSet, pos: &Chess, m: Move) {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        let blocks = fs.blocks();
        for color in Color::ALL {
            let p = Perspective(color);
            let mut all_refresh = true;
            for ((block, _), counts) in blocks.iter().zip(&mut self.blocks) {
                if block.needs_refresh(pos, m, p) {
                    counts.refreshes += 1;
                    continue;
                }
                all_refresh = false;
                added.clear();
                removed.clear();
                block.changes(pos, m, &after, p, &mut added, &mut removed);
                counts.added += added.len() as u64;
                counts.removed += removed.len() as u64;
                self.total.added += added.len() as u64;
                self.total.removed += removed.len() as u64;
            }
            self.total.refreshes += all_refresh as u64;
            self.moves += 1;
        }
    }

    /// A markdown table, one row per block and a total row.
    pub fn table(&self) -> String {
        let mean = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        let mut out = String::from(
            "| block | size | active / position | added / move | removed / move | refresh rate |\n|---|---|---|---|---|---|\n",
        );
        for c in self.blocks.iter().chain(std::iter::once(&self.total)) {
            out.push_str(&format!(
                "| {} | {} | {:.2} | {:.2} | {:.2} | {:.3} |\n",
                c.name,
                c.size,
                mean(c.active, self.positions),
                mean(c.added, self.moves),
                mean(c.removed, self.moves),
                mean(c.refreshes, self.moves),
            ));
        }
        out.push_str(&format!(
            "\n{} positions and {} moves, counted for both perspectives; added/removed exclude refreshed blocks.\n",
            self.positions / 2,
            self.moves / 2
        ));
        out
    }
}

/// Collects statistics over every position of `path` (see the module docs).
pub fn collect(fs: &FeatureSet, path: &Path) -> Result<Stats, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut stats = Stats::new(fs);
    let is_pgn = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    if is_pgn {
        let mut reader = Reader::new(BufReader::new(file));
        let mut visitor = GameVisitor { fs, stats: &mut stats };
        while reader.read_game(&mut visitor).map_err(|e| format!("{}: {e}", path.display()))?.is_some() {}
    } else {
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            let Some(pos) = parse_position_line(&line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?
            else {
                continue;
            };
            stats.add_position(fs, &pos);
            for m in pos.legal_moves() {
                stats.add_move(fs, &pos, m);
            }
        }
    }
    if stats.positions == 0 {
        return Err(format!("{}: no positions found", path.display()));
    }
    Ok(stats)
}

/// A FEN, an EPD line (four fields and operations) or a `FEN | …` line;
/// `None` for blank lines and comments.
fn parse_position_line(line: &str) -> Result<Option<Chess>, String> {
    let text = line.split(['|', ';']).next().unwrap_or("").trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    // EPD: four FEN fields, then operations without clocks.
    let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
        fields[..6].join(" ")
    } else if fields.len() >= 4 {
        format!("{} 0 1", fields[..4].join(" "))
    } else {
        return Err(format!("not a FEN or EPD line: '{text}'"));
    };
    let fen: Fen = fen.parse().map_err(|e| format!("invalid FEN '{text}': {e}"))?;
    let pos = fen.into_position(CastlingMode::Chess960).map_err(|e| format!("illegal position '{text}': {e}"))?;
    Ok(Some(pos))
}

struct GameVisitor<'a> {
    fs: &'a FeatureSet,
    stats: &'a mut Stats,
}

/// The game so far: the position, its ply, and whether it went wrong
/// (an illegal move or a FEN start we skip).
struct Game {
    pos: Chess,
    ply: usize,
    broken: bool,
}

impl Visitor for GameVisitor<'_> {
    type Tags = bool;
    type Movetext = Game;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(false)
    }

    fn tag(&mut self, custom_start: &mut bool, name: &[u8], _value: pgn_reader::RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            *custom_start = true;
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, custom_start: bool) -> ControlFlow<(), Game> {
        // Games from set-up positions are skipped: the thesis sampled games.
        ControlFlow::Continue(Game { pos: Chess::default(), ply: 0, broken: custom_start })
    }

    fn san(&mut self, game: &mut Game, san_plus: SanPlus) -> ControlFlow<()> {
        if game.broken {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                if game.ply >= PGN_SKIP_PLIES {
                    self.stats.add_position(self.fs, &game.pos);
                    self.stats.add_move(self.fs, &game.pos, m);
                }
                game.pos.play_unchecked(m);
                game.ply += 1;
            }
            Err(_) => game.broken = true,
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _game: Game) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_epd_and_text_lines() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert!(parse_position_line(start).unwrap().is_some());
        assert!(parse_position_line("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;").unwrap().is_some());
        assert!(parse_position_line(&format!("{start} | 35 | 0.5")).unwrap().is_some());
        assert!(parse_position_line("   ").unwrap().is_none());
        assert!(parse_position_line("garbage").is_err());
        assert!(parse_position_line("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    }

    #[test]
    fn counts_for_all_on_a_written_pgn() {
        let dir = std::env::temp_dir().join(format!("tessera-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.pgn");
        // 22 quiet half-moves, then a capture: positions at plies 20, 21, 22.
        let moves = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                     7. Nf3 Nf6 8. Ng1 Ng8 9. Nf3 Nf6 10. Ng1 Ng8 11. e4 d5 12. exd5 *";
        std::fs::write(&path, format!("[Event \"t\"]\n\n{moves}\n")).unwrap();
        let fs: FeatureSet = "all".parse().unwrap();
        let stats = collect(&fs, &path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(stats.positions, 3 * 2);
        assert_eq!(stats.total.active, 32 * 6);
        // Two quiet moves (1 added, 1 removed) and a capture (1 added, 2 removed).
        assert_eq!(stats.total.added, 3 * 2);
        assert_eq!(stats.total.removed, 4 * 2);
        assert_eq!(stats.total.refreshes, 0);
    }

    #[test]
    fn missing_or_empty_input_is_an_error() {
        let fs: FeatureSet = "all".parse().unwrap();
        assert!(collect(&fs, Path::new("/nonexistent/file.pgn")).unwrap_err().contains("cannot open"));
    }
}

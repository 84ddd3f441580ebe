//! The thesis's statistics table for a feature set: per block and in total,
//! the mean number of active features per position and of features added and
//! removed per move, and how often a move forces a refresh
//! (`tessera-datagen stats FILE --features EXPR`).
//!
//! Positions come from a PGN file (every position from the 20th half-move
//! on, with the move played from it, as in the thesis), from a file of FEN,
//! EPD or `FEN | score | result` lines, or from training data in any format
//! `tessera_data` reads (each line or record a position; every legal move
//! from it counts as a move), plain or zstd. Both perspectives are counted;
//! means are per perspective.

use std::path::Path;

use shakmaty::{CastlingMode, Chess, Color, Move, Position};
use tessera_data::{lines, pgn, store};

use tessera::features::{FeatureSet, Perspective};

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
    let mut stats = Stats::new(fs);
    let every_move = |stats: &mut Stats, pos: &Chess| {
        stats.add_position(fs, pos);
        for m in pos.legal_moves() {
            stats.add_move(fs, pos, m);
        }
    };
    if pgn::is_pgn(path) {
        pgn::read_games(path, &mut |game| {
            // Games from set-up positions are skipped: the thesis sampled games.
            if game.set_up {
                return;
            }
            for (pos, m) in game.positions().skip(PGN_SKIP_PLIES) {
                stats.add_position(fs, &pos);
                stats.add_move(fs, &pos, m);
            }
        })?;
    } else if store::is_binary(path) {
        store::read_records(path, |record| every_move(&mut stats, &record.pos))?;
    } else {
        lines::read(path, CastlingMode::Chess960, |_, line| {
            every_move(&mut stats, &line.pos);
            Ok(())
        })?;
    }
    if stats.positions == 0 {
        return Err(format!("{}: no positions found", path.display()));
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_records_and_zstd_give_the_same_table() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let text = format!(
            "# three positions\n{start}\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5;\n\
             r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 | 35 | 0.5\n"
        );
        let lines = dir.join("p.epd");
        std::fs::write(&lines, &text).unwrap();
        let zstd = dir.join("p.txt.zst");
        std::fs::write(&zstd, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        let records = dir.join("p.bin");
        let mut writer = store::RecordWriter::append(&records).unwrap();
        lines::read(&lines, CastlingMode::Standard, |_, l| {
            writer.write(&tessera_data::record::Record { pos: l.pos, score: 0, result: 1 })
        })
        .unwrap();
        writer.sync().unwrap();
        let fs: FeatureSet = "all".parse().unwrap();
        let table = collect(&fs, &lines).unwrap();
        assert_eq!(table.positions, 3 * 2);
        assert_eq!(table.moves, (20 + 20 + 26) * 2);
        for other in [&zstd, &records] {
            let again = collect(&fs, other).unwrap();
            assert_eq!((again.positions, again.moves, again.table()), (table.positions, table.moves, table.table()));
        }
        std::fs::write(&lines, "garbage\n").unwrap();
        assert!(collect(&fs, &lines).unwrap_err().contains("p.epd:1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn counts_for_all_on_a_written_pgn() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
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
        assert!(collect(&fs, Path::new("/nonexistent/file.pgn")).unwrap_err().contains("cannot read"));
    }
}

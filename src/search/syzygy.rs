//! Syzygy endgame tablebases, probed with `shakmaty-syzygy`: the tables of
//! `SyzygyPath` (checked file by file when loaded), WDL probes in the search
//! after captures and pawn moves, and the DTZ ranking of the root moves that
//! converts a won ending within the 50-move rule and holds a drawn one.

use std::path::Path;
use std::sync::Arc;

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::Tablebase;
pub use shakmaty_syzygy::Wdl;

use super::score::{DRAW, MAX_PLY, TB_WIN};
use super::tt::Bound;

/// The folder separator of `SyzygyPath`, as Stockfish uses it.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// Magic numbers at the start of standard-chess Syzygy files.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// What loading the tables found: a folder or file that could not be used
/// (an error: a caller that needs every table stops on it), tables of a
/// chess variant passed over, and the closing summary of what was loaded.
/// Displayed as the `info string` lines the UCI layer sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadNote {
    Error(String),
    Warning(String),
    Summary(String),
}

impl std::fmt::Display for LoadNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadNote::Error(m) => write!(f, "error: SyzygyPath: {m}"),
            LoadNote::Warning(m) => write!(f, "warning: SyzygyPath: {m}"),
            LoadNote::Summary(m) => write!(f, "syzygy: {m}"),
        }
    }
}

/// The tables found in the folders of a `SyzygyPath`.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    pub wdl_files: usize,
    pub dtz_files: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tablebases({} WDL, {} DTZ, up to {} pieces)", self.wdl_files, self.dtz_files, self.max_pieces())
    }
}

/// Why a file is not a usable standard-chess table, if it is not.
fn check_file(path: &Path, wdl: bool) -> Result<(), String> {
    let bytes = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    // Every Syzygy file is its data padded to 64 bytes plus a 16-byte header.
    if bytes % 64 != 16 {
        return Err(format!("{bytes} bytes: truncated or not a Syzygy table"));
    }
    let mut magic = [0u8; 4];
    std::io::Read::read_exact(&mut std::fs::File::open(path).map_err(|e| e.to_string())?, &mut magic)
        .map_err(|e| e.to_string())?;
    if magic != if wdl { WDL_MAGIC } else { DTZ_MAGIC } {
        return Err("wrong magic number: not a standard-chess Syzygy table".into());
    }
    Ok(())
}

impl Tablebases {
    /// Loads the tables of every folder of `paths` (separated by
    /// [`PATH_SEPARATOR`]); the notes say what was found and what was
    /// skipped (a missing folder, a damaged file, tables of a variant).
    pub fn load(paths: &str) -> (Tablebases, Vec<LoadNote>) {
        let mut tb = Tablebases { tables: Tablebase::new(), wdl_files: 0, dtz_files: 0 };
        let mut notes = Vec::new();
        for dir in paths.split(PATH_SEPARATOR).map(str::trim).filter(|d| !d.is_empty()) {
            let entries = match std::fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) => {
                    notes.push(LoadNote::Error(format!("cannot read folder '{dir}': {e}")));
                    continue;
                }
            };
            let mut names: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            names.sort();
            let mut variant = 0;
            for path in names {
                let Some(ext) = path.extension() else { continue };
                let ext = ext.to_string_lossy().to_ascii_lowercase();
                let wdl = match ext.as_str() {
                    "rtbw" => true,
                    "rtbz" => false,
                    e if e.len() == 4 && (e.ends_with("tbw") || e.ends_with("tbz")) => {
                        variant += 1;
                        continue;
                    }
                    _ => continue,
                };
                if let Err(why) = check_file(&path, wdl) {
                    notes.push(LoadNote::Error(format!("skipping {}: {why}", path.display())));
                    continue;
                }
                if let Err(e) = tb.tables.add_file(&path) {
                    notes.push(LoadNote::Error(format!("skipping {}: {e}", path.display())));
                    continue;
                }
                if wdl {
                    tb.wdl_files += 1;
                } else {
                    tb.dtz_files += 1;
                }
            }
            if variant > 0 {
                notes.push(LoadNote::Warning(format!(
                    "ignored {variant} tables of chess variants in '{dir}' (standard chess: .rtbw and .rtbz)"
                )));
            }
        }
        notes.push(LoadNote::Summary(format!(
            "{} WDL and {} DTZ tables, up to {} pieces",
            tb.wdl_files,
            tb.dtz_files,
            tb.max_pieces()
        )));
        (tb, notes)
    }

    /// Pieces of the largest table (0: none).
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// The outcome the tables give a position reached by a capture or a
    /// pawn move (its 50-move count starts afresh), side to move's view;
    /// `None` when no loaded table holds it (more pieces than the largest,
    /// castling rights, a table not among those loaded).
    pub fn wdl_after_zeroing(&self, pos: &Chess) -> Option<Wdl> {
        if pos.board().occupied().count() > self.max_pieces() || !pos.castles().castling_rights().is_empty() {
            return None;
        }
        self.tables.probe_wdl_after_zeroing(pos).ok()
    }
}

/// The tables and how the search uses them (the `Syzygy*` options).
#[derive(Clone, Debug)]
pub struct Syzygy {
    pub tables: Arc<Tablebases>,
    /// Probe in the search only at this depth or more (below the largest
    /// tables' piece count, always).
    pub probe_depth: i32,
    /// Wins and losses the 50-move rule spoils count as draws.
    pub rule50: bool,
    /// Probe positions of at most this many pieces.
    pub probe_limit: usize,
}

/// The rank of a root move whose outcome the tables know: mate, then wins
/// within the 50-move rule (the sooner converted the better), wins it
/// spoils, draws, losses it saves, and losses (the later the better).
const WIN_RANK: i32 = 1000;

impl Syzygy {
    /// Pieces a position may have to be probed.
    pub fn cardinality(&self) -> usize {
        self.probe_limit.min(self.tables.max_pieces())
    }

    fn probeable(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.cardinality() && pos.castles().castling_rights().is_empty()
    }

    /// The score of a position reached by a capture or a pawn move (side to
    /// move's view), if the tables have it, and what it bounds: a win is at
    /// least that (the search may find a mate), a loss at most, a draw
    /// exactly. Wins and losses rank below mates and shrink with the
    /// distance from the root.
    pub fn probe_score(&self, pos: &Chess, ply: usize) -> Option<(i32, Bound)> {
        if !self.probeable(pos) {
            return None;
        }
        let wdl = self.tables.wdl_after_zeroing(pos)?;
        let ply = ply.min(MAX_PLY) as i32;
        Some(match wdl {
            Wdl::Win => (TB_WIN - ply, Bound::Lower),
            Wdl::Loss => (-TB_WIN + ply, Bound::Upper),
            Wdl::CursedWin if !self.rule50 => (TB_WIN - ply, Bound::Lower),
            Wdl::BlessedLoss if !self.rule50 => (-TB_WIN + ply, Bound::Upper),
            // A win or loss the 50-move rule turns into a draw: a draw,
            // a little better than a dead one for the side that was winning.
            Wdl::CursedWin => (DRAW + 2, Bound::Exact),
            Wdl::BlessedLoss => (DRAW - 2, Bound::Exact),
            Wdl::Draw => (DRAW, Bound::Exact),
        })
    }

    /// The root moves the tables keep: those of the best DTZ rank (the
    /// search chooses among them: among all moves of a drawn ending that
    /// hold the draw, among a won ending's fastest conversions). `None` when
    /// the tables cannot rank every move.
    pub fn root_moves(&self, pos: &Chess) -> Option<Vec<Move>> {
        if !self.probeable(pos) {
            return None;
        }
        let mut ranked = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            ranked.push((self.rank_after(&after)?, m));
        }
        let best = ranked.iter().map(|(r, _)| *r).max()?;
        Some(ranked.into_iter().filter(|(r, _)| *r == best).map(|(_, m)| m).collect())
    }

    /// The rank of the position after a root move, from the mover's view.
    /// Wins rank by how soon the next capture or pawn move comes (the
    /// tables' fastest conversion; every capture and pawn move resets the
    /// count, so a won ending is converted step by step well within the
    /// 50-move rule), losses by how late.
    fn rank_after(&self, after: &Chess) -> Option<i32> {
        if after.is_checkmate() {
            return Some(WIN_RANK + 1);
        }
        // DTZ: plies to the next capture or pawn move with best play,
        // positive when the side to move (the opponent) wins.
        let dtz = self.tables.tables.probe_dtz(after).ok()?.ignore_rounding().0;
        let plies = (dtz.abs() + after.halfmoves() as i32).min(WIN_RANK / 2);
        let within_rule = !self.rule50 || plies <= 100;
        Some(match dtz.signum() {
            0 => 0,
            -1 if within_rule => WIN_RANK - plies,
            -1 => 1,
            _ if within_rule => -WIN_RANK + plies,
            _ => -1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn shared_tables() -> Option<String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/syzygy");
        if Path::new(dir).is_dir() {
            Some(dir.to_string())
        } else {
            crate::testing::skip("shared-data", &format!("{dir} is absent"));
            None
        }
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn syzygy(dir: &str) -> Syzygy {
        let (tables, notes) = Tablebases::load(dir);
        assert!(matches!(notes.last(), Some(LoadNote::Summary(_))), "{notes:?}");
        Syzygy { tables: Arc::new(tables), probe_depth: 1, rule50: true, probe_limit: 7 }
    }

    #[test]
    fn the_shared_tables_load_and_probe_known_results() {
        let Some(dir) = shared_tables() else { return };
        let (tables, notes) = Tablebases::load(&dir);
        assert_eq!((tables.wdl_files, tables.dtz_files, tables.max_pieces()), (37, 37, 5), "{notes:?}");
        assert_eq!(notes, [LoadNote::Summary("37 WDL and 37 DTZ tables, up to 5 pieces".into())]);
        assert_eq!(notes[0].to_string(), "syzygy: 37 WDL and 37 DTZ tables, up to 5 pieces");
        let tb = syzygy(&dir);
        // KRvK: a win for the side with the rook, a loss for the other.
        assert_eq!(tb.probe_score(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"), 3), Some((TB_WIN - 3, Bound::Lower)));
        assert_eq!(tb.probe_score(&pos("8/8/8/4k3/8/8/8/R3K3 b - - 0 1"), 3), Some((-TB_WIN + 3, Bound::Upper)));
        // KNvK, and a rook pawn with the defending king in its corner: draws.
        assert_eq!(tb.probe_score(&pos("8/8/8/4k3/8/8/8/N3K3 w - - 0 1"), 1), Some((DRAW, Bound::Exact)));
        assert_eq!(tb.probe_score(&pos("k7/8/8/8/8/8/P7/K7 w - - 0 1"), 1), Some((DRAW, Bound::Exact)));
        // KPvK with the pawn's king in front on the third rank: a win.
        assert_eq!(tb.probe_score(&pos("8/8/8/3k4/8/3K4/3P4/8 b - - 0 1"), 2), Some((-TB_WIN + 2, Bound::Upper)));
        // Too many pieces, or castling rights: no probe.
        assert_eq!(tb.probe_score(&Chess::default(), 0), None);
        assert_eq!(tb.probe_score(&pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), 0), None);
        // The tables' own outcomes, side to move's view.
        assert_eq!(tables.wdl_after_zeroing(&pos("8/8/8/4k3/8/8/8/R3K3 b - - 0 1")), Some(Wdl::Loss));
        assert_eq!(tables.wdl_after_zeroing(&pos("k7/8/8/8/8/8/P7/K7 w - - 0 1")), Some(Wdl::Draw));
        assert_eq!(tables.wdl_after_zeroing(&pos("8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1")), Some(Wdl::Win));
        assert_eq!(tables.wdl_after_zeroing(&Chess::default()), None);
        // The limit option caps what is probed.
        let capped = Syzygy { probe_limit: 2, ..tb.clone() };
        assert_eq!(capped.probe_score(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"), 0), None);
    }

    #[test]
    fn root_moves_keep_the_win_and_the_draw() {
        let Some(dir) = shared_tables() else { return };
        let tb = syzygy(&dir);
        // KQvK: only moves that keep the win within the rule, never the
        // queen's loss.
        let kqk = pos("8/8/8/2k5/8/8/8/3QK3 w - - 0 1");
        let kept = tb.root_moves(&kqk).unwrap();
        assert!(!kept.is_empty() && kept.len() < kqk.legal_moves().len());
        for m in &kept {
            let mut after = kqk.clone();
            after.play_unchecked(*m);
            assert!(after.board().queens().any(), "{m}");
        }
        // KPvK, the defender to move: of eight king moves only Ke5, taking
        // the opposition, holds the draw.
        let kpk = pos("8/8/4k3/8/8/4K3/4P3/8 b - - 0 1");
        let kept: Vec<String> = tb.root_moves(&kpk).unwrap().iter().map(|m| m.to_string()).collect();
        assert_eq!(kept, ["Ke6-e5"]);
    }

    #[test]
    fn bad_folders_and_files_are_named_and_skipped() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("KRvK.rtbw"), [0x71, 0xe8, 0x23, 0x5d, 1, 2, 3]).unwrap();
        let mut wrong = vec![0u8; 80];
        wrong[..4].copy_from_slice(&WDL_MAGIC);
        std::fs::write(dir.join("KQvK.rtbz"), &wrong).unwrap();
        std::fs::write(dir.join("KQvK.atbw"), [0u8; 80]).unwrap();
        std::fs::write(dir.join("README.txt"), "x").unwrap();
        let paths = format!("{}{PATH_SEPARATOR}/no/such/folder", dir.display());
        let (tables, notes) = Tablebases::load(&paths);
        assert_eq!((tables.wdl_files, tables.dtz_files, tables.max_pieces()), (0, 0, 0));
        let text = notes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert_eq!(notes.iter().filter(|n| matches!(n, LoadNote::Error(_))).count(), 3, "{text}");
        assert!(text.contains("KRvK.rtbw: 7 bytes: truncated"), "{text}");
        assert!(text.contains("KQvK.rtbz: wrong magic"), "{text}");
        assert!(text.contains("ignored 1 tables of chess variants"), "{text}");
        assert!(text.contains("cannot read folder '/no/such/folder'"), "{text}");
        assert!(text.ends_with("syzygy: 0 WDL and 0 DTZ tables, up to 0 pieces"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

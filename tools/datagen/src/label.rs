//! Labellers: a search score (centipawns, side to move's view) and best move
//! for a position, from Tessera's own search in-process or from any UCI
//! engine run as a child process (e.g. Debian's stockfish at depth 9, as in
//! the thesis).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move};
use tessera::board::Board;
use tessera::nnue::embedded::default_network;
use tessera::nnue::network::Network;
use tessera::search::limits::Limits;
use tessera::search::time::TimeManager;
use tessera::search::{Search, SearchOptions, SearchResult, SharedState};

use crate::uci::{Score, UciEngine};

/// How far each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Depth(i32),
    Nodes(u64),
}

impl Budget {
    /// The budget a `--depth`/`--nodes` pair of flags (named `flags` in the
    /// errors) asks for, `None` when neither is given; depths 1..=64 and
    /// positive node counts only.
    pub fn from_flags(depth: Option<i32>, nodes: Option<u64>, flags: [&str; 2]) -> Result<Option<Budget>, String> {
        match (depth, nodes) {
            (Some(d), _) if !(1..=64).contains(&d) => Err(format!("{} must be 1..=64", flags[0])),
            (_, Some(0)) => Err(format!("{} must be positive", flags[1])),
            (Some(d), _) => Ok(Some(Budget::Depth(d))),
            (None, Some(n)) => Ok(Some(Budget::Nodes(n))),
            (None, None) => Ok(None),
        }
    }
}

/// A label: `None` score for a mate (mates are not training targets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub score: Option<i32>,
    pub best: Option<Move>,
}

pub trait Labeller: Send {
    fn label(&mut self, pos: &Chess) -> Result<Label, String>;

    /// Called before the positions of each game. A labeller that keeps its
    /// table between positions forgets it here, so that a game's labels
    /// depend on that game only (a resumed run gives the same records).
    fn new_game(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// When a labeller clears its search state: before every position (each
/// label independent of the others) or only before each game (a position's
/// search starts from what the game's earlier positions left in the hash
/// table: about a quarter less CPU for Stockfish at depth 7 on consecutive
/// positions of a game, and labels that see a little further).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clearing {
    #[default]
    EveryPosition,
    EveryGame,
}

/// Tessera's own search, one thread, its own table.
pub struct SelfLabeller {
    search: Search,
    budget: Budget,
    clearing: Clearing,
}

impl SelfLabeller {
    pub fn new(budget: Budget) -> SelfLabeller {
        SelfLabeller { search: Search::new(16), budget, clearing: Clearing::EveryPosition }
    }

    pub fn clearing(self, clearing: Clearing) -> SelfLabeller {
        SelfLabeller { clearing, ..self }
    }
}

/// Scores at or beyond this are mates (the evaluation is clamped below it).
const MATE_BOUND: i32 = 20_000;

/// Searches `board` on one thread within `budget`, keeping what `search`
/// has learned (its table and histories).
pub fn search_within(search: &mut Search, board: &Board, budget: Budget) -> SearchResult {
    let limits = match budget {
        Budget::Depth(d) => Limits { depth: Some(d), ..Limits::default() },
        Budget::Nodes(n) => Limits { nodes: Some(n), ..Limits::default() },
    };
    let time = TimeManager::new(Instant::now(), &limits, board.turn(), 0);
    let shared = SharedState::new(1, &limits, time);
    let options = SearchOptions { threads: 1, multipv: 1, ..SearchOptions::default() };
    search.run(board, &limits, options, &shared, &|_: &str| {})
}

impl Labeller for SelfLabeller {
    fn label(&mut self, pos: &Chess) -> Result<Label, String> {
        let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
        let board = Board::from_fen(&fen, false).map_err(|e| e.to_string())?;
        if self.clearing == Clearing::EveryPosition {
            self.search.clear();
        }
        let result = search_within(&mut self.search, &board, self.budget);
        let score = (result.score.abs() < MATE_BOUND).then_some(result.score);
        Ok(Label { score, best: result.best })
    }

    fn new_game(&mut self) -> Result<(), String> {
        // Cleared before every label otherwise: once is enough.
        if self.clearing == Clearing::EveryGame {
            self.search.clear();
        }
        Ok(())
    }
}

/// The embedded net's static evaluation, no search and no best move: a
/// position labelled this way costs a few microseconds, for a corpus whose
/// scores a teacher sets at training time (`tessera-trainer --teacher`,
/// `PATH:t1`), where only the positions matter.
pub struct StaticLabeller {
    net: Arc<Network>,
}

impl StaticLabeller {
    pub fn new() -> StaticLabeller {
        StaticLabeller { net: default_network() }
    }
}

impl Default for StaticLabeller {
    fn default() -> Self {
        Self::new()
    }
}

impl Labeller for StaticLabeller {
    fn label(&mut self, pos: &Chess) -> Result<Label, String> {
        Ok(Label { score: Some(self.net.evaluate_position(pos)), best: None })
    }
}

/// Any UCI engine, driven over its standard input and output.
pub struct UciLabeller {
    engine: UciEngine,
    budget: Budget,
    clearing: Clearing,
}

impl UciLabeller {
    pub fn start(engine: &Path, budget: Budget) -> Result<UciLabeller, String> {
        Self::start_with(engine, &[], budget)
    }

    /// Starts `engine` with UCI `options` (`(name, value)`), e.g. a small `Hash`.
    pub fn start_with(engine: &Path, options: &[(String, String)], budget: Budget) -> Result<UciLabeller, String> {
        Ok(UciLabeller { engine: UciEngine::start(engine, options)?, budget, clearing: Clearing::EveryPosition })
    }

    pub fn clearing(self, clearing: Clearing) -> UciLabeller {
        UciLabeller { clearing, ..self }
    }
}

impl Labeller for UciLabeller {
    fn label(&mut self, pos: &Chess) -> Result<Label, String> {
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        if self.clearing == Clearing::EveryPosition {
            self.engine.send("ucinewgame")?;
        }
        let go = match self.budget {
            Budget::Depth(d) => format!("depth {d}"),
            Budget::Nodes(n) => format!("nodes {n}"),
        };
        let report = self.engine.search(&format!("fen {fen}"), &go)?;
        let score = match report.score() {
            Some(Score::Cp(cp)) => Some(cp),
            Some(Score::Mate(_)) => None,
            None => return Err(format!("{} gave no score for {fen}", self.engine.name)),
        };
        let best = report.best.and_then(|m| m.parse::<UciMove>().ok()).and_then(|m| m.to_move(pos).ok());
        Ok(Label { score, best })
    }

    fn new_game(&mut self) -> Result<(), String> {
        // Sent before every label otherwise: once is enough.
        if self.clearing == Clearing::EveryGame {
            self.engine.send("ucinewgame")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position};
    use std::path::PathBuf;

    #[test]
    fn self_labeller_finds_a_mate_and_scores_material() {
        let mut labeller = SelfLabeller::new(Budget::Depth(6));
        let mate: Chess =
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let label = labeller.label(&mate).unwrap();
        assert_eq!(label.score, None, "a mate is no training score");
        assert_eq!(label.best.map(|m| m.to().to_string()), Some("a8".to_string()));
        let queen_up: Chess = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let label = labeller.label(&queen_up).unwrap();
        assert!(label.score.unwrap() < -400, "{label:?}");
    }

    /// Positions of one game, in order.
    fn game_positions() -> Vec<Chess> {
        let mut pos = Chess::default();
        let mut positions = vec![];
        for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"] {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        positions
    }

    fn labels(labeller: &mut dyn Labeller, positions: &[Chess]) -> Vec<Label> {
        labeller.new_game().unwrap();
        positions.iter().map(|p| labeller.label(p).unwrap()).collect()
    }

    /// With the table kept between a game's positions, a game's labels still
    /// depend on that game only: `new_game` clears what the last one left.
    #[test]
    fn labels_kept_within_a_game_repeat_after_new_game() {
        let positions = game_positions();
        let other: Vec<Chess> = game_positions().into_iter().rev().collect();
        let mut own = SelfLabeller::new(Budget::Depth(5)).clearing(Clearing::EveryGame);
        let first = labels(&mut own, &positions);
        labels(&mut own, &other);
        assert_eq!(labels(&mut own, &positions), first);
        assert!(first.iter().all(|l| l.score.is_some() && l.best.is_some()));

        let stockfish = ["/usr/games/stockfish", "/usr/bin/stockfish"].into_iter().find(|p| Path::new(p).exists());
        let Some(stockfish) = stockfish else {
            tessera::testing::skip("stockfish", "the UCI half: no stockfish installed");
            return;
        };
        let mut uci = UciLabeller::start(Path::new(stockfish), Budget::Depth(6)).unwrap().clearing(Clearing::EveryGame);
        let first = labels(&mut uci, &positions);
        labels(&mut uci, &other);
        assert_eq!(labels(&mut uci, &positions), first);
    }

    /// Drives the engine's own binary over UCI, as it would drive stockfish.
    #[test]
    fn uci_labeller_against_tessera_and_stockfish() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let tessera = root.join("target/release/tessera");
        let pos: Chess = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut engines = vec![];
        if tessera.exists() {
            engines.push(tessera);
        } else {
            tessera::testing::skip("release-build", "tessera: build it with `cargo build --release` first");
        }
        for sf in ["/usr/games/stockfish", "/usr/bin/stockfish"] {
            if std::path::Path::new(sf).exists() {
                engines.push(PathBuf::from(sf));
                break;
            }
        }
        for engine in engines {
            let mut labeller = UciLabeller::start(&engine, Budget::Depth(6)).unwrap();
            let label = labeller.label(&pos).unwrap();
            assert!(label.score.unwrap() > 400, "{}: {label:?}", engine.display());
            assert!(label.best.is_some());
        }
        let missing = UciLabeller::start(&PathBuf::from("/nonexistent/engine"), Budget::Depth(1));
        assert!(missing.err().unwrap().contains("cannot start"));
    }
}

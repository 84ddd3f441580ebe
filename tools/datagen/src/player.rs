//! The players of self-play games: Tessera's own search in-process (no
//! process or pipe per move, the fastest way to play many cheap games), or
//! two instances of any UCI engine. Both answer a move request with the same
//! [`Report`] (best move and the score of each MultiPV line), so one game
//! loop (`selfplay`) serves both.

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};
use tessera::board::Board;
use tessera::search::limits::Limits;
use tessera::search::score::mate_in_moves;
use tessera::search::time::TimeManager;
use tessera::search::{Search, SearchOptions, SharedState};

use crate::uci::{Report, Score, UciEngine, read_info};

/// Something that chooses moves: both sides of a self-play game.
pub trait Player: Send {
    /// A new game from `start`: whatever was learned (tables, histories) is forgotten.
    fn new_game(&mut self, start: &Chess) -> Result<(), String>;

    /// Searches the position reached by `moves` from the game's start with
    /// `nodes` nodes, reporting `multipv` lines.
    fn think(&mut self, moves: &[Move], nodes: u64, multipv: usize) -> Result<Report, String>;
}

fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Tessera's search with the embedded network, one thread, playing both sides.
pub struct OwnSearch {
    search: Search,
    /// The game so far: `played` moves from its start pushed onto `board`.
    board: Board,
    start: Board,
    played: usize,
}

impl OwnSearch {
    pub fn new(hash_mb: usize) -> OwnSearch {
        let board = Board::default();
        OwnSearch { search: Search::new(hash_mb), start: board.clone(), board, played: 0 }
    }

    /// Brings the board to the position after `moves` (pushing only the new
    /// ones when `moves` extends what was played before).
    fn sync(&mut self, moves: &[Move]) {
        if moves.len() < self.played {
            self.board = self.start.clone();
            self.played = 0;
        }
        for &m in &moves[self.played..] {
            self.board.push(m);
        }
        self.played = moves.len();
    }
}

impl Player for OwnSearch {
    fn new_game(&mut self, start: &Chess) -> Result<(), String> {
        self.search.clear();
        self.start = Board::from_position(start.clone(), CastlingMode::Standard);
        self.board = self.start.clone();
        self.played = 0;
        Ok(())
    }

    fn think(&mut self, moves: &[Move], nodes: u64, multipv: usize) -> Result<Report, String> {
        self.sync(moves);
        let limits = Limits { nodes: Some(nodes), ..Limits::default() };
        let time = TimeManager::new(Instant::now(), &limits, self.board.turn(), 0);
        let shared = SharedState::new(1, &limits, time);
        // With several lines the scores of the others come only as `info`
        // lines: asked for then, and read as a GUI would.
        let options =
            SearchOptions { threads: 1, multipv: multipv.max(1), shown_lines: 0, show_wdl: false, info: multipv > 1 };
        let lines = Mutex::new(Report::default());
        let collect = |line: &str| {
            let words: Vec<&str> = line.split_whitespace().collect();
            read_info(&words, &mut lines.lock().expect("info lines"));
        };
        let result = self.search.run(&self.board, &limits, options, &shared, &collect);
        let mut report = lines.into_inner().expect("info lines");
        let Some(best) = result.best else {
            return Err(format!("no move in {}", self.board.fen()));
        };
        report.best = Some(uci(best));
        let score = match mate_in_moves(result.score) {
            Some(n) => Score::Mate(n),
            None => Score::Cp(result.score),
        };
        if report.lines.is_empty() {
            report.lines.push(None);
        }
        report.lines[0] = Some((score, uci(best)));
        Ok(report)
    }
}

/// Two instances of a UCI engine, one per side.
pub struct UciPair {
    white: UciEngine,
    black: UciEngine,
    start_fen: String,
    white_starts: bool,
    multipv: usize,
}

impl UciPair {
    /// Starts both instances with `options` (and MultiPV `multipv` when above 1).
    pub fn start(engine: &Path, options: &[(String, String)], multipv: usize) -> Result<UciPair, String> {
        let mut options = options.to_vec();
        if multipv > 1 {
            options.push(("MultiPV".into(), multipv.to_string()));
        }
        Ok(UciPair {
            white: UciEngine::start(engine, &options)?,
            black: UciEngine::start(engine, &options)?,
            start_fen: Fen::default().to_string(),
            white_starts: true,
            multipv,
        })
    }
}

impl Player for UciPair {
    fn new_game(&mut self, start: &Chess) -> Result<(), String> {
        self.start_fen = Fen::from_position(start, EnPassantMode::Legal).to_string();
        self.white_starts = start.turn().is_white();
        self.white.new_game()?;
        self.black.new_game()
    }

    fn think(&mut self, moves: &[Move], nodes: u64, multipv: usize) -> Result<Report, String> {
        if multipv > self.multipv {
            return Err(format!("{} was started with MultiPV {}, asked for {multipv}", self.white.name, self.multipv));
        }
        let white_to_move = self.white_starts == moves.len().is_multiple_of(2);
        let engine = if white_to_move { &mut self.white } else { &mut self.black };
        let position = if moves.is_empty() {
            format!("fen {}", self.start_fen)
        } else {
            let list: Vec<String> = moves.iter().map(|&m| uci(m)).collect();
            format!("fen {} moves {}", self.start_fen, list.join(" "))
        };
        engine.search(&position, &format!("nodes {nodes}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_search_reports_its_lines_and_follows_the_game() {
        let mut player = OwnSearch::new(4);
        player.new_game(&Chess::default()).unwrap();
        let report = player.think(&[], 2000, 3).unwrap();
        assert_eq!(report.lines.len(), 3, "{report:?}");
        assert!(report.lines.iter().all(Option::is_some));
        let best = report.best.clone().unwrap();
        assert_eq!(report.lines[0].as_ref().unwrap().1, best);
        // A game goes on move by move, and a shorter list starts it over.
        let mut pos = Chess::default();
        let e4 = "e2e4".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(e4);
        let reply = player.think(&[e4], 500, 1).unwrap();
        let m = reply.best.unwrap().parse::<shakmaty::uci::UciMove>().unwrap();
        assert!(m.to_move(&pos).is_ok(), "a legal reply to 1. e4");
        let again = player.think(&[], 500, 1).unwrap();
        let first = again.best.unwrap().parse::<shakmaty::uci::UciMove>().unwrap();
        assert!(first.to_move(&Chess::default()).is_ok());
    }
}

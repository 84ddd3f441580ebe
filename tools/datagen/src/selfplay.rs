//! Self-play with Tessera's own search: random openings (8–9 random plies,
//! openings the search scores beyond a bound rejected), a fixed node budget
//! per move, adjudication, and the quiet positions of each game recorded
//! with the search score and, once the game ends, its result. A game
//! depends only on the seed and its index.

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};
use tessera::board::Board;
use tessera::search::Search;

use crate::label::{Budget, search_within};
use crate::record::Record;
use crate::rng::Rng;

#[derive(Clone, Copy, Debug)]
pub struct SelfPlayConfig {
    /// Nodes per move.
    pub nodes: u64,
    /// Openings whose score exceeds this (centipawns) are drawn again.
    pub max_opening_score: i32,
    /// Win adjudication: |score| at least this for `win_plies` plies in a row.
    pub win_score: i32,
    pub win_plies: usize,
    /// Draw adjudication: |score| at most this for `draw_plies` plies after `draw_after`.
    pub draw_score: i32,
    pub draw_plies: usize,
    pub draw_after: usize,
    /// Longest game, in plies; longer games are draws.
    pub max_plies: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            nodes: 5000,
            max_opening_score: 300,
            win_score: 1500,
            win_plies: 6,
            draw_score: 8,
            draw_plies: 10,
            draw_after: 80,
            max_plies: 400,
        }
    }
}

/// Scores at or beyond this are mates.
const MATE_BOUND: i32 = 20_000;

/// Searches `board` with a node budget: (score for the side to move, best move).
pub fn search_nodes(search: &mut Search, board: &Board, nodes: u64) -> (i32, Option<Move>) {
    let result = search_within(search, board, Budget::Nodes(nodes));
    (result.score, result.best)
}

/// A random opening of `plies` plies whose search score is within `bound`,
/// drawn from `rng`; `None` if `tries` draws all fail.
pub fn random_opening(rng: &mut Rng, plies: usize, bound: i32, nodes: u64, search: &mut Search) -> Option<Board> {
    for _ in 0..100 {
        let mut board = Board::default();
        let mut ok = true;
        for _ in 0..plies {
            let moves = board.pos().legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            board.push(moves[rng.below(moves.len())]);
        }
        if !ok || board.pos().legal_moves().is_empty() {
            continue;
        }
        search.clear();
        let (score, _) = search_nodes(search, &board, nodes);
        if score.abs() <= bound {
            return Some(board);
        }
    }
    None
}

/// Plays game `index` of the run seeded `seed`; returns its records.
pub fn play_game(seed: u64, index: u64, config: &SelfPlayConfig, search: &mut Search) -> Vec<Record> {
    let mut rng = Rng::for_item(seed, index);
    let plies = 8 + rng.below(2);
    let Some(mut board) = random_opening(&mut rng, plies, config.max_opening_score, config.nodes, search) else {
        return Vec::new();
    };
    search.clear();
    let mut kept: Vec<(Chess, i16)> = Vec::new();
    let (mut winning, mut quiet) = (0usize, 0usize);
    let mut ply = plies;
    // From white's view: 0 black won, 1 draw, 2 white won.
    let result = loop {
        let pos = board.pos().clone();
        if pos.legal_moves().is_empty() {
            break if pos.is_check() { if pos.turn() == Color::White { 0 } else { 2 } } else { 1 };
        }
        if board.is_draw() || ply >= config.max_plies {
            break 1;
        }
        let (score, best) = search_nodes(search, &board, config.nodes);
        let Some(best) = best else { break 1 };
        let white_score = if pos.turn() == Color::White { score } else { -score };
        if score.abs() < MATE_BOUND && !pos.is_check() && !best.is_capture() && !best.is_promotion() {
            kept.push((pos.clone(), white_score.clamp(-32767, 32767) as i16));
        }
        winning = if score.abs() >= config.win_score { winning + 1 } else { 0 };
        quiet = if ply >= config.draw_after && score.abs() <= config.draw_score { quiet + 1 } else { 0 };
        if winning >= config.win_plies {
            break if white_score > 0 { 2 } else { 0 };
        }
        if quiet >= config.draw_plies {
            break 1;
        }
        board.push(best);
        ply += 1;
    };
    kept.into_iter().map(|(pos, score)| Record { pos, score, result }).collect()
}

/// An EPD line (the FEN's first four fields) for an opening book.
pub fn epd(pos: &Chess) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_reproducible_and_labelled() {
        let config = SelfPlayConfig { nodes: 300, max_plies: 60, ..SelfPlayConfig::default() };
        let mut search = Search::new(4);
        let a = play_game(5, 0, &config, &mut search);
        let b = play_game(5, 0, &config, &mut Search::new(4));
        assert!(!a.is_empty());
        assert_eq!(a, b, "a game depends only on the seed and its index");
        assert_ne!(play_game(5, 1, &config, &mut search), a);
        for r in &a {
            assert!(!r.pos.is_check());
            assert_eq!(r.result, a[0].result, "one result per game");
        }
        // The first recorded position is 8 or 9 random plies in.
        let ply = (a[0].pos.fullmoves().get() as usize - 1) * 2 + a[0].pos.turn().is_black() as usize;
        assert!(ply == 8 || ply == 9, "{ply}");
    }

    #[test]
    fn openings_stay_within_the_bound() {
        let mut search = Search::new(4);
        let mut rng = Rng::for_item(3, 0);
        for _ in 0..5 {
            let board = random_opening(&mut rng, 8, 100, 500, &mut search).unwrap();
            let (score, _) = search_nodes(&mut search, &board, 500);
            assert!(score.abs() <= 100, "{score}");
            assert_eq!(epd(board.pos()).split(' ').count(), 4);
        }
    }
}

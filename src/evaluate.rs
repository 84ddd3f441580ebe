//! Static evaluation, from the side to move's point of view, in centipawns:
//! the single place the search asks for one. It is the network's output,
//! read from the board's incrementally updated accumulators.

use std::sync::Arc;

use crate::board::Board;
use crate::nnue::network::Network;

/// Evaluations stay well inside the range of mate scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// The network's evaluation of `board`, which must have a network attached
/// (the search attaches one to every board it searches).
pub fn evaluate(board: &mut Board) -> i32 {
    let cp = board.nnue_evaluate().expect("evaluate needs a board with a network attached");
    cp.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The static evaluation of `board` by `network`, in words: `<cp> cp (side
/// to move: <colour>; <the net>)`, for `tessera eval` and the UCI `eval`.
pub fn describe(board: &Board, network: Arc<Network>) -> String {
    let mut board = board.clone();
    board.attach_network(Arc::clone(&network));
    let side = if board.turn().is_white() { "white" } else { "black" };
    format!("{} cp (side to move: {side}; {})", evaluate(&mut board), network.summary())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::embedded::default_network;

    fn eval(fen: &str) -> i32 {
        let mut board = Board::from_fen(fen, false).unwrap();
        board.attach_network(default_network());
        evaluate(&mut board)
    }

    #[test]
    fn the_evaluation_is_the_embedded_network() {
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let board = Board::from_fen(fen, false).unwrap();
        assert_eq!(eval(fen), default_network().evaluate_position(board.pos()));
    }

    /// The embedded net has learned what material is worth.
    #[test]
    fn an_extra_queen_is_winning_for_whoever_has_it() {
        let queen_up = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
        assert!(eval(&format!("{queen_up} w KQkq - 0 3")) > 400);
        assert!(eval(&format!("{queen_up} b KQkq - 0 3")) < -400);
    }
}

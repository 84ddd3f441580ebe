//! Move-generation counts (perft), the standard check of move generation.

use shakmaty::{Chess, Position};

use super::Board;

/// Number of leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    let moves = pos.legal_moves();
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        _ => moves
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// The perft count below each legal move, in UCI notation, sorted by move.
pub fn divide(board: &Board, depth: u32) -> Vec<(String, u64)> {
    let pos = board.pos();
    let mut out: Vec<(String, u64)> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (board.uci(m), perft(&child, depth.saturating_sub(1)))
        })
        .collect();
    out.sort();
    out
}

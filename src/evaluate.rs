//! Static evaluation, from the side to move's point of view, in centipawns.
//!
//! This is the single place the search asks for an evaluation: the board's
//! network when one is attached, otherwise a plain material count (until a
//! trained network is embedded by default).

use shakmaty::{Position, Role};

use crate::board::Board;

/// Material values in centipawns, indexed by `Role as usize - 1`.
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

pub fn piece_value(role: Role) -> i32 {
    PIECE_VALUES[role as usize - 1]
}

/// Evaluations stay well inside the range of mate scores.
const EVAL_LIMIT: i32 = 20_000;

pub fn evaluate(board: &Board) -> i32 {
    match board.nnue_evaluate() {
        Some(cp) => cp.clamp(-EVAL_LIMIT, EVAL_LIMIT),
        None => material(board),
    }
}

/// The material balance.
pub fn material(board: &Board) -> i32 {
    let pos = board.pos();
    let b = pos.board();
    let us = pos.us();
    Role::ALL
        .iter()
        .map(|&role| {
            let of_role = b.by_role(role);
            let ours = (of_role & us).count() as i32;
            let theirs = (of_role & !us).count() as i32;
            piece_value(role) * (ours - theirs)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_from_side_to_move() {
        assert_eq!(evaluate(&Board::default()), 0);
        let white_up_rook = "4k3/8/8/8/8/8/8/R3K3";
        assert_eq!(evaluate(&Board::from_fen(&format!("{white_up_rook} w - - 0 1"), false).unwrap()), 500);
        assert_eq!(evaluate(&Board::from_fen(&format!("{white_up_rook} b - - 0 1"), false).unwrap()), -500);
    }
}

//! `ctl`: control of the squares, per side: how many of that side's pieces
//! attack each square, bucketed 1, 2, 3 or more; square × side (ours,
//! theirs) × bucket, 384 inputs. No attacker is the absence of the three
//! features: a one-hot "0" bucket would be the constant 1 minus the others,
//! which the first layer's bias and weights already represent.

use shakmaty::{Bitboard, Chess, Color, Position, Square};

use super::Perspective;
use super::planes::Planes;

#[derive(Default)]
pub struct Control;

/// Per bucket (1, 2, 3+): the squares `color` attacks that many times.
pub fn control(pos: &Chess, color: Color) -> [Bitboard; 3] {
    let board = pos.board();
    let mut out = [Bitboard::EMPTY; 3];
    for sq in Square::ALL {
        let n = board.attacks_to(sq, color, board.occupied()).count();
        if n > 0 {
            out[n.min(3) - 1].add(sq);
        }
    }
    out
}

impl Planes for Control {
    const NAME: &'static str = "ctl";
    const CHANNELS: usize = 6;

    fn planes(pos: &Chess, p: Perspective, out: &mut [Bitboard]) {
        out[..3].copy_from_slice(&control(pos, p.0));
        out[3..].copy_from_slice(&control(pos, !p.0));
    }
}

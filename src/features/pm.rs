//! The move half of `pm` (PIECE-MOVE = all ⊕ this): from square × to square
//! of every legal move of the side to move, 4096 inputs. Any move changes the
//! whole list, so this half is always recomputed.

use shakmaty::{CastlingSide, Chess, Move, Position};

use super::{FeatureBlock, Perspective};

#[derive(Default)]
pub struct Moves;

fn index(pos: &Chess, m: Move, p: Perspective) -> u32 {
    let from = m.from().expect("chess moves have an origin");
    // Castling counts as the king's move to its destination.
    let to = match m {
        Move::Castle { king, rook } => CastlingSide::from_queen_side(rook < king).king_to(pos.turn()),
        _ => m.to(),
    };
    (p.square(from) as u32) * 64 + p.square(to) as u32
}

impl FeatureBlock for Moves {
    fn name(&self) -> &'static str {
        "pm-moves"
    }

    fn size(&self) -> usize {
        64 * 64
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        out.extend(pos.legal_moves().into_iter().map(|m| index(pos, m, p)));
    }

    fn needs_refresh(&self, _pos: &Chess, _m: Move, _p: Perspective) -> bool {
        true
    }

    /// The legal moves are the side to move's.
    fn changes_on_pass(&self) -> bool {
        true
    }

    fn changes(
        &self,
        pos: &Chess,
        _m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        self.active(pos, p, removed);
        self.active(after, p, added);
    }
}

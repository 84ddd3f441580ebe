//! Blocks in which every piece contributes one feature that depends on its
//! own (oriented) square and piece, and possibly on our king's square.

use std::marker::PhantomData;

use shakmaty::{Chess, Move, Position, Square};

use super::{FeatureBlock, Perspective, king_to, moves_king_of, piece_changes, role_index};

pub trait PieceFeature: Send + Sync + 'static {
    const NAME: &'static str;
    const SIZE: usize;
    /// True when indices depend on our king's square: a king move refreshes.
    const KING_RELATIVE: bool = false;
    /// Index of a piece of role index `role` (0..6) and relative colour
    /// `colour` (0 ours, 1 theirs) on oriented square `sq`, with our king on
    /// oriented square `king`; `None` if such a piece has no feature.
    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32>;
    /// For king-relative features: whether our king moving from `from` to
    /// `to` (oriented squares) changes the indices of the other pieces, so
    /// that the perspective is refreshed. By default every king move does.
    fn king_move_refreshes(_from: Square, _to: Square) -> bool {
        true
    }
}

pub struct PieceBlock<F>(PhantomData<F>);

// Written out: a derive would ask the marker type for `Default` too.
impl<T> Default for PieceBlock<T> {
    fn default() -> Self {
        PieceBlock(PhantomData)
    }
}

impl<F: PieceFeature> FeatureBlock for PieceBlock<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn size(&self) -> usize {
        F::SIZE
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        let king = p.king(pos);
        for (sq, piece) in pos.board() {
            if let Some(i) = F::index(p.square(sq), role_index(piece.role), p.colour(piece.color), king) {
                out.push(i);
            }
        }
    }

    fn needs_refresh(&self, pos: &Chess, m: Move, p: Perspective) -> bool {
        F::KING_RELATIVE && moves_king_of(pos, m, p.0) && F::king_move_refreshes(p.king(pos), p.square(king_to(pos, m)))
    }

    fn changes(
        &self,
        pos: &Chess,
        m: Move,
        _after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        let king = p.king(pos);
        for change in piece_changes(pos, m) {
            let index =
                F::index(p.square(change.square), role_index(change.piece.role), p.colour(change.piece.color), king);
            if let Some(i) = index {
                if change.added { added.push(i) } else { removed.push(i) }
            }
        }
    }
}

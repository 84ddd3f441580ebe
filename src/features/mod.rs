//! Feature sets: how a position, seen from one side, becomes the set of
//! active input indices of the network.
//!
//! Every block is written once, from "our" side: the black perspective flips
//! ranks and swaps colours (`Perspective`). A block's indices are strided like
//! array indices; a sum of blocks (`all+ph+pv`) places each block after the
//! previous one. Active indices form a multiset: when a block can make the same
//! index active twice (two rooks on one file for `h`), the index appears twice
//! and the accumulator adds its row twice, so incremental updates stay exact.

mod all;
mod d1;
mod d2;
mod h;
mod ka;
mod king_relative;
mod kp;
mod line;
mod mb;
mod mc;
mod mobility;
mod names;
mod pairwise;
mod ph;
mod pm;
mod pv;
mod rk_h;
mod rk_hv;
mod rk_v;
pub mod stats;
mod v;

use std::fmt;

use arrayvec::ArrayVec;
use line::{PieceBlock, PieceFeature};
use pairwise::Pairwise;
use shakmaty::{CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

/// One perspective: squares seen from its side, colours as ours/theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Perspective(pub Color);

impl Perspective {
    pub fn square(self, sq: Square) -> Square {
        if self.0 == Color::White { sq } else { sq.flip_vertical() }
    }

    /// 0 for our pieces, 1 for theirs.
    pub fn colour(self, color: Color) -> usize {
        (color != self.0) as usize
    }

    /// Role and colour as one index 0..12 (role-major, colour fastest).
    pub fn piece(self, piece: Piece) -> usize {
        role_index(piece.role) * 2 + self.colour(piece.color)
    }

    /// Our king's square, oriented.
    pub fn king(self, pos: &Chess) -> Square {
        self.square(pos.board().king_of(self.0).expect("legal positions have both kings"))
    }
}

pub fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// One piece appearing on or leaving a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceChange {
    pub square: Square,
    pub piece: Piece,
    pub added: bool,
}

/// The piece placements a move changes, in order: removals, then additions.
pub fn piece_changes(pos: &Chess, m: Move) -> ArrayVec<PieceChange, 4> {
    let us = pos.turn();
    let mut changes = ArrayVec::new();
    let mut push =
        |square, role: Role, color, added| changes.push(PieceChange { square, piece: role.of(color), added });
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            push(from, role, us, false);
            if let Some(captured) = capture {
                push(to, captured, !us, false);
            }
            push(to, promotion.unwrap_or(role), us, true);
        }
        Move::EnPassant { from, to } => {
            push(from, Role::Pawn, us, false);
            push(Square::from_coords(to.file(), from.rank()), Role::Pawn, !us, false);
            push(to, Role::Pawn, us, true);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            push(king, Role::King, us, false);
            push(rook, Role::Rook, us, false);
            push(side.king_to(us), Role::King, us, true);
            push(side.rook_to(us), Role::Rook, us, true);
        }
        Move::Put { role, to } => push(to, role, us, true),
    }
    changes
}

/// Whether `m` moves the king of `color`.
pub fn moves_king_of(pos: &Chess, m: Move, color: Color) -> bool {
    pos.turn() == color && m.role() == Role::King
}

/// One block of a feature set. Indices are relative to the block (0..size).
pub trait FeatureBlock: Send + Sync {
    /// The block's name in expressions (`all`, `ph`, `rk-hv`, …).
    fn name(&self) -> &'static str;
    fn size(&self) -> usize;
    /// Appends the indices active in `pos` for `perspective`.
    fn active(&self, pos: &Chess, perspective: Perspective, out: &mut Vec<u32>);
    /// Whether `m` played in `pos` changes this block for `perspective` so
    /// much that recomputing it is the way to update it. Most blocks never do.
    fn needs_refresh(&self, _pos: &Chess, _m: Move, _perspective: Perspective) -> bool {
        false
    }
    /// Appends the indices `m` adds and removes; only called when
    /// `needs_refresh` is false. `after` is `pos` with `m` played.
    fn changes(
        &self,
        pos: &Chess,
        m: Move,
        after: &Chess,
        perspective: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    );
}

pub use names::BLOCK_NAMES;

fn piece<F: PieceFeature>() -> Box<dyn FeatureBlock> {
    Box::new(PieceBlock::<F>::new())
}

fn block(name: &str) -> Option<Vec<Box<dyn FeatureBlock>>> {
    Some(match name {
        "all" => vec![piece::<all::All>()],
        "h" => vec![piece::<h::H>()],
        "v" => vec![piece::<v::V>()],
        "d1" => vec![piece::<d1::D1>()],
        "d2" => vec![piece::<d2::D2>()],
        // `compact` is h ⊕ v by definition.
        "compact" => vec![piece::<h::H>(), piece::<v::V>()],
        "ph" => vec![Box::new(Pairwise::<ph::Ph>::new())],
        "pv" => vec![Box::new(Pairwise::<pv::Pv>::new())],
        "mb" => vec![Box::new(mb::Mb)],
        "mc" => vec![Box::new(mc::Mc)],
        "kp" => vec![piece::<kp::Kp>()],
        "ka" => vec![piece::<ka::Ka>()],
        "rk-h" => vec![piece::<rk_h::RkH>()],
        "rk-v" => vec![piece::<rk_v::RkV>()],
        "rk-hv" => vec![piece::<rk_hv::RkHv>()],
        // `pm` is all ⊕ (from × to of the legal moves).
        "pm" => vec![piece::<all::All>(), Box::new(pm::Moves)],
        _ => return None,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFeatureSetError(String);

impl fmt::Display for ParseFeatureSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; valid blocks: {}", self.0, BLOCK_NAMES.join(", "))
    }
}

impl std::error::Error for ParseFeatureSetError {}

/// A sum (⊕) of blocks, each placed after the previous one.
pub struct FeatureSet {
    expression: String,
    blocks: Vec<Box<dyn FeatureBlock>>,
    offsets: Vec<u32>,
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FeatureSet({}, {} inputs)", self.expression, self.size())
    }
}

impl std::str::FromStr for FeatureSet {
    type Err = ParseFeatureSetError;

    /// Parses an expression such as `all+ph+pv`.
    fn from_str(expression: &str) -> Result<FeatureSet, ParseFeatureSetError> {
        let expression = expression.trim();
        if expression.is_empty() {
            return Err(ParseFeatureSetError("empty feature-set expression".into()));
        }
        let mut blocks = Vec::new();
        for name in expression.split('+').map(str::trim) {
            if name.is_empty() {
                return Err(ParseFeatureSetError(format!("empty block name in '{expression}'")));
            }
            let found = block(name).ok_or_else(|| ParseFeatureSetError(format!("unknown block '{name}'")))?;
            blocks.extend(found);
        }
        let mut offsets = Vec::with_capacity(blocks.len());
        let mut next = 0u32;
        for b in &blocks {
            offsets.push(next);
            next += b.size() as u32;
        }
        Ok(FeatureSet { expression: expression.to_string(), blocks, offsets })
    }
}

/// How one perspective's accumulator follows a move.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Update {
    /// Recompute the whole perspective from scratch.
    pub refresh: bool,
    pub added: Vec<u32>,
    pub removed: Vec<u32>,
}

impl FeatureSet {
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// Total number of inputs.
    pub fn size(&self) -> usize {
        self.blocks.iter().map(|b| b.size()).sum()
    }

    pub fn blocks(&self) -> impl Iterator<Item = (&dyn FeatureBlock, u32)> {
        self.blocks.iter().map(|b| b.as_ref()).zip(self.offsets.iter().copied())
    }

    /// Active indices of the whole set.
    pub fn active(&self, pos: &Chess, perspective: Perspective, out: &mut Vec<u32>) {
        for (block, offset) in self.blocks() {
            let start = out.len();
            block.active(pos, perspective, out);
            out[start..].iter_mut().for_each(|i| *i += offset);
        }
    }

    /// The update for playing `m` in `pos` (giving `after`). A block that
    /// needs a refresh contributes its whole old and new active lists; if
    /// that is all blocks, the perspective is refreshed instead.
    pub fn update(&self, pos: &Chess, m: Move, after: &Chess, perspective: Perspective) -> Update {
        let mut update = Update::default();
        self.update_into(pos, m, after, perspective, &mut update);
        update
    }

    /// `update`, reusing the buffers of `update` (the search's hot path).
    pub fn update_into(&self, pos: &Chess, m: Move, after: &Chess, perspective: Perspective, update: &mut Update) {
        update.added.clear();
        update.removed.clear();
        update.refresh = self.blocks.iter().all(|b| b.needs_refresh(pos, m, perspective));
        if update.refresh {
            return;
        }
        for (block, offset) in self.blocks() {
            let (a, r) = (update.added.len(), update.removed.len());
            if block.needs_refresh(pos, m, perspective) {
                block.active(pos, perspective, &mut update.removed);
                block.active(after, perspective, &mut update.added);
            } else {
                block.changes(pos, m, after, perspective, &mut update.added, &mut update.removed);
            }
            update.added[a..].iter_mut().for_each(|i| *i += offset);
            update.removed[r..].iter_mut().for_each(|i| *i += offset);
        }
    }
}

#[cfg(test)]
mod tests;

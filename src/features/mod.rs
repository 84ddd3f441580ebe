//! Feature sets: how a position, seen from one side, becomes the set of
//! active input indices of the network.
//!
//! Every block is written once, from "our" side: the black perspective flips
//! ranks and swaps colours (`Perspective`). A block's indices are strided like
//! array indices; a sum of blocks (`all+ph+pv`) places each block after the
//! previous one. Active indices form a multiset: when a block can make the same
//! index active twice (two rooks on one file for `h`), the index appears twice
//! and the accumulator adds its row twice, so incremental updates stay exact.
//!
//! The blocks (one file each; `tessera features EXPR` prints an expression's
//! blocks and offsets, `tessera-datagen stats FILE --features EXPR` their
//! activity over real positions):
//!
//! | name | one input per | size |
//! |---|---|---|
//! | `all` | square × piece type × colour (PIECE) | 768 |
//! | `h`, `v` | file (`h`) or rank (`v`) × piece type × colour, one a piece | 96 each |
//! | `d1`, `d2` | diagonal or anti-diagonal (15) × piece type × colour | 180 each |
//! | `compact` | `h` ⊕ `v` | 192 |
//! | `ph`, `pv` | rank (`ph`) or file (`pv`) × the (type, colour) pair of two pieces next to each other along it | 1152 each |
//! | `mb` | the squares each (type, colour) can move to | 768 |
//! | `mc` | each (type, colour)'s count of moves, bucketed | 206 |
//! | `kp` | own king square × non-king piece on a square (HalfKP) | 40960 |
//! | `ka` | own king square × any piece on a square (HalfKA) | 49152 |
//! | `kb4`, `kb8`, `kb16` | king bucket (4, 8, 16, mirrored so the king is on files a–d) × `all` | 3072, 6144, 12288 |
//! | `rk-h`, `rk-v`, `rk-hv` | file and/or rank distance from the own king × piece type × colour, non-king pieces | 1200, 1200, 2250 |
//! | `pm` | `all` ⊕ (from × to of every legal move) | 4864 |
//! | `pp`, `pin`, `ctl`, `mt` | planes: passed pawns, pinned pieces, square control, squares legal moves reach | 128, 768, 384, 128 |
//! | `cr` | castling rights | 4 |
//! | `th` | threats: attacker type and square × attacked piece type and square | 90384 |
//!
//! An input that can never be active (a pawn on the last rank) keeps its
//! index: indexing stays a product of strides.

mod all;
mod compiled;
mod cr;
mod ctl;
mod d1;
mod d2;
mod h;
mod ka;
mod kb;
mod king_relative;
mod kp;
mod line;
mod mb;
mod mc;
mod mobility;
mod mt;
mod names;
mod pairwise;
mod ph;
mod pin;
mod planes;
mod pm;
mod pp;
mod pv;
mod rk_h;
mod rk_hv;
mod rk_v;
mod sum;
mod th;
mod v;

use std::fmt;

use arrayvec::ArrayVec;
use line::PieceBlock;
pub use names::{BLOCKS, block_names};
use pairwise::Pairwise;
use planes::PlaneBlock;
use shakmaty::{CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};
pub use sum::Sum;

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

/// The `all` input of a piece on a square as a perspective sees it (`square`
/// already oriented, `ours` for the perspective's own pieces): the first 768
/// inputs of every set that starts with `all`. Pictures of a net's weights
/// read them by piece and square through this.
pub fn piece_square_index(square: Square, role: Role, ours: bool) -> u32 {
    use line::PieceFeature;
    <all::All as PieceFeature>::index(square, role_index(role), usize::from(!ours), Square::A1)
        .expect("every piece on every square has an `all` input")
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

/// Where the king of the side to move stands after `m` (castling included),
/// for a king move.
pub fn king_to(pos: &Chess, m: Move) -> Square {
    match m {
        Move::Castle { king, rook } => CastlingSide::from_queen_side(rook < king).king_to(pos.turn()),
        other => other.to(),
    }
}

/// Whether `m` moves the king of `color`.
pub fn moves_king_of(pos: &Chess, m: Move, color: Color) -> bool {
    pos.turn() == color && m.role() == Role::King
}

/// Lets a block's default `blocks` list itself as a trait object.
pub trait AsDynBlock {
    fn as_dyn(&self) -> &dyn FeatureBlock;
}

impl<T: FeatureBlock> AsDynBlock for T {
    fn as_dyn(&self) -> &dyn FeatureBlock {
        self
    }
}

/// One block of a feature set, or a sum of them. Indices are relative to
/// the block (0..size).
pub trait FeatureBlock: AsDynBlock + Send + Sync {
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
    /// Whether a pass (a null move: the other side to move, no en-passant
    /// square, every piece where it was) can change this block's features.
    /// Only blocks that read the side to move or the en-passant square do;
    /// for the others the search copies the parent's accumulators.
    fn changes_on_pass(&self) -> bool {
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
    /// The single blocks this one is made of, with their offsets.
    fn blocks(&self) -> Vec<(&dyn FeatureBlock, usize)> {
        vec![(self.as_dyn(), 0)]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFeatureSetError(String);

impl fmt::Display for ParseFeatureSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; valid blocks: {}", self.0, block_names().collect::<Vec<_>>().join(", "))
    }
}

impl std::error::Error for ParseFeatureSetError {}

/// The expression this engine's feature set is compiled for.
pub use compiled::COMPILED_EXPRESSION;

/// A feature-set expression made usable. The set this engine is compiled for
/// runs as one concrete, inlined type; any other (tools, tests, a trainer
/// working on several sets) goes through trait objects with the same blocks
/// and the same `Sum`.
pub struct FeatureSet {
    expression: String,
    blocks: Blocks,
}

enum Blocks {
    Compiled(compiled::Compiled),
    Dynamic(Box<dyn FeatureBlock>),
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
        let fs = FeatureSet::dynamic(expression)?;
        Ok(if fs.expression == COMPILED_EXPRESSION {
            FeatureSet { blocks: Blocks::Compiled(Default::default()), ..fs }
        } else {
            fs
        })
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
    /// Parses `expression` into trait objects even when it is the compiled
    /// set (tests compare the two).
    pub fn dynamic(expression: &str) -> Result<FeatureSet, ParseFeatureSetError> {
        let expression = expression.trim();
        if expression.is_empty() {
            return Err(ParseFeatureSetError("empty feature-set expression".into()));
        }
        let mut parts = Vec::new();
        for name in expression.split('+').map(str::trim) {
            if name.is_empty() {
                return Err(ParseFeatureSetError(format!("empty block name in '{expression}'")));
            }
            parts.push(
                compiled::named_block(name).ok_or_else(|| ParseFeatureSetError(format!("unknown block '{name}'")))?,
            );
        }
        let last = parts.pop().expect("at least one block");
        let blocks = parts.into_iter().rev().fold(last, |rest, part| Box::new(Sum(part, rest)));
        Ok(FeatureSet { expression: names::normalize(expression), blocks: Blocks::Dynamic(blocks) })
    }

    /// Whether this set runs as the compiled, monomorphized type.
    pub fn is_compiled(&self) -> bool {
        matches!(self.blocks, Blocks::Compiled(_))
    }

    pub fn expression(&self) -> &str {
        &self.expression
    }

    fn as_block(&self) -> &dyn FeatureBlock {
        match &self.blocks {
            Blocks::Compiled(c) => c,
            Blocks::Dynamic(d) => d.as_ref(),
        }
    }

    /// Total number of inputs.
    pub fn size(&self) -> usize {
        self.as_block().size()
    }

    /// The single blocks of the set, each with its offset.
    pub fn blocks(&self) -> Vec<(&dyn FeatureBlock, usize)> {
        self.as_block().blocks()
    }

    /// Active indices of the whole set.
    pub fn active(&self, pos: &Chess, perspective: Perspective, out: &mut Vec<u32>) {
        match &self.blocks {
            Blocks::Compiled(c) => c.active(pos, perspective, out),
            Blocks::Dynamic(d) => d.active(pos, perspective, out),
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
    /// Whether a null move can change any feature (see
    /// [`FeatureBlock::changes_on_pass`]).
    pub fn changes_on_pass(&self) -> bool {
        match &self.blocks {
            Blocks::Compiled(c) => c.changes_on_pass(),
            Blocks::Dynamic(d) => d.changes_on_pass(),
        }
    }

    pub fn update_into(&self, pos: &Chess, m: Move, after: &Chess, perspective: Perspective, update: &mut Update) {
        match &self.blocks {
            Blocks::Compiled(c) => update_with(c, pos, m, after, perspective, update),
            Blocks::Dynamic(d) => update_with(d, pos, m, after, perspective, update),
        }
    }
}

fn update_with<F: FeatureBlock>(
    blocks: &F,
    pos: &Chess,
    m: Move,
    after: &Chess,
    perspective: Perspective,
    update: &mut Update,
) {
    update.added.clear();
    update.removed.clear();
    update.refresh = blocks.needs_refresh(pos, m, perspective);
    if !update.refresh {
        blocks.changes(pos, m, after, perspective, &mut update.added, &mut update.removed);
    }
}

#[cfg(test)]
mod tests;

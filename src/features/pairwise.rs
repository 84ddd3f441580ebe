//! Pairwise blocks (`ph`, `pv`): along each line, every two pieces that are
//! next to each other in order (empty squares between them don't matter)
//! form a feature line × (role, colour) × (role, colour), 8 × 12 × 12 = 1152.

use std::marker::PhantomData;

use shakmaty::{Chess, Move, Position, Square};

use super::{FeatureBlock, Perspective, piece_changes};

/// A family of 8 lines and the order of squares along each.
pub trait Lines: Send + Sync + 'static {
    const NAME: &'static str;
    /// The line of an (oriented) square.
    fn line(sq: Square) -> usize;
    /// The `k`-th square of `line`, in order.
    fn square(line: usize, k: usize) -> Square;
}

pub struct Pairwise<L>(PhantomData<L>);

// Written out: a derive would ask the marker type for `Default` too.
impl<T> Default for Pairwise<T> {
    fn default() -> Self {
        Pairwise(PhantomData)
    }
}

const EMPTY: u8 = u8::MAX;

/// The board seen from the perspective: piece index (0..12) per oriented square.
fn oriented_grid(pos: &Chess, p: Perspective) -> [u8; 64] {
    let mut grid = [EMPTY; 64];
    for (sq, piece) in pos.board() {
        grid[p.square(sq) as usize] = p.piece(piece) as u8;
    }
    grid
}

fn line_pairs<L: Lines>(grid: &[u8; 64], line: usize, out: &mut Vec<u32>) {
    let mut previous = EMPTY;
    for k in 0..8 {
        let piece = grid[L::square(line, k) as usize];
        if piece == EMPTY {
            continue;
        }
        if previous != EMPTY {
            out.push(((line * 12 + previous as usize) * 12 + piece as usize) as u32);
        }
        previous = piece;
    }
}

impl<L: Lines> FeatureBlock for Pairwise<L> {
    fn name(&self) -> &'static str {
        L::NAME
    }

    fn size(&self) -> usize {
        8 * 12 * 12
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        let grid = oriented_grid(pos, p);
        for line in 0..8 {
            line_pairs::<L>(&grid, line, out);
        }
    }

    /// Every line a move touches is recomputed: its old pairs removed, its new
    /// pairs added. Pairs on other lines cannot change.
    fn changes(
        &self,
        pos: &Chess,
        m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        let mut touched = 0u8;
        for change in piece_changes(pos, m) {
            touched |= 1 << L::line(p.square(change.square));
        }
        let (before, now) = (oriented_grid(pos, p), oriented_grid(after, p));
        for line in (0..8).filter(|l| touched & (1 << l) != 0) {
            line_pairs::<L>(&before, line, removed);
            line_pairs::<L>(&now, line, added);
        }
    }
}

//! Blocks made of square planes, as in a board-to-planes encoding: each
//! channel is a set of squares seen from the perspective (ours/theirs), and
//! feature `channel × 64 + oriented square` is active for each of its
//! squares. A move's update is the difference of the channels before and
//! after it: exact however far a change reaches (a pin broken across the
//! board, an attack count changing on a distant square), at the price of
//! computing the planes twice per move.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Move, Square};

use super::{FeatureBlock, Perspective};

/// Most channels any plane block has.
pub const MAX_CHANNELS: usize = 12;

pub trait Planes: Send + Sync + 'static {
    const NAME: &'static str;
    const CHANNELS: usize;
    /// Whether a pass (null move) can change the planes: only planes that
    /// read the side to move or the en-passant square.
    const CHANGES_ON_PASS: bool = false;
    /// Fills `out` (`CHANNELS` long) with each channel's squares, on the board
    /// as it is (the block orients them).
    fn planes(pos: &Chess, p: Perspective, out: &mut [Bitboard]);
}

pub struct PlaneBlock<P>(std::marker::PhantomData<P>);

// Written out: a derive would ask the marker type for `Default` too.
impl<P> Default for PlaneBlock<P> {
    fn default() -> Self {
        PlaneBlock(std::marker::PhantomData)
    }
}

fn planes_of<P: Planes>(pos: &Chess, p: Perspective) -> ArrayVec<Bitboard, MAX_CHANNELS> {
    let mut out: ArrayVec<Bitboard, MAX_CHANNELS> = ArrayVec::new();
    for _ in 0..P::CHANNELS {
        out.push(Bitboard::EMPTY);
    }
    P::planes(pos, p, &mut out);
    out
}

fn index(p: Perspective, channel: usize, sq: Square) -> u32 {
    (channel * 64 + p.square(sq) as usize) as u32
}

impl<P: Planes> FeatureBlock for PlaneBlock<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn size(&self) -> usize {
        P::CHANNELS * 64
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        for (channel, squares) in planes_of::<P>(pos, p).into_iter().enumerate() {
            out.extend(squares.into_iter().map(|sq| index(p, channel, sq)));
        }
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
        let (before, now) = (planes_of::<P>(pos, p), planes_of::<P>(after, p));
        for (channel, (old, new)) in before.into_iter().zip(now).enumerate() {
            added.extend((new & !old).into_iter().map(|sq| index(p, channel, sq)));
            removed.extend((old & !new).into_iter().map(|sq| index(p, channel, sq)));
        }
    }

    fn changes_on_pass(&self) -> bool {
        P::CHANGES_ON_PASS
    }
}

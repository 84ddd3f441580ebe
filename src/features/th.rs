//! `th`: threat inputs. One feature per (attacking piece, its square,
//! attacked piece, its square) pair on the board, pieces of either side
//! attacking pieces of either side (defended pieces included), seen from the
//! perspective (squares oriented, pieces as ours/theirs).
//!
//! Indexing packs the pairs densely: for each attacking piece and square,
//! only the squares that piece could attack on an empty board get a slot, and
//! each slot has 12 attacked pieces: 7,532 slots (knight 336, bishop 560,
//! rook 896, queen 1,456 and king 420 per side, pawn 98), 90,384 inputs
//! instead of 12·64·12·64.
//! A move changes the pairs of the moved and captured pieces and of every
//! slider whose line it opens or closes; the update is the difference of the
//! pair lists before and after, exact for all of those.

use once_cell::sync::Lazy;
use shakmaty::attacks::attacks;
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

use super::{FeatureBlock, Perspective, role_index};

#[derive(Default)]
pub struct Th;

/// A piece as seen from a perspective: role index × 2 + (0 ours, 1 theirs).
fn relative(p: Perspective, piece: Piece) -> usize {
    role_index(piece.role) * 2 + p.colour(piece.color)
}

/// The piece a relative index stands for, on the oriented board: ours are
/// white there, theirs black.
fn oriented_piece(index: usize) -> Piece {
    let role = Role::ALL[index / 2];
    Piece { role, color: if index.is_multiple_of(2) { Color::White } else { Color::Black } }
}

struct Slots {
    /// Per relative piece and oriented square: the squares it attacks on an
    /// empty board, and the first slot of that set.
    reach: [[Bitboard; 64]; 12],
    first: [[u32; 64]; 12],
    slots: u32,
}

static SLOTS: Lazy<Slots> = Lazy::new(|| {
    let mut s = Slots { reach: [[Bitboard::EMPTY; 64]; 12], first: [[0; 64]; 12], slots: 0 };
    for piece in 0..12 {
        for sq in Square::ALL {
            let reach = attacks(sq, oriented_piece(piece), Bitboard::EMPTY);
            s.reach[piece][sq as usize] = reach;
            s.first[piece][sq as usize] = s.slots;
            s.slots += reach.count() as u32;
        }
    }
    s
});

fn index(attacker: usize, from: Square, victim: usize, to: Square) -> u32 {
    let s = &*SLOTS;
    let reach = s.reach[attacker][from as usize];
    debug_assert!(reach.contains(to), "{to} is not in the reach of piece {attacker} on {from}");
    let rank = (reach & Bitboard((1u64 << to as u32) - 1)).count() as u32;
    (s.first[attacker][from as usize] + rank) * 12 + victim as u32
}

/// Every attacking pair of `pos`, sorted.
fn pairs(pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
    let board = pos.board();
    let occupied = board.occupied();
    let start = out.len();
    for (from, piece) in board {
        let attacker = relative(p, piece);
        for to in attacks(from, piece, occupied) & occupied {
            let victim = relative(p, board.piece_at(to).expect("an occupied square"));
            out.push(index(attacker, p.square(from), victim, p.square(to)));
        }
    }
    out[start..].sort_unstable();
}

impl FeatureBlock for Th {
    fn name(&self) -> &'static str {
        "th"
    }

    fn size(&self) -> usize {
        SLOTS.slots as usize * 12
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        pairs(pos, p, out);
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
        let (mut old, mut new) = (Vec::with_capacity(64), Vec::with_capacity(64));
        pairs(pos, p, &mut old);
        pairs(after, p, &mut new);
        // Both sorted, and a pair occurs once: a merge gives the differences.
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a < b => {
                    removed.push(*a);
                    i += 1;
                }
                (Some(a), None) => {
                    removed.push(*a);
                    i += 1;
                }
                (_, Some(b)) => {
                    added.push(*b);
                    j += 1;
                }
                (None, None) => unreachable!(),
            }
        }
    }
}

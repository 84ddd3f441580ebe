//! `pin`: pinned pieces, square × role × colour, 768 inputs: the pieces that
//! stand alone between their own king and an enemy slider on the slider's
//! line (absolute pins). Channels are ordered as `all`'s: role, then colour
//! (ours, theirs).

use shakmaty::attacks::{between, bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Position};

use super::planes::Planes;
use super::{Perspective, role_index};

#[derive(Default)]
pub struct Pinned;

/// `color`'s pieces pinned to `color`'s king.
pub fn pinned(pos: &Chess, color: Color) -> Bitboard {
    let board = pos.board();
    let Some(king) = board.king_of(color) else { return Bitboard::EMPTY };
    let enemy = board.by_color(!color);
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens() & enemy)
        | (bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens() & enemy);
    let mut out = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = between(king, sniper) & board.occupied();
        if let Some(sq) = blockers.single_square()
            && board.by_color(color).contains(sq)
        {
            out.add(sq);
        }
    }
    out
}

impl Planes for Pinned {
    const NAME: &'static str = "pin";
    const CHANNELS: usize = 12;

    fn planes(pos: &Chess, p: Perspective, out: &mut [Bitboard]) {
        let board = pos.board();
        for color in Color::ALL {
            for sq in pinned(pos, color) {
                let role = board.role_at(sq).expect("a pinned piece stands there");
                out[role_index(role) * 2 + p.colour(color)].add(sq);
            }
        }
    }
}

//! `pp`: passed pawns, square × colour (ours, theirs), 128 inputs. A pawn is
//! passed when no enemy pawn stands ahead of it on its own or a neighbouring
//! file.

use shakmaty::{Bitboard, Chess, Color, File, Position, Square};

use super::Perspective;
use super::planes::Planes;

#[derive(Default)]
pub struct Passed;

/// The squares ahead of `sq` (from `color`'s side) on its file and the
/// neighbouring ones.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let file = sq.file() as u32;
    let mut files = Bitboard::EMPTY;
    for f in file.saturating_sub(1)..=(file + 1).min(7) {
        files |= Bitboard::from_file(File::new(f));
    }
    let rank = sq.rank() as u32;
    let ahead = match color {
        Color::White if rank < 7 => Bitboard(!0u64 << (8 * (rank + 1))),
        Color::Black => Bitboard((1u64 << (8 * rank)) - 1),
        _ => Bitboard::EMPTY,
    };
    files & ahead
}

pub fn passed_pawns(pos: &Chess, color: Color) -> Bitboard {
    let board = pos.board();
    let enemy_pawns = board.pawns() & board.by_color(!color);
    (board.pawns() & board.by_color(color))
        .into_iter()
        .filter(|&sq| (front_span(sq, color) & enemy_pawns).is_empty())
        .collect()
}

impl Planes for Passed {
    const NAME: &'static str = "pp";
    const CHANNELS: usize = 2;

    fn planes(pos: &Chess, p: Perspective, out: &mut [Bitboard]) {
        out[0] = passed_pawns(pos, p.0);
        out[1] = passed_pawns(pos, !p.0);
    }
}

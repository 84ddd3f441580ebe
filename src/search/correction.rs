//! Correction history: what the search has learned about the static
//! evaluation's errors, keyed by the pawn structure and by each side's
//! non-pawn pieces.
//!
//! After a node is searched, the difference between its result and the raw
//! static evaluation is folded into a running average for the node's pawn
//! structure and for each side's arrangement of pieces. The next static
//! evaluation of a position sharing them is moved by the weighted averages,
//! so that pruning decisions (reverse futility, razoring, null move,
//! futility) start from an evaluation the search has already corrected.
//! Only results that say something exact about the evaluation are learnt:
//! not in check, not when the best move was a capture or promotion (the
//! static evaluation does not see those), and not a bound on the wrong side.

use shakmaty::{Bitboard, Board, Color};

use super::params;
use crate::evaluate::EVAL_LIMIT;

/// Entries per table and side to move.
const ENTRIES: usize = 16_384;
/// Corrections are kept in 1/GRAIN centipawns.
const GRAIN: i32 = 256;
/// No entry corrects by more than this many centipawns.
const LIMIT_CP: i32 = 64;
/// Update weights are out of this.
const WEIGHT_SCALE: i32 = 256;

pub struct CorrectionHistory {
    /// [side to move][pawn key]
    pawn: Vec<i16>,
    /// [side to move][colour of the pieces][that colour's non-pawn key]
    non_pawn: Vec<i16>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory { pawn: vec![0; 2 * ENTRIES], non_pawn: vec![0; 4 * ENTRIES] }
    }
}

/// The table slots of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots {
    pawn: usize,
    non_pawn: [usize; 2],
}

/// A 64-bit mixer (the finaliser of splitmix64): every input bit moves
/// about half of the output bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn slot(key: u64) -> usize {
    (key % ENTRIES as u64) as usize
}

/// Where `board`'s corrections are kept, with White or Black to move.
pub fn slots(board: &Board, turn: Color) -> Slots {
    let stm = turn as usize;
    let pawns = board.pawns();
    let pawn_key = mix(board.white().intersect(pawns).0) ^ mix(board.black().intersect(pawns).0.rotate_left(32));
    let side_key = |color: Color| {
        let own = board.by_color(color);
        let part = |pieces: Bitboard, multiplier: u64| own.intersect(pieces).0.wrapping_mul(multiplier);
        mix(part(board.knights(), 0x9e37_79b9_7f4a_7c15)
            ^ part(board.bishops(), 0xc2b2_ae3d_27d4_eb4f)
            ^ part(board.rooks(), 0x1656_67b1_9e37_79f9)
            ^ part(board.queens(), 0x27d4_eb2f_1656_67c5)
            ^ part(board.kings(), 0x85eb_ca77_c2b2_ae63))
    };
    Slots {
        pawn: stm * ENTRIES + slot(pawn_key),
        non_pawn: [
            (stm * 2) * ENTRIES + slot(side_key(Color::Black)),
            (stm * 2 + 1) * ENTRIES + slot(side_key(Color::White)),
        ],
    }
}

impl CorrectionHistory {
    /// Starts loading the entries of `s` into the cache (three tables of
    /// 64–128 KB, read at random: most reads missed the first-level cache).
    pub fn prefetch(&self, s: Slots) {
        for entry in [&self.pawn[s.pawn], &self.non_pawn[s.non_pawn[0]], &self.non_pawn[s.non_pawn[1]]] {
            super::prefetch::prefetch(entry);
        }
    }

    /// The correction in centipawns for a position with these slots.
    pub fn correction(&self, s: Slots) -> i32 {
        let pawn = self.pawn[s.pawn] as i32 * params::corr_pawn_weight();
        let non_pawn = (self.non_pawn[s.non_pawn[0]] as i32 + self.non_pawn[s.non_pawn[1]] as i32)
            * params::corr_non_pawn_weight();
        (pawn + non_pawn) / (WEIGHT_SCALE * GRAIN)
    }

    /// A raw static evaluation moved by the correction of its slots, kept
    /// within the evaluation's bounds.
    pub fn corrected(&self, s: Slots, raw: i32) -> i32 {
        (raw + self.correction(s)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Learns that a search of `depth` found `score` where the raw static
    /// evaluation said `raw_eval`.
    pub fn update(&mut self, s: Slots, depth: i32, raw_eval: i32, score: i32) {
        let target = ((score - raw_eval).clamp(-LIMIT_CP, LIMIT_CP)) * GRAIN;
        let weight = (depth + 1).clamp(1, 16);
        let blend = |entry: &mut i16| {
            let old = *entry as i32;
            *entry = ((old * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE) as i16;
        };
        blend(&mut self.pawn[s.pawn]);
        blend(&mut self.non_pawn[s.non_pawn[0]]);
        blend(&mut self.non_pawn[s.non_pawn[1]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    fn board(fen: &str) -> Board {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        pos.board().clone()
    }

    #[test]
    fn repeated_results_pull_the_correction_towards_the_error_and_no_further() {
        let mut h = CorrectionHistory::default();
        let b = board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let s = slots(&b, Color::White);
        assert_eq!(h.correction(s), 0);
        for _ in 0..500 {
            h.update(s, 10, 0, 40);
        }
        let full = h.correction(s);
        // Each table has learnt +40; the weights say how much of each applies.
        let expected = 40 * (params::corr_pawn_weight() + 2 * params::corr_non_pawn_weight()) / WEIGHT_SCALE;
        assert!((full - expected).abs() <= 1, "{full} vs {expected}");
        // Errors beyond the limit count as the limit.
        for _ in 0..500 {
            h.update(s, 10, 0, 10_000);
        }
        assert!(
            h.correction(s)
                <= LIMIT_CP * (params::corr_pawn_weight() + 2 * params::corr_non_pawn_weight()) / WEIGHT_SCALE
        );
        // The other side to move has tables of its own.
        assert_eq!(h.correction(slots(&b, Color::Black)), 0);
    }

    #[test]
    fn positions_share_the_tables_of_what_they_share() {
        let a = slots(&board("4k3/pp3ppp/8/8/8/8/PP3PPP/R3K2R w - - 0 1"), Color::White);
        // The same pawns, a rook moved: the pawn slot is shared, White's pieces' slot is not.
        let b = slots(&board("4k3/pp3ppp/8/8/8/8/PP3PPP/R4RK1 w - - 0 1"), Color::White);
        assert_eq!(a.pawn, b.pawn);
        assert_eq!(a.non_pawn[0], b.non_pawn[0]);
        assert_ne!(a.non_pawn[1], b.non_pawn[1]);
        // A pawn moved: the pieces' slots stay, the pawn slot changes.
        let c = slots(&board("4k3/pp3ppp/8/8/8/7P/PP3PP1/R3K2R w - - 0 1"), Color::White);
        assert_ne!(a.pawn, c.pawn);
        assert_eq!(a.non_pawn, c.non_pawn);
    }
}

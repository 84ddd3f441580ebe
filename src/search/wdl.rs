//! Win, draw and loss chances of a search score, for `UCI_ShowWDL`: the
//! form of Stockfish's WDL model, fitted to Tessera's own self-play games
//! (`tessera-trainer wdl-fit`, research/wdl-model.md).
//!
//! With x the score (centipawns, side to move) and m the material on the
//! board (pawn 1, knight and bishop 3, rook 5, queen 9, both sides; clamped
//! to 17..78 and divided by 58), a(m) and b(m) cubics:
//! win = 1 / (1 + e^((a − x) / b)), loss = 1 / (1 + e^((a + x) / b)),
//! draw = the rest. a is the score at which a win is as likely as not, b how
//! fast the chance grows with the score.

use shakmaty::{Chess, Position, Role};

use super::score::mate_in_moves;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    /// a(m) = Σ a[k]·m^k (centipawns).
    pub a: [f64; 4],
    /// b(m) = Σ b[k]·m^k (centipawns).
    pub b: [f64; 4],
}

/// The model `UCI_ShowWDL` reports: fitted by `tessera-trainer wdl-fit` to
/// Tessera's self-play with net v10, the default (research/wdl-model.md has the
/// data and the command; refit when the default net changes, since a net's
/// scores carry its own scale).
pub const FITTED: WdlModel = WdlModel { a: [237.658, -236.756, 73.769, 12.305], b: [46.196, 51.771, -47.147, 24.575] };

/// Material on the board, both sides: pawn 1, knight and bishop 3, rook 5, queen 9.
pub fn material(pos: &Chess) -> i32 {
    let board = pos.board();
    [(Role::Pawn, 1), (Role::Knight, 3), (Role::Bishop, 3), (Role::Rook, 5), (Role::Queen, 9)]
        .iter()
        .map(|&(role, value)| value * board.by_role(role).count() as i32)
        .sum()
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// (a, b) at `material`.
    pub fn parameters(&self, material: i32) -> (f64, f64) {
        let m = material.clamp(17, 78) as f64 / 58.0;
        let poly = |c: &[f64; 4]| ((c[3] * m + c[2]) * m + c[1]) * m + c[0];
        (poly(&self.a), poly(&self.b).max(1.0))
    }

    /// (win, draw, loss) chances of a centipawn score.
    pub fn chances(&self, score: f64, material: i32) -> (f64, f64, f64) {
        let (a, b) = self.parameters(material);
        let win = logistic((score - a) / b);
        let loss = logistic((-score - a) / b);
        (win, (1.0 - win - loss).max(0.0), loss)
    }

    /// Per mille, summing to 1000, for a search score (mates are certain).
    pub fn per_mille(&self, score: i32, material: i32) -> (u32, u32, u32) {
        if let Some(moves) = mate_in_moves(score) {
            return if moves > 0 { (1000, 0, 0) } else { (0, 0, 1000) };
        }
        let (win, _, loss) = self.chances(score as f64, material);
        let win = (1000.0 * win).round() as u32;
        let loss = ((1000.0 * loss).round() as u32).min(1000 - win);
        (win, 1000 - win - loss, loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;

    #[test]
    fn chances_are_monotone_symmetric_and_sum_to_one() {
        for material in [10, 40, 78] {
            let mut last_win = 0;
            for score in (-1000..=1000).step_by(50) {
                let (w, d, l) = FITTED.per_mille(score, material);
                assert_eq!(w + d + l, 1000);
                assert!(w >= last_win, "win chance grows with the score");
                last_win = w;
                let (w2, d2, l2) = FITTED.per_mille(-score, material);
                assert_eq!((w2, d2), (l, d), "a score and its negation mirror each other");
                let _ = l2;
            }
        }
        assert_eq!(FITTED.per_mille(MATE - 3, 40), (1000, 0, 0));
        assert_eq!(FITTED.per_mille(-MATE + 4, 40), (0, 0, 1000));
    }

    /// What the fit found in Tessera's games: an even score is mostly a
    /// draw in an ending and much less so with most pieces on, and +100 cp
    /// wins more often in the middlegame than in a pawn ending.
    #[test]
    fn the_fitted_model_depends_on_the_material() {
        // Most pieces on: material 70 of 78 (at 60, v10's fit puts an even score's draw
        // chance at 50.6%, v9's at 48.0%; at 70 both are under 46%).
        let (_, draw_ending, _) = FITTED.chances(0.0, 15);
        let (_, draw_full, _) = FITTED.chances(0.0, 70);
        assert!(draw_ending > 0.7 && draw_full < 0.5, "{draw_ending} {draw_full}");
        assert!(draw_ending > draw_full + 0.3, "{draw_ending} {draw_full}");
        let (win_ending, ..) = FITTED.chances(100.0, 15);
        let (win_middlegame, ..) = FITTED.chances(100.0, 60);
        assert!(win_middlegame > 2.0 * win_ending, "{win_ending} {win_middlegame}");
        // Far ahead is a win whatever the material.
        assert!(FITTED.per_mille(800, 15).0 > 900 && FITTED.per_mille(800, 78).0 > 900);
    }

    #[test]
    fn material_counts_both_sides() {
        assert_eq!(material(&Chess::default()), 78);
        let kq: Chess = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert_eq!(material(&kq), 9);
    }
}

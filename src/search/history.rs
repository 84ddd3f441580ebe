//! Move-ordering statistics learned during the search: butterfly history,
//! capture history, continuation history, killers and counter moves.

use shakmaty::{Color, Move, Piece, Square};

use super::correction::CorrectionHistory;
use super::params;
use super::score::MAX_PLY;

/// Histories saturate at this magnitude ("gravity" update).
pub const HISTORY_MAX: i32 = 16_384;

/// Index of a coloured piece: 0..12.
pub fn piece_index(piece: Piece) -> usize {
    piece.color as usize * 6 + piece.role as usize - 1
}

fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let current = *entry as i32;
    *entry = (current + bonus - current * bonus.abs() / HISTORY_MAX) as i16;
}

/// Bonus for a move that caused a cutoff at `depth`.
pub fn bonus(depth: i32) -> i32 {
    (params::hist_bonus_mul() * depth - params::hist_bonus_offset()).min(params::hist_bonus_max())
}

/// Penalty for the moves tried before the one that cut at `depth`.
pub fn malus(depth: i32) -> i32 {
    (params::hist_malus_mul() * depth - params::hist_malus_offset()).min(params::hist_malus_max())
}

/// A (piece, destination) pair: what continuation history is keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo {
    pub piece: usize,
    pub to: usize,
}

impl PieceTo {
    pub fn of(color: Color, m: Move) -> PieceTo {
        let to = match m {
            // Castling is stored as the king's real destination.
            Move::Castle { king, rook } => shakmaty::CastlingSide::from_queen_side(rook < king).king_to(color),
            _ => m.to(),
        };
        PieceTo { piece: piece_index(m.role().of(color)), to: to as usize }
    }
}

pub struct Histories {
    /// [colour][from][to]
    butterfly: Vec<i16>,
    /// [moved piece][to][captured role]
    capture: Vec<i16>,
    /// [previous piece][previous to][piece][to]
    continuation: Vec<i16>,
    /// [previous piece][previous to]
    counter: Vec<Option<Move>>,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    /// What the search learnt about the static evaluation's errors.
    pub correction: CorrectionHistory,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            butterfly: vec![0; 2 * 64 * 64],
            capture: vec![0; 12 * 64 * 6],
            continuation: vec![0; 12 * 64 * 12 * 64],
            counter: vec![None; 12 * 64],
            killers: [[None; 2]; MAX_PLY + 1],
            correction: CorrectionHistory::default(),
        }
    }
}

fn butterfly_index(color: Color, m: Move) -> usize {
    butterfly_slot(color, m.from().unwrap_or(Square::A1), m.to())
}

fn butterfly_slot(color: Color, from: Square, to: Square) -> usize {
    color as usize * 4096 + from as usize * 64 + to as usize
}

/// A quiet move's continuation key and butterfly index, a plain move's read
/// from one match on its kind (each accessor of `Move` matches again): the
/// move orderer asks them of every quiet move it generates.
fn quiet_keys(color: Color, m: Move) -> (PieceTo, usize) {
    match m {
        Move::Normal { role, from, to, .. } => {
            (PieceTo { piece: piece_index(role.of(color)), to: to as usize }, butterfly_slot(color, from, to))
        }
        _ => (PieceTo::of(color, m), butterfly_index(color, m)),
    }
}

fn capture_index(color: Color, m: Move) -> usize {
    let captured = m.capture().map_or(0, |r| r as usize - 1);
    (piece_index(m.role().of(color)) * 64 + m.to() as usize) * 6 + captured
}

fn continuation_index(prev: PieceTo, cur: PieceTo) -> usize {
    ((prev.piece * 64 + prev.to) * 12 + cur.piece) * 64 + cur.to
}

impl Histories {
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    pub fn quiet_score(&self, color: Color, m: Move, prev: [Option<PieceTo>; 2]) -> i32 {
        let (cur, butterfly) = quiet_keys(color, m);
        let mut score = self.butterfly[butterfly] as i32;
        if let Some(p) = prev[0] {
            score += self.continuation[continuation_index(p, cur)] as i32;
        }
        if let Some(p) = prev[1] {
            score += self.continuation[continuation_index(p, cur)] as i32;
        }
        score
    }

    pub fn capture_score(&self, color: Color, m: Move) -> i32 {
        self.capture[capture_index(color, m)] as i32
    }

    pub fn update_quiet(&mut self, color: Color, m: Move, prev: [Option<PieceTo>; 2], bonus: i32) {
        let (cur, butterfly) = quiet_keys(color, m);
        gravity(&mut self.butterfly[butterfly], bonus);
        for p in prev.into_iter().flatten() {
            gravity(&mut self.continuation[continuation_index(p, cur)], bonus);
        }
    }

    pub fn update_capture(&mut self, color: Color, m: Move, bonus: i32) {
        gravity(&mut self.capture[capture_index(color, m)], bonus);
    }

    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply.min(MAX_PLY)];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    pub fn clear_killers(&mut self, ply: usize) {
        if ply <= MAX_PLY {
            self.killers[ply] = [None; 2];
        }
    }

    pub fn counter(&self, prev: Option<PieceTo>) -> Option<Move> {
        prev.and_then(|p| self.counter[p.piece * 64 + p.to])
    }

    pub fn set_counter(&mut self, prev: Option<PieceTo>, m: Move) {
        if let Some(p) = prev {
            self.counter[p.piece * 64 + p.to] = Some(m);
        }
    }
}

/// Whether a move is quiet (neither capture nor promotion).
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && !m.is_promotion()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_saturates() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 1_800);
        }
        assert!((e as i32) <= HISTORY_MAX && (e as i32) > HISTORY_MAX - 1_000);
        for _ in 0..1000 {
            gravity(&mut e, -1_800);
        }
        assert!((e as i32) >= -HISTORY_MAX);
    }

    /// The quiet score's fast path reads the same entries as the general
    /// one (`PieceTo::of`, `butterfly_index`), for every quiet move of
    /// positions with both colours to move and castling, after updates.
    #[test]
    fn quiet_scores_read_the_entries_the_updates_wrote() {
        use shakmaty::fen::Fen;
        use shakmaty::{CastlingMode, Chess, Position};
        let mut hist = Histories::default();
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        ];
        let prevs = [
            [None, None],
            [Some(PieceTo { piece: 3, to: 20 }), None],
            [Some(PieceTo { piece: 7, to: 45 }), Some(PieceTo { piece: 11, to: 62 })],
        ];
        for (i, fen) in fens.iter().enumerate() {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let color = pos.turn();
            let quiet: Vec<Move> = pos.legal_moves().into_iter().filter(|m| is_quiet(*m)).collect();
            assert!(quiet.iter().any(|m| m.is_castle()), "{fen}");
            for (j, &m) in quiet.iter().enumerate() {
                hist.update_quiet(color, m, prevs[j % 3], 50 * (j as i32 + 1) * if i == 0 { 1 } else { -1 });
            }
            for &m in &quiet {
                for prev in prevs {
                    let cur = PieceTo::of(color, m);
                    let mut expected = hist.butterfly[butterfly_index(color, m)] as i32;
                    for p in prev.into_iter().flatten() {
                        expected += hist.continuation[continuation_index(p, cur)] as i32;
                    }
                    assert_eq!(hist.quiet_score(color, m, prev), expected, "{fen}: {m}");
                }
            }
        }
    }
}

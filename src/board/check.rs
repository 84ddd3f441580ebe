//! Whether a legal move gives check, from the position before it: the search
//! decides to prune a late quiet move (which it never does to a check)
//! before paying for the move's make and unmake.

use shakmaty::attacks::{aligned, attacks, between, bishop_attacks, knight_attacks, pawn_attacks, ray, rook_attacks};
use shakmaty::{Bitboard, Chess, Move, Piece, Position, Role, Square};

/// What tells cheaply whether each move of one position gives check,
/// worked out once for the position (Stockfish's check squares): the
/// squares from which each of our piece kinds would attack the opponent's
/// king, and our pieces that alone stand between it and one of our
/// sliders. A node asks it of every move before deciding to prune.
pub struct CheckInfo {
    king: Option<Square>,
    /// By role (pawn first), with today's occupancy.
    direct: [Bitboard; 6],
    /// Our pieces whose leaving the line uncovers a check.
    discoverers: Bitboard,
}

impl CheckInfo {
    pub fn new(pos: &Chess) -> CheckInfo {
        let board = pos.board();
        let us = pos.turn();
        let Some(king) = board.king_of(!us) else {
            return CheckInfo { king: None, direct: [Bitboard::EMPTY; 6], discoverers: Bitboard::EMPTY };
        };
        let occupied = board.occupied();
        let (diagonal, straight) = (bishop_attacks(king, occupied), rook_attacks(king, occupied));
        let direct =
            [pawn_attacks(!us, king), knight_attacks(king), diagonal, straight, diagonal | straight, Bitboard::EMPTY];
        let ours = board.by_color(us);
        let snipers = ours
            & ((bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
                | (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()));
        let mut discoverers = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(king, sniper) & occupied;
            if blockers.count() == 1 && blockers.is_subset(ours) {
                discoverers |= blockers;
            }
        }
        CheckInfo { king: Some(king), direct, discoverers }
    }

    /// [`gives_check`] for a legal move of the position this was made for.
    /// A plain move (no promotion) checks directly when its piece lands on
    /// one of its check squares: the square it leaves cannot open a line
    /// from where it lands, since the opponent's king is not in check now.
    /// It checks by discovery when it leaves the line of a slider it alone
    /// blocked. Other moves take [`gives_check`]'s way.
    pub fn gives_check(&self, pos: &Chess, m: Move) -> bool {
        match (m, self.king) {
            (Move::Normal { role, from, to, promotion: None, .. }, Some(king)) => {
                self.direct[role_index(role)].contains(to)
                    || (self.discoverers.contains(from) && !aligned(from, to, king))
            }
            _ => gives_check(pos, m),
        }
    }
}

fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// True if playing the legal move `m` in `pos` puts the opponent in check.
/// Exact for every move: normal moves, captures and promotions from the
/// attack sets; castling and en passant (two pieces move) by playing them.
pub fn gives_check(pos: &Chess, m: Move) -> bool {
    let (from, to, role) = match m {
        Move::Normal { from, to, promotion, role, .. } => (from, to, promotion.unwrap_or(role)),
        Move::EnPassant { .. } | Move::Castle { .. } | Move::Put { .. } => {
            let mut after = pos.clone();
            after.play_unchecked(m);
            return after.is_check();
        }
    };
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
    // Direct: the moved (or promoted) piece attacks the king from `to`.
    if attacks(to, Piece { color: us, role }, occupied).contains(king) {
        return true;
    }
    // Discovered: one of our sliders sees the king once `from` is empty. The
    // opponent's king is not in check before our move, so such a slider can
    // only be behind `from`, on the line from the king through it; a piece
    // taken on `to` is the opponent's, and `to` is ours after the move.
    if ray(king, from).is_empty() {
        return false;
    }
    let ours = board.by_color(us) & !Bitboard::from(from);
    let sliders = if from.rank() == king.rank() || from.file() == king.file() {
        rook_attacks(king, occupied) & board.rooks_and_queens()
    } else {
        bishop_attacks(king, occupied) & board.bishops_and_queens()
    };
    !(sliders & ours).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    /// Every legal move of positions full of checks, pins, promotions,
    /// castling and en passant, down to depth 3: the answer is the one of
    /// playing the move.
    #[test]
    fn agrees_with_playing_the_move() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "4k3/8/8/3pP3/8/8/8/R3K2R w KQ d6 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K2B b - d3 0 1",
            "4k3/1P6/8/8/8/8/8/4K2R w K - 0 1",
            "3r4/8/8/8/8/8/3B4/3K2k1 w - - 0 1",
            // Discoveries along a file, a diagonal and a rank, a slider on the
            // far side of the king, and a blocked line.
            "4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1",
            "7k/8/8/8/3N4/8/1B6/6K1 w - - 0 1",
            "R2Nk3/8/8/8/8/8/8/6K1 w - - 0 1",
            "4k3/4n3/8/8/4B3/8/4R3/4K3 b - - 0 1",
            "1q2k3/8/8/8/8/2P5/1P6/K7 b - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let mut stack = vec![(pos, 3)];
            while let Some((pos, depth)) = stack.pop() {
                let info = CheckInfo::new(&pos);
                for m in pos.legal_moves() {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    assert_eq!(gives_check(&pos, m), after.is_check(), "{fen}: {m}");
                    assert_eq!(info.gives_check(&pos, m), after.is_check(), "check squares, {fen}: {m}");
                    checked += 1;
                    if depth > 1 {
                        stack.push((after, depth - 1));
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }
}

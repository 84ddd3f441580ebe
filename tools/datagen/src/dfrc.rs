//! Double Fischer Random starting positions, as openings for ordinary
//! chess: each side's back rank drawn on its own from the 960 Chess960
//! arrangements, pawns on their usual rank, and no castling rights (so the
//! games, and every recorded position, follow the standard rules that the
//! engines and the training data know). A lever of data diversity: the
//! openings reach piece placements no book line does.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Role};
use tessera::rng::Rng;

/// A Chess960 back rank, files a to h: bishops on squares of opposite
/// colours, the queen and knights anywhere left, the king between the rooks.
pub fn back_rank(rng: &mut Rng) -> [Role; 8] {
    let mut rank: [Option<Role>; 8] = [None; 8];
    rank[2 * rng.below(4)] = Some(Role::Bishop);
    rank[2 * rng.below(4) + 1] = Some(Role::Bishop);
    for role in [Role::Queen, Role::Knight, Role::Knight] {
        let free: Vec<usize> = (0..8).filter(|&f| rank[f].is_none()).collect();
        rank[free[rng.below(free.len())]] = Some(role);
    }
    // The three files left take rook, king, rook in order.
    let free: Vec<usize> = (0..8).filter(|&f| rank[f].is_none()).collect();
    for (file, role) in free.into_iter().zip([Role::Rook, Role::King, Role::Rook]) {
        rank[file] = Some(role);
    }
    rank.map(|r| r.expect("eight pieces placed"))
}

/// A random Double Fischer Random start: White's and Black's back ranks
/// drawn independently, White to move, no castling rights.
pub fn dfrc_start(rng: &mut Rng) -> Chess {
    let row = |rank: [Role; 8], upper: bool| -> String {
        rank.iter().map(|r| if upper { r.upper_char() } else { r.char() }).collect()
    };
    let (white, black) = (back_rank(rng), back_rank(rng));
    let fen = format!("{}/pppppppp/8/8/8/8/PPPPPPPP/{} w - - 0 1", row(black, false), row(white, true));
    fen.parse::<Fen>()
        .expect("a well-formed FEN")
        .into_position(CastlingMode::Standard)
        .expect("a legal position: kings on the back ranks, eight pawns each")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Color, File, Position, Rank, Square};
    use std::collections::HashSet;

    #[test]
    fn back_ranks_follow_the_chess960_rules_and_cover_all_960() {
        let mut rng = Rng::new(7);
        let mut seen = HashSet::new();
        for _ in 0..40_000 {
            let rank = back_rank(&mut rng);
            let files = |role: Role| (0..8).filter(move |&f| rank[f] == role);
            let bishops: Vec<usize> = files(Role::Bishop).collect();
            assert_eq!(bishops.len(), 2);
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "{rank:?}");
            let rooks: Vec<usize> = files(Role::Rook).collect();
            let king = files(Role::King).next().unwrap();
            assert!(rooks.len() == 2 && rooks[0] < king && king < rooks[1], "{rank:?}");
            assert_eq!(files(Role::Queen).count(), 1);
            assert_eq!(files(Role::Knight).count(), 2);
            seen.insert(rank);
        }
        assert_eq!(seen.len(), 960);
    }

    #[test]
    fn starts_are_ordinary_positions_with_independent_sides_and_no_castling() {
        let mut rng = Rng::new(3);
        let mut mirrored = 0;
        for _ in 0..200 {
            let pos = dfrc_start(&mut rng);
            assert_eq!(pos.turn(), Color::White);
            assert!(pos.castles().is_empty());
            // Behind a full row of pawns only pawns and knights can move.
            let moves = pos.legal_moves();
            assert_eq!(moves.iter().filter(|m| m.role() == Role::Pawn).count(), 16);
            assert!(moves.iter().all(|m| matches!(m.role(), Role::Pawn | Role::Knight)));
            let rank_roles = |rank: Rank| File::ALL.map(|f| pos.board().role_at(Square::from_coords(f, rank)));
            mirrored += (rank_roles(Rank::First) == rank_roles(Rank::Eighth)) as usize;
        }
        // Drawn independently: the sides match about once in 960 draws.
        assert!(mirrored <= 2, "{mirrored}");
    }
}

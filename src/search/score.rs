//! Score conventions: centipawns, with mates encoded near `MATE`.

pub const MAX_PLY: usize = 128;
pub const INFINITE: i32 = 32_000;
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// A tablebase win (less the distance from the root): above every
/// evaluation (clamped to ±20,000), below every mate.
pub const TB_WIN: i32 = 25_000;
/// Scores beyond this are tablebase wins or mates: stored relative to the node.
const DECISIVE: i32 = TB_WIN - MAX_PLY as i32;

pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// A mate or a tablebase win or loss.
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= DECISIVE
}

/// Mate and tablebase scores are stored relative to the node, not the root, so a table
/// entry stays right when reached at another ply.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= DECISIVE {
        score + ply as i32
    } else if score <= -DECISIVE {
        score - ply as i32
    } else {
        score
    }
}

pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= DECISIVE {
        score - ply as i32
    } else if score <= -DECISIVE {
        score + ply as i32
    } else {
        score
    }
}

/// Moves to mate (positive: we mate; negative: we are mated), if a mate score.
pub fn mate_in_moves(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}

/// The UCI form: `cp N` or `mate N`.
pub fn uci_score(score: i32) -> String {
    match mate_in_moves(score) {
        Some(moves) => format!("mate {moves}"),
        None => format!("cp {score}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_round_trip_through_the_table() {
        for ply in [0, 3, 40] {
            for s in [MATE - 5, -MATE + 8, 123, -77] {
                assert_eq!(from_tt(to_tt(s, ply), ply), s);
            }
        }
    }

    #[test]
    fn mate_distance_in_moves() {
        assert_eq!(uci_score(MATE - 1), "mate 1");
        assert_eq!(uci_score(MATE - 3), "mate 2");
        assert_eq!(uci_score(-MATE + 2), "mate -1");
        assert_eq!(uci_score(35), "cp 35");
    }
}

//! Sampling games from PGN (plain or zstd, the Lichess database format): one
//! position per game, chosen uniformly among the positions at ply 20 or
//! later, as in the thesis. The choice depends only on the seed and the
//! game's index, so a rerun samples the same positions.

use std::path::Path;

use shakmaty::{Chess, Move, Position};

/// Positions before this ply are never sampled.
pub const MIN_PLY: usize = 20;

/// A sampled position, the move played from it, and the game's result
/// from white's view (0 black won, 1 draw, 2 white won).
#[derive(Clone, Debug)]
pub struct Sampled {
    pub pos: Chess,
    pub played: Move,
    pub result: u8,
    /// The game's index in its file.
    pub game: u64,
    /// The game's identity (tags and moves, `tessera_data::pgn::Game`).
    pub identity: u64,
}

/// The PQR triplet of a sample as a text line: P, the move played, and
/// another legal move chosen at random (`None` when there is no other).
pub fn pqr_line(s: &Sampled, seed: u64) -> Option<String> {
    let others: Vec<Move> = s.pos.legal_moves().into_iter().filter(|m| *m != s.played).collect();
    if others.is_empty() {
        return None;
    }
    let other = others[tessera::rng::Rng::for_item(seed ^ 0x5051_5200, s.game).below(others.len())];
    let uci = |m: Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string();
    let fen = shakmaty::fen::Fen::from_position(&s.pos, shakmaty::EnPassantMode::Legal);
    Some(format!("{fen} | {} | {}", uci(s.played), uci(other)))
}

/// Calls `each` with `per_game` sampled positions of each usable game of
/// `path` (read by `tessera_data::pgn`): finished, from the standard start,
/// every move legal, longer than [`MIN_PLY`]. The plies from [`MIN_PLY`] on
/// are cut into `per_game` runs of (nearly) equal length and one is drawn
/// from each (`per_game` 1: one ply drawn from them all, the thesis's
/// sampling); `per_game` 0 takes every position from [`MIN_PLY`] on.
/// Returns how many games the file holds.
pub fn sample(path: &Path, seed: u64, per_game: usize, each: &mut dyn FnMut(Sampled)) -> Result<u64, String> {
    tessera_data::pgn::read_games(path, &mut |game| {
        let (Some(result), false, true) = (game.result, game.set_up, game.complete) else { return };
        if game.moves.len() <= MIN_PLY {
            return;
        }
        // A position with a move played from it: plies MIN_PLY..len.
        let choices = game.moves.len() - MIN_PLY;
        let identity = game.identity;
        if per_game == 0 {
            for (pos, played) in game.positions().skip(MIN_PLY) {
                each(Sampled { pos, played, result, game: game.index, identity });
            }
            return;
        }
        let mut rng = tessera::rng::Rng::for_item(seed, game.index);
        let runs = per_game.max(1);
        for run in 0..runs {
            let (low, high) = (run * choices / runs, (run + 1) * choices / runs);
            if high > low {
                let ply = MIN_PLY + low + rng.below(high - low);
                each(Sampled {
                    pos: game.position_after(ply),
                    played: game.moves[ply],
                    result,
                    game: game.index,
                    identity,
                });
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(result: &str, moves: usize) -> String {
        // Knights out and back: always legal, never repeats thrice within 4 plies.
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let mut text = format!("[Event \"t\"]\n[Result \"{result}\"]\n\n");
        for i in 0..moves {
            if i % 2 == 0 {
                text += &format!("{}. ", i / 2 + 1);
            }
            text += cycle[i % 4];
            text += " ";
        }
        text + result + "\n\n"
    }

    #[test]
    fn one_position_per_game_from_ply_20_reproducibly() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.pgn");
        let mut text = String::new();
        for i in 0..40 {
            text += &game(["1-0", "0-1", "1/2-1/2"][i % 3], 30 + i);
        }
        text += &game("*", 40); // unfinished: skipped
        text += &game("1-0", 20); // too short: skipped
        text += "[Result \"1-0\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 1-0\n\n"; // set-up start
        std::fs::write(&path, &text).unwrap();
        let mut first = Vec::new();
        let games = sample(&path, 7, 1, &mut |s| first.push(s)).unwrap();
        assert_eq!(games, 43);
        assert_eq!(first.len(), 40);
        for s in &first {
            let ply = (s.pos.fullmoves().get() as usize - 1) * 2 + s.pos.turn().is_black() as usize;
            assert!(ply >= MIN_PLY && ply < 30 + s.game as usize, "{ply} in game {}", s.game);
            assert_eq!(s.result, [2, 0, 1][s.game as usize % 3]);
            assert!(s.pos.is_legal(s.played));
        }
        let mut again = Vec::new();
        sample(&path, 7, 1, &mut |s| again.push(s)).unwrap();
        assert!(first.iter().zip(&again).all(|(a, b)| a.pos == b.pos));
        for s in &first {
            let line = pqr_line(s, 7).unwrap();
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(fields.len(), 3);
            assert_ne!(fields[1], fields[2]);
        }
        let mut other = Vec::new();
        sample(&path, 8, 1, &mut |s| other.push(s)).unwrap();
        assert!(first.iter().zip(&other).any(|(a, b)| a.pos != b.pos), "another seed samples other plies");
        // Several a game: one from each run of the plies, in order, distinct.
        let mut four = Vec::new();
        sample(&path, 7, 4, &mut |s| four.push(s)).unwrap();
        assert_eq!(four.len(), 40 * 4);
        for (g, chunk) in four.chunks(4).enumerate() {
            let plies: Vec<usize> = chunk
                .iter()
                .map(|s| (s.pos.fullmoves().get() as usize - 1) * 2 + s.pos.turn().is_black() as usize)
                .collect();
            let len = 30 + chunk[0].game as usize;
            assert!(plies.windows(2).all(|w| w[0] < w[1]), "game {g}: {plies:?}");
            for (run, ply) in plies.iter().enumerate() {
                let (low, high) = (MIN_PLY + run * (len - MIN_PLY) / 4, MIN_PLY + (run + 1) * (len - MIN_PLY) / 4);
                assert!((low..high).contains(ply), "game {g}, run {run}: {ply} not in {low}..{high}");
            }
        }
        // Every position from ply 20 on: one per ply, in order.
        let mut every = Vec::new();
        sample(&path, 7, 0, &mut |s| every.push(s)).unwrap();
        assert_eq!(every.len(), (0..40).map(|i| 30 + i - MIN_PLY).sum::<usize>());
        assert!(every.iter().all(|s| s.pos.is_legal(s.played)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_shared_lichess_games() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/lichess_user_games_3970.pgn");
        if !path.exists() {
            tessera::testing::skip("shared-data", &format!("{} is absent", path.display()));
            return;
        }
        let mut n = 0;
        let games = sample(&path, 1, 1, &mut |_| n += 1).unwrap();
        assert_eq!(games, 3970);
        assert!(n > 3000 && n < 3970, "{n} of {games} games sampled");
    }
}

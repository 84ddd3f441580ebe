//! Self-play between two instances of any UCI engine (Debian's stockfish,
//! Tessera itself): games from book openings plus random plies, a node
//! budget per move, the shared README's adjudication, and every position
//! whose side to move is not in check and whose engine move is quiet
//! recorded with the engine's score (white's view) and the game's result.
//!
//! Diversity: with `random_move_prob` the move played is a random legal one
//! instead of the engine's (the position before it is still recorded with
//! the engine's score); with `multipv_pick` K > 1 the engine reports K lines
//! and the move is drawn among those within `multipv_margin` of the best.
//! A label engine, when given, re-scores every kept position (for games
//! between weak or strength-limited players). `one_per_game` keeps one
//! position per game, as the thesis sampled.
//!
//! Each game starts with `ucinewgame` for both engines, so with one search
//! thread a game depends only on the seed, its index and the budgets.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use pgn_reader::{Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::label::{Labeller, UciLabeller};
use crate::record::Record;
use crate::rng::Rng;
use crate::selfplay::SelfPlayConfig;
use crate::uci::{Score, UciEngine};

#[derive(Clone, Debug)]
pub struct UciSelfPlayConfig {
    /// Node budget, adjudication and ply cap (`max_opening_score` unused).
    pub game: SelfPlayConfig,
    /// Random legal plies played after the book line.
    pub random_plies: usize,
    /// Chance that a move is a uniformly random legal one.
    pub random_move_prob: f64,
    /// MultiPV lines to draw the move from (1: the engine's move).
    pub multipv_pick: usize,
    /// Lines scored more than this below the best are not drawn.
    pub multipv_margin: i32,
    /// Keep one random recorded position per game.
    pub one_per_game: bool,
}

impl Default for UciSelfPlayConfig {
    fn default() -> Self {
        UciSelfPlayConfig {
            game: SelfPlayConfig::default(),
            random_plies: 0,
            random_move_prob: 0.0,
            multipv_pick: 1,
            multipv_margin: 50,
            one_per_game: false,
        }
    }
}

/// The engines of one worker: one instance per side, and the optional
/// labeller.
pub struct Players {
    pub white: UciEngine,
    pub black: UciEngine,
    pub label: Option<UciLabeller>,
}

impl Players {
    pub fn start(
        engine: &Path,
        options: &[(String, String)],
        multipv: usize,
        label: Option<(&Path, u64)>,
    ) -> Result<Players, String> {
        let mut options = options.to_vec();
        if multipv > 1 {
            options.push(("MultiPV".into(), multipv.to_string()));
        }
        Ok(Players {
            white: UciEngine::start(engine, &options)?,
            black: UciEngine::start(engine, &options)?,
            label: label
                .map(|(path, nodes)| UciLabeller::start(path, crate::label::Budget::Nodes(nodes)))
                .transpose()?,
        })
    }
}

/// Opening positions from an EPD file (the first four fields of each line)
/// or a PGN file (the position after each game's moves), plain or zstd.
pub fn load_book(path: &Path) -> Result<Vec<Chess>, String> {
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let name = path.to_string_lossy().to_lowercase();
    let mut positions = Vec::new();
    if name.ends_with(".pgn") || name.ends_with(".pgn.zst") {
        let mut visitor = BookVisitor;
        let mut reader = Reader::new(crate::store::open_text(path).map_err(io)?);
        while let Some(pos) = reader.read_game(&mut visitor).map_err(io)? {
            positions.extend(pos);
        }
    } else {
        use std::io::BufRead;
        for (n, line) in crate::store::open_text(path).map_err(io)?.lines().enumerate() {
            let line = line.map_err(io)?;
            let fields: Vec<&str> = line.split_whitespace().take(4).collect();
            if fields.is_empty() {
                continue;
            }
            let fen = format!("{} 0 1", fields.join(" "));
            let pos = fen
                .parse::<Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).map_err(|e| e.to_string()))
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            positions.push(pos);
        }
    }
    positions.retain(|p| !p.legal_moves().is_empty());
    if positions.is_empty() {
        return Err(format!("{}: no playable opening in the book", path.display()));
    }
    Ok(positions)
}

struct BookVisitor;

impl Visitor for BookVisitor {
    type Tags = ();
    type Movetext = Option<Chess>;
    type Output = Option<Chess>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<Self::Output, Option<Chess>> {
        ControlFlow::Continue(Some(Chess::default()))
    }

    fn san(&mut self, pos: &mut Option<Chess>, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if let Some(p) = pos {
            match san_plus.san.to_move(p) {
                Ok(m) => p.play_unchecked(m),
                Err(_) => *pos = None,
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, pos: Option<Chess>) -> Self::Output {
        pos
    }
}

/// Scores at least this (centipawns) count as winning for adjudication;
/// mates always do.
fn white_view(score: Score, turn: Color) -> Score {
    match (score, turn) {
        (s, Color::White) => s,
        (Score::Cp(cp), Color::Black) => Score::Cp(-cp),
        (Score::Mate(n), Color::Black) => Score::Mate(-n),
    }
}

fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Plays game `index` of the run seeded `seed`; returns its records.
pub fn play_game(
    seed: u64,
    index: u64,
    config: &UciSelfPlayConfig,
    book: &[Chess],
    players: &mut Players,
) -> Result<Vec<Record>, String> {
    let mut rng = Rng::for_item(seed, index);
    let chance = |rng: &mut Rng, p: f64| p > 0.0 && ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p;
    // The opening: a book line (or the start) and random plies, redrawn if
    // they end the game.
    let (start, mut pos, mut moves) = 'opening: {
        for _ in 0..100 {
            let start = if book.is_empty() { Chess::default() } else { book[rng.below(book.len())].clone() };
            let mut pos = start.clone();
            let mut moves = Vec::new();
            for _ in 0..config.random_plies {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                moves.push(uci(m));
                pos.play_unchecked(m);
            }
            if !pos.legal_moves().is_empty() {
                break 'opening (start, pos, moves);
            }
        }
        return Err("no playable opening after 100 tries".into());
    };
    let start_fen = Fen::from_position(&start, EnPassantMode::Legal).to_string();
    players.white.new_game()?;
    players.black.new_game()?;

    let game = &config.game;
    let mut kept: Vec<(Chess, i32)> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let (mut winning, mut quiet) = (0usize, 0usize);
    let mut ply = 0usize;
    // From white's view: 0 black won, 1 draw, 2 white won.
    let result = loop {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break if pos.is_check() { if pos.turn() == Color::White { 0 } else { 2 } } else { 1 };
        }
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let repeats = seen.entry(key).or_insert(0);
        *repeats += 1;
        if *repeats >= 3 || pos.halfmoves() >= 100 || pos.is_insufficient_material() || ply >= game.max_plies {
            break 1;
        }
        let engine = if pos.turn() == Color::White { &mut players.white } else { &mut players.black };
        let position = if moves.is_empty() {
            format!("fen {start_fen}")
        } else {
            format!("fen {start_fen} moves {}", moves.join(" "))
        };
        let report = engine.search(&position, &format!("nodes {}", game.nodes))?;
        let name = engine.name.clone();
        let best = report
            .best
            .as_deref()
            .and_then(|m| m.parse::<UciMove>().ok())
            .and_then(|m| m.to_move(&pos).ok())
            .ok_or_else(|| format!("{name} gave no legal best move at ply {ply} of game {index}"))?;
        // A search stopped by its node budget before finishing its first
        // iteration may report a move and no score: the move is played, the
        // position is not recorded, and adjudication starts counting again.
        let white = report.score().map(|s| white_view(s, pos.turn()));
        if let Some(Score::Cp(cp)) = white
            && !pos.is_check()
            && !best.is_capture()
            && !best.is_promotion()
        {
            kept.push((pos.clone(), cp));
        }
        // Adjudication on the mover's score.
        let (magnitude, white_ahead) = match white {
            Some(Score::Cp(cp)) => (cp.abs(), cp > 0),
            Some(Score::Mate(n)) => (i32::MAX, n > 0),
            None => (game.win_score - 1, false),
        };
        winning = if magnitude >= game.win_score { winning + 1 } else { 0 };
        quiet = if ply >= game.draw_after && magnitude <= game.draw_score && white.is_some() { quiet + 1 } else { 0 };
        if winning >= game.win_plies {
            break if white_ahead { 2 } else { 0 };
        }
        if quiet >= game.draw_plies {
            break 1;
        }
        let played = if chance(&mut rng, config.random_move_prob) {
            legal[rng.below(legal.len())]
        } else if config.multipv_pick > 1 {
            pick_line(&report, &pos, config.multipv_margin, &mut rng).unwrap_or(best)
        } else {
            best
        };
        moves.push(uci(played));
        pos.play_unchecked(played);
        ply += 1;
    };

    if config.one_per_game && !kept.is_empty() {
        let one = kept.swap_remove(rng.below(kept.len()));
        kept = vec![one];
    }
    let mut records = Vec::with_capacity(kept.len());
    for (pos, cp) in kept {
        let score = match &mut players.label {
            None => cp,
            Some(labeller) => {
                let label = labeller.label(&pos)?;
                // A mate, or a best move that captures: not a quiet target.
                let (Some(s), Some(m)) = (label.score, label.best) else { continue };
                if m.is_capture() || m.is_promotion() {
                    continue;
                }
                if pos.turn() == Color::White { s } else { -s }
            }
        };
        records.push(Record { pos, score: score.clamp(-32767, 32767) as i16, result });
    }
    Ok(records)
}

/// A move drawn uniformly among the MultiPV lines scored within `margin` of
/// the best (mates only match mates of the same sign).
fn pick_line(report: &crate::uci::Report, pos: &Chess, margin: i32, rng: &mut Rng) -> Option<Move> {
    let best = report.score()?;
    let close = |s: Score| match (best, s) {
        (Score::Cp(b), Score::Cp(c)) => c >= b - margin,
        (Score::Mate(b), Score::Mate(c)) => b.signum() == c.signum(),
        (Score::Mate(b), Score::Cp(_)) => b < 0,
        (Score::Cp(_), Score::Mate(c)) => c > 0,
    };
    let candidates: Vec<Move> = report
        .lines
        .iter()
        .flatten()
        .filter(|(s, _)| close(*s))
        .filter_map(|(_, m)| m.parse::<UciMove>().ok()?.to_move(pos).ok())
        .collect();
    (!candidates.is_empty()).then(|| candidates[rng.below(candidates.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::Report;

    #[test]
    fn books_of_both_kinds_load() {
        let dir = std::env::temp_dir().join(format!("tessera-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("b.epd");
        std::fs::write(&epd, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"x\";\n\n").unwrap();
        assert_eq!(load_book(&epd).unwrap().len(), 1);
        let pgn = dir.join("b.pgn");
        std::fs::write(&pgn, "[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n[Result \"*\"]\n\n1. d4 *\n").unwrap();
        let book = load_book(&pgn).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].turn(), Color::Black);
        std::fs::write(&epd, "not a position\n").unwrap();
        assert!(load_book(&epd).unwrap_err().contains("b.epd:1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn multipv_picks_stay_within_the_margin() {
        let pos = Chess::default();
        let report = Report {
            best: Some("e2e4".into()),
            lines: vec![
                Some((Score::Cp(30), "e2e4".into())),
                Some((Score::Cp(10), "d2d4".into())),
                Some((Score::Cp(-80), "g2g4".into())),
            ],
        };
        let mut rng = Rng::new(1);
        let picks: std::collections::HashSet<String> =
            (0..50).map(|_| uci(pick_line(&report, &pos, 50, &mut rng).unwrap())).collect();
        assert_eq!(picks, ["e2e4", "d2d4"].into_iter().map(String::from).collect());
    }
}

//! Self-play games for training data, with any [`Player`]: an opening (a
//! book entry or the start position, then random plies), a node budget per
//! move, adjudication, and the quiet positions of the game recorded with a
//! score and, once the game ends, its result.
//!
//! Diversity, for data that covers what real games reach: Double Fischer
//! Random starting arrangements (`dfrc`); random plies after the book line;
//! `random_move_prob`, a uniformly random legal move instead of the
//! engine's (the position before it is still recorded with the engine's
//! score); `multipv_pick` K > 1, the move drawn among the engine's K best
//! lines within `multipv_margin` of the best.
//!
//! Sampling: every quiet position from `min_ply` on, or with `per_game` K
//! only K of them, spread over the game (the game's candidates cut into K
//! runs of equal length, one drawn from each; K = 1 is the thesis's one
//! position per game). Cheap games with few positions each give many
//! distinct games per CPU-hour. `skip_capture` leaves out, before
//! sampling and labelling, the positions with a winning capture that the
//! trainer's filter drops anyway. A labeller, when given, re-scores the
//! kept positions with a deeper search (e.g. Stockfish at depth 9); a
//! position it scores as a mate or whose best move it finds to be a
//! capture or a promotion is dropped. With Syzygy tables (`tablebases`), a
//! game ends where it enters a position they hold, with their result: the
//! long endings of decided games (a tenth of the records and of the CPU with
//! the 3–4-piece tables) are not played or labelled. A game depends only on
//! the seed, its index and the budgets.

use std::collections::HashMap;
use std::sync::Arc;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};
use tessera::board::Board;
use tessera::search::Search;
use tessera::search::syzygy::{Tablebases, Wdl};

use crate::dfrc::dfrc_start;
use crate::label::{Budget, Labeller, search_within};
use crate::player::Player;
use crate::uci::{Report, Score};
use tessera::rng::Rng;
use tessera_data::filter::has_winning_capture;
use tessera_data::formats::{Entry, NO_SCORE};
use tessera_data::record::Record;

#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    /// Nodes per move.
    pub nodes: u64,
    /// Games start from Double Fischer Random arrangements ([`dfrc_start`])
    /// instead of the book or the start position.
    pub dfrc: bool,
    /// Random legal plies after the book line: between the two, inclusive.
    pub random_plies: (usize, usize),
    /// Openings whose score (at `nodes`) exceeds this (centipawns) are drawn again.
    pub max_opening_score: Option<i32>,
    /// Chance that a move is a uniformly random legal one.
    pub random_move_prob: f64,
    /// MultiPV lines to draw the move from (1: the engine's move).
    pub multipv_pick: usize,
    /// Lines scored more than this below the best are not drawn.
    pub multipv_margin: i32,
    /// Positions kept per game (`None`: every candidate).
    pub per_game: Option<usize>,
    /// Positions before this ply (counted from the start of chess, so a
    /// book line's plies count) are not recorded.
    pub min_ply: usize,
    /// Positions where the side to move has a winning capture
    /// ([`has_winning_capture`]) are not kept: the trainer's default filter
    /// drops them, so a labeller's time on them is lost.
    pub skip_capture: bool,
    /// Win adjudication: |score| at least this for `win_plies` plies in a row.
    pub win_score: i32,
    pub win_plies: usize,
    /// Draw adjudication: |score| at most this for `draw_plies` plies after `draw_after`.
    pub draw_score: i32,
    pub draw_plies: usize,
    pub draw_after: usize,
    /// Longest game, in plies after the opening; longer games are draws.
    pub max_plies: usize,
    /// Tables that end a game where it enters a position they hold.
    pub tablebases: Option<Arc<Tablebases>>,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            nodes: 5000,
            dfrc: false,
            random_plies: (8, 9),
            max_opening_score: Some(300),
            random_move_prob: 0.0,
            multipv_pick: 1,
            multipv_margin: 50,
            per_game: None,
            min_ply: 16,
            skip_capture: false,
            win_score: 1500,
            win_plies: 6,
            draw_score: 8,
            draw_plies: 10,
            draw_after: 80,
            max_plies: 400,
            tablebases: None,
        }
    }
}

/// What a game gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecords {
    pub records: Vec<Record>,
    /// The whole game after its opening, a position a ply with the move
    /// played from it: the kept positions with their scores, the others
    /// with [`NO_SCORE`] (for the formats that store games as moves).
    pub game: Vec<Entry>,
    /// Plies played by the engines (not the opening).
    pub plies: usize,
    /// From white's view: 0 black won, 1 draw, 2 white won.
    pub result: u8,
}

/// A position's ply counted from the start of chess.
pub fn ply_of(pos: &Chess) -> usize {
    (pos.fullmoves().get() as usize - 1) * 2 + pos.turn().is_black() as usize
}

fn chance(rng: &mut Rng, p: f64) -> bool {
    p > 0.0 && ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
}

/// The book entry (or the start) and random plies, redrawn when they end
/// the game or the player scores them beyond the bound.
fn opening(
    rng: &mut Rng,
    config: &SelfPlayConfig,
    book: &[Chess],
    player: &mut dyn Player,
) -> Result<(Chess, Vec<Move>), String> {
    let (low, high) = config.random_plies;
    for _ in 0..100 {
        let start = if config.dfrc {
            dfrc_start(rng)
        } else if book.is_empty() {
            Chess::default()
        } else {
            book[rng.below(book.len())].clone()
        };
        let plies = low + rng.below(high - low + 1);
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(plies);
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            moves.push(m);
            pos.play_unchecked(m);
        }
        if pos.legal_moves().is_empty() {
            continue;
        }
        if let Some(bound) = config.max_opening_score {
            player.new_game(&start)?;
            let report = player.think(&moves, config.nodes, 1)?;
            if !matches!(report.score(), Some(Score::Cp(cp)) if cp.abs() <= bound) {
                continue;
            }
        }
        return Ok((start, moves));
    }
    Err("no playable opening after 100 tries: loosen --max-opening-score or --random-plies".into())
}

/// Plays game `index` of the run seeded `seed` with `player` on both sides;
/// the kept positions, scored by `labeller` if given, else by the game's
/// own search.
pub fn play_game(
    seed: u64,
    index: u64,
    config: &SelfPlayConfig,
    book: &[Chess],
    player: &mut dyn Player,
    labeller: Option<&mut (dyn Labeller + '_)>,
) -> Result<GameRecords, String> {
    let mut rng = Rng::for_item(seed, index);
    let (start, mut moves) = opening(&mut rng, config, book, player)?;
    let mut pos = start.clone();
    for &m in &moves {
        pos.play_unchecked(m);
    }
    player.new_game(&start)?;

    // Where the engines start: the whole game of `GameRecords::game` is this
    // position and the moves after the opening's.
    let (engine_start, opening_plies) = (pos.clone(), moves.len());
    // Candidates: (engine ply, position, score from white's view).
    let mut kept: Vec<(usize, Chess, i32)> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let (mut winning, mut quiet) = (0usize, 0usize);
    let mut ply = 0usize;
    // From white's view: 0 black won, 1 draw, 2 white won.
    let result = loop {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break result_of(pos.is_check().then_some(!pos.turn()));
        }
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let repeats = seen.entry(key).or_insert(0);
        *repeats += 1;
        if *repeats >= 3 || pos.halfmoves() >= 100 || pos.is_insufficient_material() || ply >= config.max_plies {
            break 1;
        }
        // Material changes only by a capture or a promotion, so a position
        // first reaches the tables with its 50-move count at 0: probed
        // there, the tables' outcome is exact under the 50-move rule
        // (a win or loss it spoils is a draw).
        if let Some(tables) = &config.tablebases
            && pos.halfmoves() == 0
            && let Some(wdl) = tables.wdl_after_zeroing(&pos)
        {
            break result_of(match wdl {
                Wdl::Win => Some(pos.turn()),
                Wdl::Loss => Some(!pos.turn()),
                Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => None,
            });
        }
        let report = player.think(&moves, config.nodes, config.multipv_pick)?;
        let best = report
            .best
            .as_deref()
            .and_then(|m| m.parse::<UciMove>().ok())
            .and_then(|m| m.to_move(&pos).ok())
            .ok_or_else(|| format!("no legal best move at ply {ply} of game {index}"))?;
        // A search stopped by its node budget before finishing its first
        // iteration may report a move and no score: the move is played, the
        // position is not recorded, and adjudication starts counting again.
        let white = report.score().map(|s| white_view(s, pos.turn()));
        if let Some(Score::Cp(cp)) = white
            && ply_of(&pos) >= config.min_ply
            && !pos.is_check()
            && !best.is_capture()
            && !best.is_promotion()
            && !(config.skip_capture && has_winning_capture(&pos))
        {
            kept.push((ply, pos.clone(), cp));
        }
        let (magnitude, white_ahead) = match white {
            Some(Score::Cp(cp)) => (cp.abs(), cp > 0),
            Some(Score::Mate(n)) => (i32::MAX, n > 0),
            None => (config.win_score - 1, false),
        };
        winning = if magnitude >= config.win_score { winning + 1 } else { 0 };
        quiet =
            if ply >= config.draw_after && magnitude <= config.draw_score && white.is_some() { quiet + 1 } else { 0 };
        if winning >= config.win_plies {
            break if white_ahead { 2 } else { 0 };
        }
        if quiet >= config.draw_plies {
            break 1;
        }
        let played = if chance(&mut rng, config.random_move_prob) {
            legal[rng.below(legal.len())]
        } else if config.multipv_pick > 1 {
            pick_line(&report, &pos, config.multipv_margin, &mut rng).unwrap_or(best)
        } else {
            best
        };
        moves.push(played);
        pos.play_unchecked(played);
        ply += 1;
    };

    if let Some(k) = config.per_game {
        kept = spread_sample(kept, k, &mut rng);
    }
    let mut records = Vec::with_capacity(kept.len());
    let mut labeller = labeller;
    if let Some(labeller) = labeller.as_deref_mut() {
        labeller.new_game()?;
    }
    let mut scores = HashMap::new();
    for (index, pos, cp) in kept {
        let score = match labeller.as_deref_mut() {
            None => cp,
            Some(labeller) => {
                let label = labeller.label(&pos)?;
                let (Some(s), Some(m)) = (label.score, label.best) else { continue };
                if m.is_capture() || m.is_promotion() {
                    continue;
                }
                if pos.turn() == Color::White { s } else { -s }
            }
        };
        let score = score.clamp(-32767, 32767) as i16;
        // A whole game's scores stay clear of NO_SCORE's magnitude.
        scores.insert(index, score.clamp(-32000, 32000));
        records.push(Record { pos, score, result });
    }
    let mut at = engine_start;
    let mut game = Vec::with_capacity(ply + 1);
    for (i, &m) in moves[opening_plies..].iter().enumerate() {
        let score = scores.get(&i).copied().unwrap_or(NO_SCORE);
        game.push(Entry { record: Record { pos: at.clone(), score, result }, played: Some(m) });
        at.play_unchecked(m);
    }
    // A position kept where the game then ended (adjudicated) has no move
    // played: the writer picks one.
    if let Some(&score) = scores.get(&ply) {
        game.push(Entry { record: Record { pos: at, score, result }, played: None });
    }
    Ok(GameRecords { records, game, plies: ply, result })
}

/// At most `k` of `items`, in order, spread over them: the list cut into
/// `k` runs of (nearly) equal length and one item drawn from each.
pub fn spread_sample<T>(items: Vec<T>, k: usize, rng: &mut Rng) -> Vec<T> {
    let n = items.len();
    if n <= k {
        return items;
    }
    let picks: Vec<usize> = (0..k)
        .map(|i| {
            let (from, to) = (i * n / k, (i + 1) * n / k);
            from + rng.below(to - from)
        })
        .collect();
    let mut next = picks.iter().peekable();
    items
        .into_iter()
        .enumerate()
        .filter_map(|(i, item)| {
            (next.peek() == Some(&&i)).then(|| {
                next.next();
                item
            })
        })
        .collect()
}

/// A game's result from white's view (0 black won, 1 draw, 2 white won)
/// from its winner, if any.
fn result_of(winner: Option<Color>) -> u8 {
    match winner {
        Some(Color::White) => 2,
        Some(Color::Black) => 0,
        None => 1,
    }
}

fn white_view(score: Score, turn: Color) -> Score {
    match (score, turn) {
        (s, Color::White) => s,
        (Score::Cp(cp), Color::Black) => Score::Cp(-cp),
        (Score::Mate(n), Color::Black) => Score::Mate(-n),
    }
}

/// A move drawn uniformly among the MultiPV lines scored within `margin` of
/// the best (mates only match mates of the same sign).
fn pick_line(report: &Report, pos: &Chess, margin: i32, rng: &mut Rng) -> Option<Move> {
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

/// Searches `board` with a node budget: (score for the side to move, best move).
pub fn search_nodes(search: &mut Search, board: &Board, nodes: u64) -> (i32, Option<Move>) {
    let result = search_within(search, board, Budget::Nodes(nodes));
    (result.score, result.best)
}

/// A random opening of `plies` plies whose search score is within `bound`,
/// drawn from `rng`; `None` if 100 draws all fail.
pub fn random_opening(rng: &mut Rng, plies: usize, bound: i32, nodes: u64, search: &mut Search) -> Option<Board> {
    for _ in 0..100 {
        let mut board = Board::default();
        let mut ok = true;
        for _ in 0..plies {
            let moves = board.pos().legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            board.push(moves[rng.below(moves.len())]);
        }
        if !ok || board.pos().legal_moves().is_empty() {
            continue;
        }
        search.clear();
        let (score, _) = search_nodes(search, &board, nodes);
        if score.abs() <= bound {
            return Some(board);
        }
    }
    None
}

/// An EPD line (the FEN's first four fields) for an opening book.
pub fn epd(pos: &Chess) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::SelfLabeller;
    use crate::player::OwnSearch;

    #[test]
    fn games_are_reproducible_and_labelled() {
        let config = SelfPlayConfig { nodes: 300, max_plies: 60, ..SelfPlayConfig::default() };
        let a = play_game(5, 0, &config, &[], &mut OwnSearch::new(4), None).unwrap();
        let b = play_game(5, 0, &config, &[], &mut OwnSearch::new(4), None).unwrap();
        assert!(!a.records.is_empty());
        assert_eq!(a, b, "a game depends only on the seed and its index");
        let mut player = OwnSearch::new(4);
        assert_ne!(play_game(5, 1, &config, &[], &mut player, None).unwrap(), a);
        for r in &a.records {
            assert!(!r.pos.is_check());
            assert!(ply_of(&r.pos) >= 16, "nothing before --min-ply");
            assert_eq!(r.result, a.records[0].result, "one result per game");
        }
    }

    #[test]
    fn per_game_keeps_k_positions_spread_over_the_game_and_relabels_them() {
        let book = vec![
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
                .parse::<Fen>()
                .unwrap()
                .into_position::<Chess>(shakmaty::CastlingMode::Standard)
                .unwrap(),
        ];
        let base = SelfPlayConfig {
            nodes: 200,
            random_plies: (2, 2),
            max_opening_score: None,
            random_move_prob: 0.1,
            multipv_pick: 3,
            max_plies: 80,
            ..SelfPlayConfig::default()
        };
        let mut player = OwnSearch::new(4);
        let all = play_game(9, 3, &base, &book, &mut player, None).unwrap();
        assert!(all.records.len() > 4, "{}", all.records.len());
        let four = SelfPlayConfig { per_game: Some(4), ..base.clone() };
        let some = play_game(9, 3, &four, &book, &mut player, None).unwrap();
        assert_eq!(some.records.len(), 4);
        assert_eq!(some.plies, all.plies, "sampling does not change the game");
        // The four are positions of the whole game's list, in order, one per quarter.
        let at: Vec<usize> =
            some.records.iter().map(|r| all.records.iter().position(|a| a == r).expect("a game position")).collect();
        let n = all.records.len();
        for (i, &p) in at.iter().enumerate() {
            assert!((i * n / 4..(i + 1) * n / 4).contains(&p), "{at:?} of {n}");
        }
        // A labeller re-scores them (or drops the ones it finds noisy).
        let mut labeller = SelfLabeller::new(Budget::Nodes(3000));
        let labelled = play_game(9, 3, &four, &book, &mut player, Some(&mut labeller)).unwrap();
        assert!(!labelled.records.is_empty() && labelled.records.len() <= 4);
        for r in &labelled.records {
            assert!(some.records.iter().any(|s| s.pos == r.pos));
        }
    }

    #[test]
    fn skipping_winning_captures_leaves_out_exactly_those_positions() {
        // Random moves hang pieces, so some kept positions have a winning capture.
        let all = SelfPlayConfig { nodes: 200, random_move_prob: 0.3, max_plies: 120, ..SelfPlayConfig::default() };
        let skip = SelfPlayConfig { skip_capture: true, ..all.clone() };
        let mut player = OwnSearch::new(4);
        let (mut dropped, mut kept) = (0, 0);
        for index in 0..4 {
            let every = play_game(11, index, &all, &[], &mut player, None).unwrap();
            let quiet = play_game(11, index, &skip, &[], &mut player, None).unwrap();
            assert_eq!(quiet.plies, every.plies, "the option does not change the game");
            let expected: Vec<&Record> = every.records.iter().filter(|r| !has_winning_capture(&r.pos)).collect();
            assert_eq!(quiet.records.iter().collect::<Vec<_>>(), expected);
            dropped += every.records.len() - quiet.records.len();
            kept += quiet.records.len();
        }
        assert!(dropped > 0 && kept > 0, "{dropped} dropped, {kept} kept");
    }

    #[test]
    fn spread_samples_take_one_from_each_run() {
        let mut rng = Rng::new(1);
        for _ in 0..50 {
            let got = spread_sample((0..10).collect(), 3, &mut rng);
            assert_eq!(got.len(), 3);
            assert!((0..3).contains(&got[0]) && (3..6).contains(&got[1]) && (6..10).contains(&got[2]), "{got:?}");
        }
        assert_eq!(spread_sample(vec![1, 2], 3, &mut rng), [1, 2]);
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
        let picks: std::collections::HashSet<String> = (0..50)
            .map(|_| {
                pick_line(&report, &pos, 50, &mut rng).unwrap().to_uci(shakmaty::CastlingMode::Standard).to_string()
            })
            .collect();
        assert_eq!(picks, ["e2e4", "d2d4"].into_iter().map(String::from).collect());
    }

    #[test]
    fn openings_stay_within_the_bound() {
        let mut search = Search::new(4);
        let mut rng = Rng::for_item(3, 0);
        for _ in 0..5 {
            let board = random_opening(&mut rng, 8, 100, 500, &mut search).unwrap();
            // The same search the opening was judged by: a fresh table, as
            // random_opening clears it (a warm one may score it otherwise).
            search.clear();
            let (score, _) = search_nodes(&mut search, &board, 500);
            assert!(score.abs() <= 100, "{score}");
            assert_eq!(epd(board.pos()).split(' ').count(), 4);
        }
    }

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap()
    }

    #[test]
    fn games_end_where_the_tables_take_over() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/syzygy");
        if !dir.is_dir() {
            tessera::testing::skip("shared-data", &format!("{} is absent", dir.display()));
            return;
        }
        let (tables, _) = Tablebases::load(dir.to_str().unwrap());
        let with = SelfPlayConfig {
            nodes: 300,
            random_plies: (0, 0),
            max_opening_score: None,
            max_plies: 200,
            tablebases: Some(Arc::new(tables)),
            ..SelfPlayConfig::default()
        };
        let without = SelfPlayConfig { tablebases: None, ..with.clone() };
        let varied = |c: &SelfPlayConfig| SelfPlayConfig { random_move_prob: 0.05, ..c.clone() };
        let mut player = OwnSearch::new(4);
        // A position the tables hold: over before a move, with their result
        // (KRvK won by the rook's side, whoever moves; the rook en prise: a draw).
        for (fen, result) in [
            ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 2),
            ("8/8/8/4k3/8/8/8/r3K3 w - - 0 1", 0),
            ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", 2),
            ("8/8/8/8/8/6R1/5k2/7K b - - 0 1", 1),
        ] {
            let game = play_game(1, 0, &with, &[position(fen)], &mut player, None).unwrap();
            assert_eq!((game.plies, game.records.len(), game.result), (0, 0, result), "{fen}");
            let played = play_game(1, 0, &without, &[position(fen)], &mut player, None).unwrap();
            assert!(played.plies > 0, "without the tables the game goes on: {fen}");
        }
        // KRPvKR (no table): games that reach the tables midway (a capture,
        // a rook trade, a promotion) are the same game until then, and
        // no position the tables hold is kept.
        let book = [position("7r/8/4k3/8/4P3/8/4K3/R7 w - - 0 1")];
        let tables = with.tablebases.as_ref().unwrap();
        let mut ended_early = 0;
        for index in 0..4 {
            let short = play_game(3, index, &varied(&with), &book, &mut player, None).unwrap();
            let long = play_game(3, index, &varied(&without), &book, &mut player, None).unwrap();
            assert!(short.records.iter().all(|r| tables.wdl_after_zeroing(&r.pos).is_none()));
            let positions = |g: &GameRecords| g.records.iter().map(|r| (r.pos.clone(), r.score)).collect::<Vec<_>>();
            assert!(positions(&long).starts_with(&positions(&short)), "game {index}");
            ended_early += (short.plies < long.plies) as usize;
        }
        assert!(ended_early > 0, "no game reached the tables");
    }
}

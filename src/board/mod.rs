//! The game state the search works on: a shakmaty position per ply, its
//! Zobrist key, and the history needed for repetition detection.
//!
//! `push`/`pop` is the one make/unmake interface; every change of position
//! in the search goes through it, so incremental state (the key now, the NNUE
//! accumulators later) is updated in a single place.

pub mod check;
pub mod gui_fen;
pub mod noisy;
pub mod perft;
pub mod perft_suite;
pub mod see;
pub mod zobrist;

use std::fmt;
use std::sync::Arc;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};

use crate::features::{Perspective, Update};
use crate::nnue::network::Network;
use crate::nnue::refresh_cache::RefreshCache;
use check::CheckInfo;

/// Piece values in centipawns, indexed by `Role as usize - 1`, for move
/// ordering and exchange evaluation (not for the evaluation itself).
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

pub fn piece_value(role: Role) -> i32 {
    PIECE_VALUES[role as usize - 1]
}

/// One ply of the game or search: the position and what is derived from it.
#[derive(Clone)]
struct Ply {
    pos: Chess,
    key: u64,
    /// Whether the side to move is in check, computed once per position.
    in_check: bool,
    /// The move that led here (`None`: the first position, or a null move).
    mv: Option<Move>,
}

/// Why a FEN or a move given to the board was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    Fen(String),
    Move(String),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::Fen(msg) => write!(f, "invalid FEN: {msg}"),
            BoardError::Move(msg) => write!(f, "invalid move: {msg}"),
        }
    }
}

impl std::error::Error for BoardError {}

/// The network's paired accumulators for every ply since it was attached,
/// each `2 · ft` values: black's perspective, then white's.
///
/// They are lazy: `push` only notes that a ply exists; its accumulators are
/// computed when the position is evaluated, from the nearest computed
/// ancestor forward. Nodes the search cuts off before evaluating (table
/// hits, pruning) cost no accumulator work.
#[derive(Clone)]
struct Accumulators {
    net: Arc<Network>,
    /// `stride` values per ply since `base`. It only grows: the space of
    /// popped plies is reused by the next push.
    data: Vec<i16>,
    /// Per ply since `base`: whether its slot in `data` is up to date.
    computed: Vec<bool>,
    /// Index in `plies` of the first accumulated position.
    base: usize,
    update: Update,
    /// Refreshes start from the accumulator last computed for the same king
    /// square (king moves under king-relative sets, null moves).
    cache: RefreshCache,
}

impl Accumulators {
    fn stride(&self) -> usize {
        2 * self.net.shape.ft
    }

    fn new(net: Arc<Network>, base: usize, pos: &Chess) -> Accumulators {
        let stride = 2 * net.shape.ft;
        let mut nnue = Accumulators {
            net,
            data: vec![0; stride],
            computed: vec![true],
            base,
            update: Update::default(),
            cache: RefreshCache::default(),
        };
        nnue.refresh(0, pos);
        nnue
    }

    /// Recomputes both perspectives of slot `slot` without its parent
    /// (through the refresh cache).
    fn refresh(&mut self, slot: usize, pos: &Chess) {
        let (ft, stride) = (self.net.shape.ft, self.stride());
        for color in Color::ALL {
            let at = slot * stride + color as usize * ft;
            self.cache.refresh(&self.net, pos, color, &mut self.data[at..at + ft]);
        }
    }

    /// Room for `plies` more plies without moving the ones there.
    fn reserve(&mut self, plies: usize) {
        self.computed.reserve(plies);
        self.data.reserve(plies * self.stride());
    }

    /// A ply was pushed: room for its accumulators, not yet computed.
    fn push(&mut self) {
        self.computed.push(false);
        let needed = self.computed.len() * self.stride();
        if self.data.len() < needed {
            self.data.resize(needed, 0);
        }
    }

    /// Computes slot `slot` from slot `slot − 1`: the position `after` was
    /// reached from `before` by `mv` (`None`: a null move).
    fn compute(&mut self, slot: usize, before: &Chess, mv: Option<Move>, after: &Chess) {
        let Some(m) = mv else {
            if self.net.features.changes_on_pass() {
                // Turn-dependent features (`pm`): recompute.
                self.refresh(slot, after);
            } else {
                let stride = self.stride();
                self.data.copy_within((slot - 1) * stride..slot * stride, slot * stride);
            }
            self.computed[slot] = true;
            return;
        };
        let (ft, stride) = (self.net.shape.ft, self.stride());
        let (done, rest) = self.data.split_at_mut(slot * stride);
        let parent = &done[(slot - 1) * stride..];
        for color in Color::ALL {
            let at = color as usize * ft;
            let child = &mut rest[at..at + ft];
            self.net.features.update_into(before, m, after, Perspective(color), &mut self.update);
            if self.update.refresh {
                self.cache.refresh(&self.net, after, color, child);
            } else {
                self.net.update_accumulator(&parent[at..at + ft], child, &self.update.added, &self.update.removed);
            }
        }
        self.computed[slot] = true;
    }

    /// Brings the last ply's accumulators up to date.
    fn compute_last(&mut self, plies: &[Ply]) {
        let last = self.computed.len() - 1;
        if self.computed[last] {
            return;
        }
        // The first slot is always computed.
        let first = (0..last).rev().find(|&s| self.computed[s]).unwrap_or(0) + 1;
        for slot in first..=last {
            let ply = self.base + slot;
            self.compute(slot, &plies[ply - 1].pos, plies[ply].mv, &plies[ply].pos);
        }
    }

    fn evaluate(&mut self, plies: &[Ply]) -> i32 {
        self.compute_last(plies);
        let pos = &plies[plies.len() - 1].pos;
        let turn = pos.turn();
        let (ft, stride) = (self.net.shape.ft, self.stride());
        let start = (self.computed.len() - 1) * stride;
        let slot = |c: Color| start + c as usize * ft;
        let (ours, theirs) = (slot(turn), slot(!turn));
        let bucket = self.net.bucket(pos.board().occupied().count() as u32);
        self.net.evaluate(&self.data[ours..ours + ft], &self.data[theirs..theirs + ft], bucket)
    }
}

#[derive(Clone)]
pub struct Board {
    plies: Vec<Ply>,
    /// Index in `plies` of the position the current search started from.
    search_root: usize,
    castling_mode: CastlingMode,
    nnue: Option<Accumulators>,
}

impl Default for Board {
    fn default() -> Self {
        Board::from_position(Chess::default(), CastlingMode::Standard)
    }
}

impl Board {
    pub fn from_position(pos: Chess, castling_mode: CastlingMode) -> Board {
        let key = zobrist::key_of(&pos);
        let in_check = pos.is_check();
        Board { plies: vec![Ply { pos, key, in_check, mv: None }], search_root: 0, castling_mode, nnue: None }
    }

    /// Parses a FEN. Chess960 castling rights (Shredder or X-FEN) are accepted
    /// when `chess960` is set.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Board, BoardError> {
        let fen: Fen = fen.trim().parse().map_err(|e| BoardError::Fen(format!("{e}")))?;
        let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
        // Checks that could not arise in a game, and more material than a
        // game allows, are still playable: accept them as other engines do.
        // shakmaty's position error is large (it carries the position); it is
        // built only on bad input, so its size costs nothing.
        #[allow(clippy::result_large_err)]
        let pos: Chess = fen
            .into_position(mode)
            .or_else(|e| e.ignore_impossible_check())
            .or_else(|e| e.ignore_too_much_material())
            .map_err(|e| BoardError::Fen(format!("{e}")))?;
        Ok(Board::from_position(pos, mode))
    }

    pub fn fen(&self) -> String {
        Fen::from_position(self.pos(), EnPassantMode::Legal).to_string()
    }

    pub fn castling_mode(&self) -> CastlingMode {
        self.castling_mode
    }

    pub fn pos(&self) -> &Chess {
        &self.current().pos
    }

    pub fn key(&self) -> u64 {
        self.current().key
    }

    /// The key after `m` as far as the pieces tell it (castling rights and
    /// en passant captures the move changes left out): right for most
    /// moves, and known before the move is played, so the table's entry can
    /// start loading while it is.
    pub fn likely_key_after(&self, m: Move) -> u64 {
        let current = self.current();
        zobrist::key_after_pieces(current.key, current.pos.turn(), m)
    }

    pub fn turn(&self) -> Color {
        self.pos().turn()
    }

    pub fn in_check(&self) -> bool {
        self.current().in_check
    }

    /// What tells whether each legal move of the current position gives
    /// check, without playing it ([`CheckInfo::gives_check`]).
    pub fn check_info(&self) -> CheckInfo {
        CheckInfo::new(self.pos())
    }

    /// Marks the current position as the root of a search.
    pub fn set_search_root(&mut self) {
        self.search_root = self.plies.len() - 1;
    }

    /// Parses a move in UCI notation and checks that it is legal here.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, BoardError> {
        let uci: UciMove = text.parse().map_err(|_| BoardError::Move(format!("'{text}' is not UCI notation")))?;
        uci.to_move(self.pos()).map_err(|_| BoardError::Move(format!("'{text}' is illegal in {}", self.fen())))
    }

    pub fn uci(&self, m: Move) -> String {
        m.to_uci(self.castling_mode).to_string()
    }

    /// Plays a legal move.
    pub fn push(&mut self, m: Move) {
        self.push_prepared(m, self.likely_key_after(m), None);
    }

    /// Plays a legal move whose [`Board::likely_key_after`] the caller
    /// already has, and, where it has it, whether it checks
    /// ([`CheckInfo::gives_check`]): the search works them out before the
    /// moves it plays (to start loading the table's entry, and to prune),
    /// and doing either again after the move would repeat the work.
    pub fn push_prepared(&mut self, m: Move, likely_key: u64, gives_check: Option<bool>) {
        let before = self.plies.last().expect("board always holds a position");
        let mut pos = before.pos.clone();
        pos.play_unchecked(m);
        debug_assert_eq!(likely_key, zobrist::key_after_pieces(before.key, before.pos.turn(), m), "{m}");
        let key = likely_key ^ zobrist::rights_and_en_passant_change(&before.pos, &pos);
        let in_check = gives_check.unwrap_or_else(|| pos.is_check());
        debug_assert_eq!(in_check, pos.is_check(), "{m}");
        if let Some(nnue) = &mut self.nnue {
            nnue.push();
        }
        self.plies.push(Ply { pos, key, in_check, mv: Some(m) });
    }

    /// Passes the move to the opponent (for null-move pruning). Returns false,
    /// playing nothing, when that is not a legal position (side to move in check).
    pub fn push_null(&mut self) -> bool {
        let before = self.current();
        let Ok(pos) = before.pos.clone().swap_turn() else {
            return false;
        };
        let ep = |p: &Chess| {
            p.ep_square(EnPassantMode::Legal).map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
        };
        let key = before.key ^ Zobrist64::zobrist_for_white_turn().0 ^ ep(&before.pos) ^ ep(&pos);
        self.plies.push(Ply { pos, key, in_check: false, mv: None });
        if let Some(nnue) = &mut self.nnue {
            nnue.push();
        }
        true
    }

    /// Takes back the last `push` or `push_null`.
    pub fn pop(&mut self) {
        debug_assert!(self.plies.len() > 1, "pop past the first position");
        if self.plies.len() > 1 {
            if let Some(nnue) = &mut self.nnue
                && self.plies.len() - 1 > nnue.base
            {
                nnue.computed.pop();
            }
            self.plies.pop();
        }
    }

    /// Forgets the moves before the current position (keeping what repetition
    /// detection needs is the caller's choice: this drops everything).
    pub fn truncate_history(&mut self) {
        let last = self.plies.pop().expect("board always holds a position");
        self.plies.clear();
        self.plies.push(last);
        self.search_root = 0;
        if let Some(nnue) = self.nnue.take() {
            self.attach_network(nnue.net);
        }
    }

    /// Evaluates with `net` from now on: accumulators are computed for the
    /// current position and follow every `push` and `pop` after it.
    pub fn attach_network(&mut self, net: Arc<Network>) {
        self.nnue = Some(Accumulators::new(net, self.plies.len() - 1, self.pos()));
    }

    /// Makes room for `plies` more moves: a search's pushes then never
    /// reallocate (and copy) the positions and accumulators below them.
    /// A copied board has no room to spare; growing it move by move was a
    /// fiftieth of a 400-node search.
    pub fn reserve(&mut self, plies: usize) {
        self.plies.reserve(plies);
        if let Some(nnue) = &mut self.nnue {
            nnue.reserve(plies);
        }
    }

    /// The network's evaluation of the current position (side to move's
    /// view, centipawns), if a network is attached. Computes the
    /// accumulators the pushes since the last evaluation left pending.
    pub fn nnue_evaluate(&mut self) -> Option<i32> {
        let plies = &self.plies;
        self.nnue.as_mut().map(|n| n.evaluate(plies))
    }

    /// True when the position is drawn by the fifty-move rule, insufficient
    /// material, or repetition. Inside the search tree one repetition is
    /// enough; positions from before the root must have occurred twice.
    pub fn is_draw(&self) -> bool {
        let pos = self.pos();
        if pos.halfmoves() >= 100 && !(self.in_check() && pos.legal_moves().is_empty()) {
            return true;
        }
        pos.is_insufficient_material() || self.is_repetition()
    }

    fn is_repetition(&self) -> bool {
        let last = self.plies.len() - 1;
        let key = self.plies[last].key;
        let reversible = self.pos().halfmoves() as usize;
        let mut seen_before_root = 0;
        let mut i = last;
        let mut back = 2;
        while back <= reversible && i >= 2 {
            i -= 2;
            if self.plies[i].key == key {
                if i >= self.search_root {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root == 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// True if the side to move has any piece other than king and pawns
    /// (the zugzwang guard for null-move pruning).
    pub fn has_non_pawn_material(&self) -> bool {
        let pos = self.pos();
        let ours = pos.us();
        let board = pos.board();
        (ours & !(board.by_role(Role::Pawn) | board.by_role(Role::King))).any()
    }

    fn current(&self) -> &Ply {
        self.plies.last().expect("board always holds a position")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::XorShift;

    #[test]
    fn incremental_key_matches_scratch_along_random_games() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15_u64);
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ];
        for fen in fens {
            for _ in 0..40 {
                let mut board = Board::from_fen(fen, false).unwrap();
                for _ in 0..60 {
                    let moves = board.pos().legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let r = rng.next_u64();
                    let m = moves[(r % moves.len() as u64) as usize];
                    let (likely, castles, ep) = (
                        board.likely_key_after(m),
                        board.pos().castles().castling_rights(),
                        board.pos().ep_square(EnPassantMode::Legal),
                    );
                    board.push(m);
                    assert_eq!(board.key(), zobrist::key_of(board.pos()), "{}", board.fen());
                    let same_rights = board.pos().castles().castling_rights() == castles;
                    if same_rights && ep.is_none() && board.pos().ep_square(EnPassantMode::Legal).is_none() {
                        assert_eq!(likely, board.key(), "{m} to {}", board.fen());
                    }
                }
            }
        }
    }

    #[test]
    fn null_move_key_matches_scratch() {
        let mut board =
            Board::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/5N2/PPPP1PPP/RNBQKB1R b KQkq e3 0 3", false).unwrap();
        assert!(board.push_null());
        assert_eq!(board.key(), zobrist::key_of(board.pos()));
        board.pop();
        assert_eq!(board.key(), zobrist::key_of(board.pos()));
    }

    #[test]
    fn repetition_inside_search_is_a_draw_and_before_root_needs_two() {
        let mut board = Board::default();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for m in shuffle {
            let m = board.parse_uci_move(m).unwrap();
            board.push(m);
        }
        // Start position seen twice, one occurrence before the root.
        board.set_search_root();
        assert!(!board.is_draw(), "a single earlier occurrence is not yet a draw");
        for m in shuffle {
            let m = board.parse_uci_move(m).unwrap();
            board.push(m);
        }
        assert!(board.is_draw(), "repeated inside the search tree");
    }

    #[test]
    fn fifty_moves_and_bare_kings_are_draws() {
        assert!(Board::from_fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1", false).unwrap().is_draw());
        assert!(Board::from_fen("8/8/4k3/8/8/3K4/7R/8 w - - 100 90", false).unwrap().is_draw());
        assert!(!Board::from_fen("8/8/4k3/8/8/3K4/7R/8 w - - 99 90", false).unwrap().is_draw());
        // Mate delivered on the 100th half-move stands.
        assert!(!Board::from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 90", false).unwrap().is_draw());
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(Board::from_fen("not a fen", false).is_err());
        assert!(Board::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", false).is_err());
        let board = Board::default();
        assert!(board.parse_uci_move("e2e5").is_err());
        assert!(board.parse_uci_move("zz").is_err());
    }
}

//! Stockfish's binpack (`.binpack`), through the `sfbinpack` crate: chunks
//! of entries, each a position, its move, score, ply and result, where an
//! entry that continues the game before it costs only its move and score
//! (about 2–3 bytes). Standard castling only: a Chess960 position is skipped
//! with the reason.
//!
//! Scores and results are stored from the side to move's view; records keep
//! white's.

use std::fs::File;
use std::path::Path;

use sfbinpack::chess::castling_rights::CastlingRights;
use sfbinpack::chess::color::Color as BpColor;
use sfbinpack::chess::coords::Square as BpSquare;
use sfbinpack::chess::r#move::{Move as BpMove, MoveType};
use sfbinpack::chess::piece::Piece as BpPiece;
use sfbinpack::chess::piecetype::PieceType as BpRole;
use sfbinpack::chess::position::Position as BpPosition;
use sfbinpack::{
    CompressedReaderError, CompressedTrainingDataEntryReader, CompressedTrainingDataEntryWriter, TrainingDataEntry,
};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Piece, Position, Role, Square};

use super::Entry;
use super::chain::{Chained, Link, LinkSink};
use crate::guard::quietly;
use crate::record::{Record, standard_position};
use crate::store::ReadReport;

const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

/// Calls `each` with every entry of a binpack file.
pub fn read(path: &Path, each: &mut dyn FnMut(Entry)) -> Result<ReadReport, String> {
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if file.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
        return Ok(ReadReport::default());
    }
    let mut report = ReadReport::default();
    let damaged =
        |at: u64, why: String| format!("{}: damaged binpack in the chunk ending at byte {at}: {why}", path.display());
    // The crate's calls run guarded, one at a time: `each` runs outside,
    // so that its own panics stay its own.
    let mut reader = match quietly(|| CompressedTrainingDataEntryReader::new(file)).map_err(|p| damaged(0, p))? {
        Ok(reader) => reader,
        Err(CompressedReaderError::EndOfFile) => return Ok(report),
        Err(e) => {
            return Err(format!("{}: at byte 0: not a binpack, or damaged in its first chunk ({e})", path.display()));
        }
    };
    let mut index = 0u64;
    while reader.has_next() {
        let at = reader.read_bytes();
        let raw = quietly(|| reader.next()).map_err(|p| damaged(at, p))?;
        index += 1;
        if raw.score == super::NO_SCORE {
            report.unscored += 1;
            continue;
        }
        // The crate's accessors of the entry may panic on what it decoded too.
        match quietly(|| entry_of(&raw)).and_then(|entry| entry) {
            Ok(entry) => {
                report.records += 1;
                each(entry);
            }
            Err(e) => report.reject(format!("{} entry {} (chunk ending at byte {at}): {e}", path.display(), index - 1)),
        }
    }
    Ok(report)
}

fn entry_of(raw: &TrainingDataEntry) -> Result<Entry, String> {
    let bp = &raw.pos;
    let mut board = Board::empty();
    for i in 0..64u32 {
        let piece = bp.piece_at(BpSquare::new(i));
        let role = piece.piece_type();
        if role == BpRole::None {
            continue;
        }
        let color = if piece.color() == BpColor::White { Color::White } else { Color::Black };
        board.set_piece_at(Square::new(i), Piece { color, role: ROLES[role.ordinal() as usize] });
    }
    let turn = if bp.side_to_move() == BpColor::White { Color::White } else { Color::Black };
    let rights = bp.castling_rights();
    let castling_rights = [
        (CastlingRights::WHITE_KING_SIDE, Square::H1),
        (CastlingRights::WHITE_QUEEN_SIDE, Square::A1),
        (CastlingRights::BLACK_KING_SIDE, Square::H8),
        (CastlingRights::BLACK_QUEEN_SIDE, Square::A8),
    ]
    .into_iter()
    .filter(|(right, _)| rights.contains(*right))
    .fold(Bitboard::EMPTY, |acc, (_, sq)| acc | sq);
    let ep = bp.ep_square();
    let ep_square = (ep != BpSquare::NONE && ep.index() < 64).then(|| Square::new(ep.index()));
    let fullmoves = std::num::NonZeroU32::new(u32::from(raw.ply) / 2 + 1).expect("at least 1");
    let halfmoves = u32::from(bp.rule50_counter());
    let pos = standard_position(board, turn, castling_rights, ep_square, halfmoves, fullmoves)
        .map_err(|e| format!("illegal position: {e}"))?;
    let white = turn == Color::White;
    let score = if white { raw.score } else { raw.score.saturating_neg() };
    let result = match (raw.result, white) {
        (1, true) | (-1, false) => 2,
        (0, _) => 1,
        (-1, true) | (1, false) => 0,
        (other, _) => return Err(format!("result {other} (−1, 0 or 1)")),
    };
    // (Not the crate's `as_uci`, which panics on a malformed move.)
    let played = move_of(&pos, &raw.mv)
        .map_err(|e| format!("move from square {} to {}: {e}", raw.mv.from().index(), raw.mv.to().index()))?;
    Ok(Entry { record: Record { pos, score, result }, played: Some(played) })
}

fn move_of(pos: &Chess, mv: &BpMove) -> Result<Move, String> {
    let square = |s: BpSquare| (s.index() < 64).then(|| Square::new(s.index())).ok_or("bad square");
    let promotion = match mv.mtype() {
        MoveType::Promotion => {
            Some(ROLES.get(mv.promoted_piece().piece_type().ordinal() as usize).copied().ok_or("bad promotion")?)
        }
        _ => None,
    };
    // Castling is stored as the king taking its rook, which UCI parsing
    // understands.
    let uci = UciMove::Normal { from: square(mv.from())?, to: square(mv.to())?, promotion };
    uci.to_move(pos).map_err(|_| "not legal in its position".to_string())
}

/// Writes a binpack; entries that continue a game are stored as moves.
pub struct Writer {
    /// `None` only while `end` swaps it for a fresh one.
    out: Option<CompressedTrainingDataEntryWriter<File>>,
    path: std::path::PathBuf,
    /// The ply the next entry gets if it continues the last one's game:
    /// records keep no move number, and a binpack stores a game's next
    /// position as a move only when its ply is the one after.
    next_ply: Option<u16>,
}

impl Writer {
    /// A new file, or (`append`) the end of an existing one: a binpack is a
    /// sequence of whole chunks, so new chunks can follow.
    pub fn open(path: &Path, append: bool) -> Result<Chained<Writer>, String> {
        let file = super::open_file(path, append)?;
        let out = CompressedTrainingDataEntryWriter::new(file)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(Chained::new(Writer { out: Some(out), path: path.to_path_buf(), next_ply: None }))
    }
}

impl LinkSink for Writer {
    fn store(&mut self, link: Link) -> Result<Option<String>, String> {
        let raw = match raw_entry(&link.entry.record, link.played, self.next_ply.take()) {
            Ok(raw) => raw,
            Err(why) => return Ok(Some(why)),
        };
        let path = &self.path;
        let out = self.out.as_mut().expect("a writer");
        quietly(|| out.write_entry(&raw))
            .map_err(|p| format!("cannot write {}: {p}", path.display()))?
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if link.continues {
            self.next_ply = raw.ply.checked_add(1);
        }
        Ok(None)
    }

    fn end(&mut self) -> Result<(), String> {
        self.next_ply = None;
        // The crate's writer ends its chunk, and is then replaced: once ended
        // it must not take more entries.
        let io = |e: String| format!("cannot write {}: {e}", self.path.display());
        let mut out = self.out.take().expect("a writer");
        quietly(|| out.flush_and_end()).map_err(io)?;
        let file = out.into_inner().map_err(|e| io(e.to_string()))?;
        file.sync_data().map_err(|e| io(e.to_string()))?;
        self.out = Some(CompressedTrainingDataEntryWriter::new(file).map_err(|e| io(e.to_string()))?);
        Ok(())
    }
}

fn raw_entry(record: &Record, played: Move, ply: Option<u16>) -> Result<TrainingDataEntry, String> {
    if let Some(why) = record.unstorable() {
        return Err(why.replace("the 32-byte record", "a binpack"));
    }
    let pos = &record.pos;
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    let mut bp = quietly(|| BpPosition::from_fen(&fen))
        .map_err(|p| format!("{fen}: {p}"))?
        .map_err(|e| format!("{fen}: {e:?}"))?;
    let own_ply = (pos.fullmoves().get().saturating_sub(1) * 2 + pos.turn().is_black() as u32)
        .min(u32::from(u16::MAX - 1)) as u16;
    let ply = ply.unwrap_or(own_ply);
    bp.set_ply(ply);
    let square = |s: Square| BpSquare::new(u32::from(s));
    let stm = if pos.turn() == Color::White { BpColor::White } else { BpColor::Black };
    let mv = match played {
        Move::Normal { from, to, promotion: None, .. } => {
            BpMove::new(square(from), square(to), MoveType::Normal, BpPiece::none())
        }
        Move::Normal { from, to, promotion: Some(role), .. } => BpMove::new(
            square(from),
            square(to),
            MoveType::Promotion,
            BpPiece::new(BpRole::from_ordinal(role as u8 - 1), stm),
        ),
        Move::EnPassant { from, to } => BpMove::new(square(from), square(to), MoveType::EnPassant, BpPiece::none()),
        Move::Castle { king, rook } => BpMove::new(square(king), square(rook), MoveType::Castle, BpPiece::none()),
        Move::Put { .. } => return Err("a drop is not a chess move".into()),
    };
    let white = pos.turn() == Color::White;
    // No score is no score from either side.
    let score = if white || record.score == super::NO_SCORE { record.score } else { record.score.saturating_neg() };
    let result = match (record.result, white) {
        (2, true) | (0, false) => 1,
        (1, _) => 0,
        _ => -1,
    };
    Ok(TrainingDataEntry { pos: bp, mv, score, ply, result })
}

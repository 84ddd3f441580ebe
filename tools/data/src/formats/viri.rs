//! viridithas's viriformat (`.vf`), through the `viriformat` crate: a game at
//! a time, its start as a 32-byte marlinformat board (castling by rook square,
//! so Chess960 too; en passant; clocks; the game's result), then 4 bytes a
//! move: the move played and the score of the position it was played from
//! (white's view), ended by four zero bytes.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use std::num::NonZeroU32;

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position, Role, Square};
use viriformat::chess::board::{Board as ViriBoard, DrawType, GameOutcome, WinType};
use viriformat::chess::chessmove::{Move as ViriMove, MoveFlags};
use viriformat::chess::piece::PieceType;
use viriformat::chess::types::Square as ViriSquare;
use viriformat::dataformat::Game;

use super::Entry;
use super::chain::{Chained, Link, LinkSink};
use crate::guard::quietly;
use crate::record::{Record, position_of_parts};
use crate::store::ReadReport;

/// Counts the bytes read, for errors that say where.
struct Counting<R> {
    inner: R,
    at: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Calls `each` with every position of every game of a viriformat file.
pub fn read(path: &Path, each: &mut dyn FnMut(Entry)) -> Result<ReadReport, String> {
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut input = BufReader::new(Counting { inner: file, at: 0 });
    let mut report = ReadReport::default();
    let mut buffer = Vec::new();
    for index in 0u64.. {
        let start = input.get_ref().at - input.buffer().len() as u64;
        if input.fill_buf().map_err(|e| format!("cannot read {}: {e}", path.display()))?.is_empty() {
            break;
        }
        let at = |why: String| format!("{}: game {index} at byte {start}: {why}", path.display());
        let game =
            quietly(|| Game::deserialise_from(&mut input, std::mem::take(&mut buffer))).map_err(&at)?.map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof { at("cut short".into()) } else { at(e.to_string()) }
            })?;
        let entries = quietly(|| entries_of(&game)).map_err(&at)?.map_err(&at)?;
        for entry in entries {
            if entry.record.score == super::NO_SCORE {
                report.unscored += 1;
                continue;
            }
            report.records += 1;
            each(entry);
        }
        buffer = game.into_move_buffer();
    }
    Ok(report)
}

fn entries_of(game: &Game) -> Result<Vec<Entry>, String> {
    let (mut pos, result) = header(&game.initial_position.as_bytes())?;
    let mut entries = Vec::with_capacity(game.len());
    for (mv, eval) in &game.moves {
        let played = move_of(&pos, *mv)?;
        entries.push(Entry { record: Record { pos: pos.clone(), score: eval.get(), result }, played: Some(played) });
        pos.play_unchecked(played);
    }
    Ok(entries)
}

/// The game's start and result (white's view) from its 32-byte marlinformat
/// header: occupancy (u64), a nibble a piece in square order (colour × 8 +
/// pawn 0 … king 5, or 6 for a rook that may still castle), side to move and
/// en passant square (bit 7, bits 0–6; 64 for none), halfmove clock,
/// fullmove number (u16), score, result (0 black won, 1 draw, 2 white won).
/// Decoded here rather than by the crate, which trusts the bytes: a board
/// without a king reads outside its tables, which no guard can catch (found
/// by the `data_formats` fuzz target).
fn header(bytes: &[u8; 32]) -> Result<(Chess, u8), String> {
    const ROLES: [Role; 7] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King, Role::Rook];
    let occupied = Bitboard(u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes")));
    if occupied.count() > 32 {
        return Err(format!("{} pieces", occupied.count()));
    }
    let mut board = Board::empty();
    let mut castling_rooks = Bitboard::EMPTY;
    for (i, sq) in occupied.into_iter().enumerate() {
        let nibble = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0xF;
        let role = *ROLES.get(usize::from(nibble & 7)).ok_or_else(|| format!("piece code {nibble}"))?;
        if nibble & 7 == 6 {
            castling_rooks |= sq;
        }
        board.set_piece_at(sq, Piece { color: if nibble & 8 == 0 { Color::White } else { Color::Black }, role });
    }
    let turn = if bytes[24] & 0x80 == 0 { Color::White } else { Color::Black };
    let ep_square = match bytes[24] & 0x7f {
        64 => None,
        s @ 0..64 => Some(Square::new(u32::from(s))),
        s => return Err(format!("en passant square {s}")),
    };
    let fullmoves = NonZeroU32::new(u32::from(u16::from_le_bytes([bytes[26], bytes[27]]))).unwrap_or(NonZeroU32::MIN);
    let result = match bytes[30] {
        r @ 0..=2 => r,
        r => return Err(format!("result {r}")),
    };
    let clocks = (u32::from(bytes[25]), fullmoves);
    let pos = position_of_parts(board, turn, castling_rooks, ep_square, clocks, CastlingMode::Chess960)
        .map_err(|e| format!("illegal position: {e}"))?;
    Ok((pos, result))
}

fn square(sq: ViriSquare) -> Square {
    Square::new(u32::from(sq.inner()))
}

fn move_of(pos: &Chess, mv: ViriMove) -> Result<Move, String> {
    let promotion = mv.promotion_type().map(|p| {
        [shakmaty::Role::Knight, shakmaty::Role::Bishop, shakmaty::Role::Rook, shakmaty::Role::Queen]
            [p.inner() as usize - 1]
    });
    // Castling is stored as the king taking its rook, which UCI parsing
    // understands.
    let uci = UciMove::Normal { from: square(mv.from()), to: square(mv.to()), promotion };
    uci.to_move(pos)
        .map_err(|_| format!("move {uci} is not legal in {}", Fen::from_position(pos, EnPassantMode::Legal)))
}

/// Writes games: entries that follow one another by their moves, with one
/// result, are one game.
pub struct Writer {
    out: BufWriter<File>,
    path: PathBuf,
    game: Option<Game>,
}

impl Writer {
    /// A new file, or (`append`) the end of an existing one.
    pub fn open(path: &Path, append: bool) -> Result<Chained<Writer>, String> {
        let file = super::open_file(path, append)?;
        Ok(Chained::new(Writer { out: BufWriter::new(file), path: path.to_path_buf(), game: None }))
    }
}

impl LinkSink for Writer {
    fn store(&mut self, link: Link) -> Result<Option<String>, String> {
        let record = &link.entry.record;
        let game = match self.game.as_mut() {
            Some(game) => game,
            None => match start_of(record) {
                Ok(game) => self.game.insert(game),
                Err(why) => return Ok(Some(why)),
            },
        };
        game.add_move(viri_move(link.played), record.score);
        if !link.continues {
            let mut game = self.game.take().expect("a game");
            game.set_outcome(match record.result {
                2 => GameOutcome::WhiteWin(WinType::Adjudication),
                0 => GameOutcome::BlackWin(WinType::Adjudication),
                _ => GameOutcome::Draw(DrawType::Repetition),
            });
            game.serialise_into(&mut self.out).map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        }
        Ok(None)
    }

    fn end(&mut self) -> Result<(), String> {
        let io = |e: std::io::Error| format!("cannot write {}: {e}", self.path.display());
        self.out.flush().map_err(io)?;
        self.out.get_ref().sync_data().map_err(io)
    }
}

/// A new game from a record's position (Shredder castling letters, which the
/// crate reads in Chess960 mode for any position).
fn start_of(record: &Record) -> Result<Game, String> {
    let pos = &record.pos;
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let mut castling = String::new();
    for color in [Color::White, Color::Black] {
        let king = pos.board().king_of(color).ok_or("no king")?;
        let mut rooks: Vec<Square> = pos
            .castles()
            .castling_rights()
            .into_iter()
            .filter(|r| r.rank() == king.rank() && (color == Color::White) == (r.rank() == shakmaty::Rank::First))
            .collect();
        // Kingside (right of the king) first, as the crate writes them.
        rooks.sort_by_key(|r| std::cmp::Reverse(r.file()));
        for rook in rooks {
            let letter = rook.file().char();
            castling.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let shredder = format!("{} {} {castling} {} {} {}", fields[0], fields[1], fields[3], fields[4], fields[5]);
    let mut board = ViriBoard::new();
    quietly(|| board.set_from_fen(&shredder, true))
        .map_err(|p| format!("{shredder}: {p}"))?
        .map_err(|e| format!("{shredder}: {e}"))?;
    quietly(|| Game::new(&board)).map_err(|p| format!("{shredder}: {p}"))
}

fn viri_move(m: Move) -> ViriMove {
    let sq = |s: Square| ViriSquare::new(s as u8).expect("a square");
    match m {
        Move::Normal { from, to, promotion: Some(role), .. } => {
            ViriMove::new_with_promo(sq(from), sq(to), PieceType::new(role as u8 - 1).expect("a piece"))
        }
        Move::Normal { from, to, .. } => ViriMove::new(sq(from), sq(to)),
        Move::EnPassant { from, to } => ViriMove::new_with_flags(sq(from), sq(to), MoveFlags::EnPassant),
        Move::Castle { king, rook } => ViriMove::new_with_flags(sq(king), sq(rook), MoveFlags::Castle),
        Move::Put { .. } => unreachable!("drops are not chess moves"),
    }
}

//! bullet's chess format (`.bullet`), through the `bulletformat` crate: 32
//! bytes a position, seen from the side to move (the board flipped when
//! black is to move), its score and result from that side's view. No
//! castling rights, no en passant square, no clocks, no checksum: what
//! bullet trains on, and a position read back comes with white to move.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bulletformat::{BulletFormat, ChessBoard};
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup};

use super::{Entry, EntryWriter, WriteReport};
use crate::record::Record;
use crate::store::ReadReport;

const SIZE: usize = std::mem::size_of::<ChessBoard>();
const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

/// A file with more than one bad position in this many is refused: the
/// format has no magic and no checksum, so a file of something else reads
/// as mostly illegal positions.
const BAD_SHARE_REFUSED: u64 = 100;

/// Calls `each` with every position of a bulletformat file, white to move.
pub fn read(path: &Path, each: &mut dyn FnMut(Entry)) -> Result<ReadReport, String> {
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len % SIZE as u64 != 0 {
        return Err(format!(
            "{}: {len} bytes, not a whole number of {SIZE}-byte positions: cut short at byte {}, or not bulletformat",
            path.display(),
            len - len % SIZE as u64
        ));
    }
    let mut input = BufReader::new(file);
    let mut report = ReadReport::default();
    let mut bytes = [0u8; SIZE];
    for index in 0..len / SIZE as u64 {
        input.read_exact(&mut bytes).map_err(io)?;
        match record_of(&bytes) {
            Ok(record) => {
                report.records += 1;
                each(record.into());
            }
            Err(e) => report.reject(format!("{} position {index} (byte {}): {e}", path.display(), index * SIZE as u64)),
        }
    }
    if report.rejected * BAD_SHARE_REFUSED > report.records + report.rejected {
        return Err(format!(
            "{}: {} of {} positions are not positions (first: {}): not bulletformat, or damaged",
            path.display(),
            report.rejected,
            report.records + report.rejected,
            report.first_rejection.as_deref().unwrap_or("-")
        ));
    }
    Ok(report)
}

fn record_of(bytes: &[u8; SIZE]) -> Result<Record, String> {
    let occupied = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
    let score = i16::from_le_bytes([bytes[24], bytes[25]]);
    let result = bytes[26];
    if result > 2 {
        return Err(format!("result {result}"));
    }
    let mut board = Board::empty();
    for (i, sq) in Bitboard(occupied).into_iter().enumerate() {
        if i >= 32 {
            return Err("more than 32 pieces".into());
        }
        let nibble = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0xF;
        let role = *ROLES.get(usize::from(nibble & 7)).ok_or_else(|| format!("piece code {nibble}"))?;
        let color = if nibble & 8 == 0 { Color::White } else { Color::Black };
        board.set_piece_at(sq, Piece { color, role });
    }
    let setup = Setup { board, ..Setup::empty() };
    let pos = Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| format!("illegal position: {e}"))?;
    Ok(Record { pos, score, result })
}

/// Writes positions for bullet.
pub struct Writer {
    out: BufWriter<File>,
    path: PathBuf,
    report: WriteReport,
}

impl Writer {
    /// A new file, or (`append`) the end of an existing one, cut back to a
    /// whole number of positions.
    pub fn open(path: &Path, append: bool) -> Result<Writer, String> {
        let file = super::open_file(path, append)?;
        let io = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let len = file.metadata().map_err(io)?.len();
        file.set_len(len - len % SIZE as u64).map_err(io)?;
        Ok(Writer { out: BufWriter::new(file), path: path.to_path_buf(), report: WriteReport::default() })
    }
}

/// The crate's board: bitboards white, black, then pawns … kings; score and
/// result from white's view (the crate turns them to the side to move's).
fn board_of(record: &Record) -> Result<ChessBoard, String> {
    let b = record.pos.board();
    let mut bbs = [0u64; 8];
    bbs[0] = b.white().0;
    bbs[1] = b.black().0;
    for (i, role) in ROLES.iter().enumerate() {
        bbs[2 + i] = b.by_role(*role).0;
    }
    let stm = usize::from(record.pos.turn() == Color::Black);
    ChessBoard::from_raw(bbs, stm, record.score, f32::from(record.result) / 2.0)
}

impl EntryWriter for Writer {
    fn write(&mut self, entry: &Entry) -> Result<(), String> {
        if entry.record.score == super::NO_SCORE {
            self.report.skip(super::UNSCORED.into());
            return Ok(());
        }
        let board = match board_of(&entry.record) {
            Ok(board) => board,
            Err(why) => {
                self.report.skip(why);
                return Ok(());
            }
        };
        self.out
            .write_all(ChessBoard::as_bytes_slice(std::slice::from_ref(&board)))
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        self.report.written += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), String> {
        let io = |e: std::io::Error| format!("cannot write {}: {e}", self.path.display());
        self.out.flush().map_err(io)?;
        self.out.get_ref().sync_data().map_err(io)
    }

    fn report(&self) -> WriteReport {
        self.report.clone()
    }
}

//! The binary training record: one position, its score and the game result
//! in 32 bytes, with a checksum so that a record cut short or damaged (a
//! kill in the middle of a write, a bad disk) is recognised and skipped.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | occupancy, u64 LE, bit i = square i (a1 = 0) |
//! | 8..24 | one nibble per occupied square in square order, low nibble first: colour × 8 + role (1 pawn … 6 king) |
//! | 24..26 | score, i16 LE, centipawns from white's view |
//! | 26 | result from white's view: 0 loss, 1 draw, 2 win |
//! | 27 | bit 0: black to move; bits 1–4: castling rights (white h, white a, black h, black a rook) |
//! | 28 | en passant file + 1, 0 for none |
//! | 29 | halfmove clock (saturating at 255) |
//! | 30..32 | checksum: the low 16 bits of FNV-1a over bytes 0..30 |
//!
//! Castling is stored as standard-chess rights; the fullmove number is not
//! kept (1 on decoding).

use std::num::NonZeroU32;

use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Position, Role,
    Setup, Square,
};

pub const RECORD_SIZE: usize = 32;

/// A labelled position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub pos: Chess,
    /// Centipawns, white's view.
    pub score: i16,
    /// 0 black won, 1 draw, 2 white won.
    pub result: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    Checksum,
    Malformed(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Checksum => write!(f, "checksum mismatch"),
            RecordError::Malformed(why) => write!(f, "malformed record: {why}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// The low 16 bits of 64-bit FNV-1a: enough to catch a record cut short or
/// a flipped bit, and cheap at hundreds of millions of records.
fn checksum(bytes: &[u8]) -> u16 {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    hash as u16
}

/// Bytes of a packed board: the occupancy, then a nibble a piece.
pub const PACKED_BOARD_SIZE: usize = 24;

/// The board in the record's first 24 bytes: occupancy (u64 LE, bit i =
/// square i), then one nibble per occupied square in square order, low
/// nibble first: colour × 8 + role (1 pawn … 6 king). A board of at most 32
/// pieces (every legal position's).
pub fn pack_board(board: &Board) -> [u8; PACKED_BOARD_SIZE] {
    let mut out = [0u8; PACKED_BOARD_SIZE];
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
    for (i, sq) in occupied.into_iter().enumerate() {
        let piece = board.piece_at(sq).expect("occupied");
        let nibble = (piece.color.is_black() as u8) * 8 + piece.role as u8;
        out[8 + i / 2] |= nibble << (4 * (i % 2));
    }
    out
}

/// The board [`pack_board`] packed, or why the bytes are not one.
pub fn unpack_board(bytes: &[u8; PACKED_BOARD_SIZE]) -> Result<Board, RecordError> {
    let bad = |why: &str| RecordError::Malformed(why.to_string());
    let occupied = Bitboard(u64::from_le_bytes(bytes[0..8].try_into().unwrap()));
    if occupied.count() > 32 {
        return Err(bad("more than 32 pieces"));
    }
    let mut by_role = ByRole::<Bitboard>::default();
    let mut by_color = ByColor::<Bitboard>::default();
    for (i, sq) in occupied.into_iter().enumerate() {
        let nibble = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0xf;
        let role = Role::try_from(nibble & 7).map_err(|_| bad("bad piece code"))?;
        let color = Color::from_white(nibble & 8 == 0);
        *by_role.get_mut(role) |= sq;
        *by_color.get_mut(color) |= sq;
    }
    Board::try_from_bitboards(by_role, by_color).map_err(|_| bad("inconsistent pieces"))
}

/// A standard-chess position from its parts, its en passant square kept only
/// where a capture there is legal (as records keep it; other formats may
/// keep it after any double push).
pub(crate) fn standard_position(
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    ep_square: Option<Square>,
    halfmoves: u32,
    fullmoves: NonZeroU32,
) -> Result<Chess, String> {
    position_of_parts(board, turn, castling_rights, ep_square, (halfmoves, fullmoves), CastlingMode::Standard)
}

/// [`standard_position`] with castling rights read in `mode` (Chess960: any
/// rook square).
pub(crate) fn position_of_parts(
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    ep_square: Option<Square>,
    (halfmoves, fullmoves): (u32, NonZeroU32),
    mode: CastlingMode,
) -> Result<Chess, String> {
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square,
        remaining_checks: None,
        halfmoves,
        fullmoves,
    };
    let pos = Chess::from_setup(setup.clone(), mode).map_err(|e| e.to_string())?;
    if setup.ep_square.is_some() && pos.ep_square(EnPassantMode::Legal).is_none() {
        return Chess::from_setup(Setup { ep_square: None, ..setup }, mode).map_err(|e| e.to_string());
    }
    Ok(pos)
}

/// The four castling rooks' home squares, in the order of the flag bits.
const CASTLING_ROOKS: [Square; 4] = [Square::H1, Square::A1, Square::H8, Square::A8];

impl Record {
    /// Why this record's position cannot be stored in the 32-byte record, if
    /// it cannot: castling rights other than standard chess's (Chess960), of
    /// which the record keeps four flags.
    pub fn unstorable(&self) -> Option<String> {
        let rooks = self.pos.castles().castling_rights();
        let standard = |sq: Square| {
            let king =
                self.pos.board().king_of(if sq.rank() == shakmaty::Rank::First { Color::White } else { Color::Black });
            CASTLING_ROOKS.contains(&sq) && king.is_some_and(|k| k.file() == File::E && k.rank() == sq.rank())
        };
        rooks.into_iter().find(|&sq| !standard(sq)).map(|sq| {
            format!(
                "{}: castling with the rook on {sq} (Chess960) cannot be stored in the 32-byte record; text and viriformat keep it",
                Fen::from_position(&self.pos, EnPassantMode::Legal)
            )
        })
    }

    pub fn encode(&self) -> [u8; RECORD_SIZE] {
        let mut out = [0u8; RECORD_SIZE];
        out[..PACKED_BOARD_SIZE].copy_from_slice(&pack_board(self.pos.board()));
        out[24..26].copy_from_slice(&self.score.to_le_bytes());
        out[26] = self.result;
        let rooks = self.pos.castles().castling_rights();
        let mut flags = self.pos.turn().is_black() as u8;
        for (bit, sq) in CASTLING_ROOKS.iter().enumerate() {
            if rooks.contains(*sq) {
                flags |= 2 << bit;
            }
        }
        out[27] = flags;
        out[28] = self.pos.ep_square(EnPassantMode::Legal).map_or(0, |sq| sq.file() as u8 + 1);
        out[29] = self.pos.halfmoves().min(255) as u8;
        let sum = checksum(&out[..30]);
        out[30..32].copy_from_slice(&sum.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8; RECORD_SIZE]) -> Result<Record, RecordError> {
        if checksum(&bytes[..30]) != u16::from_le_bytes([bytes[30], bytes[31]]) {
            return Err(RecordError::Checksum);
        }
        let bad = |why: &str| RecordError::Malformed(why.to_string());
        let board = unpack_board(bytes[..PACKED_BOARD_SIZE].try_into().unwrap())?;
        let result = bytes[26];
        if result > 2 {
            return Err(bad("result out of range"));
        }
        let flags = bytes[27];
        let turn = if flags & 1 != 0 { Color::Black } else { Color::White };
        let castling_rights = CASTLING_ROOKS
            .iter()
            .enumerate()
            .filter(|(bit, _)| flags & (2 << bit) != 0)
            .fold(Bitboard::EMPTY, |acc, (_, sq)| acc | *sq);
        let ep_square = match bytes[28] {
            0 => None,
            f @ 1..=8 => Some(Square::from_coords(
                File::new(u32::from(f - 1)),
                if turn == Color::White { shakmaty::Rank::Sixth } else { shakmaty::Rank::Third },
            )),
            _ => return Err(bad("bad en passant file")),
        };
        let pos = standard_position(board, turn, castling_rights, ep_square, u32::from(bytes[29]), NonZeroU32::MIN)
            .map_err(|e| bad(&format!("illegal position: {e}")))?;
        Ok(Record { pos, score: i16::from_le_bytes([bytes[24], bytes[25]]), result })
    }

    /// The text interchange line: `<FEN> | <score> | <1.0/0.5/0.0>`.
    pub fn to_text(&self) -> String {
        let result = ["0.0", "0.5", "1.0"][self.result as usize];
        format!("{} | {} | {result}", Fen::from_position(&self.pos, EnPassantMode::Legal), self.score)
    }

    /// Parses a text line ([`crate::text`]; standard castling rights, which
    /// is what the record stores; scores must be integers within the i16
    /// range).
    pub fn from_text(line: &str) -> Result<Record, String> {
        Record::from_line(crate::text::parse_line(line, CastlingMode::Standard)?)
    }

    /// A parsed text line as a record: its score must be an integer within
    /// the i16 range.
    pub fn from_line(line: crate::text::TextLine) -> Result<Record, String> {
        let score = line.score;
        if score.fract() != 0.0 || !(f32::from(i16::MIN)..=f32::from(i16::MAX)).contains(&score) {
            return Err(format!("bad score '{score}' (an integer within ±32767)"));
        }
        let result = (line.result * 2.0) as u8;
        Ok(Record { pos: line.pos, score: score as i16, result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 13 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 99 1",
        "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1",
    ];

    #[test]
    fn records_round_trip_in_32_bytes() {
        for (i, fen) in FENS.iter().enumerate() {
            let record = Record::from_text(&format!("{fen} | {} | 0.5", -300 + 97 * i as i32)).unwrap();
            let bytes = record.encode();
            assert_eq!(bytes.len(), 32);
            let back = Record::decode(&bytes).unwrap();
            assert_eq!(back, record, "{fen}");
            assert_eq!(back.to_text(), format!("{fen} | {} | 0.5", -300 + 97 * i as i32));
        }
    }

    #[test]
    fn any_flipped_bit_is_caught() {
        let bytes = Record::from_text(&format!("{} | 25 | 1.0", FENS[1])).unwrap().encode();
        for byte in 0..RECORD_SIZE {
            for bit in 0..8 {
                let mut damaged = bytes;
                damaged[byte] ^= 1 << bit;
                assert!(Record::decode(&damaged).is_err(), "byte {byte} bit {bit}");
            }
        }
    }

    #[test]
    fn text_lines_are_checked() {
        assert!(Record::from_text("x | 1 | 1.0").unwrap_err().contains("bad FEN"));
        assert!(Record::from_text(&format!("{} | 40000 | 1.0", FENS[0])).unwrap_err().contains("bad score"));
        assert!(Record::from_text(&format!("{} | 1 | 3", FENS[0])).unwrap_err().contains("bad result"));
        assert!(Record::from_text(FENS[0]).unwrap_err().contains("expected 3 fields"));
    }
}

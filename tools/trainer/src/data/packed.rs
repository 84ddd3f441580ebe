//! Training positions packed for memory: a `shakmaty::Chess` takes 136 bytes,
//! this 32, so a run of 70 M samples (40 M positions and their mirrors) holds
//! about 2 GB of positions instead of 10 GB beside its feature cache. The
//! board is packed as the datagen tool's records pack it; unlike a record, the
//! packing keeps every castling right (Chess960 rooks too, as text data may
//! hold), the castling mode and the en passant square as the position had it,
//! so [`PackedPosition::unpack`] gives back the very position that was packed
//! (but for the move counters, which nothing trains on: the halfmove clock
//! saturates at 255, and a fullmove number beyond 255 comes back as 1).

use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, Setup, Square};
use tessera_data::record::{PACKED_BOARD_SIZE, pack_board, unpack_board};

/// No castling rook in that slot, no en passant square.
const NONE: u8 = 0xff;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedPosition {
    board: [u8; PACKED_BOARD_SIZE],
    /// The castling rooks' squares (at most two a side), `NONE` for none.
    castling: [u8; 4],
    /// Bit 0: black to move; bit 1: Chess960 castling mode.
    flags: u8,
    ep_square: u8,
    halfmoves: u8,
    /// Unpacked as 1 when the position's number was beyond 255: the feature
    /// sets read neither counter.
    fullmoves: u8,
}

impl PackedPosition {
    pub fn pack(pos: &Chess) -> PackedPosition {
        let mut castling = [NONE; 4];
        for (slot, sq) in castling.iter_mut().zip(pos.castles().castling_rights()) {
            *slot = sq as u8;
        }
        let chess960 = pos.castles().mode() == CastlingMode::Chess960;
        let fullmoves = u8::try_from(pos.fullmoves().get()).unwrap_or(1);
        PackedPosition {
            board: pack_board(pos.board()),
            castling,
            flags: u8::from(pos.turn().is_black()) | u8::from(chess960) << 1,
            // Always, not Legal: the position keeps a pushed pawn's square
            // even when no capture is possible, and so does its unpacking.
            ep_square: pos.ep_square(EnPassantMode::Always).map_or(NONE, |sq| sq as u8),
            halfmoves: pos.halfmoves().min(255) as u8,
            fullmoves,
        }
    }

    pub fn unpack(&self) -> Chess {
        let board = unpack_board(&self.board).expect("packed from a legal position");
        let castling_rights =
            self.castling.iter().filter(|&&s| s != NONE).fold(Bitboard::EMPTY, |acc, &s| acc | Square::new(s.into()));
        let setup = Setup {
            board,
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: if self.flags & 1 != 0 { Color::Black } else { Color::White },
            castling_rights,
            ep_square: (self.ep_square != NONE).then(|| Square::new(self.ep_square.into())),
            remaining_checks: None,
            halfmoves: self.halfmoves.into(),
            fullmoves: std::num::NonZeroU32::new(self.fullmoves.into()).unwrap_or(std::num::NonZeroU32::MIN),
        };
        let mode = if self.flags & 2 != 0 { CastlingMode::Chess960 } else { CastlingMode::Standard };
        Chess::from_setup(setup, mode).expect("packed from a legal position")
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::zobrist::Zobrist64;

    use super::*;

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    /// Everything a position is made of, as far as shakmaty shows it.
    fn parts(p: &Chess) -> (String, u64, CastlingMode, Option<Square>) {
        let fen = Fen::from_position(p, EnPassantMode::Always).to_string();
        (
            fen,
            p.zobrist_hash::<Zobrist64>(EnPassantMode::Always).0,
            p.castles().mode(),
            p.ep_square(EnPassantMode::Always),
        )
    }

    #[test]
    fn positions_come_back_unchanged() {
        let cases = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", CastlingMode::Standard),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 13 40", CastlingMode::Chess960),
            // A double push no pawn can take: the square is kept as it was.
            ("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", CastlingMode::Standard),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", CastlingMode::Standard),
            // Chess960 rooks on b and g: rights a record could not keep.
            ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", CastlingMode::Chess960),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 99 200", CastlingMode::Standard),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Chess960),
        ];
        for (fen, mode) in cases {
            let p = pos(fen, mode);
            assert_eq!(parts(&PackedPosition::pack(&p).unpack()), parts(&p), "{fen}");
        }
    }

    #[test]
    fn counters_saturate() {
        let p = pos("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 300 1000", CastlingMode::Standard);
        let back = PackedPosition::pack(&p).unpack();
        assert_eq!((back.halfmoves(), back.fullmoves().get()), (255, 1));
        assert_eq!(back.board(), p.board());
    }

    #[test]
    fn every_position_of_random_games_comes_back() {
        let mut rng = tessera::testing::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        let mut positions = 0;
        for _ in 0..40 {
            let mut p = Chess::default();
            for _ in 0..120 {
                assert_eq!(parts(&PackedPosition::pack(&p).unpack()), parts(&p));
                positions += 1;
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
            }
        }
        assert!(positions > 2000, "{positions}");
    }

    #[test]
    fn packs_into_32_bytes() {
        assert_eq!(std::mem::size_of::<PackedPosition>(), 32);
    }
}

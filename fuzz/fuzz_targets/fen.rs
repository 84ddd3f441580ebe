//! FEN parsing in both castling modes: an accepted position writes back to
//! a FEN that is accepted again and describes the same position, and its
//! legal moves can be played and taken back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shakmaty::Position;
use tessera::board::Board;

fuzz_target!(|data: &[u8]| {
    let Ok(fen) = std::str::from_utf8(data) else { return };
    for chess960 in [false, true] {
        let Ok(mut board) = Board::from_fen(fen, chess960) else { continue };
        let written = board.fen();
        let again = Board::from_fen(&written, chess960).expect("a written FEN is read back");
        assert_eq!(again.fen(), written);
        let moves = board.pos().legal_moves();
        for m in moves.iter().take(8) {
            board.push(*m);
            board.pop();
        }
        assert_eq!(board.fen(), written);
    }
});

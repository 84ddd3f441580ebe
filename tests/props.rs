//! Property tests over the entry points that read outside input: FENs and
//! `.nnue` files. Arbitrary input never panics (and, being a test, never
//! hangs); it is accepted or refused with an error.

use proptest::prelude::*;
use tessera::board::Board;
use tessera::features::FeatureSet;
use tessera::nnue::network::{FloatNetwork, Network};

fn small_net() -> Vec<u8> {
    let fs: FeatureSet = "all".parse().unwrap();
    FloatNetwork::random(&fs, 16, 8, 0, 1).quantize("props").to_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn any_fen_is_accepted_or_refused(fen in "\\PC{0,100}", chess960 in any::<bool>()) {
        if let Ok(board) = Board::from_fen(&fen, chess960) {
            // An accepted position can be written back and read again.
            prop_assert!(Board::from_fen(&board.fen(), chess960).is_ok() || Board::from_fen(&board.fen(), true).is_ok());
        }
    }

    /// FEN-shaped text: eight ranks of pieces and digits, any side, rights and counters.
    #[test]
    fn fen_shaped_text_is_accepted_or_refused(
        ranks in prop::collection::vec("[pnbrqkPNBRQK1-8]{1,8}", 1..10),
        rest in "[wb] (-|[KQkqA-Ha-h]{1,4}) (-|[a-h][1-8]) [0-9]{1,3} [0-9]{1,3}",
    ) {
        let fen = format!("{} {rest}", ranks.join("/"));
        let _ = Board::from_fen(&fen, false);
        let _ = Board::from_fen(&fen, true);
    }

    #[test]
    fn arbitrary_bytes_are_not_a_net(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        prop_assert!(Network::from_bytes(&bytes).is_err() || bytes.starts_with(b"TSNN"));
    }

    /// A valid net with bytes changed, cut or added: refused or loaded, never a panic.
    #[test]
    fn damaged_nets_are_refused(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<Option<prop::sample::Index>>(),
    ) {
        let mut bytes = small_net();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = Network::from_bytes(&bytes);
    }
}

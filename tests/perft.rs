//! Move generation checked against published perft counts.

use std::path::Path;

use tessera::board::{Board, perft::divide, perft::perft};

/// The seven positions of the chessprogramming wiki's "Perft Results" page
/// with their published counts, depths 1–5 (6 for the cheaper ones).
const CPW: &[(&str, &[u64])] = &[
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[20, 400, 8_902, 197_281, 4_865_609]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[48, 2_039, 97_862, 4_085_603]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2_812, 43_238, 674_624, 11_030_083]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", &[6, 264, 9_467, 422_333, 15_833_292]),
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", &[6, 264, 9_467, 422_333, 15_833_292]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", &[44, 1_486, 62_379, 2_103_487]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", &[46, 2_079, 89_890, 3_894_594]),
];

#[test]
fn chessprogramming_wiki_positions() {
    for (fen, counts) in CPW {
        let board = Board::from_fen(fen, false).unwrap();
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(perft(board.pos(), depth as u32 + 1), expected, "{fen} depth {}", depth + 1);
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    let board = Board::from_fen(CPW[1].0, false).unwrap();
    let rows = divide(&board, 3);
    assert_eq!(rows.len(), 48);
    assert_eq!(rows.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert!(rows.iter().any(|(m, _)| m == "e1g1"), "castling is written king to destination");
}

/// Runs every line of an EPD perft suite (`FEN ;D1 n ;D2 n …`) at each depth
/// whose count is at most `max_nodes`, so the suite stays fast.
fn run_suite(file: &str, chess960: bool, max_nodes: u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perft").join(file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        tessera::testing::skip("shared-data", &format!("{} is not present", path.display()));
        return;
    };
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut fields = line.split(';');
        let fen = fields.next().unwrap().trim();
        let board = Board::from_fen(fen, chess960).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for field in fields {
            let field = field.trim();
            let Some(rest) = field.strip_prefix('D') else { continue };
            let mut parts = rest.split_whitespace();
            let depth: u32 = parts.next().unwrap().parse().unwrap();
            let expected: u64 = parts.next().unwrap().parse().unwrap();
            if expected <= max_nodes {
                assert_eq!(perft(board.pos(), depth), expected, "{fen} depth {depth}");
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "{file} had no usable entries");
    eprintln!("{file}: {checked} counts checked");
}

#[test]
fn shared_standard_suite() {
    run_suite("standard.epd", false, 2_000_000);
}

#[test]
fn shared_fischer960_suite() {
    run_suite("fischer960.epd", true, 400_000);
}

#[test]
fn shared_cpw_suite() {
    run_suite("cpw_standard6.epd", false, 5_000_000);
}

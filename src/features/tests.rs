//! Tests shared by every block: sizes, hand-checked indices, colour
//! symmetry, and incremental updates equal to recomputation.

use std::collections::HashMap;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};

use super::*;
use crate::testing::XorShift;

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

fn set(expr: &str) -> FeatureSet {
    expr.parse().unwrap()
}

fn active(fs: &FeatureSet, p: &Chess, color: Color) -> Vec<u32> {
    let mut out = Vec::new();
    fs.active(p, Perspective(color), &mut out);
    out.sort_unstable();
    out
}

#[test]
fn sizes_match_the_thesis_table() {
    let expected = [
        ("all", 768),
        ("h", 96),
        ("v", 96),
        ("d1", 180),
        ("d2", 180),
        ("compact", 192),
        ("ph", 1152),
        ("pv", 1152),
        ("mb", 768),
        ("mc", 206),
        ("kp", 40960),
        ("ka", 49152),
        ("kb4", 3072),
        ("kb8", 6144),
        ("kb16", 12288),
        ("rk-h", 1200),
        ("rk-v", 1200),
        ("rk-hv", 2250),
        ("pm", 4864),
        ("pp", 128),
        ("pin", 768),
        ("ctl", 384),
        ("mt", 128),
        ("cr", 4),
        ("th", 90_384),
        ("all+ph+pv", 768 + 2 * 1152),
    ];
    for (expr, size) in expected {
        assert_eq!(set(expr).size(), size, "{expr}");
    }
    assert_eq!(block_names().count(), 25);
}

#[test]
fn bad_expressions_list_the_valid_names() {
    for bad in ["", "  ", "all+", "all++h", "queen", "all+x"] {
        let err = bad.parse::<FeatureSet>().unwrap_err().to_string();
        assert!(err.contains("valid blocks: all, h, v"), "{bad:?}: {err}");
    }
    assert!("all+queen".parse::<FeatureSet>().unwrap_err().to_string().contains("unknown block 'queen'"));
}

/// The thesis's example board: white Kc3 Nc2 Pa2 Pd4, black Kc8 Bh7 Pa7.
const THESIS_BOARD: &str = "2k5/p6b/8/8/3P4/2K5/P1N5/8 w - - 0 1";

#[test]
fn file_features_on_the_thesis_board() {
    let p = pos(THESIS_BOARD);
    // index = (file · 6 + role) · 2 + colour; colour 0 = ours.
    // White: Pa2 0, Nc2 (2·6+1)·2 = 26, Kc3 (2·6+5)·2 = 34, Pd4 (3·6)·2 = 36;
    // black: Pa7 1, Kc8 35, Bh7 (7·6+2)·2+1 = 89.
    assert_eq!(active(&set("h"), &p, Color::White), vec![0, 1, 26, 34, 35, 36, 89]);
    // From black's side the colours swap; files stay.
    assert_eq!(active(&set("h"), &p, Color::Black), vec![0, 1, 27, 34, 35, 37, 88]);
    // Ranks for v: Pa2 rank 1 → (1·6)·2 = 12 for white; for black Pa7 is on
    // its rank 1 too (flipped), ours.
    assert!(active(&set("v"), &p, Color::White).contains(&12));
    assert!(active(&set("v"), &p, Color::Black).contains(&12));
}

#[test]
fn pairwise_features_on_the_thesis_board() {
    let p = pos(THESIS_BOARD);
    // ph: rank 2 has Pa2 then Nc2: (1·12 + 0)·12 + 2 = 146; rank 7 has Pa7
    // then Bh7, theirs: (6·12 + 1)·12 + 5 = 881.
    assert_eq!(active(&set("ph"), &p, Color::White), vec![146, 881]);
    // pv: file a Pa2→Pa7 (0·12+0)·12+1 = 1; file c Nc2→Kc3 (2·12+2)·12+10 = 322,
    // Kc3→Kc8 (2·12+10)·12+11 = 419.
    assert_eq!(active(&set("pv"), &p, Color::White), vec![1, 322, 419]);
}

#[test]
fn piece_and_king_features_by_hand() {
    let p = pos(THESIS_BOARD);
    // all: Pa2 on square 8: (8·6+0)·2 = 96; black's Pa7 is on its a2: 96 too.
    assert!(active(&set("all"), &p, Color::White).contains(&96));
    assert!(active(&set("all"), &p, Color::Black).contains(&96));
    // kp: our king c3 (18), Nc2 (10): ((18·64 + 10)·5 + 1)·2 = 11622; kings excluded.
    let kp = active(&set("kp"), &p, Color::White);
    assert_eq!(kp.len(), 5);
    assert!(kp.contains(&11622));
    assert_eq!(active(&set("ka"), &p, Color::White).len(), 7);
    // rk-h: king file c (2), Pd4: file offset 2 + 7 − 3 = 6, rank 3:
    // ((6·8 + 3)·5 + 0)·2 = 510.
    assert!(active(&set("rk-h"), &p, Color::White).contains(&510));
    // mc: one bucket per (role, colour).
    assert_eq!(active(&set("mc"), &p, Color::White).len(), 12);
    // pm: all plus one feature per legal move.
    assert_eq!(active(&set("pm"), &p, Color::White).len(), 7 + p.legal_moves().len());
}

#[test]
fn mobility_bitset_by_hand() {
    // White: Kh1, Rа1 … a lone rook on a1 with kings on h1 and h8.
    let p = pos("7k/8/8/8/8/8/8/R6K w - - 0 1");
    let mb = active(&set("mb"), &p, Color::White);
    // Rook (role 3, ours): a2..a8 and b1..g1 = 13 squares; white king: g1, g2, h2
    // = 3; black king: g8, g7, h7 = 3.
    assert_eq!(mb.len(), 19);
    let rook_a8 = ((56 * 6 + 3) * 2) as u32;
    assert!(mb.contains(&rook_a8));
}

fn mirrored(p: &Chess) -> Chess {
    let mut setup = p.to_setup(EnPassantMode::Legal);
    setup.mirror();
    <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard).unwrap()
}

#[test]
fn colour_mirrored_positions_swap_perspectives() {
    let fens = [
        THESIS_BOARD,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];
    for fen in fens {
        let p = pos(fen);
        let m = mirrored(&p);
        for name in block_names() {
            let fs = set(name);
            assert_eq!(active(&fs, &p, Color::White), active(&fs, &m, Color::Black), "{name} {fen}");
            assert_eq!(active(&fs, &p, Color::Black), active(&fs, &m, Color::White), "{name} {fen}");
        }
    }
}

/// Applies an update to a multiset of active indices.
fn apply(current: &[u32], update: &Update) -> Vec<u32> {
    let mut counts: HashMap<u32, i32> = HashMap::new();
    for &i in current.iter().chain(&update.added) {
        *counts.entry(i).or_default() += 1;
    }
    for &i in &update.removed {
        *counts.entry(i).or_default() -= 1;
    }
    let mut out = Vec::new();
    for (i, n) in counts {
        assert!(n >= 0, "index {i} removed more often than it was active");
        out.extend(std::iter::repeat_n(i, n as usize));
    }
    out.sort_unstable();
    out
}

#[derive(Default, Debug)]
struct Coverage {
    castle_king_side: bool,
    castle_queen_side: bool,
    en_passant: bool,
    promotion: bool,
    promotion_capture: bool,
    king_move: bool,
}

#[test]
fn incremental_updates_equal_recomputation() {
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    ];
    // `kp+ph+mb`: a king move refreshes one part of a sum but not the others.
    let sums = [set("all+ph+pv+mb+mc"), set("kp+ph+mb"), FeatureSet::dynamic(COMPILED_EXPRESSION).unwrap()];
    let sets: Vec<FeatureSet> = block_names().map(set).chain(sums).collect();
    let mut coverage = Coverage::default();
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d_u64);
    let mut moves_checked = 0;
    for start in starts {
        for _game in 0..12 {
            let mut p = pos(start);
            for _ply in 0..40 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let r = rng.next_u64();
                // Prefer the special moves half of the time so they are covered.
                let special: Vec<Move> =
                    legal.iter().copied().filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion()).collect();
                let m = if !special.is_empty() && r.is_multiple_of(2) {
                    special[(r >> 8) as usize % special.len()]
                } else {
                    legal[(r >> 8) as usize % legal.len()]
                };
                match m {
                    Move::Castle { king, rook } if rook > king => coverage.castle_king_side = true,
                    Move::Castle { .. } => coverage.castle_queen_side = true,
                    Move::EnPassant { .. } => coverage.en_passant = true,
                    Move::Normal { promotion: Some(_), capture: Some(_), .. } => coverage.promotion_capture = true,
                    Move::Normal { promotion: Some(_), .. } => coverage.promotion = true,
                    Move::Normal { role: Role::King, .. } => coverage.king_move = true,
                    _ => {}
                }
                let mut after = p.clone();
                after.play_unchecked(m);
                for fs in &sets {
                    for color in Color::ALL {
                        let update = fs.update(&p, m, &after, Perspective(color));
                        let fresh = active(fs, &after, color);
                        if update.refresh {
                            continue;
                        }
                        let incremental = apply(&active(fs, &p, color), &update);
                        assert_eq!(
                            incremental,
                            fresh,
                            "{} {color:?} after {m:?} in {}",
                            fs.expression(),
                            Fen::from_position(&p, EnPassantMode::Legal)
                        );
                    }
                }
                moves_checked += 1;
                p = after;
            }
        }
    }
    assert!(moves_checked > 2_000, "{moves_checked}");
    assert!(
        coverage.castle_king_side
            && coverage.castle_queen_side
            && coverage.en_passant
            && coverage.promotion
            && coverage.promotion_capture
            && coverage.king_move,
        "{coverage:?}"
    );
}

#[test]
fn king_moves_refresh_king_relative_sets_only_for_that_side() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    // e1–d1 crosses the middle: a refresh for the king-bucketed sets too.
    let m = p.legal_moves().into_iter().find(|m| m.role() == Role::King && m.to() == Square::D1).unwrap();
    let mut after = p.clone();
    after.play_unchecked(m);
    for name in ["kp", "ka", "rk-h", "rk-v", "rk-hv", "kb4", "kb8", "kb16"] {
        let fs = set(name);
        assert!(fs.update(&p, m, &after, Perspective(Color::White)).refresh, "{name}");
        assert!(!fs.update(&p, m, &after, Perspective(Color::Black)).refresh, "{name}");
    }
    assert!(!set("all").update(&p, m, &after, Perspective(Color::White)).refresh);
}

#[test]
fn king_buckets_refresh_only_across_buckets_and_are_mirror_symmetric() {
    // e1–f1 stays in kb4's bucket 1 on the mirrored side: incremental.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
    let m = p.legal_moves().into_iter().find(|m| m.role() == Role::King && m.to() == Square::F1).unwrap();
    let mut after = p.clone();
    after.play_unchecked(m);
    assert!(!set("kb4").update(&p, m, &after, Perspective(Color::White)).refresh);
    assert!(set("kb8").update(&p, m, &after, Perspective(Color::White)).refresh, "kb8: bucket 3 → 2");
    // Castling short moves the king e1 → g1: bucket 1 → 0 in kb4.
    let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let short = castle.legal_moves().into_iter().find(|m| m.is_castle() && m.to() == Square::H1).unwrap();
    let mut after = castle.clone();
    after.play_unchecked(short);
    assert!(set("kb4").update(&castle, short, &after, Perspective(Color::White)).refresh);

    // A board flipped a↔h has the same features (no castling rights to flip).
    let fens = [
        "4k3/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/4K3 w - - 0 1",
        "8/5k2/3p4/1p1Pp1P1/1P2P3/8/3K4/8 b - - 0 40",
        "r4rk1/1b3ppp/p7/1p1Nq3/8/1B6/PPP2PPP/3RR1K1 w - - 0 20",
    ];
    for fen in fens {
        let p = pos(fen);
        let mut setup = p.to_setup(EnPassantMode::Legal);
        setup.board.flip_horizontal();
        let flipped = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard).unwrap();
        for name in ["kb4", "kb8", "kb16"] {
            for color in Color::ALL {
                assert_eq!(
                    active(&set(name), &p, color),
                    active(&set(name), &flipped, color),
                    "{name} {fen} {color:?}"
                );
            }
        }
    }
}

#[test]
fn the_compiled_set_behaves_as_its_dynamic_twin() {
    let compiled = set(COMPILED_EXPRESSION);
    let dynamic = FeatureSet::dynamic(COMPILED_EXPRESSION).unwrap();
    assert!(compiled.is_compiled() && !dynamic.is_compiled());
    assert!(!set(if COMPILED_EXPRESSION == "kp" { "all" } else { "kp" }).is_compiled());
    assert_eq!(compiled.size(), dynamic.size());
    let names = |fs: &FeatureSet| fs.blocks().iter().map(|(b, o)| (b.name(), *o)).collect::<Vec<_>>();
    assert_eq!(names(&compiled), names(&dynamic));
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15_u64);
    for _game in 0..20 {
        let mut p = Chess::default();
        for _ply in 0..60 {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            let r = rng.next_u64();
            let m = legal[(r >> 8) as usize % legal.len()];
            let mut after = p.clone();
            after.play_unchecked(m);
            for color in Color::ALL {
                let perspective = Perspective(color);
                assert_eq!(active(&compiled, &p, color), active(&dynamic, &p, color));
                assert_eq!(compiled.update(&p, m, &after, perspective), dynamic.update(&p, m, &after, perspective));
            }
            p = after;
        }
    }
}

/// A block that declares no change on a pass must list the same features
/// after a null move (the search copies the accumulators then); one that
/// declares it must differ somewhere, or the declaration costs for nothing.
#[test]
fn only_blocks_that_declare_it_change_on_a_pass() {
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    ];
    for name in block_names() {
        let fs = set(name);
        let mut differs = false;
        for fen in fens {
            let p = pos(fen);
            let Ok(passed) = p.clone().swap_turn() else { continue };
            for color in Color::ALL {
                let (before, after) = (active(&fs, &p, color), active(&fs, &passed, color));
                if !fs.changes_on_pass() {
                    assert_eq!(before, after, "{name} changes on a pass in {fen}");
                }
                differs |= before != after;
            }
        }
        assert_eq!(differs, fs.changes_on_pass(), "{name}");
    }
    assert!(set("all+pm").changes_on_pass() && !set("kp+ph").changes_on_pass());
}

/// The plane blocks and the castling rights, by hand: white's view, then
/// black's (ranks flipped, ours and theirs swapped).
#[test]
fn plane_blocks_by_hand() {
    let both = |expr: &str, fen: &str| {
        (active(&set(expr), &pos(fen), Color::White), active(&set(expr), &pos(fen), Color::Black))
    };
    // Passed pawns: a2 is passed, d5 is passed; with a white pawn on e4 neither d5 nor e4 is.
    assert_eq!(both("pp", "4k3/8/8/3p4/8/8/P7/4K3 w - - 0 1"), (vec![8, 64 + 35], vec![27, 64 + 48]));
    assert_eq!(both("pp", "4k3/8/8/3p4/4P3/8/P7/4K3 w - - 0 1").0, vec![8]);
    // Pins: the bishop on b4 pins the knight on d2 to the king on e1 (knight: role 1).
    assert_eq!(both("pin", "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"), (vec![2 * 64 + 11], vec![3 * 64 + 51]));
    assert!(both("pin", "4k3/8/8/8/1b6/2P5/3N4/4K3 w - - 0 1").0.is_empty(), "two pieces between: no pin");
    // Control: the kings alone attack their neighbours once each.
    let kings = "7k/8/8/8/8/8/8/K7 w - - 0 1";
    assert_eq!(both("ctl", kings).0, vec![1, 8, 9, 3 * 64 + 54, 3 * 64 + 55, 3 * 64 + 62]);
    // b2 attacked by the king and the rook: bucket 2 (channel 1).
    assert!(both("ctl", "7k/8/8/8/8/8/8/KR6 w - - 0 1").0.contains(&(64 + 9)));
    // Reach: each king's three moves; the side not to move as if it were to move.
    assert_eq!(both("mt", kings).0, vec![1, 8, 9, 64 + 54, 64 + 55, 64 + 62]);
    // Black's view: its king's g8, g7, h7 become g1, g2, h2; white's a2, b2, b1 become a7, b7, b8.
    assert_eq!(both("mt", kings).1, vec![6, 14, 15, 64 + 48, 64 + 49, 64 + 57]);
    // Castling rights: ours first.
    assert_eq!(both("cr", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").0, vec![0, 1, 2, 3]);
    assert_eq!(both("cr", "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1"), (vec![0, 3], vec![1, 2]));
}

/// Threats by hand: pieces that attack nothing give no feature; a rook and
/// the knight at the far end of its file give one pair, seen from both sides.
#[test]
fn threat_pairs_by_hand() {
    let fs = set("th");
    assert!(active(&fs, &pos("7k/8/8/8/8/8/8/K7 w - - 0 1"), Color::White).is_empty());
    // Rook a1 (ours for white) attacks the knight a8 (theirs); nothing else attacks anything.
    let p = pos("n6k/8/8/8/8/8/7K/R7 w - - 0 1");
    let white = active(&fs, &p, Color::White);
    assert_eq!(white.len(), 1, "{white:?}");
    // Black's view of the same pair: their rook attacks our knight.
    let black = active(&fs, &p, Color::Black);
    assert_eq!(black.len(), 1);
    assert_ne!(white, black, "the pieces' sides differ between the two views");
    // The colour-mirrored position seen from black is this one seen from white.
    assert_eq!(active(&fs, &pos("r7/7k/8/8/8/8/8/N6K b - - 0 1"), Color::Black), white);
    // Defended pieces count: two rooks side by side are two pairs.
    assert_eq!(active(&fs, &pos("7k/8/8/8/8/8/7K/RR6 w - - 0 1"), Color::White).len(), 2);
}

//! Data augmentation: training samples made from others by a symmetry of
//! chess that keeps their labels true.
//!
//! Mirroring the board across the line between the d- and e-files (a-file ↔
//! h-file) changes nothing in the game once neither side may castle: every
//! move has its mirror image, so the mirrored position has the same value and
//! the same result for the side to move. A net that sees both learns that
//! symmetry instead of having to find it in twice the games. Positions with a
//! castling right are left alone (castling is not symmetric: the king goes to
//! g or c, and the rooks start on a and h).

use std::collections::HashSet;

use rayon::prelude::*;
use shakmaty::{Bitboard, CastlingMode, Chess, EnPassantMode, Position};

use crate::data::samples::{EvalSample, PqrSample, Samples, key};

/// `pos` mirrored a-file ↔ h-file, or `None` if a side may still castle.
pub fn mirror_files(pos: &Chess) -> Option<Chess> {
    if pos.castles().castling_rights() != Bitboard::EMPTY {
        return None;
    }
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.flip_horizontal();
    setup.ep_square = setup.ep_square.map(|sq| sq.flip_horizontal());
    // The mirror of a legal position without castling rights is legal; a
    // refusal here would be a bug in that reasoning, so the sample is skipped
    // rather than trusted.
    setup.position(CastlingMode::Standard).ok()
}

/// What [`add_mirrors`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MirrorReport {
    /// Samples with a castling right (no mirror).
    pub castling: usize,
    /// Mirrors left out because the set (or `exclude`) already has that
    /// position: symmetric positions, and mirrors of each other.
    pub present: usize,
    pub added: usize,
}

/// The samples with their mirrors, and which sample each mirror came from.
pub struct Mirrored {
    pub samples: Samples,
    pub report: MirrorReport,
    /// For each appended mirror in order, the index of the sample it mirrors
    /// (a run holds far fewer than 2³² samples).
    pub origins: Vec<u32>,
}

/// `samples` followed by the mirror of every sample that has one, except
/// mirrors whose position is a key of `exclude` (the validation positions)
/// or already in the set.
pub fn add_mirrors(samples: Samples, exclude: &HashSet<u64>) -> Mirrored {
    let mut report = MirrorReport::default();
    let (out, origins) = match samples {
        Samples::Eval(mut v) => {
            let mirror = |s: &EvalSample| Some(EvalSample::new(&mirror_files(&s.pos())?, s.score, s.result));
            let origins = extend_with_mirrors(&mut v, mirror, EvalSample::pos, exclude, &mut report);
            (Samples::Eval(v), origins)
        }
        Samples::Pqr(mut v) => {
            let mirror = |s: &PqrSample| {
                Some(PqrSample { p: mirror_files(&s.p)?, q: mirror_files(&s.q)?, r: mirror_files(&s.r)? })
            };
            let origins = extend_with_mirrors(&mut v, mirror, |s| s.p.clone(), exclude, &mut report);
            (Samples::Pqr(v), origins)
        }
    };
    Mirrored { samples: out, report, origins }
}

/// Appends to `samples` the `mirror` of each of them that has one and whose
/// key position (`key_position`) is neither in `exclude` nor in the set yet;
/// returns the index of each appended mirror's original.
fn extend_with_mirrors<T: Send + Sync>(
    samples: &mut Vec<T>,
    mirror: impl Fn(&T) -> Option<T> + Sync,
    key_position: impl Fn(&T) -> Chess + Sync,
    exclude: &HashSet<u64>,
    report: &mut MirrorReport,
) -> Vec<u32> {
    // Keys in the parallel passes: a packed sample's position is rebuilt to
    // be hashed, too slow for the serial loop at tens of millions.
    let mut seen: HashSet<u64> = samples.par_iter().map(|s| key(&key_position(s))).collect();
    let mirrors: Vec<Option<(T, u64)>> = samples
        .par_iter()
        .map(|s| {
            mirror(s).map(|m| {
                let k = key(&key_position(&m));
                (m, k)
            })
        })
        .collect();
    let mut origins = Vec::new();
    for (i, m) in mirrors.into_iter().enumerate() {
        let Some((m, k)) = m else {
            report.castling += 1;
            continue;
        };
        if exclude.contains(&k) || !seen.insert(k) {
            report.present += 1;
        } else {
            report.added += 1;
            samples.push(m);
            origins.push(u32::try_from(i).expect("fewer than 2^32 training samples"));
        }
    }
    origins
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn fen(p: &Chess) -> String {
        Fen::from_position(p, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn mirrors_pieces_side_to_move_and_en_passant() {
        // White can take en passant on d6 from e5; mirrored, from d5 to e6.
        let p = pos("4k3/8/8/3pP3/8/8/1N6/4K3 w - d6 0 2");
        let m = mirror_files(&p).unwrap();
        assert_eq!(fen(&m), "3k4/8/8/3Pp3/8/8/6N1/3K4 w - e6 0 2");
        assert_eq!(mirror_files(&m).map(|b| fen(&b)), Some(fen(&p)), "mirroring twice is the identity");
        let ep: UciMove = "d5e6".parse().unwrap();
        assert!(ep.to_move(&m).is_ok(), "the mirrored en-passant capture is legal");
    }

    #[test]
    fn the_mirror_has_the_mirrored_moves() {
        let p = pos("r5k1/1b3ppp/p7/1p6/4n3/P1N2B2/1P3PPP/3R2K1 b - - 1 24");
        let m = mirror_files(&p).unwrap();
        let mut a: Vec<String> =
            p.legal_moves().iter().map(|mv| mv.to_uci(CastlingMode::Standard).to_string()).collect();
        let flip = |uci: &str| -> String {
            uci.chars().map(|c| if ('a'..='h').contains(&c) { (b'a' + b'h' - c as u8) as char } else { c }).collect()
        };
        let mut b: Vec<String> =
            m.legal_moves().iter().map(|mv| flip(&mv.to_uci(CastlingMode::Standard).to_string())).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn positions_with_castling_rights_are_not_mirrored() {
        assert!(mirror_files(&Chess::default()).is_none());
        assert!(mirror_files(&pos("4k2r/8/8/8/8/8/8/4K3 b k - 0 1")).is_none());
    }

    #[test]
    fn mirrors_are_added_once_with_their_labels_and_never_over_held_out_positions() {
        let sample = |f: &str, score: f32| EvalSample::new(&pos(f), score, 1.0);
        let a = "4k3/8/8/8/8/8/1N6/4K3 w - - 0 1"; // mirror: 3k4/8/8/8/8/8/6N1/3K4
        let b = "3k4/8/8/8/8/8/6N1/3K4 w - - 0 1"; // a's mirror, already present
        let c = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"; // castling: no mirror
        let d = "7k/8/8/8/8/8/P7/K7 w - - 0 1"; // its mirror is held out
        let held: HashSet<u64> = [key(&pos("k7/8/8/8/8/8/7P/7K w - - 0 1"))].into();
        let set = Samples::Eval(vec![sample(a, 50.0), sample(b, 40.0), sample(c, 30.0), sample(d, 20.0)]);
        let m = add_mirrors(set, &held);
        assert_eq!(m.report, MirrorReport { castling: 1, present: 3, added: 0 });
        assert_eq!(m.samples.len(), 4);
        assert!(m.origins.is_empty());

        let e = "8/5k2/8/3q4/8/8/1PP5/1K6 w - - 0 40";
        let m = add_mirrors(Samples::Eval(vec![sample(c, 30.0), sample(e, -300.0)]), &HashSet::new());
        assert_eq!(m.report, MirrorReport { castling: 1, present: 0, added: 1 });
        assert_eq!(m.origins, vec![1], "the mirror is e's, the second sample's");
        let Samples::Eval(v) = m.samples else { unreachable!() };
        assert_eq!(v.len(), 3);
        assert_eq!(fen(&v[2].pos()), "8/2k5/8/4q3/8/8/5PP1/6K1 w - - 0 40");
        assert_eq!((v[2].score, v[2].result), (-300.0, 1.0), "a mirror keeps its sample's labels");
    }
}

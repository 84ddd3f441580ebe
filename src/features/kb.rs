//! `kb4`, `kb8`, `kb16` (king buckets): the 768 piece-square features of
//! `all`, repeated once per bucket of our king's square, with the board
//! mirrored horizontally (files a↔h) when our king stands on files e–h.
//!
//! Mirroring folds the 64 king squares onto the 32 of files a–d; a layout
//! maps those 32 onto its buckets. Index =
//! `bucket · 768 + (square' · 6 + role) · 2 + colour`, where `square'` is the
//! piece's oriented square, mirrored when our king is on files e–h.
//!
//! Layouts (our king, seen from our side after mirroring; files a b c d):
//!
//! ```text
//!           kb4          kb8           kb16
//! rank 8    3 3 3 3      7 7 7 7      15 15 15 15
//! rank 7    3 3 3 3      7 7 7 7      15 15 15 15
//! rank 6    3 3 3 3      7 7 7 7      14 14 14 14
//! rank 5    3 3 3 3      7 7 7 7      14 14 14 14
//! rank 4    3 3 3 3      7 7 7 7      12 12 13 13
//! rank 3    2 2 2 2      6 6 6 6       8  9 10 11
//! rank 2    2 2 2 2      4 4 5 5       4  5  6  7
//! rank 1    0 0 1 1      0 1 2 3       0  1  2  3
//! ```
//!
//! Buckets are finest where kings spend the middlegame (the back ranks) and
//! coarse where they only go in endgames. A king move refreshes our
//! perspective only when it changes the bucket or crosses the d/e line;
//! every other king move is an ordinary incremental update.

use std::marker::PhantomData;

use shakmaty::{File, Square};

use super::line::PieceFeature;

/// A bucket layout: its name and the bucket of each king square of files
/// a–d, rank-major (a1 b1 c1 d1 a2 …).
pub trait Layout: Send + Sync + 'static {
    const NAME: &'static str;
    const BUCKETS: usize;
    const TABLE: [u8; 32];
}

pub struct Four;
pub struct Eight;
pub struct Sixteen;

impl Layout for Four {
    const NAME: &'static str = "kb4";
    const BUCKETS: usize = 4;
    #[rustfmt::skip]
    const TABLE: [u8; 32] = [
        0, 0, 1, 1,
        2, 2, 2, 2,
        2, 2, 2, 2,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
        3, 3, 3, 3,
    ];
}

impl Layout for Eight {
    const NAME: &'static str = "kb8";
    const BUCKETS: usize = 8;
    #[rustfmt::skip]
    const TABLE: [u8; 32] = [
        0, 1, 2, 3,
        4, 4, 5, 5,
        6, 6, 6, 6,
        7, 7, 7, 7,
        7, 7, 7, 7,
        7, 7, 7, 7,
        7, 7, 7, 7,
        7, 7, 7, 7,
    ];
}

impl Layout for Sixteen {
    const NAME: &'static str = "kb16";
    const BUCKETS: usize = 16;
    #[rustfmt::skip]
    const TABLE: [u8; 32] = [
        0, 1, 2, 3,
        4, 5, 6, 7,
        8, 9, 10, 11,
        12, 12, 13, 13,
        14, 14, 14, 14,
        14, 14, 14, 14,
        15, 15, 15, 15,
        15, 15, 15, 15,
    ];
}

/// The king-bucketed piece-square block of layout `L`.
pub struct Kb<L>(PhantomData<L>);

/// Whether our king (oriented square) puts the board in its mirrored form.
pub fn mirrors(king: Square) -> bool {
    king.file() >= File::E
}

/// The bucket of our king (oriented square) in layout `L`.
pub fn bucket<L: Layout>(king: Square) -> usize {
    let file = if mirrors(king) { 7 - king.file() as usize } else { king.file() as usize };
    L::TABLE[king.rank() as usize * 4 + file] as usize
}

impl<L: Layout> PieceFeature for Kb<L> {
    const NAME: &'static str = L::NAME;
    const SIZE: usize = L::BUCKETS * 768;
    const KING_RELATIVE: bool = true;

    fn index(sq: Square, role: usize, colour: usize, king: Square) -> Option<u32> {
        let sq = if mirrors(king) { sq.flip_horizontal() } else { sq };
        Some((bucket::<L>(king) * 768 + (sq as usize * 6 + role) * 2 + colour) as u32)
    }

    fn king_move_refreshes(from: Square, to: Square) -> bool {
        bucket::<L>(from) != bucket::<L>(to) || mirrors(from) != mirrors(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_is_used_and_the_tables_are_in_range() {
        fn check<L: Layout>() {
            let mut seen = vec![false; L::BUCKETS];
            for &b in &L::TABLE {
                seen[b as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{}: every bucket has a square", L::NAME);
        }
        check::<Four>();
        check::<Eight>();
        check::<Sixteen>();
    }

    #[test]
    fn mirrored_king_squares_share_a_bucket() {
        for sq in Square::ALL {
            assert_eq!(bucket::<Sixteen>(sq), bucket::<Sixteen>(sq.flip_horizontal()), "{sq}");
            assert_eq!(bucket::<Eight>(sq), bucket::<Eight>(sq.flip_horizontal()), "{sq}");
        }
    }

    #[test]
    fn indices_by_hand() {
        type K8 = Kb<Eight>;
        // King on e1 (mirrored, bucket of d1 = 3): a white pawn (ours) on
        // a2 counts as on h2: 3·768 + (15·6 + 0)·2 + 0.
        assert_eq!(K8::index(Square::A2, 0, 0, Square::E1), Some(3 * 768 + 180));
        // King on d1 (not mirrored, bucket 3): their queen (role 4) on h8.
        assert_eq!(K8::index(Square::H8, 4, 1, Square::D1), Some(3 * 768 + (63 * 6 + 4) * 2 + 1));
        // King on b2 → bucket 4 in kb8, 5 in kb16, 2 in kb4.
        assert_eq!(Kb::<Eight>::index(Square::A1, 5, 0, Square::B2), Some(4 * 768 + 10));
        assert_eq!(Kb::<Sixteen>::index(Square::A1, 5, 0, Square::B2), Some(5 * 768 + 10));
        assert_eq!(Kb::<Four>::index(Square::A1, 5, 0, Square::B2), Some(2 * 768 + 10));
        // Sizes.
        assert_eq!((Kb::<Four>::SIZE, Kb::<Eight>::SIZE, Kb::<Sixteen>::SIZE), (3072, 6144, 12288));
    }

    #[test]
    fn king_moves_refresh_only_across_buckets_or_the_middle() {
        type K8 = Kb<Eight>;
        assert!(!K8::king_move_refreshes(Square::A5, Square::B6), "both in bucket 7, same side");
        assert!(K8::king_move_refreshes(Square::D4, Square::E4), "crosses the d/e line");
        assert!(K8::king_move_refreshes(Square::E1, Square::F1), "bucket 3 → 2 (mirrored d1 → c1)");
        assert!(!K8::king_move_refreshes(Square::A2, Square::B2), "bucket 4 both");
    }
}

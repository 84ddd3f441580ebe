//! The transposition table, shared lock-free between search threads.
//!
//! Each entry is two atomic words: the data and the key XOR the data. A torn
//! write by another thread makes the check fail, so a probe never returns data
//! that belongs to another position (the "lockless hashing" scheme).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use shakmaty::{Move, Square};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

impl Bound {
    /// What a search result tells about the true score, given the window
    /// `(alpha, beta)` it was searched with.
    pub fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a stored score with this bound settles a search of `(alpha, beta)`.
    pub fn cuts(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

/// A move packed into 16 bits: from, to, promotion role. Castling is stored
/// as king square → rook square, as shakmaty represents it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(pub u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn of(m: Move) -> PackedMove {
        let from = m.from().map_or(0, |s| s as u16);
        let to = m.to() as u16;
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from | to << 6 | promo << 12)
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The squares the move goes from and to (for castling: the king's and
    /// the rook's).
    pub fn squares(self) -> (Square, Square) {
        (Square::new(u32::from(self.0 & 63)), Square::new(u32::from((self.0 >> 6) & 63)))
    }

    pub fn matches(self, m: Move) -> bool {
        !self.is_none() && PackedMove::of(m) == self
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mv: PackedMove,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

const ENTRIES_PER_BUCKET: usize = 4;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    slots: [Slot; ENTRIES_PER_BUCKET],
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    age: AtomicU8,
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | age 6
fn pack(mv: PackedMove, score: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    mv.0 as u64
        | ((score as i16 as u16) as u64) << 16
        | ((eval as i16 as u16) as u64) << 32
        | (depth.clamp(0, 255) as u64) << 48
        | (bound as u64) << 56
        | ((age & 63) as u64) << 58
}

fn unpack(data: u64) -> Option<(Entry, u8)> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let entry = Entry {
        mv: PackedMove(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: ((data >> 48) & 255) as i32,
        bound,
    };
    Some((entry, (data >> 58) as u8))
}

impl TranspositionTable {
    pub fn new(megabytes: usize) -> TranspositionTable {
        TranspositionTable::try_new(megabytes).expect("allocate transposition table")
    }

    /// A table of `megabytes` MB, or an error if that memory is not available.
    pub fn try_new(megabytes: usize) -> Result<TranspositionTable, String> {
        let count = (megabytes.max(1) << 20) / std::mem::size_of::<Bucket>();
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate {megabytes} MB for the transposition table"))?;
        // Before the first write, so the kernel backs the table with huge
        // pages from the start.
        advise_huge_pages(buckets.as_ptr() as usize, count * std::mem::size_of::<Bucket>());
        buckets.resize_with(count, Bucket::default);
        Ok(TranspositionTable { buckets, age: AtomicU8::new(0) })
    }

    pub fn clear(&self) {
        for bucket in &self.buckets {
            for slot in &bucket.slots {
                slot.check.store(0, Ordering::Relaxed);
                slot.data.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Called once per search so older entries lose priority.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn age(&self) -> u8 {
        self.age.load(Ordering::Relaxed) & 63
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Starts loading `key`'s bucket into the cache, so that the probe a
    /// little later (after move generation, at the child node) does not wait
    /// for memory.
    pub fn prefetch(&self, key: u64) {
        super::prefetch::prefetch(self.bucket(key));
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.bucket(key).slots.iter().find_map(|slot| {
            let data = slot.data.load(Ordering::Relaxed);
            if slot.check.load(Ordering::Relaxed) ^ data != key {
                return None;
            }
            unpack(data).map(|(entry, _)| entry)
        })
    }

    pub fn store(&self, key: u64, mv: PackedMove, score: i32, eval: i32, depth: i32, bound: Bound) {
        let age = self.age();
        let bucket = self.bucket(key);
        // Same position: overwrite. Otherwise replace the entry that is oldest
        // and shallowest (age counts for 8 plies of depth).
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        let mut old_move = PackedMove::NONE;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            let stored = unpack(data);
            if slot.check.load(Ordering::Relaxed) ^ data == key
                && let Some((e, _)) = stored
            {
                victim = slot;
                old_move = e.mv;
                // Keep a deeper exact result for the same position.
                if bound != Bound::Exact && e.depth > depth + 3 && e.bound == Bound::Exact {
                    return;
                }
                break;
            }
            let worth = match stored {
                None => i32::MIN,
                Some((e, entry_age)) => e.depth - 8 * (age.wrapping_sub(entry_age) & 63) as i32,
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }
        let mv = if mv.is_none() { old_move } else { mv };
        let data = pack(mv, score, eval, depth, bound, age);
        victim.data.store(data, Ordering::Relaxed);
        victim.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of entries written during the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age();
        let sample = self.buckets.iter().take(250);
        let mut used = 0;
        let mut total = 0;
        for bucket in sample {
            for slot in &bucket.slots {
                total += 1;
                if let Some((_, a)) = unpack(slot.data.load(Ordering::Relaxed)) {
                    used += (a == age) as u32;
                }
            }
        }
        (used * 1000).checked_div(total).unwrap_or(0)
    }
}

/// Asks Linux to back the 2 MB-aligned part of `[start, start + len)` with
/// transparent huge pages. Every probe lands on a random bucket: with 4 KB
/// pages nearly each one also misses the TLB (16 MB is 4096 pages, more than
/// the TLB holds), with 2 MB pages the whole default table fits in it. Where
/// the kernel does not do huge pages this changes nothing.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, len: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let begin = start.next_multiple_of(HUGE_PAGE);
    let end = (start + len) / HUGE_PAGE * HUGE_PAGE;
    if end > begin {
        // SAFETY: madvise only tells the kernel how to back pages of this
        // allocation, which we own and have not yet written; MADV_HUGEPAGE
        // never changes their contents or validity. A failure is harmless.
        unsafe { libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        assert!(tt.probe(key).is_none());
        tt.store(key, PackedMove(0x1abc), -30_500, -12, 7, Bound::Lower);
        let e = tt.probe(key).expect("stored entry");
        assert_eq!((e.mv, e.score, e.eval, e.depth, e.bound), (PackedMove(0x1abc), -30_500, -12, 7, Bound::Lower));
        assert!(tt.probe(key ^ 1).is_none());
        tt.clear();
        assert!(tt.probe(key).is_none());
    }

    #[test]
    fn packed_move_keeps_promotion() {
        let m = Move::Normal {
            role: Role::Pawn,
            from: shakmaty::Square::A7,
            capture: None,
            to: shakmaty::Square::A8,
            promotion: Some(Role::Knight),
        };
        let p = PackedMove::of(m);
        assert!(p.matches(m));
        assert_eq!(Role::try_from((p.0 >> 12) as u32).ok(), Some(Role::Knight));
    }
}

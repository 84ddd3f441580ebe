//! For the formats that store the move played from each position (binpack,
//! viriformat): which move to store, and whether the next entry continues
//! the same game. An entry is held until the next one shows that.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use super::{Entry, EntryWriter, WriteReport};

/// An entry ready to be stored: its move, and whether the entry after it is
/// the position that move leads to, in the same game (same result).
pub struct Link {
    pub entry: Entry,
    pub played: Move,
    pub continues: bool,
}

/// Holds the last entry until the next one arrives.
#[derive(Default)]
pub struct Chain {
    pending: Option<Entry>,
}

impl Chain {
    /// Takes the next entry; gives back the one before it, ready (`Err` with
    /// the reason for one that cannot be stored: no legal move).
    pub fn push(&mut self, next: Entry) -> Option<Result<Link, String>> {
        let previous = self.pending.replace(next)?;
        let next = self.pending.as_ref().expect("just set");
        let same_game = previous.record.result == next.record.result;
        let leads = same_game.then(|| move_between(&previous.record.pos, &next.record.pos)).flatten();
        Some(link(previous, leads))
    }

    /// The last entry, ready.
    pub fn finish(&mut self) -> Option<Result<Link, String>> {
        self.pending.take().map(|last| link(last, None))
    }
}

fn link(entry: Entry, leads: Option<Move>) -> Result<Link, String> {
    // A move the entry came with is kept; it continues the game only if it is
    // the move that leads to the next entry.
    let played = match (entry.played, leads) {
        (Some(m), _) => Some(m),
        (None, Some(m)) => Some(m),
        (None, None) => placeholder(&entry.record.pos),
    };
    match played {
        Some(played) => Ok(Link { continues: leads == Some(played), played, entry }),
        None => {
            let fen = shakmaty::fen::Fen::from_position(&entry.record.pos, EnPassantMode::Legal);
            Err(format!("{fen}: no legal move, and this format stores the move played from each position"))
        }
    }
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The legal move from `a` that gives `b` (clocks aside), if any.
pub fn move_between(a: &Chess, b: &Chess) -> Option<Move> {
    if a.turn() == b.turn() {
        return None;
    }
    let target = key(b);
    a.legal_moves().into_iter().find(|&m| {
        let mut after = a.clone();
        after.play_unchecked(m);
        key(&after) == target && after.board() == b.board()
    })
}

/// A quiet legal move (no capture, no promotion), else any legal move.
fn placeholder(pos: &Chess) -> Option<Move> {
    let legal = pos.legal_moves();
    legal.iter().find(|m| !m.is_capture() && !m.is_promotion()).or(legal.first()).copied()
}

/// What a format that stores moves does with each link.
pub trait LinkSink {
    /// Stores a link: `Ok(None)` when written, `Ok(Some(why))` when the
    /// format cannot hold it (skipped and counted), `Err` when writing failed.
    fn store(&mut self, link: Link) -> Result<Option<String>, String>;
    /// The chain has ended its game: make everything stored survive a kill.
    fn end(&mut self) -> Result<(), String>;
}

/// A writer for a format that stores moves: entries are chained, then stored.
pub struct Chained<S> {
    chain: Chain,
    sink: S,
    report: WriteReport,
}

impl<S: LinkSink> Chained<S> {
    pub fn new(sink: S) -> Chained<S> {
        Chained { chain: Chain::default(), sink, report: WriteReport::default() }
    }

    fn take(&mut self, link: Option<Result<Link, String>>) -> Result<(), String> {
        match link {
            None => {}
            Some(Err(why)) => self.report.skip(why),
            Some(Ok(link)) => match self.sink.store(link)? {
                None => self.report.written += 1,
                Some(why) => self.report.skip(why),
            },
        }
        Ok(())
    }
}

impl<S: LinkSink> EntryWriter for Chained<S> {
    fn write(&mut self, entry: &Entry) -> Result<(), String> {
        let link = self.chain.push(entry.clone());
        self.take(link)
    }

    fn sync(&mut self) -> Result<(), String> {
        let link = self.chain.finish();
        self.take(link)?;
        self.sink.end()
    }

    fn report(&self) -> WriteReport {
        self.report.clone()
    }
}

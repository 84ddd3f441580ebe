//! Every training-data format the tools read and write, behind one reader
//! ([`read`]) and one writer ([`create`]):
//!
//! | format | file name | bytes a position | keeps |
//! |---|---|---|---|
//! | `record` (Tessera's) | `*.bin` | 32 | position (standard castling), score, result; a checksum each |
//! | `text` | anything else, plain or zstd | ~60 (~12 zstd) | position (Chess960 too), score, result |
//! | `binpack` (Stockfish's) | `*.binpack` | ~2–3 in games, 36 alone | position (standard castling), move, score, result, ply |
//! | `viriformat` (viridithas's) | `*.vf` | 32 a game + 4 a move | position (Chess960 too), move, score, result |
//! | `bulletformat` (bullet's) | `*.bullet` | 32 | position from the side to move's view (no castling, no en passant), score, result |
//!
//! Binpack and viriformat store the move played from every position: that
//! is what lets them store a game's positions as moves. Records and text
//! lines carry no move, so writing them to either takes, for each position,
//! the move that leads to the next one where the next one follows from it
//! (consecutive positions of one game), and otherwise a quiet legal move as
//! a placeholder (trainers use the move only to skip positions whose move
//! captures; a quiet placeholder keeps the position in). A position without
//! a legal move cannot be stored there and is skipped and counted.
//!
//! A game written whole (datagen's binpack and viriformat output) keeps
//! every position, to carry the game on; those not meant for training carry
//! [`NO_SCORE`] (Stockfish's `VALUE_NONE`, which nnue-pytorch skips and
//! viriformat's filters drop as beyond any evaluation), and the readers here
//! skip them too, counting them in [`ReadReport::unscored`].

pub mod binpack;
pub mod bullet;
mod chain;
pub mod viri;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use shakmaty::{CastlingMode, Move};

use crate::record::Record;
use crate::store::{self, ReadReport, RecordWriter};

/// The score of a position stored only to carry its game on.
pub const NO_SCORE: i16 = 32002;

/// Why a writer of positions alone leaves out a [`NO_SCORE`] entry.
pub(crate) const UNSCORED: &str = "a position without a score (it only carries a game on)";

/// A file format of training data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Record,
    Text,
    Binpack,
    Viriformat,
    Bulletformat,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Record, Format::Text, Format::Binpack, Format::Viriformat, Format::Bulletformat];

    pub fn name(self) -> &'static str {
        match self {
            Format::Record => "record",
            Format::Text => "text",
            Format::Binpack => "binpack",
            Format::Viriformat => "viriformat",
            Format::Bulletformat => "bulletformat",
        }
    }

    /// The file names that say this format.
    pub fn file_names(self) -> &'static str {
        match self {
            Format::Record => "*.bin",
            Format::Text => "any other name, plain or zstd",
            Format::Binpack => "*.binpack",
            Format::Viriformat => "*.vf, *.viriformat",
            Format::Bulletformat => "*.bullet, *.bulletformat",
        }
    }

    /// Bytes a position where every position takes the same (records and
    /// bulletformat): a file's positions are its length over this.
    pub fn fixed_size(self) -> Option<usize> {
        match self {
            Format::Record => Some(crate::record::RECORD_SIZE),
            Format::Bulletformat => Some(32),
            _ => None,
        }
    }

    /// The format a file's name says: `.bin` records, `.binpack`, `.vf`
    /// viriformat, `.bullet` bulletformat, anything else text.
    pub fn of_path(path: &Path) -> Format {
        let name = path.to_string_lossy().to_lowercase();
        if name.ends_with(".binpack") {
            Format::Binpack
        } else if name.ends_with(".bin") {
            Format::Record
        } else if name.ends_with(".vf") || name.ends_with(".viriformat") {
            Format::Viriformat
        } else if name.ends_with(".bullet") || name.ends_with(".bulletformat") {
            Format::Bulletformat
        } else {
            Format::Text
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown data format '{s}' (one of {})", names.join(", "))
        })
    }
}

/// A labelled position, and the move played from it where the format keeps
/// one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub record: Record,
    pub played: Option<Move>,
}

impl From<Record> for Entry {
    fn from(record: Record) -> Entry {
        Entry { record, played: None }
    }
}

/// Calls `each` with every entry of `path`, in order. Damaged records and
/// lines are skipped and counted in the report; a file that is not of its
/// format, or is damaged past reading on, is an error naming the file and
/// where in it.
pub fn read(path: &Path, format: Format, each: &mut dyn FnMut(Entry)) -> Result<ReadReport, String> {
    match format {
        // By the format asked for, whatever the file's name says.
        Format::Record => store::read_binary_records(path, |r| each(r.into())),
        Format::Text => store::read_text_records(path, CastlingMode::Chess960, |r| each(r.into())),
        Format::Binpack => binpack::read(path, each),
        Format::Viriformat => viri::read(path, each),
        Format::Bulletformat => bullet::read(path, each),
    }
}

/// What writing a file did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteReport {
    pub written: u64,
    /// Entries the format cannot hold (a Chess960 position in a record or a
    /// binpack, a position without a legal move where a move is stored).
    pub skipped: u64,
    pub first_skipped: Option<String>,
}

impl WriteReport {
    pub(crate) fn skip(&mut self, why: String) {
        self.skipped += 1;
        self.first_skipped.get_or_insert(why);
    }
}

/// Writes entries to a file in one format.
pub trait EntryWriter {
    fn write(&mut self, entry: &Entry) -> Result<(), String>;
    /// Ends the game being written (the next entry starts another) and
    /// makes everything written so far survive a kill: the file is whole up
    /// to here, and [`append`] can go on from it.
    fn sync(&mut self) -> Result<(), String>;
    /// Syncs and closes the file.
    fn finish(mut self: Box<Self>) -> Result<WriteReport, String> {
        self.sync()?;
        Ok(self.report())
    }
    fn report(&self) -> WriteReport;
}

/// A writer of `format` at `path`. Records and text lines are appended to
/// an existing file (a killed run's output goes on); the other formats are
/// written whole, and an existing file is refused, so that nothing is
/// overwritten by mistake.
pub fn create(path: &Path, format: Format) -> Result<Box<dyn EntryWriter>, String> {
    if path.exists() && !matches!(format, Format::Record | Format::Text) {
        return Err(format!("{} exists: choose another output or remove it", path.display()));
    }
    open(path, format, false)
}

/// A writer that goes on at the end of `path` (created if absent), first
/// cutting off what a killed run left half-written where the format shows
/// it (a record cut short). A caller resuming a run cuts the file back to
/// its last [`EntryWriter::sync`] first.
pub fn append(path: &Path, format: Format) -> Result<Box<dyn EntryWriter>, String> {
    open(path, format, true)
}

fn open(path: &Path, format: Format, append: bool) -> Result<Box<dyn EntryWriter>, String> {
    Ok(match format {
        // Records and text always append (a file of them is whole after any record).
        Format::Record | Format::Text => Box::new(OwnWriter {
            writer: RecordWriter::append_as(path, format == Format::Record)?,
            binary: format == Format::Record,
            report: WriteReport::default(),
        }),
        Format::Binpack => Box::new(binpack::Writer::open(path, append)?),
        Format::Viriformat => Box::new(viri::Writer::open(path, append)?),
        Format::Bulletformat => Box::new(bullet::Writer::open(path, append)?),
    })
}

/// The file a writer opens: created (an existing one refused), or appended to.
pub(crate) fn open_file(path: &Path, append: bool) -> Result<std::fs::File, String> {
    let mut options = std::fs::OpenOptions::new();
    if append {
        options.create(true).append(true);
    } else {
        options.create_new(true).write(true);
    }
    options.open(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Records and text lines, through [`RecordWriter`].
struct OwnWriter {
    writer: RecordWriter,
    binary: bool,
    report: WriteReport,
}

impl EntryWriter for OwnWriter {
    fn write(&mut self, entry: &Entry) -> Result<(), String> {
        if entry.record.score == NO_SCORE {
            self.report.skip(UNSCORED.into());
            return Ok(());
        }
        if self.binary
            && let Some(why) = entry.record.unstorable()
        {
            self.report.skip(why);
            return Ok(());
        }
        self.writer.write(&entry.record)?;
        self.report.written += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), String> {
        self.writer.sync()
    }

    fn report(&self) -> WriteReport {
        self.report.clone()
    }
}

//! Reading and appending record files. A file ending in `.bin` holds 32-byte
//! binary records; any other name holds text lines (plain, or zstd when the
//! file starts with zstd's magic). Damaged binary records and a record cut
//! short at the end (a kill during a write) are skipped and counted, never
//! returned; appending first drops such a cut-short tail.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use shakmaty::CastlingMode;

use crate::record::{RECORD_SIZE, Record};

/// The first bytes of every zstd frame.
pub const ZSTD_MAGIC: &[u8] = &[0x28, 0xB5, 0x2F, 0xFD];

/// A text file's contents, decompressed when it starts with zstd's magic.
pub fn open_text(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    let mut file = BufReader::new(File::open(path)?);
    let zstd = file.fill_buf()?.starts_with(ZSTD_MAGIC);
    Ok(if zstd { Box::new(BufReader::new(zstd::Decoder::with_buffer(file)?)) } else { Box::new(file) })
}

pub fn is_binary(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "bin")
}

/// What reading a file met besides good records.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReadReport {
    pub records: u64,
    pub rejected: u64,
    /// Bytes of a binary record cut short at the end of the file.
    pub truncated_tail: u64,
    /// Positions stored only to carry a game on, without a score
    /// ([`crate::formats::NO_SCORE`]): skipped.
    pub unscored: u64,
    pub first_rejection: Option<String>,
}

impl ReadReport {
    pub(crate) fn reject(&mut self, what: String) {
        self.rejected += 1;
        self.first_rejection.get_or_insert(what);
    }
}

/// A binary file with more than one damaged record in this many is refused.
const DAMAGED_SHARE_REFUSED: u64 = 100;

/// Calls `each` with every good record of `path`, in order: binary records
/// for a `.bin` name ([`read_binary_records`]), else text lines with standard
/// castling, all a record stores ([`read_text_records`]).
pub fn read_records(path: &Path, each: impl FnMut(Record)) -> Result<ReadReport, String> {
    if is_binary(path) {
        read_binary_records(path, each)
    } else {
        read_text_records(path, CastlingMode::Standard, each)
    }
}

/// Calls `each` with every good 32-byte record of `path`, whatever its name.
/// A file with more than 1% damaged records is refused (an error naming the
/// file), after `each` has seen its good ones.
pub fn read_binary_records(path: &Path, mut each: impl FnMut(Record)) -> Result<ReadReport, String> {
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut report = ReadReport::default();
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    let mut buf = [0u8; RECORD_SIZE];
    let mut index = 0u64;
    loop {
        let mut filled = 0;
        while filled < RECORD_SIZE {
            match reader.read(&mut buf[filled..]).map_err(io)? {
                0 => break,
                n => filled += n,
            }
        }
        if filled < RECORD_SIZE {
            report.truncated_tail = filled as u64;
            break;
        }
        match Record::decode(&buf) {
            Ok(r) => {
                report.records += 1;
                each(r);
            }
            Err(e) => report.reject(format!("{} record {index}: {e}", path.display())),
        }
        index += 1;
    }
    // A record damaged now and then (a bad sector) is skipped; a file
    // where many are is not what it claims to be.
    let read = report.records + report.rejected;
    if report.rejected * DAMAGED_SHARE_REFUSED > read {
        return Err(format!(
            "{}: {} of {read} records damaged (first: {}): not a file of tessera-datagen records, or a damaged one",
            path.display(),
            report.rejected,
            report.first_rejection.as_deref().unwrap_or("-"),
        ));
    }
    Ok(report)
}

/// Calls `each` with every good text line of `path` (plain or zstd) as a
/// record, castling rights read in `mode`; bad lines are skipped and counted.
pub fn read_text_records(path: &Path, mode: CastlingMode, mut each: impl FnMut(Record)) -> Result<ReadReport, String> {
    let mut report = ReadReport::default();
    let lines = open_text(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?.lines();
    for (n, line) in lines.enumerate() {
        let line = line.map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        match crate::text::parse_line(&line, mode).and_then(Record::from_line) {
            Ok(r) => {
                report.records += 1;
                each(r);
            }
            Err(e) => report.reject(format!("{}:{}: {e}", path.display(), n + 1)),
        }
    }
    Ok(report)
}

/// Appends records to a file in its format.
pub struct RecordWriter {
    path: PathBuf,
    binary: bool,
    out: BufWriter<File>,
}

impl RecordWriter {
    /// Opens `path` for appending (creating it), first cutting off a binary
    /// record left half-written by a killed run.
    pub fn append(path: &Path) -> Result<RecordWriter, String> {
        RecordWriter::append_as(path, is_binary(path))
    }

    /// As [`RecordWriter::append`], binary records or text lines as asked
    /// whatever the name says.
    pub fn append_as(path: &Path, binary: bool) -> Result<RecordWriter, String> {
        let io = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if binary {
            let len = file.metadata().map_err(io)?.len();
            let whole = len - len % RECORD_SIZE as u64;
            if whole != len {
                file.set_len(whole).map_err(io)?;
            }
        }
        Ok(RecordWriter { path: path.to_path_buf(), binary, out: BufWriter::new(file) })
    }

    pub fn write(&mut self, record: &Record) -> Result<(), String> {
        let result =
            if self.binary { self.out.write_all(&record.encode()) } else { writeln!(self.out, "{}", record.to_text()) };
        result.map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    /// Flushes to the file and the disk: everything written so far survives a kill.
    pub fn sync(&mut self) -> Result<(), String> {
        let io = |e: std::io::Error| format!("cannot write {}: {e}", self.path.display());
        self.out.flush().map_err(io)?;
        self.out.get_ref().sync_data().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("tessera-{name}-")).tempdir().unwrap()
    }

    fn sample(i: i16) -> Record {
        Record::from_text(&format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | {i} | 0.5")).unwrap()
    }

    #[test]
    fn damaged_and_cut_short_records_are_skipped_and_appending_repairs_the_tail() {
        let d_tmp = dir("bin");
        let d = d_tmp.path().to_path_buf();
        let path = d.join("x.bin");
        let mut w = RecordWriter::append(&path).unwrap();
        for i in 0..200 {
            w.write(&sample(i)).unwrap();
        }
        w.sync().unwrap();
        drop(w);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[3 * RECORD_SIZE + 5] ^= 0x10; // damage record 3
        bytes.extend_from_slice(&sample(99).encode()[..13]); // a kill mid-write
        std::fs::write(&path, &bytes).unwrap();
        let mut scores = Vec::new();
        let report = read_records(&path, |r| scores.push(r.score)).unwrap();
        assert_eq!(scores[..5], [0, 1, 2, 4, 5]);
        assert_eq!((report.records, report.rejected, report.truncated_tail), (199, 1, 13));
        assert!(report.first_rejection.unwrap().contains("record 3: checksum"));
        // Appending after the kill keeps records aligned.
        let mut w = RecordWriter::append(&path).unwrap();
        w.write(&sample(10)).unwrap();
        w.sync().unwrap();
        let mut scores = Vec::new();
        let report = read_records(&path, |r| scores.push(r.score)).unwrap();
        assert_eq!(scores.last(), Some(&10));
        assert_eq!(report.truncated_tail, 0);
        // A file with many damaged records (here: not records at all) is refused.
        let junk = d.join("junk.bin");
        std::fs::write(&junk, (0..3200u32).map(|i| (i * 7919 % 251) as u8).collect::<Vec<_>>()).unwrap();
        let err = read_records(&junk, |_| {}).unwrap_err();
        assert!(err.contains("junk.bin: 100 of 100 records damaged") && err.contains("not a file of"), "{err}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn text_files_plain_and_zstd() {
        let d_tmp = dir("text");
        let d = d_tmp.path().to_path_buf();
        let plain = d.join("x.txt");
        let mut w = RecordWriter::append(&plain).unwrap();
        w.write(&sample(5)).unwrap();
        w.sync().unwrap();
        drop(w);
        let text = std::fs::read_to_string(&plain).unwrap() + "garbage\n";
        std::fs::write(&plain, &text).unwrap();
        let packed = d.join("x.txt.zst");
        std::fs::write(&packed, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        for path in [&plain, &packed] {
            let mut got = Vec::new();
            let report = read_records(path, |r| got.push(r)).unwrap();
            assert_eq!(got, [sample(5)]);
            assert_eq!(report.rejected, 1);
        }
        assert!(read_records(&d.join("missing.bin"), |_| {}).unwrap_err().contains("cannot read"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}

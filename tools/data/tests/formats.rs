//! Every format round-trips what it keeps, and refuses damage with an error
//! that names the file and where, never a panic.

use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};
use tessera::testing::XorShift;
use tessera_data::formats::{self, Entry, Format};
use tessera_data::record::Record;

fn dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("tessera-{name}-")).tempdir().unwrap()
}

fn record(fen: &str, score: i16, result: u8, mode: CastlingMode) -> Record {
    let pos = tessera_data::text::parse_fen(fen, mode).unwrap();
    Record { pos, score, result }
}

/// Games of random moves (every position, as datagen's text keeps them,
/// with castling, en passant, captures and promotions along the way), then
/// loose positions that follow from nothing.
fn sample() -> Vec<Record> {
    let mut rng = XorShift(7);
    let mut out = Vec::new();
    for game in 0..12 {
        let mut pos = Chess::default();
        let result = (game % 3) as u8;
        for ply in 0..120 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            out.push(Record { pos: pos.clone(), score: (ply * 37 % 900) as i16 - 450, result });
            let m = legal[rng.below(legal.len())];
            pos.play_unchecked(m);
        }
    }
    for (i, fen) in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 13 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 99 1",
        "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1",
        "8/P7/8/8/8/8/k6K/8 w - - 0 1",
    ]
    .iter()
    .enumerate()
    {
        out.push(record(fen, -32767 + 16383 * i as i16, (i % 3) as u8, CastlingMode::Standard));
    }
    out
}

/// What a record holds, in words: the FEN (en passant only where a capture
/// is legal, full-move number aside, which records do not keep), score, result.
fn key(r: &Record) -> String {
    let fen = Fen::from_position(&r.pos, EnPassantMode::Legal).to_string();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    format!("{} | {} | {}", fields[..5].join(" "), r.score, r.result)
}

fn write(path: &Path, format: Format, entries: &[Entry]) -> formats::WriteReport {
    let mut writer = formats::create(path, format).unwrap();
    for e in entries {
        writer.write(e).unwrap();
    }
    writer.finish().unwrap()
}

fn read(path: &Path, format: Format) -> Vec<Entry> {
    let mut out = Vec::new();
    let report = formats::read(path, format, &mut |e| out.push(e)).unwrap();
    assert_eq!(report.rejected, 0, "{:?}", report.first_rejection);
    out
}

#[test]
fn own_records_survive_every_format_that_keeps_them() {
    let d_tmp = dir("round");
    let d = d_tmp.path().to_path_buf();
    // Records as a .bin file holds them (full-move number 1).
    let bin = d.join("a.bin");
    let entries: Vec<Entry> = sample().into_iter().map(Entry::from).collect();
    write(&bin, Format::Record, &entries);
    let own = read(&bin, Format::Record);
    assert_eq!(own.len(), entries.len());
    let want: Vec<String> = own.iter().map(|e| key(&e.record)).collect();
    for (format, name) in [(Format::Binpack, "a.binpack"), (Format::Viriformat, "a.vf"), (Format::Text, "a.txt")] {
        let path = d.join(name);
        let report = write(&path, format, &own);
        assert_eq!((report.written, report.skipped), (own.len() as u64, 0), "{format}");
        let back = read(&path, format);
        let got: Vec<String> = back.iter().map(|e| key(&e.record)).collect();
        assert_eq!(got, want, "own → {format} → own");
        // And back into records, byte for byte.
        let again = d.join(format!("{name}.bin"));
        write(&again, Format::Record, &back);
        assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&bin).unwrap(), "{format} → own bytes");
        if format != Format::Text {
            // Every entry comes back with a legal move.
            assert!(back.iter().all(|e| e.played.is_some_and(|m| e.record.pos.is_legal(m))), "{format}");
        }
    }
    // Consecutive positions of a game are stored as moves: far smaller.
    let size = |n: &str| std::fs::metadata(d.join(n)).unwrap().len() as f64 / own.len() as f64;
    assert!(size("a.binpack") < 8.0, "binpack {:.1} bytes a position", size("a.binpack"));
    assert!(size("a.vf") < 8.0, "viriformat {:.1} bytes a position", size("a.vf"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_moves_a_format_keeps_are_kept() {
    let d_tmp = dir("moves");
    let d = d_tmp.path().to_path_buf();
    let vf = d.join("a.vf");
    let entries: Vec<Entry> = sample().into_iter().map(Entry::from).collect();
    write(&vf, Format::Viriformat, &entries);
    let with_moves = read(&vf, Format::Viriformat);
    for (format, name) in [(Format::Binpack, "b.binpack"), (Format::Viriformat, "b.vf")] {
        let path = d.join(name);
        write(&path, format, &with_moves);
        let back = read(&path, format);
        let moves = |v: &[Entry]| v.iter().map(|e| e.played).collect::<Vec<_>>();
        assert_eq!(moves(&back), moves(&with_moves), "{format}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn chess960_where_the_format_allows_and_a_reason_where_not() {
    let d_tmp = dir("960");
    let d = d_tmp.path().to_path_buf();
    let fens = [
        "qrbbnkrn/pppppppp/8/8/8/8/PPPPPPPP/QRBBNKRN w GBgb - 0 1",
        "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 b Gb - 4 9",
    ];
    let entries: Vec<Entry> = fens
        .iter()
        .enumerate()
        .map(|(i, f)| Entry::from(record(f, 10 * i as i16, 1, CastlingMode::Chess960)))
        .collect();
    for (format, name) in [(Format::Text, "a.txt"), (Format::Viriformat, "a.vf")] {
        let path = d.join(name);
        assert_eq!(write(&path, format, &entries).written, 2, "{format}");
        let back: Vec<String> = read(&path, format).iter().map(|e| key(&e.record)).collect();
        assert_eq!(back, entries.iter().map(|e| key(&e.record)).collect::<Vec<_>>(), "{format}");
        assert_eq!(read(&path, format)[0].record.pos.castles().castling_rights().count(), 4);
    }
    for (format, name) in [(Format::Record, "a.bin"), (Format::Binpack, "a.binpack")] {
        let report = write(&d.join(name), format, &entries);
        assert_eq!((report.written, report.skipped), (0, 2), "{format}");
        let why = report.first_skipped.unwrap();
        assert!(why.contains("Chess960") && why.contains("rook on"), "{why}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bulletformat_keeps_each_position_from_the_side_to_moves_view() {
    let d_tmp = dir("bullet");
    let d = d_tmp.path().to_path_buf();
    let path = d.join("a.bullet");
    let records = sample();
    let entries: Vec<Entry> = records.iter().cloned().map(Entry::from).collect();
    write(&path, Format::Bulletformat, &entries);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 32 * records.len() as u64);
    let back = read(&path, Format::Bulletformat);
    for (r, b) in records.iter().zip(&back) {
        let b = &b.record;
        assert_eq!(b.pos.turn(), Color::White);
        // Black to move comes back as white to move on the flipped board,
        // score and result turned with it.
        let (board, score, result) = if r.pos.turn() == Color::White {
            (r.pos.board().clone(), r.score, r.result)
        } else {
            let mut flipped = r.pos.board().clone();
            flipped.flip_vertical();
            flipped.swap_colors();
            (flipped, -r.score, 2 - r.result)
        };
        assert_eq!((b.pos.board(), b.score, b.result), (&board, score, result));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn damage_is_an_error_that_says_where() {
    let d_tmp = dir("damage");
    let d = d_tmp.path().to_path_buf();
    let entries: Vec<Entry> = sample().into_iter().map(Entry::from).collect();
    for (format, name) in
        [(Format::Binpack, "a.binpack"), (Format::Viriformat, "a.vf"), (Format::Bulletformat, "a.bullet")]
    {
        let path = d.join(name);
        write(&path, format, &entries);
        let whole = std::fs::read(&path).unwrap();
        let bad = d.join(format!("bad-{name}"));
        // Cut short, garbage, wrong magic (the first bytes changed).
        let mut garbage = whole.clone();
        let mut rng = XorShift(3);
        for b in garbage.iter_mut().skip(40) {
            *b = rng.below(256) as u8;
        }
        let mut magic = whole.clone();
        magic[..4].copy_from_slice(b"JUNK");
        for damaged in [whole[..whole.len() - 5].to_vec(), garbage, magic] {
            std::fs::write(&bad, &damaged).unwrap();
            let mut n = 0;
            match formats::read(&bad, format, &mut |_| n += 1) {
                Err(e) => assert!(e.contains("bad-") && e.contains("byte"), "{format}: {e}"),
                // Damage a format cannot see (it has no checksum) may still
                // read: then fewer positions than were written, or the same
                // count with some rejected.
                Ok(report) => assert!(report.rejected > 0 || n < entries.len(), "{format}: damage went unseen"),
            }
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A viriformat game whose board has no king: an error naming the game and
/// the byte (the crate's own unpacking would read outside its tables).
#[test]
fn a_viriformat_board_without_a_king_is_refused() {
    let d_tmp = dir("kingless");
    let d = d_tmp.path().to_path_buf();
    let path = d.join("k.vf");
    let mut bytes = vec![0u8; 32];
    bytes[..8].copy_from_slice(&(1u64 << 8).to_le_bytes()); // a white pawn on a2, nothing else
    bytes[24] = 64; // white to move, no en passant square
    bytes[26] = 1; // full move 1
    bytes[30] = 1; // a draw
    bytes.extend_from_slice(&[0; 4]); // no moves
    std::fs::write(&path, &bytes).unwrap();
    let err = formats::read(&path, Format::Viriformat, &mut |_| {}).unwrap_err();
    assert!(err.contains("k.vf: game 0 at byte 0") && err.contains("illegal position"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A run written in pieces (synced, then appended to after a restart) reads
/// as one; the positions that only carry a game on are skipped by readers.
#[test]
fn synced_pieces_append_into_one_file_and_unscored_positions_are_skipped() {
    let d_tmp = dir("append");
    let d = d_tmp.path().to_path_buf();
    let records = sample();
    let mut entries: Vec<Entry> = records.iter().cloned().map(Entry::from).collect();
    for e in entries.iter_mut().step_by(3) {
        e.record.score = formats::NO_SCORE;
    }
    let scored: Vec<String> =
        entries.iter().filter(|e| e.record.score != formats::NO_SCORE).map(|e| key(&e.record)).collect();
    for format in Format::ALL {
        let path = d.join(format!(
            "run.{}",
            ["bin", "txt", "binpack", "vf", "bullet"][Format::ALL.iter().position(|f| *f == format).unwrap()]
        ));
        let (first, second) = entries.split_at(entries.len() / 2);
        let mut writer = formats::append(&path, format).unwrap();
        for e in first {
            writer.write(e).unwrap();
        }
        writer.sync().unwrap();
        drop(writer);
        let mut writer = formats::append(&path, format).unwrap();
        for e in second {
            writer.write(e).unwrap();
        }
        writer.finish().unwrap();
        let mut n = 0;
        let report = formats::read(&path, format, &mut |e| {
            if format != Format::Bulletformat {
                assert_eq!(key(&e.record), scored[n], "{format} {n}");
            }
            n += 1;
        })
        .unwrap();
        assert_eq!(n, scored.len(), "{format}");
        if matches!(format, Format::Binpack | Format::Viriformat) {
            assert_eq!(report.unscored as usize, entries.len() - scored.len(), "{format}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The format asked for is the one read, whatever the name says
/// (`convert --from`).
#[test]
fn records_and_text_are_read_as_asked_whatever_the_name() {
    let d_tmp = dir("asked");
    let d = d_tmp.path().to_path_buf();
    let entries: Vec<Entry> = sample().into_iter().take(50).map(Entry::from).collect();
    write(&d.join("a.bin"), Format::Record, &entries);
    write(&d.join("a.txt"), Format::Text, &entries);
    std::fs::rename(d.join("a.bin"), d.join("records.dat")).unwrap();
    std::fs::rename(d.join("a.txt"), d.join("lines.bin")).unwrap();
    assert_eq!(read(&d.join("records.dat"), Format::Record).len(), 50);
    assert_eq!(read(&d.join("lines.bin"), Format::Text).len(), 50);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_format_is_known_by_its_name() {
    for (name, format) in [
        ("x.bin", Format::Record),
        ("x.binpack", Format::Binpack),
        ("x.vf", Format::Viriformat),
        ("x.bullet", Format::Bulletformat),
        ("x.txt.zst", Format::Text),
    ] {
        assert_eq!(Format::of_path(Path::new(name)), format);
        assert_eq!(format.name().parse::<Format>().unwrap(), format);
    }
    assert!("csv".parse::<Format>().unwrap_err().contains("binpack"));
    let d_tmp = dir("exists");
    let d = d_tmp.path().to_path_buf();
    std::fs::write(d.join("x.binpack"), b"").unwrap();
    assert!(formats::create(&d.join("x.binpack"), Format::Binpack).err().unwrap().contains("exists"));
    std::fs::remove_dir_all(&d).unwrap();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Any bytes, and any damage to a valid file of each format, read to
    /// the end or are refused: never a panic, and every move returned is
    /// legal where it is.
    #[test]
    fn any_bytes_read_or_are_refused(
        noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
        flips in proptest::collection::vec((proptest::prelude::any::<usize>(), 1u8..=255), 1..8),
    ) {
        let d_tmp = tempfile::tempdir().unwrap();
        let d = d_tmp.path().to_path_buf();
        std::fs::create_dir_all(&d).unwrap();
        let entries: Vec<Entry> = sample().into_iter().take(200).map(Entry::from).collect();
        for (format, name) in [(Format::Record, "v.bin"), (Format::Binpack, "v.binpack"), (Format::Viriformat, "v.vf"),
                               (Format::Bulletformat, "v.bullet"), (Format::Text, "v.txt")] {
            let valid = d.join(name);
            let _ = std::fs::remove_file(&valid);
            write(&valid, format, &entries);
            let mut damaged = std::fs::read(&valid).unwrap();
            for (at, x) in &flips {
                let n = damaged.len();
                damaged[at % n] ^= x;
            }
            for bytes in [&noise, &damaged] {
                let path = d.join(format!("bad-{name}"));
                std::fs::write(&path, bytes).unwrap();
                let _ = formats::read(&path, format, &mut |e| {
                    assert!(e.played.is_none_or(|m| e.record.pos.is_legal(m)));
                });
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}

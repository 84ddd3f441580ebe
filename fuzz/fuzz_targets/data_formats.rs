//! tessera-data's readers of files from elsewhere: bytes as a binpack, a
//! viriformat file, a bulletformat file, records and text each read to the
//! end or refused with an error, never a panic; what a reader returns is a
//! legal position with a legal move where the format stores one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shakmaty::Position;
use tessera_data::formats::{self, Format};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("tessera-fuzz-data-{}", std::process::id()));
    std::fs::write(&path, data).unwrap();
    for format in Format::ALL {
        let _ = formats::read(&path, format, &mut |e| {
            assert!(e.played.is_none_or(|m| e.record.pos.is_legal(m)));
        });
    }
    let _ = std::fs::remove_file(&path);
});

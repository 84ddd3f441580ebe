//! datagen's readers: binary records (32 bytes each) decode or are refused,
//! and what decodes encodes back to itself; text lines parse or are refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_datagen::record::{RECORD_SIZE, Record};

fuzz_target!(|data: &[u8]| {
    for chunk in data.chunks_exact(RECORD_SIZE) {
        let bytes: &[u8; RECORD_SIZE] = chunk.try_into().unwrap();
        if let Ok(record) = Record::decode(bytes) {
            assert_eq!(Record::decode(&record.encode()).unwrap(), record);
        }
    }
    for line in String::from_utf8_lossy(data).lines() {
        let _ = Record::from_text(line);
    }
});

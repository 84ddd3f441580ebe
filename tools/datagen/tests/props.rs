//! Property tests over datagen's readers: arbitrary record bytes and text
//! lines are decoded or refused, never a panic.

use proptest::prelude::*;
use tessera_data::record::{RECORD_SIZE, Record};

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn any_record_bytes_decode_or_are_refused(bytes in prop::array::uniform32(any::<u8>())) {
        let bytes: [u8; RECORD_SIZE] = bytes;
        if let Ok(record) = Record::decode(&bytes) {
            // What decodes encodes back to a record that decodes the same.
            prop_assert_eq!(Record::decode(&record.encode()).unwrap(), record);
        }
    }

    #[test]
    fn any_text_line_parses_or_is_refused(line in "\\PC{0,120}") {
        let _ = Record::from_text(&line);
    }

    #[test]
    fn line_shaped_text_parses_or_is_refused(
        fen in "[pnbrqkPNBRQK1-8/]{1,70} [wb] (-|[KQkq]{1,4}) - [0-9]{1,2} [0-9]{1,3}",
        score in "-?[0-9]{1,7}",
        result in "(0|1|0\\.5|1\\.0|0\\.0|2|x)",
    ) {
        let _ = Record::from_text(&format!("{fen} | {score} | {result}"));
    }
}

//! The `.nnue` loader: arbitrary bytes are refused with an error or load
//! into a network that evaluates the start position. Each input is tried
//! as it is and with its checksum repaired, so that mutations reach the
//! header and size checks behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera::board::Board;
use tessera::nnue::format::checksum;
use tessera::nnue::network::Network;

fn try_load(bytes: &[u8]) {
    if let Ok(net) = Network::from_bytes(bytes) {
        let board = Board::default();
        let _ = net.evaluate_position(board.pos());
    }
}

fuzz_target!(|data: &[u8]| {
    try_load(data);
    if data.len() >= 8 {
        let mut repaired = data.to_vec();
        let body = repaired.len() - 8;
        let sum = checksum(&repaired[..body]);
        repaired[body..].copy_from_slice(&sum.to_le_bytes());
        try_load(&repaired);
    }
});

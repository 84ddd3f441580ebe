//! Making Tessera's training data: self-play, labelling by UCI engines, PGN
//! and FEN sampling, books. The formats themselves (record, text line,
//! record files, filter) live in `tessera-data`, re-exported here under
//! their old paths.

pub mod agreement;
pub mod book;
pub mod dfrc;
pub mod fenlist;
pub mod interrupt;
pub mod label;
pub mod pgn;
pub mod pipeline;
pub mod player;
pub mod selfplay;
pub mod stats;
pub mod uci;

pub use tessera_data::{filter, record, store, text};

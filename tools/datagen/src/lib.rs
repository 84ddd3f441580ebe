//! Making Tessera's training data: self-play, labelling by UCI engines, PGN
//! and FEN sampling, books, the feature-set statistics. The formats
//! themselves (record, text line, record files, filter) are `tessera-data`'s.

pub mod agreement;
pub mod book;
pub mod dfrc;
pub mod feature_stats;
pub mod fenlist;
pub mod interrupt;
pub mod label;
pub mod pgn;
pub mod pipeline;
pub mod player;
pub mod selfplay;
pub mod stats;
pub mod uci;

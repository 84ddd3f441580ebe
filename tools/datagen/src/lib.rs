//! Training data for Tessera: the 32-byte binary record, the text
//! interchange format, and files of either that survive a kill.

pub mod agreement;
pub mod book;
pub mod dfrc;
pub mod fenlist;
pub mod filter;
pub mod interrupt;
pub mod label;
pub mod pgn;
pub mod pipeline;
pub mod player;
pub mod record;
pub mod selfplay;
pub mod stats;
pub mod store;
pub mod uci;

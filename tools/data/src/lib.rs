//! Tessera's training data, apart from the tools that make and read it (as
//! bullet keeps its formats apart from its trainer): the 32-byte binary
//! record, the text line `<FEN> | <score> | <result>`, FEN/EPD position lines,
//! PGN games, and the formats other engines' tools share (Stockfish's
//! binpack, viriformat, bulletformat) behind one reader and one writer; the
//! position filter. One implementation of each: `tessera-datagen` writes
//! through it and `tessera-trainer` reads through it. It depends on the
//! engine (its static exchange evaluation), never the other way.

pub mod filter;
#[cfg(feature = "exchange")]
pub mod formats;
#[cfg(feature = "exchange")]
mod guard;
pub mod lines;
pub mod pgn;
pub mod record;
pub mod store;
pub mod text;

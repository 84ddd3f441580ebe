//! Tessera's training data, apart from the tools that make and read it (as
//! bullet keeps its formats apart from its trainer): the 32-byte binary
//! record, the text line `<FEN> | <score> | <result>`, files of either that
//! survive a kill (zstd read transparently), and the position filter the
//! trainer and datagen share. One implementation of each: `tessera-datagen`
//! writes through it, `tessera-trainer` reads through it.

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

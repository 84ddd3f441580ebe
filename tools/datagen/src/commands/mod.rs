//! One module a subcommand: each takes its parsed arguments and does the work.

pub mod agree;
pub mod convert;
pub mod fens;
pub mod openings;
pub mod pgn;
pub mod relabel;
pub mod selfplay;
pub mod shuffle;
pub mod stats;

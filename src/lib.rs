//! Tessera: a UCI chess engine with an NNUE evaluation.
//!
//! Data flows one way: board → evaluation → search → uci.

pub mod bench;
pub mod board;
pub mod evaluate;
pub mod features;
pub mod nnue;
pub mod search;
pub mod uci;

#[cfg(test)]
mod testing;

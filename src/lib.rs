//! Tessera: a UCI chess engine with an NNUE evaluation.
//!
//! Data flows one way: board → evaluation → search → uci.

pub mod bench;
pub mod board;
pub mod cpu_level;
pub mod evaluate;
pub mod features;
pub mod nnue;
pub mod rng;
pub mod search;
pub mod simd;
pub mod uci;

/// Test helpers shared by the unit tests, the integration tests and the tools'
/// tests (not part of the engine's API).
#[doc(hidden)]
pub mod testing;

//! NNUE inference: the file format, the network, the accumulators and the
//! integer kernels (scalar and AVX2).

pub mod accumulator;
pub mod compiled;
pub mod embedded;
pub mod format;
pub mod layers;
pub mod network;
pub mod refresh_cache;
#[cfg(test)]
mod tests;

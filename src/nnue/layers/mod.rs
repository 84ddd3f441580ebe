//! Integer kernels of the network. Each has a scalar version and SIMD twins
//! giving bit-identical results (AVX2; AVX-VNNI and AVX-512 for the first
//! hidden layer and the accumulator), the widest one the CPU has in use.
//! Which may run is `crate::simd`'s to say: the safe entry points take its
//! tokens.

pub mod affine;
pub mod clipped_relu;

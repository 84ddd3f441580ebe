//! Integer kernels of the network. Each has a scalar version and an AVX2
//! twin giving bit-identical results; the AVX2 one is used when the CPU has it.

pub mod affine;
pub mod clipped_relu;

/// Whether the AVX2 kernels may be used on this CPU.
pub fn avx2_available() -> bool {
    #[cfg(tessera_avx2)]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(tessera_avx2))]
    {
        false
    }
}

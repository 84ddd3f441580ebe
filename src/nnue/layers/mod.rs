//! Integer kernels of the network. Each has a scalar version and SIMD twins
//! giving bit-identical results (AVX2; AVX-VNNI and AVX-512 for the first
//! hidden layer and the accumulator), the widest one the CPU has in use.

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

/// Whether the AVX-512 kernels (F and BW) may be used on this CPU (checked once).
#[cfg(tessera_avx2)]
pub fn avx512_available() -> bool {
    static AVX512: once_cell::sync::Lazy<bool> = once_cell::sync::Lazy::new(|| {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
    });
    *AVX512
}

//! Integer kernels of the network. Each has a scalar version and SIMD twins
//! giving bit-identical results (AVX2; AVX-VNNI and AVX-512 for the first
//! hidden layer and the accumulator), the widest one the CPU has in use.
//!
//! `TESSERA_SIMD=scalar|avx2|avxvnni|avx512`, read once at start-up, caps the
//! kernels at that level, so that a machine with AVX-512 can measure the
//! path of one without it (the default: the widest the CPU has).

pub mod affine;
pub mod clipped_relu;

use once_cell::sync::Lazy;

/// The kernel families, narrowest first: each level may use every kernel of
/// the levels below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    Scalar,
    Avx2,
    /// 256-bit VNNI (`vpdpbusd` on AVX2 registers) for the first hidden layer.
    AvxVnni,
    /// AVX-512 F and BW for the accumulator, with VNNI for the first hidden layer.
    Avx512,
}

impl SimdLevel {
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::AvxVnni => "avxvnni",
            SimdLevel::Avx512 => "avx512",
        }
    }

    fn parse(text: &str) -> Option<SimdLevel> {
        [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::AvxVnni, SimdLevel::Avx512]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(text.trim()))
    }
}

/// What `TESSERA_SIMD` asked for, read once.
struct Cap {
    /// The widest level allowed (`Avx512`: no cap).
    level: SimdLevel,
    /// The variable's value, if set.
    given: Option<String>,
}

static CAP: Lazy<Cap> = Lazy::new(|| {
    let given = std::env::var("TESSERA_SIMD").ok();
    let level = given.as_deref().and_then(SimdLevel::parse).unwrap_or(SimdLevel::Avx512);
    Cap { level, given }
});

/// Whether kernels of `level` may be used (the CPU must still have them).
fn allowed(level: SimdLevel) -> bool {
    CAP.level >= level
}

/// Whether the AVX2 kernels may be used on this CPU.
pub fn avx2_available() -> bool {
    #[cfg(tessera_avx2)]
    {
        static AVX2: Lazy<bool> = Lazy::new(|| std::is_x86_feature_detected!("avx2"));
        *AVX2 && allowed(SimdLevel::Avx2)
    }
    #[cfg(not(tessera_avx2))]
    {
        false
    }
}

/// Whether the AVX-512 kernels (F and BW) may be used on this CPU (checked once).
#[cfg(tessera_avx2)]
pub fn avx512_available() -> bool {
    static AVX512: Lazy<bool> = Lazy::new(|| {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
    });
    *AVX512 && allowed(SimdLevel::Avx512)
}

/// The widest kernels in use, in words (`avx2`, `avx512 (vnni)`, …), with
/// what `TESSERA_SIMD` did: for the start-up line and `bench`.
pub fn simd_summary() -> String {
    let widest = widest_in_use();
    let mut text = widest.name().to_string();
    #[cfg(tessera_avx2)]
    if widest == SimdLevel::Avx512 && affine::avx512_vnni_available() {
        text.push_str(" (vnni)");
    }
    if let Some(value) = &CAP.given {
        match SimdLevel::parse(value) {
            Some(cap) if cap > widest => text.push_str(&format!(
                " (TESSERA_SIMD={value}; this CPU or build has no {})",
                value.trim().to_ascii_lowercase()
            )),
            Some(_) => text.push_str(&format!(" (TESSERA_SIMD={value})")),
            None => text
                .push_str(&format!(" (TESSERA_SIMD='{value}' is not one of scalar, avx2, avxvnni, avx512; ignored)")),
        }
    }
    text
}

/// The widest level some kernel uses on this CPU, under the cap.
pub fn widest_in_use() -> SimdLevel {
    #[cfg(tessera_avx2)]
    {
        if avx512_available() {
            return SimdLevel::Avx512;
        }
        if affine::vnni_available() {
            return SimdLevel::AvxVnni;
        }
    }
    if avx2_available() { SimdLevel::Avx2 } else { SimdLevel::Scalar }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_by_name_and_order_by_width() {
        assert_eq!(SimdLevel::parse("AVX2"), Some(SimdLevel::Avx2));
        assert_eq!(SimdLevel::parse(" scalar "), Some(SimdLevel::Scalar));
        assert_eq!(SimdLevel::parse("avx512"), Some(SimdLevel::Avx512));
        assert_eq!(SimdLevel::parse("sse2"), None);
        assert!(SimdLevel::Scalar < SimdLevel::Avx2 && SimdLevel::AvxVnni < SimdLevel::Avx512);
        // Without a cap, the widest level in use is one the CPU reports.
        if std::env::var("TESSERA_SIMD").is_err() {
            assert_eq!(widest_in_use() >= SimdLevel::Avx2, avx2_available());
        }
    }
}

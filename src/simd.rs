//! The one place that knows which SIMD kernels may run: the CPU's features
//! (detected once), the `TESSERA_SIMD` cap, and the capability tokens that
//! the kernels' safe entry points take.
//!
//! A token ([`Avx2`], [`Avx512`], [`Fma`]) can only be made here, by
//! detection: holding one proves that the CPU has those instructions and
//! that the cap allows them, so a safe function given one may run that
//! kernel without trusting its caller (a `bool` would let any caller say
//! "yes"). `Option<Avx2>` is `None` on CPUs without AVX2, in `portable`
//! builds (no SIMD kernels compiled in) and under `TESSERA_SIMD=scalar`.
//!
//! `TESSERA_SIMD=scalar|avx2|avxvnni|avx512`, read once, caps the kernels at
//! that level, so that a machine with AVX-512 can measure the path of one
//! without it (the default: the widest the CPU has).

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

/// The CPU's features that some kernel needs, detected once.
#[derive(Clone, Copy, Default)]
struct Features {
    avx2_found: bool,
    fma_found: bool,
    avx512_found: bool,
    avx512_vnni_found: bool,
    avx_vnni_found: bool,
}

static FEATURES: Lazy<Features> = Lazy::new(detect_features);

#[cfg(tessera_avx2)]
fn detect_features() -> Features {
    use std::arch::is_x86_feature_detected as has;
    let avx2_found = has!("avx2");
    let avx512_found = avx2_found && has!("avx512f") && has!("avx512bw");
    Features {
        avx2_found,
        fma_found: avx2_found && has!("fma"),
        avx512_found,
        avx512_vnni_found: avx512_found && has!("avx512vnni"),
        avx_vnni_found: avx2_found && has!("avxvnni"),
    }
}

// A `portable` build (or a CPU other than x86-64) compiles no SIMD kernel:
// no token can be made.
#[cfg(not(tessera_avx2))]
fn detect_features() -> Features {
    Features::default()
}

/// Proof that the AVX2 kernels may run (AVX2 present, and allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2(());

/// Proof that the AVX-512 kernels (F and BW, beside AVX2) may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512(());

/// Proof that the floating-point AVX2 kernels with FMA may run (the trainer's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fma(());

impl Avx2 {
    /// The token, where this CPU and the cap allow AVX2.
    pub fn detect() -> Option<Avx2> {
        (FEATURES.avx2_found && allowed(SimdLevel::Avx2)).then_some(Avx2(()))
    }

    /// The AVX-512 token, where the CPU and the cap allow it too.
    pub fn avx512(self) -> Option<Avx512> {
        (FEATURES.avx512_found && allowed(SimdLevel::Avx512)).then_some(Avx512(()))
    }

    /// Whether 256-bit VNNI (AVX-VNNI) may be used beside AVX2.
    pub fn vnni(self) -> bool {
        FEATURES.avx_vnni_found && allowed(SimdLevel::AvxVnni)
    }
}

impl Avx512 {
    /// The token, where this CPU and the cap allow AVX-512 F and BW.
    pub fn detect() -> Option<Avx512> {
        Avx2::detect().and_then(Avx2::avx512)
    }

    /// Whether AVX-512 VNNI may be used beside F and BW.
    pub fn vnni(self) -> bool {
        FEATURES.avx512_vnni_found
    }

    /// Every AVX-512 CPU has AVX2 (detection checked it).
    pub fn avx2(self) -> Avx2 {
        Avx2(())
    }

    /// The FMA token: AVX-512 F implies FMA on every CPU that has it, but
    /// it is checked rather than assumed.
    pub fn fma(self) -> Option<Fma> {
        Fma::detect()
    }
}

impl Fma {
    /// The token, where this CPU and the cap allow AVX2 with FMA.
    pub fn detect() -> Option<Fma> {
        (FEATURES.fma_found && allowed(SimdLevel::Avx2)).then_some(Fma(()))
    }
}

/// The widest kernels in use, in words (`avx2`, `avx512 (vnni)`, …), with
/// what `TESSERA_SIMD` did: for the start-up line and `bench`.
pub fn summary() -> String {
    let widest = widest_in_use();
    let mut text = widest.name().to_string();
    if Avx512::detect().is_some_and(Avx512::vnni) {
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
    match Avx2::detect() {
        Some(avx2) if avx2.avx512().is_some() => SimdLevel::Avx512,
        Some(avx2) if avx2.vnni() => SimdLevel::AvxVnni,
        Some(_) => SimdLevel::Avx2,
        None => SimdLevel::Scalar,
    }
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
            assert_eq!(widest_in_use() >= SimdLevel::Avx2, Avx2::detect().is_some());
        }
    }

    #[test]
    fn the_tokens_agree_with_the_cpu() {
        // A wider token implies the narrower ones; each exists only where
        // the CPU reports its instructions.
        if let Some(wide) = Avx512::detect() {
            assert_eq!(Some(wide.avx2()), Avx2::detect());
            #[cfg(target_arch = "x86_64")]
            assert!(std::arch::is_x86_feature_detected!("avx512bw"));
        }
        if Avx2::detect().is_some() {
            #[cfg(target_arch = "x86_64")]
            assert!(std::arch::is_x86_feature_detected!("avx2"));
        }
    }
}

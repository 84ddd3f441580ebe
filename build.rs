//! Chooses the network to embed: `$TESSERA_NET`, else `nets/default.nnue`,
//! else `nets/default.nnue.zst` (one of them must exist: the network is the
//! evaluation). A zstd-compressed net (large nets are committed that way) is
//! decompressed into OUT_DIR first. The file is validated with the engine's
//! own parser and embedded 64-byte aligned; its feature set and layer sizes
//! become constants in `OUT_DIR/net.rs`.

use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/nnue/format.rs"]
mod format;
#[allow(dead_code)]
#[path = "src/features/names.rs"]
mod names;

fn main() {
    // The AVX2 kernels exist on x86-64 unless the `portable` feature asks for
    // a binary with the scalar path only.
    println!("cargo::rustc-check-cfg=cfg(tessera_avx2)");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    if x86_64 && std::env::var_os("CARGO_FEATURE_PORTABLE").is_none() {
        println!("cargo:rustc-cfg=tessera_avx2");
    }
    cpu_level();
    println!("cargo:rerun-if-env-changed=TESSERA_NET");
    println!("cargo:rerun-if-changed=nets/default.nnue");
    println!("cargo:rerun-if-changed=nets/default.nnue.zst");
    println!("cargo:rerun-if-changed=src/nnue/format.rs");
    println!("cargo:rerun-if-changed=src/features/names.rs");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let chosen = match std::env::var("TESSERA_NET") {
        Ok(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            Some(if p.is_absolute() { p } else { manifest.join(p) })
        }
        _ => ["nets/default.nnue", "nets/default.nnue.zst"].iter().map(|p| manifest.join(p)).find(|p| p.exists()),
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("net.rs");
    let Some(path) = chosen else {
        eprintln!(
            "error: no network to embed: add nets/default.nnue (or .nnue.zst) or set TESSERA_NET to a .nnue file"
        );
        std::process::exit(1);
    };
    let code = embed(&path);
    std::fs::write(&out, code.0).unwrap();
    let features = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("features.rs");
    std::fs::write(features, features_code(&code.1)).unwrap();
}

/// The compiled feature-set type and the parser's name lookup, both from the
/// one table in `names.rs`.
fn features_code(expression: &str) -> String {
    let compiled = names::expression_type(expression).expect("expression checked against the table");
    let arms: String = names::BLOCKS
        .iter()
        .map(|(name, ty)| format!("        {name:?} => Some(Box::new(<{ty}>::default())),\n"))
        .collect();
    format!(
        "/// The expression the hot path is compiled for.\n\
         pub const COMPILED_EXPRESSION: &str = {expression:?};\n\
         /// `{expression}` as one concrete type.\n\
         pub type Compiled = {compiled};\n\
         /// The block a name stands for, chosen at run time.\n\
         pub fn named_block(name: &str) -> Option<Box<dyn FeatureBlock>> {{\n\
         \x20   match name {{\n{arms}        _ => None,\n    }}\n}}\n"
    )
}

/// The generated constants for the net at `path`, and its feature set.
fn embed(path: &Path) -> (String, String) {
    println!("cargo:rerun-if-changed={}", path.display());
    let mut bytes = std::fs::read(path).unwrap_or_else(|e| fail(path, &format!("cannot read it: {e}")));
    // A compressed net: embed its decompressed bytes (the hash, the
    // validation and `--version` are those of the net itself).
    let mut embedded = path.to_path_buf();
    if bytes.starts_with(format::ZSTD_MAGIC) {
        bytes = zstd::decode_all(&bytes[..]).unwrap_or_else(|e| fail(path, &format!("cannot decompress it: {e}")));
        embedded = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("embedded.nnue");
        std::fs::write(&embedded, &bytes)
            .unwrap_or_else(|e| fail(path, &format!("cannot write {}: {e}", embedded.display())));
    }
    let file = format::NetFile::parse(&bytes).unwrap_or_else(|e| fail(path, &e.to_string()));
    for block in file.features.split('+') {
        if names::block_type(block.trim()).is_none() {
            let valid = names::block_names().collect::<Vec<_>>().join(", ");
            fail(path, &format!("unknown feature block '{block}'; valid: {valid}"));
        }
    }
    let s = file.shape;
    // Identifies the embedded net in `--version` and the UCI `id name`.
    let hash = format::NetFile::content_hash(&bytes);
    println!("cargo:rustc-env=TESSERA_NET_HASH={hash}");
    println!("cargo:rustc-env=TESSERA_NET_KIND={} {}", file.features, s.short_name());
    let code = format!(
        "/// The embedded network, chosen when the engine was built.\n\
         pub static EMBEDDED: &[u8] = include_bytes_aligned::include_bytes_aligned!(64, {path:?});\n\
         pub const FEATURES: &str = {features:?};\n\
         /// inputs, feature transformer, hidden, second hidden (0: none), output buckets\n\
         pub const SHAPE: [usize; 5] = [{}, {}, {}, {}, {}];\n\
         /// Whether the feature transformer's halves are multiplied pairwise.\n\
         pub const PAIRWISE: bool = {};\n\
         /// The same sizes as constants, for the fixed-size evaluation path.\n\
         pub const FT: usize = {};\n\
         pub const L1_INPUTS: usize = {};\n\
         pub const HIDDEN: usize = {};\n\
         pub const HIDDEN2: usize = {};\n",
        s.inputs,
        s.ft,
        s.hidden,
        s.hidden2,
        s.buckets,
        s.pairwise,
        s.ft,
        s.l1_inputs(),
        s.hidden,
        s.hidden2,
        path = embedded.display().to_string(),
        features = file.features,
    );
    (code, names::normalize(&file.features))
}

fn fail(path: &Path, why: &str) -> ! {
    eprintln!("error: network {} is not usable: {why}", path.display());
    std::process::exit(1);
}

/// The x86-64 microarchitecture level the compiler may use everywhere
/// (`-C target-cpu`/`target-feature`), named as psABI names it, and the CPU
/// features a start-up check must find (src/cpu_level.rs): a v3 binary on a
/// CPU without AVX2 says so instead of dying of an illegal instruction.
fn cpu_level() {
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let enabled = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |f: &str| enabled.split(',').any(|e| e == f);
    const V3: [&str; 8] = ["avx", "avx2", "bmi1", "bmi2", "fma", "lzcnt", "movbe", "popcnt"];
    const V4: [&str; 5] = ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];
    let (level, needs): (String, Vec<&str>) = if arch != "x86_64" {
        (arch.clone(), Vec::new())
    } else if V3.iter().chain(&V4).all(|f| has(f)) {
        ("x86-64-v4".into(), V3.iter().chain(&V4).copied().collect())
    } else if V3.iter().all(|f| has(f)) {
        ("x86-64-v3".into(), V3.to_vec())
    } else {
        // Below v3 the baseline; any feature enabled beyond it is checked too.
        let extra: Vec<&str> = V3.iter().chain(&V4).copied().filter(|f| has(f)).collect();
        let name = if extra.is_empty() { "x86-64".to_string() } else { format!("x86-64+{}", extra.join("+")) };
        (name, extra)
    };
    println!("cargo:rustc-env=TESSERA_CPU_LEVEL={level}");
    println!("cargo:rustc-env=TESSERA_CPU_NEEDS={}", needs.join(","));
}

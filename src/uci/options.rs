//! The UCI option table: declaration, validation and current values.

use super::command::quote;
use crate::search::{params, strength};

/// How an option is declared and what values it takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
    Text { default: &'static str },
}

#[derive(Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
}

pub const SPECS: &[Spec] = &[
    Spec { name: "Hash", kind: Kind::Spin { default: 16, min: 1, max: 32_768 } },
    Spec { name: "Threads", kind: Kind::Spin { default: 1, min: 1, max: 256 } },
    Spec { name: "Move Overhead", kind: Kind::Spin { default: 10, min: 0, max: 5_000 } },
    Spec { name: "MultiPV", kind: Kind::Spin { default: 1, min: 1, max: 256 } },
    Spec { name: "Ponder", kind: Kind::Check { default: false } },
    Spec { name: "Clear Hash", kind: Kind::Button },
    Spec { name: "UCI_Chess960", kind: Kind::Check { default: false } },
    Spec { name: "UCI_ShowWDL", kind: Kind::Check { default: false } },
    Spec { name: "UCI_LimitStrength", kind: Kind::Check { default: false } },
    Spec {
        name: "UCI_Elo",
        kind: Kind::Spin { default: strength::MIN_ELO, min: strength::MIN_ELO, max: strength::MAX_ELO },
    },
    Spec { name: "EvalFile", kind: Kind::Text { default: EMBEDDED_NET } },
    Spec { name: "SyzygyPath", kind: Kind::Text { default: NO_PATH } },
    Spec { name: "SyzygyProbeDepth", kind: Kind::Spin { default: 1, min: 1, max: 100 } },
    Spec { name: "Syzygy50MoveRule", kind: Kind::Check { default: true } },
    Spec { name: "SyzygyProbeLimit", kind: Kind::Spin { default: 7, min: 0, max: 7 } },
];

/// The `SyzygyPath` value that means no tables (Stockfish's convention).
pub const NO_PATH: &str = "<empty>";

/// The `EvalFile` value that selects the network built into the engine.
pub const EMBEDDED_NET: &str = "<embedded>";

/// A validated `setoption`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    Hash(usize),
    Threads(usize),
    MoveOverhead(i64),
    MultiPv(usize),
    Ponder(bool),
    ClearHash,
    Chess960(bool),
    ShowWdl(bool),
    LimitStrength(bool),
    Elo(i64),
    EvalFile(String),
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    SyzygyProbeLimit(usize),
    /// A search constant (only in the `tune` build, which declares them).
    Tunable(&'static str, i64),
}

/// The options this build declares: the table, and in the `tune` build
/// every search constant as a spin option.
fn specs() -> impl Iterator<Item = Spec> {
    let tunables = params::ALL.iter().filter(|_| params::TUNABLE).map(|p| Spec {
        name: p.name,
        kind: Kind::Spin { default: p.default as i64, min: p.min as i64, max: p.max as i64 },
    });
    SPECS.iter().copied().chain(tunables)
}

/// The `option name …` lines sent after `uci`.
pub fn declarations() -> Vec<String> {
    specs()
        .map(|spec| match spec.kind {
            Kind::Spin { default, min, max } => {
                format!("option name {} type spin default {default} min {min} max {max}", spec.name)
            }
            Kind::Check { default } => {
                format!("option name {} type check default {default}", spec.name)
            }
            Kind::Button => format!("option name {} type button", spec.name),
            Kind::Text { default } => format!("option name {} type string default {default}", spec.name),
        })
        .collect()
}

/// Checks a `setoption name <name> [value <value>]` against the table.
pub fn parse_setting(name: &str, value: Option<&str>) -> Result<Setting, String> {
    let spec = specs()
        .find(|s| s.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown option '{}'", quote(name)))?;
    enum Value {
        Int(i64),
        Bool(bool),
        Text(String),
        None,
    }
    // `value` with nothing after it: the empty string, which only a string
    // option can take (`SyzygyPath` and `EvalFile` read it as "none").
    let given = value.filter(|v| !v.is_empty());
    let value = match spec.kind {
        Kind::Spin { min, max, .. } => {
            let text = given.ok_or_else(|| format!("option '{}' needs a value", spec.name))?;
            let v: i64 =
                text.parse().map_err(|_| format!("option '{}' takes an integer, not '{}'", spec.name, quote(text)))?;
            if !(min..=max).contains(&v) {
                return Err(format!("option '{}' value {v} is outside {min}..{max}", spec.name));
            }
            Value::Int(v)
        }
        Kind::Check { .. } => {
            let text = given.ok_or_else(|| format!("option '{}' needs a value", spec.name))?;
            match text.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => {
                    return Err(format!("option '{}' takes true or false, not '{}'", spec.name, quote(text)));
                }
            }
        }
        Kind::Button => Value::None,
        Kind::Text { .. } => Value::Text(value.unwrap_or_default().to_string()),
    };
    Ok(match (spec.name, value) {
        ("Hash", Value::Int(v)) => Setting::Hash(v as usize),
        ("Threads", Value::Int(v)) => Setting::Threads(v as usize),
        ("Move Overhead", Value::Int(v)) => Setting::MoveOverhead(v),
        ("MultiPV", Value::Int(v)) => Setting::MultiPv(v as usize),
        ("Ponder", Value::Bool(b)) => Setting::Ponder(b),
        ("Clear Hash", Value::None) => Setting::ClearHash,
        ("UCI_Chess960", Value::Bool(b)) => Setting::Chess960(b),
        ("UCI_ShowWDL", Value::Bool(b)) => Setting::ShowWdl(b),
        ("UCI_LimitStrength", Value::Bool(b)) => Setting::LimitStrength(b),
        ("UCI_Elo", Value::Int(v)) => Setting::Elo(v),
        ("EvalFile", Value::Text(path)) => Setting::EvalFile(path),
        ("SyzygyPath", Value::Text(path)) => Setting::SyzygyPath(path),
        ("SyzygyProbeDepth", Value::Int(v)) => Setting::SyzygyProbeDepth(v as i32),
        ("Syzygy50MoveRule", Value::Bool(b)) => Setting::Syzygy50MoveRule(b),
        ("SyzygyProbeLimit", Value::Int(v)) => Setting::SyzygyProbeLimit(v as usize),
        (name, Value::Int(v)) if params::find(name).is_some_and(|p| p.name == name) => Setting::Tunable(name, v),
        _ => unreachable!("every option in SPECS has a Setting"),
    })
}

fn spin_default(name: &str) -> i64 {
    match SPECS.iter().find(|s| s.name == name).map(|s| s.kind) {
        Some(Kind::Spin { default, .. }) => default,
        _ => unreachable!("{name} is a spin option"),
    }
}

/// Current values of the options the engine reads.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: i64,
    pub multipv: usize,
    pub ponder: bool,
    pub chess960: bool,
    pub show_wdl: bool,
    /// `UCI_LimitStrength` and `UCI_Elo`.
    pub limit_strength: bool,
    pub elo: i64,
    pub syzygy_probe_depth: i32,
    pub syzygy_rule50: bool,
    pub syzygy_probe_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: spin_default("Hash") as usize,
            threads: spin_default("Threads") as usize,
            move_overhead_ms: spin_default("Move Overhead"),
            multipv: spin_default("MultiPV") as usize,
            ponder: false,
            chess960: false,
            show_wdl: false,
            limit_strength: false,
            elo: spin_default("UCI_Elo"),
            syzygy_probe_depth: spin_default("SyzygyProbeDepth") as i32,
            syzygy_rule50: true,
            syzygy_probe_limit: spin_default("SyzygyProbeLimit") as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_validated() {
        assert_eq!(parse_setting("hash", Some("64")), Ok(Setting::Hash(64)));
        assert_eq!(parse_setting("Move Overhead", Some("100")), Ok(Setting::MoveOverhead(100)));
        assert_eq!(parse_setting("Clear Hash", None), Ok(Setting::ClearHash));
        assert_eq!(parse_setting("UCI_ShowWDL", Some("TRUE")), Ok(Setting::ShowWdl(true)));
        assert!(parse_setting("Hash", Some("0")).unwrap_err().contains("outside"));
        assert!(parse_setting("Hash", Some("lots")).unwrap_err().contains("integer"));
        assert!(parse_setting("Hash", None).unwrap_err().contains("needs a value"));
        assert!(parse_setting("Ponder", Some("maybe")).unwrap_err().contains("true or false"));
        assert!(parse_setting("Contempt", Some("1")).unwrap_err().contains("unknown option"));
        assert_eq!(declarations().len(), SPECS.len() + if params::TUNABLE { params::ALL.len() } else { 0 });
        assert_eq!(parse_setting("SyzygyPath", Some("/a:/b")), Ok(Setting::SyzygyPath("/a:/b".into())));
        assert_eq!(parse_setting("SyzygyPath", Some("")), Ok(Setting::SyzygyPath(String::new())));
        assert_eq!(parse_setting("EvalFile", None), Ok(Setting::EvalFile(String::new())));
        assert!(parse_setting("Hash", Some("")).unwrap_err().contains("needs a value"));
        assert!(parse_setting("Ponder", Some("")).unwrap_err().contains("needs a value"));
        assert!(parse_setting("SyzygyProbeLimit", Some("8")).unwrap_err().contains("outside"));
        assert_eq!(parse_setting("syzygy50moverule", Some("false")), Ok(Setting::Syzygy50MoveRule(false)));
        assert_eq!(parse_setting("uci_limitstrength", Some("true")), Ok(Setting::LimitStrength(true)));
        assert_eq!(parse_setting("UCI_Elo", Some("1800")), Ok(Setting::Elo(1800)));
        assert!(parse_setting("UCI_Elo", Some("100")).unwrap_err().contains("outside"));
    }

    #[test]
    fn search_constants_are_options_only_in_the_tune_build() {
        let declared = declarations().iter().any(|d| d.starts_with("option name rfp_margin type spin default"));
        assert_eq!(declared, params::TUNABLE);
        let setting = parse_setting("RFP_Margin", Some("90"));
        if params::TUNABLE {
            assert_eq!(setting, Ok(Setting::Tunable("rfp_margin", 90)));
            assert!(parse_setting("rfp_margin", Some("9999")).unwrap_err().contains("outside"));
            assert!(parse_setting("rfp_margin", None).unwrap_err().contains("needs a value"));
        } else {
            assert!(setting.unwrap_err().contains("unknown option"));
        }
    }
}

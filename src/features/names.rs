//! The block names an expression may use. Kept apart so that build.rs can
//! check an embedded net's expression with the same list.

/// The names of every block, as the expression parser accepts them.
pub const BLOCK_NAMES: &[&str] =
    &["all", "h", "v", "d1", "d2", "compact", "ph", "pv", "mb", "mc", "kp", "ka", "rk-h", "rk-v", "rk-hv", "pm"];

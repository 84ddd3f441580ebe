//! The one table of feature blocks: each name an expression may use, and the
//! Rust type that implements it. build.rs reads this file to check an
//! embedded net's expression and to generate both the parser's name lookup
//! and the compiled feature-set type (`compiled.rs`), so a block is
//! registered here and nowhere else.

/// `(name in expressions, type implementing FeatureBlock)`, in the order
/// error messages list them. Types are written as seen from `features`.
pub const BLOCKS: &[(&str, &str)] = &[
    ("all", "PieceBlock<all::All>"),
    ("h", "PieceBlock<h::H>"),
    ("v", "PieceBlock<v::V>"),
    ("d1", "PieceBlock<d1::D1>"),
    ("d2", "PieceBlock<d2::D2>"),
    // `compact` is h ⊕ v by definition.
    ("compact", "Sum<PieceBlock<h::H>, PieceBlock<v::V>>"),
    ("ph", "Pairwise<ph::Ph>"),
    ("pv", "Pairwise<pv::Pv>"),
    ("mb", "mb::Mb"),
    ("mc", "mc::Mc"),
    ("kp", "PieceBlock<kp::Kp>"),
    ("ka", "PieceBlock<ka::Ka>"),
    // King buckets with horizontal mirroring (layouts in kb.rs).
    ("kb4", "PieceBlock<kb::Kb<kb::Four>>"),
    ("kb8", "PieceBlock<kb::Kb<kb::Eight>>"),
    ("kb16", "PieceBlock<kb::Kb<kb::Sixteen>>"),
    ("rk-h", "PieceBlock<rk_h::RkH>"),
    ("rk-v", "PieceBlock<rk_v::RkV>"),
    ("rk-hv", "PieceBlock<rk_hv::RkHv>"),
    // `pm` is all ⊕ (from × to of the legal moves).
    ("pm", "Sum<PieceBlock<all::All>, pm::Moves>"),
    // Planes of a board-to-planes encoding (planes.rs): passed pawns, pinned
    // pieces, square control, the squares legal moves reach; and the
    // castling rights.
    ("pp", "PlaneBlock<pp::Passed>"),
    ("pin", "PlaneBlock<pin::Pinned>"),
    ("ctl", "PlaneBlock<ctl::Control>"),
    ("mt", "PlaneBlock<mt::Reach>"),
    ("cr", "cr::Cr"),
    // Threat inputs: (attacker, its square, attacked piece, its square).
    ("th", "th::Th"),
];

/// The type of a block name, if it is one.
#[allow(dead_code)] // used by build.rs
pub fn block_type(name: &str) -> Option<&'static str> {
    BLOCKS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The names of every block, in table order.
pub fn block_names() -> impl Iterator<Item = &'static str> {
    BLOCKS.iter().map(|(n, _)| *n)
}

#[allow(dead_code)] // used by build.rs
/// The Rust type of a whole expression: blocks folded right into `Sum`s.
/// `None` if a name is unknown or the expression has an empty block.
pub fn expression_type(expression: &str) -> Option<String> {
    let types: Option<Vec<&str>> = expression.split('+').map(|n| block_type(n.trim())).collect();
    let types = types?;
    let (last, rest) = types.split_last()?;
    Some(rest.iter().rev().fold(last.to_string(), |acc, t| format!("Sum<{t}, {acc}>")))
}

/// An expression with the spaces around its names removed: the form nets
/// store and compare.
pub fn normalize(expression: &str) -> String {
    expression.split('+').map(str::trim).collect::<Vec<_>>().join("+")
}

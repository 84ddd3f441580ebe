//! What build.rs chose for this binary (generated into OUT_DIR/net.rs): the
//! embedded net's bytes, its feature set and its layer sizes. The network
//! code reads the sizes to compile its fixed-size path; `embedded` parses
//! the bytes. Neither depends on the other.

use super::format::Shape;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/net.rs"));
}

/// Layer sizes of the embedded net as constants: the evaluation is compiled
/// for exactly these sizes.
pub use generated::{FT, HIDDEN, HIDDEN2, L1_INPUTS, PAIRWISE};

/// The embedded file's bytes.
pub fn bytes() -> &'static [u8] {
    generated::EMBEDDED
}

/// The feature set and shape this engine was built for.
pub fn compiled_kind() -> (&'static str, Shape) {
    let [inputs, ft, hidden, hidden2, buckets] = generated::SHAPE;
    (generated::FEATURES, Shape { inputs, ft, hidden, hidden2, buckets, pairwise: generated::PAIRWISE })
}

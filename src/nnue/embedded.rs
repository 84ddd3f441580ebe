//! The network embedded at build time (see build.rs), parsed once.

use std::sync::Arc;

use once_cell::sync::Lazy;

use super::format::Shape;
use super::network::Network;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/net.rs"));
}

/// Layer sizes of the embedded net as constants: the
/// evaluation is compiled for exactly these sizes.
pub use generated::{FT, HIDDEN, HIDDEN2, TWO_FT};

/// The feature set and shape this engine was built for.
pub fn compiled_kind() -> (&'static str, Shape) {
    let [inputs, ft, hidden, hidden2, buckets] = generated::SHAPE;
    (generated::FEATURES, Shape { inputs, ft, hidden, hidden2, buckets })
}

static DEFAULT: Lazy<Arc<Network>> =
    Lazy::new(|| Arc::new(Network::from_bytes(generated::EMBEDDED).expect("build.rs validated the embedded net")));

/// The embedded file's bytes.
pub fn bytes() -> &'static [u8] {
    generated::EMBEDDED
}

/// The embedded network.
pub fn default_network() -> Arc<Network> {
    DEFAULT.clone()
}

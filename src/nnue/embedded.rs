//! The network embedded at build time (see build.rs), parsed once.

use std::sync::Arc;

use once_cell::sync::Lazy;

use super::format::Shape;
use super::network::Network;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/net.rs"));
}

/// Layer sizes of the embedded net as constants (0 without one): the
/// evaluation is compiled for exactly these sizes.
pub use generated::{FT, HIDDEN, HIDDEN2, TWO_FT};

/// The feature set and shape this engine was built for, if it embeds a net.
pub fn compiled_kind() -> Option<(&'static str, Shape)> {
    let [inputs, ft, hidden, hidden2] = generated::SHAPE?;
    Some((generated::FEATURES?, Shape { inputs, ft, hidden, hidden2 }))
}

static DEFAULT: Lazy<Option<Arc<Network>>> = Lazy::new(|| {
    generated::EMBEDDED.map(|bytes| Arc::new(Network::from_bytes(bytes).expect("build.rs validated the embedded net")))
});

/// The embedded network, or `None` for a material-evaluation build.
pub fn default_network() -> Option<Arc<Network>> {
    DEFAULT.clone()
}

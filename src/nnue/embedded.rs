//! The network embedded at build time (see build.rs), parsed once.

use std::sync::Arc;

use once_cell::sync::Lazy;

use super::compiled;
use super::network::Network;

pub use super::compiled::{bytes, compiled_kind};

static DEFAULT: Lazy<Arc<Network>> =
    Lazy::new(|| Arc::new(Network::from_bytes(compiled::bytes()).expect("build.rs validated the embedded net")));

/// The embedded network.
pub fn default_network() -> Arc<Network> {
    DEFAULT.clone()
}

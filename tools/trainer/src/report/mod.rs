//! What the trainer reports beside a run: loss curves, the charts that
//! compare runs, a neuron's weights, a finished net's held-out loss, the
//! win-probability fit, and how fast each data file loads.

pub mod charts;
pub mod eval_net;
pub mod plot;
pub mod read_speed;
pub mod wdl_fit;
pub mod weights;

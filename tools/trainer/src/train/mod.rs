//! Training: the float network and its passes, the loss, the optimiser,
//! batches, the checkpoint and its campaign, and the run that ties them.

pub mod average;
pub mod batch;
pub mod campaign;
pub mod checkpoint;
mod config;
pub mod kernels;
pub mod loss;
pub mod model;
pub mod net_files;
pub mod optim;
pub mod passes;
mod run;
pub mod sparse;
mod training_set;

pub use run::{EpochDone, Hooks, Outcome, run, run_with};

//! Training data: the samples and their text formats, the sources named on
//! the command line, the mirrored copies, the teacher's scores, and the
//! packed positions a run holds in memory.

pub mod augment;
pub mod packed;
pub mod samples;
pub mod sources;
pub mod teacher;

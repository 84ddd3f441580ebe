//! `tessera-trainer read-speed`: how fast each file loads through the
//! trainer's own loader (read, parse, filter as training does by default,
//! deduplicate, pack), and how many bytes a position it takes on disk: the
//! numbers to choose a data format by.

use std::path::PathBuf;
use std::time::Instant;

use tessera_data::filter::Filter;
use tessera_data::formats::Format;

use crate::data::samples::Method;
use crate::data::sources::{self, ReadSettings, SourceSpec};

#[derive(clap::Args, Debug)]
pub struct ReadSpeedArgs {
    /// Files of any format the trainer reads (`tessera-trainer formats`).
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Loads of each file; the fastest is reported (the first warms the
    /// page cache).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

pub fn run(args: &ReadSpeedArgs) -> Result<(), Box<dyn std::error::Error>> {
    let settings =
        ReadSettings { method: Method::Eval, filter: Filter::QUIET, limit: usize::MAX, seed: 1, deduplicate: true };
    println!(
        "| file | format | bytes | positions read | bytes / position | used after filters | load (s) | positions / s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for file in &args.files {
        let spec: SourceSpec = file.display().to_string().parse()?;
        let bytes = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?.len();
        let mut best = f64::INFINITY;
        let mut counts = (0, 0);
        for _ in 0..args.repeats.max(1) {
            let start = Instant::now();
            let loaded = sources::load(std::slice::from_ref(&spec), &[], &settings)?;
            best = best.min(start.elapsed().as_secs_f64());
            let report = &loaded.train_files[0];
            counts = (report.lines - report.rejected, report.used);
        }
        let (read, used) = counts;
        println!(
            "| `{}` | {} | {bytes} | {read} | {:.1} | {used} | {best:.2} | {:.0} |",
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned()),
            Format::of_path(file),
            bytes as f64 / read.max(1) as f64,
            read as f64 / best,
        );
    }
    Ok(())
}

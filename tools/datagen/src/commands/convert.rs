//! `convert`: any data format to any other, through the filters.

use std::path::PathBuf;

use tessera_data::filter::FilterCounts;
use tessera_data::formats::{self, Format};
use tessera_datagen::pipeline::Outcome;

use crate::{FilterArgs, output_apart, read_filtered, report};

pub fn run(
    inputs: Vec<PathBuf>,
    output: PathBuf,
    from: Option<Format>,
    to: Option<Format>,
    filter: FilterArgs,
) -> Result<Outcome, String> {
    output_apart(&inputs, &output)?;
    let to = to.unwrap_or_else(|| Format::of_path(&output));
    let mut writer = formats::create(&output, to)?;
    let mut counts = FilterCounts::default();
    for input in &inputs {
        let mut failure = None;
        let r = read_filtered(input, from, filter.filter(), &mut counts, |entry| {
            if failure.is_none()
                && let Err(e) = writer.write(&entry)
            {
                failure = Some(e);
            }
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        report(&r);
    }
    let written = writer.finish()?;
    if filter.filter().is_active() {
        println!("filters: {counts}");
    }
    if written.skipped > 0 {
        println!(
            "skipped {} positions {to} cannot hold (first: {})",
            written.skipped,
            written.first_skipped.as_deref().unwrap_or("-")
        );
    }
    println!("wrote {} positions to {} ({to})", written.written, output.display());
    Ok(Outcome::default())
}

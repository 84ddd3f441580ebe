//! `shuffle`: records of several files in one random order.

use std::path::PathBuf;

use tessera_data::store::{RecordWriter, read_records};
use tessera_datagen::pipeline::Outcome;

use crate::{output_apart, report};

pub fn run(inputs: Vec<PathBuf>, output: PathBuf, seed: u64) -> Result<Outcome, String> {
    output_apart(&inputs, &output)?;
    if output.exists() {
        return Err(format!("{} exists: choose a new output", output.display()));
    }
    let mut records = Vec::new();
    for input in &inputs {
        report(&read_records(input, |r| records.push(r))?);
    }
    tessera::rng::Rng::for_item(seed, 0).shuffle(&mut records);
    let mut writer = RecordWriter::append(&output)?;
    for r in &records {
        writer.write(r)?;
    }
    writer.sync()?;
    println!("wrote {} shuffled records to {}", records.len(), output.display());
    Ok(Outcome::default())
}

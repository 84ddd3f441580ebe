//! `stats`: what a data file holds (scores, results, phases), or with
//! `--features` how a feature set sees its positions.

use std::path::PathBuf;

use tessera_data::filter::FilterCounts;
use tessera_datagen::pipeline::Outcome;
use tessera_datagen::stats::Stats;

use crate::{FilterArgs, read_filtered, report};

pub fn run(inputs: Vec<PathBuf>, filter: FilterArgs, features: Option<String>) -> Result<Outcome, String> {
    if let Some(expression) = features {
        let fs: tessera::features::FeatureSet = expression.parse().map_err(|e| format!("--features: {e}"))?;
        for input in &inputs {
            print!("{}", tessera_datagen::feature_stats::collect(&fs, input)?.table());
        }
        return Ok(Outcome::default());
    }
    let mut stats = Stats::default();
    let mut counts = FilterCounts::default();
    for input in &inputs {
        report(&read_filtered(input, None, filter.filter(), &mut counts, |entry| stats.add(&entry.record))?);
    }
    if filter.filter().is_active() {
        println!("filters: {counts}");
    }
    print!("{}", stats.table());
    Ok(Outcome::default())
}

//! `agree`: how close labellings of the same positions are to a deeper one.

use std::path::{Path, PathBuf};

use tessera_data::store::read_records;
use tessera_datagen::agreement::{Labels, measure};
use tessera_datagen::pipeline::Outcome;

use crate::report;

pub fn run(candidates: Vec<PathBuf>, reference: PathBuf, scale: f64) -> Result<Outcome, String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("--scale must be a positive number of centipawns, not {scale}"));
    }
    let load = |path: &Path| -> Result<Labels, String> {
        let mut labels = Labels::default();
        report(&read_records(path, |r| labels.add(&r))?);
        println!("{}: {} records, {} distinct positions", path.display(), labels.records, labels.positions());
        Ok(labels)
    };
    let reference_labels = load(&reference)?;
    let candidate_labels = candidates.iter().map(|c| load(c)).collect::<Result<Vec<_>, _>>()?;
    let agreement = measure(&reference_labels, &candidate_labels, scale);
    if agreement.shared == 0 {
        return Err(format!(
            "no position is held by {} and every candidate: compare labellings of the same positions",
            reference.display()
        ));
    }
    let names: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
    print!("{}", agreement.table(&names));
    Ok(Outcome::default())
}

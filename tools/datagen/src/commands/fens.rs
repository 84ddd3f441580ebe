//! `fens`: a list of FEN or EPD positions with their results, labelled.

use std::path::PathBuf;

use tessera_datagen::fenlist::{self, MissingResult};
use tessera_datagen::pipeline::{Dealing, Outcome};

use crate::{LabelArgs, label};

pub fn run(
    inputs: Vec<PathBuf>,
    output: PathBuf,
    labelling: LabelArgs,
    missing_result: MissingResult,
) -> Result<Outcome, String> {
    let mut positions = Vec::new();
    for input in &inputs {
        let (listed, report) = fenlist::read(input, missing_result)?;
        eprint!("{}: {} positions", input.display(), report.read);
        if report.without_result > 0 {
            let what = if report.skipped_without_result > 0 { "skipped" } else { "recorded as draws" };
            eprint!(", {} without a result ({what})", report.without_result);
        }
        eprintln!();
        positions.extend(listed);
    }
    label(&positions, Dealing::Positions, &output, &labelling)
}

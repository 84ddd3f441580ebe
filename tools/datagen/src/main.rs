//! `tessera-datagen`: training data for Tessera's networks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tessera_datagen::stats::Stats;
use tessera_datagen::store::{ReadReport, RecordWriter, read_records};

/// Training data tools. Files ending in `.bin` hold 32-byte binary records
/// (checksummed); other files hold text lines `<FEN> | <cp, white's view> |
/// <result 1.0/0.5/0.0>`, plain or zstd.
#[derive(Parser, Debug)]
#[command(name = "tessera-datagen", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Appends every good record of the inputs to OUTPUT, in its format.
    Convert {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
    },
    /// Count, result balance, score histogram and pieces on board.
    Stats {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
    },
}

fn report(report: &ReadReport) {
    if report.rejected > 0 || report.truncated_tail > 0 {
        eprintln!(
            "warning: skipped {} bad records{}{}",
            report.rejected,
            if report.truncated_tail > 0 {
                format!(" and a {}-byte record cut short at the end", report.truncated_tail)
            } else {
                String::new()
            },
            report.first_rejection.as_ref().map_or(String::new(), |f| format!(" (first: {f})"))
        );
    }
}

fn run(args: Args) -> Result<(), String> {
    match args.command {
        Command::Convert { inputs, output } => {
            if inputs.iter().any(|i| i == &output) {
                return Err("the output must not be one of the inputs".into());
            }
            let mut writer = RecordWriter::append(&output)?;
            let mut written = 0u64;
            for input in &inputs {
                let mut failure = None;
                let r = read_records(input, |record| {
                    if failure.is_none() {
                        match writer.write(&record) {
                            Ok(()) => written += 1,
                            Err(e) => failure = Some(e),
                        }
                    }
                })?;
                if let Some(e) = failure {
                    return Err(e);
                }
                report(&r);
            }
            writer.sync()?;
            println!("wrote {written} records to {}", output.display());
        }
        Command::Stats { inputs } => {
            let mut stats = Stats::default();
            for input in &inputs {
                report(&read_records(input, |record| stats.add(&record))?);
            }
            print!("{}", stats.table());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

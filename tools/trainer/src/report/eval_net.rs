//! `eval-net`: the held-out loss of a finished net as the engine runs it (its
//! integer weights and activations), file by file, with the trainer's eval
//! objective. Nets of an ablation are screened by this figure before any game
//! is played; here it needs no training run.

use std::path::PathBuf;

use rayon::prelude::*;

use tessera::nnue::network::Network;
use tessera_data::filter::Filter;

use crate::data::samples::{Method, Samples};
use crate::data::sources::{self, ReadSettings, SourceSpec};
use crate::train::loss::{CP_PER_UNIT, Objective};
use crate::train::net_files::engine_net;

type Error = Box<dyn std::error::Error>;

#[derive(clap::Args, Debug)]
pub struct EvalNetArgs {
    /// The net (`.nnue` or `.nnue.zst`), of any feature set and shape; before
    /// or after the --validation files.
    pub net: Option<PathBuf>,
    /// Held-out files or globs, as the trainer's --validation: only their
    /// quiet positions count (not in check, no winning capture).
    #[arg(long = "validation", required = true, num_args = 1..)]
    pub validation: Vec<SourceSpec>,
    /// The objective's settings, as the trainer's options of the same names
    /// (the loss is comparable with a training log's only where they match).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    #[arg(long, default_value_t = 361.0)]
    pub out_scale: f32,
    #[arg(long, default_value_t = 410.0)]
    pub target_scale: f32,
    #[arg(long, default_value_t = 2.6)]
    pub power: f32,
}

/// The net and the held-out files. `--validation` takes every word after it,
/// so a net named after its files (`--validation val/*.txt v9.nnue`) arrives
/// as the last of them: a net file is never held-out data, so it is taken back.
fn net_and_files(args: &EvalNetArgs) -> Result<(PathBuf, &[SourceSpec]), Error> {
    let files = &args.validation[..];
    if let Some(net) = &args.net {
        return Ok((net.clone(), files));
    }
    match files.split_last() {
        Some((last, [])) if is_net_name(&last.pattern) => {
            Err(format!("eval-net: no held-out files given (only the net {})", last.pattern).into())
        }
        Some((last, rest)) if is_net_name(&last.pattern) => Ok((PathBuf::from(&last.pattern), rest)),
        _ => Err("eval-net: no net given (name its .nnue file before or after the --validation files)".into()),
    }
}

fn is_net_name(path: &str) -> bool {
    path.ends_with(".nnue") || path.ends_with(".nnue.zst")
}

/// Each file's mean loss under `net`, by name, in the order given.
fn losses(net: &Network, files: &[SourceSpec], args: &EvalNetArgs) -> Result<Vec<(String, f64)>, Error> {
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err("--lambda must be within 0 and 1".into());
    }
    if !(args.out_scale > 0.0 && args.target_scale > 0.0 && args.power > 0.0) {
        return Err("--out-scale, --target-scale and --power must be positive".into());
    }
    // Held-out files are always read with the quiet filter; the rest only
    // concerns training files.
    let settings =
        ReadSettings { method: Method::Eval, filter: Filter::QUIET, limit: usize::MAX, seed: 1, deduplicate: true };
    let held = sources::load_held_out(files, &settings)?;
    let objective = Objective::Eval {
        out_scale: args.out_scale,
        target_scale: args.target_scale,
        lambda: args.lambda,
        power: args.power,
    };
    let mut out = Vec::new();
    for (name, samples) in &held.sets {
        let Samples::Eval(v) = samples else {
            return Err(format!("{name}: triplets have no score to compare a net with").into());
        };
        let total: f64 = v
            .par_iter()
            .map(|s| {
                let cp = net.evaluate_position(&s.pos()) as f32;
                objective.loss(&[cp / CP_PER_UNIT], [s.score, s.result], &mut [0.0])
            })
            .sum();
        out.push((name.clone(), total / v.len() as f64));
    }
    Ok(out)
}

pub fn run(args: &EvalNetArgs) -> Result<(), Error> {
    let (path, files) = net_and_files(args)?;
    let (net, _) = engine_net("eval-net", &path)?;
    println!("{}: {}", path.display(), net.summary());
    let per_file = losses(&net, files, args)?;
    for (name, loss) in &per_file {
        println!("validation loss {name}: {loss:.6}");
    }
    let mean = per_file.iter().map(|(_, l)| l).sum::<f64>() / per_file.len() as f64;
    println!("validation loss {mean:.6}");
    Ok(())
}

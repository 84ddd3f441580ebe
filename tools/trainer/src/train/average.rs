//! `average`: one net whose every weight is the mean of several nets' (a
//! "model soup"). Nets fine-tuned from one start on different targets sit in
//! one basin of the loss, where their mean is a net too, often a better one
//! than either; nets trained from different starts have no such mean.

use std::path::{Path, PathBuf};

use tessera::nnue::format::NetFile;
use tessera::nnue::network::FloatNetwork;

use crate::train::net_files::read_net;

type Error = Box<dyn std::error::Error>;

#[derive(clap::Args, Debug)]
pub struct AverageArgs {
    /// The nets (`.nnue` or `.nnue.zst`): two or more of one feature set and
    /// shape, best fine-tuned from one common net.
    #[arg(required = true, num_args = 2..)]
    pub nets: Vec<PathBuf>,
    /// Each net's weight in the mean, in the order of the nets (default:
    /// equal); they are normalised to sum to 1.
    #[arg(long, num_args = 1.., value_delimiter = ',')]
    pub weights: Vec<f64>,
    /// The net to write.
    #[arg(long, short)]
    pub out: PathBuf,
}

pub fn run(args: &AverageArgs) -> Result<(), Error> {
    let weights = normalised_weights(&args.weights, args.nets.len())?;
    let mut nets = Vec::with_capacity(args.nets.len());
    let mut names = Vec::with_capacity(args.nets.len());
    for path in &args.nets {
        let bytes = read_net("average", path)?;
        let file = NetFile::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(first) =
            nets.first().filter(|f: &&FloatNetwork| f.features != file.features || f.shape != file.shape)
        {
            return Err(format!(
                "{} is a '{}' {} net, {} a '{}' {} net: only nets of one kind have a mean",
                path.display(),
                file.features,
                file.shape.short_name(),
                args.nets[0].display(),
                first.features,
                first.shape.short_name()
            )
            .into());
        }
        names.push(format!("{} ({})", file_name(path), NetFile::content_hash(&bytes)));
        nets.push(FloatNetwork::dequantize(&file));
    }
    let mean = mean_network(&nets, &weights);
    let shares: Vec<String> = weights.iter().map(|w| format!("{w:.3}")).collect();
    let description = format!("mean of {} with weights {}", names.join(", "), shares.join(", "));
    let bytes = mean.quantize(&description).to_bytes();
    std::fs::write(&args.out, &bytes).map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    println!("wrote {} (hash {}): {description}", args.out.display(), NetFile::content_hash(&bytes));
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The weights of the mean: equal when none are given, else the given ones
/// (positive, one per net) scaled to sum to 1.
fn normalised_weights(given: &[f64], nets: usize) -> Result<Vec<f64>, Error> {
    if given.is_empty() {
        return Ok(vec![1.0 / nets as f64; nets]);
    }
    if given.len() != nets {
        return Err(format!("--weights has {} values for {nets} nets", given.len()).into());
    }
    if given.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(format!("--weights must be positive numbers, not {given:?}").into());
    }
    let sum: f64 = given.iter().sum();
    Ok(given.iter().map(|w| w / sum).collect())
}

/// The weighted mean of nets of one feature set and shape, tensor by tensor.
fn mean_network(nets: &[FloatNetwork], weights: &[f64]) -> FloatNetwork {
    let first = &nets[0];
    let mean = |tensor: fn(&FloatNetwork) -> &Vec<f32>| -> Vec<f32> {
        let mut out = vec![0.0f64; tensor(first).len()];
        for (net, &w) in nets.iter().zip(weights) {
            for (o, &x) in out.iter_mut().zip(tensor(net)) {
                *o += w * f64::from(x);
            }
        }
        out.into_iter().map(|x| x as f32).collect()
    };
    FloatNetwork {
        features: first.features.clone(),
        shape: first.shape,
        ft_bias: mean(|n| &n.ft_bias),
        ft_weights: mean(|n| &n.ft_weights),
        hidden_bias: mean(|n| &n.hidden_bias),
        hidden_weights: mean(|n| &n.hidden_weights),
        hidden2_bias: mean(|n| &n.hidden2_bias),
        hidden2_weights: mean(|n| &n.hidden2_weights),
        output_bias: mean(|n| &n.output_bias),
        output_weights: mean(|n| &n.output_weights),
    }
}

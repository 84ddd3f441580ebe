//! One training run: its settings checked, its samples loaded, started or
//! resumed from its checkpoint, trained epoch by epoch with a checkpoint
//! after each, and exported as the engine's net.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use tessera::features::FeatureSet;
use tessera::nnue::format::Shape;
use tessera::nnue::network::{FloatNetwork, Network};

use crate::Args;
use crate::data::samples::{self, Method, Samples};
use crate::report::plot;
use crate::train::batch::{Batch, FeatureCache, epoch_order, produce};
use crate::train::checkpoint::{Checkpoint, EpochRecord, write_atomically};
use crate::train::config::Config;
use crate::train::loss::Objective;
use crate::train::model::Model;
use crate::train::optim::{Adam, FinalPhase, warmup_factor};
use crate::train::passes::{PhaseTimes, Scratch, loss_and_gradient, loss_and_gradient_timed};
use crate::train::training_set::{self, TrainingSet};

type Error = Box<dyn std::error::Error>;

/// The command line, quoted where needed, for the net's description.
fn command_line() -> String {
    std::env::args()
        .map(|a| if a.is_empty() || a.contains(char::is_whitespace) { format!("'{a}'") } else { a })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The default net name: `<features>_<M>x2-<O>[-<P>]-1.nnue` (nets/README.md, "Names").
pub fn net_name(features: &str, shape: Shape) -> String {
    format!("{features}_{}.nnue", shape.short_name())
}

/// What a caller that drives a run (a campaign) sees and decides between
/// epochs.
#[derive(Default)]
pub struct Hooks<'a> {
    /// The command line recorded in the net's description (default: this
    /// process's own).
    pub command: Option<String>,
    /// Called after every epoch, once its checkpoint is on disk.
    pub after_epoch: Option<AfterEpoch<'a>>,
    /// Stop cleanly after this many epochs trained by this call (the
    /// checkpoint written, no net exported).
    pub stop_after: Option<usize>,
}

/// The callback of [`Hooks::after_epoch`].
pub type AfterEpoch<'a> = Box<dyn FnMut(&EpochDone) -> Result<(), Error> + 'a>;

/// A finished epoch, as [`Hooks::after_epoch`] sees it.
pub struct EpochDone<'c> {
    pub checkpoint: &'c Checkpoint,
    pub epochs: usize,
    pub samples_per_epoch: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every epoch trained and the net written here.
    Finished(PathBuf),
    /// Stopped by [`Hooks::stop_after`] after this many epochs in all.
    Stopped(usize),
}

pub fn run(args: &Args) -> Result<(), Error> {
    run_with(args, Hooks::default()).map(|_| ())
}

pub fn run_with(args: &Args, mut hooks: Hooks) -> Result<Outcome, Error> {
    let command = hooks.command.clone().unwrap_or_else(command_line);
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    }
    let config = Config::from_args(args)?;
    let set = training_set::load(args, &config)?;
    let epochs = epochs(args, set.train.len());
    let (objective, target_scale, fitted) = objective(args, config.method, &set.train)?;
    if args.final_epochs >= epochs {
        return Err("--final-epochs must leave epochs before the final phase".into());
    }
    let final_phase =
        (args.final_epochs > 0).then_some(FinalPhase { epochs: args.final_epochs, factor: args.final_lr });

    std::fs::create_dir_all(&args.out)?;
    let checkpoint_path = args.out.join("checkpoint.bin");
    let fingerprint = config.fingerprint(args, &objective);
    let (model, adam, first_epoch, mut history) = start_or_resume(args, &config, &checkpoint_path, &fingerprint)?;
    let net_path = args.net.clone().unwrap_or_else(|| args.out.join(net_name(config.fs.expression(), config.shape)));
    let validation_total = set.validation_total();
    let TrainingSet { train, validation } = set;
    let fs = Arc::new(config.fs);
    let train = Arc::new(train);
    let set_names: Vec<String> = validation.iter().map(|(n, _)| n.clone()).collect();
    let plot_title = format!("{} {}: loss per epoch", fs.expression(), config.shape.short_name());
    let write_loss_reports = |history: &[EpochRecord]| -> Result<(), Error> {
        let names: Vec<&str> = set_names.iter().map(String::as_str).collect();
        plot::write_csv(history, &names, &args.out.join("loss.csv"))?;
        if let Err(e) = plot::write_png(history, &plot_title, &args.out.join("loss.png")) {
            eprintln!("warning: no loss plot: {e}");
        }
        Ok(())
    };
    let training_started = Instant::now();
    // Worked out once where more than one epoch is left (a single epoch
    // would build them once either way, and beside the passes).
    let cache = (epochs > first_epoch + 1).then(|| feature_cache(&fs, &train, training_started)).flatten();
    let mut trainer = Trainer::new(args, objective, fs.clone(), train.clone(), &validation, cache, model, adam);
    let mut trained_samples = 0usize;

    for epoch in first_epoch..epochs {
        let lr = config.schedule.rate_with(final_phase, args.lr, epoch, epochs);
        let clock = Instant::now();
        let (train_loss, learning_rate) = trainer.train_epoch(epoch, epochs, lr)?;
        let elapsed = clock.elapsed().as_secs_f64();
        trained_samples += train.len();
        let per_set = trainer.validate();
        // The overall figure weighs the sets equally, so one large source
        // does not hide the others.
        let validation_loss = per_set.iter().sum::<f64>() / per_set.len() as f64;
        let record = EpochRecord {
            epoch: (epoch + 1) as f64,
            train_loss,
            validation_loss,
            per_set,
            learning_rate,
            samples_per_second: train.len() as f64 / elapsed,
        };
        print_epoch(&record, epochs, lr, &set_names, elapsed);
        history.push(record);
        let checkpoint = Checkpoint {
            fingerprint: fingerprint.clone(),
            epochs_done: (epoch + 1) as u32,
            history: history.clone(),
            params: trainer.model.params.clone(),
            adam: trainer.adam.clone(),
        };
        checkpoint.save(&checkpoint_path)?;
        write_loss_reports(&history)?;
        if let Some(after_epoch) = hooks.after_epoch.as_mut() {
            after_epoch(&EpochDone { checkpoint: &checkpoint, epochs, samples_per_epoch: train.len() as u64 })?;
        }
        // Nets along the way, for a curve of strength against samples seen.
        if let Some(every) = args.nets_every
            && (epoch + 1) % every == 0
            && epoch + 1 < epochs
        {
            let seen = (epoch + 1) as u64 * train.len() as u64;
            let description = format!("{} | after epoch {} of {epochs}, {seen} samples seen", command, epoch + 1);
            let float = trainer.current().to_float();
            let path = net_path.with_extension(format!("e{}.nnue", epoch + 1));
            write_atomically(&path, &float.quantize(&description).to_bytes())?;
        }
        if hooks.stop_after.is_some_and(|n| epoch + 1 - first_epoch >= n) && epoch + 1 < epochs {
            println!("stopped after epoch {} of {epochs}; the same command resumes", epoch + 1);
            return Ok(Outcome::Stopped(epoch + 1));
        }
    }
    // A run killed between its last checkpoint and its reports resumes with
    // no epoch left to train: the reports are still rewritten from the
    // checkpoint's history, so they never miss an epoch.
    if first_epoch == epochs {
        write_loss_reports(&history)?;
    }

    let last = history.last().ok_or("no epoch trained")?;
    let description = format!(
        "{} | {} training / {} validation samples | target scale {target_scale:.0} cp (fitted {}) | \
         {} epochs | validation loss {:.6}",
        command,
        train.len(),
        validation_total,
        fitted.map_or("-".into(), |k| format!("{k:.0} cp")),
        history.len(),
        last.validation_loss
    );
    // With quantization-aware training the float net that was trained and
    // validated is the rounded one, and the error reported is what the
    // engine's integer activations add to it.
    let float = trainer.current().to_float();
    let bytes = float.quantize(&description).to_bytes();
    let net = Network::from_bytes(&bytes)?;
    write_atomically(&net_path, &bytes)?;
    let (mean_error, max_error) = quantization_error(&float, &net, &fs, &validation);
    if validation.len() > 1 {
        for ((name, _), loss) in validation.iter().zip(&last.per_set) {
            println!("validation loss {name}: {loss:.6}");
        }
    }
    let wall = training_started.elapsed().as_secs_f64();
    println!("wrote {} ({})", net_path.display(), net.summary());
    if trained_samples > 0 {
        println!(
            "trained {} epochs here in {:.1} s: {:.0} samples/s over the run",
            epochs - first_epoch,
            wall,
            trained_samples as f64 / wall
        );
    }
    println!("validation loss {:.6}", last.validation_loss);
    println!("quantization error on the validation set: mean {mean_error:.2} cp, max {max_error:.2} cp");
    Ok(Outcome::Finished(net_path))
}

/// The epochs of the run: `--epochs`, or with a budget in samples seen the
/// fewest whole passes over this training set that reach it.
fn epochs(args: &Args, train: usize) -> usize {
    match args.samples {
        Some(samples) => {
            let epochs = samples.div_ceil(train as u64) as usize;
            println!("--samples {samples}: {epochs} epochs, {} samples seen", epochs as u64 * train as u64);
            epochs
        }
        None => args.epochs,
    }
}

/// The loss, with its target scale (for eval data fitted to the training
/// results where asked), and the fitted scale, reported either way.
fn objective(args: &Args, method: Method, train: &Samples) -> Result<(Objective, f32, Option<f64>), Error> {
    let fitted = match train {
        Samples::Eval(v) => {
            let k = samples::fit_sigmoid_scale(v);
            println!("sigmoid scale fitted to the training results: {k:.0} cp");
            Some(k)
        }
        Samples::Pqr(_) => None,
    };
    let target_scale = match (args.target_scale.as_str(), fitted) {
        ("fit", Some(k)) => k as f32,
        ("fit", None) => return Err("--target-scale fit needs eval data".into()),
        (s, _) => s.parse::<f32>().ok().filter(|k| *k > 0.0).ok_or("--target-scale: a positive number or `fit`")?,
    };
    let objective = match method {
        Method::Eval => {
            Objective::Eval { out_scale: args.out_scale, target_scale, lambda: args.lambda, power: args.power }
        }
        Method::Pqr => Objective::Pqr { out_scale: args.out_scale },
    };
    Ok((objective, target_scale, fitted))
}

/// The model, optimiser state, first epoch to train and history: from the
/// checkpoint in the output folder if there is one made with the same
/// settings (and not `--fresh`), else new.
fn start_or_resume(
    args: &Args,
    config: &Config,
    checkpoint_path: &Path,
    fingerprint: &str,
) -> Result<(Model, Adam, usize, Vec<EpochRecord>), Error> {
    let net = match &config.init {
        Some((net, _)) => net.clone(),
        None => FloatNetwork::random_bucketed(&config.fs, config.shape, args.seed),
    };
    let mut model = Model::from_float(&net);
    if !checkpoint_path.exists() || args.fresh {
        let adam = Adam::new(config.adam, model.layout.total);
        return Ok((model, adam, 0, Vec::new()));
    }
    let bytes = std::fs::read(checkpoint_path)?;
    let c = Checkpoint::from_bytes(&bytes, config.adam)
        .map_err(|e| format!("{}: {e}; remove it or pass --fresh", checkpoint_path.display()))?;
    if c.fingerprint != fingerprint {
        return Err(format!(
            "{} was made with other settings:\n  it:  {}\n  now: {fingerprint}\n\
             use another --out folder, or --fresh to start over",
            checkpoint_path.display(),
            c.fingerprint
        )
        .into());
    }
    model.params = c.params;
    println!("resuming after epoch {} from {}", c.epochs_done, checkpoint_path.display());
    Ok((model, c.adam, c.epochs_done as usize, c.history))
}

/// The training positions' feature lists, if memory allows them.
fn feature_cache(fs: &Arc<FeatureSet>, train: &Arc<Samples>, since: Instant) -> Option<Arc<FeatureCache>> {
    match FeatureCache::build(fs, train, available_memory()) {
        Ok(cache) => {
            println!(
                "feature lists of {} positions cached: {} MB in {:.1} s",
                cache.positions(),
                cache.bytes() >> 20,
                since.elapsed().as_secs_f64()
            );
            Some(Arc::new(cache))
        }
        Err(why) => {
            println!("feature lists worked out batch by batch, not cached: {why}");
            None
        }
    }
}

/// The state that epochs carry forward, and what they read.
struct Trainer<'a> {
    args: &'a Args,
    objective: Objective,
    fs: Arc<FeatureSet>,
    train: Arc<Samples>,
    validation: &'a [(String, Samples)],
    validation_batches: Vec<Vec<Batch>>,
    cache: Option<Arc<FeatureCache>>,
    model: Model,
    adam: Adam,
    /// The parameters rounded to the engine's grid (quantization-aware
    /// training; sized on first use, so a plain run holds no copy).
    rounded: Model,
    grad: Vec<f32>,
    scratch: Scratch,
}

impl<'a> Trainer<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        args: &'a Args,
        objective: Objective,
        fs: Arc<FeatureSet>,
        train: Arc<Samples>,
        validation: &'a [(String, Samples)],
        cache: Option<Arc<FeatureCache>>,
        model: Model,
        adam: Adam,
    ) -> Trainer<'a> {
        let validation_batches = validation
            .iter()
            .map(|(_, set)| {
                (0..set.len() as u32)
                    .collect::<Vec<_>>()
                    .chunks(args.batch)
                    .map(|c| Batch::build(&fs, set, c))
                    .collect()
            })
            .collect();
        let rounded = Model { features: String::new(), layout: model.layout, params: Vec::new() };
        let grad = vec![0.0f32; model.layout.total];
        Trainer {
            args,
            objective,
            fs,
            train,
            validation,
            validation_batches,
            cache,
            model,
            adam,
            rounded,
            grad,
            scratch: Scratch::default(),
        }
    }

    /// The model the passes run on: the parameters themselves, or with
    /// quantization-aware training the parameters rounded to the grid.
    fn current(&mut self) -> &Model {
        trained_model(&self.model, &mut self.rounded, self.args.quantization_aware)
    }

    /// One pass over the training set at the scheduled rate `lr`: the mean
    /// training loss, and the mean rate applied (with a warmup the first
    /// steps run below `lr`, and the log reports what was applied).
    fn train_epoch(&mut self, epoch: usize, epochs: usize, lr: f32) -> Result<(f64, f64), Error> {
        let args = self.args;
        let samples_total = self.train.len();
        let bar = ProgressBar::new(samples_total as u64).with_prefix(format!("epoch {}/{}", epoch + 1, epochs));
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}")?
                .progress_chars("=> "),
        );
        let clock = Instant::now();
        let (mut loss_sum, mut applied_rate_sum) = (0.0, 0.0);
        let mut phases = PhaseTimes::default();
        let (mut waiting, mut optimizer) = (0.0, 0.0);
        let bounds = self.model.layout.clip_ranges();
        let order = epoch_order(samples_total, args.seed, epoch);
        let batches = produce(self.fs.clone(), self.cache.clone(), self.train.clone(), order, args.batch);
        loop {
            let wait = Instant::now();
            let Ok(batch) = batches.recv() else { break };
            waiting += secs(wait);
            let samples = batch.targets.len();
            let round = Instant::now();
            let trained = trained_model(&self.model, &mut self.rounded, args.quantization_aware);
            optimizer += secs(round);
            let grad = Some(&mut self.grad[..]);
            let loss = loss_and_gradient_timed(trained, &batch, &self.objective, grad, &mut self.scratch, &mut phases);
            let step = Instant::now();
            let rate = lr * warmup_factor(self.adam.step + 1, args.warmup);
            self.adam.update_scaled(&mut self.model.params, &self.grad, 1.0 / samples as f32, rate, &bounds);
            applied_rate_sum += rate as f64 * samples as f64;
            optimizer += secs(step);
            loss_sum += loss;
            bar.inc(samples as u64);
            bar.set_message(format!("loss {:.5}", loss / samples as f64));
        }
        bar.finish_and_clear();
        if args.profile {
            let elapsed = clock.elapsed().as_secs_f64();
            let part = |t: f64| format!("{t:.2} s ({:.0}%)", 100.0 * t / elapsed);
            println!(
                "profile of epoch {}: {elapsed:.2} s: waiting for batches {}, passes {}, dense gradient sums {}, \
                 feature-transformer gradient {}, optimizer {}",
                epoch + 1,
                part(waiting),
                part(phases.passes),
                part(phases.reduce),
                part(phases.scatter),
                part(optimizer)
            );
        }
        Ok((loss_sum / samples_total as f64, applied_rate_sum / samples_total as f64))
    }

    /// Each held-out set's mean loss.
    fn validate(&mut self) -> Vec<f64> {
        let validated = trained_model(&self.model, &mut self.rounded, self.args.quantization_aware);
        let (objective, scratch) = (&self.objective, &mut self.scratch);
        self.validation_batches
            .iter()
            .zip(self.validation)
            .map(|(batches, (_, set))| {
                batches.iter().map(|b| loss_and_gradient(validated, b, objective, None, scratch)).sum::<f64>()
                    / set.len() as f64
            })
            .collect()
    }
}

/// The epoch's line in the log.
fn print_epoch(record: &EpochRecord, epochs: usize, lr: f32, set_names: &[String], elapsed: f64) {
    let sets = if set_names.len() > 1 {
        let each: Vec<String> = set_names.iter().zip(&record.per_set).map(|(n, l)| format!("{n} {l:.6}")).collect();
        format!(" ({})", each.join(", "))
    } else {
        String::new()
    };
    println!(
        "epoch {}/{}: train loss {:.6}, validation loss {:.6}{sets}, lr {:.3e}{}, {:.0} samples/s, {:.1} s",
        record.epoch as usize,
        epochs,
        record.train_loss,
        record.validation_loss,
        lr,
        if (record.learning_rate - lr as f64).abs() > 1e-3 * lr as f64 {
            format!(" (mean applied {:.3e}, warming up)", record.learning_rate)
        } else {
            String::new()
        },
        record.samples_per_second,
        elapsed
    );
}

/// The model a batch's passes run on: `model` itself, or with
/// quantization-aware training its parameters rounded into `rounded`.
fn trained_model<'a>(model: &'a Model, rounded: &'a mut Model, quantization_aware: bool) -> &'a Model {
    if quantization_aware {
        model.round_to_grid_into(rounded);
        rounded
    } else {
        model
    }
}

fn secs(since: Instant) -> f64 {
    since.elapsed().as_secs_f64()
}

/// Float against quantized evaluation (cp) over every validation position.
fn quantization_error(
    float: &FloatNetwork,
    net: &Network,
    fs: &FeatureSet,
    validation: &[(String, Samples)],
) -> (f64, f64) {
    let positions: Vec<shakmaty::Chess> =
        validation.iter().flat_map(|(_, set)| (0..set.len()).map(move |i| set.key_position(i))).collect();
    let errors: Vec<f64> = positions
        .par_iter()
        .map(|pos| (float.evaluate(fs, pos) as f64 - net.evaluate_position(pos) as f64).abs())
        .collect();
    let max = errors.iter().copied().fold(0.0, f64::max);
    (errors.iter().sum::<f64>() / errors.len() as f64, max)
}

/// The memory the system could give this process now (Linux's
/// `MemAvailable`); `None` where it does not say.
fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

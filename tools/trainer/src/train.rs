//! One training run: load, resume or start, epochs with checkpoints, export.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use tessera::features::FeatureSet;
use tessera::nnue::format::{NetFile, Shape, ZSTD_MAGIC};
use tessera::nnue::network::{FloatNetwork, Network};

use crate::augment;
use crate::batch::{Batch, FeatureCache, epoch_order, produce};
use crate::checkpoint::{Checkpoint, EpochRecord};
use crate::data::{self, Method, Samples};
use crate::loss::Objective;
use crate::model::{Model, PhaseTimes, Scratch, loss_and_gradient, loss_and_gradient_timed};
use crate::optim::{Adam, AdamConfig, FinalPhase, Schedule, warmup_factor};
use crate::sources::{self, ReadSettings};
use crate::teacher;
use crate::{Args, MethodArg, OptimizerArg, ScheduleArg, plot};
use tessera_data::filter::Filter;

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

/// The weights of `--init`: a `.nnue` file (or its zstd), which must be of
/// the run's feature set and shape, turned back into floats; with its
/// content hash, which the checkpoint's fingerprint records.
fn starting_net(path: &Path, fs: &FeatureSet, shape: Shape) -> Result<(FloatNetwork, String), Error> {
    let bytes = read_net("--init", path)?;
    let file = NetFile::parse(&bytes).map_err(|e| format!("--init: {}: {e}", path.display()))?;
    let same_features = file.features.parse::<FeatureSet>().is_ok_and(|f| f.expression() == fs.expression());
    if !same_features || file.shape != shape {
        return Err(format!(
            "--init: {} is a '{}' {} net; this run trains a '{}' {} net (set --features, --ft, --hidden, \
             --hidden2, --output-buckets and --pairwise to match it)",
            path.display(),
            file.features,
            file.shape.short_name(),
            fs.expression(),
            shape.short_name()
        )
        .into());
    }
    let hash = NetFile::content_hash(&bytes);
    println!("starting from {} ({hash}): {}", path.display(), file.description);
    Ok((FloatNetwork::dequantize(&file), hash))
}

/// A net file's bytes, decompressed if it is a zstd frame (`option` names
/// the command-line option in errors).
fn read_net(option: &str, path: &Path) -> Result<Vec<u8>, Error> {
    let read = std::fs::read(path).map_err(|e| format!("{option}: cannot read {}: {e}", path.display()))?;
    if read.starts_with(ZSTD_MAGIC) {
        Ok(zstd::decode_all(read.as_slice()).map_err(|e| format!("{option}: {}: bad zstd: {e}", path.display()))?)
    } else {
        Ok(read)
    }
}

/// A finished net as the engine runs it (integer weights), with its content
/// hash: the distillation teacher of `--teacher`, the net `eval-net` scores.
pub fn engine_net(option: &str, path: &Path) -> Result<(Network, String), Error> {
    let bytes = read_net(option, path)?;
    let net = Network::from_bytes(&bytes).map_err(|e| format!("{option}: {}: {e}", path.display()))?;
    Ok((net, NetFile::content_hash(&bytes)))
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
    let check = |ok: bool, what: &str| if ok { Ok(()) } else { Err(Error::from(what.to_string())) };
    check(args.ft > 0 && args.hidden > 0, "--ft and --hidden must be positive")?;
    check(args.batch > 0 && args.epochs > 0, "--batch and --epochs must be positive")?;
    check(args.samples != Some(0), "--samples must be positive")?;
    check(args.validation_permille < 1000, "--validation-permille must be below 1000")?;
    check(args.lr > 0.0 && args.lr.is_finite(), "--lr must be positive")?;
    check(args.restarts == 1 || matches!(args.schedule, ScheduleArg::Cosine), "--restarts needs --schedule cosine")?;
    check(args.final_lr > 0.0 && args.final_lr.is_finite(), "--final-lr must be positive")?;
    check(args.nets_every != Some(0), "--nets-every must be positive")?;
    let fs: FeatureSet = args.features.parse()?;
    check(!args.pairwise || args.ft.is_multiple_of(2), "--pairwise needs an even --ft")?;
    check((0.0..=1.0).contains(&args.teacher_weight), "--teacher-weight must be within 0 and 1")?;
    let per_file_teacher = args.data.iter().any(|spec| spec.teacher_weight.is_some());
    check(!per_file_teacher || args.teacher.is_some(), "a teacher weight (PATH:tW) needs --teacher")?;
    let shape = Shape {
        inputs: fs.size(),
        ft: args.ft,
        hidden: args.hidden,
        hidden2: args.hidden2,
        buckets: args.output_buckets as usize,
        pairwise: args.pairwise,
    };
    let init = args.init.as_deref().map(|path| starting_net(path, &fs, shape)).transpose()?;
    let teacher = args.teacher.as_deref().map(|path| engine_net("--teacher", path)).transpose()?;
    let method = match args.method {
        MethodArg::Eval => Method::Eval,
        MethodArg::Pqr => Method::Pqr,
    };

    let started = Instant::now();
    let settings = ReadSettings {
        method,
        filter: Filter {
            // On unless kept: measured (research/training-log.md, "Data mixes"), the
            // filtered mixes play 110 Elo better than the same data unfiltered.
            skip_check: !args.keep_check,
            skip_winning_capture: !args.keep_captures,
            skip_best_capture: false,
            max_score: args.max_score,
        },
        limit: args.limit.unwrap_or(usize::MAX),
        seed: args.seed,
        deduplicate: !args.keep_duplicates,
    };
    let loaded = sources::load(&args.data, &args.validation, &settings)?;
    for report in &loaded.train_files {
        println!("training {report}");
    }
    for report in &loaded.validation_files {
        println!("validation {report}");
    }
    if let Some(first) = &loaded.first_rejection {
        println!("first rejected line: {first}");
    }
    let teacher_weights = teacher::Weights::new(&loaded.teacher_spans, args.teacher_weight);
    let (train, validation, teacher_weights) = if loaded.validation.is_empty() {
        let held = data::validation_mask(&loaded.train, args.validation_permille);
        let (train, validation) = (loaded.train.select(&held, false), loaded.train.select(&held, true));
        (train, vec![("split".to_string(), validation)], teacher_weights.without(&held))
    } else {
        (loaded.train, loaded.validation, teacher_weights)
    };
    let (mut train, teacher_weights) = if args.mirror {
        let held: HashSet<u64> =
            validation.iter().flat_map(|(_, v)| (0..v.len()).map(|i| data::key(&v.key_position(i)))).collect();
        let mirrored = augment::add_mirrors(train, &held);
        let report = mirrored.report;
        println!(
            "mirrors: {} added, {} already present or held out, {} samples with a castling right",
            report.added, report.present, report.castling
        );
        (mirrored.samples, teacher_weights.with_mirrors(mirrored.origins))
    } else {
        (train, teacher_weights)
    };
    if let Some((net, _)) = &teacher {
        let clock = Instant::now();
        let report = teacher::relabel(&mut train, net, &teacher_weights);
        let share = match teacher_weights.uniform() {
            Some(w) => format!("{w} × its evaluation + {} × the label", 1.0 - w),
            None => format!("its evaluation blended by each file's weight (default {})", args.teacher_weight),
        };
        println!(
            "teacher {}: {} training scores now {share}; mean |teacher − label| {:.1} cp ({:.1} s)",
            net.summary(),
            report.relabelled,
            report.mean_difference,
            secs(clock)
        );
    }
    // The weights hold an origin for each mirror (about 90 MB at 23 M mirrors):
    // freed before the feature cache sizes itself to the memory left.
    drop(teacher_weights);
    let validation_total: usize = validation.iter().map(|(_, v)| v.len()).sum();
    if train.is_empty() || validation.iter().any(|(_, v)| v.is_empty()) {
        return Err(format!(
            "{} training and {validation_total} validation samples: both must be non-empty (change --validation-permille)",
            train.len(),
        )
        .into());
    }
    println!(
        "{} training samples, {validation_total} validation samples in {} set(s) ({:.1} s)",
        train.len(),
        validation.len(),
        secs(started)
    );
    // A budget in samples seen is whole passes over this training set, the
    // fewest that reach it.
    let epochs = match args.samples {
        Some(samples) => {
            let epochs = samples.div_ceil(train.len() as u64) as usize;
            println!("--samples {samples}: {epochs} epochs, {} samples seen", epochs as u64 * train.len() as u64);
            epochs
        }
        None => args.epochs,
    };

    let fitted = match &train {
        Samples::Eval(v) => {
            let k = data::fit_sigmoid_scale(v);
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
    let schedule = match args.schedule {
        ScheduleArg::Step => Schedule::Step { gamma: args.gamma },
        ScheduleArg::Cosine => Schedule::Cosine { floor: args.cosine_floor, restarts: args.restarts as usize },
    };
    check(args.final_epochs < epochs, "--final-epochs must leave epochs before the final phase")?;
    let final_phase =
        (args.final_epochs > 0).then_some(FinalPhase { epochs: args.final_epochs, factor: args.final_lr });
    let adam_config = AdamConfig {
        weight_decay: match args.optimizer {
            OptimizerArg::Adam => 0.0,
            OptimizerArg::Adamw => args.weight_decay,
        },
        ..AdamConfig::default()
    };

    std::fs::create_dir_all(&args.out)?;
    let checkpoint_path = args.out.join("checkpoint.bin");
    let fingerprint = format!(
        "features={} shape={}x{}x{} method={:?} data={:?} limit={:?} validation={} held-out={:?} \
         filter={:?} dedup={} seed={} batch={} lr={} schedule={schedule:?} objective={objective:?} adam={adam_config:?}",
        fs.expression(),
        args.ft,
        args.hidden,
        args.hidden2,
        method,
        args.data.iter().map(ToString::to_string).collect::<Vec<_>>(),
        args.limit,
        args.validation_permille,
        args.validation.iter().map(ToString::to_string).collect::<Vec<_>>(),
        settings.filter,
        settings.deduplicate,
        args.seed,
        args.batch,
        args.lr
    ) + &if shape.buckets > 1 { format!(" buckets={}", shape.buckets) } else { String::new() }
        // Only when on, so that checkpoints from before the option still resume.
        + if args.mirror { " mirror" } else { "" }
        + if args.pairwise { " pairwise" } else { "" }
        + &teacher.as_ref().map_or(String::new(), |(_, hash)| format!(" teacher={hash}:{}", args.teacher_weight))
        + &init.as_ref().map_or(String::new(), |(_, hash)| format!(" init={hash}"))
        + &if args.warmup > 0 { format!(" warmup={}", args.warmup) } else { String::new() }
        + if args.quantization_aware { " quantization-aware" } else { "" };
    let fresh = || {
        let net = match &init {
            Some((net, _)) => net.clone(),
            None => FloatNetwork::random_bucketed(&fs, shape, args.seed),
        };
        let model = Model::from_float(&net);
        let adam = Adam::new(adam_config, model.layout.total);
        (model, adam, 0, Vec::new())
    };
    let (mut model, mut adam, first_epoch, mut history) = if checkpoint_path.exists() && !args.fresh {
        let bytes = std::fs::read(&checkpoint_path)?;
        let c = Checkpoint::from_bytes(&bytes, adam_config)
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
        let (mut model, ..) = fresh();
        model.params = c.params;
        println!("resuming after epoch {} from {}", c.epochs_done, checkpoint_path.display());
        (model, c.adam, c.epochs_done as usize, c.history)
    } else {
        fresh()
    };

    let net_path = args.net.clone().unwrap_or_else(|| args.out.join(net_name(fs.expression(), shape)));
    let fs = Arc::new(fs);
    let train = Arc::new(train);
    let validation_batches: Vec<Vec<Batch>> = validation
        .iter()
        .map(|(_, set)| {
            (0..set.len() as u32).collect::<Vec<_>>().chunks(args.batch).map(|c| Batch::build(&fs, set, c)).collect()
        })
        .collect();
    let set_names: Vec<String> = validation.iter().map(|(n, _)| n.clone()).collect();
    let plot_title = format!("{} {}: loss per epoch", fs.expression(), shape.short_name());
    let write_loss_reports = |history: &[EpochRecord]| -> Result<(), Error> {
        let names: Vec<&str> = set_names.iter().map(String::as_str).collect();
        plot::write_csv(history, &names, &args.out.join("loss.csv"))?;
        if let Err(e) = plot::write_png(history, &plot_title, &args.out.join("loss.png")) {
            eprintln!("warning: no loss plot: {e}");
        }
        Ok(())
    };
    let mut scratch = Scratch::default();
    let mut grad = vec![0.0f32; model.layout.total];
    // The parameters rounded to the engine's grid (quantization-aware
    // training; sized on first use, so a plain run holds no copy).
    let mut rounded = Model { features: String::new(), layout: model.layout, params: Vec::new() };
    let training_started = Instant::now();
    let mut trained_samples = 0usize;
    // Worked out once where more than one epoch is left (a single epoch
    // would build them once either way, and beside the passes).
    let cache = match (epochs > first_epoch + 1).then(|| FeatureCache::build(&fs, &train, available_memory())) {
        Some(Ok(cache)) => {
            println!(
                "feature lists of {} positions cached: {} MB in {:.1} s",
                cache.positions(),
                cache.bytes() >> 20,
                training_started.elapsed().as_secs_f64()
            );
            Some(Arc::new(cache))
        }
        Some(Err(why)) => {
            println!("feature lists worked out batch by batch, not cached: {why}");
            None
        }
        None => None,
    };

    for epoch in first_epoch..epochs {
        let lr = schedule.rate_with(final_phase, args.lr, epoch, epochs);
        let bar = ProgressBar::new(train.len() as u64).with_prefix(format!("epoch {}/{}", epoch + 1, epochs));
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}")?
                .progress_chars("=> "),
        );
        let clock = Instant::now();
        let mut loss_sum = 0.0;
        let order = epoch_order(train.len(), args.seed, epoch);
        let mut phases = PhaseTimes::default();
        let (mut waiting, mut optimizer) = (0.0, 0.0);
        // The rate each step applied, summed per sample: with a warmup the
        // first epoch's steps run below the scheduled `lr`, and the log and
        // the loss table report what was applied, not what was scheduled.
        let mut applied_rate_sum = 0.0;
        let bounds = model.layout.clip_ranges();
        let batches = produce(fs.clone(), cache.clone(), train.clone(), order, args.batch);
        loop {
            let wait = Instant::now();
            let Ok(batch) = batches.recv() else { break };
            waiting += secs(wait);
            let samples = batch.targets.len();
            let round = Instant::now();
            let trained = trained_model(&model, &mut rounded, args.quantization_aware);
            optimizer += secs(round);
            let loss = loss_and_gradient_timed(trained, &batch, &objective, Some(&mut grad), &mut scratch, &mut phases);
            let step = Instant::now();
            let rate = lr * warmup_factor(adam.step + 1, args.warmup);
            adam.update_scaled(&mut model.params, &grad, 1.0 / samples as f32, rate, &bounds);
            applied_rate_sum += rate as f64 * samples as f64;
            optimizer += secs(step);
            loss_sum += loss;
            bar.inc(samples as u64);
            bar.set_message(format!("loss {:.5}", loss / samples as f64));
        }
        bar.finish_and_clear();
        let elapsed = clock.elapsed().as_secs_f64();
        if args.profile {
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
        trained_samples += train.len();
        // Each held-out set's mean loss; the overall figure weighs the sets
        // equally, so one large source does not hide the others.
        let validated = trained_model(&model, &mut rounded, args.quantization_aware);
        let per_set: Vec<f64> = validation_batches
            .iter()
            .zip(&validation)
            .map(|(batches, (_, set))| {
                batches.iter().map(|b| loss_and_gradient(validated, b, &objective, None, &mut scratch)).sum::<f64>()
                    / set.len() as f64
            })
            .collect();
        let validation_loss = per_set.iter().sum::<f64>() / per_set.len() as f64;
        let record = EpochRecord {
            epoch: (epoch + 1) as f64,
            train_loss: loss_sum / train.len() as f64,
            validation_loss,
            per_set: per_set.clone(),
            learning_rate: applied_rate_sum / train.len() as f64,
            samples_per_second: train.len() as f64 / elapsed,
        };
        let sets = if validation.len() > 1 {
            let each: Vec<String> = validation.iter().zip(&per_set).map(|((n, _), l)| format!("{n} {l:.6}")).collect();
            format!(" ({})", each.join(", "))
        } else {
            String::new()
        };
        println!(
            "epoch {}/{}: train loss {:.6}, validation loss {:.6}{sets}, lr {:.3e}{}, {:.0} samples/s, {:.1} s",
            epoch + 1,
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
        history.push(record);
        let checkpoint = Checkpoint {
            fingerprint: fingerprint.clone(),
            epochs_done: (epoch + 1) as u32,
            history: history.clone(),
            params: model.params.clone(),
            adam: adam.clone(),
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
            let float = trained_model(&model, &mut rounded, args.quantization_aware).to_float();
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
    let float = trained_model(&model, &mut rounded, args.quantization_aware).to_float();
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

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp: PathBuf = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
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

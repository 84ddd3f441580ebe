//! One training run's settings, checked once: everything the command line
//! fixes before any data is read, and the checkpoint's fingerprint derived
//! from them, so that a run resumes only with the settings it was made with.

use tessera::features::FeatureSet;
use tessera::nnue::format::Shape;
use tessera::nnue::network::{FloatNetwork, Network};
use tessera_data::filter::Filter;

use crate::data::samples::Method;
use crate::data::sources::ReadSettings;
use crate::train::loss::Objective;
use crate::train::net_files::{engine_net, starting_net};
use crate::train::optim::{AdamConfig, Schedule};
use crate::{Args, MethodArg, OptimizerArg, ScheduleArg};

type Error = Box<dyn std::error::Error>;

/// The run's settings, validated.
pub struct Config {
    pub fs: FeatureSet,
    pub shape: Shape,
    pub method: Method,
    /// How the training and validation files are read.
    pub settings: ReadSettings,
    pub schedule: Schedule,
    pub adam: AdamConfig,
    /// `--init`'s weights and content hash.
    pub init: Option<(FloatNetwork, String)>,
    /// `--teacher`'s net and content hash.
    pub teacher: Option<(Network, String)>,
}

impl Config {
    /// Checks every option that can be checked without the data, and reads
    /// the nets they name.
    pub fn from_args(args: &Args) -> Result<Config, Error> {
        let check = |ok: bool, what: &str| if ok { Ok(()) } else { Err(Error::from(what.to_string())) };
        check(args.ft > 0 && args.hidden > 0, "--ft and --hidden must be positive")?;
        check(args.batch > 0 && args.epochs > 0, "--batch and --epochs must be positive")?;
        check(args.samples != Some(0), "--samples must be positive")?;
        check(args.validation_permille < 1000, "--validation-permille must be below 1000")?;
        check(args.lr > 0.0 && args.lr.is_finite(), "--lr must be positive")?;
        check(
            args.restarts == 1 || matches!(args.schedule, ScheduleArg::Cosine),
            "--restarts needs --schedule cosine",
        )?;
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
        let schedule = match args.schedule {
            ScheduleArg::Step => Schedule::Step { gamma: args.gamma },
            ScheduleArg::Cosine => Schedule::Cosine { floor: args.cosine_floor, restarts: args.restarts as usize },
        };
        let adam = AdamConfig {
            weight_decay: match args.optimizer {
                OptimizerArg::Adam => 0.0,
                OptimizerArg::Adamw => args.weight_decay,
            },
            ..AdamConfig::default()
        };
        Ok(Config { fs, shape, method, settings, schedule, adam, init, teacher })
    }

    /// What a checkpoint must have been made with to resume this run: every
    /// setting that changes the weights (the objective's target scale is
    /// fitted to the data, so it comes after loading). Options added after
    /// the format appear only when set, so that older checkpoints still
    /// resume.
    pub fn fingerprint(&self, args: &Args, objective: &Objective) -> String {
        let (schedule, adam) = (self.schedule, self.adam);
        let mut fingerprint = format!(
            "features={} shape={}x{}x{} method={:?} data={:?} limit={:?} validation={} held-out={:?} \
             filter={:?} dedup={} seed={} batch={} lr={} schedule={schedule:?} objective={objective:?} adam={adam:?}",
            self.fs.expression(),
            args.ft,
            args.hidden,
            args.hidden2,
            self.method,
            args.data.iter().map(ToString::to_string).collect::<Vec<_>>(),
            args.limit,
            args.validation_permille,
            args.validation.iter().map(ToString::to_string).collect::<Vec<_>>(),
            self.settings.filter,
            self.settings.deduplicate,
            args.seed,
            args.batch,
            args.lr
        );
        if self.shape.buckets > 1 {
            fingerprint += &format!(" buckets={}", self.shape.buckets);
        }
        if args.mirror {
            fingerprint += " mirror";
        }
        if args.pairwise {
            fingerprint += " pairwise";
        }
        if let Some((_, hash)) = &self.teacher {
            fingerprint += &format!(" teacher={hash}:{}", args.teacher_weight);
        }
        if let Some((_, hash)) = &self.init {
            fingerprint += &format!(" init={hash}");
        }
        if args.warmup > 0 {
            fingerprint += &format!(" warmup={}", args.warmup);
        }
        if args.quantization_aware {
            fingerprint += " quantization-aware";
        }
        fingerprint
    }
}

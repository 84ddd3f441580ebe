//! `tessera-trainer`: trains a network for any feature-set expression on
//! CPU, quantizes it and writes the engine's `.nnue` format.

mod alloc;
mod data;
mod report;
mod train;

use data::sources;
use report::{charts, eval_net, read_speed, wdl_fit, weights};
use train::{average, campaign};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Large buffers on cache lines (see `alloc`).
#[global_allocator]
static ALLOCATOR: alloc::CacheLineAligned = alloc::CacheLineAligned;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MethodArg {
    /// Positions labelled with a score and a game result.
    Eval,
    /// Triplets: a position, the move played, another legal move.
    Pqr,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScheduleArg {
    /// The rate times --gamma after every epoch (the thesis: 0.99).
    Step,
    /// Cosine from the rate to rate × --cosine-floor over --epochs.
    Cosine,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OptimizerArg {
    Adam,
    /// Adam with decoupled weight decay (--weight-decay).
    Adamw,
}

/// Trains an NNUE network `(N → M) × 2 → O [→ P] → 1` for a feature set and
/// writes it as a `.nnue` file the engine embeds (`TESSERA_NET=…`) or loads
/// (`setoption name EvalFile`). Kill it at any time: run the same command
/// again and it resumes from the last finished epoch.
#[derive(Parser, Debug)]
#[command(name = "tessera-trainer", version, subcommand_negates_reqs = true, args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Training files or globs: text, plain or zstd (`<FEN> | <cp, white's
    /// view> | <result>` for eval; `<FEN> | <move played> | <other move>` for
    /// pqr), or for eval any format of `tessera-trainer formats`, known by
    /// its name: `.bin` records, `.binpack`, `.vf` viriformat, `.bullet`
    /// bulletformat. `PATH:0.5` keeps that share of each
    /// file, `PATH:200000` at most that many samples of each; `PATH:x1.2`
    /// multiplies each score of the file (labels on another scale; after a
    /// share or cap: `PATH:0.5:x1.2`); `PATH:t0.8` sets the --teacher's
    /// share of the file's scores in place of --teacher-weight. Positions that
    /// occur again (in any file) are trained on once, unless --keep-duplicates.
    #[arg(long = "data", required = true, num_args = 1..)]
    pub data: Vec<sources::SourceSpec>,
    /// Held-out validation files or globs (same forms as --data), each
    /// reported on its own; only their quiet positions count (not in check,
    /// no winning capture), and their positions are never trained on. Without
    /// it, --validation-permille of the training positions are held out.
    #[arg(long = "validation", num_args = 1..)]
    pub validation: Vec<sources::SourceSpec>,
    /// Skip training positions whose side to move is in check (the default;
    /// the flag is accepted for explicit commands).
    #[arg(long, overrides_with = "keep_check")]
    pub skip_check: bool,
    /// Train on positions in check too.
    #[arg(long)]
    pub keep_check: bool,
    /// Skip training positions whose side to move has a capture that wins
    /// material by static exchange (SEE > 0) (the default; the flag is
    /// accepted for explicit commands).
    #[arg(long, overrides_with = "keep_captures")]
    pub skip_capture: bool,
    /// Train on positions with a winning capture too.
    #[arg(long)]
    pub keep_captures: bool,
    /// Skip training positions whose |score| is above this (centipawns).
    #[arg(long)]
    pub max_score: Option<i32>,
    /// Train on repeated positions as often as they occur.
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Also train on every training position mirrored a-file ↔ h-file, with
    /// its labels, where neither side may castle (a symmetry of chess; see
    /// augment.rs). Mirrors of validation positions are left out.
    #[arg(long)]
    pub mirror: bool,
    /// Print after each epoch where its time went: waiting for batches,
    /// the forward and backward passes, the gradient sums, the feature
    /// transformer's gradient, the optimizer.
    #[arg(long)]
    pub profile: bool,
    /// Feature-set expression, e.g. `all`, `kp`, `all+ph+pv`.
    #[arg(long, default_value = "all")]
    pub features: String,
    /// Feature-transformer outputs per perspective (M).
    #[arg(long, default_value_t = 512)]
    pub ft: usize,
    /// First hidden layer (O).
    #[arg(long, default_value_t = 32)]
    pub hidden: usize,
    /// Optional second hidden layer (P); 0 for none.
    #[arg(long, default_value_t = 0)]
    pub hidden2: usize,
    /// Output buckets: this many stacks of the layers after the feature
    /// transformer, one chosen per position by its piece count (1: none; 8
    /// is common). Written as `.nnue` version 2 when above 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub output_buckets: u32,
    /// Multiply each perspective's two halves of the feature transformer
    /// pairwise (Stockfish's activation): the first hidden layer reads M
    /// products instead of 2M clipped values, half the engine's work there.
    /// Written as `.nnue` version 3. --ft must be even.
    #[arg(long)]
    pub pairwise: bool,
    #[arg(long, value_enum, default_value_t = MethodArg::Eval)]
    pub method: MethodArg,
    /// Passes over the training set.
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// A budget in samples seen instead of --epochs: as many passes over
    /// the training set (after filters and deduplication) as reach it.
    #[arg(long, conflicts_with = "epochs")]
    pub samples: Option<u64>,
    /// Samples per batch.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Learning rate.
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f32,
    #[arg(long, value_enum, default_value_t = ScheduleArg::Step)]
    pub schedule: ScheduleArg,
    /// Learning-rate factor per epoch for the step schedule.
    #[arg(long, default_value_t = 0.99)]
    pub gamma: f32,
    /// Ramp the learning rate up linearly over this many batches (0: none);
    /// for runs that start from a trained net (--init).
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Quantization-aware training: each batch's loss and gradient are
    /// those of the net with its weights rounded to the engine's integer
    /// grid (the net the engine runs), the step applied to the unrounded
    /// weights. The validation loss is the rounded net's.
    #[arg(long)]
    pub quantization_aware: bool,
    /// Distillation: a trained net (`.nnue`, any feature set and shape)
    /// whose static evaluation of each training position replaces the
    /// position's score (blended by --teacher-weight); held-out positions
    /// keep their own scores. A new shape can so learn what the default net
    /// knows.
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// The teacher's share of each training score: 1 takes its evaluation
    /// alone, 0.5 the mean of it and the label; a file's `PATH:tW` overrides it.
    #[arg(long, default_value_t = 1.0, requires = "teacher")]
    pub teacher_weight: f32,
    /// Final learning rate of the cosine schedule, as a fraction of --lr.
    #[arg(long, default_value_t = 0.05)]
    pub cosine_floor: f32,
    /// Warm restarts of the cosine schedule: the run cut into this many
    /// equal cycles, each from --lr down to its floor (1: one cycle).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub restarts: u32,
    /// A final phase: the last this many epochs at --final-lr (the schedule
    /// fitted into the epochs before them).
    #[arg(long, default_value_t = 0)]
    pub final_epochs: usize,
    /// The final phase's learning rate, as a fraction of --lr.
    #[arg(long, default_value_t = 0.01)]
    pub final_lr: f32,
    /// Also write the net every this many epochs, beside the final one
    /// (`<net>.e<epoch>.nnue`, the samples seen in its description): a
    /// length curve's points from one run.
    #[arg(long)]
    pub nets_every: Option<usize>,
    #[arg(long, value_enum, default_value_t = OptimizerArg::Adam)]
    pub optimizer: OptimizerArg,
    /// AdamW's decoupled weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f32,
    /// Weight of the game result in the eval target (0: score only).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    /// σ(out / S) is the predicted win probability (thesis: 361).
    #[arg(long, default_value_t = 361.0)]
    pub out_scale: f32,
    /// σ(score / S) turns target scores into probabilities (thesis: 410), or
    /// `fit` for the scale fitted to the training data's results.
    #[arg(long, default_value = "410")]
    pub target_scale: String,
    /// Exponent of the eval loss (thesis: 2.6).
    #[arg(long, default_value_t = 2.6)]
    pub power: f32,
    /// Validation share, in thousandths, chosen by position hash (when no
    /// --validation files are given).
    #[arg(long, default_value_t = 10)]
    pub validation_permille: u32,
    /// Use at most this many lines of data.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Seed for the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run folder: checkpoint, loss CSV and PNG, and the net unless --net.
    #[arg(long, default_value = "trainer-run")]
    pub out: PathBuf,
    /// Where to write the net (default: the run folder, named after the net).
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Start from this net's weights (`.nnue`, or zstd-compressed) instead of
    /// random ones: a committed net seeds the next one, so what it learnt
    /// from data that is gone is not lost. Its feature set and shape must be
    /// the run's. A checkpoint in --out still resumes first.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Start over even if the run folder holds a checkpoint.
    #[arg(long)]
    pub fresh: bool,
}

/// Other work on nets than training.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Draw one feature-transformer neuron's weights per piece and square
    /// (12 boards) as a PNG, for nets whose feature set starts with `all`.
    Weights(weights::WeightsArgs),
    /// Validation loss per epoch of several runs on one chart (PNG).
    LossChart(charts::LossChartArgs),
    /// Elo with its error bar for several sets (PNG).
    EloChart(charts::EloChartArgs),
    /// Each set's Elo with its error bar against the size of its training
    /// data, one line per set (PNG).
    SizeChart(charts::SizeChartArgs),
    /// Each column of a CSV against its first column, as its move from its
    /// first value (an SPSA run's parameter trace, tournaments/spsa.py; PNG).
    TraceChart(charts::TraceChartArgs),
    /// The held-out loss of a finished net as the engine runs it (integer
    /// weights), per file and their mean, with the trainer's eval objective.
    EvalNet(eval_net::EvalNetArgs),
    /// Fit the engine's win/draw/loss model (UCI_ShowWDL) to self-play
    /// records scored by the engine's own search: parameters and a chart.
    WdlFit(wdl_fit::WdlFitArgs),
    /// The data formats the trainer reads: name, the file names that say
    /// it, and the bytes a position where that is fixed (tab-separated, one
    /// a line; scripts such as tournaments/study.py read the record size here).
    Formats,
    /// Load speed and bytes a position of data files through the trainer's
    /// loader (a Markdown table).
    ReadSpeed(read_speed::ReadSpeedArgs),
    /// A long run whose state is committed with the repository, so that it
    /// resumes on another machine: `start`, `resume`, `status`.
    Campaign(campaign::CampaignArgs),
    /// One net whose every weight is the weighted mean of several nets' of
    /// one feature set and shape (nets fine-tuned from one common net).
    Average(average::AverageArgs),
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match &args.command {
        Some(Command::Weights(w)) => weights::run(w),
        Some(Command::LossChart(c)) => charts::loss_chart(c),
        Some(Command::EloChart(c)) => charts::elo_chart(c),
        Some(Command::SizeChart(c)) => charts::size_chart(c),
        Some(Command::TraceChart(c)) => charts::trace_chart(c),
        Some(Command::WdlFit(w)) => wdl_fit::run(w),
        Some(Command::EvalNet(e)) => eval_net::run(e),
        Some(Command::ReadSpeed(r)) => read_speed::run(r),
        Some(Command::Campaign(c)) => campaign::run(c),
        Some(Command::Average(a)) => average::run(a),
        Some(Command::Formats) => {
            use tessera_data::formats::Format;
            for f in Format::ALL {
                let size = f.fixed_size().map_or("-".to_string(), |n| n.to_string());
                println!("{}\t{}\t{size}", f.name(), f.file_names());
            }
            Ok(())
        }
        None => train::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

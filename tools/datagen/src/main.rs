//! `tessera-datagen`: training data for Tessera's networks.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

mod commands;

use clap::{Parser, Subcommand};
use tessera::search::syzygy::{LoadNote, Tablebases};
use tessera_data::filter::{Filter, FilterCounts};
use tessera_data::formats::{self, Entry, Format};
use tessera_data::store::ReadReport;
use tessera_datagen::fenlist::{Listed, MissingResult};
use tessera_datagen::label::{Budget, Clearing, Labeller, SelfLabeller, StaticLabeller, UciLabeller};
use tessera_datagen::pipeline::{Dealing, Outcome, label_into};
use tessera_datagen::player::{OwnSearch, Player, UciPair};
use tessera_datagen::selfplay::SelfPlayConfig;

/// Training data tools. Files ending in `.bin` hold 32-byte binary records
/// (checksummed); other files hold text lines `<FEN> | <cp, white's view> |
/// <result 1.0/0.5/0.0>`, plain or zstd.
#[derive(Parser, Debug)]
#[command(name = "tessera-datagen", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum MethodArg {
    Eval,
    Pqr,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Writes every good position of the inputs that passes the filters to
    /// OUTPUT, in any format to any other (each file's format from its name:
    /// `.bin` records, `.binpack`, `.vf` viriformat, `.bullet` bulletformat,
    /// anything else text; or as --from/--to say). Records and text are
    /// appended to; binpack, viriformat and bulletformat files are written
    /// whole (an existing one is refused).
    Convert {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
        /// The inputs' format, whatever their names say.
        #[arg(long)]
        from: Option<Format>,
        /// The output's format, whatever its name says.
        #[arg(long)]
        to: Option<Format>,
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// Samples positions from the games of PGN files (plain or zstd; ply 20
    /// or later; one a game unless --per-game) and labels them with a search
    /// score; appends the kept ones to OUTPUT. Rerun the same command after a
    /// kill to go on.
    Pgn {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
        #[command(flatten)]
        labelling: LabelArgs,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Positions a game: the plies from 20 on cut into this many equal
        /// runs, one drawn from each (1: the thesis's one a game), or `all`:
        /// every position from ply 20 on.
        #[arg(long, default_value = "1", value_parser = parse_per_game)]
        per_game: u32,
        /// Take each game once, where the inputs hold it more than once (the
        /// same White, Black, Date and moves: a game in both players'
        /// collections); the first copy is kept.
        #[arg(long)]
        unique: bool,
        /// `eval`: labelled records; `pqr`: the thesis's triplets as text
        /// lines `<FEN of P> | <move played> | <random other legal move>`,
        /// which need no labeller.
        #[arg(long, value_enum, default_value_t = MethodArg::Eval)]
        method: MethodArg,
    },
    /// Labels the positions of FEN/EPD lists (plain or zstd), one per line,
    /// each with its game result (`c9 "1-0";`, `[0.5]` or `| 0-1`); appends
    /// the kept ones to OUTPUT. Rerun the same command after a kill to go on.
    Fens {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
        #[command(flatten)]
        labelling: LabelArgs,
        /// Lines without a result: refuse the file, record a draw, or skip them.
        #[arg(long, value_enum, default_value_t = MissingResult::Refuse)]
        missing_result: MissingResult,
    },
    /// Scores the positions of training-data files again with a search, each
    /// keeping its result (any format `convert` reads, by name or --from);
    /// appends the kept ones to OUTPUT. A file written a game at a time with
    /// its move numbers (binpacks, viriformat) is dealt a game at a time,
    /// which --keep-hash needs. Rerun the same command after a kill to go on.
    Relabel {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
        /// The inputs' format, whatever their names say.
        #[arg(long)]
        from: Option<Format>,
        #[command(flatten)]
        labelling: LabelArgs,
    },
    /// Shuffles the records of the inputs into OUTPUT (in memory).
    Shuffle {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[arg(long, short)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Self-play games: the quiet positions of each game (or --per-game K of
    /// them) with a search score and the result. Played by Tessera's own
    /// search in-process, or with --engine by two instances of any UCI
    /// engine; re-scored by a deeper labeller if asked (--label-engine,
    /// --label-depth, --label-nodes). Rerun the same command after a kill to go on.
    /// OUTPUT's name picks the format: `.binpack` or `.vf` store each game
    /// whole as moves (the positions not kept carry no score and are
    /// skipped by readers), about a tenth of the bytes of `.bin` records;
    /// `.bin`, `.bullet` and anything else (text) store the kept positions.
    Selfplay {
        #[arg(long, short)]
        output: PathBuf,
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Nodes per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        play: PlayArgs,
    },
    /// Writes an EPD opening book: random openings whose search score
    /// (at --nodes) is within --max-eval.
    Openings {
        #[arg(long, short)]
        output: PathBuf,
        #[arg(long, default_value_t = 8)]
        plies: usize,
        #[arg(long, default_value_t = 100)]
        max_eval: i32,
        #[arg(long, default_value_t = 1000)]
        count: usize,
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// How close the labels of each CANDIDATE come to those of --reference
    /// on the positions they all hold (mean squared difference of win
    /// probabilities, with its standard error, and the paired difference
    /// from the first candidate): a screen for labelling recipes.
    Agree {
        #[arg(required = true, num_args = 1..)]
        candidates: Vec<PathBuf>,
        #[arg(long)]
        reference: PathBuf,
        /// Centipawns of the win probability 1 / (1 + exp(-cp / scale)).
        #[arg(long, default_value_t = 400.0)]
        scale: f64,
    },
    /// Count, result balance, score histogram and pieces on board (of the
    /// records that pass the filters); with --features, the thesis's table
    /// of a feature set instead (active features per position, added and
    /// removed per move, refreshes) over the positions of PGN, FEN/EPD or
    /// training files.
    Stats {
        #[arg(required = true, num_args = 1..)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        filter: FilterArgs,
        /// A feature-set expression (`all+ph+pv`): its statistics table.
        #[arg(long, value_name = "EXPR")]
        features: Option<String>,
    },
}

/// How self-play games are played, varied, sampled and labelled.
#[derive(clap::Args, Debug)]
struct PlayArgs {
    /// A UCI engine to play both sides (two instances), e.g. /usr/games/stockfish;
    /// default: Tessera's own search in-process.
    #[arg(long)]
    engine: Option<PathBuf>,
    /// An option for the engine, `NAME=VALUE` (repeatable), e.g. `Hash=16`
    /// or `UCI_LimitStrength=true`.
    #[arg(long = "engine-option", requires = "engine")]
    engine_options: Vec<String>,
    /// Opening book, EPD or PGN (plain or zstd): each game starts from a
    /// random entry. Default: the start position.
    #[arg(long)]
    book: Option<PathBuf>,
    /// Start each game from a random Double Fischer Random arrangement
    /// (each side's back rank one of Chess960's, drawn independently; no
    /// castling rights), then the random plies, instead of a book line.
    #[arg(long, conflicts_with = "book")]
    dfrc: bool,
    /// Random legal plies after the book line: N, or a range N-M drawn
    /// uniformly. Default: 8-9 without --book, 0 with one.
    #[arg(long)]
    random_plies: Option<String>,
    /// Openings the players score beyond this (cp) are drawn again.
    /// Default: 300 without --book, no bound with one.
    #[arg(long)]
    max_opening_score: Option<i32>,
    /// Chance that a move is a random legal one instead of the engine's.
    #[arg(long, default_value_t = 0.0)]
    random_move_prob: f64,
    /// Draw each move among this many MultiPV lines (within --multipv-margin).
    #[arg(long, default_value_t = 1)]
    multipv_pick: usize,
    /// Lines scored more than this many cp below the best are not drawn.
    #[arg(long, default_value_t = 50)]
    multipv_margin: i32,
    /// Keep K positions a game, spread over it (1: the thesis's sampling);
    /// default: every quiet position.
    #[arg(long)]
    per_game: Option<usize>,
    /// Keep the thesis's one position a game (the same as --per-game 1).
    #[arg(long, conflicts_with = "per_game")]
    one_per_game: bool,
    /// Positions before this ply (from the start of chess) are not kept.
    #[arg(long, default_value_t = 16)]
    min_ply: usize,
    /// Leave out positions whose side to move has a capture that wins
    /// material by static exchange (SEE > 0), before sampling and
    /// labelling: the trainer's default filter (and `convert
    /// --skip-capture`) drops them, so labelling them is wasted.
    #[arg(long)]
    skip_capture: bool,
    /// Syzygy tables, folders separated by `:` (`;` on Windows) as the
    /// engine's `SyzygyPath`: a game ends where it reaches a position they
    /// hold, with their result (under the 50-move rule), so the long endings
    /// of decided games are neither played nor labelled.
    #[arg(long, value_name = "PATH")]
    syzygy: Option<String>,
    /// A UCI engine that re-scores every kept position (e.g. stockfish).
    #[arg(long)]
    label_engine: Option<PathBuf>,
    /// An option for the label engine, `NAME=VALUE` (repeatable).
    #[arg(long = "label-option", requires = "label_engine")]
    label_options: Vec<String>,
    /// The labeller's depth per position (Tessera's own search unless
    /// --label-engine names another).
    #[arg(long, conflicts_with = "label_nodes")]
    label_depth: Option<i32>,
    /// The labeller's nodes per position (default with --label-engine: 5000).
    #[arg(long)]
    label_nodes: Option<u64>,
    /// The labeller keeps its hash table between the positions of one game
    /// and clears it before each game (default: before each position).
    /// Cheaper labels that see a little further; still reproducible.
    #[arg(long)]
    label_keep_hash: bool,
}

/// `NAME=VALUE` pairs of `--engine-option` and `--label-option`.
fn parse_options(options: &[String], flag: &str) -> Result<Vec<(String, String)>, String> {
    options
        .iter()
        .map(|o| {
            o.split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("{flag} '{o}': expected NAME=VALUE"))
        })
        .collect()
}

/// `N` or `N-M`.
fn parse_range(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--random-plies '{text}': expected N or N-M");
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high): (usize, usize) = (low.trim().parse().map_err(|_| bad())?, high.trim().parse().map_err(|_| bad())?);
    if low > high || high > 200 {
        return Err(bad());
    }
    Ok((low, high))
}

/// The tables of `--syzygy`: a missing folder or a damaged file is an error
/// (games would end at the wrong place), as is a path with no WDL table.
fn load_tables(paths: &str) -> Result<Arc<Tablebases>, String> {
    let (tables, notes) = Tablebases::load(paths);
    let errors: Vec<&str> = notes
        .iter()
        .filter_map(|n| match n {
            LoadNote::Error(m) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    if !errors.is_empty() {
        return Err(format!("--syzygy: {}", errors.join("; ")));
    }
    if tables.wdl_files == 0 {
        return Err(format!("--syzygy '{paths}': no Syzygy WDL table (.rtbw) there"));
    }
    if let Some(summary) = notes.iter().find(|n| matches!(n, LoadNote::Summary(_))) {
        eprintln!("{summary}");
    }
    Ok(Arc::new(tables))
}

/// One self-play worker: its players and its labeller.
struct Worker {
    player: Box<dyn Player>,
    labeller: Option<Box<dyn Labeller>>,
}

impl PlayArgs {
    fn config(&self, nodes: u64) -> Result<SelfPlayConfig, String> {
        if !(0.0..=1.0).contains(&self.random_move_prob) {
            return Err("--random-move-prob must be between 0 and 1".into());
        }
        if self.multipv_pick == 0 || self.per_game == Some(0) {
            return Err("--multipv-pick and --per-game must be positive".into());
        }
        let booked = self.book.is_some();
        let random_plies = match &self.random_plies {
            Some(text) => parse_range(text)?,
            None if booked => (0, 0),
            None => (8, 9),
        };
        Ok(SelfPlayConfig {
            nodes,
            dfrc: self.dfrc,
            random_plies,
            max_opening_score: self.max_opening_score.or((!booked).then_some(300)),
            random_move_prob: self.random_move_prob,
            multipv_pick: self.multipv_pick,
            multipv_margin: self.multipv_margin,
            per_game: if self.one_per_game { Some(1) } else { self.per_game },
            min_ply: self.min_ply,
            skip_capture: self.skip_capture,
            tablebases: self.syzygy.as_deref().map(load_tables).transpose()?,
            ..SelfPlayConfig::default()
        })
    }

    /// The labeller's budget, if positions are to be re-scored.
    fn label_budget(&self) -> Result<Option<Budget>, String> {
        let given = Budget::from_flags(self.label_depth, self.label_nodes, ["--label-depth", "--label-nodes"])?;
        Ok(given.or(self.label_engine.is_some().then_some(Budget::Nodes(5000))))
    }

    fn worker(&self) -> Result<Worker, String> {
        let player: Box<dyn Player> = match &self.engine {
            Some(path) => Box::new(UciPair::start(
                path,
                &parse_options(&self.engine_options, "--engine-option")?,
                self.multipv_pick,
            )?),
            None => Box::new(OwnSearch::new(16)),
        };
        let clearing = if self.label_keep_hash { Clearing::EveryGame } else { Clearing::EveryPosition };
        let labeller: Option<Box<dyn Labeller>> = match (self.label_budget()?, &self.label_engine) {
            (None, _) if self.label_keep_hash => {
                return Err(
                    "--label-keep-hash needs a labeller (--label-engine, --label-depth or --label-nodes)".into()
                );
            }
            (None, _) => None,
            (Some(budget), Some(path)) => Some(Box::new(
                UciLabeller::start_with(path, &parse_options(&self.label_options, "--label-option")?, budget)?
                    .clearing(clearing),
            )),
            (Some(budget), None) => Some(Box::new(SelfLabeller::new(budget).clearing(clearing))),
        };
        Ok(Worker { player, labeller })
    }
}

/// Filters applied while reading records (`convert`, `stats`), as the
/// trainer applies them.
#[derive(clap::Args, Debug)]
struct FilterArgs {
    /// Drop positions whose side to move is in check.
    #[arg(long)]
    skip_check: bool,
    /// Drop positions whose side to move has a capture that wins material
    /// by static exchange (SEE > 0).
    #[arg(long)]
    skip_capture: bool,
    /// Drop positions whose |score| exceeds this many centipawns.
    #[arg(long)]
    max_score: Option<i32>,
}

impl FilterArgs {
    fn filter(&self) -> Filter {
        Filter {
            skip_check: self.skip_check,
            skip_winning_capture: self.skip_capture,
            skip_best_capture: false,
            max_score: self.max_score,
        }
    }
}

/// Reads `input` (in `format`, else the one its name says), passing the
/// positions `filter` keeps to `each`.
fn read_filtered(
    input: &Path,
    format: Option<Format>,
    filter: Filter,
    counts: &mut FilterCounts,
    mut each: impl FnMut(Entry),
) -> Result<ReadReport, String> {
    let format = format.unwrap_or_else(|| Format::of_path(input));
    formats::read(input, format, &mut |entry| {
        let verdict = filter.check(&entry.record.pos, entry.record.score as i32);
        counts.count(verdict);
        if verdict.is_ok() {
            each(entry);
        }
    })
}

/// Refuses an output that is one of the inputs: writing it would destroy what
/// is being read (`convert`, `relabel`, `shuffle`).
fn output_apart(inputs: &[PathBuf], output: &Path) -> Result<(), String> {
    if inputs.iter().any(|i| i == output) {
        return Err("the output must not be one of the inputs".into());
    }
    Ok(())
}

/// How positions are labelled and which are kept (`pgn`, `fens` and `relabel`).
#[derive(clap::Args, Debug)]
struct LabelArgs {
    /// A UCI engine to label with (e.g. /usr/games/stockfish); default:
    /// Tessera's own search in-process.
    #[arg(long)]
    engine: Option<PathBuf>,
    /// Label with the embedded net's static evaluation instead of a search
    /// (no best move): positions whose scores a teacher sets at training
    /// time (`tessera-trainer --teacher … PATH:t1`), a few microseconds each.
    #[arg(long, conflicts_with_all = ["engine", "depth", "nodes", "skip_best_capture"])]
    static_eval: bool,
    /// Search depth per position (default 9, as in the thesis).
    #[arg(long, conflicts_with = "nodes")]
    depth: Option<i32>,
    /// Node budget per position instead of a depth.
    #[arg(long)]
    nodes: Option<u64>,
    /// Labelling workers (threads, each with its own engine process).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The labeller keeps its table between the positions of a game, labelled
    /// in order, and clears it before each game (`pgn` and `relabel` only;
    /// default: before every position). With Stockfish at depth 7 about 1.6 times the labels
    /// a CPU-hour, each closer to a deeper search's; the same output whatever
    /// the number of jobs.
    #[arg(long, conflicts_with = "static_eval")]
    keep_hash: bool,
    /// Drop positions whose side to move is in check.
    #[arg(long)]
    skip_check: bool,
    /// Drop positions whose side to move has a capture that wins material by
    /// static exchange (the trainer's filter, as in `convert` and `selfplay`).
    #[arg(long)]
    skip_capture: bool,
    /// Drop positions whose best move, the labeller's, is a capture.
    #[arg(long)]
    skip_best_capture: bool,
    /// Drop positions whose |score| exceeds this many centipawns.
    #[arg(long)]
    max_score: Option<i32>,
}

/// Labels `positions` into `output` as `args` say; returns whether the run
/// was interrupted.
fn label(positions: &[Listed], dealing: Dealing, output: &Path, args: &LabelArgs) -> Result<Outcome, String> {
    let budget = Budget::from_flags(args.depth, args.nodes, ["--depth", "--nodes"])?.unwrap_or(Budget::Depth(9));
    if args.jobs == 0 {
        return Err("--jobs must be positive".into());
    }
    // Without --keep-hash each label stands alone, whatever the input's games.
    let (clearing, dealing) = match (args.keep_hash, dealing) {
        (false, _) => (Clearing::EveryPosition, Dealing::Positions),
        (true, Dealing::Games { .. }) => (Clearing::EveryGame, dealing),
        (true, Dealing::Positions) => {
            return Err(
                "--keep-hash needs games (the `pgn` and `relabel` commands): a list of positions has none".into()
            );
        }
    };
    let mut labellers: Vec<Box<dyn Labeller>> = Vec::new();
    for _ in 0..args.jobs {
        labellers.push(match &args.engine {
            _ if args.static_eval => Box::new(StaticLabeller::new()),
            Some(path) => Box::new(UciLabeller::start(path, budget)?.clearing(clearing)),
            None => Box::new(SelfLabeller::new(budget).clearing(clearing)),
        });
    }
    let filter = Filter {
        skip_check: args.skip_check,
        skip_winning_capture: args.skip_capture,
        skip_best_capture: args.skip_best_capture,
        max_score: args.max_score,
    };
    let outcome = label_into(positions, dealing, &mut labellers, filter, output, 16)?;
    let items = if matches!(dealing, Dealing::Games { .. }) { "games" } else { "positions" };
    if outcome.resumed_from > 0 {
        println!("resumed after {} {items}", outcome.resumed_from);
    }
    println!(
        "{} positions, {} {items} labelled now, {} written to {}",
        positions.len(),
        outcome.labelled,
        outcome.written,
        output.display()
    );
    Ok(outcome)
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

/// Runs a command; the outcome of the resumable ones (to report an interrupt).
fn run(args: Args) -> Result<Outcome, String> {
    match args.command {
        Command::Convert { inputs, output, from, to, filter } => {
            commands::convert::run(inputs, output, from, to, filter)
        }
        Command::Pgn { inputs, output, seed, per_game, unique, method: MethodArg::Pqr, .. } => {
            commands::pgn::triplets(inputs, output, seed, per_game, unique)
        }
        Command::Pgn { inputs, output, labelling, seed, per_game, unique, .. } => {
            commands::pgn::labelled(inputs, output, labelling, seed, per_game, unique)
        }
        Command::Fens { inputs, output, labelling, missing_result } => {
            commands::fens::run(inputs, output, labelling, missing_result)
        }
        Command::Relabel { inputs, output, from, labelling } => commands::relabel::run(inputs, output, from, labelling),
        Command::Selfplay { output, games, nodes, jobs, seed, play } => {
            commands::selfplay::run(output, games, nodes, jobs, seed, play)
        }
        Command::Openings { output, plies, max_eval, count, nodes, seed } => {
            commands::openings::run(output, plies, max_eval, count, nodes, seed)
        }
        Command::Shuffle { inputs, output, seed } => commands::shuffle::run(inputs, output, seed),
        Command::Agree { candidates, reference, scale } => commands::agree::run(candidates, reference, scale),
        Command::Stats { inputs, filter, features } => commands::stats::run(inputs, filter, features),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = tessera_datagen::interrupt::install() {
        eprintln!("warning: {e}");
    }
    match run(args) {
        Ok(outcome) if outcome.interrupted => {
            eprintln!("interrupted: the finished work is saved; rerun the same command to go on");
            ExitCode::from(130)
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--per-game`: a count from 1 to 1000, or `all` (0: every position).
fn parse_per_game(text: &str) -> Result<u32, String> {
    if text == "all" {
        return Ok(0);
    }
    match text.parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!("expected a count from 1 to 1000 or `all`, not '{text}'")),
    }
}

/// `--unique`: which game (file, index) first held each identity; a sample
/// of any later copy is left out.
struct FirstCopies {
    on: bool,
    first: std::collections::HashMap<u64, (usize, u64)>,
    repeated: usize,
}

impl FirstCopies {
    fn new(on: bool) -> FirstCopies {
        FirstCopies { on, first: std::collections::HashMap::new(), repeated: 0 }
    }

    fn keeps(&mut self, file: usize, s: &tessera_datagen::pgn::Sampled) -> bool {
        let keep = !self.on || *self.first.entry(s.identity).or_insert((file, s.game)) == (file, s.game);
        self.repeated += !keep as usize;
        keep
    }
}

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use tessera::board::{Board, perft};

#[derive(Parser)]
#[command(
    name = "tessera",
    version = tessera::uci::VERSION,
    about = "A UCI chess engine with an NNUE evaluation",
    long_about = "A UCI chess engine with an NNUE evaluation.\n\n\
        Run without a command, it speaks UCI on standard input and output: that is how a GUI \
        (Arena, CuteChess, ...), cutechess-cli or lichess-bot starts it. Type `uci`, then \
        `position startpos` and `go depth 12`, to talk to it by hand; `quit` ends the session.",
    after_help = "Without a command, the UCI protocol is read from standard input."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Search a fixed set of positions; the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Search depth for every position.
        #[arg(default_value_t = tessera::bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=64))]
        depth: i32,
        /// Search threads (Lazy SMP); with more than one the node count varies
        /// between runs: a speed figure, not a signature.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
    },
    /// Count the leaf nodes of the legal move tree.
    Perft {
        /// Depth in plies.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
        depth: u32,
        /// Start position: a FEN or `startpos` (the default); Chess960 castling rights are accepted.
        fen: Option<String>,
        /// Print the count below each legal move.
        #[arg(long)]
        divide: bool,
    },
    /// Check every count of EPD perft suites (`FEN ;D1 n ;D2 n …` lines), the
    /// lines spread over threads; exits non-zero if any count differs.
    PerftSuite {
        /// EPD files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Skip counts deeper than this.
        #[arg(long)]
        max_depth: Option<u32>,
        /// Skip counts larger than this.
        #[arg(long)]
        max_nodes: Option<u64>,
        /// Threads (default: every core).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        jobs: Option<u16>,
        /// Print every line's result, not only failures and refusals.
        #[arg(long)]
        verbose: bool,
    },
    /// Print the static evaluation of a position (side to move's view).
    Eval {
        /// The position: a FEN, or `startpos`.
        fen: String,
    },
    /// Describe a feature-set expression such as `all+ph+pv` (the thesis's
    /// statistics table over a file of positions: `tessera-datagen stats
    /// FILE --features EXPR`).
    Features {
        /// Blocks joined with `+`.
        expression: String,
    },
    /// Print every search constant in OpenBench's SPSA input format
    /// (`name, int, value, min, max, c_end, r_end`); a `--features tune`
    /// build takes each as a UCI option.
    SpsaInput,
    /// The strength limit's settings as the code has them: for each
    /// `UCI_Elo` (every STEP from the lowest to the highest), the nodes a move
    /// and the lines chosen among, as a Markdown table (the README's).
    StrengthTable {
        /// Elo between rows.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i64).range(1..=1000))]
        step: i64,
    },
}

fn main() -> ExitCode {
    // Before anything compiled for this build's level runs (a v3 binary on
    // a CPU without AVX2 says so and exits with status 3).
    tessera::cpu_level::check();
    run(Cli::parse())
}

/// Everything after the CPU check; not inlined into `main`, so that none of
/// its code runs before the check.
#[inline(never)]
fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => {
            tessera::uci::run_stdio();
            ExitCode::SUCCESS
        }
        Some(Cmd::StrengthTable { step }) => {
            print!("{}", tessera::search::strength::table(step));
            ExitCode::SUCCESS
        }
        Some(Cmd::SpsaInput) => {
            print!("{}", tessera::search::params::spsa_input());
            ExitCode::SUCCESS
        }
        Some(Cmd::Bench { depth, threads }) => {
            let network = tessera::nnue::embedded::default_network();
            eprintln!("kernels: {}", tessera::simd::summary());
            let report = tessera::bench::run_threads(network, depth, threads as usize, |i, fen, nodes| {
                eprintln!("position {:>2}: {nodes:>10} nodes  {fen}", i + 1);
            });
            println!("{} nodes {} nps", report.nodes, report.nps);
            ExitCode::SUCCESS
        }
        Some(Cmd::Perft { depth, fen, divide }) => {
            let board = match fen.as_deref() {
                None | Some("startpos") => Board::default(),
                // Standard FENs parse the same in Chess960 mode; it also takes Shredder castling.
                Some(fen) => match Board::from_fen(fen, true) {
                    Ok(board) => board,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::FAILURE;
                    }
                },
            };
            let start = std::time::Instant::now();
            let nodes = if divide {
                let rows = perft::divide(&board, depth);
                for (m, n) in &rows {
                    println!("{m}: {n}");
                }
                rows.iter().map(|(_, n)| n).sum()
            } else {
                perft::perft(board.pos(), depth)
            };
            let secs = start.elapsed().as_secs_f64().max(1e-6);
            println!("{nodes} nodes {} nps", (nodes as f64 / secs) as u64);
            ExitCode::SUCCESS
        }
        Some(Cmd::PerftSuite { files, max_depth, max_nodes, jobs, verbose }) => {
            perft_suites(&files, max_depth, max_nodes, jobs, verbose)
        }
        Some(Cmd::Eval { fen }) => {
            let fen = if fen.trim() == "startpos" { Board::default().fen() } else { fen };
            let board = match Board::from_fen(&fen, true) {
                Ok(board) => board,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            println!("{}", tessera::evaluate::describe(&board, tessera::nnue::embedded::default_network()));
            ExitCode::SUCCESS
        }
        Some(Cmd::Features { expression }) => {
            let fs: tessera::features::FeatureSet = match expression.parse() {
                Ok(fs) => fs,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            for (block, offset) in fs.blocks() {
                println!("{:<8} {:>6} inputs at offset {offset}", block.name(), block.size());
            }
            println!("{} inputs in total", fs.size());
            if fs.is_compiled() {
                println!("this engine is compiled for this feature set");
            }
            ExitCode::SUCCESS
        }
    }
}

/// `tessera perft-suite`: each file's lines, then its totals.
fn perft_suites(
    files: &[std::path::PathBuf],
    max_depth: Option<u32>,
    max_nodes: Option<u64>,
    jobs: Option<u16>,
    verbose: bool,
) -> ExitCode {
    use std::io::Write;
    use tessera::board::perft_suite::{Limits, LineOutcome, parse_suite, run_suite};
    let limits = Limits { max_depth: max_depth.unwrap_or(u32::MAX), max_nodes: max_nodes.unwrap_or(u64::MAX) };
    let jobs = jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from);
    let mut ok = true;
    for file in files {
        let name = file.display();
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read {name}: {e}");
                ok = false;
                continue;
            }
        };
        let (lines, bad) = parse_suite(&text);
        for b in &bad {
            println!("{name}:{}: skipped: {}", b.number, b.reason);
        }
        let report = run_suite(&lines, limits, jobs, |line, outcome| {
            let text = match outcome {
                LineOutcome::Passed { checked, skipped, nodes } if verbose => {
                    format!("ok ({checked} counts, {skipped} skipped, {nodes} nodes)")
                }
                LineOutcome::Passed { .. } => return,
                LineOutcome::Failed { depth, expected, found } => {
                    format!("FAILED at depth {depth}: expected {expected}, found {found}  {}", line.fen)
                }
                LineOutcome::Refused(reason) => format!("refused by the board: {reason}  {}", line.fen),
            };
            println!("{name}:{}: {text}", line.number);
            let _ = std::io::stdout().flush();
        });
        let nps = (report.nodes as f64 / report.seconds.max(1e-6)) as u64;
        println!(
            "{name}: {} positions: {} passed, {} failed, {} refused; {} counts checked, {} skipped by the limits, \
             {} unreadable lines; {} nodes in {:.1} s ({nps} nps, {jobs} threads)",
            report.positions,
            report.passed,
            report.failed,
            report.refused,
            report.counts_checked,
            report.counts_skipped,
            bad.len(),
            report.nodes,
            report.seconds,
        );
        ok &= report.failed == 0;
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

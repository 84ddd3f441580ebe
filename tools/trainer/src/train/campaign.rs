//! Campaigns: a training run long enough to outlive the machine it runs on.
//!
//! A campaign's folder (committed with the repository, e.g. `nets/campaign/`)
//! holds the only state that cannot be remade:
//! - `manifest.json`: the trainer's arguments, fixed when the campaign starts;
//!   every input file (training, validation, teacher, starting net) with its
//!   size and SHA-256, and for each file outside the durable folders the
//!   command that remakes it; the progress (epochs and samples done).
//! - `checkpoint.bin.zst`: the trainer's checkpoint (weights and Adam's
//!   moments, `TSCK` version 2, nets/FORMAT.md), zstd-compressed and
//!   replaced in place after every epoch.
//!
//! `resume` rebuilds everything else on any machine that has the durable
//! files: it remakes missing machine-local inputs from their commands,
//! checks every input against its recorded hash, restores the run folder's
//! checkpoint from the committed one where the run folder is behind (or
//! gone), and trains on. The result is the net an uninterrupted run of the
//! same arguments writes (tests/cli.rs checks it bit for bit).

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Args;
use crate::data::sources::SourceSpec;
use crate::train::checkpoint::{Checkpoint, write_atomically};
use crate::train::optim::AdamConfig;
use crate::train::{self, EpochDone, Hooks, Outcome};

type Error = Box<dyn std::error::Error>;

/// The manifest's own format; a reader refuses any other.
const MANIFEST_FORMAT: u32 = 1;
const MANIFEST: &str = "manifest.json";
const CHECKPOINT: &str = "checkpoint.bin.zst";
/// The committed checkpoint is small next to the time it stands for: a slow,
/// tight compression level costs under a second an epoch.
const ZSTD_LEVEL: i32 = 12;

#[derive(clap::Args, Debug)]
pub struct CampaignArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Subcommand, Debug)]
pub enum Action {
    /// Pin a new campaign: its trainer arguments and every input file (size
    /// and SHA-256) go into DIR/manifest.json. Nothing is trained yet:
    /// `resume` trains.
    Start(StartArgs),
    /// Train on from the campaign's committed state: remake the machine-local
    /// inputs that are missing, check every input against the manifest,
    /// restore the run folder's checkpoint, and after every epoch replace
    /// DIR/checkpoint.bin.zst and the manifest's progress (commit them).
    Resume(ResumeArgs),
    /// A branch off the campaign's committed state: the trunk's epochs so
    /// far, then a low-rate phase (a share of the samples seen so far, at
    /// --final-lr of the rate), into its own run folder. The trunk must run
    /// at a constant rate (`--schedule step --gamma 1`), so that a branch at
    /// any point is the run that would have ended there: the points of a
    /// length curve without a schedule's bias.
    Branch(BranchArgs),
    /// The campaign's progress, and which inputs are present here.
    Status {
        /// The campaign's folder.
        dir: PathBuf,
    },
}

#[derive(clap::Args, Debug)]
pub struct StartArgs {
    /// The campaign's folder (committed): manifest.json and checkpoint.bin.zst.
    pub dir: PathBuf,
    /// The campaign's name (the run folder's by default).
    #[arg(long)]
    pub name: String,
    /// The machine-local run folder (default: runs/campaign-<name>).
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// Folders whose files outlast the machine (the shared data, the
    /// repository's own nets); any other input needs --remake.
    #[arg(long = "durable", num_args = 1.., default_values = ["../shared/data", "nets"])]
    pub durable: Vec<PathBuf>,
    /// `PATH=COMMAND`: how a machine-local input is made again (run with
    /// `sh -c` in the folder `resume` runs in, which must be this one);
    /// given in the order they must run.
    #[arg(long = "remake")]
    pub remake: Vec<String>,
    /// The trainer's arguments, as for a plain run, after `--`; without
    /// --out, --net, --fresh and --threads (the run folder is the campaign's,
    /// and the thread count, which does not change the result, is
    /// resume's). Globs are expanded now: files added later wait for the
    /// next campaign.
    #[arg(last = true, required = true)]
    pub trainer: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct ResumeArgs {
    /// The campaign's folder.
    pub dir: PathBuf,
    /// Stop cleanly after this many more epochs of this run (the state committed-ready).
    #[arg(long)]
    pub stop_after: Option<usize>,
    /// Worker threads (default: all cores); the result does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where a remade machine-local input differs from the recorded one
    /// (a generator whose output order varies), record the new file and go
    /// on, instead of stopping. The run then differs from one that never
    /// lost the file.
    #[arg(long)]
    pub accept_remade: bool,
}

#[derive(clap::Args, Debug)]
pub struct BranchArgs {
    /// The campaign's folder.
    pub dir: PathBuf,
    /// The low-rate phase's length, as a share of the samples the trunk has
    /// seen (rounded up to whole epochs).
    #[arg(long, default_value_t = 0.1)]
    pub share: f64,
    /// The low-rate phase's rate, as a fraction of the trunk's --lr.
    #[arg(long, default_value_t = 0.1)]
    pub final_lr: f32,
    /// Worker threads (default: all cores); the result does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// As for `resume`.
    #[arg(long)]
    pub accept_remade: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub name: String,
    /// The repository's commit when the campaign started (where known).
    pub commit: Option<String>,
    /// `tessera-trainer` arguments, globs expanded; `--out` is `run_dir`.
    pub command: Vec<String>,
    pub run_dir: PathBuf,
    /// What continues the campaign, for whoever reads the manifest first.
    pub resume: String,
    pub inputs: Vec<Input>,
    pub progress: Progress,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub path: PathBuf,
    /// `data`, `validation`, `teacher` or `init`.
    pub role: String,
    pub bytes: u64,
    pub sha256: String,
    /// For a machine-local file: the command that makes it again.
    pub remake: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub epochs_done: u32,
    /// Known once the trainer has loaded the data.
    pub epochs: Option<u32>,
    pub samples_per_epoch: Option<u64>,
    pub samples_seen: u64,
    pub validation_loss: Option<f64>,
    pub checkpoint: Option<CheckpointFile>,
    /// The finished net, once every epoch is trained.
    pub net: Option<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointFile {
    pub file: String,
    /// The checkpoint's own format inside the zstd frame.
    pub format: String,
    pub epochs_done: u32,
    pub bytes: u64,
    pub sha256: String,
}

pub fn run(args: &CampaignArgs) -> Result<(), Error> {
    match &args.action {
        Action::Start(a) => start(a),
        Action::Resume(a) => resume(a),
        Action::Branch(a) => branch(a),
        Action::Status { dir } => status(dir),
    }
}

fn start(a: &StartArgs) -> Result<(), Error> {
    let manifest_path = a.dir.join(MANIFEST);
    if manifest_path.exists() {
        return Err(format!(
            "{} already holds a campaign; resume it, or remove the folder to start another",
            a.dir.display()
        )
        .into());
    }
    for (flag, why) in [
        ("--out", "the run folder is the campaign's (--run-dir)"),
        ("--net", "the net is written in the run folder"),
        ("--fresh", "a campaign resumes, never starts over"),
        ("--threads", "give --threads to resume: it does not change the result"),
    ] {
        if a.trainer.iter().any(|t| t == flag || t.starts_with(&format!("{flag}="))) {
            return Err(format!("{flag} is not one of a campaign's trainer arguments: {why}").into());
        }
    }
    if let Some(t) = a.trainer.iter().find(|t| t.starts_with("--data=") || t.starts_with("--validation=")) {
        return Err(format!("{t}: write it as two arguments (`--data FILE…`)").into());
    }
    let run_dir = a.run_dir.clone().unwrap_or_else(|| PathBuf::from(format!("runs/campaign-{}", a.name)));
    let command = expand_globs(&a.trainer)?;
    let args = trainer_args(&command, &run_dir, None)?;
    if args.command.is_some() {
        return Err("the trainer arguments name a subcommand; give a training run's arguments".into());
    }

    let mut remakes: Vec<(PathBuf, String)> = Vec::new();
    for r in &a.remake {
        let (path, cmd) = r.split_once('=').ok_or_else(|| format!("--remake {r}: expected PATH=COMMAND"))?;
        remakes.push((PathBuf::from(path), cmd.to_string()));
    }
    let durable: Vec<PathBuf> = a.durable.iter().filter_map(|d| d.canonicalize().ok()).collect();
    let mut inputs = Vec::new();
    for (path, role) in input_files(&args)? {
        if inputs.iter().any(|i: &Input| i.path == path) {
            continue;
        }
        let remake = remakes.iter().find(|(p, _)| same_file(p, &path)).map(|(_, c)| c.clone());
        let canonical = path.canonicalize().map_err(|e| format!("{}: {e}", path.display()))?;
        if remake.is_none() && !durable.iter().any(|d| canonical.starts_with(d)) {
            return Err(format!(
                "{} is machine-local (outside {}): give --remake '{}=COMMAND', the command that makes it again",
                path.display(),
                a.durable.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "),
                path.display()
            )
            .into());
        }
        let (bytes, sha256) = hash_file(&path)?;
        inputs.push(Input { path, role: role.to_string(), bytes, sha256, remake });
    }
    if let Some((p, _)) = remakes.iter().find(|(p, _)| !inputs.iter().any(|i| same_file(p, &i.path))) {
        return Err(format!("--remake {}: not one of the run's input files", p.display()).into());
    }
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        name: a.name.clone(),
        commit: git_commit(),
        command,
        run_dir,
        resume: format!("tessera-trainer campaign resume {}", a.dir.display()),
        inputs,
        progress: Progress::default(),
    };
    std::fs::create_dir_all(&a.dir)?;
    manifest.write(&manifest_path)?;
    println!(
        "campaign {} pinned in {}: {} input files ({} MB); train with: {}",
        manifest.name,
        manifest_path.display(),
        manifest.inputs.len(),
        manifest.inputs.iter().map(|i| i.bytes).sum::<u64>() >> 20,
        manifest.resume
    );
    Ok(())
}

fn resume(a: &ResumeArgs) -> Result<(), Error> {
    let manifest_path = a.dir.join(MANIFEST);
    let mut manifest = Manifest::read(&manifest_path)?;
    if let Some(net) = &manifest.progress.net {
        println!(
            "campaign {} is finished: {} epochs, net {}",
            manifest.name,
            manifest.progress.epochs_done,
            net.display()
        );
        return Ok(());
    }
    if make_inputs(&mut manifest, a.accept_remade)? {
        manifest.write(&manifest_path)?;
    }
    std::fs::create_dir_all(&manifest.run_dir)?;
    restore_checkpoint(&a.dir, &mut manifest)?;
    manifest.write(&manifest_path)?;

    let args = trainer_args(&manifest.command, &manifest.run_dir, a.threads)?;
    let description =
        format!("tessera-trainer {} --out {}", shell_words(&manifest.command), manifest.run_dir.display());
    let dir = a.dir.clone();
    let outcome = {
        let manifest = &mut manifest;
        let hooks = Hooks {
            command: Some(description),
            stop_after: a.stop_after,
            after_epoch: Some(Box::new(move |done: &EpochDone| {
                manifest.progress.checkpoint = Some(save_checkpoint(&dir, done.checkpoint)?);
                manifest.progress.epochs_done = done.checkpoint.epochs_done;
                manifest.progress.epochs = Some(done.epochs as u32);
                manifest.progress.samples_per_epoch = Some(done.samples_per_epoch);
                manifest.progress.samples_seen = done.checkpoint.epochs_done as u64 * done.samples_per_epoch;
                manifest.progress.validation_loss = done.checkpoint.history.last().map(|r| r.validation_loss);
                manifest.write(&dir.join(MANIFEST))?;
                Ok(())
            })),
        };
        train::run_with(&args, hooks)?
    };
    match outcome {
        Outcome::Finished(net) => {
            manifest.progress.net = Some(net.clone());
            manifest.write(&manifest_path)?;
            println!("campaign {} finished: {}", manifest.name, net.display());
        }
        Outcome::Stopped(epochs) => println!("campaign {} stopped after epoch {epochs}", manifest.name),
    }
    println!("commit {} to keep this state", a.dir.display());
    Ok(())
}

fn branch(a: &BranchArgs) -> Result<(), Error> {
    if !(a.share > 0.0 && a.share.is_finite() && a.final_lr > 0.0 && a.final_lr.is_finite()) {
        return Err("--share and --final-lr must be positive".into());
    }
    let manifest_path = a.dir.join(MANIFEST);
    let mut manifest = Manifest::read(&manifest_path)?;
    let (Some(record), Some(per_epoch)) = (manifest.progress.checkpoint.clone(), manifest.progress.samples_per_epoch)
    else {
        return Err(format!("campaign {} has no epoch committed yet: resume it first", manifest.name).into());
    };
    let trunk = trainer_args(&manifest.command, &manifest.run_dir, None)?;
    if !matches!(trunk.schedule, crate::ScheduleArg::Step) || trunk.gamma != 1.0 || trunk.final_epochs > 0 {
        return Err("a branch needs a trunk at a constant rate (--schedule step --gamma 1, no --final-epochs)".into());
    }
    if make_inputs(&mut manifest, a.accept_remade)? {
        manifest.write(&manifest_path)?;
    }
    let at = record.epochs_done as u64;
    let extra = (a.share * at as f64).ceil().max(1.0) as u64;
    let folder = manifest.run_dir.file_name().map_or("campaign".into(), |n| n.to_string_lossy().into_owned());
    let run_dir = manifest.run_dir.with_file_name(format!("{folder}-branch-e{at}"));
    std::fs::create_dir_all(&run_dir)?;
    // The trunk's state at the branch point, checked against the manifest;
    // a branch folder that already has a checkpoint is that branch resumed.
    let local = run_dir.join("checkpoint.bin");
    if !local.exists() {
        write_atomically(&local, &committed_checkpoint(&a.dir, &record)?)?;
    }
    let mut args = trainer_args(&manifest.command, &run_dir, a.threads)?;
    args.samples = Some((at + extra) * per_epoch);
    args.final_epochs = extra as usize;
    args.final_lr = a.final_lr;
    let description = format!(
        "tessera-trainer {} --out {} --samples {} --final-epochs {extra} --final-lr {}",
        shell_words(&manifest.command),
        run_dir.display(),
        (at + extra) * per_epoch,
        a.final_lr
    );
    println!(
        "branch of campaign {} at epoch {at} ({} samples seen): {extra} more epochs at {} of the rate, in {}",
        manifest.name,
        at * per_epoch,
        a.final_lr,
        run_dir.display()
    );
    match train::run_with(&args, Hooks { command: Some(description), ..Hooks::default() })? {
        Outcome::Finished(net) => println!("branch at epoch {at} finished: {}", net.display()),
        Outcome::Stopped(epochs) => println!("branch stopped after epoch {epochs}"),
    }
    Ok(())
}

fn status(dir: &Path) -> Result<(), Error> {
    use std::fmt::Write as _;
    let m = Manifest::read(&dir.join(MANIFEST))?;
    let p = &m.progress;
    let mut out = String::new();
    writeln!(out, "campaign {} (started at commit {})", m.name, m.commit.as_deref().unwrap_or("unknown"))?;
    writeln!(
        out,
        "epochs {}/{}, {} samples seen{}",
        p.epochs_done,
        p.epochs.map_or("?".to_string(), |e| e.to_string()),
        p.samples_seen,
        p.validation_loss.map_or(String::new(), |l| format!(", validation loss {l:.6}"))
    )?;
    for input in &m.inputs {
        let here = match std::fs::metadata(&input.path) {
            Ok(meta) if meta.len() == input.bytes => "present",
            Ok(_) => "CHANGED (size)",
            Err(_) if input.remake.is_some() => "missing (resume remakes it)",
            Err(_) => "MISSING (durable: restore it)",
        };
        writeln!(out, "{:<10} {} {} bytes: {here}", input.role, input.path.display(), input.bytes)?;
    }
    match &p.net {
        Some(net) => writeln!(out, "finished: {}", net.display())?,
        None => writeln!(out, "continue with: {}", m.resume)?,
    }
    write_stdout(&out)
}

/// Writes a report to stdout; a reader that stopped early (`| head`) is not an error.
fn write_stdout(text: &str) -> Result<(), Error> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

impl Manifest {
    fn read(path: &Path) -> Result<Manifest, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let m: Manifest =
            serde_json::from_str(&text).map_err(|e| format!("{}: not a campaign manifest: {e}", path.display()))?;
        if m.format != MANIFEST_FORMAT {
            return Err(format!(
                "{}: manifest format {}, this trainer reads {MANIFEST_FORMAT}",
                path.display(),
                m.format
            )
            .into());
        }
        Ok(m)
    }

    fn write(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        Ok(write_atomically(path, text.as_bytes())?)
    }
}

/// The trainer's parsed arguments for the campaign's run.
fn trainer_args(command: &[String], run_dir: &Path, threads: Option<usize>) -> Result<Args, Error> {
    let mut argv: Vec<String> = vec!["tessera-trainer".into()];
    argv.extend(command.iter().cloned());
    argv.extend(["--out".into(), run_dir.display().to_string()]);
    if let Some(t) = threads {
        argv.extend(["--threads".into(), t.to_string()]);
    }
    Args::try_parse_from(&argv).map_err(|e| format!("the campaign's trainer arguments: {e}").into())
}

/// The arguments with each `--data`/`--validation` glob replaced by the
/// files it names now (each keeping the pattern's share, cap and factors).
fn expand_globs(trainer: &[String]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let mut in_list = false;
    for token in trainer {
        if token.starts_with("--") {
            in_list = token == "--data" || token == "--validation";
            out.push(token.clone());
        } else if in_list {
            let spec: SourceSpec = token.parse()?;
            for file in spec.files()? {
                let one = SourceSpec { pattern: file.display().to_string(), ..spec.clone() };
                out.push(one.to_string());
            }
        } else {
            out.push(token.clone());
        }
    }
    Ok(out)
}

/// Every file the run reads, with its role.
fn input_files(args: &Args) -> Result<Vec<(PathBuf, &'static str)>, Error> {
    let mut files = Vec::new();
    for (specs, role) in [(&args.data, "data"), (&args.validation, "validation")] {
        for spec in specs {
            files.extend(spec.files()?.into_iter().map(|f| (f, role)));
        }
    }
    files.extend(args.teacher.iter().map(|p| (p.clone(), "teacher")));
    files.extend(args.init.iter().map(|p| (p.clone(), "init")));
    Ok(files)
}

/// Remakes what is missing and checks every input; true where the manifest
/// changed (a remade file accepted with new contents).
fn make_inputs(manifest: &mut Manifest, accept_remade: bool) -> Result<bool, Error> {
    let mut changed = false;
    for input in &mut manifest.inputs {
        let mut remade = false;
        if !input.path.exists() {
            let Some(cmd) = &input.remake else {
                return Err(format!(
                    "{} ({} input) is missing: it is durable data the campaign pinned ({} bytes, sha256 {}); \
                     restore it (the shared data folder's README says where each file comes from)",
                    input.path.display(),
                    input.role,
                    input.bytes,
                    input.sha256
                )
                .into());
            };
            if let Some(parent) = input.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            println!("remaking {}: {cmd}", input.path.display());
            let status = std::process::Command::new("sh").arg("-c").arg(cmd).status()?;
            if !status.success() || !input.path.exists() {
                return Err(format!("remaking {} failed ({status}): {cmd}", input.path.display()).into());
            }
            remade = true;
        }
        let (bytes, sha256) = hash_file(&input.path)?;
        if (bytes, &sha256) != (input.bytes, &input.sha256) {
            let what = format!(
                "{} is not the file the campaign pinned: {} bytes, sha256 {} (pinned: {} bytes, {})",
                input.path.display(),
                bytes,
                sha256,
                input.bytes,
                input.sha256
            );
            if remade && accept_remade {
                println!("warning: {what}; recorded, as --accept-remade asks");
                (input.bytes, input.sha256) = (bytes, sha256);
                changed = true;
            } else if remade {
                return Err(
                    format!("{what}; its command made other bytes (pass --accept-remade to go on with them)").into()
                );
            } else {
                return Err(
                    format!("{what}; a campaign's data is fixed: restore the file or start a new campaign").into()
                );
            }
        }
    }
    Ok(changed)
}

/// Brings the run folder's checkpoint level with the committed one: the
/// committed one is written there where the run folder has none, a damaged
/// one or an older one; a run folder ahead of it (the machine the campaign
/// ran on, stopped before its copy) updates the committed one instead.
fn restore_checkpoint(dir: &Path, manifest: &mut Manifest) -> Result<(), Error> {
    let local_path = manifest.run_dir.join("checkpoint.bin");
    let local = std::fs::read(&local_path).ok().and_then(|b| Checkpoint::from_bytes(&b, AdamConfig::default()).ok());
    let committed = match &manifest.progress.checkpoint {
        Some(record) => {
            let raw = committed_checkpoint(dir, record)?;
            let c = Checkpoint::from_bytes(&raw, AdamConfig::default())
                .map_err(|e| format!("{}: {e}", dir.join(&record.file).display()))?;
            Some((c, raw))
        }
        None => None,
    };
    match (local, committed) {
        (Some(l), Some((c, _))) if l.epochs_done > c.epochs_done => {
            println!(
                "the run folder is ahead (epoch {} against {}): committing its checkpoint",
                l.epochs_done, c.epochs_done
            );
            manifest.progress.checkpoint = Some(save_checkpoint(dir, &l)?);
            manifest.progress.epochs_done = l.epochs_done;
        }
        (Some(l), None) => {
            println!("the run folder has a checkpoint (epoch {}): committing it", l.epochs_done);
            manifest.progress.checkpoint = Some(save_checkpoint(dir, &l)?);
            manifest.progress.epochs_done = l.epochs_done;
        }
        (l, Some((c, raw))) if l.as_ref().is_none_or(|l| l.epochs_done < c.epochs_done || l != &c) => {
            println!("restoring the committed checkpoint (epoch {}) into {}", c.epochs_done, local_path.display());
            write_atomically(&local_path, &raw)?;
        }
        _ => {}
    }
    Ok(())
}

/// The committed checkpoint's uncompressed bytes, once its size and SHA-256
/// are the manifest's: a checkpoint committed out of step with its manifest
/// would resume or branch from an epoch the manifest does not describe.
fn committed_checkpoint(dir: &Path, record: &CheckpointFile) -> Result<Vec<u8>, Error> {
    let path = dir.join(&record.file);
    let (bytes, sha256) = hash_file(&path).map_err(|e| format!("the campaign's checkpoint {}: {e}", path.display()))?;
    if (bytes, &sha256) != (record.bytes, &record.sha256) {
        return Err(format!(
            "{} does not match the manifest (committed out of step?): {bytes} bytes, sha256 {sha256}, \
             the manifest says {} bytes, {}",
            path.display(),
            record.bytes,
            record.sha256
        )
        .into());
    }
    decompress(&path)
}

/// Compresses a checkpoint into the campaign folder, replacing the last.
fn save_checkpoint(dir: &Path, checkpoint: &Checkpoint) -> Result<CheckpointFile, Error> {
    let compressed = zstd::encode_all(checkpoint.to_bytes().as_slice(), ZSTD_LEVEL)?;
    write_atomically(&dir.join(CHECKPOINT), &compressed)?;
    Ok(CheckpointFile {
        file: CHECKPOINT.into(),
        format: format!("TSCK {}", crate::train::checkpoint::VERSION),
        epochs_done: checkpoint.epochs_done,
        bytes: compressed.len() as u64,
        sha256: hex(&Sha256::digest(&compressed)),
    })
}

fn decompress(path: &Path) -> Result<Vec<u8>, Error> {
    let mut raw = Vec::new();
    zstd::Decoder::new(std::fs::File::open(path)?)?.read_to_end(&mut raw)?;
    Ok(raw)
}

/// Size and SHA-256 (lower-case hex) of a file, read in blocks.
fn hash_file(path: &Path) -> Result<(u64, String), Error> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            break;
        }
        hasher.update(&block[..n]);
        bytes += n as u64;
    }
    Ok((bytes, hex(&hasher.finalize())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    a.components().eq(b.components())
}

fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git").args(["rev-parse", "HEAD"]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Arguments joined for reading, quoted where a shell would split them.
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if w.is_empty() || w.contains(|c: char| c.is_whitespace() || "'\"*?[]$".contains(c)) {
                format!("'{w}'")
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_files_keeping_their_modifiers() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["b.txt", "a.txt"] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        let pattern = format!("{}/*.txt:0.5:x1.2", dir.display());
        let args: Vec<String> = ["--data", &pattern, "--lr", "1e-3"].iter().map(|s| s.to_string()).collect();
        let expanded = expand_globs(&args).unwrap();
        let a = format!("{}/a.txt:0.5:x1.2", dir.display());
        let b = format!("{}/b.txt:0.5:x1.2", dir.display());
        assert_eq!(expanded, vec!["--data".to_string(), a, b, "--lr".into(), "1e-3".into()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn manifest_round_trips_and_refuses_other_formats() {
        let m = Manifest {
            format: MANIFEST_FORMAT,
            name: "t".into(),
            commit: None,
            command: vec!["--data".into(), "x.txt".into()],
            run_dir: "runs/t".into(),
            resume: "r".into(),
            inputs: vec![Input {
                path: "x.txt".into(),
                role: "data".into(),
                bytes: 1,
                sha256: "00".into(),
                remake: None,
            }],
            progress: Progress::default(),
        };
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(MANIFEST);
        m.write(&path).unwrap();
        assert_eq!(Manifest::read(&path).unwrap(), m);
        std::fs::write(&path, serde_json::to_string(&Manifest { format: 9, ..m }).unwrap()).unwrap();
        assert!(Manifest::read(&path).unwrap_err().to_string().contains("format 9"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_committed_checkpoint_is_read_only_when_the_manifest_describes_it() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path();
        let raw = b"checkpoint bytes".to_vec();
        let compressed = zstd::encode_all(raw.as_slice(), ZSTD_LEVEL).unwrap();
        std::fs::write(dir.join(CHECKPOINT), &compressed).unwrap();
        let record = CheckpointFile {
            file: CHECKPOINT.into(),
            format: "TSCK test".into(),
            epochs_done: 1,
            bytes: compressed.len() as u64,
            sha256: hex(&Sha256::digest(&compressed)),
        };
        assert_eq!(committed_checkpoint(dir, &record).unwrap(), raw);
        let stale = CheckpointFile { sha256: hex(&Sha256::digest(b"another epoch")), ..record };
        let error = committed_checkpoint(dir, &stale).unwrap_err().to_string();
        assert!(error.contains("does not match the manifest"), "{error}");
    }

    #[test]
    fn sha256_of_a_known_input() {
        assert_eq!(hex(&Sha256::digest(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}

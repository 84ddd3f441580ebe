//! `pgn`: positions sampled from games, as PQR triplets or labelled.

use std::path::{Path, PathBuf};

use tessera_datagen::fenlist::Listed;
use tessera_datagen::pgn::Sampled;
use tessera_datagen::pipeline::{Dealing, Outcome};

use crate::{FirstCopies, LabelArgs, label};

/// `--method pqr`: a position, the move played and another legal move, a line each.
pub fn triplets(
    inputs: Vec<PathBuf>,
    output: PathBuf,
    seed: u64,
    per_game: u32,
    unique: bool,
) -> Result<Outcome, String> {
    let mut lines = String::new();
    let mut count = 0;
    each_sample(
        &inputs,
        seed,
        per_game,
        unique,
        |s| {
            if let Some(line) = tessera_datagen::pgn::pqr_line(&s, seed) {
                lines += &line;
                lines.push('\n');
                count += 1;
            }
        },
        |_, _, _| {},
    )?;
    let tmp = output.with_extension("tmp");
    std::fs::write(&tmp, lines)
        .and_then(|_| std::fs::rename(&tmp, &output))
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    println!("wrote {count} triplets to {}", output.display());
    Ok(Outcome::default())
}

/// The sampled positions, labelled.
pub fn labelled(
    inputs: Vec<PathBuf>,
    output: PathBuf,
    labelling: LabelArgs,
    seed: u64,
    per_game: u32,
    unique: bool,
) -> Result<Outcome, String> {
    let mut samples = Vec::new();
    // Where each game's samples begin, for a labeller that labels a game at a time.
    let mut starts = Vec::new();
    let mut last_game = None;
    each_sample(
        &inputs,
        seed,
        per_game,
        unique,
        |s| {
            if last_game != Some((s.game, s.identity)) {
                last_game = Some((s.game, s.identity));
                starts.push(samples.len());
            }
            samples.push(Listed { pos: s.pos, result: s.result })
        },
        |input, games, repeated| {
            if unique {
                eprintln!("{}: {games} games, {repeated} positions of games met before", input.display());
            } else {
                eprintln!("{}: {games} games", input.display());
            }
        },
    )?;
    eprintln!("{} positions to label", samples.len());
    label(&samples, Dealing::Games { starts: &starts }, &output, &labelling)
}

/// Every sample of every input in order, where `unique` only those of a
/// game's first copy in the inputs; after each file, `each_file(input,
/// games read, samples of games met before)`.
fn each_sample(
    inputs: &[PathBuf],
    seed: u64,
    per_game: u32,
    unique: bool,
    mut keep: impl FnMut(Sampled),
    mut each_file: impl FnMut(&Path, u64, usize),
) -> Result<(), String> {
    let mut first = FirstCopies::new(unique);
    for (file, input) in inputs.iter().enumerate() {
        let before = first.repeated;
        let games = tessera_datagen::pgn::sample(input, seed, per_game as usize, &mut |s| {
            if first.keeps(file, &s) {
                keep(s);
            }
        })?;
        each_file(input, games, first.repeated - before);
    }
    Ok(())
}

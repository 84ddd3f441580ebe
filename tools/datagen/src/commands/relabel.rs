//! `relabel`: the positions of training-data files scored again by a search,
//! each keeping its game's result. Files written a game at a time with move
//! numbers (binpacks, viriformat) hold each game's positions in order,
//! so a labeller that keeps its table within a game (`--keep-hash`) can be
//! dealt whole games, as `pgn` deals them.

use std::path::PathBuf;

use shakmaty::{Chess, Color, Position};
use tessera_data::formats::{self, Format};
use tessera_datagen::fenlist::Listed;
use tessera_datagen::pipeline::{Dealing, Outcome};

use crate::{LabelArgs, label, output_apart};

pub fn run(
    inputs: Vec<PathBuf>,
    output: PathBuf,
    from: Option<Format>,
    labelling: LabelArgs,
) -> Result<Outcome, String> {
    output_apart(&inputs, &output)?;
    let format = |input: &PathBuf| from.unwrap_or_else(|| Format::of_path(input));
    if labelling.keep_hash
        && let Some(records) = inputs.iter().find(|i| format(i) == Format::Record)
    {
        return Err(format!(
            "--keep-hash needs games, and {} holds 32-byte records, which keep no move numbers to tell one game \
             from the next: label it without --keep-hash, or the games' binpack or PGN",
            records.display()
        ));
    }
    let mut samples = Vec::new();
    let mut games = GameStarts::default();
    for input in &inputs {
        let before = (samples.len(), games.starts.len());
        let mut ended = 0usize;
        games.new_file();
        let report = formats::read(input, format(input), &mut |entry| {
            let (pos, result) = (entry.record.pos, entry.record.result);
            // Mate or stalemate: nothing to search.
            if pos.legal_moves().is_empty() {
                ended += 1;
                return;
            }
            games.next(samples.len(), &pos, result);
            samples.push(Listed { pos, result });
        })?;
        eprintln!(
            "{}: {} positions in {} games{}{}",
            input.display(),
            samples.len() - before.0,
            games.starts.len() - before.1,
            if ended > 0 { format!(", {ended} mate or stalemate left out") } else { String::new() },
            if report.rejected > 0 { format!(", {} damaged entries skipped", report.rejected) } else { String::new() },
        );
    }
    eprintln!("{} positions to label", samples.len());
    label(&samples, Dealing::Games { starts: &games.starts }, &output, &labelling)
}

/// Where each game's first position lies in the order the files hold them. A
/// game goes on while its positions come in rising ply with no piece added and
/// one result; anything else (a new file, a lower ply, another result, more
/// pieces) starts the next. A shuffled file falls apart into short runs, which
/// costs `--keep-hash` its gain but not its labels' soundness.
#[derive(Default)]
struct GameStarts {
    starts: Vec<usize>,
    last: Option<(u32, usize, u8)>,
}

impl GameStarts {
    fn new_file(&mut self) {
        self.last = None;
    }

    fn next(&mut self, index: usize, pos: &Chess, result: u8) {
        let ply = (pos.fullmoves().get() - 1) * 2 + u32::from(pos.turn() == Color::Black);
        let pieces = pos.board().occupied().count();
        let goes_on = self.last.is_some_and(|(p, n, r)| ply > p && pieces <= n && result == r);
        if !goes_on {
            self.starts.push(index);
        }
        self.last = Some((ply, pieces, result));
    }
}

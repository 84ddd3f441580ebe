//! `selfplay`: games played and their positions kept, labelled as they go.

use std::path::PathBuf;

use tessera_data::formats::{Entry, Format};
use tessera_datagen::book::load_book;
use tessera_datagen::pipeline::{Outcome, Unit, produce_into};
use tessera_datagen::selfplay::play_game;

use crate::{PlayArgs, Worker};

pub fn run(
    output: PathBuf,
    games: usize,
    nodes: u64,
    jobs: usize,
    seed: u64,
    play: PlayArgs,
) -> Result<Outcome, String> {
    if jobs == 0 || nodes == 0 {
        return Err("--jobs and --nodes must be positive".into());
    }
    let config = play.config(nodes)?;
    let book = match &play.book {
        Some(path) => load_book(path)?,
        None => Vec::new(),
    };
    let mut workers = (0..jobs).map(|_| play.worker()).collect::<Result<Vec<_>, _>>()?;
    let whole_games = matches!(Format::of_path(&output), Format::Binpack | Format::Viriformat);
    let outcome = produce_into(games, Unit::Games, &mut workers, &output, 1, |worker, i| {
        let Worker { player, labeller } = worker;
        let game = play_game(seed, i as u64, &config, &book, player.as_mut(), labeller.as_deref_mut())?;
        // Binpack and viriformat store the whole game as moves (about a
        // tenth of the bytes); the others store the kept positions.
        Ok(if whole_games { game.game } else { game.records.into_iter().map(Entry::from).collect() })
    })?;
    println!("{} games played now, {} positions written to {}", outcome.labelled, outcome.written, output.display());
    Ok(outcome)
}

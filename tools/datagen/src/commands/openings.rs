//! `openings`: a book of distinct random openings, balanced by a short search.

use std::path::PathBuf;

use tessera_datagen::pipeline::Outcome;
use tessera_datagen::selfplay::{epd, random_opening};

pub fn run(
    output: PathBuf,
    plies: usize,
    max_eval: i32,
    count: usize,
    nodes: u64,
    seed: u64,
) -> Result<Outcome, String> {
    let mut search = tessera::search::Search::new(16);
    let mut seen = std::collections::HashSet::new();
    let mut lines = String::new();
    let mut index = 0u64;
    while seen.len() < count {
        let mut rng = tessera::rng::Rng::for_item(seed, index);
        index += 1;
        if index > 100 * count as u64 + 1000 {
            return Err(format!("only {} distinct openings found; loosen --max-eval or --plies", seen.len()));
        }
        if let Some(board) = random_opening(&mut rng, plies, max_eval, nodes, &mut search) {
            let line = epd(board.pos());
            if seen.insert(line.clone()) {
                lines += &line;
                lines.push('\n');
            }
        }
    }
    std::fs::write(&output, lines).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    println!("wrote {count} openings to {}", output.display());
    Ok(Outcome::default())
}

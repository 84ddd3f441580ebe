//! Games from PGN files (plain or zstd, the Lichess database format): the one
//! PGN reader of the project. Each game comes with its start (the standard
//! position, or its `FEN` tag's), its moves up to the first one that is not
//! legal, and its result. What to take from a game (one sampled position, the
//! position after the last move, every position) is the caller's choice.

use std::ops::ControlFlow;
use std::path::Path;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// One game as read.
#[derive(Clone, Debug)]
pub struct Game {
    /// The game's index in its file, from 0.
    pub index: u64,
    /// The position the moves start from.
    pub start: Chess,
    /// Whether the start came from a `FEN` tag (a set-up position).
    pub set_up: bool,
    /// The moves, up to the first that was not legal or not understood.
    pub moves: Vec<Move>,
    /// False when a move was not legal (or a `FEN` tag not a position): the
    /// game is cut there.
    pub complete: bool,
    /// The `Result` tag, white's view: 0 black won, 1 draw, 2 white won;
    /// `None` for an unfinished game (`*`) or none given.
    pub result: Option<u8>,
    /// A hash of the `White`, `Black` and `Date` tags and the moves: the same
    /// game kept in two files (both players' collections) has the same one.
    pub identity: u64,
}

impl Game {
    /// The position after the first `plies` moves.
    pub fn position_after(&self, plies: usize) -> Chess {
        let mut pos = self.start.clone();
        for &m in &self.moves[..plies.min(self.moves.len())] {
            pos.play_unchecked(m);
        }
        pos
    }

    /// Every position with the move played from it, in order.
    pub fn positions(&self) -> impl Iterator<Item = (Chess, Move)> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().map(move |&m| {
            let before = pos.clone();
            pos.play_unchecked(m);
            (before, m)
        })
    }
}

#[derive(Default)]
struct Tags {
    result: Option<u8>,
    fen: Option<String>,
    /// `White`, `Black` and `Date`, for the game's identity.
    names: [Vec<u8>; 3],
}

struct Games<'a> {
    index: u64,
    each: &'a mut dyn FnMut(Game),
}

/// A game being read, and the position its moves have reached.
struct Reading {
    game: Game,
    pos: Chess,
    names: [Vec<u8>; 3],
}

impl Visitor for Games<'_> {
    type Tags = Tags;
    type Movetext = Reading;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        match name {
            b"Result" => {
                tags.result = match value.as_bytes() {
                    b"1-0" => Some(2),
                    b"0-1" => Some(0),
                    b"1/2-1/2" => Some(1),
                    _ => None,
                }
            }
            b"FEN" => tags.fen = Some(String::from_utf8_lossy(value.as_bytes()).into_owned()),
            b"White" => tags.names[0] = value.as_bytes().to_vec(),
            b"Black" => tags.names[1] = value.as_bytes().to_vec(),
            b"Date" => tags.names[2] = value.as_bytes().to_vec(),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<(), Reading> {
        let start = match &tags.fen {
            None => Some(Chess::default()),
            Some(fen) => fen.parse::<Fen>().ok().and_then(|f| f.into_position::<Chess>(CastlingMode::Chess960).ok()),
        };
        let complete = start.is_some();
        let start = start.unwrap_or_default();
        ControlFlow::Continue(Reading {
            names: tags.names,
            pos: start.clone(),
            game: Game {
                index: self.index,
                start,
                set_up: tags.fen.is_some(),
                moves: Vec::new(),
                complete,
                result: tags.result,
                identity: 0,
            },
        })
    }

    fn san(&mut self, reading: &mut Reading, san_plus: SanPlus) -> ControlFlow<()> {
        if reading.game.complete {
            match san_plus.san.to_move(&reading.pos) {
                Ok(m) => {
                    reading.pos.play_unchecked(m);
                    reading.game.moves.push(m);
                }
                Err(_) => reading.game.complete = false,
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, reading: Reading) {
        self.index += 1;
        let mut game = reading.game;
        game.identity = identity(&reading.names, &game);
        (self.each)(game);
    }
}

/// FNV-1a over the tags (each with its length) and the moves' from, to and
/// promotion: fixed across builds and platforms, unlike std's hasher.
fn identity(names: &[Vec<u8>; 3], game: &Game) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for name in names {
        eat(&(name.len() as u32).to_le_bytes());
        eat(name);
    }
    for m in &game.moves {
        let from = m.from().map_or(64, |s| s as u8);
        eat(&[from, m.to() as u8, m.promotion().map_or(0, |r| r as u8)]);
    }
    h
}

/// Calls `each` with every game of `path` (plain or zstd) in order; returns
/// how many games the file holds.
pub fn read_games(path: &Path, each: &mut dyn FnMut(Game)) -> Result<u64, String> {
    let io = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut games = Games { index: 0, each };
    let mut reader = Reader::new(crate::store::open_text(path).map_err(io)?);
    while reader.read_game(&mut games).map_err(io)?.is_some() {}
    Ok(games.index)
}

/// Whether a file name says PGN (`.pgn`, `.pgn.zst`).
pub fn is_pgn(path: &Path) -> bool {
    let name = path.to_string_lossy().to_lowercase();
    name.ends_with(".pgn") || name.ends_with(".pgn.zst")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_come_with_start_moves_and_result() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.pgn");
        let text = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
                    [Result \"*\"]\n\n1. d4 Ke7 2. c4 *\n\n\
                    [Result \"1/2-1/2\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 Kd7 1/2-1/2\n\n\
                    [Result \"0-1\"]\n[FEN \"not a position\"]\n\n1. e4 0-1\n\n";
        std::fs::write(&path, text).unwrap();
        let mut games = Vec::new();
        assert_eq!(read_games(&path, &mut |g| games.push(g)).unwrap(), 4);
        assert_eq!(
            (games[0].moves.len(), games[0].result, games[0].complete, games[0].set_up),
            (3, Some(2), true, false)
        );
        assert_eq!(games[0].positions().count(), 3);
        assert!(games[0].positions().all(|(p, m)| p.is_legal(m)));
        // The illegal Ke7 (after d4) cuts the game there.
        assert_eq!((games[1].moves.len(), games[1].complete, games[1].result), (1, false, None));
        assert_eq!((games[2].set_up, games[2].moves.len(), games[2].result), (true, 2, Some(1)));
        assert_eq!(games[2].position_after(2).board().occupied().count(), 2);
        assert!(!games[3].complete && games[3].moves.is_empty());
        assert_eq!(games.iter().map(|g| g.index).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_ne!(games[0].identity, games[1].identity);
        // The same game in two collections is one game; another date is another.
        let same =
            "[White \"A\"]\n[Black \"B\"]\n[Date \"1990.??.??\"]\n[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
        let other = "[White \"A\"]\n[Black \"B\"]\n[Date \"1991.??.??\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
        std::fs::write(&path, format!("{same}{}{other}", same.replace("[Event \"x\"]\n", ""))).unwrap();
        let mut ids = Vec::new();
        read_games(&path, &mut |g| ids.push(g.identity)).unwrap();
        assert_eq!(ids[0], ids[1]);
        assert_ne!(ids[0], ids[2]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

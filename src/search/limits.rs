//! What a `go` command asks for.

use shakmaty::Move;

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (empty: all).
    pub searchmoves: Vec<Move>,
}

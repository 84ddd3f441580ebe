//! What a `go` command asks for.

use shakmaty::Move;

/// The limits of one search. `M` is how the root moves of `searchmoves` are
/// held: as the GUI wrote them (`String`, when a `go` line is read, before
/// they are checked against the position) or as moves (when searching).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits<M = Move> {
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
    pub searchmoves: Vec<M>,
}

// By hand: a derived Default would ask `M: Default`, which moves are not.
impl<M> Default for Limits<M> {
    fn default() -> Self {
        Limits {
            depth: None,
            nodes: None,
            mate: None,
            movetime: None,
            wtime: None,
            btime: None,
            winc: None,
            binc: None,
            movestogo: None,
            infinite: false,
            ponder: false,
            searchmoves: Vec::new(),
        }
    }
}

impl<M> Limits<M> {
    /// The same limits with the root moves given instead.
    pub fn with_searchmoves<N>(self, searchmoves: Vec<N>) -> Limits<N> {
        let Limits { depth, nodes, mate, movetime, wtime, btime, winc, binc, movestogo, infinite, ponder, .. } = self;
        Limits { depth, nodes, mate, movetime, wtime, btime, winc, binc, movestogo, infinite, ponder, searchmoves }
    }
}

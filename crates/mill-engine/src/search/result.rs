//! What a search returns: its result, or why it could not run.

use super::*;

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The turn to play (always one of the position's legal turns).
    pub turn: Turn,
    /// Its score for the side to move: [`PIECE`](crate::PIECE) per piece; beyond
    /// [`MATE_BOUND`] a forced win, see [`SearchResult::win_in`].
    pub score: i32,
    /// The last iteration completed, in turns.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The expected line of play, starting with `turn`.
    pub pv: Vec<Turn>,
    /// Milliseconds spent, by the clock given (0 with [`NoClock`](crate::NoClock)).
    pub elapsed_ms: u64,
    /// Positions whose value came from the endgame tablebase (the root included).
    pub tb_hits: u64,
}

impl SearchResult {
    /// A turn chosen without a search (by a table, or at random): depth 1, one node.
    pub(super) fn at_once(turn: Turn, score: i32, elapsed_ms: u64, tb_hits: u64) -> SearchResult {
        SearchResult {
            turn,
            score,
            depth: 1,
            nodes: 1,
            pv: vec![turn],
            elapsed_ms,
            tb_hits,
        }
    }

    /// A forced result seen by the search, in turns from now (the side to move's turns
    /// and the opponent's): positive when the side to move wins, negative when it loses.
    pub fn win_in(&self) -> Option<i32> {
        if self.score >= MATE_BOUND {
            Some(MATE - self.score)
        } else if self.score <= -MATE_BOUND {
            Some(-(MATE + self.score))
        } else {
            None
        }
    }
}

/// Why there is no turn to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchError {
    /// The game is over (including threefold repetition in the history given).
    GameOver,
    /// A removal is pending: the turn in progress must be finished first.
    MidTurn,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SearchError::GameOver => "the game is over",
            SearchError::MidTurn => "a removal is pending: finish the turn in progress first",
        })
    }
}

impl std::error::Error for SearchError {}

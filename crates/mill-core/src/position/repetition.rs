//! Repetition: how often a position has occurred in a game's history.

use super::*;

impl Position {
    /// How often this position has occurred, itself included, in `history`: the hashes
    /// ([`Position::hash`]) of a game's positions at each turn boundary, oldest first,
    /// ending with this one (as [`Game::history`](crate::Game::history) holds them).
    /// Compare it with [`Rules::repetition_draws`].
    #[inline]
    pub fn occurrences(&self, history: &[u64]) -> usize {
        1 + self.earlier_occurrences(history).count()
    }

    /// The indices in `history` (as for [`Position::occurrences`], ending with this
    /// position) of this position's earlier occurrences, newest first. Between two equal
    /// positions every turn is a move without a removal, which counts as a quiet turn, and
    /// the same side is to move; so only every other one of the last
    /// [`Position::quiet_turns`] entries is looked at.
    #[inline]
    pub fn earlier_occurrences<'h>(&self, history: &'h [u64]) -> EarlierOccurrences<'h> {
        let last = history.len().saturating_sub(1);
        // Without a no-progress count every earlier boundary is looked at.
        let reach = if self.rules.counts_quiet() {
            (self.quiet as usize).min(last)
        } else {
            last
        };
        EarlierOccurrences {
            history,
            hash: self.hash,
            last,
            back: 2,
            reach,
        }
    }
}

/// The earlier occurrences of a position in a game's history: see
/// [`Position::earlier_occurrences`].
#[derive(Clone, Debug)]
pub struct EarlierOccurrences<'h> {
    history: &'h [u64],
    hash: u64,
    last: usize,
    back: usize,
    reach: usize,
}

impl Iterator for EarlierOccurrences<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.back <= self.reach {
            let i = self.last - self.back;
            self.back += 2;
            if self.history[i] == self.hash {
                return Some(i);
            }
        }
        None
    }
}

//! What a player does: one-click [`Action`]s, and the [`Turn`] they add up to.

use crate::bitboard::Point;
use crate::topology::{MAX_LINES_THROUGH, Topology};
use arrayvec::ArrayVec;

/// One click's worth of play: what the page sends and the server checks.
///
/// A turn is a placement or a move followed, if it closed a mill, by its removal(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Put a piece from hand on an empty point.
    Place {
        /// The empty point.
        to: Point,
    },
    /// Move (or fly) a piece to an empty point.
    Move {
        /// Where the piece stands.
        from: Point,
        /// Where it goes.
        to: Point,
    },
    /// Remove an opponent piece after closing a mill.
    Remove {
        /// The opponent piece.
        at: Point,
    },
}

impl Action {
    /// The action's text: `d6` (place), `a1-a4` (move), `xd2` (remove).
    pub fn to_text(&self, topology: &Topology) -> String {
        match *self {
            Action::Place { to } => topology.name(to).to_string(),
            Action::Move { from, to } => format!("{}-{}", topology.name(from), topology.name(to)),
            Action::Remove { at } => format!("x{}", topology.name(at)),
        }
    }
}

/// The most removals one turn may carry under any supported rule set.
pub const MAX_REMOVALS: usize = MAX_LINES_THROUGH;

/// A complete turn: a placement or a move, and the removals it earned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    from: Option<Point>,
    to: Point,
    removals: [Point; MAX_REMOVALS],
    removal_count: u8,
}

impl Turn {
    /// A placement on `to`, with no removal yet.
    pub fn place(to: Point) -> Turn {
        Turn {
            from: None,
            to,
            removals: [Point(0); MAX_REMOVALS],
            removal_count: 0,
        }
    }

    /// A move (or flight) from `from` to `to`, with no removal yet.
    pub fn step(from: Point, to: Point) -> Turn {
        Turn {
            from: Some(from),
            to,
            removals: [Point(0); MAX_REMOVALS],
            removal_count: 0,
        }
    }

    /// This turn with one more removal, or `None` if it already carries the most
    /// removals any turn can.
    pub fn with_removal(mut self, at: Point) -> Option<Turn> {
        let slot = self.removals.get_mut(self.removal_count as usize)?;
        *slot = at;
        self.removal_count += 1;
        Some(self)
    }

    /// Where the moved piece came from (`None` for a placement).
    #[inline]
    pub fn from(&self) -> Option<Point> {
        self.from
    }

    /// Where the placed or moved piece arrived.
    #[inline]
    pub fn to(&self) -> Point {
        self.to
    }

    /// The removed opponent pieces, in the order they were removed.
    #[inline]
    pub fn removals(&self) -> &[Point] {
        &self.removals[..self.removal_count as usize]
    }

    /// The first action of the turn: the placement or the move.
    pub fn first_action(&self) -> Action {
        match self.from {
            None => Action::Place { to: self.to },
            Some(from) => Action::Move { from, to: self.to },
        }
    }

    /// The turn as the actions that make it up, in order.
    pub fn actions(&self) -> impl Iterator<Item = Action> + '_ {
        core::iter::once(self.first_action()).chain(self.removals().iter().map(|&at| Action::Remove { at }))
    }

    /// The turn in notation: `d6`, `a1-a4`, `g1xd2`, `f4-g4xb6`.
    pub fn to_notation(&self, topology: &Topology) -> String {
        let mut s = String::with_capacity(8);
        if let Some(from) = self.from {
            s.push_str(topology.name(from));
            s.push('-');
        }
        s.push_str(topology.name(self.to));
        for &r in self.removals() {
            s.push('x');
            s.push_str(topology.name(r));
        }
        s
    }
}

/// The capacity of a [`TurnList`]: more than the most legal turns any position of the
/// supported rule sets has. Nine Men's Morris: at most 36 steps × 9 removals = 324.
/// With a removal per mill, a flying side (at most four pieces, see
/// [`MAX_FLY_AT`](crate::MAX_FLY_AT)) closes one mill per step: at most 4 × 10 × 10;
/// long random games of every variant and option stay below 300. More pieces a side
/// (`pieces-N`) do not raise the bound with one removal a mill: with `e` empty points and
/// `b` opponent pieces, a side has at most `4e` steps (at most four neighbours a point,
/// or four flyers) and each earns at most `b` removal choices, where `e + b <= 21` on 24
/// points once a side moves (and `e × b <= 144` while it places): at most 441.
pub const MAX_TURNS: usize = 512;

/// The legal turns of a position, in a fixed-capacity list (move generation never
/// allocates).
pub type TurnList = ArrayVec<Turn, MAX_TURNS>;

//! Turn notation in two steps: text → [`Notation`] (syntax only, `FromStr` +
//! `Display`, round-trips), then [`Notation::to_turn`] resolves the point names
//! against a board. Whether the turn is legal is for
//! [`Position::play`](crate::Position::play) to say.

use crate::error::NotationError;
use crate::topology::Topology;
use crate::turn::{Action, MAX_REMOVALS, Turn};
use arrayvec::ArrayVec;
use core::fmt;
use core::str::FromStr;

/// A point name as written: a file letter and a rank digit, not yet checked against a
/// board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Square {
    file: u8,
    rank: u8,
}

impl Square {
    fn parse(s: &str) -> Option<Square> {
        match s.as_bytes() {
            [f @ b'a'..=b'z', r @ b'1'..=b'9'] => Some(Square {
                file: f - b'a',
                rank: r - b'1',
            }),
            _ => None,
        }
    }

    fn resolve(self, topology: &Topology) -> Result<crate::Point, NotationError> {
        topology
            .point_at(self.file, self.rank)
            .ok_or_else(|| NotationError::UnknownPoint(self.to_string()))
    }

    fn of(point: crate::Point, topology: &Topology) -> Square {
        let (file, rank) = topology.coords(point);
        Square { file, rank }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank + 1)
    }
}

/// A turn as written: `d6`, `a1-a4`, `g1xd2`, `f4-g4xb6`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Notation {
    from: Option<Square>,
    to: Square,
    removals: ArrayVec<Square, MAX_REMOVALS>,
}

impl Notation {
    /// Resolves the point names against `topology`.
    pub fn to_turn(&self, topology: &Topology) -> Result<Turn, NotationError> {
        let to = self.to.resolve(topology)?;
        let mut turn = match self.from {
            Some(from) => Turn::step(from.resolve(topology)?, to),
            None => Turn::place(to),
        };
        for r in &self.removals {
            turn = turn
                .with_removal(r.resolve(topology)?)
                .ok_or(NotationError::TooManyRemovals)?;
        }
        Ok(turn)
    }

    /// The notation of a turn on `topology`.
    pub fn from_turn(turn: &Turn, topology: &Topology) -> Notation {
        Notation {
            from: turn.from().map(|p| Square::of(p, topology)),
            to: Square::of(turn.to(), topology),
            removals: turn.removals().iter().map(|&p| Square::of(p, topology)).collect(),
        }
    }
}

impl FromStr for Notation {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Notation, NotationError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(NotationError::Empty);
        }
        let syntax = || NotationError::Syntax(text.to_string());
        let mut parts = text.split('x');
        let step = parts.next().ok_or_else(syntax)?;
        let (from, to) = match step.split_once('-') {
            Some((a, b)) => (Some(Square::parse(a).ok_or_else(syntax)?), b),
            None => (None, step),
        };
        let to = Square::parse(to).ok_or_else(syntax)?;
        let mut removals = ArrayVec::new();
        for r in parts {
            let square = Square::parse(r).ok_or_else(syntax)?;
            removals
                .try_push(square)
                .map_err(|_| NotationError::TooManyRemovals)?;
        }
        Ok(Notation { from, to, removals })
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to)?;
        for r in &self.removals {
            write!(f, "x{r}")?;
        }
        Ok(())
    }
}

impl Action {
    /// Reads an action's text (`d6`, `a1-a4`, `xd2`) on `topology`.
    pub fn parse(text: &str, topology: &Topology) -> Result<Action, NotationError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(NotationError::Empty);
        }
        let syntax = || NotationError::Syntax(text.to_string());
        if let Some(at) = text.strip_prefix('x') {
            let at = Square::parse(at).ok_or_else(syntax)?.resolve(topology)?;
            return Ok(Action::Remove { at });
        }
        let notation: Notation = text.parse()?;
        if !notation.removals.is_empty() {
            return Err(syntax());
        }
        Ok(notation.to_turn(topology)?.first_action())
    }
}

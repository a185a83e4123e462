//! How a game ends.

use crate::color::Color;
use core::fmt;

/// Why a side won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum WinReason {
    /// The loser had fewer than three pieces (board plus hand).
    Pieces,
    /// The loser, to move after placing, had no legal move.
    Blocked,
    /// The loser resigned.
    Resignation,
    /// The winner closed a line where that wins the game (Three Men's Morris).
    Mill,
}

/// Why the game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum DrawReason {
    /// The same position occurred for the third time.
    Threefold,
    /// 100 turns after placing without a removal.
    HundredTurns,
    /// Both players agreed.
    Agreement,
    /// Placing ended with every point taken (Twelve Men's Morris).
    BoardFull,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "lowercase"))]
pub enum Outcome {
    /// One side won.
    Win {
        /// The side that won.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

impl WinReason {
    /// The reason's short name: `pieces`, `blocked`, `resignation`, `mill`.
    pub const fn name(self) -> &'static str {
        match self {
            WinReason::Pieces => "pieces",
            WinReason::Blocked => "blocked",
            WinReason::Resignation => "resignation",
            WinReason::Mill => "mill",
        }
    }
}

impl DrawReason {
    /// The reason's short name: `threefold`, `hundred-turns`, `agreement`, `board-full`.
    pub const fn name(self) -> &'static str {
        match self {
            DrawReason::Threefold => "threefold",
            DrawReason::HundredTurns => "hundred-turns",
            DrawReason::Agreement => "agreement",
            DrawReason::BoardFull => "board-full",
        }
    }
}

impl Outcome {
    /// The winner, if the game was not drawn.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// The reason's short name, [`WinReason::name`] or [`DrawReason::name`].
    pub fn reason_name(self) -> &'static str {
        match self {
            Outcome::Win { reason, .. } => reason.name(),
            Outcome::Draw { reason } => reason.name(),
        }
    }
}

impl fmt::Display for Outcome {
    /// `light wins (pieces)`, `draw (threefold)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins ({})", reason.name()),
            Outcome::Draw { reason } => write!(f, "draw ({})", reason.name()),
        }
    }
}

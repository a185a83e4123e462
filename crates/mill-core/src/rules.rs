//! Rule sets as data: a board plus the numbers and options that vary between the
//! historical relatives of the game. Only [`Variant::Nine`] is playable today; the
//! rest of the crate reads every number from here.

use crate::topology::{MORRIS_24, Topology};

/// How many removals closing several mills with one piece earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemovalRule {
    /// One removal however many mills the piece closed (the standard rule).
    One,
    /// One removal per mill closed.
    PerMill,
}

/// A complete rule set.
#[derive(Debug)]
pub struct Rules {
    /// Short machine name, like `nine`.
    pub name: &'static str,
    /// The board.
    pub topology: &'static Topology,
    /// Pieces each side starts with in hand.
    pub pieces: u8,
    /// After placing, a side with this many pieces on the board or fewer flies
    /// (0: nobody flies).
    pub fly_at: u8,
    /// A side with fewer pieces than this (board plus hand) has lost.
    pub lose_below: u8,
    /// Removals earned by a piece that closes several mills at once.
    pub removals: RemovalRule,
    /// Whether pieces in mills are protected while the owner has pieces outside mills.
    pub protect_mills: bool,
    /// Turns without a removal, after placing, that draw the game.
    pub quiet_limit: u16,
    /// Occurrences of the same position that draw the game.
    pub repetitions: u8,
}

impl Rules {
    /// The board of this rule set.
    #[inline]
    pub fn topology(&self) -> &'static Topology {
        self.topology
    }

    /// Whether a position that has occurred `occurrences` times (see
    /// [`Position::occurrences`](crate::Position::occurrences)) draws the game.
    #[inline]
    pub fn repetition_draws(&self, occurrences: usize) -> bool {
        occurrences >= self.repetitions as usize
    }

    /// The most removals one turn can earn under these rules.
    pub fn max_removals(&self) -> u8 {
        match self.removals {
            RemovalRule::One => 1,
            RemovalRule::PerMill => crate::topology::MAX_LINES_THROUGH as u8,
        }
    }
}

/// Nine Men's Morris exactly as `RULES.md` has it.
pub static NINE: Rules = Rules {
    name: "nine",
    topology: &MORRIS_24,
    pieces: 9,
    fly_at: 3,
    lose_below: 3,
    removals: RemovalRule::One,
    protect_mills: true,
    quiet_limit: 100,
    repetitions: 3,
};

/// The rule sets a position can be played under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Variant {
    /// Nine Men's Morris, the default game.
    #[default]
    Nine,
}

impl Variant {
    /// The rule set of this variant.
    #[inline]
    pub fn rules(self) -> &'static Rules {
        match self {
            Variant::Nine => &NINE,
        }
    }
}

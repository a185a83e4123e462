//! How a game ends: by the board (a winning line, too few pieces, blockade, repetition,
//! quiet turns, a full board), or declared, which the board cannot show: a resignation,
//! an agreed draw, and the results a clock gives online (a side out of time, a side that
//! left, a round aborted before it began).

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
    /// The loser ran out of time on the clock (or let a correspondence turn's deadline
    /// pass).
    Timeout,
    /// The loser left the game and the winner, still present after the grace the clock
    /// allows, claimed it.
    Abandoned,
    /// The board filled up under rules where a full board loses for Light (MIF's
    /// `white-loses`; never under the server's rules).
    BoardFull,
    /// The loser had pieces to place and no empty point (more pieces than half the
    /// points; never under the server's rules).
    NoPlacement,
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
    /// One side left the game and the other, still present after the grace the clock
    /// allows, called it a draw.
    Abandoned,
    /// The side to move had pieces to place and no empty point, under rules where that
    /// draws (never under the server's rules).
    NoPlacement,
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
    /// The round was called off before it began: the side to move did not make its
    /// first turn in the time the clock allows. No winner, and not a draw either.
    Aborted,
}

impl WinReason {
    /// Every reason, in the order of the variants.
    pub const ALL: [WinReason; 8] = [
        WinReason::Pieces,
        WinReason::Blocked,
        WinReason::Resignation,
        WinReason::Mill,
        WinReason::Timeout,
        WinReason::Abandoned,
        WinReason::BoardFull,
        WinReason::NoPlacement,
    ];

    /// The reason's short name: `pieces`, `blocked`, `resignation`, `mill`, `timeout`,
    /// `abandoned`, `board-full`, `no-placement`.
    pub const fn name(self) -> &'static str {
        match self {
            WinReason::Pieces => "pieces",
            WinReason::Blocked => "blocked",
            WinReason::Resignation => "resignation",
            WinReason::Mill => "mill",
            WinReason::Timeout => "timeout",
            WinReason::Abandoned => "abandoned",
            WinReason::BoardFull => "board-full",
            WinReason::NoPlacement => "no-placement",
        }
    }

    /// Whether a game ends this way only when someone says so: the board cannot show
    /// it ([`Game::declare`](crate::Game::declare) sets it).
    pub const fn is_declared(self) -> bool {
        match self {
            WinReason::Pieces
            | WinReason::Blocked
            | WinReason::Mill
            | WinReason::BoardFull
            | WinReason::NoPlacement => false,
            WinReason::Resignation | WinReason::Timeout | WinReason::Abandoned => true,
        }
    }
}

impl DrawReason {
    /// Every reason, in the order of the variants.
    pub const ALL: [DrawReason; 6] = [
        DrawReason::Threefold,
        DrawReason::HundredTurns,
        DrawReason::Agreement,
        DrawReason::BoardFull,
        DrawReason::Abandoned,
        DrawReason::NoPlacement,
    ];

    /// The reason's short name: `threefold`, `hundred-turns`, `agreement`, `board-full`,
    /// `abandoned`, `no-placement`.
    pub const fn name(self) -> &'static str {
        match self {
            DrawReason::Threefold => "threefold",
            DrawReason::HundredTurns => "hundred-turns",
            DrawReason::Agreement => "agreement",
            DrawReason::BoardFull => "board-full",
            DrawReason::Abandoned => "abandoned",
            DrawReason::NoPlacement => "no-placement",
        }
    }

    /// Whether a game ends this way only when someone says so (see
    /// [`WinReason::is_declared`]).
    pub const fn is_declared(self) -> bool {
        match self {
            DrawReason::Threefold
            | DrawReason::HundredTurns
            | DrawReason::BoardFull
            | DrawReason::NoPlacement => false,
            DrawReason::Agreement | DrawReason::Abandoned => true,
        }
    }
}

impl Outcome {
    /// The name of [`Outcome::Aborted`]'s reason on the wire and in records.
    pub const ABORTED: &'static str = "aborted";

    /// The winner, if the game was not drawn or aborted.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } | Outcome::Aborted => None,
        }
    }

    /// The reason's short name, [`WinReason::name`] or [`DrawReason::name`], or
    /// `aborted`.
    pub fn reason_name(self) -> &'static str {
        match self {
            Outcome::Win { reason, .. } => reason.name(),
            Outcome::Draw { reason } => reason.name(),
            Outcome::Aborted => Outcome::ABORTED,
        }
    }

    /// Whether only a declaration ends a game this way, never the board: a resignation,
    /// an agreed draw, a timeout, an abandoned game (won or drawn), an abort.
    pub fn is_declared(self) -> bool {
        match self {
            Outcome::Win { reason, .. } => reason.is_declared(),
            Outcome::Draw { reason } => reason.is_declared(),
            Outcome::Aborted => true,
        }
    }

    /// The outcome a winner (`None` for none) and a reason's name describe, as the
    /// server's `result` and the page's records write it: `(Some(light), "timeout")`,
    /// `(None, "agreement")`, `(None, "aborted")`. `None` when they do not make one
    /// (a win reason without a winner, a draw reason with one, an unknown name).
    pub fn from_names(winner: Option<Color>, reason: &str) -> Option<Outcome> {
        match winner {
            Some(winner) => WinReason::ALL
                .into_iter()
                .find(|r| r.name() == reason)
                .map(|reason| Outcome::Win { winner, reason }),
            None if reason == Outcome::ABORTED => Some(Outcome::Aborted),
            None => DrawReason::ALL
                .into_iter()
                .find(|r| r.name() == reason)
                .map(|reason| Outcome::Draw { reason }),
        }
    }
}

impl fmt::Display for Outcome {
    /// `light wins (pieces)`, `draw (threefold)`, `aborted`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins ({})", reason.name()),
            Outcome::Draw { reason } => write!(f, "draw ({})", reason.name()),
            Outcome::Aborted => f.write_str(Outcome::ABORTED),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_outcome() -> Vec<Outcome> {
        let wins = Color::ALL
            .into_iter()
            .flat_map(|winner| WinReason::ALL.map(|reason| Outcome::Win { winner, reason }));
        let draws = DrawReason::ALL.map(|reason| Outcome::Draw { reason });
        wins.chain(draws).chain([Outcome::Aborted]).collect()
    }

    #[test]
    fn every_outcome_is_read_back_from_its_winner_and_reason_name() {
        for o in every_outcome() {
            assert_eq!(Outcome::from_names(o.winner(), o.reason_name()), Some(o), "{o}");
        }
        assert_eq!(
            Outcome::from_names(None, "timeout"),
            None,
            "a timeout has a winner"
        );
        assert_eq!(Outcome::from_names(Some(Color::Dark), "agreement"), None);
        assert_eq!(Outcome::from_names(Some(Color::Dark), "aborted"), None);
        assert_eq!(Outcome::from_names(None, "castled"), None);
    }

    #[test]
    fn the_clock_results_keep_their_wire_names() {
        assert_eq!(WinReason::Timeout.name(), "timeout");
        assert_eq!(WinReason::Abandoned.name(), "abandoned");
        assert_eq!(DrawReason::Abandoned.name(), "abandoned");
        assert_eq!(Outcome::Aborted.reason_name(), "aborted");
        assert_eq!(Outcome::Aborted.winner(), None);
        assert_eq!(Outcome::Aborted.to_string(), "aborted");
        // The older names are unchanged.
        let old: Vec<_> = every_outcome()
            .into_iter()
            .filter(|o| !o.is_declared() || matches!(o.reason_name(), "resignation" | "agreement"))
            .map(Outcome::reason_name)
            .collect();
        for name in [
            "pieces",
            "blocked",
            "resignation",
            "mill",
            "threefold",
            "hundred-turns",
            "agreement",
            "board-full",
        ] {
            assert!(old.contains(&name), "{name}");
        }
    }

    #[test]
    fn declared_results_are_the_ones_the_board_cannot_reach() {
        let declared: Vec<_> = every_outcome()
            .into_iter()
            .filter(|o| o.is_declared())
            .map(|o| (o.winner().is_some(), o.reason_name()))
            .collect();
        assert_eq!(
            declared,
            [
                (true, "resignation"),
                (true, "timeout"),
                (true, "abandoned"),
                (true, "resignation"),
                (true, "timeout"),
                (true, "abandoned"),
                (false, "agreement"),
                (false, "abandoned"),
                (false, "aborted"),
            ]
        );
    }
}

//! Why a turn, an action or a position string was refused.

use core::fmt;

/// Why an action or a turn cannot be played. The position is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayError {
    /// The game is already over.
    GameOver,
    /// The side to move closed a mill and must remove an opponent piece first.
    RemovalPending,
    /// A removal was asked for, but no mill was closed this turn.
    NoRemovalPending,
    /// The target point already holds a piece.
    Occupied,
    /// There is no piece on the point to move or remove.
    Empty,
    /// The piece to move belongs to the opponent.
    NotYourPiece,
    /// The target is not next to the piece along a line (and the side is not flying).
    NotAdjacent,
    /// The side still has pieces in hand, so it must place, not move.
    StillPlacing,
    /// The side has nothing left in hand, so it must move, not place.
    NothingInHand,
    /// Only an opponent's piece may be removed.
    NotOpponentPiece,
    /// The piece stands in a mill while the opponent still has pieces outside mills.
    Protected,
    /// The turn closes a mill but names fewer removals than it earned.
    RemovalMissing,
    /// The turn names a removal it did not earn.
    UnexpectedRemoval,
    /// The point does not exist on this board.
    OffBoard,
    /// A result the board decides (a winning line, blockade, repetition, …) cannot be
    /// declared: only the board reaches it.
    NotDeclared,
    /// A draw was claimed that the side to move may not claim now (the rules do not
    /// provide for claiming it, or its condition does not hold).
    NothingToClaim,
}

impl PlayError {
    /// A stable machine-readable code, like `not-adjacent`.
    pub const fn code(self) -> &'static str {
        match self {
            PlayError::GameOver => "game-over",
            PlayError::RemovalPending => "removal-pending",
            PlayError::NoRemovalPending => "no-removal-pending",
            PlayError::Occupied => "occupied",
            PlayError::Empty => "empty-point",
            PlayError::NotYourPiece => "not-your-piece",
            PlayError::NotAdjacent => "not-adjacent",
            PlayError::StillPlacing => "still-placing",
            PlayError::NothingInHand => "nothing-in-hand",
            PlayError::NotOpponentPiece => "not-opponent-piece",
            PlayError::Protected => "protected",
            PlayError::RemovalMissing => "removal-missing",
            PlayError::UnexpectedRemoval => "unexpected-removal",
            PlayError::OffBoard => "off-board",
            PlayError::NotDeclared => "not-declared",
            PlayError::NothingToClaim => "nothing-to-claim",
        }
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::GameOver => "the game is over",
            PlayError::RemovalPending => "a mill was closed: remove an opponent piece first",
            PlayError::NoRemovalPending => "no mill was closed, so there is nothing to remove",
            PlayError::Occupied => "that point is already taken",
            PlayError::Empty => "there is no piece on that point",
            PlayError::NotYourPiece => "that piece is not yours",
            PlayError::NotAdjacent => "a piece moves only to a neighbouring point along a line",
            PlayError::StillPlacing => "pieces cannot move while you still have pieces to place",
            PlayError::NothingInHand => "all your pieces are placed: move one instead",
            PlayError::NotOpponentPiece => "only an opponent's piece can be removed",
            PlayError::Protected => "that piece stands in a mill and other pieces can be removed",
            PlayError::RemovalMissing => "the turn closes a mill and must remove an opponent piece",
            PlayError::UnexpectedRemoval => "the turn closes no mill, so it removes nothing",
            PlayError::OffBoard => "that point is not on the board",
            PlayError::NotDeclared => "the board decides this result; it cannot be declared",
            PlayError::NothingToClaim => "there is no such draw to claim now",
        })
    }
}

impl std::error::Error for PlayError {}

/// Why a position string was refused: one variant per part of the string, then one per
/// inconsistency between the parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The string does not have six or seven space-separated parts.
    FieldCount(usize),
    /// The seventh part is not a rule set (`six`, `twelve+per-mill`, …).
    Rules(crate::RulesError),
    /// The seventh part names other rules than the string is read under.
    OtherRules {
        /// The rules the caller reads the string under.
        expected: crate::Rules,
        /// The rules the string names.
        found: crate::Rules,
    },
    /// The board part has the wrong number of `/`-separated ranks.
    RankCount {
        /// Ranks the board has.
        expected: usize,
        /// Ranks found.
        found: usize,
    },
    /// A rank has the wrong number of points.
    RankLength {
        /// The rank's number (1 at the bottom).
        rank: u8,
        /// Points on that rank.
        expected: usize,
        /// Characters found.
        found: usize,
    },
    /// A board character other than `L`, `D` or `.`.
    BoardChar(char),
    /// The side to move is not `l` or `d`.
    Turn(String),
    /// Light's pieces in hand are not a number.
    LightHand(String),
    /// Dark's pieces in hand are not a number.
    DarkHand(String),
    /// The pending removals are not a number.
    Pending(String),
    /// The quiet-turn count is not a number.
    Quiet(String),
    /// A side has more pieces (board plus hand) than the rules give it.
    TooManyPieces(crate::Color),
    /// A removal is pending but the side to move has no mill, or more removals are
    /// pending than one turn can earn or the opponent has pieces on the board.
    ImpossiblePending,
    /// A quiet-turn count above the limit of an automatic no-progress draw.
    ImpossibleQuiet,
    /// Where a closed line wins, the side to move stands in one (the game would have
    /// ended before its turn).
    ImpossibleLine,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::FieldCount(n) => write!(
                f,
                "a position has six parts (board, side to move, light in hand, dark in hand, pending removals, quiet turns) and a seventh naming the rule set unless it is nine, found {n}"
            ),
            PositionError::Rules(e) => write!(f, "the rule set (seventh part): {e}"),
            PositionError::OtherRules { expected, found } => {
                write!(f, "the position is played under {found}, not {expected}")
            }
            PositionError::RankCount { expected, found } => {
                write!(
                    f,
                    "the board has {expected} ranks separated by '/', found {found}"
                )
            }
            PositionError::RankLength {
                rank,
                expected,
                found,
            } => {
                write!(f, "rank {rank} has {expected} points, found {found}")
            }
            PositionError::BoardChar(c) => write!(f, "unexpected board character {c:?}: use L, D or ."),
            PositionError::Turn(s) => write!(f, "side to move must be 'l' or 'd', found {s:?}"),
            PositionError::LightHand(s) => write!(f, "light's pieces in hand must be a number, found {s:?}"),
            PositionError::DarkHand(s) => write!(f, "dark's pieces in hand must be a number, found {s:?}"),
            PositionError::Pending(s) => write!(f, "pending removals must be a number, found {s:?}"),
            PositionError::Quiet(s) => write!(f, "quiet turns must be a number, found {s:?}"),
            PositionError::TooManyPieces(c) => write!(f, "{c} has more pieces than the rules give"),
            PositionError::ImpossiblePending => f.write_str(
                "a pending removal needs a mill of the side to move and an opponent piece on the board",
            ),
            PositionError::ImpossibleQuiet => {
                f.write_str("the quiet-turn count never exceeds the limit of an automatic draw")
            }
            PositionError::ImpossibleLine => {
                f.write_str("a closed line wins under these rules, so the side to move cannot stand in one")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a turn or action text could not be read (syntax only; legality is
/// [`PlayError`]'s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is empty.
    Empty,
    /// The text is not of the form `d6`, `a1-a4`, `g1xd2`, `f4-g4xb6` (or `xd2` for an action).
    Syntax(String),
    /// A point name that the board does not have.
    UnknownPoint(String),
    /// More removals than any turn can carry.
    TooManyRemovals,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Empty => f.write_str("empty turn"),
            NotationError::Syntax(s) => write!(f, "{s:?} is not a turn: write d6, a1-a4, g1xd2 or f4-g4xb6"),
            NotationError::UnknownPoint(s) => write!(f, "{s:?} is not a point of the board"),
            NotationError::TooManyRemovals => f.write_str("too many removals in one turn"),
        }
    }
}

impl std::error::Error for NotationError {}

#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bitboard;
mod color;
mod error;
mod game;
pub mod mfen;
mod notation;
mod outcome;
pub mod perft;
mod position;
pub mod record;
mod rules;
mod topology;
mod turn;
#[cfg(feature = "serde")]
pub mod view;

pub use bitboard::{Bitboard, Point, Points};
pub use color::{ByColor, Color};
pub use error::{NotationError, PlayError, PositionError};
pub use game::Game;
pub use mfen::{Mfen, MfenError};
pub use notation::{Notation, Square};
pub use outcome::{DrawReason, Outcome, WinReason};
pub use position::{EarlierOccurrences, Phase, Position};
pub use record::{Header, Record, RecordError};
pub use rules::{
    BoardFull, DrawBy, MAX_EXTENDED, MAX_FLY_AT, MAX_PIECES, MIN_PIECES, NINE, NoPlacement, Options,
    RemovalRule, Rules, RulesError, Variant,
};
pub use topology::{
    MAX_LINES, MAX_LINES_THROUGH, MAX_POINTS, MORRIS_9, MORRIS_16, MORRIS_24, MORRIS_24_CONST,
    MORRIS_24_DIAGONALS, Topology,
};
pub use turn::{Action, MAX_REMOVALS, MAX_TURNS, Turn, TurnList};

//! The computer opponent for Nine Men's Morris, on top of [`mill_core`].
//!
//! An iterative-deepening principal-variation search with aspiration windows, a
//! transposition table, move ordering (table turn, mill closings, blocks, threats,
//! killers, history), late-move reductions and pruning, and an evaluation that knows
//! the phases. Five [`Level`]s: Beginner (rules of thumb, no search), Easy, Medium,
//! Hard, and Perfect (the whole game's table where there is one, else Hard). See the
//! crate's README.md.
//!
//! ```
//! use mill_core::Game;
//! use mill_engine::{Engine, Level, Limits, NoClock};
//!
//! let mut engine = Engine::new(1); // a 1 MB transposition table
//! let game = Game::default();
//! let limits = Limits::new(Level::Medium, 7).with_depth(3);
//! let result = engine.best_turn(&game, &limits, &mut NoClock).unwrap();
//! assert!(game.legal_turns().contains(&result.turn));
//! ```
//!
//! # Time
//!
//! The search never reads a clock itself: it asks a [`Clock`] for the milliseconds
//! elapsed since the search started, every 1024 nodes. Natively that is [`StdClock`];
//! in WebAssembly the caller passes a closure over `performance.now()` (any
//! `FnMut() -> u64` is a clock). [`NoClock`] never advances: with it, or with only depth
//! and node limits, a search is fully deterministic.
//!
//! # Determinism
//!
//! Given the same position, history, [`Limits`] (seed included) and no time limit, the
//! result is the same on every machine: every search starts from a logically empty
//! table, and all randomness comes from the seed. A time limit makes the depth reached,
//! and so possibly the turn, depend on the machine's speed.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod analysis;
mod beginner;
mod eval;
pub mod puzzles;
mod search;
pub mod tb;
mod tt;

pub use analysis::{Analysis, VALUE_SCALE, analyse};
pub use eval::evaluate;
pub use search::{Engine, SearchError, SearchResult};

use core::fmt;
use core::str::FromStr;

/// The score of a win found at the root: a win in `n` turns from the root scores
/// `MATE - n` (and a loss `-(MATE - n)`), so the engine prefers faster wins and slower
/// losses. Scores of ordinary positions stay far below [`MATE_BOUND`].
pub const MATE: i32 = 30_000;
/// Scores at or beyond this magnitude are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// The value of one piece in evaluation units.
pub const PIECE: i32 = 100;

/// How strong the computer plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// No search: closes a mill when it can (removing a random piece), else blocks an
    /// opponent's line of two, else plays a random legal turn. Seeded.
    Beginner,
    /// A short search whose choice is blurred by noise: legal, sensible-looking turns
    /// with real mistakes, so a beginner can win.
    Easy,
    /// A limited-depth search with a little noise: a solid club player.
    Medium,
    /// As deep as the time allows, with just enough noise to vary among equal turns.
    Hard,
    /// Perfect play from the whole game's table where there is one (Three Men's Morris:
    /// [`tb::Whole`]): keeps a win by the shortest way, holds a draw, loses by the
    /// longest, the hundred turns and repetition as the game counts them. Elsewhere it
    /// plays as Hard.
    Perfect,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [
        Level::Beginner,
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Perfect,
    ];

    /// The level's name: `beginner`, `easy`, `medium`, `hard`, `perfect`.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Perfect => "perfect",
        }
    }

    /// The level a search plays as: Perfect outside its table is Hard.
    pub(crate) const fn searching(self) -> Level {
        match self {
            Level::Perfect => Level::Hard,
            other => other,
        }
    }

    /// The deepest the level ever searches, in turns (whatever the limits say).
    pub const fn max_depth(self) -> u32 {
        match self {
            Level::Beginner => 1,
            Level::Easy => 2,
            Level::Medium => 4,
            Level::Hard | Level::Perfect => search::MAX_DEPTH,
        }
    }

    /// The time the level takes by default, in milliseconds (a safety cap for Easy and
    /// Medium, which normally stop at their depth long before).
    pub const fn default_movetime_ms(self) -> u64 {
        1000
    }

    /// The evaluation's weights: Hard's value room to move far more (see
    /// [`eval::Weights`]).
    pub(crate) const fn weights(self) -> eval::Weights {
        match self {
            Level::Hard | Level::Perfect => eval::Weights::HARD,
            _ => eval::Weights::CLASSIC,
        }
    }

    /// Half-width of the noise added to every evaluation, which varies the choice among
    /// near-equal turns from one seed to another.
    pub(crate) const fn eval_noise(self) -> i32 {
        match self {
            Level::Beginner | Level::Easy => 10,
            Level::Medium => 6,
            Level::Hard | Level::Perfect => 2,
        }
    }

    /// What a repetition is worth less than even for the side that searches. Hard's
    /// 120 is three steps of room while moving on its weights ([`eval::Weights::HARD`]):
    /// it plays on rather than repeat unless that costs about a piece. (Against
    /// Sanmill's engine at ~0.1 s, 50 games each: 30 scored 66 %, 120 70 %, 250 62 %;
    /// docs/PERFORMANCE.md.)
    pub const fn contempt(self) -> i32 {
        match self {
            Level::Hard | Level::Perfect => 120,
            _ => 0,
        }
    }

    /// Half-width of the noise added to every root turn's exact score (0: the best
    /// turn is played). Easy's misjudgements come from here.
    pub(crate) const fn root_noise(self) -> i32 {
        match self {
            Level::Beginner | Level::Easy => 100,
            Level::Medium | Level::Hard | Level::Perfect => 0,
        }
    }

    /// Percent chance that the level overlooks a given placement or step this turn
    /// (with all its removals), as a beginner does not see every point.
    pub(crate) const fn blind_percent(self) -> u64 {
        match self {
            Level::Beginner | Level::Easy => 30,
            Level::Medium | Level::Hard | Level::Perfect => 0,
        }
    }

    /// Percent chance that the level looks only at its own turn, not at the replies:
    /// it then misses the opponent's threats.
    pub(crate) const fn shallow_percent(self) -> u64 {
        match self {
            Level::Beginner | Level::Easy => 40,
            Level::Medium | Level::Hard | Level::Perfect => 0,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `beginner`, `easy`, `medium`, `hard` or `perfect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError(pub String);

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown level {:?}: expected beginner, easy, medium, hard or perfect",
            self.0
        )
    }
}

impl std::error::Error for ParseLevelError {}

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        match s.to_ascii_lowercase().as_str() {
            "beginner" => Ok(Level::Beginner),
            "easy" => Ok(Level::Easy),
            "medium" => Ok(Level::Medium),
            "hard" => Ok(Level::Hard),
            "perfect" => Ok(Level::Perfect),
            _ => Err(ParseLevelError(s.to_string())),
        }
    }
}

/// What one search may spend, and how it plays.
///
/// The search stops at the first limit reached; the level caps the depth in any case
/// ([`Level::max_depth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The level.
    pub level: Level,
    /// Time for the turn in milliseconds, measured by the [`Clock`] (`None`: no limit).
    pub movetime_ms: Option<u64>,
    /// The deepest iteration, in turns (`None`: the level's depth).
    pub depth: Option<u32>,
    /// Nodes (positions visited) before stopping, checked every 1024 nodes.
    pub nodes: Option<u64>,
    /// The seed of every random choice.
    pub seed: u64,
}

impl Limits {
    /// The level's defaults: its depth and [`Level::default_movetime_ms`].
    pub fn new(level: Level, seed: u64) -> Limits {
        Limits {
            level,
            movetime_ms: Some(level.default_movetime_ms()),
            depth: None,
            nodes: None,
            seed,
        }
    }

    /// These limits with the time set (`None`: no time limit).
    pub fn with_movetime(mut self, ms: Option<u64>) -> Limits {
        self.movetime_ms = ms;
        self
    }

    /// These limits with a depth limit and no time limit: deterministic.
    pub fn with_depth(mut self, depth: u32) -> Limits {
        self.depth = Some(depth);
        self.movetime_ms = None;
        self
    }

    /// These limits with a node limit and no time limit: deterministic.
    pub fn with_nodes(mut self, nodes: u64) -> Limits {
        self.nodes = Some(nodes);
        self.movetime_ms = None;
        self
    }
}

/// Where the search reads the time: milliseconds elapsed since the search started.
///
/// Any `FnMut() -> u64` closure is a clock, e.g. in WebAssembly
/// `move || (performance.now() - start) as u64`.
pub trait Clock {
    /// Milliseconds since the search started.
    fn elapsed_ms(&mut self) -> u64;
}

impl<F: FnMut() -> u64> Clock for F {
    fn elapsed_ms(&mut self) -> u64 {
        self()
    }
}

/// A clock that never advances: only depth and node limits apply.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoClock;

impl Clock for NoClock {
    fn elapsed_ms(&mut self) -> u64 {
        0
    }
}

/// The native clock (`std::time::Instant`), started when created. Not available in
/// WebAssembly, where `Instant` does not work: pass a closure there.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug)]
pub struct StdClock(std::time::Instant);

#[cfg(not(target_arch = "wasm32"))]
impl StdClock {
    /// A clock starting now.
    pub fn start() -> StdClock {
        StdClock(std::time::Instant::now())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for StdClock {
    fn elapsed_ms(&mut self) -> u64 {
        self.0.elapsed().as_millis() as u64
    }
}

/// SplitMix64: the seeded randomness of the engine (noise, Easy's choices).
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

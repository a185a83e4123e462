//! The rules of Mill for the browser page.
//!
//! This crate owns the boundary between `mill-core` and the page's JavaScript: a
//! [`WasmGame`] wrapping [`mill_core::Game`], whose methods take and return plain strings
//! (JSON). The page holds no rules of its own: every legal point it highlights comes from
//! [`WasmGame::snapshot`], and every action it sends goes through [`WasmGame::play`].
//!
//! Everything here is ordinary Rust that also builds for the host, so the JSON layer is
//! unit-tested with `cargo test -p mill-wasm`; only the `#[wasm_bindgen]` glue is
//! browser-specific. Errors never panic or throw: they come back as
//! `{"ok":false,"error":{"code":…,"message":…}}` and leave the game unchanged.
//!
//! With the default features (`engine`, `records`) this is the full build; without them, the
//! page's small first build (see scripts/build-wasm and crates/mill-wasm/Cargo.toml).
//!
//! The computer opponent (`mill-engine`) is here too: [`best_turn`] answers a search
//! request for the page's Web Worker (see the `engine` module), and [`analyse`] (by time) or
//! [`analyse_nodes`] (by a fixed budget of nodes, what review uses) judges
//! one position of a game for review (the `analysis` module).
//!
//! The JSON shapes are documented in `static/js/README.md` (the page side of the contract).

use std::collections::BTreeMap;
use std::fmt;

use mill_core::view::GameView;
use mill_core::{
    Action, Bitboard, Color, Game, NotationError, Outcome, PlayError, Position, Rules, Topology, Variant,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

#[cfg(feature = "engine")]
mod analysis;
#[cfg(feature = "engine")]
pub use analysis::{analyse, analyse_nodes};
#[cfg(feature = "engine")]
mod engine;
#[cfg(feature = "engine")]
pub use engine::best_turn;
#[cfg(feature = "records")]
mod records;
#[cfg(feature = "records")]
pub use records::convert_position;
#[cfg(feature = "engine")]
mod tables;
#[cfg(feature = "engine")]
pub use tables::{load_placing, load_tablebase, tablebase_wanted};
mod variants;
pub use variants::{rules_info, variants};

/// A game of Mill as the page sees it.
#[wasm_bindgen]
#[derive(Clone)]
pub struct WasmGame {
    game: Game,
    /// The placements and moves behind the start, when it was read from MFEN or an
    /// MSTATE (which carry that count); otherwise the smallest count that fits is written.
    start_ply: Option<u64>,
}

impl fmt::Debug for WasmGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WasmGame")
            .field("start", &self.game.start().to_string())
            .field("position", &self.game.position().to_string())
            .field("actions", &self.game.actions().len())
            .finish()
    }
}

impl Default for WasmGame {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl WasmGame {
    /// A new game of Nine Men's Morris from the start position.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmGame {
        WasmGame {
            game: Game::new(Variant::Nine),
            start_ply: None,
        }
    }

    /// The board graph as JSON: points (name, file, rank), segments, neighbours, mill lines.
    pub fn topology(&self) -> String {
        topology_json(self.game.position().topology())
    }

    /// Everything the page draws, as JSON: mill-core's [`GameView`], the same snapshot
    /// the server sends in its `state` message (docs/PROTOCOL.md).
    pub fn snapshot(&self) -> String {
        to_json(&GameView::of(&self.game))
    }

    /// Plays one action in its text form (`"d6"`, `"a1-a4"`, `"xd2"`).
    /// Returns `{"ok":true}` or `{"ok":false,"error":{…}}`; on error nothing changes.
    pub fn play(&mut self, action: &str) -> String {
        let topology = self.game.position().topology();
        let result = Action::parse(action.trim(), topology)
            .map_err(Failure::unreadable)
            .and_then(|a| {
                self.game
                    .play_action(a)
                    .map_err(|e| Failure::new(e.code(), e.to_string()))
            });
        reply(result)
    }

    /// Takes back the last action. Returns whether there was one to take back.
    pub fn undo(&mut self) -> bool {
        self.game.undo()
    }

    /// Starts over from the position this game started from.
    pub fn restart(&mut self) {
        self.game = Game::from_position(*self.game.start());
    }

    /// Replaces the game with a new one starting from a position string.
    /// Returns `{"ok":true}` or an error with code `bad-position`; on error nothing changes.
    pub fn load_position(&mut self, text: &str) -> String {
        let result = parse_position(text).map(|start| self.replace(Game::from_position(start), None));
        reply(result)
    }

    /// The game as JSON: `{"start": "<position string>", "actions": ["d6", "a1-a4", "xd2", …]}`.
    /// Actions rather than turns, so a turn waiting for its removal survives a reload. A
    /// game ended by a declared result (a resignation, an agreed draw, a timeout, …), also
    /// has `"result": {"winner": "light" | "dark" | null, "reason": …}`.
    pub fn export_record(&self) -> String {
        let topology = self.game.position().topology();
        let declared = self.game.outcome().filter(|o| o.is_declared());
        let record = Record {
            start: self.game.start().to_string(),
            actions: self.game.actions().iter().map(|a| a.to_text(topology)).collect(),
            result: declared.map(|o| ResultJson {
                winner: o.winner(),
                reason: o.reason_name().to_string(),
            }),
        };
        to_json(&record)
    }

    /// Replaces the game with one replayed from [`WasmGame::export_record`]'s JSON, or
    /// from a round record of the server's (the same `start`, `actions` and `result`).
    /// Every action is checked, and the result must be the board's or a declared one
    /// (resignation, agreement, timeout, …) the board has not overtaken; on any error (code `bad-record`, naming
    /// the action or the result) the game is unchanged.
    pub fn import_record(&mut self, json: &str) -> String {
        reply(self.replay(json).map(|game| self.replace(game, None)))
    }

    /// The count of placements and moves behind the start when the text the game came
    /// from said it (MFEN, MSTATE), else undefined: with [`WasmGame::set_start_ply`] it
    /// carries a game between the page's small build and the full one (rules.js).
    pub fn start_ply_read(&self) -> Option<f64> {
        self.start_ply.map(|n| n as f64)
    }

    /// Sets what [`WasmGame::start_ply_read`] answers; a negative, fractional or
    /// non-finite count is taken as unknown.
    pub fn set_start_ply(&mut self, ply: Option<f64>) {
        self.start_ply = ply
            .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= 9.0e15)
            .map(|n| n as u64);
    }
}

impl WasmGame {
    /// Replaces the game, with the count of placements and moves behind its start when
    /// the text it came from said it.
    pub(crate) fn replace(&mut self, game: Game, start_ply: Option<u64>) {
        self.game = game;
        self.start_ply = start_ply;
    }

    /// The placements and moves behind the start: as read, else the smallest that fits.
    #[cfg(feature = "records")]
    pub(crate) fn start_ply(&self) -> u64 {
        self.start_ply
            .unwrap_or_else(|| mill_core::Mfen::from_position(self.game.start()).primary_ply)
    }

    /// The wrapped game, for Rust callers (the engine's helpers, tests).
    pub fn game(&self) -> &Game {
        &self.game
    }

    fn replay(&self, json: &str) -> Result<Game, Failure> {
        let record: Record = serde_json::from_str(json)
            .map_err(|e| Failure::new("bad-record", format!("The saved game is not readable: {e}")))?;
        let start = parse_position(&record.start)?;
        let mut game = Game::from_position(start);
        let topology = start.topology();
        for (i, text) in record.actions.iter().enumerate() {
            let action = Action::parse(text, topology)
                .map_err(|e| Failure::new("bad-record", format!("Action {} ({text:?}): {e}", i + 1)))?;
            game.play_action(action)
                .map_err(|e| Failure::new("bad-record", format!("Action {} ({text:?}): {e}", i + 1)))?;
        }
        if let Some(result) = &record.result {
            declare(&mut game, result)?;
        }
        Ok(game)
    }
}

fn parse_position(text: &str) -> Result<Position, Failure> {
    let position = text
        .trim()
        .parse::<Position>()
        .map_err(|e| Failure::new("bad-position", format!("Not a valid position: {e}")))?;
    offered(position.rules()).map_err(|message| Failure::new("bad-rules", message))?;
    Ok(position)
}

/// `rules`, if the page plays them: the rule sets of mill-core's table, not those with
/// its extended options (other piece counts, draws by claim, …), which mill-core plays
/// for MIF games but the page does not offer. Else why not, in words.
pub(crate) fn offered(rules: Rules) -> Result<&'static Rules, String> {
    Rules::of_table(rules.variant, rules.options()).map_err(|_| {
        format!("{rules} is not played on this page: only variants with their usual pieces, draws and full-board rule")
    })
}

/// The board graph, as the page draws it.
pub fn topology_json(t: &Topology) -> String {
    #[derive(Serialize)]
    struct PointJson {
        name: &'static str,
        file: u8,
        rank: u8,
    }
    #[derive(Serialize)]
    struct TopologyJson {
        files: u8,
        ranks: u8,
        points: Vec<PointJson>,
        segments: Vec<[&'static str; 2]>,
        neighbours: BTreeMap<&'static str, Vec<&'static str>>,
        lines: Vec<Vec<&'static str>>,
    }
    let points: Vec<PointJson> = t
        .points()
        .map(|p| {
            let (file, rank) = t.coords(p);
            PointJson {
                name: t.name(p),
                file,
                rank,
            }
        })
        .collect();
    let json = TopologyJson {
        files: points.iter().map(|p| p.file + 1).max().unwrap_or(0),
        ranks: points.iter().map(|p| p.rank + 1).max().unwrap_or(0),
        segments: t.segments().map(|(a, b)| [t.name(a), t.name(b)]).collect(),
        neighbours: t
            .points()
            .map(|p| (t.name(p), names(t, t.neighbours(p))))
            .collect(),
        lines: t.lines().iter().map(|&line| names(t, line)).collect(),
        points,
    };
    to_json(&json)
}

fn names(t: &Topology, points: Bitboard) -> Vec<&'static str> {
    points.iter().map(|p| t.name(p)).collect()
}

/// A saved game: the start position and every action since, and the result when the
/// board does not show it (a resignation, an agreed draw, a timeout, …).
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    start: String,
    actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<ResultJson>,
}

/// A result as the server's `result` field and round records write it (docs/PROTOCOL.md).
#[derive(Debug, Serialize, Deserialize)]
struct ResultJson {
    winner: Option<Color>,
    reason: String,
}

/// Ends `game` as `result` says: a declared result (resignation, agreement, timeout, …) is declared; any other
/// result must be the one the board already has.
fn declare(game: &mut Game, result: &ResultJson) -> Result<(), Failure> {
    let bad = |why: String| Failure::new("bad-record", format!("The result: {why}"));
    if let Some(outcome) = game.outcome() {
        return if outcome.winner() == result.winner && outcome.reason_name() == result.reason {
            Ok(())
        } else {
            Err(bad(format!("the game ended {outcome}, not as it says")))
        };
    }
    // A declared result: a resignation, an agreed draw, or one of an online clock's.
    let Some(outcome) = Outcome::from_names(result.winner, &result.reason).filter(|o| o.is_declared()) else {
        return Err(bad(format!(
            "{:?} is not how this game ended: it is not over on the board",
            result.reason
        )));
    };
    game.declare(outcome).map_err(|e| bad(e.to_string()))
}

/// An error for the page: a stable code and a sentence, and the point at fault when the
/// code is about one (the page says it in its own words: "d4 is not a point of this board").
#[derive(Debug, Serialize)]
struct Failure {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<String>,
}

impl Failure {
    fn new(code: &'static str, message: String) -> Self {
        Failure {
            code,
            message,
            point: None,
        }
    }

    /// An action that could not be read: a name the board lacks is `off-board` (the
    /// code a move off the board has), with that name; anything else `bad-action`.
    fn unreadable(error: NotationError) -> Self {
        match error {
            NotationError::UnknownPoint(ref point) => Failure {
                code: PlayError::OffBoard.code(),
                message: error.to_string(),
                point: Some(point.clone()),
            },
            _ => Failure::new("bad-action", error.to_string()),
        }
    }
}

fn reply(result: Result<(), Failure>) -> String {
    #[derive(Serialize)]
    struct Reply {
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Failure>,
    }
    to_json(&match result {
        Ok(()) => Reply {
            ok: true,
            error: None,
        },
        Err(e) => Reply {
            ok: false,
            error: Some(e),
        },
    })
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Our types are plain structs of strings, numbers and maps with string keys, which
    // serde_json always serializes.
    serde_json::to_string(value).expect("snapshot types serialize to JSON")
}

// The records' and the engine's tests share these helpers.
#[cfg(all(test, any(feature = "engine", feature = "records")))]
mod test_support;
#[cfg(test)]
mod tests;

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
//! The computer opponent (`mill-engine`) is here too: [`best_turn`] answers a search
//! request for the page's Web Worker (see the `engine` module).
//!
//! The JSON shapes are documented in `static/js/README.md` (the page side of the contract).

use std::collections::BTreeMap;
use std::fmt;

use mill_core::{Action, Bitboard, Color, Game, Outcome, Phase, Position, Topology, Variant};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

mod engine;
pub use engine::best_turn;
mod records;
pub use records::convert_position;
mod variants;
pub use variants::{rules_info, variants};

/// A game of Mill as the page sees it.
#[wasm_bindgen]
#[derive(Clone)]
pub struct WasmGame {
    game: Game,
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
        }
    }

    /// The board graph as JSON: points (name, file, rank), segments, neighbours, mill lines.
    pub fn topology(&self) -> String {
        topology_json(self.game.position().topology())
    }

    /// Everything the page draws, as JSON (see [`Snapshot`]).
    pub fn snapshot(&self) -> String {
        to_json(&Snapshot::of(self))
    }

    /// Plays one action in its text form (`"d6"`, `"a1-a4"`, `"xd2"`).
    /// Returns `{"ok":true}` or `{"ok":false,"error":{…}}`; on error nothing changes.
    pub fn play(&mut self, action: &str) -> String {
        let topology = self.game.position().topology();
        let result = Action::parse(action.trim(), topology)
            .map_err(|e| Failure::new("bad-action", e.to_string()))
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
        let result = parse_position(text).map(|start| self.game = Game::from_position(start));
        reply(result)
    }

    /// The game as JSON: `{"start": "<position string>", "actions": ["d6", "a1-a4", "xd2", …]}`.
    /// Actions rather than turns, so a turn waiting for its removal survives a reload.
    pub fn export_record(&self) -> String {
        let topology = self.game.position().topology();
        let record = Record {
            start: self.game.start().to_string(),
            actions: self.game.actions().iter().map(|a| a.to_text(topology)).collect(),
        };
        to_json(&record)
    }

    /// Replaces the game with one replayed from [`WasmGame::export_record`]'s JSON.
    /// Every action is checked; on any error (code `bad-record`, naming the action) the
    /// game is unchanged.
    pub fn import_record(&mut self, json: &str) -> String {
        reply(self.replay(json).map(|game| self.game = game))
    }
}

impl WasmGame {
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
        Ok(game)
    }
}

fn parse_position(text: &str) -> Result<Position, Failure> {
    text.trim()
        .parse::<Position>()
        .map_err(|e| Failure::new("bad-position", format!("Not a valid position: {e}")))
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

/// `{light, dark}` in JSON.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Sides<T> {
    /// Light's value.
    pub light: T,
    /// Dark's value.
    pub dark: T,
}

impl<T> Sides<T> {
    fn from_fn(mut f: impl FnMut(Color) -> T) -> Self {
        Sides {
            light: f(Color::Light),
            dark: f(Color::Dark),
        }
    }
}

/// How the game ended, in JSON: `{"kind":"win","winner":"light","reason":"pieces"}` or
/// `{"kind":"draw","reason":"threefold"}`.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct OutcomeJson {
    /// `"win"` or `"draw"`.
    pub kind: &'static str,
    /// The winner, for a win.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// `pieces`, `blocked`, `resignation`, `mill`, `threefold`, `hundred-turns`, `agreement`,
    /// `board-full`.
    pub reason: &'static str,
}

/// Everything the page needs to draw a game and offer only legal clicks.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The one-line position string.
    pub position: String,
    /// Side to move (also the side that must remove): `"light"` or `"dark"`.
    pub turn: &'static str,
    /// Each side's phase: `"placing"`, `"moving"` or `"flying"`.
    pub phase: Sides<&'static str>,
    /// Pieces in hand.
    pub in_hand: Sides<u8>,
    /// Pieces on the board.
    pub on_board: Sides<u8>,
    /// Occupied points: name → `"light"` / `"dark"`.
    pub pieces: BTreeMap<&'static str, &'static str>,
    /// Removals the side to move still owes before the turn passes.
    pub pending_removals: u8,
    /// Points the side to move may click now (empty when the game is over).
    pub selectable: Vec<&'static str>,
    /// For each own piece that can move: where it may go.
    pub destinations: BTreeMap<&'static str, Vec<&'static str>>,
    /// Opponent pieces that may be removed now.
    pub removable: Vec<&'static str>,
    /// Completed turns in notation (`"d6"`, `"a1-a4"`, `"g1xd2"`).
    pub record: Vec<String>,
    /// The actions of the latest turn (the one in progress if any, else the last completed
    /// one), in text form, for showing the last move on the board.
    pub last_turn: Vec<String>,
    /// The mill line(s) the latest turn's placement or move closed (each three point
    /// names), empty when it closed none. Belongs to the same turn as `last_turn`: shown
    /// strongly while the removal is pending, then with the last turn.
    pub closed_mills: Vec<Vec<&'static str>>,
    /// Number of actions played (0: nothing to undo).
    pub actions: usize,
    /// The result, once the game is over.
    pub outcome: Option<OutcomeJson>,
}

impl Snapshot {
    /// The snapshot of a game.
    pub fn of(w: &WasmGame) -> Snapshot {
        let game = &w.game;
        let pos = game.position();
        let t = pos.topology();
        let selectable = game.selectable();
        let destinations = if pos.pending_removals() > 0 {
            BTreeMap::new()
        } else {
            selectable
                .iter()
                .filter(|&p| pos.piece_at(p).is_some())
                .map(|p| (t.name(p), names(t, game.destinations(p))))
                .filter(|(_, to)| !to.is_empty())
                .collect()
        };
        let latest = last_turn(game);
        Snapshot {
            position: pos.to_string(),
            turn: color_name(pos.turn()),
            phase: Sides::from_fn(|c| phase_name(pos.phase(c))),
            in_hand: Sides::from_fn(|c| pos.in_hand(c)),
            on_board: Sides::from_fn(|c| pos.on_board(c)),
            pieces: t
                .points()
                .filter_map(|p| pos.piece_at(p).map(|c| (t.name(p), color_name(c))))
                .collect(),
            pending_removals: pos.pending_removals(),
            selectable: names(t, selectable),
            destinations,
            removable: names(t, game.removable()),
            record: game.record(),
            last_turn: latest.iter().map(|a| a.to_text(t)).collect(),
            closed_mills: closed_mills(pos, &latest).map(|line| names(t, line)).collect(),
            actions: game.actions().len(),
            outcome: game.outcome().map(outcome_json),
        }
    }
}

/// The actions of the turn in progress, or of the last completed turn.
fn last_turn(game: &Game) -> Vec<Action> {
    let actions = game.actions();
    let completed: usize = game.turns().iter().map(|t| t.actions().count()).sum();
    if completed < actions.len() {
        return actions[completed..].to_vec();
    }
    match game.turns().last() {
        Some(turn) => turn.actions().collect(),
        None => Vec::new(),
    }
}

/// The mill lines closed by the piece that arrived in `turn` (its first action): the lines
/// through the point it arrived on that its side holds whole. Removals only take the
/// other side's pieces, so the position after the whole turn still shows them.
fn closed_mills<'a>(pos: &'a Position, turn: &[Action]) -> impl Iterator<Item = Bitboard> + 'a {
    let arrived = turn.first().and_then(|a| match *a {
        Action::Place { to } | Action::Move { to, .. } => Some(to),
        Action::Remove { .. } => None,
    });
    let own = arrived.and_then(|to| pos.piece_at(to).map(|c| (to, pos.pieces(c))));
    pos.topology()
        .lines()
        .iter()
        .copied()
        .filter(move |&line| own.is_some_and(|(to, mine)| line.contains(to) && (line & mine) == line))
}

fn names(t: &Topology, points: Bitboard) -> Vec<&'static str> {
    points.iter().map(|p| t.name(p)).collect()
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Light => "light",
        Color::Dark => "dark",
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Placing => "placing",
        Phase::Moving => "moving",
        Phase::Flying => "flying",
    }
}

fn outcome_json(o: Outcome) -> OutcomeJson {
    match o {
        Outcome::Win { winner, reason } => OutcomeJson {
            kind: "win",
            winner: Some(color_name(winner)),
            reason: reason.name(),
        },
        Outcome::Draw { reason } => OutcomeJson {
            kind: "draw",
            winner: None,
            reason: reason.name(),
        },
    }
}

/// A saved game: the start position and every action since.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    start: String,
    actions: Vec<String>,
}

/// An error for the page: a stable code and a sentence.
#[derive(Debug, Serialize)]
struct Failure {
    code: &'static str,
    message: String,
}

impl Failure {
    fn new(code: &'static str, message: String) -> Self {
        Failure { code, message }
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

#[cfg(test)]
mod tests;

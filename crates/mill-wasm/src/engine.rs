//! The computer opponent for the page: `mill-engine` behind one JSON function.
//!
//! The page runs this in a Web Worker (`static/js/engine-worker.js`), so a search of up
//! to a second never freezes the board. The worker holds no game: each request carries
//! the game's record (what [`WasmGame::export_record`](crate::WasmGame::export_record)
//! gives), so the engine sees the whole history and scores repetitions as draws.
//!
//! One [`Engine`] (and its transposition table, [`TT_MB`] megabytes) is allocated on the
//! first request and reused by every later one. Hard plays from the endgame tables the
//! worker has loaded for the game's rule set (the `tables` module), if any; the engine
//! holds them only while it searches, so the `tables` module changes them in place
//! without asking it to let go.

use std::cell::RefCell;
use std::sync::Arc;

use mill_core::Game;
use mill_engine::tb::Tablebase;
use mill_engine::{Clock, Engine, Level, Limits, SearchError, SearchResult};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{Failure, reply, to_json};

/// Megabytes of transposition table: modest, as the page shares the device with others.
pub const TT_MB: usize = 16;

/// The longest search a request may ask for, in milliseconds.
pub const MAX_MOVETIME_MS: f64 = 60_000.0;

/// The largest seed a request may give: JavaScript numbers are exact up to 2^53 − 1.
const MAX_SEED: f64 = 9_007_199_254_740_991.0;

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

/// The computer's turn in a game.
///
/// - `record_json`: the game, as `{"start": "<position>", "actions": ["d6", …]}`; its last
///   turn must be complete (no removal pending).
/// - `level`: `"beginner"`, `"easy"`, `"medium"` or `"hard"`.
/// - `seed`: a whole number from 0 to 2^53 − 1; the same seed, position and limits give
///   the same turn when the time limit is not reached first.
/// - `movetime_ms`: the time for the search, 1 to 60 000 milliseconds, read from
///   `performance.now()` (Easy and Medium usually stop at their depth much earlier).
///
/// Returns `{"ok":true,"turn":"f4-g4xb6","actions":["f4-g4","xb6"],"score":…,"depth":…,
/// "nodes":…,"elapsedMs":…,"pv":[…],"tbHits":…}` or `{"ok":false,"error":{"code","message"}}` with
/// code `bad-record`, `bad-level`, `bad-seed`, `bad-movetime`, `mid-turn` or `game-over`.
#[wasm_bindgen]
pub fn best_turn(record_json: &str, level: &str, seed: f64, movetime_ms: f64) -> String {
    let limits = match limits(level, seed, movetime_ms) {
        Ok(limits) => limits,
        Err(e) => return reply(Err(e)),
    };
    search_record(record_json, &limits, &mut PerformanceClock::start())
}

/// Runs `f` on the shared engine (allocated on the first call) with `tables`; the engine
/// lets go of them when `f` returns, so that the worker's tables stay the `tables`
/// module's alone and are changed in place, not copied.
pub(crate) fn with_engine<R>(tables: Option<Arc<Tablebase>>, f: impl FnOnce(&mut Engine) -> R) -> R {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let engine = slot.get_or_insert_with(|| Engine::new(TT_MB));
        engine.set_tablebase(tables);
        let result = f(engine);
        engine.set_tablebase(None);
        result
    })
}

/// Checks a request's level, seed and time and turns them into the engine's limits.
fn limits(level: &str, seed: f64, movetime_ms: f64) -> Result<Limits, Failure> {
    let level: Level = level
        .parse()
        .map_err(|e: mill_engine::ParseLevelError| Failure::new("bad-level", format!("{e}.")))?;
    if !(seed.is_finite() && seed.fract() == 0.0 && (0.0..=MAX_SEED).contains(&seed)) {
        return Err(Failure::new(
            "bad-seed",
            format!("The seed must be a whole number from 0 to 2^53 - 1, not {seed}."),
        ));
    }
    if !(movetime_ms.is_finite() && (1.0..=MAX_MOVETIME_MS).contains(&movetime_ms)) {
        return Err(Failure::new(
            "bad-movetime",
            format!("The time for a move must be 1 to {MAX_MOVETIME_MS} milliseconds, not {movetime_ms}."),
        ));
    }
    // Both checked above: a whole number in u64's range, a positive number of milliseconds.
    Ok(Limits::new(level, seed as u64).with_movetime(Some(movetime_ms as u64)))
}

/// What the page gets back from a search.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Found {
    ok: bool,
    /// The turn in notation (`"d6"`, `"a1-a4"`, `"f4-g4xb6"`).
    turn: String,
    /// The turn's actions in the order the page plays them (`["f4-g4", "xb6"]`).
    actions: Vec<String>,
    score: i32,
    depth: u32,
    nodes: u64,
    elapsed_ms: u64,
    /// The expected line of play, starting with `turn`, in notation.
    pv: Vec<String>,
    /// Positions whose value came from the endgame tables (1 with depth 1: the turn is
    /// the tables' own).
    tb_hits: u64,
}

impl Found {
    fn of(game: &Game, r: &SearchResult) -> Found {
        let t = game.position().topology();
        Found {
            ok: true,
            turn: r.turn.to_notation(t),
            actions: r.turn.actions().map(|a| a.to_text(t)).collect(),
            score: r.score,
            depth: r.depth,
            nodes: r.nodes,
            elapsed_ms: r.elapsed_ms,
            pv: r.pv.iter().map(|turn| turn.to_notation(t)).collect(),
            tb_hits: r.tb_hits,
        }
    }
}

/// Replays the record and searches its position with the shared engine.
fn search_record(record_json: &str, limits: &Limits, clock: &mut dyn Clock) -> String {
    let game = match crate::WasmGame::new().replay(record_json) {
        Ok(game) => game,
        Err(e) => return reply(Err(e)),
    };
    let rules = game.position().rules();
    let tables = crate::tables::for_rules(&rules);
    // Perfect plays a rule set solved whole from it (Six, when the worker loaded it).
    let placing = crate::tables::placing_for(&rules);
    let result = with_engine(tables, |engine| {
        engine.set_placing_table(placing);
        let found = engine.best_turn(&game, limits, clock);
        engine.set_placing_table(None);
        found
    });
    match result {
        Ok(found) => to_json(&Found::of(&game, &found)),
        Err(SearchError::MidTurn) => reply(Err(Failure::new(
            "mid-turn",
            "A removal is pending: the turn in progress must be finished before the computer can move."
                .to_string(),
        ))),
        Err(SearchError::GameOver) => reply(Err(Failure::new(
            "game-over",
            "The game is over: there is no turn to play.".to_string(),
        ))),
    }
}

/// Milliseconds since the search started, from `performance.now()`. `performance` is a
/// global in a window and in a Worker alike (`window` is not), so the glue reads it from
/// the global scope.
#[derive(Debug)]
pub(crate) struct PerformanceClock {
    start: f64,
}

impl PerformanceClock {
    pub(crate) fn start() -> PerformanceClock {
        PerformanceClock { start: now() }
    }
}

impl Clock for PerformanceClock {
    fn elapsed_ms(&mut self) -> u64 {
        (now() - self.start).max(0.0) as u64
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[cfg(target_arch = "wasm32")]
fn now() -> f64 {
    performance_now()
}

/// Natively (the unit tests) there is no `performance`: the process clock stands in.
#[cfg(not(target_arch = "wasm32"))]
fn now() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use mill_engine::NoClock;
    use serde_json::Value;

    use super::*;
    use crate::WasmGame;
    use crate::test_support::{json, record};

    /// A deterministic search: no clock, the level's own depth (or a node limit).
    fn search(record_json: &str, limits: Limits) -> Value {
        json(&search_record(record_json, &limits, &mut NoClock))
    }

    fn error_code(reply: &str) -> String {
        let v = json(reply);
        assert_eq!(v["ok"], false, "{v}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
        v["error"]["code"].as_str().unwrap().to_string()
    }

    #[test]
    fn the_reply_is_a_legal_turn_that_the_game_accepts_action_by_action() {
        let start = record(&[]);
        for level in Level::ALL {
            let limits = Limits::new(level, 3).with_nodes(20_000);
            let found = search(&start, limits);
            assert_eq!(found["ok"], true, "{found}");
            let mut g = WasmGame::new();
            for a in found["actions"].as_array().unwrap() {
                assert_eq!(json(&g.play(a.as_str().unwrap()))["ok"], true, "{found}");
            }
            assert_eq!(json(&g.snapshot())["record"][0], found["turn"]);
            assert_eq!(found["pv"][0], found["turn"]);
            assert!(found["depth"].as_u64().unwrap() >= 1);
            assert!(found["nodes"].as_u64().unwrap() > 0);
        }
    }

    #[test]
    fn a_mill_in_one_is_closed_and_its_removal_comes_as_a_second_action() {
        // Light has a1 and a4 and is to place: a7 closes the a-file mill.
        let r = record(&["a1", "g7", "a4", "g1"]);
        let found = search(&r, Limits::new(Level::Medium, 1));
        assert_eq!(found["actions"][0], "a7", "{found}");
        let actions = found["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 2, "{found}");
        assert!(actions[1].as_str().unwrap().starts_with('x'));
        assert!(found["turn"].as_str().unwrap().starts_with("a7x"));
    }

    #[test]
    fn the_same_seed_gives_the_same_turn_and_seeds_vary_the_opening() {
        let start = record(&[]);
        let turn = |seed| search(&start, Limits::new(Level::Medium, seed))["turn"].clone();
        assert_eq!(turn(11), turn(11));
        let openings: std::collections::BTreeSet<String> =
            (0..12).map(|s| turn(s).as_str().unwrap().to_string()).collect();
        assert!(openings.len() > 1, "every seed opened with {openings:?}");
    }

    #[test]
    fn bad_requests_are_refused_with_their_own_codes() {
        let start = record(&[]);
        assert_eq!(error_code(&best_turn(&start, "expert", 1.0, 100.0)), "bad-level");
        for seed in [-1.0, 0.5, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(error_code(&best_turn(&start, "easy", seed, 100.0)), "bad-seed");
        }
        for ms in [0.0, -5.0, f64::NAN, 1e9] {
            assert_eq!(error_code(&best_turn(&start, "easy", 1.0, ms)), "bad-movetime");
        }
        assert_eq!(error_code(&best_turn("{", "easy", 1.0, 100.0)), "bad-record");
        let illegal = r#"{"start":".../.../.../....../.../.../... l 9 9 0 0","actions":["a1","a1"]}"#;
        assert_eq!(error_code(&best_turn(illegal, "easy", 1.0, 100.0)), "bad-record");
    }

    #[test]
    fn a_pending_removal_or_a_finished_game_has_no_turn_to_search() {
        let mid = record(&["a1", "g7", "a4", "g1", "a7"]);
        assert_eq!(error_code(&best_turn(&mid, "easy", 1.0, 100.0)), "mid-turn");
        // Light is blocked after the placing (the page's blockade game): Dark has won.
        let over = record(&[
            "b2", "b4", "d3", "c3", "e3", "c5", "e4", "d2", "e5", "xb4", "b4", "d5", "d6", "f2", "d7", "f4",
            "f6", "g7", "g4",
        ]);
        assert!(WasmGame::new().replay(&over).unwrap().is_over());
        assert_eq!(error_code(&best_turn(&over, "hard", 1.0, 100.0)), "game-over");
    }

    #[test]
    fn hard_plays_from_a_loaded_table_and_the_others_search() {
        use mill_engine::tb::Tablebase;
        let solved = Tablebase::generate(mill_core::Variant::Nine, 3, &mut |_| {}).unwrap();
        let bytes = solved.class_bytes(3, 3).unwrap();
        // Light flies a piece to close a mill in a few turns: a win the tables know.
        let start = "..D/.../.L./L...../.../.D./L.D l 0 0 0 0";
        let mut g = WasmGame::new();
        assert_eq!(json(&g.load_position(start))["ok"], true);
        let r = g.export_record();
        let (table_turn, _) = solved.best_turn(&start.parse().unwrap()).unwrap();
        let hard = || search(&r, Limits::new(Level::Hard, 1).with_depth(4));
        let wanted = |max: f64| json(&crate::tablebase_wanted(&r, max));
        assert_eq!(wanted(4.0)["classes"], serde_json::json!(["3v3"]));
        assert_eq!(wanted(4.0)["loaded"], serde_json::json!([]));
        assert_eq!(wanted(4.0)["rules"], "nine");
        // The position and its class, for the server's probe endpoint.
        assert_eq!(wanted(0.0)["position"], start);
        assert_eq!(wanted(0.0)["class"], "3v3");
        let placing = WasmGame::new().export_record();
        assert_eq!(
            json(&crate::tablebase_wanted(&placing, 4.0))["class"],
            serde_json::Value::Null
        );
        // No table yet: a search.
        let before = hard();
        assert!(before["nodes"].as_u64().unwrap() > 1, "{before}");
        assert_eq!(before["tbHits"], 0);
        // A damaged file is refused and loads nothing.
        assert_eq!(
            error_code(&crate::load_tablebase(b"MILLTB01 nothing")),
            "bad-table"
        );
        assert_eq!(
            error_code(&crate::load_tablebase(&bytes[..bytes.len() - 2])),
            "bad-table"
        );
        assert_eq!(wanted(4.0)["loaded"], serde_json::json!([]));
        let loaded = json(&crate::load_tablebase(&bytes));
        assert_eq!(loaded["ok"], true, "{loaded}");
        assert_eq!(loaded["class"], "3v3");
        assert_eq!(loaded["positions"], solved.classes()[0].2);
        assert_eq!(wanted(4.0)["loaded"], serde_json::json!(["3v3"]));
        // Hard now plays the tables' turn without searching.
        let after = hard();
        assert_eq!(
            after["turn"],
            table_turn.to_notation(&mill_core::MORRIS_24),
            "{after}"
        );
        assert_eq!(
            (after["depth"].as_u64(), after["nodes"].as_u64()),
            (Some(1), Some(1)),
            "{after}"
        );
        assert_eq!(after["tbHits"], 1);
        assert!(after["score"].as_i64().unwrap() > 29_000, "{after}");
        // The engine let go of the tables after its search: besides this handle only the
        // worker's slot holds them, so the next class loads into them in place.
        let held = crate::tables::for_rules(mill_core::Variant::Nine.rules()).unwrap();
        assert_eq!(Arc::strong_count(&held), 2);
        // Medium does not use them.
        let medium = search(&r, Limits::new(Level::Medium, 1));
        assert_eq!(medium["tbHits"], 0, "{medium}");
        // The same board under other rules is not in nine's tables.
        let mut other = WasmGame::new();
        assert_eq!(
            json(&other.load_position(&format!("{start} nine+protect-off")))["ok"],
            true
        );
        let o = other.export_record();
        let theirs = search(&o, Limits::new(Level::Hard, 1).with_depth(2));
        assert_eq!(theirs["tbHits"], 0, "{theirs}");
        assert_eq!(
            json(&crate::tablebase_wanted(&o, 4.0))["rules"],
            "nine+protect-off"
        );
    }

    #[test]
    fn perfect_plays_six_from_its_placing_table_once_every_class_is_loaded() {
        use mill_core::{Position, Variant};
        use mill_engine::tb::{Placing, Tablebase};
        let six = Variant::Six.rules();
        let tb = Arc::new(Tablebase::generate(six, 6, &mut |_| {}).unwrap());
        let placing = Placing::generate(Arc::clone(&tb), &Position::start(six), &mut |_| {}).unwrap();
        let bytes = placing.to_bytes();
        let mut g = WasmGame::new();
        assert_eq!(
            json(&g.load_position(&format!("{}", Position::start(six))))["ok"],
            true
        );
        let r = g.export_record();
        let wanted = || json(&crate::tablebase_wanted(&r, 6.0));
        let perfect = || search(&r, Limits::new(Level::Perfect, 3).with_depth(3));
        // Without the tables Perfect plays Six as Hard: a search.
        assert_eq!(wanted()["placing"], false);
        assert!(perfect()["nodes"].as_u64().unwrap() > 1);
        // Refused, and nothing changes: not a placing table; the endgame tables missing,
        // then one class only.
        assert_eq!(error_code(&crate::load_placing(b"MILLPL01 nothing")), "bad-table");
        assert_eq!(
            error_code(&crate::load_placing(&bytes[..bytes.len() - 1])),
            "bad-table"
        );
        assert_eq!(error_code(&crate::load_placing(&bytes)), "tables-missing");
        assert_eq!(
            json(&crate::load_tablebase(&tb.class_bytes(3, 3).unwrap()))["ok"],
            true
        );
        let missing = json(&crate::load_placing(&bytes));
        assert_eq!(missing["error"]["code"], "tables-missing", "{missing}");
        assert!(
            missing["error"]["message"].as_str().unwrap().contains("6v6"),
            "{missing}"
        );
        assert_eq!(wanted()["placing"], false);
        for (m, o, _) in tb.classes() {
            assert_eq!(
                json(&crate::load_tablebase(&tb.class_bytes(m, o).unwrap()))["ok"],
                true
            );
        }
        let loaded = json(&crate::load_placing(&bytes));
        assert_eq!(loaded["ok"], true, "{loaded}");
        assert_eq!(
            (loaded["rules"].as_str(), loaded["class"].as_str()),
            (Some("six"), Some("placing"))
        );
        assert_eq!(loaded["positions"], placing.positions());
        assert_eq!(wanted()["placing"], true);
        // Perfect now answers from the table: the empty board is a draw.
        let found = perfect();
        assert_eq!(
            (found["depth"].as_u64(), found["tbHits"].as_u64()),
            (Some(1), Some(1)),
            "{found}"
        );
        assert_eq!(found["score"], 0, "{found}");
        // A game of another rule set drops Six's tables, the whole game with them.
        let nine = Tablebase::generate(Variant::Nine, 3, &mut |_| {}).unwrap();
        assert_eq!(
            json(&crate::load_tablebase(&nine.class_bytes(3, 3).unwrap()))["ok"],
            true
        );
        assert_eq!(wanted()["placing"], false);
        assert!(crate::tables::placing_for(six).is_none());
    }

    #[test]
    fn tables_are_wanted_in_the_endings_and_one_removal_before() {
        let wanted = |position: &str, max: f64| {
            let mut g = WasmGame::new();
            assert_eq!(json(&g.load_position(position))["ok"], true, "{position}");
            json(&crate::tablebase_wanted(&g.export_record(), max))["classes"].clone()
        };
        // Five against four, both out of hand: one removal from 4 v 4.
        let five_four = "L.D/.L./D.L/LD..../.../.../L.D l 0 0 0 0";
        assert_eq!(
            wanted(five_four, 4.0),
            serde_json::json!(["3v3", "3v4", "4v3", "4v4"])
        );
        // The same with tables of three a side: too far.
        assert_eq!(wanted(five_four, 3.0), serde_json::json!([]));
        // Four against three, Dark to move: both orders of the material.
        assert_eq!(
            wanted("L.D/.L./D../L...../D../.../..L d 0 0 0 0", 4.0),
            serde_json::json!(["3v3", "3v4", "4v3"])
        );
        // Placing, or a rule set the tables cannot hold (a line wins at once): nothing.
        assert_eq!(
            wanted(".../.../.../....../.../.../... l 9 9 0 0", 4.0),
            serde_json::json!([])
        );
        assert_eq!(wanted("LDL/.../DLD l 0 0 0 0 three", 4.0), serde_json::json!([]));
        // A removal per mill: its own tables, as far as they go.
        assert_eq!(
            wanted("..D/.../.L./L...../.../.D./L.D l 0 0 0 0 nine+per-mill", 4.0),
            serde_json::json!(["3v3"])
        );
        assert_eq!(error_code(&crate::tablebase_wanted("{", 4.0)), "bad-record");
    }

    #[test]
    fn the_time_limit_is_read_from_the_clock() {
        // Hard with a clock that jumps past the limit at once still answers a legal turn.
        let start = record(&[]);
        let mut ticks = 0u64;
        let mut clock = move || {
            ticks += 1000;
            ticks
        };
        let limits = Limits::new(Level::Hard, 5).with_movetime(Some(50));
        let found = json(&search_record(&start, &limits, &mut clock));
        assert_eq!(found["ok"], true, "{found}");
        assert_eq!(found["actions"].as_array().unwrap().len(), 1);
    }
}

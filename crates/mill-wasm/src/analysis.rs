//! Review's analysis for the page: one position of a game judged by `mill-engine`
//! ([`mill_engine::analyse`]) behind one JSON function.
//!
//! The page's review runs this in its own Web Worker (`static/js/engine-worker.js`, the
//! `analyse` request), one position at a time with a short budget each, so a whole game
//! is judged progressively and the page never freezes. Like [`best_turn`](crate::best_turn),
//! each request carries the game's record up to the position, so repetitions count.
//!
//! Every figure comes back from Light's side: the page compares the position before a
//! turn with the one after, whoever moved, and keeps no rules to turn scores round.
//!
//! Endings in the endgame tablebase (`mill_engine::tb`) are answered exactly: from the
//! classes the worker fetched from the server (the `tables` module), else, for three
//! pieces a side, from the class the first such position solves in the worker (some
//! seconds, once per worker).

use mill_core::{Color, Game};
use mill_engine::{Clock, Level, Limits, SearchError};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::engine::{MAX_MOVETIME_MS, PerformanceClock, with_engine};
use crate::{Failure, reply, to_json};

/// One position of a game, judged.
///
/// - `record_json`: the game up to the position, as
///   [`WasmGame::export_record`](crate::WasmGame::export_record) gives it; its last turn
///   must be complete (no removal pending) unless the game is over.
/// - `movetime_ms`: the search's budget, 1 to 60 000 milliseconds (`performance.now()`).
///
/// Returns `{"ok":true,"toMove":"light","score":…,"value":…,"winIn":…|null,"over":false,
/// "best":"f4-g4xb6"|null,"actions":[…],"pv":[…],"depth":…,"nodes":…,"elapsedMs":…}`:
/// `score` is Light's in evaluation units (100 a piece; ±30 000 for a result),
/// `value` the same from −1 (Dark wins) to +1 (Light wins), `winIn` a forced result
/// in turns (positive: Light wins), `over` true when the game has ended here (then
/// `best` is null and the line empty), `tablebase` true when the value is the endgame
/// tablebase's (exact). Errors: `bad-record`, `bad-movetime`, `mid-turn`.
#[wasm_bindgen]
pub fn analyse(record_json: &str, movetime_ms: f64) -> String {
    if !(movetime_ms.is_finite() && (1.0..=MAX_MOVETIME_MS).contains(&movetime_ms)) {
        return reply(Err(Failure::new(
            "bad-movetime",
            format!(
                "The time for a position must be 1 to {MAX_MOVETIME_MS} milliseconds, not {movetime_ms}."
            ),
        )));
    }
    let limits = Limits::new(Level::Hard, 0).with_movetime(Some(movetime_ms as u64));
    analyse_record(record_json, &limits, &mut PerformanceClock::start())
}

/// The most pieces a side may have for the tables this worker solves itself.
pub const TABLE_PIECES: u8 = 3;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Judged {
    ok: bool,
    to_move: &'static str,
    score: i32,
    value: f64,
    win_in: Option<i32>,
    over: bool,
    /// The value is the tablebase's: exact.
    tablebase: bool,
    best: Option<String>,
    actions: Vec<String>,
    pv: Vec<String>,
    depth: u32,
    nodes: u64,
    elapsed_ms: u64,
}

fn side(color: Color) -> &'static str {
    match color {
        Color::Light => "light",
        Color::Dark => "dark",
    }
}

fn analyse_record(record_json: &str, limits: &Limits, clock: &mut dyn Clock) -> String {
    let game: Game = match crate::WasmGame::new().replay(record_json) {
        Ok(game) => game,
        Err(e) => return reply(Err(e)),
    };
    let tables = if game.is_over() {
        None
    } else {
        crate::tables::solved_for(game.position(), TABLE_PIECES)
    };
    let exact = tables
        .as_ref()
        .is_some_and(|tb| tb.probe(game.position()).is_some());
    let judged = match with_engine(tables, |engine| {
        mill_engine::analyse(engine, &game, limits, clock)
    }) {
        Ok(a) => a,
        Err(SearchError::MidTurn) => {
            return reply(Err(Failure::new(
                "mid-turn",
                "A removal is pending: a turn is judged once it is complete.".to_string(),
            )));
        }
        Err(SearchError::GameOver) => unreachable!("analyse answers a finished game with its result"),
    };
    let t = game.position().topology();
    let search = judged.search.as_ref();
    to_json(&Judged {
        ok: true,
        to_move: side(judged.to_move),
        score: judged.light_score,
        value: judged.value(),
        win_in: judged.win_in,
        over: judged.outcome.is_some(),
        tablebase: exact,
        best: search.map(|s| s.turn.to_notation(t)),
        actions: search.map_or_else(Vec::new, |s| s.turn.actions().map(|a| a.to_text(t)).collect()),
        pv: search.map_or_else(Vec::new, |s| {
            s.pv.iter().map(|turn| turn.to_notation(t)).collect()
        }),
        depth: search.map_or(0, |s| s.depth),
        nodes: search.map_or(0, |s| s.nodes),
        elapsed_ms: search.map_or(0, |s| s.elapsed_ms),
    })
}

#[cfg(test)]
mod tests {
    use mill_engine::NoClock;
    use serde_json::Value;

    use super::*;
    use crate::WasmGame;
    use crate::test_support::{json, record};

    fn judge(actions: &[&str], depth: u32) -> Value {
        json(&analyse_record(
            &record(actions),
            &Limits::new(Level::Hard, 0).with_depth(depth),
            &mut NoClock,
        ))
    }

    #[test]
    fn both_sides_threats_read_from_light_s_side() {
        // Light to place can close the a-file mill: good for Light.
        let light = judge(&["a1", "g7", "a4", "g1"], 3);
        assert_eq!(light["ok"], true, "{light}");
        assert_eq!(light["toMove"], "light");
        assert!(light["score"].as_i64().unwrap() > 0, "{light}");
        assert!(light["value"].as_f64().unwrap() > 0.0);
        assert!(light["best"].as_str().unwrap().starts_with("a7x"), "{light}");
        assert_eq!(light["pv"][0], light["best"]);
        assert_eq!(light["actions"].as_array().unwrap().len(), 2);
        assert_eq!(light["over"], false);
        // Light let Dark close the g-file mill first: now good for Dark, and the score
        // (Dark's, by the search) comes back negated.
        let dark = judge(&["a1", "g7", "a4", "g1", "d6"], 3);
        assert_eq!(dark["toMove"], "dark");
        assert!(dark["score"].as_i64().unwrap() < 0, "{dark}");
        assert!(dark["value"].as_f64().unwrap() < 0.0, "{dark}");
    }

    #[test]
    fn a_finished_game_answers_its_result() {
        let over = judge(
            &[
                "b2", "b4", "d3", "c3", "e3", "c5", "e4", "d2", "e5", "xb4", "b4", "d5", "d6", "f2", "d7",
                "f4", "f6", "g7", "g4",
            ],
            2,
        );
        assert_eq!(over["over"], true, "{over}");
        assert_eq!(over["value"], -1.0);
        assert_eq!(over["winIn"], 0);
        assert_eq!(over["best"], Value::Null);
        assert_eq!(over["pv"], serde_json::json!([]));
    }

    #[test]
    fn three_against_three_is_answered_by_the_tablebase() {
        // Both out of hand, three a side, Light to fly: d5 flies to a7 and closes the
        // a-file mill (a1, a4), so the tables say Light wins.
        let start = "..D/.../.L./L...../.../.D./L.D l 0 0 0 0";
        let mut g = WasmGame::new();
        assert_eq!(json(&g.load_position(start))["ok"], true);
        let r = json(&analyse_record(
            &g.export_record(),
            &Limits::new(Level::Hard, 0).with_depth(2),
            &mut NoClock,
        ));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["tablebase"], true, "{r}");
        assert!(r["winIn"].as_i64().unwrap() > 0, "{r}");
        assert_eq!(r["value"], 1.0);
        // Outside the tables' class: a search, not exact.
        let opening = judge(&["a1"], 2);
        assert_eq!(opening["tablebase"], false);
    }

    #[test]
    fn bad_requests_are_refused_with_their_own_codes() {
        let code = |reply: String| json(&reply)["error"]["code"].as_str().unwrap().to_string();
        assert_eq!(code(analyse(&record(&[]), 0.0)), "bad-movetime");
        assert_eq!(code(analyse(&record(&[]), f64::NAN)), "bad-movetime");
        assert_eq!(code(analyse("{", 50.0)), "bad-record");
        assert_eq!(
            code(analyse(&record(&["a1", "g7", "a4", "g1", "a7"]), 50.0)),
            "mid-turn"
        );
        // A real budget answers at the start too.
        let start = json(&analyse(&record(&[]), 30.0));
        assert_eq!(start["ok"], true, "{start}");
        assert!(start["depth"].as_u64().unwrap() >= 1);
    }
}

//! The worker's endgame tables (`mill_engine::tb`), shared by the computer's search and
//! review's analysis.
//!
//! The page's worker (`static/js/engine-worker.js`) asks [`tablebase_wanted`] which
//! classes a game could use now, fetches those the server has (its manifest,
//! `/tb/manifest.json`), and hands each file's bytes to [`load_tablebase`]. From then on
//! Hard plays endings in the tables from them and scores the positions inside its search
//! that reach them. A worker holds the tables of one rule set at a time: a game of
//! another drops them.
//!
//! Review's analysis, when no table was loaded, solves the 3 v 3 class itself
//! ([`solved_for`]) and keeps it here.
//!
//! Six Men's Morris solved whole (`mill_engine::tb::Placing`) is its endgame tables to
//! six a side and its placing table (`six-placing.mtp`): for the Perfect level the worker
//! loads every class of the rule set, then hands the placing file to [`load_placing`].

use std::cell::RefCell;
use std::sync::Arc;

use mill_core::{Color, Position, Rules};
use mill_engine::tb::{FileHeader, MAX_CLASS_PIECES, Placing, Tablebase};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{Failure, reply, to_json};

thread_local! {
    /// The loaded (or solved) tables, of one rule set.
    static TABLES: RefCell<Option<Arc<Tablebase>>> = const { RefCell::new(None) };
    /// The rule set solved whole (its placing table over the tables above), if loaded.
    static PLACING: RefCell<Option<Arc<Placing>>> = const { RefCell::new(None) };
}

/// The worker's whole-game table for `rules`, if it holds one.
pub(crate) fn placing_for(rules: &Rules) -> Option<Arc<Placing>> {
    PLACING.with(|cell| cell.borrow().as_ref().filter(|p| p.rules() == rules).cloned())
}

/// The worker's tables for `rules`, if it holds any.
pub(crate) fn for_rules(rules: &Rules) -> Option<Arc<Tablebase>> {
    TABLES.with(|cell| cell.borrow().as_ref().filter(|tb| tb.rules() == rules).cloned())
}

/// Changes the worker's tables for `rules` (new ones if it held another rule set's). The
/// engine holds them only during a search (`engine::with_engine`), so they are changed in
/// place, not copied.
fn update<R>(rules: &Rules, f: impl FnOnce(&mut Tablebase) -> R) -> R {
    TABLES.with(|cell| {
        let mut slot = cell.borrow_mut();
        if !slot.as_ref().is_some_and(|tb| tb.rules() == rules) {
            *slot = Some(Arc::new(Tablebase::new(rules)));
            // Another rule set's whole game goes with its tables.
            PLACING.with(|p| p.borrow_mut().take());
        }
        let arc = slot.as_mut().expect("set above");
        f(Arc::make_mut(arc))
    })
}

/// The pieces of each side when both are out of hand (the only positions in tables).
fn out_of_hand(position: &Position) -> Option<(u8, u8)> {
    let hands_empty = Color::ALL.iter().all(|&c| position.in_hand(c) == 0);
    (hands_empty && position.pending_removals() == 0)
        .then(|| (position.on_board(Color::Light), position.on_board(Color::Dark)))
}

/// The classes a search from `position` may reach, for tables of up to `max` pieces a
/// side: none unless both sides are out of hand and the position is in the tables or one
/// removal before them (then the search inside the tree uses them); else every class
/// with at most the position's pieces a side, both sides to move.
fn wanted(position: &Position, max: u8) -> Vec<(u8, u8)> {
    let rules = position.rules();
    let Some((light, dark)) = out_of_hand(position) else {
        return Vec::new();
    };
    let max = max.min(MAX_CLASS_PIECES).min(rules.pieces);
    let low = rules.lose_below;
    let near = light.min(dark) <= max && light.max(dark) <= max + 1;
    if Tablebase::supports(rules).is_err() || !near || light.min(dark) < low {
        return Vec::new();
    }
    let mut classes = Vec::new();
    for m in low..=light.min(max) {
        for o in low..=dark.min(max) {
            for class in [(m, o), (o, m)] {
                if !classes.contains(&class) {
                    classes.push(class);
                }
            }
        }
    }
    classes.sort_unstable();
    classes
}

#[derive(Debug, Serialize)]
struct Wanted {
    ok: bool,
    /// The game's rule set, as the server's manifest names it (`nine`, `six+per-mill`).
    rules: String,
    /// The classes to fetch, `"<m>v<o>"` (`m` the side to move's pieces); empty when the
    /// game is not near the tables.
    classes: Vec<String>,
    /// The classes of `classes` the worker holds already.
    loaded: Vec<String>,
    /// Whether the worker holds the rule set solved whole ([`load_placing`]).
    placing: bool,
    /// The current position's string, to ask the server's probe endpoint about
    /// (`GET /api/tb/probe`) when its class is too big to download.
    position: String,
    /// The current position's class, `"<m>v<o>"`, when it is one the endgame tables could
    /// hold (both sides out of hand, no removal pending, the game not over); else `null`.
    class: Option<String>,
}

/// Which table files the game's current position could use.
///
/// - `record_json`: the game (as for [`best_turn`](crate::best_turn)).
/// - `max`: the most pieces a side in the tables the server has (its manifest).
///
/// Returns `{"ok":true,"rules":"nine","classes":["3v3","3v4","4v3","4v4"],"loaded":[…],
/// "placing":false,"position":"<position string>","class":"4v3"}`
/// (`classes` empty when the position is not in the tables or one removal before them,
/// or the rule set has none) or `{"ok":false,"error":…}` with `bad-record`.
#[wasm_bindgen]
pub fn tablebase_wanted(record_json: &str, max: f64) -> String {
    let game = match crate::WasmGame::new().replay(record_json) {
        Ok(game) => game,
        Err(e) => return reply(Err(e)),
    };
    let position = game.position();
    let max = if max.is_finite() {
        max.clamp(0.0, 255.0) as u8
    } else {
        0
    };
    let classes = if game.is_over() {
        Vec::new()
    } else {
        wanted(position, max)
    };
    let held = for_rules(&position.rules());
    let name = |&(m, o): &(u8, u8)| format!("{m}v{o}");
    let out_of_hand = position.in_hand(mill_core::Color::Light) == 0
        && position.in_hand(mill_core::Color::Dark) == 0
        && position.pending_removals() == 0
        && !game.is_over();
    let class = out_of_hand.then(|| {
        let us = position.on_board(position.turn());
        let them = position.on_board(!position.turn());
        format!("{us}v{them}")
    });
    to_json(&Wanted {
        ok: true,
        position: position.to_string(),
        class,
        placing: placing_for(&position.rules()).is_some(),
        rules: position.rules().to_string(),
        loaded: classes
            .iter()
            .filter(|&&(m, o)| held.as_ref().is_some_and(|tb| tb.has_class(m, o)))
            .map(name)
            .collect(),
        classes: classes.iter().map(name).collect(),
    })
}

#[derive(Debug, Serialize)]
struct Loaded {
    ok: bool,
    rules: String,
    class: String,
    positions: usize,
}

/// Loads one class file (the bytes of `<rules>-<m>v<o>.mtb` as `mill tb generate` wrote
/// it) into the worker's tables. Returns `{"ok":true,"rules":"nine","class":"4v4",
/// "positions":3667665}` or `{"ok":false,"error":…}` with `bad-table` (not a table file,
/// cut short, a rule set the tables cannot be for); the classes held are then unchanged
/// (a file of another rule set than the one held replaces them, as the game changed).
#[wasm_bindgen]
pub fn load_tablebase(bytes: &[u8]) -> String {
    let header = match FileHeader::read(bytes) {
        Ok((header, _)) => header,
        Err(e) => {
            return reply(Err(Failure::new(
                "bad-table",
                format!("Not a tablebase file: {e}."),
            )));
        }
    };
    if let Err(e) = Tablebase::supports(header.rules) {
        return reply(Err(Failure::new("bad-table", format!("{e}."))));
    }
    // `load_class` changes nothing when the rest of the file is bad.
    let loaded = update(&header.rules, |tb| tb.load_class(bytes));
    match loaded {
        Ok((m, o)) => to_json(&Loaded {
            ok: true,
            rules: header.rules.to_string(),
            class: format!("{m}v{o}"),
            positions: header.positions,
        }),
        Err(e) => reply(Err(Failure::new("bad-table", format!("{e}.")))),
    }
}

#[derive(Debug, Serialize)]
struct PlacingLoaded {
    ok: bool,
    rules: String,
    class: &'static str,
    positions: usize,
}

/// Loads the placing table of a rule set solved whole (the bytes of `six-placing.mtp` as
/// `mill tb generate --all` wrote it) over the worker's endgame tables of that rule set,
/// which must all be loaded first (every class to the rule set's pieces a side): from
/// then on Perfect plays the game from them. Returns `{"ok":true,"rules":"six",
/// "class":"placing","positions":430709}` or `{"ok":false,"error":…}` with `bad-table`
/// (not a placing table, cut short, a rule set not solved whole) or `tables-missing`
/// (a class not loaded yet); nothing changes then.
#[wasm_bindgen]
pub fn load_placing(bytes: &[u8]) -> String {
    let rules = match Placing::read_header(bytes) {
        Ok((rules, _)) => rules,
        Err(e) => return reply(Err(Failure::new("bad-table", format!("{e}.")))),
    };
    let Some(tb) = for_rules(&rules) else {
        return reply(Err(Failure::new(
            "tables-missing",
            format!("No endgame table of {rules} is loaded: load them before the placing table."),
        )));
    };
    let (low, high) = (rules.lose_below, rules.pieces);
    let missing: Vec<String> = (low..=high)
        .flat_map(|m| (low..=high).map(move |o| (m, o)))
        .filter(|&(m, o)| !tb.has_class(m, o))
        .map(|(m, o)| format!("{m}v{o}"))
        .collect();
    if !missing.is_empty() {
        return reply(Err(Failure::new(
            "tables-missing",
            format!(
                "The endgame tables of {rules} lack {}: load them before the placing table.",
                missing.join(", ")
            ),
        )));
    }
    match Placing::from_bytes(bytes, tb) {
        Ok(placing) => {
            let positions = placing.positions();
            PLACING.with(|cell| *cell.borrow_mut() = Some(Arc::new(placing)));
            to_json(&PlacingLoaded {
                ok: true,
                rules: rules.to_string(),
                class: "placing",
                positions,
            })
        }
        Err(e) => reply(Err(Failure::new("bad-table", format!("{e}.")))),
    }
}

/// The worker's tables for `position`, with the `pieces` v `pieces` class solved here
/// first (some seconds, once per worker) when the position is such an ending and no class
/// for it is held. `None` when the rule set has no tables.
pub(crate) fn solved_for(position: &Position, pieces: u8) -> Option<Arc<Tablebase>> {
    let rules = &position.rules();
    if let Some(tb) = for_rules(rules).filter(|tb| tb.probe(position).is_some()) {
        return Some(tb);
    }
    let small = out_of_hand(position).is_some_and(|(l, d)| l <= pieces && d <= pieces);
    if small && Tablebase::supports(rules).is_ok() {
        let solved = Tablebase::generate(*rules, pieces, &mut |_| {}).ok()?;
        update(rules, |tb| {
            for (m, o, _) in solved.classes() {
                if !tb.has_class(m, o) {
                    let bytes = solved.class_bytes(m, o).expect("a class just solved");
                    tb.load_class(&bytes).expect("a class just solved reads back");
                }
            }
        });
    }
    for_rules(rules)
}

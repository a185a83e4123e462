//! `GET /api/tb/probe?variant=RULES&position=POSITION`: what the server's endgame tables
//! say about one position (docs/PROTOCOL.md, "Endgame tables"), for the page when the
//! class is too big to download (Nine's and Twelve's endings at five a side).
//!
//! The tables are those of the server's tables directory (`--tb-dir`), every class of
//! it, opened once through mill-engine's `tb::files` (the same code `mill tb probe` and
//! Hard's search use) with positioned reads: the operating system's page cache keeps
//! what is read often, and the server's memory does not grow by the hundreds of
//! megabytes of Nine's 5 v 5. Answers are kept in a bounded least-recently-used cache by
//! rule set and position; each address may ask [`Config::tb_probes_per_minute`] times a
//! minute (throttle.rs), cached answers included.
//!
//! [`Config::tb_probes_per_minute`]: crate::config::Config::tb_probes_per_minute

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use mill_core::{Position, Rules, Turn};
use mill_engine::tb::files::{self, Access};
use mill_engine::tb::{Tablebase, Value};
use serde_json::json;

use crate::error::ApiError;
use crate::throttle::PerAddress;

/// Answers kept in the cache.
pub const CACHE_ANSWERS: usize = 10_000;
/// The longest `position` read: a position string of the biggest board, or an MFEN
/// record, is well under it.
pub const MAX_POSITION_TEXT: usize = 256;

/// The probe endpoint's state: the tables by rule set, the cache, the rate per address.
#[derive(Debug)]
pub struct TbProbes {
    dir: Option<PathBuf>,
    /// Opened tables by rule set (`None`: the directory has none of that rule set).
    tables: Mutex<HashMap<String, Option<Arc<Tablebase>>>>,
    cache: Mutex<Lru>,
    /// Probes per address.
    pub per_address: PerAddress,
}

impl TbProbes {
    /// Probes over the tables of `dir` (`None`: no tables, every position is outside
    /// them), `per_minute` for each address (0: unlimited).
    pub fn new(dir: Option<PathBuf>, per_minute: u32) -> TbProbes {
        TbProbes {
            dir,
            tables: Mutex::default(),
            cache: Mutex::new(Lru::new(CACHE_ANSWERS)),
            per_address: PerAddress::new(per_minute),
        }
    }

    fn tables(&self, rules: Rules) -> Option<Arc<Tablebase>> {
        let dir = self.dir.as_ref()?;
        let mut map = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(rules.to_string())
            .or_insert_with(|| files::shared(dir, rules, Access::File).ok())
            .clone()
    }

    /// The answer for `variant` (a rule set's name, Nine's when absent) and `position` (a
    /// position string or an MFEN record of that rule set), from the cache or the tables.
    /// Reads files: call it off the async threads.
    pub fn answer(
        &self,
        variant: Option<&str>,
        position: Option<&str>,
    ) -> Result<Arc<serde_json::Value>, ApiError> {
        let rules = match variant {
            None => *mill_core::NINE,
            Some(name) => Rules::parse(name).map_err(|e| ApiError::BadRules(format!("{name:?}: {e}")))?,
        };
        let text = position.ok_or_else(|| ApiError::BadPosition("no position was given".into()))?;
        if text.len() > MAX_POSITION_TEXT {
            return Err(ApiError::BadPosition(format!(
                "longer than {MAX_POSITION_TEXT} characters"
            )));
        }
        let position = read_position(text, rules)?;
        let key = format!("{rules} {position}");
        if let Some(hit) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(hit);
        }
        let tb = self.tables(rules).ok_or(ApiError::NotInTables)?;
        let answer = Arc::new(answer(&tb, &position).ok_or(ApiError::NotInTables)?);
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .put(key, answer.clone());
        Ok(answer)
    }
}

/// A position string of `rules` (a seventh part, if any, must name them), else an MFEN
/// record of them.
fn read_position(text: &str, rules: Rules) -> Result<Position, ApiError> {
    match Position::from_str_variant(text, rules) {
        Ok(p) => Ok(p),
        Err(string_error) => Position::from_mfen(text, rules).map_err(|mfen_error| {
            ApiError::BadPosition(format!(
                "not a position string of {rules} ({string_error}) nor an MFEN record ({mfen_error})"
            ))
        }),
    }
}

/// `win`, `draw` or `loss` and the distance (none for a draw).
fn value_json(v: Value) -> (&'static str, Option<u16>) {
    match v {
        Value::Win(d) => ("win", Some(d)),
        Value::Loss(d) => ("loss", Some(d)),
        Value::Draw => ("draw", None),
    }
}

/// The answer's JSON (docs/PROTOCOL.md): `None` outside the tables.
pub fn answer(tb: &Tablebase, position: &Position) -> Option<serde_json::Value> {
    let (best, probe) = tb.best_turn(position)?;
    let turns = tb.turn_results(position)?;
    let t = position.topology();
    let notation = |turn: &Turn| turn.to_notation(t);
    let (value, distance) = value_json(probe.result);
    let (dtz, dtz_distance) = value_json(probe.dtz);
    let best_value = turns.iter().find(|(turn, _)| *turn == best).map(|(_, v)| *v);
    Some(json!({
        "variant": position.rules().to_string(),
        "position": position.to_string(),
        "value": value,
        "distance": distance,
        "nextRemoval": { "value": dtz, "distance": dtz_distance },
        "best": notation(&best),
        "bestActions": best.actions().map(|a| a.to_text(t)).collect::<Vec<_>>(),
        "bestTurns": turns
            .iter()
            .filter(|(_, v)| Some(*v) == best_value)
            .map(|(turn, _)| notation(turn))
            .collect::<Vec<_>>(),
        "turns": turns
            .iter()
            .map(|(turn, v)| {
                let (value, distance) = value_json(*v);
                json!({ "turn": notation(turn), "value": value, "distance": distance })
            })
            .collect::<Vec<_>>(),
    }))
}

/// A least-recently-used map of answers, at most `cap` of them.
#[derive(Debug)]
struct Lru {
    cap: usize,
    tick: u64,
    map: HashMap<String, (u64, Arc<serde_json::Value>)>,
    /// Keys by last use, oldest first.
    order: BTreeMap<u64, String>,
}

impl Lru {
    fn new(cap: usize) -> Lru {
        Lru {
            cap: cap.max(1),
            tick: 0,
            map: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    fn get(&mut self, key: &str) -> Option<Arc<serde_json::Value>> {
        let (used, value) = self.map.get_mut(key)?;
        self.order.remove(used);
        self.tick += 1;
        *used = self.tick;
        self.order.insert(self.tick, key.to_string());
        Some(value.clone())
    }

    fn put(&mut self, key: String, value: Arc<serde_json::Value>) {
        if let Some((used, _)) = self.map.remove(&key) {
            self.order.remove(&used);
        }
        while self.map.len() >= self.cap {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.map.remove(&oldest);
        }
        self.tick += 1;
        self.order.insert(self.tick, key.clone());
        self.map.insert(key, (self.tick, value));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_forgets_the_least_recently_used_answer() {
        let mut lru = Lru::new(2);
        let v = |n: i32| Arc::new(json!(n));
        lru.put("a".into(), v(1));
        lru.put("b".into(), v(2));
        assert_eq!(lru.get("a"), Some(v(1)));
        lru.put("c".into(), v(3));
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.get("b"), None, "b was used least recently");
        assert_eq!(lru.get("a"), Some(v(1)));
        assert_eq!(lru.get("c"), Some(v(3)));
        lru.put("c".into(), v(4));
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.get("c"), Some(v(4)));
    }

    #[test]
    fn bad_input_is_refused_with_its_code() {
        let probes = TbProbes::new(None, 0);
        let code = |v: Option<&str>, p: Option<&str>| probes.answer(v, p).unwrap_err().code().as_str();
        assert_eq!(code(Some("ten"), Some("x")), "bad-rules");
        assert_eq!(code(None, None), "bad-position");
        assert_eq!(code(None, Some("not a position")), "bad-position");
        assert_eq!(code(None, Some(&"L".repeat(300))), "bad-position");
        // A position of the game, but no tables here.
        let p = "LL./.../D../...D.D/.../.../..L d 0 0 0 0";
        assert_eq!(code(None, Some(p)), "not-in-tables");
    }
}

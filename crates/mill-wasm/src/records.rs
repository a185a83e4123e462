//! Records in and out for the page: the game as a text record (tags and turns) and
//! positions as MFEN, through `mill-core`'s `record` and `mfen` modules. Every method
//! answers JSON and changes nothing on error, like the rest of [`WasmGame`].

use mill_core::{Game, Header, Mfen, Position, Record, RecordError};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::{WasmGame, to_json};

/// The header fields the page fills in (all optional).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(default)]
struct HeaderJson {
    date: Option<String>,
    light: Option<String>,
    dark: Option<String>,
}

/// An error with what the page needs to point at it: the turn or line at fault.
#[derive(Debug, Serialize)]
struct RecordFailure {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

/// `{"ok":true, …value's fields}` or `{"ok":false,"error":…}`.
fn answer<T: Serialize>(result: Result<T, RecordFailure>) -> String {
    #[derive(Serialize)]
    struct Failed {
        ok: bool,
        error: RecordFailure,
    }
    match result {
        // Each answer type starts with its own `ok` field.
        Ok(value) => to_json(&value),
        Err(error) => to_json(&Failed { ok: false, error }),
    }
}

fn failure(code: &'static str, message: String) -> RecordFailure {
    RecordFailure {
        code,
        message,
        turn: None,
        line: None,
    }
}

impl From<RecordError> for RecordFailure {
    fn from(e: RecordError) -> RecordFailure {
        let (turn, line) = match &e {
            RecordError::Turn { number, .. } => (Some(*number), None),
            RecordError::Header { line, .. } => (None, Some(*line)),
            RecordError::Result(_) => (None, None),
        };
        RecordFailure {
            code: e.code(),
            message: e.to_string(),
            turn,
            line,
        }
    }
}

#[derive(Serialize)]
struct Text {
    ok: bool,
    text: String,
}

#[derive(Serialize)]
struct Imported {
    ok: bool,
    header: HeaderJson,
}

#[derive(Serialize)]
struct Converted {
    ok: bool,
    position: String,
    mfen: String,
}

fn mfen_failure(e: mill_core::MfenError) -> RecordFailure {
    failure(e.code(), format!("Not a valid MFEN position: {e}"))
}

#[wasm_bindgen]
impl WasmGame {
    /// The game as a text record. `header_json` is `{"date", "light", "dark"}` (each
    /// optional; the date `YYYY.MM.DD`). Answers `{"ok":true,"text":…}`, or a
    /// `bad-header` error for a header the record could not be read back with.
    pub fn record_text(&self, header_json: &str) -> String {
        let result = serde_json::from_str::<HeaderJson>(if header_json.trim().is_empty() {
            "{}"
        } else {
            header_json
        })
        .map_err(|e| failure("bad-header", format!("The header is not readable: {e}")))
        .and_then(|h| {
            let header = Header {
                date: h.date,
                light: h.light,
                dark: h.dark,
                other: Vec::new(),
            };
            let text = Record::new(self.game.clone(), header).to_string();
            // What is written must read back: a bad date is refused here.
            Record::parse(&text).map_err(RecordFailure::from)?;
            Ok(Text { ok: true, text })
        });
        answer(result)
    }

    /// Replaces the game with one read from a text record. Answers
    /// `{"ok":true,"header":{"date","light","dark"}}`, or an error (`bad-header` with
    /// its `line`, `bad-turn` with its `turn`, `bad-result`) that leaves the game as it
    /// was.
    pub fn load_record_text(&mut self, text: &str) -> String {
        let result = Record::parse(text).map_err(RecordFailure::from).map(|record| {
            self.game = record.game;
            Imported {
                ok: true,
                header: HeaderJson {
                    date: record.header.date,
                    light: record.header.light,
                    dark: record.header.dark,
                },
            }
        });
        answer(result)
    }

    /// The current position as MFEN, with the game's outcome and count of placements
    /// and moves: `{"ok":true,"text":…}`.
    pub fn mfen(&self) -> String {
        answer(
            Mfen::from_game(&self.game)
                .write()
                .map(|text| Text { ok: true, text })
                .map_err(mfen_failure),
        )
    }

    /// Replaces the game with a new one starting from an MFEN position, under the rules
    /// this game is played by. Errors carry the MFEN code (e.g.
    /// `obligation-target-mismatch`) and change nothing.
    pub fn load_mfen(&mut self, text: &str) -> String {
        let result = Mfen::parse(text.trim(), self.game.position().rules())
            .map_err(mfen_failure)
            .map(|m| {
                self.game = Game::from_position(m.position);
                Text {
                    ok: true,
                    text: m.position.to_string(),
                }
            });
        answer(result)
    }
}

/// A position string (of any rule set) or an MFEN record (of Nine Men's Morris), in both
/// forms: `{"ok":true,"position":…,"mfen":…}`, or the error of the form it was read as.
#[wasm_bindgen]
pub fn convert_position(text: &str) -> String {
    let text = text.trim();
    let result = if text.starts_with("MFEN/") {
        Mfen::parse(text, mill_core::NINE)
            .map_err(mfen_failure)
            .and_then(|m| {
                Ok(Converted {
                    ok: true,
                    position: m.position.to_string(),
                    mfen: m.write().map_err(mfen_failure)?,
                })
            })
    } else {
        text.parse::<Position>()
            .map_err(|e| failure("bad-position", format!("Not a valid position: {e}")))
            .and_then(|p| {
                Ok(Converted {
                    ok: true,
                    position: p.to_string(),
                    mfen: p.to_mfen().map_err(mfen_failure)?,
                })
            })
    };
    answer(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{json, played};

    #[test]
    fn a_record_exported_then_imported_is_the_same_game() {
        let g = played(&["a1", "b2", "d1", "d2", "g1", "xd2", "f4"]);
        let reply = json(&g.record_text(r#"{"date":"2026.12.01","light":"Anna","dark":"Boris"}"#));
        assert_eq!(reply["ok"], true, "{reply}");
        let text = reply["text"].as_str().unwrap();
        assert!(
            text.contains("[Light \"Anna\"]") && text.contains("1. a1 b2 2. d1 d2 3. g1xd2 f4 *"),
            "{text}"
        );

        let mut other = WasmGame::new();
        let reply = json(&other.load_record_text(text));
        assert_eq!(reply["ok"], true, "{reply}");
        assert_eq!(reply["header"]["dark"], "Boris");
        assert_eq!(reply["header"]["date"], "2026.12.01");
        assert_eq!(other.snapshot(), g.snapshot());
        assert_eq!(other.export_record(), g.export_record());
    }

    #[test]
    fn a_bad_record_names_the_turn_and_changes_nothing() {
        let mut g = played(&["a1"]);
        let before = g.snapshot();
        let reply = json(&g.load_record_text("1. a1 b2 2. d1 d2 3. g1xd3"));
        assert_eq!(reply["ok"], false);
        assert_eq!(reply["error"]["code"], "bad-turn");
        assert_eq!(reply["error"]["turn"], 5);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("turn 5 (3. g1xd3)")
        );
        assert_eq!(g.snapshot(), before);

        let reply = json(&g.load_record_text("[Variant \"nine\"]\n[Date nope]\n"));
        assert_eq!(
            (reply["error"]["code"].as_str(), reply["error"]["line"].as_u64()),
            (Some("bad-header"), Some(2))
        );
        assert_eq!(g.snapshot(), before);

        let reply = json(&g.record_text(r#"{"date":"soon"}"#));
        assert_eq!(reply["error"]["code"], "bad-header");
        let reply = json(&g.record_text("not json"));
        assert_eq!(reply["error"]["code"], "bad-header");
        assert_eq!(json(&g.record_text(""))["ok"], true);
    }

    #[test]
    fn mfen_out_and_in() {
        let mut g = played(&["a1", "b2", "d1", "d2", "g1"]);
        let reply = json(&g.mfen());
        let text = reply["text"].as_str().unwrap().to_string();
        assert_eq!(
            text,
            "MFEN/1.0 mill24-state-v1 ....WWW./.....BB./........ w p r 6,7 w:mill:b:b:1:006000:b 0 5 -"
        );
        let mut other = WasmGame::new();
        let reply = json(&other.load_mfen(&text));
        assert_eq!(reply["ok"], true, "{reply}");
        assert_eq!(reply["text"], g.game().position().to_string());
        assert_eq!(
            json(&other.snapshot())["removable"],
            json(&g.snapshot())["removable"]
        );

        let before = g.snapshot();
        let reply = json(&g.load_mfen(&text.replace("006000", "002000")));
        assert_eq!(reply["error"]["code"], "obligation-target-mismatch");
        assert_eq!(g.snapshot(), before);
    }

    #[test]
    fn records_carry_their_rules_and_mfen_follows_the_game() {
        let mut g = WasmGame::new();
        let reply = json(&g.load_record_text("[Variant \"twelve\"]\n\n1. a1 b2"));
        assert_eq!(reply["ok"], true, "{reply}");
        let text = json(&g.mfen())["text"].as_str().unwrap().to_string();
        assert!(text.contains(" w p p 11,11 "), "{text}");
        // MFEN is read under the game's rules: twelve pieces each, so this is Twelve's.
        let mut other = json(&g.load_mfen(&text));
        assert_eq!(other["ok"], true, "{other}");
        assert!(g.game().position().to_string().ends_with(" twelve"));
        assert!(
            json(&g.record_text("{}"))["text"]
                .as_str()
                .unwrap()
                .starts_with("[Variant \"twelve\"]")
        );
        // Six Men's Morris has no MFEN form.
        assert_eq!(
            json(&g.load_record_text("[Variant \"six\"]\n\n1. a1"))["ok"],
            true
        );
        other = json(&g.mfen());
        assert_eq!(other["error"]["code"], "unrepresentable-under-profile");
    }

    #[test]
    fn positions_convert_both_ways() {
        let start = ".../.../.../....../.../.../... l 9 9 0 0";
        let mfen = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 9,9 - 0 0 -";
        for input in [start, mfen] {
            let reply = json(&convert_position(input));
            assert_eq!(
                (reply["position"].as_str(), reply["mfen"].as_str()),
                (Some(start), Some(mfen))
            );
        }
        assert_eq!(
            json(&convert_position("LLL l 9 9 0 0"))["error"]["code"],
            "bad-position"
        );
        assert_eq!(json(&convert_position("MFEN/1.0 x"))["error"]["code"], "syntax");
    }
}

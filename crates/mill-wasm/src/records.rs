//! Records in and out for the page: the game as a text record (tags and turns) or as
//! the Mill Interchange Format's MSTATE (a whole game other Mill programs read), and
//! positions as MFEN, through `mill-core`'s `record` and `mfen` modules and `mill-mif`'s `mstate`. Every method
//! answers JSON and changes nothing on error, like the rest of [`WasmGame`].

use mill_core::record::TurnProblem;
use mill_core::{Game, Header, Mfen, Position, Record, RecordError, Rules, Variant};
use mill_mif::{MifError, json::canonical, mstate};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::{WasmGame, to_json};

/// The header fields the page fills in (all optional). `tags` are further tags in their
/// order, as `[name, value]` pairs (online: `Room`, `Round`).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(default)]
struct HeaderJson {
    date: Option<String>,
    light: Option<String>,
    dark: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<(String, String)>,
}

/// An error with what the page needs to point at it: the turn or line at fault; for
/// MFEN refused under the rules tried, the variants (with their usual rules) it does
/// read under, since MFEN does not say its rules and the page must not guess them.
#[derive(Debug, Serialize)]
struct RecordFailure {
    code: String,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<usize>,
    /// For `bad-turn`, what is wrong with the turn as a code, so the page can say it in
    /// its own words: the rules' [`PlayError::code`](mill_core::PlayError::code) when the
    /// turn is illegal (`occupied`, `not-adjacent`, …), else `notation`, `move-number`,
    /// `after-result` or `unclosed-comment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fits: Vec<String>,
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

fn failure(code: impl Into<String>, message: String) -> RecordFailure {
    RecordFailure {
        code: code.into(),
        message,
        turn: None,
        reason: None,
        line: None,
        fits: Vec::new(),
    }
}

impl From<RecordError> for RecordFailure {
    fn from(e: RecordError) -> RecordFailure {
        let (turn, line) = match &e {
            RecordError::Turn { number, .. } => (Some(*number), None),
            RecordError::Header { line, .. } => (None, Some(*line)),
            RecordError::Result(_) => (None, None),
        };
        let reason = match &e {
            RecordError::Turn { problem, .. } => Some(match problem {
                TurnProblem::Notation(_) => "notation",
                TurnProblem::Illegal(play) => play.code(),
                TurnProblem::MoveNumber { .. } => "move-number",
                TurnProblem::AfterResult => "after-result",
                TurnProblem::UnclosedComment => "unclosed-comment",
            }),
            _ => None,
        };
        RecordFailure {
            code: e.code().to_string(),
            message: e.to_string(),
            turn,
            reason,
            line,
            fits: Vec::new(),
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

fn mif_failure(e: MifError) -> RecordFailure {
    failure(
        e.code.clone(),
        format!("Not a game this page can read as MIF: {}", e.message),
    )
}

fn mfen_failure(e: mill_core::MfenError) -> RecordFailure {
    failure(e.code(), format!("Not a valid MFEN position: {e}"))
}

/// MFEN `text` refused under `rules`: the error, with the variants it does read under.
fn mfen_refusal(text: &str, rules: &'static Rules, e: mill_core::MfenError) -> RecordFailure {
    let mut refusal = failure(e.code(), format!("Not a valid MFEN position under {rules}: {e}"));
    refusal.fits = Mfen::readable_under(text, Variant::ALL.map(Variant::rules))
        .into_iter()
        .filter(|&other| other != rules)
        .map(|other| other.to_string())
        .collect();
    refusal
}

/// The rules named by `rules` (a rule-set name such as `twelve+per-mill`), else `or`.
fn rules_or(rules: Option<String>, or: &'static Rules) -> Result<&'static Rules, RecordFailure> {
    match rules.as_deref().map(str::trim) {
        None | Some("") => Ok(or),
        Some(name) => Rules::parse_table(name).map_err(|e| failure("bad-rules", e.to_string())),
    }
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
                other: h.tags,
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
        let result = Record::parse(text)
            .map_err(RecordFailure::from)
            .and_then(|record| {
                crate::offered(record.game.position().rules())
                    .map_err(|message| failure("bad-rules", message))?;
                self.replace(record.game, None);
                Ok(Imported {
                    ok: true,
                    header: HeaderJson {
                        date: record.header.date,
                        light: record.header.light,
                        dark: record.header.dark,
                        tags: record.header.other,
                    },
                })
            });
        answer(result)
    }

    /// The current position as MFEN, with the game's outcome and count of placements
    /// and moves (counted on from an MFEN start's own count): `{"ok":true,"text":…}`.
    pub fn mfen(&self) -> String {
        answer(
            Mfen::of_game(&self.game, self.start_ply())
                .write()
                .map(|text| Text { ok: true, text })
                .map_err(mfen_failure),
        )
    }

    /// Replaces the game with a new one starting from an MFEN position, read under
    /// `rules` (a rule-set name; absent: the rules this game is played by). Errors carry
    /// the MFEN code (e.g. `obligation-target-mismatch`, or
    /// `unrepresentable-under-profile` for Three's and Six's boards), the variants it
    /// would read under (`fits`), and change nothing.
    pub fn load_mfen(&mut self, text: &str, rules: Option<String>) -> String {
        let text = text.trim();
        let result = rules_or(rules, self.game.position().rules())
            .and_then(|rules| Mfen::parse(text, rules).map_err(|e| mfen_refusal(text, rules, e)))
            .map(|m| {
                self.replace(Game::from_position(m.position), Some(m.primary_ply));
                Text {
                    ok: true,
                    text: m.position.to_string(),
                }
            });
        answer(result)
    }
}

#[wasm_bindgen]
impl WasmGame {
    /// The whole game as MIF's MSTATE/1.0: one line of JSON holding the rules' manifest,
    /// the start as MFEN, every action and the checkpoints, `{"ok":true,"text":…}`; the
    /// boards of Three and Six have none (`unrepresentable-under-profile`).
    pub fn mstate(&self) -> String {
        answer(
            mstate::write(&self.game, self.start_ply())
                .map(|doc| Text {
                    ok: true,
                    text: canonical(&doc),
                })
                .map_err(mif_failure),
        )
    }

    /// Replaces the game with the one an MSTATE/1.0 document records, replayed under
    /// the rules its manifest maps to and checked against its checkpoints. Errors carry
    /// MIF's code (`unsupported-ruleset` for rules this page does not play,
    /// `checkpoint-mismatch`, …) and change nothing.
    pub fn load_mstate(&mut self, text: &str) -> String {
        let result = mstate::read(text.trim(), None)
            .map_err(mif_failure)
            .and_then(|(game, ply)| {
                crate::offered(game.position().rules())
                    .map_err(|message| failure("unsupported-ruleset", message))?;
                self.replace(game, Some(ply));
                Ok(Text {
                    ok: true,
                    text: self.game.position().to_string(),
                })
            });
        answer(result)
    }
}

/// A position string (of any rule set) or an MFEN record (read under `rules`, a rule-set
/// name; absent: Nine Men's Morris), in both forms: `{"ok":true,"position":…,"mfen":…}`,
/// or the error of the form it was read as (a position of Three or Six has no MFEN form:
/// `unrepresentable-under-profile`).
#[wasm_bindgen]
pub fn convert_position(text: &str, rules: Option<String>) -> String {
    let text = text.trim();
    let result = if text.starts_with("MFEN/") {
        rules_or(rules, mill_core::NINE)
            .and_then(|rules| Mfen::parse(text, rules).map_err(|e| mfen_refusal(text, rules, e)))
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
        // What is wrong with the turn, as a code the page words itself.
        let mut reason = |text: &str| json(&g.load_record_text(text))["error"]["reason"].clone();
        assert_eq!(reason("1. a1 a1"), "occupied");
        assert_eq!(reason("1. a1 zz9"), "notation");
        assert_eq!(reason("1. a1 b2 3. d1"), "move-number");
        assert_eq!(
            json(&g.load_record_text("[Date nope]\n"))["error"].get("reason"),
            None
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
        let reply = json(&other.load_mfen(&text, None));
        assert_eq!(reply["ok"], true, "{reply}");
        assert_eq!(reply["text"], g.game().position().to_string());
        assert_eq!(
            json(&other.snapshot())["removable"],
            json(&g.snapshot())["removable"]
        );

        let before = g.snapshot();
        let reply = json(&g.load_mfen(&text.replace("006000", "002000"), None));
        assert_eq!(reply["error"]["code"], "obligation-target-mismatch");
        assert_eq!(g.snapshot(), before);
    }

    #[test]
    fn an_mfen_start_keeps_its_count_of_placements_and_moves() {
        let mut g = WasmGame::new();
        let text = "MFEN/1.0 mill24-state-v1 WWW...../BBB...../........ w m m 0,0 - 0 40 -";
        assert_eq!(json(&g.load_mfen(text, None))["ok"], true);
        assert_eq!(json(&g.mfen())["text"], text);
        assert_eq!(json(&g.play("g7-g4"))["ok"], true);
        let after = json(&g.mfen())["text"].as_str().unwrap().to_string();
        assert!(after.ends_with(" 1 41 -"), "{after}");
        let doc: serde_json::Value =
            serde_json::from_str(json(&g.mstate())["text"].as_str().unwrap()).unwrap();
        assert_eq!(doc["origin"], text);
        let mut other = WasmGame::new();
        assert_eq!(json(&other.load_mstate(&canonical(&doc)))["ok"], true);
        assert_eq!(json(&other.mfen())["text"], after.as_str());
        // A new start forgets it; a restart keeps the same start.
        g.restart();
        assert_eq!(json(&g.mfen())["text"], text);
        assert_eq!(
            json(&g.load_position(".../.../.../....../.../.../... l 9 9 0 0"))["ok"],
            true
        );
        assert!(json(&g.mfen())["text"].as_str().unwrap().ends_with(" 0 0 -"));
    }

    #[test]
    fn games_under_rules_the_page_does_not_offer_are_refused() {
        let mut g = played(&["d6"]);
        let record = "[Variant \"nine+pieces-12\"]\n\n1. d6 *\n";
        let reply = json(&g.load_record_text(record));
        assert_eq!(reply["error"]["code"], "bad-rules", "{reply}");
        let mfen = "MFEN/1.0 mill24-state-v1 ......../......../........ w p p 12,12 - 0 0 -";
        let reply = json(&g.load_mfen(mfen, Some("nine+pieces-12".into())));
        assert_eq!(reply["error"]["code"], "bad-rules", "{reply}");
        // An MSTATE game under such rules, as another program would send it.
        let rules = Rules::parse("nine+pieces-12").unwrap();
        let game = Game::from_position(Position::start(rules));
        let doc = canonical(&mstate::write(&game, 0).unwrap());
        let reply = json(&g.load_mstate(&doc));
        assert_eq!(reply["error"]["code"], "unsupported-ruleset", "{reply}");
        assert_eq!(g.game().actions().len(), 1, "unchanged on error");
    }

    #[test]
    fn a_game_goes_out_and_comes_back_as_mstate() {
        let mut g = played(&["a1", "b2", "d1", "d2", "g1", "xd2", "f4"]);
        let reply = json(&g.mstate());
        assert_eq!(reply["ok"], true, "{reply}");
        let text = reply["text"].as_str().unwrap().to_string();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["format"], "MSTATE/1.0");
        assert_eq!(doc["events"][5]["target"]["at"], "d2");
        let mut other = WasmGame::new();
        let reply = json(&other.load_mstate(&text));
        assert_eq!(reply["ok"], true, "{reply}");
        assert_eq!(other.snapshot(), g.snapshot());
        assert_eq!(other.export_record(), g.export_record());
        // A tampered checkpoint is refused with MIF's code, and nothing changes.
        let before = other.snapshot();
        let current = doc["current"].as_str().unwrap();
        assert!(current.ends_with(" w p p 6,6 - 0 6 -"), "{current}");
        let tampered = text.replace(current, &current.replace(" 0 6 -", " 0 7 -"));
        let reply = json(&other.load_mstate(&tampered));
        assert_eq!(reply["error"]["code"], "checkpoint-mismatch", "{reply}");
        assert_eq!(other.snapshot(), before);
        // Six's board has no MIF form.
        assert_eq!(
            json(&g.load_record_text("[Variant \"six\"]\n\n1. a1"))["ok"],
            true
        );
        assert_eq!(
            json(&g.mstate())["error"]["code"],
            "unrepresentable-under-profile"
        );
    }

    #[test]
    fn records_carry_their_rules_and_mfen_follows_the_game() {
        let mut g = WasmGame::new();
        let reply = json(&g.load_record_text("[Variant \"twelve\"]\n\n1. a1 b2"));
        assert_eq!(reply["ok"], true, "{reply}");
        let text = json(&g.mfen())["text"].as_str().unwrap().to_string();
        assert!(text.contains(" w p p 11,11 "), "{text}");
        // MFEN is read under the game's rules: twelve pieces each, so this is Twelve's.
        let mut other = json(&g.load_mfen(&text, None));
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
            let reply = json(&convert_position(input, None));
            assert_eq!(
                (reply["position"].as_str(), reply["mfen"].as_str()),
                (Some(start), Some(mfen))
            );
        }
        assert_eq!(
            json(&convert_position("LLL l 9 9 0 0", None))["error"]["code"],
            "bad-position"
        );
        assert_eq!(
            json(&convert_position("MFEN/1.0 x", None))["error"]["code"],
            "syntax"
        );
    }

    #[test]
    fn mfen_is_read_under_the_rules_asked_for_and_says_which_fit() {
        let twelve = "MFEN/1.0 mill24-state-v1 W......./......../........ b p p 11,12 - 0 1 -".to_string();
        // Under the game's rules (Nine) it has too many pieces: refused, Twelve named.
        let mut g = played(&["a1"]);
        let before = g.snapshot();
        let reply = json(&g.load_mfen(&twelve, None));
        assert_eq!(reply["error"]["code"], "bad-position", "{reply}");
        assert_eq!(reply["error"]["fits"], serde_json::json!(["twelve"]));
        assert_eq!(g.snapshot(), before);
        // Asked for Twelve (or Twelve with an option), it loads, with Twelve's board.
        let reply = json(&g.load_mfen(&twelve, Some("twelve+per-mill".into())));
        assert_eq!(reply["ok"], true, "{reply}");
        assert!(g.game().position().to_string().ends_with(" twelve+per-mill"));
        assert_eq!(json(&g.snapshot())["turn"], "dark");
        // Three's and Six's boards have no MFEN form: the core's code says so.
        let reply = json(&g.load_mfen(&twelve, Some("six".into())));
        assert_eq!(reply["error"]["code"], "unrepresentable-under-profile", "{reply}");
        let reply = json(&g.load_mfen(&twelve, Some("seven".into())));
        assert_eq!(reply["error"]["code"], "bad-rules", "{reply}");
        let converted = json(&convert_position(&twelve, Some("twelve".into())));
        assert_eq!(converted["mfen"], twelve.as_str(), "{converted}");
        assert!(converted["position"].as_str().unwrap().ends_with(" twelve"));
        let converted = json(&convert_position(&twelve, None));
        assert_eq!(converted["error"]["fits"], serde_json::json!(["twelve"]));
    }

    #[test]
    fn an_online_round_writes_its_room_round_and_result() {
        // A round record as the server keeps it: the resignation is not on the board.
        let mut g = WasmGame::new();
        let start = json(&g.snapshot())["position"].as_str().unwrap().to_string();
        let round = serde_json::json!({
            "start": start,
            "actions": ["a1", "b2"],
            "result": {"winner": "dark", "reason": "resignation"},
        });
        assert_eq!(json(&g.import_record(&round.to_string()))["ok"], true);
        assert_eq!(json(&g.snapshot())["outcome"]["reason"], "resignation");
        assert_eq!(json(&g.export_record()), round, "the result is saved too");
        let header = r#"{"date":"2026.12.01","tags":[["Room","Ab3_x"],["Round","2"]]}"#;
        let text = json(&g.record_text(header))["text"].as_str().unwrap().to_string();
        assert!(
            text.contains("[Result \"0-1\"]\n[Termination \"resignation\"]\n"),
            "{text}"
        );
        assert!(text.contains("[Room \"Ab3_x\"]\n[Round \"2\"]\n"), "{text}");
        assert!(text.ends_with("1. a1 b2 0-1\n"), "{text}");
        let mut back = WasmGame::new();
        let reply = json(&back.load_record_text(&text));
        assert_eq!(
            reply["header"]["tags"],
            serde_json::json!([["Room", "Ab3_x"], ["Round", "2"]])
        );
        assert_eq!(back.snapshot(), g.snapshot());
        // A tag name the record cannot hold is refused.
        let reply = json(&g.record_text(r#"{"tags":[["No room","x"]]}"#));
        assert_eq!(reply["error"]["code"], "bad-header", "{reply}");

        // Results that are not the board's are refused, and change nothing.
        let mut other = WasmGame::new();
        for result in [
            serde_json::json!({"winner": "light", "reason": "pieces"}),
            serde_json::json!({"winner": null, "reason": "resignation"}),
            serde_json::json!({"winner": "light", "reason": "agreement"}),
        ] {
            let bad = serde_json::json!({"start": start, "actions": ["a1"], "result": result});
            let reply = json(&other.import_record(&bad.to_string()));
            assert_eq!(reply["error"]["code"], "bad-record", "{result}: {reply}");
            assert_eq!(json(&other.snapshot())["actions"], serde_json::json!([]));
        }
        let drawn = serde_json::json!({"start": start, "actions": [], "result": {"winner": null, "reason": "agreement"}});
        assert_eq!(json(&other.import_record(&drawn.to_string()))["ok"], true);
        assert_eq!(json(&other.snapshot())["outcome"]["kind"], "draw");
    }
}

//! The rule sets for the page: the variant chooser's list, what a rule set means, and
//! games started under one. Every answer is JSON and nothing changes on error, like
//! the rest of [`WasmGame`].

use mill_core::{Game, Mfen, Position, Rules, Variant};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{Failure, WasmGame, reply, to_json};

/// What the page shows and offers for one rule set.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RulesJson {
    /// The rule set's name, as position strings and saved games carry it
    /// (`nine`, `six+per-mill`).
    pub rules: String,
    /// The variant: `three`, `six`, `nine` or `twelve`.
    pub variant: &'static str,
    /// Pieces each side starts with.
    pub pieces: u8,
    /// After placing, a side with this many pieces or fewer flies (0: never).
    pub fly_at: u8,
    /// `one` or `per-mill`.
    pub removals: &'static str,
    /// Whether pieces in mills are protected while others stand free.
    pub protect: bool,
    /// Whether closing a line wins at once (Three Men's Morris).
    pub mill_wins: bool,
    /// Whether the rule options may change (every variant with removals).
    pub has_options: bool,
    /// The variant's usual options: `{flyAt, removals, protect}`.
    pub defaults: DefaultsJson,
    /// The start position string.
    pub start: String,
    /// Why positions under these rules have no MFEN form (`{"code", "message"}`, the
    /// core's `unrepresentable-under-profile`), or null where they have one.
    pub mfen_refused: Option<Failure>,
}

/// A variant's usual options.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefaultsJson {
    /// The usual flying threshold.
    pub fly_at: u8,
    /// The usual removal rule.
    pub removals: &'static str,
    /// Whether mills usually protect.
    pub protect: bool,
}

fn rules_json(rules: &Rules) -> RulesJson {
    let defaults = rules.variant.default_options();
    RulesJson {
        rules: rules.to_string(),
        variant: rules.variant.name(),
        pieces: rules.pieces,
        fly_at: rules.fly_at,
        removals: rules.removals.name(),
        protect: rules.protect_mills,
        mill_wins: rules.mill_wins,
        has_options: rules.variant.has_removals(),
        defaults: DefaultsJson {
            fly_at: defaults.fly_at,
            removals: defaults.removals.name(),
            protect: defaults.protect,
        },
        start: Position::start(rules).to_string(),
        mfen_refused: Mfen::supports(rules)
            .err()
            .map(|e| Failure::new(e.code(), e.to_string())),
    }
}

fn parse_rules(text: &str) -> Result<&'static Rules, Failure> {
    // The table's only: a name with extended options is refused without being made.
    Rules::parse_table(text.trim()).map_err(|e| Failure::new("bad-rules", e.to_string()))
}

/// Every variant with its usual rules, smallest board first: a JSON list of
/// [`RulesJson`].
#[wasm_bindgen]
pub fn variants() -> String {
    let list: Vec<RulesJson> = Variant::ALL.into_iter().map(|v| rules_json(v.rules())).collect();
    to_json(&list)
}

/// What a rule set (`six+per-mill`) means: `{"ok":true,"rules":{…RulesJson}}` or an
/// error with code `bad-rules` saying what is wrong with it.
#[wasm_bindgen]
pub fn rules_info(text: &str) -> String {
    #[derive(Serialize)]
    struct Answer {
        ok: bool,
        rules: RulesJson,
    }
    match parse_rules(text) {
        Ok(rules) => to_json(&Answer {
            ok: true,
            rules: rules_json(rules),
        }),
        Err(e) => reply(Err(e)),
    }
}

#[wasm_bindgen]
impl WasmGame {
    /// Replaces the game with a new one from the start under `rules` (`three`,
    /// `twelve+per-mill`). Returns `{"ok":true}` or an error with code `bad-rules`; on
    /// error nothing changes.
    pub fn start_rules(&mut self, rules: &str) -> String {
        reply(parse_rules(rules).map(|r| self.replace(Game::from_position(Position::start(r)), None)))
    }

    /// The rule set this game is played under, as [`RulesJson`].
    pub fn rules(&self) -> String {
        to_json(&rules_json(&self.game.position().rules()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chooser_lists_every_variant_and_games_start_under_any_rule_set() {
        let list: serde_json::Value = serde_json::from_str(&variants()).unwrap();
        let names: Vec<&str> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["variant"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["three", "six", "nine", "twelve"]);
        assert_eq!(list[0]["millWins"], true);
        assert_eq!(list[0]["hasOptions"], false);
        assert_eq!(list[3]["flyAt"], 4);
        assert_eq!(list[3]["pieces"], 12);
        // MFEN is for the 24-point board: Three's and Six's rules say why not.
        let refused: Vec<Option<&str>> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["mfenRefused"]["code"].as_str())
            .collect();
        let code = Some("unrepresentable-under-profile");
        assert_eq!(refused, [code, code, None, None]);

        let mut game = WasmGame::new();
        assert_eq!(game.start_rules("six+per-mill"), r#"{"ok":true}"#);
        let rules: serde_json::Value = serde_json::from_str(&game.rules()).unwrap();
        assert_eq!(rules["rules"], "six+per-mill");
        assert_eq!(rules["removals"], "per-mill");
        assert_eq!(rules["start"], ".../.../..../.../... l 6 6 0 0 six+per-mill");
        // A saved game carries its rules in the start position.
        let saved: serde_json::Value = serde_json::from_str(&game.export_record()).unwrap();
        assert_eq!(saved["start"], ".../.../..../.../... l 6 6 0 0 six+per-mill");

        let bad = game.start_rules("three+per-mill");
        assert!(bad.contains(r#""code":"bad-rules""#), "{bad}");
        assert_eq!(
            game.game().position().variant(),
            Variant::Six,
            "unchanged on error"
        );
        assert!(rules_info("ten").contains("bad-rules"));
        assert!(rules_info("twelve+fly-0").contains(r#""flyAt":0"#));
    }

    #[test]
    fn the_page_plays_only_the_tables_rule_sets() {
        // mill-core's extended options (for MIF games) are not offered here, however
        // they come in: a rule-set name, a position string, a saved game.
        let mut game = WasmGame::new();
        for name in ["nine+pieces-12", "twelve+repetition-claim", "nine+quiet-0"] {
            let bad = game.start_rules(name);
            assert!(bad.contains(r#""code":"bad-rules""#), "{name}: {bad}");
            assert!(rules_info(name).contains("bad-rules"), "{name}");
        }
        let bad = game.load_position(".../.../.../....../.../.../... l 12 12 0 0 nine+pieces-12");
        assert!(bad.contains(r#""code":"bad-rules""#), "{bad}");
        let saved = r#"{"start":".../.../.../....../.../.../... l 9 9 0 0 nine+quiet-0","actions":["d6"]}"#;
        assert!(game.import_record(saved).contains(r#""code":"bad-rules""#));
        assert_eq!(
            game.game().position().rules(),
            mill_core::NINE,
            "unchanged on error"
        );
    }
}

//! MRS/1.0 rule-set manifests: the closed document, its `mrs-semantic-v1` projection,
//! the two digests, and the mapping to and from this crate's [`Rules`].
//!
//! A manifest describes a finite set of mechanisms, many of which this crate does not
//! play (capture by custodian, intervention or leap; removals from hand; blocked
//! tokens; movement while placing; draws by claim; a no-progress rule other than the
//! hundred turns…). [`Manifest::rules`] maps a manifest to the one rule set that plays
//! exactly what it says, or refuses it with `unsupported/unsupported-ruleset` and a
//! pointer to the first member it cannot honour. [`Manifest::action_rules`] is the
//! weaker question a position's legal actions ask: the draw mechanisms (no-progress
//! and repetition counters, offers, claims) change when a game ends, never which
//! placements, moves and removals are legal in a position that is still going.

use super::json::{canonical, digest};
use super::{MifError, Obj, is_identifier, schema};
use mill_core::Color;
use mill_core::{
    BoardFull, DrawBy, MAX_PIECES, MIN_PIECES, NoPlacement, Options, RemovalRule, Rules, RulesError, Variant,
};
use serde_json::{Map, Value, json};

/// A validated MRS/1.0 manifest with its digests.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The complete document as read.
    pub document: Value,
    /// `id`.
    pub id: String,
    /// `version`.
    pub version: u64,
    /// SHA-256 over the JCS bytes of the `mrs-semantic-v1` projection.
    pub semantic_digest: String,
    /// SHA-256 over the JCS bytes of the whole document.
    pub document_digest: String,
}

const BOARD_FULL: [&str; 6] = [
    "active-player-removes",
    "black-then-white-remove",
    "disabled",
    "draw",
    "white-loses",
    "white-then-black-remove",
];
const STALEMATE: [&str; 6] = [
    "both-remove",
    "change-player",
    "draw",
    "loss",
    "remove-and-change",
    "remove-and-retain",
];
const PLACING_EFFECTS: [&str; 6] = [
    "mark-opponent-board-until-moving",
    "opponent-remove-own-board",
    "remove-by-current-mill-count-at-placing-end",
    "remove-opponent-board",
    "remove-opponent-hand-change",
    "remove-opponent-hand-retain",
];
const RESET_EVENTS: [&str; 4] = ["board-remove", "hand-remove", "mill-formation", "place"];
/// The points of the 24-point boards.
const POINTS: usize = 24;

fn unsupported_ruleset(path: String, what: impl Into<String>) -> MifError {
    MifError::new(
        "unsupported",
        "unsupported-ruleset",
        format!("these rules are not played here: {}", what.into()),
    )
    .at(path)
}

impl Manifest {
    /// Reads and validates a manifest given as JSON text.
    pub fn parse(text: &str) -> Result<Manifest, MifError> {
        Manifest::from_value(super::json::parse(text)?)
    }

    /// Validates a manifest (MRS/1.0, `mif-finite-rules-v3`) and computes its digests.
    /// Unknown members, values or extension profiles are refused, never ignored.
    pub fn from_value(document: Value) -> Result<Manifest, MifError> {
        let m = Obj::of(&document, "")?;
        m.closed(
            &[
                "format",
                "id",
                "version",
                "title",
                "status",
                "semanticsProfile",
                "topology",
                "pieces",
                "turn",
                "flying",
                "placing",
                "mills",
                "captures",
                "boardFull",
                "stalemate",
                "draw",
                "semanticState",
            ],
            &["description", "annotations", "extensions"],
        )?;
        if m.str("format")? != "MRS/1.0" {
            return Err(
                MifError::new("unsupported", "unsupported-format", "a manifest is MRS/1.0").at("/format"),
            );
        }
        let id = m.str("id")?;
        if !is_identifier(id) {
            return Err(schema("/id", "an identifier: 1 to 63 of a-z, 0-9, '.', '-'"));
        }
        let version = m.positive("version")?;
        m.str("title")?;
        m.one_of("status", &["deprecated", "experimental", "fixture", "registered"])?;
        if let Some(d) = m.opt("description")
            && d.as_str().is_none_or(str::is_empty)
        {
            return Err(schema("/description", "a non-empty string"));
        }
        if let Some(a) = m.opt("annotations")
            && !a.is_object()
        {
            return Err(schema("/annotations", "an object"));
        }
        if m.str("semanticsProfile")? != "mif-finite-rules-v3" {
            return Err(MifError::new(
                "unsupported",
                "unsupported-profile",
                "the semantics profile is mif-finite-rules-v3",
            )
            .at("/semanticsProfile"));
        }
        m.one_of("topology", &["mill24-diagonal-v1", "mill24-orthogonal-v1"])?;

        let pieces = m.obj("pieces")?;
        pieces.closed(&["white", "black", "minimumLive"], &[])?;
        let (white, black, minimum) = (
            pieces.positive("white")?,
            pieces.positive("black")?,
            pieces.positive("minimumLive")?,
        );
        if minimum > white.min(black) {
            return Err(MifError::new(
                "inconsistent",
                "manifest-inconsistent",
                "minimumLive exceeds a side's pieces",
            )
            .at("/pieces/minimumLive"));
        }
        let turn = m.obj("turn")?;
        turn.closed(&["initial", "placingEndActivePlayer"], &[])?;
        turn.one_of("initial", &["b", "w"])?;
        turn.one_of("placingEndActivePlayer", &["b", "retain", "w"])?;
        let flying = m.obj("flying")?;
        flying.closed(&["enabled", "maximumLive"], &[])?;
        if flying.bool("enabled")? && flying.positive("maximumLive")? < minimum {
            return Err(MifError::new(
                "inconsistent",
                "manifest-inconsistent",
                "enabled flying has maximumLive >= minimumLive",
            )
            .at("/flying/maximumLive"));
        }
        flying.positive("maximumLive")?;

        let placing = m.obj("placing")?;
        placing.closed(&["movementAllowed", "earlyStop", "noLegalPrimaryAction"], &[])?;
        placing.bool("movementAllowed")?;
        let early = placing.obj("earlyStop")?;
        early.closed(&["emptyPoints", "boundary"], &[])?;
        early.uint("emptyPoints")?;
        early.one_of("boundary", &["after-unobligated-place-v1"])?;
        let liveness = placing.one_of("noLegalPrimaryAction", &["apply-board-full", "draw", "loss"])?;

        let mills = m.obj("mills")?;
        mills.closed(
            &[
                "placingEffect",
                "movingEffect",
                "removalMultiplicity",
                "targetProtection",
                "lineReuse",
                "reverseReformation",
                "delayedClearBoundary",
            ],
            &[],
        )?;
        let placing_effect = mills.one_of("placingEffect", &PLACING_EFFECTS)?;
        mills.one_of("movingEffect", &["remove-opponent-board"])?;
        mills.one_of("removalMultiplicity", &["one-per-new-line", "one-per-primary"])?;
        mills.one_of("targetProtection", &["all-opponent", "outside-mill-first"])?;
        let reuse = mills.one_of("lineReuse", &["once-per-player", "unlimited"])?;
        let reverse = mills.one_of("reverseReformation", &["allowed", "prohibit-immediate"])?;
        mills.one_of("delayedClearBoundary", &["on-enter-moving-v1"])?;

        let captures = m.obj("captures")?;
        captures.closed(&["resolution", "custodian", "intervention", "leap"], &[])?;
        captures.one_of("resolution", &["target-commits-v1"])?;
        let mut placing_capture = false;
        for name in ["custodian", "intervention", "leap"] {
            let c = captures.obj(name)?;
            c.closed(&["enabled", "lines", "phases", "maximumOwnLivePieces"], &[])?;
            let enabled = c.bool("enabled")?;
            let lines = c.obj("lines")?;
            lines.closed(&["squareEdges", "cross", "diagonal"], &[])?;
            let families = [
                lines.bool("squareEdges")?,
                lines.bool("cross")?,
                lines.bool("diagonal")?,
            ];
            let phases = c.set("phases", &["moving", "placing"])?;
            match c.get("maximumOwnLivePieces")? {
                Value::Null => {}
                _ => {
                    c.positive("maximumOwnLivePieces")?;
                }
            }
            if enabled {
                let diagonal_board = m.str("topology")? == "mill24-diagonal-v1";
                if !(families[0] || families[1] || (families[2] && diagonal_board)) || phases.is_empty() {
                    return Err(MifError::new(
                        "inconsistent",
                        "manifest-inconsistent",
                        "an enabled capture selects a non-empty line family and phases",
                    )
                    .at(format!("/captures/{name}")));
                }
                placing_capture |= phases.contains(&"placing");
            }
        }
        if placing_effect == "opponent-remove-own-board" && placing_capture {
            return Err(MifError::new(
                "inconsistent",
                "manifest-inconsistent",
                "opponent-remove-own-board is not combined with a capture while placing",
            )
            .at("/mills/placingEffect"));
        }

        let board_full = m.obj("boardFull")?;
        board_full.closed(&["action"], &[])?;
        let full_action = board_full.one_of("action", &BOARD_FULL)?;
        if liveness == "apply-board-full" && full_action == "disabled" {
            return Err(MifError::new(
                "inconsistent",
                "no-legal-primary-action-policy-invalid",
                "apply-board-full needs a board-full action",
            )
            .at("/placing/noLegalPrimaryAction"));
        }
        let stalemate = m.obj("stalemate")?;
        stalemate.closed(&["action", "boardRemovalTargets"], &[])?;
        stalemate.one_of("action", &STALEMATE)?;
        stalemate.one_of("boardRemovalTargets", &["adjacent-opponent"])?;

        let draw = m.obj("draw")?;
        draw.closed(&["noProgress", "repetition", "offers", "claimRights"], &[])?;
        let np = draw.obj("noProgress")?;
        np.closed(
            &[
                "normalLimit",
                "endgameLimit",
                "endgamePredicate",
                "mode",
                "countedPrimaryActions",
                "resetEvents",
                "evaluationBoundary",
            ],
            &[],
        )?;
        np.uint("normalLimit")?;
        let endgame = np.uint("endgameLimit")?;
        let predicate = np.one_of("endgamePredicate", &["either-player-live-equals-3", "none"])?;
        if predicate == "none" && endgame != 0 {
            return Err(MifError::new(
                "inconsistent",
                "manifest-inconsistent",
                "endgamePredicate none requires endgameLimit 0",
            )
            .at("/draw/noProgress/endgameLimit"));
        }
        np.one_of("mode", &["automatic", "claim"])?;
        np.set("countedPrimaryActions", &["move", "place"])?;
        np.set("resetEvents", &RESET_EVENTS)?;
        np.one_of("evaluationBoundary", &["stable-after-primary-sequence-v1"])?;
        let rep = draw.obj("repetition")?;
        rep.closed(
            &[
                "count",
                "mode",
                "observation",
                "projection",
                "summary",
                "resetEvents",
            ],
            &[],
        )?;
        if rep.uint("count")? == 1 {
            return Err(schema("/draw/repetition/count", "count is 0 or at least 2"));
        }
        rep.one_of("mode", &["automatic", "claim"])?;
        rep.one_of("observation", &["stable-moving-v1", "stable-primary-decision-v1"])?;
        rep.one_of("projection", &["repetition-observation-v1"])?;
        rep.one_of("summary", &["reset-count-smt-v1"])?;
        rep.set("resetEvents", &RESET_EVENTS)?;
        let offers = draw.obj("offers")?;
        offers.closed(&["expiry"], &[])?;
        offers.one_of("expiry", &["explicit-only", "on-opponent-primary-action"])?;
        let claims = draw.obj("claimRights")?;
        claims.closed(&["profile"], &[])?;
        claims.one_of("profile", &["stable-claim-rights-v1"])?;

        let state = m.set("semanticState", &["last-mill", "placement-count", "used-lines"])?;
        if reuse == "once-per-player" && !state.contains(&"used-lines") {
            return Err(MifError::new(
                "inconsistent",
                "required-semantic-state-missing",
                "once-per-player line reuse needs the used-lines state",
            )
            .at("/semanticState"));
        }
        if reverse == "prohibit-immediate" && !state.contains(&"last-mill") {
            return Err(MifError::new(
                "inconsistent",
                "required-semantic-state-missing",
                "prohibit-immediate needs the last-mill state",
            )
            .at("/semanticState"));
        }
        match m.opt("extensions") {
            None => {}
            Some(Value::Array(items)) if items.is_empty() => {}
            Some(Value::Array(_)) => {
                return Err(MifError::new(
                    "unsupported",
                    "unsupported-profile",
                    "no manifest extension profile is implemented here",
                )
                .at("/extensions/0"));
            }
            Some(_) => return Err(schema("/extensions", "an array")),
        }

        let semantic_digest = digest(&semantic_projection(&document));
        let document_digest = digest(&document);
        Ok(Manifest {
            id: id.to_string(),
            version,
            semantic_digest,
            document_digest,
            document,
        })
    }

    /// The `mrs-semantic-v1` projection of the manifest (see [`semantic_projection`]).
    pub fn semantic_projection(&self) -> Value {
        semantic_projection(&self.document)
    }

    /// The canonical (JCS) text of the whole manifest.
    pub fn canonical(&self) -> String {
        canonical(&self.document)
    }

    /// `id@version`.
    pub fn reference(&self) -> String {
        format!("{}@{}", self.id, self.version)
    }

    fn at(&self, pointer: &str) -> Option<&Value> {
        self.document.pointer(pointer)
    }

    fn text(&self, pointer: &str) -> &str {
        self.at(pointer).and_then(Value::as_str).unwrap_or("")
    }

    fn number(&self, pointer: &str) -> u64 {
        self.at(pointer).and_then(Value::as_u64).unwrap_or(0)
    }

    fn flag(&self, pointer: &str) -> bool {
        self.at(pointer).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The rule set that plays exactly what the manifest says, or why none does. The
    /// 24-point boards: `mill24-orthogonal-v1` is Nine Men's Morris's board,
    /// `mill24-diagonal-v1` Twelve's, with 3 to 15 pieces a side (`pieces-N` where it is
    /// not the variant's 9 or 12); removals one per primary or one per new line,
    /// protection or none, flying at 1 to 4 pieces or never, either first side, moves
    /// while placing or not; a full board that does nothing, draws or loses for White;
    /// a side unable to place that loses or draws; the no-progress draw after any
    /// number of moves or none, repetition at the third occurrence (of any boundary, or
    /// of moving ones), each automatic or claimed. (Draw offers, which expire when
    /// answered or also on the opponent's next placement or move, are the replay's:
    /// [`super::mstate`].)
    pub fn rules(&self) -> Result<&'static Rules, MifError> {
        self.mapped(true)
    }

    /// The rule set whose placements, moves and removals are the manifest's, for the
    /// legal actions of a position that is still going: like [`Manifest::rules`] but
    /// indifferent to the draw mechanisms (`/draw`), which only decide when a game ends:
    /// the manifest's no-progress limit and modes where this crate has them, else no
    /// no-progress draw.
    pub fn action_rules(&self) -> Result<&'static Rules, MifError> {
        self.mapped(false)
    }

    /// The mapping of [`Manifest::rules`] (`exact_draws`) and [`Manifest::action_rules`].
    fn mapped(&self, exact_draws: bool) -> Result<&'static Rules, MifError> {
        let refuse =
            |pointer: &str, what: &str| Err(unsupported_ruleset(pointer.to_string(), what.to_string()));
        let variant = match self.text("/topology") {
            "mill24-diagonal-v1" => Variant::Twelve,
            _ => Variant::Nine,
        };
        let mut options = variant.default_options();
        let (white, black) = (self.number("/pieces/white"), self.number("/pieces/black"));
        if white != black {
            return refuse("/pieces", "both sides start with as many pieces");
        }
        if !(u64::from(MIN_PIECES)..=u64::from(MAX_PIECES)).contains(&white) {
            return refuse(
                "/pieces/white",
                &format!("from {MIN_PIECES} to {MAX_PIECES} pieces a side"),
            );
        }
        options.pieces = white as u8;
        if self.number("/pieces/minimumLive") != 3 {
            return refuse("/pieces/minimumLive", "a side with fewer than 3 pieces loses");
        }
        options.first = match self.text("/turn/initial") {
            "b" => Color::Dark,
            _ => Color::Light,
        };
        if self.text("/turn/placingEndActivePlayer") != "retain" {
            return refuse(
                "/turn/placingEndActivePlayer",
                "turns alternate across the end of placing",
            );
        }
        let fly_at = if self.flag("/flying/enabled") {
            self.number("/flying/maximumLive")
        } else {
            0
        };
        if fly_at > u64::from(mill_core::MAX_FLY_AT) {
            return refuse("/flying/maximumLive", "flying with at most 4 pieces, or never");
        }
        options.fly_at = fly_at as u8;
        options.placing_moves = self.flag("/placing/movementAllowed");
        if self.number("/placing/earlyStop/emptyPoints") != 0 {
            return refuse("/placing/earlyStop", "placing ends when both hands are empty");
        }
        if self.text("/mills/placingEffect") != "remove-opponent-board" {
            return refuse(
                "/mills/placingEffect",
                "a mill while placing removes an opponent's piece from the board",
            );
        }
        options.removals = match self.text("/mills/removalMultiplicity") {
            "one-per-new-line" => RemovalRule::PerMill,
            _ => RemovalRule::One,
        };
        options.protect = self.text("/mills/targetProtection") == "outside-mill-first";
        if self.text("/mills/lineReuse") != "unlimited" {
            return refuse("/mills/lineReuse", "a line may close a mill again and again");
        }
        if self.text("/mills/reverseReformation") != "allowed" {
            return refuse(
                "/mills/reverseReformation",
                "a mill may be reopened and closed at once",
            );
        }
        for name in ["custodian", "intervention", "leap"] {
            if self.flag(&format!("/captures/{name}/enabled")) {
                return refuse(&format!("/captures/{name}"), "captures only by mills");
            }
        }
        // A full board: only pieces enough to fill the 24 points ever see one, and
        // only more than half the points leave a side unable to place (the full-board
        // rule, applied first, settles it unless it is disabled). Otherwise the
        // manifest's choice changes nothing and any is read.
        let pieces = usize::from(options.pieces);
        if 2 * pieces >= POINTS {
            options.board_full = match self.text("/boardFull/action") {
                "disabled" => BoardFull::Off,
                "draw" => BoardFull::Draw,
                "white-loses" => BoardFull::LightLoses,
                _ => {
                    return refuse(
                        "/boardFull/action",
                        "a full board draws, loses for White or does nothing (no removals)",
                    );
                }
            };
        }
        if 2 * pieces > POINTS && options.board_full == BoardFull::Off {
            // `apply-board-full` with the board-full rule disabled is refused as
            // inconsistent when the manifest is read.
            options.no_placement = match self.text("/placing/noLegalPrimaryAction") {
                "draw" => NoPlacement::Draw,
                _ => NoPlacement::Loss,
            };
        }
        if self.text("/stalemate/action") != "loss" {
            return refuse("/stalemate/action", "a side that cannot move loses");
        }
        if self
            .at("/semanticState")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            return refuse("/semanticState", "no state beyond the board, hands and counters");
        }
        self.draws(&mut options, exact_draws)?;
        Rules::of(variant, options).map_err(|e| match e {
            RulesError::TooMany => MifError::new("resource", "resource-limit", e.to_string()),
            _ => unsupported_ruleset("".into(), e.to_string()),
        })
    }

    /// The draws into `options`: exactly (or refused), or as near as a position's legal
    /// actions need (no no-progress draw where this crate has not the manifest's).
    fn draws(&self, options: &mut Options, exact: bool) -> Result<(), MifError> {
        let refuse = |pointer: &str, what: &str| {
            if exact {
                Err(unsupported_ruleset(pointer.to_string(), what.to_string()))
            } else {
                Ok(())
            }
        };
        let mode = |pointer: &str| match self.text(pointer) {
            "claim" => DrawBy::Claim,
            _ => DrawBy::Automatic,
        };
        // No progress: moves counted, a removal restarts the count (a hand removal
        // never happens here); both limits zero disable it, and then nothing else of it
        // matters.
        let limit = self.number("/draw/noProgress/normalLimit");
        let endgame = self.number("/draw/noProgress/endgameLimit");
        let resets = self
            .at("/draw/noProgress/resetEvents")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>())
            .unwrap_or_default();
        options.quiet_limit = 0;
        options.quiet_draw = DrawBy::Automatic;
        let disabled = limit == 0 && endgame == 0;
        if disabled {
            // Folded away by the semantic projection: no count is kept.
        } else if endgame != 0 {
            refuse("/draw/noProgress/endgameLimit", "no separate endgame limit")?;
        } else if limit > u64::from(u16::MAX) {
            refuse(
                "/draw/noProgress/normalLimit",
                &format!("a no-progress limit of at most {} moves", u16::MAX),
            )?;
        } else if self.at("/draw/noProgress/countedPrimaryActions") != Some(&json!(["move"])) {
            refuse(
                "/draw/noProgress/countedPrimaryActions",
                "the no-progress count counts moves",
            )?;
        } else if !resets.contains(&"board-remove")
            || resets
                .iter()
                .any(|r| !matches!(*r, "board-remove" | "hand-remove"))
        {
            refuse(
                "/draw/noProgress/resetEvents",
                "the no-progress count restarts with a removal, and only then",
            )?;
        } else {
            options.quiet_limit = limit as u16;
            options.quiet_draw = mode("/draw/noProgress/mode");
        }
        // Repetition: the third occurrence, at the boundaries the observation profile
        // names; its reset events only empty the window, which the replay keeps.
        options.repetition_draw = mode("/draw/repetition/mode");
        // Which boundaries are observed matters only where a placing position can
        // recur: with moves while placing.
        options.placing_repeats = self.text("/draw/repetition/observation") == "stable-primary-decision-v1";
        if self.number("/draw/repetition/count") != 3 {
            refuse("/draw/repetition/count", "a position occurring three times draws")?;
        }
        Ok(())
    }

    /// The manifest this crate writes for `rules` (the 24-point boards only): id
    /// `x-mill-<rules>` (`x-mill-nine`, `x-mill-twelve.per-mill.dark-first`), or, for a
    /// name too long for an identifier, `x-mill-` and the first 16 hex digits of the
    /// semantic digest; version 1. [`Manifest::rules`] maps it back to `rules`.
    pub fn of_rules(rules: &'static Rules) -> Result<Manifest, MifError> {
        let topology = match rules.variant {
            Variant::Nine => "mill24-orthogonal-v1",
            Variant::Twelve => "mill24-diagonal-v1",
            Variant::Three | Variant::Six => {
                return Err(MifError::new(
                    "conversion",
                    "unrepresentable-under-profile",
                    format!("{rules} is not played on MIF's 24-point board"),
                ));
            }
        };
        let name = rules.to_string().replace('+', ".");
        let mode = |by: DrawBy| match by {
            DrawBy::Automatic => "automatic",
            DrawBy::Claim => "claim",
        };
        let disabled_capture = json!({
            "enabled": false,
            "lines": {"cross": false, "diagonal": false, "squareEdges": false},
            "maximumOwnLivePieces": null,
            "phases": ["moving"]
        });
        let document = json!({
            "format": "MRS/1.0",
            "id": format!("x-mill-{name}"),
            "version": 1,
            "title": format!("Mill project rules: {rules}"),
            "status": "experimental",
            "semanticsProfile": "mif-finite-rules-v3",
            "topology": topology,
            "pieces": {"white": rules.pieces, "black": rules.pieces, "minimumLive": rules.lose_below},
            "turn": {
                "initial": if rules.first == Color::Dark { "b" } else { "w" },
                "placingEndActivePlayer": "retain"
            },
            "flying": {"enabled": rules.fly_at > 0, "maximumLive": rules.fly_at.max(rules.lose_below)},
            "placing": {
                "movementAllowed": rules.placing_moves,
                "earlyStop": {"boundary": "after-unobligated-place-v1", "emptyPoints": 0},
                "noLegalPrimaryAction": match rules.no_placement {
                    NoPlacement::Loss => "loss",
                    NoPlacement::Draw => "draw",
                }
            },
            "mills": {
                "placingEffect": "remove-opponent-board",
                "movingEffect": "remove-opponent-board",
                "removalMultiplicity": match rules.removals {
                    RemovalRule::One => "one-per-primary",
                    RemovalRule::PerMill => "one-per-new-line",
                },
                "targetProtection": if rules.protect_mills { "outside-mill-first" } else { "all-opponent" },
                "lineReuse": "unlimited",
                "reverseReformation": "allowed",
                "delayedClearBoundary": "on-enter-moving-v1"
            },
            "captures": {
                "resolution": "target-commits-v1",
                "custodian": disabled_capture.clone(),
                "intervention": disabled_capture.clone(),
                "leap": disabled_capture
            },
            "boardFull": {"action": match rules.board_full {
                BoardFull::Off => "disabled",
                BoardFull::Draw => "draw",
                BoardFull::LightLoses => "white-loses",
            }},
            "stalemate": {"action": "loss", "boardRemovalTargets": "adjacent-opponent"},
            "draw": {
                "noProgress": {
                    "normalLimit": rules.quiet_limit,
                    "endgameLimit": 0,
                    "endgamePredicate": "none",
                    "mode": mode(rules.quiet_draw),
                    "countedPrimaryActions": ["move"],
                    "resetEvents": ["board-remove"],
                    "evaluationBoundary": "stable-after-primary-sequence-v1"
                },
                "repetition": {
                    "count": rules.repetitions,
                    "mode": mode(rules.repetition_draw),
                    "observation": if rules.placing_moves && rules.placing_repeats {
                        "stable-primary-decision-v1"
                    } else {
                        "stable-moving-v1"
                    },
                    "projection": "repetition-observation-v1",
                    "summary": "reset-count-smt-v1",
                    "resetEvents": ["board-remove"]
                },
                "offers": {"expiry": "explicit-only"},
                "claimRights": {"profile": "stable-claim-rights-v1"}
            },
            "semanticState": []
        });
        let mut document = document;
        if !is_identifier(&format!("x-mill-{name}")) {
            let semantic = digest(&semantic_projection(&document));
            let short = semantic.trim_start_matches("sha256:").get(..16).unwrap_or("0");
            document["id"] = json!(format!("x-mill-{short}"));
        }
        Manifest::from_value(document)
    }
}

/// The `mrs-semantic-v1` projection of a validated manifest document: the gameplay
/// members only, with disabled mechanisms folded to their short forms (MIF 10.7).
pub fn semantic_projection(document: &Value) -> Value {
    let get = |name: &str| document.get(name).cloned().unwrap_or(Value::Null);
    let mut p = Map::new();
    p.insert("profile".into(), json!("mrs-semantic-v1"));
    for name in [
        "semanticsProfile",
        "topology",
        "pieces",
        "turn",
        "mills",
        "boardFull",
        "stalemate",
        "semanticState",
    ] {
        p.insert(name.into(), get(name));
    }
    let disabled = json!({"enabled": false});
    let flying = get("flying");
    p.insert(
        "flying".into(),
        if flying.get("enabled") == Some(&json!(true)) {
            flying
        } else {
            disabled.clone()
        },
    );
    let mut placing = get("placing");
    if placing.pointer("/earlyStop/emptyPoints") == Some(&json!(0))
        && let Some(early) = placing.get_mut("earlyStop")
    {
        *early = json!({"emptyPoints": 0});
    }
    p.insert("placing".into(), placing);
    let mut captures = get("captures");
    for name in ["custodian", "intervention", "leap"] {
        if let Some(c) = captures.get_mut(name)
            && c.get("enabled") != Some(&json!(true))
        {
            *c = disabled.clone();
        }
    }
    p.insert("captures".into(), captures);
    let mut draw = get("draw");
    if let Some(np) = draw.get_mut("noProgress")
        && np.get("normalLimit") == Some(&json!(0))
        && np.get("endgameLimit") == Some(&json!(0))
    {
        *np = disabled;
    }
    if let Some(rep) = draw.get_mut("repetition")
        && rep.get("count") == Some(&json!(0))
    {
        *rep = json!({"count": 0});
    }
    p.insert("draw".into(), draw);
    if let Some(ext) = document.get("extensions").and_then(Value::as_array)
        && !ext.is_empty()
    {
        p.insert("extensions".into(), Value::Array(ext.clone()));
    }
    Value::Object(p)
}

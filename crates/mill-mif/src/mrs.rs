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

pub(crate) mod document;

use super::json::{canonical, digest};
use super::{MifError, is_identifier};
use document::{
    Counted, Document, DrawMode, FullAction, LineReuse, Liveness, Multiplicity, Observation, PlacingEffect,
    PlacingEnd, Protection, ResetEvent, Reverse, Side, StalemateAction, Topology,
};
use mill_core::Color;
use mill_core::{
    BoardFull, DrawBy, MAX_PIECES, MIN_PIECES, NoPlacement, Options, RemovalRule, Rules, Variant,
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
    /// The document's members, typed.
    pub(crate) doc: Document,
}

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
        super::limits::bytes(text, super::limits::MANIFEST_BYTES, "an MRS manifest")?;
        Manifest::from_value(super::json::parse(text)?)
    }

    /// Validates a manifest (MRS/1.0, `mif-finite-rules-v3`) and computes its digests.
    /// Unknown members, values or extension profiles are refused, never ignored: the
    /// format and semantics profile first (`unsupported`), then the members' types
    /// ([`Document`]), then what must agree among them.
    pub fn from_value(document: Value) -> Result<Manifest, MifError> {
        super::limits::bytes(
            &canonical(&document),
            super::limits::MANIFEST_BYTES,
            "an MRS manifest's canonical text",
        )?;
        let text = |name: &str| document.get(name).and_then(Value::as_str);
        if text("format").is_some_and(|f| f != "MRS/1.0") {
            return Err(
                MifError::new("unsupported", "unsupported-format", "a manifest is MRS/1.0").at("/format"),
            );
        }
        if text("semanticsProfile").is_some_and(|p| p != "mif-finite-rules-v3") {
            return Err(MifError::new(
                "unsupported",
                "unsupported-profile",
                "the semantics profile is mif-finite-rules-v3",
            )
            .at("/semanticsProfile"));
        }
        let doc = Document::read(&document)?;
        doc.check()?;
        Ok(Manifest {
            id: doc.id.clone(),
            version: doc.version.0,
            semantic_digest: digest(&semantic_projection(&document)),
            document_digest: digest(&document),
            document,
            doc,
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
    pub fn rules(&self) -> Result<Rules, MifError> {
        self.mapped(true)
    }

    /// The rule set whose placements, moves and removals are the manifest's, for the
    /// legal actions of a position that is still going: like [`Manifest::rules`] but
    /// indifferent to the draw mechanisms (`/draw`), which only decide when a game ends:
    /// the manifest's no-progress limit and modes where this crate has them, else no
    /// no-progress draw.
    pub fn action_rules(&self) -> Result<Rules, MifError> {
        self.mapped(false)
    }

    /// The mapping of [`Manifest::rules`] (`exact_draws`) and [`Manifest::action_rules`].
    fn mapped(&self, exact_draws: bool) -> Result<Rules, MifError> {
        let refuse =
            |pointer: &str, what: &str| Err(unsupported_ruleset(pointer.to_string(), what.to_string()));
        let d = &self.doc;
        let variant = match d.topology {
            Topology::Diagonal => Variant::Twelve,
            Topology::Orthogonal => Variant::Nine,
        };
        let mut options = variant.default_options();
        let (white, black) = (d.pieces.white.0, d.pieces.black.0);
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
        if d.pieces.minimum_live.0 != 3 {
            return refuse("/pieces/minimumLive", "a side with fewer than 3 pieces loses");
        }
        options.first = match d.turn.initial {
            Side::B => Color::Dark,
            Side::W => Color::Light,
        };
        if d.turn.placing_end_active_player != PlacingEnd::Retain {
            return refuse(
                "/turn/placingEndActivePlayer",
                "turns alternate across the end of placing",
            );
        }
        let fly_at = if d.flying.enabled {
            d.flying.maximum_live.0
        } else {
            0
        };
        if fly_at > u64::from(mill_core::MAX_FLY_AT) {
            return refuse("/flying/maximumLive", "flying with at most 4 pieces, or never");
        }
        options.fly_at = fly_at as u8;
        options.placing_moves = d.placing.movement_allowed;
        if d.placing.early_stop.empty_points.0 != 0 {
            return refuse("/placing/earlyStop", "placing ends when both hands are empty");
        }
        if d.mills.placing_effect != PlacingEffect::RemoveOpponentBoard {
            return refuse(
                "/mills/placingEffect",
                "a mill while placing removes an opponent's piece from the board",
            );
        }
        options.removals = match d.mills.removal_multiplicity {
            Multiplicity::OnePerNewLine => RemovalRule::PerMill,
            Multiplicity::OnePerPrimary => RemovalRule::One,
        };
        options.protect = d.mills.target_protection == Protection::OutsideMillFirst;
        if d.mills.line_reuse != LineReuse::Unlimited {
            return refuse("/mills/lineReuse", "a line may close a mill again and again");
        }
        if d.mills.reverse_reformation != Reverse::Allowed {
            return refuse(
                "/mills/reverseReformation",
                "a mill may be reopened and closed at once",
            );
        }
        let c = &d.captures;
        for (name, capture) in [
            ("custodian", &c.custodian),
            ("intervention", &c.intervention),
            ("leap", &c.leap),
        ] {
            if capture.enabled {
                return refuse(&format!("/captures/{name}"), "captures only by mills");
            }
        }
        // A full board: only pieces enough to fill the 24 points ever see one, and
        // only more than half the points leave a side unable to place (the full-board
        // rule, applied first, settles it unless it is disabled). Otherwise the
        // manifest's choice changes nothing and any is read.
        let pieces = usize::from(options.pieces);
        if 2 * pieces >= POINTS {
            options.board_full = match d.board_full.action {
                FullAction::Disabled => BoardFull::Off,
                FullAction::Draw => BoardFull::Draw,
                FullAction::WhiteLoses => BoardFull::LightLoses,
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
            options.no_placement = match d.placing.no_legal_primary_action {
                Liveness::Draw => NoPlacement::Draw,
                _ => NoPlacement::Loss,
            };
        }
        if d.stalemate.action != StalemateAction::Loss {
            return refuse("/stalemate/action", "a side that cannot move loses");
        }
        if !d.semantic_state.is_empty() {
            return refuse("/semanticState", "no state beyond the board, hands and counters");
        }
        self.draws(&mut options, exact_draws)?;
        Rules::of(variant, options).map_err(|e| unsupported_ruleset("".into(), e.to_string()))
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
        let mode = |mode: DrawMode| match mode {
            DrawMode::Claim => DrawBy::Claim,
            DrawMode::Automatic => DrawBy::Automatic,
        };
        // No progress: moves counted, a removal restarts the count (a hand removal
        // never happens here); both limits zero disable it, and then nothing else of it
        // matters.
        let np = &self.doc.draw.no_progress;
        let (limit, endgame) = (np.normal_limit.0, np.endgame_limit.0);
        let resets = &np.reset_events;
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
        } else if np.counted_primary_actions != [Counted::Move] {
            refuse(
                "/draw/noProgress/countedPrimaryActions",
                "the no-progress count counts moves",
            )?;
        } else if !resets.contains(&ResetEvent::BoardRemove)
            || resets
                .iter()
                .any(|r| !matches!(r, ResetEvent::BoardRemove | ResetEvent::HandRemove))
        {
            refuse(
                "/draw/noProgress/resetEvents",
                "the no-progress count restarts with a removal, and only then",
            )?;
        } else {
            options.quiet_limit = limit as u16;
            options.quiet_draw = mode(np.mode);
        }
        // Repetition: the third occurrence, at the boundaries the observation profile
        // names; its reset events only empty the window, which the replay keeps.
        let repetition = &self.doc.draw.repetition;
        options.repetition_draw = mode(repetition.mode);
        // Which boundaries are observed matters only where a placing position can
        // recur: with moves while placing.
        options.placing_repeats = repetition.observation == Observation::StablePrimaryDecision;
        if repetition.count.0 != 3 {
            refuse("/draw/repetition/count", "a position occurring three times draws")?;
        }
        Ok(())
    }

    /// The manifest this crate writes for `rules` (the 24-point boards only): id
    /// `x-mill-<rules>` (`x-mill-nine`, `x-mill-twelve.per-mill.dark-first`), or, for a
    /// name too long for an identifier, `x-mill-` and the first 16 hex digits of the
    /// semantic digest; version 1. [`Manifest::rules`] maps it back to `rules`.
    pub fn of_rules(rules: impl Into<Rules>) -> Result<Manifest, MifError> {
        let rules: Rules = rules.into();
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

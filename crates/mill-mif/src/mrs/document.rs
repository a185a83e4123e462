//! An MRS/1.0 manifest's members as serde types: every object closed
//! (`deny_unknown_fields`), every closed string an enum, every integer exact; what the
//! types cannot say (cross-member consistency, set order, identifiers) is
//! [`Document::check`]. A serde refusal becomes `syntax/schema` (or
//! `syntax/integer-out-of-range`) at the JSON Pointer of the member at fault.

use crate::{MifError, is_identifier, schema};
use serde::de::Deserializer;
use serde::{Deserialize, de::Error as _};
use serde_json::Value;

/// The message of an integer past 2^53 - 1, recognised when the error is coded.
const OUT_OF_RANGE: &str = "integer-out-of-range";

/// Closed string values, each an enum of its MIF spellings. Variants are declared in the
/// spellings' ascending order: a set's order is theirs.
macro_rules! spellings {
    ($($name:ident { $($variant:ident = $text:literal),+ $(,)? })+) => {
        $(
            #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
            pub(crate) enum $name { $($variant),+ }
            // By hand, not derived: one string and a match, a fraction of the derived
            // visitor's code in the page's WebAssembly.
            impl<'de> Deserialize<'de> for $name {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    spelling(d, &[$($name::$variant),+], &[$($text),+])
                }
            }
        )+
        /// Each enum's spellings, for the test of their order.
        #[cfg(test)]
        const SPELLINGS: &[&[&str]] = &[$(&[$($text),+]),+];
    };
}

spellings! {
    Status { Deprecated = "deprecated", Experimental = "experimental", Fixture = "fixture", Registered = "registered" }
    Topology { Diagonal = "mill24-diagonal-v1", Orthogonal = "mill24-orthogonal-v1" }
    Side { B = "b", W = "w" }
    PlacingEnd { B = "b", Retain = "retain", W = "w" }
    EarlyStopBoundary { AfterUnobligatedPlace = "after-unobligated-place-v1" }
    Liveness { ApplyBoardFull = "apply-board-full", Draw = "draw", Loss = "loss" }
    PlacingEffect {
        MarkOpponentBoardUntilMoving = "mark-opponent-board-until-moving",
        OpponentRemoveOwnBoard = "opponent-remove-own-board",
        RemoveByMillCount = "remove-by-current-mill-count-at-placing-end",
        RemoveOpponentBoard = "remove-opponent-board",
        RemoveOpponentHandChange = "remove-opponent-hand-change",
        RemoveOpponentHandRetain = "remove-opponent-hand-retain",
    }
    MovingEffect { RemoveOpponentBoard = "remove-opponent-board" }
    Multiplicity { OnePerNewLine = "one-per-new-line", OnePerPrimary = "one-per-primary" }
    Protection { AllOpponent = "all-opponent", OutsideMillFirst = "outside-mill-first" }
    LineReuse { OncePerPlayer = "once-per-player", Unlimited = "unlimited" }
    Reverse { Allowed = "allowed", ProhibitImmediate = "prohibit-immediate" }
    ClearBoundary { OnEnterMoving = "on-enter-moving-v1" }
    Resolution { TargetCommits = "target-commits-v1" }
    Phase { Moving = "moving", Placing = "placing" }
    FullAction {
        ActivePlayerRemoves = "active-player-removes",
        BlackThenWhiteRemove = "black-then-white-remove",
        Disabled = "disabled",
        Draw = "draw",
        WhiteLoses = "white-loses",
        WhiteThenBlackRemove = "white-then-black-remove",
    }
    StalemateAction {
        BothRemove = "both-remove",
        ChangePlayer = "change-player",
        Draw = "draw",
        Loss = "loss",
        RemoveAndChange = "remove-and-change",
        RemoveAndRetain = "remove-and-retain",
    }
    RemovalTargets { AdjacentOpponent = "adjacent-opponent" }
    Predicate { EitherLiveEquals3 = "either-player-live-equals-3", None = "none" }
    DrawMode { Automatic = "automatic", Claim = "claim" }
    Counted { Move = "move", Place = "place" }
    ResetEvent { BoardRemove = "board-remove", HandRemove = "hand-remove", MillFormation = "mill-formation", Place = "place" }
    EvaluationBoundary { StableAfterPrimarySequence = "stable-after-primary-sequence-v1" }
    Observation { StableMoving = "stable-moving-v1", StablePrimaryDecision = "stable-primary-decision-v1" }
    Projection { RepetitionObservation = "repetition-observation-v1" }
    Summary { ResetCountSmt = "reset-count-smt-v1" }
    Expiry { ExplicitOnly = "explicit-only", OnOpponentPrimaryAction = "on-opponent-primary-action" }
    ClaimProfile { StableClaimRights = "stable-claim-rights-v1" }
    SemanticState { LastMill = "last-mill", PlacementCount = "placement-count", UsedLines = "used-lines" }
}

/// The value among `values` whose spelling (at the same index) a string is.
fn spelling<'de, D: Deserializer<'de>, T: Copy>(
    d: D,
    values: &[T],
    spellings: &'static [&'static str],
) -> Result<T, D::Error> {
    let text = String::deserialize(d)?;
    match spellings.iter().position(|s| *s == text) {
        Some(i) => Ok(values[i]),
        None => Err(D::Error::unknown_variant(&text, spellings)),
    }
}

/// An exact integer from `MIN` to 2^53 - 1. A whole number past that (read as a float
/// past u64) is `integer-out-of-range`; anything else, a fraction or a negative number
/// among them, a schema error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Int<const MIN: u64>(pub u64);

impl<'de, const MIN: u64> Deserialize<'de> for Int<MIN> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.as_u64() {
            Some(n) if n >= 1 << 53 => Err(D::Error::custom(OUT_OF_RANGE)),
            Some(n) if n >= MIN => Ok(Int(n)),
            None if v.as_f64().is_some_and(|x| x >= 0.0 && x.fract() == 0.0) => {
                Err(D::Error::custom(OUT_OF_RANGE))
            }
            _ if MIN == 0 => Err(D::Error::custom("a non-negative integer is expected")),
            _ => Err(D::Error::custom("a positive integer is expected")),
        }
    }
}

/// A member that is required but may be null (serde would read a missing one as null).
fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Int<1>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v => Int::deserialize(v).map(Some).map_err(D::Error::custom),
    }
}

/// An optional member whose null is a value, not its absence.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Closed objects: serde structs refusing unknown members, their members in camelCase.
macro_rules! closed {
    ($($name:ident { $($(#[$attr:meta])* $field:ident: $ty:ty),+ $(,)? })+) => {$(
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        pub(crate) struct $name { $($(#[$attr])* pub $field: $ty),+ }
    )+};
}

closed! {
    Document {
        format: String, id: String, version: Int<1>, title: String, status: Status,
        #[serde(default, deserialize_with = "present")] description: Option<Value>,
        #[serde(default, deserialize_with = "present")] annotations: Option<Value>,
        #[serde(default, deserialize_with = "present")] extensions: Option<Value>,
        semantics_profile: String, topology: Topology, pieces: Pieces, turn: Turn, flying: Flying,
        placing: Placing, mills: Mills, captures: Captures, board_full: BoardFull,
        stalemate: Stalemate, draw: Draw, semantic_state: Vec<SemanticState>,
    }
    Pieces { white: Int<1>, black: Int<1>, minimum_live: Int<1> }
    Turn { initial: Side, placing_end_active_player: PlacingEnd }
    Flying { enabled: bool, maximum_live: Int<1> }
    Placing { movement_allowed: bool, early_stop: EarlyStop, no_legal_primary_action: Liveness }
    EarlyStop { empty_points: Int<0>, boundary: EarlyStopBoundary }
    Mills {
        placing_effect: PlacingEffect, moving_effect: MovingEffect, removal_multiplicity: Multiplicity,
        target_protection: Protection, line_reuse: LineReuse, reverse_reformation: Reverse,
        delayed_clear_boundary: ClearBoundary,
    }
    Captures { resolution: Resolution, custodian: Capture, intervention: Capture, leap: Capture }
    Capture {
        enabled: bool, lines: Lines, phases: Vec<Phase>,
        #[serde(deserialize_with = "nullable")] maximum_own_live_pieces: Option<Int<1>>,
    }
    Lines { square_edges: bool, cross: bool, diagonal: bool }
    BoardFull { action: FullAction }
    Stalemate { action: StalemateAction, board_removal_targets: RemovalTargets }
    Draw { no_progress: NoProgress, repetition: Repetition, offers: Offers, claim_rights: ClaimRights }
    NoProgress {
        normal_limit: Int<0>, endgame_limit: Int<0>, endgame_predicate: Predicate, mode: DrawMode,
        counted_primary_actions: Vec<Counted>, reset_events: Vec<ResetEvent>,
        evaluation_boundary: EvaluationBoundary,
    }
    Repetition {
        count: Int<0>, mode: DrawMode, observation: Observation, projection: Projection,
        summary: Summary, reset_events: Vec<ResetEvent>,
    }
    Offers { expiry: Expiry }
    ClaimRights { profile: ClaimProfile }
}

/// The members that are arrays: sets of closed strings.
const SETS: [&str; 4] = [
    "/phases",
    "/countedPrimaryActions",
    "/resetEvents",
    "/semanticState",
];

/// A JSON Pointer token (RFC 6901 escapes).
fn token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn inconsistent(path: &str, code: &'static str, message: &str) -> Result<(), MifError> {
    Err(MifError::new("inconsistent", code, message).at(path))
}

/// A set: unique members in ascending order, else `canonical/set-order` at the first
/// out of order.
fn set<T: Ord>(items: &[T], path: &str) -> Result<(), MifError> {
    match items.windows(2).position(|w| w[0] >= w[1]) {
        None => Ok(()),
        Some(i) => Err(MifError::new(
            "canonical",
            "set-order",
            "a set holds unique members in ascending order",
        )
        .at(format!("{path}/{}", i + 1))),
    }
}

impl Document {
    /// Reads `document` into its types: the first member at fault is refused with
    /// `syntax/schema` at its pointer (an unknown one at its own, a missing one at its
    /// object's), or `syntax/integer-out-of-range`.
    pub(crate) fn read(document: &Value) -> Result<Document, MifError> {
        serde_path_to_error::deserialize(document).map_err(|e| {
            let mut path = String::new();
            for segment in e.path().iter() {
                // serde reads a struct from an array too: an array where an object
                // belongs (not one of the sets) is the fault itself.
                let here = document.pointer(&path);
                if here.is_some_and(Value::is_array) && !SETS.iter().any(|set| path.ends_with(set)) {
                    return schema(&path, "an object is expected here");
                }
                match segment {
                    serde_path_to_error::Segment::Seq { index } => path += &format!("/{index}"),
                    serde_path_to_error::Segment::Map { key } => path += &format!("/{}", token(key)),
                    serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
                }
            }
            let message = e.into_inner().to_string();
            if message.starts_with(OUT_OF_RANGE) {
                MifError::new("syntax", OUT_OF_RANGE, "an integer is at most 2^53 - 1").at(path)
            } else {
                schema(&path, message)
            }
        })
    }

    /// What the types cannot say: identifiers, sets, and the members that must agree.
    pub(crate) fn check(&self) -> Result<(), MifError> {
        if !is_identifier(&self.id) {
            return Err(schema("/id", "an identifier: 1 to 63 of a-z, 0-9, '.', '-'"));
        }
        if self
            .description
            .as_ref()
            .is_some_and(|d| d.as_str().is_none_or(str::is_empty))
        {
            return Err(schema("/description", "a non-empty string"));
        }
        if self.annotations.as_ref().is_some_and(|a| !a.is_object()) {
            return Err(schema("/annotations", "an object"));
        }
        let minimum = self.pieces.minimum_live.0;
        if minimum > self.pieces.white.0.min(self.pieces.black.0) {
            let message = "minimumLive exceeds a side's pieces";
            inconsistent("/pieces/minimumLive", "manifest-inconsistent", message)?;
        }
        if self.flying.enabled && self.flying.maximum_live.0 < minimum {
            let message = "enabled flying has maximumLive >= minimumLive";
            inconsistent("/flying/maximumLive", "manifest-inconsistent", message)?;
        }
        let mut placing_capture = false;
        for (name, c) in [
            ("custodian", &self.captures.custodian),
            ("intervention", &self.captures.intervention),
            ("leap", &self.captures.leap),
        ] {
            set(&c.phases, &format!("/captures/{name}/phases"))?;
            let lines = &c.lines;
            let diagonal = lines.diagonal && self.topology == Topology::Diagonal;
            if c.enabled && (!(lines.square_edges || lines.cross || diagonal) || c.phases.is_empty()) {
                let message = "an enabled capture selects a non-empty line family and phases";
                inconsistent(&format!("/captures/{name}"), "manifest-inconsistent", message)?;
            }
            placing_capture |= c.enabled && c.phases.contains(&Phase::Placing);
        }
        if self.mills.placing_effect == PlacingEffect::OpponentRemoveOwnBoard && placing_capture {
            let message = "opponent-remove-own-board is not combined with a capture while placing";
            inconsistent("/mills/placingEffect", "manifest-inconsistent", message)?;
        }
        if self.placing.no_legal_primary_action == Liveness::ApplyBoardFull
            && self.board_full.action == FullAction::Disabled
        {
            let message = "apply-board-full needs a board-full action";
            let code = "no-legal-primary-action-policy-invalid";
            inconsistent("/placing/noLegalPrimaryAction", code, message)?;
        }
        let np = &self.draw.no_progress;
        if np.endgame_predicate == Predicate::None && np.endgame_limit.0 != 0 {
            let message = "endgamePredicate none requires endgameLimit 0";
            inconsistent("/draw/noProgress/endgameLimit", "manifest-inconsistent", message)?;
        }
        set(
            &np.counted_primary_actions,
            "/draw/noProgress/countedPrimaryActions",
        )?;
        set(&np.reset_events, "/draw/noProgress/resetEvents")?;
        if self.draw.repetition.count.0 == 1 {
            return Err(schema("/draw/repetition/count", "count is 0 or at least 2"));
        }
        set(&self.draw.repetition.reset_events, "/draw/repetition/resetEvents")?;
        set(&self.semantic_state, "/semanticState")?;
        let has = |state| self.semantic_state.contains(&state);
        if self.mills.line_reuse == LineReuse::OncePerPlayer && !has(SemanticState::UsedLines) {
            let message = "once-per-player line reuse needs the used-lines state";
            inconsistent("/semanticState", "required-semantic-state-missing", message)?;
        }
        if self.mills.reverse_reformation == Reverse::ProhibitImmediate && !has(SemanticState::LastMill) {
            let message = "prohibit-immediate needs the last-mill state";
            inconsistent("/semanticState", "required-semantic-state-missing", message)?;
        }
        match &self.extensions {
            None => Ok(()),
            Some(Value::Array(items)) if items.is_empty() => Ok(()),
            Some(Value::Array(_)) => Err(MifError::new(
                "unsupported",
                "unsupported-profile",
                "no manifest extension profile is implemented here",
            )
            .at("/extensions/0")),
            Some(_) => Err(schema("/extensions", "an array")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_declared_in_their_spellings_order() {
        for spellings in SPELLINGS {
            assert!(spellings.is_sorted(), "{spellings:?}");
        }
        // The derived order is the declared one.
        assert!(ResetEvent::BoardRemove < ResetEvent::HandRemove);
        assert!(ResetEvent::MillFormation < ResetEvent::Place);
    }

    #[test]
    fn members_at_fault_are_refused_at_their_pointers() {
        let read = |v: Value| Document::read(&v).unwrap_err();
        let e = read(serde_json::json!([]));
        assert_eq!(
            (e.code.as_str(), e.instance_path.as_deref()),
            ("schema", Some(""))
        );
        let e = read(serde_json::json!({"format": "MRS/1.0", "version": 9007199254740992u64}));
        assert_eq!(
            (e.code.as_str(), e.instance_path.as_deref()),
            ("integer-out-of-range", Some("/version"))
        );
        let e = read(serde_json::json!({"version": 1.5}));
        assert_eq!(
            (e.code.as_str(), e.instance_path.as_deref()),
            ("schema", Some("/version"))
        );
        let e = read(serde_json::json!({"version": 0}));
        assert_eq!(
            (e.code.as_str(), e.instance_path.as_deref()),
            ("schema", Some("/version"))
        );
        let e = read(serde_json::json!({"a/b": 1}));
        assert_eq!(
            (e.code.as_str(), e.instance_path.as_deref()),
            ("schema", Some("/a~1b"))
        );
        let e = read(serde_json::json!({"draw": {"offers": {"expiry": "explicit-only", "x": 1}}}));
        assert_eq!(e.instance_path.as_deref(), Some("/draw/offers/x"));
        let e = read(serde_json::json!({"draw": {"offers": {"expiry": "never"}}}));
        assert_eq!(e.instance_path.as_deref(), Some("/draw/offers/expiry"));
        let e = read(serde_json::json!({"draw": {"offers": {}}}));
        assert_eq!(
            e.instance_path.as_deref(),
            Some("/draw/offers"),
            "a missing member: its object"
        );
        let e = read(serde_json::json!({"draw": ["x"]}));
        assert_eq!(
            e.instance_path.as_deref(),
            Some("/draw"),
            "an array for an object"
        );
        let e = read(serde_json::json!(["MRS/1.0"]));
        assert_eq!(e.instance_path.as_deref(), Some(""));
        let e = read(serde_json::json!({"semanticState": ["last-mill", 3]}));
        assert_eq!(e.instance_path.as_deref(), Some("/semanticState/1"));
        let capture = |extra: Value| {
            let mut c = serde_json::json!({"enabled": false, "lines": {"cross": false, "diagonal": false, "squareEdges": false}, "phases": []});
            c.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            serde_json::from_value::<Capture>(c)
        };
        assert!(
            capture(serde_json::json!({})).is_err(),
            "maximumOwnLivePieces is required"
        );
        assert_eq!(
            capture(serde_json::json!({"maximumOwnLivePieces": null}))
                .unwrap()
                .maximum_own_live_pieces,
            None
        );
        assert!(capture(serde_json::json!({"maximumOwnLivePieces": 0})).is_err());
    }
}

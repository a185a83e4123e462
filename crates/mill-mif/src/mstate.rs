//! MSTATE/1.0 for the games this crate plays: a whole game as its rule-set envelope,
//! an origin MFEN, the events (placements, moves, removals, a resignation, an agreed
//! draw) and the authoritative checkpoints a reader verifies: the current MFEN, the
//! active repetition window and the claim audit.
//!
//! Only manifests that [`Manifest::rules`] maps to one of our rule sets are read (their
//! extended options included: other piece counts, no no-progress limit, draws by
//! claim). The replay ([`run`], [`replay`]) keeps what MIF's replay keeps: the
//! pre-origin seeds (observations counted toward repetition, draw offers), the active
//! repetition window with the manifest's reset events, the claim rights of the side to
//! move ([`Game::claimable`]), claims and the offers' fates (open, answered, or expired
//! when the game ends). [`read`], for a game kept here, refuses what a [`Game`] cannot
//! keep: seeds, and offers not accepted.
//!
//! A replay's cost grows with the events: each is checked and played once, in
//! constant work. Only the harness's trace ([`Replay::trace`]: every boundary's whole
//! window and claim audit) grows faster; [`verify`] keeps none, [`run_each`] and
//! [`replay_each`] hand each snapshot on as it is made, and a trace is bounded
//! ([`limits::TRACE_ENTRIES`]).

use super::identity::{Negotiation, decision_state, observation, summary_of_history};
use super::json::digest;
use super::json::parse;
use super::limits::{self, CLAIMS, EVENTS, MSTATE_BYTES, REPETITION_ENTRIES, TRACE_ENTRIES};
use super::mrs::Manifest;
use super::mrs::document::{Expiry, Observation, ResetEvent};
use super::{MifError, Obj, STATE_PROFILE, schema};
use mill_core::Action;
use mill_core::Color;
use mill_core::DrawBy;
use mill_core::Game;
use mill_core::Position;
use mill_core::mfen::{Mfen, RING_ORDER, SIGNATURE};
use mill_core::{DrawReason, Outcome, WinReason};
use serde_json::{Value, json};
mod play;
use play::play;

fn side(c: Color) -> &'static str {
    match c {
        Color::Light => "w",
        Color::Dark => "b",
    }
}

fn name(position: &Position, point: mill_core::Point) -> &'static str {
    position.topology().name(point)
}

/// The events of a game: one per action, then the resignation or the agreed draw.
fn events_of(game: &Game) -> Vec<Value> {
    let mut events = Vec::new();
    let mut p = *game.start();
    for &action in game.actions() {
        let seq = events.len() + 1;
        let actor = side(p.turn());
        events.push(match action {
            Action::Place { to } => json!({"seq": seq, "actor": actor, "type": "place", "at": name(&p, to)}),
            Action::Move { from, to } => {
                json!({"seq": seq, "actor": actor, "type": "move", "from": name(&p, from), "to": name(&p, to)})
            }
            Action::Remove { at } => json!({
                "seq": seq, "actor": actor, "type": "remove", "target": {"zone": "board", "at": name(&p, at)}
            }),
        });
        p = p.play_action(action).unwrap_or(p);
    }
    match game.outcome() {
        Some(Outcome::Win {
            winner,
            reason: WinReason::Resignation,
        }) => {
            let seq = events.len() + 1;
            events.push(json!({"seq": seq, "actor": side(!winner), "type": "resign"}));
        }
        Some(Outcome::Draw {
            reason: DrawReason::Agreement,
        }) => {
            let seq = events.len() + 1;
            let offerer = p.turn();
            events.push(json!({"seq": seq, "actor": side(offerer), "type": "offer-draw"}));
            events.push(
                json!({"seq": seq + 1, "actor": side(!offerer), "type": "accept-draw", "offerEventSeq": seq}),
            );
        }
        // A draw the rules leave to a claim was claimed by the side to move.
        Some(Outcome::Draw { reason }) if claimed(&p.rules(), reason) => {
            let seq = events.len() + 1;
            let reason = if reason == DrawReason::HundredTurns {
                "no-progress"
            } else {
                "repetition"
            };
            events.push(json!({"seq": seq, "actor": side(p.turn()), "type": "claim-draw", "reason": reason}));
        }
        _ => {}
    }
    events
}

/// Whether a game drawn for `reason` under `rules` was drawn by a claim.
fn claimed(rules: &mill_core::Rules, reason: DrawReason) -> bool {
    match reason {
        DrawReason::Threefold => rules.repetition_draw == DrawBy::Claim,
        DrawReason::HundredTurns => rules.quiet_draw == DrawBy::Claim,
        _ => false,
    }
}

/// The repetition observation of a position, if it is one the manifest observes: a
/// stable boundary (ongoing, no removal owed) in the moving phase of the side to move,
/// or (under `stable-primary-decision-v1`) any stable boundary.
fn observed(manifest: &Manifest, p: &Position) -> Result<Option<Value>, MifError> {
    let every = manifest.doc.draw.repetition.observation == Observation::StablePrimaryDecision;
    if p.pending_removals() > 0 || (!every && p.in_hand(p.turn()) > 0) || p.board_outcome().is_some() {
        return Ok(None);
    }
    let text = Mfen {
        position: *p,
        primary_ply: 0,
        outcome: None,
    }
    .write()
    .map_err(MifError::from_mfen)?;
    observation(manifest, &text).map(Some)
}

/// The checkpoints a game's replay yields: the active repetition window (reset by
/// every removal, one entry per observed stable boundary, the origin's included) and
/// the claim audit (the accepted offer of an agreed draw).
fn checkpoints(
    manifest: &Manifest,
    game: &Game,
    events: &[Value],
) -> Result<(Vec<Value>, Vec<Value>), MifError> {
    let mut window = Vec::new();
    let mut p = *game.start();
    if let Some(key) = observed(manifest, &p)? {
        window.push(json!({"source": "origin", "key": key}));
    }
    for (i, &action) in game.actions().iter().enumerate() {
        p = p.play_action(action).unwrap_or(p);
        step_window(manifest, &mut window, &p, action, i as u64 + 1)?;
    }
    let claims = events
        .iter()
        .filter_map(|e| match e["type"].as_str() {
            Some("accept-draw") => Some(json!({
                "source": "event",
                "actor": if e["actor"] == "w" { "b" } else { "w" },
                "eventSeq": e["offerEventSeq"],
                "kind": "draw-offer",
                "status": "accepted",
                "resolvedEventSeq": e["seq"]
            })),
            Some("claim-draw") => Some(json!({
                "source": "event",
                "actor": e["actor"],
                "eventSeq": e["seq"],
                "kind": "draw-claim",
                "status": "accepted"
            })),
            _ => None,
        })
        .collect();
    Ok((window, claims))
}

/// The window after `action` (event `seq`) led to `p`: emptied by a removal, then the
/// new boundary observed if it is one.
fn step_window(
    manifest: &Manifest,
    window: &mut Vec<Value>,
    p: &Position,
    action: Action,
    seq: u64,
) -> Result<(), MifError> {
    if matches!(action, Action::Remove { .. }) {
        window.clear();
    }
    if let Some(key) = observed(manifest, p)? {
        window.push(json!({"source": "event", "eventSeq": seq, "key": key}));
    }
    Ok(())
}

/// A game as a portable MSTATE/1.0 document, under the manifest of its rules; its
/// start had `start_primary_ply` placements and moves behind it.
pub fn write(game: &Game, start_primary_ply: u64) -> Result<Value, MifError> {
    let manifest = Manifest::of_rules(game.start().rules())?;
    let origin = Mfen::of_game(&Game::from_position(*game.start()), start_primary_ply)
        .write()
        .map_err(MifError::from_mfen)?;
    let current = Mfen::of_game(game, start_primary_ply)
        .write()
        .map_err(MifError::from_mfen)?;
    let events = events_of(game);
    let (history, claims) = checkpoints(&manifest, game, &events)?;
    Ok(json!({
        "format": "MSTATE/1.0",
        "positionFormat": "MFEN/1.0",
        "stateProfile": STATE_PROFILE,
        "ruleset": {
            "mode": "portable",
            "id": manifest.id,
            "version": manifest.version,
            "semanticDigest": manifest.semantic_digest,
            "documentDigest": manifest.document_digest,
            "manifest": manifest.document
        },
        "origin": origin,
        "events": events,
        "current": current,
        "repetitionHistory": history,
        "preOriginClaims": [],
        "claims": claims
    }))
}

/// The manifest an MSTATE's ruleset envelope names: its own (portable) or the
/// caller's (reference), checked against the envelope's identity and digests.
pub(crate) fn envelope(doc: &Obj<'_>, caller: Option<&Manifest>) -> Result<Manifest, MifError> {
    let env = doc.obj("ruleset")?;
    let mode = env.one_of("mode", &["portable", "reference"])?;
    let (required, optional): (&[&str], &[&str]) = if mode == "portable" {
        (
            &[
                "mode",
                "id",
                "version",
                "semanticDigest",
                "documentDigest",
                "manifest",
            ],
            &[],
        )
    } else {
        (&["mode", "id", "version", "semanticDigest"], &["documentDigest"])
    };
    env.closed(required, optional)?;
    let manifest = if mode == "portable" {
        Manifest::from_value(env.get("manifest")?.clone()).map_err(|e| {
            let path = format!("/ruleset/manifest{}", e.instance_path.clone().unwrap_or_default());
            e.at(path)
        })?
    } else {
        caller.cloned().ok_or_else(|| {
            MifError::new(
                "integrity",
                "manifest-missing",
                "a reference MSTATE is read with its manifest",
            )
        })?
    };
    if env.str("id")? != manifest.id || env.uint("version")? != manifest.version {
        return Err(MifError::new(
            "integrity",
            "manifest-conflict",
            "the envelope names another rule set",
        )
        .at("/ruleset"));
    }
    if env.str("semanticDigest")? != manifest.semantic_digest {
        return Err(MifError::new(
            "integrity",
            "semantic-digest-mismatch",
            "the envelope's semantic digest",
        )
        .at("/ruleset/semanticDigest"));
    }
    if let Some(d) = env.opt("documentDigest")
        && d.as_str() != Some(manifest.document_digest.as_str())
    {
        return Err(MifError::new(
            "integrity",
            "document-digest-mismatch",
            "the envelope's document digest",
        )
        .at("/ruleset/documentDigest"));
    }
    Ok(manifest)
}

fn point(p: &Position, e: &Obj<'_>, member: &str) -> Result<mill_core::Point, MifError> {
    let at = e.str(member)?;
    if !RING_ORDER.contains(&at) {
        return Err(schema(&e.path_of(member), format!("{at:?} is not a point")));
    }
    p.topology()
        .point(at)
        .ok_or_else(|| schema(&e.path_of(member), format!("{at:?} is not a point")))
}

/// A game replayed from its origin under a manifest this crate plays, with what each
/// boundary looked like: the harness's trace (clause 12 identities per boundary), the
/// active repetition window, the claim audit (offers open, accepted, declined or
/// withdrawn) and the open offer.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The manifest the game is played under.
    pub manifest: Manifest,
    /// The game: the origin position, the actions, and a resignation or agreed draw.
    pub game: Game,
    /// The origin's count of placements and moves.
    pub primary_ply: u64,
    /// One snapshot per boundary: the origin's, then one per event.
    pub trace: Vec<Value>,
    /// The active repetition window at the end.
    pub history: Vec<Value>,
    /// The claim audit at the end.
    pub claims: Vec<Value>,
    /// The open offer at the end: its record's index in `claims`.
    pub open_offer: Option<usize>,
    /// The origin MFEN and the events as given (the replay prefix).
    pub origin: String,
    /// The events as given.
    pub events: Vec<Value>,
    /// The window's leading pre-origin observations, as given.
    pub pre_origin_repetition: Vec<Value>,
    /// The pre-origin claim seeds, as given.
    pub pre_origin_claims: Vec<Value>,
}

impl Replay {
    /// The current position in canonical MFEN.
    pub fn current(&self) -> Result<String, MifError> {
        Mfen::of_game(&self.game, self.primary_ply)
            .write()
            .map_err(MifError::from_mfen)
    }

    fn snapshot(&self, event_seq: Option<u64>) -> Result<Value, MifError> {
        let current = self.current()?;
        let (decision, id) = self.decision(&current)?;
        Ok(json!({
            "boundary": if event_seq.is_some() { "event" } else { "origin" },
            "eventSeq": event_seq,
            "current": current,
            "repetitionHistory": self.history,
            "claims": self.claims,
            "claimRights": self.claim_rights(),
            "decisionState": decision,
            "decisionDigest": id
        }))
    }

    /// The draws the side to move may claim now, in MIF's words (`no-progress`, then
    /// `repetition`); none while a removal is owed or once the game is over.
    fn claim_reasons(&self) -> Vec<&'static str> {
        self.game
            .claimable()
            .into_iter()
            .map(|draw| match draw {
                DrawReason::HundredTurns => "no-progress",
                _ => "repetition",
            })
            .collect()
    }

    /// The current claim right (`stable-claim-rights-v1`): `{actor, reasons}`, or
    /// null when there is nothing to claim.
    pub fn claim_rights(&self) -> Value {
        let reasons = self.claim_reasons();
        if reasons.is_empty() {
            return Value::Null;
        }
        json!({"actor": side(self.game.position().turn()), "reasons": reasons})
    }

    /// The open offer's record: where it came from (`pre-origin`, `event`), its
    /// offerer and the sequence an answer names (0 for a pre-origin offer).
    fn offer(&self) -> Option<(&str, &str, u64)> {
        let record = self.claims.get(self.open_offer?)?;
        let source = record.get("source").and_then(Value::as_str).unwrap_or("event");
        let actor = record.get("actor").and_then(Value::as_str).unwrap_or("w");
        let seq = record.get("eventSeq").and_then(Value::as_u64).unwrap_or(0);
        Some((source, actor, seq))
    }

    /// The open offer, if any, lapses (MIF 11.9, or on the opponent's primary action):
    /// status `expired`, resolved by event `seq` when one caused it.
    fn expire_offer(&mut self, seq: Option<u64>) {
        if let Some(record) = self.open_offer.take().and_then(|i| self.claims.get_mut(i)) {
            record["status"] = json!("expired");
            if let Some(seq) = seq {
                record["resolvedEventSeq"] = json!(seq);
            }
        }
    }

    fn decision(&self, current: &str) -> Result<(Value, String), MifError> {
        let cap = self.manifest.doc.draw.repetition.count.0;
        let summary = Some(summary_of_history(&self.history, cap, "/repetitionHistory")?);
        let reasons = self.claim_reasons();
        let negotiation = Negotiation {
            open_offer_by: self.offer().and_then(|(_, by, _)| by.chars().next()),
            claim_rights: (!reasons.is_empty()).then(|| {
                let by = match self.game.position().turn() {
                    Color::Light => 'w',
                    Color::Dark => 'b',
                };
                (by, reasons)
            }),
        };
        decision_state(&self.manifest, current, summary.as_ref(), &negotiation)
    }

    /// The `decision-state-v1` object at the end, and its digest.
    pub fn decision_state(&self) -> Result<(Value, String), MifError> {
        self.decision(&self.current()?)
    }

    /// The `resumption-state-v1` object at the end (clause 12.2), and its digest.
    pub fn resumption_state(&self) -> Result<(Value, String), MifError> {
        let prefix = json!({
            "origin": self.origin,
            "preOriginRepetition": self.pre_origin_repetition,
            "preOriginClaims": self.pre_origin_claims,
            "events": self.events
        });
        let value = json!({
            "profile": "resumption-state-v1",
            "positionFormat": "MFEN/1.0",
            "stateProfile": STATE_PROFILE,
            "semanticDigest": self.manifest.semantic_digest,
            "current": self.current()?,
            "replayPrefixDigest": digest(&prefix),
            "lastEventSeq": self.events.len(),
            "repetitionHistory": self.history,
            "claims": self.claims,
            "openOffer": match self.offer() {
                Some((source, actor, seq)) => json!({"source": source, "actor": actor, "offerEventSeq": seq}),
                None => Value::Null,
            },
            "claimRights": self.claim_rights()
        });
        let id = digest(&value);
        Ok((value, id))
    }

    /// The MIFTURN/1.0 projection of the game into logical turns (clause 14.3): each
    /// placement or move with the removals it caused; an origin that owes removals
    /// gives an `origin-obligation` fragment. A turn still owing a removal when the
    /// events end, or ended by a resignation or agreement, is `truncated`. Draw
    /// negotiation stays out.
    pub fn logical_turns(&self) -> Result<Value, MifError> {
        let mut fragments: Vec<Value> = Vec::new();
        let mut p = *self.game.start();
        let mut open: Option<(Option<u64>, Vec<u64>)> = None;
        if p.pending_removals() > 0 {
            open = Some((None, Vec::new()));
        }
        let close = |open: (Option<u64>, Vec<u64>), complete: bool, fragments: &mut Vec<Value>| {
            let status = if complete { "complete" } else { "truncated" };
            fragments.push(match open.0 {
                Some(seq) => json!({"kind": "logical-turn", "primaryEventSeq": seq, "removeEventSeqs": open.1, "status": status}),
                None => json!({"kind": "origin-obligation", "removeEventSeqs": open.1, "status": status}),
            });
        };
        let mut actions = self.game.actions().iter();
        for event in &self.events {
            let seq = event.get("seq").and_then(Value::as_u64).unwrap_or(0);
            match event.get("type").and_then(Value::as_str) {
                Some("place") | Some("move") | Some("remove") => {
                    let Some(&action) = actions.next() else { break };
                    if !matches!(action, Action::Remove { .. }) {
                        if let Some(o) = open.take() {
                            close(o, true, &mut fragments);
                        }
                        open = Some((Some(seq), Vec::new()));
                    } else if let Some(o) = open.as_mut() {
                        o.1.push(seq);
                    }
                    p = p.play_action(action).unwrap_or(p);
                    if p.pending_removals() == 0
                        && let Some(o) = open.take()
                    {
                        close(o, true, &mut fragments);
                    }
                }
                Some("resign") | Some("accept-draw") => {
                    if let Some(o) = open.take() {
                        close(o, false, &mut fragments);
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = open.take() {
            let complete = p.pending_removals() == 0;
            close(o, complete, &mut fragments);
        }
        let (_, resumption) = self.resumption_state()?;
        Ok(json!({
            "format": "MIFTURN/1.0",
            "profile": "logical-turn-v1",
            "sourceResumptionDigest": resumption,
            "fragments": fragments
        }))
    }
}

/// Where a replay's snapshots go, one per boundary as it is reached: nowhere (a
/// replay that only verifies keeps nothing per event), or to a function.
pub type Each<'a> = Option<&'a mut dyn FnMut(Value) -> Result<(), MifError>>;

/// Plays `events` from the MFEN `origin` under `manifest` (a rule set this crate plays,
/// else `unsupported/unsupported-ruleset`), after the pre-origin seeds (the repetition
/// observations and draw offers from before the origin), recording a snapshot at every
/// boundary in [`Replay::trace`].
pub fn run(
    manifest: &Manifest,
    origin_text: &str,
    events: &[Value],
    repetition_seed: &[Value],
    pre_origin_claims: &[Value],
) -> Result<Replay, MifError> {
    let mut trace = Vec::new();
    let mut r = run_each(
        manifest,
        origin_text,
        events,
        repetition_seed,
        pre_origin_claims,
        Some(&mut |s| {
            trace.push(s);
            Ok(())
        }),
    )?;
    r.trace = trace;
    Ok(r)
}

/// [`run`], handing each snapshot to `each` as it is made instead of keeping it (the
/// returned [`Replay::trace`] is empty): the replay's own memory then grows with the
/// events alone, however long the trace.
pub fn run_each(
    manifest: &Manifest,
    origin_text: &str,
    events: &[Value],
    repetition_seed: &[Value],
    pre_origin_claims: &[Value],
    each: Each<'_>,
) -> Result<Replay, MifError> {
    play(
        manifest,
        origin_text,
        events,
        repetition_seed,
        "/repetitionSeed",
        pre_origin_claims,
        each,
    )
}

/// Hands the snapshot of the boundary after event `seq` (the origin's for `None`) to
/// `each`, if a trace is wanted, counting its window and audit against
/// [`TRACE_ENTRIES`]: past it, `resource/resource-limit` at `path`.
fn emit(
    r: &Replay,
    seq: Option<u64>,
    each: &mut Each<'_>,
    entries: &mut usize,
    path: &str,
) -> Result<(), MifError> {
    let Some(each) = each.as_mut() else {
        return Ok(());
    };
    *entries += r.history.len() + r.claims.len();
    limits::at_most(
        *entries,
        TRACE_ENTRIES,
        "the repetition entries and claim records over the trace's snapshots",
        path,
    )?;
    each(r.snapshot(seq)?)
}

/// The hash of the position a pre-origin observation (`key`, at `path`) describes,
/// if it is one whose recurrence the manifest counts: a stable boundary it observes
/// and a position these rules can be in while the game goes on (any other can never
/// equal one observed later, and is kept in the window but counts for nothing).
fn seed_hash(
    manifest: &Manifest,
    rules: mill_core::Rules,
    key: &Value,
    path: &str,
) -> Result<Option<u64>, MifError> {
    let k = Obj::of(key, path)?;
    k.closed(
        &[
            "profile",
            "stateProfile",
            "semanticDigest",
            "board",
            "side",
            "phase",
            "action",
            "hands",
            "semantic",
        ],
        &[],
    )?;
    k.one_of("profile", &["repetition-observation-v1"])?;
    k.one_of("stateProfile", &[STATE_PROFILE])?;
    if k.str("semanticDigest")? != manifest.semantic_digest {
        return Err(MifError::new(
            "integrity",
            "semantic-digest-mismatch",
            "a pre-origin observation of other rules",
        )
        .at(k.path_of("semanticDigest")));
    }
    let board = k.str("board")?;
    let side = k.one_of("side", &["b", "w"])?;
    let phase = k.one_of("phase", &["m", "p"])?;
    let action = k.one_of("action", &["m", "p"])?;
    let hands = match k.get("hands")? {
        Value::Array(h) if h.len() == 2 && h.iter().all(Value::is_u64) => (h[0].as_u64(), h[1].as_u64()),
        _ => return Err(schema(&k.path_of("hands"), "[White's, Black's] pieces in hand")),
    };
    let semantic = match k.get("semantic")? {
        Value::Object(o) => o,
        _ => return Err(schema(&k.path_of("semantic"), "an object")),
    };
    let moving_only = manifest.doc.draw.repetition.observation == Observation::StableMoving;
    if !semantic.is_empty() || phase != action || (moving_only && phase != "m") {
        return Ok(None);
    }
    let (Some(white), Some(black)) = hands else {
        return Ok(None);
    };
    let text = format!("{SIGNATURE} {STATE_PROFILE} {board} {side} {phase} {action} {white},{black} - 0 0 -");
    Ok(Mfen::parse(&text, rules).ok().map(|m| m.position.hash()))
}

/// Replays an MSTATE/1.0 document (parsed JSON) under the rules its manifest maps to,
/// verifying every checkpoint (`current`, `repetitionHistory`, `claims`): a
/// difference is refused with its code, never repaired. Every boundary's snapshot is
/// kept in [`Replay::trace`].
pub fn replay(value: &Value, caller: Option<&Manifest>) -> Result<Replay, MifError> {
    let mut trace = Vec::new();
    let mut r = replay_each(
        value,
        caller,
        Some(&mut |s| {
            trace.push(s);
            Ok(())
        }),
    )?;
    r.trace = trace;
    Ok(r)
}

/// [`replay`] keeping no trace: time and memory in proportion to the document.
pub fn verify(value: &Value, caller: Option<&Manifest>) -> Result<Replay, MifError> {
    replay_each(value, caller, None)
}

/// [`replay`], handing each snapshot to `each` as it is made instead of keeping it.
pub fn replay_each(value: &Value, caller: Option<&Manifest>, each: Each<'_>) -> Result<Replay, MifError> {
    let doc = Obj::of(value, "")?;
    doc.closed(
        &[
            "format",
            "positionFormat",
            "stateProfile",
            "ruleset",
            "origin",
            "events",
            "current",
            "repetitionHistory",
            "preOriginClaims",
            "claims",
        ],
        &["annotations", "extensions"],
    )?;
    for (member, limit, what) in [
        ("events", EVENTS, "the events"),
        ("repetitionHistory", REPETITION_ENTRIES, "the repetition entries"),
        ("claims", CLAIMS, "the claim records"),
        ("preOriginClaims", CLAIMS, "the claim records"),
    ] {
        if let Some(Value::Array(items)) = doc.opt(member) {
            limits::at_most(items.len(), limit, what, &format!("/{member}"))?;
        }
    }
    doc.one_of("format", &["MSTATE/1.0"])?;
    doc.one_of("positionFormat", &["MFEN/1.0"])?;
    doc.one_of("stateProfile", &[STATE_PROFILE])?;
    if doc
        .opt("extensions")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
    {
        return Err(MifError::new(
            "unsupported",
            "unsupported-profile",
            "no MSTATE extension is implemented",
        )
        .at("/extensions/0"));
    }
    let manifest = envelope(&doc, caller)?;
    let Value::Array(history) = doc.get("repetitionHistory")? else {
        return Err(schema("/repetitionHistory", "an array"));
    };
    let Value::Array(pre_claims) = doc.get("preOriginClaims")? else {
        return Err(schema("/preOriginClaims", "an array"));
    };
    let Value::Array(events) = doc.get("events")? else {
        return Err(schema("/events", "an array of events"));
    };
    let seed: Vec<Value> = history
        .iter()
        .take_while(|h| h["source"] == "pre-origin")
        .cloned()
        .collect();
    let r = play(
        &manifest,
        doc.str("origin")?,
        events,
        &seed,
        "/repetitionHistory",
        pre_claims,
        each,
    )?;
    let current = r.current()?;
    if doc.str("current")? != current {
        return Err(MifError::new(
            "replay",
            "checkpoint-mismatch",
            format!("the replay ends at {current}"),
        )
        .at("/current"));
    }
    if *history != r.history {
        return Err(MifError::new(
            "replay",
            "repetition-history-mismatch",
            "the active repetition window differs",
        )
        .at("/repetitionHistory"));
    }
    if doc.get("claims")? != &Value::Array(r.claims.clone()) {
        return Err(MifError::new("replay", "claims-mismatch", "the claim audit differs").at("/claims"));
    }
    Ok(r)
}

/// Reads an MSTATE/1.0 game under the rules its manifest maps to (a reference envelope
/// with the caller's manifest), replaying every event and verifying the checkpoints;
/// returns the game and its origin's count of placements and moves. A game here keeps
/// no open, declined, withdrawn or expired offer and no history from before its start:
/// such a document is refused (`unsupported/unsupported-event`,
/// `unsupported/unsupported-pre-origin`) — the adapter's `replay` reads it.
pub fn read(text: &str, caller: Option<&Manifest>) -> Result<(Game, u64), MifError> {
    limits::bytes(text, MSTATE_BYTES, "an MSTATE document")?;
    let r = verify(&parse(text)?, caller)?;
    if !r.pre_origin_repetition.is_empty() || !r.pre_origin_claims.is_empty() {
        return Err(MifError::new(
            "unsupported",
            "unsupported-pre-origin",
            "a game here keeps no history from before its start",
        )
        .at(if r.pre_origin_repetition.is_empty() {
            "/preOriginClaims"
        } else {
            "/repetitionHistory"
        }));
    }
    if r.claims.iter().any(|c| c["status"] != "accepted") {
        return Err(MifError::new(
            "unsupported",
            "unsupported-event",
            "draw offers other than an accepted one are not kept in a game here",
        )
        .at("/events"));
    }
    Ok((r.game, r.primary_ply))
}

/// The manifest an MSTATE document's envelope carries or names (with the caller's for
/// a reference), checked against its identity and digests; nothing else is read.
pub fn manifest_of(value: &Value, caller: Option<&Manifest>) -> Result<Manifest, MifError> {
    envelope(&Obj::of(value, "")?, caller)
}

/// An MSTATE document moved by the transform `id` (clause 14.1): origin, current,
/// every event's points and every repetition observation's board; then replayed under
/// its manifest, so the moved document is verified as any other.
pub fn transform(value: &Value, caller: Option<&Manifest>, id: &str) -> Result<(Value, Replay), MifError> {
    let manifest = manifest_of(value, caller)?;
    let ordinal = super::transform::ordinal(id).ok_or_else(|| {
        MifError::new(
            "unsupported",
            "unsupported-transform",
            format!("no transform {id:?}"),
        )
    })?;
    let map = super::transform::point_map(ordinal);
    let doc = Obj::of(value, "")?;
    let rules = manifest.rules()?;
    let moved_mfen = |member: &str| -> Result<String, MifError> {
        let moved = super::transform::mfen(doc.str(member)?, id).map_err(|e| e.at(format!("/{member}")))?;
        // The origin may be unsettled, as a replay reads it.
        let parsed = if member == "origin" {
            Mfen::parse_origin(&moved, rules)
        } else {
            Mfen::parse(&moved, rules)
        };
        parsed
            .map_err(|e| MifError::from_mfen(e).at(format!("/{member}")))?
            .write()
            .map_err(MifError::from_mfen)
    };
    let origin = moved_mfen("origin")?;
    let current = moved_mfen("current")?;
    let Value::Array(events) = doc.get("events")? else {
        return Err(schema("/events", "an array of events"));
    };
    let mut moved_events = Vec::with_capacity(events.len());
    for (i, event) in events.iter().enumerate() {
        let mut event = event.clone();
        let bad = |m: &str| schema(&format!("/events/{i}/{m}"), "a point of the board");
        if let Some(o) = event.as_object_mut() {
            for member in ["at", "from", "to"] {
                if let Some(v) = o.get(member) {
                    let name = v
                        .as_str()
                        .and_then(|n| super::transform::point_name(n, &map))
                        .ok_or_else(|| bad(member))?;
                    o.insert(member.into(), json!(name));
                }
            }
            if let Some(t) = o.get_mut("target").and_then(Value::as_object_mut)
                && let Some(v) = t.get("at")
            {
                let name = v
                    .as_str()
                    .and_then(|n| super::transform::point_name(n, &map))
                    .ok_or_else(|| bad("target/at"))?;
                t.insert("at".into(), json!(name));
            }
        }
        moved_events.push(event);
    }
    let Value::Array(history) = doc.get("repetitionHistory")? else {
        return Err(schema("/repetitionHistory", "an array"));
    };
    let history = super::identity::transform_history(history, &map)?;
    let mut out = value.clone();
    if let Some(o) = out.as_object_mut() {
        o.insert("origin".into(), json!(origin));
        o.insert("current".into(), json!(current));
        o.insert("events".into(), Value::Array(moved_events));
        o.insert("repetitionHistory".into(), Value::Array(history));
    }
    let r = verify(&out, caller)?;
    Ok((out, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::canonical;
    use mill_core::{Position, Rules};

    /// A short game of Nine: the first legal turn each time, twenty turns.
    fn game() -> Game {
        let mut game = Game::from_position(Position::start(Rules::parse("nine").unwrap()));
        for _ in 0..20 {
            let turn = game.legal_turns()[0];
            game.play(turn).unwrap();
        }
        game
    }

    #[test]
    fn a_written_game_reads_back_to_the_same_positions() {
        let game = game();
        let text = canonical(&write(&game, 0).unwrap());
        let (back, ply) = read(&text, None).unwrap();
        assert_eq!(ply, 0);
        assert_eq!(back.position(), game.position());
        assert_eq!(back.actions(), game.actions());
    }

    #[test]
    fn a_current_position_that_the_events_do_not_reach_is_refused() {
        let game = game();
        let mut doc = write(&game, 0).unwrap();
        // The origin's position as the current one: the events lead elsewhere.
        doc["current"] = doc["origin"].clone();
        let err = read(&canonical(&doc), None).unwrap_err();
        assert_ne!(err.category, "syntax", "{err:?}");
        assert!(verify(&doc, None).is_err());
    }

    #[test]
    fn an_event_removed_from_the_middle_breaks_the_replay() {
        let game = game();
        let mut doc = write(&game, 0).unwrap();
        let events = doc["events"].as_array_mut().unwrap();
        assert!(events.len() > 10);
        events.remove(5);
        assert!(read(&canonical(&doc), None).is_err());
    }

    #[test]
    fn an_unknown_transform_is_refused_and_the_identity_changes_nothing() {
        let doc = write(&game(), 0).unwrap();
        assert!(transform(&doc, None, "no-such-transform").is_err());
        let before = verify(&doc, None).unwrap();
        let (moved, after) = transform(&doc, None, "i").unwrap();
        assert_eq!(moved["events"], doc["events"]);
        assert_eq!(after.game.position(), before.game.position());
    }
}

//! MSTATE/1.0 for the games this crate plays: a whole game as its rule-set envelope,
//! an origin MFEN, the events (placements, moves, removals, a resignation, an agreed
//! draw) and the authoritative checkpoints a reader verifies: the current MFEN, the
//! active repetition window and the claim audit.
//!
//! Only manifests that [`Manifest::rules`] maps to one of our rule sets are read: their
//! draws are automatic (hundred moves, threefold repetition observed at moving
//! boundaries and reset by a removal), so a game needs no claim events. Pre-origin
//! seeds (repetition history or open offers from before the origin) are refused: a
//! [`Game`] starts its history at its start.

use super::identity::{Negotiation, decision_state, observation, summary_of_history};
use super::json::digest;
use super::json::parse;
use super::mrs::Manifest;
use super::{MifError, Obj, STATE_PROFILE, schema};
use crate::color::Color;
use crate::game::Game;
use crate::mfen::{Mfen, RING_ORDER};
use crate::outcome::{DrawReason, Outcome, WinReason};
use crate::position::Position;
use crate::turn::Action;
use serde_json::{Value, json};

fn side(c: Color) -> &'static str {
    match c {
        Color::Light => "w",
        Color::Dark => "b",
    }
}

fn name(position: &Position, point: crate::Point) -> &'static str {
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
        _ => {}
    }
    events
}

/// The repetition observation of a position, if it is one the manifest observes: a
/// stable boundary (ongoing, no removal owed) in the moving phase of the side to move,
/// or (under `stable-primary-decision-v1`) any stable boundary.
fn observed(manifest: &Manifest, p: &Position) -> Result<Option<Value>, MifError> {
    let every = manifest.document.pointer("/draw/repetition/observation")
        == Some(&json!("stable-primary-decision-v1"));
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
        .filter(|e| e["type"] == "accept-draw")
        .map(|e| {
            json!({
                "source": "event",
                "actor": if e["actor"] == "w" { "b" } else { "w" },
                "eventSeq": e["offerEventSeq"],
                "kind": "draw-offer",
                "status": "accepted",
                "resolvedEventSeq": e["seq"]
            })
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

fn point(p: &Position, e: &Obj<'_>, member: &str) -> Result<crate::Point, MifError> {
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
    /// The open offer at the end: its event and offerer.
    pub open_offer: Option<(u64, &'static str)>,
    /// The origin MFEN and the events as given (the replay prefix).
    pub origin: String,
    /// The events as given.
    pub events: Vec<Value>,
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
            "claimRights": null,
            "decisionState": decision,
            "decisionDigest": id
        }))
    }

    fn decision(&self, current: &str) -> Result<(Value, String), MifError> {
        let cap = self
            .manifest
            .document
            .pointer("/draw/repetition/count")
            .and_then(Value::as_u64);
        let summary = cap
            .map(|cap| summary_of_history(&self.history, cap, "/repetitionHistory"))
            .transpose()?;
        let negotiation = Negotiation {
            open_offer_by: self.open_offer.and_then(|(_, by)| by.chars().next()),
            claim_rights: None,
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
            "preOriginRepetition": [],
            "preOriginClaims": [],
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
            "openOffer": match self.open_offer {
                Some((seq, actor)) => json!({"source": "event", "actor": actor, "offerEventSeq": seq}),
                None => Value::Null,
            },
            "claimRights": null
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

/// Plays `events` from the MFEN `origin` under `manifest` (a rule set this crate plays,
/// else `unsupported/unsupported-ruleset`), recording a snapshot at every boundary.
/// Pre-origin seeds (repetition history, claims) are refused: a game here starts its
/// history at its start.
pub fn run(
    manifest: &Manifest,
    origin_text: &str,
    events: &[Value],
    repetition_seed: &[Value],
    pre_origin_claims: &[Value],
) -> Result<Replay, MifError> {
    let rules = manifest.rules()?;
    let origin = Mfen::parse(origin_text, rules).map_err(|e| MifError::from_mfen(e).at("/origin"))?;
    if !pre_origin_claims.is_empty() {
        return Err(MifError::new(
            "unsupported",
            "unsupported-pre-origin",
            "pre-origin claim seeds are not kept here",
        )
        .at("/preOriginClaims"));
    }
    if !repetition_seed.is_empty() {
        return Err(MifError::new(
            "unsupported",
            "unsupported-pre-origin",
            "pre-origin repetition history is not kept here",
        )
        .at("/repetitionHistory/0"));
    }
    let mut game = Game::from_position(origin.position);
    match origin.outcome {
        Some(Outcome::Win {
            winner,
            reason: WinReason::Resignation,
        }) => game
            .resign(!winner)
            .map_err(|e| MifError::new("replay", "replay", e.to_string()))?,
        Some(Outcome::Draw {
            reason: DrawReason::Agreement,
        }) => game
            .agree_draw()
            .map_err(|e| MifError::new("replay", "replay", e.to_string()))?,
        _ => {}
    }
    let mut r = Replay {
        manifest: manifest.clone(),
        history: Vec::new(),
        game,
        primary_ply: origin.primary_ply,
        trace: Vec::new(),
        claims: Vec::new(),
        open_offer: None,
        origin: origin_text.to_string(),
        events: events.to_vec(),
    };
    if let Some(key) = observed(manifest, r.game.position())? {
        r.history.push(json!({"source": "origin", "key": key}));
    }
    let origin_snapshot = r.snapshot(None)?;
    r.trace.push(origin_snapshot);
    for (i, event) in events.iter().enumerate() {
        let path = format!("/events/{i}");
        let e = Obj::of(event, &path)?;
        let seq = e.uint("seq")?;
        if seq != i as u64 + 1 {
            return Err(schema(&e.path_of("seq"), "sequences count from 1 in array order"));
        }
        let kind = e.str("type")?;
        let actor: &'static str = match e.one_of("actor", &["w", "b", "system"])? {
            "w" => "w",
            "b" => "b",
            _ => "system",
        };
        let game = &mut r.game;
        let to_move = side(game.position().turn());
        let fail = |code: &'static str, message: String| {
            let mut err = MifError::new("replay", code, message).at(path.clone());
            err.message = format!("event {seq}: {}", err.message);
            err
        };
        if game.is_over() {
            return Err(fail("event-after-terminal", "the game is already over".into()));
        }
        let p = *game.position();
        let action = match kind {
            "place" => {
                e.closed(&["seq", "actor", "type", "at"], &["annotations"])?;
                Some(Action::Place {
                    to: point(&p, &e, "at")?,
                })
            }
            "move" => {
                e.closed(&["seq", "actor", "type", "from", "to"], &["annotations"])?;
                Some(Action::Move {
                    from: point(&p, &e, "from")?,
                    to: point(&p, &e, "to")?,
                })
            }
            "remove" => {
                e.closed(&["seq", "actor", "type", "target"], &["annotations"])?;
                let target = e.obj("target")?;
                if target.opt("zone") != Some(&json!("board")) {
                    return Err(fail(
                        "remove-without-obligation",
                        "only board removals are owed here".into(),
                    ));
                }
                target.closed(&["zone", "at"], &[])?;
                if p.pending_removals() == 0 {
                    return Err(fail("remove-without-obligation", "no removal is owed".into()));
                }
                Some(Action::Remove {
                    at: point(&p, &target, "at")?,
                })
            }
            _ => None,
        };
        if let Some(action) = action {
            if actor != to_move {
                let code = if p.pending_removals() > 0 {
                    "side-obligation-actor-mismatch"
                } else {
                    "actor-not-to-move"
                };
                return Err(fail(code, format!("{actor} acts, {to_move} is to move")));
            }
            if p.pending_removals() > 0 && !matches!(action, Action::Remove { .. }) {
                return Err(fail("obligation-pending", "a removal is owed first".into()));
            }
            game.play_action(action)
                .map_err(|err| fail("illegal-action", err.to_string()))?;
            // Automatic draws here: an offer expires only explicitly.
            let now = *game.position();
            step_window(manifest, &mut r.history, &now, action, seq)?;
        } else {
            match kind {
                "offer-draw" => {
                    e.closed(&["seq", "actor", "type"], &["annotations"])?;
                    if r.open_offer.is_some() || actor != to_move {
                        return Err(fail(
                            "offer-invalid",
                            "one open offer, by the side to move".into(),
                        ));
                    }
                    r.open_offer = Some((seq, actor));
                    r.claims.push(json!({
                        "source": "event", "actor": actor, "eventSeq": seq, "kind": "draw-offer", "status": "open"
                    }));
                }
                "accept-draw" | "decline-draw" | "withdraw-draw" => {
                    e.closed(&["seq", "actor", "type", "offerEventSeq"], &["annotations"])?;
                    let Some((offer_seq, offerer)) = r.open_offer else {
                        return Err(fail("offer-invalid", "no offer is open".into()));
                    };
                    let by_offerer = actor == offerer;
                    if e.uint("offerEventSeq")? != offer_seq || by_offerer != (kind == "withdraw-draw") {
                        return Err(fail(
                            "offer-invalid",
                            "the open offer, answered by the right side".into(),
                        ));
                    }
                    r.open_offer = None;
                    let status = match kind {
                        "accept-draw" => "accepted",
                        "decline-draw" => "declined",
                        _ => "withdrawn",
                    };
                    for c in r.claims.iter_mut() {
                        if c["eventSeq"] == json!(offer_seq) && c["status"] == "open" {
                            c["status"] = json!(status);
                            c["resolvedEventSeq"] = json!(seq);
                        }
                    }
                    if kind == "accept-draw" {
                        r.game
                            .agree_draw()
                            .map_err(|err| fail("illegal-action", err.to_string()))?;
                    }
                }
                "resign" => {
                    e.closed(&["seq", "actor", "type"], &["annotations"])?;
                    let loser = match actor {
                        "w" => Color::Light,
                        "b" => Color::Dark,
                        _ => return Err(fail("illegal-action", "a player resigns".into())),
                    };
                    game.resign(loser)
                        .map_err(|err| fail("illegal-action", err.to_string()))?;
                }
                "claim-draw" => {
                    let code = if p.pending_removals() > 0 {
                        "claim-during-obligation"
                    } else {
                        "claim-right-unavailable"
                    };
                    return Err(fail(code, "draws are automatic under these rules".into()));
                }
                other => {
                    return Err(MifError::new(
                        "unsupported",
                        "unsupported-event",
                        format!("event type {other:?}"),
                    )
                    .at(path));
                }
            }
        }
        let snapshot = r.snapshot(Some(seq))?;
        r.trace.push(snapshot);
    }
    Ok(r)
}

/// Replays an MSTATE/1.0 document (parsed JSON) under the rules its manifest maps to,
/// verifying every checkpoint (`current`, `repetitionHistory`, `claims`): a
/// difference is refused with its code, never repaired.
pub fn replay(value: &Value, caller: Option<&Manifest>) -> Result<Replay, MifError> {
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
    let r = run(&manifest, doc.str("origin")?, events, &seed, pre_claims)?;
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
/// no open, declined or withdrawn offer: such a document is refused
/// (`unsupported/unsupported-event`) — the adapter's `replay` reads it.
pub fn read(text: &str, caller: Option<&Manifest>) -> Result<(Game, u64), MifError> {
    let r = replay(&parse(text)?, caller)?;
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
        let parsed =
            Mfen::parse(&moved, rules).map_err(|e| MifError::from_mfen(e).at(format!("/{member}")))?;
        parsed.write().map_err(MifError::from_mfen)
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
    let r = replay(&out, caller)?;
    Ok((out, r))
}

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

use super::identity::observation;
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

/// The stable moving observation of a position, if it is one: ongoing on the board,
/// no removal owed, the side to move out of hand.
fn observed(manifest: &Manifest, p: &Position) -> Result<Option<Value>, MifError> {
    if p.pending_removals() > 0 || p.in_hand(p.turn()) > 0 || p.board_outcome().is_some() {
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
/// every removal, one entry per stable moving boundary, the origin's included) and
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
        if matches!(action, Action::Remove { .. }) {
            window.clear();
        }
        if p.pending_removals() == 0
            && let Some(key) = observed(manifest, &p)?
        {
            window.push(json!({"source": "event", "eventSeq": i + 1, "key": key}));
        }
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
fn envelope(doc: &Obj<'_>, caller: Option<&Manifest>) -> Result<Manifest, MifError> {
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

/// Replays an MSTATE/1.0 document (text) and verifies its checkpoints: the game it
/// records, and the placements and moves its origin had behind it. A reference
/// document is read under `caller`; a mismatch is `checkpoint-mismatch`,
/// `repetition-history-mismatch` or `claims-mismatch`, never repaired.
pub fn read(text: &str, caller: Option<&Manifest>) -> Result<(Game, u64), MifError> {
    let value = parse(text)?;
    let doc = Obj::of(&value, "")?;
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
    let rules = manifest.rules()?;
    let origin = Mfen::parse(doc.str("origin")?, rules).map_err(|e| MifError::from_mfen(e).at("/origin"))?;
    if doc
        .get("preOriginClaims")?
        .as_array()
        .is_none_or(|a| !a.is_empty())
    {
        return Err(MifError::new(
            "unsupported",
            "unsupported-pre-origin",
            "pre-origin claim seeds are not kept here",
        )
        .at("/preOriginClaims"));
    }
    let history = doc
        .get("repetitionHistory")?
        .as_array()
        .cloned()
        .unwrap_or_default();
    if history.iter().any(|h| h["source"] == "pre-origin") {
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
    let Value::Array(events) = doc.get("events")? else {
        return Err(schema("/events", "an array of events"));
    };
    let mut open_offer: Option<(u64, &str)> = None;
    for (i, event) in events.iter().enumerate() {
        let path = format!("/events/{i}");
        let e = Obj::of(event, &path)?;
        let seq = e.uint("seq")?;
        if seq != i as u64 + 1 {
            return Err(schema(&e.path_of("seq"), "sequences count from 1 in array order"));
        }
        let kind = e.str("type")?;
        let actor = e.one_of("actor", &["w", "b", "system"])?;
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
            continue;
        }
        match kind {
            "offer-draw" => {
                e.closed(&["seq", "actor", "type"], &["annotations"])?;
                if open_offer.is_some() || actor != to_move {
                    return Err(fail(
                        "offer-invalid",
                        "one open offer, by the side to move".into(),
                    ));
                }
                open_offer = Some((seq, actor));
            }
            "accept-draw" | "decline-draw" | "withdraw-draw" => {
                e.closed(&["seq", "actor", "type", "offerEventSeq"], &["annotations"])?;
                let Some((offer_seq, offerer)) = open_offer else {
                    return Err(fail("offer-invalid", "no offer is open".into()));
                };
                let by_offerer = actor == offerer;
                if e.uint("offerEventSeq")? != offer_seq || by_offerer != (kind == "withdraw-draw") {
                    return Err(fail(
                        "offer-invalid",
                        "the open offer, answered by the right side".into(),
                    ));
                }
                open_offer = None;
                if kind == "accept-draw" {
                    game.agree_draw()
                        .map_err(|err| fail("illegal-action", err.to_string()))?;
                }
            }
            "resign" => {
                e.closed(&["seq", "actor", "type"], &["annotations"])?;
                let loser = if actor == "w" { Color::Light } else { Color::Dark };
                game.resign(loser)
                    .map_err(|err| fail("illegal-action", err.to_string()))?;
            }
            "claim-draw" => {
                let code = if game.position().pending_removals() > 0 {
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
    if open_offer.is_some()
        || events
            .iter()
            .any(|e| e["type"] == "decline-draw" || e["type"] == "withdraw-draw")
    {
        return Err(MifError::new(
            "unsupported",
            "unsupported-event",
            "draw offers other than an accepted one are not kept in a game here",
        )
        .at("/events"));
    }
    let current = Mfen::of_game(&game, origin.primary_ply)
        .write()
        .map_err(MifError::from_mfen)?;
    if doc.str("current")? != current {
        return Err(MifError::new(
            "replay",
            "checkpoint-mismatch",
            format!("the replay ends at {current}"),
        )
        .at("/current"));
    }
    let (window, claims) = checkpoints(&manifest, &game, events)?;
    if history != window {
        return Err(MifError::new(
            "replay",
            "repetition-history-mismatch",
            "the active repetition window differs",
        )
        .at("/repetitionHistory"));
    }
    if doc.get("claims")? != &Value::Array(claims) {
        return Err(MifError::new("replay", "claims-mismatch", "the claim audit differs").at("/claims"));
    }
    Ok((game, origin.primary_ply))
}

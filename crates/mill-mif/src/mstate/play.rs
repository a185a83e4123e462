//! The replay of an MSTATE document's events, one after another: each checked legal
//! under the manifest's rules, the offers and claims it settles, the window and audit
//! it moves, the snapshot of each boundary.

use super::*;

/// The reset events a step is (MIF 10.5): a placement, a mill closed, a removal.
fn step_events(before: &Position, after: &Position, action: Action) -> Vec<ResetEvent> {
    let mut events = Vec::new();
    let arrived = match action {
        Action::Place { to } => {
            events.push(ResetEvent::Place);
            Some(to)
        }
        Action::Move { to, .. } => Some(to),
        Action::Remove { .. } => {
            events.push(ResetEvent::BoardRemove);
            None
        }
    };
    if let Some(to) = arrived
        && after.topology().mills_through(after.pieces(before.turn()).0, to) > 0
    {
        events.push(ResetEvent::MillFormation);
    }
    events
}

pub(super) fn play(
    manifest: &Manifest,
    origin_text: &str,
    events: &[Value],
    repetition_seed: &[Value],
    seed_path: &str,
    pre_origin_claims: &[Value],
    mut each: Each<'_>,
) -> Result<Replay, MifError> {
    limits::at_most(events.len(), EVENTS, "the events", "/events")?;
    limits::at_most(
        repetition_seed.len(),
        REPETITION_ENTRIES,
        "the repetition entries",
        seed_path,
    )?;
    limits::at_most(
        pre_origin_claims.len(),
        CLAIMS,
        "the claim records",
        "/preOriginClaims",
    )?;
    let mut entries = 0;
    let rules = manifest.rules()?;
    // An origin is read unsettled: replaying it settles what the rules say at once.
    let origin = Mfen::parse_origin(origin_text, rules).map_err(|e| MifError::from_mfen(e).at("/origin"))?;
    let mut prior = Vec::new();
    for (i, entry) in repetition_seed.iter().enumerate() {
        let path = format!("{seed_path}/{i}");
        let e = Obj::of(entry, &path)?;
        e.closed(&["source", "key"], &[])?;
        e.one_of("source", &["pre-origin"])?;
        if let Some(hash) = seed_hash(manifest, rules, e.get("key")?, &format!("{path}/key"))? {
            prior.push(hash);
        }
    }
    let mut claims = Vec::new();
    let mut open_offer = None;
    for (i, seed) in pre_origin_claims.iter().enumerate() {
        let c = Obj::of(seed, &format!("/preOriginClaims/{i}"))?;
        c.closed(&["actor", "kind", "status"], &[])?;
        let actor = c.one_of("actor", &["b", "w"])?;
        c.one_of("kind", &["draw-offer"])?;
        let status = c.one_of(
            "status",
            &["accepted", "declined", "expired", "open", "withdrawn"],
        )?;
        if status == "open" {
            if open_offer.is_some() {
                return Err(
                    MifError::new("replay", "offer-invalid", "at most one pre-origin offer is open")
                        .at(format!("/preOriginClaims/{i}")),
                );
            }
            open_offer = Some(claims.len());
        }
        claims.push(json!({"source": "pre-origin", "actor": actor, "kind": "draw-offer", "status": status}));
    }
    let mut game = Game::from_position_after(origin.position, prior);
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
        Some(Outcome::Draw {
            reason: reason @ (DrawReason::Threefold | DrawReason::HundredTurns),
        }) if !game.is_over() => {
            // Claimed before the origin, if the rules leave it to a claim.
            let _ = game.claim_draw(reason);
        }
        _ => {}
    }
    let expire_on_reply = manifest.doc.draw.offers.expiry == Expiry::OnOpponentPrimaryAction;
    let resets = &manifest.doc.draw.repetition.reset_events;
    let mut r = Replay {
        manifest: manifest.clone(),
        history: repetition_seed.to_vec(),
        game,
        primary_ply: origin.primary_ply,
        trace: Vec::new(),
        claims,
        open_offer,
        origin: origin_text.to_string(),
        events: events.to_vec(),
        pre_origin_repetition: repetition_seed.to_vec(),
        pre_origin_claims: pre_origin_claims.to_vec(),
    };
    // Origin stabilization: the origin is observed if it is a boundary the manifest
    // observes; a result the rules reach at once ends the game, and an open offer
    // with it.
    if let Some(key) = observed(manifest, r.game.position())? {
        r.history.push(json!({"source": "origin", "key": key}));
    }
    if r.game.is_over() && origin.outcome.is_none() {
        r.expire_offer(None);
    }
    emit(&r, None, &mut each, &mut entries, "")?;
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
        let to_move = side(r.game.position().turn());
        let fail = |code: &'static str, message: String| {
            let mut err = MifError::new("replay", code, message).at(path.clone());
            err.message = format!("event {seq}: {}", err.message);
            err
        };
        if r.game.is_over() {
            return Err(fail("event-after-terminal", "the game is already over".into()));
        }
        let p = *r.game.position();
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
            // The action is checked first: an illegal one expires nothing.
            p.play_action(action)
                .map_err(|err| fail("illegal-action", err.to_string()))?;
            // Under `on-opponent-primary-action`, the offerer's opponent placing or
            // moving lets the offer lapse (MIF 10.5), before the action takes effect.
            let primary = !matches!(action, Action::Remove { .. });
            if primary && expire_on_reply && r.offer().is_some_and(|(_, offerer, _)| offerer != actor) {
                r.expire_offer(Some(seq));
            }
            r.game
                .play_action(action)
                .map_err(|err| fail("illegal-action", err.to_string()))?;
            let now = *r.game.position();
            // A reset event the manifest names empties the window, the pre-origin
            // observations with it.
            if step_events(&p, &now, action)
                .iter()
                .any(|event| resets.contains(event))
            {
                r.history.clear();
                r.game.forget_prior();
            }
            if let Some(key) = observed(manifest, &now)? {
                r.history
                    .push(json!({"source": "event", "eventSeq": seq, "key": key}));
            }
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
                    r.open_offer = Some(r.claims.len());
                    r.claims.push(json!({
                        "source": "event", "actor": actor, "eventSeq": seq, "kind": "draw-offer", "status": "open"
                    }));
                }
                "accept-draw" | "decline-draw" | "withdraw-draw" => {
                    e.closed(&["seq", "actor", "type", "offerEventSeq"], &["annotations"])?;
                    let Some((_, offerer, offer_seq)) = r.offer() else {
                        return Err(fail("offer-invalid", "no offer is open".into()));
                    };
                    let by_offerer = actor == offerer;
                    if e.uint("offerEventSeq")? != offer_seq || by_offerer != (kind == "withdraw-draw") {
                        return Err(fail(
                            "offer-invalid",
                            "the open offer, answered by the right side".into(),
                        ));
                    }
                    let status = match kind {
                        "accept-draw" => "accepted",
                        "decline-draw" => "declined",
                        _ => "withdrawn",
                    };
                    if let Some(record) = r.open_offer.take().and_then(|i| r.claims.get_mut(i)) {
                        record["status"] = json!(status);
                        record["resolvedEventSeq"] = json!(seq);
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
                    r.game
                        .resign(loser)
                        .map_err(|err| fail("illegal-action", err.to_string()))?;
                }
                "claim-draw" => {
                    e.closed(&["seq", "actor", "type", "reason"], &["annotations"])?;
                    let reason = e.one_of("reason", &["no-progress", "repetition"])?;
                    if p.pending_removals() > 0 {
                        return Err(fail(
                            "claim-during-obligation",
                            "no draw is claimed while a removal is owed".into(),
                        ));
                    }
                    if actor != to_move || !r.claim_reasons().contains(&reason) {
                        return Err(fail(
                            "claim-right-unavailable",
                            format!("{actor} may not claim a draw by {reason} now"),
                        ));
                    }
                    let draw = if reason == "no-progress" {
                        DrawReason::HundredTurns
                    } else {
                        DrawReason::Threefold
                    };
                    r.game
                        .claim_draw(draw)
                        .map_err(|err| fail("claim-right-unavailable", err.to_string()))?;
                    r.claims.push(json!({
                        "source": "event", "actor": actor, "eventSeq": seq, "kind": "draw-claim", "status": "accepted"
                    }));
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
        // A game that has just ended takes its open offer with it (an accepted one is
        // no longer open).
        if r.game.is_over() {
            r.expire_offer(Some(seq));
        }
        emit(&r, Some(seq), &mut each, &mut entries, &path)?;
    }
    Ok(r)
}

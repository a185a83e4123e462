//! Rematch, on its own: offers, lapses, refusals, and the one new room two offers make.

use super::*;

/// A room made by quick pairing, both sockets open: (room, light, dark).
async fn paired(w: &World) -> (String, Sock, Sock) {
    let (room, light, dark, _) = paired_with_keys(w).await;
    (room, light, dark)
}

/// [`paired`], with the two seats' keys (Light's, Dark's).
async fn paired_with_keys(w: &World) -> (String, Sock, Sock, [String; 2]) {
    let stop = CancellationToken::new();
    let wait = Duration::from_secs(5);
    let (a, b) = tokio::join!(
        w.rooms.pair(seeker("alice"), wait, &stop),
        w.rooms.pair(seeker("bobby"), wait, &stop)
    );
    let (a, b) = (a.unwrap().expect("paired"), b.unwrap().expect("paired"));
    let (light, dark) = if a.1 == Light { (a, b) } else { (b, a) };
    let mut l = Sock::open(w, &light.0, Some(&light.2)).await;
    let mut d = Sock::open(w, &dark.0, Some(&dark.2)).await;
    l.take();
    d.take();
    (light.0, l, d, [light.2, dark.2])
}

/// A watcher's socket (no key) and everything it was sent on arriving: its welcome and
/// the room's state.
async fn watch(w: &World, room: &str) -> (Sock, Vec<Value>) {
    let (s, hello) = Sock::open_hello(w, room, None, 64).await;
    assert_eq!(hello[0]["seat"], Value::Null, "a watcher holds no seat");
    assert_eq!(hello.last().unwrap()["type"], "state");
    (s, hello)
}

/// A fresh key for a rematch's seat and the command that offers it.
fn rematch_offer() -> (String, Command) {
    let key = crate::keys::new_seat_key();
    let hash = crate::protocol::KeyHash(crate::keys::hash_key(&key));
    (key, Command::OfferRematch(hash))
}

fn codes(answers: &[Value]) -> Vec<String> {
    of_type(answers, "error")
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_rematch_agreed_makes_one_room_with_the_same_clock_and_the_colours_swapped() {
    let w = world();
    let (room, mut light, mut dark) = paired(&w).await;
    assert_eq!(light.last["offers"]["rematch_open"], true, "{}", light.last);
    let (light_key, offer) = rematch_offer();
    // Not before the round is over, not by a watcher; refusals store nothing.
    assert_eq!(codes(&light.send(&w, offer.clone()).await), ["round-not-over"]);
    let mut watcher = Sock::open(&w, &room, None).await;
    light.ok(&w, play("d6")).await;
    dark.ok(&w, Command::Resign).await;
    watcher.take();
    assert_eq!(codes(&watcher.send(&w, offer.clone()).await), ["spectator"]);
    let before = stored(&w, &room).await.len();
    light.ok(&w, offer.clone()).await;
    for s in [&mut light, &mut dark, &mut watcher] {
        s.take();
        assert_eq!(s.last["offers"]["rematch"], "light", "{}", s.last);
        assert!(s.last["offers"]["rematch_room"].is_null());
    }
    // The event keeps the key's hash, never the key.
    let events = stored(&w, &room).await;
    assert_eq!(events.len(), before + 1);
    assert_eq!(events[before].command, Entry::Command(offer.clone()));
    let (_, again) = rematch_offer();
    assert_eq!(codes(&light.send(&w, again).await), ["already-offered"]);
    // Dark accepts by offering too: the new room is made with both keys.
    let (dark_key, accept) = rematch_offer();
    dark.ok(&w, accept).await;
    light.take();
    let new_room = dark.last["offers"]["rematch_room"].as_str().unwrap().to_string();
    assert_eq!(light.last["offers"]["rematch_room"], new_room.as_str());
    assert!(light.last["offers"]["rematch"].is_null());
    assert_eq!(new_room, crate::keys::rematch_room_id(&room, 1));
    let made = w
        .store
        .load_room(&new_room)
        .await
        .unwrap()
        .expect("the new room is stored");
    assert_eq!(made.clock, live(), "the same clock");
    assert_eq!(made.variant, "nine");
    assert!(made.paired, "a rematch may be rematched in turn");
    assert_eq!(made.light_key, Some(crate::keys::hash_key(&dark_key)));
    assert_eq!(made.dark_key, Some(crate::keys::hash_key(&light_key)));
    // Each page's key opens the other colour there.
    let l2 = Sock::open(&w, &new_room, Some(&light_key)).await;
    let d2 = Sock::open(&w, &new_room, Some(&dark_key)).await;
    assert_eq!((l2.seat, d2.seat), (Some(Dark), Some(Light)));
    // Agreed once: no second rematch of this round.
    let (_, late) = rematch_offer();
    assert_eq!(codes(&light.send(&w, late).await), ["rematch-agreed"]);
    assert_eq!(
        codes(&dark.send(&w, Command::DeclineRematch).await),
        ["rematch-agreed"]
    );
}

#[tokio::test]
async fn a_rematch_offer_lapses_when_declined_withdrawn_or_a_new_round_starts() {
    let w = world();
    let (room, mut light, mut dark) = paired(&w).await;
    light.ok(&w, Command::Resign).await;
    dark.take();
    assert_eq!(
        codes(&dark.send(&w, Command::DeclineRematch).await),
        ["no-rematch-offer"]
    );
    // Declined by the seat it was made to: the offerer is told.
    light.ok(&w, rematch_offer().1).await;
    dark.ok(&w, Command::DeclineRematch).await;
    light.take();
    assert!(light.last["offers"]["rematch"].is_null());
    assert_eq!(
        light.last["offers"]["declined"],
        json!({"offer": "rematch", "by": "dark"})
    );
    // Withdrawn by the seat that made it.
    dark.ok(&w, rematch_offer().1).await;
    dark.ok(&w, Command::DeclineRematch).await;
    light.take();
    assert!(light.last["offers"]["rematch"].is_null());
    assert!(
        light.last["offers"]["declined"].is_null(),
        "a withdrawal is no refusal"
    );
    // A new round: the offer of the last one lapses.
    light.ok(&w, rematch_offer().1).await;
    light.ok(&w, Command::NewRound).await;
    dark.ok(&w, Command::NewRound).await;
    light.take();
    assert_eq!(light.last["round"], 2);
    assert!(light.last["offers"]["rematch"].is_null());
    assert_eq!(w.rooms.in_memory(), 1, "no room was made");
    let kinds: Vec<&str> = stored(&w, &room)
        .await
        .iter()
        .map(|e| e.command.kind_str())
        .filter(|k| k.contains("rematch"))
        .collect();
    assert_eq!(
        kinds,
        [
            "offer-rematch",
            "decline-rematch",
            "offer-rematch",
            "decline-rematch",
            "offer-rematch"
        ]
    );
}

#[tokio::test]
async fn a_rematch_offer_lapses_when_a_player_leaves() {
    let w = world();
    let (room, mut light, dark) = paired(&w).await;
    light.ok(&w, Command::Resign).await;
    light.ok(&w, rematch_offer().1).await;
    // Dark's socket closes: its absence is stored, and the offer goes with it.
    w.rooms.detach(&room, dark.conn, w.clock.now_ms());
    let events = stored(&w, &room).await;
    let events = until_stored(&w, &room, events.len() + 1).await;
    let last = events.last().unwrap();
    assert_eq!((last.command.kind_str(), last.seat), ("away", Dark));
    light.take();
    assert!(light.last["offers"]["rematch"].is_null(), "{}", light.last);
    w.rooms.check_flags().await;
    assert_eq!(stored(&w, &room).await.len(), events.len(), "stored once");
    // With the opponent gone, a new offer is refused.
    assert_eq!(codes(&light.send(&w, rematch_offer().1).await), ["opponent-away"]);
}

#[tokio::test]
async fn an_invite_room_has_no_rematch() {
    let w = world();
    let (room, mut light, mut dark) = table(&w, None).await;
    assert_eq!(light.last["offers"]["rematch_open"], false);
    dark.ok(&w, Command::Resign).await;
    light.take();
    assert_eq!(codes(&light.send(&w, rematch_offer().1).await), ["not-paired"]);
    assert_eq!(
        codes(&light.send(&w, Command::DeclineRematch).await),
        ["not-paired"]
    );
    assert!(
        stored(&w, &room)
            .await
            .iter()
            .all(|e| !e.command.kind_str().contains("rematch"))
    );
}

#[tokio::test]
async fn both_offering_at_once_make_one_room() {
    let w = world();
    let (room, mut light, mut dark) = paired(&w).await;
    light.ok(&w, Command::Resign).await;
    dark.take();
    let (lo, dc) = (
        light.msg("l-r", rematch_offer().1),
        dark.msg("d-r", rematch_offer().1),
    );
    tokio::join!(
        w.rooms.command(&room, Some(Light), &light.tx, &lo),
        w.rooms.command(&room, Some(Dark), &dark.tx, &dc)
    );
    let (a, b) = (light.take(), dark.take());
    // One was stored first; the other completed the rematch (or, made on the state before
    // it, was refused as stale and may be sent again).
    let acks = of_type(&a, "ack").len() + of_type(&b, "ack").len();
    assert!(acks >= 1, "{a:?} {b:?}");
    if acks == 1 {
        let (late, msg) = if of_type(&a, "ack").is_empty() {
            (&mut light, "l-r2")
        } else {
            (&mut dark, "d-r2")
        };
        assert_eq!(codes(if msg == "l-r2" { &a } else { &b }), ["stale"]);
        late.send_as(&w, msg, rematch_offer().1).await;
    }
    light.take();
    dark.take();
    let new_room = crate::keys::rematch_room_id(&room, 1);
    assert_eq!(light.last["offers"]["rematch_room"], new_room.as_str());
    assert_eq!(dark.last["offers"]["rematch_room"], new_room.as_str());
    assert!(w.store.load_room(&new_room).await.unwrap().is_some());
}

#[tokio::test]
async fn a_watcher_of_the_old_room_learns_the_rematch_room_and_never_a_key() {
    let w = world();
    let (room, mut light, mut dark, old_keys) = paired_with_keys(&w).await;
    let (mut watcher, mut heard) = watch(&w, &room).await;
    light.ok(&w, Command::Resign).await;
    let (light_key, offer) = rematch_offer();
    light.ok(&w, offer).await;
    heard.extend(watcher.take());
    assert_eq!(watcher.last["offers"]["rematch"], "light");
    assert!(
        watcher.last["offers"]["rematch_room"].is_null(),
        "not before it is agreed"
    );
    let (dark_key, accept) = rematch_offer();
    dark.ok(&w, accept).await;
    heard.extend(watcher.take());
    // The watcher's state names the new room as the players' does.
    let new_room = crate::keys::rematch_room_id(&room, 1);
    assert_eq!(watcher.last["offers"]["rematch_room"], new_room.as_str());
    light.take();
    assert_eq!(watcher.last["offers"], light.last["offers"], "the same offers");
    // One who comes to watch later is told too, also once the room left memory and
    // came back from the store.
    let (late, late_heard) = watch(&w, &room).await;
    assert_eq!(
        late_heard.last().unwrap()["offers"]["rematch_room"],
        new_room.as_str()
    );
    heard.extend(late_heard);
    for s in [&light, &dark, &watcher, &late] {
        w.rooms.detach(&room, s.conn, w.clock.now_ms());
    }
    assert_eq!(w.rooms.evict_idle(Duration::ZERO), 1, "the old room left memory");
    let (reloaded, again) = watch(&w, &room).await;
    assert_eq!(reloaded.last["offers"]["rematch_room"], new_room.as_str());
    heard.extend(again);
    // No seat key of either room, nor the hash of one, ever reached a watcher.
    let text = serde_json::to_string(&heard).unwrap();
    for key in old_keys.iter().chain([&light_key, &dark_key]) {
        assert!(!text.contains(key.as_str()), "a key reached a watcher");
        let hash = crate::keys::hash_key(key);
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        assert!(!text.contains(&hex), "a key's hash reached a watcher");
    }
    // The room it names opens to the watcher as a watcher: both seats taken, round 1.
    let (there, _) = watch(&w, &new_room).await;
    assert_eq!(there.seat, None);
    assert_eq!(there.last["room"], new_room.as_str());
    assert_eq!(there.last["round"], 1);
    assert_eq!(there.last["seats"]["light"]["taken"], true);
    assert_eq!(there.last["seats"]["dark"]["taken"], true);
}

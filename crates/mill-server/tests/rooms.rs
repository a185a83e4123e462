//! Two real WebSocket clients against the real server on 127.0.0.1:0.

mod common;

use common::{Client, Rng, Server, legal_action};
use serde_json::{Value, json};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Plays `a` for whichever client's turn it is, and waits until both have the state.
async fn step(light: &mut Client, dark: &mut Client, a: &str) -> Value {
    let mover_is_light = light.last["turn"] == "light";
    let ack = if mover_is_light {
        light.play(a).await
    } else {
        dark.play(a).await
    };
    let v = ack["version"].clone();
    light.state_where(|s| s["version"] == v).await;
    dark.state_where(|s| s["version"] == v).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_random_game_ends_with_a_result_both_sides_see() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    assert_eq!(light.seat, "light");
    assert_eq!(dark.seat, "dark");
    let mut rng = Rng::new(7);
    let mut played = Vec::new();
    while light.last["result"].is_null() {
        let a = legal_action(&light.last, |n| rng.below(n)).expect("legal while playing");
        played.push(a.clone());
        step(&mut light, &mut dark, &a).await;
        assert!(played.len() < 2000, "a game ends");
    }
    let end = dark.last.clone();
    assert_eq!(light.last, end, "both see the same final state");
    assert!(end["legal"].is_null());
    let reason = end["result"]["reason"].as_str().unwrap();
    assert!(
        ["pieces", "blocked", "threefold", "hundred-turns"].contains(&reason),
        "{reason}"
    );
    let actions: Vec<String> = serde_json::from_value(end["actions"].clone()).unwrap();
    assert_eq!(actions, played);
    assert_eq!(end["version"], played.len());
    assert!(!end["record"].as_array().unwrap().is_empty());
    // after the end, actions are refused
    light.command("action", json!({"action": "d6"})).await;
    assert_eq!(light.error().await["code"], "game-over");
    server.stop().await;
}

#[tokio::test]
async fn a_dropped_socket_comes_back_to_the_same_seat_and_state() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    step(&mut light, &mut dark, "d6").await;
    step(&mut light, &mut dark, "d2").await;
    light.close().await;
    let seen = dark.state_where(|s| s["seats"]["light"]["online"] == false).await;
    assert_eq!(seen["version"], 2);
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    assert_eq!(light.seat, "light");
    assert_eq!(light.last["version"], 2);
    assert_eq!(light.last["actions"], json!(["d6", "d2"]));
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    step(&mut light, &mut dark, "a7").await;
    server.stop().await;
}

#[tokio::test]
async fn players_see_how_many_watch() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, light_key) = server.create().await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    assert_eq!(light.last["spectators"], 0);
    let first = Client::hello(server.addr, &room, None).await;
    assert_eq!(first.last["spectators"], 1, "a spectator counts itself");
    light.state_where(|s| s["spectators"] == 1).await;
    let second = Client::hello(server.addr, &room, None).await;
    light.state_where(|s| s["spectators"] == 2).await;
    first.close().await;
    light.state_where(|s| s["spectators"] == 1).await;
    second.close().await;
    let s = light.state_where(|s| s["spectators"] == 0).await;
    assert_eq!(s["seats"]["light"]["online"], true, "the players are not counted");
    server.stop().await;
}

#[tokio::test]
async fn a_second_tab_with_the_same_key_replaces_the_first() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, key) = server.create().await;
    let mut first = Client::hello(server.addr, &room, Some(&key)).await;
    let mut second = Client::hello(server.addr, &room, Some(&key)).await;
    assert_eq!(second.seat, "light");
    let (seen, code) = first.until_closed().await;
    assert_eq!(code, Some(4000));
    assert!(seen.iter().any(|m| m["type"] == "replaced"), "{seen:?}");
    let s = second
        .state_where(|s| s["seats"]["light"]["online"] == true)
        .await;
    assert_eq!(s["seats"]["light"]["taken"], true);
    // the room still has one light holder: info agrees
    let (status, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200);
    assert_eq!(info["seats"]["light"]["online"], true);
    server.stop().await;
}

#[tokio::test]
async fn play_is_refused_while_the_opponent_is_away() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, light_key) = server.create().await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    light.command("action", json!({"action": "d6"})).await;
    let e = light.error().await;
    assert_eq!(e["code"], "opponent-away");
    assert_eq!(e["version"], 0);
    let dark_key = server.join(&room).await;
    light.state_where(|s| s["seats"]["dark"]["taken"] == true).await;
    light.command("offer-draw", json!({})).await;
    assert_eq!(
        light.error().await["code"],
        "opponent-away",
        "joined but not online"
    );
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    step(&mut light, &mut dark, "d6").await;
    light.close().await;
    dark.state_where(|s| s["seats"]["light"]["online"] == false).await;
    dark.command("action", json!({"action": "d2"})).await;
    assert_eq!(dark.error().await["code"], "opponent-away");
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["version"], 1, "nothing changed");
    server.stop().await;
}

#[tokio::test]
async fn draw_offers_are_accepted_or_declined() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    light.ok("offer-draw").await;
    let s = dark.state_where(|s| s["offers"]["draw"] == "light").await;
    assert!(s["result"].is_null());
    dark.ok("decline-draw").await;
    light.state_where(|s| s["offers"]["draw"].is_null()).await;
    dark.command("accept-draw", json!({})).await;
    assert_eq!(dark.error().await["code"], "no-draw-offer");
    dark.ok("offer-draw").await;
    light.state_where(|s| s["offers"]["draw"] == "dark").await;
    light.ok("accept-draw").await;
    let end = dark.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"], json!({"winner": null, "reason": "agreement"}));
    server.stop().await;
}

#[tokio::test]
async fn resignation_then_a_new_round_only_when_both_ask() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    step(&mut light, &mut dark, "d6").await;
    light.command("new-round", json!({})).await;
    assert_eq!(light.error().await["code"], "round-not-over");
    dark.ok("resign").await;
    let end = light.state_where(|s| !s["result"].is_null()).await;
    assert_eq!(end["result"], json!({"winner": "light", "reason": "resignation"}));
    light.ok("new-round").await;
    let s = dark
        .state_where(|s| s["offers"]["new_round"] == json!(["light"]))
        .await;
    assert_eq!(s["round"], 1, "one ask is not enough");
    let ack = dark.ok("new-round").await;
    assert_eq!(
        (ack["round"].clone(), ack["version"].clone()),
        (json!(2), json!(0))
    );
    let s = light.state_where(|s| s["round"] == 2).await;
    assert_eq!(s["version"], 0);
    assert!(s["result"].is_null());
    assert_eq!(s["turn"], "light", "the creator keeps Light");
    assert_eq!(light.seat, "light");
    step(&mut light, &mut dark, "a1").await;
    server.stop().await;
}

#[tokio::test]
async fn every_bad_input_gets_a_coded_error_and_changes_nothing() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, mut light, mut dark) = server.table().await;

    let cases: Vec<(String, &str)> = vec![
        ("{not json".into(), "malformed"),
        ("[1,2,3]".into(), "malformed"),
        (r#"{"type":"castle"}"#.into(), "unknown-type"),
        (
            r#"{"type":"action","round":1,"version":0,"action":"d6"}"#.into(),
            "malformed",
        ),
        (
            r#"{"type":"action","id":"","round":1,"version":0,"action":"d6"}"#.into(),
            "malformed",
        ),
        (
            format!(
                r#"{{"type":"action","id":"x","round":1,"version":0,"action":"{}"}}"#,
                "d".repeat(5000)
            ),
            "too-large",
        ),
        (r#"{"type":"hello","protocol":1}"#.into(), "already-hello"),
        (
            r#"{"type":"action","id":"b1","round":1,"version":0,"action":"z9"}"#.into(),
            "bad-action",
        ),
        (
            r#"{"type":"action","id":"b2","round":1,"version":0,"action":"a1-a4"}"#.into(),
            "still-placing",
        ),
        (
            r#"{"type":"action","id":"b3","round":1,"version":5,"action":"d6"}"#.into(),
            "stale",
        ),
        (
            r#"{"type":"action","id":"b4","round":2,"version":0,"action":"d6"}"#.into(),
            "stale",
        ),
    ];
    for (text, code) in cases {
        light.send_text(text.clone()).await;
        let e = light.error().await;
        assert_eq!(e["code"], code, "{text}");
        assert!(!e["message"].as_str().unwrap().is_empty());
        assert_eq!(e["version"], 0, "errors carry the version");
    }
    light.send_binary(vec![1, 2, 3]).await;
    assert_eq!(light.error().await["code"], "malformed");
    dark.command("action", json!({"action": "d6"})).await;
    assert_eq!(dark.error().await["code"], "not-your-turn");

    // a retried id is acknowledged again and applied once
    light
        .send(json!({"type":"action","id":"same","round":1,"version":0,"action":"d6"}))
        .await;
    let first = light.expect("ack").await;
    assert_eq!(first["duplicate"], false);
    light
        .send(json!({"type":"action","id":"same","round":1,"version":0,"action":"d6"}))
        .await;
    let again = light.expect("ack").await;
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["version"], 1);
    dark.state_where(|s| s["version"] == 1).await;
    dark.command("action", json!({"action": "d6"})).await;
    assert_eq!(dark.error().await["code"], "occupied");

    // a stale command gets an error and then a fresh state
    light
        .send(json!({"type":"action","id":"late","round":1,"version":0,"action":"a1"}))
        .await;
    let e = light.recv().await;
    assert_eq!(
        (e["code"].clone(), e["version"].clone()),
        (json!("stale"), json!(1))
    );
    assert_eq!(light.recv().await["type"], "state");

    // a spectator watches but cannot play
    let mut watcher = Client::hello(server.addr, &room, None).await;
    assert!(watcher.seat.is_null());
    assert_eq!(watcher.last["version"], 1);
    watcher.command("resign", json!({})).await;
    assert_eq!(watcher.error().await["code"], "spectator");
    let mut more = Vec::new();
    for _ in 1..mill_server::rooms::MAX_SPECTATORS {
        more.push(Client::hello(server.addr, &room, None).await);
    }
    let mut one_too_many = Client::connect(server.addr, &room).await;
    one_too_many.send(json!({"type":"hello","protocol":1})).await;
    let (seen, code) = one_too_many.until_closed().await;
    assert_eq!(seen[0]["code"], "room-full");
    assert_eq!(code, Some(4009));
    drop(more);

    // sockets that never said hello, or said it wrongly
    let mut anon = Client::connect(server.addr, &room).await;
    anon.send(json!({"type":"action","id":"a","round":1,"version":1,"action":"a1"}))
        .await;
    assert_eq!(anon.error().await["code"], "hello-required");
    anon.send(json!({"type":"ping"})).await;
    assert_eq!(anon.recv().await["type"], "pong");
    anon.send(json!({"type":"hello","protocol":99})).await;
    let (seen, code) = anon.until_closed().await;
    assert_eq!(seen[0]["code"], "protocol-mismatch");
    assert_eq!(code, Some(4001));
    let mut bad = Client::connect(server.addr, &room).await;
    bad.send(json!({"type":"hello","protocol":1,"key":"0123"})).await;
    let (seen, code) = bad.until_closed().await;
    assert_eq!(seen[0]["code"], "bad-key");
    assert_eq!(code, Some(4003));
    let mut lost = Client::connect(server.addr, "zzzzzzzzzzzz").await;
    lost.send(json!({"type":"hello","protocol":1})).await;
    let (seen, code) = lost.until_closed().await;
    assert_eq!(seen[0]["code"], "unknown-room");
    assert_eq!(code, Some(4004));

    // HTTP errors are JSON with the right status
    let (status, body) = server.http("GET", "/api/rooms/zzzzzzzzzzzz").await;
    assert_eq!((status, body["code"].clone()), (404, json!("unknown-room")));
    let (status, body) = server.http("POST", "/api/rooms/zzzzzzzzzzzz/join").await;
    assert_eq!((status, body["code"].clone()), (404, json!("unknown-room")));
    let (status, body) = server.http("POST", &format!("/api/rooms/{room}/join")).await;
    assert_eq!((status, body["code"].clone()), (409, json!("room-full")));

    let (status, body) = server.http("GET", "/api/nothing/here").await;
    assert_eq!((status, body["code"].clone()), (404, json!("not-found")));
    let (status, body) = server.http("DELETE", "/api/rooms").await;
    assert_eq!((status, body["code"].clone()), (405, json!("method-not-allowed")));
    let (status, body) = server.http("GET", &format!("/api/rooms/{room}/ws")).await;
    assert_eq!((status, body["code"].clone()), (400, json!("not-websocket")));

    // nothing above changed the game
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["version"], 1);
    server.stop().await;
}

#[tokio::test]
async fn flooding_sockets_and_bulk_room_creation_are_throttled() {
    let dir = tmp();
    let server = Server::start_with(&dir.path().join("m.db"), |c| {
        c.rooms_per_minute = 3;
        c.messages_per_second = 5;
    })
    .await;
    for _ in 0..3 {
        server.create().await;
    }
    let (status, body) = server.http("POST", "/api/rooms").await;
    assert_eq!((status, body["code"].clone()), (429, json!("rate-limited")));

    let dir2 = tmp();
    let other = Server::start_with(&dir2.path().join("m.db"), |c| c.messages_per_second = 5).await;
    let (room, mut light, _dark) = other.table().await;
    for _ in 0..30 {
        light.send(json!({"type": "ping"})).await;
    }
    let mut limited = 0;
    let mut pongs = 0;
    for _ in 0..30 {
        match light.recv().await["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") => limited += 1,
            _ => {}
        }
        if pongs + limited == 30 {
            break;
        }
    }
    assert!(limited > 0, "some pings were refused");
    assert!(pongs >= 5, "the burst was served");
    // another socket in the same room is not hurt
    let mut watcher = Client::hello(other.addr, &room, None).await;
    watcher.send(json!({"type": "ping"})).await;
    assert_eq!(watcher.recv().await["type"], "pong");
    server.stop().await;
    other.stop().await;
}

#[tokio::test]
async fn a_restarted_server_brings_every_room_back_from_the_file() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    light
        .send(json!({"type":"action","id":"keep-me","round":1,"version":0,"action":"a1"}))
        .await;
    light.expect("ack").await;
    light.state_where(|s| s["version"] == 1).await;
    dark.state_where(|s| s["version"] == 1).await;
    for a in ["b2", "a4", "b4", "a7", "xb2"] {
        step(&mut light, &mut dark, a).await;
    }
    dark.ok("offer-draw").await;
    let before = light.state_where(|s| s["offers"]["draw"] == "dark").await;
    server.stop().await;

    let server = Server::start(&db).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    let after = light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    for field in [
        "round", "version", "position", "actions", "record", "offers", "legal", "turn",
    ] {
        assert_eq!(after[field], before[field], "{field}");
    }
    // ids survive too: a retry of an id from before the restart is a duplicate
    light
        .send(json!({"type":"action","id":"keep-me","round":1,"version":0,"action":"a1"}))
        .await;
    let again = light.expect("ack").await;
    assert_eq!(
        (again["duplicate"].clone(), again["version"].clone()),
        (json!(true), json!(1))
    );
    light.ok("decline-draw").await;
    dark.state_where(|s| s["offers"]["draw"].is_null()).await;
    step(&mut light, &mut dark, "d6").await;
    server.stop().await;
}

#[tokio::test]
async fn idle_rooms_are_purged_with_all_their_rows() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let clock = std::sync::Arc::new(mill_server::ManualClock::new());
    let c2 = clock.clone();
    let server = Server::start_with(&db, move |c| {
        c.clock = c2;
        c.purge_every = std::time::Duration::from_millis(50);
    })
    .await;
    let (idle, _) = server.create().await;
    let (busy, busy_key) = server.create().await;
    let watcher = Client::hello(server.addr, &busy, Some(&busy_key)).await;
    clock.advance(std::time::Duration::from_secs(6 * 24 * 3600));
    let (status, _) = server.http("GET", &format!("/api/rooms/{idle}")).await;
    assert_eq!(status, 200, "six days is not idle enough");
    clock.advance(std::time::Duration::from_secs(2 * 24 * 3600));
    // the purge runs every 50 ms; wait for it (bounded)
    let mut status = 200;
    for _ in 0..200 {
        status = server.http("GET", &format!("/api/rooms/{idle}")).await.0;
        if status == 404 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(status, 404, "the idle room is gone");
    let (status, _) = server.http("GET", &format!("/api/rooms/{busy}")).await;
    assert_eq!(status, 200, "a connected room stays");
    watcher.close().await;
    server.stop().await;

    let tables: &[&str] = if common::on_postgres() {
        &["rooms", "seats", "events", "presence"]
    } else {
        &["rooms", "seats", "events"]
    };
    for table in tables {
        let column = if *table == "rooms" { "id" } else { "room_id" };
        let n = common::sql(
            &db,
            &format!("SELECT count(*) FROM {table} WHERE {column} = $1"),
            &[&idle],
        )
        .await;
        assert_eq!(n, 0, "{table}");
    }
    let n = common::sql(&db, "SELECT count(*) FROM rooms WHERE id = $1", &[&busy]).await;
    assert_eq!(n, 1);
}

#[tokio::test]
async fn the_page_is_served_at_root_rules_and_invite_links() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, _) = server.create().await;
    for path in ["/".to_string(), format!("/r/{room}"), "/index.html".to_string()] {
        let (status, body) = server.http("GET", &path).await;
        assert_eq!(status, 200, "{path}");
        assert!(body.as_str().unwrap().contains("<title>Mill</title>"), "{path}");
    }
    // An invite link to a room that does not exist is the "room is gone" page.
    let (status, body) = server.http("GET", "/r/abcdefghijkl").await;
    assert_eq!(status, 404);
    assert!(body.as_str().unwrap().contains("gone"), "{body}");
    let (status, body) = server.http("GET", "/rules").await;
    assert_eq!(status, 200);
    assert!(body.as_str().unwrap().contains("Rules"));
    let (status, body) = server.http("GET", "/api/health").await;
    assert_eq!((status, body), (200, json!({"ok": true})));
    let (status, body) = server.http("POST", "/api/rooms").await;
    assert_eq!(status, 201);
    let invite = body["invite"].as_str().unwrap();
    assert_eq!(
        invite,
        format!("http://{}/r/{}", server.addr, body["room"].as_str().unwrap())
    );
    server.stop().await;
}

#[tokio::test]
async fn a_silent_socket_is_dropped_and_its_seat_shows_offline() {
    let dir = tmp();
    let server = Server::start_with(&dir.path().join("m.db"), |c| {
        c.ping_every = std::time::Duration::from_millis(50);
        c.idle_socket = std::time::Duration::from_millis(300);
    })
    .await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    // light stops reading, so it answers no pings; dark keeps reading (and ponging)
    let s = dark.state_where(|s| s["seats"]["light"]["online"] == false).await;
    assert_eq!(s["seats"]["dark"]["online"], true);
    drop(light);
    server.stop().await;
}

#[tokio::test]
async fn sync_resends_the_state_and_shutdown_closes_sockets_with_1001() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    step(&mut light, &mut dark, "d6").await;
    light.send(json!({"type": "sync"})).await;
    let s = light.recv().await;
    assert_eq!(
        (s["type"].clone(), s["version"].clone()),
        (json!("state"), json!(1))
    );
    let stopping = tokio::spawn(server.stop());
    let (_, code) = light.until_closed().await;
    assert_eq!(code, Some(1001));
    let (_, code) = dark.until_closed().await;
    assert_eq!(code, Some(1001));
    stopping.await.unwrap();
}

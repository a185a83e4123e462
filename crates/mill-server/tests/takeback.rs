//! Takebacks by consent, the declined-offer notice, the spectator count in room info and
//! the review record of a finished round, over real sockets against the real server.

mod common;

use common::{Client, Server};
use serde_json::{Value, json};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Plays `a` for whichever client's turn it is, and waits until both have the state.
async fn step(light: &mut Client, dark: &mut Client, a: &str) -> Value {
    let ack = if light.last["turn"] == "light" {
        light.play(a).await
    } else {
        dark.play(a).await
    };
    let v = ack["version"].clone();
    light.state_where(|s| s["version"] == v).await;
    dark.state_where(|s| s["version"] == v).await
}

#[tokio::test]
async fn an_accepted_takeback_undoes_the_askers_whole_turn() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    for a in ["a1", "b2", "a4", "b4", "a7", "xb2"] {
        step(&mut light, &mut dark, a).await;
    }
    light.ok("offer-takeback").await;
    let asked = dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    assert_eq!(asked["version"], 6, "asking changes nothing on the board");
    let ack = dark.ok("accept-takeback").await;
    assert_eq!(ack["version"], 4, "the mill and its removal go back together");
    for c in [&mut light, &mut dark] {
        let s = c.state_where(|s| s["version"] == 4).await;
        assert_eq!(s["actions"], json!(["a1", "b2", "a4", "b4"]));
        assert_eq!(s["turn"], "light");
        assert_eq!(s["pieces"]["dark"], json!(["b2", "b4"]));
        assert!(s["offers"]["takeback"].is_null());
    }
    // Light plays on from there.
    step(&mut light, &mut dark, "d6").await;
    server.stop().await;
}

#[tokio::test]
async fn a_declined_takeback_is_told_to_the_asker_and_undoes_nothing() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    step(&mut light, &mut dark, "d6").await;
    light.ok("offer-takeback").await;
    dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    dark.ok("decline-takeback").await;
    let told = light
        .state_where(|s| s["offers"]["declined"] == json!({"offer": "takeback", "by": "dark"}))
        .await;
    assert_eq!(told["actions"], json!(["d6"]));
    assert!(told["offers"]["takeback"].is_null());
    light.command("offer-takeback", json!({})).await;
    // Light may ask again; Dark answering twice is refused.
    light.expect("ack").await;
    dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    dark.ok("decline-takeback").await;
    dark.command("decline-takeback", json!({})).await;
    assert_eq!(dark.error().await["code"], "no-takeback-offer");
    // The notice lasts until the next event.
    step(&mut light, &mut dark, "d2").await;
    assert!(light.last["offers"]["declined"].is_null());
    server.stop().await;
}

#[tokio::test]
async fn a_declined_draw_is_told_to_the_side_that_offered_it() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    light.ok("offer-draw").await;
    dark.state_where(|s| s["offers"]["draw"] == "light").await;
    dark.ok("decline-draw").await;
    let told = light
        .state_where(|s| s["offers"]["declined"] == json!({"offer": "draw", "by": "dark"}))
        .await;
    assert!(told["offers"]["draw"].is_null());
    assert!(told["result"].is_null());
    server.stop().await;
}

#[tokio::test]
async fn a_takeback_is_refused_once_the_opponent_has_played() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    light.command("offer-takeback", json!({})).await;
    assert_eq!(light.error().await["code"], "nothing-to-take-back");
    step(&mut light, &mut dark, "d6").await;
    step(&mut light, &mut dark, "d2").await;
    light.command("offer-takeback", json!({})).await;
    let e = light.error().await;
    assert_eq!(e["code"], "opponent-played");
    assert_eq!(e["version"], 2);
    // A standing request lapses when the asked side plays instead of answering.
    dark.ok("offer-takeback").await;
    light.state_where(|s| s["offers"]["takeback"] == "dark").await;
    step(&mut light, &mut dark, "a1").await;
    assert!(dark.last["offers"]["takeback"].is_null());
    light.command("accept-takeback", json!({})).await;
    assert_eq!(light.error().await["code"], "no-takeback-offer");
    assert_eq!(dark.last["actions"], json!(["d6", "d2", "a1"]));
    // A spectator cannot ask.
    let room = light.last["room"].as_str().unwrap().to_string();
    let mut watcher = Client::hello(server.addr, &room, None).await;
    watcher.command("offer-takeback", json!({})).await;
    assert_eq!(watcher.error().await["code"], "spectator");
    server.stop().await;
}

#[tokio::test]
async fn a_retried_takeback_is_applied_once() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_room, mut light, mut dark) = server.table().await;
    step(&mut light, &mut dark, "d6").await;
    light.ok("offer-takeback").await;
    dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    let accept = json!({"type": "accept-takeback", "id": "once", "round": 1, "version": 1});
    dark.send(accept.clone()).await;
    let first = dark.expect("ack").await;
    assert_eq!(
        (first["version"].clone(), first["duplicate"].clone()),
        (json!(0), json!(false))
    );
    light.state_where(|s| s["version"] == 0).await;
    step(&mut light, &mut dark, "a1").await;
    // The same id again (as after a dropped socket) is answered, not applied.
    dark.send(accept).await;
    let again = dark.expect("ack").await;
    assert_eq!(again["duplicate"], true);
    dark.send(json!({"type": "sync"})).await;
    let s = dark.expect("state").await;
    assert_eq!(s["actions"], json!(["a1"]));
    server.stop().await;
}

#[tokio::test]
async fn takebacks_come_back_after_a_restart() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    for a in ["a1", "b2", "a4", "b4", "a7", "xb2"] {
        step(&mut light, &mut dark, a).await;
    }
    light.ok("offer-takeback").await;
    dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    dark.ok("accept-takeback").await;
    light.state_where(|s| s["version"] == 4).await;
    step(&mut light, &mut dark, "d6").await;
    light.ok("offer-takeback").await;
    let before = dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    server.stop().await;

    let server = Server::start(&db).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    let after = light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    assert_eq!(after["actions"], json!(["a1", "b2", "a4", "b4", "d6"]));
    for field in [
        "round", "version", "position", "actions", "record", "offers", "turn",
    ] {
        assert_eq!(after[field], before[field], "{field}");
    }
    // The standing request is still answerable.
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    dark.ok("accept-takeback").await;
    let s = light.state_where(|s| s["version"] == 4).await;
    assert_eq!(s["actions"], json!(["a1", "b2", "a4", "b4"]));
    server.stop().await;
}

#[tokio::test]
async fn room_info_counts_the_spectators_too() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, mut light, _dark) = server.table().await;
    let info = |server: &Server| {
        let path = format!("/api/rooms/{room}");
        let addr = server.addr;
        async move { common::http(addr, "GET", &path).await }
    };
    assert_eq!(info(&server).await.1["spectators"], 0);
    let one = Client::hello(server.addr, &room, None).await;
    let _two = Client::hello(server.addr, &room, None).await;
    light.state_where(|s| s["spectators"] == 2).await;
    let (status, body) = info(&server).await;
    assert_eq!((status, body["spectators"].clone()), (200, json!(2)));
    one.close().await;
    light.state_where(|s| s["spectators"] == 1).await;
    assert_eq!(info(&server).await.1["spectators"], 1);
    server.stop().await;
}

#[tokio::test]
async fn a_finished_round_is_given_for_review_without_secrets() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    let path = |n: &str| format!("/api/rooms/{room}/rounds/{n}");
    let (status, e) = server.http("GET", &path("1")).await;
    assert_eq!((status, e["code"].clone()), (409, json!("round-not-over")));
    step(&mut light, &mut dark, "d6").await;
    step(&mut light, &mut dark, "d2").await;
    dark.ok("resign").await;
    light.state_where(|s| !s["result"].is_null()).await;
    let (status, rec) = server.http("GET", &path("1")).await;
    assert_eq!(status, 200, "{rec}");
    assert_eq!(rec["room"], room.as_str());
    assert_eq!(rec["round"], 1);
    assert_eq!(rec["actions"], json!(["d6", "d2"]));
    assert_eq!(rec["record"], json!(["d6", "d2"]));
    assert_eq!(rec["result"], json!({"winner": "light", "reason": "resignation"}));
    assert_eq!(rec["start"], ".../.../.../....../.../.../... l 9 9 0 0");
    assert_eq!(rec["clock"], Value::Null, "an untimed room's record has no clock");
    let text = rec.to_string();
    for secret in [&light_key, &dark_key] {
        assert!(!text.contains(secret.as_str()), "no seat key in the record");
    }
    assert!(rec.get("seats").is_none());
    // A later round leaves the first one readable.
    light.ok("new-round").await;
    dark.ok("new-round").await;
    light.state_where(|s| s["round"] == 2).await;
    let (status, again) = server.http("GET", &path("1")).await;
    assert_eq!((status, &again), (200, &rec));
    for (n, status, code) in [
        ("2", 409, "round-not-over"),
        ("3", 404, "unknown-round"),
        ("0", 404, "unknown-round"),
        ("x", 404, "unknown-round"),
        ("+1", 404, "unknown-round"),
        ("99999999999", 404, "unknown-round"),
    ] {
        let (s, e) = server.http("GET", &path(n)).await;
        assert_eq!((s, e["code"].as_str()), (status, Some(code)), "round {n}");
    }
    let (s, e) = server.http("GET", "/api/rooms/nosuchroom00/rounds/1").await;
    assert_eq!((s, e["code"].as_str()), (404, Some("unknown-room")));
    let (s, e) = server.http("POST", &path("1")).await;
    assert_eq!((s, e["code"].as_str()), (405, Some("method-not-allowed")));
    // The review link is the page.
    let (s, page) = server.http("GET", &format!("/r/{room}/review/1")).await;
    assert_eq!(s, 200);
    assert!(page.as_str().unwrap().contains("<title>Mill</title>"));
    let (s, _) = server.http("GET", "/r/nosuchroom00/review/1").await;
    assert_eq!(s, 404, "a gone room's review link is the gone page");
    server.stop().await;
}

//! Exactly once, under the races that once broke it, on either backend (under
//! scripts/with-postgres these run on PostgreSQL): a retry long after its command,
//! brought back to the version it was made on by a takeback, gets its first ack and is
//! not applied again, also after a restart; an action sent on a socket whose seat is
//! being opened elsewhere is either acknowledged on that socket before it is replaced,
//! or not applied at all.

mod common;

use common::{Client, Server};
use serde_json::{Value, json};

/// Plays `a` for whichever client's turn it is, and waits until both have the state.
async fn step(light: &mut Client, dark: &mut Client, a: &str) {
    let ack = if light.last["turn"] == "light" {
        light.play(a).await
    } else {
        dark.play(a).await
    };
    let v = ack["version"].clone();
    light.state_where(|s| s["version"] == v).await;
    dark.state_where(|s| s["version"] == v).await;
}

#[tokio::test]
async fn a_retry_brought_back_by_a_takeback_gets_its_first_ack_and_is_applied_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (room, light_key) = server.create().await;
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    for a in ["a1", "b2", "a4", "b4"] {
        step(&mut light, &mut dark, a).await;
    }
    // Light closes a mill at version 4 with id X, and removes.
    let x = json!({"type":"action","id":"X","round":1,"version":4,"action":"a7"});
    light.send(x.clone()).await;
    let first = light.answer("X").await;
    assert_eq!(
        (first["type"].clone(), first["version"].clone()),
        (json!("ack"), json!(5)),
        "{first}"
    );
    light.state_where(|s| s["version"] == 5).await;
    dark.state_where(|s| s["version"] == 5).await;
    step(&mut light, &mut dark, "xb2").await;
    // Many commands later X has left the room's memory of recent ids.
    for _ in 0..70 {
        light.ok("offer-draw").await;
        dark.state_where(|s| s["offers"]["draw"] == "light").await;
        dark.ok("decline-draw").await;
        light.state_where(|s| s["offers"]["draw"].is_null()).await;
    }
    // The takeback brings the game back to version 4, where X was made.
    light.ok("offer-takeback").await;
    dark.state_where(|s| s["offers"]["takeback"] == "light").await;
    assert_eq!(dark.ok("accept-takeback").await["version"], 4);
    light.state_where(|s| s["version"] == 4).await;
    let expect_first = |ack: &Value| {
        assert_eq!(
            (
                ack["type"].clone(),
                ack["round"].clone(),
                ack["version"].clone(),
                ack["duplicate"].clone()
            ),
            (json!("ack"), json!(1), json!(5), json!(true)),
            "{ack}"
        );
    };
    light.send(x.clone()).await;
    expect_first(&light.answer("X").await);
    light.send(json!({"type":"sync"})).await;
    let s = light.expect("state").await;
    assert_eq!(s["version"], 4, "the retry changed nothing: {s}");
    assert_eq!(
        common::sql(&db, "SELECT count(*) FROM events WHERE client_id = $1", &["X"]).await,
        1
    );
    // After a restart, the same answer.
    drop((light, dark));
    server.stop().await;
    let server = Server::start(&db).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    assert_eq!(light.last["version"], 4);
    light.send(x).await;
    expect_first(&light.answer("X").await);
    light.send(json!({"type":"sync"})).await;
    assert_eq!(light.expect("state").await["version"], 4);
    server.stop().await;
}

#[tokio::test]
async fn an_action_racing_a_seat_replacement_is_acknowledged_first_or_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let mut applied = 0;
    for round in 0..10 {
        let server = Server::start(&db).await;
        let (room, light_key) = server.create().await;
        let dark_key = server.join(&room).await;
        let mut old = Client::hello(server.addr, &room, Some(&light_key)).await;
        let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
        old.state_where(|s| s["seats"]["dark"]["online"] == true).await;
        dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
        // The action and a hello with the same key, at once.
        let id = old.command("action", json!({"action": "a1"})).await;
        let new = Client::hello(server.addr, &room, Some(&light_key));
        let (seen, new) = tokio::join!(old.until_closed(), new);
        let (messages, code) = seen;
        assert_eq!(code, Some(4000), "round {round}: {messages:?}");
        let ack = messages
            .iter()
            .position(|m| m["type"] == "ack" && m["id"] == id.as_str());
        let replaced = messages.iter().position(|m| m["type"] == "replaced");
        // What was stored, once everything queued has committed.
        drop((new, dark));
        server.stop().await;
        let server = Server::start(&db).await;
        let version = server.http("GET", &format!("/api/rooms/{room}")).await.1["version"].clone();
        server.stop().await;
        if version == 1 {
            applied += 1;
            assert!(
                matches!((ack, replaced), (Some(a), Some(r)) if a < r),
                "round {round}: applied, so acknowledged before the replacement: {messages:?}"
            );
        } else {
            assert_eq!(version, 0);
            assert_eq!(
                ack, None,
                "round {round}: acknowledged but not stored: {messages:?}"
            );
        }
    }
    eprintln!("{applied} of 10 raced actions were applied (and acknowledged)");
}

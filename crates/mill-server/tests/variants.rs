//! Rooms of every variant: a room is created with its rule set, keeps it in every round
//! and across a restart, and says what it plays; a room asked for without one is Nine.

mod common;
use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;

/// `POST path` with a JSON body; returns the status and the JSON answer.
async fn post_json(addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    request(addr, "POST", path, body).await
}

fn rules_of(state: &Value) -> String {
    let position = state["position"].as_str().unwrap();
    position.split_whitespace().nth(6).unwrap_or("nine").to_string()
}

#[tokio::test]
async fn a_room_created_as_six_plays_six_in_every_round_and_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (status, body) = post_json(server.addr, "/api/rooms", r#"{"variant": "six+per-mill"}"#).await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let light_key = body["key"].as_str().unwrap().to_string();
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["variant"], "six+per-mill");
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, Some(&light_key)).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    let s = light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    assert_eq!(rules_of(&s), "six+per-mill");
    assert_eq!(s["in_hand"], json!({"light": 6, "dark": 6}), "{s}");
    // d4 is a point of Three and Nine's inner square has c3: neither is Six's.
    light.command("action", json!({"action": "c3"})).await;
    assert_eq!(light.error().await["code"], "bad-action");
    light.play("b4").await;
    dark.state_where(|s| s["version"] == 1).await;
    dark.ok("resign").await;
    light.state_where(|s| !s["result"].is_null()).await;
    light.ok("new-round").await;
    dark.ok("new-round").await;
    let s = light.state_where(|s| s["round"] == 2).await;
    assert_eq!(rules_of(&s), "six+per-mill", "a new round keeps the rules");
    let (_, record) = server.http("GET", &format!("/api/rooms/{room}/rounds/1")).await;
    assert_eq!(record["variant"], "six+per-mill", "{record}");
    light.close().await;
    dark.close().await;
    server.stop().await;

    // After a restart the room is rebuilt under its rules.
    let server = Server::start(&db).await;
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["variant"], "six+per-mill");
    assert_eq!(info["round"], 2);
    let mut watcher = Client::hello(server.addr, &room, None).await;
    let s = watcher.state_where(|s| s["round"] == 2).await;
    assert_eq!(rules_of(&s), "six+per-mill");
    watcher.close().await;
    server.stop().await;
}

#[tokio::test]
async fn rooms_without_rules_are_nine_and_bad_rules_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (room, _) = server.create().await;
    let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
    assert_eq!(info["variant"], "nine", "an empty body, as older pages send");
    let (status, body) = post_json(server.addr, "/api/rooms", "{}").await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = post_json(server.addr, "/api/rooms", r#"{"variant": "twelve"}"#).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = post_json(server.addr, "/api/rooms", r#"{"other": 1}"#).await;
    assert_eq!(status, 201, "unknown fields are ignored: {body}");
    for bad in [
        r#"{"variant": "ten"}"#,
        r#"{"variant": "three+per-mill"}"#,
        // Extended options are mill-core's, for MIF games; rooms play the table's.
        r#"{"variant": "nine+pieces-12"}"#,
        r#"{"variant": "nine+repetition-claim"}"#,
        "{",
        r#"{"variant": 6}"#,
        "[]",
    ] {
        let (status, body) = post_json(server.addr, "/api/rooms", bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["code"], "bad-rules", "{bad}: {body}");
        assert!(!body["message"].as_str().unwrap().is_empty());
    }
    server.stop().await;
}

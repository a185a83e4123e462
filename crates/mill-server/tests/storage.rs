//! Storage behaviour seen from outside: a damaged room is set aside while the others
//! play on, rooms leave memory when idle and come back from the database, and retries
//! are recognised with a bounded memory of client ids.

mod common;

use std::time::Duration;

use common::{Client, Server};
use serde_json::{Value, json};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

async fn step(light: &mut Client, dark: &mut Client, a: &str) {
    let mover_is_light = light.last["turn"] == "light";
    let (mover, other) = if mover_is_light {
        (light, dark)
    } else {
        (dark, light)
    };
    let v = mover.last["version"].as_u64().unwrap() + 1;
    mover.play(a).await;
    mover.state_where(|s| s["version"] == v).await;
    other.state_where(|s| s["version"] == v).await;
}

#[tokio::test]
async fn a_room_whose_events_do_not_replay_is_set_aside_and_the_others_are_served() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (bad, _) = server.create().await;
    let bad_dark = server.join(&bad).await;
    let (good, good_light) = server.create().await;
    let good_dark = server.join(&good).await;
    for room in [&bad, &good] {
        let (status, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
        assert_eq!(status, 200, "{info}");
    }
    let (_, mut l, mut d) = server_table(&server, &good, &good_light, &good_dark).await;
    step(&mut l, &mut d, "a1").await;
    l.close().await;
    d.close().await;
    drop(bad_dark);
    server.stop().await;

    // Dark "plays" a1 in the bad room, where Light is to move: the row does not replay.
    common::sql(
        &db,
        "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
         VALUES ($1, 1, 0, 'dark', 'action', 'a1', 'forged', 1)",
        &[&bad],
    )
    .await;

    let server = Server::start(&db).await;
    let (status, _) = server.http("GET", "/api/health").await;
    assert_eq!(status, 200);
    let (status, body) = server.http("GET", &format!("/api/rooms/{bad}")).await;
    assert_eq!(
        (status, body["code"].clone()),
        (503, json!("room-damaged")),
        "{body}"
    );
    let mut c = Client::connect(server.addr, &bad).await;
    c.send(json!({"type": "hello", "protocol": 1, "key": null})).await;
    let (seen, code) = c.until_closed().await;
    assert_eq!(
        seen.first().map(|v| v["code"].clone()),
        Some(json!("room-damaged")),
        "{seen:?}"
    );
    assert_eq!(code, Some(4010));
    let (status, body) = server.http("POST", &format!("/api/rooms/{bad}/join")).await;
    assert_eq!((status, body["code"].clone()), (503, json!("room-damaged")));

    // the other stored room and new rooms play on
    let (_, mut l, mut d) = server_table(&server, &good, &good_light, &good_dark).await;
    assert_eq!(l.last["version"], 1);
    step(&mut l, &mut d, "b2").await;
    let (_, mut l2, mut d2) = server.table().await;
    step(&mut l2, &mut d2, "d6").await;
    server.stop().await;
}

async fn server_table(server: &Server, room: &str, light: &str, dark: &str) -> (String, Client, Client) {
    let mut l = Client::hello(server.addr, room, Some(light)).await;
    let mut d = Client::hello(server.addr, room, Some(dark)).await;
    l.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    d.state_where(|s| s["seats"]["light"]["online"] == true).await;
    (room.to_string(), l, d)
}

#[tokio::test]
async fn an_idle_room_leaves_memory_and_comes_back_from_the_database() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start_with(&db, |c| c.evict_after = Duration::from_millis(100)).await;
    let (room, mut light, mut dark) = server.table().await;
    step(&mut light, &mut dark, "a1").await;
    light.close().await;
    dark.close().await;
    // A row written behind the server's back shows only if the room is read again
    // from the file, that is, once it has left memory.
    common::sql(
        &db,
        "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
         VALUES ($1, 1, 1, 'dark', 'action', 'b2', 'behind', 1)",
        &[&room],
    )
    .await;
    let mut seen = Value::Null;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (_, info) = server.http("GET", &format!("/api/rooms/{room}")).await;
        seen = info;
        if seen["version"] == 2 {
            break;
        }
    }
    assert_eq!(seen["version"], 2, "reloaded from the database: {seen}");
    let watcher = Client::hello(server.addr, &room, None).await;
    assert_eq!(watcher.last["actions"], json!(["a1", "b2"]));
    server.stop().await;
}

#[tokio::test]
async fn retries_are_recognised_for_the_life_of_the_room() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let (_, mut light, mut dark) = server.table().await;
    light
        .send(json!({"type":"action","id":"first","round":1,"version":0,"action":"a1"}))
        .await;
    light.expect("ack").await;
    dark.state_where(|s| s["version"] == 1).await;
    light.state_where(|s| s["version"] == 1).await;
    // 150 commands that leave the version where it is
    let mut first_offer = None;
    let mut last_offer = String::new();
    for _ in 0..75 {
        let id = dark.command("offer-draw", json!({})).await;
        assert_eq!(dark.expect("ack").await["id"], id.as_str());
        first_offer.get_or_insert(id.clone());
        last_offer = id;
        light.state_where(|s| s["offers"]["draw"] == "dark").await;
        light.ok("decline-draw").await;
        dark.state_where(|s| s["offers"]["draw"].is_null()).await;
    }
    let first_offer = first_offer.unwrap();
    // Made on the current (round, version), so it is still known, however old.
    dark.send(json!({"type":"offer-draw","id":first_offer,"round":1,"version":1}))
        .await;
    let ack = dark.expect("ack").await;
    assert_eq!(
        (ack["id"].clone(), ack["duplicate"].clone()),
        (json!(first_offer), json!(true))
    );
    dark.play("b2").await;
    light.state_where(|s| s["version"] == 2).await;
    dark.state_where(|s| s["version"] == 2).await;
    // Old ids, long out of the room's memory, made on an earlier version: their first
    // answer again, never applied again.
    for (who, id, kind, version) in [
        (&mut light, "first", "action", 1),
        (&mut dark, &first_offer[..], "offer-draw", 1),
    ] {
        who.send(
            json!({"type":kind,"id":id,"round":1,"version":if kind == "action" {0} else {1},"action":"a1"}),
        )
        .await;
        let ack = who.expect("ack").await;
        assert_eq!(
            (
                ack["id"].clone(),
                ack["duplicate"].clone(),
                ack["version"].clone()
            ),
            (json!(id), json!(true), json!(version)),
            "{ack}"
        );
        who.send(json!({"type":"sync"})).await;
        let s = who.expect("state").await;
        assert_eq!(s["version"], 2);
        assert!(s["offers"]["draw"].is_null(), "{s}");
    }
    // A recent one is acknowledged again as a duplicate.
    dark.send(json!({"type":"offer-draw","id":last_offer,"round":1,"version":1}))
        .await;
    let ack = dark.expect("ack").await;
    assert_eq!(
        (ack["duplicate"].clone(), ack["version"].clone()),
        (json!(true), json!(1))
    );
    server.stop().await;
}

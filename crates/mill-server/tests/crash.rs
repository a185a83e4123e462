//! The crash test: the real `mill-server` binary is killed with SIGKILL at random
//! moments while clients play; after each restart every action that any client saw
//! acknowledged must be in the database, in its place, and the rooms must replay.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Client, Rng, http, legal_action};
use serde_json::{Value, json};
use tokio::process::Child;

const ROOMS: usize = 4;
const KILLS: usize = 4;

/// (room, round, version after the action, action)
type Acked = Arc<Mutex<Vec<(String, u64, u64, String)>>>;

async fn spawn_server(dir: &Path) -> (Child, SocketAddr) {
    let db = common::db_arg(&dir.join("crash.db")).await;
    common::spawn_server(dir, &db, &[]).await
}

/// Reads until the state is at (round, version); `None` once the server is gone.
async fn until_version(c: &mut Client, round: &Value, version: &Value) -> Option<()> {
    while !(c.last["round"] == *round && c.last["version"] == *version) {
        c.try_recv().await?;
    }
    Some(())
}

/// Sends a command and returns its ack, keeping states that pass by; `None` once the
/// server is gone.
async fn command(c: &mut Client, id: &str, kind: &str, action: Option<&str>) -> Option<Value> {
    let msg = c.message(kind, id, action);
    c.try_send(msg.clone()).await?;
    loop {
        let v = c.try_recv().await?;
        match v["type"].as_str() {
            Some("ack") if v["id"] == id => return Some(v),
            Some("error") => panic!("refused {msg}: {v}"),
            _ => {}
        }
    }
}

/// Plays random legal actions in one room until the server goes away.
async fn play(addr: SocketAddr, room: String, keys: [String; 2], seed: u64, acked: Acked) {
    let Some(light) = Client::try_hello(addr, &room, Some(&keys[0])).await else {
        return;
    };
    let Some(dark) = Client::try_hello(addr, &room, Some(&keys[1])).await else {
        return;
    };
    let mut seats = [light, dark];
    let mut rng = Rng::new(seed);
    let mut n = 0u64;
    loop {
        // both must see each other online before play is allowed
        for s in seats.iter_mut() {
            while !(s.last["seats"]["light"]["online"] == true && s.last["seats"]["dark"]["online"] == true) {
                if s.try_recv().await.is_none() {
                    return;
                }
            }
        }
        n += 1;
        let id = format!("{seed}-{n}");
        let state = seats[0].last.clone();
        if !state["result"].is_null() {
            for s in seats.iter_mut() {
                let id = format!("{id}-{}", s.last["version"]);
                if command(s, &id, "new-round", None).await.is_none() {
                    return;
                }
            }
            let round = json!(state["round"].as_u64().unwrap() + 1);
            for s in seats.iter_mut() {
                if until_version(s, &round, &json!(0)).await.is_none() {
                    return;
                }
            }
            continue;
        }
        let mover = usize::from(state["turn"] == "dark");
        let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
        let Some(ack) = command(&mut seats[mover], &id, "action", Some(&action)).await else {
            return;
        };
        acked.lock().unwrap().push((
            room.clone(),
            ack["round"].as_u64().unwrap(),
            ack["version"].as_u64().unwrap(),
            action,
        ));
        for s in seats.iter_mut() {
            if until_version(s, &ack["round"], &ack["version"]).await.is_none() {
                return;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_loses_no_acknowledged_action() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let acked: Acked = Arc::default();
    let mut rooms: Vec<(String, [String; 2])> = Vec::new();

    for kill in 0..KILLS {
        let (mut child, addr) = spawn_server(dir.path()).await;
        if rooms.is_empty() {
            for _ in 0..ROOMS {
                let (status, created) = http(addr, "POST", "/api/rooms").await;
                assert_eq!(status, 201);
                let room = created["room"].as_str().unwrap().to_string();
                let (status, joined) = http(addr, "POST", &format!("/api/rooms/{room}/join")).await;
                assert_eq!(status, 200);
                let keys = [
                    created["key"].as_str().unwrap().to_string(),
                    joined["key"].as_str().unwrap().to_string(),
                ];
                rooms.push((room, keys));
            }
        }
        let players: Vec<_> = rooms
            .iter()
            .enumerate()
            .map(|(i, (room, keys))| {
                tokio::spawn(play(
                    addr,
                    room.clone(),
                    keys.clone(),
                    seed ^ ((kill * ROOMS + i) as u64 + 1),
                    acked.clone(),
                ))
            })
            .collect();
        let before = acked.lock().unwrap().len();
        tokio::time::sleep(Duration::from_millis(300 + rng.below(500) as u64)).await;
        common::sigkill(&mut child).await;
        for p in players {
            p.await.expect("a player ends quietly when the server dies");
        }
        let after = acked.lock().unwrap().len();
        println!("kill {kill}: {} actions acknowledged", after - before);
    }

    // One more start: every room must replay, and each acknowledged action be in place.
    let (mut child, addr) = spawn_server(dir.path()).await;
    for (room, _) in &rooms {
        let (status, info) = http(addr, "GET", &format!("/api/rooms/{room}")).await;
        assert_eq!(status, 200, "{info}");
    }
    common::sigkill(&mut child).await;

    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() >= KILLS, "the clients got to play ({})", acked.len());
    // The version-th action of the round must be the acknowledged one (either backend).
    let db = dir.path().join("crash.db");
    for (room, round, version, action) in &acked {
        let found = common::sql(
            &db,
            "SELECT count(*) FROM (SELECT action, row_number() OVER (ORDER BY seq) AS n FROM events
               WHERE room_id = $1 AND CAST(round AS TEXT) = $2 AND kind = 'action') t
             WHERE CAST(n AS TEXT) = $3 AND action = $4",
            &[room, &round.to_string(), &version.to_string(), action],
        )
        .await;
        assert_eq!(
            found, 1,
            "room {room} round {round} version {version} action {action} (seed {seed})"
        );
    }
}

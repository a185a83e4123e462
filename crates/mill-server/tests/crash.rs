//! The crash test: the real `mill-server` binary is killed with SIGKILL at random
//! moments while clients play; after each restart every action that any client saw
//! acknowledged must be in the database, in its place, and the rooms must replay.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Rng, http, legal_action};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const ROOMS: usize = 4;
const KILLS: usize = 4;

/// (room, round, version after the action, action)
type Acked = Arc<Mutex<Vec<(String, u64, u64, String)>>>;

async fn spawn_server(dir: &Path) -> (Child, SocketAddr) {
    let db = match common::target(&dir.join("crash.db")).await {
        mill_server::store::DbTarget::Sqlite(path) => path.display().to_string(),
        mill_server::store::DbTarget::Postgres(url) => url,
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill-server"))
        .args(["--addr", "127.0.0.1:0", "--rooms-per-minute", "0"])
        .args(["--messages-per-second", "100000"])
        .arg("--db")
        .arg(db)
        .arg("--static-dir")
        .arg(dir)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mill-server");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(common::PATIENCE, lines.next_line())
        .await
        .expect("server starts")
        .unwrap()
        .expect("a line");
    let url = line
        .strip_prefix("Mill is running at http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let addr = url.trim_end_matches('/').parse().unwrap();
    (child, addr)
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A client that gives up quietly when the server dies.
struct Seat {
    ws: Ws,
    last: Value,
}

async fn next_json(ws: &mut Ws) -> Option<Value> {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .ok()??
            .ok()?;
        match msg {
            Message::Text(t) => return serde_json::from_str(&t).ok(),
            Message::Close(_) => return None,
            _ => {}
        }
    }
}

impl Seat {
    async fn open(addr: SocketAddr, room: &str, key: &str) -> Option<Seat> {
        let url = format!("ws://{addr}/api/rooms/{room}/ws");
        let (mut ws, _) = tokio_tungstenite::connect_async(url).await.ok()?;
        let hello = json!({"type": "hello", "protocol": 1, "key": key});
        ws.send(Message::Text(hello.to_string().into())).await.ok()?;
        let welcome = next_json(&mut ws).await?;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        let last = next_json(&mut ws).await?;
        Some(Seat { ws, last })
    }

    async fn until_version(&mut self, round: &Value, version: &Value) -> Option<()> {
        while !(self.last["round"] == *round && self.last["version"] == *version) {
            let v = next_json(&mut self.ws).await?;
            if v["type"] == "state" {
                self.last = v;
            }
        }
        Some(())
    }

    /// Sends a command and returns its ack, keeping states that pass by.
    async fn command(&mut self, id: &str, kind: &str, action: Option<&str>) -> Option<Value> {
        let mut msg = json!({
            "type": kind, "id": id,
            "round": self.last["round"], "version": self.last["version"],
        });
        if let Some(a) = action {
            msg["action"] = json!(a);
        }
        self.ws.send(Message::Text(msg.to_string().into())).await.ok()?;
        loop {
            let v = next_json(&mut self.ws).await?;
            match v["type"].as_str() {
                Some("ack") if v["id"] == id => return Some(v),
                Some("state") => self.last = v,
                Some("error") => panic!("refused {msg}: {v}"),
                _ => {}
            }
        }
    }
}

/// Plays random legal actions in one room until the server goes away.
async fn play(addr: SocketAddr, room: String, keys: [String; 2], seed: u64, acked: Acked) {
    let Some(light) = Seat::open(addr, &room, &keys[0]).await else {
        return;
    };
    let Some(dark) = Seat::open(addr, &room, &keys[1]).await else {
        return;
    };
    let mut seats = [light, dark];
    let mut rng = Rng::new(seed);
    let mut n = 0u64;
    loop {
        // both must see each other online before play is allowed
        for s in seats.iter_mut() {
            while !(s.last["seats"]["light"]["online"] == true && s.last["seats"]["dark"]["online"] == true) {
                let Some(v) = next_json(&mut s.ws).await else {
                    return;
                };
                if v["type"] == "state" {
                    s.last = v;
                }
            }
        }
        n += 1;
        let id = format!("{seed}-{n}");
        let state = seats[0].last.clone();
        if !state["result"].is_null() {
            for s in seats.iter_mut() {
                if s.command(&format!("{id}-{}", s.last["version"]), "new-round", None)
                    .await
                    .is_none()
                {
                    return;
                }
            }
            let round = json!(state["round"].as_u64().unwrap() + 1);
            for s in seats.iter_mut() {
                if s.until_version(&round, &json!(0)).await.is_none() {
                    return;
                }
            }
            continue;
        }
        let mover = usize::from(state["turn"] == "dark");
        let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
        let Some(ack) = seats[mover].command(&id, "action", Some(&action)).await else {
            return;
        };
        acked.lock().unwrap().push((
            room.clone(),
            ack["round"].as_u64().unwrap(),
            ack["version"].as_u64().unwrap(),
            action,
        ));
        for s in seats.iter_mut() {
            if s.until_version(&ack["round"], &ack["version"]).await.is_none() {
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
        child.start_kill().unwrap(); // SIGKILL
        child.wait().await.unwrap();
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
    child.start_kill().unwrap();
    child.wait().await.unwrap();

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

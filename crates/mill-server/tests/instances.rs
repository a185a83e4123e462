//! Two `mill-server` processes on one PostgreSQL database (MILL_TEST_PG_URL, see
//! scripts/with-postgres; without it there is nothing to test and these return at once):
//! the seats of one room on different instances play; of two racing commands the
//! database keeps one; one instance is killed with SIGKILL mid-game and its player
//! carries on through the other; every acknowledged command is stored exactly once.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;

use common::{Rng, http, legal_action};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn spawn(dir: &Path, url: &str) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mill-server"))
        .args(["--addr", "127.0.0.1:0", "--rooms-per-minute", "0"])
        .args(["--messages-per-second", "100000", "--max-conns-per-ip", "0"])
        .args(["--db", url])
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
    (child, url.trim_end_matches('/').parse().unwrap())
}

struct Seat {
    ws: Ws,
    last: Value,
}

async fn next(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(common::PATIENCE, ws.next())
            .await
            .expect("a message in time")
            .expect("socket open")
            .expect("socket ok");
        match msg {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => {}
        }
    }
}

impl Seat {
    async fn open(addr: SocketAddr, room: &str, key: &str) -> Seat {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/rooms/{room}/ws"))
            .await
            .unwrap();
        let hello = json!({"type": "hello", "protocol": 1, "key": key});
        ws.send(Message::Text(hello.to_string().into())).await.unwrap();
        assert_eq!(next(&mut ws).await["type"], "welcome");
        let last = next(&mut ws).await;
        Seat { ws, last }
    }

    async fn send(&mut self, msg: Value) {
        self.ws.send(Message::Text(msg.to_string().into())).await.unwrap();
    }

    /// Reads until a state satisfies `f`.
    async fn until(&mut self, f: impl Fn(&Value) -> bool) {
        while !f(&self.last) {
            let v = next(&mut self.ws).await;
            if v["type"] == "state" {
                self.last = v;
            }
        }
    }

    /// The answer to command `id` (ack or error), keeping the states that pass by.
    async fn answer(&mut self, id: &str) -> Value {
        loop {
            let v = next(&mut self.ws).await;
            match v["type"].as_str() {
                Some("state") => self.last = v,
                Some("ack" | "error") if v["id"] == id => return v,
                _ => {}
            }
        }
    }
}

fn command(kind: &str, id: &str, state: &Value, action: Option<&str>) -> Value {
    let mut msg = json!({"type": kind, "id": id, "round": state["round"], "version": state["version"]});
    if let Some(a) = action {
        msg["action"] = json!(a);
    }
    msg
}

async fn count(db: &Path, sql: &str, params: &[&str]) -> i64 {
    common::sql(db, sql, params).await
}

#[tokio::test]
async fn seats_on_two_instances_play_through_a_sigkill_and_nothing_is_applied_twice() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>Mill</title>",
    )
    .unwrap();
    let db = dir.path().join("two.db");
    let mill_server::store::DbTarget::Postgres(url) = common::target(&db).await else {
        unreachable!()
    };
    let (mut a, a_addr) = spawn(dir.path(), &url).await;
    let (mut b, b_addr) = spawn(dir.path(), &url).await;

    // Created on A, joined on B; Light plays through A, Dark through B.
    let (status, created) = http(a_addr, "POST", "/api/rooms").await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let (status, joined) = http(b_addr, "POST", &format!("/api/rooms/{room}/join")).await;
    assert_eq!(status, 200, "{joined}");
    let (status, again) = http(a_addr, "POST", &format!("/api/rooms/{room}/join")).await;
    assert_eq!(
        (status, again["code"].clone()),
        (409, json!("room-full")),
        "one Dark seat"
    );
    let keys = [
        created["key"].as_str().unwrap().to_string(),
        joined["key"].as_str().unwrap().to_string(),
    ];
    let mut light = Seat::open(a_addr, &room, &keys[0]).await;
    let mut dark = Seat::open(b_addr, &room, &keys[1]).await;
    // presence crosses instances
    light.until(|s| s["seats"]["dark"]["online"] == true).await;
    dark.until(|s| s["seats"]["light"]["online"] == true).await;

    // A race: Light's seat on both instances sends a different first action at once.
    let mut light_b = Seat::open(b_addr, &room, &keys[0]).await;
    let start = light.last.clone();
    light.send(command("action", "race-a", &start, Some("a1"))).await;
    light_b
        .send(command("action", "race-b", &start, Some("d7")))
        .await;
    let (ra, rb) = (light.answer("race-a").await, light_b.answer("race-b").await);
    let acks = [&ra, &rb].iter().filter(|v| v["type"] == "ack").count();
    assert_eq!(acks, 1, "the database keeps exactly one: {ra} {rb}");
    let loser = if ra["type"] == "ack" { &rb } else { &ra };
    assert_eq!(loser["code"], "stale", "{loser}");
    drop(light_b);
    let mut acked: Vec<(String, u64, Option<String>)> = Vec::new(); // (id, version after, action)
    let winner = if ra["type"] == "ack" {
        ("race-a", "a1")
    } else {
        ("race-b", "d7")
    };
    acked.push((winner.0.into(), 1, Some(winner.1.into())));
    light.until(|s| s["version"] == 1).await;
    dark.until(|s| s["version"] == 1).await;

    let mut rng = Rng::new(7);
    let mut seats = [light, dark];
    let mut n = 0;
    let mut killed = false;
    loop {
        let state = seats[0].last.clone();
        if !state["result"].is_null() {
            break;
        }
        n += 1;
        let mover = usize::from(state["turn"] == "dark");
        if n == 60 {
            // Enough: Light resigns, which ends the round.
            let id = format!("resign-{n}");
            seats[0]
                .send(command("resign", &id, &seats[0].last.clone(), None))
                .await;
            let ack = seats[0].answer(&id).await;
            assert_eq!(ack["type"], "ack", "{ack}");
            acked.push((id, ack["version"].as_u64().unwrap(), None));
            for seat in seats.iter_mut() {
                seat.until(|s| !s["result"].is_null()).await;
            }
            break;
        }
        let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
        let id = format!("c{n}");
        let msg = command("action", &id, &state, Some(&action));
        seats[mover].send(msg.clone()).await;
        if n == 20 && !killed {
            // SIGKILL A with Light's command maybe in flight; Light reconnects to B and
            // retries it with the same id: stored once, acknowledged.
            killed = true;
            a.start_kill().unwrap();
            a.wait().await.unwrap();
            seats[0] = Seat::open(b_addr, &room, &keys[0]).await;
            if mover == 0 {
                let fresh = seats[0].last.clone();
                // the same command again, on the version it was made on
                seats[0].send(msg.clone()).await;
                let ack = seats[0].answer(&id).await;
                assert_eq!(ack["type"], "ack", "retry after the kill: {ack} (state {fresh})");
                acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
            } else {
                let ack = seats[1].answer(&id).await;
                assert_eq!(ack["type"], "ack", "{ack}");
                acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
            }
        } else {
            let ack = seats[mover].answer(&id).await;
            assert_eq!(ack["type"], "ack", "{ack}");
            acked.push((id.clone(), ack["version"].as_u64().unwrap(), Some(action.clone())));
        }
        let v = state["version"].as_u64().unwrap() + 1;
        for seat in seats.iter_mut() {
            seat.until(|s| s["version"] == v).await;
        }
    }
    assert!(killed, "the game lasted past the kill");
    let result = seats[0].last["result"].clone();
    assert!(!result.is_null());
    assert_eq!(seats[1].last["result"], result, "both see the same end");
    b.start_kill().unwrap();
    b.wait().await.unwrap();

    // Every acknowledged command is stored, in its place, exactly once, and nothing else.
    let stored = count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[&room]).await;
    assert_eq!(stored, acked.len() as i64, "one row per acknowledged command");
    for (id, version, action) in &acked {
        let rows = count(
            &db,
            "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
            &[&room, id],
        )
        .await;
        assert_eq!(rows, 1, "{id}");
        if let Some(action) = action {
            let in_place = count(
                &db,
                "SELECT count(*) FROM (SELECT client_id, action, row_number() OVER (ORDER BY seq) AS n
                   FROM events WHERE room_id = $1 AND round = 1 AND kind = 'action') t
                 WHERE CAST(n AS TEXT) = $2 AND client_id = $3 AND action = $4",
                &[&room, &version.to_string(), id, action],
            )
            .await;
            assert_eq!(in_place, 1, "{id} at version {version}");
        }
    }
}

#[tokio::test]
async fn mill_load_spreads_each_room_over_two_instances() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("load.db");
    let mill_server::store::DbTarget::Postgres(url) = common::target(&db).await else {
        unreachable!()
    };
    let (mut a, a_addr) = spawn(dir.path(), &url).await;
    let (mut b, b_addr) = spawn(dir.path(), &url).await;
    let out = Command::new(env!("CARGO_BIN_EXE_mill-load"))
        .args(["--addr", &a_addr.to_string(), "--addr", &b_addr.to_string()])
        .args(["--rooms", "4", "--seconds", "2", "--think-ms", "20"])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("set up 4 rooms (8 sockets)"), "{text}");
    assert!(text.contains("| errors 0 | sockets dropped 0"), "{text}");
    let actions: i64 = text
        .split(" actions in ")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an action count in {text}"));
    assert!(actions > 0, "{text}");
    a.start_kill().unwrap();
    b.start_kill().unwrap();
    let _ = (a.wait().await, b.wait().await);
    // Every measured action crossed instances and is stored (set-up and the last,
    // unmeasured actions come on top).
    let stored = common::sql(&db, "SELECT count(*) FROM events WHERE kind = 'action'", &[]).await;
    assert!(stored >= actions, "{stored} stored, {actions} measured");
}

/// The count in a Prometheus text line `name value`.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn events_of_many_rooms_share_commits_and_each_is_decided_on_its_own() {
    if !common::on_postgres() {
        eprintln!("skipped: needs MILL_TEST_PG_URL (scripts/with-postgres)");
        return;
    }
    const ROOMS: usize = 24;
    const MOVES: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("batch.db");
    let mill_server::store::DbTarget::Postgres(url) = common::target(&db).await else {
        unreachable!()
    };
    let (mut a, a_addr) = spawn(dir.path(), &url).await;
    let (mut b, b_addr) = spawn(dir.path(), &url).await;

    // Each room: Light on A, Dark on B, and Light's seat a second time on B.
    let mut rooms = Vec::new();
    for _ in 0..ROOMS {
        let (status, created) = http(a_addr, "POST", "/api/rooms").await;
        assert_eq!(status, 201, "{created}");
        let room = created["room"].as_str().unwrap().to_string();
        let (status, joined) = http(b_addr, "POST", &format!("/api/rooms/{room}/join")).await;
        assert_eq!(status, 200, "{joined}");
        let light = Seat::open(a_addr, &room, created["key"].as_str().unwrap()).await;
        let dark = Seat::open(b_addr, &room, joined["key"].as_str().unwrap()).await;
        let mut light_b = Seat::open(b_addr, &room, created["key"].as_str().unwrap()).await;
        let mut seats = [light, dark];
        for seat in seats.iter_mut().chain([&mut light_b]) {
            seat.until(|s| s["seats"]["light"]["online"] == true && s["seats"]["dark"]["online"] == true)
                .await;
        }
        rooms.push((room, seats, light_b));
    }
    let mut acked: Vec<Vec<String>> = vec![Vec::new(); ROOMS];

    // Every room's Light plays a different first action through both instances at
    // once: the batches of A and B race for each room's first place, and in every
    // room exactly one command wins; the other is answered `stale`.
    for (room, seats, light_b) in rooms.iter_mut() {
        let start = seats[0].last.clone();
        seats[0]
            .send(command("action", &format!("{room}-a"), &start, Some("a1")))
            .await;
        light_b
            .send(command("action", &format!("{room}-b"), &start, Some("d7")))
            .await;
    }
    for (n, (room, seats, light_b)) in rooms.iter_mut().enumerate() {
        let ra = seats[0].answer(&format!("{room}-a")).await;
        let rb = light_b.answer(&format!("{room}-b")).await;
        let winners: Vec<&Value> = [&ra, &rb].into_iter().filter(|v| v["type"] == "ack").collect();
        assert_eq!(winners.len(), 1, "exactly one first action in {room}: {ra} {rb}");
        let loser = if ra["type"] == "ack" { &rb } else { &ra };
        assert_eq!(loser["code"], "stale", "{loser}");
        acked[n].push(winners[0]["id"].as_str().unwrap().to_string());
        for seat in seats.iter_mut() {
            seat.until(|s| s["version"] == 1).await;
        }
    }

    // One room disappears from the database behind the instances' backs: its next
    // event cannot be stored (its room row is gone), and it must not take the events
    // of the other rooms in the same batch with it.
    let victim = rooms[0].0.clone();
    let gone = common::sql(
        &db,
        "WITH d AS (DELETE FROM rooms WHERE id = $1 RETURNING 1) SELECT count(*) FROM d",
        &[&victim],
    )
    .await;
    assert_eq!(gone, 1);

    // Then every room moves at once, MOVES times: each round of moves goes through one
    // instance (the mover's), so its events wait in one queue together.
    let mut rng = Rng::new(13);
    for step in 0..MOVES {
        let mut sent = Vec::new();
        for (n, (room, seats, _)) in rooms.iter_mut().enumerate() {
            let state = seats[0].last.clone();
            if !state["result"].is_null() || (n == 0 && step > 0) {
                continue;
            }
            let mover = usize::from(state["turn"] == "dark");
            let action = legal_action(&state, |k| rng.below(k)).expect("a legal action");
            let id = format!("{room}-{step}");
            seats[mover]
                .send(command("action", &id, &state, Some(&action)))
                .await;
            sent.push((n, mover, id, state["version"].as_u64().unwrap() + 1));
        }
        for (n, mover, id, version) in sent {
            let seats = &mut rooms[n].1;
            let answer = seats[mover].answer(&id).await;
            if n == 0 {
                assert_eq!(answer["type"], "error", "the purged room's event: {answer}");
                assert_eq!(answer["code"], "internal", "{answer}");
                continue;
            }
            assert_eq!(answer["type"], "ack", "{answer}");
            acked[n].push(id);
            for seat in seats.iter_mut() {
                seat.until(|s| s["version"] == version).await;
            }
        }
    }

    // The events did share commits (else this test would not be about batching).
    let (_, text) = http(b_addr, "GET", "/metrics").await;
    let text = text.as_str().unwrap_or_default().to_string();
    let commits = metric(&text, "mill_commit_events_count");
    let events = metric(&text, "mill_commit_events_sum");
    assert!(
        commits > 0.0 && events > commits,
        "some commit on B held several events: {events} events in {commits} commits"
    );
    a.start_kill().unwrap();
    b.start_kill().unwrap();
    let _ = (a.wait().await, b.wait().await);

    // Every acknowledged command is stored exactly once, and nothing else.
    assert_eq!(
        count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[&victim]).await,
        0
    );
    for (n, (room, _, _)) in rooms.iter().enumerate().skip(1) {
        let stored = count(&db, "SELECT count(*) FROM events WHERE room_id = $1", &[room]).await;
        assert_eq!(stored, acked[n].len() as i64, "{room}: one row per ack");
        for id in &acked[n] {
            let rows = count(
                &db,
                "SELECT count(*) FROM events WHERE room_id = $1 AND client_id = $2",
                &[room, id],
            )
            .await;
            assert_eq!(rows, 1, "{room} {id}");
        }
    }
}

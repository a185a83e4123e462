//! A simulated arena over the real protocol: players sign in (sessions made in the
//! database), one creates the arena over HTTP, all join, and each bot keeps its arena
//! socket open, plays every game it is handed (`paired`) in the game's room with random
//! legal actions, resigning after a few turns now and then. After the end: every game
//! was paired before the end, nobody was in two games at once, every game has its
//! result, each one as the players saw it, each player was handed each of their games
//! once, and the standings equal a recount of the games' results.
//!
//! Under scripts/with-postgres it runs two instances on one database, each with its
//! pairing loop, and the bots are spread over both (a game's two players often on
//! different instances).
//!
//! A second test kills the server (SIGKILL) mid-arena: the standings after the restart
//! are those before, the game in play goes on and counts, and everyone is paired again.
//!
//! `MILL_ARENA_PLAYERS` and `MILL_ARENA_SECS` make it larger (20 players, 20 s by
//! default: this runs on a shared 2-core machine).

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use common::{Client, Rng, Server, call_as, legal_action};
use mill_server::keys::hash_key;
use mill_server::store::accounts::{Accounts, NewSession};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A session token for player `n` (what the cookie carries).
fn token(n: usize) -> String {
    format!("{n:064x}")
}

async fn call(addr: SocketAddr, method: &str, path: &str, cookie: Option<&str>, body: &str) -> (u16, Value) {
    let a = call_as(addr, method, path, cookie, body).await;
    (a.status, a.body)
}

/// What one bot saw: each game it was handed (room, seat) and how each ended for it.
#[derive(Debug, Default)]
struct Seen {
    paired: Vec<(String, String)>,
    results: HashMap<String, Option<&'static str>>,
}

/// Plays one game to its end; how it went for `seat` (`None`: aborted).
async fn play(addr: SocketAddr, room: &str, seat: &str, key: &str, rng: &mut Rng) -> Option<&'static str> {
    let mut c = Client::hello(addr, room, Some(key)).await;
    assert_eq!(c.seat, seat);
    let other = if seat == "light" { "dark" } else { "light" };
    c.state_where(|s| s["seats"][other]["online"] == true || !s["outcome"].is_null())
        .await;
    // Some games are resigned after a few turns, the others played out.
    let resign_after = if rng.below(3) == 0 {
        Some(3 + rng.below(12))
    } else {
        None
    };
    let mut mine = 0;
    loop {
        let s = c.last.clone();
        if !s["outcome"].is_null() {
            let outcome = &s["outcome"];
            c.close().await;
            return match outcome["kind"].as_str() {
                Some("win") if outcome["winner"] == seat => Some("win"),
                Some("win") => Some("loss"),
                Some("draw") => Some("draw"),
                _ => None,
            };
        }
        let action = legal_action(&s, |n| rng.below(n));
        if s["turn"] != seat || action.is_none() {
            c.recv().await;
            continue;
        }
        let id = if resign_after.is_some_and(|n| mine >= n) && s["pending_removals"] == 0 {
            c.command("resign", json!({})).await
        } else {
            c.command("action", json!({ "action": action })).await
        };
        if c.answer(&id).await["type"] == "ack" {
            mine += 1;
            // The state after it (it may have come before the ack).
            let (round, version) = (s["round"].clone(), s["version"].clone());
            c.state_where(|x| x["round"] != round || x["version"] != version || !x["outcome"].is_null())
                .await;
        } else {
            // Refused (the state moved on meanwhile): ask for it again.
            c.send(json!({"type": "sync"})).await;
            c.expect("state").await;
        }
    }
}

async fn bot(addr: SocketAddr, arena: String, n: usize, ends: std::time::Instant) -> Seen {
    let mut request = format!("ws://{addr}/api/arenas/{arena}/ws")
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("cookie", format!("mill_session={}", token(n)).parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let mut rng = Rng::new(n as u64 + 7);
    let mut seen = Seen::default();
    loop {
        let wait = ends.saturating_duration_since(std::time::Instant::now()) + Duration::from_secs(3);
        let msg = match tokio::time::timeout(wait, ws.next()).await {
            Err(_) => break,
            Ok(None) | Ok(Some(Err(_))) => panic!("player {n}: the arena socket closed"),
            Ok(Some(Ok(m))) => m,
        };
        let Message::Text(text) = msg else { continue };
        let v: Value = serde_json::from_str(&text).unwrap();
        match v["type"].as_str() {
            Some("paired") => {
                let room = v["room"].as_str().unwrap().to_string();
                let seat = v["seat"].as_str().unwrap().to_string();
                let key = v["key"].as_str().unwrap().to_string();
                assert_eq!(key.len(), 64);
                seen.paired.push((room.clone(), seat.clone()));
                let result = play(addr, &room, &seat, &key, &mut rng).await;
                seen.results.insert(room, result);
            }
            Some("standings") => {}
            // A player's socket carries its own row, and nobody else's.
            Some("own-standing") => assert_eq!(v["row"]["name"], format!("bot{n}"), "{v}"),
            other => panic!("player {n}: an arena message of type {other:?}: {v}"),
        }
    }
    let _ = ws.close(None).await;
    seen
}

/// The points of one player's results in order, as the issue states them (a recount
/// independent of arena/scoring.rs).
fn recount(results: &[Option<&str>]) -> (Vec<u64>, u64) {
    let (mut streak, mut points) = (0, Vec::new());
    for r in results {
        let base = match r {
            None => {
                points.push(0);
                continue;
            }
            Some("win") => 2,
            Some("draw") => 1,
            _ => 0,
        };
        let doubled = if streak >= 2 { base * 2 } else { base };
        streak = if *r == Some("win") { streak + 1 } else { 0 };
        points.push(doubled);
    }
    let total = points.iter().sum();
    (points, total)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_arena_pairs_each_player_once_at_a_time_and_scores_every_game_once() {
    let players = env("MILL_ARENA_PLAYERS", 20) as usize;
    let secs = env("MILL_ARENA_SECS", 20);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arena.db");
    let mut servers = vec![Server::start(&db).await];
    if common::on_postgres() {
        servers.push(Server::start(&db).await);
    }
    let addr = servers[0].addr;
    // Answered once the server has opened (and migrated) the database.
    assert_eq!(call(addr, "GET", "/api/health", None, "").await.0, 200);
    let accounts = Accounts::open(&common::target(&db).await).await.unwrap();
    for n in 0..players {
        let name = format!("bot{n}");
        let session = NewSession {
            token_hash: hash_key(&token(n)),
            at: 0,
            expires_at: i64::MAX,
        };
        accounts
            .create(&name, &name, "x", session)
            .await
            .unwrap()
            .unwrap();
    }

    // Refusals first: no session, bad values.
    let body =
        json!({"name": "Bots", "variant": "nine", "clock": {"initial": 60, "increment": 1}, "minutes": 1})
            .to_string();
    assert_eq!(call(addr, "POST", "/api/arenas", None, &body).await.0, 401);
    let (status, refused) = call(
        addr,
        "POST",
        "/api/arenas",
        Some(&token(0)),
        r#"{"name": "x", "minutes": 0}"#,
    )
    .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (400, Some("bad-arena")),
        "{refused}"
    );
    let (status, created) = call(addr, "POST", "/api/arenas", Some(&token(0)), &body).await;
    assert_eq!(status, 201, "{created}");
    let arena = created["id"].as_str().unwrap().to_string();
    // The arena lasts `secs` (the API's shortest is a minute).
    common::sql(
        &db,
        &format!(
            "UPDATE arenas SET ends_at = starts_at + {} WHERE id = $1",
            secs * 1000
        ),
        &[&arena],
    )
    .await;
    let path = |what: &str| format!("/api/arenas/{arena}{what}");
    assert_eq!(
        call(addr, "POST", &path("/pause"), Some(&token(1)), "").await.0,
        409
    );
    let started = std::time::Instant::now();
    let mut bots = Vec::new();
    for n in 0..players {
        let (status, joined) = call(addr, "POST", &path("/join"), Some(&token(n)), "").await;
        assert_eq!(
            (status, joined["state"].as_str()),
            (200, Some("joined")),
            "{joined}"
        );
        let arena = arena.clone();
        bots.push(tokio::spawn(bot(
            addr,
            arena,
            n,
            started + Duration::from_secs(secs),
        )));
    }
    let mut seen = Vec::new();
    for b in bots {
        seen.push(b.await.unwrap());
    }
    // Every game has ended (bots play theirs out after the end).
    let (_, data) = call(addr, "GET", &path(""), None, "").await;
    assert_eq!(data["status"], "finished", "{data}");
    assert_eq!(data["games"]["playing"], 0, "{data}");
    let played = data["games"]["played"].as_u64().unwrap();
    assert!(played >= players as u64 / 2, "at least a round of games: {data}");
    assert_eq!(
        call(addr, "POST", &path("/join"), Some(&token(1)), "").await.0,
        409
    );

    // Nobody paired from the end on, nobody in two games at once, every result set.
    let late = common::sql(
        &db,
        "SELECT count(*) FROM arena_games g JOIN arenas a ON a.id = g.arena_id WHERE g.started_at >= a.ends_at AND a.id = $1",
        &[&arena],
    )
    .await;
    assert_eq!(late, 0);
    let overlapping = common::sql(
        &db,
        "SELECT count(*) FROM arena_games x JOIN arena_games y ON x.room_id < y.room_id
           AND (x.light_id IN (y.light_id, y.dark_id) OR x.dark_id IN (y.light_id, y.dark_id))
           AND x.started_at < y.ended_at AND y.started_at < x.ended_at
         WHERE x.arena_id = $1 AND y.arena_id = $1",
        &[&arena],
    )
    .await;
    assert_eq!(overlapping, 0);
    let open = common::sql(
        &db,
        "SELECT count(*) FROM arena_games WHERE arena_id = $1 AND result IS NULL",
        &[&arena],
    )
    .await;
    assert_eq!(open, 0);

    // Each player was handed each game once; each result is the one its players saw;
    // the points are a recount of the results in order.
    let standings = data["standings"].as_array().unwrap();
    assert_eq!(standings.len(), players);
    let mut total_games = 0;
    for row in standings {
        let name = row["name"].as_str().unwrap();
        let n: usize = name.trim_start_matches("bot").parse().unwrap();
        let games = row["games"].as_array().unwrap();
        let rooms: Vec<&str> = games.iter().map(|g| g["room"].as_str().unwrap()).collect();
        let handed: Vec<&str> = seen[n].paired.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(rooms, handed, "{name}: handed each game once, in order");
        let results: Vec<Option<&str>> = games.iter().map(|g| g["result"].as_str()).collect();
        for (room, result) in rooms.iter().zip(&results) {
            assert_eq!(
                seen[n].results.get(*room).copied().flatten(),
                *result,
                "{name} in {room}"
            );
        }
        let (points, total) = recount(&results);
        let stored: Vec<u64> = games.iter().map(|g| g["points"].as_u64().unwrap()).collect();
        assert_eq!(stored, points, "{name}");
        assert_eq!(row["score"].as_u64(), Some(total), "{name}");
        total_games += games.len();
    }
    assert_eq!(total_games as u64, 2 * played);
    let scores: Vec<u64> = standings.iter().map(|r| r["score"].as_u64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "ordered by score: {scores:?}"
    );
    eprintln!(
        "arena: {players} players on {} instance(s), {played} games in {secs} s; scores {scores:?}",
        servers.len()
    );
    for server in servers {
        server.stop().await;
    }
}

/// An arena socket with player `n`'s session cookie.
async fn arena_socket(
    addr: SocketAddr,
    arena: &str,
    n: usize,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>> {
    arena_socket_with(addr, arena, &token(n)).await
}

/// The next `paired` message on an arena socket: (room, seat, key).
async fn next_paired(
    ws: &mut tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
) -> (String, String, String) {
    loop {
        let msg = tokio::time::timeout(common::PATIENCE, ws.next())
            .await
            .expect("paired in time")
            .unwrap()
            .unwrap();
        let Message::Text(text) = msg else { continue };
        let v: Value = serde_json::from_str(&text).unwrap();
        if v["type"] == "paired" {
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            return (s("room"), s("seat"), s("key"));
        }
    }
}

/// Resigns the game in `room` for the holder of `key` and waits for its end.
async fn resign(addr: SocketAddr, room: &str, key: &str) {
    let mut c = Client::hello(addr, room, Some(key)).await;
    c.ok("resign").await;
    c.state_where(|s| !s["outcome"].is_null()).await;
    c.close().await;
}

#[tokio::test]
async fn a_sigkill_mid_arena_loses_no_game_result_or_pairing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arena-kill.db");
    let db_arg = common::db_arg(&db).await;
    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    // Answered once the server has opened (and migrated) the database.
    assert_eq!(call(addr, "GET", "/api/health", None, "").await.0, 200);
    let accounts = Accounts::open(&common::target(&db).await).await.unwrap();
    for n in 0..4 {
        let name = format!("bot{n}");
        let session = NewSession {
            token_hash: hash_key(&token(n)),
            at: 0,
            expires_at: i64::MAX,
        };
        accounts
            .create(&name, &name, "x", session)
            .await
            .unwrap()
            .unwrap();
    }
    let body = json!({"name": "Kill", "clock": {"initial": 300, "increment": 0}, "minutes": 30}).to_string();
    let (status, created) = call(addr, "POST", "/api/arenas", Some(&token(0)), &body).await;
    assert_eq!(status, 201, "{created}");
    let arena = created["id"].as_str().unwrap().to_string();
    let path = format!("/api/arenas/{arena}");
    let mut sockets = Vec::new();
    for n in 0..4 {
        // Half the sockets are opened before joining, half after.
        if n % 2 == 0 {
            sockets.push(arena_socket(addr, &arena, n).await);
        }
        assert_eq!(
            call(addr, "POST", &format!("{path}/join"), Some(&token(n)), "")
                .await
                .0,
            200
        );
        if n % 2 == 1 {
            sockets.push(arena_socket(addr, &arena, n).await);
        }
    }
    let mut games = Vec::new();
    for ws in &mut sockets {
        games.push(next_paired(ws).await);
    }
    // Two games: one resigned (its result stored), one in play when the server dies.
    let (done, playing): (Vec<_>, Vec<_>) = {
        let first_room = games[0].0.clone();
        games.iter().cloned().partition(|g| g.0 == first_room)
    };
    assert_eq!((done.len(), playing.len()), (2, 2), "{games:?}");
    resign(addr, &done[0].0, &done[0].2).await;
    let (_, before) = call(addr, "GET", &path, None, "").await;
    assert_eq!(before["games"], json!({"played": 1, "playing": 1}), "{before}");
    drop(sockets);
    common::sigkill(&mut child).await;

    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    let (_, after) = call(addr, "GET", &path, None, "").await;
    assert_eq!(
        after["standings"], before["standings"],
        "nothing lost, nothing made up"
    );
    // The game in play goes on, on the new process, and counts.
    let mut sockets = Vec::new();
    for n in 0..4 {
        sockets.push(arena_socket(addr, &arena, n).await);
    }
    resign(addr, &playing[0].0, &playing[0].2).await;
    let mut again = Vec::new();
    for ws in &mut sockets {
        again.push(next_paired(ws).await);
    }
    let (_, data) = call(addr, "GET", &path, None, "").await;
    assert_eq!(data["games"], json!({"played": 2, "playing": 2}), "{data}");
    let scores: Vec<u64> = data["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_u64().unwrap())
        .collect();
    assert_eq!(scores, [2, 2, 0, 0], "two wins, two losses");
    // Nobody met their last opponent again while others waited.
    assert_eq!(again.len(), 4);
    let rematches = common::sql(
        &db,
        "SELECT count(*) FROM arena_games x JOIN arena_games y ON x.room_id < y.room_id
           AND ((x.light_id = y.light_id AND x.dark_id = y.dark_id) OR (x.light_id = y.dark_id AND x.dark_id = y.light_id))
         WHERE x.arena_id = $1 AND y.arena_id = $1",
        &[&arena],
    )
    .await;
    assert_eq!(rematches, 0);
    common::sigkill(&mut child).await;
}

#[tokio::test]
async fn scheduled_arenas_are_made_once_by_every_instance() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arena-schedule.db");
    let scheduled: Vec<mill_server::arena::schedule::Scheduled> =
        vec!["nine/180+2/60".parse().unwrap(), "three/60+0/30".parse().unwrap()];
    let tune = |c: &mut mill_server::Config| c.arenas = scheduled.clone();
    let mut servers = vec![Server::start_with(&db, tune).await];
    if common::on_postgres() {
        servers.push(Server::start_with(&db, tune).await);
    }
    // Each instance makes what is due within a pass (a second).
    tokio::time::sleep(Duration::from_millis(2500)).await;
    for server in &servers {
        let (status, list) = call(server.addr, "GET", "/api/arenas", None, "").await;
        assert_eq!(status, 200);
        let arenas = list["arenas"].as_array().unwrap();
        assert_eq!(arenas.len(), 4, "the running and the next of each: {list}");
        let running: Vec<&Value> = arenas.iter().filter(|a| a["status"] == "started").collect();
        assert_eq!(running.len(), 2, "{list}");
        assert!(
            arenas
                .iter()
                .any(|a| a["name"] == "nine 3+2 arena"
                    && a["clock"] == json!({"initial": 180, "increment": 2}))
        );
    }
    let made = common::sql(&db, "SELECT count(*) FROM arenas WHERE created_by IS NULL", &[]).await;
    assert_eq!(made, 4);
    for server in servers {
        server.stop().await;
    }
}

/// Signs `name` up over HTTP; the session token its cookie carries.
async fn sign_up(addr: SocketAddr, name: &str) -> String {
    let body = json!({"name": name, "password": "a fine passphrase"}).to_string();
    let a = call_as(addr, "POST", "/api/account", None, &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.session()
}

/// An arena socket with the session cookie `token`.
async fn arena_socket_with(
    addr: SocketAddr,
    arena: &str,
    token: &str,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>> {
    let mut request = format!("ws://{addr}/api/arenas/{arena}/ws")
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("cookie", format!("mill_session={token}").parse().unwrap());
    tokio_tungstenite::connect_async(request).await.unwrap().0
}

#[tokio::test]
async fn an_arena_game_room_names_its_arena_and_the_arena_its_caller() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arena-room.db");
    let db_arg = common::db_arg(&db).await;
    let (mut child, addr) = common::spawn_server(dir.path(), &db_arg, &[]).await;
    // Signed up over HTTP: the test process never opens the server's database.
    let tokens = [sign_up(addr, "room0").await, sign_up(addr, "room1").await];
    let body = json!({"name": "Rooms", "clock": {"initial": 60, "increment": 0}, "minutes": 5}).to_string();
    let (status, created) = call(addr, "POST", "/api/arenas", Some(&tokens[0]), &body).await;
    assert_eq!(status, 201, "{created}");
    let arena = created["id"].as_str().unwrap().to_string();
    let mut sockets = Vec::new();
    for token in &tokens {
        sockets.push(arena_socket_with(addr, &arena, token).await);
        let (status, _) = call(
            addr,
            "POST",
            &format!("/api/arenas/{arena}/join"),
            Some(token),
            "",
        )
        .await;
        assert_eq!(status, 200);
    }
    let (room, _, key) = next_paired(&mut sockets[0]).await;
    let (status, info) = call(addr, "GET", &format!("/api/rooms/{room}"), None, "").await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["arena"], json!(arena), "{info}");
    // The standings name the game in play, where the page finds the games to watch.
    let (_, data) = call(addr, "GET", &format!("/api/arenas/{arena}"), None, "").await;
    assert_eq!(data["me"], Value::Null, "a watcher is nobody");
    let (_, mine) = call(addr, "GET", &format!("/api/arenas/{arena}"), Some(&tokens[1]), "").await;
    assert_eq!(mine["me"], json!("room1"), "{mine}");
    let (_, list) = call(addr, "GET", "/api/arenas", Some(&tokens[0]), "").await;
    assert_eq!(list["me"], json!("room0"), "{list}");
    assert_eq!(list["arenas"][0]["id"], json!(arena), "{list}");
    let (_, list) = call(addr, "GET", "/api/arenas", None, "").await;
    assert_eq!(list["me"], Value::Null, "{list}");
    let playing: Vec<&Value> = data["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["playing"])
        .collect();
    assert_eq!(playing, [&json!(room), &json!(room)], "{data}");
    // One page of two rows; the caller's own row beside it, a visitor's none.
    assert_eq!(
        (&data["page"], &data["pages"], &data["ranked"]),
        (&json!(1), &json!(1), &json!(2)),
        "{data}"
    );
    assert_eq!(data["own"], Value::Null, "{data}");
    assert_eq!(mine["own"]["name"], json!("room1"), "{mine}");
    let (_, past) = call(addr, "GET", &format!("/api/arenas/{arena}?page=9"), None, "").await;
    assert_eq!(
        (&past["page"], &past["standings"]),
        (&json!(1), &data["standings"]),
        "past the last: the last"
    );
    for bad in ["page=0", "page=x", "page=-1", "colour=red"] {
        let (status, refused) = call(addr, "GET", &format!("/api/arenas/{arena}?{bad}"), None, "").await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (400, Some("bad-arena")),
            "{bad}: {refused}"
        );
        let request = format!("ws://{addr}/api/arenas/{arena}/ws?{bad}")
            .into_client_request()
            .unwrap();
        match tokio_tungstenite::connect_async(request).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => {
                assert_eq!(answer.status(), 400, "{bad}")
            }
            other => panic!("{bad}: the socket was not refused: {:?}", other.map(|_| ())),
        }
    }
    // The game page's sockets ask for no standings: when this game ends (the standings
    // change) the first thing they hear is the next pairing.
    let mut quiet = Vec::new();
    for token in &tokens {
        let mut request = format!("ws://{addr}/api/arenas/{arena}/ws?standings=none")
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("cookie", format!("mill_session={token}").parse().unwrap());
        quiet.push(tokio_tungstenite::connect_async(request).await.unwrap().0);
    }
    resign(addr, &room, &key).await;
    for ws in &mut quiet {
        let first = loop {
            let msg = tokio::time::timeout(common::PATIENCE, ws.next())
                .await
                .expect("paired in time")
                .unwrap()
                .unwrap();
            if let Message::Text(text) = msg {
                break serde_json::from_str::<Value>(&text).unwrap();
            }
        };
        assert_eq!(first["type"], "paired", "{first}");
        assert_ne!(first["room"], json!(room), "{first}");
    }
    // A room of no arena says so.
    let (status, other) = call(addr, "POST", "/api/rooms", None, "{}").await;
    assert_eq!(status, 201, "{other}");
    let other = other["room"].as_str().unwrap().to_string();
    let (status, info) = call(addr, "GET", &format!("/api/rooms/{other}"), None, "").await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["arena"], Value::Null, "{info}");
    assert!(info.as_object().unwrap().contains_key("arena"), "{info}");
    common::sigkill(&mut child).await;
}

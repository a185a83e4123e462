//! The server facing the internet on its own: connection caps and timeouts, floods and
//! oversized frames, what is logged, 404s, invite links, static caching, metrics. Real
//! sockets against the real server on loopback (other clients come from 127.0.0.2).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Client, PATIENCE, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

const OTHER: &str = "127.0.0.2";

/// A TCP connection to `addr` from the loopback address `from`.
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from.parse().unwrap(), 0)).unwrap();
    tokio::time::timeout(PATIENCE, socket.connect(addr))
        .await
        .expect("connect in time")
        .unwrap()
}

struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).to_string()
    }
}

/// One request (`Connection: close` added) on `stream`; the whole answer.
async fn request_on(
    mut stream: TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str("Host: test\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Answer { status, head, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = b.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&b[..i]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&b[i + 2..i + 2 + n]);
        b = &b[i + 2 + n + 2..];
    }
    out
}

async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    request_on(connect_from(OTHER, addr).await, method, path, headers, "").await
}

/// A WebSocket from `from` that says hello with `key`; returns it after the first state.
async fn hello_from(
    from: &str,
    addr: SocketAddr,
    room: &str,
    key: &str,
) -> tokio_tungstenite::WebSocketStream<TcpStream> {
    let tcp = connect_from(from, addr).await;
    let url = format!("ws://{addr}/api/rooms/{room}/ws");
    let (mut ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::client_async(url, tcp))
        .await
        .expect("upgrade in time")
        .unwrap();
    ws.send(Message::Text(
        json!({"type":"hello","protocol":1,"key":key}).to_string().into(),
    ))
    .await
    .unwrap();
    let mut kinds = Vec::new();
    while kinds.len() < 2 {
        let msg = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .expect("a message")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            let v: Value = serde_json::from_str(&t).unwrap();
            kinds.push(v["type"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(kinds, ["welcome", "state"]);
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_idle_sockets_from_one_address_hurt_no_one_else() {
    let _ = rlimit::increase_nofile_limit(4096);
    let dir = tmp();
    let server = Server::start_with(&dir.path().join("m.db"), |c| {
        c.max_conns_per_ip = 50;
        c.header_timeout = Duration::from_secs(2);
        c.hello_timeout = Duration::from_secs(2);
    })
    .await;
    let (room, light_key) = server.create().await;

    // 300 connections from 127.0.0.1 that never finish anything: silent ones and half a
    // request head.
    let mut idle = Vec::new();
    for i in 0..300 {
        let mut tcp = connect_from("127.0.0.1", server.addr).await;
        if i % 3 == 1 {
            tcp.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
                .await
                .unwrap();
        }
        idle.push(tcp);
    }
    // WebSockets that never say hello (from a third address, under its cap).
    let mut silent_ws = Vec::new();
    for _ in 0..5 {
        let (ws, _) = tokio_tungstenite::client_async(
            format!("ws://{}/api/rooms/{room}/ws", server.addr),
            connect_from("127.0.0.3", server.addr).await,
        )
        .await
        .unwrap();
        silent_ws.push(ws);
    }

    // Everyone else is still answered: health, a new room, a join, a seat reconnect.
    let health = request(server.addr, "GET", "/api/health", &[]).await;
    assert_eq!((health.status, health.json()), (200, json!({"ok": true})));
    let created = request(server.addr, "POST", "/api/rooms", &[]).await;
    assert_eq!(created.status, 201, "{}", created.text());
    let joined = request(server.addr, "POST", &format!("/api/rooms/{room}/join"), &[]).await;
    assert_eq!(joined.status, 200, "{}", joined.text());
    let ws = hello_from(OTHER, server.addr, &room, &light_key).await;
    drop(ws);
    let _again = hello_from(OTHER, server.addr, &room, &light_key).await;

    // The address over its cap is told so, with a code, at once.
    let over = request_on(
        connect_from("127.0.0.1", server.addr).await,
        "GET",
        "/api/health",
        &[],
        "",
    )
    .await;
    assert_eq!(over.status, 429);
    assert_eq!(over.json()["code"], "too-many-connections");

    // A kept-alive connection that goes quiet after a request is closed too.
    let mut kept = connect_from(OTHER, server.addr).await;
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut seen = Vec::new();
    tokio::time::timeout(PATIENCE, kept.read_to_end(&mut seen))
        .await
        .expect("the server closes an idle kept-alive connection")
        .unwrap();
    assert!(String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 200"));

    // Idle connections are closed by the header deadline; a socket without hello gets
    // its code.
    for mut tcp in idle.drain(..).take(60) {
        let mut buf = [0u8; 512];
        let read = tokio::time::timeout(PATIENCE, async {
            loop {
                match tcp.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        })
        .await;
        assert!(read.is_ok(), "the server closes an idle connection");
    }
    for mut ws in silent_ws {
        let mut code = None;
        let mut error = None;
        while let Ok(Some(Ok(msg))) = tokio::time::timeout(PATIENCE, ws.next()).await {
            match msg {
                Message::Text(t) => error = serde_json::from_str::<Value>(&t).ok(),
                Message::Close(f) => {
                    code = f.map(|f| u16::from(f.code));
                    break;
                }
                _ => {}
            }
        }
        assert_eq!(code, Some(4008));
        assert_eq!(error.unwrap()["code"], "hello-timeout");
    }
    drop(idle);
    server.stop().await;
}

/// With no cap asked for and more connections than the process may open, someone on
/// another address is still answered: the caps are clamped to the open-file limit, so
/// `accept` never runs out of descriptors. The real binary runs under `ulimit -n`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_caps_fit_in_the_open_file_limit() {
    use tokio::io::AsyncBufReadExt;
    const OPEN_FILES: usize = 200;
    let _ = rlimit::increase_nofile_limit(4096);
    let dir = tmp();
    let db = common::db_arg(&dir.path().join("m.db")).await;
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {OPEN_FILES} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_mill-server"))
        .args([
            "--addr",
            "127.0.0.1:0",
            "--max-conns",
            "0",
            "--max-conns-per-ip",
            "0",
        ])
        // Held connections are not let go by the header deadline during the test.
        .args(["--header-secs", "600", "--db", &db, "--static-dir"])
        .arg(dir.path())
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mill-server");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("server starts")
        .unwrap()
        .expect("a line");
    let addr: SocketAddr = line
        .strip_prefix("Mill is running at http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .trim_end_matches('/')
        .parse()
        .unwrap();

    // More silent connections from one address than the server could open.
    let mut held = Vec::new();
    for _ in 0..OPEN_FILES + 50 {
        held.push(connect_from("127.0.0.1", addr).await);
    }
    // Another address is answered (in time, not after the held ones go): the server is
    // full, and says so.
    let answer = request(addr, "GET", "/api/health", &[]).await;
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert_eq!(answer.json()["code"], "server-busy");
    drop(held);
    let mut ok = false;
    for _ in 0..100 {
        if request(addr, "GET", "/api/health", &[]).await.status == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ok, "served again once the connections closed");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn the_global_cap_answers_503_server_busy() {
    let dir = tmp();
    let server = Server::start_with(&dir.path().join("m.db"), |c| {
        c.max_conns_per_ip = 0;
        c.max_conns = 4;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect_from("127.0.0.1", server.addr).await);
    }
    // Let the server count them before the fifth.
    let mut answer = None;
    for _ in 0..50 {
        let a = request(server.addr, "GET", "/api/health", &[]).await;
        if a.status == 503 {
            answer = Some(a);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answer = answer.expect("refused while full");
    assert_eq!(answer.json()["code"], "server-busy");
    drop(held);
    let mut ok = false;
    for _ in 0..50 {
        if request(server.addr, "GET", "/api/health", &[]).await.status == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ok, "served again once connections closed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flooding_is_closed_with_1008_and_oversized_frames_with_1009() {
    let dir = tmp();
    let server = Server::start_with(&dir.path().join("m.db"), |c| c.messages_per_second = 20).await;
    let (room, mut light, mut dark) = server.table().await;
    for _ in 0..600 {
        light.send(json!({"type": "ping"})).await;
    }
    let (seen, code) = light.until_closed().await;
    assert_eq!(code, Some(1008));
    assert!(seen.iter().any(|m| m["code"] == "rate-limited"));
    // The other seat is untouched.
    dark.send(json!({"type": "ping"})).await;
    assert_eq!(dark.expect("pong").await["type"], "pong");

    let mut watcher = Client::hello(server.addr, &room, None).await;
    watcher.send_text("x".repeat(70 * 1024)).await;
    let (_, code) = watcher.until_closed().await;
    assert_eq!(code, Some(1009));
    // Large but under the frame limit: an error, and the socket stays.
    dark.send_text(format!("{{\"type\":\"ping\",\"pad\":\"{}\"}}", "y".repeat(8000)))
        .await;
    assert_eq!(dark.error().await["code"], "too-large");
    dark.send(json!({"type": "ping"})).await;
    assert_eq!(dark.expect("pong").await["type"], "pong");
    server.stop().await;
}

/// Holds the database's writes while it lives: on PostgreSQL a lock on the events
/// table, on SQLite the write lock. SQLite's is let go after at most 2 s whatever
/// happens, as the server's writer gives up after 5 s of waiting and stops the server.
enum Stall {
    Postgres(tokio_postgres::Client, tokio::task::JoinHandle<()>),
    Sqlite(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>),
}

impl Stall {
    async fn start(db: &std::path::Path) -> Stall {
        match common::target(db).await {
            mill_server::store::DbTarget::Postgres(url) => {
                let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                let task = tokio::spawn(async move {
                    let _ = conn.await;
                });
                client
                    .batch_execute("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
                    .await
                    .unwrap();
                Stall::Postgres(client, task)
            }
            mill_server::store::DbTarget::Sqlite(path) => {
                let (release, released) = std::sync::mpsc::channel();
                let (held, holding) = tokio::sync::oneshot::channel();
                let thread = std::thread::spawn(move || {
                    let conn = rusqlite::Connection::open(path).unwrap();
                    conn.busy_timeout(PATIENCE).unwrap();
                    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
                    let _ = held.send(());
                    let _ = released.recv_timeout(Duration::from_secs(2));
                    conn.execute_batch("ROLLBACK").unwrap();
                });
                holding.await.unwrap();
                Stall::Sqlite(release, thread)
            }
        }
    }

    async fn release(self) {
        match self {
            Stall::Postgres(client, task) => {
                client.batch_execute("ROLLBACK").await.unwrap();
                drop(client);
                let _ = task.await;
            }
            Stall::Sqlite(release, thread) => {
                let _ = release.send(());
                tokio::task::spawn_blocking(move || thread.join().unwrap())
                    .await
                    .unwrap();
            }
        }
    }
}

/// A slow database slows a socket down and never closes it. Light's command waits for
/// a stalled database while Light pings at half its allowance, for longer than its
/// burst lasts: every ping is answered while the command waits, none is refused, and
/// the command is acknowledged once the database is back. (The socket used to wait for
/// the commit before reading again, then judge the backlog of pings all at once:
/// `rate-limited`, then 1008.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_database_neither_refuses_nor_closes_a_socket_within_its_rate() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start_with(&db, |c| c.messages_per_second = 10).await;
    let (_room, mut light, mut dark) = server.table().await;
    // 5 a second against 10 allowed (bursts of 20): 8 s on PostgreSQL, 2 s on SQLite,
    // whose stall cannot last longer.
    let pings = if common::on_postgres() { 40 } else { 10 };
    let stall = Stall::start(&db).await;
    let id = light.command("offer-draw", json!({})).await;
    let mut seen = Vec::new();
    for _ in 0..pings {
        light.send(json!({"type": "ping"})).await;
        let next = tokio::time::Instant::now() + Duration::from_millis(200);
        while let Ok(v) = tokio::time::timeout_at(next, light.recv()).await {
            seen.push(v);
        }
    }
    let pongs = |seen: &[Value]| seen.iter().filter(|v| v["type"] == "pong").count();
    // Every pong while the database is held (on PostgreSQL the stall lasts until here).
    while pongs(&seen) < pings {
        seen.push(light.recv().await);
    }
    stall.release().await;
    while !seen.iter().any(|v| v["id"] == id.as_str()) {
        seen.push(light.recv().await);
    }
    for v in &seen {
        assert!(
            matches!(v["type"].as_str(), Some("pong" | "state" | "ack")),
            "nothing refused: {v}"
        );
    }
    let ack = seen.iter().find(|v| v["id"] == id.as_str()).unwrap();
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(pongs(&seen), pings);
    // Still open, and the command took effect.
    light.send(json!({"type": "ping"})).await;
    assert_eq!(light.expect("pong").await["type"], "pong");
    dark.state_where(|s| s["offers"]["draw"] == "light").await;
    server.stop().await;
}

/// A closed socket is an absence at once, however busy its room is: on a timed round,
/// Light (to move) has a command waiting for a stalled database when Dark closes its
/// socket. Dark's absence, and the pause of Light's clock, count from the close, not
/// from when the room got to store them after the stall. (Timed from the close, on the
/// real clock; it used to count from the end of the stall.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opponent_whose_socket_closes_is_away_from_the_close_even_while_the_room_is_busy() {
    use mill_server::Clock;
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (status, body) = common::request(
        server.addr,
        "POST",
        "/api/rooms",
        &json!({"clock": {"initial": 60, "increment": 0}}).to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let room = body["room"].as_str().unwrap().to_string();
    let dark_key = server.join(&room).await;
    let mut light = Client::hello(server.addr, &room, body["key"].as_str()).await;
    let mut dark = Client::hello(server.addr, &room, Some(&dark_key)).await;
    light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
    dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
    let version = light.play("d6").await["version"].clone();
    dark.state_where(|s| s["version"] == version).await;
    let version = dark.play("d2").await["version"].clone();
    light.state_where(|s| s["version"] == version).await;
    let stall = Stall::start(&db).await;
    let id = light.command("offer-draw", json!({})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let closed_at = mill_server::SystemClock.now_ms();
    dark.close().await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    stall.release().await;
    let answer = light.answer(&id).await;
    assert_eq!(answer["type"], "ack", "{answer}");
    let paused = light
        .state_where(|s| s["clock"]["running"].is_null() && s["seats"]["dark"]["online"] == false)
        .await;
    let away_at = common::sql(
        &db,
        "SELECT max(at) FROM events WHERE room_id = $1 AND kind = 'away' AND seat = 'dark'",
        &[&room],
    )
    .await;
    assert!(
        away_at - closed_at < 500,
        "Dark's absence counted {} ms after its socket closed: {paused}",
        away_at - closed_at
    );
    light.close().await;
    server.stop().await;
}

/// Commands at half the allowance through a stalled database (10 s on PostgreSQL, 2 s
/// on SQLite, whose stall cannot last longer): the socket's queue fills and the server
/// stops reading it, and what the client sent meanwhile arrives at once when the
/// database is back. It is counted by when it was sent: nothing is `rate-limited` and
/// the socket is not closed. (The backlog used to be judged as a burst: `rate-limited`,
/// then 1008.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_within_the_rate_through_a_database_stall_are_neither_refused_nor_closed() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start_with(&db, |c| c.messages_per_second = 20).await;
    let (_room, mut light, _dark) = server.table().await;
    let commands = if common::on_postgres() { 100 } else { 18 };
    let stall = Stall::start(&db).await;
    let mut ids = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..commands {
        ids.push(light.command("offer-draw", json!({})).await);
        let next = tokio::time::Instant::now() + Duration::from_millis(100);
        while let Ok(v) = tokio::time::timeout_at(next, light.recv()).await {
            seen.push(v);
        }
    }
    stall.release().await;
    let answered = |seen: &[Value]| {
        ids.iter()
            .filter(|id| seen.iter().any(|v| v["id"] == id.as_str()))
            .count()
    };
    while answered(&seen) < ids.len() {
        seen.push(light.recv().await);
    }
    for v in &seen {
        assert_ne!(v["code"], "rate-limited", "{v}");
    }
    // The first offer stands; the others were answered by the rules, and the socket
    // is still open.
    let first = seen.iter().find(|v| v["id"] == ids[0].as_str()).unwrap();
    assert_eq!(first["type"], "ack", "{first}");
    light.send(json!({"type": "ping"})).await;
    assert_eq!(light.expect("pong").await["type"], "pong");
    server.stop().await;
}

/// While a seat's command waits for a stalled database, the room keeps sending that
/// socket states (spectators coming and going, more than its queue of 128 holds): they
/// are written as they come, so the socket is not dropped for falling behind. (Its task
/// used to wait for the commit and write nothing meanwhile.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_database_does_not_make_a_waiting_socket_fall_behind() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let server = Server::start(&db).await;
    let (room, mut light, mut dark) = server.table().await;
    let stall = Stall::start(&db).await;
    let id = light.command("offer-draw", json!({})).await;
    let mut seen = Vec::new();
    for _ in 0..70 {
        let watcher = Client::hello(server.addr, &room, None).await;
        watcher.close().await;
        // Read what has come, so the client's own buffers never hold the server back.
        for seat in [&mut light, &mut dark] {
            while let Ok(v) = tokio::time::timeout(Duration::from_millis(20), seat.recv()).await {
                seen.push(v);
            }
        }
    }
    stall.release().await;
    while !seen.iter().any(|v| v["id"] == id.as_str()) {
        seen.push(light.recv().await);
    }
    let ack = seen.iter().find(|v| v["id"] == id.as_str()).unwrap();
    assert_eq!(ack["type"], "ack", "{ack}");
    light.send(json!({"type": "ping"})).await;
    assert_eq!(light.expect("pong").await["type"], "pong");
    server.stop().await;
}

#[tokio::test]
async fn request_bodies_are_bounded_and_missing_things_are_real_404s() {
    let dir = tmp();
    let repo_static = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static");
    let server = Server::start_with(&dir.path().join("m.db"), |c| c.static_dir = repo_static.into()).await;

    let big = "x".repeat(64 * 1024);
    let a = request_on(
        connect_from(OTHER, server.addr).await,
        "POST",
        "/api/rooms",
        &[("Content-Type", "application/json")],
        &big,
    )
    .await;
    assert_eq!(
        (a.status, a.json()["code"].clone()),
        (413, json!("body-too-large"))
    );

    let a = request(server.addr, "GET", "/api/no/such/thing", &[]).await;
    assert_eq!((a.status, a.json()["code"].clone()), (404, json!("not-found")));
    assert!(a.header("content-type").unwrap().contains("json"));

    for path in [
        "/no-such-page".to_string(),
        format!("/{}", "a".repeat(300)),
        format!("/js/{}.js", "b".repeat(5000)),
        "/404.html".to_string(),
    ] {
        let a = request(server.addr, "GET", &path, &[]).await;
        assert_eq!(a.status, 404, "{path}");
        assert!(
            a.header("content-type").unwrap().starts_with("text/html"),
            "{path}"
        );
        assert!(a.text().contains("Nothing here"), "{path}");
    }

    let a = request(server.addr, "GET", "/r/abcdefghijkl", &[]).await;
    assert_eq!(a.status, 404);
    let page = a.text();
    assert!(page.contains("This room is gone"), "{page}");
    assert!(
        page.contains(r#"<form action="/""#) && page.contains("Start a new game"),
        "{page}"
    );
    let a = request(server.addr, "GET", &format!("/r/{}", "z".repeat(400)), &[]).await;
    assert_eq!(a.status, 404);

    let (room, _) = server.create().await;
    let a = request(server.addr, "GET", &format!("/r/{room}"), &[]).await;
    assert_eq!(a.status, 200);
    assert!(a.text().contains("<title>Mill</title>"));
    server.stop().await;
}

#[tokio::test]
async fn invite_links_follow_the_public_url_or_an_allowed_host_never_any_host() {
    let dir = tmp();
    let plain = Server::start(&dir.path().join("a.db")).await;
    let a = request(plain.addr, "POST", "/api/rooms", &[("Host", "evil.example")]).await;
    let invite = a.json()["invite"].as_str().unwrap().to_string();
    assert!(
        invite.starts_with(&format!("http://{}/r/", plain.addr)),
        "{invite}"
    );
    let own = plain.addr.to_string();
    let a = request(plain.addr, "POST", "/api/rooms", &[("Host", &own)]).await;
    assert!(
        a.json()["invite"]
            .as_str()
            .unwrap()
            .starts_with(&format!("http://{own}/r/"))
    );
    plain.stop().await;

    let allowed = Server::start_with(&dir.path().join("b.db"), |c| {
        c.allowed_hosts = vec!["mill.example:8080".into()];
    })
    .await;
    let a = request(
        allowed.addr,
        "POST",
        "/api/rooms",
        &[("Host", "Mill.Example:8080")],
    )
    .await;
    assert!(
        a.json()["invite"]
            .as_str()
            .unwrap()
            .starts_with("http://Mill.Example:8080/r/")
    );
    let a = request(allowed.addr, "POST", "/api/rooms", &[("Host", "evil.example")]).await;
    assert!(
        a.json()["invite"]
            .as_str()
            .unwrap()
            .starts_with(&format!("http://{}/r/", allowed.addr))
    );
    allowed.stop().await;

    let public = Server::start_with(&dir.path().join("c.db"), |c| {
        c.public_url = Some("https://mill.example.org/".into());
    })
    .await;
    let a = request(public.addr, "POST", "/api/rooms", &[("Host", "evil.example")]).await;
    let body = a.json();
    let room = body["room"].as_str().unwrap();
    assert_eq!(body["invite"], format!("https://mill.example.org/r/{room}"));
    public.stop().await;
}

#[tokio::test]
async fn static_files_are_compressed_versioned_and_revalidated() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    // Not "static": the test server writes its own index.html there.
    let static_dir = dir.path().join("site");
    std::fs::create_dir_all(static_dir.join("js")).unwrap();
    let module = format!(
        "import {{ x }} from './dep.js';\n// {}\nexport const y = x;\n",
        "padding ".repeat(200)
    );
    std::fs::write(static_dir.join("js/app.js"), &module).unwrap();
    std::fs::write(static_dir.join("js/dep.js"), "export const x = 1;\n").unwrap();
    std::fs::write(
        static_dir.join("index.html"),
        format!(
            "<!doctype html><title>Mill</title><script type=\"module\" src=\"/js/app.js\"></script>{}",
            " ".repeat(600)
        ),
    )
    .unwrap();
    let server = Server::start_with(&db, |c| c.static_dir = static_dir.clone()).await;

    let page = request(server.addr, "GET", "/", &[]).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("cache-control").as_deref(), Some("no-cache"));
    let html = page.text();
    let src = html
        .split("src=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let version = src.strip_prefix("/js/app.js?v=").expect("a versioned module URL");
    assert!(!version.is_empty());

    // The module, compressed once the background thread is done, is the same bytes.
    let mut br = None;
    for _ in 0..100 {
        let a = request(server.addr, "GET", &src, &[("Accept-Encoding", "gzip, br")]).await;
        if a.header("content-encoding").as_deref() == Some("br") {
            br = Some(a);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let br = br.expect("brotli served");
    assert_eq!(
        br.header("cache-control").as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(br.header("vary").as_deref(), Some("Accept-Encoding"));
    let mut plain = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(&br.body[..], 4096), &mut plain).unwrap();
    let served = String::from_utf8(plain).unwrap();
    assert!(served.contains(&format!("'./dep.js?v={version}'")), "{served}");
    assert!(br.body.len() < served.len() / 2);

    let gz = request(server.addr, "GET", &src, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding").as_deref(), Some("gzip"));
    let mut plain = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz.body[..]), &mut plain).unwrap();
    assert_eq!(plain, served);
    let raw = request(server.addr, "GET", &src, &[]).await;
    assert_eq!(raw.header("content-encoding"), None);
    assert_eq!(raw.text(), served);

    // Validators: the ETag and Last-Modified answer 304 with no body.
    let etag = br.header("etag").unwrap();
    let again = request(
        server.addr,
        "GET",
        &src,
        &[("Accept-Encoding", "br"), ("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let modified = page.header("last-modified").unwrap();
    let again = request(server.addr, "GET", "/", &[("If-Modified-Since", &modified)]).await;
    assert_eq!(again.status, 304);
    // Unversioned or stale URLs are revalidated every time.
    let stale = request(server.addr, "GET", "/js/app.js?v=old", &[]).await;
    assert_eq!(
        (stale.status, stale.header("cache-control").as_deref()),
        (200, Some("no-cache"))
    );
    server.stop().await;

    // A change to any file is a new version: nothing cached under the old URL is used.
    std::fs::write(static_dir.join("js/dep.js"), "export const x = 2;\n").unwrap();
    let server = Server::start_with(&db, |c| c.static_dir = static_dir.clone()).await;
    let html = request(server.addr, "GET", "/", &[]).await.text();
    assert!(!html.contains(&src), "{html}");
    server.stop().await;
}

/// A file in the endgame tables' form (`mill_engine::tb`): its header, then `positions`
/// pairs of 2-byte values. The server lists and serves it; it does not solve anything.
fn table_file(rules: &str, m: u8, o: u8, positions: u32) -> Vec<u8> {
    let mut out = b"MILLTB01".to_vec();
    out.push(rules.len() as u8);
    out.extend_from_slice(rules.as_bytes());
    out.extend_from_slice(&[m, o]);
    out.extend_from_slice(&positions.to_le_bytes());
    out.extend((0..positions * 4).map(|i| (i % 7 == 0) as u8));
    out
}

/// A file in the placing table's form (`mill_engine::tb::Placing`): its header, then
/// `positions` 6-byte keys and 2-byte words.
fn placing_file(rules: &str, positions: u32) -> Vec<u8> {
    let mut out = b"MILLPL01".to_vec();
    out.push(rules.len() as u8);
    out.extend_from_slice(rules.as_bytes());
    out.extend_from_slice(&positions.to_le_bytes());
    out.extend((0..positions * 8).map(|i| (i % 5 == 0) as u8));
    out
}

#[tokio::test]
async fn endgame_tables_are_listed_and_served_versioned_and_compressed() {
    let dir = tmp();
    let db = dir.path().join("m.db");
    let tb = dir.path().join("tb");
    std::fs::create_dir_all(&tb).unwrap();
    let table = table_file("nine", 3, 3, 5000);
    std::fs::write(tb.join("nine-3v3.mtb"), &table).unwrap();
    std::fs::write(
        tb.join("six+protect-off-3v4.mtb"),
        table_file("six+protect-off", 3, 4, 10),
    )
    .unwrap();
    // Not served: cut short, under another class's name, not a table, not a .mtb.
    std::fs::write(tb.join("nine-4v3.mtb"), &table[..table.len() - 1]).unwrap();
    std::fs::write(tb.join("nine-4v4.mtb"), &table).unwrap();
    std::fs::write(tb.join("nine-3v4.mtb"), b"hello").unwrap();
    std::fs::write(tb.join("notes.txt"), b"hello").unwrap();
    // Six's placing table; not served: a rule set not solved whole, under another name,
    // cut short.
    let placing = placing_file("six", 3000);
    std::fs::write(tb.join("six-placing.mtp"), &placing).unwrap();
    std::fs::write(tb.join("nine-placing.mtp"), placing_file("nine", 10)).unwrap();
    std::fs::write(tb.join("six-whole.mtp"), &placing).unwrap();
    std::fs::write(
        tb.join("six+protect-off-placing.mtp"),
        &placing_file("six+protect-off", 10)[..20],
    )
    .unwrap();
    let server = Server::start_with(&db, |c| c.tb_dir = Some(tb.clone())).await;

    let manifest = request(server.addr, "GET", "/tb/manifest.json", &[]).await;
    assert_eq!(manifest.status, 200);
    assert_eq!(manifest.header("cache-control").as_deref(), Some("no-cache"));
    let list: Value = serde_json::from_slice(&manifest.body).unwrap();
    let tables = list["tables"].as_array().unwrap();
    let names: Vec<(&str, &str)> = tables
        .iter()
        .map(|t| (t["rules"].as_str().unwrap(), t["class"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("nine", "3v3"), ("six+protect-off", "3v4")], "{list}");
    let nine = &tables[0];
    assert_eq!(nine["bytes"], table.len());
    assert_eq!(nine["positions"], 5000);
    let url = nine["url"].as_str().unwrap().to_string();
    assert!(url.starts_with("/tb/nine-3v3.mtb?v="), "{url}");
    let placings = list["placing"].as_array().unwrap();
    assert_eq!(placings.len(), 1, "{list}");
    assert_eq!(
        (
            &placings[0]["rules"],
            &placings[0]["bytes"],
            &placings[0]["positions"]
        ),
        (&json!("six"), &json!(placing.len()), &json!(3000))
    );
    let placing_url = placings[0]["url"].as_str().unwrap().to_string();
    assert!(placing_url.starts_with("/tb/six-placing.mtp?v="), "{placing_url}");
    let served = request(server.addr, "GET", &placing_url, &[]).await;
    assert_eq!((served.status, &served.body[..]), (200, &placing[..]));
    assert_eq!(
        served.header("cache-control").as_deref(),
        Some("public, max-age=31536000, immutable")
    );

    // Its URL is cached for good and served compressed once the background thread is done.
    let mut br = None;
    for _ in 0..200 {
        let a = request(server.addr, "GET", &url, &[("Accept-Encoding", "gzip, br")]).await;
        assert_eq!(a.status, 200);
        if a.header("content-encoding").as_deref() == Some("br") {
            br = Some(a);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let br = br.expect("brotli served");
    assert_eq!(
        br.header("cache-control").as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    let mut plain = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(&br.body[..], 4096), &mut plain).unwrap();
    assert_eq!(plain, table);
    assert!(br.body.len() < table.len() / 4, "{}", br.body.len());
    let raw = request(server.addr, "GET", &url, &[]).await;
    assert_eq!(raw.body, table);
    // Another version, a missing table, a file left out: revalidated or a plain 404.
    let stale = request(server.addr, "GET", "/tb/nine-3v3.mtb?v=old", &[]).await;
    assert_eq!(
        (stale.status, stale.header("cache-control").as_deref()),
        (200, Some("no-cache"))
    );
    for missing in [
        "/tb/nine-4v4.mtb",
        "/tb/nine-4v3.mtb",
        "/tb/nine-3v4.mtb",
        "/tb/notes.txt",
        "/tb/nine-placing.mtp",
        "/tb/six-whole.mtp",
        "/tb/six+protect-off-placing.mtp",
    ] {
        let a = request(server.addr, "GET", missing, &[]).await;
        assert_eq!(a.status, 404, "{missing}");
        assert_eq!(a.text(), "no such table\n", "{missing}");
    }
    server.stop().await;

    // No tables: an empty manifest, so the page searches as before.
    let server = Server::start(&db).await;
    let manifest = request(server.addr, "GET", "/tb/manifest.json", &[]).await;
    assert_eq!(manifest.status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&manifest.body).unwrap(),
        json!({ "tables": [], "placing": [], "probed": [] })
    );
    server.stop().await;
}

/// The value of a metric line `name` (with labels, exactly as printed).
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_rooms_sockets_commands_latency_and_refusals() {
    let dir = tmp();
    let server = Server::start(&dir.path().join("m.db")).await;
    let before = request(server.addr, "GET", "/metrics", &[]).await;
    assert_eq!(before.status, 200);
    assert!(before.header("content-type").unwrap().starts_with("text/plain"));
    let before = before.text();

    let (_room, mut light, mut dark) = server.table().await;
    light.play("d6").await;
    dark.state_where(|s| s["version"] == 1).await;
    dark.play("d2").await;
    light.state_where(|s| s["version"] == 2).await;
    light.command("action", json!({"action": "d2"})).await;
    assert_eq!(light.error().await["code"], "occupied");
    assert_eq!(request(server.addr, "GET", "/api/nothing", &[]).await.status, 404);

    let after = request(server.addr, "GET", "/metrics", &[]).await.text();
    assert!(metric(&after, "mill_rooms") >= 1.0, "{after}");
    assert!(metric(&after, "mill_sockets") >= 2.0, "{after}");
    assert!(metric(&after, "mill_connections") >= 3.0, "{after}");
    let grew = |name: &str| metric(&after, name) - metric(&before, name);
    assert!(grew("mill_commands_acked_total") >= 2.0, "{after}");
    assert!(grew("mill_commit_seconds_count") >= 2.0, "{after}");
    assert!(grew("mill_refusals_total{code=\"occupied\"}") >= 1.0, "{after}");
    assert!(grew("mill_refusals_total{code=\"not-found\"}") >= 1.0, "{after}");
    server.stop().await;
}

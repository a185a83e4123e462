//! Helpers for the integration tests: a real server on 127.0.0.1:0 with a temporary
//! database, a tiny HTTP client, and a WebSocket client that speaks the protocol.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use mill_server::{Clock, Config};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::Child;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The database a test's file path stands for: the file itself, or, when
/// MILL_TEST_PG_URL is set (scripts/with-postgres), a PostgreSQL database of its own
/// named after the path (created on first use, so a restart finds the same data).
pub async fn target(db: &Path) -> mill_server::store::DbTarget {
    use mill_server::store::DbTarget;
    let Ok(admin) = std::env::var("MILL_TEST_PG_URL") else {
        return DbTarget::Sqlite(db.to_path_buf());
    };
    use sha2::Digest;
    let digest = sha2::Sha256::digest(db.to_string_lossy().as_bytes());
    let name: String = format!(
        "mill_{}",
        digest
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let (client, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .expect("MILL_TEST_PG_URL reachable");
    let task = tokio::spawn(conn);
    // Two CREATE DATABASE at once can find the template in use: try again.
    for attempt in 0.. {
        match client.batch_execute(&format!("CREATE DATABASE {name}")).await {
            Ok(()) => break,
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE) => break,
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) && attempt < 100 => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("CREATE DATABASE {name}: {e:?}"),
        }
    }
    drop(client);
    let _ = task.await;
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    DbTarget::Postgres(format!("{base}/{name}"))
}

/// A new, empty PostgreSQL database `name` beside `admin`'s (dropped first if a run
/// before left it), connected: its client and the task driving the connection.
pub async fn empty_pg_database(
    admin: &str,
    name: &str,
) -> (
    tokio_postgres::Client,
    JoinHandle<Result<(), tokio_postgres::Error>>,
) {
    let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    drop(client);
    let _ = task.await;
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(admin);
    let (client, conn) = tokio_postgres::connect(&format!("{base}/{name}"), tokio_postgres::NoTls)
        .await
        .unwrap();
    (client, tokio::spawn(conn))
}

/// The files of the PostgreSQL migrations, in order.
pub fn pg_migrations() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations/postgres");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// Whether the tests run against PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var("MILL_TEST_PG_URL").is_ok()
}

/// Runs `sql` (parameters `$1`, `$2`… as text) on the test database behind `db`, on
/// either backend; returns the first column of the first row as a number (for counts),
/// or the number of rows changed.
pub async fn sql(db: &Path, sql: &str, params: &[&str]) -> i64 {
    match target(db).await {
        mill_server::store::DbTarget::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.busy_timeout(PATIENCE).unwrap();
            let sql = sql.replace('$', "?");
            let params = rusqlite::params_from_iter(params.iter());
            if sql.trim_start().to_ascii_uppercase().starts_with("SELECT") {
                conn.query_row(&sql, params, |r| r.get(0)).unwrap()
            } else {
                conn.execute(&sql, params).unwrap() as i64
            }
        }
        mill_server::store::DbTarget::Postgres(url) => {
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            let task = tokio::spawn(conn);
            let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                .iter()
                .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
                .collect();
            let n = if sql.trim_start().to_ascii_uppercase().starts_with("SELECT") {
                client.query_one(sql, &params).await.unwrap().get::<_, i64>(0)
            } else {
                client.execute(sql, &params).await.unwrap() as i64
            };
            drop(client);
            let _ = task.await;
            n
        }
    }
}

/// Guard against a hang; not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The `--db` argument for the test database behind `db` (a path, or a PostgreSQL URL
/// under scripts/with-postgres).
pub async fn db_arg(db: &Path) -> String {
    match target(db).await {
        mill_server::store::DbTarget::Sqlite(path) => path.display().to_string(),
        mill_server::store::DbTarget::Postgres(url) => url,
    }
}

/// Starts the real `mill-server` binary on 127.0.0.1 (a free port) with database `db`
/// (see [`db_arg`]), the page from `static_dir`, no throttles and `extra` flags;
/// returns the process (killed when dropped) and its address once it says where it runs.
pub async fn spawn_server(static_dir: &Path, db: &str, extra: &[&str]) -> (Child, SocketAddr) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mill-server"))
        .args(["--addr", "127.0.0.1:0", "--rooms-per-minute", "0"])
        .args(["--messages-per-second", "100000", "--max-conns-per-ip", "0"])
        .args(["--db", db])
        .arg("--static-dir")
        .arg(static_dir)
        // Not the repository's tb/ (the default): what scripts/test generated there
        // must not slow a test server's start.
        .arg("--tb-dir")
        .arg(static_dir)
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mill-server");
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .expect("server starts")
        .unwrap()
        .expect("a line");
    let url = line
        .strip_prefix("Mill is running at http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, url.trim_end_matches('/').parse().unwrap())
}

/// Kills a server process with SIGKILL and waits for it.
pub async fn sigkill(child: &mut Child) {
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Server {
    pub async fn start(db: &Path) -> Server {
        Server::start_with(db, |_| {}).await
    }

    pub async fn start_with(db: &Path, tune: impl FnOnce(&mut Config)) -> Server {
        let static_dir = db.parent().unwrap().join("static");
        std::fs::create_dir_all(&static_dir).unwrap();
        std::fs::write(
            static_dir.join("index.html"),
            "<!doctype html><title>Mill</title>",
        )
        .unwrap();
        std::fs::write(
            static_dir.join("rules.html"),
            "<!doctype html><title>Rules</title>",
        )
        .unwrap();
        let mut config = Config::new(target(db).await, static_dir);
        // Tests play as fast as they can; the throttling test sets its own limits.
        config.rooms_per_minute = 0;
        config.messages_per_second = 10_000;
        tune(&mut config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            mill_server::run(listener, config, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        Server {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn with_clock(config: &mut Config, clock: Arc<dyn Clock>) {
        config.clock = clock;
    }

    /// Graceful stop; returns when the server has closed the database.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(PATIENCE, self.task.take().unwrap())
            .await
            .expect("server stops")
            .unwrap();
    }

    pub async fn http(&self, method: &str, path: &str) -> (u16, Value) {
        http(self.addr, method, path).await
    }

    /// Creates a room: (room id, light key).
    pub async fn create(&self) -> (String, String) {
        let (status, body) = self.http("POST", "/api/rooms").await;
        assert_eq!(status, 201, "{body}");
        (
            body["room"].as_str().unwrap().to_string(),
            body["key"].as_str().unwrap().to_string(),
        )
    }

    /// Joins a room: the dark key.
    pub async fn join(&self, room: &str) -> String {
        let (status, body) = self.http("POST", &format!("/api/rooms/{room}/join")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["seat"], "dark");
        body["key"].as_str().unwrap().to_string()
    }

    /// A room with both seats connected: (room, light, dark).
    pub async fn table(&self) -> (String, Client, Client) {
        let (room, light_key) = self.create().await;
        let dark_key = self.join(&room).await;
        let mut light = Client::hello(self.addr, &room, Some(&light_key)).await;
        let mut dark = Client::hello(self.addr, &room, Some(&dark_key)).await;
        // wait until each sees both seats online
        light.state_where(|s| s["seats"]["dark"]["online"] == true).await;
        dark.state_where(|s| s["seats"]["light"]["online"] == true).await;
        (room, light, dark)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// One HTTP/1.1 request with `Connection: close`; returns the status and JSON body
/// (or the body as a string when it is not JSON).
pub async fn http(addr: SocketAddr, method: &str, path: &str) -> (u16, Value) {
    request(addr, method, path, "").await
}

/// [`http`] with a JSON request body.
pub async fn request(addr: SocketAddr, method: &str, path: &str, json_body: &str) -> (u16, Value) {
    let a = call(addr, method, path, &[], json_body).await;
    (a.status, a.body)
}

/// One answer in full: the status, the headers (names in lower case), the session token
/// its cookie sets (if any; "" when it clears it) and the JSON body (or the body as a
/// string when it is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub token: Option<String>,
    pub body: Value,
}

impl Answer {
    /// The first header named `name` (in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The session token the answer's cookie sets ("" when it clears it).
    pub fn session(&self) -> String {
        self.token.clone().expect("a session cookie")
    }
}

/// One HTTP/1.1 request with `Connection: close` and extra headers (`Cookie`, `Origin`,
/// …), answered in full.
pub async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let extra: String = headers.iter().map(|(n, v)| format!("{n}: {v}\r\n")).collect();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .expect("http answer")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let token = headers
        .iter()
        .filter(|(n, _)| n == "set-cookie")
        .find_map(|(_, v)| v.strip_prefix("mill_session="))
        .map(|v| v.split(';').next().unwrap().to_string());
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_string()
    };
    let body = serde_json::from_str(&body).unwrap_or(Value::String(body));
    Answer {
        status,
        headers,
        token,
        body,
    }
}

/// [`call`] with the cookie of session `token`, if any.
pub async fn call_as(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: &str) -> Answer {
    let cookie = token.map(session_cookie);
    let headers: Vec<(&str, &str)> = cookie.iter().map(|(n, v)| (*n, v.as_str())).collect();
    call(addr, method, path, &headers, body).await
}

/// The `Cookie` header that carries session `token`.
pub fn session_cookie(token: &str) -> (&'static str, String) {
    ("Cookie", format!("mill_session={token}"))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub seat: Value,
    pub last: Value,
    next_id: u32,
    prefix: String,
}

/// What a socket's end looked like.
#[derive(Debug, PartialEq)]
pub enum End {
    Closed(Option<u16>),
}

impl Client {
    pub async fn connect(addr: SocketAddr, room: &str) -> Client {
        Client::try_connect(addr, room).await.expect("ws connect")
    }

    /// Connects, or `None` if the server is not there.
    pub async fn try_connect(addr: SocketAddr, room: &str) -> Option<Client> {
        let url = format!("ws://{addr}/api/rooms/{room}/ws");
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(url))
            .await
            .ok()?
            .ok()?;
        Some(Client {
            ws,
            seat: Value::Null,
            last: Value::Null,
            next_id: 0,
            prefix: format!("{:08x}", rand_u32()),
        })
    }

    /// Connects with these extra request headers (a session cookie, an `Origin`).
    pub async fn connect_with(addr: SocketAddr, room: &str, headers: &[(&str, &str)]) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/api/rooms/{room}/ws")
            .into_client_request()
            .unwrap();
        for (name, value) in headers {
            request.headers_mut().insert(
                tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(request))
            .await
            .expect("ws connect in time")
            .expect("ws connect");
        Client {
            ws,
            seat: Value::Null,
            last: Value::Null,
            next_id: 0,
            prefix: format!("{:08x}", rand_u32()),
        }
    }

    /// Connects and says hello; waits for welcome and the first state.
    pub async fn hello(addr: SocketAddr, room: &str, key: Option<&str>) -> Client {
        let mut c = Client::connect(addr, room).await;
        c.send(json!({"type": "hello", "protocol": 1, "key": key})).await;
        let welcome = c.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        c.seat = welcome["seat"].clone();
        let state = c.recv().await;
        assert_eq!(state["type"], "state", "{state}");
        c.last = state;
        c
    }

    /// [`Client::hello`] for a server that may die at any moment: `None` if it does.
    pub async fn try_hello(addr: SocketAddr, room: &str, key: Option<&str>) -> Option<Client> {
        let mut c = Client::try_connect(addr, room).await?;
        c.try_send(json!({"type": "hello", "protocol": 1, "key": key}))
            .await?;
        let welcome = c.try_recv().await?;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        c.seat = welcome["seat"].clone();
        let state = c.try_recv().await?;
        assert_eq!(state["type"], "state", "{state}");
        Some(c)
    }

    /// Sends, or `None` if the socket is gone.
    pub async fn try_send(&mut self, v: Value) -> Option<()> {
        self.ws.send(Message::Text(v.to_string().into())).await.ok()
    }

    /// The next JSON message, or `None` once the socket is closed, broken or quiet for
    /// [`PATIENCE`]; remembers states.
    pub async fn try_recv(&mut self) -> Option<Value> {
        loop {
            let msg = tokio::time::timeout(PATIENCE, self.ws.next()).await.ok()??.ok()?;
            match msg {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(&t).ok()?;
                    if v["type"] == "state" {
                        self.last = v.clone();
                    }
                    return Some(v);
                }
                Message::Close(_) => return None,
                _ => {}
            }
        }
    }

    /// The answer to command `id`, ack or error, keeping the states that pass by.
    pub async fn answer(&mut self, id: &str) -> Value {
        loop {
            let v = self.recv().await;
            if matches!(v["type"].as_str(), Some("ack" | "error")) && v["id"] == id {
                return v;
            }
        }
    }

    pub async fn send(&mut self, v: Value) {
        self.send_text(v.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::Text(text.into())).await.unwrap();
    }

    pub async fn send_binary(&mut self, data: Vec<u8>) {
        self.ws.send(Message::Binary(data.into())).await.unwrap();
    }

    /// The next JSON message (pings answered by the library); remembers states.
    pub async fn recv(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a message in time")
                .expect("socket open")
                .expect("socket ok");
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] == "state" {
                    self.last = v.clone();
                }
                return v;
            }
            if let Message::Close(frame) = msg {
                panic!("socket closed: {frame:?}");
            }
        }
    }

    /// Messages until the socket closes; returns them and the close code.
    pub async fn until_closed(&mut self) -> (Vec<Value>, Option<u16>) {
        let mut seen = Vec::new();
        loop {
            let msg = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("close in time");
            match msg {
                Some(Ok(Message::Text(t))) => seen.push(serde_json::from_str(&t).unwrap()),
                Some(Ok(Message::Close(frame))) => {
                    return (seen, frame.map(|f| u16::from(f.code)));
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return (seen, None),
            }
        }
    }

    /// Skips messages until one of type `kind`.
    pub async fn expect(&mut self, kind: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == kind {
                return v;
            }
            assert_ne!(v["type"], "error", "expected {kind}, got {v}");
        }
    }

    /// The next error (skipping states).
    pub async fn error(&mut self) -> Value {
        loop {
            let v = self.recv().await;
            match v["type"].as_str() {
                Some("error") => return v,
                Some("state") => continue,
                _ => panic!("expected an error, got {v}"),
            }
        }
    }

    /// Waits for a state that satisfies `f` (the last one counts too).
    pub async fn state_where(&mut self, f: impl Fn(&Value) -> bool) -> Value {
        if f(&self.last) {
            return self.last.clone();
        }
        loop {
            let v = self.recv().await;
            if v["type"] == "state" && f(&v) {
                return v;
            }
        }
    }

    /// A command message `kind` with client id `id` on the last state's round and
    /// version, with `action` if given.
    pub fn message(&self, kind: &str, id: &str, action: Option<&str>) -> Value {
        let mut msg =
            json!({"type": kind, "id": id, "round": self.last["round"], "version": self.last["version"]});
        if let Some(a) = action {
            msg["action"] = json!(a);
        }
        msg
    }

    pub fn fresh_id(&mut self) -> String {
        self.next_id += 1;
        format!("{}-{}", self.prefix, self.next_id)
    }

    /// A command on the last state's round and version; returns its id.
    pub async fn command(&mut self, kind: &str, extra: Value) -> String {
        let id = self.fresh_id();
        let mut msg = json!({
            "type": kind,
            "id": id,
            "round": self.last["round"],
            "version": self.last["version"],
        });
        if let (Some(m), Some(e)) = (msg.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                m.insert(k.clone(), v.clone());
            }
        }
        self.send(msg).await;
        id
    }

    /// Plays an action and waits for its ack; returns the ack.
    pub async fn play(&mut self, action: &str) -> Value {
        let id = self.command("action", json!({ "action": action })).await;
        let ack = self.expect("ack").await;
        assert_eq!(ack["id"], id.as_str());
        ack
    }

    /// Sends a command and waits for its ack.
    pub async fn ok(&mut self, kind: &str) -> Value {
        let id = self.command(kind, json!({})).await;
        let ack = self.expect("ack").await;
        assert_eq!(ack["id"], id.as_str());
        ack
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// A legal action from a state's legal sets, chosen with `pick`.
pub fn legal_action(state: &Value, mut pick: impl FnMut(usize) -> usize) -> Option<String> {
    let legal = state.get("legal")?.as_object()?;
    let turn = state["turn"].as_str()?;
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    if state["pending_removals"].as_u64()? > 0 {
        let r = strings(&legal["removable"]);
        return Some(format!("x{}", r[pick(r.len())]));
    }
    let selectable = strings(&legal["selectable"]);
    if selectable.is_empty() {
        return None;
    }
    if state["phase"][turn] == "placing" {
        return Some(selectable[pick(selectable.len())].clone());
    }
    let from = &selectable[pick(selectable.len())];
    let to = strings(&legal["destinations"][from]);
    Some(format!("{from}-{}", to[pick(to.len())]))
}

/// A small deterministic generator for picking moves.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407))
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn rand_u32() -> u32 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let n = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    n ^ (std::process::id() << 8)
}

/// The number of measured actions in `mill-load`'s report.
pub fn measured_actions(report: &str) -> i64 {
    report
        .split(" actions in ")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an action count in {report}"))
}

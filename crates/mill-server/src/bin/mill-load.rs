//! `mill-load`: a load generator for `mill-server`. It opens many rooms, connects two
//! WebSocket clients to each, and has them play random legal games (chosen from the
//! legal sets in each state) with a think time between actions. It reports rooms,
//! sockets, actions per second, and the time from sending an action to the opponent
//! receiving the state that shows it (p50/p90/p99/max).
//!
//! Only for servers you run yourself on this machine (default 127.0.0.1:8080). Start
//! the server with `--rooms-per-minute 0` so room creation is not throttled.
//!
//! `mill-load seed --db FILE --rooms N` instead writes N stored rooms (both seats taken,
//! a few random legal actions each) straight into a SQLite file and exits: the set-up
//! for the start-up time and memory figures with many stored rooms.
//!
//! `mill-load pair --seekers 1000 --seconds 60 [--addr A --addr B]` measures quick
//! pairing: the seekers arrive at random moments over the given seconds (each on address
//! i mod N, in one of the seven preset time controls of Nine Men's Morris) and each holds
//! a `POST /api/pair` until it is answered; for every room made it reports the time from
//! the second seeker's arrival to the later of the two answers (p50/p90/p99/max). Start
//! the servers with `--rooms-per-minute 0 --max-conns-per-ip 0`.
//!
//! With `--server-pid PID` (once per instance) it also prints the CPU time spent per
//! action during the measured seconds, by the servers together and by mill-load itself
//! (from /proc/PID/stat and /proc/self/stat): on a machine that runs both, their sum is
//! what bounds the rate.
//!
//! `--clocks 600+5` puts that time control (initial and increment seconds) on every
//! room, so throughput and p99 with and without clocks can be compared.
//!
//! `mill-load flag-delay --rooms N` measures how late the flag falls: N rooms on a
//! 15-second clock (both seats connected) make their first turns and then let Light's
//! time run out; it reports, per room, when the timeout was stored (the state's `at`,
//! the server's clock) and when the page saw it (this process's clock), after the time
//! was up and after the flag's deadline (the time plus the lag quota, see
//! timecontrol.rs), as p50/p99/max.
//!
//! `mill-load spectators --watchers 5000 --moves-per-second 2 --seconds 60` measures
//! fan-out: one room, its two players moving at the given rate, and N watchers each on
//! its own socket. For every action it takes the time from its send to the last watcher
//! receiving the state that shows it (p50/p99/max), and counts the watchers that missed
//! a state or were dropped. With `--server-pid PID` it prints the server's resident
//! memory (VmRSS, and its peak VmHWM) from /proc/PID/status once every watcher is on,
//! and at the end. Start the server with `--max-conns-per-ip 0` (and `--max-spectators`
//! and `--max-conns` at least N).
//!
//! Three modes make their accounts straight in the server's database (`--db`, the
//! server's own; mill-load/accounts.rs) and then go through the API as the page does:
//! `mill-load sign-in` (argon2id's cost and `POST /api/session` at a steady rate),
//! `mill-load rated-pair` (rated quick pairing with ratings spread over a range,
//! mill-load/rated.rs) and `mill-load arena` (one arena of bot players and watchers,
//! mill-load/arena.rs). `scripts/measure-accounts-load` starts a release server and runs
//! them; each file's documentation says what it measures.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use mill_server::protocol::{ClientMsg, Command, ErrorCode, PROTOCOL, ServerType};
use mill_server::ws::SOCKET_BUFFER;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Barrier, Semaphore};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
#[path = "mill-load/accounts.rs"]
mod accounts;
#[path = "mill-load/arena.rs"]
mod arena;
#[path = "mill-load/flag_delay.rs"]
mod flag_delay;
#[path = "mill-load/pair.rs"]
mod pair;
#[path = "mill-load/rated.rs"]
mod rated;
#[path = "mill-load/spectators.rs"]
mod spectators;
#[path = "mill-load/stats.rs"]
mod stats;
use flag_delay::flag_delay;
use pair::pair_load;
use spectators::{Watch, spectators};

/// jemalloc instead of the system allocator: a profile under load found a quarter of the
/// server's CPU in glibc's malloc and free, and the load generator's too (PERFORMANCE.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Many rooms × two clients playing random legal games against a mill-server.
#[derive(Debug, Parser)]
#[command(args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Server address (host:port), on this machine. Repeat it for several instances of
    /// one server: room i is created and played by Light on address i mod N, and
    /// joined and played by Dark on the next one, so the two seats of a room are on
    /// different instances.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: Vec<SocketAddr>,
    /// Rooms to open (two sockets each).
    #[arg(long, default_value_t = 100)]
    rooms: usize,
    /// Seconds of measured play after every socket is connected.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// Mean think time before each action, in milliseconds (uniform 0.5×–1.5×).
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// Rooms being set up at the same time.
    #[arg(long, default_value_t = 64)]
    setup_concurrency: usize,
    /// A time control on every room: `INITIAL+INCREMENT` in seconds (e.g. `600+5`);
    /// untimed rooms without it.
    #[arg(long, value_parser = parse_clock)]
    clocks: Option<(u32, u32)>,
    /// The servers' process ids (repeatable): their CPU time per action is printed.
    #[arg(long)]
    server_pid: Vec<u32>,
}

/// CPU time (user + system) a process has used, in seconds, from /proc/…/stat (`None`
/// when unreadable). The fields after the command name, which may hold spaces, are
/// counted from its closing parenthesis; times are in USER_HZ ticks, 100 a second on Linux.
fn cpu_seconds(stat: &str) -> Option<f64> {
    let text = std::fs::read_to_string(stat).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line; 12 and 13 after the name.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// The servers' and this process's CPU seconds so far.
fn cpu_now(pids: &[u32]) -> (Option<f64>, Option<f64>) {
    let servers = pids
        .iter()
        .map(|pid| cpu_seconds(&format!("/proc/{pid}/stat")))
        .sum::<Option<f64>>();
    (servers, cpu_seconds("/proc/self/stat"))
}

/// Reads `600+5` (initial and increment seconds).
fn parse_clock(text: &str) -> Result<(u32, u32), String> {
    let (initial, increment) = text.split_once('+').unwrap_or((text, "0"));
    let number = |t: &str| t.trim().parse::<u32>().map_err(|e| format!("{text:?}: {e}"));
    Ok((number(initial)?, number(increment)?))
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Writes stored rooms straight into a SQLite database file, then exits.
    Seed {
        /// The database file (created and migrated if missing).
        #[arg(long)]
        db: std::path::PathBuf,
        /// Rooms to write.
        #[arg(long, default_value_t = 100_000)]
        rooms: usize,
        /// Random legal actions per room (placing phase: at most 18 placements).
        #[arg(long, default_value_t = 12)]
        actions: usize,
    },
    /// Quick pairing: seekers arriving over a span of time, each held until paired.
    Pair {
        /// Server address (host:port) on this machine; repeat it for several instances
        /// (seeker i goes to address i mod N).
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: Vec<SocketAddr>,
        /// Seekers in all.
        #[arg(long, default_value_t = 1000)]
        seekers: usize,
        /// Seconds over which they arrive (uniformly at random).
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        /// Time controls used, from the first of the presets (1 to 7).
        #[arg(long, default_value_t = 7)]
        pools: usize,
    },
    /// One room watched by many sockets: the time from an action's send to the last
    /// watcher receiving it (p50/p99/max).
    Spectators {
        /// Server address (host:port), on this machine.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// Watchers, each on its own socket.
        #[arg(long, default_value_t = 1000)]
        watchers: usize,
        /// Actions the two players make per second, together.
        #[arg(long, default_value_t = 2.0)]
        moves_per_second: f64,
        /// Seconds of measured play after every watcher is on.
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        /// Watchers connecting at the same time.
        #[arg(long, default_value_t = 64)]
        setup_concurrency: usize,
        /// The server's process id: its resident memory is printed from /proc.
        #[arg(long)]
        server_pid: Option<u32>,
    },
    /// Rooms on a 15-second clock let Light's time run out; prints how late the flag
    /// fell (p50/p99/max).
    FlagDelay {
        /// Server address (host:port), on this machine.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// Rooms (two sockets each), all on the clock at once.
        #[arg(long, default_value_t = 100)]
        rooms: usize,
        /// Rooms being set up at the same time.
        #[arg(long, default_value_t = 64)]
        setup_concurrency: usize,
    },
    /// Signs in to accounts made first, at a steady rate: argon2id's cost, each
    /// answer's time and the server's CPU per sign-in.
    SignIn(accounts::SignIn),
    /// Rated quick pairing of seekers with ratings spread over a range: each answer's
    /// time and how far apart the pairs' ratings were.
    RatedPair(rated::RatedPair),
    /// One arena of bots playing over the real protocol, watched by many sockets: the
    /// pairing delay, the standings' reach and the server's CPU and memory.
    Arena(arena::ArenaRun),
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens a client socket with the server's buffer size ([`SOCKET_BUFFER`]): at
/// tungstenite's default 128 KiB, zeroing the read buffer before every read was a
/// quarter of mill-load's CPU, taken from the server it measures on the cores they
/// share.
async fn ws_connect(request: impl IntoClientRequest + Unpin) -> anyhow::Result<Ws> {
    let config = WebSocketConfig::default()
        .read_buffer_size(SOCKET_BUFFER)
        .write_buffer_size(SOCKET_BUFFER);
    let (ws, _) = tokio_tungstenite::connect_async_with_config(request, Some(config), true).await?;
    Ok(ws)
}

/// The type of a server message, if it is one.
fn kind(v: &Value) -> Option<ServerType> {
    v["type"].as_str()?.parse().ok()
}

/// A command's frame, made on the `round` and `version` of a state (JSON numbers).
fn command(id: String, round: &Value, version: &Value, command: Command) -> Message {
    let number = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
    let msg = ClientMsg::Command {
        id,
        round: number(round),
        version: number(version),
        command,
    };
    Message::Text(msg.to_text().into())
}

/// Writes `rooms` rooms with `actions` random legal placements (and removals) each.
fn seed(db: &std::path::Path, rooms: usize, actions: usize) -> anyhow::Result<()> {
    use mill_core::{Action, Game, Variant};
    use mill_server::keys;
    let started = Instant::now();
    let mut conn = mill_server::store::open_sqlite_file(db).context("open the database")?;
    let mut rng = rand::rngs::StdRng::from_rng(&mut rand::rng());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as i64;
    let mut written = 0usize;
    while written < rooms {
        let tx = conn.transaction()?;
        for _ in 0..(rooms - written).min(10_000) {
            let id = keys::new_room_id();
            tx.prepare_cached(
                "INSERT INTO rooms (id, variant, created_at, active_at) VALUES (?1, 'nine', ?2, ?2)",
            )?
            .execute(rusqlite::params![id, now])?;
            for color in ["light", "dark"] {
                let hash = keys::hash_key(&keys::new_seat_key());
                tx.prepare_cached(
                    "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(rusqlite::params![id, color, &hash[..], now])?;
            }
            let mut game = Game::new(Variant::Nine);
            for seq in 0..actions.min(18) {
                let position = *game.position();
                let seat = match position.turn() {
                    mill_core::Color::Light => "light",
                    mill_core::Color::Dark => "dark",
                };
                let points: Vec<_> = if position.pending_removals() > 0 {
                    game.removable().iter().collect()
                } else {
                    game.selectable().iter().collect()
                };
                let Some(&p) = points.get(rng.random_range(0..points.len().max(1))) else {
                    break;
                };
                let action = if position.pending_removals() > 0 {
                    Action::Remove { at: p }
                } else {
                    Action::Place { to: p }
                };
                game.play_action(action)?;
                tx.prepare_cached(
                    "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
                     VALUES (?1, 1, ?2, ?3, 'action', ?4, ?5, ?6)",
                )?
                .execute(rusqlite::params![
                    id,
                    seq,
                    seat,
                    action.to_text(position.topology()),
                    format!("seed-{seq}"),
                    now
                ])?;
            }
        }
        tx.commit()?;
        written += (rooms - written).min(10_000);
    }
    println!(
        "wrote {rooms} rooms ({} actions each) to {} in {:.1} s",
        actions.min(18),
        db.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Default)]
struct Totals {
    actions: AtomicU64,
    rounds: AtomicU64,
    errors: AtomicU64,
    dropped: AtomicU64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = Args::parse();
    match args.command.take() {
        Some(Sub::Seed { db, rooms, actions }) => return seed(&db, rooms, actions),
        Some(Sub::SignIn(run)) => return accounts::sign_in(run).await,
        Some(Sub::RatedPair(run)) => return rated::rated_pair(run).await,
        Some(Sub::Arena(run)) => return arena::arena(run).await,
        other => args.command = other,
    }
    if let Some(Sub::FlagDelay {
        addr,
        rooms,
        setup_concurrency,
    }) = &args.command
    {
        return flag_delay(*addr, *rooms, *setup_concurrency).await;
    }
    if let Some(Sub::Spectators {
        addr,
        watchers,
        moves_per_second,
        seconds,
        setup_concurrency,
        server_pid,
    }) = &args.command
    {
        let run = Watch {
            watchers: *watchers,
            rate: *moves_per_second,
            seconds: *seconds,
            concurrency: *setup_concurrency,
            server_pid: *server_pid,
        };
        return spectators(*addr, run).await;
    }
    if args.addr.iter().any(|a| !a.ip().is_loopback()) {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    if let Some(Sub::Pair {
        addr,
        seekers,
        seconds,
        pools,
    }) = &args.command
    {
        if addr.iter().any(|a| !a.ip().is_loopback()) {
            bail!("mill-load only targets a server on this machine (a loopback address)");
        }
        return pair_load(addr, *seekers, *seconds, *pools).await;
    }
    let totals = Arc::new(Totals::default());
    let ready = Arc::new(Barrier::new(args.rooms + 1));
    let setup = Arc::new(Semaphore::new(args.setup_concurrency.max(1)));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(args.rooms);
    for i in 0..args.rooms {
        let (ready, setup, totals) = (ready.clone(), setup.clone(), totals.clone());
        let n = args.addr.len();
        let addrs = [args.addr[i % n], args.addr[(i + 1) % n]];
        let think = Duration::from_millis(args.think_ms);
        let clock = args
            .clocks
            .map(|(initial, increment)| json!({"initial": initial, "increment": increment}));
        tasks.push(tokio::spawn(async move {
            let permit = setup.acquire_owned().await.expect("semaphore open");
            let table = open_table(addrs, clock).await;
            drop(permit);
            let table = match table {
                Ok(t) => Some(t),
                Err(e) => {
                    if i == 0 {
                        eprintln!("set-up failed: {e:#}");
                    }
                    totals.errors.fetch_add(1, Ordering::Relaxed);
                    None
                }
            };
            match table {
                Some(mut t) => {
                    // Keep reading while the other rooms are set up: the server drops a
                    // socket that answers no ping for 30 s, and set-up may take longer.
                    let wait = ready.wait();
                    tokio::pin!(wait);
                    let alive = loop {
                        let [light, dark] = &mut t.seats;
                        tokio::select! {
                            _ = &mut wait => break true,
                            m = next_json(light) => match m {
                                Ok(v) if kind(&v) == Some(ServerType::State) => t.last[0] = Arc::new(v),
                                Ok(_) => {}
                                Err(_) => break false,
                            },
                            m = next_json(dark) => match m {
                                Ok(v) if kind(&v) == Some(ServerType::State) => t.last[1] = Arc::new(v),
                                Ok(_) => {}
                                Err(_) => break false,
                            },
                        }
                    };
                    if !alive {
                        totals.dropped.fetch_add(1, Ordering::Relaxed);
                        wait.await;
                        return Vec::new();
                    }
                    play(t, think, totals).await
                }
                None => {
                    ready.wait().await;
                    Vec::new()
                }
            }
        }));
    }
    ready.wait().await;
    let setup_secs = started.elapsed().as_secs_f64();
    let failed = totals.errors.swap(0, Ordering::Relaxed);
    println!(
        "set up {} rooms ({} sockets) in {setup_secs:.1} s; {failed} failed",
        args.rooms - failed as usize,
        2 * (args.rooms - failed as usize)
    );
    let measure = Instant::now();
    let actions_before = totals.actions.load(Ordering::Relaxed);
    let cpu_before = cpu_now(&args.server_pid);
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let cpu_after = cpu_now(&args.server_pid);
    let measured = totals.actions.load(Ordering::Relaxed) - actions_before;
    STOP.store(true, Ordering::Relaxed);
    let elapsed = measure.elapsed().as_secs_f64();
    let actions = totals.actions.load(Ordering::Relaxed);
    let mut latencies: Vec<u32> = Vec::new();
    for t in tasks {
        latencies.extend(t.await.unwrap_or_default());
    }
    latencies.sort_unstable();
    let pct = |p: f64| -> f64 {
        if latencies.is_empty() {
            return f64::NAN;
        }
        let i = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        f64::from(latencies[i]) / 1000.0
    };
    println!(
        "rooms {} | sockets {} | {} actions in {elapsed:.1} s = {:.0} actions/s | rounds finished {} | errors {} | sockets dropped {}",
        args.rooms - failed as usize,
        2 * (args.rooms - failed as usize),
        actions,
        actions as f64 / elapsed,
        totals.rounds.load(Ordering::Relaxed),
        totals.errors.load(Ordering::Relaxed),
        totals.dropped.load(Ordering::Relaxed),
    );
    println!(
        "action -> opponent's update: p50 {:.1} ms | p90 {:.1} ms | p99 {:.1} ms | max {:.1} ms ({} samples)",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0),
        latencies.len()
    );
    if !args.server_pid.is_empty() && measured > 0 {
        let per = |before: Option<f64>, after: Option<f64>| match (before, after) {
            (Some(b), Some(a)) => format!("{:.0} µs", (a - b) * 1e6 / measured as f64),
            _ => "unreadable".to_string(),
        };
        println!(
            "CPU per action: servers {} | mill-load {} ({measured} actions)",
            per(cpu_before.0, cpu_after.0),
            per(cpu_before.1, cpu_after.1),
        );
    }
    Ok(())
}

static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

struct Table {
    seats: [Ws; 2],
    /// Each seat's last state, shared with the turn played from it (no copy per turn).
    last: [Arc<Value>; 2],
}

async fn http(addr: SocketAddr, method: &str, path: &str) -> anyhow::Result<Value> {
    http_body(addr, method, path, "").await
}

/// [`http`] with a JSON body.
async fn http_body(addr: SocketAddr, method: &str, path: &str, body: &str) -> anyhow::Result<Value> {
    let (status, head, body) = exchange(addr, method, path, body).await?;
    if !(200..300).contains(&status) {
        bail!("{method} {path}: {head} {body}");
    }
    Ok(serde_json::from_str(&body)?)
}

/// One HTTP/1.1 request with a JSON body and `Connection: close`: the status (0 if
/// unreadable), the head and the body of the answer.
async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> anyhow::Result<(u16, String, String)> {
    exchange_as(addr, method, path, None, body).await
}

/// [`exchange`] with a `Cookie` header (`name=value`), if any.
async fn exchange_as(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> anyhow::Result<(u16, String, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{cookie}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").context("an HTTP answer")?;
    let status = head.split(' ').nth(1).unwrap_or("").parse().unwrap_or(0);
    Ok((status, head.to_string(), body.to_string()))
}

/// Says hello on a room's socket (with seat `key`, or as a spectator without one) and
/// reads the welcome; an error if the hello is refused.
async fn hello(ws: &mut Ws, key: Option<String>) -> anyhow::Result<()> {
    let hello = ClientMsg::Hello {
        protocol: PROTOCOL,
        key,
        account: false,
    };
    ws.send(Message::Text(hello.to_text().into())).await?;
    let welcome = next_json(ws).await?;
    anyhow::ensure!(
        kind(&welcome) == Some(ServerType::Welcome),
        "hello refused: {welcome}"
    );
    Ok(())
}

async fn next_json(ws: &mut Ws) -> anyhow::Result<Value> {
    loop {
        match ws.next().await.context("socket closed")?? {
            Message::Text(t) => return Ok(serde_json::from_str::<Pruned>(&t)?.0),
            Message::Close(f) => bail!("closed by the server: {f:?}"),
            _ => {}
        }
    }
}

/// The top-level fields of a server message that no mode of mill-load reads: the state's
/// lists that grow with the game (`actions`, `record`) and its board, which the legal
/// sets already tell. They are skipped while parsing, not built into a [`Value`]: building
/// and dropping them was about half of mill-load's CPU, which shares the machine with the
/// server it measures.
const UNREAD: &[&str] = &[
    "actions",
    "record",
    "pieces",
    "position",
    "in_hand",
    "on_board",
    "last_turn",
    "last_turn_actions",
    "last_action",
    "closed_mills",
    "quiet_turns",
    "offers",
    "spectators",
];

/// A server message as a JSON object without its [`UNREAD`] fields.
struct Pruned(Value);

impl<'de> serde::Deserialize<'de> for Pruned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Pruned;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Pruned, A::Error> {
                let mut kept = serde_json::Map::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if UNREAD.contains(&key.as_ref()) {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    } else {
                        kept.insert(key.into_owned(), map.next_value()?);
                    }
                }
                Ok(Pruned(Value::Object(kept)))
            }
        }
        d.deserialize_map(Fields)
    }
}

/// A room created on `addrs[0]` (with the time control `clock`, if any) and joined on
/// `addrs[1]`, each seat's socket on the address it came from.
async fn open_table(addrs: [SocketAddr; 2], clock: Option<Value>) -> anyhow::Result<Table> {
    let created = match clock {
        Some(clock) => {
            http_body(
                addrs[0],
                "POST",
                "/api/rooms",
                &json!({ "clock": clock }).to_string(),
            )
            .await?
        }
        None => http(addrs[0], "POST", "/api/rooms").await?,
    };
    let room = created["room"].as_str().context("room id")?.to_string();
    let joined = http(addrs[1], "POST", &format!("/api/rooms/{room}/join")).await?;
    let mut seats = Vec::new();
    let mut last = Vec::new();
    for (addr, key) in addrs.into_iter().zip([&created["key"], &joined["key"]]) {
        let url = format!("ws://{addr}/api/rooms/{room}/ws");
        let mut ws = ws_connect(url).await?;
        hello(&mut ws, key.as_str().map(str::to_string)).await?;
        last.push(Arc::new(next_json(&mut ws).await?));
        seats.push(ws);
    }
    let mut table = Table {
        seats: seats.try_into().map_err(|_| anyhow::anyhow!("two seats"))?,
        last: last.try_into().map_err(|_| anyhow::anyhow!("two states"))?,
    };
    // wait until both see both seats online
    for i in 0..2 {
        while !(table.last[i]["seats"]["light"]["online"] == true
            && table.last[i]["seats"]["dark"]["online"] == true)
        {
            let v = next_json(&mut table.seats[i]).await?;
            if kind(&v) == Some(ServerType::State) {
                table.last[i] = Arc::new(v);
            }
        }
    }
    Ok(table)
}

/// A random legal action from the legal sets of `state`.
fn pick(state: &Value, rng: &mut impl Rng) -> Option<String> {
    let legal = state.get("legal")?.as_object()?;
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    let mut one = |v: &[String]| v.get(rng.random_range(0..v.len().max(1))).cloned();
    if state["pending_removals"].as_u64()? > 0 {
        return one(&names(&legal["removable"])).map(|p| format!("x{p}"));
    }
    let selectable = names(&legal["selectable"]);
    let turn = state["turn"].as_str()?;
    if state["phase"][turn] == "placing" {
        return one(&selectable);
    }
    let from = one(&selectable)?;
    let to = one(&names(&legal["destinations"][&from]))?;
    Some(format!("{from}-{to}"))
}

/// Plays until STOP; returns latencies in microseconds.
async fn play(mut t: Table, think: Duration, totals: Arc<Totals>) -> Vec<u32> {
    let mut rng = rand::rngs::StdRng::from_rng(&mut rand::rng());
    let mut latencies = Vec::new();
    let mut n = 0u64;
    let prefix: u32 = rng.random();
    while !STOP.load(Ordering::Relaxed) {
        let state = t.last[0].clone();
        n += 1;
        let id = format!("{prefix:x}-{n}");
        if !state["result"].is_null() {
            totals.rounds.fetch_add(1, Ordering::Relaxed);
            for i in 0..2 {
                let msg = command(
                    format!("{id}-{i}"),
                    &state["round"],
                    &state["version"],
                    Command::NewRound,
                );
                if t.seats[i].send(msg).await.is_err() {
                    totals.dropped.fetch_add(1, Ordering::Relaxed);
                    return latencies;
                }
            }
            let round = json!(state["round"].as_u64().unwrap_or(0) + 1);
            if wait_for_round(&mut t, &round, &id, &totals).await.is_err() {
                totals.dropped.fetch_add(1, Ordering::Relaxed);
                return latencies;
            }
            continue;
        }
        let jitter = rng.random_range(0.5..1.5);
        tokio::time::sleep(think.mul_f64(jitter)).await;
        if STOP.load(Ordering::Relaxed) {
            break;
        }
        let mover = usize::from(state["turn"] == "dark");
        let Some(action) = pick(&state, &mut rng) else {
            totals.errors.fetch_add(1, Ordering::Relaxed);
            break;
        };
        let version = json!(state["version"].as_u64().unwrap_or(0) + 1);
        let opponent = 1 - mover;
        let sent = Instant::now();
        // With clocks on two instances, a seat's presence stored by the other instance
        // can take the place an action was sent for: it is answered `stale` at the same
        // round and version, and sent again (as a page would).
        let mut again = 0;
        loop {
            let msg = command(
                format!("{id}-{again}"),
                &state["round"],
                &state["version"],
                Command::Action(action.clone()),
            );
            if t.seats[mover].send(msg).await.is_err() {
                totals.dropped.fetch_add(1, Ordering::Relaxed);
                return latencies;
            }
            match answer(&mut t, mover, &state, &totals).await {
                Answer::Stale if again < 3 => again += 1,
                Answer::Acked => break,
                Answer::Stale | Answer::Failed => {
                    totals.dropped.fetch_add(1, Ordering::Relaxed);
                    return latencies;
                }
            }
        }
        if wait_for(&mut t, opponent, &state["round"], &version, &totals)
            .await
            .is_err()
        {
            totals.dropped.fetch_add(1, Ordering::Relaxed);
            return latencies;
        }
        latencies.push(sent.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
        totals.actions.fetch_add(1, Ordering::Relaxed);
        if wait_for(&mut t, mover, &state["round"], &version, &totals)
            .await
            .is_err()
        {
            totals.dropped.fetch_add(1, Ordering::Relaxed);
            return latencies;
        }
    }
    for ws in &mut t.seats {
        let _ = ws.close(None).await;
    }
    latencies
}

/// Reads both seats until round `round` has begun on each. Both seats ask for the new
/// round at once; on two instances the two requests may race for the same place and
/// the loser is answered `stale` (as it should be), so a seat answered `stale` asks
/// again at the round and version the error reports. Both seats are read at once: the
/// one that asks again is not the one that would otherwise be waited for.
async fn wait_for_round(t: &mut Table, round: &Value, id: &str, totals: &Totals) -> anyhow::Result<()> {
    let begun = |v: &Value| v["round"] == *round && v["version"] == json!(0);
    let mut tries = 0;
    while !(begun(&t.last[0]) && begun(&t.last[1])) {
        let (i, v) = {
            let [light, dark] = &mut t.seats;
            let next = async {
                tokio::select! {
                    m = next_json(light) => (0, m),
                    m = next_json(dark) => (1, m),
                }
            };
            let (i, m) = tokio::time::timeout(Duration::from_secs(30), next)
                .await
                .context("no state for 30 s")?;
            (i, m?)
        };
        let stale = v["code"] == ErrorCode::Stale.as_str();
        match kind(&v) {
            Some(ServerType::State) => t.last[i] = Arc::new(v),
            // The error carries the room's round and version as they are now.
            Some(ServerType::Error) if stale && v["round"] != *round && tries < 10 => {
                tries += 1;
                let msg = command(
                    format!("{id}-{i}-again{tries}"),
                    &v["round"],
                    &v["version"],
                    Command::NewRound,
                );
                t.seats[i].send(msg).await.context("send")?;
            }
            Some(ServerType::Error) if stale => {}
            Some(ServerType::Error) => return Err(refusal(&v, totals)),
            _ => {}
        }
    }
    Ok(())
}

/// How an action was answered.
enum Answer {
    Acked,
    /// Refused `stale` at the very round and version it was sent on: another event
    /// took its place (send it again).
    Stale,
    /// Refused otherwise (counted), or no answer.
    Failed,
}

/// Reads the mover's socket until its action is answered.
async fn answer(t: &mut Table, mover: usize, state: &Value, totals: &Totals) -> Answer {
    loop {
        let Ok(Ok(v)) = tokio::time::timeout(Duration::from_secs(30), next_json(&mut t.seats[mover])).await
        else {
            return Answer::Failed;
        };
        match kind(&v) {
            Some(ServerType::State) => t.last[mover] = Arc::new(v),
            Some(ServerType::Ack) => return Answer::Acked,
            Some(ServerType::Error) => {
                let same = v["round"] == state["round"] && v["version"] == state["version"];
                if v["code"] == ErrorCode::Stale.as_str() && same {
                    return Answer::Stale;
                }
                refusal(&v, totals);
                return Answer::Failed;
            }
            _ => {}
        }
    }
}

/// Counts and prints a refusal the load run did not expect, as the error that ends the
/// table's run.
fn refusal(v: &Value, totals: &Totals) -> anyhow::Error {
    totals.errors.fetch_add(1, Ordering::Relaxed);
    eprintln!("refused: {v}");
    anyhow::anyhow!("refused: {v}")
}

/// Reads seat `i` until its state is at `round`/`version`.
async fn wait_for(
    t: &mut Table,
    i: usize,
    round: &Value,
    version: &Value,
    totals: &Totals,
) -> anyhow::Result<()> {
    while !(t.last[i]["round"] == *round && t.last[i]["version"] == *version) {
        let v = tokio::time::timeout(Duration::from_secs(30), next_json(&mut t.seats[i]))
            .await
            .context("no state for 30 s")??;
        match kind(&v) {
            Some(ServerType::State) => t.last[i] = Arc::new(v),
            Some(ServerType::Error) => return Err(refusal(&v, totals)),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pruned_state_keeps_what_a_turn_is_picked_from() {
        let text = json!({
            "type": "state", "round": 1, "version": 2, "turn": "light",
            "phase": {"light": "placing", "dark": "placing"}, "pending_removals": 0,
            "legal": {"selectable": ["a1"], "destinations": {}, "removable": []},
            "actions": ["d6", "g7"], "record": ["d6", "g7"], "result": null,
        })
        .to_string();
        let v = serde_json::from_str::<Pruned>(&text).unwrap().0;
        assert!(v.get("actions").is_none() && v.get("record").is_none());
        assert_eq!(kind(&v), Some(ServerType::State));
        assert!(v["result"].is_null() && v.get("result").is_some());
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert_eq!(pick(&v, &mut rng).as_deref(), Some("a1"));
    }
}

//! `mill-load arena`: one arena of many players, watched by many sockets. Every player
//! is a bot over the real protocol: an account (made in the database) whose arena
//! socket hands it each game (`paired`), which it plays in the game's room with random
//! legal turns, resigning after a few of its own. Watchers hold anonymous arena
//! sockets. After a warm-up it measures, for a set time:
//!
//! - the pairing delay: from a player receiving the state that ends its game to its
//!   arena socket receiving the next `paired`;
//! - how long a game's end takes to reach the watchers: from the first of its players
//!   receiving the final state to the first and to the last watcher receiving standings
//!   that hold its result. The watchers follow the first page of the standings, as most
//!   of a site's do; probes (one on each page, the first watcher on the first) read each
//!   message whole and note the `games.played` count at which each game's result first
//!   appears; the other watchers only read that count (a count never falls, and every
//!   page's message carries it, so any message with at least that count comes from a
//!   reading that holds the result). The players' own sockets ask for no standings
//!   (`?standings=none`), as the game page's do;
//! - the server's CPU time and resident memory (with `--server-pid`).
//!
//! Start the server with `--rooms-per-minute 0 --max-conns-per-ip 0` and an open-file
//! limit above players × 2 + watchers.

use std::collections::HashMap;
use std::sync::Mutex;

use super::accounts::{LoadAccount, make_accounts, run_prefix};
use super::spectators::rss;
use super::stats::summary;
use super::*;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// What `mill-load arena` is asked to do.
#[derive(Debug, clap::Args)]
pub(super) struct ArenaRun {
    /// Server address (host:port), on this machine.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The server's database (its `--db`): the players' accounts are made in it first.
    #[arg(long)]
    db: String,
    /// Players in the arena, each a bot with its own account.
    #[arg(long, default_value_t = 1000)]
    players: usize,
    /// Anonymous watchers of the arena socket.
    #[arg(long, default_value_t = 1000)]
    watchers: usize,
    /// Seconds of play before measuring (the first pairings all come at once).
    #[arg(long, default_value_t = 30.0)]
    warmup: f64,
    /// Seconds measured.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// A player's own turns in a game before it resigns (if the game has not ended).
    #[arg(long, default_value_t = 6)]
    turns: u32,
    /// Mean think time before each turn, in milliseconds (uniform 0.5×–1.5×).
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// The arena's clock, `INITIAL+INCREMENT` in seconds.
    #[arg(long, default_value = "60+0", value_parser = parse_clock)]
    clock: (u32, u32),
    /// Sockets being opened at the same time.
    #[arg(long, default_value_t = 64)]
    setup_concurrency: usize,
    /// The server's process id: its CPU time and memory are printed.
    #[arg(long)]
    server_pid: Option<u32>,
}

/// The run's moments and what the players note.
struct Shared {
    addr: SocketAddr,
    turns: u32,
    think: Duration,
    /// The measured window.
    from: Instant,
    to: Instant,
    /// When everything stops (a grace after `to`, for the last standings).
    end: Instant,
    /// Each game's end, as first seen by one of its players.
    ends: Mutex<HashMap<String, Instant>>,
    /// Pairing delays in the window, in ms.
    delays: Mutex<Vec<f64>>,
    errors: AtomicU64,
}

/// The `games.played` count of a standings message (`None`: not one).
fn played(text: &str) -> Option<u32> {
    let at = text.find("\"played\":")? + "\"played\":".len();
    let digits: String = text[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Each game's room whose result `standings` holds (a standings message, parsed).
fn finished_rooms(standings: &Value) -> impl Iterator<Item = &str> {
    standings["standings"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|row| row["games"].as_array().into_iter().flatten())
        .filter(|g| !g["result"].is_null())
        .filter_map(|g| g["room"].as_str())
}

/// When the first and the last watcher received a message with a count of at least
/// `needed`, after `since` (each watcher's receipts in order: count, when); `None`
/// when some watcher never did.
fn reach(watchers: &[Vec<(u32, Instant)>], needed: u32, since: Instant) -> Option<(Duration, Duration)> {
    let mut times = watchers.iter().map(|seen| {
        seen.iter()
            .find(|(count, _)| *count >= needed)
            .map(|(_, at)| at.saturating_duration_since(since))
    });
    let first = times.next()??;
    times.try_fold((first, first), |(lo, hi), t| t.map(|t| (lo.min(t), hi.max(t))))
}

async fn connect(url: &str, cookie: Option<String>) -> anyhow::Result<Ws> {
    let mut request = url.into_client_request()?;
    if let Some(cookie) = cookie {
        request.headers_mut().insert("cookie", cookie.parse()?);
    }
    super::ws_connect(request).await
}

/// One watcher: its receipts (count, when) until the end, what the probe read (each
/// game's room and the count its result first came with), and whether it stayed on.
async fn watcher(
    url: String,
    probe: bool,
    setup: Arc<Semaphore>,
    ready: Arc<Barrier>,
    end: Arc<std::sync::OnceLock<Instant>>,
) -> (Vec<(u32, Instant)>, HashMap<String, u32>, bool) {
    let (mut seen, mut rooms) = (Vec::new(), HashMap::new());
    let permit = setup.acquire_owned().await;
    let ws = connect(&url, None).await;
    drop(permit);
    ready.wait().await;
    let Ok(mut ws) = ws.inspect_err(|e| eprintln!("watcher: {e:#}")) else {
        return (seen, rooms, false);
    };
    loop {
        let left = end.get().map_or(Duration::from_secs(1), |e| {
            e.saturating_duration_since(Instant::now())
        });
        if end.get().is_some() && left.is_zero() {
            break;
        }
        let text = match tokio::time::timeout(left.min(Duration::from_secs(1)), ws.next()).await {
            Err(_) => continue,
            Ok(Some(Ok(Message::Text(t)))) => t,
            Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => return (seen, rooms, false),
            Ok(Some(Ok(_))) => continue,
        };
        let now = Instant::now();
        let Some(count) = played(&text) else { continue };
        seen.push((count, now));
        if probe && let Ok(v) = serde_json::from_str::<Value>(&text) {
            for room in finished_rooms(&v) {
                rooms.entry(room.to_string()).or_insert(count);
            }
        }
    }
    let _ = ws.close(None).await;
    (seen, rooms, true)
}

/// Plays one game in `room` as `seat`: random legal turns, resigning after `turns` of
/// its own. When the state that ended it was received.
async fn game(sh: &Shared, room: &str, seat: &str, key: &str, rng: &mut impl Rng) -> anyhow::Result<Instant> {
    let mut ws = connect(&format!("ws://{}/api/rooms/{room}/ws", sh.addr), None).await?;
    hello(&mut ws, Some(key.to_string())).await?;
    let (mut state, mut mine, mut n) = (Value::Null, 0, 0);
    // When to act on the state, and the (round, version) acted on.
    let (mut act_at, mut acted): (Option<Instant>, Option<(Value, Value)>) = (None, None);
    loop {
        let here = (state["round"].clone(), state["version"].clone());
        let online = |c: &str| state["seats"][c]["online"] == true;
        let mine_now = state["turn"] == seat && online("light") && online("dark");
        if mine_now && acted.as_ref() != Some(&here) && act_at.is_none() {
            act_at = Some(Instant::now() + sh.think.mul_f64(rng.random_range(0.5..1.5)));
        }
        let far = Instant::now() + Duration::from_secs(60);
        let v = tokio::select! {
            v = next_json(&mut ws) => v?,
            () = tokio::time::sleep_until(sh.end.into()) => bail!("the run ended mid-game"),
            () = tokio::time::sleep_until(act_at.unwrap_or(far).into()) => {
                if act_at.is_none() {
                    bail!("nothing from the room for a minute");
                }
                let turn = if mine >= sh.turns && state["pending_removals"] == 0 {
                    Command::Resign
                } else {
                    Command::Action(pick(&state, rng).context("no legal action")?)
                };
                n += 1;
                ws.send(command(format!("a{n}"), &here.0, &here.1, turn)).await?;
                (mine, act_at, acted) = (mine + 1, None, Some(here));
                continue;
            }
        };
        match kind(&v) {
            Some(ServerType::State) if !v["result"].is_null() => {
                let ended = Instant::now();
                let _ = ws.close(None).await;
                return Ok(ended);
            }
            Some(ServerType::State) => {
                if (&v["round"], &v["version"]) != (&here.0, &here.1) {
                    act_at = None;
                }
                state = v;
            }
            // The state moved on meanwhile (the opponent resigned, a clock event): read it.
            Some(ServerType::Error) if v["code"] == ErrorCode::Stale.as_str() => {
                ws.send(Message::Text(ClientMsg::Sync.to_text().into())).await?;
                (act_at, acted) = (None, None);
            }
            // The opponent's socket dropped: wait for the state that says it is back.
            Some(ServerType::Error) if v["code"] == ErrorCode::OpponentAway.as_str() => {
                (act_at, acted) = (None, None);
            }
            Some(ServerType::Error) => bail!("refused: {v}"),
            _ => {}
        }
    }
}

/// One player: its arena socket, read throughout by a task of its own (standings are
/// pushed to it too), and each game it is handed, played to its end.
async fn player(sh: Arc<Shared>, who: LoadAccount, arena: String, setup: Arc<Semaphore>) {
    let url = format!("ws://{}/api/arenas/{arena}/ws?standings=none", sh.addr);
    let permit = setup.acquire_owned().await;
    let ws = connect(&url, Some(who.cookie())).await;
    drop(permit);
    let mut ws = match ws {
        Ok(ws) => ws,
        Err(e) => {
            if sh.errors.fetch_add(1, Ordering::Relaxed) == 0 {
                eprintln!("{}: the arena socket: {e:#}", who.name);
            }
            return;
        }
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let end = sh.end;
    tokio::spawn(async move {
        while let Ok(Some(Ok(m))) = tokio::time::timeout_at(end.into(), ws.next()).await {
            // A `paired` message is short; a standings message of many players is not.
            if let Message::Text(t) = m
                && t.len() < 1024
                && let Ok(v) = serde_json::from_str::<Value>(&t)
                && v["type"] == "paired"
                && tx.send((v, Instant::now())).is_err()
            {
                break;
            }
        }
    });
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut last_end: Option<Instant> = None;
    while let Ok(Some((v, at))) = tokio::time::timeout_at(sh.end.into(), rx.recv()).await {
        if let Some(ended) = last_end.filter(|e| (sh.from..sh.to).contains(e)) {
            let ms = at.saturating_duration_since(ended).as_secs_f64() * 1000.0;
            sh.delays.lock().unwrap_or_else(|e| e.into_inner()).push(ms);
        }
        if at >= sh.to {
            break;
        }
        let (room, seat, key) = (v["room"].as_str(), v["seat"].as_str(), v["key"].as_str());
        let (Some(room), Some(seat), Some(key)) = (room, seat, key) else {
            sh.errors.fetch_add(1, Ordering::Relaxed);
            break;
        };
        match game(&sh, room, seat, key, &mut rng).await {
            Ok(ended) => {
                last_end = Some(ended);
                let mut ends = sh.ends.lock().unwrap_or_else(|e| e.into_inner());
                let first = ends.entry(room.to_string()).or_insert(ended);
                *first = (*first).min(ended);
            }
            Err(_) if Instant::now() >= sh.end => break,
            Err(e) => {
                last_end = None;
                if sh.errors.fetch_add(1, Ordering::Relaxed) == 0 {
                    eprintln!("{} in {room}: {e:#}", who.name);
                }
            }
        }
    }
}

/// `mill-load arena`: see the module's documentation.
pub(super) async fn arena(run: ArenaRun) -> anyhow::Result<()> {
    if !run.addr.ip().is_loopback() {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    anyhow::ensure!(
        run.players >= 2 && run.watchers >= 1,
        "at least 2 players and a watcher"
    );
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let accounts = make_accounts(&run.db, &run_prefix("are"), run.players, "x").await?;
    let minutes = ((run.warmup + run.seconds) / 60.0).ceil() as u32 + 1;
    let (initial, increment) = run.clock;
    let body = json!({"name": "mill-load", "variant": "nine", "clock": {"initial": initial, "increment": increment},
                      "minutes": minutes, "starts": null, "rated": false});
    let cookie = accounts[0].cookie();
    let (status, _, created) =
        exchange_as(run.addr, "POST", "/api/arenas", Some(&cookie), &body.to_string()).await?;
    anyhow::ensure!(status == 201, "POST /api/arenas: {status} {created}");
    let id = serde_json::from_str::<Value>(&created)?["id"]
        .as_str()
        .context("the arena's id")?
        .to_string();
    // The watchers first, then the players join and open their sockets.
    let setup = Arc::new(Semaphore::new(run.setup_concurrency.max(1)));
    // The probes of pages 2 on (the first watcher probes page 1).
    let pages = run.players.div_ceil(mill_server::arena::STANDINGS_PAGE);
    let ready = Arc::new(Barrier::new(run.watchers + pages));
    let stop = Arc::new(std::sync::OnceLock::new());
    let url = format!("ws://{}/api/arenas/{id}/ws", run.addr);
    let watchers: Vec<_> = (0..run.watchers)
        .map(|i| (url.clone(), i == 0))
        .chain((2..=pages).map(|p| (format!("{url}?page={p}"), true)))
        .map(|(url, probe)| tokio::spawn(watcher(url, probe, setup.clone(), ready.clone(), stop.clone())))
        .collect();
    ready.wait().await;
    let path = format!("/api/arenas/{id}/join");
    let mut joins = Vec::new();
    for a in &accounts {
        let (setup, cookie, path, addr) = (setup.clone(), a.cookie(), path.clone(), run.addr);
        joins.push(tokio::spawn(async move {
            let _permit = setup.acquire_owned().await;
            exchange_as(addr, "POST", &path, Some(&cookie), "").await
        }));
    }
    for j in joins {
        let (status, _, body) = j.await??;
        anyhow::ensure!(status == 200, "join: {status} {body}");
    }
    let go = Instant::now();
    let from = go + Duration::from_secs_f64(run.warmup);
    let to = from + Duration::from_secs_f64(run.seconds);
    let end = to + Duration::from_secs(5);
    let _ = stop.set(end);
    let sh = Arc::new(Shared {
        addr: run.addr,
        turns: run.turns,
        think: Duration::from_millis(run.think_ms),
        from,
        to,
        end,
        ends: Mutex::new(HashMap::new()),
        delays: Mutex::new(Vec::new()),
        errors: AtomicU64::new(0),
    });
    let players: Vec<_> = accounts
        .into_iter()
        .map(|a| tokio::spawn(player(sh.clone(), a, id.clone(), setup.clone())))
        .collect();
    println!(
        "arena {id}: {} players and {} watchers connecting; warm-up {} s, then {} s measured",
        run.players, run.watchers, run.warmup, run.seconds
    );
    tokio::time::sleep_until(from.into()).await;
    let pid = run.server_pid;
    let cpu = || {
        (
            pid.and_then(|p| cpu_seconds(&format!("/proc/{p}/stat"))),
            cpu_seconds("/proc/self/stat"),
        )
    };
    let before = cpu();
    tokio::time::sleep_until(to.into()).await;
    let after = cpu();
    let memory = rss(pid);
    for p in players {
        p.await?;
    }
    let (mut seen, mut rooms, mut dropped) = (Vec::new(), HashMap::new(), 0);
    for (i, w) in watchers.into_iter().enumerate() {
        let (receipts, probed, stayed) = w.await?;
        dropped += usize::from(!stayed);
        for (room, count) in probed {
            let at = rooms.entry(room).or_insert(count);
            *at = (*at).min(count);
        }
        if i < run.watchers {
            seen.push(receipts);
        }
    }
    let ends = std::mem::take(&mut *sh.ends.lock().unwrap_or_else(|e| e.into_inner()));
    let in_window: Vec<(&String, &Instant)> =
        ends.iter().filter(|(_, at)| (from..to).contains(*at)).collect();
    let (mut first, mut last, mut unreached) = (Vec::new(), Vec::new(), 0);
    for (room, ended) in &in_window {
        match rooms.get(*room).and_then(|&count| reach(&seen, count, **ended)) {
            Some((lo, hi)) => {
                first.push(lo.as_secs_f64() * 1000.0);
                last.push(hi.as_secs_f64() * 1000.0);
            }
            None => unreached += 1,
        }
    }
    let mut delays = std::mem::take(&mut *sh.delays.lock().unwrap_or_else(|e| e.into_inner()));
    println!(
        "{} players, {} watchers (and {} probes of later pages), clock {initial}+{increment}, resigning after {} own turns, think {} ms: {} games ended in the {} s measured ({:.1} a second), {} errors, {dropped} watchers dropped",
        run.players,
        run.watchers,
        pages.saturating_sub(1),
        run.turns,
        run.think_ms,
        in_window.len(),
        run.seconds,
        in_window.len() as f64 / run.seconds,
        sh.errors.load(Ordering::Relaxed)
    );
    println!(
        "a game's end -> the player's next `paired`: {}",
        summary(&mut delays)
    );
    println!(
        "a game's end -> standings holding it, first watcher: {}",
        summary(&mut first)
    );
    println!(
        "a game's end -> standings holding it, last of {} watchers: {} ({unreached} games not reaching every watcher)",
        run.watchers,
        summary(&mut last)
    );
    let pushes = seen[0].iter().filter(|(_, at)| (from..to).contains(at)).count();
    println!("standings messages in the window: {pushes} to each watcher");
    let share = |b: Option<f64>, a: Option<f64>| match (b, a) {
        (Some(b), Some(a)) => format!(
            "{:.1} s of CPU ({:.0} % of a core)",
            a - b,
            (a - b) * 100.0 / run.seconds
        ),
        _ => "unreadable".to_string(),
    };
    println!(
        "in the window: server {} | mill-load {} | server memory {memory}",
        share(before.0, after.0),
        share(before.1, after.1)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_played_count_is_read_from_a_standings_message() {
        let m =
            r#"{"clock":{"increment":0,"initial":60},"games":{"played":17,"playing":480},"standings":[]}"#;
        assert_eq!(played(m), Some(17));
        assert_eq!(played(r#"{"type":"paired","room":"r"}"#), None);
        let v: Value = serde_json::from_str(
            r#"{"standings":[{"games":[{"room":"a","result":"win"},{"room":"b","result":null}]},
                             {"games":[{"room":"a","result":"loss"},{"room":"c","result":"draw"}]}]}"#,
        )
        .unwrap();
        assert_eq!(finished_rooms(&v).collect::<Vec<_>>(), ["a", "a", "c"]);
    }

    #[test]
    fn a_change_reaches_the_watchers_at_their_first_message_with_its_count() {
        let t = Instant::now();
        let ms = |n: u64| t + Duration::from_millis(n);
        let watchers = vec![
            vec![(0, ms(0)), (3, ms(900)), (5, ms(1900))],
            vec![(0, ms(0)), (5, ms(1950))],
            vec![(2, ms(5)), (4, ms(910)), (6, ms(1920))],
        ];
        let d = Duration::from_millis;
        // The third game's result came with count 3: at 900, 1950 and 910 ms.
        assert_eq!(reach(&watchers, 3, ms(400)), Some((d(500), d(1550))));
        assert_eq!(reach(&watchers, 6, ms(400)), None, "the first two never saw 6");
        assert_eq!(reach(&[], 1, t), None);
    }
}

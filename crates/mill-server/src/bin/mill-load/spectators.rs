//! `mill-load spectators`: one room watched by N sockets while its players move at a
//! set rate; the time from an action's send to its last watcher.

use super::*;

/// What `mill-load spectators` is asked to do.
pub(super) struct Watch {
    pub(super) watchers: usize,
    pub(super) rate: f64,
    pub(super) seconds: u64,
    pub(super) concurrency: usize,
    pub(super) server_pid: Option<u32>,
}

/// The server's resident memory now and at its peak, from /proc/PID/status.
pub(super) fn rss(pid: Option<u32>) -> String {
    let Some(pid) = pid else {
        return "not asked (--server-pid)".to_string();
    };
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return format!("unreadable (/proc/{pid}/status)");
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!(
        "{}: VmRSS {} (peak VmHWM {})",
        field("Name:"),
        field("VmRSS:"),
        field("VmHWM:")
    )
}

/// What a watcher reads of each message (the rest is skipped, not built into a
/// `Value`: thousands of watchers in one process parse every state).
#[derive(serde::Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    round: u64,
    #[serde(default)]
    version: u64,
}

/// States received by all watchers so far (to know when the last has arrived).
static RECEIPTS: AtomicU64 = AtomicU64::new(0);

/// One watcher: connects, says hello without a key, and notes when it first receives
/// each (round, version) until STOP. Returns those receipts, and whether it stayed on
/// to the end.
async fn watcher(
    addr: SocketAddr,
    room: String,
    setup: Arc<Semaphore>,
    ready: Arc<Barrier>,
) -> (Vec<(u64, u64, Instant)>, bool) {
    let mut seen = Vec::new();
    let connect = async {
        let url = format!("ws://{addr}/api/rooms/{room}/ws");
        let mut ws = super::ws_connect(url).await?;
        hello(&mut ws, None).await?;
        anyhow::Ok(ws)
    };
    let permit = setup.acquire_owned().await;
    let ws = connect.await;
    drop(permit);
    ready.wait().await;
    let Ok(mut ws) = ws.inspect_err(|e| eprintln!("watcher: {e:#}")) else {
        return (seen, false);
    };
    let mut last = (0, u64::MAX);
    while !STOP.load(Ordering::Relaxed) {
        let text = match tokio::time::timeout(Duration::from_millis(200), ws.next()).await {
            Err(_) => continue,
            Ok(Some(Ok(Message::Text(t)))) => t,
            Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => return (seen, false),
            Ok(Some(Ok(_))) => continue,
        };
        let Ok(head) = serde_json::from_str::<Head>(&text) else {
            continue;
        };
        if head.kind == "state" && (head.round, head.version) != last {
            last = (head.round, head.version);
            seen.push((head.round, head.version, Instant::now()));
            RECEIPTS.fetch_add(1, Ordering::Relaxed);
        }
    }
    let _ = ws.close(None).await;
    (seen, true)
}

/// `mill-load spectators`: see the module docs.
pub(super) async fn spectators(addr: SocketAddr, run: Watch) -> anyhow::Result<()> {
    if !addr.ip().is_loopback() {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    anyhow::ensure!(run.rate > 0.0, "--moves-per-second must be positive");
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let totals = Totals::default();
    let mut t = open_table([addr, addr], None).await?;
    let room = t.last[0]["room"].as_str().context("room id")?.to_string();
    let ready = Arc::new(Barrier::new(run.watchers + 1));
    let setup = Arc::new(Semaphore::new(run.concurrency.max(1)));
    let mut tasks = Vec::with_capacity(run.watchers);
    for _ in 0..run.watchers {
        let (room, ready, setup) = (room.clone(), ready.clone(), setup.clone());
        tasks.push(tokio::spawn(watcher(addr, room, setup, ready)));
    }
    ready.wait().await;
    println!(
        "watchers on: {} | server memory {}",
        run.watchers,
        rss(run.server_pid)
    );
    let mut rng = rand::rngs::StdRng::from_rng(&mut rand::rng());
    let mut sent: Vec<(u64, u64, Instant)> = Vec::new();
    let every = Duration::from_secs_f64(1.0 / run.rate);
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let end = Instant::now() + Duration::from_secs(run.seconds);
    let prefix: u32 = rng.random();
    let mut n = 0u64;
    while Instant::now() < end {
        tick.tick().await;
        n += 1;
        let id = format!("{prefix:x}-{n}");
        let state = t.last[0].clone();
        if !state["result"].is_null() {
            for i in 0..2 {
                let msg = command(
                    format!("{id}-{i}"),
                    &state["round"],
                    &state["version"],
                    Command::NewRound,
                );
                t.seats[i].send(msg).await.context("send")?;
            }
            let round = json!(state["round"].as_u64().unwrap_or(0) + 1);
            wait_for_round(&mut t, &round, &id, &totals).await?;
            continue;
        }
        let mover = usize::from(state["turn"] == "dark");
        let action = pick(&state, &mut rng).context("no legal action")?;
        let version = json!(state["version"].as_u64().unwrap_or(0) + 1);
        let round = state["round"].as_u64().unwrap_or(0);
        sent.push((round, version.as_u64().unwrap_or(0), Instant::now()));
        let msg = command(id, &state["round"], &state["version"], Command::Action(action));
        t.seats[mover].send(msg).await.context("send")?;
        match answer(&mut t, mover, &state, &totals).await {
            Answer::Acked => {}
            _ => bail!("the action was not acknowledged"),
        }
        for i in 0..2 {
            wait_for(&mut t, i, &state["round"], &version, &totals).await?;
        }
    }
    // Let the last state reach everyone (until no watcher has received anything for a
    // second, at most 60 s), then stop the watchers.
    let grace = Instant::now() + Duration::from_secs(60);
    let mut before = RECEIPTS.load(Ordering::Relaxed);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = RECEIPTS.load(Ordering::Relaxed);
        if now == before || Instant::now() > grace {
            break;
        }
        before = now;
    }
    let memory = rss(run.server_pid);
    STOP.store(true, Ordering::Relaxed);
    let mut receipts = Vec::with_capacity(run.watchers);
    let mut dropped = 0;
    for task in tasks {
        let (seen, stayed) = task.await?;
        if !stayed {
            dropped += 1;
        }
        receipts.push(seen);
    }
    for ws in &mut t.seats {
        let _ = ws.close(None).await;
    }
    // For each action every watcher received: the last watcher's receipt of its
    // (round, version). An action some watcher never received is counted apart.
    let mut latencies = Vec::with_capacity(sent.len());
    let (mut missed, mut incomplete) = (0u64, 0u64);
    for &(round, version, at) in &sent {
        let mut last = Some(at);
        for seen in &receipts {
            match seen.iter().find(|&&(r, v, _)| r == round && v == version) {
                Some(&(_, _, when)) => last = last.map(|l| l.max(when)),
                None => {
                    missed += 1;
                    last = None;
                }
            }
        }
        match last {
            Some(last) => {
                latencies.push(last.duration_since(at).as_micros().min(u128::from(u32::MAX)) as u32)
            }
            None => incomplete += 1,
        }
    }
    latencies.sort_unstable();
    let pct = |p: f64| {
        if latencies.is_empty() {
            return f64::NAN;
        }
        let i = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        f64::from(latencies[i]) / 1000.0
    };
    println!(
        "watchers {} | actions {} | states missed {missed} (in {incomplete} actions, left out below) | watchers dropped {dropped} | errors {}",
        run.watchers,
        sent.len(),
        totals.errors.load(Ordering::Relaxed),
    );
    println!(
        "action -> last watcher's update: p50 {:.1} ms | p99 {:.1} ms | max {:.1} ms ({} samples)",
        pct(0.50),
        pct(0.99),
        pct(1.0),
        latencies.len()
    );
    println!("server memory at the end: {memory}");
    Ok(())
}

//! `mill-load rated-pair`: rated quick pairing. Signed-in seekers with established
//! ratings spread evenly over a range arrive at a set rate, all asking for the same
//! rules and clock; for each the time from its `POST /api/pair` to the answer, and for
//! each pair made how far apart the two ratings were (what a rating window trades the
//! wait for).

use super::accounts::{make_accounts, run_prefix};
use super::stats::{Arrivals, schedule, summary, summary_in};
use super::*;
use mill_server::ratings::Speed;
use mill_server::timecontrol::TimeControl;

/// What `mill-load rated-pair` is asked to do.
#[derive(Debug, clap::Args)]
pub(super) struct RatedPair {
    /// Server address (host:port) on this machine; repeat it for several instances of
    /// one server (seeker i goes to address i mod N).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: Vec<SocketAddr>,
    /// The server's SQLite database file (its `--db`): the accounts and their ratings
    /// are written into it first.
    #[arg(long)]
    db: String,
    /// Seekers in all, each a fresh account.
    #[arg(long, default_value_t = 1000)]
    seekers: usize,
    /// Seekers arriving a minute.
    #[arg(long, default_value_t = 1000.0)]
    per_minute: f64,
    /// How the arrivals are spread.
    #[arg(long, value_enum, default_value_t = Arrivals::Poisson)]
    arrivals: Arrivals,
    /// Lowest rating (the ratings are spread evenly at random up to --highest).
    #[arg(long, default_value_t = 800.0)]
    lowest: f64,
    /// Highest rating.
    #[arg(long, default_value_t = 2400.0)]
    highest: f64,
    /// Every seeker's rating deviation (established: below the provisional 110).
    #[arg(long, default_value_t = 60.0)]
    rd: f64,
    /// The time control every seeker asks for, `INITIAL+INCREMENT` in seconds.
    #[arg(long, default_value = "180+2", value_parser = parse_clock)]
    clock: (u32, u32),
}

/// Writes each account's rating for `rules` and `speed` (established: `rd`, 30 games).
fn write_ratings(db: &str, rules: &str, speed: Speed, rd: f64, ratings: &[(i64, f64)]) -> anyhow::Result<()> {
    if db.starts_with("postgres") {
        bail!("rated-pair writes the ratings into a SQLite file only");
    }
    let mut conn = rusqlite::Connection::open(db).context("open the database")?;
    conn.pragma_update(None, "busy_timeout", 5000)?;
    let tx = conn.transaction()?;
    for &(id, rating) in ratings {
        tx.prepare_cached(
            "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0.06, 30, 0)
             ON CONFLICT (account_id, rules, speed) DO UPDATE SET rating = excluded.rating, rd = excluded.rd",
        )?
        .execute(rusqlite::params![id, rules, speed.as_str(), rating, rd])?;
    }
    tx.commit()?;
    Ok(())
}

/// `mill-load rated-pair`: see the module's documentation.
pub(super) async fn rated_pair(run: RatedPair) -> anyhow::Result<()> {
    if run.addr.iter().any(|a| !a.ip().is_loopback()) {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    anyhow::ensure!(run.per_minute > 0.0, "--per-minute must be positive");
    anyhow::ensure!(run.lowest <= run.highest, "--lowest above --highest");
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (initial, increment) = run.clock;
    let speed = Speed::of(TimeControl::Live { initial, increment });
    let prefix = run_prefix("rat");
    // Sign-in is not measured here: the accounts need no real password.
    let accounts = make_accounts(&run.db, &prefix, run.seekers, "x").await?;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let ratings: Vec<f64> = (0..run.seekers)
        .map(|_| rng.random_range(run.lowest..=run.highest).round())
        .collect();
    let ids: Vec<(i64, f64)> = accounts
        .iter()
        .map(|a| a.id)
        .zip(ratings.iter().copied())
        .collect();
    write_ratings(&run.db, "nine", speed, run.rd, &ids)?;
    let at = schedule(run.seekers, run.per_minute / 60.0, run.arrivals, || rng.random());
    let body = |i: usize| {
        json!({"variant": "nine", "clock": {"initial": initial, "increment": increment}, "rated": true,
               "seeker": format!("{prefix}-seeker-{i:05}"), "seek": format!("{prefix}-seek-{i:05}")})
        .to_string()
    };
    let start = Instant::now() + Duration::from_millis(100);
    let mut tasks = Vec::with_capacity(run.seekers);
    for (i, at) in at.into_iter().enumerate() {
        let addr = run.addr[i % run.addr.len()];
        let (body, cookie) = (body(i), accounts[i].cookie());
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until((start + at).into()).await;
            let sent = Instant::now();
            let answer = exchange_as(addr, "POST", "/api/pair", Some(&cookie), &body).await;
            (sent.elapsed().as_secs_f64() * 1000.0, answer)
        }));
    }
    let mut rooms: std::collections::HashMap<String, Vec<usize>> = Default::default();
    let (mut waits, mut alone, mut errors) = (Vec::new(), 0, 0);
    for (i, t) in tasks.into_iter().enumerate() {
        let (took, answer) = t.await?;
        let answer = answer
            .map(|(status, _, body)| (status, serde_json::from_str::<Value>(&body).unwrap_or_default()));
        match answer {
            Ok((201, v)) => {
                waits.push(took);
                let room = v["room"].as_str().unwrap_or_default().to_string();
                rooms.entry(room).or_default().push(i);
            }
            Ok((200, v)) if v["outcome"] == "no-opponent" => alone += 1,
            other => {
                if errors == 0 {
                    eprintln!("a seeker was refused: {other:?}");
                }
                errors += 1;
            }
        }
    }
    let mut gaps = Vec::new();
    let mut odd = 0;
    for seekers in rooms.values() {
        match seekers[..] {
            [a, b] => gaps.push((ratings[a] - ratings[b]).abs()),
            _ => odd += 1,
        }
    }
    println!(
        "{} rated seekers at {} a minute ({:?}) on {} instance(s), ratings {}-{} (RD {}), {initial}+{increment} ({}): {} rooms, {alone} left without an opponent, {errors} errors, {odd} rooms not of two",
        run.seekers,
        run.per_minute,
        run.arrivals,
        run.addr.len(),
        run.lowest,
        run.highest,
        run.rd,
        speed.as_str(),
        gaps.len()
    );
    println!(
        "rated POST /api/pair -> its answer, paired seekers: {}",
        summary(&mut waits)
    );
    println!("rating gap of the pairs: {}", summary_in(&mut gaps, "points", 0));
    if errors > 0 || odd > 0 {
        bail!("{errors} errors, {odd} rooms not of two seekers");
    }
    Ok(())
}

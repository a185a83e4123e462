//! `mill-load flag-delay`: how late the flag falls on rooms left to run out of time.

use super::*;

/// `mill-load flag-delay`: see the module docs.
pub(super) async fn flag_delay(addr: SocketAddr, rooms: usize, concurrency: usize) -> anyhow::Result<()> {
    use mill_server::timecontrol::TimeControl;
    if !addr.ip().is_loopback() {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    const INITIAL: u32 = 15;
    let control = TimeControl::Live {
        initial: INITIAL,
        increment: 0,
    };
    // After the first turns (which give no lag back) the quota is still its start.
    let quota = control.lag_rule().start;
    let setup = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = Vec::with_capacity(rooms);
    for _ in 0..rooms {
        let setup = setup.clone();
        tasks.push(tokio::spawn(async move {
            let permit = setup.acquire_owned().await.expect("semaphore open");
            let clock = json!({"initial": INITIAL, "increment": 0});
            let mut t = open_table([addr, addr], Some(clock)).await?;
            drop(permit);
            // First turns: Light places, then Dark; Light's clock runs from Dark's.
            for (mover, action, version) in [(0, "d6", 1), (1, "d2", 2)] {
                let state = t.last[mover].clone();
                let msg = command(
                    format!("flag-{version}"),
                    &state["round"],
                    &state["version"],
                    Command::Action(action.into()),
                );
                t.seats[mover].send(msg).await?;
                let totals = Totals::default();
                for i in 0..2 {
                    wait_for(&mut t, i, &state["round"], &json!(version), &totals).await?;
                }
            }
            let running = t.last[1]["clock"].clone();
            let seen_running = Instant::now();
            anyhow::ensure!(
                running["running"] == "light",
                "Light's clock is not running: {running}"
            );
            let time_up = running["at"].as_i64().context("clock.at")?
                + running["light"].as_i64().context("clock.light")?;
            // Read Dark's socket until the result (the server sends nothing before it).
            let end = loop {
                let v = tokio::time::timeout(Duration::from_secs(60), next_json(&mut t.seats[1]))
                    .await
                    .context("no flag within a minute")??;
                if kind(&v) == Some(ServerType::State) && !v["result"].is_null() {
                    break v;
                }
            };
            let seen = seen_running.elapsed().as_millis() as i64 - running["light"].as_i64().unwrap_or(0);
            anyhow::ensure!(
                end["result"]["reason"] == "timeout",
                "not a timeout: {}",
                end["result"]
            );
            let stored = end["clock"]["at"].as_i64().context("clock.at")? - time_up;
            for ws in &mut t.seats {
                let _ = ws.close(None).await;
            }
            anyhow::Ok((stored, seen))
        }));
    }
    let (mut stored, mut seen) = (Vec::new(), Vec::new());
    let mut failed = 0;
    for task in tasks {
        match task.await {
            Ok(Ok((a, b))) => {
                stored.push(a);
                seen.push(b);
            }
            Ok(Err(e)) => {
                if failed == 0 {
                    eprintln!("a room failed: {e:#}");
                }
                failed += 1;
            }
            Err(e) => {
                eprintln!("a room's task failed: {e}");
                failed += 1;
            }
        }
    }
    let line = |name: &str, mut v: Vec<i64>, offset: i64| {
        v.sort_unstable();
        let pct = |p: f64| -> i64 {
            if v.is_empty() {
                return 0;
            }
            v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1] - offset
        };
        println!(
            "{name}: p50 {} ms | p99 {} ms | max {} ms ({} rooms)",
            pct(0.5),
            pct(0.99),
            pct(1.0),
            v.len()
        );
    };
    println!(
        "{INITIAL}-second clocks, lag quota {quota} ms (the flag's deadline is the time plus the quota); {failed} rooms failed"
    );
    line(
        "timeout stored after the time was up (server clock)",
        stored.clone(),
        0,
    );
    line(
        "timeout stored after the flag's deadline (server clock)",
        stored,
        quota,
    );
    line(
        "timeout seen by the page after the time was up (local clock)",
        seen.clone(),
        0,
    );
    line(
        "timeout seen by the page after the flag's deadline (local clock)",
        seen,
        quota,
    );
    Ok(())
}

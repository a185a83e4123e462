//! `mill-load pair`: quick pairing, seekers arriving over a span of time, each held
//! until paired.

use super::*;

/// The page's quick-pairing time controls (static/js/clock.js PRESETS).
const PAIR_CLOCKS: [&str; 7] = [
    "null",
    r#"{"initial":60,"increment":0}"#,
    r#"{"initial":180,"increment":2}"#,
    r#"{"initial":300,"increment":3}"#,
    r#"{"initial":600,"increment":5}"#,
    r#"{"initial":900,"increment":10}"#,
    r#"{"days":3}"#,
];

/// One `POST /api/pair`: (status, body).
async fn pair_once(addr: SocketAddr, body: &str) -> anyhow::Result<(u16, Value)> {
    let (status, _, body) = exchange(addr, "POST", "/api/pair", body).await?;
    Ok((status, serde_json::from_str(&body).unwrap_or(Value::Null)))
}

/// `mill-load pair`: see the module's documentation.
pub(super) async fn pair_load(
    addrs: &[SocketAddr],
    seekers: usize,
    seconds: f64,
    pools: usize,
) -> anyhow::Result<()> {
    let pools = pools.clamp(1, PAIR_CLOCKS.len());
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let start = Instant::now();
    let run = format!("{:08x}", rng.random::<u32>());
    let mut tasks = Vec::with_capacity(seekers);
    for i in 0..seekers {
        let at = Duration::from_secs_f64(rng.random::<f64>() * seconds.max(0.0));
        let addr = addrs[i % addrs.len()];
        let body = format!(
            r#"{{"variant":"nine","clock":{},"seeker":"load-{run}-{i:08}","seek":"seek-{run}-{i:08}"}}"#,
            PAIR_CLOCKS[rng.random_range(0..pools)]
        );
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until((start + at).into()).await;
            let arrived = Instant::now();
            let answer = pair_once(addr, &body).await;
            (arrived, Instant::now(), answer)
        }));
    }
    let mut rooms: std::collections::HashMap<String, Vec<(Instant, Instant)>> = Default::default();
    let (mut alone, mut errors) = (0, 0);
    for t in tasks {
        let (arrived, answered, answer) = t.await?;
        match answer {
            Ok((201, v)) => rooms
                .entry(v["room"].as_str().unwrap_or_default().to_string())
                .or_default()
                .push((arrived, answered)),
            Ok((200, v)) if v["outcome"] == "no-opponent" => alone += 1,
            Ok((status, v)) => {
                if errors == 0 {
                    eprintln!("refused: {status} {v}");
                }
                errors += 1;
            }
            Err(e) => {
                if errors == 0 {
                    eprintln!("failed: {e:#}");
                }
                errors += 1;
            }
        }
    }
    let mut ms: Vec<f64> = Vec::new();
    let mut odd = 0;
    for seats in rooms.values() {
        if seats.len() != 2 {
            odd += 1;
            continue;
        }
        let second = seats[0].0.max(seats[1].0);
        let both = seats[0].1.max(seats[1].1);
        ms.push(both.saturating_duration_since(second).as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    let q = |p: f64| {
        ms.get(((ms.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "{seekers} seekers over {seconds} s on {} instance(s), {pools} time control(s): {} rooms, {alone} left without an opponent, {errors} errors, {odd} rooms not of two",
        addrs.len(),
        ms.len()
    );
    println!(
        "second seeker's arrival -> both answers: p50 {:.1} ms | p90 {:.1} ms | p99 {:.1} ms | max {:.1} ms ({} rooms)",
        q(0.5),
        q(0.9),
        q(0.99),
        ms.last().copied().unwrap_or(f64::NAN),
        ms.len()
    );
    if errors > 0 || odd > 0 {
        bail!("{errors} errors, {odd} rooms not of two seekers");
    }
    Ok(())
}

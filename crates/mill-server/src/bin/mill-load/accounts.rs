//! Accounts for the load modes, made straight in the server's database (the store's
//! own `Accounts::create`, so a run does not wait for a sign-up's hashing each), and
//! `mill-load sign-in`: the cost of `POST /api/session` at a steady rate.

use super::stats::{Arrivals, schedule, summary};
use super::*;
use mill_server::accounts::{ARGON2_M_KIB, ARGON2_P, ARGON2_T};
use mill_server::store::DbTarget;
use mill_server::store::accounts::{Accounts, NewSession};

/// An account made for a run, with a session whose token is known here.
pub(super) struct LoadAccount {
    pub(super) id: i64,
    pub(super) name: String,
    /// The session cookie's value.
    pub(super) token: String,
}

impl LoadAccount {
    /// The `Cookie` header's value of its session.
    pub(super) fn cookie(&self) -> String {
        format!("{}={}", mill_server::accounts::SESSION_COOKIE, self.token)
    }
}

/// A fresh prefix for a run's names (3 letters, then 6 hex digits): runs on one
/// database do not collide.
pub(super) fn run_prefix(tag: &str) -> String {
    format!("{tag}{:06x}", rand::random::<u32>() & 0xff_ffff)
}

/// Makes `n` accounts named `{prefix}{i:05}` in the database `db` (the server's `--db`:
/// a SQLite file or a `postgres://` URL), each with a session of 30 days and the
/// password hash `hash`.
pub(super) async fn make_accounts(
    db: &str,
    prefix: &str,
    n: usize,
    hash: &str,
) -> anyhow::Result<Vec<LoadAccount>> {
    let store = Accounts::open(&DbTarget::parse(db))
        .await
        .context("open the accounts (start the server on this database first)")?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as i64;
    let mut made = Vec::with_capacity(n);
    for i in 0..n {
        let name = format!("{prefix}{i:05}");
        let token = mill_server::keys::new_seat_key();
        let session = NewSession {
            token_hash: mill_server::keys::hash_key(&token),
            at: now,
            expires_at: now + 30 * 86_400_000,
        };
        let id = store
            .create(&name, &name.to_ascii_lowercase(), hash, session)
            .await?
            .with_context(|| format!("the name {name} is taken"))?;
        made.push(LoadAccount { id, name, token });
    }
    Ok(made)
}

/// CPU time of this thread so far, in seconds (/proc/thread-self/schedstat, in ns).
fn thread_cpu() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// The password every account of a sign-in run has.
const PASSWORD: &str = "load-test password";

/// What `mill-load sign-in` is asked to do.
#[derive(Debug, clap::Args)]
pub(super) struct SignIn {
    /// Server address (host:port), on this machine.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The server's database (its `--db`): the accounts are made in it first.
    #[arg(long)]
    db: String,
    /// Accounts to make (the sign-ins go round them).
    #[arg(long, default_value_t = 200)]
    accounts: usize,
    /// Sign-ins a second.
    #[arg(long, default_value_t = 20.0)]
    rate: f64,
    /// Seconds of sign-ins.
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// How the sign-ins are spread.
    #[arg(long, value_enum, default_value_t = Arrivals::Even)]
    arrivals: Arrivals,
    /// The server's process id: its CPU time per sign-in is printed.
    #[arg(long)]
    server_pid: Option<u32>,
}

/// `mill-load sign-in`: argon2id's cost here (the verification alone, in this process),
/// then `POST /api/session` at a steady rate: each answer's time, and the server's
/// CPU per sign-in.
pub(super) async fn sign_in(run: SignIn) -> anyhow::Result<()> {
    if !run.addr.ip().is_loopback() {
        bail!("mill-load only targets a server on this machine (a loopback address)");
    }
    anyhow::ensure!(
        run.accounts > 0 && run.rate > 0.0,
        "--accounts and --rate must be positive"
    );
    let hash = mill_server::accounts::hash_password(PASSWORD);
    let mut verify = Vec::new();
    for _ in 0..20 {
        let before = thread_cpu().context("/proc/thread-self/schedstat")?;
        anyhow::ensure!(mill_server::accounts::verify_password(PASSWORD, &hash));
        verify.push((thread_cpu().unwrap_or(before) - before) * 1000.0);
    }
    println!(
        "argon2id m = {ARGON2_M_KIB} KiB, t = {ARGON2_T}, p = {ARGON2_P}: one verification in this process, CPU {}",
        summary(&mut verify)
    );
    let accounts = make_accounts(&run.db, &run_prefix("sin"), run.accounts, &hash).await?;
    let n = (run.rate * run.seconds).round() as usize;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let at = schedule(n, run.rate, run.arrivals, || rng.random());
    let cpu_before = run
        .server_pid
        .and_then(|p| cpu_seconds(&format!("/proc/{p}/stat")));
    let start = Instant::now() + Duration::from_millis(100);
    let mut tasks = Vec::with_capacity(n);
    for (i, at) in at.into_iter().enumerate() {
        let body = json!({"name": accounts[i % accounts.len()].name, "password": PASSWORD}).to_string();
        let addr = run.addr;
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until((start + at).into()).await;
            let sent = Instant::now();
            let answer = exchange_as(addr, "POST", "/api/session", None, &body).await;
            (
                sent.elapsed().as_secs_f64() * 1000.0,
                answer.map(|(status, _, body)| (status, body)),
            )
        }));
    }
    let (mut ms, mut errors) = (Vec::with_capacity(n), 0);
    for t in tasks {
        match t.await? {
            (took, Ok((200, _))) => ms.push(took),
            (_, answer) => {
                if errors == 0 {
                    eprintln!("a sign-in failed: {answer:?}");
                }
                errors += 1;
            }
        }
    }
    let took = start.elapsed().as_secs_f64();
    let cpu_after = run
        .server_pid
        .and_then(|p| cpu_seconds(&format!("/proc/{p}/stat")));
    println!(
        "{n} sign-ins at {} a second ({:?}) over {took:.1} s round {} accounts: {} answered 200, {errors} errors",
        run.rate,
        run.arrivals,
        accounts.len(),
        ms.len()
    );
    println!("POST /api/session -> its answer: {}", summary(&mut ms));
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        println!(
            "server CPU per sign-in: {:.1} ms ({:.2} s in all, {:.0} % of a core)",
            (after - before) * 1000.0 / n as f64,
            after - before,
            (after - before) * 100.0 / took
        );
    }
    if errors > 0 {
        bail!("{errors} sign-ins failed");
    }
    Ok(())
}

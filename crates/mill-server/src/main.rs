//! `mill-server`: parses flags and environment, starts tracing, binds, and runs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use mill_server::Config;
use mill_server::logging::{self, LogFormat};

/// jemalloc instead of the system allocator: a profile under load found a quarter of the
/// server's CPU in glibc's malloc and free (PERFORMANCE.md).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Mill online rooms: serves the page and plays games between two browsers.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "MILL_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// SQLite database file (created if missing), or a PostgreSQL URL
    /// (`postgres://user@host/db`) shared by several instances.
    #[arg(long, env = "MILL_DB", default_value = "mill.db")]
    db: String,
    /// Directory with the page [default: ./static, else the repository's static/].
    #[arg(long, env = "MILL_STATIC_DIR")]
    static_dir: Option<PathBuf>,
    /// Directory with the endgame tables (`mill tb generate --dir DIR`), served to the
    /// page's computer under /tb/ [default: ./tb, else the repository's tb/, if there].
    #[arg(long, env = "MILL_TB_DIR")]
    tb_dir: Option<PathBuf>,
    /// Endgame table files larger than this many bytes are not served for download: the
    /// page asks GET /api/tb/probe for their positions instead.
    #[arg(long, env = "MILL_TB_DOWNLOAD_MAX", default_value_t = mill_server::config::DEFAULT_TB_DOWNLOAD_MAX)]
    tb_download_max: u64,
    /// Probes of the endgame tables (GET /api/tb/probe) per minute from one IP address
    /// (0: unlimited).
    #[arg(long, env = "MILL_TB_PROBES_PER_MINUTE", default_value_t = 600)]
    tb_probes_per_minute: u32,
    /// Base URL for invite links, e.g. https://mill.example.org (see --allowed-host).
    #[arg(long, env = "MILL_PUBLIC_URL")]
    public_url: Option<String>,
    /// A Host header that invite links may be built from when --public-url is not set
    /// (repeat, or comma-separate in the variable). Without either, links use the
    /// listening address.
    #[arg(long = "allowed-host", env = "MILL_ALLOWED_HOSTS", value_delimiter = ',')]
    allowed_hosts: Vec<String>,
    /// An origin whose pages may use passkeys, e.g. https://mill.example.org (repeat, or
    /// comma-separate in the variable). Default: --public-url's origin, else
    /// http://localhost on any port (docs/DEPLOY.md, "Passkeys").
    #[arg(long = "passkey-origin", env = "MILL_PASSKEY_ORIGINS", value_delimiter = ',')]
    passkey_origins: Vec<String>,
    /// The passkeys' relying party id: the first passkey origin's host (the default) or
    /// a parent domain of every passkey origin.
    #[arg(long, env = "MILL_PASSKEY_RP_ID")]
    passkey_rp_id: Option<String>,
    /// Days without action or connection after which a room is deleted.
    #[arg(long, env = "MILL_IDLE_DAYS", default_value_t = 7.0)]
    idle_days: f64,
    /// Seconds between two runs of the purge job.
    #[arg(long, env = "MILL_PURGE_EVERY_SECS", default_value_t = 3600)]
    purge_every_secs: u64,
    /// Rooms created or joined per minute from one IP address (0: unlimited).
    #[arg(long, env = "MILL_ROOMS_PER_MINUTE", default_value_t = 30)]
    rooms_per_minute: u32,
    /// Open seeks (`POST /api/pair` waiting for an opponent) one IP address may hold, an
    /// IPv6 /64 counting as one address (0: unlimited).
    #[arg(long, env = "MILL_MAX_SEEKS_PER_ADDRESS", default_value_t = 10)]
    max_seeks_per_address: u32,
    /// Messages per second one socket may send, sustained.
    #[arg(long, env = "MILL_MESSAGES_PER_SECOND", default_value_t = 20)]
    messages_per_second: u32,
    /// Open connections (HTTP and WebSocket) allowed from one IP address (0: unlimited).
    #[arg(long, env = "MILL_MAX_CONNS_PER_IP", default_value_t = 64)]
    max_conns_per_ip: usize,
    /// Open connections allowed in all (0: unlimited). Either cap is lowered to what the
    /// open-file limit allows, less a reserve for the database and the listener.
    #[arg(long, env = "MILL_MAX_CONNS", default_value_t = 16_384)]
    max_conns: usize,
    /// Sockets that may watch one room without a seat (lowered to --max-conns if above it).
    #[arg(long, env = "MILL_MAX_SPECTATORS", default_value_t = mill_server::rooms::MAX_SPECTATORS)]
    max_spectators: usize,
    /// Seconds a new WebSocket has to send `hello`.
    #[arg(long, env = "MILL_HELLO_SECS", default_value_t = 10)]
    hello_secs: u64,
    /// Seconds a connection has to send a request's headers, and the most it may idle
    /// between two requests.
    #[arg(long, env = "MILL_HEADER_SECS", default_value_t = 10)]
    header_secs: u64,
    /// Seconds a quick-pairing request (`POST /api/pair`) waits for an opponent before
    /// it is answered `no-opponent` (fractions allowed).
    #[arg(long, env = "MILL_PAIR_SECS", default_value_t = 60.0)]
    pair_secs: f64,
    /// The server's own arenas, each run back to back: VARIANT/INITIAL+INCREMENT/MINUTES,
    /// comma-separated (e.g. nine/180+2/60)
    #[arg(long = "arenas", env = "MILL_ARENAS", value_delimiter = ',')]
    arenas: Vec<String>,
    /// Log format.
    #[arg(long, env = "MILL_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

fn default_static_dir() -> PathBuf {
    let here = PathBuf::from("static");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static"))
}

/// `./tb`, else the repository's `tb/` (where `scripts/run` generates them), if either
/// is a directory.
fn default_tb_dir() -> Option<PathBuf> {
    [
        PathBuf::from("tb"),
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tb")),
    ]
    .into_iter()
    .find(|d| d.is_dir())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    logging::init(args.log_format);
    anyhow::ensure!(
        args.idle_days.is_finite() && args.idle_days > 0.0,
        "--idle-days must be a positive number of days"
    );
    anyhow::ensure!(args.purge_every_secs > 0, "--purge-every-secs must be positive");
    anyhow::ensure!(args.max_spectators > 0, "--max-spectators must be positive");
    anyhow::ensure!(args.hello_secs > 0, "--hello-secs must be positive");
    anyhow::ensure!(args.header_secs > 0, "--header-secs must be positive");
    anyhow::ensure!(
        args.pair_secs.is_finite() && args.pair_secs > 0.0 && args.pair_secs <= 3600.0,
        "--pair-secs must be a positive number of seconds, at most 3600"
    );
    if let Some(url) = &args.public_url {
        anyhow::ensure!(
            url.starts_with("http://") || url.starts_with("https://"),
            "--public-url must start with http:// or https://"
        );
    }
    // Every socket is a file descriptor; the default soft limit (often 1024) would cap
    // the server at a few hundred rooms.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => tracing::debug!(limit = n, "open file limit"),
        Err(e) => tracing::warn!(error = %e, "could not raise the open file limit"),
    }

    let db = mill_server::store::DbTarget::parse(&args.db);
    let mut config = Config::new(db, args.static_dir.unwrap_or_else(default_static_dir));
    config.tb_dir = args.tb_dir.or_else(default_tb_dir);
    config.tb_download_max = args.tb_download_max;
    config.tb_probes_per_minute = args.tb_probes_per_minute;
    config.public_url = args.public_url;
    config.idle_after = Duration::from_secs_f64(args.idle_days * 86_400.0);
    config.purge_every = Duration::from_secs(args.purge_every_secs);
    config.rooms_per_minute = args.rooms_per_minute;
    config.max_seeks_per_address = args.max_seeks_per_address;
    config.messages_per_second = args.messages_per_second;
    config.allowed_hosts = args.allowed_hosts;
    config.passkey_origins = args.passkey_origins;
    config.passkey_rp_id = args.passkey_rp_id;
    mill_server::passkeys::RelyingParty::from_config(&config)
        .map_err(|e| anyhow::anyhow!("passkeys: {e} (see --passkey-origin, --passkey-rp-id)"))?;
    config.max_conns_per_ip = args.max_conns_per_ip;
    config.max_conns = args.max_conns;
    config.max_spectators = args.max_spectators;
    config.hello_timeout = Duration::from_secs(args.hello_secs);
    config.header_timeout = Duration::from_secs(args.header_secs);
    config.pair_wait = Duration::from_secs_f64(args.pair_secs);
    config.arenas = args
        .arenas
        .iter()
        .map(|a| a.parse())
        .collect::<Result<_, String>>()
        .map_err(|e| anyhow::anyhow!("--arenas: {e}"))?;

    // Open (and migrate) the database before saying the server is running, so a bad
    // path fails here with a clear message and nothing printed on stdout.
    mill_server::store::check(&config.db)
        .await
        .with_context(|| format!("cannot open the database {}", config.db))?;
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener.local_addr()?;
    println!("Mill is running at http://{addr}/");
    mill_server::run(listener, config, shutdown_signal())
        .await
        .context("server failed")?;
    Ok(())
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
    tracing::info!("shutting down");
}

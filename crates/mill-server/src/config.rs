//! Server settings, filled by `main` from flags and environment or by tests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};
use crate::store::DbTarget;

/// The largest endgame table file the page may download (16 MiB: Nine's 4 v 4, 14.7 MB,
/// and every smaller class; not 4 v 5 nor 5 v 5).
pub const DEFAULT_TB_DOWNLOAD_MAX: u64 = 16 * 1024 * 1024;

/// Everything `run` needs besides the listener.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database: a SQLite file (created if missing) or a PostgreSQL URL.
    pub db: DbTarget,
    /// Directory with the page (`index.html`, `rules.html`, scripts).
    pub static_dir: PathBuf,
    /// Directory with the endgame tables (`mill tb generate`'s `*.mtb` files), served
    /// under `/tb/` for the page's engine; `None`: no tables.
    pub tb_dir: Option<PathBuf>,
    /// Endgame table files larger than this are not served under `/tb/` (nor read into
    /// memory): the manifest lists them under `probed`, and `GET /api/tb/probe` answers
    /// their positions (Nine's 4 v 5, 5 v 4 and 5 v 5, 47, 44 and 132 MB, are too big for a phone).
    pub tb_download_max: u64,
    /// Probes of the endgame tables (`GET /api/tb/probe`) per minute from one IP address,
    /// bursts of as many (0: unlimited).
    pub tb_probes_per_minute: u32,
    /// Base URL for invite links, e.g. `https://mill.example.org`.
    pub public_url: Option<String>,
    /// Without `public_url`: `Host` headers invite links may be built from (compared
    /// without case). Any other Host gets links to the listening address.
    pub allowed_hosts: Vec<String>,
    /// The origins whose pages may use passkeys (`https://mill.example.org`); empty:
    /// `public_url`'s, else `http://localhost` on any port (passkeys.rs).
    pub passkey_origins: Vec<String>,
    /// The passkeys' relying party id; `None`: the first passkey origin's host.
    pub passkey_rp_id: Option<String>,
    /// A room with no action and no connection for this long is deleted.
    pub idle_after: Duration,
    /// How often the purge job looks for idle rooms.
    pub purge_every: Duration,
    /// A room in memory with no socket and no write in flight for this long is dropped
    /// from memory (it stays in the database and is loaded again when asked for).
    pub evict_after: Duration,
    /// How long a quick-pairing request waits for an opponent before `no-opponent`.
    /// It is not bound by `request_timeout`.
    pub pair_wait: Duration,
    /// Rooms created or joined, and seeks, per minute from one IP address (0: unlimited).
    pub rooms_per_minute: u32,
    /// Open seeks (quick pairing's waiting requests) one address may hold, an IPv6 /64
    /// counting as one address (0: unlimited).
    pub max_seeks_per_address: u32,
    /// Messages per second one socket may send, sustained (bursts of twice that).
    pub messages_per_second: u32,
    /// Seconds of silence after which a socket is dropped.
    pub idle_socket: Duration,
    /// How often the server pings each socket.
    pub ping_every: Duration,
    /// Open connections allowed from one IP address (0: unlimited).
    pub max_conns_per_ip: usize,
    /// Open connections allowed in all (0: unlimited). `run` lowers both caps to what
    /// the process's open-file limit allows (`listen::ConnLimits::for_process`).
    pub max_conns: usize,
    /// Sockets allowed to watch one room without a seat; `run` lowers it to `max_conns`.
    pub max_spectators: usize,
    /// How long a new WebSocket has to say `hello`.
    pub hello_timeout: Duration,
    /// How long a connection has to send a request's headers; also the longest idle
    /// time between two requests on a kept-alive connection.
    pub header_timeout: Duration,
    /// How long a request may take, start to answer.
    pub request_timeout: Duration,
    /// Largest request body accepted (the API's bodies are empty or `{}`).
    pub max_body: usize,
    /// Wall clock for the purge job.
    pub clock: Arc<dyn Clock>,
    /// The server's own arenas, run back to back (`--arenas`, arena/schedule.rs).
    pub arenas: Vec<crate::arena::schedule::Scheduled>,
}

impl Config {
    /// Defaults for a database file and a static directory.
    pub fn new(db: impl Into<DbTarget>, static_dir: impl Into<PathBuf>) -> Config {
        Config {
            db: db.into(),
            static_dir: static_dir.into(),
            tb_dir: None,
            tb_download_max: DEFAULT_TB_DOWNLOAD_MAX,
            tb_probes_per_minute: 600,
            public_url: None,
            allowed_hosts: Vec::new(),
            passkey_origins: Vec::new(),
            passkey_rp_id: None,
            idle_after: Duration::from_secs(7 * 24 * 3600),
            purge_every: Duration::from_secs(3600),
            evict_after: Duration::from_secs(60),
            pair_wait: Duration::from_secs(60),
            rooms_per_minute: 30,
            max_seeks_per_address: 10,
            messages_per_second: 20,
            idle_socket: Duration::from_secs(30),
            ping_every: Duration::from_secs(10),
            max_conns_per_ip: 64,
            max_conns: 16_384,
            max_spectators: crate::rooms::MAX_SPECTATORS,
            hello_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_body: 16 * 1024,
            clock: Arc::new(SystemClock),
            arenas: Vec::new(),
        }
    }
}

//! Server settings, filled by `main` from flags and environment or by tests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};

/// Everything `run` needs besides the listener.
#[derive(Debug, Clone)]
pub struct Config {
    /// SQLite database file (created if missing).
    pub db_path: PathBuf,
    /// Directory with the page (`index.html`, `rules.html`, scripts).
    pub static_dir: PathBuf,
    /// Base URL for invite links, e.g. `https://mill.example.org`; when `None` the
    /// request's `Host` header is used.
    pub public_url: Option<String>,
    /// A room with no action and no connection for this long is deleted.
    pub idle_after: Duration,
    /// How often the purge job looks for idle rooms.
    pub purge_every: Duration,
    /// A room in memory with no socket and no write in flight for this long is dropped
    /// from memory (it stays in the database and is loaded again when asked for).
    pub evict_after: Duration,
    /// Rooms created or joined per minute from one IP address (0: unlimited).
    pub rooms_per_minute: u32,
    /// Messages per second one socket may send, sustained (bursts of twice that).
    pub messages_per_second: u32,
    /// Seconds of silence after which a socket is dropped.
    pub idle_socket: Duration,
    /// How often the server pings each socket.
    pub ping_every: Duration,
    /// Wall clock for the purge job.
    pub clock: Arc<dyn Clock>,
}

impl Config {
    /// Defaults for a database file and a static directory.
    pub fn new(db_path: impl Into<PathBuf>, static_dir: impl Into<PathBuf>) -> Config {
        Config {
            db_path: db_path.into(),
            static_dir: static_dir.into(),
            public_url: None,
            idle_after: Duration::from_secs(7 * 24 * 3600),
            purge_every: Duration::from_secs(3600),
            evict_after: Duration::from_secs(60),
            rooms_per_minute: 30,
            messages_per_second: 20,
            idle_socket: Duration::from_secs(30),
            ping_every: Duration::from_secs(10),
            clock: Arc::new(SystemClock),
        }
    }
}

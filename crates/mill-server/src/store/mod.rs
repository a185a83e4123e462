//! The one storage interface the room logic uses, the [`Store`] trait, and its
//! implementations: the embedded SQLite file (the default: one process, group commit by
//! the writer thread of `sqlite.rs`), a PostgreSQL database shared by several instances
//! (`postgres.rs`), and an in-memory store for tests (`memory.rs`). The two backends are
//! private: the rest of the server opens one with [`open`] and holds it as
//! `Arc<dyn Store>`. What every store keeps and reads back is in `types.rs`.
//!
//! Every store keeps the same promises, and the room logic calls them in the same order
//! (`rooms/command.rs`): a command is acknowledged only after its transaction has
//! committed; the database decides every race by two keys, (room, round, seq) and
//! (room, seat, client id), so a retried client id is never applied twice and two
//! commands never take one place; a room's events replay to exactly what was
//! acknowledged (`tests/store_conformance.rs` holds every store to them). Only a shared
//! database has other instances: its news, presence, seat claims and heartbeats are the
//! PostgreSQL side's, reported to the room logic through [`Instances`]; a store that no
//! other instance shares keeps the trait's defaults for that part, which do nothing.
//!
//! The trait's async methods return boxed futures (`async_trait`): the rooms hold a
//! `dyn Store`, which an `async fn` in a trait cannot be, and naming the futures' `Send`
//! bound on a generic parameter instead (return-type notation) is not stable in Rust
//! 1.95. One allocation per call is nothing beside a commit.

pub mod accounts;
pub mod arena;
pub mod cards;
mod memory;
pub mod passkeys;
mod postgres;
mod sqlite;
pub mod types;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use mill_core::Color;

pub use self::memory::Memory;
use self::postgres::Pg;
use self::sqlite::Sqlite;
/// The SQLite schema, for tools that write a file directly (`mill-load`'s seed) and for
/// the schema's tests: its migrations, and the file opened and brought up to date.
pub use self::sqlite::{migrations as sqlite_migrations, open as open_sqlite_file};
pub use self::types::{
    Append, Appended, DbError, Entry, Instances, News, OpenSeek, Outage, Presence, Recheck, Rematch, Seek,
    SeekState, SeekWaiters, StoredEvent, StoredRoom, seek_pool,
};
use crate::timecontrol::TimeControl;

/// Where the data lives: `--db` is a file path or a `postgres://`/`postgresql://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbTarget {
    /// A SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL.
    Postgres(String),
}

impl DbTarget {
    /// Reads a `--db` value.
    pub fn parse(value: &str) -> DbTarget {
        if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            DbTarget::Postgres(value.to_string())
        } else {
            DbTarget::Sqlite(PathBuf::from(value))
        }
    }
}

impl std::fmt::Display for DbTarget {
    /// The file, or the URL without its password (which must never reach a log).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbTarget::Sqlite(path) => write!(f, "{}", path.display()),
            DbTarget::Postgres(url) => {
                let shown = match (url.find("://"), url.rfind('@')) {
                    (Some(scheme), Some(at)) if at > scheme => {
                        let userinfo = &url[scheme + 3..at];
                        let user = userinfo.split(':').next().unwrap_or("");
                        format!("{}{}@{}", &url[..scheme + 3], user, &url[at + 1..])
                    }
                    _ => url.clone(),
                };
                f.write_str(&shown)
            }
        }
    }
}

impl From<&Path> for DbTarget {
    fn from(p: &Path) -> Self {
        DbTarget::Sqlite(p.to_path_buf())
    }
}

impl From<PathBuf> for DbTarget {
    fn from(p: PathBuf) -> Self {
        DbTarget::Sqlite(p)
    }
}

impl From<&PathBuf> for DbTarget {
    fn from(p: &PathBuf) -> Self {
        DbTarget::Sqlite(p.clone())
    }
}

impl From<&str> for DbTarget {
    fn from(s: &str) -> Self {
        DbTarget::parse(s)
    }
}

impl From<String> for DbTarget {
    fn from(s: String) -> Self {
        DbTarget::parse(&s)
    }
}

/// What [`open`] leaves running that must be waited for at shutdown: the SQLite writer
/// thread, which ends once every handle to its store is gone.
#[derive(Debug, Default)]
pub struct Running(Option<JoinHandle<()>>);

impl Running {
    /// Waits (on a blocking thread) for what the store left running to end.
    pub async fn finish(self) {
        if let Some(thread) = self.0 {
            tokio::task::spawn_blocking(move || thread.join()).await.ok();
        }
    }
}

/// Group commit: how long a busy writer waits, once the first job of a batch has
/// arrived, for others to join it (`sqlite.rs` `gather`, `postgres.rs` `write_loop`).
/// Taking only what is queued already groups actions only once the writer is
/// saturated, when more than one arrives during one commit: below that, each action
/// paid a commit of its own (on SQLite an fsync and its own WAL pages: the events leaf,
/// the index leaf, the room's row; on PostgreSQL a round trip and a WAL flush), so the
/// disk's single-commit rate (about 7k/s on the 2-core test machine) was the ceiling,
/// and the CPU those commits took came out of the rooms'. Waiting 2 ms gathers about 15
/// actions per commit at 7,400 actions/s, so commits fall to about 500/s, far below the
/// disk's rate; it adds at most 2 ms to an action's ack, 4 % of the 50 ms p99 aimed
/// for, and a longer wait would add latency to save commits the disk no longer needs
/// saved. The batch's size is bounded too (each backend's `MAX_BATCH`).
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// The writer counts as busy (and gathers, see [`GATHER`]) when a batch's first job
/// arrives within this long of its last commit: jobs arriving at more than about 500 a
/// second. A lone action on a quiet server is committed at once, as before.
const BUSY: std::time::Duration = std::time::Duration::from_millis(2);

/// How far `rooms.active_at` may lag behind a room's last event. An action moves it
/// only when it is more than this old, so a busy room rewrites its `rooms` row about once
/// a minute rather than with every action (one random page less in each commit). It is a
/// lower bound: the purge also asks the room's events (`at >= cutoff`), so no room with
/// activity after the cutoff is ever purged, and `load_room` reads the exact time.
pub(crate) const ACTIVE_SLACK_MS: i64 = 60_000;

/// Pool size for PostgreSQL: each connection carries one command's round trip at a
/// time, and commits wait for the WAL flush, so a few dozen keep the disk busy.
const PG_POOL: usize = 32;

/// Opens (creating and migrating as needed) the database.
pub async fn open(target: &DbTarget) -> Result<(Arc<dyn Store>, Running), DbError> {
    match target {
        DbTarget::Sqlite(path) => {
            let (db, thread) = Sqlite::open(path).await?;
            Ok((Arc::new(db), Running(Some(thread))))
        }
        DbTarget::Postgres(url) => {
            let pg = Pg::open(url, PG_POOL).await?;
            Ok((Arc::new(pg), Running(None)))
        }
    }
}

/// Checks that the database can be opened and migrated (before the server says it is
/// running).
pub async fn check(target: &DbTarget) -> Result<(), DbError> {
    match target {
        DbTarget::Sqlite(path) => {
            let path = path.clone();
            tokio::task::spawn_blocking(move || sqlite::open(&path).map(drop))
                .await
                .map_err(|_| DbError::failed("SQLite", "opening the database panicked"))?
        }
        // Opening registers an instance; `open` itself reports a bad URL clearly.
        DbTarget::Postgres(_) => Ok(()),
    }
}

/// The storage the rooms write to and load from (see the module's documentation for
/// what every implementation promises).
#[async_trait::async_trait]
pub trait Store: std::fmt::Debug + Send + Sync + 'static {
    /// A new room with its Light seat (its key's hash) and round 1.
    async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
        clock: Option<TimeControl>,
    ) -> Result<(), DbError>;

    /// Gives the Dark seat to the key hashed `key_hash`; `false` if it is taken (the
    /// seat's primary key decides).
    async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError>;

    /// Appends one event; returns once it has committed, or what holds its place or
    /// its client id.
    async fn append(&self, a: Append) -> Result<Appended, DbError>;

    /// Where seat `seat`'s command `client_id` is stored in room `room`: (round, seq).
    async fn find(&self, room: &str, seat: Color, client_id: &str) -> Result<Option<(u32, u32)>, DbError>;

    /// Reads one room, `None` if it does not exist; a row that does not make sense is
    /// [`DbError::Corrupt`].
    async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError>;

    /// Notes that something happened in a room (a socket came or went); not waited for.
    fn touch(&self, room: &str, at: i64);

    /// Rooms idle since `cutoff` (and held by no other instance), at most `limit`.
    async fn idle_rooms(&self, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError>;

    /// The rooms whose current round may still have a clock running (see
    /// [`types::TIMED_IN_PLAY_SQL`]): loaded at start, so the server's own check flags
    /// them with nobody sending anything.
    async fn timed_in_play(&self) -> Result<Vec<String>, DbError>;

    /// Deletes those of `rooms` still idle since `cutoff` (and held by no other
    /// instance), with all their rows; returns the ones deleted.
    async fn purge(&self, rooms: Vec<String>, cutoff: i64) -> Result<Vec<String>, DbError>;

    /// Notes that a server is running at `now`; with `gap`, a span since the last such
    /// note longer than `gap` ms is recorded as an outage first (the database decides
    /// it once, whichever instance sees it). Returns the outages of the last
    /// [`types::OUTAGES_KEPT_MS`], oldest first. A store that outlives no server (the
    /// in-memory one) has none.
    async fn alive(&self, _now: i64, _gap: Option<i64>) -> Result<Vec<Outage>, DbError> {
        Ok(Vec::new())
    }

    /// Quick pairing: withdraws the seeker's older seeks (a paired one whose request
    /// has not yet taken it too: see `rooms/pairing.rs`), then pairs `seek` with the
    /// oldest open seek of another seeker in its pool — creating the room with both
    /// seats and naming it in that seek, in one transaction, so each pairing is decided
    /// once by the database — or leaves it waiting. Wakes the waiters of the seeks it
    /// changed, on whichever instance they are. Answers [`SeekState::Paired`] (this
    /// seeker's seat) or [`SeekState::Waiting`]; [`SeekState::Taken`] (its id is
    /// another's) and [`SeekState::Crowded`] (it would wait, and its address holds
    /// [`Seek::address_cap`] open seeks of other seekers) change nothing.
    async fn seek(&self, seek: Seek) -> Result<SeekState, DbError>;

    /// Rated pairing: a seek that waits looks again, in a transaction as
    /// [`Store::seek`]'s (the pool's): when another open seek of its rated pool is now
    /// within the rating window, widened by the older one's wait
    /// ([`crate::ratings::pairing_window`]), the closest is claimed, the room created
    /// with both seats and both rows name it (each request then takes its own row, as
    /// after a pairing on arrival). Answers where the seek stands afterwards, as
    /// [`Store::seek_state`]; a casual seek is only read.
    async fn recheck(&self, r: Recheck) -> Result<SeekState, DbError>;

    /// Deletes seek `id` (only while it is open, with `open_only`) and wakes its
    /// waiter; returns what it was ([`SeekState::Gone`]: nothing deleted).
    async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError>;

    /// Where seek `id` stands.
    async fn seek_state(&self, id: &str) -> Result<SeekState, DbError>;

    /// The open seeks (of every instance), at most `limit`, shared out by address when
    /// there are more ([`types::lobby_choice`]), shown oldest first.
    async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError>;

    /// The requests on this instance waiting for their seeks.
    fn seek_waiters(&self) -> &Arc<SeekWaiters>;

    /// Arenas (`store/arena.rs`): one request, answered by this store; typed calls in
    /// [`arena::Arenas`].
    async fn arena(&self, req: arena::ArenaRequest) -> Result<arena::ArenaAnswer, DbError>;

    /// Waits until every write queued so far has committed (a store whose every write
    /// is awaited by the one that made it has nothing to wait for).
    async fn flush(&self) -> Result<(), DbError> {
        Ok(())
    }

    // What follows is sharing the database with other instances; the defaults are a
    // store that no other instance shares.

    /// Whether other instances share this database (and may change its rooms).
    fn shared(&self) -> bool {
        false
    }

    /// What other instances changed in these rooms since a (round, seq) each, in the
    /// order asked.
    async fn news(&self, wanted: &[(String, u32, u32)]) -> Result<Vec<News>, DbError> {
        Ok(wanted.iter().map(|_| News::default()).collect())
    }

    /// Publishes who holds a seat on this instance, for the others.
    fn publish(&self, _presence: Presence) {}

    /// Starts the background work a shared database needs (news, presence,
    /// heartbeat), reporting to `rooms`. Abort the tasks at shutdown.
    fn start(&self, _rooms: Arc<dyn Instances>) -> Vec<tokio::task::JoinHandle<()>> {
        Vec::new()
    }

    /// Withdraws this instance (and its presence) on a clean shutdown.
    async fn leave(&self) -> Result<(), DbError> {
        Ok(())
    }
}

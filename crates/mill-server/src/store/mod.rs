//! The one storage interface the room logic uses, over either backend: the embedded
//! SQLite file (the default: one process, group commit by the writer thread of
//! `sqlite.rs`) or a PostgreSQL database shared by several instances (`postgres.rs`).
//! What both store and read back is in `types.rs`.
//!
//! Both keep the same promises, and the room logic calls both in the same order
//! (`rooms/command.rs`): a command is acknowledged only after its transaction has
//! committed; the database decides every race by two keys, (room, round, seq) and
//! (room, seat, client id), so a retried client id is never applied twice and two
//! commands never take one place; a room's events replay to exactly what was
//! acknowledged. Only a shared database has other instances: its news, presence,
//! seat claims and heartbeats are the PostgreSQL side's, reported to the room logic
//! through [`Instances`]; on SQLite that part does nothing.

pub mod postgres;
pub mod sqlite;
pub mod types;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use mill_core::Color;

use self::postgres::Pg;
use self::sqlite::Sqlite;
pub use self::types::{
    Append, Appended, DbError, Entry, Instances, News, OpenSeek, Outage, Presence, Seek, SeekState,
    SeekWaiters, StoredEvent, StoredRoom, seek_pool,
};

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

/// The storage the rooms write to and load from.
#[derive(Debug, Clone)]
pub enum Store {
    /// SQLite: the writer thread (group commit) and a reader for loading rooms.
    Sqlite(Sqlite),
    /// PostgreSQL, shared with other instances.
    Postgres(Arc<Pg>),
}

/// What [`Store::open`] leaves running that must be waited for at shutdown.
#[derive(Debug)]
pub enum Running {
    /// The SQLite writer thread (ends when every handle to the store is gone).
    Sqlite(JoinHandle<()>),
    /// Nothing to join.
    Postgres,
}

/// Pool size for PostgreSQL: each connection carries one command's round trip at a
/// time, and commits wait for the WAL flush, so a few dozen keep the disk busy.
const PG_POOL: usize = 32;

impl Store {
    /// Opens (creating and migrating as needed) the database.
    pub async fn open(target: &DbTarget) -> Result<(Store, Running), DbError> {
        match target {
            DbTarget::Sqlite(path) => {
                let (db, thread) = Sqlite::open(path).await?;
                Ok((Store::Sqlite(db), Running::Sqlite(thread)))
            }
            DbTarget::Postgres(url) => {
                let pg = Pg::open(url, PG_POOL).await?;
                Ok((Store::Postgres(Arc::new(pg)), Running::Postgres))
            }
        }
    }

    /// Checks that the database can be opened and migrated (before the server says it
    /// is running).
    pub async fn check(target: &DbTarget) -> Result<(), DbError> {
        match target {
            DbTarget::Sqlite(path) => {
                let path = path.clone();
                tokio::task::spawn_blocking(move || sqlite::open(&path).map(drop))
                    .await
                    .map_err(|_| DbError::Corrupt("opening the database panicked".into()))?
            }
            // Opening registers an instance; `open` itself reports a bad URL clearly.
            DbTarget::Postgres(_) => Ok(()),
        }
    }

    /// A new room with its Light seat (its key's hash) and round 1.
    pub async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
        clock: Option<crate::timecontrol::TimeControl>,
    ) -> Result<(), DbError> {
        match self {
            Store::Sqlite(db) => db.create_room(id, key_hash, at, rules, clock).await,
            Store::Postgres(pg) => pg.create_room(id, key_hash, at, rules, clock).await,
        }
    }

    /// Gives the Dark seat to the key hashed `key_hash`; `false` if it is taken (the
    /// seat's primary key decides).
    pub async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError> {
        match self {
            Store::Sqlite(db) => db.join(room, key_hash, at).await,
            Store::Postgres(pg) => pg.join(room, key_hash, at).await,
        }
    }

    /// Appends one event; returns once it has committed, or what holds its place or
    /// its client id.
    pub async fn append(&self, a: Append) -> Result<Appended, DbError> {
        match self {
            Store::Sqlite(db) => db.append(a).await,
            Store::Postgres(pg) => pg.append(a).await,
        }
    }

    /// Where seat `seat`'s command `client_id` is stored in room `room`: (round, seq).
    pub async fn find(
        &self,
        room: &str,
        seat: Color,
        client_id: &str,
    ) -> Result<Option<(u32, u32)>, DbError> {
        match self {
            Store::Sqlite(db) => db.find(room, seat, client_id).await,
            Store::Postgres(pg) => pg.find(room, seat, client_id).await,
        }
    }

    /// Reads one room, `None` if it does not exist; a row that does not make sense is
    /// [`DbError::Corrupt`].
    pub async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        match self {
            Store::Sqlite(db) => db.load_room(id).await,
            Store::Postgres(pg) => pg.load_room(id).await,
        }
    }

    /// Notes that something happened in a room (a socket came or went); not waited for.
    pub fn touch(&self, room: &str, at: i64) {
        match self {
            Store::Sqlite(db) => db.touch(room, at),
            Store::Postgres(pg) => pg.touch_later(room, at),
        }
    }

    /// Rooms idle since `cutoff` (and held by no other instance), at most `limit`.
    pub async fn idle_rooms(&self, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError> {
        match self {
            Store::Sqlite(db) => db.idle_rooms(cutoff, limit).await,
            Store::Postgres(pg) => pg.idle_rooms(cutoff, limit).await,
        }
    }

    /// The rooms whose current round may still have a clock running (see
    /// [`types::TIMED_IN_PLAY_SQL`]): loaded at start, so the server's own check flags
    /// them with nobody sending anything.
    pub async fn timed_in_play(&self) -> Result<Vec<String>, DbError> {
        match self {
            Store::Sqlite(db) => db.timed_in_play().await,
            Store::Postgres(pg) => pg.timed_in_play().await,
        }
    }

    /// Deletes those of `rooms` still idle since `cutoff` (and held by no other
    /// instance), with all their rows; returns the ones deleted.
    pub async fn purge(&self, rooms: Vec<String>, cutoff: i64) -> Result<Vec<String>, DbError> {
        match self {
            Store::Sqlite(db) => db.purge(rooms, cutoff).await,
            Store::Postgres(pg) => pg.purge(rooms, cutoff).await,
        }
    }

    /// Notes that a server is running at `now`; with `gap`, a span since the last such
    /// note longer than `gap` ms is recorded as an outage first (the database decides
    /// it once, whichever instance sees it). Returns the outages of the last
    /// [`types::OUTAGES_KEPT_MS`], oldest first.
    pub async fn alive(&self, now: i64, gap: Option<i64>) -> Result<Vec<Outage>, DbError> {
        match self {
            Store::Sqlite(db) => db.alive(now, gap).await,
            Store::Postgres(pg) => pg.alive(now, gap).await,
        }
    }

    /// Waits until every write queued so far has committed.
    pub async fn flush(&self) -> Result<(), DbError> {
        match self {
            Store::Sqlite(db) => db.flush().await,
            // every PostgreSQL write is awaited by the one that made it
            Store::Postgres(_) => Ok(()),
        }
    }

    /// Whether other instances share this database (and may change its rooms).
    pub fn shared(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// What other instances changed in these rooms since a (round, seq) each, in the
    /// order asked; nothing on SQLite.
    pub async fn news(&self, wanted: &[(String, u32, u32)]) -> Result<Vec<News>, DbError> {
        match self {
            Store::Sqlite(_) => Ok(wanted.iter().map(|_| News::default()).collect()),
            Store::Postgres(pg) => pg.news(wanted).await,
        }
    }

    /// Publishes who holds a seat on this instance, for the others.
    pub fn publish(&self, presence: Presence) {
        match self {
            Store::Sqlite(_) => {}
            Store::Postgres(pg) => pg.publish(presence),
        }
    }

    /// Starts the background work a shared database needs (news, presence,
    /// heartbeat), reporting to `rooms`; nothing on SQLite. Abort the tasks at shutdown.
    pub fn start(&self, rooms: Arc<dyn Instances>) -> Vec<tokio::task::JoinHandle<()>> {
        match self {
            Store::Sqlite(_) => Vec::new(),
            Store::Postgres(pg) => pg.start(rooms),
        }
    }

    /// Quick pairing: withdraws the seeker's open seeks, then pairs `seek` with the
    /// oldest open seek of another seeker in its pool — creating the room with both
    /// seats and naming it in that seek, in one transaction, so each pairing is decided
    /// once by the database — or leaves it waiting. Wakes the waiters of the seeks it
    /// changed, on whichever instance they are. Answers [`SeekState::Paired`] (this
    /// seeker's seat) or [`SeekState::Waiting`].
    pub async fn seek(&self, seek: Seek) -> Result<SeekState, DbError> {
        match self {
            Store::Sqlite(db) => db.seek(seek).await,
            Store::Postgres(pg) => pg.seek(seek).await,
        }
    }

    /// Deletes seek `id` (only while it is open, with `open_only`) and wakes its
    /// waiter; returns what it was ([`SeekState::Gone`]: nothing deleted).
    pub async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError> {
        match self {
            Store::Sqlite(db) => db.withdraw(id, open_only).await,
            Store::Postgres(pg) => pg.withdraw(id, open_only).await,
        }
    }

    /// Where seek `id` stands.
    pub async fn seek_state(&self, id: &str) -> Result<SeekState, DbError> {
        match self {
            Store::Sqlite(db) => db.seek_state(id).await,
            Store::Postgres(pg) => pg.seek_state(id).await,
        }
    }

    /// The open seeks (of every instance), oldest first, at most `limit`.
    pub async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
        match self {
            Store::Sqlite(db) => db.open_seeks(limit).await,
            Store::Postgres(pg) => pg.open_seeks(limit).await,
        }
    }

    /// The requests on this instance waiting for their seeks.
    pub fn seek_waiters(&self) -> &Arc<SeekWaiters> {
        match self {
            Store::Sqlite(db) => &db.waiters,
            Store::Postgres(pg) => &pg.waiters,
        }
    }

    /// Withdraws this instance (and its presence) on a clean shutdown.
    pub async fn leave(&self) -> Result<(), DbError> {
        match self {
            Store::Sqlite(_) => Ok(()),
            Store::Postgres(pg) => pg.leave().await,
        }
    }
}

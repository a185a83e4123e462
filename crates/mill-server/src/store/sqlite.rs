//! The SQLite backend: the file, its migrations, loading rooms, and the single writer
//! thread. One process owns the file, so "other instances" never exist here.
//!
//! Every write goes through one thread that takes all the jobs waiting in its queue,
//! runs them in one transaction and commits once (group commit), and only then runs
//! each job's completion (on a notifier thread, in commit order, so the fan-out of one
//! batch overlaps the next batch's fsync). With WAL and `synchronous=FULL` a commit survives a power
//! cut, so a completion may acknowledge. Many rooms' actions share one fsync, which is
//! what lifts throughput past the disk's commits per second.

use std::path::Path;
use std::sync::LazyLock;
use std::sync::mpsc;
use std::thread;

use include_dir::{Dir, include_dir};
use rusqlite::{Connection, OptionalExtension, params};
use rusqlite_migration::Migrations;
use tokio::sync::oneshot;

use super::types::{
    Append, Appended, DbError, OpenSeek, Outage, Recheck, Seek, SeekState, SeekWaiters, StoredEvent,
    StoredRoom, clock_columns, key_hash, parse_clock, parse_command, parse_seat, parse_stamp, seat_name,
};
use super::{BUSY, GATHER, Store};
use crate::ratings::Speed;
mod checkpoint;
mod seek;
use checkpoint::start_checkpointer;
use seek::*;

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        DbError::failed("SQLite", e)
    }
}

impl From<rusqlite_migration::Error> for DbError {
    fn from(e: rusqlite_migration::Error) -> Self {
        DbError::failed("SQLite migrations", e)
    }
}

static MIGRATIONS_DIR: Dir = include_dir!("$CARGO_MANIFEST_DIR/../../migrations/sqlite");

static MIGRATIONS: LazyLock<Migrations<'static>> =
    LazyLock::new(|| Migrations::from_directory(&MIGRATIONS_DIR).expect("migrations/ is well formed"));

/// Most jobs committed together: a transaction of this many events is a few ms of CPU,
/// and its acks go out together.
const MAX_BATCH: usize = 4096;

/// The schema's migrations (for a `validate` test).
pub fn migrations() -> &'static Migrations<'static> {
    &MIGRATIONS
}

/// Opens (or creates) the database file and brings its schema up to date.
pub fn open(path: &Path) -> Result<Connection, DbError> {
    let mut conn = Connection::open(path)?;
    // WAL lets the writer commit without blocking readers; FULL makes each commit
    // durable across a power cut, which is the promise behind every ack.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "busy_timeout", 5000)?;
    MIGRATIONS.to_latest(&mut conn)?;
    // One process owns the file: no request of an earlier one is still waiting.
    conn.execute("DELETE FROM seeks", [])?;
    // Nor an arena socket: its tickets' keys were in that process's memory.
    conn.execute("UPDATE arena_players SET ticket_hash = NULL", [])?;
    Ok(conn)
}

/// Where seek `id` stands.
pub fn seek_state(conn: &Connection, id: &str) -> Result<SeekState, DbError> {
    let row: Option<(Option<String>, Option<String>)> = conn
        .prepare_cached("SELECT room_id, seat FROM seeks WHERE id = ?1")?
        .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?)))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    match row {
        None => Ok(SeekState::Gone),
        Some((room, seat)) => SeekState::from_columns(room, seat),
    }
}

/// The open seeks, at most `limit`, shared out by address, shown oldest first
/// ([`super::types::lobby_choice`]).
pub fn open_seeks(conn: &Connection, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
    let mut stmt = conn.prepare_cached(&super::types::lobby_choice("TRUE", "?1"))?;
    let mut rows = stmt.query(params![limit as i64])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(OpenSeek {
            variant: r.get(0)?,
            clock: parse_clock(r.get(1)?, r.get(2)?, r.get(3)?, "(a seek)")?,
            since: r.get(4)?,
            account: r.get(5)?,
            rated: r.get(6)?,
        });
    }
    Ok(out)
}

/// Reads one room with its seats and events, in order; `None` if there is no such room.
/// Uses the `events_room` index (migration 03), so it costs the room's own rows only.
pub fn load_room(conn: &Connection, id: &str) -> Result<Option<StoredRoom>, DbError> {
    #[allow(clippy::type_complexity)]
    let row: Option<(i64, String, Option<i64>, Option<i64>, Option<i64>, bool, bool)> = conn
        .prepare_cached(
            "SELECT active_at, variant, clock_initial, clock_increment, clock_days,
                    EXISTS (SELECT 1 FROM rated_rooms WHERE room_id = rooms.id), paired
             FROM rooms WHERE id = ?1",
        )?
        .query_row(params![id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let Some((active_at, variant, initial, increment, days, rated, paired)) = row else {
        return Ok(None);
    };
    let mut room = StoredRoom {
        id: id.to_string(),
        active_at,
        variant,
        clock: parse_clock(initial, increment, days, id)?,
        light_key: None,
        dark_key: None,
        dark_at: None,
        events: Vec::new(),
        rated,
        paired,
    };
    let mut stmt = conn.prepare_cached("SELECT color, key_hash, created_at FROM seats WHERE room_id = ?1")?;
    let mut rows = stmt.query(params![id])?;
    while let Some(row) = rows.next()? {
        let color: String = row.get(0)?;
        let hash = key_hash(row.get(1)?, id)?;
        match parse_seat(&color, id)? {
            mill_core::Color::Light => room.light_key = Some(hash),
            mill_core::Color::Dark => {
                room.dark_key = Some(hash);
                room.dark_at = Some(row.get(2)?);
            }
        }
    }
    // Append order is the room's order: a room's events are committed one after the other.
    let mut stmt = conn.prepare_cached(
        "SELECT round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms, key_hash
         FROM events WHERE room_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query(params![id])?;
    while let Some(row) = rows.next()? {
        let seat: String = row.get(2)?;
        let kind: String = row.get(3)?;
        let event = StoredEvent {
            round: row.get(0)?,
            seq: row.get(1)?,
            seat: parse_seat(&seat, id)?,
            command: parse_command(&kind, row.get(4)?, row.get(10)?, id)?,
            client_id: row.get(5)?,
            at: row.get(6)?,
            stamp: parse_stamp(row.get(7)?, row.get(8)?, row.get(9)?),
        };
        room.active_at = room.active_at.max(event.at);
        room.events.push(event);
    }
    Ok(Some(room))
}

/// Where seat `seat`'s command `client_id` is stored in room `room`: (round, seq).
pub fn find(
    conn: &Connection,
    room: &str,
    seat: mill_core::Color,
    client_id: &str,
) -> Result<Option<(u32, u32)>, DbError> {
    Ok(find_place(conn, room, seat_name(seat), client_id)?)
}

fn find_place(
    conn: &Connection,
    room: &str,
    seat: &str,
    client_id: &str,
) -> Result<Option<(u32, u32)>, rusqlite::Error> {
    conn.prepare_cached(
        "SELECT round, seq FROM events WHERE room_id = ?1 AND seat = ?2 AND client_id = ?3 ORDER BY id LIMIT 1",
    )?
    .query_row(params![room, seat, client_id], |r| Ok((r.get(0)?, r.get(1)?)))
    .map(Some)
    .or_else(|e| match e {
        rusqlite::Error::QueryReturnedNoRows => Ok(None),
        e => Err(e),
    })
}

/// Ids of rooms with no activity since `cutoff` (Unix ms), at most `limit`.
pub fn idle_rooms(conn: &Connection, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM rooms r WHERE active_at < ?1
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.room_id = r.id AND e.at >= ?1)
         LIMIT ?2",
    )?;
    let ids = stmt
        .query_map(params![cutoff, limit as i64], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// A read-only connection for loading rooms beside the writer (WAL readers never block
/// the writer, nor it them).
#[derive(Clone)]
pub struct Reader {
    conn: std::sync::Arc<std::sync::Mutex<Connection>>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reader")
    }
}

impl Reader {
    /// Opens a second connection to `path` (after [`open`] has created and migrated it).
    pub fn open(path: &Path) -> Result<Reader, DbError> {
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.pragma_update(None, "busy_timeout", 5000)?;
        Ok(Reader {
            conn: std::sync::Arc::new(std::sync::Mutex::new(conn)),
        })
    }

    /// Runs `f` on the connection on a blocking thread.
    pub async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(|e| e.into_inner());
            f(&conn)
        })
        .await
        .map_err(|_| DbError::failed("SQLite", "a database read panicked"))?
    }
}

/// A write for the writer thread.
#[derive(Debug, Clone)]
pub enum Op {
    /// A new room with its Light seat (and round 1).
    CreateRoom {
        /// Room id.
        id: String,
        /// Light's key hash.
        key_hash: [u8; 32],
        /// Now.
        at: i64,
        /// The rule set's name (`nine`, `six+per-mill`), kept in `rooms.variant`.
        rules: String,
        /// The time control (`None`: untimed).
        clock: Option<crate::timecontrol::TimeControl>,
    },
    /// The Dark seat taken, unless it is already ([`Written::Joined`]).
    Join {
        /// Room id.
        room: String,
        /// Dark's key hash.
        key_hash: [u8; 32],
        /// Now.
        at: i64,
    },
    /// A confirmed command, unless its place or its client id is taken
    /// ([`Written::Appended`]).
    Event(Append),
    /// A connection came or went: the room is not idle.
    Touch {
        /// Room id.
        room: String,
        /// Now.
        at: i64,
    },
    /// Idle rooms deleted with all their rows (those still idle since `cutoff`;
    /// [`Written::Purged`] names them).
    Purge {
        /// Room ids.
        rooms: Vec<String>,
        /// Unix ms: a room active since then is kept.
        cutoff: i64,
    },
    /// A seek: withdraws the seeker's open seeks, then claims the oldest open seek of
    /// its pool and creates the room with both seats ([`Written::Sought`]), or else
    /// waits in the table.
    Seek(Seek),
    /// A waiting rated seek looks again: the rating window has widened
    /// ([`Written::Sought`]).
    Recheck(Recheck),
    /// A seek deleted (only while it is open, with `open_only`); [`Written::Withdrawn`]
    /// says what it was.
    Withdraw {
        /// Seek id.
        id: String,
        /// Leave a paired seek alone.
        open_only: bool,
    },
    /// The server is running at `now`; a gap longer than `gap` since the last note is
    /// an outage ([`Written::Alive`] lists the outages kept).
    Alive {
        /// Unix ms.
        now: i64,
        /// Record a longer gap as an outage.
        gap: Option<i64>,
    },
    /// An arena's write (`store/arena.rs`).
    Arena(super::arena::ArenaOp),
    /// Nothing to write: the completion runs after every earlier job has committed.
    Barrier,
}

/// What a job wrote, for its completion.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// Nothing to tell (create, touch, barrier).
    Done,
    /// Whether the Dark seat was taken by this join.
    Joined(bool),
    /// What became of an event.
    Appended(Appended),
    /// The rooms deleted.
    Purged(Vec<String>),
    /// What became of a seek, and the other seeks it changed (paired or withdrawn).
    Sought(SeekState, Vec<String>),
    /// What a withdrawn seek was ([`SeekState::Gone`]: nothing was deleted).
    Withdrawn(SeekState),
    /// The outages kept, oldest first.
    Alive(Vec<Outage>),
    /// What an arena's write answered.
    Arena(super::arena::ArenaAnswer),
}

/// What runs once a job's transaction has committed (or failed).
pub type Completion = Box<dyn FnOnce(Result<Written, String>) + Send>;

struct Job {
    op: Op,
    done: Completion,
}

/// A cheap handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Writer")
    }
}

impl Writer {
    /// Starts the writer thread on `conn`, and a checkpointer beside it. Both stop when
    /// every handle is dropped.
    pub fn start(conn: Connection) -> (Writer, thread::JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<Job>();
        let handle = thread::Builder::new()
            .name("mill-db-writer".into())
            .spawn(move || {
                let checkpointer = start_checkpointer(&conn);
                writer_loop(conn, rx);
                if let Some((stop, handle)) = checkpointer {
                    drop(stop);
                    let _ = handle.join();
                }
            })
            .expect("spawn the writer thread");
        (Writer { tx }, handle)
    }

    /// Queues `op`; `done` runs on the writer thread after the commit, in queue order.
    pub fn submit(&self, op: Op, done: Completion) {
        if let Err(mpsc::SendError(job)) = self.tx.send(Job { op, done }) {
            (job.done)(Err("the database writer has stopped".into()));
        }
    }

    /// Queues `op` and waits for its commit.
    pub async fn exec(&self, op: Op) -> Result<Written, DbError> {
        let (tx, rx) = oneshot::channel();
        self.submit(
            op,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        match rx.await {
            Ok(Ok(written)) => Ok(written),
            Ok(Err(e)) => Err(DbError::failed("SQLite", e)),
            Err(_) => Err(DbError::Stopped),
        }
    }
}

fn writer_loop(mut conn: Connection, rx: mpsc::Receiver<Job>) {
    // Completions (acks and fan-out to sockets) run on a second thread, in commit
    // order, so the next commit's fsync overlaps with sending the last one's news.
    let (done_tx, done_rx) = mpsc::channel::<(Vec<Job>, Vec<Result<Written, String>>)>();
    let notifier = thread::Builder::new()
        .name("mill-db-notify".into())
        .spawn(move || {
            while let Ok((batch, results)) = done_rx.recv() {
                for (job, result) in batch.into_iter().zip(results) {
                    (job.done)(result);
                }
            }
        })
        .expect("spawn the notifier thread");
    let mut last_commit: Option<std::time::Instant> = None;
    while let Ok(first) = rx.recv() {
        let busy = last_commit.is_some_and(|at| at.elapsed() < BUSY);
        let batch = gather(&rx, first, busy.then_some(GATHER), MAX_BATCH);
        let started = std::time::Instant::now();
        let results = commit_batch(&mut conn, &batch);
        let took = started.elapsed();
        last_commit = Some(std::time::Instant::now());
        let m = crate::metrics::get();
        m.commit_seconds.observe(took.as_secs_f64());
        m.commit_events.observe(batch.len() as f64);
        tracing::trace!(jobs = batch.len(), micros = took.as_micros() as u64, "commit");
        if took > std::time::Duration::from_millis(50) {
            tracing::debug!(jobs = batch.len(), ms = took.as_millis() as u64, "slow commit");
        }
        if let Err(mpsc::SendError((batch, results))) = done_tx.send((batch, results)) {
            for (job, result) in batch.into_iter().zip(results) {
                (job.done)(result);
            }
        }
    }
    drop(done_tx);
    let _ = notifier.join();
    tracing::debug!("database writer stopped");
}

/// A batch: `first` and the jobs queued behind it, at most `max`; with `wait`, also those
/// that arrive within `wait` of `first` (a busy writer, see [`GATHER`]).
fn gather(rx: &mpsc::Receiver<Job>, first: Job, wait: Option<std::time::Duration>, max: usize) -> Vec<Job> {
    let until = wait.map(|w| std::time::Instant::now() + w);
    let mut batch = vec![first];
    while batch.len() < max {
        let left = until.map(|t| t.saturating_duration_since(std::time::Instant::now()));
        let next = match left {
            Some(left) if !left.is_zero() => rx.recv_timeout(left).ok(),
            _ => rx.try_recv().ok(),
        };
        match next {
            Some(job) => batch.push(job),
            None => break,
        }
    }
    batch
}

/// Runs every job in one transaction and commits once. Jobs do not fail in normal
/// operation, so they first run bare; if one does fail, the batch is run again with a
/// savepoint per job so that only the bad one is refused.
fn commit_batch(conn: &mut Connection, batch: &[Job]) -> Vec<Result<Written, String>> {
    let fast = (|| -> Result<Vec<Result<Written, String>>, rusqlite::Error> {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut results = Vec::with_capacity(batch.len());
        for job in batch {
            results.push(Ok(write(&tx, &job.op)?));
        }
        tx.commit()?;
        Ok(results)
    })();
    match fast {
        Ok(results) => results,
        Err(e) => {
            tracing::warn!(error = %e, jobs = batch.len(), "batch failed; retrying job by job");
            commit_batch_each(conn, batch)
        }
    }
}

/// The slow path: one savepoint per job.
fn commit_batch_each(conn: &mut Connection, batch: &[Job]) -> Vec<Result<Written, String>> {
    let attempt = (|| -> Result<Vec<Result<Written, String>>, rusqlite::Error> {
        let mut tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut results = Vec::with_capacity(batch.len());
        for job in batch {
            if matches!(job.op, Op::Barrier) {
                results.push(Ok(Written::Done));
                continue;
            }
            let sp = tx.savepoint()?;
            match write(&sp, &job.op) {
                Ok(written) => {
                    sp.commit()?;
                    results.push(Ok(written));
                }
                Err(e) => {
                    tracing::error!(error = %e, op = ?op_name(&job.op), "write refused");
                    drop(sp); // rolls back to the savepoint
                    results.push(Err(e.to_string()));
                }
            }
        }
        tx.commit()?;
        Ok(results)
    })();
    match attempt {
        Ok(results) => results,
        Err(e) => {
            tracing::error!(error = %e, jobs = batch.len(), "commit failed");
            batch.iter().map(|_| Err(e.to_string())).collect()
        }
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::CreateRoom { .. } => "create-room",
        Op::Join { .. } => "join",
        Op::Event(_) => "event",
        Op::Touch { .. } => "touch",
        Op::Purge { .. } => "purge",
        Op::Seek(_) => "seek",
        Op::Recheck(_) => "recheck",
        Op::Withdraw { .. } => "withdraw",
        Op::Alive { .. } => "alive",
        Op::Arena(_) => "arena",
        Op::Barrier => "barrier",
    }
}

fn write(conn: &Connection, op: &Op) -> Result<Written, rusqlite::Error> {
    match op {
        Op::CreateRoom {
            id,
            key_hash,
            at,
            rules,
            clock,
        } => {
            let (initial, increment, days) = clock_columns(*clock);
            conn.prepare_cached(
                "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days)
                 VALUES (?1, ?3, ?2, ?2, ?4, ?5, ?6)",
            )?
            .execute(params![id, at, rules, initial, increment, days])?;
            conn.prepare_cached(
                "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'light', ?2, ?3)",
            )?
            .execute(params![id, &key_hash[..], at])?;
        }
        Op::Join { room, key_hash, at } => {
            // The seat's primary key decides between two joins.
            let n = conn
                .prepare_cached(
                    "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'dark', ?2, ?3)
                     ON CONFLICT DO NOTHING",
                )?
                .execute(params![room, &key_hash[..], at])?;
            if n == 1 {
                touch(conn, room, *at)?;
            }
            return Ok(Written::Joined(n == 1));
        }
        Op::Event(a) => return append(conn, a).map(Written::Appended),
        Op::Touch { room, at } => touch(conn, room, *at)?,
        Op::Purge { rooms, cutoff } => {
            // Only rooms still idle: a room touched since the ids were read stays.
            // Events go by the events_room index; seats and rounds follow the rooms.
            let mut purged = Vec::new();
            for id in rooms {
                let gone = conn
                    .prepare_cached(
                        "DELETE FROM rooms WHERE id = ?1 AND active_at < ?2
                           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.room_id = ?1 AND e.at >= ?2)",
                    )?
                    .execute(params![id, cutoff])?;
                if gone > 0 {
                    conn.prepare_cached("DELETE FROM events WHERE room_id = ?1")?
                        .execute(params![id])?;
                    purged.push(id.clone());
                }
            }
            return Ok(Written::Purged(purged));
        }
        Op::Seek(seek) => return sought(conn, seek),
        Op::Recheck(r) => return resought(conn, r),
        Op::Withdraw { id, open_only } => {
            let row: Option<(Option<String>, Option<String>)> = conn
                .prepare_cached(
                    "DELETE FROM seeks WHERE id = ?1 AND (NOT ?2 OR room_id IS NULL) RETURNING room_id, seat",
                )?
                .query_row(params![id, open_only], |r| Ok((r.get(0)?, r.get(1)?)))
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })?;
            return Ok(Written::Withdrawn(match row {
                None => SeekState::Gone,
                Some((room, seat)) => SeekState::from_columns(room, seat).unwrap_or(SeekState::Gone),
            }));
        }
        Op::Alive { now, gap } => return alive(conn, *now, *gap).map(Written::Alive),
        Op::Arena(op) => return super::arena::write_sqlite(conn, op).map(Written::Arena),
        Op::Barrier => {}
    }
    Ok(Written::Done)
}

/// Notes that the server runs at `now`, recording the gap since the last note as an
/// outage when it is longer than `gap`; returns the outages kept.
fn alive(conn: &Connection, now: i64, gap: Option<i64>) -> Result<Vec<Outage>, rusqlite::Error> {
    let old: Option<i64> = conn
        .prepare_cached("SELECT at FROM alive WHERE id = 1")?
        .query_row([], |r| r.get(0))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    if let (Some(old), Some(gap)) = (old, gap) {
        if now - old > gap {
            conn.prepare_cached("INSERT INTO outages (since, until) VALUES (?1, ?2) ON CONFLICT DO NOTHING")?
                .execute(params![old, now])?;
        }
    }
    conn.prepare_cached(
        "INSERT INTO alive (id, at) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET at = max(at, excluded.at)",
    )?
    .execute(params![now])?;
    conn.prepare_cached("SELECT since, until FROM outages WHERE until > ?1 ORDER BY since")?
        .query_map(params![now - super::types::OUTAGES_KEPT_MS], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect()
}

/// Appends one event unless its (room, round, seq) or its (room, seat, client id) is
/// taken: the two keys PostgreSQL's constraints hold, checked here on the
/// `events_room` index (migration 05), which covers both, inside the writer's
/// transaction.
fn append(conn: &Connection, a: &Append) -> Result<Appended, rusqlite::Error> {
    let e = &a.event;
    let seat = seat_name(e.seat);
    let n = conn
        .prepare_cached(
            "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms,
                                 key_hash)
             SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
             WHERE NOT EXISTS (SELECT 1 FROM events WHERE room_id = ?1 AND round = ?2 AND seq = ?3)
               AND NOT EXISTS (SELECT 1 FROM events WHERE room_id = ?1 AND seat = ?4 AND client_id = ?7)",
        )?
        .execute(params![
            a.room,
            e.round,
            e.seq,
            seat,
            e.command.kind_str(),
            e.command.action_text(),
            e.client_id,
            e.at,
            e.stamp.map(|s| s.light_ms),
            e.stamp.map(|s| s.dark_ms),
            e.stamp.map(|s| s.lag_ms),
            e.command.key_hash().map(|k| &k[..]),
        ])?;
    if n == 0 {
        return Ok(match find_place(conn, &a.room, seat, &e.client_id)? {
            Some((round, seq)) => Appended::Duplicate { round, seq },
            None => Appended::PlaceTaken,
        });
    }
    conn.prepare_cached("UPDATE rooms SET active_at = ?2 WHERE id = ?1 AND active_at < ?2 - ?3")?
        .execute(params![a.room, e.at, super::ACTIVE_SLACK_MS])?;
    // A result: a rated room's ratings change in this same transaction (accounts.rs).
    if let Some(outcome) = &a.ends {
        super::accounts::record_round_sqlite(conn, &a.room, e.round, outcome, e.at)?;
        // An arena game's result, once (arena.rs).
        super::arena::end_sqlite(conn, &a.room, e.round, outcome, e.at)?;
    }
    // A rematch agreed: its room, in this same transaction (its computed id is the
    // rooms' primary key, so it is made once).
    if let Some(r) = &a.rematch {
        let (initial, increment, days) = clock_columns(r.clock);
        conn.prepare_cached(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days, paired)
             VALUES (?1, ?3, ?2, ?2, ?4, ?5, ?6, 1)",
        )?
        .execute(params![r.room, e.at, r.variant, initial, increment, days])?;
        conn.prepare_cached(
            "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'light', ?2, ?4), (?1, 'dark', ?3, ?4)",
        )?
        .execute(params![r.room, &r.light_key[..], &r.dark_key[..], e.at])?;
        super::accounts::rematch_sqlite(conn, &a.room, &r.room)?;
    }
    Ok(Appended::Stored)
}

fn touch(conn: &Connection, room: &str, at: i64) -> Result<(), rusqlite::Error> {
    conn.prepare_cached("UPDATE rooms SET active_at = max(active_at, ?2) WHERE id = ?1")?
        .execute(params![room, at])?;
    Ok(())
}

/// The SQLite backend as the room logic uses it (through [`Store`]): the writer and a
/// reader beside it.
#[derive(Debug, Clone)]
pub(super) struct Sqlite {
    writer: Writer,
    reader: Reader,
    /// The requests waiting for their seeks.
    waiters: std::sync::Arc<SeekWaiters>,
}

impl Sqlite {
    /// Opens (creating and migrating) the file and starts its writer; the handle is
    /// the writer thread, which ends once every `Sqlite` is dropped.
    pub(super) async fn open(path: &Path) -> Result<(Sqlite, thread::JoinHandle<()>), DbError> {
        let path = path.to_path_buf();
        let (conn, reader) = tokio::task::spawn_blocking(move || {
            let conn = open(&path)?;
            let reader = Reader::open(&path)?;
            Ok::<_, DbError>((conn, reader))
        })
        .await
        .map_err(|_| DbError::failed("SQLite", "opening the database panicked"))??;
        let (writer, thread) = Writer::start(conn);
        Ok((
            Sqlite {
                writer,
                reader,
                waiters: Default::default(),
            },
            thread,
        ))
    }
}

#[async_trait::async_trait]
impl Store for Sqlite {
    /// A new room with its Light seat and round 1.
    async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
        clock: Option<crate::timecontrol::TimeControl>,
    ) -> Result<(), DbError> {
        self.writer
            .exec(Op::CreateRoom {
                id: id.to_string(),
                key_hash: *key_hash,
                at,
                rules: rules.to_string(),
                clock,
            })
            .await
            .map(drop)
    }

    /// The Dark seat; `false` if it was already taken.
    async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError> {
        match self
            .writer
            .exec(Op::Join {
                room: room.to_string(),
                key_hash: *key_hash,
                at,
            })
            .await?
        {
            Written::Joined(joined) => Ok(joined),
            other => Err(DbError::Corrupt(format!("a join answered {other:?}"))),
        }
    }

    /// Appends one event through the group commit; returns once it is decided.
    async fn append(&self, a: Append) -> Result<Appended, DbError> {
        match self.writer.exec(Op::Event(a)).await? {
            Written::Appended(outcome) => Ok(outcome),
            other => Err(DbError::Corrupt(format!("an event answered {other:?}"))),
        }
    }

    /// Where a seat's client id is stored: (round, seq).
    async fn find(
        &self,
        room: &str,
        seat: mill_core::Color,
        client_id: &str,
    ) -> Result<Option<(u32, u32)>, DbError> {
        let (room, client_id) = (room.to_string(), client_id.to_string());
        self.reader
            .with(move |conn| find(conn, &room, seat, &client_id))
            .await
    }

    /// Reads one room, `None` if it does not exist.
    async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        let id = id.to_string();
        self.reader.with(move |conn| load_room(conn, &id)).await
    }

    /// Notes activity in a room (not waited for).
    fn touch(&self, room: &str, at: i64) {
        self.writer.submit(
            Op::Touch {
                room: room.to_string(),
                at,
            },
            Box::new(|_| {}),
        );
    }

    /// The rooms whose current round may still have a clock running.
    async fn timed_in_play(&self) -> Result<Vec<String>, DbError> {
        self.reader
            .with(|conn| {
                let mut stmt = conn.prepare(super::types::TIMED_IN_PLAY_SQL)?;
                let ids = stmt
                    .query_map([], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()?;
                Ok(ids)
            })
            .await
    }

    /// Rooms idle since `cutoff`, at most `limit`.
    async fn idle_rooms(&self, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError> {
        self.reader
            .with(move |conn| idle_rooms(conn, cutoff, limit))
            .await
    }

    /// Deletes those of `rooms` still idle since `cutoff`; returns them.
    async fn purge(&self, rooms: Vec<String>, cutoff: i64) -> Result<Vec<String>, DbError> {
        match self.writer.exec(Op::Purge { rooms, cutoff }).await? {
            Written::Purged(ids) => Ok(ids),
            other => Err(DbError::Corrupt(format!("a purge answered {other:?}"))),
        }
    }

    /// Waits until every job queued so far has committed.
    async fn flush(&self) -> Result<(), DbError> {
        self.writer.exec(Op::Barrier).await.map(drop)
    }

    /// Notes that the server runs at `now` (see [`super::Store::alive`]).
    async fn alive(&self, now: i64, gap: Option<i64>) -> Result<Vec<Outage>, DbError> {
        match self.writer.exec(Op::Alive { now, gap }).await? {
            Written::Alive(outages) => Ok(outages),
            other => Err(DbError::Corrupt(format!("a note of life answered {other:?}"))),
        }
    }

    /// Pairs `seek` with the oldest open seek of its pool, or makes it wait; wakes the
    /// seeks it changed.
    async fn seek(&self, seek: Seek) -> Result<SeekState, DbError> {
        match self.writer.exec(Op::Seek(seek)).await? {
            Written::Sought(state, changed) => {
                for id in &changed {
                    self.waiters.wake(id);
                }
                Ok(state)
            }
            other => Err(DbError::Corrupt(format!("a seek answered {other:?}"))),
        }
    }

    /// A waiting rated seek looks again, in the writer; wakes the seeks it paired.
    async fn recheck(&self, r: Recheck) -> Result<SeekState, DbError> {
        match self.writer.exec(Op::Recheck(r)).await? {
            Written::Sought(state, changed) => {
                for id in &changed {
                    self.waiters.wake(id);
                }
                Ok(state)
            }
            other => Err(DbError::Corrupt(format!("a recheck answered {other:?}"))),
        }
    }

    /// Deletes seek `id` (only if it is open, with `open_only`); returns what it was.
    async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError> {
        let op = Op::Withdraw {
            id: id.to_string(),
            open_only,
        };
        match self.writer.exec(op).await? {
            Written::Withdrawn(state) => {
                if state != SeekState::Gone {
                    self.waiters.wake(id);
                }
                Ok(state)
            }
            other => Err(DbError::Corrupt(format!("a withdrawal answered {other:?}"))),
        }
    }

    /// Where seek `id` stands.
    async fn seek_state(&self, id: &str) -> Result<SeekState, DbError> {
        let id = id.to_string();
        self.reader.with(move |conn| seek_state(conn, &id)).await
    }

    /// The open seeks, oldest first, at most `limit`.
    async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
        self.reader.with(move |conn| open_seeks(conn, limit)).await
    }

    async fn arena(&self, req: super::arena::ArenaRequest) -> Result<super::arena::ArenaAnswer, DbError> {
        let write = |op| async {
            match self.writer.exec(Op::Arena(op)).await? {
                Written::Arena(a) => Ok(a),
                other => Err(DbError::Corrupt(format!("an arena write answered {other:?}"))),
            }
        };
        super::arena::sqlite(&self.reader, write, req).await
    }

    fn seek_waiters(&self) -> &std::sync::Arc<SeekWaiters> {
        &self.waiters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Command;

    fn test_event(room: &str, seq: u32, action: &str, client_id: &str) -> Append {
        Append {
            room: room.into(),
            event: StoredEvent {
                round: 1,
                seq,
                seat: mill_core::Color::Light,
                command: Command::Action(action.into()).into(),
                client_id: client_id.into(),
                at: 3,
                stamp: None,
            },
            ends: None,
            rematch: None,
        }
    }

    #[test]
    fn a_busy_writer_gathers_what_arrives_within_its_wait_and_no_more_than_its_bound() {
        let job = || Job {
            op: Op::Barrier,
            done: Box::new(|_| {}),
        };
        let (tx, rx) = mpsc::channel();
        let later = |n: usize, tx: mpsc::Sender<Job>| {
            thread::spawn(move || {
                for _ in 0..n {
                    thread::sleep(std::time::Duration::from_millis(1));
                    tx.send(job()).unwrap();
                }
            })
        };
        // Idle: only what is queued already.
        tx.send(job()).unwrap();
        assert_eq!(gather(&rx, job(), None, MAX_BATCH).len(), 2);
        // Busy: what arrives within the wait joins the batch (a long wait here, so that
        // a loaded machine cannot make the test fail).
        let sender = later(3, tx.clone());
        assert_eq!(
            gather(&rx, job(), Some(std::time::Duration::from_secs(20)), 4).len(),
            4
        );
        sender.join().unwrap();
        // The wait ends at its bound even if nothing comes.
        let started = std::time::Instant::now();
        let short = std::time::Duration::from_millis(5);
        assert_eq!(gather(&rx, job(), Some(short), MAX_BATCH).len(), 1);
        assert!(started.elapsed() >= short);
        // And the size bound holds with more queued.
        for _ in 0..10 {
            tx.send(job()).unwrap();
        }
        assert_eq!(gather(&rx, job(), Some(short), 4).len(), 4);
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn a_bad_job_in_a_batch_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let (writer, handle) = Writer::start(conn);
        let event = |seq: u32, action: &str| Op::Event(test_event("r1", seq, action, &format!("c{seq}")));
        // A seat of a room that does not exist breaks the foreign key.
        let bad = Op::Join {
            room: "nowhere".into(),
            key_hash: [1; 32],
            at: 1,
        };
        // queued back to back (submit does not wait), so they usually share one batch
        let (tx, rx) = mpsc::channel();
        for (i, op) in [event(0, "d6"), bad, event(2, "d2")].into_iter().enumerate() {
            let tx = tx.clone();
            writer.submit(op, Box::new(move |r| tx.send((i, r.is_ok())).unwrap()));
        }
        let mut results = [false; 3];
        for _ in 0..3 {
            let (i, ok) = rx.recv().unwrap();
            results[i] = ok;
        }
        assert_eq!(results, [true, false, true]);
        drop(writer);
        handle.join().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn the_append_only_migration_keeps_every_event_in_order() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 1).unwrap();
        conn.execute_batch(
            "INSERT INTO rooms VALUES ('r1', 'nine', 1, 1);
             INSERT INTO rounds VALUES ('r1', 1, 1), ('r1', 2, 5);
             INSERT INTO events VALUES
               ('r1', 2, 0, 'light', 'action', 'a1', 'c3', 6),
               ('r1', 1, 1, 'dark', 'resign', NULL, 'c2', 3),
               ('r1', 1, 0, 'light', 'action', 'd6', 'c1', 2);",
        )
        .unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let room = load_room(&conn, "r1").unwrap().unwrap();
        let ids: Vec<&str> = room.events.iter().map(|e| e.client_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        assert_eq!(room.active_at, 6, "the last event counts as activity");
        assert!(load_room(&conn, "r2").unwrap().is_none());
    }

    #[test]
    fn takeback_events_are_stored_and_earlier_events_keep_their_place() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 2).unwrap();
        conn.execute_batch(
            "INSERT INTO rooms VALUES ('r1', 'nine', 1, 1);
             INSERT INTO events (id, room_id, round, seq, seat, kind, action, client_id, at) VALUES
               (7, 'r1', 1, 0, 'light', 'action', 'd6', 'c1', 2),
               (9, 'r1', 1, 1, 'light', 'offer-draw', NULL, 'c2', 3);",
        )
        .unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let insert = |seq: u32, kind: &str, action: Option<&str>| {
            conn.execute(
                "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
                 VALUES ('r1', 1, ?1, 'dark', ?2, ?3, ?4, 4)",
                params![seq, kind, action, format!("d{seq}")],
            )
        };
        for (seq, kind) in [
            (2, "offer-takeback"),
            (3, "accept-takeback"),
            (4, "decline-takeback"),
        ] {
            insert(seq, kind, None).unwrap();
        }
        assert!(
            insert(5, "take-back", None).is_err(),
            "the CHECK still lists the kinds"
        );
        assert!(
            insert(5, "accept-takeback", Some("d6")).is_err(),
            "only actions carry text"
        );
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM events ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(ids, [7, 9, 10, 11, 12], "rows keep their ids, new ones follow");
        let room = load_room(&conn, "r1").unwrap().unwrap();
        let kinds: Vec<&str> = room.events.iter().map(|e| e.command.kind_str()).collect();
        assert_eq!(
            kinds,
            [
                "action",
                "offer-draw",
                "offer-takeback",
                "accept-takeback",
                "decline-takeback"
            ]
        );
    }

    #[test]
    fn schema_keeps_rows_together_and_purge_cascades() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let (writer, handle) = Writer::start(conn);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let key_hash = [7u8; 32];
            writer
                .exec(Op::CreateRoom {
                    id: "r1".into(),
                    key_hash,
                    at: 1,
                    rules: "six".into(),
                    clock: None,
                })
                .await
                .unwrap();
            writer
                .exec(Op::Join {
                    room: "r1".into(),
                    key_hash: [8; 32],
                    at: 2,
                })
                .await
                .unwrap();
            assert_eq!(
                writer
                    .exec(Op::Event(test_event("r1", 0, "d6", "c1")))
                    .await
                    .unwrap(),
                Written::Appended(Appended::Stored)
            );
            // a second command on the same place is refused, and changes nothing
            assert_eq!(
                writer
                    .exec(Op::Event(test_event("r1", 0, "d2", "c2")))
                    .await
                    .unwrap(),
                Written::Appended(Appended::PlaceTaken)
            );
        });
        drop(writer);
        handle.join().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let room = load_room(&conn, "r1").unwrap().unwrap();
        assert_eq!(room.light_key, Some([7; 32]));
        assert_eq!(room.dark_key, Some([8; 32]));
        assert_eq!(room.active_at, 3);
        assert_eq!(room.events.len(), 1);
        assert_eq!(room.events[0].command, Command::Action("d6".into()).into());
        assert_eq!(idle_rooms(&conn, 4, 10).unwrap(), ["r1"]);
        assert!(idle_rooms(&conn, 3, 10).unwrap().is_empty());
        let (writer, handle) = Writer::start(conn);
        // active since the cutoff: kept
        rt.block_on(writer.exec(Op::Purge {
            rooms: vec!["r1".into()],
            cutoff: 3,
        }))
        .unwrap();
        rt.block_on(writer.exec(Op::Purge {
            rooms: vec!["r1".into()],
            cutoff: 4,
        }))
        .unwrap();
        drop(writer);
        handle.join().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        assert!(load_room(&conn, "r1").unwrap().is_none());
        let rounds: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'rounds'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rounds, 0, "the rounds table nothing read is gone (migration 08)");
        for table in ["seats", "events"] {
            let n: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0, "{table}");
        }
    }
}

//! The SQLite file: opening it, its migrations, loading rooms at start-up, and the
//! single writer thread.
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
use rusqlite::{Connection, params};
use rusqlite_migration::Migrations;
use tokio::sync::oneshot;

static MIGRATIONS_DIR: Dir = include_dir!("$CARGO_MANIFEST_DIR/../../migrations");

static MIGRATIONS: LazyLock<Migrations<'static>> =
    LazyLock::new(|| Migrations::from_directory(&MIGRATIONS_DIR).expect("migrations/ is well formed"));

/// Most jobs committed together.
const MAX_BATCH: usize = 4096;

/// A database failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// Migrations failed.
    #[error(transparent)]
    Migration(#[from] rusqlite_migration::Error),
    /// The writer thread has stopped.
    #[error("the database writer has stopped")]
    WriterGone,
    /// A stored row does not make sense.
    #[error("corrupt data: {0}")]
    Corrupt(String),
}

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
    Ok(conn)
}

/// One stored event.
#[derive(Debug, Clone)]
pub struct StoredEvent {
    /// Round number.
    pub round: u32,
    /// Seat ("light"/"dark").
    pub seat: String,
    /// Event kind.
    pub kind: String,
    /// Action text for actions.
    pub action: Option<String>,
    /// Client-made id.
    pub client_id: String,
}

/// One stored room with everything needed to rebuild it.
#[derive(Debug, Clone)]
pub struct StoredRoom {
    /// Room id.
    pub id: String,
    /// Last activity (Unix ms).
    pub active_at: i64,
    /// The rule set's name (`rooms.variant`: `nine` for rooms older than the variants).
    pub variant: String,
    /// Seat key hashes.
    pub light_key: Option<[u8; 32]>,
    /// Seat key hashes.
    pub dark_key: Option<[u8; 32]>,
    /// Events in order.
    pub events: Vec<StoredEvent>,
}

/// Reads every room with its seats and events, in order.
pub fn load_rooms(conn: &Connection) -> Result<Vec<StoredRoom>, DbError> {
    let mut rooms = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut stmt = conn.prepare("SELECT id, active_at, variant FROM rooms ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        index.insert(id.clone(), rooms.len());
        rooms.push(StoredRoom {
            id,
            active_at: row.get(1)?,
            variant: row.get(2)?,
            light_key: None,
            dark_key: None,
            events: Vec::new(),
        });
    }
    let mut stmt = conn.prepare("SELECT room_id, color, key_hash FROM seats")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        let color: String = row.get(1)?;
        let hash: Vec<u8> = row.get(2)?;
        let hash: [u8; 32] = hash
            .try_into()
            .map_err(|_| DbError::Corrupt(format!("key hash of room {id}")))?;
        let room = index
            .get(&id)
            .map(|&i| &mut rooms[i])
            .ok_or_else(|| DbError::Corrupt(format!("seat of missing room {id}")))?;
        match color.as_str() {
            "light" => room.light_key = Some(hash),
            "dark" => room.dark_key = Some(hash),
            _ => return Err(DbError::Corrupt(format!("seat colour {color}"))),
        }
    }
    // Append order is each room's order: a room's events are committed one after the other.
    let mut stmt =
        conn.prepare("SELECT room_id, round, seat, kind, action, client_id, at FROM events ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        let room = index
            .get(&id)
            .map(|&i| &mut rooms[i])
            .ok_or_else(|| DbError::Corrupt(format!("event of missing room {id}")))?;
        room.active_at = room.active_at.max(row.get(6)?);
        room.events.push(StoredEvent {
            round: row.get(1)?,
            seat: row.get(2)?,
            kind: row.get(3)?,
            action: row.get(4)?,
            client_id: row.get(5)?,
        });
    }
    Ok(rooms)
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
    },
    /// The Dark seat taken.
    Join {
        /// Room id.
        room: String,
        /// Dark's key hash.
        key_hash: [u8; 32],
        /// Now.
        at: i64,
    },
    /// A confirmed command.
    Event {
        /// Room id.
        room: String,
        /// Round it belongs to.
        round: u32,
        /// Order in its round.
        seq: u32,
        /// "light"/"dark".
        seat: &'static str,
        /// Event kind.
        kind: &'static str,
        /// Action text for actions.
        action: Option<String>,
        /// Client-made id.
        client_id: String,
        /// Now.
        at: i64,
        /// Set when this event starts that round.
        new_round: Option<u32>,
    },
    /// A connection came or went: the room is not idle.
    Touch {
        /// Room id.
        room: String,
        /// Now.
        at: i64,
    },
    /// Idle rooms deleted with all their rows.
    Purge {
        /// Room ids.
        rooms: Vec<String>,
    },
    /// Nothing to write: the completion runs after every earlier job has committed.
    Barrier,
}

/// What runs once a job's transaction has committed (or failed).
pub type Completion = Box<dyn FnOnce(Result<(), String>) + Send>;

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
    pub async fn exec(&self, op: Op) -> Result<(), DbError> {
        let (tx, rx) = oneshot::channel();
        self.submit(
            op,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        match rx.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(DbError::Corrupt(e)),
            Err(_) => Err(DbError::WriterGone),
        }
    }
}

/// Moves the WAL into the database file from a second connection, so the writer's
/// commits never wait for a checkpoint (which would show as latency spikes). PASSIVE
/// never blocks the writer; the writer's own automatic checkpoints are turned off.
fn start_checkpointer(conn: &Connection) -> Option<(mpsc::Sender<()>, thread::JoinHandle<()>)> {
    let path = conn.path().filter(|p| !p.is_empty())?.to_string();
    let second = Connection::open(&path).ok()?;
    second.pragma_update(None, "synchronous", "FULL").ok()?;
    second.pragma_update(None, "busy_timeout", 5000).ok()?;
    conn.pragma_update(None, "wal_autocheckpoint", 0).ok()?;
    let (stop, stopped) = mpsc::channel::<()>();
    let handle = thread::Builder::new()
        .name("mill-db-checkpoint".into())
        .spawn(move || {
            let checkpoint = |mode: &str| {
                if let Err(e) = second.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(())) {
                    tracing::warn!(error = %e, "checkpoint failed");
                }
            };
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(std::time::Duration::from_millis(500))
            {
                checkpoint("PASSIVE");
            }
            checkpoint("TRUNCATE");
        })
        .ok()?;
    Some((stop, handle))
}

fn writer_loop(mut conn: Connection, rx: mpsc::Receiver<Job>) {
    // Completions (acks and fan-out to sockets) run on a second thread, in commit
    // order, so the next commit's fsync overlaps with sending the last one's news.
    let (done_tx, done_rx) = mpsc::channel::<(Vec<Job>, Vec<Result<(), String>>)>();
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
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let started = std::time::Instant::now();
        let results = commit_batch(&mut conn, &batch);
        let took = started.elapsed();
        crate::metrics::get().commit_seconds.observe(took.as_secs_f64());
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

/// Runs every job in one transaction and commits once. Jobs do not fail in normal
/// operation, so they first run bare; if one does fail, the batch is run again with a
/// savepoint per job so that only the bad one is refused.
fn commit_batch(conn: &mut Connection, batch: &[Job]) -> Vec<Result<(), String>> {
    let fast = (|| -> Result<(), rusqlite::Error> {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for job in batch {
            write(&tx, &job.op)?;
        }
        tx.commit()
    })();
    match fast {
        Ok(()) => batch.iter().map(|_| Ok(())).collect(),
        Err(e) => {
            tracing::warn!(error = %e, jobs = batch.len(), "batch failed; retrying job by job");
            commit_batch_each(conn, batch)
        }
    }
}

/// The slow path: one savepoint per job.
fn commit_batch_each(conn: &mut Connection, batch: &[Job]) -> Vec<Result<(), String>> {
    let attempt = (|| -> Result<Vec<Result<(), String>>, rusqlite::Error> {
        let mut tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut results = Vec::with_capacity(batch.len());
        for job in batch {
            if matches!(job.op, Op::Barrier) {
                results.push(Ok(()));
                continue;
            }
            let sp = tx.savepoint()?;
            match write(&sp, &job.op) {
                Ok(()) => {
                    sp.commit()?;
                    results.push(Ok(()));
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
        Op::Event { .. } => "event",
        Op::Touch { .. } => "touch",
        Op::Purge { .. } => "purge",
        Op::Barrier => "barrier",
    }
}

fn write(conn: &Connection, op: &Op) -> Result<(), rusqlite::Error> {
    match op {
        Op::CreateRoom {
            id,
            key_hash,
            at,
            rules,
        } => {
            conn.prepare_cached(
                "INSERT INTO rooms (id, variant, created_at, active_at) VALUES (?1, ?3, ?2, ?2)",
            )?
            .execute(params![id, at, rules])?;
            conn.prepare_cached(
                "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'light', ?2, ?3)",
            )?
            .execute(params![id, &key_hash[..], at])?;
            conn.prepare_cached("INSERT INTO rounds (room_id, number, started_at) VALUES (?1, 1, ?2)")?
                .execute(params![id, at])?;
        }
        Op::Join { room, key_hash, at } => {
            conn.prepare_cached(
                "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'dark', ?2, ?3)",
            )?
            .execute(params![room, &key_hash[..], at])?;
            touch(conn, room, *at)?;
        }
        Op::Event {
            room,
            round,
            seq,
            seat,
            kind,
            action,
            client_id,
            at,
            new_round,
        } => {
            conn.prepare_cached(
                "INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![room, round, seq, seat, kind, action, client_id, at])?;
            if let Some(number) = new_round {
                conn.prepare_cached("INSERT INTO rounds (room_id, number, started_at) VALUES (?1, ?2, ?3)")?
                    .execute(params![room, number, at])?;
            }
            touch(conn, room, *at)?;
        }
        Op::Touch { room, at } => touch(conn, room, *at)?,
        Op::Purge { rooms } => {
            // events has no index on room_id (it is an append-only log), so its rows
            // go in one scan for the whole batch; seats and rounds follow the rooms.
            let ids = serde_json::to_string(rooms).unwrap_or_default();
            conn.prepare_cached("DELETE FROM events WHERE room_id IN (SELECT value FROM json_each(?1))")?
                .execute(params![ids])?;
            for id in rooms {
                conn.prepare_cached("DELETE FROM rooms WHERE id = ?1")?
                    .execute(params![id])?;
            }
        }
        Op::Barrier => {}
    }
    Ok(())
}

fn touch(conn: &Connection, room: &str, at: i64) -> Result<(), rusqlite::Error> {
    conn.prepare_cached("UPDATE rooms SET active_at = max(active_at, ?2) WHERE id = ?1")?
        .execute(params![room, at])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn a_bad_job_in_a_batch_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let (writer, handle) = Writer::start(conn);
        let event = |seq: u32, action: Option<&str>| Op::Event {
            room: "r1".into(),
            round: 1,
            seq,
            seat: "light",
            kind: "action",
            action: action.map(str::to_string),
            client_id: format!("c{seq}"),
            at: 1,
            new_round: None,
        };
        // queued back to back (submit does not wait), so they usually share one batch
        let (tx, rx) = mpsc::channel();
        for (i, op) in [event(0, Some("d6")), event(1, None), event(2, Some("d2"))]
            .into_iter()
            .enumerate()
        {
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
        let rooms = load_rooms(&conn).unwrap();
        let ids: Vec<&str> = rooms[0].events.iter().map(|e| e.client_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        assert_eq!(rooms[0].active_at, 6, "the last event counts as activity");
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
        let rooms = load_rooms(&conn).unwrap();
        let kinds: Vec<&str> = rooms[0].events.iter().map(|e| e.kind.as_str()).collect();
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
            writer
                .exec(Op::Event {
                    room: "r1".into(),
                    round: 1,
                    seq: 0,
                    seat: "light",
                    kind: "action",
                    action: Some("d6".into()),
                    client_id: "c1".into(),
                    at: 3,
                    new_round: None,
                })
                .await
                .unwrap();
            // a malformed event is refused, and changes nothing
            assert!(
                writer
                    .exec(Op::Event {
                        room: "r1".into(),
                        round: 1,
                        seq: 1,
                        seat: "light",
                        kind: "action",
                        action: None,
                        client_id: "c2".into(),
                        at: 3,
                        new_round: None,
                    })
                    .await
                    .is_err()
            );
        });
        drop(writer);
        handle.join().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        let rooms = load_rooms(&conn).unwrap();
        assert_eq!(rooms.len(), 1);
        assert_eq!(rooms[0].light_key, Some([7; 32]));
        assert_eq!(rooms[0].dark_key, Some([8; 32]));
        assert_eq!(rooms[0].active_at, 3);
        assert_eq!(rooms[0].events.len(), 1);
        assert_eq!(rooms[0].events[0].action.as_deref(), Some("d6"));
        let (writer, handle) = Writer::start(conn);
        rt.block_on(writer.exec(Op::Purge {
            rooms: vec!["r1".into()],
        }))
        .unwrap();
        drop(writer);
        handle.join().unwrap();
        let conn = open(&dir.path().join("t.db")).unwrap();
        assert!(load_rooms(&conn).unwrap().is_empty());
        for table in ["seats", "rounds", "events"] {
            let n: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0, "{table}");
        }
    }
}

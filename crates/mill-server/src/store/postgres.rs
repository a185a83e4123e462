//! PostgreSQL storage, for several `mill-server` instances sharing one database.
//!
//! Built on `tokio-postgres` with a `deadpool-postgres` pool: an async driver that the
//! tokio server awaits directly, pipelined prepared statements, and `LISTEN/NOTIFY`
//! through the connection's message stream. (`sqlx` would bring a second migration
//! system, compile-time query checking against a live database and more weight than
//! the dozen statements here need.)
//!
//! What makes several instances safe is left to the database, never to the instances:
//!
//! - events go through one group-commit writer per instance ([`write_loop`]): the
//!   events waiting in its queue share one transaction, a single multi-row
//!   `INSERT … ON CONFLICT DO NOTHING RETURNING`, and each is acknowledged only after
//!   that transaction has committed. The primary key (room, round, seq) still decides
//!   each event on its own, picking the winner of two instances racing for the same
//!   place, and the unique (room, seat, client id) stores a retried command once,
//!   whichever instance the retry reaches; the rows returned say which events were
//!   stored. A batch that fails is split until the one event at fault fails alone;
//! - changes are announced on the channel `mill_rooms`, and each instance LISTENs and
//!   reads the rooms' new rows (the room logic's [`Instances::changed`]). Payload: `<rooms> <origin>`, where
//!   `<rooms>` is one room id or several joined by commas (room ids are letters and
//!   digits) and `<origin>` the writing instance's id, so an instance skips its own
//!   news, or `*` (presence changes: every instance looks again). The writer sends
//!   one NOTIFY per batch for every room it changed (several if the ids would pass
//!   PostgreSQL's 8000-byte payload limit); triggers announce seats and presence
//!   (migrations 01–03);
//! - presence is a table of (room, seat, instance) rows, and instances refresh a
//!   heartbeat: the rows of an instance that stops (SIGKILL, lost machine) are deleted
//!   by any other once its heartbeat is 30 s old (an instance that was only stalled
//!   finds itself gone at its next heartbeat, comes back and publishes its seats again);
//! - a seat opened on one instance replaces its socket on every other (close 4000, as
//!   on one instance): each publication of a socket on a seat stamps its presence row
//!   with a number from the sequence `presence_claim`; the row update is announced like
//!   any presence change, and an instance whose socket's number is older than another
//!   live instance's for the same seat replaces it and withdraws its row, so the newest
//!   socket keeps the seat and the seat is held (and online) once;
//! - the purge deletes with `FOR UPDATE SKIP LOCKED`, so instances running it at the
//!   same time neither collide nor delete a room twice.

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures_util::StreamExt;
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_postgres::{AsyncMessage, NoTls};

use mill_core::Color;

use super::types::{
    Append, Appended, DbError, Instances, News, OpenSeek, Outage, Presence, Recheck, Seek, SeekState,
    SeekWaiters, StoredEvent, StoredRoom, clock_columns, is_rated_pool, key_hash, parse_clock, parse_command,
    parse_seat, parse_stamp, seat_name,
};
use super::{BUSY, GATHER, Store};
use crate::ratings::Speed;
use crate::timecontrol::TimeControl;
mod news;
mod presence;
mod seek;
mod writer;
use presence::presence_loop;
use writer::{Event, Job, write_loop};

/// The PostgreSQL migrations, in order (the number is the schema version).
const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("../../../../migrations/postgres/01-init.sql")),
    (
        2,
        include_str!("../../../../migrations/postgres/02-seat-claims.sql"),
    ),
    (
        3,
        include_str!("../../../../migrations/postgres/03-batch-notify.sql"),
    ),
    // The clocks' columns and event kinds, as SQLite's 06-clocks (applied there from
    // its directory): both schemas stay the same.
    (4, include_str!("../../../../migrations/postgres/04-clocks.sql")),
    // Quick pairing's seeks, as SQLite's 07-seeks.
    (5, include_str!("../../../../migrations/postgres/05-seeks.sql")),
    // Accounts, sessions and ratings, as SQLite's 09-accounts (store/accounts.rs).
    (6, include_str!("../../../../migrations/postgres/06-accounts.sql")),
    // Outages, as SQLite's 10-outages.
    (7, include_str!("../../../../migrations/postgres/07-outages.sql")),
    // The player's record, as SQLite's 11-player-games (store/accounts.rs).
    (
        8,
        include_str!("../../../../migrations/postgres/08-player-games.sql"),
    ),
    // Each seek's address key, as SQLite's 12-seek-addresses.
    (
        9,
        include_str!("../../../../migrations/postgres/09-seek-addresses.sql"),
    ),
    // Passkeys and their ceremonies, as SQLite's 13-passkeys (store/passkeys.rs).
    (
        10,
        include_str!("../../../../migrations/postgres/10-passkeys.sql"),
    ),
    // Arenas, as SQLite's 14-arenas (store/arena.rs).
    (11, include_str!("../../../../migrations/postgres/11-arenas.sql")),
    // Rematches: paired rooms, the rematch kinds and their key hashes, as SQLite's
    // 15-rematch.
    (12, include_str!("../../../../migrations/postgres/12-rematch.sql")),
    // A ticket's game by its key hash, as SQLite's 16-arena-keys.
    (
        13,
        include_str!("../../../../migrations/postgres/13-arena-keys.sql"),
    ),
    // The rated rooms of pairing made before 12-rematch marked paired, as SQLite's
    // 17-rematch-rated.
    (
        14,
        include_str!("../../../../migrations/postgres/14-rematch-rated.sql"),
    ),
];

/// An instance whose heartbeat is older than this is taken for dead.
const DEAD_AFTER_SECS: i32 = 30;
/// How often an instance refreshes its heartbeat.
const HEARTBEAT: Duration = Duration::from_secs(5);

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        // A refusal from the server says what and why; "db error" alone does not.
        match e.as_db_error() {
            Some(db) => DbError::failed("PostgreSQL", db),
            None => DbError::failed("PostgreSQL", e),
        }
    }
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        DbError::failed("PostgreSQL", e)
    }
}

/// The pool and this instance's identity.
#[derive(Clone)]
pub(super) struct Pg {
    pool: Pool,
    config: tokio_postgres::Config,
    /// This instance's id (also its connections' application_name).
    instance: String,
    /// The queue of the group-commit writer (see [`write_loop`]).
    writer: mpsc::UnboundedSender<Job>,
    /// Presence and activity, written in order by one task ([`presence_loop`]).
    presence: mpsc::UnboundedSender<Published>,
    /// Who hears of claims, once [`Pg::start`] has been called.
    rooms: Arc<std::sync::OnceLock<Arc<dyn Instances>>>,
    /// The requests on this instance waiting for their seeks.
    waiters: Arc<SeekWaiters>,
}

impl std::fmt::Debug for Pg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pg")
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// A job for the presence task.
#[derive(Debug)]
enum Published {
    /// A seat's holder on this instance changed.
    Seat(Presence),
    /// A connection came or went.
    Touch(String, i64),
}

fn i(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// One row of `SELECT round, seq, seat, kind, action, client_id, at, light_ms, dark_ms,
/// lag_ms, key_hash` (from column `first` on) as an event.
fn event_row(r: &tokio_postgres::Row, first: usize, room: &str) -> Result<StoredEvent, DbError> {
    let number = |n: usize| {
        u32::try_from(r.get::<_, i32>(first + n))
            .map_err(|_| DbError::Corrupt(format!("a negative place in room {room}")))
    };
    Ok(StoredEvent {
        round: number(0)?,
        seq: number(1)?,
        seat: parse_seat(r.get(first + 2), room)?,
        command: parse_command(r.get(first + 3), r.get(first + 4), r.get(first + 10), room)?,
        client_id: r.get(first + 5),
        at: r.get(first + 6),
        stamp: parse_stamp(r.get(first + 7), r.get(first + 8), r.get(first + 9)),
    })
}

impl Pg {
    /// Connects to `url`, brings the schema up to date (one instance at a time, under an
    /// advisory lock) and registers this instance.
    pub(super) async fn open(url: &str, pool_size: usize) -> Result<Pg, DbError> {
        let instance = format!("mill-{}", &crate::keys::new_room_id());
        let mut config = tokio_postgres::Config::from_str(url)
            .map_err(|e| DbError::failed("PostgreSQL", format!("--db: {e}")))?;
        config.application_name(&instance);
        // Tells the events trigger that this instance announces its events itself, one
        // NOTIFY per batch (see migration 03).
        config.options("-c mill.notify=batch");
        config.connect_timeout(Duration::from_secs(10));
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(2))
            .build()
            .map_err(|e| DbError::failed("PostgreSQL", e))?;
        let (writer, queue) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(pool.clone(), instance.clone(), queue));
        let (presence, presence_queue) = mpsc::unbounded_channel();
        let pg = Pg {
            pool,
            config,
            instance,
            writer,
            presence,
            rooms: Arc::new(std::sync::OnceLock::new()),
            waiters: Default::default(),
        };
        tokio::spawn(presence_loop(pg.clone(), presence_queue));
        pg.migrate().await?;
        let client = pg.pool.get().await?;
        client
            .execute("INSERT INTO instances (id) VALUES ($1)", &[&pg.instance])
            .await?;
        Ok(pg)
    }

    async fn migrate(&self) -> Result<(), DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock(5106373)", &[]).await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS mill_schema (version INTEGER PRIMARY KEY,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .await?;
        let done: Vec<i32> = tx
            .query("SELECT version FROM mill_schema", &[])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for (version, sql) in MIGRATIONS {
            if !done.contains(version) {
                tx.batch_execute(sql).await?;
                tx.execute("INSERT INTO mill_schema (version) VALUES ($1)", &[version])
                    .await?;
                tracing::info!(version, "PostgreSQL migration applied");
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn events(
        &self,
        client: &deadpool_postgres::Client,
        id: &str,
        round: u32,
        seq: u32,
    ) -> Result<Vec<StoredEvent>, DbError> {
        let stmt = client
            .prepare_cached(
                "SELECT round, seq, seat, kind, action, client_id, at, light_ms, dark_ms, lag_ms, key_hash
                 FROM events WHERE room_id = $1 AND (round, seq) >= ($2, $3) ORDER BY round, seq",
            )
            .await?;
        let rows = client.query(&stmt, &[&id, &i(round), &i(seq)]).await?;
        rows.iter().map(|r| event_row(r, 0, id)).collect()
    }

    /// Refreshes this instance's heartbeat and deletes instances (with their presence)
    /// that stopped refreshing theirs. Returns `true` if this instance had been taken
    /// for dead and has come back: its presence is gone and must be published again.
    async fn heartbeat(&self) -> Result<bool, DbError> {
        let client = self.pool.get().await?;
        let n = client
            .execute(
                "UPDATE instances SET seen_at = now() WHERE id = $1",
                &[&self.instance],
            )
            .await?;
        if n == 0 {
            // Taken for dead after a long stall: come back.
            client
                .execute(
                    "INSERT INTO instances (id) VALUES ($1) ON CONFLICT DO NOTHING",
                    &[&self.instance],
                )
                .await?;
        }
        let gone = client
            .execute(
                &format!(
                    "DELETE FROM instances WHERE seen_at < now() - interval '{DEAD_AFTER_SECS} seconds'"
                ),
                &[],
            )
            .await?;
        if gone > 0 {
            tracing::info!(instances = gone, "instances without a heartbeat removed");
        }
        Ok(n == 0)
    }
}

#[async_trait::async_trait]
impl Store for Pg {
    /// A new room with its Light seat.
    async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
        clock: Option<crate::timecontrol::TimeControl>,
    ) -> Result<(), DbError> {
        let (initial, increment, days) = clock_columns(clock);
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days)
             VALUES ($1, $3, $2, $2, $4::bigint, $5::bigint, $6::bigint)",
            &[&id, &at, &rules, &initial, &increment, &days],
        )
        .await?;
        tx.execute(
            "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES ($1, 'light', $2, $3)",
            &[&id, &&key_hash[..], &at],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The Dark seat; `false` if it was already taken (by any instance).
    async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError> {
        let client = self.pool.get().await?;
        let stmt = client
            .prepare_cached(
                "WITH s AS (INSERT INTO seats (room_id, color, key_hash, created_at)
                            VALUES ($1, 'dark', $2, $3) ON CONFLICT DO NOTHING RETURNING room_id),
                      t AS (UPDATE rooms SET active_at = GREATEST(active_at, $3)
                            WHERE id IN (SELECT room_id FROM s))
                 SELECT count(*) FROM s",
            )
            .await?;
        let n: i64 = client
            .query_one(&stmt, &[&room, &&key_hash[..], &at])
            .await?
            .get(0);
        Ok(n == 1)
    }

    /// Stores one event through this instance's group-commit writer; returns once the
    /// transaction holding it has committed (or failed).
    async fn append(&self, a: Append) -> Result<Appended, DbError> {
        let (done, answer) = oneshot::channel();
        let e = a.event;
        let job = Job {
            event: Event {
                room: a.room,
                round: i(e.round),
                seq: i(e.seq),
                seat: seat_name(e.seat),
                kind: e.command.kind_str(),
                action: e.command.action_text().map(str::to_string),
                key_hash: e.command.key_hash().map(|k| k.to_vec()),
                client_id: e.client_id,
                at: e.at,
                stamp: e.stamp,
                ends: a.ends,
                rematch: a.rematch,
            },
            done,
        };
        self.writer.send(job).map_err(|_| DbError::Stopped)?;
        answer.await.map_err(|_| DbError::Stopped)?
    }

    /// Reads one room with its seats and events in order; `None` if there is none.
    async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        let client = self.pool.get().await?;
        let Some(row) = client
            .query_opt(
                "SELECT active_at, variant, clock_initial::bigint, clock_increment::bigint,
                        clock_days::bigint, EXISTS (SELECT 1 FROM rated_rooms WHERE room_id = rooms.id),
                        paired
                 FROM rooms WHERE id = $1",
                &[&id],
            )
            .await?
        else {
            return Ok(None);
        };
        let mut room = StoredRoom {
            id: id.to_string(),
            active_at: row.get(0),
            variant: row.get(1),
            clock: parse_clock(row.get(2), row.get(3), row.get(4), id)?,
            light_key: None,
            dark_key: None,
            dark_at: None,
            events: Vec::new(),
            rated: row.get(5),
            paired: row.get(6),
        };
        for row in client
            .query(
                "SELECT color, key_hash, created_at FROM seats WHERE room_id = $1",
                &[&id],
            )
            .await?
        {
            let key = key_hash(row.get(1), id)?;
            match parse_seat(row.get(0), id)? {
                Color::Light => room.light_key = Some(key),
                Color::Dark => {
                    room.dark_key = Some(key);
                    room.dark_at = Some(row.get(2));
                }
            }
        }
        room.events = self.events(&client, id, 1, 0).await?;
        if let Some(last) = room.events.iter().map(|e| e.at).max() {
            room.active_at = room.active_at.max(last);
        }
        Ok(Some(room))
    }

    /// Where a seat's client id is stored: (round, seq).
    async fn find(&self, room: &str, seat: Color, client_id: &str) -> Result<Option<(u32, u32)>, DbError> {
        let client = self.pool.get().await?;
        let stmt = client
            .prepare_cached(
                "SELECT round, seq FROM events WHERE room_id = $1 AND seat = $2 AND client_id = $3",
            )
            .await?;
        let row = client
            .query_opt(&stmt, &[&room, &seat_name(seat), &client_id])
            .await?;
        Ok(row.map(|r| (r.get::<_, i32>(0) as u32, r.get::<_, i32>(1) as u32)))
    }

    /// The news of many rooms at once ([`news::news`]).
    async fn news(&self, wanted: &[(String, u32, u32)]) -> Result<Vec<News>, DbError> {
        news::news(self, wanted).await
    }

    /// Pairs `seek` or leaves it waiting, in one transaction ([`seek::sought`]).
    async fn seek(&self, seek: Seek) -> Result<SeekState, DbError> {
        seek::sought(self, seek).await
    }

    /// A waiting rated seek looks again ([`seek::resought`]).
    async fn recheck(&self, r: Recheck) -> Result<SeekState, DbError> {
        seek::resought(self, r).await
    }

    /// Deletes seek `id` (only while it is open, with `open_only`) and announces it;
    /// returns what it was.
    async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError> {
        seek::withdrawn(self, id, open_only).await
    }

    /// Where seek `id` stands.
    async fn seek_state(&self, id: &str) -> Result<SeekState, DbError> {
        seek::seek_state(self, id).await
    }

    /// The open seeks of every instance, at most `limit` ([`seek::open_seeks`]).
    async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
        seek::open_seeks(self, limit).await
    }

    /// Notes that an instance runs at `now` (see [`super::Store::alive`]): the one row
    /// of `alive` is locked while the gap is judged, so of instances that see the same
    /// gap only the first records it. With no other instance registered, any gap is an
    /// outage.
    async fn alive(&self, now: i64, gap: Option<i64>) -> Result<Vec<Outage>, DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let old: Option<i64> = tx
            .query_opt("SELECT at FROM alive WHERE id = 1 FOR UPDATE", &[])
            .await?
            .map(|r| r.get(0));
        // With no other instance registered (a clean stop removes its row), no server
        // ran since the last note, however short the gap.
        let alone: bool = tx
            .query_one(
                "SELECT NOT EXISTS (SELECT 1 FROM instances WHERE id <> $1)",
                &[&self.instance],
            )
            .await?
            .get(0);
        let gap = gap.map(|gap| if alone { 0 } else { gap });
        if let (Some(old), Some(gap)) = (old, gap) {
            if now - old > gap {
                tx.execute(
                    "INSERT INTO outages (since, until) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    &[&old, &now],
                )
                .await?;
            }
        }
        tx.execute(
            "INSERT INTO alive (id, at) VALUES (1, $1)
             ON CONFLICT (id) DO UPDATE SET at = GREATEST(alive.at, EXCLUDED.at)",
            &[&now],
        )
        .await?;
        let rows = tx
            .query(
                "SELECT since, until FROM outages WHERE until > $1 ORDER BY since",
                &[&(now - super::types::OUTAGES_KEPT_MS)],
            )
            .await?;
        tx.commit().await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Removes this instance's row (and its presence) on a clean shutdown.
    async fn leave(&self) -> Result<(), DbError> {
        let client = self.pool.get().await?;
        client
            .execute("DELETE FROM instances WHERE id = $1", &[&self.instance])
            .await?;
        Ok(())
    }

    /// The rooms whose current round may still have a clock running.
    async fn timed_in_play(&self) -> Result<Vec<String>, DbError> {
        let client = self.pool.get().await?;
        let rows = client.query(super::types::TIMED_IN_PLAY_SQL, &[]).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Rooms idle since `cutoff` with no socket on any instance, at most `limit`.
    async fn idle_rooms(&self, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "SELECT id FROM rooms r WHERE active_at < $1
                   AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.room_id = r.id)
                   AND NOT EXISTS (SELECT 1 FROM events e WHERE e.room_id = r.id AND e.at >= $1)
                 LIMIT $2",
                &[&cutoff, &(limit as i64)],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Deletes those of `rooms` still idle since `cutoff` with no socket on any
    /// instance; returns them. Instances purging at once wait for each other's row
    /// locks, and a room is deleted once.
    async fn purge(&self, rooms: Vec<String>, cutoff: i64) -> Result<Vec<String>, DbError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "DELETE FROM rooms r WHERE id = ANY($1) AND active_at < $2
                   AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.room_id = r.id)
                   AND NOT EXISTS (SELECT 1 FROM events e WHERE e.room_id = r.id AND e.at >= $2)
                 RETURNING id",
                &[&rooms, &cutoff],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn arena(&self, req: super::arena::ArenaRequest) -> Result<super::arena::ArenaAnswer, DbError> {
        super::arena::pg(&self.pool, &self.instance, req).await
    }

    fn seek_waiters(&self) -> &Arc<SeekWaiters> {
        &self.waiters
    }

    fn shared(&self) -> bool {
        true
    }

    /// Queues a seat's holder on this instance for publication.
    fn publish(&self, presence: Presence) {
        let _ = self.presence.send(Published::Seat(presence));
    }

    /// Queues a note of activity in a room.
    fn touch(&self, room: &str, at: i64) {
        let _ = self.presence.send(Published::Touch(room.to_string(), at));
    }

    /// Starts what sharing the database takes, telling `rooms` what the others do: the
    /// LISTEN connection and the task that gathers its announcements into batches of
    /// rooms, the presence writer, and the heartbeat. Abort them at shutdown.
    fn start(&self, rooms: Arc<dyn Instances>) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks = Vec::new();
        let (news_tx, news_rx) = mpsc::unbounded_channel();
        tasks.push(tokio::spawn(news::listen(self.clone(), news_tx)));
        tasks.push(tokio::spawn(news::gather(rooms.clone(), news_rx)));
        let _ = self.rooms.set(rooms.clone());
        let pg = self.clone();
        tasks.push(tokio::spawn(async move {
            let mut every = tokio::time::interval(HEARTBEAT);
            loop {
                every.tick().await;
                match pg.heartbeat().await {
                    Ok(true) => rooms.forgotten(),
                    Ok(false) => {}
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
                }
            }
        }));
        tasks
    }
}

#[cfg(test)]
mod tests {
    //! What can be checked without a database; everything the database decides is in
    //! `tests/store_conformance.rs`, `tests/instances.rs` and the other files that run
    //! under `scripts/with-postgres`.
    use super::writer::{MAX_BATCH, ROOMS_PER_PAYLOAD};
    use super::*;

    #[test]
    fn the_migrations_are_the_directory_s_files_in_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/postgres");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        assert_eq!(files.len(), MIGRATIONS.len(), "{files:?}");
        for (n, ((version, sql), file)) in MIGRATIONS.iter().zip(&files).enumerate() {
            assert_eq!(*version, n as i32 + 1, "{file}");
            assert!(file.starts_with(&format!("{version:02}-")), "{file}");
            assert_eq!(*sql, std::fs::read_to_string(format!("{dir}/{file}")).unwrap());
        }
    }

    #[test]
    fn a_notify_payload_naming_the_most_rooms_fits_under_the_limit() {
        let origin = format!("mill-{}", crate::keys::new_room_id());
        let rooms: Vec<String> = (0..ROOMS_PER_PAYLOAD)
            .map(|_| crate::keys::new_room_id())
            .collect();
        let payload = format!("{} {origin}", rooms.join(","));
        assert!(payload.len() < 8000, "{} bytes", payload.len());
        // A full batch of events from distinct rooms takes a few payloads at most.
        assert!((MAX_BATCH as u64).div_ceil(ROOMS_PER_PAYLOAD as u64) <= 3);
    }

    #[test]
    fn places_past_the_column_s_range_are_clamped_never_wrapped() {
        assert_eq!(i(0), 0);
        assert_eq!(i(41), 41);
        assert_eq!(i(i32::MAX as u32), i32::MAX);
        assert_eq!(i(u32::MAX), i32::MAX);
    }

    #[test]
    fn a_bad_url_is_refused_clearly_and_without_its_password() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let err = rt
            .block_on(Pg::open("postgres://mill:hunter2@localhost:notaport/mill", 2))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                DbError::Failed {
                    backend: "PostgreSQL",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(text.contains("--db"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}

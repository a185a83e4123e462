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
mod presence;
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

/// The first key of the advisory lock a pairing holds for its pool (the second is the
/// pool's hash), so two seeks of one pool are decided one after the other.
const SEEK_LOCK: i32 = 5106374;
/// The first key of the advisory lock a pairing holds for its seeker (the second is the
/// seeker's hash), taken before the pool's: a seeker's seeks in two pools at once are
/// decided one after the other, so the newer always finds and withdraws the older. A
/// pairing claims only a seek whose seeker's lock it can take at once (it never waits
/// for it, so no two pairings wait for each other), and a seeker's new seek waits for
/// a pairing that claims its old one, then finds it paired.
const SEEKER_LOCK: i32 = 5106375;
/// The first key of the advisory lock a seek holds for its address (the second is the
/// address key's hash), after its seeker's and before its pool's: the open seeks of one
/// address are counted against `--max-seeks-per-address` one seek at a time.
const ADDRESS_LOCK: i32 = 5106376;

/// Whether a seek's instance is connected to the database now: every connection of an
/// instance carries its id as `application_name`, and a killed instance's connections
/// end with it (the database sees the sockets close), so its seeks stop being
/// pairable, and leave the lobby, at once rather than when its heartbeat is found old.
const SEEK_ALIVE: &str =
    "EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = seeks.instance_id)";

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

/// A paired room: created with both seats taken (in the pairing's transaction).
async fn paired_room(
    tx: &tokio_postgres::Transaction<'_>,
    room: &str,
    at: i64,
    variant: &str,
    clock: Option<TimeControl>,
    light: &[u8],
    dark: &[u8],
) -> Result<(), tokio_postgres::Error> {
    let (initial, increment, days) = clock_columns(clock);
    tx.execute(
        "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment, clock_days, paired)
         VALUES ($1, $3, $2, $2, $4::bigint, $5::bigint, $6::bigint, TRUE)",
        &[&room, &at, &variant, &initial, &increment, &days],
    )
    .await?;
    tx.execute(
        "INSERT INTO seats (room_id, color, key_hash, created_at)
         VALUES ($1, 'light', $2, $4), ($1, 'dark', $3, $4)",
        &[&room, &light, &dark, &at],
    )
    .await?;
    Ok(())
}

/// Rated pairing's choice ([`super::types::rated_choice`]) for a seek of `seeker` made at
/// `since`, looking at `now`, in a transaction holding the pool's lock: as a casual
/// seek's choice, it claims only a row it can lock at once, of a seeker whose lock it
/// can take at once.
#[allow(clippy::too_many_arguments)]
async fn rated_choice(
    tx: &tokio_postgres::Transaction<'_>,
    pool: &str,
    seeker: &str,
    account: Option<i64>,
    variant: &str,
    speed: Speed,
    since: i64,
    now: i64,
) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        super::types::rated_choice(
            [
                "$1",
                "$2",
                "$3::bigint",
                "$4",
                "$5::float8",
                "$6::bigint",
                "$7::bigint",
            ],
            "least",
            "greatest",
            "AND pg_try_advisory_xact_lock($8, hashtext(s.seeker))",
            "FOR UPDATE OF s SKIP LOCKED",
        )
    });
    let rating: f64 = tx
        .query_opt(
            "SELECT rating FROM ratings WHERE account_id = $1 AND rules = $2 AND speed = $3",
            &[&account, &variant, &speed.as_str()],
        )
        .await?
        .map_or(crate::ratings::START_RATING, |r| r.get(0));
    tx.query_opt(
        SQL.as_str(),
        &[
            &pool,
            &seeker,
            &account,
            &speed.as_str(),
            &rating,
            &since,
            &now,
            &SEEKER_LOCK,
        ],
    )
    .await
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

    /// The events of many rooms from a (round, seq) each on, their Dark seats, and
    /// their seats held on other live instances, for many rooms at once, in three statements whatever their number
    /// (sent together on one connection): the read side of the batched writes, for an
    /// instance told by one NOTIFY that many rooms changed. Answers in the order asked.
    async fn news(&self, wanted: &[(String, u32, u32)]) -> Result<Vec<News>, DbError> {
        let client = self.pool.get().await?;
        let ids: Vec<&str> = wanted.iter().map(|w| w.0.as_str()).collect();
        let rounds: Vec<i32> = wanted.iter().map(|w| i(w.1)).collect();
        let seqs: Vec<i32> = wanted.iter().map(|w| i(w.2)).collect();
        let (events, seats, presence) = futures_util::future::try_join3(
            async {
                let stmt = client
                    .prepare_cached(
                        "SELECT e.room_id, e.round, e.seq, e.seat, e.kind, e.action, e.client_id, e.at,
                                e.light_ms, e.dark_ms, e.lag_ms, e.key_hash
                         FROM unnest($1::text[], $2::int[], $3::int[]) AS w(room_id, round, seq)
                         JOIN events e ON e.room_id = w.room_id AND (e.round, e.seq) >= (w.round, w.seq)
                         ORDER BY e.room_id, e.round, e.seq",
                    )
                    .await?;
                client.query(&stmt, &[&ids, &rounds, &seqs]).await
            },
            async {
                let stmt = client
                    .prepare_cached(
                        "SELECT room_id, key_hash, created_at FROM seats WHERE room_id = ANY($1) AND color = 'dark'",
                    )
                    .await?;
                client.query(&stmt, &[&ids]).await
            },
            async {
                let stmt = client
                    .prepare_cached(&format!(
                        "SELECT p.room_id, p.seat, max(p.claim) FROM presence p
                         JOIN instances i ON i.id = p.instance_id
                         WHERE p.room_id = ANY($1) AND p.instance_id <> $2
                           AND i.seen_at > now() - interval '{DEAD_AFTER_SECS} seconds'
                         GROUP BY p.room_id, p.seat"
                    ))
                    .await?;
                client.query(&stmt, &[&ids, &self.instance]).await
            },
        )
        .await?;
        let mut out: std::collections::HashMap<String, News> =
            wanted.iter().map(|w| (w.0.clone(), News::default())).collect();
        for r in &events {
            let room: String = r.get(0);
            let event = event_row(r, 1, &room)?;
            if let Some(news) = out.get_mut(&room) {
                news.events.push(event);
            }
        }
        for r in &seats {
            let room: String = r.get(0);
            let key = key_hash(r.get(1), &room)?;
            if let Some(news) = out.get_mut(&room) {
                news.dark_key = Some(key);
                news.dark_at = Some(r.get(2));
            }
        }
        for r in &presence {
            let room: String = r.get(0);
            let seat = parse_seat(r.get(1), &room)?;
            if let Some(news) = out.get_mut(&room) {
                let at = usize::from(seat == Color::Dark);
                news.remote[at] = true;
                news.claims[at] = r.get(2);
            }
        }
        Ok(wanted
            .iter()
            .map(|w| out.remove(&w.0).unwrap_or_default())
            .collect())
    }

    /// Pairs `seek` with the oldest open seek of another seeker in its pool, in one
    /// transaction under its seeker's and its pool's advisory locks ([`SEEKER_LOCK`], [`SEEK_LOCK`]): the seeker's open seeks are
    /// withdrawn, then either the claimed seek's room is created with both seats and the
    /// claimed row names it, or this seek waits in the table. Every seek it changed is
    /// announced on `mill_seeks` at commit, so the instance holding its request (this
    /// one or another) reads it at once.
    async fn seek(&self, seek: Seek) -> Result<SeekState, DbError> {
        let pool = seek.pool();
        let (initial, increment, days) = clock_columns(seek.clock);
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&SEEKER_LOCK, &seek.seeker],
        )
        .await?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&ADDRESS_LOCK, &seek.address],
        )
        .await?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&SEEK_LOCK, &pool],
        )
        .await?;
        // Another seeker's id (or an answered one): refused, and nothing touched.
        let taken = tx
            .query_opt(
                "SELECT 1 FROM seeks WHERE id = $1 AND (seeker <> $2 OR room_id IS NOT NULL)",
                &[&seek.id, &seek.seeker],
            )
            .await?;
        if taken.is_some() {
            return Ok(SeekState::Taken);
        }
        // A seek lives as long as its instance's connections: one killed or cut off has
        // none left in the database at once, and its seeks go before anyone claims them.
        tx.execute(
            &format!("DELETE FROM seeks WHERE room_id IS NULL AND NOT {SEEK_ALIVE}"),
            &[],
        )
        .await?;
        // SKIP LOCKED: a row locked now is being withdrawn (the pool's lock keeps every
        // other pairing out), so it is not there to claim.
        let other = match seek.rated_speed() {
            // Rated: the closest rating within the window (ratings.rs `pairing_window`).
            Some(speed) => {
                rated_choice(&tx, &pool, &seek.seeker, seek.account, &seek.variant, speed, seek.at, seek.at).await?
            }
            None => {
                tx.query_opt(
                    "SELECT id, key_hash, account_id FROM seeks WHERE pool = $1 AND room_id IS NULL AND seeker <> $2
                       AND coalesce(account_id, -1) <> coalesce($3::bigint, -2)
                       AND pg_try_advisory_xact_lock($4, hashtext(seeker))
                     ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                    &[&pool, &seek.seeker, &seek.account, &SEEKER_LOCK],
                )
                .await?
            }
        };
        // It would wait: its address may hold only so many open seeks (counted under
        // the address's lock, so two instances cannot both take the last place).
        if other.is_none() && seek.address_cap > 0 {
            let held: i64 = tx
                .query_one(
                    "SELECT count(*) FROM seeks WHERE address = $1 AND room_id IS NULL AND seeker <> $2",
                    &[&seek.address, &seek.seeker],
                )
                .await?
                .get(0);
            if held >= i64::from(seek.address_cap) {
                tx.commit().await?;
                return Ok(SeekState::Crowded);
            }
        }
        // The seeker's older seeks go, a paired one not yet answered too: its request
        // then hears `seek-withdrawn`, so one seeker never gets two rooms.
        let withdrawn: Vec<String> = tx
            .query(
                "DELETE FROM seeks WHERE seeker = $1 RETURNING id",
                &[&seek.seeker],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut changed = withdrawn;
        let state = match other {
            None => {
                tx.execute(
                    "INSERT INTO seeks (id, seeker, instance_id, pool, variant, clock_initial,
                                        clock_increment, clock_days, key_hash, created_at, account_id,
                                        address)
                     VALUES ($1, $2, $3, $4, $5, $6::bigint, $7::bigint, $8::bigint, $9, $10, $11, $12)",
                    &[
                        &seek.id,
                        &seek.seeker,
                        &self.instance,
                        &pool,
                        &seek.variant,
                        &initial,
                        &increment,
                        &days,
                        &&seek.key_hash[..],
                        &seek.at,
                        &seek.account,
                        &seek.address,
                    ],
                )
                .await?;
                SeekState::Waiting
            }
            Some(row) => {
                let other_id: String = row.get(0);
                let other_hash: Vec<u8> = row.get(1);
                let other_account: Option<i64> = row.get(2);
                let (light, dark) = match seek.waiting_color {
                    Color::Light => (other_hash, seek.key_hash.to_vec()),
                    Color::Dark => (seek.key_hash.to_vec(), other_hash),
                };
                paired_room(&tx, &seek.room, seek.at, &seek.variant, seek.clock, &light, &dark).await?;
                tx.execute(
                    "UPDATE seeks SET room_id = $2, seat = $3 WHERE id = $1",
                    &[&other_id, &seek.room, &seat_name(seek.waiting_color)],
                )
                .await?;
                // Signed-in seekers' seats, and a rated room's rating (accounts.rs).
                super::accounts::bind_pg(&*tx, &seek.binding(other_account)).await?;
                changed.push(other_id);
                SeekState::Paired {
                    room: seek.room.clone(),
                    seat: !seek.waiting_color,
                }
            }
        };
        tx.execute(
            "SELECT pg_notify('mill_seeks', id) FROM unnest($1::text[]) AS t(id)",
            &[&changed],
        )
        .await?;
        tx.commit().await?;
        for id in &changed {
            self.waiters.wake(id);
        }
        Ok(state)
    }

    /// A waiting rated seek looks again, under its seeker's and its pool's locks (as a
    /// seek takes them, so two lookers in one pool, or a looker and an arrival, are
    /// decided one after the other); announces the seeks it paired.
    async fn recheck(&self, r: Recheck) -> Result<SeekState, DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let Some(mine) = tx
            .query_opt(
                "SELECT seeker, pool FROM seeks WHERE id = $1 AND room_id IS NULL",
                &[&r.id],
            )
            .await?
        else {
            drop(tx);
            return self.seek_state(&r.id).await;
        };
        let (seeker, pool): (String, String) = (mine.get(0), mine.get(1));
        if !is_rated_pool(&pool) {
            return Ok(SeekState::Waiting);
        }
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&SEEKER_LOCK, &seeker],
        )
        .await?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&SEEK_LOCK, &pool],
        )
        .await?;
        // As for a seek: a dead instance's seeks go before anyone claims them.
        tx.execute(
            &format!("DELETE FROM seeks WHERE room_id IS NULL AND NOT {SEEK_ALIVE}"),
            &[],
        )
        .await?;
        // Read again under the locks: it may have been paired or withdrawn meanwhile.
        let Some(mine) = tx
            .query_opt(
                "SELECT variant, clock_initial::bigint, clock_increment::bigint, clock_days::bigint, key_hash,
                        created_at, account_id
                 FROM seeks WHERE id = $1 AND room_id IS NULL FOR UPDATE",
                &[&r.id],
            )
            .await?
        else {
            drop(tx);
            return self.seek_state(&r.id).await;
        };
        let variant: String = mine.get(0);
        let clock = parse_clock(mine.get(1), mine.get(2), mine.get(3), "(a seek)")?;
        let Some(clock) = clock else {
            return Ok(SeekState::Waiting);
        };
        let key_hash: Vec<u8> = mine.get(4);
        let since: i64 = mine.get(5);
        let account: Option<i64> = mine.get(6);
        let speed = Speed::of(clock);
        let Some(row) = rated_choice(&tx, &pool, &seeker, account, &variant, speed, since, r.at).await?
        else {
            return Ok(SeekState::Waiting);
        };
        let other_id: String = row.get(0);
        let other_hash: Vec<u8> = row.get(1);
        let other_account: Option<i64> = row.get(2);
        let (light, dark) = match r.color {
            Color::Light => (key_hash, other_hash),
            Color::Dark => (other_hash, key_hash),
        };
        paired_room(&tx, &r.room, r.at, &variant, Some(clock), &light, &dark).await?;
        for (id, seat) in [(&r.id, r.color), (&other_id, !r.color)] {
            tx.execute(
                "UPDATE seeks SET room_id = $2, seat = $3 WHERE id = $1",
                &[id, &r.room, &seat_name(seat)],
            )
            .await?;
        }
        let (light_account, dark_account) = match r.color {
            Color::Light => (account, other_account),
            Color::Dark => (other_account, account),
        };
        super::accounts::bind_pg(
            &*tx,
            &super::accounts::Binding {
                room: &r.room,
                light: light_account,
                dark: dark_account,
                rated: Some((&variant, speed)),
            },
        )
        .await?;
        let changed = vec![other_id, r.id.clone()];
        tx.execute(
            "SELECT pg_notify('mill_seeks', id) FROM unnest($1::text[]) AS t(id)",
            &[&changed],
        )
        .await?;
        tx.commit().await?;
        for id in &changed {
            self.waiters.wake(id);
        }
        Ok(SeekState::Paired {
            room: r.room,
            seat: r.color,
        })
    }

    /// Deletes seek `id` (only while it is open, with `open_only`) and announces it;
    /// returns what it was.
    async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt(
                "WITH d AS (DELETE FROM seeks WHERE id = $1 AND (NOT $2 OR room_id IS NULL)
                            RETURNING id, room_id, seat)
                 SELECT room_id, seat, pg_notify('mill_seeks', id) FROM d",
                &[&id, &open_only],
            )
            .await?;
        match row {
            None => Ok(SeekState::Gone),
            Some(r) => {
                self.waiters.wake(id);
                SeekState::from_columns(r.get(0), r.get(1))
            }
        }
    }

    /// Where seek `id` stands.
    async fn seek_state(&self, id: &str) -> Result<SeekState, DbError> {
        let client = self.pool.get().await?;
        let stmt = client
            .prepare_cached("SELECT room_id, seat FROM seeks WHERE id = $1")
            .await?;
        match client.query_opt(&stmt, &[&id]).await? {
            None => Ok(SeekState::Gone),
            Some(r) => SeekState::from_columns(r.get(0), r.get(1)),
        }
    }

    /// The open seeks of every instance, at most `limit`, shared out by address, shown
    /// oldest first (`types::lobby_choice`).
    async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
        let client = self.pool.get().await?;
        let stmt = client
            .prepare_cached(&super::types::lobby_choice(SEEK_ALIVE, "$1"))
            .await?;
        let rows = client.query(&stmt, &[&(limit as i64)]).await?;
        rows.iter()
            .map(|r| {
                Ok(OpenSeek {
                    variant: r.get(0),
                    clock: parse_clock(r.get(1), r.get(2), r.get(3), "(a seek)")?,
                    since: r.get(4),
                    account: r.get(5),
                    rated: r.get(6),
                })
            })
            .collect()
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
        let (news_tx, mut news_rx) = mpsc::unbounded_channel();
        tasks.push(tokio::spawn(self.clone().listen(news_tx)));
        let changed = rooms.clone();
        tasks.push(tokio::spawn(async move {
            // Every room announced while the last batches were being read makes the
            // next batch (a `None` stands for every room); a few batches are read at
            // once, so one slow read does not hold the news of every other room.
            let readers = Arc::new(Semaphore::new(3));
            while let Some(first) = news_rx.recv().await {
                let Ok(reader) = readers.clone().acquire_owned().await else {
                    break;
                };
                let mut ids = Some(Vec::new());
                for id in std::iter::once(first).chain(std::iter::from_fn(|| news_rx.try_recv().ok())) {
                    match (id, &mut ids) {
                        (Some(id), Some(list)) => list.push(id),
                        (None, _) => ids = None,
                        (Some(_), None) => {}
                    }
                    if ids.as_ref().is_some_and(|l| l.len() >= 1024) {
                        break;
                    }
                }
                if let Some(list) = &mut ids {
                    list.sort_unstable();
                    list.dedup();
                }
                let changed = changed.clone();
                tokio::spawn(async move {
                    changed.changed(ids).await;
                    drop(reader);
                });
            }
        }));
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

impl Pg {
    /// Listens on `mill_rooms` on a connection of its own and sends the id of every room
    /// that another instance changed (`None` after the connection was lost and made
    /// again: every room in memory may have missed news). Runs until `out` closes.
    async fn listen(self, out: mpsc::UnboundedSender<Option<String>>) {
        let mut first = true;
        loop {
            match self.config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let (tx, mut rx) = mpsc::unbounded_channel();
                    let waiters = self.waiters.clone();
                    let driver = tokio::spawn(async move {
                        let mut messages =
                            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                        while let Some(message) = messages.next().await {
                            match message {
                                Ok(AsyncMessage::Notification(n)) => {
                                    if n.channel() == "mill_seeks" {
                                        waiters.wake(n.payload());
                                        continue;
                                    }
                                    if tx.send(n.payload().to_string()).is_err() {
                                        break;
                                    }
                                }
                                Ok(_) => {}
                                Err(e) => {
                                    tracing::warn!(error = %e, "LISTEN connection lost");
                                    break;
                                }
                            }
                        }
                    });
                    if let Err(e) = client.batch_execute("LISTEN mill_rooms; LISTEN mill_seeks").await {
                        tracing::warn!(error = %e, "LISTEN failed");
                    } else {
                        if !first {
                            if out.send(None).is_err() {
                                return;
                            }
                            self.waiters.wake_all();
                        }
                        first = false;
                        while let Some(payload) = rx.recv().await {
                            let (rooms, origin) = payload.split_once(' ').unwrap_or((&payload, ""));
                            if origin == self.instance {
                                continue;
                            }
                            for room in rooms.split(',') {
                                if out.send(Some(room.to_string())).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                    driver.abort();
                }
                Err(e) => tracing::warn!(error = %e, "LISTEN connection failed"),
            }
            if out.is_closed() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
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

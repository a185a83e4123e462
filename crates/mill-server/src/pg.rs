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
//! - every event is one `INSERT … ON CONFLICT DO NOTHING` statement (one transaction,
//!   acknowledged only after it has committed); the primary key (room, round, seq)
//!   picks the winner of two instances racing for the same place, and the unique
//!   (room, seat, client id) stores a retried command once, whichever instance the
//!   retry reaches;
//! - a trigger announces each new event, seat and presence change on the channel
//!   `mill_rooms`; each instance LISTENs and reads the room's new rows (`catch_up`);
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

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use crate::db::{DbError, StoredEvent, StoredRoom};

/// The PostgreSQL migrations, in order (the number is the schema version).
const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("../../../migrations/postgres/01-init.sql")),
    (2, include_str!("../../../migrations/postgres/02-seat-claims.sql")),
];

/// An instance whose heartbeat is older than this is taken for dead.
const DEAD_AFTER_SECS: i32 = 30;
/// How often an instance refreshes its heartbeat.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        DbError::Postgres(e.to_string())
    }
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        DbError::Postgres(e.to_string())
    }
}

/// What became of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// Committed.
    Applied,
    /// Another command already holds this (room, round, seq).
    Conflict,
    /// This seat's client id is already stored (a retry).
    Duplicate,
}

/// One event to store.
#[derive(Debug, Clone)]
pub struct NewEvent<'a> {
    /// Room id.
    pub room: &'a str,
    /// Round.
    pub round: u32,
    /// Place in the round.
    pub seq: u32,
    /// "light"/"dark".
    pub seat: &'static str,
    /// Event kind.
    pub kind: &'static str,
    /// Action text.
    pub action: Option<&'a str>,
    /// Client id.
    pub client_id: &'a str,
    /// Now (Unix ms).
    pub at: i64,
}

/// A room's news since a given place.
#[derive(Debug, Clone)]
pub struct News {
    /// The Dark seat's key hash, if taken.
    pub dark_key: Option<[u8; 32]>,
    /// Events at or after the place asked for, in order.
    pub events: Vec<StoredEvent>,
    /// Seats held by a socket on another live instance.
    pub remote: [bool; 2],
    /// The newest claim on each seat by another live instance (see [`Pg::presence`]).
    pub claims: [Option<i64>; 2],
}

/// The pool and this instance's identity.
#[derive(Debug, Clone)]
pub struct Pg {
    pool: Pool,
    config: tokio_postgres::Config,
    /// This instance's id (also its connections' application_name).
    pub instance: String,
}

fn i(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn hash(bytes: Vec<u8>, what: &str) -> Result<[u8; 32], DbError> {
    bytes
        .try_into()
        .map_err(|_| DbError::Corrupt(format!("key hash of {what}")))
}

impl Pg {
    /// Connects to `url`, brings the schema up to date (one instance at a time, under an
    /// advisory lock) and registers this instance.
    pub async fn open(url: &str, pool_size: usize) -> Result<Pg, DbError> {
        let instance = format!("mill-{}", &crate::keys::new_room_id());
        let mut config =
            tokio_postgres::Config::from_str(url).map_err(|e| DbError::Postgres(format!("--db: {e}")))?;
        config.application_name(&instance);
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
            .map_err(|e| DbError::Postgres(e.to_string()))?;
        let pg = Pg {
            pool,
            config,
            instance,
        };
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

    /// A new room with its Light seat.
    pub async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
    ) -> Result<(), DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute(
            "INSERT INTO rooms (id, variant, created_at, active_at) VALUES ($1, $3, $2, $2)",
            &[&id, &at, &rules],
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
    pub async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError> {
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

    /// Stores one event in its own transaction; returns once it has committed.
    pub async fn insert_event(&self, e: &NewEvent<'_>) -> Result<Inserted, DbError> {
        let started = std::time::Instant::now();
        let client = self.pool.get().await?;
        let stmt = client
            .prepare_cached(
                "WITH ev AS (INSERT INTO events (room_id, round, seq, seat, kind, action, client_id, at)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                             ON CONFLICT DO NOTHING RETURNING room_id),
                      t AS (UPDATE rooms SET active_at = GREATEST(active_at, $8)
                            WHERE id IN (SELECT room_id FROM ev))
                 SELECT count(*) FROM ev",
            )
            .await?;
        let n: i64 = client
            .query_one(
                &stmt,
                &[
                    &e.room,
                    &i(e.round),
                    &i(e.seq),
                    &e.seat,
                    &e.kind,
                    &e.action,
                    &e.client_id,
                    &e.at,
                ],
            )
            .await?
            .get(0);
        crate::metrics::get()
            .commit_seconds
            .observe(started.elapsed().as_secs_f64());
        if n == 1 {
            return Ok(Inserted::Applied);
        }
        let dup = client
            .query_opt(
                "SELECT 1 FROM events WHERE room_id = $1 AND seat = $2 AND client_id = $3",
                &[&e.room, &e.seat, &e.client_id],
            )
            .await?;
        Ok(if dup.is_some() {
            Inserted::Duplicate
        } else {
            Inserted::Conflict
        })
    }

    /// Reads one room with its seats and events in order; `None` if there is none.
    pub async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        let client = self.pool.get().await?;
        let Some(row) = client
            .query_opt("SELECT active_at, variant FROM rooms WHERE id = $1", &[&id])
            .await?
        else {
            return Ok(None);
        };
        let mut room = StoredRoom {
            id: id.to_string(),
            active_at: row.get(0),
            variant: row.get(1),
            light_key: None,
            dark_key: None,
            events: Vec::new(),
        };
        for row in client
            .query("SELECT color, key_hash FROM seats WHERE room_id = $1", &[&id])
            .await?
        {
            let color: String = row.get(0);
            let key = hash(row.get(1), id)?;
            match color.as_str() {
                "light" => room.light_key = Some(key),
                _ => room.dark_key = Some(key),
            }
        }
        room.events = self.events(&client, id, 1, 0).await?;
        if let Some(last) = room.events.iter().map(|e| e.at).max() {
            room.active_at = room.active_at.max(last);
        }
        Ok(Some(room))
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
                "SELECT round, seat, kind, action, client_id, at FROM events
                 WHERE room_id = $1 AND (round, seq) >= ($2, $3) ORDER BY round, seq",
            )
            .await?;
        let rows = client.query(&stmt, &[&id, &i(round), &i(seq)]).await?;
        Ok(rows
            .iter()
            .map(|r| StoredEvent {
                round: u32::try_from(r.get::<_, i32>(0)).unwrap_or(0),
                seat: r.get(1),
                kind: r.get(2),
                action: r.get(3),
                client_id: r.get(4),
                at: r.get(5),
            })
            .collect())
    }

    /// The room's events from (round, seq) on, its Dark seat, and its seats held on
    /// other live instances.
    pub async fn news(&self, id: &str, round: u32, seq: u32) -> Result<News, DbError> {
        let client = self.pool.get().await?;
        let events = self.events(&client, id, round, seq).await?;
        let dark = client
            .query_opt(
                "SELECT key_hash FROM seats WHERE room_id = $1 AND color = 'dark'",
                &[&id],
            )
            .await?;
        let dark_key = match dark {
            Some(row) => Some(hash(row.get(0), id)?),
            None => None,
        };
        let stmt = client
            .prepare_cached(&format!(
                "SELECT p.seat, max(p.claim) FROM presence p JOIN instances i ON i.id = p.instance_id
                 WHERE p.room_id = $1 AND p.instance_id <> $2
                   AND i.seen_at > now() - interval '{DEAD_AFTER_SECS} seconds'
                 GROUP BY p.seat"
            ))
            .await?;
        let mut remote = [false; 2];
        let mut claims = [None; 2];
        for row in client.query(&stmt, &[&id, &self.instance]).await? {
            let seat: String = row.get(0);
            let at = usize::from(seat == "dark");
            remote[at] = true;
            claims[at] = row.get(1);
        }
        Ok(News {
            dark_key,
            events,
            remote,
            claims,
        })
    }

    /// Publishes (or withdraws) this instance's socket on a seat; also counts as activity.
    /// Publishing claims the seat: it returns the claim's number, newer than every claim
    /// on any seat before it (a socket replacing another on this instance claims again).
    pub async fn presence(
        &self,
        room: &str,
        seat: &str,
        online: bool,
        at: i64,
    ) -> Result<Option<i64>, DbError> {
        let client = self.pool.get().await?;
        let mut claim = None;
        if online {
            let row = client
                .query_opt(
                    "INSERT INTO presence (room_id, seat, instance_id) VALUES ($1, $2, $3)
                     ON CONFLICT (room_id, seat, instance_id)
                     DO UPDATE SET claim = nextval('presence_claim')
                     RETURNING claim",
                    &[&room, &seat, &self.instance],
                )
                .await?;
            claim = row.map(|r| r.get(0));
        } else {
            client
                .execute(
                    "DELETE FROM presence WHERE room_id = $1 AND seat = $2 AND instance_id = $3",
                    &[&room, &seat, &self.instance],
                )
                .await?;
        }
        self.touch_with(&client, room, at).await?;
        Ok(claim)
    }

    /// A connection came or went.
    pub async fn touch(&self, room: &str, at: i64) -> Result<(), DbError> {
        let client = self.pool.get().await?;
        self.touch_with(&client, room, at).await
    }

    async fn touch_with(
        &self,
        client: &deadpool_postgres::Client,
        room: &str,
        at: i64,
    ) -> Result<(), DbError> {
        let stmt = client
            .prepare_cached("UPDATE rooms SET active_at = GREATEST(active_at, $2) WHERE id = $1")
            .await?;
        client.execute(&stmt, &[&room, &at]).await?;
        Ok(())
    }

    /// Refreshes this instance's heartbeat and deletes instances (with their presence)
    /// that stopped refreshing theirs. Returns `true` if this instance had been taken
    /// for dead and has come back: its presence is gone and must be published again.
    pub async fn heartbeat(&self) -> Result<bool, DbError> {
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

    /// Removes this instance's row (and its presence) on a clean shutdown.
    pub async fn leave(&self) -> Result<(), DbError> {
        let client = self.pool.get().await?;
        client
            .execute("DELETE FROM instances WHERE id = $1", &[&self.instance])
            .await?;
        Ok(())
    }

    /// Deletes up to `limit` rooms idle since `cutoff` with no socket on any instance;
    /// returns their ids. Safe with several instances purging at once.
    /// `held` are rooms this instance holds in memory (a socket whose presence may not
    /// be published yet): they stay too.
    pub async fn purge(&self, cutoff: i64, limit: i64, held: &[String]) -> Result<Vec<String>, DbError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "DELETE FROM rooms WHERE id IN (
                     SELECT id FROM rooms r WHERE active_at < $1
                       AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.room_id = r.id)
                       AND NOT (id = ANY($3))
                     LIMIT $2 FOR UPDATE SKIP LOCKED)
                 RETURNING id",
                &[&cutoff, &limit, &held],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Listens on `mill_rooms` on a connection of its own and sends the id of every room
    /// that another instance changed (`None` after the connection was lost and made
    /// again: every room in memory may have missed news). Runs until `out` closes.
    pub async fn listen(self, out: mpsc::UnboundedSender<Option<String>>) {
        let mut first = true;
        loop {
            match self.config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let (tx, mut rx) = mpsc::unbounded_channel();
                    let driver = tokio::spawn(async move {
                        let mut messages =
                            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                        while let Some(message) = messages.next().await {
                            match message {
                                Ok(AsyncMessage::Notification(n)) => {
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
                    if let Err(e) = client.batch_execute("LISTEN mill_rooms").await {
                        tracing::warn!(error = %e, "LISTEN failed");
                    } else {
                        if !first && out.send(None).is_err() {
                            return;
                        }
                        first = false;
                        while let Some(payload) = rx.recv().await {
                            let (room, origin) = payload.split_once(' ').unwrap_or((&payload, ""));
                            if origin == self.instance {
                                continue;
                            }
                            if out.send(Some(room.to_string())).is_err() {
                                return;
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

//! What accounts need from the database, on either backend: accounts (a name and a
//! password's hash), sessions (the SHA-256 of each token, never the token) and ratings.
//! The schema is `migrations/sqlite/09-accounts`, `migrations/postgres/06-accounts.sql`.
//!
//! Its own handle beside the rooms' store ([`super::Store`]): accounts are written a few
//! times a minute, not in the rooms' group commit, so SQLite gets a second read-write
//! connection (WAL; the writer thread and it wait for each other through the busy
//! timeout) and PostgreSQL a small pool of its own. Every uniqueness (a name, a token)
//! is decided by the database's keys.

use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use rusqlite::{Connection, OptionalExtension, params};
use tokio_postgres::NoTls;

use super::{DbError, DbTarget};
use crate::ratings::{Rating, Score, Speed};

/// An account as sign-in needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The database's id.
    pub id: i64,
    /// The name as the player typed it.
    pub name: String,
    /// The password's argon2id hash (a PHC string), if the account has a password.
    pub password_hash: Option<String>,
}

/// A new session: the hash of its token and when it expires (Unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSession {
    /// SHA-256 of the token.
    pub token_hash: [u8; 32],
    /// Now.
    pub at: i64,
    /// When it stops being honoured.
    pub expires_at: i64,
}

/// One rating of a player, with the rule set and speed it is for.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRating {
    /// The rule set's name (`nine`).
    pub rules: String,
    /// The speed.
    pub speed: Speed,
    /// The numbers.
    pub rating: Rating,
}

/// The accounts' storage.
#[derive(Debug, Clone)]
pub enum Accounts {
    /// A connection to the SQLite file.
    Sqlite(Arc<Mutex<Connection>>),
    /// A small pool on the shared PostgreSQL database.
    Postgres(Pool),
}

/// Connections the accounts' pool keeps on PostgreSQL: sign-ins are few and their cost
/// is the password hash, not the database.
const PG_POOL: usize = 4;

pub(super) fn pg_err(e: tokio_postgres::Error) -> DbError {
    match e.as_db_error() {
        Some(db) => DbError::failed("PostgreSQL", db.to_string()),
        None => DbError::failed("PostgreSQL", e.to_string()),
    }
}

pub(super) fn pool_err(e: deadpool_postgres::PoolError) -> DbError {
    DbError::failed("PostgreSQL", e.to_string())
}

pub(super) fn is_unique_violation_pg(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
}

pub(super) fn is_unique_violation_sqlite(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    )
}

fn rating_row(
    rules: String,
    speed: &str,
    rating: f64,
    rd: f64,
    vol: f64,
    games: i64,
) -> Result<StoredRating, DbError> {
    let speed = Speed::from_str(speed).map_err(|_| DbError::Corrupt(format!("speed {speed:?}")))?;
    Ok(StoredRating {
        rules,
        speed,
        rating: Rating {
            rating,
            rd,
            vol,
            games: u32::try_from(games).map_err(|_| DbError::Corrupt(format!("games {games}")))?,
        },
    })
}

impl Accounts {
    /// Opens the accounts' side of the database the rooms' store has already opened
    /// and migrated.
    pub async fn open(target: &DbTarget) -> Result<Accounts, DbError> {
        match target {
            DbTarget::Sqlite(path) => {
                let path = path.to_path_buf();
                let conn = tokio::task::spawn_blocking(move || open_sqlite(&path))
                    .await
                    .map_err(|_| DbError::Corrupt("opening the database panicked".into()))??;
                Ok(Accounts::Sqlite(Arc::new(Mutex::new(conn))))
            }
            DbTarget::Postgres(url) => {
                let mut config = tokio_postgres::Config::from_str(url)
                    .map_err(|e| DbError::failed("PostgreSQL", format!("--db: {e}")))?;
                config.application_name("mill-accounts");
                config.connect_timeout(Duration::from_secs(10));
                let manager = Manager::from_config(
                    config,
                    NoTls,
                    ManagerConfig {
                        recycling_method: RecyclingMethod::Fast,
                    },
                );
                let pool = Pool::builder(manager)
                    .max_size(PG_POOL)
                    .build()
                    .map_err(|e| DbError::failed("PostgreSQL", e.to_string()))?;
                Ok(Accounts::Postgres(pool))
            }
        }
    }

    pub(super) async fn sqlite<T: Send + 'static>(
        conn: &Arc<Mutex<Connection>>,
        f: impl FnOnce(&mut Connection) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let conn = conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut conn)
        })
        .await
        .map_err(|_| DbError::Corrupt("an accounts query panicked".into()))?
    }

    /// A new account with its first session, in one transaction; `None` when the name
    /// (without regard to case: `name_key`) is taken.
    pub async fn create(
        &self,
        name: &str,
        name_key: &str,
        password_hash: &str,
        session: NewSession,
    ) -> Result<Option<i64>, DbError> {
        let (name, name_key, password_hash) =
            (name.to_string(), name_key.to_string(), password_hash.to_string());
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let tx = conn.transaction()?;
                    let id = match tx.execute(
                        "INSERT INTO accounts (name, name_key, password_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                        params![name, name_key, password_hash, session.at],
                    ) {
                        Ok(_) => tx.last_insert_rowid(),
                        Err(e) if is_unique_violation_sqlite(&e) => return Ok(None),
                        Err(e) => return Err(e.into()),
                    };
                    insert_session_sqlite(&tx, id, session)?;
                    tx.commit()?;
                    Ok(Some(id))
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let mut client = pool.get().await.map_err(pool_err)?;
                let tx = client.transaction().await.map_err(pg_err)?;
                let row = match tx
                    .query_one(
                        "INSERT INTO accounts (name, name_key, password_hash, created_at)
                         VALUES ($1, $2, $3, $4) RETURNING id",
                        &[&name, &name_key, &password_hash, &session.at],
                    )
                    .await
                {
                    Ok(row) => row,
                    Err(e) if is_unique_violation_pg(&e) => return Ok(None),
                    Err(e) => return Err(pg_err(e)),
                };
                let id: i64 = row.get(0);
                tx.execute(
                    "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
                    &[&&session.token_hash[..], &id, &session.at, &session.expires_at],
                )
                .await
                .map_err(pg_err)?;
                tx.commit().await.map_err(pg_err)?;
                Ok(Some(id))
            }
        }
    }

    /// The account named `name_key` (the lower-case name).
    pub async fn by_name(&self, name_key: &str) -> Result<Option<Account>, DbError> {
        let name_key = name_key.to_string();
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    Ok(conn
                        .prepare_cached("SELECT id, name, password_hash FROM accounts WHERE name_key = ?1")?
                        .query_row(params![name_key], |r| {
                            Ok(Account {
                                id: r.get(0)?,
                                name: r.get(1)?,
                                password_hash: r.get(2)?,
                            })
                        })
                        .optional()?)
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let row = client
                    .query_opt(
                        "SELECT id, name, password_hash FROM accounts WHERE name_key = $1",
                        &[&name_key],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(row.map(|r| Account {
                    id: r.get(0),
                    name: r.get(1),
                    password_hash: r.get(2),
                }))
            }
        }
    }

    /// A new session of account `id`.
    pub async fn add_session(&self, id: i64, session: NewSession) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| insert_session_sqlite(conn, id, session)).await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute(
                        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
                        &[&&session.token_hash[..], &id, &session.at, &session.expires_at],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// The account (id and name) a session token's hash signs in, if the session exists
    /// and has not expired by `now`.
    pub async fn session(&self, token_hash: [u8; 32], now: i64) -> Result<Option<(i64, String)>, DbError> {
        const SQL_SQLITE: &str = "SELECT a.id, a.name FROM sessions s JOIN accounts a ON a.id = s.account_id
                                  WHERE s.token_hash = ?1 AND s.expires_at > ?2";
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    Ok(conn
                        .prepare_cached(SQL_SQLITE)?
                        .query_row(params![&token_hash[..], now], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()?)
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let row = client
                    .query_opt(
                        "SELECT a.id, a.name FROM sessions s JOIN accounts a ON a.id = s.account_id
                         WHERE s.token_hash = $1 AND s.expires_at > $2",
                        &[&&token_hash[..], &now],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(row.map(|r| (r.get(0), r.get(1))))
            }
        }
    }

    /// Ends one session (sign-out); nothing if it does not exist.
    pub async fn end_session(&self, token_hash: [u8; 32]) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute(
                        "DELETE FROM sessions WHERE token_hash = ?1",
                        params![&token_hash[..]],
                    )?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute("DELETE FROM sessions WHERE token_hash = $1", &[&&token_hash[..]])
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// Ends every session of account `id` (sign out everywhere).
    pub async fn end_sessions(&self, id: i64) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute("DELETE FROM sessions WHERE account_id = ?1", params![id])?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute("DELETE FROM sessions WHERE account_id = $1", &[&id])
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// Deletes account `id` with its sessions and ratings (the foreign keys cascade).
    pub async fn delete(&self, id: i64) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute("DELETE FROM accounts WHERE id = ?1", params![id])?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute("DELETE FROM accounts WHERE id = $1", &[&id])
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// Deletes the sessions that expired by `now` (the purge job).
    pub async fn purge_sessions(&self, now: i64) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute("DELETE FROM sessions WHERE expires_at <= ?1", params![now])?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute("DELETE FROM sessions WHERE expires_at <= $1", &[&now])
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// Every rating of account `id`, by rule set and speed.
    pub async fn ratings(&self, id: i64) -> Result<Vec<StoredRating>, DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(
                        "SELECT rules, speed, rating, rd, vol, games FROM ratings
                         WHERE account_id = ?1 ORDER BY rules, speed",
                    )?;
                    let rows = stmt
                        .query_map(params![id], |r| {
                            Ok((
                                r.get::<_, String>(0)?,
                                r.get::<_, String>(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                            ))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    rows.into_iter()
                        .map(|(rules, speed, rating, rd, vol, games)| {
                            rating_row(rules, &speed, rating, rd, vol, games)
                        })
                        .collect()
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let rows = client
                    .query(
                        "SELECT rules, speed, rating, rd, vol, games FROM ratings
                         WHERE account_id = $1 ORDER BY rules, speed",
                        &[&id],
                    )
                    .await
                    .map_err(pg_err)?;
                rows.into_iter()
                    .map(|r| {
                        let games: i32 = r.get(5);
                        rating_row(
                            r.get(0),
                            r.get::<_, &str>(1),
                            r.get(2),
                            r.get(3),
                            r.get(4),
                            i64::from(games),
                        )
                    })
                    .collect()
            }
        }
    }
}

fn open_sqlite(path: &Path) -> Result<Connection, DbError> {
    let conn = Connection::open(path)?;
    // The same promises as the writer's connection (store/sqlite.rs `open`), which has
    // already set WAL and migrated the file.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "busy_timeout", 5000)?;
    Ok(conn)
}

fn insert_session_sqlite(conn: &Connection, id: i64, session: NewSession) -> Result<(), DbError> {
    conn.prepare_cached(
        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        &session.token_hash[..],
        id,
        session.at,
        session.expires_at
    ])?;
    Ok(())
}

/// Light's score in a round that ended with `outcome`; `None` for an aborted round,
/// which changes no rating.
pub fn light_score(outcome: &mill_core::Outcome) -> Option<Score> {
    match outcome {
        mill_core::Outcome::Win { winner, .. } if *winner == mill_core::Color::Light => Some(Score::Win),
        mill_core::Outcome::Win { .. } => Some(Score::Loss),
        mill_core::Outcome::Draw { .. } => Some(Score::Draw),
        mill_core::Outcome::Aborted => None,
    }
}

/// A seat of a finished round as the record sees it: whether an account held it when
/// the round was played (`seat_accounts` has a row), and that account unless it has
/// been deleted since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecordSeat {
    bound: bool,
    account: Option<i64>,
}

/// What the store's append finds about the room of a round that has just ended.
#[derive(Debug, Clone)]
struct FinishedRoom {
    rules: String,
    clock_initial: Option<i64>,
    clock_increment: Option<i64>,
    clock_days: Option<i64>,
    /// The speed of a rated room's rating.
    speed: Option<String>,
    light: RecordSeat,
    dark: RecordSeat,
}

impl FinishedRoom {
    /// The rated round's two accounts (Light's, Dark's) and speed: a rated room whose
    /// seats are both still held by accounts.
    fn rated(&self) -> Option<(i64, i64, &str)> {
        match (self.light.account, self.dark.account, self.speed.as_deref()) {
            (Some(l), Some(d), Some(speed)) => Some((l, d, speed)),
            _ => None,
        }
    }

    /// The record's rows for this round: one per seat held by an account. `ratings`,
    /// for a rated round, is Light's and Dark's (before, after).
    fn rows(&self, outcome: &mill_core::Outcome, ratings: Option<[(f64, f64); 2]>) -> Vec<GameRow> {
        let Some(light_score) = light_score(outcome) else {
            return Vec::new();
        };
        let reason = match outcome {
            mill_core::Outcome::Win { reason, .. } => serde_json::to_value(reason),
            mill_core::Outcome::Draw { reason } => serde_json::to_value(reason),
            mill_core::Outcome::Aborted => return Vec::new(),
        }
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
        let dark_score = match light_score {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        };
        let seats = [
            ("light", self.light, self.dark, light_score, ratings.map(|r| r[0])),
            ("dark", self.dark, self.light, dark_score, ratings.map(|r| r[1])),
        ];
        seats
            .into_iter()
            .filter_map(|(color, me, them, score, rating)| {
                Some(GameRow {
                    account: me.account?,
                    color,
                    opponent: them.account,
                    opponent_signed: them.bound,
                    result: match score {
                        Score::Win => "win",
                        Score::Draw => "draw",
                        Score::Loss => "loss",
                    },
                    reason: reason.clone(),
                    speed: rating.and(self.speed.clone()),
                    before: rating.map(|r| r.0),
                    after: rating.map(|r| r.1),
                })
            })
            .collect()
    }
}

/// One row of `player_games` to write.
#[derive(Debug, Clone)]
struct GameRow {
    account: i64,
    color: &'static str,
    opponent: Option<i64>,
    opponent_signed: bool,
    result: &'static str,
    reason: String,
    speed: Option<String>,
    before: Option<f64>,
    after: Option<f64>,
}

/// The room of a finished round (`?1`/`$1` appended by each backend); the clock's
/// columns as BIGINT on both.
const FINISHED_ROOM_SQL: &str = "SELECT r.variant, CAST(r.clock_initial AS BIGINT),
        CAST(r.clock_increment AS BIGINT), CAST(r.clock_days AS BIGINT),
        (SELECT speed FROM rated_rooms WHERE room_id = r.id),
        (SELECT count(*) FROM seat_accounts WHERE room_id = r.id AND color = 'light'),
        (SELECT account_id FROM seat_accounts WHERE room_id = r.id AND color = 'light'),
        (SELECT count(*) FROM seat_accounts WHERE room_id = r.id AND color = 'dark'),
        (SELECT account_id FROM seat_accounts WHERE room_id = r.id AND color = 'dark')
     FROM rooms r WHERE r.id = ";

/// Called by the SQLite writer (`store/sqlite.rs` `append`) in the transaction that has
/// just stored an event ending round `round` of `room` with `outcome`: in a rated room,
/// changes both players' ratings, once per round (the `rated_rounds` key); and for every
/// seat held by an account, adds the round to that player's record (`player_games`,
/// once: its key). The writer is SQLite's only writer of ratings, so reading them and
/// writing them back cannot race. An aborted round changes and records nothing.
pub fn record_round_sqlite(
    conn: &Connection,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), rusqlite::Error> {
    let Some(score) = light_score(outcome) else {
        return Ok(());
    };
    let found: Option<FinishedRoom> = conn
        .prepare_cached(&format!("{FINISHED_ROOM_SQL}?1"))?
        .query_row(params![room], |r| {
            Ok(FinishedRoom {
                rules: r.get(0)?,
                clock_initial: r.get(1)?,
                clock_increment: r.get(2)?,
                clock_days: r.get(3)?,
                speed: r.get(4)?,
                light: RecordSeat {
                    bound: r.get::<_, i64>(5)? > 0,
                    account: r.get(6)?,
                },
                dark: RecordSeat {
                    bound: r.get::<_, i64>(7)? > 0,
                    account: r.get(8)?,
                },
            })
        })
        .optional()?;
    // Anonymous players: no record, no rating.
    let Some(game) = found.filter(|g| g.light.account.is_some() || g.dark.account.is_some()) else {
        return Ok(());
    };
    let mut ratings = None;
    if let Some((light, dark, speed)) = game.rated() {
        let read = |account: i64| -> Result<Rating, rusqlite::Error> {
            Ok(conn
                .prepare_cached(
                    "SELECT rating, rd, vol, games FROM ratings WHERE account_id = ?1 AND rules = ?2 AND speed = ?3",
                )?
                .query_row(params![account, game.rules, speed], |r| {
                    Ok(Rating {
                        rating: r.get(0)?,
                        rd: r.get(1)?,
                        vol: r.get(2)?,
                        games: r.get(3)?,
                    })
                })
                .optional()?
                .unwrap_or_default())
        };
        let (before_light, before_dark) = (read(light)?, read(dark)?);
        let (after_light, after_dark) = Rating::after_round(before_light, before_dark, score);
        let first = conn
            .prepare_cached(
                "INSERT INTO rated_rounds (room_id, round, light_before, light_after, dark_before, dark_after, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                room,
                round,
                before_light.rating,
                after_light.rating,
                before_dark.rating,
                after_dark.rating,
                at
            ])?;
        if first == 0 {
            return Ok(());
        }
        for (account, r) in [(light, after_light), (dark, after_dark)] {
            conn.prepare_cached(
                "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (account_id, rules, speed) DO UPDATE SET rating = excluded.rating, rd = excluded.rd,
                     vol = excluded.vol, games = excluded.games, updated_at = excluded.updated_at",
            )?
            .execute(params![
                account, game.rules, speed, r.rating, r.rd, r.vol, r.games, at
            ])?;
        }
        ratings = Some([
            (before_light.rating, after_light.rating),
            (before_dark.rating, after_dark.rating),
        ]);
    }
    for row in game.rows(outcome, ratings) {
        conn.prepare_cached(
            "INSERT INTO player_games (account_id, room_id, round, color, opponent_id, opponent_signed, result,
                 reason, rules, clock_initial, clock_increment, clock_days, speed, rating_before, rating_after, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
             ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            row.account,
            room,
            round,
            row.color,
            row.opponent,
            row.opponent_signed,
            row.result,
            row.reason,
            game.rules,
            game.clock_initial,
            game.clock_increment,
            game.clock_days,
            row.speed,
            row.before,
            row.after,
            at
        ])?;
    }
    Ok(())
}

/// The same as [`record_round_sqlite`] for the PostgreSQL writer (`store/postgres.rs`
/// `write_batch`), inside the transaction that has just stored the ending event. Other
/// instances may be rating another round of the same players at the same moment: the
/// two rating rows are created if missing and then locked (`FOR UPDATE`, in account
/// order, so two such transactions wait for each other instead of deadlocking) before
/// they are read.
pub async fn record_round_pg(
    client: &tokio_postgres::Client,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), tokio_postgres::Error> {
    let Some(score) = light_score(outcome) else {
        return Ok(());
    };
    let row = client
        .query_opt(&format!("{FINISHED_ROOM_SQL}$1"), &[&room])
        .await?;
    let Some(row) = row else { return Ok(()) };
    let game = FinishedRoom {
        rules: row.get(0),
        clock_initial: row.get(1),
        clock_increment: row.get(2),
        clock_days: row.get(3),
        speed: row.get(4),
        light: RecordSeat {
            bound: row.get::<_, i64>(5) > 0,
            account: row.get(6),
        },
        dark: RecordSeat {
            bound: row.get::<_, i64>(7) > 0,
            account: row.get(8),
        },
    };
    if game.light.account.is_none() && game.dark.account.is_none() {
        return Ok(());
    }
    let round_i32 = i32::try_from(round).unwrap_or(i32::MAX);
    let mut ratings = None;
    if let Some((light, dark, speed)) = game.rated() {
        let start = Rating::default();
        let mut accounts = [light, dark];
        accounts.sort_unstable();
        for account in accounts {
            client
                .execute(
                    "INSERT INTO ratings (account_id, rules, speed, rating, rd, vol, games, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, 0, $7) ON CONFLICT DO NOTHING",
                    &[
                        &account,
                        &game.rules,
                        &speed,
                        &start.rating,
                        &start.rd,
                        &start.vol,
                        &at,
                    ],
                )
                .await?;
        }
        let rows = client
            .query(
                "SELECT account_id, rating, rd, vol, games FROM ratings
                 WHERE account_id = ANY($1) AND rules = $2 AND speed = $3 ORDER BY account_id FOR UPDATE",
                &[&&accounts[..], &game.rules, &speed],
            )
            .await?;
        let rating_of = |account: i64| {
            rows.iter()
                .find(|r| r.get::<_, i64>(0) == account)
                .map(|r| Rating {
                    rating: r.get(1),
                    rd: r.get(2),
                    vol: r.get(3),
                    games: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
                })
                .unwrap_or_default()
        };
        let (before_light, before_dark) = (rating_of(light), rating_of(dark));
        let (after_light, after_dark) = Rating::after_round(before_light, before_dark, score);
        let first = client
            .execute(
                "INSERT INTO rated_rounds (room_id, round, light_before, light_after, dark_before, dark_after, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                &[
                    &room,
                    &round_i32,
                    &before_light.rating,
                    &after_light.rating,
                    &before_dark.rating,
                    &after_dark.rating,
                    &at,
                ],
            )
            .await?;
        if first == 0 {
            return Ok(());
        }
        for (account, r) in [(light, after_light), (dark, after_dark)] {
            client
                .execute(
                    "UPDATE ratings SET rating = $4, rd = $5, vol = $6, games = $7, updated_at = $8
                     WHERE account_id = $1 AND rules = $2 AND speed = $3",
                    &[
                        &account,
                        &game.rules,
                        &speed,
                        &r.rating,
                        &r.rd,
                        &r.vol,
                        &i32::try_from(r.games).unwrap_or(i32::MAX),
                        &at,
                    ],
                )
                .await?;
        }
        ratings = Some([
            (before_light.rating, after_light.rating),
            (before_dark.rating, after_dark.rating),
        ]);
    }
    let narrow = |v: Option<i64>| v.and_then(|v| i32::try_from(v).ok());
    for row in game.rows(outcome, ratings) {
        client
            .execute(
                "INSERT INTO player_games (account_id, room_id, round, color, opponent_id, opponent_signed, result,
                     reason, rules, clock_initial, clock_increment, clock_days, speed, rating_before, rating_after, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
                 ON CONFLICT DO NOTHING",
                &[
                    &row.account,
                    &room,
                    &round_i32,
                    &row.color,
                    &row.opponent,
                    &row.opponent_signed,
                    &row.result,
                    &row.reason,
                    &game.rules,
                    &narrow(game.clock_initial),
                    &narrow(game.clock_increment),
                    &narrow(game.clock_days),
                    &row.speed,
                    &row.before,
                    &row.after,
                    &at,
                ],
            )
            .await?;
    }
    Ok(())
}

/// What a pairing binds in the transaction that creates its room: the accounts of the
/// two seats (signed-in seekers) and, for a rated pairing, the rule set and speed whose
/// ratings its rounds change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The room.
    pub room: &'a str,
    /// Light's account.
    pub light: Option<i64>,
    /// Dark's account.
    pub dark: Option<i64>,
    /// Rule set and speed, for a rated room.
    pub rated: Option<(&'a str, Speed)>,
}

/// Binds a paired room's seats to their accounts (SQLite writer's transaction).
pub fn bind_sqlite(conn: &Connection, b: &Binding<'_>) -> Result<(), rusqlite::Error> {
    for (color, account) in [("light", b.light), ("dark", b.dark)] {
        if let Some(account) = account {
            conn.prepare_cached(
                "INSERT INTO seat_accounts (room_id, color, account_id) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![b.room, color, account])?;
        }
    }
    if let Some((rules, speed)) = b.rated {
        conn.prepare_cached("INSERT INTO rated_rooms (room_id, rules, speed) VALUES (?1, ?2, ?3)")?
            .execute(params![b.room, rules, speed.as_str()])?;
    }
    Ok(())
}

/// Binds a paired room's seats to their accounts (PostgreSQL, in the pairing's
/// transaction).
pub async fn bind_pg(
    client: &impl tokio_postgres::GenericClient,
    b: &Binding<'_>,
) -> Result<(), tokio_postgres::Error> {
    for (color, account) in [("light", b.light), ("dark", b.dark)] {
        if let Some(account) = account {
            client
                .execute(
                    "INSERT INTO seat_accounts (room_id, color, account_id) VALUES ($1, $2, $3)",
                    &[&b.room, &color, &account],
                )
                .await?;
        }
    }
    if let Some((rules, speed)) = b.rated {
        client
            .execute(
                "INSERT INTO rated_rooms (room_id, rules, speed) VALUES ($1, $2, $3)",
                &[&b.room, &rules, &speed.as_str()],
            )
            .await?;
    }
    Ok(())
}

/// A rematch's seats bound to the old room's accounts, colours swapped (the old Light
/// player holds Dark), and the new room rated as the old one was when both old seats are
/// bound to accounts. In the transaction that stores the event completing the rematch.
const REMATCH_SEATS_SQL: &str = "INSERT INTO seat_accounts (room_id, color, account_id)
     SELECT $2, CASE color WHEN 'light' THEN 'dark' ELSE 'light' END, account_id
     FROM seat_accounts WHERE room_id = $1 AND account_id IS NOT NULL";
const REMATCH_RATED_SQL: &str = "INSERT INTO rated_rooms (room_id, rules, speed)
     SELECT $2, rules, speed FROM rated_rooms WHERE room_id = $1
       AND (SELECT count(*) FROM seat_accounts s WHERE s.room_id = $1 AND s.account_id IS NOT NULL) = 2";

/// Binds a rematch's seats and rating as [`REMATCH_SEATS_SQL`] says (SQLite writer's
/// transaction).
pub fn rematch_sqlite(conn: &Connection, old: &str, new: &str) -> Result<(), rusqlite::Error> {
    for sql in [REMATCH_SEATS_SQL, REMATCH_RATED_SQL] {
        conn.prepare_cached(&sql.replace('$', "?"))?
            .execute(params![old, new])?;
    }
    Ok(())
}

/// Binds a rematch's seats and rating (PostgreSQL, in the transaction storing the event
/// that completes the rematch).
pub async fn rematch_pg(
    client: &tokio_postgres::Client,
    old: &str,
    new: &str,
) -> Result<(), tokio_postgres::Error> {
    for sql in [REMATCH_SEATS_SQL, REMATCH_RATED_SQL] {
        client.execute(sql, &[&old, &new]).await?;
    }
    Ok(())
}

impl Accounts {
    /// Binds seat `color` of a room made by creating or joining (a casual room) to a
    /// signed-in player's account; a seat already bound stays as it is.
    pub async fn bind_seat(&self, room: &str, color: &'static str, account: i64) -> Result<(), DbError> {
        let room = room.to_string();
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    conn.execute(
                        "INSERT INTO seat_accounts (room_id, color, account_id) VALUES (?1, ?2, ?3)
                         ON CONFLICT DO NOTHING",
                        params![room, color, account],
                    )?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute(
                        "INSERT INTO seat_accounts (room_id, color, account_id) VALUES ($1, $2, $3)
                         ON CONFLICT DO NOTHING",
                        &[&room, &color, &account],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }
}

/// Who a player met in a recorded round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opponent {
    /// An account, by its name as it is now.
    Account(String),
    /// An account deleted since: shown under the neutral name [`DELETED_NAME`].
    Deleted,
    /// A player without an account.
    Anonymous,
}

/// The name a deleted account's games are shown under (a reserved name: no account can
/// take it, `accounts.rs`).
pub const DELETED_NAME: &str = "deleted";

/// One round of a player's record (`player_games`), as the list reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerGame {
    /// The row's id: the list's order and its cursor.
    pub id: i64,
    /// The room (the review link's, while the room is there).
    pub room: String,
    /// The round in the room.
    pub round: u32,
    /// `light` or `dark`: the player's colour.
    pub color: String,
    /// The opponent.
    pub opponent: Opponent,
    /// `win`, `draw` or `loss`, for the player.
    pub result: String,
    /// Why the round ended (the protocol's reason: `pieces`, `resignation`…).
    pub reason: String,
    /// The rule set's name.
    pub rules: String,
    /// The room's clock: initial and increment seconds, or days per turn.
    pub clock: Option<crate::timecontrol::TimeControl>,
    /// A rated round: its speed and the player's rating before and after.
    pub rated: Option<(Speed, f64, f64)>,
    /// When it ended (Unix ms).
    pub at: i64,
    /// Whether the room is still stored (the purge deletes idle rooms after a week).
    pub room_exists: bool,
}

/// A player's counts of won, drawn and lost rounds in the record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Results {
    /// Won.
    pub win: i64,
    /// Drawn.
    pub draw: i64,
    /// Lost.
    pub loss: i64,
}

/// The columns the game list reads, in [`game_row`]'s order (`$1` account, `$2` cursor,
/// `$3` limit; SQLite spells them `?1`…).
const GAMES_SQL: &str = "SELECT g.id, g.room_id, CAST(g.round AS BIGINT), g.color, g.opponent_signed, o.name,
        g.result, g.reason, g.rules, CAST(g.clock_initial AS BIGINT), CAST(g.clock_increment AS BIGINT),
        CAST(g.clock_days AS BIGINT), g.speed, g.rating_before, g.rating_after, g.at,
        EXISTS (SELECT 1 FROM rooms WHERE id = g.room_id)
     FROM player_games g LEFT JOIN accounts o ON o.id = g.opponent_id
     WHERE g.account_id = $1 AND g.id < $2 ORDER BY g.id DESC LIMIT $3";

/// The raw columns of [`GAMES_SQL`].
type GameColumns = (
    i64,
    String,
    i64,
    String,
    bool,
    Option<String>,
    String,
    String,
    String,
    [Option<i64>; 3],
    Option<String>,
    Option<f64>,
    Option<f64>,
    i64,
    bool,
);

fn game_row(c: GameColumns) -> Result<PlayerGame, DbError> {
    let (
        id,
        room,
        round,
        color,
        signed,
        name,
        result,
        reason,
        rules,
        clock,
        speed,
        before,
        after,
        at,
        exists,
    ) = c;
    let clock = match clock {
        [Some(initial), increment, None] => Some(crate::timecontrol::TimeControl::Live {
            initial: u32::try_from(initial).map_err(|_| DbError::Corrupt(format!("clock {initial}")))?,
            increment: u32::try_from(increment.unwrap_or(0))
                .map_err(|_| DbError::Corrupt(format!("increment {increment:?}")))?,
        }),
        [None, None, Some(days)] => Some(crate::timecontrol::TimeControl::Correspondence {
            days: u32::try_from(days).map_err(|_| DbError::Corrupt(format!("days {days}")))?,
        }),
        _ => None,
    };
    let rated = match (speed, before, after) {
        (Some(speed), Some(before), Some(after)) => Some((
            Speed::from_str(&speed).map_err(|_| DbError::Corrupt(format!("speed {speed:?}")))?,
            before,
            after,
        )),
        _ => None,
    };
    Ok(PlayerGame {
        id,
        room,
        round: u32::try_from(round).map_err(|_| DbError::Corrupt(format!("round {round}")))?,
        color,
        opponent: match (name, signed) {
            (Some(name), _) => Opponent::Account(name),
            (None, true) => Opponent::Deleted,
            (None, false) => Opponent::Anonymous,
        },
        result,
        reason,
        rules,
        clock,
        rated,
        at,
        room_exists: exists,
    })
}

impl Accounts {
    /// Up to `limit` rounds of account `id`'s record recorded before the row `before`
    /// (all when `None`), newest first.
    pub async fn games(&self, id: i64, before: Option<i64>, limit: u32) -> Result<Vec<PlayerGame>, DbError> {
        let before = before.unwrap_or(i64::MAX);
        let limit = i64::from(limit);
        match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let sql = GAMES_SQL.replace('$', "?");
                    let mut stmt = conn.prepare_cached(&sql)?;
                    let rows = stmt
                        .query_map(params![id, before, limit], |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                                r.get(6)?,
                                r.get(7)?,
                                r.get(8)?,
                                [r.get(9)?, r.get(10)?, r.get(11)?],
                                r.get(12)?,
                                r.get(13)?,
                                r.get(14)?,
                                r.get(15)?,
                                r.get(16)?,
                            ))
                        })?
                        .collect::<Result<Vec<GameColumns>, _>>()?;
                    rows.into_iter().map(game_row).collect()
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let rows = client
                    .query(GAMES_SQL, &[&id, &before, &limit])
                    .await
                    .map_err(pg_err)?;
                rows.into_iter()
                    .map(|r| {
                        game_row((
                            r.get(0),
                            r.get(1),
                            r.get(2),
                            r.get(3),
                            r.get(4),
                            r.get(5),
                            r.get(6),
                            r.get(7),
                            r.get(8),
                            [r.get(9), r.get(10), r.get(11)],
                            r.get(12),
                            r.get(13),
                            r.get(14),
                            r.get(15),
                            r.get(16),
                        ))
                    })
                    .collect()
            }
        }
    }

    /// Account `id`'s counts of won, drawn and lost rounds in its record.
    pub async fn results(&self, id: i64) -> Result<Results, DbError> {
        const SQL: &str = "SELECT result, count(*) FROM player_games WHERE account_id = $1 GROUP BY result";
        let rows: Vec<(String, i64)> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(&SQL.replace('$', "?"))?;
                    let rows = stmt
                        .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(SQL, &[&id])
                    .await
                    .map_err(pg_err)?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
        };
        let mut results = Results::default();
        for (result, n) in rows {
            match result.as_str() {
                "win" => results.win = n,
                "draw" => results.draw = n,
                "loss" => results.loss = n,
                other => return Err(DbError::Corrupt(format!("result {other:?}"))),
            }
        }
        Ok(results)
    }
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Leader {
    /// The player's name.
    pub name: String,
    /// Their rating of the board's rule set and speed.
    pub rating: Rating,
}

impl Accounts {
    /// The best `limit` ratings of rule set `rules` and speed `speed` that are not
    /// provisional (RD below `max_rd`) and changed since `since` (Unix ms), best first
    /// (ties by name).
    pub async fn leaders(
        &self,
        rules: &str,
        speed: Speed,
        max_rd: f64,
        since: i64,
        limit: u32,
    ) -> Result<Vec<Leader>, DbError> {
        const SQL: &str = "SELECT a.name, r.rating, r.rd, r.vol, CAST(r.games AS BIGINT)
             FROM ratings r JOIN accounts a ON a.id = r.account_id
             WHERE r.rules = $1 AND r.speed = $2 AND r.rd < $3 AND r.updated_at >= $4
             ORDER BY r.rating DESC, a.name_key LIMIT $5";
        let (rules, speed, limit) = (rules.to_string(), speed.as_str(), i64::from(limit));
        let rows: Vec<(String, f64, f64, f64, i64)> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(&SQL.replace('$', "?"))?;
                    let rows = stmt
                        .query_map(params![rules, speed, max_rd, since, limit], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(SQL, &[&rules, &speed, &max_rd, &since, &limit])
                    .await
                    .map_err(pg_err)?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect()
            }
        };
        rows.into_iter()
            .map(|(name, rating, rd, vol, games)| {
                Ok(Leader {
                    name,
                    rating: Rating {
                        rating,
                        rd,
                        vol,
                        games: u32::try_from(games)
                            .map_err(|_| DbError::Corrupt(format!("games {games}")))?,
                    },
                })
            })
            .collect()
    }
}

/// A room with a seat bound to an account (`seat_accounts`), as the account's list of
/// games in progress reads it (`GET /api/me/games`; whether its round is still being
/// played, the rooms say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRoom {
    /// The room.
    pub room: String,
    /// The account's seat.
    pub color: mill_core::Color,
    /// The other seat's player: an account, a deleted one, or nobody signed in (or
    /// nobody yet).
    pub opponent: Opponent,
    /// Made by rated pairing.
    pub rated: bool,
}

/// The rooms with a seat of account `?1`, most recently active first, at most `?2`.
const ACCOUNT_ROOMS_SQL: &str = "SELECT sa.room_id, sa.color, o.color, a.name, rr.room_id
     FROM seat_accounts sa
     JOIN rooms r ON r.id = sa.room_id
     LEFT JOIN seat_accounts o ON o.room_id = sa.room_id AND o.color <> sa.color
     LEFT JOIN accounts a ON a.id = o.account_id
     LEFT JOIN rated_rooms rr ON rr.room_id = sa.room_id
     WHERE sa.account_id = ?1
     ORDER BY r.active_at DESC, sa.room_id, sa.color
     LIMIT ?2";

fn account_room(
    room: String,
    color: &str,
    other: Option<String>,
    name: Option<String>,
    rated: Option<String>,
) -> Result<AccountRoom, DbError> {
    let color = super::types::parse_seat(color, &room)?;
    let opponent = match (other, name) {
        (Some(_), Some(name)) => Opponent::Account(name),
        (Some(_), None) => Opponent::Deleted,
        (None, _) => Opponent::Anonymous,
    };
    Ok(AccountRoom {
        room,
        color,
        opponent,
        rated: rated.is_some(),
    })
}

impl Accounts {
    /// The seats of room `room` bound to account `id` (one, both when the account took
    /// both seats of its own room, or none).
    pub async fn seats_of(&self, room: &str, id: i64) -> Result<Vec<mill_core::Color>, DbError> {
        let room = room.to_string();
        let colors: Vec<String> = match self {
            Accounts::Sqlite(conn) => {
                let room = room.clone();
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(
                        "SELECT color FROM seat_accounts WHERE room_id = ?1 AND account_id = ?2 ORDER BY color DESC",
                    )?;
                    let rows = stmt
                        .query_map(params![room, id], |r| r.get(0))?
                        .collect::<Result<Vec<String>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query(
                        "SELECT color FROM seat_accounts WHERE room_id = $1 AND account_id = $2 ORDER BY color DESC",
                        &[&room, &id],
                    )
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
        };
        colors
            .iter()
            .map(|c| super::types::parse_seat(c, &room))
            .collect()
    }

    /// The rooms with a seat bound to account `id`, most recently active first, at most
    /// `limit`.
    pub async fn rooms_of(&self, id: i64, limit: u32) -> Result<Vec<AccountRoom>, DbError> {
        type Row = (String, String, Option<String>, Option<String>, Option<String>);
        let rows: Vec<Row> = match self {
            Accounts::Sqlite(conn) => {
                Self::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(ACCOUNT_ROOMS_SQL)?;
                    let rows = stmt
                        .query_map(params![id, limit], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                let sql = ACCOUNT_ROOMS_SQL.replace("?1", "$1").replace("?2", "$2");
                client
                    .query(&sql, &[&id, &i64::from(limit)])
                    .await
                    .map_err(pg_err)?
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect()
            }
        };
        rows.into_iter()
            .map(|(room, color, other, name, rated)| account_room(room, &color, other, name, rated))
            .collect()
    }
}

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

mod record;
mod rounds;
pub use record::*;
pub use rounds::*;

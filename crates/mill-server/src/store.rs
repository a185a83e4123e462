//! The one storage interface the rooms use, over either backend: the embedded SQLite
//! file (the default: one process, group commit by the writer thread of `db.rs`) or a
//! PostgreSQL database shared by several instances (`pg.rs`).
//!
//! Both keep the same promises: a command is acknowledged only after its transaction
//! has committed, a retried client id is never applied twice, and a room's events
//! replay to exactly what was acknowledged. What differs is who decides between two
//! commands for the same room: in SQLite the single process (rooms are in its memory
//! only); in PostgreSQL the database's keys, since any instance serves any room.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::db::{self, DbError, Reader, StoredRoom, Writer};
use crate::pg::Pg;

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
    Sqlite {
        /// The single writer.
        writer: Writer,
        /// Loads rooms beside it.
        reader: Reader,
    },
    /// PostgreSQL, shared with other instances.
    Postgres(Arc<Pg>),
}

/// What [`Store::open`] leaves running that must be waited for at shutdown.
#[derive(Debug)]
pub enum Running {
    /// The SQLite writer thread (ends when every `Writer` handle is gone).
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
                let path = path.clone();
                let (conn, reader) = tokio::task::spawn_blocking(move || {
                    let conn = db::open(&path)?;
                    let reader = Reader::open(&path)?;
                    Ok::<_, DbError>((conn, reader))
                })
                .await
                .map_err(|_| DbError::Corrupt("opening the database panicked".into()))??;
                let (writer, thread) = Writer::start(conn);
                Ok((Store::Sqlite { writer, reader }, Running::Sqlite(thread)))
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
                tokio::task::spawn_blocking(move || db::open(&path).map(drop))
                    .await
                    .map_err(|_| DbError::Corrupt("opening the database panicked".into()))?
            }
            // Opening registers an instance; `open` itself reports a bad URL clearly.
            DbTarget::Postgres(_) => Ok(()),
        }
    }

    /// Reads one room, `None` if it does not exist.
    pub async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        match self {
            Store::Sqlite { reader, .. } => {
                let id = id.to_string();
                reader.with(move |conn| db::load_room(conn, &id)).await
            }
            Store::Postgres(pg) => pg.load_room(id).await,
        }
    }
}

//! What passkeys need from the database, on either backend, through the accounts'
//! handle ([`Accounts`]): the passkeys (a WebAuthn credential's id, public key and
//! counter, and the account it signs in) and the ceremonies under way. The schema is
//! `migrations/sqlite/13-passkeys`, `migrations/postgres/10-passkeys.sql`.
//!
//! A ceremony is kept in the database, not in an instance's memory, so any instance can
//! finish one that another started, and [`Accounts::take_ceremony`] deletes it as it
//! reads it: of two finishes of one ceremony (on one instance or two) the database lets
//! exactly one have it. Nothing here is a secret: the private keys never leave the
//! authenticators, and a ceremony's token is kept only as its SHA-256.

use rusqlite::{OptionalExtension, params};

use super::DbError;
use super::accounts::{
    Accounts, NewSession, is_unique_violation_pg, is_unique_violation_sqlite, pg_err, pool_err,
};

/// What a ceremony is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeremonyKind {
    /// A new account with a passkey and no password.
    SignUp,
    /// A passkey added to the signed-in account.
    Add,
    /// Signing in with a passkey.
    SignIn,
}

impl CeremonyKind {
    fn as_str(self) -> &'static str {
        match self {
            CeremonyKind::SignUp => "sign-up",
            CeremonyKind::Add => "add",
            CeremonyKind::SignIn => "sign-in",
        }
    }

    fn parse(s: &str) -> Result<CeremonyKind, DbError> {
        match s {
            "sign-up" => Ok(CeremonyKind::SignUp),
            "add" => Ok(CeremonyKind::Add),
            "sign-in" => Ok(CeremonyKind::SignIn),
            other => Err(DbError::Corrupt(format!("ceremony kind {other:?}"))),
        }
    }
}

/// A ceremony under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceremony {
    /// SHA-256 of the ceremony's token.
    pub token_hash: [u8; 32],
    /// What it is for.
    pub kind: CeremonyKind,
    /// webauthn-rs's state for it, as JSON.
    pub state: String,
    /// Sign-up: the name asked for.
    pub name: Option<String>,
    /// Adding a passkey: the account.
    pub account_id: Option<i64>,
    /// Sign-up and adding: the user handle the new passkey is made for.
    pub user_handle: Option<Vec<u8>>,
    /// When it stops being honoured (Unix ms).
    pub expires_at: i64,
}

/// A new passkey: its credential id, the account's user handle and webauthn-rs's
/// `Passkey` as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPasskey {
    /// The credential's id.
    pub credential_id: Vec<u8>,
    /// The user handle (16 bytes) the authenticator keeps with it.
    pub user_handle: Vec<u8>,
    /// webauthn-rs's `Passkey`, as JSON.
    pub passkey: String,
    /// Now.
    pub at: i64,
}

/// A stored passkey with its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPasskey {
    /// The account it signs in.
    pub account_id: i64,
    /// The account's name.
    pub name: String,
    /// The user handle it was made for.
    pub user_handle: Vec<u8>,
    /// webauthn-rs's `Passkey`, as JSON.
    pub passkey: String,
}

type CeremonyRow = (String, String, Option<String>, Option<i64>, Option<Vec<u8>>, i64);

fn ceremony(token_hash: [u8; 32], row: CeremonyRow) -> Result<Ceremony, DbError> {
    let (kind, state, name, account_id, user_handle, expires_at) = row;
    Ok(Ceremony {
        token_hash,
        kind: CeremonyKind::parse(&kind)?,
        state,
        name,
        account_id,
        user_handle,
        expires_at,
    })
}

impl Accounts {
    /// Keeps a new ceremony until it is finished or expires.
    pub async fn start_ceremony(&self, c: Ceremony) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    conn.execute(
                        "INSERT INTO passkey_ceremonies (token_hash, purpose, state, name, account_id, user_handle, expires_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![&c.token_hash[..], c.kind.as_str(), c.state, c.name, c.account_id, c.user_handle, c.expires_at],
                    )?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute(
                        "INSERT INTO passkey_ceremonies (token_hash, purpose, state, name, account_id, user_handle, expires_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                        &[&&c.token_hash[..], &c.kind.as_str(), &c.state, &c.name, &c.account_id, &c.user_handle, &c.expires_at],
                    )
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// Takes the ceremony with this token hash out of the database: whoever gets it is
    /// the only one who will, expired or not (the caller checks `expires_at`).
    pub async fn take_ceremony(&self, token_hash: [u8; 32]) -> Result<Option<Ceremony>, DbError> {
        let row: Option<CeremonyRow> = match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    Ok(conn
                        .prepare_cached(
                            "DELETE FROM passkey_ceremonies WHERE token_hash = ?1
                             RETURNING purpose, state, name, account_id, user_handle, expires_at",
                        )?
                        .query_row(params![&token_hash[..]], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                        })
                        .optional()?)
                })
                .await?
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .query_opt(
                        "DELETE FROM passkey_ceremonies WHERE token_hash = $1
                         RETURNING purpose, state, name, account_id, user_handle, expires_at",
                        &[&&token_hash[..]],
                    )
                    .await
                    .map_err(pg_err)?
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
            }
        };
        row.map(|row| ceremony(token_hash, row)).transpose()
    }

    /// Deletes the ceremonies that expired by `now` (the purge job).
    pub async fn purge_ceremonies(&self, now: i64) -> Result<(), DbError> {
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    conn.execute(
                        "DELETE FROM passkey_ceremonies WHERE expires_at <= ?1",
                        params![now],
                    )?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                client
                    .execute("DELETE FROM passkey_ceremonies WHERE expires_at <= $1", &[&now])
                    .await
                    .map_err(pg_err)?;
                Ok(())
            }
        }
    }

    /// A new account with no password, its first passkey and its first session, in one
    /// transaction; `None` when the name (without regard to case) is taken.
    pub async fn create_with_passkey(
        &self,
        name: &str,
        name_key: &str,
        key: NewPasskey,
        session: NewSession,
    ) -> Result<Option<i64>, DbError> {
        let (name, name_key) = (name.to_string(), name_key.to_string());
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    let tx = conn.transaction()?;
                    let id = match tx.execute(
                        "INSERT INTO accounts (name, name_key, password_hash, created_at) VALUES (?1, ?2, NULL, ?3)",
                        params![name, name_key, session.at],
                    ) {
                        Ok(_) => tx.last_insert_rowid(),
                        Err(e) if is_unique_violation_sqlite(&e) => return Ok(None),
                        Err(e) => return Err(e.into()),
                    };
                    tx.execute(
                        "INSERT INTO passkeys (credential_id, account_id, user_handle, passkey, created_at)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![key.credential_id, id, key.user_handle, key.passkey, key.at],
                    )?;
                    tx.execute(
                        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
                        params![&session.token_hash[..], id, session.at, session.expires_at],
                    )?;
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
                         VALUES ($1, $2, NULL, $3) RETURNING id",
                        &[&name, &name_key, &session.at],
                    )
                    .await
                {
                    Ok(row) => row,
                    Err(e) if is_unique_violation_pg(&e) => return Ok(None),
                    Err(e) => return Err(pg_err(e)),
                };
                let id: i64 = row.get(0);
                tx.execute(
                    "INSERT INTO passkeys (credential_id, account_id, user_handle, passkey, created_at)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&key.credential_id, &id, &key.user_handle, &key.passkey, &key.at],
                )
                .await
                .map_err(pg_err)?;
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

    /// Adds a passkey to account `id`; false when the account is gone (deleted while
    /// the ceremony ran) or the credential is already stored.
    pub async fn add_passkey(&self, id: i64, key: NewPasskey) -> Result<bool, DbError> {
        const SQL: &str = "INSERT INTO passkeys (credential_id, account_id, user_handle, passkey, created_at)
                           SELECT ?1, id, ?3, ?4, ?5 FROM accounts WHERE id = ?2";
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    match conn.execute(
                        SQL,
                        params![key.credential_id, id, key.user_handle, key.passkey, key.at],
                    ) {
                        Ok(n) => Ok(n == 1),
                        Err(e) if is_unique_violation_sqlite(&e) => Ok(false),
                        Err(e) => Err(e.into()),
                    }
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                match client
                    .execute(
                        "INSERT INTO passkeys (credential_id, account_id, user_handle, passkey, created_at)
                         SELECT $1, id, $3, $4, $5 FROM accounts WHERE id = $2",
                        &[&key.credential_id, &id, &key.user_handle, &key.passkey, &key.at],
                    )
                    .await
                {
                    Ok(n) => Ok(n == 1),
                    Err(e) if is_unique_violation_pg(&e) => Ok(false),
                    Err(e) => Err(pg_err(e)),
                }
            }
        }
    }

    /// Account `id`'s passkeys: their credential ids and the account's user handle (the
    /// first passkey's; `None` before the first).
    pub async fn passkeys_of(&self, id: i64) -> Result<(Vec<Vec<u8>>, Option<Vec<u8>>), DbError> {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    let mut stmt = conn.prepare_cached(
                        "SELECT credential_id, user_handle FROM passkeys WHERE account_id = ?1 ORDER BY created_at",
                    )?;
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
                    .query(
                        "SELECT credential_id, user_handle FROM passkeys WHERE account_id = $1 ORDER BY created_at",
                        &[&id],
                    )
                    .await
                    .map_err(pg_err)?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
        };
        let handle = rows.first().map(|(_, h)| h.clone());
        Ok((rows.into_iter().map(|(c, _)| c).collect(), handle))
    }

    /// The passkey with this credential id, with its account.
    pub async fn passkey(&self, credential_id: &[u8]) -> Result<Option<StoredPasskey>, DbError> {
        let credential_id = credential_id.to_vec();
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    Ok(conn
                        .prepare_cached(
                            "SELECT p.account_id, a.name, p.user_handle, p.passkey
                             FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE p.credential_id = ?1",
                        )?
                        .query_row(params![credential_id], |r| {
                            Ok(StoredPasskey {
                                account_id: r.get(0)?,
                                name: r.get(1)?,
                                user_handle: r.get(2)?,
                                passkey: r.get(3)?,
                            })
                        })
                        .optional()?)
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let client = pool.get().await.map_err(pool_err)?;
                Ok(client
                    .query_opt(
                        "SELECT p.account_id, a.name, p.user_handle, p.passkey
                         FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE p.credential_id = $1",
                        &[&credential_id],
                    )
                    .await
                    .map_err(pg_err)?
                    .map(|r| StoredPasskey {
                        account_id: r.get(0),
                        name: r.get(1),
                        user_handle: r.get(2),
                        passkey: r.get(3),
                    }))
            }
        }
    }

    /// A sign-in with a passkey: its use noted (with its new counter, `updated`, if it
    /// changed) and a new session of its account, in one transaction.
    pub async fn sign_in_with_passkey(
        &self,
        credential_id: &[u8],
        updated: Option<String>,
        account_id: i64,
        session: NewSession,
    ) -> Result<(), DbError> {
        let credential_id = credential_id.to_vec();
        match self {
            Accounts::Sqlite(conn) => {
                Accounts::sqlite(conn, move |conn| {
                    let tx = conn.transaction()?;
                    tx.execute(
                        "UPDATE passkeys SET used_at = ?2, passkey = COALESCE(?3, passkey) WHERE credential_id = ?1",
                        params![credential_id, session.at, updated],
                    )?;
                    tx.execute(
                        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
                        params![&session.token_hash[..], account_id, session.at, session.expires_at],
                    )?;
                    tx.commit()?;
                    Ok(())
                })
                .await
            }
            Accounts::Postgres(pool) => {
                let mut client = pool.get().await.map_err(pool_err)?;
                let tx = client.transaction().await.map_err(pg_err)?;
                tx.execute(
                    "UPDATE passkeys SET used_at = $2, passkey = COALESCE($3, passkey) WHERE credential_id = $1",
                    &[&credential_id, &session.at, &updated],
                )
                .await
                .map_err(pg_err)?;
                tx.execute(
                    "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
                    &[&&session.token_hash[..], &account_id, &session.at, &session.expires_at],
                )
                .await
                .map_err(pg_err)?;
                tx.commit().await.map_err(pg_err)?;
                Ok(())
            }
        }
    }
}

//! Arenas on SQLite: reads on the reader connection, writes in the single writer's transaction.

use super::*;

/// A write for SQLite's writer (`store/sqlite.rs` `Op::Arena`).
#[derive(Debug, Clone)]
pub enum ArenaOp {
    /// [`ArenaRequest::Create`].
    Create(NewArena),
    /// [`ArenaRequest::Member`].
    Member {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// Account name.
        name: String,
        /// What to do.
        change: Membership,
        /// Now.
        at: i64,
    },
    /// [`ArenaRequest::Pair`].
    Pair {
        /// Arena id.
        arena: String,
        /// Now.
        at: i64,
    },
    /// Sets a ticket (unless its hash was used already).
    SetTicket {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// Key hash.
        key_hash: [u8; 32],
    },
    /// [`ArenaRequest::DropTicket`].
    DropTicket {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// Key hash.
        key_hash: [u8; 32],
    },
}

impl From<DbError> for rusqlite::Error {
    fn from(e: DbError) -> Self {
        rusqlite::Error::ToSqlConversionFailure(Box::new(e))
    }
}

/// Runs an [`ArenaRequest`] on SQLite: `write` queues an op for the writer.
pub async fn sqlite<W, F>(
    reader: &crate::store::sqlite::Reader,
    write: W,
    req: ArenaRequest,
) -> Result<ArenaAnswer, DbError>
where
    W: Fn(ArenaOp) -> F,
    F: std::future::Future<Output = Result<ArenaAnswer, DbError>>,
{
    match req {
        ArenaRequest::Create(a) => write(ArenaOp::Create(a)).await,
        ArenaRequest::Member {
            arena,
            account,
            name,
            change,
            at,
        } => {
            write(ArenaOp::Member {
                arena,
                account,
                name,
                change,
                at,
            })
            .await
        }
        ArenaRequest::Pair { arena, at } => write(ArenaOp::Pair { arena, at }).await,
        ArenaRequest::DropTicket {
            arena,
            account,
            key_hash,
        } => {
            write(ArenaOp::DropTicket {
                arena,
                account,
                key_hash,
            })
            .await
        }
        ArenaRequest::List { since, limit } => {
            reader
                .with(move |c| list_sqlite(c, since, limit).map(ArenaAnswer::List))
                .await
        }
        ArenaRequest::Get(id) => {
            reader
                .with(move |c| get_sqlite(c, &id).map(|a| ArenaAnswer::Arena(a.map(Box::new))))
                .await
        }
        ArenaRequest::Running(now) => {
            reader
                .with(move |c| {
                    ids_sqlite(
                        c,
                        "SELECT id FROM arenas WHERE starts_at <= ?1 AND ends_at > ?1",
                        now,
                    )
                })
                .await
        }
        ArenaRequest::OfRoom(room) => {
            reader
                .with(move |c| ids_sqlite(c, "SELECT arena_id FROM arena_games WHERE room_id = ?1", room))
                .await
        }
        ArenaRequest::Ticket {
            arena,
            account,
            key_hash,
            claim,
        } => {
            let (a, acc) = (arena.clone(), account);
            if !claim {
                let used = reader.with(move |c| used_sqlite(c, &a, acc, &key_hash)).await?;
                return Ok(ArenaAnswer::Ticket(used.unwrap_or(Ticket::Waiting)));
            }
            let now = reader
                .with(move |c| ticket_read_sqlite(c, &a, acc, &key_hash))
                .await?;
            match now {
                Some(t) => Ok(ArenaAnswer::Ticket(t)),
                None => {
                    write(ArenaOp::SetTicket {
                        arena,
                        account,
                        key_hash,
                    })
                    .await
                }
            }
        }
    }
}

/// What a ticket's hash became, if the reader can tell without a write: its game, or
/// the player waiting with it, or no player; `None`: it must be set.
fn ticket_read_sqlite(
    c: &Connection,
    arena: &str,
    account: i64,
    key_hash: &[u8; 32],
) -> Result<Option<Ticket>, DbError> {
    if let Some(t) = used_sqlite(c, arena, account, key_hash)? {
        return Ok(Some(t));
    }
    let row: Option<Option<Vec<u8>>> = c
        .prepare_cached("SELECT ticket_hash FROM arena_players WHERE arena_id = ?1 AND account_id = ?2")?
        .query_row(params![arena, account], |r| r.get(0))
        .optional()?;
    Ok(match row {
        None => Some(Ticket::NotJoined),
        Some(Some(h)) if h == key_hash[..] => Some(Ticket::Waiting),
        Some(_) => None,
    })
}

/// A ticket's game, found by its key hash (`migrations/sqlite/16-arena-keys`).
const USED_SQLITE: &str = "SELECT room_id, 1 FROM arena_games INDEXED BY arena_games_light_key
     WHERE light_key_hash = ?3 AND light_id = ?2 AND arena_id = ?1
     UNION ALL
     SELECT room_id, 0 FROM arena_games INDEXED BY arena_games_dark_key
     WHERE dark_key_hash = ?3 AND dark_id = ?2 AND arena_id = ?1
     LIMIT 1";

fn used_sqlite(
    c: &Connection,
    arena: &str,
    account: i64,
    key_hash: &[u8; 32],
) -> Result<Option<Ticket>, DbError> {
    let game: Option<(String, bool)> = c
        .prepare_cached(USED_SQLITE)?
        .query_row(params![arena, account, &key_hash[..]], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    Ok(game.map(|(room, light)| Ticket::Paired(room, if light { Color::Light } else { Color::Dark })))
}

fn info_sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<ArenaInfo> {
    Ok(ArenaInfo {
        id: r.get(0)?,
        name: r.get(1)?,
        variant: r.get(2)?,
        initial: r.get(3)?,
        increment: r.get(4)?,
        starts_at: r.get(5)?,
        ends_at: r.get(6)?,
        rated: r.get(7)?,
        players: r.get(8)?,
    })
}

const INFO_SQLITE: &str = "SELECT id, name, variant, clock_initial, clock_increment, starts_at, ends_at, rated,
    (SELECT count(*) FROM arena_players p WHERE p.arena_id = arenas.id AND p.state <> 'withdrawn') FROM arenas";

/// The arena ids `sql` selects with its one parameter `p`.
fn ids_sqlite(c: &Connection, sql: &str, p: impl rusqlite::ToSql) -> Result<ArenaAnswer, DbError> {
    let ids = c
        .prepare_cached(sql)?
        .query_map(params![p], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ArenaAnswer::Ids(ids))
}

fn list_sqlite(c: &Connection, since: i64, limit: u32) -> Result<Vec<ArenaInfo>, DbError> {
    Ok(c.prepare_cached(&format!(
        "{INFO_SQLITE} WHERE ends_at > ?1 ORDER BY starts_at, id LIMIT ?2"
    ))?
    .query_map(params![since, limit], info_sqlite)?
    .collect::<Result<Vec<_>, _>>()?)
}

fn get_sqlite(c: &Connection, id: &str) -> Result<Option<ArenaData>, DbError> {
    let Some(info) = c
        .prepare_cached(&format!("{INFO_SQLITE} WHERE id = ?1"))?
        .query_row(params![id], info_sqlite)
        .optional()?
    else {
        return Ok(None);
    };
    let players = c
        .prepare_cached(
            "SELECT account_id, name, state FROM arena_players WHERE arena_id = ?1 ORDER BY joined_at, account_id",
        )?
        .query_map(params![id], |r| {
            Ok(scoring::Player {
                account: r.get(0)?,
                name: r.get(1)?,
                state: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let games = games_sqlite(c, id)?;
    Ok(Some(ArenaData { info, players, games }))
}

fn games_sqlite(c: &Connection, arena: &str) -> Result<Vec<scoring::Game>, DbError> {
    let rows = c
        .prepare_cached(
            "SELECT room_id, light_id, dark_id, light_rating, dark_rating, started_at, result,
                    coalesce(light_turns, 0), coalesce(dark_turns, 0)
             FROM arena_games WHERE arena_id = ?1 ORDER BY started_at, room_id",
        )?
        .query_map(params![arena], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, f64>(3)?,
                r.get::<_, f64>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, i64>(7)?,
                r.get::<_, i64>(8)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(room, light, dark, lr, dr, at, result, lt, dt)| {
            Ok(scoring::Game {
                room,
                light,
                dark,
                light_rating: lr,
                dark_rating: dr,
                started_at: at,
                ending: ending(result)?,
                turns: (count(lt), count(dt)),
            })
        })
        .collect()
}

/// Runs an [`ArenaOp`] in the SQLite writer's transaction.
pub fn write_sqlite(c: &Connection, op: &ArenaOp) -> Result<ArenaAnswer, rusqlite::Error> {
    match op {
        ArenaOp::Create(a) => {
            c.prepare_cached(
                "INSERT INTO arenas (id, name, variant, clock_initial, clock_increment, starts_at, ends_at, rated,
                                     created_by, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                a.id,
                a.name,
                a.variant,
                a.initial,
                a.increment,
                a.starts_at,
                a.ends_at,
                a.rated,
                a.created_by,
                a.created_at
            ])?;
            Ok(ArenaAnswer::Done)
        }
        ArenaOp::Member {
            arena,
            account,
            name,
            change,
            at,
        } => {
            let ends: Option<i64> = c
                .prepare_cached("SELECT ends_at FROM arenas WHERE id = ?1")?
                .query_row(params![arena], |r| r.get(0))
                .optional()?;
            let Some(ends) = ends else {
                return Ok(ArenaAnswer::Member(Member::NoArena));
            };
            if *at >= ends {
                return Ok(ArenaAnswer::Member(Member::Finished));
            }
            let n = if *change == Membership::Join {
                c.prepare_cached(
                    "INSERT INTO arena_players (arena_id, account_id, name, state, joined_at)
                     VALUES (?1, ?2, ?3, 'joined', ?4)
                     ON CONFLICT (arena_id, account_id) DO UPDATE SET state = 'joined', name = excluded.name",
                )?
                .execute(params![arena, account, name, at])?
            } else {
                c.prepare_cached(
                    "UPDATE arena_players SET state = ?3 WHERE arena_id = ?1 AND account_id = ?2",
                )?
                .execute(params![arena, account, change.state()])?
            };
            Ok(ArenaAnswer::Member(if n == 0 {
                Member::NotJoined
            } else {
                Member::Done
            }))
        }
        ArenaOp::Pair { arena, at } => pair_sqlite(c, arena, *at).map(ArenaAnswer::Paired),
        ArenaOp::SetTicket {
            arena,
            account,
            key_hash,
        } => {
            if let Some(t) = used_sqlite(c, arena, *account, key_hash)? {
                return Ok(ArenaAnswer::Ticket(t));
            }
            let n = c
                .prepare_cached(
                    "UPDATE arena_players SET ticket_hash = ?3 WHERE arena_id = ?1 AND account_id = ?2",
                )?
                .execute(params![arena, account, &key_hash[..]])?;
            Ok(ArenaAnswer::Ticket(if n == 0 {
                Ticket::NotJoined
            } else {
                Ticket::Waiting
            }))
        }
        ArenaOp::DropTicket {
            arena,
            account,
            key_hash,
        } => {
            c.prepare_cached(
                "UPDATE arena_players SET ticket_hash = NULL
                 WHERE arena_id = ?1 AND account_id = ?2 AND ticket_hash = ?3",
            )?
            .execute(params![arena, account, &key_hash[..]])?;
            Ok(ArenaAnswer::Done)
        }
    }
}

/// The rating an account has for a rule set and speed (the default without one).
fn rating_sqlite(c: &Connection, account: i64, rules: &str, speed: Speed) -> rusqlite::Result<f64> {
    Ok(
        c.prepare_cached("SELECT rating FROM ratings WHERE account_id = ?1 AND rules = ?2 AND speed = ?3")?
            .query_row(params![account, rules, speed.as_str()], |r| r.get(0))
            .optional()?
            .unwrap_or(scoring::DEFAULT_RATING),
    )
}

fn pair_sqlite(c: &Connection, arena: &str, at: i64) -> Result<Vec<Paired>, rusqlite::Error> {
    // A result stored at a later time than this instance's `at` (read before the
    // transaction) has happened before this pairing: the games begin after it.
    let latest: Option<i64> = c
        .prepare_cached("SELECT max(ended_at) FROM arena_games WHERE arena_id = ?1")?
        .query_row(params![arena], |r| r.get(0))?;
    let at = at.max(latest.unwrap_or(at));
    let info: Option<(String, u32, u32, bool)> = c
        .prepare_cached(
            "SELECT variant, clock_initial, clock_increment, rated FROM arenas
             WHERE id = ?1 AND starts_at <= ?2 AND ends_at > ?2",
        )?
        .query_row(params![arena, at], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    // Not running (not begun, or over): nobody is paired.
    let Some((variant, initial, increment, rated)) = info else {
        return Ok(Vec::new());
    };
    let rows = c
        .prepare_cached(
            "SELECT account_id, state, room_id, ticket_hash FROM arena_players WHERE arena_id = ?1",
        )?
        .query_map(params![arena], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<Vec<u8>>>(3)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<PairRow> = rows
        .into_iter()
        .map(|(account, state, room, ticket)| {
            Ok(PairRow {
                account,
                state,
                room,
                ticket: ticket.map(hash32).transpose()?,
            })
        })
        .collect::<Result<_, DbError>>()?;
    let games = games_sqlite(c, arena)?;
    let clock = TimeControl::Live { initial, increment };
    let speed = Speed::of(clock);
    let mut made = Vec::new();
    for p in plan(&rows, &games) {
        let (light, dark) = (p.light.0, p.dark.0);
        c.prepare_cached(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
             VALUES (?1, ?2, ?3, ?3, ?4, ?5)",
        )?
        .execute(params![p.room, variant, at, initial, increment])?;
        c.prepare_cached(
            "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES (?1, 'light', ?2, ?4), (?1, 'dark', ?3, ?4)",
        )?
        .execute(params![p.room, &p.light.1[..], &p.dark.1[..], at])?;
        crate::store::accounts::bind_sqlite(
            c,
            &crate::store::accounts::Binding {
                room: &p.room,
                light: Some(light),
                dark: Some(dark),
                rated: rated.then_some((variant.as_str(), speed)),
            },
        )?;
        let (lr, dr) = (
            rating_sqlite(c, light, &variant, speed)?,
            rating_sqlite(c, dark, &variant, speed)?,
        );
        c.prepare_cached(
            "INSERT INTO arena_games (room_id, arena_id, light_id, dark_id, light_rating, dark_rating,
                                      light_key_hash, dark_key_hash, started_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            p.room,
            arena,
            light,
            dark,
            lr,
            dr,
            &p.light.1[..],
            &p.dark.1[..],
            at
        ])?;
        for (account, ticket) in [p.light, p.dark] {
            let n = c
                .prepare_cached(
                    "UPDATE arena_players SET room_id = ?3, ticket_hash = NULL
                     WHERE arena_id = ?1 AND account_id = ?2 AND room_id IS NULL AND ticket_hash = ?4",
                )?
                .execute(params![arena, account, p.room, &ticket[..]])?;
            if n != 1 {
                return Err(DbError::failed("SQLite", "an arena player was taken by another pairing").into());
            }
        }
        made.push(Paired {
            room: p.room,
            light,
            dark,
        });
    }
    Ok(made)
}

/// The turns each side made in a round, as stored: its placing and moving actions
/// (a removal, `x…`, is part of the turn that closed the mill).
const TURNS_SQL: &str = "SELECT count(*) FILTER (WHERE seat = 'light'), count(*) FILTER (WHERE seat = 'dark')
    FROM events WHERE room_id = ?1 AND round = ?2 AND kind = 'action' AND action NOT LIKE 'x%'";

/// Called by the SQLite writer (`store/sqlite.rs` `append`) in the transaction that
/// has just stored an event ending round `round` of `room`: an arena game's first
/// round writes its result, once, and frees both players.
pub fn end_sqlite(
    c: &Connection,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> rusqlite::Result<()> {
    if round != 1 {
        return Ok(());
    }
    let (lt, dt): (i64, i64) = c
        .prepare_cached(TURNS_SQL)?
        .query_row(params![room, round], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let arena: Option<String> = c
        .prepare_cached(
            "UPDATE arena_games SET result = ?2, light_turns = ?3, dark_turns = ?4, ended_at = ?5
             WHERE room_id = ?1 AND result IS NULL RETURNING arena_id",
        )?
        .query_row(params![room, Ending::of(outcome).as_str(), lt, dt, at], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(arena) = arena {
        c.prepare_cached("UPDATE arena_players SET room_id = NULL WHERE arena_id = ?1 AND room_id = ?2")?
            .execute(params![arena, room])?;
    }
    Ok(())
}

//! What arenas (`crate::arena`) keep in the database, on every store: arenas, their
//! players, and their games, each an ordinary room. Schema: `migrations/sqlite/14-arenas`,
//! `migrations/postgres/11-arenas.sql`.
//!
//! The database decides everything two instances could both decide:
//! - **A pairing** is one transaction (SQLite's single writer; on PostgreSQL one that
//!   holds the arena's advisory lock) that reads the waiting players, chooses the pairs
//!   (`arena::pairing`, pure), creates each room with both seats, and names the game in
//!   both players' rows only where they have none (`room_id IS NULL`) and still hold
//!   the ticket it used: a player is never in two games, and a pairing is made once.
//! - **A result** is written in the transaction that stores the event ending the room's
//!   first round ([`end_sqlite`], [`end_pg`], the in-memory store's append), once
//!   (`result IS NULL`), with both sides' turns; the same transaction frees both
//!   players. Points are never stored: the standings are computed from the stored
//!   results every time (`arena::scoring`), so after a crash they equal a recount.
//! - **A ticket** is the hash of the seat key a player's open arena socket holds for its
//!   next game; the key itself never leaves that server's memory. A hash is used for one
//!   game at most.

use mill_core::Color;
use rusqlite::{Connection, OptionalExtension, params};

use super::DbError;
use crate::arena::scoring::{self, Ending};
use crate::ratings::Speed;
use crate::timecontrol::TimeControl;

/// A new arena.
#[derive(Debug, Clone, PartialEq)]
pub struct NewArena {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The rule set's name.
    pub variant: String,
    /// Seconds each side starts with.
    pub initial: u32,
    /// Seconds added after each turn.
    pub increment: u32,
    /// When it starts (Unix ms).
    pub starts_at: i64,
    /// When it ends (Unix ms).
    pub ends_at: i64,
    /// Rated games.
    pub rated: bool,
    /// Who created it (`None`: the server's schedule).
    pub created_by: Option<i64>,
    /// Now.
    pub created_at: i64,
}

/// An arena as lists show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The rule set's name.
    pub variant: String,
    /// Seconds each side starts with.
    pub initial: u32,
    /// Seconds added after each turn.
    pub increment: u32,
    /// Start (Unix ms).
    pub starts_at: i64,
    /// End (Unix ms).
    pub ends_at: i64,
    /// Rated games.
    pub rated: bool,
    /// Players who have not withdrawn.
    pub players: u32,
}

impl ArenaInfo {
    /// The time control.
    pub fn clock(&self) -> TimeControl {
        TimeControl::Live {
            initial: self.initial,
            increment: self.increment,
        }
    }
}

/// An arena with everything its standings are computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaData {
    /// The arena.
    pub info: ArenaInfo,
    /// Its players, in the order they joined.
    pub players: Vec<scoring::Player>,
    /// Its games, in the order they were paired.
    pub games: Vec<scoring::Game>,
}

/// A change of a player's membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Membership {
    /// Join, or come back from a pause or a withdrawal.
    Join,
    /// Not paired until joining again.
    Pause,
    /// Leave.
    Withdraw,
}

impl Membership {
    /// The stored state it sets.
    pub fn state(self) -> &'static str {
        match self {
            Membership::Join => "joined",
            Membership::Pause => "paused",
            Membership::Withdraw => "withdrawn",
        }
    }
}

/// What became of a membership change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// Done.
    Done,
    /// No such arena.
    NoArena,
    /// The arena is over.
    Finished,
    /// Pause or withdraw by someone who never joined.
    NotJoined,
}

/// A game a pairing made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// Its room.
    pub room: String,
    /// Light's account.
    pub light: i64,
    /// Dark's account.
    pub dark: i64,
}

/// Where a ticket stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ticket {
    /// The player has no row in this arena.
    NotJoined,
    /// Waiting with this ticket.
    Waiting,
    /// Used for a game: its room and the seat.
    Paired(String, Color),
}

/// One request to a store's arena part (see [`super::Store::arena`]).
#[derive(Debug, Clone)]
pub enum ArenaRequest {
    /// Create an arena.
    Create(NewArena),
    /// Change a player's membership.
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
    /// Arenas that end after `since`, by start, at most `limit`.
    List {
        /// Unix ms.
        since: i64,
        /// Most arenas.
        limit: u32,
    },
    /// One arena with its players and games.
    Get(String),
    /// The arenas running at `now`.
    Running(i64),
    /// The arena whose game room `room` is (none or one id).
    OfRoom(String),
    /// Pair an arena's waiting players.
    Pair {
        /// Arena id.
        arena: String,
        /// Now.
        at: i64,
    },
    /// The ticket of a player's socket: what became of it, or set it.
    Ticket {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// The hash of the key the socket holds.
        key_hash: [u8; 32],
    },
    /// A socket closed: its ticket is withdrawn (unless used or replaced).
    DropTicket {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// The hash of the key the socket held.
        key_hash: [u8; 32],
    },
}

/// A store's answer to an [`ArenaRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum ArenaAnswer {
    /// Nothing to tell.
    Done,
    /// A membership change.
    Member(Member),
    /// Arenas.
    List(Vec<ArenaInfo>),
    /// One arena.
    Arena(Option<Box<ArenaData>>),
    /// Arena ids.
    Ids(Vec<String>),
    /// Games made.
    Paired(Vec<Paired>),
    /// A ticket.
    Ticket(Ticket),
}

fn mismatch(a: &ArenaAnswer) -> DbError {
    DbError::Corrupt(format!("an arena request answered {a:?}"))
}

/// The arena requests as typed calls on a store.
#[derive(Debug, Clone)]
pub struct Arenas(pub std::sync::Arc<dyn super::Store>);

impl Arenas {
    /// Creates an arena.
    pub async fn create(&self, a: NewArena) -> Result<(), DbError> {
        match self.0.arena(ArenaRequest::Create(a)).await? {
            ArenaAnswer::Done => Ok(()),
            other => Err(mismatch(&other)),
        }
    }

    /// Changes a player's membership.
    pub async fn member(
        &self,
        arena: &str,
        account: i64,
        name: &str,
        change: Membership,
        at: i64,
    ) -> Result<Member, DbError> {
        let req = ArenaRequest::Member {
            arena: arena.into(),
            account,
            name: name.into(),
            change,
            at,
        };
        match self.0.arena(req).await? {
            ArenaAnswer::Member(m) => Ok(m),
            other => Err(mismatch(&other)),
        }
    }

    /// Arenas ending after `since`.
    pub async fn list(&self, since: i64, limit: u32) -> Result<Vec<ArenaInfo>, DbError> {
        match self.0.arena(ArenaRequest::List { since, limit }).await? {
            ArenaAnswer::List(l) => Ok(l),
            other => Err(mismatch(&other)),
        }
    }

    /// One arena.
    pub async fn get(&self, id: &str) -> Result<Option<ArenaData>, DbError> {
        match self.0.arena(ArenaRequest::Get(id.into())).await? {
            ArenaAnswer::Arena(a) => Ok(a.map(|a| *a)),
            other => Err(mismatch(&other)),
        }
    }

    /// The arena a room is a game of, if it is one.
    pub async fn of_room(&self, room: &str) -> Result<Option<String>, DbError> {
        match self.0.arena(ArenaRequest::OfRoom(room.into())).await? {
            ArenaAnswer::Ids(ids) => Ok(ids.into_iter().next()),
            other => Err(mismatch(&other)),
        }
    }

    /// The arenas running at `now`.
    pub async fn running(&self, now: i64) -> Result<Vec<String>, DbError> {
        match self.0.arena(ArenaRequest::Running(now)).await? {
            ArenaAnswer::Ids(ids) => Ok(ids),
            other => Err(mismatch(&other)),
        }
    }

    /// Pairs an arena's waiting players.
    pub async fn pair(&self, arena: &str, at: i64) -> Result<Vec<Paired>, DbError> {
        match self
            .0
            .arena(ArenaRequest::Pair {
                arena: arena.into(),
                at,
            })
            .await?
        {
            ArenaAnswer::Paired(p) => Ok(p),
            other => Err(mismatch(&other)),
        }
    }

    /// A socket's ticket: what became of it, or set as the player's.
    pub async fn ticket(&self, arena: &str, account: i64, key_hash: [u8; 32]) -> Result<Ticket, DbError> {
        let req = ArenaRequest::Ticket {
            arena: arena.into(),
            account,
            key_hash,
        };
        match self.0.arena(req).await? {
            ArenaAnswer::Ticket(t) => Ok(t),
            other => Err(mismatch(&other)),
        }
    }

    /// Withdraws a closed socket's ticket.
    pub async fn drop_ticket(&self, arena: &str, account: i64, key_hash: [u8; 32]) -> Result<(), DbError> {
        let req = ArenaRequest::DropTicket {
            arena: arena.into(),
            account,
            key_hash,
        };
        match self.0.arena(req).await? {
            ArenaAnswer::Done => Ok(()),
            other => Err(mismatch(&other)),
        }
    }
}

/// A player row as a pairing reads it.
#[derive(Debug, Clone)]
pub struct PairRow {
    /// Account id.
    pub account: i64,
    /// `joined`, `paused` or `withdrawn`.
    pub state: String,
    /// The game in play.
    pub room: Option<String>,
    /// The open socket's ticket.
    pub ticket: Option<[u8; 32]>,
}

/// A game to create: its room, both accounts and the tickets they use.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Room id.
    pub room: String,
    /// Light's account and ticket.
    pub light: (i64, [u8; 32]),
    /// Dark's account and ticket.
    pub dark: (i64, [u8; 32]),
}

/// The games a pairing makes from the players' rows and the arena's games.
pub fn plan(rows: &[PairRow], games: &[scoring::Game]) -> Vec<Planned> {
    let players: Vec<scoring::Player> = rows
        .iter()
        .map(|r| scoring::Player {
            account: r.account,
            name: String::new(),
            state: r.state.clone(),
        })
        .collect();
    let standings = scoring::standings(&players, games);
    let waiting: Vec<crate::arena::pairing::Waiting> = standings
        .iter()
        .filter_map(|s| {
            let row = rows.iter().find(|r| r.account == s.account)?;
            if row.state != "joined" || row.room.is_some() || row.ticket.is_none() || s.playing.is_some() {
                return None;
            }
            let light_balance = games
                .iter()
                .map(|g| match (g.light == s.account, g.dark == s.account) {
                    (true, _) => 1,
                    (_, true) => -1,
                    _ => 0,
                })
                .sum();
            Some(crate::arena::pairing::Waiting {
                account: s.account,
                score: s.score,
                last_opponent: s.games.last().map(|g| g.opponent),
                light_balance,
            })
        })
        .collect();
    let ticket = |account: i64| {
        rows.iter()
            .find(|r| r.account == account)
            .and_then(|r| r.ticket)
            .expect("a waiting player has a ticket")
    };
    crate::arena::pairing::pair(waiting, rand::random::<bool>)
        .into_iter()
        .map(|(light, dark)| Planned {
            room: crate::keys::new_room_id(),
            light: (light, ticket(light)),
            dark: (dark, ticket(dark)),
        })
        .collect()
}

fn bad(what: impl std::fmt::Display) -> DbError {
    DbError::Corrupt(format!("arena: {what}"))
}

fn ending(text: Option<String>) -> Result<Option<Ending>, DbError> {
    text.map(|t| Ending::parse(&t).ok_or_else(|| bad(format!("result {t:?}"))))
        .transpose()
}

fn hash32(bytes: Vec<u8>) -> Result<[u8; 32], DbError> {
    bytes.try_into().map_err(|_| bad("a key hash is not 32 bytes"))
}

fn count(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

// ---------------------------------------------------------------------------------
// SQLite: reads on the reader connection, writes in the single writer's transaction.

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
    reader: &super::sqlite::Reader,
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
                    let ids = c
                        .prepare_cached("SELECT id FROM arenas WHERE starts_at <= ?1 AND ends_at > ?1")?
                        .query_map(params![now], |r| r.get(0))?
                        .collect::<Result<Vec<String>, _>>()?;
                    Ok(ArenaAnswer::Ids(ids))
                })
                .await
        }
        ArenaRequest::OfRoom(room) => {
            reader
                .with(move |c| {
                    let ids = c
                        .prepare_cached("SELECT arena_id FROM arena_games WHERE room_id = ?1")?
                        .query_map(params![room], |r| r.get(0))?
                        .collect::<Result<Vec<String>, _>>()?;
                    Ok(ArenaAnswer::Ids(ids))
                })
                .await
        }
        ArenaRequest::Ticket {
            arena,
            account,
            key_hash,
        } => {
            let (a, acc) = (arena.clone(), account);
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

fn used_sqlite(
    c: &Connection,
    arena: &str,
    account: i64,
    key_hash: &[u8; 32],
) -> Result<Option<Ticket>, DbError> {
    let game: Option<(String, bool)> = c
        .prepare_cached(
            "SELECT room_id, light_id = ?2 AND light_key_hash = ?3 FROM arena_games
             WHERE arena_id = ?1 AND ((light_id = ?2 AND light_key_hash = ?3) OR (dark_id = ?2 AND dark_key_hash = ?3))",
        )?
        .query_row(params![arena, account, &key_hash[..]], |r| Ok((r.get(0)?, r.get(1)?)))
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
        super::accounts::bind_sqlite(
            c,
            &super::accounts::Binding {
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

// ---------------------------------------------------------------------------------
// PostgreSQL.

/// The first key of the advisory lock a pairing holds for its arena (the second is the
/// arena id's hash): two instances pair one arena one after the other.
const ARENA_LOCK: i32 = 5106376;

/// A ticket is used only while the instance holding its socket has a connection.
const TICKET_ALIVE: &str =
    "EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = p.ticket_instance)";

fn info_pg(r: &tokio_postgres::Row) -> ArenaInfo {
    ArenaInfo {
        id: r.get(0),
        name: r.get(1),
        variant: r.get(2),
        initial: u32::try_from(r.get::<_, i32>(3)).unwrap_or(0),
        increment: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
        starts_at: r.get(5),
        ends_at: r.get(6),
        rated: r.get(7),
        players: count(r.get(8)),
    }
}

const INFO_PG: &str = "SELECT id, name, variant, clock_initial, clock_increment, starts_at, ends_at, rated,
    (SELECT count(*) FROM arena_players p WHERE p.arena_id = arenas.id AND p.state <> 'withdrawn') FROM arenas";

async fn games_pg(
    c: &impl tokio_postgres::GenericClient,
    arena: &str,
) -> Result<Vec<scoring::Game>, DbError> {
    let rows = c
        .query(
            "SELECT room_id, light_id, dark_id, light_rating, dark_rating, started_at, result,
                    coalesce(light_turns, 0), coalesce(dark_turns, 0)
             FROM arena_games WHERE arena_id = $1 ORDER BY started_at, room_id",
            &[&arena],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(scoring::Game {
                room: r.get(0),
                light: r.get(1),
                dark: r.get(2),
                light_rating: r.get(3),
                dark_rating: r.get(4),
                started_at: r.get(5),
                ending: ending(r.get(6))?,
                turns: (
                    u32::try_from(r.get::<_, i32>(7)).unwrap_or(0),
                    u32::try_from(r.get::<_, i32>(8)).unwrap_or(0),
                ),
            })
        })
        .collect()
}

async fn used_pg(
    c: &impl tokio_postgres::GenericClient,
    arena: &str,
    account: i64,
    key_hash: &[u8; 32],
) -> Result<Option<Ticket>, DbError> {
    let row = c
        .query_opt(
            "SELECT room_id, light_id = $2 AND light_key_hash = $3 FROM arena_games
             WHERE arena_id = $1 AND ((light_id = $2 AND light_key_hash = $3) OR (dark_id = $2 AND dark_key_hash = $3))",
            &[&arena, &account, &&key_hash[..]],
        )
        .await?;
    Ok(row.map(|r| {
        let light: bool = r.get(1);
        Ticket::Paired(r.get(0), if light { Color::Light } else { Color::Dark })
    }))
}

/// Runs an [`ArenaRequest`] on PostgreSQL; `instance` is this server's id (its
/// connections' application name), which owns the tickets it sets.
pub async fn pg(
    pool: &deadpool_postgres::Pool,
    instance: &str,
    req: ArenaRequest,
) -> Result<ArenaAnswer, DbError> {
    let mut client = pool.get().await?;
    match req {
        ArenaRequest::Create(a) => {
            client
                .execute(
                    "INSERT INTO arenas (id, name, variant, clock_initial, clock_increment, starts_at, ends_at,
                                         rated, created_by, created_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    &[
                        &a.id,
                        &a.name,
                        &a.variant,
                        &(a.initial as i32),
                        &(a.increment as i32),
                        &a.starts_at,
                        &a.ends_at,
                        &a.rated,
                        &a.created_by,
                        &a.created_at,
                    ],
                )
                .await?;
            Ok(ArenaAnswer::Done)
        }
        ArenaRequest::Member {
            arena,
            account,
            name,
            change,
            at,
        } => {
            let ends = client
                .query_opt("SELECT ends_at FROM arenas WHERE id = $1", &[&arena])
                .await?;
            let Some(ends) = ends.map(|r| r.get::<_, i64>(0)) else {
                return Ok(ArenaAnswer::Member(Member::NoArena));
            };
            if at >= ends {
                return Ok(ArenaAnswer::Member(Member::Finished));
            }
            let n = if change == Membership::Join {
                client
                    .execute(
                        "INSERT INTO arena_players (arena_id, account_id, name, state, joined_at)
                         VALUES ($1, $2, $3, 'joined', $4)
                         ON CONFLICT (arena_id, account_id) DO UPDATE SET state = 'joined', name = excluded.name",
                        &[&arena, &account, &name, &at],
                    )
                    .await?
            } else {
                client
                    .execute(
                        "UPDATE arena_players SET state = $3 WHERE arena_id = $1 AND account_id = $2",
                        &[&arena, &account, &change.state()],
                    )
                    .await?
            };
            Ok(ArenaAnswer::Member(if n == 0 {
                Member::NotJoined
            } else {
                Member::Done
            }))
        }
        ArenaRequest::List { since, limit } => {
            let rows = client
                .query(
                    &format!("{INFO_PG} WHERE ends_at > $1 ORDER BY starts_at, id LIMIT $2"),
                    &[&since, &i64::from(limit)],
                )
                .await?;
            Ok(ArenaAnswer::List(rows.iter().map(info_pg).collect()))
        }
        ArenaRequest::Get(id) => {
            let Some(info) = client
                .query_opt(&format!("{INFO_PG} WHERE id = $1"), &[&id])
                .await?
            else {
                return Ok(ArenaAnswer::Arena(None));
            };
            let players = client
                .query(
                    "SELECT account_id, name, state FROM arena_players WHERE arena_id = $1
                     ORDER BY joined_at, account_id",
                    &[&id],
                )
                .await?
                .iter()
                .map(|r| scoring::Player {
                    account: r.get(0),
                    name: r.get(1),
                    state: r.get(2),
                })
                .collect();
            let games = games_pg(&**client, &id).await?;
            Ok(ArenaAnswer::Arena(Some(Box::new(ArenaData {
                info: info_pg(&info),
                players,
                games,
            }))))
        }
        ArenaRequest::Running(now) => {
            let rows = client
                .query(
                    "SELECT id FROM arenas WHERE starts_at <= $1 AND ends_at > $1",
                    &[&now],
                )
                .await?;
            Ok(ArenaAnswer::Ids(rows.iter().map(|r| r.get(0)).collect()))
        }
        ArenaRequest::OfRoom(room) => {
            let rows = client
                .query("SELECT arena_id FROM arena_games WHERE room_id = $1", &[&room])
                .await?;
            Ok(ArenaAnswer::Ids(rows.iter().map(|r| r.get(0)).collect()))
        }
        ArenaRequest::Pair { arena, at } => {
            let tx = client.transaction().await?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                &[&ARENA_LOCK, &arena],
            )
            .await?;
            let made = pair_pg(&tx, &arena, at).await?;
            tx.commit().await?;
            Ok(ArenaAnswer::Paired(made))
        }
        ArenaRequest::Ticket {
            arena,
            account,
            key_hash,
        } => {
            if let Some(t) = used_pg(&**client, &arena, account, &key_hash).await? {
                return Ok(ArenaAnswer::Ticket(t));
            }
            // Set unless it is already, or its hash was used (a pairing committed since
            // the read above); a pairing checks the ticket it uses is still there.
            let row = client
                .query_opt(
                    "UPDATE arena_players p SET ticket_hash = $3, ticket_instance = $4
                     WHERE arena_id = $1 AND account_id = $2
                       AND NOT EXISTS (SELECT 1 FROM arena_games g WHERE g.arena_id = $1
                                       AND (g.light_key_hash = $3 OR g.dark_key_hash = $3))
                     RETURNING 1",
                    &[&arena, &account, &&key_hash[..], &instance],
                )
                .await?;
            if row.is_some() {
                return Ok(ArenaAnswer::Ticket(Ticket::Waiting));
            }
            Ok(ArenaAnswer::Ticket(
                match used_pg(&**client, &arena, account, &key_hash).await? {
                    Some(t) => t,
                    None => Ticket::NotJoined,
                },
            ))
        }
        ArenaRequest::DropTicket {
            arena,
            account,
            key_hash,
        } => {
            client
                .execute(
                    "UPDATE arena_players SET ticket_hash = NULL, ticket_instance = NULL
                     WHERE arena_id = $1 AND account_id = $2 AND ticket_hash = $3",
                    &[&arena, &account, &&key_hash[..]],
                )
                .await?;
            Ok(ArenaAnswer::Done)
        }
    }
}

async fn pair_pg(
    tx: &deadpool_postgres::Transaction<'_>,
    arena: &str,
    at: i64,
) -> Result<Vec<Paired>, DbError> {
    // As in `pair_sqlite`: after every result already stored.
    let latest: Option<i64> = tx
        .query_one(
            "SELECT max(ended_at) FROM arena_games WHERE arena_id = $1",
            &[&arena],
        )
        .await?
        .get(0);
    let at = at.max(latest.unwrap_or(at));
    let Some(info) = tx
        .query_opt(
            "SELECT variant, clock_initial, clock_increment, rated FROM arenas
             WHERE id = $1 AND starts_at <= $2 AND ends_at > $2",
            &[&arena, &at],
        )
        .await?
    else {
        return Ok(Vec::new());
    };
    let variant: String = info.get(0);
    let (initial, increment): (i32, i32) = (info.get(1), info.get(2));
    let rated: bool = info.get(3);
    let rows = tx
        .query(
            &format!(
                "SELECT account_id, state, room_id, CASE WHEN {TICKET_ALIVE} THEN ticket_hash END
                 FROM arena_players p WHERE arena_id = $1"
            ),
            &[&arena],
        )
        .await?;
    let rows: Vec<PairRow> = rows
        .iter()
        .map(|r| {
            Ok(PairRow {
                account: r.get(0),
                state: r.get(1),
                room: r.get(2),
                ticket: r.get::<_, Option<Vec<u8>>>(3).map(hash32).transpose()?,
            })
        })
        .collect::<Result<_, DbError>>()?;
    let games = games_pg(&**tx, arena).await?;
    let clock = TimeControl::Live {
        initial: u32::try_from(initial).unwrap_or(0),
        increment: u32::try_from(increment).unwrap_or(0),
    };
    let speed = Speed::of(clock);
    let (ci, cn) = (i64::from(initial), i64::from(increment));
    let mut made = Vec::new();
    for p in plan(&rows, &games) {
        let (light, dark) = (p.light.0, p.dark.0);
        tx.execute(
            "INSERT INTO rooms (id, variant, created_at, active_at, clock_initial, clock_increment)
             VALUES ($1, $2, $3, $3, $4::bigint, $5::bigint)",
            &[&p.room, &variant, &at, &ci, &cn],
        )
        .await?;
        tx.execute(
            "INSERT INTO seats (room_id, color, key_hash, created_at) VALUES ($1, 'light', $2, $4), ($1, 'dark', $3, $4)",
            &[&p.room, &&p.light.1[..], &&p.dark.1[..], &at],
        )
        .await?;
        super::accounts::bind_pg(
            &**tx,
            &super::accounts::Binding {
                room: &p.room,
                light: Some(light),
                dark: Some(dark),
                rated: rated.then_some((variant.as_str(), speed)),
            },
        )
        .await?;
        let ratings = tx
            .query(
                "SELECT account_id, rating FROM ratings WHERE account_id = ANY($1) AND rules = $2 AND speed = $3",
                &[&vec![light, dark], &variant, &speed.as_str()],
            )
            .await?;
        let rating = |a: i64| {
            ratings
                .iter()
                .find(|r| r.get::<_, i64>(0) == a)
                .map_or(scoring::DEFAULT_RATING, |r| r.get(1))
        };
        tx.execute(
            "INSERT INTO arena_games (room_id, arena_id, light_id, dark_id, light_rating, dark_rating,
                                      light_key_hash, dark_key_hash, started_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &p.room,
                &arena,
                &light,
                &dark,
                &rating(light),
                &rating(dark),
                &&p.light.1[..],
                &&p.dark.1[..],
                &at,
            ],
        )
        .await?;
        for (account, ticket) in [p.light, p.dark] {
            let n = tx
                .execute(
                    "UPDATE arena_players SET room_id = $3, ticket_hash = NULL, ticket_instance = NULL
                     WHERE arena_id = $1 AND account_id = $2 AND room_id IS NULL AND ticket_hash = $4",
                    &[&arena, &account, &p.room, &&ticket[..]],
                )
                .await?;
            if n != 1 {
                return Err(DbError::failed(
                    "PostgreSQL",
                    "an arena player was taken by another pairing",
                ));
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

/// [`end_sqlite`] for the PostgreSQL writer (`store/postgres/writer.rs`), in the
/// transaction that has just stored the ending event.
pub async fn end_pg(
    client: &tokio_postgres::Client,
    room: &str,
    round: u32,
    outcome: &mill_core::Outcome,
    at: i64,
) -> Result<(), tokio_postgres::Error> {
    if round != 1 {
        return Ok(());
    }
    let row = client
        .query_opt(
            "WITH t AS (SELECT count(*) FILTER (WHERE seat = 'light') AS l, count(*) FILTER (WHERE seat = 'dark') AS d
                        FROM events WHERE room_id = $1 AND round = 1 AND kind = 'action' AND action NOT LIKE 'x%')
             UPDATE arena_games SET result = $2, light_turns = (SELECT l FROM t), dark_turns = (SELECT d FROM t),
                                    ended_at = $3
             WHERE room_id = $1 AND result IS NULL RETURNING arena_id",
            &[&room, &Ending::of(outcome).as_str(), &at],
        )
        .await?;
    if let Some(row) = row {
        let arena: String = row.get(0);
        client
            .execute(
                "UPDATE arena_players SET room_id = NULL WHERE arena_id = $1 AND room_id = $2",
                &[&arena, &room],
            )
            .await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// In memory (store/memory.rs), deciding what the databases' keys decide.

/// A player row in memory.
#[derive(Debug, Clone)]
struct MemPlayer {
    account: i64,
    name: String,
    state: &'static str,
    joined_at: i64,
    room: Option<String>,
    ticket: Option<[u8; 32]>,
}

/// A game row in memory.
#[derive(Debug, Clone)]
struct MemGame {
    arena: String,
    ended_at: Option<i64>,
    game: scoring::Game,
    light_hash: [u8; 32],
    dark_hash: [u8; 32],
}

/// The in-memory store's arenas.
#[derive(Debug, Default)]
pub struct MemArenas {
    arenas: Vec<(NewArena, Vec<MemPlayer>)>,
    games: Vec<MemGame>,
}

/// A room the in-memory store must create for a pairing: (id, rule set, clock, Light's
/// and Dark's key hashes, now).
pub type MemRoom = (String, String, TimeControl, [u8; 32], [u8; 32], i64);

impl MemArenas {
    fn info(a: &NewArena, players: &[MemPlayer]) -> ArenaInfo {
        ArenaInfo {
            id: a.id.clone(),
            name: a.name.clone(),
            variant: a.variant.clone(),
            initial: a.initial,
            increment: a.increment,
            starts_at: a.starts_at,
            ends_at: a.ends_at,
            rated: a.rated,
            players: count(players.iter().filter(|p| p.state != "withdrawn").count() as i64),
        }
    }

    fn games_of(&self, arena: &str) -> Vec<scoring::Game> {
        self.games
            .iter()
            .filter(|g| g.arena == arena)
            .map(|g| g.game.clone())
            .collect()
    }

    fn used(&self, arena: &str, account: i64, hash: &[u8; 32]) -> Option<Ticket> {
        self.games.iter().find_map(|g| {
            if g.arena != arena {
                None
            } else if g.game.light == account && g.light_hash == *hash {
                Some(Ticket::Paired(g.game.room.clone(), Color::Light))
            } else if g.game.dark == account && g.dark_hash == *hash {
                Some(Ticket::Paired(g.game.room.clone(), Color::Dark))
            } else {
                None
            }
        })
    }

    /// Answers a request; the rooms a pairing made are pushed to `rooms`.
    pub fn request(&mut self, req: ArenaRequest, rooms: &mut Vec<MemRoom>) -> Result<ArenaAnswer, DbError> {
        Ok(match req {
            ArenaRequest::Create(a) => {
                if self.arenas.iter().any(|(x, _)| x.id == a.id) {
                    return Err(DbError::failed("memory", format!("arena {} exists", a.id)));
                }
                self.arenas.push((a, Vec::new()));
                ArenaAnswer::Done
            }
            ArenaRequest::Member {
                arena,
                account,
                name,
                change,
                at,
            } => {
                let Some((a, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) else {
                    return Ok(ArenaAnswer::Member(Member::NoArena));
                };
                if at >= a.ends_at {
                    return Ok(ArenaAnswer::Member(Member::Finished));
                }
                let member = match (players.iter_mut().find(|p| p.account == account), change) {
                    (Some(p), change) => {
                        p.state = change.state();
                        if change == Membership::Join {
                            p.name = name;
                        }
                        Member::Done
                    }
                    (None, Membership::Join) => {
                        players.push(MemPlayer {
                            account,
                            name,
                            state: "joined",
                            joined_at: at,
                            room: None,
                            ticket: None,
                        });
                        Member::Done
                    }
                    (None, _) => Member::NotJoined,
                };
                ArenaAnswer::Member(member)
            }
            ArenaRequest::List { since, limit } => {
                let mut list: Vec<ArenaInfo> = self
                    .arenas
                    .iter()
                    .filter(|(a, _)| a.ends_at > since)
                    .map(|(a, p)| Self::info(a, p))
                    .collect();
                list.sort_by(|a, b| (a.starts_at, &a.id).cmp(&(b.starts_at, &b.id)));
                list.truncate(limit as usize);
                ArenaAnswer::List(list)
            }
            ArenaRequest::Get(id) => {
                let found = self.arenas.iter().find(|(a, _)| a.id == id).map(|(a, players)| {
                    let mut players = players.clone();
                    players.sort_by_key(|p| (p.joined_at, p.account));
                    ArenaData {
                        info: Self::info(a, &players),
                        players: players
                            .iter()
                            .map(|p| scoring::Player {
                                account: p.account,
                                name: p.name.clone(),
                                state: p.state.to_string(),
                            })
                            .collect(),
                        games: Vec::new(),
                    }
                });
                ArenaAnswer::Arena(found.map(|mut d| {
                    d.games = self.games_of(&id);
                    Box::new(d)
                }))
            }
            ArenaRequest::Running(now) => ArenaAnswer::Ids(
                self.arenas
                    .iter()
                    .filter(|(a, _)| a.starts_at <= now && now < a.ends_at)
                    .map(|(a, _)| a.id.clone())
                    .collect(),
            ),
            ArenaRequest::OfRoom(room) => ArenaAnswer::Ids(
                self.games
                    .iter()
                    .filter(|g| g.game.room == room)
                    .map(|g| g.arena.clone())
                    .collect(),
            ),
            ArenaRequest::Pair { arena, at } => {
                let games = self.games_of(&arena);
                let latest = self
                    .games
                    .iter()
                    .filter(|g| g.arena == arena)
                    .filter_map(|g| g.ended_at)
                    .max();
                let at = at.max(latest.unwrap_or(at));
                let Some((a, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) else {
                    return Ok(ArenaAnswer::Paired(Vec::new()));
                };
                if !(a.starts_at <= at && at < a.ends_at) {
                    return Ok(ArenaAnswer::Paired(Vec::new()));
                }
                let rows: Vec<PairRow> = players
                    .iter()
                    .map(|p| PairRow {
                        account: p.account,
                        state: p.state.to_string(),
                        room: p.room.clone(),
                        ticket: p.ticket,
                    })
                    .collect();
                let clock = TimeControl::Live {
                    initial: a.initial,
                    increment: a.increment,
                };
                let mut made = Vec::new();
                let mut new_games = Vec::new();
                for p in plan(&rows, &games) {
                    for (account, _) in [p.light, p.dark] {
                        let row = players
                            .iter_mut()
                            .find(|x| x.account == account)
                            .filter(|x| x.room.is_none())
                            .ok_or_else(|| DbError::failed("memory", "an arena player is in a game"))?;
                        row.room = Some(p.room.clone());
                        row.ticket = None;
                    }
                    rooms.push((p.room.clone(), a.variant.clone(), clock, p.light.1, p.dark.1, at));
                    new_games.push(MemGame {
                        arena: arena.clone(),
                        ended_at: None,
                        game: scoring::Game {
                            room: p.room.clone(),
                            light: p.light.0,
                            dark: p.dark.0,
                            light_rating: scoring::DEFAULT_RATING,
                            dark_rating: scoring::DEFAULT_RATING,
                            started_at: at,
                            ending: None,
                            turns: (0, 0),
                        },
                        light_hash: p.light.1,
                        dark_hash: p.dark.1,
                    });
                    made.push(Paired {
                        room: p.room,
                        light: p.light.0,
                        dark: p.dark.0,
                    });
                }
                self.games.extend(new_games);
                ArenaAnswer::Paired(made)
            }
            ArenaRequest::Ticket {
                arena,
                account,
                key_hash,
            } => {
                if let Some(t) = self.used(&arena, account, &key_hash) {
                    return Ok(ArenaAnswer::Ticket(t));
                }
                let player = self
                    .arenas
                    .iter_mut()
                    .find(|(a, _)| a.id == arena)
                    .and_then(|(_, ps)| ps.iter_mut().find(|p| p.account == account));
                ArenaAnswer::Ticket(match player {
                    None => Ticket::NotJoined,
                    Some(p) => {
                        p.ticket = Some(key_hash);
                        Ticket::Waiting
                    }
                })
            }
            ArenaRequest::DropTicket {
                arena,
                account,
                key_hash,
            } => {
                if let Some(p) = self
                    .arenas
                    .iter_mut()
                    .find(|(a, _)| a.id == arena)
                    .and_then(|(_, ps)| ps.iter_mut().find(|p| p.account == account))
                    .filter(|p| p.ticket == Some(key_hash))
                {
                    p.ticket = None;
                }
                ArenaAnswer::Done
            }
        })
    }

    /// Whether a request changes anything.
    pub fn writes(req: &ArenaRequest) -> bool {
        !matches!(
            req,
            ArenaRequest::List { .. }
                | ArenaRequest::Get(_)
                | ArenaRequest::Running(_)
                | ArenaRequest::OfRoom(_)
        )
    }

    /// The end of round `round` of `room`, with the turns each side made (the in-memory
    /// store's append): an arena game's first round is scored once.
    pub fn end(&mut self, room: &str, round: u32, outcome: &mill_core::Outcome, turns: (u32, u32), at: i64) {
        if round != 1 {
            return;
        }
        let Some(g) = self
            .games
            .iter_mut()
            .find(|g| g.game.room == room && g.game.ending.is_none())
        else {
            return;
        };
        g.game.ending = Some(Ending::of(outcome));
        g.game.turns = turns;
        g.ended_at = Some(at);
        let arena = g.arena.clone();
        if let Some((_, players)) = self.arenas.iter_mut().find(|(a, _)| a.id == arena) {
            for p in players.iter_mut().filter(|p| p.room.as_deref() == Some(room)) {
                p.room = None;
            }
        }
    }
}

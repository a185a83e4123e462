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
    /// The ticket of a player's socket: what became of it, or (with `claim`) set it.
    Ticket {
        /// Arena id.
        arena: String,
        /// Account id.
        account: i64,
        /// The hash of the key the socket holds.
        key_hash: [u8; 32],
        /// Set it as the player's when it is not used: false for a socket that another,
        /// newer socket of the player's has replaced (it only learns whether its last
        /// ticket was used; `Waiting` otherwise).
        claim: bool,
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
        self.ticket_as(arena, account, key_hash, true).await
    }

    /// A replaced socket's ticket: its game if it was used, else `Waiting` (nothing set).
    pub async fn used(&self, arena: &str, account: i64, key_hash: [u8; 32]) -> Result<Ticket, DbError> {
        self.ticket_as(arena, account, key_hash, false).await
    }

    async fn ticket_as(
        &self,
        arena: &str,
        account: i64,
        key_hash: [u8; 32],
        claim: bool,
    ) -> Result<Ticket, DbError> {
        let req = ArenaRequest::Ticket {
            arena: arena.into(),
            account,
            key_hash,
            claim,
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

mod memory;
mod postgres;
mod sqlite;
pub use memory::*;
pub use postgres::*;
pub use sqlite::*;

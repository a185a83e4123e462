//! What both backends store and read back, in the room logic's own types: a seat is a
//! [`Color`], an event's kind is the protocol's [`Command`]. Text forms exist only in
//! the columns, written and read by the functions here, so the backends cannot drift.

use mill_core::Color;

use crate::protocol::{ClockEventKind, Command};
use crate::timecontrol::{Stamp, TimeControl};

/// A database failure, the same type whichever backend is behind the store. The room
/// logic and the HTTP layer tell two cases apart: damaged data (the room is set aside
/// and every other room served) and a failed database (the request is answered
/// `internal`, nothing changed, the client may try again); the backend's own message is
/// kept for the log. `Clone`, so that one failed commit can fail every action in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbError {
    /// The database failed or refused (unreachable, I/O, a constraint, a failed commit
    /// or migration): what was asked did not happen.
    #[error("{backend}: {message}")]
    Failed {
        /// Which backend (`SQLite`, `PostgreSQL`, `memory`).
        backend: &'static str,
        /// Its own message.
        message: String,
    },
    /// A stored row does not make sense.
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// The store has stopped (its writer is gone: the server is shutting down).
    #[error("the database writer has stopped")]
    Stopped,
}

impl DbError {
    /// A failure of `backend`, with its message.
    pub fn failed(backend: &'static str, message: impl std::fmt::Display) -> DbError {
        DbError::Failed {
            backend,
            message: message.to_string(),
        }
    }
}

/// What a stored event did: a seat's command, or an event the server stored by itself
/// in a timed round (its client id starts with `~`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A command a seat sent.
    Command(Command),
    /// The clock's own event about the event's seat.
    Clock(ClockEventKind),
}

impl Entry {
    /// The `kind` column.
    pub fn kind_str(&self) -> &'static str {
        match self {
            Entry::Command(c) => c.kind().as_str(),
            Entry::Clock(k) => k.as_str(),
        }
    }

    /// The `action` column.
    pub fn action_text(&self) -> Option<&str> {
        match self {
            Entry::Command(c) => c.action_text(),
            Entry::Clock(_) => None,
        }
    }

    /// The `key_hash` column (an `offer-rematch`'s hash of the sender's next key).
    pub fn key_hash(&self) -> Option<&[u8; 32]> {
        match self {
            Entry::Command(c) => c.key_hash().map(|k| &k.0),
            Entry::Clock(_) => None,
        }
    }
}

impl From<Command> for Entry {
    fn from(c: Command) -> Entry {
        Entry::Command(c)
    }
}

/// One stored event: a command that was applied (or the clock's own event), where it
/// went and who sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The round it belongs to.
    pub round: u32,
    /// Its place in the round, from 0.
    pub seq: u32,
    /// The seat that sent it.
    pub seat: Color,
    /// What it did (kind and, for actions, the action text).
    pub command: Entry,
    /// The client-made id (unique per room and seat).
    pub client_id: String,
    /// When it was stored (Unix ms).
    pub at: i64,
    /// In a timed round: both clocks as of `at` and the lag given back
    /// (`timecontrol.rs`); `None` in an untimed room.
    pub stamp: Option<Stamp>,
}

/// An event to append to room `room`.
#[derive(Debug, Clone)]
pub struct Append {
    /// Room id.
    pub room: String,
    /// The event.
    pub event: StoredEvent,
    /// Set when this event ends its round, with the result: in a rated room the store
    /// changes both ratings in the same transaction that stores the event
    /// (`store/accounts.rs`, `record_round_*`), so a result and its rating change are
    /// stored together or not at all.
    pub ends: Option<mill_core::Outcome>,
    /// Set when this event completes a rematch (both seats offered one): the store
    /// creates the new room in the same transaction that stores the event, so the
    /// database's key on the event's place decides the rematch once, and the room
    /// exists exactly when the event does.
    pub rematch: Option<Rematch>,
}

/// The room a rematch makes ([`Append::rematch`]): the old room's rules and clock, both
/// seats taken (colours swapped: each seat's new key is the one its player sent), round
/// 1 playable at once. The store also marks it paired (so it may be rematched in turn)
/// and binds its seats to the old seats' accounts, colours swapped; rated when the old
/// room was and both its seats are bound to accounts (`store/accounts.rs`).
#[derive(Debug, Clone)]
pub struct Rematch {
    /// The new room's id (`keys::rematch_room_id`).
    pub room: String,
    /// The rule set's name.
    pub variant: String,
    /// The time control (`None`: untimed).
    pub clock: Option<TimeControl>,
    /// The new Light seat's key hash (sent by the old Dark seat).
    pub light_key: [u8; 32],
    /// The new Dark seat's key hash (sent by the old Light seat).
    pub dark_key: [u8; 32],
}

/// What became of an [`Append`]: the database's keys on (room, round, seq) and on
/// (room, seat, client id) decide, the same way on both backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// Committed.
    Stored,
    /// Another command already holds this (room, round, seq).
    PlaceTaken,
    /// This seat's client id is already stored, at (round, seq): a retry.
    Duplicate {
        /// The stored event's round.
        round: u32,
        /// Its place in that round.
        seq: u32,
    },
}

/// One stored room with everything needed to rebuild it.
#[derive(Debug, Clone)]
pub struct StoredRoom {
    /// Room id.
    pub id: String,
    /// Last activity (Unix ms).
    pub active_at: i64,
    /// The rule set's name (`rooms.variant`: `nine` for rooms older than the variants).
    pub variant: String,
    /// The room's time control (`None`: untimed).
    pub clock: Option<TimeControl>,
    /// Seat key hashes.
    pub light_key: Option<[u8; 32]>,
    /// Seat key hashes.
    pub dark_key: Option<[u8; 32]>,
    /// When the Dark seat was taken (round 1 becomes playable then).
    pub dark_at: Option<i64>,
    /// Events in order.
    pub events: Vec<StoredEvent>,
    /// Made by rated pairing (`rated_rooms`, store/accounts.rs): no takebacks.
    pub rated: bool,
    /// Made by quick pairing (or a rematch of such a room): its rounds may be rematched.
    pub paired: bool,
}

/// What other instances sharing the database changed in a room since a given place.
/// With one instance (SQLite) there is never any.
#[derive(Debug, Clone, Default)]
pub struct News {
    /// The Dark seat's key hash, if taken.
    pub dark_key: Option<[u8; 32]>,
    /// When the Dark seat was taken.
    pub dark_at: Option<i64>,
    /// Events at or after the place asked for, in order.
    pub events: Vec<StoredEvent>,
    /// Seats held by a socket on another live instance (Light, Dark).
    pub remote: [bool; 2],
    /// The newest claim on each seat by another live instance (Light, Dark).
    pub claims: [Option<i64>; 2],
}

/// A seat's holder on this instance, published for the others: `holder` is the room
/// logic's number for the socket (`None`: nobody holds the seat here any more).
#[derive(Debug, Clone)]
pub struct Presence {
    /// Room id.
    pub room: String,
    /// The seat.
    pub seat: Color,
    /// The socket now holding it here.
    pub holder: Option<u64>,
    /// Now (Unix ms).
    pub at: i64,
}

/// What the stores tell the room logic about other instances (PostgreSQL only; SQLite
/// has none and never calls it). Implemented by the room registry, so the stores need
/// not know it.
pub trait Instances: Send + Sync + 'static {
    /// Other instances changed these rooms (`None`: news may have been missed for
    /// every room). Returns once the news is read.
    fn changed(&self, rooms: Option<Vec<String>>) -> futures_util::future::BoxFuture<'_, ()>;
    /// A published holder's claim on a seat committed with this number.
    fn claimed(&self, presence: &Presence, claim: i64);
    /// This instance was taken for dead and its presence went with it: publish every
    /// seat held here again.
    fn forgotten(&self);
}

/// A seat's column value.
pub fn seat_name(c: Color) -> &'static str {
    match c {
        Color::Light => "light",
        Color::Dark => "dark",
    }
}

/// Reads a seat column; anything but `light` or `dark` is a damaged row.
pub fn parse_seat(text: &str, room: &str) -> Result<Color, DbError> {
    match text {
        "light" => Ok(Color::Light),
        "dark" => Ok(Color::Dark),
        other => Err(DbError::Corrupt(format!("seat colour {other:?} in room {room}"))),
    }
}

/// Reads an event's `kind`, `action` and `key_hash` columns into what it did.
pub fn parse_command(
    kind: &str,
    action: Option<String>,
    key: Option<Vec<u8>>,
    room: &str,
) -> Result<Entry, DbError> {
    let bad = || {
        DbError::Corrupt(format!(
            "event kind {kind:?} (or its action or key) in room {room}"
        ))
    };
    if let Ok(k) = kind.parse::<ClockEventKind>() {
        return if action.is_none() && key.is_none() {
            Ok(Entry::Clock(k))
        } else {
            Err(bad())
        };
    }
    let key = match key {
        None => None,
        Some(bytes) => Some(crate::protocol::KeyHash(bytes.try_into().map_err(|_| bad())?)),
    };
    let kind = kind.parse().map_err(|_| bad())?;
    Command::from_stored(kind, action, key)
        .map(Entry::Command)
        .ok_or_else(bad)
}

/// Reads an event's `light_ms`, `dark_ms` and `lag_ms` columns.
pub fn parse_stamp(light: Option<i64>, dark: Option<i64>, lag: Option<i64>) -> Option<Stamp> {
    Some(Stamp {
        light_ms: light?,
        dark_ms: dark?,
        lag_ms: lag.unwrap_or(0),
    })
}

/// Reads a room's `clock_initial`, `clock_increment` and `clock_days` columns; a
/// combination no request could have made is a damaged row.
pub fn parse_clock(
    initial: Option<i64>,
    increment: Option<i64>,
    days: Option<i64>,
    room: &str,
) -> Result<Option<TimeControl>, DbError> {
    if initial.is_none() && increment.is_none() && days.is_none() {
        return Ok(None);
    }
    TimeControl::from_stored(initial, increment, days)
        .map(Some)
        .ok_or_else(|| DbError::Corrupt(format!("time control of room {room}")))
}

/// A time control's `clock_initial`, `clock_increment` and `clock_days` columns.
pub fn clock_columns(clock: Option<TimeControl>) -> (Option<i64>, Option<i64>, Option<i64>) {
    match clock {
        None => (None, None, None),
        Some(TimeControl::Live { initial, increment }) => {
            (Some(initial as i64), Some(increment as i64), None)
        }
        Some(TimeControl::Correspondence { days }) => (None, None, Some(days as i64)),
    }
}

/// A key hash column: exactly 32 bytes.
pub fn key_hash(bytes: Vec<u8>, room: &str) -> Result<[u8; 32], DbError> {
    bytes
        .try_into()
        .map_err(|_| DbError::Corrupt(format!("key hash of room {room}")))
}

/// A seeker's wish for an opponent (`POST /api/pair`), as the store is given it.
#[derive(Debug, Clone)]
pub struct Seek {
    /// The seek's id (what `DELETE /api/pair/{seek}` names).
    pub id: String,
    /// The seeker's id: a seeker is never paired with itself, and a new seek of the same
    /// seeker withdraws its open ones.
    pub seeker: String,
    /// The rule set's name.
    pub variant: String,
    /// The time control (`None`: untimed).
    pub clock: Option<TimeControl>,
    /// The hash of the seat key this seeker gets when paired.
    pub key_hash: [u8; 32],
    /// Now (Unix ms).
    pub at: i64,
    /// The id of the room created if this seek is paired on arrival.
    pub room: String,
    /// The colour of the seeker that was waiting, if this seek is paired on arrival
    /// (drawn at random by the caller: colours are fair).
    pub waiting_color: Color,
    /// The signed-in seeker's account: its seat is bound to it, and an account is never
    /// paired with itself.
    pub account: Option<i64>,
    /// A rated seek (only with an account and a clock): pairs only with rated seeks.
    pub rated: bool,
    /// The seeker's address as an opaque key (`rooms::pairing::address_key`: a hash of
    /// the IPv4 address or of the IPv6 /64, never the address itself): what one address
    /// holds open is bounded, and the lobby is shared out by it.
    pub address: String,
    /// The most open seeks one address may hold (0: no bound); a seek that would wait
    /// beyond it is refused ([`SeekState::Crowded`]) and changes nothing.
    pub address_cap: u32,
    /// A rated seek's rating for its rule set and speed, for a store that keeps no
    /// ratings (the in-memory one; `None` there is a new player's,
    /// [`crate::ratings::START_RATING`]). The databases read the seeker's rating from
    /// their `ratings` table in the pairing's own transaction instead, so the pairing
    /// is judged on the ratings as they are when the database decides it.
    pub rating: Option<f64>,
}

/// A waiting rated seek looking again (`rooms/pairing.rs`, every [`POLL`] while it
/// waits): the rating window has widened with the time waited, so a seek that was too
/// far when either arrived may be within it now ([`crate::ratings::pairing_window`]).
///
/// [`POLL`]: crate::rooms::pairing::POLL
#[derive(Debug, Clone)]
pub struct Recheck {
    /// The waiting seek's id.
    pub id: String,
    /// Now (Unix ms).
    pub at: i64,
    /// The id of the room created if it is paired now.
    pub room: String,
    /// The seat the looking seeker takes if it is paired now (drawn at random by the
    /// caller); the other seeker takes the other.
    pub color: Color,
    /// Its rating, for a store that keeps no ratings (as [`Seek::rating`]).
    pub rating: Option<f64>,
}

/// Rated pairing's choice as SQL, for SQLite and PostgreSQL: the open seek of another
/// seeker (and another account) in pool `p[0]` whose rating is within the window
/// ([`crate::ratings::window_sql`]) of the looking seek's, the closest first, then the
/// oldest. Each row's rating is its account's for the rule set and speed `p[3]` as the
/// `ratings` table holds it in this transaction (a new player's
/// [`crate::ratings::START_RATING`] without one). Parameters: `p` = [pool, seeker,
/// account, speed, rating, since, now], in the backend's placeholders (with casts on
/// PostgreSQL); `least`/`greatest` its two-argument minimum and maximum; `tail` what
/// follows the `WHERE` (PostgreSQL's claim of the row and its seeker's lock).
pub fn rated_choice(p: [&str; 7], least: &str, greatest: &str, extra: &str, tail: &str) -> String {
    let [pool, seeker, account, speed, rating, since, now] = p;
    let row_rating = format!("coalesce(r.rating, {:.1})", crate::ratings::START_RATING);
    let window = crate::ratings::window_sql(&row_rating, "s.created_at", rating, since, now, least, greatest);
    format!(
        "SELECT s.id, s.key_hash, s.account_id FROM seeks s
           LEFT JOIN ratings r ON r.account_id = s.account_id AND r.rules = s.variant AND r.speed = {speed}
         WHERE s.pool = {pool} AND s.room_id IS NULL AND s.seeker <> {seeker}
           AND coalesce(s.account_id, -1) <> coalesce({account}, -2)
           AND {window} {extra}
         ORDER BY abs({row_rating} - {rating}), s.created_at, s.id LIMIT 1 {tail}"
    )
}

/// Whether a pool (`Seek::pool`) is a rated one: only rated seeks look again.
pub fn is_rated_pool(pool: &str) -> bool {
    pool.starts_with("rated ")
}

impl Seek {
    /// The pool: only seeks of the same pool pair; rated seeks have their own.
    pub fn pool(&self) -> String {
        let pool = seek_pool(&self.variant, self.clock);
        if self.rated { format!("rated {pool}") } else { pool }
    }

    /// The speed of a rated seek's rating (`None`: a casual seek, paired oldest first).
    pub fn rated_speed(&self) -> Option<crate::ratings::Speed> {
        self.clock.filter(|_| self.rated).map(crate::ratings::Speed::of)
    }

    /// What pairing this seek with a waiting one (whose account is `other`) binds.
    pub fn binding(&self, other: Option<i64>) -> super::accounts::Binding<'_> {
        let (light, dark) = match self.waiting_color {
            Color::Light => (other, self.account),
            Color::Dark => (self.account, other),
        };
        super::accounts::Binding {
            room: &self.room,
            light,
            dark,
            rated: self
                .clock
                .filter(|_| self.rated)
                .map(|c| (self.variant.as_str(), crate::ratings::Speed::of(c))),
        }
    }
}

/// The pool of a rule set and a time control, as one text key: `nine untimed`,
/// `six 300+3`, `nine 3d`. Two seeks pair only when their pools are equal.
pub fn seek_pool(variant: &str, clock: Option<TimeControl>) -> String {
    match clock {
        None => format!("{variant} untimed"),
        Some(TimeControl::Live { initial, increment }) => format!("{variant} {initial}+{increment}"),
        Some(TimeControl::Correspondence { days }) => format!("{variant} {days}d"),
    }
}

/// Where a seek stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeekState {
    /// Open: waiting for an opponent.
    Waiting,
    /// Paired: this seeker holds `seat` in `room`.
    Paired {
        /// The new room.
        room: String,
        /// The seeker's seat.
        seat: Color,
    },
    /// Not there: withdrawn (or never stored).
    Gone,
    /// Not stored: its id is another seek's (another seeker's, or one already answered);
    /// nothing was written and no other seek was touched.
    Taken,
    /// Not stored: nobody to pair with, and its address already holds
    /// [`Seek::address_cap`] open seeks of other seekers; nothing was written.
    Crowded,
}

impl SeekState {
    /// Reads a seek row's `room_id` and `seat` columns.
    pub fn from_columns(room: Option<String>, seat: Option<String>) -> Result<SeekState, DbError> {
        match (room, seat) {
            (None, None) => Ok(SeekState::Waiting),
            (Some(room), Some(seat)) => {
                let seat = parse_seat(&seat, &room)?;
                Ok(SeekState::Paired { room, seat })
            }
            _ => Err(DbError::Corrupt("a seek with half a pairing".into())),
        }
    }
}

/// The lobby (`GET /api/seeks`) as SQL, for SQLite and PostgreSQL; the in-memory
/// store's `open_seeks` does the same in Rust. When more seeks are open than it lists,
/// a few addresses must not hide everyone else: every address's oldest open seek comes
/// first, then every address's second, and so on (within one rank, oldest first), up to
/// the limit; the chosen are shown oldest first. `alive` filters the open seeks further,
/// `limit` is the limit's parameter.
pub fn lobby_choice(alive: &str, limit: &str) -> String {
    format!(
        "SELECT variant, CAST(clock_initial AS BIGINT), CAST(clock_increment AS BIGINT),
                CAST(clock_days AS BIGINT), created_at, CAST(account_id AS BIGINT),
                pool LIKE 'rated %' FROM (
           SELECT variant, clock_initial, clock_increment, clock_days, created_at, id, account_id, pool,
                  row_number() OVER (PARTITION BY address ORDER BY created_at, id) AS nth
           FROM seeks WHERE room_id IS NULL AND {alive}
           ORDER BY nth, created_at, id LIMIT {limit}
         ) AS chosen ORDER BY created_at, id"
    )
}

/// An open seek as the lobby shows it: no ids, no secrets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OpenSeek {
    /// The rule set's name.
    pub variant: String,
    /// The time control (`null`: untimed).
    pub clock: Option<TimeControl>,
    /// Since when it waits (Unix ms).
    #[serde(skip)]
    pub since: i64,
    /// The signed-in seeker's account (never shown: the lobby shows its name).
    #[serde(skip)]
    pub account: Option<i64>,
    /// A rated seek.
    pub rated: bool,
}

/// The requests waiting on this instance for their seeks to change, by seek id. The
/// store wakes one after a write of its own that pairs or withdraws it, and (on
/// PostgreSQL) when another instance announces that it did.
#[derive(Debug, Default)]
pub struct SeekWaiters {
    map: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<tokio::sync::Notify>>>,
}

impl SeekWaiters {
    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, std::sync::Arc<tokio::sync::Notify>>>
    {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a waiter for seek `id` (before the seek is written, so that no wake-up
    /// is missed).
    pub fn register(&self, id: &str) -> std::sync::Arc<tokio::sync::Notify> {
        self.map().entry(id.to_string()).or_default().clone()
    }

    /// Forgets seek `id`'s waiter.
    pub fn remove(&self, id: &str) {
        self.map().remove(id);
    }

    /// Wakes seek `id`'s waiter, if it is here (a wake-up before it waits is kept).
    pub fn wake(&self, id: &str) {
        if let Some(n) = self.map().get(id) {
            n.notify_one();
        }
    }

    /// Wakes every waiter (news may have been missed).
    pub fn wake_all(&self) {
        for n in self.map().values() {
            n.notify_one();
        }
    }
}

/// A span of Unix ms (since, until) when no server ran or the database took no write:
/// nobody's time on the clocks (`Clocks::skip`).
pub type Outage = (i64, i64);

/// How far back the outages are read: longer than any turn may last (14 days).
pub const OUTAGES_KEPT_MS: i64 = 30 * crate::timecontrol::DAY_MS;

/// The rooms whose current round may still have a clock running: a time control, both
/// seats taken, and a last event that is not one of the results only a command or the
/// clock stores, nor a rematch's (made only once the round is over) (a round that ended on the board is among them, and leaves memory
/// again once loaded). The same text on both backends.
pub const TIMED_IN_PLAY_SQL: &str = "SELECT r.id FROM rooms r
     WHERE (r.clock_initial IS NOT NULL OR r.clock_days IS NOT NULL)
       AND EXISTS (SELECT 1 FROM seats s WHERE s.room_id = r.id AND s.color = 'dark')
       AND COALESCE((SELECT e.kind FROM events e WHERE e.room_id = r.id
                     ORDER BY e.round DESC, e.seq DESC LIMIT 1), '')
           NOT IN ('timeout', 'abort', 'resign', 'accept-draw', 'claim-win', 'call-draw',
                   'offer-rematch', 'decline-rematch')";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_equal_exactly_for_the_same_rules_and_the_same_clock() {
        let from = |v: serde_json::Value| TimeControl::from_request(Some(&v)).unwrap();
        let pool = |variant: &str, clock: serde_json::Value| seek_pool(variant, from(clock));
        let base = pool("nine", serde_json::json!({"initial": 180}));
        assert_eq!(
            base,
            pool("nine", serde_json::json!({"initial": 180, "increment": 0}))
        );
        for other in [
            pool("nine", serde_json::json!({"initial": 180, "increment": 1})),
            pool("nine", serde_json::json!({"initial": 181})),
            pool("nine", serde_json::json!(null)),
            pool("nine", serde_json::json!({"days": 3})),
            pool("six", serde_json::json!({"initial": 180})),
            pool("nine+fly-0", serde_json::json!({"initial": 180})),
        ] {
            assert_ne!(base, other);
        }
        assert_ne!(
            pool("nine", serde_json::json!({"days": 3})),
            pool("nine", serde_json::json!({"days": 2}))
        );
    }

    #[test]
    fn a_seek_row_is_open_paired_or_damaged() {
        assert_eq!(SeekState::from_columns(None, None).unwrap(), SeekState::Waiting);
        assert_eq!(
            SeekState::from_columns(Some("r".into()), Some("dark".into())).unwrap(),
            SeekState::Paired {
                room: "r".into(),
                seat: Color::Dark
            }
        );
        assert!(SeekState::from_columns(Some("r".into()), None).is_err());
        assert!(SeekState::from_columns(Some("r".into()), Some("blue".into())).is_err());
    }
}

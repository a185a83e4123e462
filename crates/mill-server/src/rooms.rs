//! Rooms in memory: seats and their keys, connections and presence, and the path of a
//! command from a socket through the table to the writer and back out to every socket.
//!
//! Each room is an `Arc<Mutex<Room>>` in a map behind another `Mutex`. Both are std
//! mutexes: they are held for a few microseconds and never across an `.await`, so a
//! blocking lock is cheaper and simpler than an async one (as in mini-redis).
//!
//! A command is checked and applied to the room's *staged* table under the lock, then
//! queued for the writer; the writer thread, after the commit, installs the new
//! snapshot as the *committed* one and sends the ack and the state. Snapshots thus go
//! out in commit order and nobody ever sees a state that is not on disk yet.
//!
//! Rooms are loaded from the database when a request or a socket first asks for one,
//! by replaying its stored events, and evicted again once nothing holds them (no
//! socket, no write in flight) for [`Config::evict_after`](crate::Config), so memory
//! and start-up time follow the rooms in play. A room whose events do not replay is
//! *damaged*: it is logged with its id, set aside (answered `room-damaged`), and every
//! other room is served as usual.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::Utf8Bytes;
use mill_core::{ByColor, Color, Rules};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::db::{self, DbError, Op, StoredRoom, Writer};
use crate::error::ApiError;
use crate::keys;
use crate::pg::{Inserted, NewEvent, Pg};
use crate::protocol::{
    self, ClientMsg, CloseCode, Code, Command, ErrorCode, GameView, PROTOCOL, SeatView, ServerMsg,
};
use crate::store::Store;
use crate::table::{NoRecord, Refusal, RoundRecord, Table};

/// Sockets watching one room without a seat, at most: each costs memory and a copy
/// of every state, so one address cannot open them without end.
pub const MAX_SPECTATORS: usize = 16;

/// Client ids each room keeps in memory for answering retries, besides those applied at
/// the current (round, version), which are always kept (see [`Room::remember`]).
pub const RECENT_IDS: usize = 64;

/// Identifies one socket.
pub type ConnId = u64;

/// What a socket's task is asked to send.
#[derive(Debug, Clone)]
pub enum Outgoing {
    /// A text frame made once for many sockets (the state).
    Text(Utf8Bytes),
    /// A message for this socket alone; its task writes it and counts it by kind.
    Msg(ServerMsg),
    /// A close frame, after which the task ends.
    Close(CloseCode, &'static str),
}

impl Outgoing {
    fn msg(msg: &ServerMsg) -> Outgoing {
        Outgoing::Msg(msg.clone())
    }
}

#[derive(Debug)]
struct Conn {
    id: ConnId,
    tx: mpsc::Sender<Outgoing>,
    /// Cancelled when the room drops the socket for falling behind.
    kick: CancellationToken,
}

/// One room.
#[derive(Debug)]
pub struct Room {
    id: String,
    /// Key hashes, including a join whose commit is still in flight.
    keys: ByColor<Option<[u8; 32]>>,
    /// Seats whose key is on disk (what the snapshot shows).
    taken: ByColor<bool>,
    /// The table with every accepted command, committed or not.
    table: Table,
    /// The snapshot of the last committed command.
    committed: Arc<GameView>,
    /// The socket holding each seat.
    holders: ByColor<Option<ConnId>>,
    conns: Vec<Conn>,
    /// Client ids already applied: the (round, version) after them and their order.
    /// Bounded, see [`Room::remember`].
    done: HashMap<(Color, String), Done>,
    /// Commands applied so far (numbers `done` entries).
    applied: u64,
    active_at: i64,
    /// Writes queued for this room and not yet committed: it is not evicted meanwhile.
    pending: u32,
    /// Since when nothing holds the room (no socket, nothing pending).
    idle_since: std::time::Instant,
    /// Taken out of the registry; whoever finds this looks the room up again.
    evicted: bool,
    /// Where the next stored event goes: (round, seq).
    next: (u32, u32),
    /// PostgreSQL: seats held by a socket on another instance.
    remote: ByColor<bool>,
    /// PostgreSQL: the socket this instance has published as holding each seat.
    published: ByColor<Option<ConnId>>,
    /// PostgreSQL: each seat's committed claim (see `Pg::presence`) and the socket it
    /// was made for. Another live instance with a newer claim on the seat has a newer
    /// socket on it, which replaces this instance's holder ([`Room::others_hold`]).
    claims: ByColor<Option<(ConnId, i64)>>,
    /// PostgreSQL: one command or catch-up at a time per room on this instance (the
    /// database orders them between instances).
    gate: Arc<tokio::sync::Mutex<()>>,
    /// PostgreSQL: news announced and not yet read; a reader task is on its way.
    dirty: bool,
    reading: bool,
}

/// A command as it reaches a room.
#[derive(Debug)]
struct Cmd<'a> {
    seat: Color,
    cid: &'a str,
    round: u32,
    version: u32,
    cmd: &'a Command,
}

enum Verdict {
    /// Go on to the rules.
    Go,
    /// Already applied: ack again with the (round, version) after it.
    Duplicate(u32, u32),
    /// Refused before the rules (with a fresh state for `stale`).
    Refused {
        code: ErrorCode,
        message: String,
        state: bool,
    },
}

fn ack(cid: &str, round: u32, version: u32, duplicate: bool) -> Outgoing {
    Outgoing::msg(&ServerMsg::Ack {
        id: cid.to_string(),
        round,
        version,
        duplicate,
    })
}

/// PostgreSQL: a presence change (or, with `online: None`, only activity) to publish.
#[derive(Debug)]
pub struct PresenceJob {
    room: String,
    seat: &'static str,
    online: Option<bool>,
    /// The socket that claims the seat (when `online` is `Some(true)`).
    conn: Option<ConnId>,
    at: i64,
}

#[derive(Debug, Clone, Copy)]
struct Done {
    round: u32,
    version: u32,
    n: u64,
}

impl Room {
    fn new(id: String, light_key: [u8; 32], at: i64, rules: &'static Rules) -> Room {
        let table = Table::with_rules(rules);
        let committed = Arc::new(table.view(&id));
        Room {
            id,
            keys: ByColor {
                light: Some(light_key),
                dark: None,
            },
            taken: ByColor {
                light: true,
                dark: false,
            },
            table,
            committed,
            holders: ByColor::default(),
            conns: Vec::new(),
            done: HashMap::new(),
            applied: 0,
            active_at: at,
            pending: 0,
            idle_since: std::time::Instant::now(),
            evicted: false,
            next: (1, 0),
            remote: ByColor::default(),
            published: ByColor::default(),
            claims: ByColor::default(),
            gate: Arc::new(tokio::sync::Mutex::new(())),
            dirty: false,
            reading: false,
        }
    }

    /// Applies one stored event (replay at load, or news from another instance).
    fn apply_stored(&mut self, i: usize, e: db::StoredEvent) -> Result<(), String> {
        let seat = match e.seat.as_str() {
            "light" => Color::Light,
            "dark" => Color::Dark,
            other => return Err(format!("event {i}: seat {other:?}")),
        };
        let cmd = Command::from_event(&e.kind, e.action)
            .ok_or_else(|| format!("event {i}: kind {:?} with that action", e.kind))?;
        if e.round != self.table.round() {
            return Err(format!(
                "event {i}: round {} while the table is at round {}",
                e.round,
                self.table.round()
            ));
        }
        let placed = self
            .table
            .apply(seat, &cmd)
            .map_err(|r| format!("event {i}: {} ({})", r.message, r.code))?;
        self.placed(placed);
        self.remember(seat, e.client_id);
        self.active_at = self.active_at.max(e.at);
        Ok(())
    }

    fn placed(&mut self, placed: crate::table::Placed) {
        self.next = match placed.new_round {
            Some(round) => (round, 0),
            None => (placed.round, placed.seq + 1),
        };
    }

    /// What to do with a command before the rules see it.
    fn verdict(&self, c: &Cmd<'_>) -> Verdict {
        if let Some(d) = self.done.get(&(c.seat, c.cid.to_string())) {
            return Verdict::Duplicate(d.round, d.version);
        }
        if (c.round, c.version) != (self.table.round(), self.table.version()) {
            return Verdict::Refused {
                code: ErrorCode::Stale,
                message: format!(
                    "This was made on round {}, version {}; the game is at round {}, version {}.",
                    c.round,
                    c.version,
                    self.table.round(),
                    self.table.version()
                ),
                state: true,
            };
        }
        let opponent = !c.seat;
        if self.keys.get(opponent).is_none() {
            return Verdict::Refused {
                code: ErrorCode::OpponentAway,
                message: "Nobody has joined yet: send the invite link to your opponent.".into(),
                state: false,
            };
        }
        if c.cmd.needs_opponent_online() && !self.online(opponent) {
            return Verdict::Refused {
                code: ErrorCode::OpponentAway,
                message: "Your opponent is not connected; play resumes when they are back.".into(),
                state: false,
            };
        }
        Verdict::Go
    }

    /// Gives `seat` to the socket `conn` (or to nobody); the socket that held it is
    /// told it was replaced and closed with 4000.
    fn replace_holder(&mut self, seat: Color, conn: Option<ConnId>) {
        let old = std::mem::replace(self.holders.get_mut(seat), conn);
        if let Some(old) = old.filter(|&old| Some(old) != conn) {
            if let Some(pos) = self.conns.iter().position(|c| c.id == old) {
                let old = self.conns.swap_remove(pos);
                let _ = old.tx.try_send(Outgoing::msg(&ServerMsg::Replaced {
                    message: "This seat was opened in another tab or device.".into(),
                }));
                let _ = old.tx.try_send(Outgoing::Close(CloseCode::Replaced, "replaced"));
            }
        }
    }

    /// PostgreSQL: the seats other live instances hold and their newest claims. A seat
    /// claimed elsewhere after this instance's holder claimed it was opened again there:
    /// the holder here is replaced, as a second tab on one instance replaces the first.
    /// A holder whose claim has not committed yet is left alone; its commit brings
    /// another look. Returns whether anything the sockets see changed.
    fn others_hold(&mut self, remote: [bool; 2], claims: [Option<i64>; 2]) -> bool {
        let mut changed = false;
        for (i, c) in Color::ALL.into_iter().enumerate() {
            let holder = *self.holders.get(c);
            if let (Some(holder), Some((claimed_by, mine)), Some(theirs)) =
                (holder, *self.claims.get(c), claims[i])
            {
                if holder == claimed_by && theirs > mine {
                    self.replace_holder(c, None);
                    changed = true;
                }
            }
            if *self.remote.get(c) != remote[i] {
                *self.remote.get_mut(c) = remote[i];
                changed = true;
            }
        }
        changed
    }

    fn online(&self, c: Color) -> bool {
        self.holders.get(c).is_some() || *self.remote.get(c)
    }

    /// Rebuilds a room by replaying its stored events through the table.
    fn replay(s: StoredRoom) -> Result<Room, String> {
        let light = s.light_key.ok_or("no light seat")?;
        let rules = Rules::parse(&s.variant).map_err(|e| format!("plays {:?}: {e}", s.variant))?;
        let mut room = Room::new(s.id, light, s.active_at, rules);
        room.keys.dark = s.dark_key;
        room.taken.dark = s.dark_key.is_some();
        for (i, e) in s.events.into_iter().enumerate() {
            room.apply_stored(i, e)?;
        }
        room.committed = Arc::new(room.table.view(&room.id));
        Ok(room)
    }

    /// Notes that the command `cid` of `seat` was applied and left the table where it
    /// is now. Memory stays bounded: past [`RECENT_IDS`] entries the oldest go, except
    /// those whose (round, version) after is the current one. That keeps every id a
    /// retry could still be applied under: a retry names the (round, version) it was
    /// made on, a command that changed neither was made on the current one, an action
    /// made on it left the round one version further (which a takeback can bring back
    /// to the current one), and any other retry names another (round, version) and is
    /// refused as `stale` (nothing applied).
    fn remember(&mut self, seat: Color, cid: String) {
        self.applied += 1;
        let (round, version) = (self.table.round(), self.table.version());
        self.done.insert(
            (seat, cid),
            Done {
                round,
                version,
                n: self.applied,
            },
        );
        if self.done.len() > 2 * RECENT_IDS {
            let keep_from = self.applied.saturating_sub(RECENT_IDS as u64);
            // A takeback can bring the version back: also keep the ids that left the
            // round one step past the current version.
            self.done
                .retain(|_, d| d.n > keep_from || (d.round == round && d.version.wrapping_sub(version) <= 1));
        }
    }

    fn held(&self) -> bool {
        !self.conns.is_empty() || self.pending > 0
    }

    /// One more write in flight.
    fn begin_write(&mut self) {
        self.pending += 1;
    }

    /// A write committed (or failed).
    fn end_write(&mut self) {
        self.pending = self.pending.saturating_sub(1);
        if !self.held() {
            self.idle_since = std::time::Instant::now();
        }
    }

    fn seats(&self) -> ByColor<SeatView> {
        ByColor::new_with(|c| SeatView {
            taken: *self.taken.get(c),
            online: self.online(c),
        })
    }

    /// Sockets watching without a seat.
    fn spectators(&self) -> usize {
        let holders = Color::ALL
            .iter()
            .filter(|&&c| self.holders.get(c).is_some())
            .count();
        self.conns.len().saturating_sub(holders)
    }

    fn state(&self) -> Outgoing {
        Outgoing::Text(protocol::state_text(&self.committed, self.seats(), self.spectators()).into())
    }

    /// Answers a command refused before the rules ([`Verdict::Refused`]): the error,
    /// and the state after it when the refusal says the client is behind.
    fn refuse(&self, tx: &mpsc::Sender<Outgoing>, cid: &str, code: ErrorCode, message: &str, state: bool) {
        let _ = tx.try_send(self.error(Some(cid), code.into(), message));
        if state {
            let _ = tx.try_send(self.state());
        }
    }

    fn error(&self, id: Option<&str>, code: Code, message: &str) -> Outgoing {
        Outgoing::msg(&ServerMsg::Error {
            id: id.map(str::to_string),
            code,
            message: message.to_string(),
            round: Some(self.committed.round),
            version: Some(self.committed.version),
        })
    }

    /// Sends the state to every socket. A socket whose queue is full is too slow to
    /// keep up: it is dropped (its task ends and the client reconnects to a fresh
    /// state), and the others hear about its seat going offline.
    fn broadcast_state(&mut self) {
        loop {
            let state = self.state();
            let before = self.conns.len();
            self.conns.retain(|c| {
                let sent = c.tx.try_send(state.clone()).is_ok();
                if !sent {
                    c.kick.cancel();
                }
                sent
            });
            if self.conns.len() == before {
                return;
            }
            let conns = &self.conns;
            for c in Color::ALL {
                let holder = self.holders.get_mut(c);
                if holder.is_some_and(|h| !conns.iter().any(|conn| conn.id == h)) {
                    *holder = None;
                }
            }
        }
    }
}

/// Public facts about a room (`GET /api/rooms/{room}`).
#[derive(Debug, Clone, Serialize)]
pub struct RoomInfo {
    room: String,
    protocol: u32,
    /// The rule set the room plays (`nine`, `six+per-mill`).
    variant: String,
    round: u32,
    version: u32,
    over: bool,
    seats: ByColor<SeatView>,
    spectators: usize,
}

/// A hello that could not take a seat.
#[derive(Debug, Clone)]
pub struct AttachError {
    /// Refusal sent to the client.
    pub refusal: Refusal,
    /// Close code that follows it.
    pub close: CloseCode,
}

/// Every room, as a cheap handle.
#[derive(Debug, Clone)]
pub struct Rooms {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    map: Mutex<HashMap<String, Arc<Mutex<Room>>>>,
    /// Rooms whose stored events do not replay, set aside until a restart.
    damaged: Mutex<HashSet<String>>,
    /// Held (shared) by each load from its read to its insertion into `map`, and
    /// (exclusive) by the purge while it deletes, so that no room is read just before
    /// its deletion and then served from memory after it.
    loading: tokio::sync::RwLock<()>,
    store: Store,
    /// PostgreSQL: presence changes, written in order by one task.
    presence: Option<mpsc::UnboundedSender<PresenceJob>>,
    clock: Arc<dyn Clock>,
    next_conn: AtomicU64,
}

/// Why a room could not be had.
#[derive(Debug)]
pub enum Missing {
    /// No such room.
    Unknown,
    /// Its stored events do not replay.
    Damaged,
    /// The database failed.
    Db(DbError),
}

impl From<Missing> for ApiError {
    fn from(m: Missing) -> Self {
        match m {
            Missing::Unknown => ApiError::UnknownRoom,
            Missing::Damaged => ApiError::RoomDamaged,
            Missing::Db(e) => ApiError::from(e),
        }
    }
}

impl Missing {
    fn refusal(&self) -> AttachError {
        match self {
            Missing::Unknown => AttachError {
                refusal: Refusal::new(
                    ErrorCode::UnknownRoom,
                    "There is no room with this id (it may have been closed after a week without play).",
                ),
                close: CloseCode::UnknownRoom,
            },
            Missing::Damaged => AttachError {
                refusal: Refusal::new(ErrorCode::RoomDamaged, ApiError::RoomDamaged.to_string()),
                close: CloseCode::RoomDamaged,
            },
            Missing::Db(e) => {
                tracing::error!(error = %e, "loading a room failed");
                AttachError {
                    refusal: Refusal::new(ErrorCode::Internal, ApiError::Internal(String::new()).to_string()),
                    close: CloseCode::GoingAway,
                }
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a room lock leaves plain data behind; carry on with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn seat_name(c: Color) -> &'static str {
    match c {
        Color::Light => "light",
        Color::Dark => "dark",
    }
}

impl Rooms {
    /// An empty registry over `store`; pass the receiver to [`Rooms::start_background`].
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> (Rooms, Option<mpsc::UnboundedReceiver<PresenceJob>>) {
        let (presence, jobs) = match store {
            Store::Postgres(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            Store::Sqlite { .. } => (None, None),
        };
        let rooms = Rooms {
            shared: Arc::new(Shared {
                map: Mutex::new(HashMap::new()),
                damaged: Mutex::new(HashSet::new()),
                loading: tokio::sync::RwLock::new(()),
                store,
                presence,
                clock,
                next_conn: AtomicU64::new(1),
            }),
        };
        (rooms, jobs)
    }

    /// Rooms held in memory now (for `/metrics`).
    pub fn in_memory(&self) -> usize {
        lock(&self.shared.map).len()
    }

    /// A room already in memory.
    fn get(&self, id: &str) -> Option<Arc<Mutex<Room>>> {
        lock(&self.shared.map).get(id).cloned()
    }

    /// A room, loaded from the database if it is not in memory. The caller must check
    /// `evicted` under the room's lock and look again if it is set.
    async fn load(&self, id: &str) -> Result<Arc<Mutex<Room>>, Missing> {
        if let Some(room) = self.get(id) {
            return Ok(room);
        }
        if !keys::is_room_id(id) {
            return Err(Missing::Unknown);
        }
        if lock(&self.shared.damaged).contains(id) {
            return Err(Missing::Damaged);
        }
        let _loading = self.shared.loading.read().await;
        if let Some(room) = self.get(id) {
            return Ok(room);
        }
        let stored = match self.shared.store.load_room(id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return Err(Missing::Unknown),
            Err(DbError::Corrupt(why)) => return Err(self.set_aside(id, &why)),
            Err(e) => return Err(Missing::Db(e)),
        };
        let started = std::time::Instant::now();
        let room = match Room::replay(stored) {
            Ok(room) => room,
            Err(why) => return Err(self.set_aside(id, &why)),
        };
        tracing::debug!(room = %id, micros = started.elapsed().as_micros() as u64, "room loaded");
        // Another request may have loaded it meanwhile: keep the first.
        let arc = lock(&self.shared.map)
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(Mutex::new(room)))
            .clone();
        // PostgreSQL: who is online on other instances was announced before this room
        // was in memory here; read it (and anything newer) now.
        self.announce_one(id);
        Ok(arc)
    }

    fn set_aside(&self, id: &str, why: &str) -> Missing {
        if lock(&self.shared.damaged).insert(id.to_string()) {
            tracing::error!(room = %id, reason = %why, "stored room does not replay; set aside");
        }
        Missing::Damaged
    }

    /// Locks a room, loading it if needed, and runs `f` on it.
    async fn with_room<T>(
        &self,
        id: &str,
        mut f: impl FnMut(&mut Room, &Arc<Mutex<Room>>) -> T,
    ) -> Result<T, Missing> {
        loop {
            let arc = self.load(id).await?;
            let mut room = lock(&arc);
            if room.evicted {
                continue;
            }
            return Ok(f(&mut room, &arc));
        }
    }

    /// Takes out of memory the rooms nothing has held for `after`; returns how many.
    pub fn evict_idle(&self, after: std::time::Duration) -> usize {
        let mut map = lock(&self.shared.map);
        let before = map.len();
        map.retain(|_, arc| {
            let mut room = lock(arc);
            if room.held() || room.idle_since.elapsed() < after {
                return true;
            }
            room.evicted = true;
            false
        });
        before - map.len()
    }

    fn now(&self) -> i64 {
        self.shared.clock.now_ms()
    }

    /// Creates a room playing `rules`; returns its id and the Light seat's key once both
    /// are on disk.
    pub async fn create(&self, rules: &'static Rules) -> Result<(String, String), ApiError> {
        let id = keys::new_room_id();
        let key = keys::new_seat_key();
        let key_hash = keys::hash_key(&key);
        let at = self.now();
        match &self.shared.store {
            Store::Sqlite { writer, .. } => {
                writer
                    .exec(Op::CreateRoom {
                        id: id.clone(),
                        key_hash,
                        at,
                        rules: rules.to_string(),
                    })
                    .await?
            }
            Store::Postgres(pg) => pg.create_room(&id, &key_hash, at, &rules.to_string()).await?,
        }
        let room = Room::new(id.clone(), key_hash, at, rules);
        lock(&self.shared.map).insert(id.clone(), Arc::new(Mutex::new(room)));
        Ok((id, key))
    }

    /// Gives the Dark seat to the caller; returns its key once it is on disk.
    pub async fn join(&self, id: &str) -> Result<String, ApiError> {
        let key = keys::new_seat_key();
        let key_hash = keys::hash_key(&key);
        let writer = match &self.shared.store {
            Store::Sqlite { writer, .. } => writer,
            Store::Postgres(pg) => return self.join_pg(pg, id, key, key_hash).await,
        };
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        self.with_room(id, |room, room_arc| {
            if room.keys.dark.is_some() {
                return Err(ApiError::RoomFull);
            }
            room.keys.dark = Some(key_hash);
            let at = self.now();
            room.active_at = at;
            room.begin_write();
            let room_for_done = room_arc.clone();
            let tx = tx.take().expect("the closure runs once it gets this far");
            writer.submit(
                Op::Join {
                    room: id.to_string(),
                    key_hash,
                    at,
                },
                Box::new(move |result| {
                    let mut room = lock(&room_for_done);
                    room.end_write();
                    if result.is_ok() {
                        room.taken.dark = true;
                        room.broadcast_state();
                    } else {
                        room.keys.dark = None;
                    }
                    let _ = tx.send(result);
                }),
            );
            Ok(())
        })
        .await??;
        match rx.await {
            Ok(Ok(())) => Ok(key),
            Ok(Err(e)) => Err(ApiError::Internal(e)),
            Err(_) => Err(ApiError::Internal("the database writer stopped".into())),
        }
    }

    /// PostgreSQL: the seat's primary key decides between instances joining at once.
    async fn join_pg(&self, pg: &Pg, id: &str, key: String, key_hash: [u8; 32]) -> Result<String, ApiError> {
        let arc = self
            .with_room(id, |room, arc| {
                if room.keys.dark.is_some() {
                    return Err(ApiError::RoomFull);
                }
                room.begin_write();
                Ok(arc.clone())
            })
            .await??;
        let at = self.now();
        let joined = pg.join(id, &key_hash, at).await;
        let mut room = lock(&arc);
        room.end_write();
        match joined {
            Ok(true) => {
                if room.keys.dark.is_none() {
                    room.keys.dark = Some(key_hash);
                    room.taken.dark = true;
                    room.active_at = at;
                    room.broadcast_state();
                }
                Ok(key)
            }
            Ok(false) => {
                drop(room);
                self.announce_one(id);
                Err(ApiError::RoomFull)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Public facts about a room.
    pub async fn info(&self, id: &str) -> Result<RoomInfo, Missing> {
        self.with_room(id, |room, _| RoomInfo {
            room: room.id.clone(),
            protocol: PROTOCOL,
            variant: room.table.rules().to_string(),
            round: room.committed.round,
            version: room.committed.version,
            over: room.committed.result.is_some(),
            seats: room.seats(),
            spectators: room.spectators(),
        })
        .await
    }

    /// The record of a room's finished round `n` (no seat facts, no secrets). Only
    /// committed rounds are given: a round whose last event is still being written
    /// is not over yet for anyone.
    pub async fn round_record(&self, id: &str, n: u32) -> Result<RoundRecord, ApiError> {
        self.with_room(id, |room, _| {
            let committed = &room.committed;
            if n > committed.round {
                return Err(ApiError::UnknownRound);
            }
            if n == committed.round && committed.result.is_none() {
                return Err(ApiError::RoundNotOver);
            }
            room.table.round_record(&room.id, n).map_err(|e| match e {
                NoRecord::Unknown => ApiError::UnknownRound,
                NoRecord::NotOver => ApiError::RoundNotOver,
            })
        })
        .await?
    }

    /// Registers a socket that said hello: with a key, it takes that seat (replacing
    /// any socket that held it); without, it watches. Sends `welcome` and `state`.
    pub async fn attach(
        &self,
        id: &str,
        key: Option<&str>,
        tx: &mpsc::Sender<Outgoing>,
        kick: &CancellationToken,
    ) -> Result<(ConnId, Option<Color>), AttachError> {
        let (first, arc, dark_unknown) = self
            .with_room(id, |room, arc| {
                (self.attach_to(room, key, tx, kick), arc.clone(), !room.taken.dark)
            })
            .await
            .map_err(|m| m.refusal())?;
        let Store::Postgres(pg) = &self.shared.store else {
            return first;
        };
        match first {
            // PostgreSQL: the key may be of a Dark seat just joined through another
            // instance, whose news has not reached this one yet: read it, and look again.
            Err(e) if e.close == CloseCode::BadKey && dark_unknown => {
                let gate = lock(&arc).gate.clone();
                {
                    let _turn = gate.lock().await;
                    self.read_news(pg, &arc).await;
                }
                self.with_room(id, |room, _| self.attach_to(room, key, tx, kick))
                    .await
                    .map_err(|m| m.refusal())?
            }
            other => other,
        }
    }

    fn attach_to(
        &self,
        room: &mut Room,
        key: Option<&str>,
        tx: &mpsc::Sender<Outgoing>,
        kick: &CancellationToken,
    ) -> Result<(ConnId, Option<Color>), AttachError> {
        let seat = match key {
            None => None,
            Some(key) => {
                let hash = keys::hash_key(key);
                let seat = Color::ALL
                    .into_iter()
                    .find(|&c| *room.keys.get(c) == Some(hash) && *room.taken.get(c));
                match seat {
                    Some(seat) => Some(seat),
                    None => {
                        return Err(AttachError {
                            refusal: Refusal::new(
                                ErrorCode::BadKey,
                                "This seat key does not belong to this room.",
                            ),
                            close: CloseCode::BadKey,
                        });
                    }
                }
            }
        };
        if seat.is_none() && room.spectators() >= MAX_SPECTATORS {
            return Err(AttachError {
                refusal: Refusal::new(
                    ErrorCode::RoomFull,
                    format!("This room already has {MAX_SPECTATORS} spectators."),
                ),
                close: CloseCode::RoomFull,
            });
        }
        let conn = self.shared.next_conn.fetch_add(1, Ordering::Relaxed);
        if let Some(seat) = seat {
            // On PostgreSQL, its claim (publish_presence below) replaces the seat's
            // socket on the other instances too.
            room.replace_holder(seat, Some(conn));
        }
        let _ = tx.try_send(Outgoing::msg(&ServerMsg::Welcome {
            protocol: PROTOCOL,
            room: room.id.clone(),
            seat,
        }));
        room.conns.push(Conn {
            id: conn,
            tx: tx.clone(),
            kick: kick.clone(),
        });
        room.broadcast_state();
        self.touch(room);
        self.publish_presence(room);
        Ok((conn, seat))
    }

    /// Forgets a socket that has closed.
    pub fn detach(&self, id: &str, conn: ConnId) {
        let Some(room_arc) = self.get(id) else {
            return;
        };
        let mut room = lock(&room_arc);
        let before = room.conns.len();
        room.conns.retain(|c| c.id != conn);
        // A seat going offline or a spectator leaving: everyone sees the new presence.
        let mut changed = room.conns.len() != before;
        for c in Color::ALL {
            if *room.holders.get(c) == Some(conn) {
                *room.holders.get_mut(c) = None;
                changed = true;
            }
        }
        if changed {
            room.broadcast_state();
        }
        self.touch(&mut room);
        self.publish_presence(&mut room);
        if !room.held() {
            room.idle_since = std::time::Instant::now();
        }
    }

    fn touch(&self, room: &mut Room) {
        let at = self.now();
        room.active_at = at;
        match &self.shared.store {
            Store::Sqlite { writer, .. } => writer.submit(
                Op::Touch {
                    room: room.id.clone(),
                    at,
                },
                Box::new(|_| {}),
            ),
            Store::Postgres(_) => {
                if let Some(tx) = &self.shared.presence {
                    let _ = tx.send(PresenceJob {
                        room: room.id.clone(),
                        seat: "light",
                        online: None,
                        conn: None,
                        at,
                    });
                }
            }
        }
    }

    /// Sends the current state to one socket.
    pub fn sync(&self, id: &str, tx: &mpsc::Sender<Outgoing>) {
        if let Some(room_arc) = self.get(id) {
            let _ = tx.try_send(lock(&room_arc).state());
        }
    }

    /// The current (round, version) of a room, for error replies.
    pub fn version(&self, id: &str) -> Option<(u32, u32)> {
        let room_arc = self.get(id)?;
        let room = lock(&room_arc);
        Some((room.committed.round, room.committed.version))
    }

    /// Handles a command from a socket holding `seat` (`None`: spectator). Every
    /// answer goes to `tx`; a success is answered only after its commit. With SQLite
    /// this returns at once (the writer thread answers); with PostgreSQL it returns
    /// once the command is decided.
    pub async fn command(&self, id: &str, seat: Option<Color>, tx: &mpsc::Sender<Outgoing>, msg: &ClientMsg) {
        let Some((cid, round, version)) = msg.command_header() else {
            return;
        };
        let ClientMsg::Command { command: cmd, .. } = msg else {
            return;
        };
        let Some(room_arc) = self.get(id) else {
            let _ = tx.try_send(Outgoing::msg(&ServerMsg::Error {
                id: Some(cid.to_string()),
                code: ErrorCode::UnknownRoom.into(),
                message: "This room no longer exists.".into(),
                round: None,
                version: None,
            }));
            return;
        };
        let Some(seat) = seat else {
            let _ = tx.try_send(lock(&room_arc).error(
                Some(cid),
                ErrorCode::Spectator.into(),
                "Spectators cannot play.",
            ));
            return;
        };
        let c = Cmd {
            seat,
            cid,
            round,
            version,
            cmd,
        };
        match &self.shared.store {
            Store::Sqlite { writer, .. } => self.command_sqlite(writer, &room_arc, &c, tx),
            Store::Postgres(pg) => self.command_pg(pg, &room_arc, &c, tx).await,
        }
    }

    /// SQLite: applied to the staged table now, answered by the writer after the commit.
    fn command_sqlite(
        &self,
        writer: &Writer,
        room_arc: &Arc<Mutex<Room>>,
        c: &Cmd<'_>,
        tx: &mpsc::Sender<Outgoing>,
    ) {
        let received = std::time::Instant::now();
        let mut room = lock(room_arc);
        let (seat, cid, cmd) = (c.seat, c.cid, c.cmd);
        match room.verdict(c) {
            Verdict::Go => {}
            Verdict::Duplicate(round, version) => {
                // Answer once the original has committed: a barrier completes after
                // every job queued before it.
                let tx = tx.clone();
                let ack = ack(cid, round, version, true);
                writer.submit(
                    Op::Barrier,
                    Box::new(move |_| {
                        let _ = tx.try_send(ack);
                    }),
                );
                return;
            }
            Verdict::Refused { code, message, state } => {
                room.refuse(tx, cid, code, &message, state);
                return;
            }
        }
        let placed = match room.table.apply(seat, cmd) {
            Ok(placed) => placed,
            Err(r) => {
                let _ = tx.try_send(room.error(Some(cid), r.code, &r.message));
                return;
            }
        };
        room.placed(placed);
        let at = self.now();
        room.active_at = at;
        let after = (room.table.round(), room.table.version());
        room.remember(seat, cid.to_string());
        room.begin_write();
        let view = Arc::new(room.table.view(&room.id));
        let ack = ack(cid, after.0, after.1, false);
        let tx = tx.clone();
        let room_for_done = room_arc.clone();
        writer.submit(
            Op::Event {
                room: room.id.clone(),
                round: placed.round,
                seq: placed.seq,
                seat: seat_name(seat),
                kind: cmd.kind().as_str(),
                action: cmd.action_text().map(str::to_string),
                client_id: cid.to_string(),
                at,
                new_round: placed.new_round,
            },
            Box::new(move |result| {
                if let Err(e) = result {
                    // The room in memory is now ahead of the file. Rather than serve a
                    // state that was never stored, stop: a restart rebuilds every room
                    // from what is on disk.
                    tracing::error!(error = %e, "an accepted command could not be stored; stopping");
                    std::process::exit(70);
                }
                let mut room = lock(&room_for_done);
                room.end_write();
                room.committed = view;
                let _ = tx.try_send(ack);
                room.broadcast_state();
                let took = received.elapsed();
                if took > std::time::Duration::from_millis(50) {
                    tracing::debug!(ms = took.as_millis() as u64, "slow command");
                }
            }),
        );
    }

    /// PostgreSQL: one command at a time per room on this instance (the room's gate);
    /// the database decides between instances. The table changes only after the
    /// commit, so it always equals what is stored.
    async fn command_pg(
        &self,
        pg: &Pg,
        room_arc: &Arc<Mutex<Room>>,
        c: &Cmd<'_>,
        tx: &mpsc::Sender<Outgoing>,
    ) {
        let gate = lock(room_arc).gate.clone();
        let _turn = gate.lock().await;
        let (seat, cid, cmd) = (c.seat, c.cid, c.cmd);
        // A command made on a state this instance has not read yet: read it first.
        let behind = {
            let room = lock(room_arc);
            (c.round, c.version) != (room.table.round(), room.table.version())
                && !room.done.contains_key(&(seat, cid.to_string()))
        };
        if behind {
            self.read_news(pg, room_arc).await;
        }
        let (event, table, placed, at) = {
            let mut room = lock(room_arc);
            match room.verdict(c) {
                Verdict::Go => {}
                Verdict::Duplicate(round, version) => {
                    let _ = tx.try_send(ack(cid, round, version, true));
                    return;
                }
                Verdict::Refused { code, message, state } => {
                    room.refuse(tx, cid, code, &message, state);
                    return;
                }
            }
            let mut table = room.table.clone();
            let placed = match table.apply(seat, cmd) {
                Ok(placed) => placed,
                Err(r) => {
                    let _ = tx.try_send(room.error(Some(cid), r.code, &r.message));
                    return;
                }
            };
            let at = self.now();
            room.begin_write();
            (
                (room.id.clone(), cmd.action_text().map(str::to_string)),
                table,
                placed,
                at,
            )
        };
        let stored = pg
            .insert_event(&NewEvent {
                room: &event.0,
                round: placed.round,
                seq: placed.seq,
                seat: seat_name(seat),
                kind: cmd.kind().into(),
                action: event.1.as_deref(),
                client_id: cid,
                at,
            })
            .await;
        lock(room_arc).end_write();
        match stored {
            Ok(Inserted::Applied) => {
                let mut room = lock(room_arc);
                room.table = table;
                room.placed(placed);
                room.active_at = at;
                room.remember(seat, cid.to_string());
                room.committed = Arc::new(room.table.view(&room.id));
                let _ = tx.try_send(ack(cid, room.table.round(), room.table.version(), false));
                room.broadcast_state();
            }
            Ok(outcome) => {
                // Another instance was first (Conflict), or this is a retry that reached
                // another instance first (Duplicate): read what the database holds.
                self.read_news(pg, room_arc).await;
                let room = lock(room_arc);
                match room.done.get(&(seat, cid.to_string())) {
                    Some(d) if outcome == Inserted::Duplicate => {
                        let _ = tx.try_send(ack(cid, d.round, d.version, true));
                    }
                    _ => {
                        let _ = tx.try_send(room.error(
                            Some(cid),
                            ErrorCode::Stale.into(),
                            "Another command reached the game first; here is the game as it is now.",
                        ));
                        let _ = tx.try_send(room.state());
                    }
                }
            }
            Err(e) => {
                tracing::error!(error = %e, room = %event.0, "storing a command failed");
                let room = lock(room_arc);
                let _ = tx.try_send(room.error(
                    Some(cid),
                    ErrorCode::Internal.into(),
                    "The server could not store this; try again.",
                ));
            }
        }
    }

    /// PostgreSQL: reads the room's events after the ones in memory, its Dark seat and
    /// presence on other instances, and sends the state if anything changed. The
    /// caller holds the room's gate.
    async fn read_news(&self, pg: &Pg, room_arc: &Arc<Mutex<Room>>) {
        let (id, next) = {
            let mut room = lock(room_arc);
            room.dirty = false;
            (room.id.clone(), room.next)
        };
        match pg.news(&id, next.0, next.1).await {
            Ok(news) => self.apply_news(room_arc, next, news),
            Err(e) => tracing::warn!(error = %e, room = %id, "reading a room's news failed"),
        }
    }

    /// Applies news read from place `next` on, unless the room moved on meanwhile.
    fn apply_news(&self, room_arc: &Arc<Mutex<Room>>, next: (u32, u32), news: crate::pg::News) {
        let mut room = lock(room_arc);
        if room.next != next {
            return; // someone else read them meanwhile
        }
        let id = room.id.clone();
        let mut changed = false;
        for (i, e) in news.events.into_iter().enumerate() {
            if let Err(why) = room.apply_stored(i, e) {
                tracing::error!(room = %id, reason = %why, "a stored event from another instance does not apply");
                break;
            }
            changed = true;
        }
        if changed {
            room.committed = Arc::new(room.table.view(&room.id));
        }
        if room.keys.dark.is_none() || !room.taken.dark {
            if let Some(key) = news.dark_key {
                room.keys.dark = Some(key);
                room.taken.dark = true;
                changed = true;
            }
        }
        if room.others_hold(news.remote, news.claims) {
            changed = true;
            self.publish_presence(&mut room);
        }
        if changed {
            room.broadcast_state();
        }
    }

    /// PostgreSQL: other instances changed the rooms `ids` (`None`: news may have been
    /// missed for every room). Reads the news of each such room in memory, one reader
    /// per room however many notifications come: the rooms free at this moment in one
    /// batch ([`Pg::news_many`]), a room whose gate is taken (a command of its own in
    /// flight) by a reader of its own once the gate is free.
    async fn announce(&self, ids: Option<Vec<String>>) {
        let Store::Postgres(pg) = &self.shared.store else {
            return;
        };
        let arcs: Vec<Arc<Mutex<Room>>> = match ids {
            Some(ids) => ids.iter().filter_map(|id| self.get(id)).collect(),
            None => lock(&self.shared.map).values().cloned().collect(),
        };
        let mut batch = Vec::new();
        for arc in arcs {
            let gate = {
                let mut room = lock(&arc);
                room.dirty = true;
                if room.reading {
                    continue;
                }
                room.reading = true;
                room.gate.clone()
            };
            match gate.try_lock_owned() {
                Ok(turn) => batch.push((arc, turn)),
                Err(_) => self.read_alone(pg, arc),
            }
        }
        if batch.is_empty() {
            return;
        }
        let wanted: Vec<(String, u32, u32)> = batch
            .iter()
            .map(|(arc, _)| {
                let mut room = lock(arc);
                room.dirty = false;
                (room.id.clone(), room.next.0, room.next.1)
            })
            .collect();
        match pg.news_many(&wanted).await {
            Ok(all) => {
                for ((arc, _), (w, (_, news))) in batch.iter().zip(wanted.iter().zip(all)) {
                    self.apply_news(arc, (w.1, w.2), news);
                }
            }
            Err(e) => tracing::warn!(error = %e, rooms = wanted.len(), "reading rooms' news failed"),
        }
        for (arc, turn) in batch {
            drop(turn);
            let again = {
                let mut room = lock(&arc);
                if !room.dirty {
                    room.reading = false;
                }
                room.dirty
            };
            if again {
                self.read_alone(pg, arc);
            }
        }
    }

    /// PostgreSQL: reads room `id`'s news in the background (if it is in memory).
    fn announce_one(&self, id: &str) {
        let Store::Postgres(pg) = &self.shared.store else {
            return;
        };
        let Some(arc) = self.get(id) else {
            return;
        };
        {
            let mut room = lock(&arc);
            room.dirty = true;
            if room.reading {
                return;
            }
            room.reading = true;
        }
        self.read_alone(pg, arc);
    }

    /// Reads one room's news once its gate is free, again while more was announced
    /// meanwhile. The caller has set the room's `reading`.
    fn read_alone(&self, pg: &Arc<Pg>, arc: Arc<Mutex<Room>>) {
        let (rooms, pg) = (self.clone(), pg.clone());
        tokio::spawn(async move {
            loop {
                let gate = lock(&arc).gate.clone();
                {
                    let _turn = gate.lock().await;
                    rooms.read_news(&pg, &arc).await;
                }
                let mut room = lock(&arc);
                if !room.dirty {
                    room.reading = false;
                    break;
                }
            }
        });
    }

    /// PostgreSQL: publishes this instance's holders of a room's seats if they changed.
    fn publish_presence(&self, room: &mut Room) {
        let Some(tx) = &self.shared.presence else {
            return;
        };
        for c in Color::ALL {
            let holder = *room.holders.get(c);
            if holder != *room.published.get(c) {
                *room.published.get_mut(c) = holder;
                // A new socket claims the seat again, even if the last one held it too.
                let _ = tx.send(PresenceJob {
                    room: room.id.clone(),
                    seat: seat_name(c),
                    online: Some(holder.is_some()),
                    conn: holder,
                    at: self.now(),
                });
            }
        }
    }

    /// PostgreSQL: this instance was taken for dead (a long stall) and its presence
    /// rows went with it: publish every seat held here again, as new claims.
    fn publish_all_again(&self) {
        let arcs: Vec<Arc<Mutex<Room>>> = lock(&self.shared.map).values().cloned().collect();
        tracing::warn!(
            rooms = arcs.len(),
            "taken for dead by the others; publishing presence again"
        );
        for arc in arcs {
            let mut room = lock(&arc);
            room.published = ByColor::default();
            room.claims = ByColor::default();
            self.publish_presence(&mut room);
        }
    }

    /// PostgreSQL: a socket's claim on a seat committed. Compare it with the other
    /// instances' claims now: one of them may have claimed the seat meanwhile.
    fn claimed(&self, job: &PresenceJob, claim: i64) {
        let (Some(arc), Some(conn)) = (self.get(&job.room), job.conn) else {
            return;
        };
        {
            let mut room = lock(&arc);
            let seat = if job.seat == "light" {
                Color::Light
            } else {
                Color::Dark
            };
            if *room.holders.get(seat) != Some(conn) {
                return; // replaced meanwhile; that socket's claim follows
            }
            *room.claims.get_mut(seat) = Some((conn, claim));
        }
        self.announce_one(&job.room);
    }

    /// The background work PostgreSQL needs: the LISTEN connection and its reader,
    /// the presence writer and the heartbeat. Nothing for SQLite. Abort them at shutdown.
    pub fn start_background(
        &self,
        presence: Option<mpsc::UnboundedReceiver<PresenceJob>>,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        let Store::Postgres(pg) = &self.shared.store else {
            return Vec::new();
        };
        let mut tasks = Vec::new();
        let (news_tx, mut news_rx) = mpsc::unbounded_channel();
        tasks.push(tokio::spawn((**pg).clone().listen(news_tx)));
        let rooms = self.clone();
        tasks.push(tokio::spawn(async move {
            // Every room announced while the last batches were being read makes the
            // next batch (a `None` stands for every room); a few batches are read at
            // once, so one slow read does not hold the news of every other room.
            let readers = Arc::new(tokio::sync::Semaphore::new(3));
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
                let rooms = rooms.clone();
                tokio::spawn(async move {
                    rooms.announce(ids).await;
                    drop(reader);
                });
            }
        }));
        if let Some(mut jobs) = presence {
            let (pg, rooms) = (pg.clone(), self.clone());
            tasks.push(tokio::spawn(async move {
                while let Some(job) = jobs.recv().await {
                    let result = match job.online {
                        Some(online) => pg.presence(&job.room, job.seat, online, job.at).await,
                        None => pg.touch(&job.room, job.at).await.map(|()| None),
                    };
                    match result {
                        Ok(Some(claim)) => rooms.claimed(&job, claim),
                        Ok(None) => {}
                        Err(e) => tracing::warn!(error = %e, "publishing presence failed"),
                    }
                }
            }));
        }
        let (pg, rooms) = (pg.clone(), self.clone());
        tasks.push(tokio::spawn(async move {
            let mut every = tokio::time::interval(crate::pg::HEARTBEAT);
            loop {
                every.tick().await;
                match pg.heartbeat().await {
                    Ok(true) => rooms.publish_all_again(),
                    Ok(false) => {}
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
                }
            }
        }));
        tasks
    }

    /// PostgreSQL: withdraws this instance (and its presence) on a clean shutdown.
    pub async fn leave(&self) {
        if let Store::Postgres(pg) = &self.shared.store {
            if let Err(e) = pg.leave().await {
                tracing::warn!(error = %e, "leaving failed");
            }
        }
    }

    /// Deletes rooms with no socket and no activity since `cutoff` (Unix ms), found in
    /// the database (most of them are not in memory), a thousand per write.
    pub async fn purge(&self, cutoff: i64) -> Result<Vec<String>, DbError> {
        const CHUNK: usize = 1000;
        let (writer, reader) = match &self.shared.store {
            Store::Sqlite { writer, reader } => (writer, reader),
            Store::Postgres(pg) => {
                // The database picks idle rooms with no socket on any instance.
                let mut purged = Vec::new();
                loop {
                    let _purging = self.shared.loading.write().await;
                    let held: Vec<String> = lock(&self.shared.map)
                        .iter()
                        .filter(|(_, arc)| {
                            let room = lock(arc);
                            room.held() || room.active_at >= cutoff
                        })
                        .map(|(id, _)| id.clone())
                        .collect();
                    let gone = pg.purge(cutoff, CHUNK as i64, &held).await?;
                    let n = gone.len();
                    {
                        let mut map = lock(&self.shared.map);
                        for id in &gone {
                            if let Some(arc) = map.remove(id) {
                                lock(&arc).evicted = true;
                            }
                        }
                    }
                    purged.extend(gone);
                    if n < CHUNK {
                        break;
                    }
                }
                if !purged.is_empty() {
                    tracing::info!(rooms = purged.len(), "purged idle rooms");
                }
                return Ok(purged);
            }
        };
        let mut purged = Vec::new();
        loop {
            let found = reader
                .with(move |conn| db::idle_rooms(conn, cutoff, CHUNK))
                .await?;
            let full = found.len() == CHUNK;
            let _purging = self.shared.loading.write().await;
            // Rooms in memory with a socket stay; the others leave memory first, so
            // nobody is served a room that is being deleted.
            let gone: Vec<String> = {
                let mut map = lock(&self.shared.map);
                found
                    .into_iter()
                    .filter(|id| match map.get(id).cloned() {
                        None => true,
                        Some(arc) => {
                            let mut room = lock(&arc);
                            if room.held() || room.active_at >= cutoff {
                                false
                            } else {
                                room.evicted = true;
                                map.remove(id);
                                true
                            }
                        }
                    })
                    .collect()
            };
            if gone.is_empty() {
                break;
            }
            let n = gone.len();
            writer
                .exec(Op::Purge {
                    rooms: gone.clone(),
                    cutoff,
                })
                .await?;
            purged.extend(gone);
            if !full || n < CHUNK / 2 {
                break;
            }
        }
        if !purged.is_empty() {
            tracing::info!(rooms = purged.len(), "purged idle rooms");
        }
        Ok(purged)
    }

    /// Waits until every job queued so far has committed.
    pub async fn flush(&self) -> Result<(), DbError> {
        match &self.shared.store {
            Store::Sqlite { writer, .. } => writer.exec(Op::Barrier).await,
            // every PostgreSQL write was awaited by the one that made it
            Store::Postgres(_) => Ok(()),
        }
    }
}

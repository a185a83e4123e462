//! Rooms in memory: the registry that loads, holds and evicts them, seats and their
//! keys, sockets and presence. One room is `room.rs`; the path of a command from a
//! socket through the table to the store and back out to every socket is
//! `command.rs`; other instances sharing the database are `others.rs`. Nothing here
//! knows which database is behind [`Store`].
//!
//! Each room is an `Arc<Mutex<Room>>` in a map behind another `Mutex`. Both are std
//! mutexes: they are held for a few microseconds and never across an `.await`, so a
//! blocking lock is cheaper and simpler than an async one (as in mini-redis). What
//! must wait for the database (a command, a join, a hello) takes the room's async
//! *gate* instead, one at a time.
//!
//! Rooms are loaded from the database when a request or a socket first asks for one,
//! by replaying its stored events, and evicted again once nothing holds them (no
//! socket, no write in flight) for [`Config::evict_after`](crate::Config), so memory
//! and start-up time follow the rooms in play. A room whose events do not replay is
//! *damaged*: it is logged with its id, set aside (answered `room-damaged`), and every
//! other room is served as usual.

mod command;
mod others;
pub mod pairing;
mod players;
mod room;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use mill_core::{ByColor, Color, Rules};
use serde::Serialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::room::Conn;
pub use self::room::{ConnId, MAX_SPECTATORS, Outgoing, RECENT_IDS, Room, WATCHERS_NEWS};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::keys;
use crate::protocol::{CloseCode, ErrorCode, PROTOCOL, SeatView, ServerMsg};
use crate::store::{DbError, Outage, Store};
use crate::table::{NoRecord, Refusal, RoundRecord};
use crate::timecontrol::{ClockView, TimeControl};

/// How often the server looks for fallen flags in the rooms it holds (and for a seat's
/// presence not stored yet).
pub const FLAG_CHECK: std::time::Duration = std::time::Duration::from_millis(100);
/// With several instances, how often each looks in the database for timed rounds in
/// play that it does not hold (their instance may have stopped), so that some instance
/// checks every clock.
pub const TIMED_SWEEP: std::time::Duration = std::time::Duration::from_secs(30);

/// How often the server notes in the database that it runs (`Store::alive`).
pub const ALIVE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// A database this instance could not note its life in for this long (real time, and
/// by the clock since any instance last did) was out: that span is an outage, nobody's
/// time on the clocks. Until its note is written again nothing is stored.
pub const OUTAGE_GAP: std::time::Duration = std::time::Duration::from_secs(5);

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
    /// The clocks as of now (`null`: an untimed room, or round 1 before Dark joined).
    clock: Option<ClockView>,
}

/// A room whose current round is being played, as a player's list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InPlay {
    /// The rule set.
    pub variant: String,
    /// The time control (`None`: untimed).
    pub clock: Option<crate::timecontrol::TimeControl>,
    /// The current round.
    pub round: u32,
    /// Both seats are taken (else the opponent has not joined yet).
    pub both: bool,
}

/// What a hello asks for.
#[derive(Debug, Clone, Copy)]
pub enum Ask<'a> {
    /// To watch.
    Watch,
    /// The seat this key holds.
    Key(&'a str),
    /// A seat bound to the socket's signed-in account: these (one, or both when the
    /// account holds both seats of the room). Empty: the account holds none here.
    Account(&'a [Color]),
}

impl<'a> Ask<'a> {
    /// The seat of `key`, or to watch without one.
    pub fn from_key(key: Option<&'a str>) -> Ask<'a> {
        key.map_or(Ask::Watch, Ask::Key)
    }
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
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    next_conn: AtomicU64,
    /// The server is shutting down: the sockets it closes are not players leaving, and
    /// no `away` is stored for them (the next start finds who is back).
    closing: std::sync::atomic::AtomicBool,
    /// Sockets watching one room without a seat, at most ([`MAX_SPECTATORS`] unless set).
    max_spectators: std::sync::atomic::AtomicUsize,
    /// The outages known (`Store::alive`), oldest first: the clocks skip them.
    outages: Mutex<Vec<Outage>>,
    /// When this instance last noted in the database that it runs (real time).
    alive_ok: Mutex<Option<std::time::Instant>>,
    /// The accounts' side of the database, whose names and ratings the states show
    /// (`players.rs`); unset (tests on the in-memory store): no seat has a player.
    accounts: std::sync::OnceLock<crate::store::accounts::Accounts>,
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

impl Rooms {
    /// An empty registry over `store`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Rooms {
        Rooms {
            shared: Arc::new(Shared {
                map: Mutex::new(HashMap::new()),
                damaged: Mutex::new(HashSet::new()),
                loading: tokio::sync::RwLock::new(()),
                store,
                clock,
                next_conn: AtomicU64::new(1),
                closing: std::sync::atomic::AtomicBool::new(false),
                max_spectators: std::sync::atomic::AtomicUsize::new(MAX_SPECTATORS),
                outages: Mutex::new(Vec::new()),
                alive_ok: Mutex::new(None),
                accounts: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Sets how many sockets may watch one room without a seat (at least one).
    pub fn set_max_spectators(&self, n: usize) {
        self.shared.max_spectators.store(n.max(1), Ordering::Relaxed);
    }

    /// Starts the background work the store needs to share the database with other
    /// instances (nothing on SQLite). Abort the tasks at shutdown.
    pub fn start_background(&self) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks = self.shared.store.start(Arc::new(self.clone()));
        let rooms = self.clone();
        tasks.push(tokio::spawn(async move {
            // Timed rounds in play are in memory from the start (and, with several
            // instances, again every so often): their flags fall with nobody sending.
            let mut sweep = tokio::time::interval(TIMED_SWEEP);
            loop {
                sweep.tick().await;
                rooms.load_timed().await;
                if !rooms.shared.store.shared() {
                    break;
                }
            }
        }));
        let rooms = self.clone();
        tasks.push(tokio::spawn(async move {
            let mut every = tokio::time::interval(ALIVE_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                if let Err(e) = rooms.alive(false).await {
                    tracing::warn!(error = %e, "noting that the server runs failed");
                }
            }
        }));
        let rooms = self.clone();
        tasks.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(FLAG_CHECK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                rooms.check_flags().await;
            }
        }));
        tasks
    }

    /// The server's own check of the clocks: every room in memory whose flag has
    /// fallen by the (injectable) clock's now gets its `timeout` or `abort` stored,
    /// with nobody sending anything. A room with a running clock is never evicted.
    pub async fn check_flags(&self) {
        let now = self.now();
        let due: Vec<Arc<Mutex<Room>>> = lock(&self.shared.map)
            .values()
            .filter(|arc| lock(arc).deadline().is_some_and(|d| d.at <= now))
            .cloned()
            .collect();
        for arc in due {
            let gate = lock(&arc).gate.clone();
            let _turn = gate.lock().await;
            self.flag(&arc, None).await;
        }
        // Presence not stored yet (a socket dropped while its room was busy, say).
        let arcs: Vec<Arc<Mutex<Room>>> = lock(&self.shared.map)
            .values()
            .filter(|arc| {
                let room = lock(arc);
                !room.presence_queued && room.presence_drift().is_some()
            })
            .cloned()
            .collect();
        for arc in arcs {
            self.presence_check(&mut lock(&arc), &arc);
        }
    }

    /// Notes in the database that this server runs now (`Store::alive`). At the start
    /// (`starting`) the span since the last note of any server is an outage (on a shared
    /// database, only if no instance noted anything for two notes' time); later, a
    /// span this instance could not note for [`OUTAGE_GAP`] is. The clocks in memory
    /// skip every outage they did not know yet, and rooms loaded later skip them too.
    pub async fn alive(&self, starting: bool) -> Result<(), DbError> {
        let now = self.now();
        let gap_ms = |d: std::time::Duration| d.as_millis() as i64;
        let gap = if starting {
            Some(if self.shared.store.shared() {
                2 * gap_ms(ALIVE_EVERY)
            } else {
                0
            })
        } else if self.alive_stale() {
            Some(gap_ms(OUTAGE_GAP))
        } else {
            None
        };
        let outages = self.shared.store.alive(now, gap).await?;
        *lock(&self.shared.alive_ok) = Some(std::time::Instant::now());
        let new = {
            let mut known = lock(&self.shared.outages);
            let new = *known != outages;
            *known = outages.clone();
            new
        };
        if new {
            tracing::info!(outages = ?outages.last(), "the clocks skip an outage");
            let arcs: Vec<Arc<Mutex<Room>>> = lock(&self.shared.map).values().cloned().collect();
            for arc in arcs {
                let mut room = lock(&arc);
                if room.skip_outages(&outages, now) {
                    room.refresh(now);
                    room.broadcast_state();
                }
            }
        }
        Ok(())
    }

    /// Whether this instance has not noted that it runs for [`OUTAGE_GAP`].
    fn alive_stale(&self) -> bool {
        lock(&self.shared.alive_ok).is_none_or(|t| t.elapsed() > OUTAGE_GAP)
    }

    /// Whether the database may take the clocks' events now: after a silence of
    /// [`OUTAGE_GAP`] the server first notes that it runs again (and the clocks skip
    /// the outage), so no flag falls and no turn is charged for the time the database
    /// was out.
    pub(super) async fn database_back(&self) -> bool {
        if !self.alive_stale() {
            return true;
        }
        match self.alive(false).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "the database is still out");
                false
            }
        }
    }

    /// The outages known, oldest first.
    pub(super) fn outages(&self) -> Vec<Outage> {
        lock(&self.shared.outages).clone()
    }

    /// Loads every room whose timed round may be in play and is not in memory yet
    /// (`Store::timed_in_play`); returns how many were loaded.
    pub async fn load_timed(&self) -> usize {
        let ids = match self.shared.store.timed_in_play().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "finding timed rooms in play failed");
                return 0;
            }
        };
        let mut loaded = 0;
        for id in ids {
            if self.get(&id).is_some() {
                continue;
            }
            if self.load(&id).await.is_ok() {
                loaded += 1;
            }
        }
        if loaded > 0 {
            tracing::info!(rooms = loaded, "timed rooms in play loaded");
        }
        loaded
    }

    /// The server is about to close every socket: from now on no `away` is stored.
    pub fn closing(&self) {
        self.shared.closing.store(true, Ordering::SeqCst);
    }

    /// Withdraws this instance (and its presence) on a clean shutdown.
    pub async fn leave(&self) {
        if let Err(e) = self.shared.store.leave().await {
            tracing::warn!(error = %e, "leaving failed");
        }
    }

    /// Waits until every write queued so far has committed.
    pub async fn flush(&self) -> Result<(), DbError> {
        self.shared.store.flush().await
    }

    /// Deletes rooms with no socket and no activity since `cutoff` (Unix ms), found in
    /// the database (most of them are not in memory), a thousand per write.
    pub async fn purge(&self, cutoff: i64) -> Result<Vec<String>, DbError> {
        const CHUNK: usize = 1000;
        let store = &self.shared.store;
        let mut purged = Vec::new();
        loop {
            let found = store.idle_rooms(cutoff, CHUNK).await?;
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
                            if room.held() || room.clock_running() || room.active_at >= cutoff {
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
            purged.extend(store.purge(gone, cutoff).await?);
            if !full || n < CHUNK / 2 {
                break;
            }
        }
        if !purged.is_empty() {
            tracing::info!(rooms = purged.len(), "purged idle rooms");
        }
        Ok(purged)
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
        let mut room = match Room::replay(stored, &self.outages()) {
            Ok(room) => room,
            Err(why) => return Err(self.set_aside(id, &why)),
        };
        // The accounts behind its seats, once per load (not per state).
        self.load_players(&mut room).await;
        // One instance knows who is online now; with several, the others' presence
        // is read first (`announce_one` below).
        room.presence_known = !self.shared.store.shared();
        // Nobody has been seen here yet.
        room.lost = ByColor {
            light: true,
            dark: true,
        };
        tracing::debug!(room = %id, micros = started.elapsed().as_micros() as u64, "room loaded");
        // Another request may have loaded it meanwhile: keep the first.
        let arc = lock(&self.shared.map)
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(Mutex::new(room)))
            .clone();
        // Who is online on other instances was announced before this room was in
        // memory here; read it (and anything newer) now.
        self.announce_one(id);
        // A seat of a live timed round that is not here is away from now on.
        self.presence_check(&mut lock(&arc), &arc);
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
            if room.held() || room.clock_running() || room.idle_since.elapsed() < after {
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
    pub async fn create(
        &self,
        rules: &'static Rules,
        clock: Option<TimeControl>,
    ) -> Result<(String, String), ApiError> {
        let id = keys::new_room_id();
        let key = keys::new_seat_key();
        let key_hash = keys::hash_key(&key);
        let at = self.now();
        self.shared
            .store
            .create_room(&id, &key_hash, at, &rules.to_string(), clock)
            .await?;
        let mut room = Room::new(id.clone(), key_hash, at, rules, clock);
        // A new room: nobody is anywhere else yet.
        room.presence_known = true;
        lock(&self.shared.map).insert(id.clone(), Arc::new(Mutex::new(room)));
        Ok((id, key))
    }

    /// Gives the Dark seat to the caller; returns its key once it is stored. The
    /// seat's primary key decides between joins at once (on any instance).
    pub async fn join(&self, id: &str) -> Result<String, ApiError> {
        let key = keys::new_seat_key();
        let key_hash = keys::hash_key(&key);
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
        let joined = self.shared.store.join(id, &key_hash, at).await;
        let mut room = lock(&arc);
        room.end_write();
        match joined {
            Ok(true) => {
                if room.keys.dark.is_none() {
                    room.keys.dark = Some(key_hash);
                    room.taken.dark = true;
                    room.active_at = at;
                    room.start_clocks(at);
                    room.refresh(at);
                    room.broadcast_state();
                    self.presence_check(&mut room, &arc);
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
        let now = self.now();
        self.with_room(id, |room, _| RoomInfo {
            room: room.id.clone(),
            protocol: PROTOCOL,
            variant: room.table.rules().to_string(),
            round: room.committed.round,
            version: room.committed.version,
            over: room.committed.result.is_some(),
            seats: room.seats(),
            spectators: room.spectators(),
            clock: room.clocks.as_ref().map(|c| c.view(now)),
        })
        .await
    }

    /// What a signed-in player's list of games in progress shows of a room
    /// (`GET /api/me/games`): `None` once its current round is over.
    pub async fn in_play(&self, id: &str) -> Result<Option<InPlay>, Missing> {
        self.with_room(id, |room, _| {
            (room.committed.result.is_none()).then(|| InPlay {
                variant: room.table.rules().to_string(),
                clock: room.control,
                round: room.committed.round,
                both: room.taken.light && room.taken.dark,
            })
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
            let mut record = room.table.round_record(&room.id, n).map_err(|e| match e {
                NoRecord::Unknown => ApiError::UnknownRound,
                NoRecord::NotOver => ApiError::RoundNotOver,
            })?;
            record.clock = room.round_clock(n);
            Ok(record)
        })
        .await?
    }

    /// Registers a socket that said hello: with a key, it takes that seat (replacing
    /// any socket that held it, once the command that socket sent is answered); without,
    /// it watches. Sends `welcome` and `state`.
    pub async fn attach(
        &self,
        id: &str,
        key: Ask<'_>,
        tx: &mpsc::Sender<Outgoing>,
        kick: &CancellationToken,
        rtt: &Arc<AtomicI64>,
    ) -> Result<(ConnId, Option<Color>), AttachError> {
        loop {
            let arc = self.load(id).await.map_err(|m| m.refusal())?;
            // A seat's hello waits for the command in flight, so that a socket it
            // replaces gets that command's ack first; a spectator replaces nobody and
            // does not wait (on a stalled database that could be many seconds).
            let gate = lock(&arc).gate.clone();
            let _turn = match key {
                Ask::Key(_) | Ask::Account(_) => Some(gate.lock().await),
                Ask::Watch => None,
            };
            let (first, dark_unknown) = {
                let mut room = lock(&arc);
                if room.evicted {
                    continue;
                }
                let dark_unknown = !room.taken.dark;
                (self.attach_to(&mut room, key, tx, kick, rtt), dark_unknown)
            };
            let attached = match first {
                // The key may be of a Dark seat just joined through another instance,
                // whose news has not reached this one yet: read it, and look again.
                Err(e)
                    if matches!(e.close, CloseCode::BadKey | CloseCode::NotSeated)
                        && dark_unknown
                        && self.shared.store.shared() =>
                {
                    self.read_news(&arc).await;
                    self.attach_to(&mut lock(&arc), key, tx, kick, rtt)
                }
                other => other,
            };
            let mut room = lock(&arc);
            // On a shared database a seat may have been bound to its account on
            // another instance after this one read the room's players.
            if let Ok((_, Some(seat))) = attached {
                if self.shared.store.shared() && room.players.seats.get(seat).is_none() {
                    self.refresh_players_later(&arc);
                }
            }
            // A watcher more: the others hear of it within WATCHERS_NEWS.
            if matches!(attached, Ok((_, None))) {
                self.watchers_changed(&mut room, &arc);
            }
            // A seat back: its return is stored (after this hello's gate is free).
            self.presence_check(&mut room, &arc);
            return attached;
        }
    }

    fn attach_to(
        &self,
        room: &mut Room,
        key: Ask<'_>,
        tx: &mpsc::Sender<Outgoing>,
        kick: &CancellationToken,
        rtt: &Arc<AtomicI64>,
    ) -> Result<(ConnId, Option<Color>), AttachError> {
        let seat = match key {
            Ask::Watch => None,
            // The account's seat; of two (an account that took both seats of its own
            // room), one no socket holds, else Light.
            Ask::Account(seats) => {
                let mut taken = seats.iter().copied().filter(|&c| *room.taken.get(c));
                let first = taken.next();
                let free = seats
                    .iter()
                    .copied()
                    .find(|&c| *room.taken.get(c) && room.holders.get(c).is_none());
                match free.or(first) {
                    Some(seat) => Some(seat),
                    None => {
                        return Err(AttachError {
                            refusal: Refusal::new(
                                ErrorCode::NotSeated,
                                "The account you are signed in with holds no seat in this room.",
                            ),
                            close: CloseCode::NotSeated,
                        });
                    }
                }
            }
            Ask::Key(key) => {
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
        let max = self.shared.max_spectators.load(Ordering::Relaxed);
        if seat.is_none() && room.spectators() >= max {
            return Err(AttachError {
                refusal: Refusal::new(
                    ErrorCode::RoomFull,
                    format!("This room already has {max} spectators."),
                ),
                close: CloseCode::RoomFull,
            });
        }
        let conn = self.shared.next_conn.fetch_add(1, Ordering::Relaxed);
        if let Some(seat) = seat {
            // Its claim (publish_presence below) replaces the seat's socket on other
            // instances too.
            room.replace_holder(seat, Some(conn));
            *room.gone_at.get_mut(seat) = None;
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
            rtt: rtt.clone(),
        });
        if seat.is_some() {
            room.broadcast_state();
        } else {
            // A watcher gets the state alone; the others hear of it later, coalesced
            // (`watchers_changed`): a thousand arriving cost a thousand sends, not a
            // million.
            let _ = tx.try_send(room.state());
        }
        self.touch(room);
        self.publish_presence(room);
        Ok((conn, seat))
    }

    /// Forgets a socket that closed at `closed_at` (Unix ms, by the server's clock: when
    /// its close frame or its end was read); a seat it held is away from then.
    pub fn detach(&self, id: &str, conn: ConnId, closed_at: i64) {
        let Some(room_arc) = self.get(id) else {
            return;
        };
        let mut room = lock(&room_arc);
        let before = room.conns.len();
        room.conns.retain(|c| c.id != conn);
        // A seat going offline: everyone sees it at once. A watcher leaving (or one
        // dropped for falling behind): everyone hears of it within WATCHERS_NEWS.
        let mut seat_gone = false;
        for c in Color::ALL {
            if *room.holders.get(c) == Some(conn) {
                *room.holders.get_mut(c) = None;
                *room.lost.get_mut(c) = true;
                *room.gone_at.get_mut(c) = Some(closed_at);
                seat_gone = true;
            }
        }
        if seat_gone {
            room.broadcast_state();
        } else if room.conns.len() != before || room.watchers_stale {
            self.watchers_changed(&mut room, &room_arc);
        }
        self.touch(&mut room);
        self.publish_presence(&mut room);
        // A seat gone from a live timed round: its absence is stored.
        self.presence_check(&mut room, &room_arc);
        if !room.held() {
            room.idle_since = std::time::Instant::now();
        }
    }

    /// The number of watchers changed: unless a state goes to every socket sooner,
    /// one does after [`WATCHERS_NEWS`], with the new number. However many come and
    /// go meanwhile, that is one send per socket.
    fn watchers_changed(&self, room: &mut Room, arc: &Arc<Mutex<Room>>) {
        room.watchers_stale = true;
        if room.watchers_news_due {
            return;
        }
        room.watchers_news_due = true;
        let (rooms, weak) = (self.clone(), Arc::downgrade(arc));
        tokio::spawn(async move {
            tokio::time::sleep(WATCHERS_NEWS).await;
            let Some(arc) = weak.upgrade() else {
                return;
            };
            let mut room = lock(&arc);
            room.watchers_news_due = false;
            if !room.watchers_stale || room.evicted {
                return;
            }
            let holders = room.holders;
            room.broadcast_state();
            if room.holders != holders {
                // A seat's socket fell behind and was dropped.
                rooms.publish_presence(&mut room);
                rooms.presence_check(&mut room, &arc);
            }
            if room.watchers_stale {
                // Watchers were dropped by that send: tell the others in turn.
                rooms.watchers_changed(&mut room, &arc);
            }
        });
    }

    fn touch(&self, room: &mut Room) {
        let at = self.now();
        room.active_at = at;
        self.shared.store.touch(&room.id, at);
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
}

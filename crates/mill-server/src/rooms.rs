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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::Utf8Bytes;
use mill_core::{Color, Rules};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::db::{DbError, Op, StoredRoom, Writer};
use crate::error::ApiError;
use crate::keys;
use crate::protocol::{
    self, ClientMsg, CloseCode, Code, Command, ErrorCode, GameView, PROTOCOL, SeatView, ServerMsg, Sides,
};
use crate::table::{NoRecord, Refusal, RoundRecord, Table};

/// Sockets watching one room without a seat, at most: each costs memory and a copy
/// of every state, so one address cannot open them without end.
pub const MAX_SPECTATORS: usize = 16;

/// Identifies one socket.
pub type ConnId = u64;

/// What a socket's task is asked to send.
#[derive(Debug, Clone)]
pub enum Outgoing {
    /// A text frame.
    Text(Utf8Bytes),
    /// A close frame, after which the task ends.
    Close(CloseCode, &'static str),
}

impl Outgoing {
    fn msg(msg: &ServerMsg) -> Outgoing {
        Outgoing::Text(msg.to_text().into())
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
    keys: Sides<Option<[u8; 32]>>,
    /// Seats whose key is on disk (what the snapshot shows).
    taken: Sides<bool>,
    /// The table with every accepted command, committed or not.
    table: Table,
    /// The snapshot of the last committed command.
    committed: Arc<GameView>,
    /// The socket holding each seat.
    holders: Sides<Option<ConnId>>,
    conns: Vec<Conn>,
    /// Client ids already applied, with the (round, version) after them.
    done: HashMap<(Color, String), (u32, u32)>,
    active_at: i64,
}

impl Room {
    fn new(id: String, light_key: [u8; 32], at: i64, rules: &'static Rules) -> Room {
        let table = Table::with_rules(rules);
        let committed = Arc::new(table.view(&id));
        Room {
            id,
            keys: Sides {
                light: Some(light_key),
                dark: None,
            },
            taken: Sides {
                light: true,
                dark: false,
            },
            table,
            committed,
            holders: Sides::default(),
            conns: Vec::new(),
            done: HashMap::new(),
            active_at: at,
        }
    }

    fn seats(&self) -> Sides<SeatView> {
        Sides::from_fn(|c| SeatView {
            taken: *self.taken.get(c),
            online: self.holders.get(c).is_some(),
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
    seats: Sides<SeatView>,
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
    writer: Writer,
    clock: Arc<dyn Clock>,
    next_conn: AtomicU64,
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
    /// An empty registry writing through `writer`.
    pub fn new(writer: Writer, clock: Arc<dyn Clock>) -> Rooms {
        Rooms {
            shared: Arc::new(Shared {
                map: Mutex::new(HashMap::new()),
                writer,
                clock,
                next_conn: AtomicU64::new(1),
            }),
        }
    }

    /// Rebuilds rooms from the database by replaying their events through the table.
    pub fn restore(&self, stored: Vec<StoredRoom>) -> Result<usize, DbError> {
        let mut map = lock(&self.shared.map);
        let count = stored.len();
        for s in stored {
            let light = s
                .light_key
                .ok_or_else(|| DbError::Corrupt(format!("room {} has no light seat", s.id)))?;
            let rules = Rules::parse(&s.variant)
                .map_err(|e| DbError::Corrupt(format!("room {} plays {:?}: {e}", s.id, s.variant)))?;
            let mut room = Room::new(s.id.clone(), light, s.active_at, rules);
            room.keys.dark = s.dark_key;
            room.taken.dark = s.dark_key.is_some();
            for e in s.events {
                let seat = match e.seat.as_str() {
                    "light" => Color::Light,
                    "dark" => Color::Dark,
                    other => return Err(DbError::Corrupt(format!("seat {other}"))),
                };
                let cmd = Command::from_event(&e.kind, e.action)
                    .ok_or_else(|| DbError::Corrupt(format!("event {} in room {}", e.kind, s.id)))?;
                if e.round != room.table.round() {
                    return Err(DbError::Corrupt(format!("event order in room {}", s.id)));
                }
                room.table
                    .apply(seat, &cmd)
                    .map_err(|r| DbError::Corrupt(format!("replay of room {}: {}", s.id, r.message)))?;
                room.done
                    .insert((seat, e.client_id), (room.table.round(), room.table.version()));
            }
            room.committed = Arc::new(room.table.view(&room.id));
            map.insert(s.id, Arc::new(Mutex::new(room)));
        }
        Ok(count)
    }

    /// Rooms held in memory now (for `/metrics`).
    pub fn in_memory(&self) -> usize {
        lock(&self.shared.map).len()
    }

    fn get(&self, id: &str) -> Option<Arc<Mutex<Room>>> {
        lock(&self.shared.map).get(id).cloned()
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
        self.shared
            .writer
            .exec(Op::CreateRoom {
                id: id.clone(),
                key_hash,
                at,
                rules: rules.to_string(),
            })
            .await?;
        let room = Room::new(id.clone(), key_hash, at, rules);
        lock(&self.shared.map).insert(id.clone(), Arc::new(Mutex::new(room)));
        Ok((id, key))
    }

    /// Gives the Dark seat to the caller; returns its key once it is on disk.
    pub async fn join(&self, id: &str) -> Result<String, ApiError> {
        let room_arc = self.get(id).ok_or(ApiError::UnknownRoom)?;
        let key = keys::new_seat_key();
        let key_hash = keys::hash_key(&key);
        let (tx, rx) = oneshot::channel();
        {
            let mut room = lock(&room_arc);
            if room.keys.dark.is_some() {
                return Err(ApiError::RoomFull);
            }
            room.keys.dark = Some(key_hash);
            let at = self.now();
            room.active_at = at;
            let room_for_done = room_arc.clone();
            self.shared.writer.submit(
                Op::Join {
                    room: id.to_string(),
                    key_hash,
                    at,
                },
                Box::new(move |result| {
                    if result.is_ok() {
                        let mut room = lock(&room_for_done);
                        room.taken.dark = true;
                        room.broadcast_state();
                    } else {
                        lock(&room_for_done).keys.dark = None;
                    }
                    let _ = tx.send(result);
                }),
            );
        }
        match rx.await {
            Ok(Ok(())) => Ok(key),
            Ok(Err(e)) => Err(ApiError::Internal(e)),
            Err(_) => Err(ApiError::Internal("the database writer stopped".into())),
        }
    }

    /// Public facts about a room.
    pub fn info(&self, id: &str) -> Option<RoomInfo> {
        let room_arc = self.get(id)?;
        let room = lock(&room_arc);
        Some(RoomInfo {
            room: room.id.clone(),
            protocol: PROTOCOL,
            variant: room.table.rules().to_string(),
            round: room.committed.round,
            version: room.committed.version,
            over: room.committed.result.is_some(),
            seats: room.seats(),
            spectators: room.spectators(),
        })
    }

    /// The record of a room's finished round `n` (no seat facts, no secrets). Only
    /// committed rounds are given: a round whose last event is still being written
    /// is not over yet for anyone.
    pub fn round_record(&self, id: &str, n: u32) -> Result<RoundRecord, ApiError> {
        let room_arc = self.get(id).ok_or(ApiError::UnknownRoom)?;
        let room = lock(&room_arc);
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
    }

    /// Registers a socket that said hello: with a key, it takes that seat (replacing
    /// any socket that held it); without, it watches. Sends `welcome` and `state`.
    pub fn attach(
        &self,
        id: &str,
        key: Option<&str>,
        tx: &mpsc::Sender<Outgoing>,
        kick: &CancellationToken,
    ) -> Result<(ConnId, Option<Color>), AttachError> {
        let room_arc = self.get(id).ok_or_else(|| AttachError {
            refusal: Refusal::new(
                ErrorCode::UnknownRoom,
                "There is no room with this id (it may have been closed after a week without play).",
            ),
            close: CloseCode::UnknownRoom,
        })?;
        let mut room = lock(&room_arc);
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
            if let Some(old) = room.holders.get_mut(seat).replace(conn) {
                if let Some(pos) = room.conns.iter().position(|c| c.id == old) {
                    let old = room.conns.swap_remove(pos);
                    let _ = old.tx.try_send(Outgoing::msg(&ServerMsg::Replaced {
                        message: "This seat was opened in another tab or device.".into(),
                    }));
                    let _ = old.tx.try_send(Outgoing::Close(CloseCode::Replaced, "replaced"));
                }
            }
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
        self.touch(&mut room);
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
    }

    fn touch(&self, room: &mut Room) {
        let at = self.now();
        room.active_at = at;
        self.shared.writer.submit(
            Op::Touch {
                room: room.id.clone(),
                at,
            },
            Box::new(|_| {}),
        );
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
    /// answer goes to `tx`; a success is answered only after its commit.
    pub fn command(&self, id: &str, seat: Option<Color>, tx: &mpsc::Sender<Outgoing>, msg: &ClientMsg) {
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
        let received = std::time::Instant::now();
        let mut room = lock(&room_arc);
        let refuse = |room: &Room, code: Code, message: &str| {
            let _ = tx.try_send(room.error(Some(cid), code, message));
        };
        let Some(seat) = seat else {
            return refuse(&room, ErrorCode::Spectator.into(), "Spectators cannot play.");
        };
        if let Some(&(round, version)) = room.done.get(&(seat, cid.to_string())) {
            // Answer once the original has committed: a barrier completes after
            // every job queued before it.
            let tx = tx.clone();
            let ack = Outgoing::msg(&ServerMsg::Ack {
                id: cid.to_string(),
                round,
                version,
                duplicate: true,
            });
            self.shared.writer.submit(
                Op::Barrier,
                Box::new(move |_| {
                    let _ = tx.try_send(ack);
                }),
            );
            return;
        }
        if (round, version) != (room.table.round(), room.table.version()) {
            refuse(
                &room,
                ErrorCode::Stale.into(),
                &format!(
                    "This was made on round {round}, version {version}; the game is at round {}, version {}.",
                    room.table.round(),
                    room.table.version()
                ),
            );
            let _ = tx.try_send(room.state());
            return;
        }
        let opponent = !seat;
        if room.keys.get(opponent).is_none() {
            return refuse(
                &room,
                ErrorCode::OpponentAway.into(),
                "Nobody has joined yet: send the invite link to your opponent.",
            );
        }
        if cmd.needs_opponent_online() && room.holders.get(opponent).is_none() {
            return refuse(
                &room,
                ErrorCode::OpponentAway.into(),
                "Your opponent is not connected; play resumes when they are back.",
            );
        }
        let placed = match room.table.apply(seat, cmd) {
            Ok(placed) => placed,
            Err(r) => return refuse(&room, r.code, &r.message),
        };
        let at = self.now();
        room.active_at = at;
        let after = (room.table.round(), room.table.version());
        room.done.insert((seat, cid.to_string()), after);
        let view = Arc::new(room.table.view(&room.id));
        let ack = Outgoing::msg(&ServerMsg::Ack {
            id: cid.to_string(),
            round: after.0,
            version: after.1,
            duplicate: false,
        });
        let tx = tx.clone();
        let room_for_done = room_arc.clone();
        self.shared.writer.submit(
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

    /// Deletes rooms with no socket and no activity since `cutoff` (Unix ms).
    pub async fn purge(&self, cutoff: i64) -> Result<Vec<String>, DbError> {
        let gone: Vec<String> = {
            let mut map = lock(&self.shared.map);
            let gone: Vec<String> = map
                .iter()
                .filter(|(_, r)| {
                    let r = lock(r);
                    r.conns.is_empty() && r.active_at < cutoff
                })
                .map(|(id, _)| id.clone())
                .collect();
            for id in &gone {
                map.remove(id);
            }
            gone
        };
        if !gone.is_empty() {
            self.shared.writer.exec(Op::Purge { rooms: gone.clone() }).await?;
            tracing::info!(rooms = gone.len(), "purged idle rooms");
        }
        Ok(gone)
    }

    /// Waits until every job queued so far has committed.
    pub async fn flush(&self) -> Result<(), DbError> {
        self.shared.writer.exec(Op::Barrier).await
    }
}

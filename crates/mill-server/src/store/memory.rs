//! A store in memory, for tests: the room logic's unit tests run against it in
//! milliseconds, and the conformance suite holds it to the same promises as the two
//! backends (`tests/store_conformance.rs`). Nothing survives the process, so the server
//! never opens one.
//!
//! It decides what the databases' keys decide, the same way: one event per (room, round,
//! seq), one per (room, seat, client id), one Dark seat, each pairing once. Two hooks
//! let a test make what a real database does only under load or failure: a write that
//! fails ([`Memory::fail_writes`]) and writes held back until the test lets them go
//! ([`Memory::hold_writes`]), to see what the rooms do while a command is being written.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use mill_core::Color;

use super::Store;
use super::types::{
    Append, Appended, DbError, OpenSeek, Recheck, Seek, SeekState, SeekWaiters, StoredEvent, StoredRoom,
};
use crate::protocol::{ClockEventKind, Command};
use crate::timecontrol::TimeControl;

/// The in-memory store: a cheap handle, clones share the data.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    data: Mutex<Data>,
    waiters: Arc<SeekWaiters>,
    /// Writes still to fail (see [`Memory::fail_writes`]).
    failing: AtomicUsize,
    /// Every write takes it shared; [`Memory::hold_writes`] takes it whole.
    writes: Arc<tokio::sync::RwLock<()>>,
}

#[derive(Debug, Default)]
struct Data {
    rooms: HashMap<String, MemRoom>,
    /// In the order they were stored.
    seeks: Vec<SeekRow>,
    /// Arenas, their players and games (store/arena.rs).
    arena: super::arena::MemArenas,
}

#[derive(Debug, Clone)]
struct MemRoom {
    variant: String,
    clock: Option<TimeControl>,
    active_at: i64,
    light: [u8; 32],
    /// The Dark seat's key hash and when it was taken.
    dark: Option<([u8; 32], i64)>,
    events: Vec<StoredEvent>,
    /// Made by quick pairing (or a rematch): its rounds may be rematched.
    paired: bool,
}

#[derive(Debug, Clone)]
struct SeekRow {
    id: String,
    seeker: String,
    pool: String,
    variant: String,
    clock: Option<TimeControl>,
    key_hash: [u8; 32],
    created_at: i64,
    /// The seeker's address key (`Seek::address`).
    address: String,
    /// The signed-in seeker's account: an account never meets itself.
    account: Option<i64>,
    /// A rated seek's rating (`Seek::rating`; a new player's without one).
    rating: f64,
    /// Set when paired: the room and this seeker's seat in it.
    paired: Option<(String, Color)>,
}

/// Writes held back by [`Memory::hold_writes`]; dropping it lets them go, in order.
#[derive(Debug)]
pub struct HeldWrites(#[allow(dead_code)] tokio::sync::OwnedRwLockWriteGuard<()>);

impl Memory {
    /// An empty store.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// The next `n` writes fail (as a failed commit: nothing changes).
    pub fn fail_writes(&self, n: usize) {
        self.inner.failing.store(n, Ordering::SeqCst);
    }

    /// Holds every write back (each waits before it changes anything) until the
    /// returned guard is dropped.
    pub async fn hold_writes(&self) -> HeldWrites {
        HeldWrites(self.inner.writes.clone().write_owned().await)
    }

    fn data(&self) -> MutexGuard<'_, Data> {
        self.inner.data.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits while writes are held, then fails if a failure is due; else runs `f` on
    /// the data.
    async fn write<T>(&self, f: impl FnOnce(&mut Data) -> Result<T, DbError>) -> Result<T, DbError> {
        drop(self.inner.writes.read().await);
        let due = self
            .inner
            .failing
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if due {
            return Err(DbError::failed("memory", "a write failed (as the test asked)"));
        }
        f(&mut self.data())
    }
}

/// Where seek `id` stands.
fn seek_state(seeks: &[SeekRow], id: &str) -> SeekState {
    match seeks.iter().find(|s| s.id == id) {
        None => SeekState::Gone,
        Some(SeekRow { paired: None, .. }) => SeekState::Waiting,
        Some(SeekRow {
            paired: Some((room, seat)),
            ..
        }) => SeekState::Paired {
            room: room.clone(),
            seat: *seat,
        },
    }
}

/// The open seek a seek of `seeker` (made at `since`) pairs with at `now`: of another
/// seeker and another account in its pool; casual (`rating` `None`): the oldest; rated:
/// the closest rating within the window ([`crate::ratings::within_window`]), then the
/// oldest, as the databases' `types::rated_choice`.
fn choice(
    seeks: &[SeekRow],
    pool: &str,
    seeker: &str,
    account: Option<i64>,
    rating: Option<f64>,
    since: i64,
    now: i64,
) -> Option<String> {
    let open = seeks.iter().filter(|s| {
        s.pool == pool
            && s.paired.is_none()
            && s.seeker != seeker
            && (account.is_none() || s.account != account)
    });
    match rating {
        None => open
            .min_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)))
            .map(|s| s.id.clone()),
        Some(rating) => open
            .filter(|s| crate::ratings::within_window(s.rating, rating, now - since.min(s.created_at)))
            .min_by(|a, b| {
                let (da, db) = ((a.rating - rating).abs(), (b.rating - rating).abs());
                da.total_cmp(&db)
                    .then((a.created_at, &a.id).cmp(&(b.created_at, &b.id)))
            })
            .map(|s| s.id.clone()),
    }
}

fn refused(why: impl std::fmt::Display) -> DbError {
    DbError::failed("memory", why)
}

/// The kinds after which a round no longer runs a clock ([`super::types::TIMED_IN_PLAY_SQL`]).
fn ends_a_clock(e: &StoredEvent) -> bool {
    use super::types::Entry;
    matches!(
        e.command,
        Entry::Clock(ClockEventKind::Timeout | ClockEventKind::Abort)
            | Entry::Command(
                Command::Resign
                    | Command::AcceptDraw
                    | Command::ClaimWin
                    | Command::CallDraw
                    | Command::OfferRematch(_)
                    | Command::DeclineRematch
            )
    )
}

#[async_trait::async_trait]
impl Store for Memory {
    async fn create_room(
        &self,
        id: &str,
        key_hash: &[u8; 32],
        at: i64,
        rules: &str,
        clock: Option<TimeControl>,
    ) -> Result<(), DbError> {
        self.write(|d| {
            if d.rooms.contains_key(id) {
                return Err(refused(format!("room {id} exists")));
            }
            d.rooms.insert(
                id.to_string(),
                MemRoom {
                    variant: rules.to_string(),
                    clock,
                    active_at: at,
                    light: *key_hash,
                    dark: None,
                    events: Vec::new(),
                    paired: false,
                },
            );
            Ok(())
        })
        .await
    }

    async fn join(&self, room: &str, key_hash: &[u8; 32], at: i64) -> Result<bool, DbError> {
        self.write(|d| {
            let r = d
                .rooms
                .get_mut(room)
                .ok_or_else(|| refused(format!("no room {room}")))?;
            if r.dark.is_some() {
                return Ok(false);
            }
            r.dark = Some((*key_hash, at));
            r.active_at = r.active_at.max(at);
            Ok(true)
        })
        .await
    }

    async fn append(&self, a: Append) -> Result<Appended, DbError> {
        self.write(|d| {
            let r = d
                .rooms
                .get(&a.room)
                .ok_or_else(|| refused(format!("no room {}", a.room)))?;
            let e = a.event;
            let place = |x: &StoredEvent| (x.round, x.seq) == (e.round, e.seq);
            let id = |x: &StoredEvent| x.seat == e.seat && x.client_id == e.client_id;
            if let Some(first) = r.events.iter().find(|x| id(x)) {
                return Ok(Appended::Duplicate {
                    round: first.round,
                    seq: first.seq,
                });
            }
            if r.events.iter().any(place) {
                return Ok(Appended::PlaceTaken);
            }
            // A rematch's room is made with the event or not at all: its id taken fails
            // the write (as the rooms' primary key would).
            let rematch = match &a.rematch {
                Some(m) if d.rooms.contains_key(&m.room) => {
                    return Err(refused(format!("room {} exists", m.room)));
                }
                Some(m) => Some(MemRoom {
                    variant: m.variant.clone(),
                    clock: m.clock,
                    active_at: e.at,
                    light: m.light_key,
                    dark: Some((m.dark_key, e.at)),
                    events: Vec::new(),
                    paired: true,
                }),
                None => None,
            };
            let r = d.rooms.get_mut(&a.room).expect("looked up above");
            r.active_at = r.active_at.max(e.at);
            let (round, at) = (e.round, e.at);
            r.events.push(e);
            if let Some(outcome) = &a.ends {
                // An arena game's result, with the turns each side made (arena.rs).
                let turns = |seat: Color| {
                    r.events
                        .iter()
                        .filter(|x| x.round == round && x.seat == seat)
                        .filter(|x| matches!(&x.command, super::types::Entry::Command(Command::Action(t)) if !t.starts_with('x')))
                        .count() as u32
                };
                let turns = (turns(Color::Light), turns(Color::Dark));
                d.arena.end(&a.room, round, outcome, turns, at);
            }
            if let (Some(m), Some(room)) = (&a.rematch, rematch) {
                d.rooms.insert(m.room.clone(), room);
            }
            Ok(Appended::Stored)
        })
        .await
    }

    async fn find(&self, room: &str, seat: Color, client_id: &str) -> Result<Option<(u32, u32)>, DbError> {
        Ok(self.data().rooms.get(room).and_then(|r| {
            r.events
                .iter()
                .find(|e| e.seat == seat && e.client_id == client_id)
                .map(|e| (e.round, e.seq))
        }))
    }

    async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, DbError> {
        Ok(self.data().rooms.get(id).map(|r| StoredRoom {
            id: id.to_string(),
            active_at: r.active_at,
            variant: r.variant.clone(),
            clock: r.clock,
            light_key: Some(r.light),
            dark_key: r.dark.map(|d| d.0),
            dark_at: r.dark.map(|d| d.1),
            events: r.events.clone(),
            // The memory store keeps no accounts, so no rated rooms.
            rated: false,
            paired: r.paired,
        }))
    }

    fn touch(&self, room: &str, at: i64) {
        if let Some(r) = self.data().rooms.get_mut(room) {
            r.active_at = r.active_at.max(at);
        }
    }

    async fn idle_rooms(&self, cutoff: i64, limit: usize) -> Result<Vec<String>, DbError> {
        let mut ids: Vec<String> = self
            .data()
            .rooms
            .iter()
            .filter(|(_, r)| r.active_at < cutoff)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids.truncate(limit);
        Ok(ids)
    }

    async fn timed_in_play(&self) -> Result<Vec<String>, DbError> {
        let mut ids: Vec<String> = self
            .data()
            .rooms
            .iter()
            .filter(|(_, r)| {
                r.clock.is_some() && r.dark.is_some() && !r.events.last().is_some_and(ends_a_clock)
            })
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        Ok(ids)
    }

    async fn purge(&self, rooms: Vec<String>, cutoff: i64) -> Result<Vec<String>, DbError> {
        self.write(|d| {
            let mut gone = Vec::new();
            for id in rooms {
                if d.rooms.get(&id).is_some_and(|r| r.active_at < cutoff) {
                    d.rooms.remove(&id);
                    d.seeks
                        .retain(|s| s.paired.as_ref().is_none_or(|(room, _)| *room != id));
                    gone.push(id);
                }
            }
            Ok(gone)
        })
        .await
    }

    async fn seek(&self, seek: Seek) -> Result<SeekState, DbError> {
        let pool = seek.pool();
        let (state, changed) = self
            .write(|d| {
                let mut changed: Vec<String> = Vec::new();
                // Another seeker's id (or an answered one): refused, and nothing touched.
                if d.seeks
                    .iter()
                    .any(|s| s.id == seek.id && (s.seeker != seek.seeker || s.paired.is_some()))
                {
                    return Ok((SeekState::Taken, changed));
                }
                let rating = seek.rating.unwrap_or(crate::ratings::START_RATING);
                let other = choice(
                    &d.seeks,
                    &pool,
                    &seek.seeker,
                    seek.account,
                    seek.rated.then_some(rating),
                    seek.at,
                    seek.at,
                );
                // It would wait: its address may hold only so many open seeks.
                let held = d
                    .seeks
                    .iter()
                    .filter(|s| s.address == seek.address && s.paired.is_none() && s.seeker != seek.seeker)
                    .count();
                if other.is_none() && seek.address_cap > 0 && held >= seek.address_cap as usize {
                    return Ok((SeekState::Crowded, changed));
                }
                // The seeker's older seeks go, a paired one not yet answered too: its
                // request then hears `seek-withdrawn`, so one seeker never gets two rooms.
                d.seeks.retain(|s| {
                    let withdrawn = s.seeker == seek.seeker;
                    if withdrawn {
                        changed.push(s.id.clone());
                    }
                    !withdrawn
                });
                let Some(other) = other.and_then(|id| d.seeks.iter_mut().find(|s| s.id == id)) else {
                    if d.seeks.iter().any(|s| s.id == seek.id) {
                        return Err(refused(format!("seek {} exists", seek.id)));
                    }
                    d.seeks.push(SeekRow {
                        id: seek.id.clone(),
                        seeker: seek.seeker.clone(),
                        pool: pool.clone(),
                        variant: seek.variant.clone(),
                        clock: seek.clock,
                        key_hash: seek.key_hash,
                        created_at: seek.at,
                        address: seek.address.clone(),
                        account: seek.account,
                        rating,
                        paired: None,
                    });
                    return Ok((SeekState::Waiting, changed));
                };
                if d.rooms.contains_key(&seek.room) {
                    return Err(refused(format!("room {} exists", seek.room)));
                }
                other.paired = Some((seek.room.clone(), seek.waiting_color));
                let (light, dark) = match seek.waiting_color {
                    Color::Light => (other.key_hash, seek.key_hash),
                    Color::Dark => (seek.key_hash, other.key_hash),
                };
                changed.push(other.id.clone());
                d.rooms.insert(
                    seek.room.clone(),
                    MemRoom {
                        variant: seek.variant.clone(),
                        clock: seek.clock,
                        active_at: seek.at,
                        light,
                        dark: Some((dark, seek.at)),
                        events: Vec::new(),
                        paired: true,
                    },
                );
                let state = SeekState::Paired {
                    room: seek.room.clone(),
                    seat: !seek.waiting_color,
                };
                Ok((state, changed))
            })
            .await?;
        for id in &changed {
            self.inner.waiters.wake(id);
        }
        Ok(state)
    }

    async fn recheck(&self, r: Recheck) -> Result<SeekState, DbError> {
        let (state, changed) = self
            .write(|d| {
                let Some(mine) = d
                    .seeks
                    .iter()
                    .find(|s| s.id == r.id && s.paired.is_none())
                    .cloned()
                else {
                    return Ok((seek_state(&d.seeks, &r.id), Vec::new()));
                };
                if !super::types::is_rated_pool(&mine.pool) {
                    return Ok((SeekState::Waiting, Vec::new()));
                }
                let rating = r.rating.unwrap_or(mine.rating);
                let Some(other) = choice(
                    &d.seeks,
                    &mine.pool,
                    &mine.seeker,
                    mine.account,
                    Some(rating),
                    mine.created_at,
                    r.at,
                ) else {
                    return Ok((SeekState::Waiting, Vec::new()));
                };
                if d.rooms.contains_key(&r.room) {
                    return Err(refused(format!("room {} exists", r.room)));
                }
                let mut other_hash = [0; 32];
                for s in d.seeks.iter_mut() {
                    if s.id == other {
                        s.paired = Some((r.room.clone(), !r.color));
                        other_hash = s.key_hash;
                    } else if s.id == r.id {
                        s.paired = Some((r.room.clone(), r.color));
                    }
                }
                let (light, dark) = match r.color {
                    Color::Light => (mine.key_hash, other_hash),
                    Color::Dark => (other_hash, mine.key_hash),
                };
                d.rooms.insert(
                    r.room.clone(),
                    MemRoom {
                        variant: mine.variant.clone(),
                        clock: mine.clock,
                        active_at: r.at,
                        light,
                        dark: Some((dark, r.at)),
                        events: Vec::new(),
                        paired: true,
                    },
                );
                let state = SeekState::Paired {
                    room: r.room.clone(),
                    seat: r.color,
                };
                Ok((state, vec![other, r.id.clone()]))
            })
            .await?;
        for id in &changed {
            self.inner.waiters.wake(id);
        }
        Ok(state)
    }

    async fn withdraw(&self, id: &str, open_only: bool) -> Result<SeekState, DbError> {
        let state = self
            .write(|d| {
                let Some(at) = d
                    .seeks
                    .iter()
                    .position(|s| s.id == id && !(open_only && s.paired.is_some()))
                else {
                    return Ok(SeekState::Gone);
                };
                Ok(match d.seeks.remove(at).paired {
                    None => SeekState::Waiting,
                    Some((room, seat)) => SeekState::Paired { room, seat },
                })
            })
            .await?;
        if state != SeekState::Gone {
            self.inner.waiters.wake(id);
        }
        Ok(state)
    }

    async fn seek_state(&self, id: &str) -> Result<SeekState, DbError> {
        Ok(seek_state(&self.data().seeks, id))
    }

    async fn open_seeks(&self, limit: usize) -> Result<Vec<OpenSeek>, DbError> {
        let mut open: Vec<SeekRow> = self
            .data()
            .seeks
            .iter()
            .filter(|s| s.paired.is_none())
            .cloned()
            .collect();
        open.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        // Shared out by address (`types::LOBBY_ORDER`): every address's oldest seek
        // first, then every address's second, and so on; shown oldest first.
        let mut nth: HashMap<String, usize> = HashMap::new();
        let mut ranked: Vec<(usize, SeekRow)> = open
            .into_iter()
            .map(|s| {
                let n = nth.entry(s.address.clone()).or_default();
                *n += 1;
                (*n, s)
            })
            .collect();
        ranked.sort_by(|(na, a), (nb, b)| (na, a.created_at, &a.id).cmp(&(nb, b.created_at, &b.id)));
        ranked.truncate(limit);
        ranked.sort_by(|(_, a), (_, b)| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(ranked
            .into_iter()
            .map(|(_, s)| OpenSeek {
                rated: s.pool.starts_with("rated "),
                variant: s.variant,
                clock: s.clock,
                since: s.created_at,
                // The in-memory store keeps no accounts.
                account: None,
            })
            .collect())
    }

    async fn arena(&self, req: super::arena::ArenaRequest) -> Result<super::arena::ArenaAnswer, DbError> {
        let writes = super::arena::MemArenas::writes(&req);
        let run = move |d: &mut Data| {
            let mut rooms = Vec::new();
            let answer = d.arena.request(req, &mut rooms)?;
            for (id, variant, clock, light, dark, at) in rooms {
                d.rooms.insert(
                    id,
                    MemRoom {
                        variant,
                        clock: Some(clock),
                        active_at: at,
                        light,
                        dark: Some((dark, at)),
                        events: Vec::new(),
                        // An arena pairs its players again by itself: no rematch.
                        paired: false,
                    },
                );
            }
            Ok(answer)
        };
        if writes {
            self.write(run).await
        } else {
            run(&mut self.data())
        }
    }

    fn seek_waiters(&self) -> &Arc<SeekWaiters> {
        &self.inner.waiters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u32, seat: Color, cid: &str) -> Append {
        Append {
            room: "r".into(),
            event: StoredEvent {
                round: 1,
                seq,
                seat,
                command: Command::Action("d6".into()).into(),
                client_id: cid.into(),
                at: 5,
                stamp: None,
            },
            ends: None,
            rematch: None,
        }
    }

    #[tokio::test]
    async fn a_failed_write_changes_nothing_and_held_writes_wait() {
        let store = Memory::new();
        store.create_room("r", &[1; 32], 1, "nine", None).await.unwrap();
        store.fail_writes(1);
        assert!(matches!(
            store.append(event(0, Color::Light, "a")).await,
            Err(DbError::Failed { .. })
        ));
        assert!(store.load_room("r").await.unwrap().unwrap().events.is_empty());
        let held = store.hold_writes().await;
        let writer = store.clone();
        let write = tokio::spawn(async move { writer.append(event(0, Color::Light, "a")).await });
        tokio::task::yield_now().await;
        assert!(store.load_room("r").await.unwrap().unwrap().events.is_empty());
        drop(held);
        assert_eq!(write.await.unwrap().unwrap(), Appended::Stored);
        assert_eq!(store.find("r", Color::Light, "a").await.unwrap(), Some((1, 0)));
    }

    #[tokio::test]
    async fn an_event_for_no_room_is_refused() {
        let store = Memory::new();
        assert!(store.append(event(0, Color::Light, "a")).await.is_err());
        assert!(store.join("r", &[2; 32], 1).await.is_err());
    }
}

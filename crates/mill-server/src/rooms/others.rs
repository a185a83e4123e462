//! The rooms' side of other instances sharing the database: reading the news the store
//! announces (their events, a Dark seat they gave, who they hold), publishing which
//! sockets hold seats here, and giving way to a newer socket on a seat elsewhere. The
//! store does the talking ([`Instances`] is how it reports); on one instance (SQLite)
//! nothing here is ever called, and a room's `others` stays empty.

use std::sync::Arc;

use mill_core::{ByColor, Color};

use super::room::Room;
use super::{Rooms, lock};
use crate::store::{Instances, News, Presence};

impl Room {
    /// The seats other live instances hold and their newest claims. A seat claimed
    /// elsewhere after this instance's holder claimed it was opened again there: the
    /// holder here is replaced, as a second tab on one instance replaces the first. A
    /// holder whose claim has not committed yet is left alone; its commit brings
    /// another look. Returns whether anything the sockets see changed.
    fn others_hold(&mut self, remote: [bool; 2], claims: [Option<i64>; 2]) -> bool {
        let mut changed = false;
        for (i, c) in Color::ALL.into_iter().enumerate() {
            let holder = *self.holders.get(c);
            if let (Some(holder), Some((claimed_by, mine)), Some(theirs)) =
                (holder, *self.others.claims.get(c), claims[i])
            {
                if holder == claimed_by && theirs > mine {
                    self.replace_holder(c, None);
                    changed = true;
                }
            }
            if *self.others.remote.get(c) != remote[i] {
                *self.others.remote.get_mut(c) = remote[i];
                // Held elsewhere no more: the seat may be away.
                if !remote[i] {
                    *self.lost.get_mut(c) = true;
                }
                changed = true;
            }
        }
        changed
    }
}

impl Instances for Rooms {
    fn changed(&self, rooms: Option<Vec<String>>) -> futures_util::future::BoxFuture<'_, ()> {
        Box::pin(self.announce(rooms))
    }

    fn claimed(&self, presence: &Presence, claim: i64) {
        let (Some(arc), Some(conn)) = (self.get(&presence.room), presence.holder) else {
            return;
        };
        {
            let mut room = lock(&arc);
            if *room.holders.get(presence.seat) != Some(conn) {
                return; // replaced meanwhile; that socket's claim follows
            }
            *room.others.claims.get_mut(presence.seat) = Some((conn, claim));
        }
        // Compare it with the other instances' claims now: one of them may have
        // claimed the seat meanwhile.
        self.announce_one(&presence.room);
    }

    fn forgotten(&self) {
        let arcs: Vec<Arc<std::sync::Mutex<Room>>> = lock(&self.shared.map).values().cloned().collect();
        tracing::warn!(
            rooms = arcs.len(),
            "taken for dead by the others; publishing presence again"
        );
        for arc in arcs {
            let mut room = lock(&arc);
            room.others.published = ByColor::default();
            room.others.claims = ByColor::default();
            self.publish_presence(&mut room);
        }
    }
}

impl Rooms {
    /// Reads the room's events after the ones in memory, its Dark seat and presence on
    /// other instances, and sends the state if anything changed. The caller holds the
    /// room's gate.
    pub(super) async fn read_news(&self, room_arc: &Arc<std::sync::Mutex<Room>>) {
        let (id, next) = {
            let mut room = lock(room_arc);
            room.others.dirty = false;
            (room.id.clone(), room.next)
        };
        match self.shared.store.news(&[(id.clone(), next.0, next.1)]).await {
            Ok(mut news) => {
                if let Some(news) = news.pop() {
                    self.apply_news(room_arc, next, news);
                }
            }
            Err(e) => tracing::warn!(error = %e, room = %id, "reading a room's news failed"),
        }
    }

    /// Applies news read from place `next` on, unless the room moved on meanwhile.
    fn apply_news(&self, room_arc: &Arc<std::sync::Mutex<Room>>, next: (u32, u32), news: News) {
        let mut room = lock(room_arc);
        if room.next != next {
            return; // someone else read them meanwhile
        }
        let id = room.id.clone();
        let mut changed = false;
        // A rated round ended or a seat arrived elsewhere: the players are read again.
        let (round_before, over_before) = (room.table.round(), room.table.is_over());
        let mut players_stale = false;
        // The Dark seat first: round 1's clocks start when it was taken.
        if room.keys.dark.is_none() || !room.taken.dark {
            if let Some(key) = news.dark_key {
                room.keys.dark = Some(key);
                room.taken.dark = true;
                if let Some(at) = news.dark_at {
                    room.start_clocks(at);
                }
                changed = true;
                players_stale = true;
            }
        }
        let news_at = news.events.last().map(|e| e.at).or(news.dark_at);
        let outages = self.outages();
        for (i, e) in news.events.into_iter().enumerate() {
            if let Err(why) = room.apply_stored(i, e, &outages) {
                tracing::error!(room = %id, reason = %why, "a stored event from another instance does not apply");
                break;
            }
            changed = true;
        }
        if changed {
            let at = room.committed.clock.map_or(0, |c| c.at);
            let at = news_at.unwrap_or(at);
            room.refresh(at);
        }
        let ended = room.table.round() != round_before || (room.table.is_over() && !over_before);
        players_stale |= ended && room.rated;
        if room.others_hold(news.remote, news.claims) {
            changed = true;
            self.publish_presence(&mut room);
            // A seat held elsewhere whose account this instance has not read.
            players_stale |= mill_core::Color::ALL
                .into_iter()
                .any(|c| *room.others.remote.get(c) && room.players.seats.get(c).is_none());
        }
        if players_stale {
            self.refresh_players_later(room_arc);
        }
        if changed {
            room.broadcast_state();
        }
        // Who is online on every instance is known now: a seat gone (or back) on any
        // of them is stored, once, by the database's keys.
        room.presence_known = true;
        self.presence_check(&mut room, room_arc);
    }

    /// Other instances changed the rooms `ids` (`None`: news may have been missed for
    /// every room). Reads the news of each such room in memory, one reader per room
    /// however many notifications come: the rooms free at this moment in one batch, a
    /// room whose gate is taken (a command of its own in flight) by a reader of its
    /// own once the gate is free.
    async fn announce(&self, ids: Option<Vec<String>>) {
        let arcs: Vec<Arc<std::sync::Mutex<Room>>> = match ids {
            Some(ids) => ids.iter().filter_map(|id| self.get(id)).collect(),
            None => lock(&self.shared.map).values().cloned().collect(),
        };
        let mut batch = Vec::new();
        for arc in arcs {
            let gate = {
                let mut room = lock(&arc);
                room.others.dirty = true;
                if room.others.reading {
                    continue;
                }
                room.others.reading = true;
                room.gate.clone()
            };
            match gate.try_lock_owned() {
                Ok(turn) => batch.push((arc, turn)),
                Err(_) => self.read_alone(arc),
            }
        }
        if batch.is_empty() {
            return;
        }
        let wanted: Vec<(String, u32, u32)> = batch
            .iter()
            .map(|(arc, _)| {
                let mut room = lock(arc);
                room.others.dirty = false;
                (room.id.clone(), room.next.0, room.next.1)
            })
            .collect();
        match self.shared.store.news(&wanted).await {
            Ok(all) => {
                for ((arc, _), (w, news)) in batch.iter().zip(wanted.iter().zip(all)) {
                    self.apply_news(arc, (w.1, w.2), news);
                }
            }
            Err(e) => tracing::warn!(error = %e, rooms = wanted.len(), "reading rooms' news failed"),
        }
        for (arc, turn) in batch {
            drop(turn);
            let again = {
                let mut room = lock(&arc);
                if !room.others.dirty {
                    room.others.reading = false;
                }
                room.others.dirty
            };
            if again {
                self.read_alone(arc);
            }
        }
    }

    /// Reads room `id`'s news in the background (if it is in memory and other
    /// instances share the database).
    pub(super) fn announce_one(&self, id: &str) {
        if !self.shared.store.shared() {
            return;
        }
        let Some(arc) = self.get(id) else {
            return;
        };
        {
            let mut room = lock(&arc);
            room.others.dirty = true;
            if room.others.reading {
                return;
            }
            room.others.reading = true;
        }
        self.read_alone(arc);
    }

    /// Reads one room's news once its gate is free, again while more was announced
    /// meanwhile. The caller has set the room's `reading`.
    fn read_alone(&self, arc: Arc<std::sync::Mutex<Room>>) {
        let rooms = self.clone();
        tokio::spawn(async move {
            loop {
                let gate = lock(&arc).gate.clone();
                {
                    let _turn = gate.lock().await;
                    rooms.read_news(&arc).await;
                }
                let mut room = lock(&arc);
                if !room.others.dirty {
                    room.others.reading = false;
                    break;
                }
            }
        });
    }

    /// Publishes this instance's holders of a room's seats if they changed.
    pub(super) fn publish_presence(&self, room: &mut Room) {
        if !self.shared.store.shared() {
            return;
        }
        for c in Color::ALL {
            let holder = *room.holders.get(c);
            if holder != *room.others.published.get(c) {
                *room.others.published.get_mut(c) = holder;
                // A new socket claims the seat again, even if the last one held it too.
                self.shared.store.publish(Presence {
                    room: room.id.clone(),
                    seat: c,
                    holder,
                    at: self.now(),
                });
            }
        }
    }
}

//! The path of a command, the same on every store: take the room's gate, judge the
//! command, try it on a copy of the table, append it, and only once the database has
//! decided install the copy, acknowledge and send the state to everyone.
//!
//! 1. The gate: one command (or join, hello, catch-up) at a time per room on this
//!    instance; the database orders them between instances.
//! 2. Catch up: a command made on a state this instance has not read yet (another
//!    instance moved the game on) reads the news first.
//! 3. Judge: a client id answered recently is acknowledged again from memory; one the
//!    room applied longer ago is looked up in the stored events by (room, seat, client
//!    id) and acknowledged with its first answer; a new one must be made on the
//!    current (round, version) by a seat whose socket still holds it.
//! 4. Try it on a copy of the table (the rules); a refusal changes nothing.
//! 5. Append: the database's keys decide. Stored: the copy becomes the table, and the
//!    ack goes to the sender before the state goes to everyone. Place taken (another
//!    instance was first) or client id taken (the retry reached another instance
//!    first): read what is stored and answer from it. A failed write changes nothing
//!    and is answered `internal`.

use std::sync::{Arc, Mutex};

use mill_core::{ByColor, Color};
use tokio::sync::mpsc;

use super::room::{Cmd, Outgoing, Room, Verdict, ack};
use super::{Rooms, lock};
use crate::protocol::{ClientMsg, ClockEventKind, Command, ErrorCode, SERVER_ID_PREFIX, ServerMsg};
use crate::store::{Append, Appended, DbError, Entry, Rematch, StoredEvent};
use crate::table::{Placed, Refusal, Table};
use crate::timecontrol::{Clocks, Deadline, Verdict as TimeVerdict};

impl Rooms {
    /// Handles a command from a socket holding `seat` (`None`: spectator). Every
    /// answer goes to `tx`; a success is answered only after its commit. Returns once
    /// the command is decided and answered.
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
        let gate = lock(&room_arc).gate.clone();
        let _turn = gate.lock().await;
        self.decide(&room_arc, &c, tx).await;
    }

    /// Steps 2 to 5 of the module's path; the caller holds the room's gate.
    async fn decide(&self, room_arc: &Arc<Mutex<Room>>, c: &Cmd<'_>, tx: &mpsc::Sender<Outgoing>) {
        let received = std::time::Instant::now();
        let store = &self.shared.store;
        if !self.database_back().await {
            return self.failed(room_arc, c, tx, "the database is out");
        }
        if store.shared() {
            let behind = {
                let room = lock(room_arc);
                (c.round, c.version) != (room.table.round(), room.table.version())
            };
            if behind {
                self.read_news(room_arc).await;
            }
        }
        let (verdict, id) = {
            let room = lock(room_arc);
            (room.verdict(c), room.id.clone())
        };
        let verdict = match verdict {
            Verdict::LookUp => match store.find(&id, c.seat, c.cid).await {
                Ok(Some((round, seq))) => match self.stored_answer(room_arc, round, seq).await {
                    Some((round, version)) => Verdict::Duplicate(round, version),
                    None => {
                        return self.failed(
                            room_arc,
                            c,
                            tx,
                            "a stored client id is not among the room's events",
                        );
                    }
                },
                Ok(None) => lock(room_arc).judge(c),
                Err(e) => return self.failed(room_arc, c, tx, &e.to_string()),
            },
            other => other,
        };
        let now = self.now();
        let prepared = {
            let mut room = lock(room_arc);
            match verdict {
                Verdict::Go => {}
                Verdict::Duplicate(round, version) => {
                    let _ = tx.try_send(ack(c.cid, round, version, true));
                    return;
                }
                Verdict::LookUp => unreachable!("looked up above"),
                Verdict::Refused { code, message, state } => {
                    room.refuse(tx, c.cid, code, &message, state);
                    return;
                }
            }
            if !room.holds(c.seat, tx) {
                // Replaced by a newer socket while this waited for the gate: it is
                // being closed with `replaced`, and its command is not applied.
                return;
            }
            // A timed round: a command after the flag fell is refused, and the flag
            // stored in its place.
            match room.clocks.as_ref().map(|clocks| clocks.check(now)) {
                Some(Err(deadline)) => Err(deadline),
                _ => {
                    // A claim needs the opponent away for the grace (a round already
                    // over is the table's to refuse).
                    if matches!(c.cmd, Command::ClaimWin | Command::CallDraw) && !room.table.is_over() {
                        if let Some(why) = room.claim_refusal(c.seat, now) {
                            let _ = tx.try_send(room.error(Some(c.cid), ErrorCode::NoClaim.into(), &why));
                            return;
                        }
                    }
                    // The network's share of the turn, as measured on this socket;
                    // the clocks give back at most the seat's quota of it.
                    let rtt = room.rtt(tx);
                    let entry = Entry::Command(c.cmd.clone());
                    match room.prepare(c.seat, entry, |_| c.cid.to_string(), now, rtt) {
                        Ok(write) => Ok(write),
                        Err(Unprepared::Late(deadline)) => Err(deadline),
                        Err(Unprepared::Refused(r)) => {
                            let _ = tx.try_send(room.error(Some(c.cid), r.code, &r.message));
                            return;
                        }
                    }
                }
            }
        };
        let write = match prepared {
            Ok(write) => write,
            Err(deadline) => {
                self.flag(room_arc, Some(deadline)).await;
                let room = lock(room_arc);
                if room.table.is_over() {
                    let _ = tx.try_send(room.error(
                        Some(c.cid),
                        ErrorCode::OutOfTime.into(),
                        "Time ran out before this arrived: the round is over on time.",
                    ));
                } else {
                    let _ = tx.try_send(room.error(
                        Some(c.cid),
                        ErrorCode::Stale.into(),
                        "Another command reached the game first; here is the game as it is now.",
                    ));
                }
                let _ = tx.try_send(room.state());
                return;
            }
        };
        // The ack goes to the sender before the state goes to everyone.
        let outcome = self
            .commit(room_arc, write, |room| {
                let _ = tx.try_send(ack(c.cid, room.table.round(), room.table.version(), false));
            })
            .await;
        match outcome {
            Ok(Appended::Stored) => {
                // A new round starts with everyone present: an absent seat is noted.
                self.presence_check(&mut lock(room_arc), room_arc);
                let took = received.elapsed();
                if took > std::time::Duration::from_millis(50) {
                    tracing::debug!(ms = took.as_millis() as u64, "slow command");
                }
            }
            Ok(Appended::Duplicate { round, seq }) => {
                // The retry reached another instance first: its answer is stored.
                match self.stored_answer(room_arc, round, seq).await {
                    Some((round, version)) => {
                        let _ = tx.try_send(ack(c.cid, round, version, true));
                    }
                    None => self.failed(
                        room_arc,
                        c,
                        tx,
                        "a stored client id is not among the room's events",
                    ),
                }
            }
            Ok(Appended::PlaceTaken) => {
                // Another instance was first: read what the database holds.
                self.read_news(room_arc).await;
                let room = lock(room_arc);
                let _ = tx.try_send(room.error(
                    Some(c.cid),
                    ErrorCode::Stale.into(),
                    "Another command reached the game first; here is the game as it is now.",
                ));
                let _ = tx.try_send(room.state());
            }
            Err(e) => self.failed(room_arc, c, tx, &e.to_string()),
        }
    }

    /// Step 5 for every event the room stores (a command, a fallen flag, a seat's
    /// absence or return): appends `write` and, once it is stored, installs the table,
    /// clocks and presence it leads to, lets `stored` add what this write adds (the
    /// command's ack), and sends the state to everyone. Returns the store's answer: a
    /// place or client id taken, or a failure, changed nothing and is the caller's to
    /// answer. The caller holds the room's gate.
    async fn commit(
        &self,
        room_arc: &Arc<Mutex<Room>>,
        write: Write,
        stored: impl FnOnce(&mut Room),
    ) -> Result<Appended, DbError> {
        let Write {
            append,
            table,
            placed,
            clocks,
            away,
        } = write;
        let (seat, cid, at) = (append.event.seat, append.event.client_id.clone(), append.event.at);
        // A rated round's end: the ratings changed with it; the state telling the
        // result tells the change too (`players.rs`).
        let rated_end = append.ends.is_some() && lock(room_arc).rated;
        let outcome = self.shared.store.append(append).await;
        let players = match &outcome {
            Ok(Appended::Stored) if rated_end => {
                let ask = lock(room_arc).ask_players();
                self.read_players(ask).await
            }
            _ => None,
        };
        let mut room = lock(room_arc);
        room.end_write();
        if let Ok(Appended::Stored) = outcome {
            room.table = table;
            room.clocks = clocks;
            room.away = away;
            if placed.new_round.is_some() {
                // Everyone is present as a round begins: whoever is not is noted.
                room.lost = mill_core::ByColor {
                    light: true,
                    dark: true,
                };
            }
            room.stored(placed, seat, cid);
            room.note_times(at);
            room.active_at = at;
            room.refresh(at);
            if let Some(players) = players {
                room.install_players(players);
            }
            stored(&mut room);
            room.broadcast_state();
        }
        outcome
    }

    /// Stores the fallen flag of a timed round (`timeout`, or `abort` before a side's
    /// first turn) at the round's next place, through the same append as a command, so
    /// the database's (round, seq) key decides it against a last-moment turn on
    /// another instance. `late`: the deadline a turn was late for (its time less the
    /// lag given back exceeded what was left); else the flag must have fallen by now.
    /// The caller holds the room's gate.
    pub(super) async fn flag(&self, room_arc: &Arc<Mutex<Room>>, late: Option<Deadline>) {
        // Not while the database is out: its time may be nobody's.
        if !self.database_back().await {
            return;
        }
        let now = self.now();
        let write = {
            let mut room = lock(room_arc);
            let Some(clocks) = &room.clocks else { return };
            let Some(deadline) = clocks
                .check(now)
                .err()
                .or(late.filter(|_| clocks.deadline().is_some()))
            else {
                return;
            };
            let (seat, kind) = match deadline.verdict {
                TimeVerdict::Timeout(seat) => (seat, ClockEventKind::Timeout),
                TimeVerdict::Abort(seat) => (seat, ClockEventKind::Abort),
            };
            let cid = |placed: Placed| format!("{SERVER_ID_PREFIX}{kind}-{}", placed.round);
            match room.prepare(seat, Entry::Clock(kind), cid, now, 0) {
                Ok(write) => write,
                Err(_) => return,
            }
        };
        match self.commit(room_arc, write, |_| {}).await {
            Ok(Appended::Stored) => {}
            // Another instance stored the flag, or a turn, at this place first.
            Ok(Appended::Duplicate { .. } | Appended::PlaceTaken) => self.read_news(room_arc).await,
            Err(e) => {
                let room = lock(room_arc);
                tracing::error!(error = %e, room = %room.id, "storing a fallen flag failed");
            }
        }
    }

    /// Queues the storing of `away`/`back` if the room's stored presence differs from
    /// who is online (see [`Room::presence_drift`]); one task per room at a time.
    pub(super) fn presence_check(&self, room: &mut Room, room_arc: &Arc<Mutex<Room>>) {
        if room.presence_queued
            || self.shared.closing.load(std::sync::atomic::Ordering::SeqCst)
            || room.presence_drift().is_none()
        {
            return;
        }
        room.presence_queued = true;
        let rooms = self.clone();
        let arc = room_arc.clone();
        tokio::spawn(async move {
            let gate = lock(&arc).gate.clone();
            {
                let _turn = gate.lock().await;
                rooms.store_presence(&arc).await;
            }
            lock(&arc).presence_queued = false;
        });
    }

    /// Stores each seat's absence (`away`) or return (`back`) in a live timed round,
    /// at the round's next place like a command, so the database's (round, seq) key
    /// decides between instances that see the same change; a flag that fell before
    /// goes first. Both clocks follow the stored presence (`Room::clocks_after`). The
    /// caller holds the room's gate.
    async fn store_presence(&self, room_arc: &Arc<Mutex<Room>>) {
        if !self.database_back().await {
            return;
        }
        // Each round settles one seat; a handful covers both seats and a lost race.
        for _ in 0..6 {
            let mut now = self.now();
            let write = {
                let mut room = lock(room_arc);
                if room.evicted {
                    return;
                }
                let Some((seat, kind)) = room.presence_drift() else {
                    return;
                };
                // A socket closed here is away from the moment its close was read,
                // however busy the room was since (never before its latest event).
                if let (ClockEventKind::Away, Some(gone)) = (kind, *room.gone_at.get(seat)) {
                    now = gone.max(room.last_at).min(now);
                }
                let cid =
                    |placed: Placed| format!("{SERVER_ID_PREFIX}{kind}-{}-{}", placed.round, placed.seq);
                match room.prepare(seat, Entry::Clock(kind), cid, now, 0) {
                    Ok(write) => Some(write),
                    // The flag fell first: it is stored instead.
                    Err(Unprepared::Late(_)) => None,
                    Err(Unprepared::Refused(_)) => return,
                }
            };
            let Some(write) = write else {
                self.flag(room_arc, None).await;
                continue;
            };
            let seat = write.append.event.seat;
            match self
                .commit(room_arc, write, |room| {
                    *room.lost.get_mut(seat) = false;
                    *room.gone_at.get_mut(seat) = None;
                })
                .await
            {
                Ok(Appended::Stored) => {}
                // Another instance stored something at this place first: read it.
                Ok(Appended::Duplicate { .. } | Appended::PlaceTaken) => self.read_news(room_arc).await,
                Err(e) => {
                    let room = lock(room_arc);
                    tracing::error!(error = %e, room = %room.id, "storing a seat's presence failed");
                    return;
                }
            }
        }
    }

    /// The (round, version) after the stored event at (round, seq): the first answer
    /// to the command stored there, once the room has read that far (another instance
    /// may have stored it).
    async fn stored_answer(&self, room_arc: &Arc<Mutex<Room>>, round: u32, seq: u32) -> Option<(u32, u32)> {
        if lock(room_arc).after(round, seq).is_none() && self.shared.store.shared() {
            self.read_news(room_arc).await;
        }
        lock(room_arc).after(round, seq)
    }

    /// The database failed: nothing changed; the client may try again.
    fn failed(&self, room_arc: &Arc<Mutex<Room>>, c: &Cmd<'_>, tx: &mpsc::Sender<Outgoing>, why: &str) {
        let room = lock(room_arc);
        tracing::error!(error = %why, room = %room.id, "storing a command failed");
        let _ = tx.try_send(room.error(
            Some(c.cid),
            ErrorCode::Internal.into(),
            "The server could not store this; try again.",
        ));
    }
}

/// An event ready to be written ([`Rooms::commit`]): what to append, and what the room
/// becomes once it is stored.
pub(super) struct Write {
    append: Append,
    table: Table,
    placed: Placed,
    clocks: Option<Clocks>,
    away: ByColor<Option<i64>>,
}

/// Why an event could not be written.
pub(super) enum Unprepared {
    /// The rules refuse it.
    Refused(Refusal),
    /// The side's time ran out before it (the flag is stored instead).
    Late(Deadline),
}

impl Room {
    /// Step 4 for every event the room stores: tries `entry` of `seat` at `now` on a
    /// copy of the table, with the clocks after it (`lag_ms`: what the network took
    /// of a turn, see [`Room::clocks_after`]); its client id is `cid` of the place it
    /// takes. Nothing changes but one more write in flight; [`Rooms::commit`] installs
    /// the rest once it is stored.
    pub(super) fn prepare(
        &mut self,
        seat: Color,
        entry: Entry,
        cid: impl FnOnce(Placed) -> String,
        now: i64,
        lag_ms: i64,
    ) -> Result<Write, Unprepared> {
        let mut table = self.table.clone();
        let placed = match &entry {
            Entry::Command(cmd) => table.apply(seat, cmd),
            Entry::Clock(kind) => table.apply_clock(seat, *kind),
        }
        .map_err(Unprepared::Refused)?;
        let (clocks, stamp, away) = self
            .clocks_after(seat, &entry, &table, placed, now, lag_ms)
            .map_err(Unprepared::Late)?;
        self.begin_write();
        let append = Append {
            room: self.id.clone(),
            event: StoredEvent {
                round: placed.round,
                seq: placed.seq,
                seat,
                command: entry,
                client_id: cid(placed),
                at: now,
                stamp,
            },
            ends: ends(&self.table, &table),
            rematch: self.rematch_made(&table, placed),
        };
        Ok(Write {
            append,
            table,
            placed,
            clocks,
            away,
        })
    }
}

impl Room {
    /// The room a write makes, if it completes a rematch (the table before it had no
    /// agreed rematch, `after` has): the same rules and clock, each seat's new key the
    /// one its player sent, colours swapped.
    fn rematch_made(&self, after: &Table, placed: Placed) -> Option<Rematch> {
        if self.table.rematch_agreed().is_some() {
            return None;
        }
        let keys = after.rematch_agreed()?;
        Some(Rematch {
            room: crate::keys::rematch_room_id(&self.id, placed.round),
            variant: after.rules().to_string(),
            clock: self.control,
            light_key: keys.dark.0,
            dark_key: keys.light.0,
        })
    }
}

/// The result a command gives its round, if it ends it (for the ratings of a rated
/// room, which the store changes with the event: see [`Append::ends`]).
fn ends(before: &crate::table::Table, after: &crate::table::Table) -> Option<mill_core::Outcome> {
    if before.is_over() || before.round() != after.round() {
        return None;
    }
    after.outcome()
}

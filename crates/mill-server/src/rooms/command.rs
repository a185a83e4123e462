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

use mill_core::Color;
use tokio::sync::mpsc;

use super::room::{Cmd, Outgoing, Room, Verdict, ack};
use super::{Rooms, lock};
use crate::protocol::{ClientMsg, ErrorCode, ServerMsg};
use crate::store::{Append, Appended, StoredEvent};

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
        let (append, table, placed) = {
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
            let mut table = room.table.clone();
            let placed = match table.apply(c.seat, c.cmd) {
                Ok(placed) => placed,
                Err(r) => {
                    let _ = tx.try_send(room.error(Some(c.cid), r.code, &r.message));
                    return;
                }
            };
            room.begin_write();
            let append = Append {
                room: room.id.clone(),
                event: StoredEvent {
                    round: placed.round,
                    seq: placed.seq,
                    seat: c.seat,
                    command: c.cmd.clone(),
                    client_id: c.cid.to_string(),
                    at: self.now(),
                },
                new_round: placed.new_round,
            };
            (append, table, placed)
        };
        let at = append.event.at;
        let outcome = store.append(append).await;
        lock(room_arc).end_write();
        match outcome {
            Ok(Appended::Stored) => {
                let mut room = lock(room_arc);
                room.table = table;
                room.stored(placed, c.seat, c.cid.to_string());
                room.active_at = at;
                room.committed = Arc::new(room.table.view(&room.id));
                let _ = tx.try_send(ack(c.cid, room.table.round(), room.table.version(), false));
                room.broadcast_state();
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

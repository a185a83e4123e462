//! The players a room's `state` shows beside its seats: the account behind each seat
//! (name, rating for the room's rule set and speed, and after a rated round its change)
//! and whether the room is rated. Read from the accounts' side of the database
//! (`store/cards.rs`) and cached in the room, so that no state sent costs a query: when
//! the room is loaded, when a seat is bound to an account (`accounts.rs` `bind_seat`),
//! when a rated round ends (before the state that tells the result goes out, here or,
//! through the news, on another instance sharing the database), and on a shared
//! database when a seat whose account is not known yet says hello or arrives from
//! another instance (it may have been bound there after this instance read it).

use std::sync::{Arc, Mutex};

use mill_core::ByColor;

use super::{Room, Rooms, lock};
use crate::protocol::SeatPlayer;
use crate::ratings::Speed;
use crate::store::accounts::Accounts;

/// What to read for a room: its id, rule set and speed.
pub(super) struct Ask {
    id: String,
    rules: String,
    speed: Option<Speed>,
    /// The read's number in the room (`Room::players_asked`).
    n: u64,
}

/// A read's answer, to install with [`Room::install_players`].
pub(super) struct Read {
    n: u64,
    seats: ByColor<Option<SeatPlayer>>,
}

impl Room {
    /// Numbers a new read of this room's players.
    pub(super) fn ask_players(&mut self) -> Ask {
        self.players_asked += 1;
        Ask {
            id: self.id.clone(),
            rules: self.table.rules().to_string(),
            speed: self.control.map(Speed::of),
            n: self.players_asked,
        }
    }

    /// Installs a read unless a newer one is installed already; whether anything
    /// changed.
    pub(super) fn install_players(&mut self, read: Read) -> bool {
        if read.n <= self.players_read {
            return false;
        }
        self.players_read = read.n;
        if self.players.seats == read.seats {
            return false;
        }
        self.players.seats = read.seats;
        true
    }
}

impl Rooms {
    /// Gives the rooms the accounts' side of the database (once, at start-up).
    pub fn set_accounts(&self, accounts: Accounts) {
        let _ = self.shared.accounts.set(accounts);
    }

    fn accounts(&self) -> Option<&Accounts> {
        self.shared.accounts.get()
    }

    /// Reads what `ask` asks; `None` without accounts or when the read failed (logged:
    /// the cards stay as they were, the game goes on).
    pub(super) async fn read_players(&self, ask: Ask) -> Option<Read> {
        let accounts = self.accounts()?;
        match accounts.seat_players(&ask.id, &ask.rules, ask.speed).await {
            Ok(seats) => Some(Read { n: ask.n, seats }),
            Err(e) => {
                tracing::warn!(error = %e, room = %ask.id, "reading a room's players failed");
                None
            }
        }
    }

    /// The players of a room just replayed, before it is served.
    pub(super) async fn load_players(&self, room: &mut Room) {
        if self.accounts().is_none() {
            return;
        }
        let ask = room.ask_players();
        if let Some(read) = self.read_players(ask).await {
            room.install_players(read);
        }
    }

    /// Reads the room's players again and sends the state if they changed.
    pub(super) async fn refresh_players(&self, room_arc: &Arc<Mutex<Room>>) {
        if self.accounts().is_none() {
            return;
        }
        let ask = lock(room_arc).ask_players();
        if let Some(read) = self.read_players(ask).await {
            let mut room = lock(room_arc);
            if room.install_players(read) {
                room.broadcast_state();
            }
        }
    }

    /// [`Rooms::refresh_players`] in a task of its own (from code that holds a lock).
    pub(super) fn refresh_players_later(&self, room_arc: &Arc<Mutex<Room>>) {
        if self.accounts().is_none() {
            return;
        }
        let rooms = self.clone();
        let arc = room_arc.clone();
        tokio::spawn(async move { rooms.refresh_players(&arc).await });
    }

    /// A seat of room `id` has just been bound to an account (`accounts.rs`): if the
    /// room is in memory, its players are read again (else its load reads them).
    pub async fn players_changed(&self, id: &str) {
        if let Some(arc) = self.get(id) {
            self.refresh_players(&arc).await;
        }
    }
}

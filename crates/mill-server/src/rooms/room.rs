//! One room in memory: its seats and keys, its table, the sockets watching it, the
//! client ids it has applied, and the answers and fan-out it sends. Nothing here knows
//! which database is behind it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use axum::extract::ws::Utf8Bytes;
use mill_core::{ByColor, Color, Rules};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::protocol::{
    self, ClockEventKind, CloseCode, Code, Command, ErrorCode, GameView, SeatView, ServerMsg,
};
use crate::store::{Entry, Outage, StoredEvent, StoredRoom};
use crate::table::{Placed, Table};
use crate::table::{RoundClock, TurnTimes};
use crate::timecontrol::{Clocks, Deadline, Stamp, TimeControl};

/// Sockets watching one room without a seat, at most, unless the server is told
/// otherwise (`--max-spectators`): enough for a popular game. Each costs a socket's
/// memory and one send of every state (the bytes are shared); the connection caps
/// (`listen.rs`) bound them too.
pub const MAX_SPECTATORS: usize = 10_000;

/// How long a change in the number of watchers may wait before it is sent to every
/// socket (with the state; sooner if a state goes out anyway). A watcher arriving or
/// leaving costs one send, to itself, not one to every socket.
pub const WATCHERS_NEWS: std::time::Duration = std::time::Duration::from_secs(1);

/// Client ids each room keeps with their answers in memory, besides those applied at
/// the current (round, version), which are always kept (see [`Room::remember`]). Older
/// retries are answered from the stored events (see [`Room::verdict`]).
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
    pub(super) fn msg(msg: &ServerMsg) -> Outgoing {
        Outgoing::Msg(msg.clone())
    }
}

#[derive(Debug)]
pub(super) struct Conn {
    pub(super) id: ConnId,
    pub(super) tx: mpsc::Sender<Outgoing>,
    /// Cancelled when the room drops the socket for falling behind.
    pub(super) kick: CancellationToken,
    /// The socket's latest round trip as the server measured it (ms; see `ws.rs`).
    pub(super) rtt: Arc<AtomicI64>,
}

/// What other instances hold of one room, as this instance last read it.
#[derive(Debug, Default)]
pub(super) struct Others {
    /// Seats held by a socket on another instance.
    pub(super) remote: ByColor<bool>,
    /// The socket this instance has published as holding each seat.
    pub(super) published: ByColor<Option<ConnId>>,
    /// Each seat's committed claim and the socket it was made for. Another live
    /// instance with a newer claim on the seat has a newer socket on it, which
    /// replaces this instance's holder (`others.rs`).
    pub(super) claims: ByColor<Option<(ConnId, i64)>>,
    /// News announced and not yet read; a reader is on its way.
    pub(super) dirty: bool,
    pub(super) reading: bool,
}

/// One room.
#[derive(Debug)]
pub struct Room {
    pub(super) id: String,
    /// A rated room (made by rated pairing): takeback requests are refused.
    pub(super) rated: bool,
    /// What the state tells of the players (`players.rs`): read from the database at
    /// load, when a seat is bound and when a rated round ends; `players_asked` numbers
    /// the reads so that an older one never overwrites a newer one.
    pub(super) players: protocol::Players,
    pub(super) players_asked: u64,
    pub(super) players_read: u64,
    /// Key hashes of the seats taken.
    pub(super) keys: ByColor<Option<[u8; 32]>>,
    /// Seats whose key is stored (what the snapshot shows).
    pub(super) taken: ByColor<bool>,
    /// The table as stored: every command committed, nothing else.
    pub(super) table: Table,
    /// The table's snapshot.
    pub(super) committed: Arc<GameView>,
    /// The socket holding each seat.
    pub(super) holders: ByColor<Option<ConnId>>,
    pub(super) conns: Vec<Conn>,
    /// Recent client ids already applied: the (round, version) after them and their
    /// order. Bounded, see [`Room::remember`].
    done: HashMap<(Color, String), Done>,
    /// Every client id the room has applied, hashed: a command whose id is not here
    /// is new for sure; one whose id is here and not in `done` is looked up in the
    /// stored events.
    seen: HashSet<u64>,
    /// The (round, version) after each stored event: `after[round - 1][seq]`.
    after: Vec<Vec<(u32, u32)>>,
    /// Commands applied so far (numbers `done` entries).
    applied: u64,
    pub(super) active_at: i64,
    /// Writes made for this room and not yet committed: it is not evicted meanwhile.
    pending: u32,
    /// Since when nothing holds the room (no socket, nothing pending).
    pub(super) idle_since: std::time::Instant,
    /// Taken out of the registry; whoever finds this looks the room up again.
    pub(super) evicted: bool,
    /// Where the next stored event goes: (round, seq).
    pub(super) next: (u32, u32),
    /// One command, join, hello or catch-up at a time: taken before a command is
    /// judged and held until its answer is sent, so that commands are decided in
    /// order, and a socket is replaced only once the command it sent is answered.
    pub(super) gate: Arc<tokio::sync::Mutex<()>>,
    /// What other instances sharing the database hold (nothing on one instance).
    pub(super) others: Others,
    /// The room's time control (`None`: untimed).
    pub(super) control: Option<TimeControl>,
    /// The current round's clocks, once it is playable (timed rooms only).
    pub(super) clocks: Option<Clocks>,
    /// Since when each seat is away, as stored (`away`/`back` events of a live timed
    /// round; everyone is present again when a round begins). What the pause and the
    /// claims go by, so that a replay and every instance find the same.
    pub(super) away: ByColor<Option<i64>>,
    /// Whether this instance knows who is online (on a shared database: once it has
    /// read the others' presence); until then no `away` is stored from here.
    pub(super) presence_known: bool,
    /// A task storing `away`/`back` events for this room is on its way.
    pub(super) presence_queued: bool,
    /// Seats this instance has seen go (its own socket closed or dropped, the others'
    /// presence lost) or has not seen anywhere since it began to look: only these may
    /// be stored `away` from here. A seat's return on another instance that this one
    /// has not read yet is then never taken for an absence.
    pub(super) lost: ByColor<bool>,
    /// When each seat's socket here closed (its close frame or end as read), until its
    /// absence is stored or a socket holds it again: the absence counts from then, not
    /// from when the room gets to store it.
    pub(super) gone_at: ByColor<Option<i64>>,
    /// The time of the latest event stored or read (an absence is never stored before it).
    pub(super) last_at: i64,
    /// Each round's clocks after each of its actions (timed rooms): `times[round - 1][i]`
    /// is both remaining times once action `i` was stored, what review shows per turn.
    pub(super) times: Vec<Vec<TurnTimes>>,
    /// The number of watchers changed since the last state sent to every socket.
    pub(super) watchers_stale: bool,
    /// A task sending that news is on its way (see [`WATCHERS_NEWS`]).
    pub(super) watchers_news_due: bool,
}

/// What a stored event leaves of the clocks: the clocks, what to store with the event,
/// and who is away after it.
pub(super) type ClocksAfter = (Option<Clocks>, Option<Stamp>, ByColor<Option<i64>>);

/// Pauses the clock of the side to move while it is present and its opponent is away,
/// and lets it run otherwise (timecontrol.rs, "Disconnection"): leaving never stops
/// one's own clock. `Err` when its flag fell before `now`.
fn sync_pause(
    clocks: &mut Clocks,
    away: &ByColor<Option<i64>>,
    to_move: Color,
    now: i64,
) -> Result<(), Deadline> {
    let want = away.get(!to_move).is_some() && away.get(to_move).is_none();
    if want && !clocks.is_paused() {
        clocks.pause(now)?;
    } else if !want && clocks.is_paused() {
        clocks.resume(now);
    }
    Ok(())
}

/// A command as it reaches a room.
#[derive(Debug)]
pub(super) struct Cmd<'a> {
    pub(super) seat: Color,
    pub(super) cid: &'a str,
    pub(super) round: u32,
    pub(super) version: u32,
    pub(super) cmd: &'a Command,
}

pub(super) enum Verdict {
    /// Go on to the rules.
    Go,
    /// Already applied: ack again with the (round, version) after it.
    Duplicate(u32, u32),
    /// The id was applied at some time: look for it in the stored events.
    LookUp,
    /// Refused before the rules (with a fresh state for `stale`).
    Refused {
        code: ErrorCode,
        message: String,
        state: bool,
    },
}

pub(super) fn ack(cid: &str, round: u32, version: u32, duplicate: bool) -> Outgoing {
    Outgoing::msg(&ServerMsg::Ack {
        id: cid.to_string(),
        round,
        version,
        duplicate,
    })
}

#[derive(Debug, Clone, Copy)]
struct Done {
    round: u32,
    version: u32,
    n: u64,
}

/// A client id's entry in [`Room::seen`].
fn id_hash(seat: Color, cid: &str) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    // One fixed hasher per process: entries are compared only within it.
    static KEYS: std::sync::LazyLock<std::collections::hash_map::RandomState> =
        std::sync::LazyLock::new(std::collections::hash_map::RandomState::new);
    let mut h = KEYS.build_hasher();
    seat.hash(&mut h);
    cid.hash(&mut h);
    h.finish()
}

impl Room {
    pub(super) fn new(
        id: String,
        light_key: [u8; 32],
        at: i64,
        rules: &'static Rules,
        control: Option<TimeControl>,
    ) -> Room {
        let table = Table::with_rules(rules);
        let committed = Arc::new(table.view(&id));
        Room {
            id,
            rated: false,
            players: protocol::Players::default(),
            players_asked: 0,
            players_read: 0,
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
            seen: HashSet::new(),
            after: Vec::new(),
            applied: 0,
            active_at: at,
            pending: 0,
            idle_since: std::time::Instant::now(),
            evicted: false,
            next: (1, 0),
            gate: Arc::new(tokio::sync::Mutex::new(())),
            others: Others::default(),
            control,
            clocks: None,
            away: ByColor::default(),
            presence_known: false,
            presence_queued: false,
            lost: ByColor {
                light: true,
                dark: true,
            },
            times: Vec::new(),
            watchers_stale: false,
            watchers_news_due: false,
            gone_at: ByColor::default(),
            last_at: at,
        }
    }

    /// Brings the current round's per-action times up to the table after an event
    /// stored at `at`: a takeback drops the times of the actions it took back, a new
    /// action gets the clocks as they are now (the mover's charged, with its increment).
    pub(super) fn note_times(&mut self, at: i64) {
        self.last_at = self.last_at.max(at);
        let Some(clocks) = &self.clocks else {
            return;
        };
        let round = self.table.round() as usize;
        if self.times.len() < round {
            self.times.resize_with(round, Vec::new);
        }
        let stamp = clocks.stamp_at(at);
        let times = &mut self.times[round - 1];
        let actions = self.table.version() as usize;
        times.truncate(actions);
        times.resize(
            actions,
            TurnTimes {
                light: stamp.light_ms,
                dark: stamp.dark_ms,
            },
        );
    }

    /// The clocks after each action of round `n` (`None`: an untimed room).
    pub(super) fn round_clock(&self, n: u32) -> Option<RoundClock> {
        let control = self.control?;
        let times = (n as usize)
            .checked_sub(1)
            .and_then(|i| self.times.get(i))
            .cloned()
            .unwrap_or_default();
        Some(RoundClock { control, times })
    }

    /// Round 1 became playable at `at` (the Dark seat was taken): a timed room's
    /// clocks start (the first turns have their own allowance, see `timecontrol.rs`).
    pub(super) fn start_clocks(&mut self, at: i64) {
        if let (Some(control), None) = (self.control, &self.clocks) {
            self.clocks = Some(Clocks::new(control, self.table.to_move(), at));
        }
    }

    /// Whether a clock runs (or a first-turn allowance): the room stays in memory, so
    /// the periodic check sees its flag fall.
    pub(super) fn clock_running(&self) -> bool {
        self.clocks.as_ref().is_some_and(|c| c.deadline().is_some())
    }

    /// When the flag falls, if a clock runs.
    pub(super) fn deadline(&self) -> Option<Deadline> {
        self.clocks.as_ref().and_then(Clocks::deadline)
    }

    /// Who is away after `entry` of `seat`, stored at `now` (`placed`).
    fn away_after(&self, seat: Color, entry: &Entry, placed: Placed, now: i64) -> ByColor<Option<i64>> {
        let mut away = self.away;
        if placed.new_round.is_some() {
            away = ByColor::default();
        }
        match entry {
            Entry::Clock(ClockEventKind::Away) => {
                away.get_mut(seat).get_or_insert(now);
            }
            Entry::Clock(ClockEventKind::Back) => *away.get_mut(seat) = None,
            _ => {}
        }
        away
    }

    /// The clocks after `entry` of `seat` left the table as `after` (with `placed`) at
    /// `now`, and what to store with it; `lag_ms` is the seat's measured latency (live)
    /// or the lag stored with the event (replay). `Err` when the side's time had run
    /// out (the caller stores the flag instead, and nothing else changes).
    pub(super) fn clocks_after(
        &self,
        seat: Color,
        entry: &Entry,
        after: &Table,
        placed: Placed,
        now: i64,
        lag_ms: i64,
    ) -> Result<ClocksAfter, Deadline> {
        let away = self.away_after(seat, entry, placed, now);
        let Some(control) = self.control else {
            return Ok((None, None, away));
        };
        if placed.new_round.is_some() {
            let mut clocks = Clocks::new(control, after.to_move(), now);
            sync_pause(&mut clocks, &away, after.to_move(), now)?;
            let stamp = clocks.stamp_at(now);
            return Ok((Some(clocks), Some(stamp), away));
        }
        let Some(mut clocks) = self.clocks.clone() else {
            return Ok((None, None, away));
        };
        let stamp = match entry {
            // A seat's absence or return: the pause follows below.
            Entry::Clock(ClockEventKind::Away | ClockEventKind::Back) => {
                clocks.check(now)?;
                clocks.stamp_at(now)
            }
            Entry::Clock(kind) => {
                let mut stamp = clocks.finish(now);
                // A turn late by its own charge (not yet by the deadline) still has
                // lost its time: the record says so.
                if *kind == ClockEventKind::Timeout {
                    match seat {
                        Color::Light => stamp.light_ms = 0,
                        Color::Dark => stamp.dark_ms = 0,
                    }
                }
                stamp
            }
            Entry::Command(cmd) => {
                clocks.check(now)?;
                let stamp = match cmd {
                    // A turn ends when the other side is to move (or the round is over).
                    Command::Action(_) if after.to_move() != seat || after.is_over() => {
                        clocks.turn(now, lag_ms)?
                    }
                    Command::AcceptTakeback => clocks.takeback(now, after.to_move())?,
                    _ => clocks.stamp_at(now),
                };
                if after.is_over() {
                    Stamp {
                        lag_ms: stamp.lag_ms,
                        ..clocks.finish(now)
                    }
                } else {
                    stamp
                }
            }
        };
        if !after.is_over() {
            sync_pause(&mut clocks, &away, after.to_move(), now)?;
        }
        Ok((Some(clocks), Some(stamp), away))
    }

    /// The `away` or `back` this instance should store now, if any: in a live timed
    /// round in play, a seat that is not online on any instance and not stored away
    /// yet, or one stored away that a socket here holds again (returns first). A return
    /// is stored only by the instance that holds the seat: another one's view of that
    /// may be older than the absence it has just read, and would store a return that
    /// did not happen.
    pub(super) fn presence_drift(&self) -> Option<(Color, ClockEventKind)> {
        if let Some(gone) = self.rematch_lapse() {
            return Some((gone, ClockEventKind::Away));
        }
        let control = self.control?;
        if control.is_correspondence()
            || !self.presence_known
            || self.clocks.is_none()
            || self.table.is_over()
            || self.keys.dark.is_none()
        {
            return None;
        }
        let back = Color::ALL
            .into_iter()
            .find(|&c| self.away.get(c).is_some() && self.holders.get(c).is_some());
        let away = || {
            Color::ALL
                .into_iter()
                .find(|&c| *self.lost.get(c) && self.away.get(c).is_none() && !self.online(c))
        };
        back.map(|c| (c, ClockEventKind::Back))
            .or_else(|| away().map(|c| (c, ClockEventKind::Away)))
    }

    /// A seat that left (on no instance any more, and seen to go or not seen since this
    /// instance began to look) while a rematch offer stands, in any room: its `away` is
    /// stored at the round's next place, which lapses the offer on every instance.
    fn rematch_lapse(&self) -> Option<Color> {
        if !self.presence_known || self.table.rematch_offer().is_none() {
            return None;
        }
        Color::ALL
            .into_iter()
            .find(|&c| *self.lost.get(c) && !self.online(c))
    }

    /// Why `seat` may not claim the win or call a draw at `now`, if it may not: the
    /// room has a live clock, the round is playable, and the opponent is away (stored,
    /// and still not online) since at least the grace.
    pub(super) fn claim_refusal(&self, seat: Color, now: i64) -> Option<String> {
        let Some(control) = self.control else {
            return Some("This room has no clock: a game without one cannot be claimed.".into());
        };
        let Some(grace) = control.grace_ms() else {
            return Some(
                "A correspondence game has no claim: a turn whose days run out is lost on time.".into(),
            );
        };
        if self.clocks.is_none() {
            return Some("The round has not begun.".into());
        }
        let opponent = !seat;
        match *self.away.get(opponent) {
            Some(_) if self.online(opponent) => Some("Your opponent is back.".into()),
            Some(since) if now < since + grace => Some(format!(
                "Your opponent has been away for {} s; you may claim after {} s.",
                (now - since).max(0) / 1000,
                grace / 1000
            )),
            Some(_) => None,
            None => Some("Your opponent is here.".into()),
        }
    }

    /// The seat away while the other is present: whose absence a claim is about.
    fn claim_since(&self) -> Option<i64> {
        match (self.away.light, self.away.dark) {
            (Some(since), None) | (None, Some(since)) => Some(since),
            _ => None,
        }
    }

    /// The latest round trip measured on the socket `tx` (0 when none yet).
    pub(super) fn rtt(&self, tx: &mpsc::Sender<Outgoing>) -> i64 {
        self.conns
            .iter()
            .find(|c| c.tx.same_channel(tx))
            .map_or(0, |c| c.rtt.load(Ordering::Relaxed).max(0))
    }

    /// Makes the snapshot of the table as it is, with the clocks as of `now`.
    pub(super) fn refresh(&mut self, now: i64) {
        let mut view = self.table.view(&self.id);
        let over = self.table.is_over();
        view.clock = self
            .clocks
            .as_ref()
            .map(|c| c.view(now).with_claim(self.claim_since(), over));
        self.committed = Arc::new(view);
    }

    /// Skips the `outages` that ended by `until` on the clocks (`Clocks::skip`: nobody's
    /// time, idempotent); whether the clocks changed.
    pub(super) fn skip_outages(&mut self, outages: &[Outage], until: i64) -> bool {
        let Some(clocks) = &mut self.clocks else {
            return false;
        };
        let before = clocks.clone();
        for &(from, to) in outages.iter().filter(|o| o.1 <= until) {
            clocks.skip(from, to);
        }
        *clocks != before
    }

    /// Rebuilds a room by replaying its stored events through the table, skipping the
    /// `outages` in their places.
    pub(super) fn replay(s: StoredRoom, outages: &[Outage]) -> Result<Room, String> {
        let light = s.light_key.ok_or("no light seat")?;
        let rules = Rules::parse_table(&s.variant).map_err(|e| format!("plays {:?}: {e}", s.variant))?;
        let mut room = Room::new(s.id, light, s.active_at, rules, s.clock);
        room.keys.dark = s.dark_key;
        room.taken.dark = s.dark_key.is_some();
        room.rated = s.rated;
        room.table.set_paired(s.paired);
        room.players.rated = s.rated;
        if let Some(at) = s.dark_at.filter(|_| s.dark_key.is_some()) {
            room.start_clocks(at);
        }
        let mut last = s.dark_at.unwrap_or(s.active_at);
        for (i, e) in s.events.into_iter().enumerate() {
            last = e.at;
            room.apply_stored(i, e, outages)?;
        }
        room.skip_outages(outages, i64::MAX);
        room.refresh(last);
        Ok(room)
    }

    /// Applies one stored event (replay at load, or news from another instance).
    /// The clocks first skip the `outages` that ended by the event's time.
    pub(super) fn apply_stored(
        &mut self,
        i: usize,
        e: StoredEvent,
        outages: &[Outage],
    ) -> Result<(), String> {
        self.skip_outages(outages, e.at);
        if e.round != self.table.round() {
            return Err(format!(
                "event {i}: round {} while the table is at round {}",
                e.round,
                self.table.round()
            ));
        }
        let placed = match &e.command {
            Entry::Command(cmd) => self.table.apply(e.seat, cmd),
            Entry::Clock(kind) => self.table.apply_clock(e.seat, *kind),
        }
        .map_err(|r| format!("event {i}: {} ({})", r.message, r.code))?;
        // The clocks replay through the same calls with the stored times and lags,
        // then take the stored remaining times (`Clocks::settle`).
        let lag = e.stamp.map_or(0, |s| s.lag_ms);
        match self.clocks_after(e.seat, &e.command, &self.table, placed, e.at, lag) {
            Ok((clocks, _, away)) => {
                self.clocks = clocks;
                self.away = away;
            }
            Err(_) => self.away = self.away_after(e.seat, &e.command, placed, e.at),
        }
        // The seat's presence as stored by whoever saw it: nothing more to note here.
        if matches!(
            e.command,
            Entry::Clock(ClockEventKind::Away | ClockEventKind::Back)
        ) {
            *self.lost.get_mut(e.seat) = false;
        }
        if let (Some(clocks), Some(stamp)) = (&mut self.clocks, e.stamp) {
            clocks.settle(stamp, e.at);
        }
        self.note_times(e.at);
        self.stored(placed, e.seat, e.client_id);
        self.active_at = self.active_at.max(e.at);
        Ok(())
    }

    /// Notes that the table applied a stored command (`placed`) of `seat` with id `cid`.
    pub(super) fn stored(&mut self, placed: Placed, seat: Color, cid: String) {
        self.next = match placed.new_round {
            Some(round) => (round, 0),
            None => (placed.round, placed.seq + 1),
        };
        let after = (self.table.round(), self.table.version());
        let round = placed.round as usize;
        if self.after.len() < round {
            self.after.resize_with(round, Vec::new);
        }
        let places = &mut self.after[round - 1];
        if places.len() == placed.seq as usize {
            places.push(after);
        }
        self.seen.insert(id_hash(seat, &cid));
        self.remember(seat, cid);
    }

    /// The (round, version) after the stored event at (round, seq), if the room has it.
    pub(super) fn after(&self, round: u32, seq: u32) -> Option<(u32, u32)> {
        let places = self.after.get((round as usize).checked_sub(1)?)?;
        places.get(seq as usize).copied()
    }

    /// Whether the socket `tx` holds `seat` (not replaced by a newer one).
    pub(super) fn holds(&self, seat: Color, tx: &mpsc::Sender<Outgoing>) -> bool {
        let holder = *self.holders.get(seat);
        self.conns
            .iter()
            .any(|c| Some(c.id) == holder && c.tx.same_channel(tx))
    }

    /// What to do with a command before the rules see it.
    pub(super) fn verdict(&self, c: &Cmd<'_>) -> Verdict {
        if let Some(d) = self.done.get(&(c.seat, c.cid.to_string())) {
            return Verdict::Duplicate(d.round, d.version);
        }
        if self.seen.contains(&id_hash(c.seat, c.cid)) {
            return Verdict::LookUp;
        }
        self.judge(c)
    }

    /// [`Room::verdict`] for a command known to be new.
    pub(super) fn judge(&self, c: &Cmd<'_>) -> Verdict {
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
        if self.rated && matches!(c.cmd, Command::OfferTakeback) {
            return Verdict::Refused {
                code: ErrorCode::RatedRound,
                message: "There are no takebacks in a rated game.".into(),
                state: false,
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
    pub(super) fn replace_holder(&mut self, seat: Color, conn: Option<ConnId>) {
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

    pub(super) fn online(&self, c: Color) -> bool {
        self.holders.get(c).is_some() || *self.others.remote.get(c)
    }

    /// Notes that the command `cid` of `seat` was applied and left the table where it
    /// is now. Memory stays bounded: past [`RECENT_IDS`] entries the oldest go, except
    /// those whose (round, version) after is the current one or one past it (which a
    /// takeback can bring back); an id that left is still in `seen`, and its retry is
    /// answered from the stored events.
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
            self.done
                .retain(|_, d| d.n > keep_from || (d.round == round && d.version.wrapping_sub(version) <= 1));
        }
    }

    pub(super) fn held(&self) -> bool {
        !self.conns.is_empty() || self.pending > 0
    }

    /// One more write in flight.
    pub(super) fn begin_write(&mut self) {
        self.pending += 1;
    }

    /// A write committed (or failed).
    pub(super) fn end_write(&mut self) {
        self.pending = self.pending.saturating_sub(1);
        if !self.held() {
            self.idle_since = std::time::Instant::now();
        }
    }

    pub(super) fn seats(&self) -> ByColor<SeatView> {
        ByColor::new_with(|c| SeatView {
            taken: *self.taken.get(c),
            online: self.online(c),
        })
    }

    /// Sockets watching without a seat.
    pub(super) fn spectators(&self) -> usize {
        let holders = Color::ALL
            .iter()
            .filter(|&&c| self.holders.get(c).is_some())
            .count();
        self.conns.len().saturating_sub(holders)
    }

    pub(super) fn state(&self) -> Outgoing {
        Outgoing::Text(
            protocol::room_state_text(&self.committed, self.seats(), self.spectators(), &self.players).into(),
        )
    }

    /// Answers a command refused before the rules ([`Verdict::Refused`]): the error,
    /// and the state after it when the refusal says the client is behind.
    pub(super) fn refuse(
        &self,
        tx: &mpsc::Sender<Outgoing>,
        cid: &str,
        code: ErrorCode,
        message: &str,
        state: bool,
    ) {
        let _ = tx.try_send(self.error(Some(cid), code.into(), message));
        if state {
            let _ = tx.try_send(self.state());
        }
    }

    pub(super) fn error(&self, id: Option<&str>, code: Code, message: &str) -> Outgoing {
        Outgoing::msg(&ServerMsg::Error {
            id: id.map(str::to_string),
            code,
            message: message.to_string(),
            round: Some(self.committed.round),
            version: Some(self.committed.version),
        })
    }

    /// Sends the state to every socket. A socket whose queue is full is too slow to
    /// keep up: it is dropped (its task closes it with [`CloseCode::TooSlow`] and the
    /// client reconnects to a fresh state), and the others hear about its seat going
    /// offline at once; about a watcher dropped so, with the next news of the watchers
    /// (its task's `detach` sends it), not with a new state to every socket.
    pub(super) fn broadcast_state(&mut self) {
        loop {
            let state = self.state();
            self.watchers_stale = false;
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
            self.watchers_stale = true;
            let conns = &self.conns;
            let mut seat_lost = false;
            for c in Color::ALL {
                let holder = self.holders.get_mut(c);
                if holder.is_some_and(|h| !conns.iter().any(|conn| conn.id == h)) {
                    *holder = None;
                    *self.lost.get_mut(c) = true;
                    seat_lost = true;
                }
            }
            if !seat_lost {
                return;
            }
        }
    }
}

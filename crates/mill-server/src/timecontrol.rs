//! Online games on a clock: the time controls a room may have and the pure arithmetic of
//! a round's two clocks. No I/O and no ticking: the room logic calls [`Clocks`] with the
//! time of each event (from the server's injectable [`Clock`](crate::clock::Clock)),
//! stores what it returns with the event, and asks [`Clocks::deadline`] when the next
//! flag falls. Replaying a round's stored events through the same calls gives the same
//! clocks after a restart, on another instance, or in review.
//!
//! # The numbers, and why
//!
//! | what | value | why |
//! | --- | --- | --- |
//! | live initial time | 15 s to 3 h ([`MIN_INITIAL_SECS`], [`MAX_INITIAL_SECS`]) | 15 s is the fastest game a network round trip still leaves playable; 3 h covers classical play |
//! | live increment | 0 to 180 s ([`MAX_INCREMENT_SECS`]) | three minutes a turn is already a slow classical control |
//! | correspondence | 1 to 14 days a turn ([`MIN_DAYS`], [`MAX_DAYS`]) | a day is the shortest that fits people's lives; two weeks the longest a friend waits |
//! | first turn (live) | 30 s ([`FIRST_TURN_MS`]) | a side's clock starts only after its first turn; a side that has not made it within 30 s of the round becoming playable (Light) or of Light's first turn (Dark) aborts the round: nobody wins |
//! | first turn (correspondence) | the days of a turn | as any other turn; missing it aborts |
//! | lag quota | starts at half its cap, grows by a tenth of its cap after every timed turn, capped at `clamp((initial + 40 × increment) / 60, 0.5 s, 2 s)` ([`LagRule`]) | a turn's time is charged when the server acknowledges its last action, so the network's delay counts against the player; up to the quota of that delay is given back. 40 turns is the length the estimate assumes (as lichess's does) |
//! | abandonment grace (live) | `clamp((initial + 40 × increment) / 10, 40 s, 120 s)` ([`TimeControl::grace_ms`]) | about 40 s, as lichess gives, and longer for slow controls, where leaving for a minute is no sign of leaving the game |
//!
//! # The rules of the clock
//!
//! - **Charge.** A turn's time is charged when its last action (the removal, when the
//!   turn closed a mill) is acknowledged: from the moment the turn began (the previous
//!   turn's last action) to that moment, less the lag given back. The increment is added
//!   after the whole turn. A correspondence turn charges nothing: the next turn has the
//!   full days again.
//! - **Start.** A side's clock starts after its own first turn: the first turn is not
//!   charged and earns no increment, but has its own deadline ([`FIRST_TURN_MS`]),
//!   after which the round is aborted.
//! - **Lag.** The lag of a turn is the server's own measure of the seat's socket: the
//!   round trip of its latest WebSocket ping (`ws.rs`), since the state's way to the
//!   player and the action's way back both fall inside the charged time. It is never
//!   a number the page sends. What is given back is at most the seat's quota, which is
//!   spent by what is given and grows only slowly, so claiming (or causing) a large lag
//!   gains at most the quota: nobody gains time by lying.
//! - **The flag** of the side to move falls at [`Clocks::deadline`]: its time as of the
//!   turn's start, plus its whole quota (the most a turn could be given back). A turn
//!   completed after that is refused; a turn completed earlier is late all the same when
//!   its time less the lag given back exceeds what was left ([`Clocks::turn`]). The
//!   flag falls when a late command arrives, when the opponent claims it, or by the
//!   server's periodic check of the deadline, whichever comes first.
//! - **Disconnection** (live games). The clock of the side to move runs whether or not
//!   that side is connected: leaving does not stop one's own clock. It stops while the
//!   side to move is present and the *other* side is away ([`Clocks::pause`]; the room
//!   decides from the stored `away`/`back` events, `rooms/room.rs`), because play needs both players connected
//!   and nobody is flagged for a board the opponent made inactive; it runs again when
//!   the opponent is back ([`Clocks::resume`]). A player whose opponent has been away
//!   longer than the grace may claim the win or call a draw ([`may_claim`]). A
//!   correspondence game never pauses (its players are rarely online together, so a
//!   turn there does not need the opponent online) and has no claim: its turn deadline
//!   passing is a timeout like any other.
//! - **Outages.** Time while no server runs or the database takes no write is
//!   nobody's ([`Clocks::skip`]): the side to move is charged up to the outage's start,
//!   and its time counts again from its end. The outages are recorded in the database
//!   (`Store::alive`, `rooms/mod.rs` `Rooms::alive`), so every instance and every replay
//!   skips the same ones.
//! - **Takeback.** An accepted takeback charges the side that was to move for its time
//!   so far (no increment) and starts the clock of the side now to move; no time is
//!   given back.
//!
//! # What is stored with each event
//!
//! Every event of a timed round is stored with its time (`at`, Unix ms, already in the
//! events table) and a [`Stamp`]: both sides' remaining milliseconds as of `at` (what
//! review shows for each turn) and the lag given back to a turn (`lag_ms`, 0 for any
//! other event). The clock-only events are stored like commands: `timeout` and `abort`
//! (the seat that lost its time or did not start), `away` and `back` (the seat whose
//! absence paused the other side's clock, and its return). Replaying the events through
//! [`Clocks`] with those times and lags rebuilds quotas, pauses and the running side;
//! [`Clocks::settle`] then takes each event's stored remaining times, so a change to the
//! numbers above never changes a stored game. The room's time control is stored with the
//! room ([`TimeControl`]: initial and increment seconds, or days).

use mill_core::{ByColor, Color, Outcome};
use serde::{Deserialize, Serialize};

/// Fewest seconds of a live control's initial time.
pub const MIN_INITIAL_SECS: u32 = 15;
/// Most seconds of a live control's initial time (3 hours).
pub const MAX_INITIAL_SECS: u32 = 3 * 60 * 60;
/// Most seconds of a live control's increment.
pub const MAX_INCREMENT_SECS: u32 = 180;
/// Fewest days of a correspondence turn.
pub const MIN_DAYS: u32 = 1;
/// Most days of a correspondence turn.
pub const MAX_DAYS: u32 = 14;
/// Time a live side has for its first turn before the round is aborted.
pub const FIRST_TURN_MS: i64 = 30_000;
/// The turns a game is assumed to last when a control's length is estimated
/// (`initial + 40 × increment`): for the lag quota and the abandonment grace.
pub const ESTIMATED_TURNS: i64 = 40;
/// Shortest abandonment grace.
pub const MIN_GRACE_MS: i64 = 40_000;
/// Longest abandonment grace.
pub const MAX_GRACE_MS: i64 = 120_000;
/// A day in milliseconds.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A room's time control: the wire's `clock` object (`{"initial": 300, "increment": 3}`
/// or `{"days": 3}`), seconds and days as people give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimeControl {
    /// A live game: each side's initial time and the time added after each of its turns.
    Live {
        /// Seconds each side starts with.
        initial: u32,
        /// Seconds added after each turn.
        increment: u32,
    },
    /// A correspondence game: each turn must be made within this many days.
    Correspondence {
        /// Days per turn.
        days: u32,
    },
}

/// Why a `clock` of `POST /api/rooms` is not a time control (HTTP 400 `bad-clock`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// Not an object with whole numbers in the known fields.
    #[error(
        "the clock must be {{\"initial\": SECONDS, \"increment\": SECONDS}} or {{\"days\": DAYS}} with whole numbers ({0})"
    )]
    Shape(String),
    /// Both a live control and days, or neither.
    #[error("the clock must have either \"initial\" (with \"increment\") or \"days\", not both or neither")]
    Kind,
    /// The initial time is out of range.
    #[error("the initial time must be {MIN_INITIAL_SECS} to {MAX_INITIAL_SECS} seconds, not {0}")]
    Initial(u64),
    /// The increment is out of range.
    #[error("the increment must be 0 to {MAX_INCREMENT_SECS} seconds, not {0}")]
    Increment(u64),
    /// The days per turn are out of range.
    #[error("the days per turn must be {MIN_DAYS} to {MAX_DAYS}, not {0}")]
    Days(u64),
}

impl TimeControl {
    /// Reads and checks the `clock` field of `POST /api/rooms`: `null` or absent is an
    /// untimed room (`Ok(None)`).
    pub fn from_request(value: Option<&serde_json::Value>) -> Result<Option<TimeControl>, ClockError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Asked {
            initial: Option<u64>,
            increment: Option<u64>,
            days: Option<u64>,
        }
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let asked: Asked =
            serde_json::from_value(value.clone()).map_err(|e| ClockError::Shape(e.to_string()))?;
        let control = match asked {
            Asked {
                initial: Some(initial),
                increment,
                days: None,
            } => {
                let increment = increment.unwrap_or(0);
                if !(MIN_INITIAL_SECS as u64..=MAX_INITIAL_SECS as u64).contains(&initial) {
                    return Err(ClockError::Initial(initial));
                }
                if increment > MAX_INCREMENT_SECS as u64 {
                    return Err(ClockError::Increment(increment));
                }
                TimeControl::Live {
                    initial: initial as u32,
                    increment: increment as u32,
                }
            }
            Asked {
                initial: None,
                increment: None,
                days: Some(days),
            } => {
                if !(MIN_DAYS as u64..=MAX_DAYS as u64).contains(&days) {
                    return Err(ClockError::Days(days));
                }
                TimeControl::Correspondence { days: days as u32 }
            }
            _ => return Err(ClockError::Kind),
        };
        Ok(Some(control))
    }

    /// The same control rebuilt from the room's stored columns (seconds, days), or
    /// `None` when they do not make one a request could have made.
    pub fn from_stored(
        initial: Option<i64>,
        increment: Option<i64>,
        days: Option<i64>,
    ) -> Option<TimeControl> {
        let value = serde_json::json!({ "initial": initial, "increment": increment, "days": days });
        let fields = value.as_object()?.iter().filter(|(_, v)| !v.is_null());
        let asked = serde_json::Value::Object(fields.map(|(k, v)| (k.clone(), v.clone())).collect());
        TimeControl::from_request(Some(&asked)).ok().flatten()
    }

    /// Milliseconds each side starts with: the initial time, or a turn's days.
    pub fn initial_ms(self) -> i64 {
        match self {
            TimeControl::Live { initial, .. } => initial as i64 * 1000,
            TimeControl::Correspondence { days } => days as i64 * DAY_MS,
        }
    }

    /// Milliseconds added after a turn (0 in correspondence, where each turn starts
    /// with the full days again).
    pub fn increment_ms(self) -> i64 {
        match self {
            TimeControl::Live { increment, .. } => increment as i64 * 1000,
            TimeControl::Correspondence { .. } => 0,
        }
    }

    /// Whether turns are counted in days.
    pub fn is_correspondence(self) -> bool {
        matches!(self, TimeControl::Correspondence { .. })
    }

    /// The estimated length of one side's game: `initial + 40 × increment`.
    fn estimate_ms(self) -> i64 {
        self.initial_ms() + ESTIMATED_TURNS * self.increment_ms()
    }

    /// Time a side has for its first turn before the round is aborted.
    pub fn first_turn_ms(self) -> i64 {
        match self {
            TimeControl::Live { .. } => FIRST_TURN_MS,
            TimeControl::Correspondence { days } => days as i64 * DAY_MS,
        }
    }

    /// How long the opponent must have been away before a live player may claim the
    /// win or call a draw: `clamp(estimate / 10, 40 s, 120 s)`. `None` in
    /// correspondence, which has no claim (see the module docs).
    pub fn grace_ms(self) -> Option<i64> {
        (!self.is_correspondence()).then(|| (self.estimate_ms() / 10).clamp(MIN_GRACE_MS, MAX_GRACE_MS))
    }

    /// The lag allowance of this control.
    pub fn lag_rule(self) -> LagRule {
        match self {
            TimeControl::Live { .. } => {
                let cap = (self.estimate_ms() / 60).clamp(LagRule::MIN_CAP_MS, LagRule::MAX_CAP_MS);
                LagRule {
                    start: cap / 2,
                    gain: cap / 10,
                    cap,
                }
            }
            // A day's turn needs no compensation for a second of network.
            TimeControl::Correspondence { .. } => LagRule {
                start: 0,
                gain: 0,
                cap: 0,
            },
        }
    }

    /// PGN's `TimeControl` tag, for records: `300+3` (seconds), `1/259200` (one turn per
    /// so many seconds).
    pub fn record_tag(self) -> String {
        match self {
            TimeControl::Live { initial, increment } => format!("{initial}+{increment}"),
            TimeControl::Correspondence { days } => format!("1/{}", days as i64 * DAY_MS / 1000),
        }
    }
}

/// How much network lag is given back, per seat: a quota that starts at `start`, is
/// spent by what a turn is given back, grows by `gain` after every timed turn, and
/// never exceeds `cap` (all milliseconds). The cap is
/// `clamp((initial + 40 × increment) / 60, 0.5 s, 2 s)`: 0.5 s for a 15-second game,
/// 1 s for 1+0, 2 s from 2+0 up; start is half of it and gain a tenth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LagRule {
    /// The quota at the start of a round.
    pub start: i64,
    /// Added after each timed turn.
    pub gain: i64,
    /// The quota's ceiling.
    pub cap: i64,
}

impl LagRule {
    /// The smallest cap, for the fastest controls.
    pub const MIN_CAP_MS: i64 = 500;
    /// The largest cap.
    pub const MAX_CAP_MS: i64 = 2_000;
}

/// Whether a player whose opponent has been away since `away_since` may claim the win
/// or call a draw at `now` (live games only; never in correspondence).
pub fn may_claim(control: TimeControl, away_since: i64, now: i64) -> bool {
    control.grace_ms().is_some_and(|grace| now - away_since >= grace)
}

/// What falls at a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The seat's time ran out: the other wins on time.
    Timeout(Color),
    /// The seat did not make its first turn in time: the round is aborted.
    Abort(Color),
}

impl Verdict {
    /// The seat that ran out of time or did not start.
    pub fn seat(self) -> Color {
        match self {
            Verdict::Timeout(seat) | Verdict::Abort(seat) => seat,
        }
    }

    /// The round's result.
    pub fn outcome(self) -> Outcome {
        match self {
            Verdict::Timeout(loser) => Outcome::Win {
                winner: !loser,
                reason: mill_core::WinReason::Timeout,
            },
            Verdict::Abort(_) => Outcome::Aborted,
        }
    }
}

/// When the flag falls, and what it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deadline {
    /// Unix milliseconds: the flag has fallen at any time from this one on.
    pub at: i64,
    /// What it decides.
    pub verdict: Verdict,
}

/// What is stored with an event of a timed round (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Stamp {
    /// Light's remaining milliseconds as of the event.
    pub light_ms: i64,
    /// Dark's remaining milliseconds as of the event.
    pub dark_ms: i64,
    /// Lag given back to the turn the event completed (0 for any other event).
    pub lag_ms: i64,
}

/// The two clocks of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    lag: LagRule,
    /// Each side's time as of `since` (for the side not to move: as of its last turn).
    remaining: ByColor<i64>,
    /// What is left of each side's first-turn allowance, as of `since`.
    first_left: ByColor<i64>,
    /// Each side's lag quota.
    quota: ByColor<i64>,
    /// Whether the side has made its first turn (its clock has started).
    started: ByColor<bool>,
    to_move: Color,
    /// From when the side to move's time counts (the turn's start, or a resume).
    since: i64,
    /// The other side is away (live only): the side to move's time does not count.
    paused: bool,
    /// A result stands: nothing counts any more.
    over: bool,
}

/// The clocks at one moment, as the wire's `clock` carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// Light's remaining milliseconds as of `at`.
    pub light: i64,
    /// Dark's remaining milliseconds as of `at`.
    pub dark: i64,
    /// The seat whose clock runs, or `None`: before a side's first turn, while paused,
    /// once the round is over.
    pub running: Option<Color>,
    /// The server's time of the view (Unix milliseconds): the page counts `running`'s
    /// time down from here by its own clock's offset to the server.
    pub at: i64,
    /// While the side to move has not made its first turn: the milliseconds it has left
    /// for it as of `at`, after which the round is aborted; else `None`.
    pub first_turn: Option<i64>,
    /// When the present player may claim the win or call a draw because the opponent
    /// has been away for the grace (server time, Unix milliseconds; it may be past);
    /// `None` while both are present, in correspondence, and once the round is over.
    /// The page counts down to it.
    pub claim_at: Option<i64>,
    /// The room's time control.
    pub control: TimeControl,
}

impl ClockView {
    /// The view with the claim's time for an opponent away since `away_since` (Unix
    /// ms), or without one (`None`: nobody is away). Nothing to claim once the round is
    /// over or in correspondence.
    pub fn with_claim(mut self, away_since: Option<i64>, over: bool) -> ClockView {
        self.claim_at = match (away_since, self.control.grace_ms()) {
            (Some(since), Some(grace)) if !over => Some(since + grace),
            _ => None,
        };
        self
    }
}

impl Clocks {
    /// The clocks of a round that becomes playable at `at` with `first` to move: for
    /// round 1 when the second seat is taken, for later rounds when both have asked for
    /// the new one.
    pub fn new(control: TimeControl, first: Color, at: i64) -> Clocks {
        let lag = control.lag_rule();
        Clocks {
            control,
            lag,
            remaining: ByColor::new_with(|_| control.initial_ms()),
            first_left: ByColor::new_with(|_| control.first_turn_ms()),
            quota: ByColor::new_with(|_| lag.start),
            started: ByColor::default(),
            to_move: first,
            since: at,
            paused: false,
            over: false,
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The side whose time counts now, if any.
    pub fn running(&self) -> Option<Color> {
        (!self.over && !self.paused && self.started.get(self.to_move) == &true).then_some(self.to_move)
    }

    /// What the side to move is spending now: its time, or its first-turn allowance.
    fn budget(&self) -> i64 {
        if *self.started.get(self.to_move) {
            *self.remaining.get(self.to_move)
        } else {
            *self.first_left.get(self.to_move)
        }
    }

    fn budget_mut(&mut self) -> &mut i64 {
        let side = self.to_move;
        if *self.started.get(side) {
            self.remaining.get_mut(side)
        } else {
            self.first_left.get_mut(side)
        }
    }

    /// When the flag of the side to move falls, and what it decides; `None` while
    /// paused or once the round is over. This is what the server's periodic check
    /// compares with its clock: no message from anyone is needed.
    pub fn deadline(&self) -> Option<Deadline> {
        if self.over || self.paused {
            return None;
        }
        let side = self.to_move;
        Some(if *self.started.get(side) {
            Deadline {
                at: self.since + self.budget() + self.quota.get(side),
                verdict: Verdict::Timeout(side),
            }
        } else {
            Deadline {
                at: self.since + self.budget(),
                verdict: Verdict::Abort(side),
            }
        })
    }

    /// `Err` with the deadline when the flag has fallen by `now`: the command that
    /// arrived at `now` is refused and the verdict stored instead. Checked before every
    /// action (also the first action of a turn that owes a removal).
    pub fn check(&self, now: i64) -> Result<(), Deadline> {
        match self.deadline() {
            Some(d) if now >= d.at => Err(d),
            _ => Ok(()),
        }
    }

    /// Time counted against the side to move from `since` to `now`.
    fn elapsed(&self, now: i64) -> i64 {
        if self.paused || self.over {
            0
        } else {
            (now - self.since).max(0)
        }
    }

    /// The side to move completed its turn (its last action was acknowledged) at `now`,
    /// with `lag_ms` the server's estimate of its socket's latency. Charges the turn
    /// less the lag given back, adds the increment, and starts the other side's time.
    /// `Err` with the deadline when the turn was late: nothing changes, and the caller
    /// stores the verdict instead of the turn.
    pub fn turn(&mut self, now: i64, lag_ms: i64) -> Result<Stamp, Deadline> {
        self.check(now)?;
        let side = self.to_move;
        let elapsed = self.elapsed(now);
        let mut given = 0;
        if !*self.started.get(side) {
            // The first turn is not charged, earns nothing, and gives no lag back.
            *self.started.get_mut(side) = true;
        } else if self.control.is_correspondence() {
            *self.remaining.get_mut(side) = self.control.initial_ms();
        } else {
            let quota = *self.quota.get(side);
            given = lag_ms.clamp(0, quota);
            let charged = elapsed - given;
            let left = *self.remaining.get(side);
            if charged >= left {
                return Err(Deadline {
                    at: self.since + left + quota,
                    verdict: Verdict::Timeout(side),
                });
            }
            *self.remaining.get_mut(side) = left - charged + self.control.increment_ms();
            *self.quota.get_mut(side) = (quota - given + self.lag.gain).min(self.lag.cap);
        }
        self.to_move = !side;
        self.since = now;
        // The side that just played is here; a pause, if any, was for its absence.
        self.paused = false;
        Ok(self.stamp(now, given))
    }

    /// An accepted takeback at `now` leaves `to_move` to move: the side that was to
    /// move is charged its time so far (no increment), and `to_move`'s time starts.
    /// `Err` when the flag had already fallen.
    pub fn takeback(&mut self, now: i64, to_move: Color) -> Result<Stamp, Deadline> {
        self.check(now)?;
        let elapsed = self.elapsed(now);
        *self.budget_mut() -= elapsed;
        self.to_move = to_move;
        self.since = now;
        Ok(self.stamp(now, 0))
    }

    /// The opponent of the side to move went away at `now` (live games): the side to
    /// move's time stops counting. `Err` when its flag had fallen before: the verdict
    /// comes first. A second pause, or one in correspondence, changes nothing.
    pub fn pause(&mut self, now: i64) -> Result<Stamp, Deadline> {
        self.check(now)?;
        if !self.over && !self.paused && !self.control.is_correspondence() {
            let elapsed = self.elapsed(now);
            *self.budget_mut() -= elapsed;
            self.since = now;
            self.paused = true;
        }
        Ok(self.stamp(now, 0))
    }

    /// The opponent of the side to move is back at `now`: its time counts again.
    pub fn resume(&mut self, now: i64) -> Stamp {
        if self.paused {
            self.paused = false;
            self.since = now;
        }
        self.stamp(now, 0)
    }

    /// The server was not running (or its database took no write) from `from` to `to`:
    /// that time is nobody's. The side to move is charged up to `from` and its time
    /// counts again from `to`; a flag that had fallen by `from` stands. Idempotent: once
    /// the clocks count from `to` or later, an outage before changes nothing, so every
    /// instance and every replay may apply the outages it knows in any number.
    pub fn skip(&mut self, from: i64, to: i64) {
        if self.over || self.paused || to <= self.since || to <= from {
            return;
        }
        if self.since < from {
            if self.deadline().is_some_and(|d| d.at <= from) {
                return;
            }
            let elapsed = from - self.since;
            let budget = self.budget_mut();
            *budget = (*budget - elapsed).max(0);
        }
        self.since = to;
    }

    /// Whether the side to move's time is paused for its opponent's absence.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// A result stands (by the board, a resignation, an agreement, a claim, or this
    /// clock's verdict): the clocks stop as they are at `now`.
    pub fn finish(&mut self, now: i64) -> Stamp {
        if !self.over {
            let elapsed = self.elapsed(now);
            let budget = self.budget_mut();
            *budget = (*budget - elapsed).max(0);
            self.since = now;
            self.over = true;
        }
        self.stamp(now, 0)
    }

    /// What to store with an event at `now` that changes no clock (an offer, a decline,
    /// the first action of a turn that owes a removal).
    pub fn stamp_at(&self, now: i64) -> Stamp {
        self.stamp(now, 0)
    }

    fn stamp(&self, now: i64, lag_ms: i64) -> Stamp {
        let view = self.view(now);
        Stamp {
            light_ms: view.light,
            dark_ms: view.dark,
            lag_ms,
        }
    }

    /// Takes an event's stored remaining times after replaying it, so a stored game keeps
    /// its clocks whatever the numbers of this module become. For the side to move its
    /// time counts from the event's time, `now`.
    pub fn settle(&mut self, stored: Stamp, now: i64) {
        self.remaining = ByColor {
            light: stored.light_ms,
            dark: stored.dark_ms,
        };
        if *self.started.get(self.to_move) {
            self.since = now;
        }
    }

    /// The clocks as of `now`, for the wire: the running side's time counted down to
    /// `now` (never below 0).
    pub fn view(&self, now: i64) -> ClockView {
        let mut remaining = self.remaining;
        let running = self.running();
        if let Some(side) = running {
            let left = remaining.get_mut(side);
            *left = (*left - self.elapsed(now)).max(0);
        }
        let first_turn = (!self.over && !*self.started.get(self.to_move))
            .then(|| (self.first_left.get(self.to_move) - self.elapsed(now)).max(0));
        ClockView {
            light: remaining.light,
            dark: remaining.dark,
            running,
            at: now,
            first_turn,
            claim_at: None,
            control: self.control,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, ManualClock};
    use Color::{Dark, Light};
    use std::time::Duration;

    fn live(initial: u32, increment: u32) -> TimeControl {
        TimeControl::Live { initial, increment }
    }

    fn req(json: serde_json::Value) -> Result<Option<TimeControl>, ClockError> {
        TimeControl::from_request(Some(&json))
    }

    fn ms(clock: &ManualClock) -> i64 {
        clock.now_ms()
    }

    fn wait(clock: &ManualClock, millis: u64) {
        clock.advance(Duration::from_millis(millis));
    }

    /// Both sides make their first turn at once: from here on both clocks count.
    fn started(control: TimeControl, clock: &ManualClock) -> Clocks {
        let mut c = Clocks::new(control, Light, ms(clock));
        c.turn(ms(clock), 0).unwrap();
        c.turn(ms(clock), 0).unwrap();
        c
    }

    #[test]
    fn requests_are_read_and_checked_with_their_bounds() {
        use serde_json::json;
        assert_eq!(TimeControl::from_request(None), Ok(None));
        assert_eq!(req(json!(null)), Ok(None));
        assert_eq!(
            req(json!({"initial": 300, "increment": 3})),
            Ok(Some(live(300, 3)))
        );
        assert_eq!(
            req(json!({"initial": 60})),
            Ok(Some(live(60, 0))),
            "no increment is 0"
        );
        assert_eq!(req(json!({"initial": 15, "increment": 0})), Ok(Some(live(15, 0))));
        assert_eq!(
            req(json!({"initial": 10800, "increment": 180})),
            Ok(Some(live(10800, 180)))
        );
        assert_eq!(req(json!({"initial": 14})), Err(ClockError::Initial(14)));
        assert_eq!(req(json!({"initial": 10801})), Err(ClockError::Initial(10801)));
        assert_eq!(
            req(json!({"initial": 60, "increment": 181})),
            Err(ClockError::Increment(181))
        );
        assert_eq!(
            req(json!({"days": 1})),
            Ok(Some(TimeControl::Correspondence { days: 1 }))
        );
        assert_eq!(
            req(json!({"days": 14})),
            Ok(Some(TimeControl::Correspondence { days: 14 }))
        );
        assert_eq!(req(json!({"days": 0})), Err(ClockError::Days(0)));
        assert_eq!(req(json!({"days": 15})), Err(ClockError::Days(15)));
        assert_eq!(req(json!({"days": 3, "initial": 60})), Err(ClockError::Kind));
        assert_eq!(req(json!({"increment": 2})), Err(ClockError::Kind));
        assert_eq!(req(json!({"days": 3, "increment": 0})), Err(ClockError::Kind));
        assert_eq!(req(json!({})), Err(ClockError::Kind));
        for shape in [
            json!(5),
            json!("5+3"),
            json!({"initial": 1.5}),
            json!({"initial": -60}),
            json!({"minutes": 5}),
        ] {
            assert!(matches!(req(shape.clone()), Err(ClockError::Shape(_))), "{shape}");
        }
    }

    #[test]
    fn a_control_goes_on_the_wire_and_into_storage_as_it_came() {
        for (control, json) in [
            (live(180, 2), r#"{"initial":180,"increment":2}"#),
            (TimeControl::Correspondence { days: 3 }, r#"{"days":3}"#),
        ] {
            assert_eq!(serde_json::to_string(&control).unwrap(), json);
            assert_eq!(serde_json::from_str::<TimeControl>(json).unwrap(), control);
        }
        assert_eq!(
            TimeControl::from_stored(Some(180), Some(2), None),
            Some(live(180, 2))
        );
        assert_eq!(
            TimeControl::from_stored(None, None, Some(3)),
            Some(TimeControl::Correspondence { days: 3 })
        );
        assert_eq!(TimeControl::from_stored(None, None, None), None);
        assert_eq!(
            TimeControl::from_stored(Some(5), Some(0), None),
            None,
            "out of range"
        );
        assert_eq!(live(300, 3).record_tag(), "300+3");
        assert_eq!(TimeControl::Correspondence { days: 3 }.record_tag(), "1/259200");
    }

    #[test]
    fn the_numbers_follow_the_documented_formulas() {
        // Lag cap: clamp((initial + 40 × increment) / 60, 0.5 s, 2 s).
        assert_eq!(
            live(15, 0).lag_rule(),
            LagRule {
                start: 250,
                gain: 50,
                cap: 500
            }
        );
        assert_eq!(
            live(60, 0).lag_rule(),
            LagRule {
                start: 500,
                gain: 100,
                cap: 1000
            }
        );
        assert_eq!(
            live(180, 2).lag_rule(),
            LagRule {
                start: 1000,
                gain: 200,
                cap: 2000
            }
        );
        assert_eq!(TimeControl::Correspondence { days: 1 }.lag_rule().cap, 0);
        // Grace: clamp((initial + 40 × increment) / 10, 40 s, 120 s).
        assert_eq!(live(60, 0).grace_ms(), Some(40_000));
        assert_eq!(live(300, 3).grace_ms(), Some(42_000));
        assert_eq!(live(600, 5).grace_ms(), Some(80_000));
        assert_eq!(live(900, 10).grace_ms(), Some(120_000));
        assert_eq!(TimeControl::Correspondence { days: 3 }.grace_ms(), None);
        assert_eq!(live(60, 0).first_turn_ms(), 30_000);
        assert_eq!(
            TimeControl::Correspondence { days: 2 }.first_turn_ms(),
            2 * DAY_MS
        );
    }

    #[test]
    fn a_turn_is_charged_at_its_acknowledgement_and_the_increment_follows() {
        let clock = ManualClock::new();
        let mut c = started(live(60, 2), &clock);
        assert_eq!(c.running(), Some(Light));
        wait(&clock, 4_000);
        // The turn's first action (a move closing a mill) changes nothing...
        assert_eq!(c.check(ms(&clock)), Ok(()));
        assert_eq!(c.stamp_at(ms(&clock)).light_ms, 56_000);
        wait(&clock, 1_500);
        // ...its removal, acknowledged 5.5 s after the turn began, is charged all of it.
        let stamp = c.turn(ms(&clock), 0).unwrap();
        assert_eq!(
            stamp,
            Stamp {
                light_ms: 54_500 + 2_000,
                dark_ms: 60_000,
                lag_ms: 0
            }
        );
        assert_eq!(c.running(), Some(Dark));
        wait(&clock, 10_000);
        let view = c.view(ms(&clock));
        assert_eq!(
            (view.light, view.dark, view.running),
            (56_500, 50_000, Some(Dark))
        );
        assert_eq!(view.at, ms(&clock));
    }

    #[test]
    fn each_clock_starts_after_its_own_first_turn_and_the_first_turn_can_abort() {
        let clock = ManualClock::new();
        let mut c = Clocks::new(live(60, 5), Light, ms(&clock));
        assert_eq!(c.running(), None);
        assert_eq!(c.view(ms(&clock)).first_turn, Some(FIRST_TURN_MS));
        let abort = c.deadline().unwrap();
        assert_eq!(
            abort,
            Deadline {
                at: ms(&clock) + 30_000,
                verdict: Verdict::Abort(Light)
            }
        );
        wait(&clock, 20_000);
        assert_eq!(c.view(ms(&clock)).first_turn, Some(10_000));
        let first = c.turn(ms(&clock), 0).unwrap();
        assert_eq!(
            (first.light_ms, first.dark_ms),
            (60_000, 60_000),
            "not charged, no increment"
        );
        assert_eq!(c.running(), None, "Dark has not started");
        assert_eq!(c.deadline().unwrap().verdict, Verdict::Abort(Dark));
        assert_eq!(
            c.deadline().unwrap().at,
            ms(&clock) + 30_000,
            "counted from Light's first turn"
        );
        wait(&clock, 30_000);
        assert_eq!(c.check(ms(&clock)), Err(c.deadline().unwrap()));
        assert_eq!(
            c.turn(ms(&clock), 0),
            Err(c.deadline().unwrap()),
            "too late to start"
        );
        assert_eq!(Verdict::Abort(Dark).outcome(), Outcome::Aborted);
        // Had Dark started in time, Light's clock would run from there.
        let mut c = Clocks::new(live(60, 5), Light, 0);
        c.turn(10_000, 0).unwrap();
        c.turn(39_999, 0).unwrap();
        assert_eq!(c.running(), Some(Light));
        assert_eq!(c.view(40_999).light, 59_000);
    }

    #[test]
    fn the_flag_falls_at_the_deadline_with_nobody_sending_anything() {
        let clock = ManualClock::new();
        let mut c = started(live(15, 0), &clock);
        let start = ms(&clock);
        let d = c.deadline().unwrap();
        // 15 s plus Light's whole lag quota (250 ms at the start of a 15-second game).
        assert_eq!(
            d,
            Deadline {
                at: start + 15_250,
                verdict: Verdict::Timeout(Light)
            }
        );
        wait(&clock, 15_249);
        assert_eq!(c.check(ms(&clock)), Ok(()));
        wait(&clock, 1);
        assert_eq!(c.check(ms(&clock)), Err(d));
        // The turn that arrives now is refused and nothing changes.
        let before = c.clone();
        assert_eq!(c.turn(ms(&clock), 10_000), Err(d));
        assert_eq!(c, before);
        assert_eq!(
            d.verdict.outcome(),
            Outcome::Win {
                winner: Dark,
                reason: mill_core::WinReason::Timeout
            }
        );
        assert_eq!(c.view(ms(&clock)).light, 0, "never shown below zero");
    }

    #[test]
    fn lag_is_given_back_within_the_quota_and_lying_gains_nothing_more() {
        let clock = ManualClock::new();
        // 3+2: quota starts at 1 s, grows 0.2 s a turn, capped at 2 s.
        let mut honest = started(live(180, 2), &clock);
        let mut liar = honest.clone();
        let t0 = ms(&clock);
        let t1 = t0 + 5_000;
        let a = honest.turn(t1, 300).unwrap();
        let b = liar.turn(t1, 3_600_000).unwrap();
        assert_eq!(a.lag_ms, 300);
        assert_eq!(a.light_ms, 180_000 - 4_700 + 2_000);
        assert_eq!(b.lag_ms, 1_000, "at most the quota");
        assert_eq!(b.light_ms, 180_000 - 4_000 + 2_000);
        assert_eq!(*honest.quota.get(Light), 1_000 - 300 + 200);
        assert_eq!(*liar.quota.get(Light), 200, "spent, then a tenth of the cap back");
        // Over a long game the liar is given back exactly what the quota allows.
        let mut t = t1;
        let mut given = b.lag_ms;
        for _ in 0..100 {
            t += 1_000;
            liar.turn(t, 0).unwrap(); // Dark
            t += 1_000;
            given += liar.turn(t, i64::MAX).unwrap().lag_ms;
        }
        // The first turn's 1 s, then a tenth of the cap (0.2 s) for each of 100 turns.
        assert_eq!(given, 1_000 + 100 * 200);
        // The quota is capped: an honest player who never lags saves at most 2 s.
        let mut t = t1;
        for _ in 0..50 {
            t += 1_000;
            honest.turn(t, 0).unwrap();
            t += 1_000;
            honest.turn(t, 0).unwrap();
        }
        assert_eq!(*honest.quota.get(Light), 2_000);
        assert_eq!(honest.deadline().unwrap().at - t, honest.view(t).dark + 2_000);
    }

    #[test]
    fn a_turn_inside_the_allowance_stands_only_with_the_lag_to_cover_it() {
        let mut c = Clocks::new(live(60, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        // Light has 60 s and a quota of 0.5 s; the flag falls at 60.5 s.
        assert_eq!(c.deadline().unwrap().at, 60_500);
        let late_without_lag = c.clone().turn(60_200, 100);
        assert_eq!(
            late_without_lag,
            Err(Deadline {
                at: 60_500,
                verdict: Verdict::Timeout(Light)
            }),
            "60.2 s less 0.1 s of lag is over the 60 s left"
        );
        let stamp = c.clone().turn(60_200, 300).unwrap();
        assert_eq!((stamp.light_ms, stamp.lag_ms), (100, 300));
    }

    #[test]
    fn the_increment_comes_after_the_whole_turn_not_after_its_first_action() {
        let mut c = Clocks::new(live(20, 10), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        // The move that closes a mill comes at 15 s; the removal at 21 s is late, even
        // though the increment would have covered it had it been added after the move.
        assert_eq!(c.check(15_000), Ok(()));
        assert_eq!(c.turn(21_000, 0).unwrap_err().verdict, Verdict::Timeout(Light));
        let ok = c.turn(19_000, 0).unwrap();
        assert_eq!(ok.light_ms, 1_000 + 10_000);
    }

    #[test]
    fn a_disconnected_player_cannot_stop_their_own_clock() {
        // Light, to move, disconnects: nothing is told to the clocks, which keep
        // counting Light's time, and the flag falls as usual.
        let mut c = Clocks::new(live(30, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        let d = c.deadline().unwrap();
        assert_eq!(d.verdict, Verdict::Timeout(Light));
        assert_eq!(c.check(d.at), Err(d));
        // Light's own absence is never a pause: only Dark's (the side not to move) is.
        // Light returns in time and plays; then Dark, to move, leaves: Dark's time runs.
        let mut c = Clocks::new(live(30, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        c.turn(10_000, 0).unwrap();
        assert_eq!(c.running(), Some(Dark));
        assert_eq!(c.view(25_000).dark, 15_000);
    }

    #[test]
    fn nobody_is_flagged_while_the_opponent_is_away() {
        let mut c = Clocks::new(live(30, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        // Light to move; Dark leaves at 10 s: Light's board is inactive, its time stops.
        let paused = c.pause(10_000).unwrap();
        assert_eq!(paused.light_ms, 20_000);
        assert!(c.is_paused());
        assert_eq!(c.running(), None);
        assert_eq!(c.deadline(), None, "no flag can fall");
        assert_eq!(c.check(1_000_000), Ok(()));
        assert_eq!(c.view(1_000_000).light, 20_000);
        // A second report of the same absence changes nothing.
        assert_eq!(c.pause(50_000).unwrap().light_ms, 20_000);
        // Dark is back an hour later: Light's 20 s count from then.
        c.resume(3_600_000);
        assert_eq!(c.running(), Some(Light));
        assert_eq!(c.deadline().unwrap().at, 3_600_000 + 20_000 + 250);
        assert_eq!(c.view(3_605_000).light, 15_000);
    }

    #[test]
    fn an_outage_is_nobodys_time_and_counts_once() {
        let mut c = Clocks::new(live(60, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        // Light thinks 10 s, then the server is down from 10 s to 40 s.
        c.skip(10_000, 40_000);
        assert_eq!(c.view(40_000).light, 50_000, "the outage is not charged");
        assert_eq!(
            c.view(45_000).light,
            45_000,
            "Light's time runs again from the restart"
        );
        assert_eq!(c.deadline().unwrap().at, 40_000 + 50_000 + 500);
        // Told again (another instance, a replay): nothing more.
        let before = c.clone();
        c.skip(10_000, 40_000);
        c.skip(5_000, 20_000);
        assert_eq!(c, before);
        // A turn after it is charged only the time since the restart.
        let stamp = c.turn(46_000, 0).unwrap();
        assert_eq!(stamp.light_ms, 44_000);
        // A flag that fell before the outage stands; a paused clock has nothing to skip.
        let mut late = Clocks::new(live(15, 0), Light, 0);
        late.turn(0, 0).unwrap();
        late.turn(0, 0).unwrap();
        late.skip(20_000, 30_000);
        assert_eq!(late.check(30_000).unwrap_err().verdict, Verdict::Timeout(Light));
        // The first turn's allowance is kept the same way.
        let mut first = Clocks::new(live(60, 0), Light, 0);
        first.skip(10_000, 100_000);
        assert_eq!(first.view(100_000).first_turn, Some(20_000));
    }

    #[test]
    fn a_pause_does_not_rescue_a_flag_that_has_already_fallen() {
        let mut c = Clocks::new(live(15, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        let d = c.deadline().unwrap();
        let before = c.clone();
        assert_eq!(c.pause(d.at + 1), Err(d));
        assert_eq!(c, before);
    }

    #[test]
    fn the_first_turn_deadline_also_waits_for_an_absent_opponent() {
        let mut c = Clocks::new(live(60, 0), Light, 0);
        c.pause(10_000).unwrap();
        assert_eq!(c.deadline(), None);
        c.resume(100_000);
        assert_eq!(
            c.deadline().unwrap(),
            Deadline {
                at: 120_000,
                verdict: Verdict::Abort(Light)
            }
        );
    }

    #[test]
    fn the_claim_waits_for_the_grace_and_never_comes_in_correspondence() {
        let control = live(300, 3);
        assert!(!may_claim(control, 1_000, 1_000 + 41_999));
        assert!(may_claim(control, 1_000, 1_000 + 42_000));
        assert!(!may_claim(
            TimeControl::Correspondence { days: 1 },
            0,
            100 * DAY_MS
        ));
    }

    #[test]
    fn a_correspondence_turn_has_its_days_and_each_turn_gets_them_again() {
        let days = TimeControl::Correspondence { days: 3 };
        let mut c = Clocks::new(days, Light, 0);
        // The first turn may take up to the days of a turn; then it is aborted.
        assert_eq!(
            c.deadline().unwrap(),
            Deadline {
                at: 3 * DAY_MS,
                verdict: Verdict::Abort(Light)
            }
        );
        c.turn(DAY_MS, 0).unwrap();
        c.turn(2 * DAY_MS, 0).unwrap();
        // Light's clock now runs: 3 days from Dark's turn, no lag allowance.
        let d = c.deadline().unwrap();
        assert_eq!(
            d,
            Deadline {
                at: 5 * DAY_MS,
                verdict: Verdict::Timeout(Light)
            }
        );
        let stamp = c.turn(5 * DAY_MS - 1, 50).unwrap();
        assert_eq!(
            (stamp.light_ms, stamp.lag_ms),
            (3 * DAY_MS, 0),
            "the full days again"
        );
        assert_eq!(c.deadline().unwrap().at, 8 * DAY_MS - 1);
        // An absent opponent is normal there: nothing pauses.
        c.pause(6 * DAY_MS).unwrap();
        assert!(!c.is_paused());
        assert_eq!(
            c.check(8 * DAY_MS - 1).unwrap_err().verdict,
            Verdict::Timeout(Dark)
        );
    }

    #[test]
    fn a_takeback_charges_the_side_that_was_to_move_and_gives_nothing_back() {
        let mut c = Clocks::new(live(60, 5), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        c.turn(10_000, 0).unwrap(); // Light: 60 - 10 + 5 = 55 s
        // Dark, to move, accepts Light's takeback after 4 s: Light is to move again.
        let stamp = c.takeback(14_000, Light).unwrap();
        assert_eq!((stamp.light_ms, stamp.dark_ms), (55_000, 56_000));
        assert_eq!(c.running(), Some(Light));
        assert_eq!(c.view(20_000).light, 49_000);
    }

    #[test]
    fn a_finished_round_stops_both_clocks() {
        let mut c = Clocks::new(live(60, 0), Light, 0);
        c.turn(0, 0).unwrap();
        c.turn(0, 0).unwrap();
        let stamp = c.finish(7_000);
        assert_eq!(stamp.light_ms, 53_000);
        assert_eq!((c.running(), c.deadline()), (None, None));
        assert_eq!(c.view(1_000_000).light, 53_000);
        assert_eq!(c.finish(9_000), stamp, "finished once");
    }

    /// A round's events as the server would store them, replayed as after a restart or
    /// on another instance: the same clocks, and the stored times win over a change of
    /// this module's numbers.
    #[test]
    fn replaying_the_stored_events_gives_the_same_clocks() {
        #[derive(Clone, Copy)]
        enum Ev {
            Turn(i64, i64),
            Away(i64),
            Back(i64),
        }
        let control = live(60, 2);
        let events = [
            Ev::Turn(3_000, 0),
            Ev::Turn(8_000, 0),
            Ev::Turn(12_000, 250),
            Ev::Away(13_000),
            Ev::Back(40_000),
            Ev::Turn(47_000, 900),
            Ev::Turn(49_000, 10),
        ];
        let mut live_clocks = Clocks::new(control, Light, 0);
        let mut stored = Vec::new();
        for ev in events {
            let (at, stamp) = match ev {
                Ev::Turn(at, lag) => (at, live_clocks.turn(at, lag).unwrap()),
                Ev::Away(at) => (at, live_clocks.pause(at).unwrap()),
                Ev::Back(at) => (at, live_clocks.resume(at)),
            };
            stored.push((ev, at, stamp));
        }
        let mut replayed = Clocks::new(control, Light, 0);
        for &(ev, at, stamp) in &stored {
            match ev {
                // The lag stored is what was given back, so replay gives the same.
                Ev::Turn(..) => assert_eq!(replayed.turn(at, stamp.lag_ms).unwrap(), stamp),
                Ev::Away(_) => assert_eq!(replayed.pause(at).unwrap(), stamp),
                Ev::Back(_) => assert_eq!(replayed.resume(at), stamp),
            }
            replayed.settle(stamp, at);
        }
        assert_eq!(replayed, live_clocks);
        assert_eq!(replayed.deadline(), live_clocks.deadline());
        // Stored times are kept even when the arithmetic would now say otherwise.
        let mut changed = Clocks::new(control, Light, 0);
        changed.turn(3_000, 0).unwrap();
        changed.turn(8_000, 0).unwrap();
        changed.turn(12_000, 0).unwrap();
        changed.settle(
            Stamp {
                light_ms: 42_000,
                dark_ms: 61_000,
                lag_ms: 0,
            },
            12_000,
        );
        assert_eq!(changed.view(13_000).dark, 60_000);
        assert_eq!(changed.view(13_000).light, 42_000);
    }

    #[test]
    fn the_view_has_the_wire_shape() {
        let mut c = Clocks::new(live(180, 2), Light, 1_000);
        c.turn(2_000, 0).unwrap();
        let json = serde_json::to_value(c.view(2_500)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "light": 180_000, "dark": 180_000, "running": null, "at": 2_500,
                "first_turn": 29_500, "claim_at": null, "control": {"initial": 180, "increment": 2}
            })
        );
        // Dark away since 3 s: Light may claim after the grace (3+2: 40 s).
        let view = c.view(2_500).with_claim(Some(3_000), false);
        assert_eq!(view.claim_at, Some(43_000));
        assert!(may_claim(c.control(), 3_000, 43_000));
        assert_eq!(c.view(2_500).with_claim(Some(3_000), true).claim_at, None, "over");
        let post = Clocks::new(TimeControl::Correspondence { days: 1 }, Light, 0);
        assert_eq!(post.view(0).with_claim(Some(0), false).claim_at, None);
    }
}

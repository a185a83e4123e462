//! The `state` message: the game view with the room's round, version, offers and clocks,
//! and the seats' public facts (who holds them, online, the account's name and rating).

use super::*;

/// A round's result in the shape protocol 1 first sent (`outcome`, from mill-core's
/// view, says the same in mill-core's shape; this stays for older pages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultView {
    /// Winner, `None` for a draw or an aborted round.
    pub winner: Option<Color>,
    /// `pieces`, `blocked`, `resignation`, `mill`, `timeout`, `abandoned` (with a winner);
    /// `threefold`, `hundred-turns`, `agreement`, `board-full`, `abandoned`, `aborted`
    /// (without).
    pub reason: String,
}

impl From<Outcome> for ResultView {
    fn from(outcome: Outcome) -> ResultView {
        ResultView {
            winner: outcome.winner(),
            reason: outcome.reason_name().into(),
        }
    }
}

/// What an offer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OfferKind {
    /// A draw by agreement.
    Draw,
    /// Taking back the offering side's last turn.
    Takeback,
    /// A rematch in a new room.
    Rematch,
}

/// An offer the other side has just declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declined {
    /// What was offered.
    pub offer: OfferKind,
    /// The seat that declined it.
    pub by: Color,
}

/// Standing offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offers {
    /// The seat that offered a draw.
    pub draw: Option<Color>,
    /// Seats that asked for a new round.
    pub new_round: Vec<Color>,
    /// The seat that asked to take back its last turn. Added in protocol 1 (additive).
    #[serde(default)]
    pub takeback: Option<Color>,
    /// The offer declined by the latest event of the round, if it was a decline; gone
    /// with the next event. Added in protocol 1 (additive).
    #[serde(default)]
    pub declined: Option<Declined>,
    /// Whether a rematch may be offered in this room (it was made by quick pairing).
    /// Added in protocol 1 (additive).
    #[serde(default)]
    pub rematch_open: bool,
    /// The seat that offered a rematch, while the offer stands. Added in protocol 1
    /// (additive).
    #[serde(default)]
    pub rematch: Option<Color>,
    /// The new room, once both offered a rematch: each seat's page goes there with the
    /// key it sent (colours swapped). Added in protocol 1 (additive).
    #[serde(default)]
    pub rematch_room: Option<String>,
}

/// The game part of the `state` message: everything that changes only through stored
/// events. mill-core's [`view::GameView`] (the same snapshot the browser build gives
/// for local play) flattened, with the room's round, version and offers around it, and
/// the two fields protocol 1 sent before the core view said more. Derefs to the core view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameView {
    /// Room id.
    pub room: String,
    /// Round number from 1.
    pub round: u32,
    /// Confirmed actions in the round.
    pub version: u32,
    /// The game itself: position, phases, counts, legal clicks, record, last turn,
    /// closed mills, outcome.
    #[serde(flatten)]
    pub game: view::GameView,
    /// The last action (kept for older pages: `last_turn_actions` says more).
    pub last_action: Option<String>,
    /// Standing offers.
    pub offers: Offers,
    /// The result once the round is over (kept for older pages: `outcome`).
    pub result: Option<ResultView>,
    /// The clocks as of this state; `None` in an untimed room. Added to protocol 1
    /// (additive).
    #[serde(default)]
    pub clock: Option<ClockView>,
}

impl std::ops::Deref for GameView {
    type Target = view::GameView;

    fn deref(&self) -> &view::GameView {
        &self.game
    }
}

/// One seat's public facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Someone holds this seat's key.
    pub taken: bool,
    /// A socket holds the seat now.
    pub online: bool,
}

/// The account holding a seat, as the room's `state` tells it (added to protocol 1:
/// additive). Read from the database when the room is loaded, when a seat is bound to
/// an account and when a rated round ends (`rooms/players.rs`), never for each state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPlayer {
    /// The account's name as its player typed it.
    pub name: String,
    /// The account's rating for the room's rule set and speed, rounded (`None` in an
    /// untimed room, which has no speed); 1500 for an account without a rated game of
    /// that rule set and speed yet.
    pub rating: Option<i64>,
    /// The rating is provisional (RD ≥ 110); with `rating`.
    pub provisional: bool,
    /// After a rated round: the rating's change by that round, `round(after) −
    /// round(before)`, and the round it is for.
    pub change: Option<(u32, i64)>,
}

/// What a room's `state` tells about its players beside the seats' presence: whether
/// the room is rated and the account behind each seat (none for an anonymous one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Players {
    /// Made by rated pairing.
    pub rated: bool,
    /// The account behind each seat.
    pub seats: ByColor<Option<SeatPlayer>>,
}

/// Serializes a state message without cloning the game view. `spectators` is the number
/// of sockets watching without a seat (added to protocol 1; older pages ignore it).
pub fn state_text(game: &GameView, seats: ByColor<SeatView>, spectators: usize) -> String {
    room_state_text(game, seats, spectators, &Players::default())
}

/// [`state_text`] with the room's players: `rated`, and each account seat's `name`,
/// `rating`, `provisional` and, once that round is over, `change` (all added to
/// protocol 1: additive; an anonymous seat has none of them).
pub fn room_state_text(
    game: &GameView,
    seats: ByColor<SeatView>,
    spectators: usize,
    players: &Players,
) -> String {
    #[derive(Serialize)]
    struct Seat<'a> {
        #[serde(flatten)]
        seat: SeatView,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rating: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        provisional: Option<bool>,
        #[serde(skip_serializing_if = "Option::is_none")]
        change: Option<i64>,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        #[serde(rename = "type")]
        kind: ServerType,
        #[serde(flatten)]
        game: &'a GameView,
        seats: ByColor<Seat<'a>>,
        spectators: usize,
        rated: bool,
    }
    let over = game.result.is_some();
    let seats = ByColor::new_with(|c| {
        let player = players.seats.get(c).as_ref();
        let rating = player.and_then(|p| p.rating);
        Seat {
            seat: *seats.get(c),
            name: player.map(|p| p.name.as_str()),
            rating,
            provisional: player.filter(|_| rating.is_some()).map(|p| p.provisional),
            change: player
                .and_then(|p| p.change)
                .filter(|&(round, _)| over && round == game.round)
                .map(|(_, change)| change),
        }
    });
    serde_json::to_string(&Out {
        kind: ServerType::State,
        game,
        seats,
        spectators,
        rated: players.rated,
    })
    .expect("state always serializes")
}

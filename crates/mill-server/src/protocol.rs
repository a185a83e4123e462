//! The wire format (docs/PROTOCOL.md): client and server messages and the state snapshot.

use std::fmt;

use mill_core::{ByColor, Color, Outcome, PlayError, view};
use serde::{Deserialize, Serialize};

use crate::timecontrol::ClockView;

/// The protocol version; an old page with another number is told to reload.
pub const PROTOCOL: u32 = 1;
/// Largest text frame the server reads; larger ones get `too-large`.
pub const MAX_TEXT: usize = 4096;
/// Largest frame the WebSocket layer accepts at all (it closes with 1009 beyond).
pub const MAX_FRAME: usize = 64 * 1024;
/// Longest client-made command id.
pub const MAX_ID: usize = 64;
/// The start of the ids of the events the server stores by itself ([`ClockEventKind`]);
/// a command id may not start with it, so the two never meet.
pub const SERVER_ID_PREFIX: char = '~';

/// The stable code of a refused message or HTTP request (docs/PROTOCOL.md, "Error
/// codes"). An action the rules refuse carries mill-core's own code instead; [`Code`]
/// is either.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ErrorCode {
    /// Not JSON, not an object, a binary frame, a missing or ill-typed field, a bad id.
    Malformed,
    /// `type` is not a client message type.
    UnknownType,
    /// The frame is over [`MAX_TEXT`] bytes.
    TooLarge,
    /// The first message was not `hello`.
    HelloRequired,
    /// A second `hello` on the same socket.
    AlreadyHello,
    /// The page speaks another protocol version.
    ProtocolMismatch,
    /// No such room.
    UnknownRoom,
    /// The room's stored events do not replay; it is set aside.
    RoomDamaged,
    /// The key does not hold a seat in this room.
    BadKey,
    /// Both seats taken (HTTP join), or too many spectators.
    RoomFull,
    /// A spectator sent a command.
    Spectator,
    /// The command's round/version is not the current one.
    Stale,
    /// The opponent is not connected or has not joined.
    OpponentAway,
    /// An action while the other side is to move.
    NotYourTurn,
    /// A command that needs a round in play after it has ended.
    GameOver,
    /// `new-round` while the round is being played.
    RoundNotOver,
    /// Accepting or declining without an offer from the opponent.
    NoDrawOffer,
    /// Offering a draw or a takeback while that offer stands.
    AlreadyOffered,
    /// Accepting or declining a takeback the opponent has not asked for.
    NoTakebackOffer,
    /// A takeback asked before playing anything in this round.
    NothingToTakeBack,
    /// A takeback asked after the opponent has played: it would undo their turn.
    OpponentPlayed,
    /// The action text is not an action.
    BadAction,
    /// Too many messages, rooms or joins.
    RateLimited,
    /// HTTP: the room has no round with this number.
    UnknownRound,
    /// HTTP: a room asked for under rules that are not a rule set (`six+per-mill`).
    BadRules,
    /// HTTP: a room asked for with a `clock` that is not a time control.
    BadClock,
    /// HTTP: a pair request whose `seeker` or `seek` id is not 8 to 64 letters, digits,
    /// `-` or `_`.
    BadSeek,
    /// HTTP: the seek was cancelled, or replaced by a newer seek of the same seeker.
    SeekWithdrawn,
    /// HTTP: a pair request whose `seek` id is another seek's (another seeker's, or one
    /// already answered); nothing was stored and no other seek was touched.
    SeekTaken,
    /// HTTP 429: a seek that would wait while its address already holds as many open
    /// seeks as it may (`--max-seeks-per-address`); nothing was stored.
    TooManySeeks,
    /// A command after the side's time ran out: the round ends on time instead.
    OutOfTime,
    /// `claim-win` or `call-draw` when the room has no live clock, the opponent is
    /// present, or has not been away for the grace yet.
    NoClaim,
    /// HTTP: no such API endpoint.
    NotFound,
    /// HTTP: the endpoint does not take this method.
    MethodNotAllowed,
    /// HTTP: a plain request to the WebSocket endpoint.
    NotWebsocket,
    /// No `hello` within the deadline after the socket opened.
    HelloTimeout,
    /// HTTP 429: the address holds its share of open connections.
    TooManyConnections,
    /// HTTP 503: the server holds as many connections as it may.
    ServerBusy,
    /// HTTP 413: the request body is over the limit.
    BodyTooLarge,
    /// HTTP 408: the request took too long.
    Timeout,
    /// HTTP 409: an account with this name (without regard to case) exists.
    NameTaken,
    /// HTTP 400: not an account name (3 to 20 letters, digits, `_` or `-`; not reserved).
    BadName,
    /// HTTP 400: the password is too short, too long, or one of the most common ones.
    WeakPassword,
    /// HTTP 401: no account with this name and password (the same answer for both).
    BadCredentials,
    /// HTTP 429: too many failed sign-ins for this name or from this address.
    Throttled,
    /// HTTP 403: a state-changing request another site made a browser send.
    CrossSite,
    /// HTTP 401: the request needs a signed-in session.
    SignInRequired,
    /// HTTP 404: no player with this name.
    UnknownPlayer,
    /// `offer-takeback` in a rated room: rated games have no takebacks.
    RatedRound,
    /// HTTP 400: a passkey request from a page at an address passkeys are not set up for.
    PasskeyUnavailable,
    /// HTTP 400: a passkey ceremony that is unknown, already finished, or expired.
    CeremonyExpired,
    /// HTTP 401: a passkey answer that does not verify, or a passkey of no account.
    PasskeyRefused,
    /// HTTP 400: an arena asked for with a bad name, rules, clock, duration, start or
    /// `rated`.
    BadArena,
    /// HTTP 404: no arena with this id.
    UnknownArena,
    /// HTTP 409: the arena is over; nobody joins or leaves it any more.
    ArenaFinished,
    /// HTTP 409: pause or withdraw from an arena the account never joined.
    NotInArena,
    /// `offer-rematch` or `decline-rematch` in a room not made by quick pairing.
    NotPaired,
    /// `decline-rematch` without a standing rematch offer.
    NoRematchOffer,
    /// `offer-rematch` after the rematch was agreed: its room exists.
    RematchAgreed,
    /// HTTP 400: `GET /api/tb/probe` without a position, or with one that is not a
    /// position string or MFEN record of the rule set asked for.
    BadPosition,
    /// HTTP 404: `GET /api/tb/probe` for a position the server's endgame tables do not
    /// cover (a hand not empty, a removal pending, a material without its table).
    NotInTables,
    /// A `hello` asking for the signed-in account's seat (`"account": true`) from an
    /// account that holds no seat in the room (another account's cookie).
    NotSeated,
    /// The server failed.
    Internal,
}

impl ErrorCode {
    /// The code as it goes on the wire, e.g. `"not-your-turn"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What became of a quick-pairing request (`POST /api/pair`), its answer's `outcome`:
/// both are answers, not errors (docs/PROTOCOL.md, "Pair outcomes").
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum PairOutcome {
    /// An opponent came: the seat of a new room (201).
    Paired,
    /// Nobody with the same rules and clock came within the pairing wait (200).
    NoOpponent,
}

impl PairOutcome {
    /// The outcome as it goes on the wire, e.g. `"no-opponent"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The `code` of an `error` message: one of the server's own, or mill-core's stable code
/// for a well-formed action the rules refuse (`occupied`, `not-adjacent`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The server's own refusal.
    Server(ErrorCode),
    /// The rules' refusal.
    Rules(PlayError),
}

impl Code {
    /// The code as it goes on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Server(code) => code.as_str(),
            Code::Rules(e) => e.code(),
        }
    }
}

impl From<ErrorCode> for Code {
    fn from(code: ErrorCode) -> Code {
        Code::Server(code)
    }
}

impl From<PlayError> for Code {
    fn from(e: PlayError) -> Code {
        Code::Rules(e)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// WebSocket close codes (docs/PROTOCOL.md, "WebSocket close codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
#[repr(u16)]
pub enum CloseCode {
    /// Normal close.
    Normal = 1000,
    /// The server is shutting down: reconnect with backoff.
    GoingAway = 1001,
    /// Flooding.
    Policy = 1008,
    /// A frame over [`MAX_FRAME`].
    TooBig = 1009,
    /// Another socket took this seat with the same key.
    Replaced = 4000,
    /// Protocol mismatch: reload the page.
    ProtocolMismatch = 4001,
    /// Bad seat key.
    BadKey = 4003,
    /// Unknown room.
    UnknownRoom = 4004,
    /// No `hello` in time.
    HelloTimeout = 4008,
    /// Too many spectators.
    RoomFull = 4009,
    /// The room's stored events do not replay; it is set aside.
    RoomDamaged = 4010,
    /// The socket fell behind: what the room sent it filled its queue. Reconnect for
    /// a fresh state.
    TooSlow = 4011,
    /// A hello asking for the signed-in account's seat, without a session or from an
    /// account that holds no seat in the room.
    NotSeated = 4012,
}

impl CloseCode {
    /// The number in the close frame.
    pub fn code(self) -> u16 {
        self as u16
    }

    /// Whether a page must not reconnect by itself after this close: trying again
    /// would meet the same answer.
    pub fn is_final(self) -> bool {
        match self {
            CloseCode::Replaced
            | CloseCode::ProtocolMismatch
            | CloseCode::BadKey
            | CloseCode::NotSeated
            | CloseCode::UnknownRoom
            | CloseCode::RoomFull
            | CloseCode::RoomDamaged => true,
            CloseCode::Normal
            | CloseCode::GoingAway
            | CloseCode::Policy
            | CloseCode::TooBig
            | CloseCode::HelloTimeout
            | CloseCode::TooSlow => false,
        }
    }
}

/// Something a seat asks the table to do. The same enum is the wire's command messages
/// (its kind is the message `type`), the table's input, and the stored event (its kind
/// is the `kind` column, with the action text in `action`).
#[derive(Debug, Clone, PartialEq, Eq, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(CommandKind),
    doc = "The kind of a [`Command`]: its message `type` and its stored event kind.",
    derive(
        Hash,
        Serialize,
        Deserialize,
        strum::VariantArray,
        strum::IntoStaticStr,
        strum::EnumString,
        strum::Display
    ),
    serde(rename_all = "kebab-case"),
    strum(serialize_all = "kebab-case")
)]
pub enum Command {
    /// Play an action given in text form ("d6", "a1-a4", "xd2").
    Action(String),
    /// Offer a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer.
    DeclineDraw,
    /// Give up the round.
    Resign,
    /// Ask for a new round after this one is over.
    NewRound,
    /// Ask the opponent to let your last turn be taken back.
    OfferTakeback,
    /// Let the opponent take back their last turn.
    AcceptTakeback,
    /// Refuse the opponent's takeback.
    DeclineTakeback,
    /// In a timed game, after the opponent has been away longer than the grace: win.
    ClaimWin,
    /// In a timed game, after the opponent has been away longer than the grace: end the
    /// round in a draw.
    CallDraw,
    /// After a round of a paired room is over: offer a rematch (the same rules and
    /// clock, colours swapped, in a new room), or accept the opponent's offer. Carries
    /// the SHA-256 of the seat key the sender will hold in the new room (the page makes
    /// the key and sends it in the message's `key`; only its hash is kept and stored).
    OfferRematch(KeyHash),
    /// Decline the opponent's rematch offer, or withdraw one's own.
    DeclineRematch,
}

/// The SHA-256 of a seat key (`keys::hash_key`), as an `offer-rematch` carries it.
/// Its `Debug` shows no bytes, so that no log holds even a hash of a key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct KeyHash(pub [u8; 32]);

impl fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyHash(..)")
    }
}

/// Whether `key` has the shape of a seat key: 64 lowercase hex digits, as
/// `keys::new_seat_key` and the page make them.
pub fn is_seat_key(key: &str) -> bool {
    key.len() == 64
        && key
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl CommandKind {
    /// The kind as it goes on the wire and into the database.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The events the server stores by itself in a timed round, next to the commands
/// (their kinds share the events table's `kind` column; no client sends them). The
/// stored `seat` is the seat the event is about.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ClockEventKind {
    /// The seat's time ran out: the other side wins on time.
    Timeout,
    /// The seat did not make its first turn in time: the round is aborted.
    Abort,
    /// No socket holds the seat on any instance (live games): while the other side is
    /// to move and present, its clock stops; the other may claim after the grace.
    Away,
    /// The seat is held again: a clock stopped for its absence runs again.
    Back,
}

impl ClockEventKind {
    /// The kind as it goes into the database.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Command {
    /// The command's kind.
    pub fn kind(&self) -> CommandKind {
        self.into()
    }

    /// Rebuilds a command from its kind and action text, as stored: the text is there
    /// exactly for actions. An `offer-rematch` needs its key hash too
    /// ([`Command::from_stored`]): here it is `None`.
    pub fn from_parts(kind: CommandKind, action: Option<String>) -> Option<Command> {
        Command::from_stored(kind, action, None)
    }

    /// Rebuilds a command from its stored parts: the action text (exactly for actions)
    /// and the key hash (exactly for `offer-rematch`).
    pub fn from_stored(kind: CommandKind, action: Option<String>, key: Option<KeyHash>) -> Option<Command> {
        match (kind, key) {
            (CommandKind::OfferRematch, Some(key)) if action.is_none() => {
                return Some(Command::OfferRematch(key));
            }
            (CommandKind::OfferRematch, _) | (_, Some(_)) => return None,
            _ => {}
        }
        Some(match (kind, action) {
            (CommandKind::Action, Some(a)) => Command::Action(a),
            (CommandKind::Action, None) | (_, Some(_)) => return None,
            (CommandKind::OfferRematch, None) => return None,
            (CommandKind::DeclineRematch, None) => Command::DeclineRematch,
            (CommandKind::OfferDraw, None) => Command::OfferDraw,
            (CommandKind::AcceptDraw, None) => Command::AcceptDraw,
            (CommandKind::DeclineDraw, None) => Command::DeclineDraw,
            (CommandKind::Resign, None) => Command::Resign,
            (CommandKind::NewRound, None) => Command::NewRound,
            (CommandKind::OfferTakeback, None) => Command::OfferTakeback,
            (CommandKind::AcceptTakeback, None) => Command::AcceptTakeback,
            (CommandKind::DeclineTakeback, None) => Command::DeclineTakeback,
            (CommandKind::ClaimWin, None) => Command::ClaimWin,
            (CommandKind::CallDraw, None) => Command::CallDraw,
        })
    }

    /// Rebuilds a command from a stored event's `kind` and `action` columns.
    pub fn from_event(kind: &str, action: Option<String>) -> Option<Command> {
        Command::from_parts(kind.parse().ok()?, action)
    }

    /// The action text, for actions.
    pub fn action_text(&self) -> Option<&str> {
        match self {
            Command::Action(a) => Some(a),
            _ => None,
        }
    }

    /// The key hash, for `offer-rematch` (the events' `key_hash` column).
    pub fn key_hash(&self) -> Option<&KeyHash> {
        match self {
            Command::OfferRematch(key) => Some(key),
            _ => None,
        }
    }

    /// Whether the command needs the opponent online (the game itself moves on). A
    /// claim needs the opponent away, which its own check decides.
    pub fn needs_opponent_online(&self) -> bool {
        matches!(
            self,
            Command::Action(_)
                | Command::OfferDraw
                | Command::AcceptDraw
                | Command::OfferTakeback
                | Command::AcceptTakeback
                | Command::OfferRematch(_)
        )
    }
}

/// The client messages that are not commands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray, strum::IntoStaticStr, strum::EnumString,
)]
#[strum(serialize_all = "kebab-case")]
pub enum ControlType {
    /// Take a seat or watch; the first message.
    Hello,
    /// Ask for the state again.
    Sync,
    /// Liveness check.
    Ping,
}

impl ControlType {
    /// The `type` string.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The type of a message a client may send: a control message or a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientType {
    /// `hello`, `sync` or `ping`.
    Control(ControlType),
    /// A command.
    Command(CommandKind),
}

impl ClientType {
    /// Every client message type, in the order docs/PROTOCOL.md lists them.
    pub fn all() -> impl Iterator<Item = ClientType> {
        use strum::VariantArray;
        let control = |c| ClientType::Control(c);
        std::iter::once(control(ControlType::Hello))
            .chain(CommandKind::VARIANTS.iter().map(|&k| ClientType::Command(k)))
            .chain(
                ControlType::VARIANTS
                    .iter()
                    .filter(|&&c| c != ControlType::Hello)
                    .map(move |&c| control(c)),
            )
    }

    /// The `type` string.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientType::Control(c) => c.as_str(),
            ClientType::Command(k) => k.as_str(),
        }
    }
}

impl std::str::FromStr for ClientType {
    type Err = strum::ParseError;

    fn from_str(s: &str) -> Result<ClientType, strum::ParseError> {
        s.parse()
            .map(ClientType::Control)
            .or_else(|_| s.parse().map(ClientType::Command))
    }
}

/// The types of the messages the server sends.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ServerType {
    /// Answer to a good hello.
    Welcome,
    /// The snapshot.
    State,
    /// A command was stored durably.
    Ack,
    /// A refused message.
    Error,
    /// Another socket took this seat.
    Replaced,
    /// Answer to ping.
    Pong,
}

/// The `type` of a message on an arena socket (`GET /api/arenas/{id}/ws`,
/// `arena/api.rs`); the socket takes no messages.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ArenaMessage {
    /// The arena and one page of its standings, as `GET /api/arenas/{id}` answers, when
    /// they change.
    Standings,
    /// To a player: their own row of the standings (`row`), when it changes, wherever it
    /// stands.
    OwnStanding,
    /// To a player: a game of theirs began (`room`, `seat`, `key`).
    Paired,
}

impl ArenaMessage {
    /// The `type` string.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl ServerType {
    /// The `type` string.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientMsg {
    /// First message: take a seat (with a key) or watch.
    Hello {
        /// The client's protocol version.
        protocol: u32,
        /// Seat key; absent for a spectator.
        key: Option<String>,
        /// Without a key: take the seat bound to the socket's signed-in account (its
        /// session cookie came with the upgrade), on another device than the one that
        /// holds the key. Absent: `false`.
        account: bool,
    },
    /// A command, on the state it was made on.
    Command {
        /// Client-made id.
        id: String,
        /// Round it was made in.
        round: u32,
        /// Version it was made on.
        version: u32,
        /// What it asks for.
        command: Command,
    },
    /// Ask for the state again.
    Sync,
    /// Liveness check.
    Ping,
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMessage {
    /// [`ErrorCode::Malformed`] or [`ErrorCode::UnknownType`].
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

#[derive(Deserialize)]
struct HelloFields {
    protocol: u32,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    account: bool,
}

#[derive(Deserialize)]
struct CommandFields {
    id: String,
    round: u32,
    version: u32,
    action: Option<String>,
    #[serde(default)]
    key: Option<String>,
}

impl ClientMsg {
    /// Reads one text frame, telling malformed JSON from an unknown type.
    pub fn parse(text: &str) -> Result<ClientMsg, BadMessage> {
        let malformed = |message: String| BadMessage {
            code: ErrorCode::Malformed,
            message,
        };
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| malformed(format!("The message is not valid JSON ({e}).")))?;
        let Some(kind) = value.get("type") else {
            return Err(malformed(
                "The message must be a JSON object with a \"type\".".into(),
            ));
        };
        let Some(kind) = kind.as_str().map(str::to_string) else {
            return Err(malformed("\"type\" must be a string.".into()));
        };
        let Ok(client_type) = kind.parse::<ClientType>() else {
            return Err(BadMessage {
                code: ErrorCode::UnknownType,
                message: format!("Unknown message type {kind:?}."),
            });
        };
        let bad = |e: serde_json::Error| malformed(format!("Bad {kind:?} message: {e}."));
        match client_type {
            ClientType::Control(ControlType::Hello) => {
                let HelloFields {
                    protocol,
                    key,
                    account,
                } = serde_json::from_value(value).map_err(bad)?;
                Ok(ClientMsg::Hello {
                    protocol,
                    key,
                    account,
                })
            }
            ClientType::Control(ControlType::Sync) => Ok(ClientMsg::Sync),
            ClientType::Control(ControlType::Ping) => Ok(ClientMsg::Ping),
            ClientType::Command(command_kind) => {
                let CommandFields {
                    id,
                    round,
                    version,
                    action,
                    key,
                } = serde_json::from_value(value).map_err(bad)?;
                // Only an action carries text and only a rematch offer a key; other
                // commands ignore a stray field. The key is hashed at once: nothing
                // past this point holds it.
                let action = action.filter(|_| command_kind == CommandKind::Action);
                let key = match (command_kind, key) {
                    (CommandKind::OfferRematch, Some(key)) if is_seat_key(&key) => {
                        Some(KeyHash(crate::keys::hash_key(&key)))
                    }
                    (CommandKind::OfferRematch, _) => {
                        return Err(malformed(format!(
                            "Bad {kind:?} message: `key` must be a new seat key, 64 lowercase hex digits."
                        )));
                    }
                    _ => None,
                };
                let Some(command) = Command::from_stored(command_kind, action, key) else {
                    return Err(malformed(format!(
                        "Bad {kind:?} message: missing field `action`."
                    )));
                };
                if id.is_empty() || id.chars().count() > MAX_ID {
                    return Err(malformed(format!("\"id\" must be 1 to {MAX_ID} characters.")));
                }
                if id.starts_with(SERVER_ID_PREFIX) {
                    return Err(malformed(format!(
                        "\"id\" must not start with {SERVER_ID_PREFIX:?}: those are the server's own."
                    )));
                }
                Ok(ClientMsg::Command {
                    id,
                    round,
                    version,
                    command,
                })
            }
        }
    }

    /// The message's `type`.
    pub fn client_type(&self) -> ClientType {
        match self {
            ClientMsg::Hello { .. } => ClientType::Control(ControlType::Hello),
            ClientMsg::Command { command, .. } => ClientType::Command(command.kind()),
            ClientMsg::Sync => ClientType::Control(ControlType::Sync),
            ClientMsg::Ping => ClientType::Control(ControlType::Ping),
        }
    }

    /// The JSON text a client sends for the message (what [`ClientMsg::parse`] reads).
    pub fn to_text(&self) -> String {
        #[derive(Serialize, Default)]
        struct Out<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            protocol: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            key: Option<&'a str>,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            account: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            round: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            version: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            action: Option<&'a str>,
        }
        let kind = self.client_type().as_str();
        let out = match self {
            ClientMsg::Hello {
                protocol,
                key,
                account,
            } => Out {
                kind,
                protocol: Some(*protocol),
                key: key.as_deref(),
                account: *account,
                ..Out::default()
            },
            ClientMsg::Command {
                id,
                round,
                version,
                command,
            } => Out {
                kind,
                id: Some(id),
                round: Some(*round),
                version: Some(*version),
                action: command.action_text(),
                ..Out::default()
            },
            ClientMsg::Sync | ClientMsg::Ping => Out {
                kind,
                ..Out::default()
            },
        };
        serde_json::to_string(&out).expect("client messages always serialize")
    }

    /// The JSON text of an `offer-rematch` with the seat key `key` (which
    /// [`ClientMsg::to_text`] cannot write: a parsed command keeps only its hash).
    pub fn offer_rematch_text(id: &str, round: u32, version: u32, key: &str) -> String {
        serde_json::json!({
            "type": CommandKind::OfferRematch.as_str(),
            "id": id,
            "round": round,
            "version": version,
            "key": key,
        })
        .to_string()
    }

    /// `(id, round, version)` for commands; `None` for hello, sync and ping.
    pub fn command_header(&self) -> Option<(&str, u32, u32)> {
        match self {
            ClientMsg::Command {
                id, round, version, ..
            } => Some((id, *round, *version)),
            ClientMsg::Hello { .. } | ClientMsg::Sync | ClientMsg::Ping => None,
        }
    }
}

/// A message from the server (all but `state`, which is [`state_text`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ServerMsg {
    /// Answer to a good hello.
    Welcome {
        /// Server's protocol version.
        protocol: u32,
        /// Room id.
        room: String,
        /// Seat held by this socket, `None` for a spectator.
        seat: Option<Color>,
    },
    /// A command was stored durably.
    Ack {
        /// The command's id.
        id: String,
        /// Round after the command.
        round: u32,
        /// Version after the command.
        version: u32,
        /// True when this id had been applied before.
        duplicate: bool,
    },
    /// A refused message.
    Error {
        /// The command's id, if the message was a readable command.
        id: Option<String>,
        /// Stable code.
        code: Code,
        /// A sentence for people.
        message: String,
        /// Current round (absent before hello).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        round: Option<u32>,
        /// Current version (absent before hello).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        version: Option<u32>,
    },
    /// Another socket took this seat.
    Replaced {
        /// A sentence for people.
        message: String,
    },
    /// Answer to ping.
    Pong,
}

impl ServerMsg {
    /// The JSON text of the message.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("server messages always serialize")
    }
}

mod state;
pub use state::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_keep_their_wire_shape() {
        // mill-core's ByColor carries the seats: the JSON is still PROTOCOL.md's
        // `{"light": {...}, "dark": {...}}`, fields in that order.
        let seats = ByColor::new_with(|c| SeatView {
            taken: true,
            online: c == Color::Dark,
        });
        assert_eq!(
            serde_json::to_string(&seats).unwrap(),
            r#"{"light":{"taken":true,"online":false},"dark":{"taken":true,"online":true}}"#
        );
    }

    #[test]
    fn reads_each_client_message() {
        assert_eq!(
            ClientMsg::parse(r#"{"type":"hello","protocol":1,"key":"ab"}"#).unwrap(),
            ClientMsg::Hello {
                protocol: 1,
                key: Some("ab".into()),
                account: false
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"hello","protocol":1}"#).unwrap(),
            ClientMsg::Hello {
                protocol: 1,
                key: None,
                account: false
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"action","id":"c1","round":1,"version":3,"action":"a1-a4"}"#)
                .unwrap(),
            ClientMsg::Command {
                id: "c1".into(),
                round: 1,
                version: 3,
                command: Command::Action("a1-a4".into())
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"new-round","id":"c2","round":2,"version":0}"#).unwrap(),
            ClientMsg::Command {
                id: "c2".into(),
                round: 2,
                version: 0,
                command: Command::NewRound
            }
        );
        assert_eq!(ClientMsg::parse(r#"{"type":"ping"}"#).unwrap(), ClientMsg::Ping);
    }

    #[test]
    fn what_a_client_writes_reads_back_the_same() {
        use strum::VariantArray;
        let mut messages = vec![
            ClientMsg::Hello {
                protocol: PROTOCOL,
                key: Some("k3y".into()),
                account: false,
            },
            ClientMsg::Hello {
                protocol: 7,
                key: None,
                account: false,
            },
            ClientMsg::Sync,
            ClientMsg::Ping,
        ];
        // `offer-rematch` carries a key its parsed form keeps only the hash of: written
        // by `offer_rematch_text`, below.
        for &kind in CommandKind::VARIANTS
            .iter()
            .filter(|&&k| k != CommandKind::OfferRematch)
        {
            let action = (kind == CommandKind::Action).then(|| "a1-a4".to_string());
            messages.push(ClientMsg::Command {
                id: "c-1".into(),
                round: 2,
                version: 9,
                command: Command::from_parts(kind, action).unwrap(),
            });
        }
        let key = crate::keys::new_seat_key();
        let text = ClientMsg::offer_rematch_text("c-2", 3, 40, &key);
        assert_eq!(
            ClientMsg::parse(&text),
            Ok(ClientMsg::Command {
                id: "c-2".into(),
                round: 3,
                version: 40,
                command: Command::OfferRematch(KeyHash(crate::keys::hash_key(&key))),
            })
        );
        assert!(
            !format!("{:?}", ClientMsg::parse(&text).unwrap()).contains(&key[..16]),
            "a parsed rematch offer holds no key"
        );
        for bad in [None, Some("short"), Some(&key.to_uppercase()[..])] {
            let text =
                serde_json::json!({"type": "offer-rematch", "id": "c", "round": 1, "version": 0, "key": bad});
            assert_eq!(
                ClientMsg::parse(&text.to_string()).unwrap_err().code,
                "malformed",
                "{bad:?}"
            );
        }
        for msg in messages {
            let text = msg.to_text();
            assert_eq!(ClientMsg::parse(&text).as_ref(), Ok(&msg), "{text}");
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["type"], msg.client_type().as_str());
        }
        assert_eq!(
            ClientMsg::Hello {
                protocol: 1,
                key: None,
                account: false
            }
            .to_text(),
            r#"{"type":"hello","protocol":1}"#
        );
    }

    #[test]
    fn tells_malformed_from_unknown() {
        for bad in [
            "not json",
            "[1,2]",
            r#"{"no":"type"}"#,
            r#"{"type":7}"#,
            r#"{"type":"action","id":"c1","round":1,"version":-1,"action":"d6"}"#,
            r#"{"type":"action","id":"","round":1,"version":0,"action":"d6"}"#,
            r#"{"type":"resign","round":1,"version":0}"#,
        ] {
            assert_eq!(ClientMsg::parse(bad).unwrap_err().code, "malformed", "{bad}");
        }
        let long = format!(
            r#"{{"type":"resign","id":"{}","round":1,"version":0}}"#,
            "x".repeat(65)
        );
        assert_eq!(ClientMsg::parse(&long).unwrap_err().code, "malformed");
        let servers = r#"{"type":"action","id":"~timeout-1","round":1,"version":0,"action":"d6"}"#;
        assert_eq!(ClientMsg::parse(servers).unwrap_err().code, "malformed");
        assert_eq!(
            ClientMsg::parse(r#"{"type":"castle"}"#).unwrap_err().code,
            "unknown-type"
        );
    }

    /// serde and strum derive the names from the same variants; they must agree.
    fn serde_name<T: Serialize>(value: T) -> String {
        serde_json::to_value(value).unwrap().as_str().unwrap().to_string()
    }

    #[test]
    fn each_enum_has_one_spelling_per_variant() {
        use strum::VariantArray;
        for &code in ErrorCode::VARIANTS {
            assert_eq!(serde_name(code), code.as_str());
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
            assert_eq!(serde_name(Code::from(code)), code.as_str());
        }
        for &kind in CommandKind::VARIANTS {
            assert_eq!(serde_name(kind), kind.as_str());
            assert_eq!(kind.as_str().parse::<ClientType>(), Ok(ClientType::Command(kind)));
        }
        for &t in ServerType::VARIANTS {
            assert_eq!(serde_name(t), t.as_str());
            assert_eq!(t.as_str().parse::<ServerType>(), Ok(t));
        }
        for &k in ClockEventKind::VARIANTS {
            assert_eq!(serde_name(k), k.as_str());
            assert!(
                k.as_str().parse::<CommandKind>().is_err(),
                "{k} is stored next to the commands and must not be one"
            );
        }
        let client: Vec<_> = ClientType::all().collect();
        assert_eq!(
            client.len(),
            ControlType::VARIANTS.len() + CommandKind::VARIANTS.len()
        );
        for t in client {
            assert_eq!(t.as_str().parse::<ClientType>(), Ok(t));
        }
        assert_eq!(serde_name(Code::from(PlayError::NotAdjacent)), "not-adjacent");
    }

    #[test]
    fn a_command_is_the_same_on_the_wire_and_in_storage() {
        use strum::VariantArray;
        let key = crate::keys::new_seat_key();
        let hash = KeyHash(crate::keys::hash_key(&key));
        for &kind in CommandKind::VARIANTS {
            let action = (kind == CommandKind::Action).then(|| "d6".to_string());
            let stored_key = (kind == CommandKind::OfferRematch).then_some(hash);
            let cmd = Command::from_stored(kind, action.clone(), stored_key).unwrap();
            assert_eq!(cmd.kind(), kind);
            assert_eq!(cmd.action_text(), action.as_deref());
            assert_eq!(cmd.key_hash(), stored_key.as_ref());
            if stored_key.is_none() {
                assert_eq!(
                    Command::from_event(kind.as_str(), action.clone()),
                    Some(cmd.clone())
                );
            } else {
                assert_eq!(
                    Command::from_parts(kind, None),
                    None,
                    "a rematch offer needs its hash"
                );
            }
            let wire_key = stored_key.map(|_| key.clone());
            let text = serde_json::json!({
                "type": kind.as_str(), "id": "c1", "round": 1, "version": 0, "action": action,
                "key": wire_key,
            });
            let ClientMsg::Command { command, .. } = ClientMsg::parse(&text.to_string()).unwrap() else {
                panic!("{kind} is a command");
            };
            assert_eq!(command, cmd);
        }
        assert_eq!(Command::from_event("action", None), None);
        assert_eq!(Command::from_event("resign", Some("d6".into())), None);
        assert_eq!(Command::from_event("castle", None), None);
        assert_eq!(
            Command::from_stored(CommandKind::Resign, None, Some(hash)),
            None,
            "only a rematch offer carries a hash"
        );
        // On the wire a stray "action" on another command is ignored, as any unknown field.
        assert_eq!(
            ClientMsg::parse(r#"{"type":"resign","id":"c1","round":1,"version":0,"action":"d6"}"#)
                .unwrap()
                .command_header(),
            Some(("c1", 1, 0))
        );
    }

    #[test]
    fn every_server_message_type_is_a_server_type() {
        let one_of_each = |msg: &ServerMsg| match msg {
            ServerMsg::Welcome { .. } => ServerType::Welcome,
            ServerMsg::Ack { .. } => ServerType::Ack,
            ServerMsg::Error { .. } => ServerType::Error,
            ServerMsg::Replaced { .. } => ServerType::Replaced,
            ServerMsg::Pong => ServerType::Pong,
        };
        for msg in [
            ServerMsg::Welcome {
                protocol: PROTOCOL,
                room: "r".into(),
                seat: None,
            },
            ServerMsg::Ack {
                id: "c".into(),
                round: 1,
                version: 1,
                duplicate: false,
            },
            ServerMsg::Error {
                id: None,
                code: ErrorCode::Stale.into(),
                message: "m".into(),
                round: None,
                version: None,
            },
            ServerMsg::Replaced { message: "m".into() },
            ServerMsg::Pong,
        ] {
            let value: serde_json::Value = serde_json::from_str(&msg.to_text()).unwrap();
            assert_eq!(value["type"], one_of_each(&msg).as_str());
        }
    }

    #[test]
    fn final_close_codes_are_the_ones_a_retry_cannot_fix() {
        use strum::VariantArray;
        let finals: Vec<u16> = CloseCode::VARIANTS
            .iter()
            .filter(|c| c.is_final())
            .map(|c| c.code())
            .collect();
        assert_eq!(finals, [4000, 4001, 4003, 4004, 4009, 4010, 4012]);
    }

    #[test]
    fn server_messages_have_the_documented_shape() {
        let ack = ServerMsg::Ack {
            id: "c1".into(),
            round: 1,
            version: 4,
            duplicate: false,
        };
        assert_eq!(
            ack.to_text(),
            r#"{"type":"ack","id":"c1","round":1,"version":4,"duplicate":false}"#
        );
        let err = ServerMsg::Error {
            id: None,
            code: ErrorCode::Malformed.into(),
            message: "m".into(),
            round: None,
            version: None,
        };
        assert_eq!(
            err.to_text(),
            r#"{"type":"error","id":null,"code":"malformed","message":"m"}"#
        );
        assert_eq!(ServerMsg::Pong.to_text(), r#"{"type":"pong"}"#);
    }
}

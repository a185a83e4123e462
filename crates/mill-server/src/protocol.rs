//! The wire format (docs/PROTOCOL.md): client and server messages and the state snapshot.

use std::collections::BTreeMap;

use mill_core::{Color, Phase};
use serde::{Deserialize, Serialize};

/// The protocol version; an old page with another number is told to reload.
pub const PROTOCOL: u32 = 1;
/// Largest text frame the server reads; larger ones get `too-large`.
pub const MAX_TEXT: usize = 4096;
/// Largest frame the WebSocket layer accepts at all (it closes with 1009 beyond).
pub const MAX_FRAME: usize = 64 * 1024;
/// Longest client-made command id.
pub const MAX_ID: usize = 64;

/// The message types a client may send.
pub const CLIENT_TYPES: &[&str] = &[
    "hello",
    "action",
    "offer-draw",
    "accept-draw",
    "decline-draw",
    "resign",
    "new-round",
    "sync",
    "ping",
];

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ClientMsg {
    /// First message: take a seat (with a key) or watch.
    Hello {
        /// The client's protocol version.
        protocol: u32,
        /// Seat key; absent for a spectator.
        #[serde(default)]
        key: Option<String>,
    },
    /// Play one action.
    Action {
        /// Client-made id.
        id: String,
        /// Round the action was made in.
        round: u32,
        /// Version it was made on.
        version: u32,
        /// Text form: "d6", "a1-a4", "xd2".
        action: String,
    },
    /// Offer a draw.
    OfferDraw {
        /// Client-made id.
        id: String,
        /// Round.
        round: u32,
        /// Version.
        version: u32,
    },
    /// Accept the opponent's offer.
    AcceptDraw {
        /// Client-made id.
        id: String,
        /// Round.
        round: u32,
        /// Version.
        version: u32,
    },
    /// Decline the opponent's offer.
    DeclineDraw {
        /// Client-made id.
        id: String,
        /// Round.
        round: u32,
        /// Version.
        version: u32,
    },
    /// Give up the round.
    Resign {
        /// Client-made id.
        id: String,
        /// Round.
        round: u32,
        /// Version.
        version: u32,
    },
    /// Ask for a new round once this one is over.
    NewRound {
        /// Client-made id.
        id: String,
        /// Round.
        round: u32,
        /// Version.
        version: u32,
    },
    /// Ask for the state again.
    Sync,
    /// Liveness check.
    Ping,
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMessage {
    /// `malformed` or `unknown-type`.
    pub code: &'static str,
    /// What was wrong, for people.
    pub message: String,
}

impl ClientMsg {
    /// Reads one text frame, telling malformed JSON from an unknown type.
    pub fn parse(text: &str) -> Result<ClientMsg, BadMessage> {
        let malformed = |message: String| BadMessage {
            code: "malformed",
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
        if !CLIENT_TYPES.contains(&kind.as_str()) {
            return Err(BadMessage {
                code: "unknown-type",
                message: format!("Unknown message type {kind:?}."),
            });
        }
        let msg: ClientMsg =
            serde_json::from_value(value).map_err(|e| malformed(format!("Bad {kind:?} message: {e}.")))?;
        if let Some((id, _, _)) = msg.command_header() {
            if id.is_empty() || id.chars().count() > MAX_ID {
                return Err(malformed(format!("\"id\" must be 1 to {MAX_ID} characters.")));
            }
        }
        Ok(msg)
    }

    /// `(id, round, version)` for commands; `None` for hello, sync and ping.
    pub fn command_header(&self) -> Option<(&str, u32, u32)> {
        match self {
            ClientMsg::Action {
                id, round, version, ..
            }
            | ClientMsg::OfferDraw { id, round, version }
            | ClientMsg::AcceptDraw { id, round, version }
            | ClientMsg::DeclineDraw { id, round, version }
            | ClientMsg::Resign { id, round, version }
            | ClientMsg::NewRound { id, round, version } => Some((id, *round, *version)),
            ClientMsg::Hello { .. } | ClientMsg::Sync | ClientMsg::Ping => None,
        }
    }
}

/// A message from the server (all but `state`, which is [`StateMsg`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
        code: String,
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

/// A pair of values, one per side, serialized as `{"light": …, "dark": …}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sides<T> {
    /// Light's value.
    pub light: T,
    /// Dark's value.
    pub dark: T,
}

impl<T> Sides<T> {
    /// Builds both from a function of the colour.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> Sides<T> {
        Sides {
            light: f(Color::Light),
            dark: f(Color::Dark),
        }
    }

    /// The value for `c`.
    pub fn get(&self, c: Color) -> &T {
        match c {
            Color::Light => &self.light,
            Color::Dark => &self.dark,
        }
    }

    /// The value for `c`, mutably.
    pub fn get_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::Light => &mut self.light,
            Color::Dark => &mut self.dark,
        }
    }
}

/// The legal clicks of the side to move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legal {
    /// Points that may be clicked now.
    pub selectable: Vec<String>,
    /// For each own piece that may move: where it may go.
    pub destinations: BTreeMap<String, Vec<String>>,
    /// Opponent pieces that may be removed now.
    pub removable: Vec<String>,
}

/// A round's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultView {
    /// Winner, `None` for a draw.
    pub winner: Option<Color>,
    /// `pieces`, `blocked`, `resignation`, `mill`, `threefold`, `hundred-turns`, `agreement`,
    /// `board-full`.
    pub reason: String,
}

/// Standing offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offers {
    /// The seat that offered a draw.
    pub draw: Option<Color>,
    /// Seats that asked for a new round.
    pub new_round: Vec<Color>,
}

/// The game part of the snapshot: everything that changes only through stored events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameView {
    /// Room id.
    pub room: String,
    /// Round number from 1.
    pub round: u32,
    /// Confirmed actions in the round.
    pub version: u32,
    /// Always "nine" for now.
    pub variant: String,
    /// mill-core's position string.
    pub position: String,
    /// Side to move.
    pub turn: Color,
    /// Phase per side.
    pub phase: Sides<Phase>,
    /// Pieces in hand.
    pub in_hand: Sides<u8>,
    /// Pieces on the board.
    pub on_board: Sides<u8>,
    /// Occupied points per side.
    pub pieces: Sides<Vec<String>>,
    /// Removals the side to move still owes.
    pub pending_removals: u8,
    /// Turns without a removal.
    pub quiet_turns: u16,
    /// Legal clicks, `None` when the round is over.
    pub legal: Option<Legal>,
    /// Every action of the round.
    pub actions: Vec<String>,
    /// Completed turns in notation.
    pub record: Vec<String>,
    /// The last action.
    pub last_action: Option<String>,
    /// The mill lines (three point names each) closed by the latest turn's placement or
    /// move; empty when it closed none. Added in protocol 1 (additive).
    #[serde(default)]
    pub closed_mills: Vec<Vec<String>>,
    /// Standing offers.
    pub offers: Offers,
    /// The result once the round is over.
    pub result: Option<ResultView>,
}

/// One seat's public facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Someone holds this seat's key.
    pub taken: bool,
    /// A socket holds the seat now.
    pub online: bool,
}

/// The full `state` message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateMsg {
    /// Always "state".
    #[serde(rename = "type")]
    pub kind: String,
    /// Game part.
    #[serde(flatten)]
    pub game: GameView,
    /// Seats and presence.
    pub seats: Sides<SeatView>,
}

/// Serializes a state message without cloning the game view.
pub fn state_text(game: &GameView, seats: Sides<SeatView>) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        #[serde(flatten)]
        game: &'a GameView,
        seats: Sides<SeatView>,
    }
    serde_json::to_string(&Out {
        kind: "state",
        game,
        seats,
    })
    .expect("state always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_client_message() {
        assert_eq!(
            ClientMsg::parse(r#"{"type":"hello","protocol":1,"key":"ab"}"#).unwrap(),
            ClientMsg::Hello {
                protocol: 1,
                key: Some("ab".into())
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"hello","protocol":1}"#).unwrap(),
            ClientMsg::Hello {
                protocol: 1,
                key: None
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"action","id":"c1","round":1,"version":3,"action":"a1-a4"}"#)
                .unwrap(),
            ClientMsg::Action {
                id: "c1".into(),
                round: 1,
                version: 3,
                action: "a1-a4".into()
            }
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"new-round","id":"c2","round":2,"version":0}"#).unwrap(),
            ClientMsg::NewRound {
                id: "c2".into(),
                round: 2,
                version: 0
            }
        );
        assert_eq!(ClientMsg::parse(r#"{"type":"ping"}"#).unwrap(), ClientMsg::Ping);
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
        assert_eq!(
            ClientMsg::parse(r#"{"type":"castle"}"#).unwrap_err().code,
            "unknown-type"
        );
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
            code: "malformed".into(),
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

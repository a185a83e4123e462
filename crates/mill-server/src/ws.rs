//! One WebSocket: the hello, then a loop that reads the client's messages, writes what
//! the room queues for it, pings, and notices silence and shutdown.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use mill_core::Color;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::app::AppState;
use crate::protocol::{ClientMsg, CloseCode, Code, ErrorCode, MAX_TEXT, PROTOCOL, ServerMsg};
use crate::rooms::{ConnId, Outgoing};
use crate::throttle::TokenBucket;

/// Queue between the room and the socket's task; a client that lets it fill up is
/// dropped rather than let memory grow.
const QUEUE: usize = 128;
/// Refused messages in a row (for flooding) after which the socket is closed.
const MAX_REFUSED_FLOOD: u32 = 40;

struct Seat {
    conn: ConnId,
    seat: Option<Color>,
}

/// Serves one socket of `room` until it closes.
pub async fn serve(socket: WebSocket, state: AppState, room: String) {
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Outgoing>(QUEUE);
    let mut attached: Option<Seat> = None;
    let kick = CancellationToken::new();
    let rate = f64::from(state.config.messages_per_second.max(1));
    let mut bucket = TokenBucket::new(rate, rate * 2.0);
    let mut flood = 0u32;
    let mut heard = Instant::now();
    let mut ping = tokio::time::interval(state.config.ping_every);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let idle = state.config.idle_socket;

    let reply_error = |attached: &Option<Seat>, id: Option<&str>, code: Code, message: &str| {
        let (round, version) = match attached {
            Some(_) => state.rooms.version(&room).unzip(),
            None => (None, None),
        };
        let _ = tx.try_send(Outgoing::Text(
            ServerMsg::Error {
                id: id.map(str::to_string),
                code,
                message: message.to_string(),
                round,
                version,
            }
            .to_text()
            .into(),
        ));
    };

    loop {
        tokio::select! {
            incoming = stream.next() => {
                let Some(Ok(msg)) = incoming else { break };
                heard = Instant::now();
                let text = match msg {
                    Message::Text(text) => text,
                    Message::Binary(_) => {
                        reply_error(&attached, None, ErrorCode::Malformed.into(), "Binary frames are not part of the protocol; send JSON text.");
                        continue;
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if !bucket.take(std::time::Instant::now()) {
                    flood += 1;
                    if flood > MAX_REFUSED_FLOOD {
                        let _ = tx.try_send(Outgoing::Close(CloseCode::Policy, "flooding"));
                    } else {
                        reply_error(&attached, None, ErrorCode::RateLimited.into(), "Too many messages; slow down.");
                    }
                    continue;
                }
                flood = 0;
                if text.len() > MAX_TEXT {
                    reply_error(&attached, None, ErrorCode::TooLarge.into(), &format!("Messages are limited to {MAX_TEXT} bytes."));
                    continue;
                }
                let msg = match ClientMsg::parse(&text) {
                    Ok(msg) => msg,
                    Err(bad) => {
                        reply_error(&attached, None, bad.code.into(), &bad.message);
                        continue;
                    }
                };
                match (&msg, &attached) {
                    (ClientMsg::Ping, _) => {
                        let _ = tx.try_send(Outgoing::Text(ServerMsg::Pong.to_text().into()));
                    }
                    (ClientMsg::Hello { .. }, Some(_)) => {
                        reply_error(&attached, None, ErrorCode::AlreadyHello.into(), "This socket has already said hello.");
                    }
                    (ClientMsg::Hello { protocol, key }, None) => {
                        if *protocol != PROTOCOL {
                            reply_error(&attached, None, ErrorCode::ProtocolMismatch.into(), &format!(
                                "This page speaks protocol {protocol} but the server speaks {PROTOCOL}: reload the page."));
                            let _ = tx.try_send(Outgoing::Close(CloseCode::ProtocolMismatch, "protocol mismatch"));
                            continue;
                        }
                        match state.rooms.attach(&room, key.as_deref(), &tx, &kick) {
                            Ok((conn, seat)) => attached = Some(Seat { conn, seat }),
                            Err(e) => {
                                reply_error(&attached, None, e.refusal.code, &e.refusal.message);
                                let _ = tx.try_send(Outgoing::Close(e.close, "refused"));
                            }
                        }
                    }
                    (_, None) => {
                        let id = msg.command_header().map(|h| h.0);
                        reply_error(&attached, id, ErrorCode::HelloRequired.into(), "Say hello first (with the protocol version and your seat key).");
                    }
                    (ClientMsg::Sync, Some(_)) => state.rooms.sync(&room, &tx),
                    (_, Some(seat)) => state.rooms.command(&room, seat.seat, &tx, &msg),
                }
            }
            out = rx.recv() => {
                let result = match out {
                    Some(Outgoing::Text(text)) => sink.send(Message::Text(text)).await,
                    Some(Outgoing::Close(code, reason)) => {
                        let _ = sink.send(Message::Close(Some(CloseFrame { code: code.code(), reason: reason.into() }))).await;
                        break;
                    }
                    None => break,
                };
                if result.is_err() {
                    break;
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() > idle {
                    tracing::debug!(%room, "socket silent, dropping");
                    break;
                }
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            // The room dropped this socket: its queue overflowed.
            _ = kick.cancelled() => break,
            _ = state.shutdown.cancelled() => {
                let _ = sink.send(Message::Close(Some(CloseFrame {
                    code: CloseCode::GoingAway.code(),
                    reason: "server shutting down".into(),
                }))).await;
                break;
            }
        }
    }
    if let Some(seat) = attached {
        state.rooms.detach(&room, seat.conn);
    }
    // Give the close frame a moment to leave before the socket is dropped.
    let _ = tokio::time::timeout(Duration::from_millis(100), sink.close()).await;
}

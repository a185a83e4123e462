//! One WebSocket: the hello (within a deadline), then a loop that reads the client's
//! messages (rate-limited, closing floods with 1008 and oversized frames with 1009),
//! writes what the room queues for it, pings, and notices silence and shutdown.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use mill_core::Color;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::app::AppState;
use crate::metrics;
use crate::protocol::{ClientMsg, CloseCode, Code, ErrorCode, MAX_TEXT, PROTOCOL, ServerMsg};
use crate::rooms::{ConnId, Outgoing};
use crate::throttle::{MessageRate, Verdict};

/// Queue between the room and the socket's task; a client that lets it fill up is
/// dropped rather than let memory grow.
const QUEUE: usize = 128;
/// How long the server waits for the client's answer to its close frame; reading on
/// until then means the client gets the close code rather than a reset.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long a socket that sent an oversized frame is held after its close frame.
const TOO_BIG_GRACE: Duration = Duration::from_millis(500);

/// Counts an open socket for `/metrics`.
struct Counted;

impl Counted {
    fn new() -> Counted {
        metrics::get().sockets.inc();
        Counted
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        metrics::get().sockets.dec();
    }
}

/// Counts what goes out: acknowledgements and refusals.
fn count_outgoing(text: &str) {
    if text.starts_with(r#"{"type":"ack""#) {
        if text.contains(r#""duplicate":false"#) {
            metrics::get().commands.inc();
        }
    } else if text.starts_with(r#"{"type":"error""#) {
        if let Some(code) = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v["code"].as_str().map(str::to_string))
        {
            metrics::refused(&code);
        }
    }
}

/// Whether a read error is the WebSocket library refusing a frame over the size limit.
fn too_big(e: axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error;
    matches!(e.into_inner().downcast_ref::<Error>(), Some(Error::Capacity(_)))
}

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
    let _counted = Counted::new();
    let rate = MessageRate::new(state.config.messages_per_second);
    let hello_by = Instant::now() + state.config.hello_timeout;
    let mut closing = false;
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
                let msg = match incoming {
                    Some(Ok(msg)) => msg,
                    Some(Err(e)) => {
                        if too_big(e) {
                            metrics::refused(ErrorCode::TooLarge.as_str());
                            let _ = sink.send(Message::Close(Some(CloseFrame {
                                code: CloseCode::TooBig.code(),
                                reason: "frame too large".into(),
                            }))).await;
                            // The rest of the frame is still unread and the library
                            // reads no more, so dropping the socket now would reset it
                            // and lose the close frame: give the client time to read it.
                            tokio::time::sleep(TOO_BIG_GRACE).await;
                        }
                        break;
                    }
                    None => break,
                };
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
                match rate.check() {
                    Verdict::Allow => {}
                    Verdict::Refuse => {
                        reply_error(&attached, None, ErrorCode::RateLimited.into(), "Too many messages; slow down.");
                        continue;
                    }
                    Verdict::Flooding => {
                        // What is queued (the refusals among it) goes first, then the
                        // close frame straight to the socket.
                        while let Ok(Outgoing::Text(text)) = rx.try_recv() {
                            count_outgoing(text.as_str());
                            if sink.feed(Message::Text(text)).await.is_err() {
                                break;
                            }
                        }
                        metrics::refused("flooding");
                        tracing::debug!(%room, "flooding socket closed");
                        let _ = sink.send(Message::Close(Some(CloseFrame {
                            code: CloseCode::Policy.code(),
                            reason: "flooding".into(),
                        }))).await;
                        closing = true;
                        break;
                    }
                }
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
                        match state.rooms.attach(&room, key.as_deref(), &tx, &kick).await {
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
                    (_, Some(seat)) => state.rooms.command(&room, seat.seat, &tx, &msg).await,
                }
            }
            out = rx.recv() => {
                let result = match out {
                    Some(Outgoing::Text(text)) => {
                        count_outgoing(text.as_str());
                        sink.send(Message::Text(text)).await
                    }
                    Some(Outgoing::Close(code, reason)) => {
                        let _ = sink.send(Message::Close(Some(CloseFrame { code: code.code(), reason: reason.into() }))).await;
                        closing = true;
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
            _ = tokio::time::sleep_until(hello_by), if attached.is_none() => {
                metrics::refused(ErrorCode::HelloTimeout.as_str());
                let text = ServerMsg::Error {
                    id: None,
                    code: ErrorCode::HelloTimeout.into(),
                    message: "No hello in time; reconnect and say hello first.".into(),
                    round: None,
                    version: None,
                }
                .to_text();
                let _ = sink.send(Message::Text(text.into())).await;
                let _ = sink.send(Message::Close(Some(CloseFrame {
                    code: CloseCode::HelloTimeout.code(),
                    reason: "no hello in time".into(),
                }))).await;
                closing = true;
                break;
            }
            // The room dropped this socket: its queue overflowed.
            _ = kick.cancelled() => {
                let _ = sink.send(Message::Close(Some(CloseFrame {
                    code: CloseCode::TooSlow.code(),
                    reason: "fell behind".into(),
                }))).await;
                closing = true;
                break;
            }
            _ = state.shutdown.cancelled() => {
                let _ = sink.send(Message::Close(Some(CloseFrame {
                    code: CloseCode::GoingAway.code(),
                    reason: "server shutting down".into(),
                }))).await;
                closing = true;
                break;
            }
        }
    }
    if let Some(seat) = attached {
        state.rooms.detach(&room, seat.conn);
    }
    if closing {
        // Read (and drop) what the client still sends until it answers the close
        // frame, so the close code reaches it instead of a reset.
        let _ = tokio::time::timeout(CLOSE_GRACE, async {
            while let Some(Ok(msg)) = stream.next().await {
                if matches!(msg, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    // Give the close frame a moment to leave before the socket is dropped.
    let _ = tokio::time::timeout(Duration::from_millis(100), sink.close()).await;
}

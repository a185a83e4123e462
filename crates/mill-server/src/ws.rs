//! One WebSocket, as three pieces that run side by side in the socket's task:
//!
//! - [`read`] reads the client's frames and judges each against the message rate as it
//!   arrives (`rate-limited`, and close 1008 past the flood tolerance), closes an
//!   oversized frame with 1009, and notices silence and a missing `hello`. What needs
//!   nothing that waits for the database it answers at once: `ping`, refusals of what
//!   cannot be read, `sync` once the socket holds its place. `hello` and commands go in
//!   order to
//! - [`work`], which hands them to the room one at a time (one handler per kind) and
//!   waits for the database when the room does. Between the two is a bounded queue
//!   ([`COMMANDS`]): a client with that many messages waiting is not read until one is
//!   done. So a slow database slows a socket down and never closes it, and the rate
//!   limit never judges a backlog that the server itself let pile up.
//! - [`write`] writes what the room and the other pieces queue for the socket, and pings.
//!   Each ping frame carries the time it left (milliseconds since the socket opened);
//!   the pong that echoes it gives the socket's round trip ([`round_trip`]), which the
//!   room gives back to a timed turn within the seat's lag quota (`timecontrol.rs`).
//!   A page can only delay or forge its pongs, which gains it at most that quota.
//!
//! [`serve`] runs them until one of them ends the socket (or the room drops it, or the
//! server shuts down), lets the work already read finish, then sends the close frame.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use mill_core::Color;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::metrics::{self, Refused};
use crate::protocol::{ClientMsg, CloseCode, Code, ErrorCode, MAX_TEXT, PROTOCOL, ServerMsg};
use crate::rooms::{Ask, ConnId, Outgoing, Rooms};
use crate::throttle::{MessageRate, Verdict};

/// Queue between the room and the socket's writer; a client that lets it fill up is
/// dropped rather than let memory grow.
const QUEUE: usize = 128;

/// Each WebSocket's read and write buffer, server and `mill-load` alike (the default is
/// 128 KiB). Messages are small, so 10,000 sockets fit in a few tens of megabytes; and
/// tungstenite zeroes the read buffer up to this size before every read, a cost per
/// frame.
pub const SOCKET_BUFFER: usize = 4 * 1024;

/// Messages read and waiting for the room (hello and commands). When it is full the
/// reader waits: backpressure on the client, never a refusal or a close. A page has one
/// command in flight at a time.
pub const COMMANDS: usize = 16;
/// How long the server waits for the client's answer to its close frame; reading on
/// until then means the client gets the close code rather than a reset.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How long a socket that sent an oversized frame is held after its close frame.
const TOO_BIG_GRACE: Duration = Duration::from_millis(500);
/// Longest round trip a pong may report: a longer one (or one from the future) is no
/// measurement. The lag quota bounds what a turn is given back far below it anyway.
pub const MAX_ROUND_TRIP_MS: i64 = 10_000;

/// The round trip a pong's payload reports, `now_ms` after the socket opened: the
/// payload is the time its ping left, as [`write`] put it. `None` for a payload that is
/// not one of ours or a round trip out of `0..=MAX_ROUND_TRIP_MS`.
pub fn round_trip(payload: &[u8], now_ms: i64) -> Option<i64> {
    let sent = i64::from_be_bytes(payload.try_into().ok()?);
    let rtt = now_ms.checked_sub(sent)?;
    (0..=MAX_ROUND_TRIP_MS).contains(&rtt).then_some(rtt)
}

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

/// What a socket needs of the server.
#[derive(Debug, Clone)]
pub struct Context {
    /// Every room.
    pub rooms: Rooms,
    /// Settings (rates, deadlines).
    pub config: Arc<Config>,
    /// Cancelled when the server shuts down.
    pub shutdown: CancellationToken,
    /// Accounts, for a hello asking for the signed-in account's seat.
    pub accounts: Arc<crate::accounts::AccountsState>,
    /// The account whose session cookie came with the upgrade (from this site: the
    /// `Origin` check of accounts.rs), if any.
    pub account: Option<i64>,
}

/// The frame for a queued message (a message for this socket alone is counted here,
/// by its kind), or the code and reason of a close.
fn frame(out: Outgoing) -> Result<Message, (CloseCode, &'static str)> {
    match out {
        Outgoing::Text(text) => Ok(Message::Text(text)),
        Outgoing::Msg(msg) => {
            metrics::sent(&msg);
            Ok(Message::Text(msg.to_text().into()))
        }
        Outgoing::Close(code, reason) => Err((code, reason)),
    }
}

/// Whether a read error is the WebSocket library refusing a frame over the size limit.
fn too_big(e: axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error;
    matches!(e.into_inner().downcast_ref::<Error>(), Some(Error::Capacity(_)))
}

/// The socket's place in its room, once its hello is taken.
#[derive(Debug, Clone, Copy)]
struct Seat {
    conn: ConnId,
    /// `None` for a spectator.
    seat: Option<Color>,
}

/// Why a socket ends, and so what it is sent last.
#[derive(Debug)]
enum End {
    /// The client closed, broke off or went silent: nothing more to send.
    Gone,
    /// A frame over the size limit: close 1009.
    TooBig,
    /// Past the flood tolerance: what is queued, then close 1008.
    Flooding,
    /// No hello in time: the error, then close 4008.
    HelloTimeout,
    /// The room's close (a refused hello, a replaced seat), or the server's shutdown.
    Close(CloseCode, &'static str),
}

/// What the pieces of one socket share.
struct Session {
    ctx: Context,
    room: String,
    /// To the writer; the room gets a clone with the hello.
    tx: mpsc::Sender<Outgoing>,
    /// Cancelled when the room drops the socket for falling behind.
    kick: CancellationToken,
    /// Set by the first hello the room takes.
    seat: OnceLock<Seat>,
    /// When the socket opened: ping payloads count from here.
    opened: Instant,
    /// The latest round trip measured (ms), shared with the room; 0 before the first.
    rtt: Arc<AtomicI64>,
}

impl Session {
    fn send(&self, msg: ServerMsg) {
        let _ = self.tx.try_send(Outgoing::Msg(msg));
    }

    fn attached(&self) -> bool {
        self.seat.get().is_some()
    }

    /// An `error` for this socket; with the room's round and version once attached.
    fn refuse(&self, id: Option<&str>, code: impl Into<Code>, message: impl Into<String>) {
        let (round, version) = match self.attached() {
            true => self.ctx.rooms.version(&self.room).unzip(),
            false => (None, None),
        };
        self.send(ServerMsg::Error {
            id: id.map(str::to_string),
            code: code.into(),
            message: message.into(),
            round,
            version,
        });
    }

    fn hello_required(&self, id: Option<&str>) {
        self.refuse(
            id,
            ErrorCode::HelloRequired,
            "Say hello first (with the protocol version and your seat key).",
        );
    }

    fn already_hello(&self) {
        self.refuse(
            None,
            ErrorCode::AlreadyHello,
            "This socket has already said hello.",
        );
    }

    /// `ping`: `pong`, before or after hello.
    fn on_ping(&self) {
        self.send(ServerMsg::Pong);
    }

    /// `sync`: the room's state again.
    fn on_sync(&self) {
        match self.attached() {
            true => self.ctx.rooms.sync(&self.room, &self.tx),
            false => self.hello_required(None),
        }
    }

    /// `hello`: a seat (with a key, or the signed-in account's with `account`) or a
    /// place to watch, once per socket.
    async fn on_hello(&self, protocol: u32, key: Option<&str>, account: bool) {
        if self.attached() {
            return self.already_hello();
        }
        if protocol != PROTOCOL {
            self.refuse(
                None,
                ErrorCode::ProtocolMismatch,
                format!(
                    "This page speaks protocol {protocol} but the server speaks {PROTOCOL}: reload the page."
                ),
            );
            let _ = self
                .tx
                .try_send(Outgoing::Close(CloseCode::ProtocolMismatch, "protocol mismatch"));
            return;
        }
        let seats: Vec<Color>;
        let ask = match (key, account) {
            (Some(key), _) => Ask::Key(key),
            (None, false) => Ask::Watch,
            (None, true) => {
                let Some(id) = self.ctx.account else {
                    self.refuse(
                        None,
                        ErrorCode::SignInRequired,
                        "Sign in to take your seat on this device (or open the room where you hold its key).",
                    );
                    let _ = self
                        .tx
                        .try_send(Outgoing::Close(CloseCode::NotSeated, "not signed in"));
                    return;
                };
                seats = match self.ctx.accounts.store.seats_of(&self.room, id).await {
                    Ok(seats) => seats,
                    Err(e) => {
                        tracing::error!(error = %e, "reading an account's seats failed");
                        self.refuse(None, ErrorCode::Internal, "The server failed; try again.");
                        let _ = self.tx.try_send(Outgoing::Close(CloseCode::GoingAway, "failed"));
                        return;
                    }
                };
                Ask::Account(&seats)
            }
        };
        match self
            .ctx
            .rooms
            .attach(&self.room, ask, &self.tx, &self.kick, &self.rtt)
            .await
        {
            Ok((conn, seat)) => {
                let _ = self.seat.set(Seat { conn, seat });
            }
            Err(e) => {
                self.refuse(None, e.refusal.code, e.refusal.message);
                let _ = self.tx.try_send(Outgoing::Close(e.close, "refused"));
            }
        }
    }

    /// Answers `msg` at once if nothing queued before it can change the answer (a hello
    /// still waiting for the room can); false if it is for [`work`].
    fn answered_now(&self, msg: &ClientMsg, hello_read: bool) -> bool {
        match msg {
            ClientMsg::Ping => self.on_ping(),
            ClientMsg::Sync if self.attached() || !hello_read => self.on_sync(),
            ClientMsg::Command { id, .. } if !hello_read => self.hello_required(Some(id)),
            ClientMsg::Hello { .. } if self.attached() => self.already_hello(),
            ClientMsg::Hello { .. } | ClientMsg::Sync | ClientMsg::Command { .. } => return false,
        }
        true
    }

    /// A command: to the room, which answers it (after its commit, when it is done).
    async fn on_command(&self, msg: &ClientMsg) {
        match self.seat.get() {
            Some(seat) => self.ctx.rooms.command(&self.room, seat.seat, &self.tx, msg).await,
            None => self.hello_required(msg.command_header().map(|h| h.0)),
        }
    }
}

/// Reads the client until it goes, judging each message as it arrives; queues hello
/// and commands for [`work`] (waiting while [`COMMANDS`] are queued) and answers the
/// rest at once.
async fn read(s: &Session, stream: &mut SplitStream<WebSocket>, work: mpsc::Sender<ClientMsg>) -> End {
    let config = &s.ctx.config;
    let mut rate = MessageRate::new(config.messages_per_second);
    let hello_by = Instant::now() + config.hello_timeout;
    // A hello has been read (and queued): the deadline is met.
    let mut hello_read = false;
    loop {
        let next = tokio::select! {
            next = tokio::time::timeout(config.idle_socket, stream.next()) => next,
            () = tokio::time::sleep_until(hello_by), if !hello_read => return End::HelloTimeout,
        };
        let text = match next {
            Err(_silent) => {
                tracing::debug!(room = %s.room, "socket silent, dropping");
                return End::Gone;
            }
            Ok(None) | Ok(Some(Ok(Message::Close(_)))) => return End::Gone,
            Ok(Some(Err(e))) => return if too_big(e) { End::TooBig } else { End::Gone },
            Ok(Some(Ok(Message::Pong(payload)))) => {
                let now = s.opened.elapsed().as_millis() as i64;
                if let Some(rtt) = round_trip(&payload, now) {
                    s.rtt.store(rtt, Ordering::Relaxed);
                }
                continue;
            }
            Ok(Some(Ok(Message::Ping(_)))) => continue,
            Ok(Some(Ok(Message::Binary(_)))) => {
                s.refuse(
                    None,
                    ErrorCode::Malformed,
                    "Binary frames are not part of the protocol; send JSON text.",
                );
                continue;
            }
            Ok(Some(Ok(Message::Text(text)))) => text,
        };
        match rate.check() {
            Verdict::Allow => {}
            Verdict::Refuse => {
                s.refuse(None, ErrorCode::RateLimited, "Too many messages; slow down.");
                continue;
            }
            Verdict::Flooding => return End::Flooding,
        }
        if text.len() > MAX_TEXT {
            s.refuse(
                None,
                ErrorCode::TooLarge,
                format!("Messages are limited to {MAX_TEXT} bytes."),
            );
            continue;
        }
        let msg = match ClientMsg::parse(&text) {
            Ok(msg) => msg,
            Err(bad) => {
                s.refuse(None, bad.code, bad.message);
                continue;
            }
        };
        // The kind only: a hello's key never reaches a log.
        tracing::trace!(room = %s.room, kind = msg.client_type().as_str(), "message");
        if s.answered_now(&msg, hello_read) {
            continue;
        }
        hello_read |= matches!(msg, ClientMsg::Hello { .. });
        let msg = match work.try_send(msg) {
            Ok(()) => continue,
            Err(mpsc::error::TrySendError::Closed(_)) => return End::Gone,
            Err(mpsc::error::TrySendError::Full(msg)) => msg,
        };
        // The room is behind (a slow database): nothing is read until it takes this,
        // and what the client sends meanwhile is credited to it (`MessageRate::credit`).
        let waited = Instant::now();
        if work.send(msg).await.is_err() {
            return End::Gone;
        }
        rate.credit(waited.elapsed());
    }
}

/// Hands what [`read`] queued to the room, one message at a time, until the reader is
/// gone and the queue is empty.
async fn work(s: &Session, mut queue: mpsc::Receiver<ClientMsg>) {
    while let Some(msg) = queue.recv().await {
        match &msg {
            ClientMsg::Hello {
                protocol,
                key,
                account,
            } => s.on_hello(*protocol, key.as_deref(), *account).await,
            ClientMsg::Command { .. } => s.on_command(&msg).await,
            ClientMsg::Sync => s.on_sync(),
            ClientMsg::Ping => s.on_ping(),
        }
    }
}

/// Writes what is queued for the socket, and a ping frame every `ping_every` (the
/// first one `ping_every` after the socket opened) carrying the time it left, until
/// the socket fails or a close is queued.
async fn write(
    s: &Session,
    sink: &mut SplitSink<WebSocket, Message>,
    queue: &mut mpsc::Receiver<Outgoing>,
) -> End {
    let every = s.ctx.config.ping_every;
    let mut ping = tokio::time::interval_at(Instant::now() + every, every);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let next = tokio::select! {
            out = queue.recv() => match out.map(frame) {
                Some(Ok(frame)) => frame,
                Some(Err((code, reason))) => return End::Close(code, reason),
                None => return End::Gone,
            },
            _ = ping.tick() => {
                let sent = s.opened.elapsed().as_millis() as i64;
                Message::Ping(sent.to_be_bytes().to_vec().into())
            }
        };
        if sink.send(next).await.is_err() {
            return End::Gone;
        }
    }
}

async fn close(sink: &mut SplitSink<WebSocket, Message>, code: CloseCode, reason: &'static str) {
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: code.code(),
            reason: reason.into(),
        })))
        .await;
}

/// Sends what `end` calls for; true when a close frame went out (the client's answer
/// to it is then waited for).
async fn finish(
    end: End,
    s: &Session,
    sink: &mut SplitSink<WebSocket, Message>,
    outgoing: &mut mpsc::Receiver<Outgoing>,
) -> bool {
    match end {
        End::Gone => false,
        End::TooBig => {
            metrics::refused(ErrorCode::TooLarge);
            close(sink, CloseCode::TooBig, "frame too large").await;
            // The rest of the frame is still unread and the library reads no more, so
            // dropping the socket now would reset it and lose the close frame: give
            // the client time to read it.
            tokio::time::sleep(TOO_BIG_GRACE).await;
            false
        }
        End::Flooding => {
            // What is queued (the refusals among it) goes first, then the close.
            while let Ok(Ok(frame)) = outgoing.try_recv().map(frame) {
                if sink.feed(frame).await.is_err() {
                    break;
                }
            }
            metrics::refused(Refused::Flooding);
            tracing::debug!(room = %s.room, "flooding socket closed");
            close(sink, CloseCode::Policy, "flooding").await;
            true
        }
        End::HelloTimeout => {
            let refusal = ServerMsg::Error {
                id: None,
                code: ErrorCode::HelloTimeout.into(),
                message: "No hello in time; reconnect and say hello first.".into(),
                round: None,
                version: None,
            };
            metrics::sent(&refusal);
            let _ = sink.send(Message::Text(refusal.to_text().into())).await;
            close(sink, CloseCode::HelloTimeout, "no hello in time").await;
            true
        }
        End::Close(code, reason) => {
            close(sink, code, reason).await;
            true
        }
    }
}

/// Serves one socket of `room` until it closes.
pub async fn serve(socket: WebSocket, ctx: Context, room: String) {
    let (mut sink, mut stream) = socket.split();
    let (tx, mut outgoing) = mpsc::channel::<Outgoing>(QUEUE);
    let (queue, queued) = mpsc::channel::<ClientMsg>(COMMANDS);
    let _counted = Counted::new();
    let s = Session {
        ctx,
        room,
        tx,
        kick: CancellationToken::new(),
        seat: OnceLock::new(),
        opened: Instant::now(),
        rtt: Arc::new(AtomicI64::new(0)),
    };
    let ((end, ended_at), ()) = tokio::join!(
        async {
            // When one of these ends the socket, the others are dropped; the reader
            // takes the queue's sender with it, so `work` finishes what was read (a
            // command is never cut off half-way) and stops.
            let end = tokio::select! {
                end = read(&s, &mut stream, queue) => end,
                end = write(&s, &mut sink, &mut outgoing) => end,
                // The room dropped this socket: its queue overflowed.
                () = s.kick.cancelled() => End::Close(CloseCode::TooSlow, "fell behind"),
                () = s.ctx.shutdown.cancelled() => End::Close(CloseCode::GoingAway, "server shutting down"),
            };
            // A seat is away from this moment (its close frame or end was just read),
            // however long what was read before takes to finish.
            (end, s.ctx.config.clock.now_ms())
        },
        work(&s, queued),
    );
    let closing = finish(end, &s, &mut sink, &mut outgoing).await;
    if let Some(seat) = s.seat.get() {
        s.ctx.rooms.detach(&s.room, seat.conn, ended_at);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pong_gives_the_round_trip_of_its_ping_within_bounds() {
        let sent = 1_000i64.to_be_bytes();
        assert_eq!(round_trip(&sent, 1_180), Some(180));
        assert_eq!(round_trip(&sent, 1_000), Some(0));
        assert_eq!(
            round_trip(&sent, 1_000 + MAX_ROUND_TRIP_MS),
            Some(MAX_ROUND_TRIP_MS)
        );
        assert_eq!(round_trip(&sent, 1_001 + MAX_ROUND_TRIP_MS), None, "too long");
        assert_eq!(round_trip(&sent, 999), None, "from the future");
        assert_eq!(round_trip(b"", 5), None, "not ours");
        assert_eq!(round_trip(&[1, 2, 3], 5), None);
        assert_eq!(round_trip(&i64::MIN.to_be_bytes(), 5), None, "no overflow");
    }
}

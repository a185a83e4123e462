//! The arenas over HTTP (docs/PROTOCOL.md "Arenas"): create, join, withdraw, pause,
//! list, one arena with its standings, and the arena socket, which pushes the
//! standings as they change and, to a signed-in player, each game as it is paired.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use axum::extract::{ConnectInfo, Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};

use super::{Hub, LIST_SIZE, Pushed, RECENT_MS, arena_json, info_json, parse_rfc3339};
use crate::app::AppState;
use crate::error::ApiError;
use crate::keys;
use crate::store::arena::{Member, Membership, NewArena, Ticket};
use crate::timecontrol::TimeControl;

/// Longest arena, in minutes.
pub const MAX_MINUTES: i64 = 360;
/// How far ahead an arena may start.
pub const MAX_AHEAD_MS: i64 = 7 * 86_400_000;
/// Longest name, in characters.
pub const MAX_NAME: usize = 60;
/// How often an arena socket of a player looks at its ticket without a wake-up.
const TICKET_POLL: Duration = Duration::from_secs(1);
/// How often an arena socket sends a ping frame (so proxies keep it open).
const PING_EVERY: Duration = Duration::from_secs(25);

/// The routes of this module, added to `app.rs`'s router.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/arenas", post(create).get(list))
        .route("/api/arenas/{id}", get(one))
        .route("/api/arenas/{id}/join", post(join))
        .route("/api/arenas/{id}/withdraw", post(withdraw))
        .route("/api/arenas/{id}/pause", post(pause))
        .route("/api/arenas/{id}/ws", get(socket))
}

fn bad(why: impl Into<String>) -> ApiError {
    ApiError::BadArena(why.into())
}

/// What `POST /api/arenas` asks for, checked; `now` is when it was asked.
pub fn requested_arena(body: &[u8], now: i64) -> Result<NewArena, ApiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| bad(format!("the body is not JSON ({e})")))?;
    if !v.is_object() {
        return Err(bad("the body must be an object"));
    }
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .ok_or_else(|| bad("\"name\" must be a string"))?;
    if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(bad(format!(
            "\"name\" must be 1 to {MAX_NAME} characters, none of them control characters"
        )));
    }
    let variant = match v.get("variant") {
        None | Some(Value::Null) => mill_core::Variant::Nine.rules().to_string(),
        Some(Value::String(s)) => mill_core::Rules::parse_table(s)
            .map_err(|e| bad(format!("\"variant\": {e}")))?
            .to_string(),
        Some(_) => return Err(bad("\"variant\" must be a rule set's name")),
    };
    let clock = match TimeControl::from_request(v.get("clock")) {
        Ok(Some(TimeControl::Live { initial, increment })) => (initial, increment),
        Ok(_) => {
            return Err(bad(
                "\"clock\" must be a live time control: {\"initial\": SECONDS, \"increment\": SECONDS}",
            ));
        }
        Err(e) => return Err(bad(format!("\"clock\": {e}"))),
    };
    let minutes = v
        .get("minutes")
        .and_then(Value::as_i64)
        .filter(|m| (1..=MAX_MINUTES).contains(m))
        .ok_or_else(|| {
            bad(format!(
                "\"minutes\" must be a whole number from 1 to {MAX_MINUTES}"
            ))
        })?;
    let starts_at = match v.get("starts") {
        None | Some(Value::Null) => now,
        Some(Value::String(s)) => {
            let at = parse_rfc3339(s)
                .ok_or_else(|| bad("\"starts\" must be an RFC 3339 date and time, or null"))?;
            // A minute's slack for clocks that differ: "now" typed on the client.
            if at < now - 60_000 {
                return Err(bad("\"starts\" is in the past"));
            }
            if at > now + MAX_AHEAD_MS {
                return Err(bad("\"starts\" must be within seven days"));
            }
            at.max(now)
        }
        Some(_) => return Err(bad("\"starts\" must be an RFC 3339 date and time, or null")),
    };
    let rated = match v.get("rated") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("\"rated\" must be true or false")),
    };
    Ok(NewArena {
        id: keys::new_room_id(),
        name: name.to_string(),
        variant,
        initial: clock.0,
        increment: clock.1,
        starts_at,
        ends_at: starts_at + minutes * 60_000,
        rated,
        created_by: None,
        created_at: now,
    })
}

async fn account(state: &AppState, headers: &HeaderMap) -> Result<(i64, String), ApiError> {
    crate::accounts::same_origin(state, headers)?;
    crate::accounts::signed_in(state, headers)
        .await?
        .ok_or(ApiError::SignInRequired)
}

/// `POST /api/arenas`: 201 `{"id"}`.
async fn create(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let (id, name) = account(&state, &headers).await?;
    let mut arena = requested_arena(&body, state.arenas.now())?;
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    arena.created_by = Some(id);
    let arena_id = arena.id.clone();
    state.arenas.arenas.create(arena).await?;
    tracing::info!(arena = %arena_id, by = %name, "arena created");
    Ok((StatusCode::CREATED, Json(json!({ "id": arena_id }))).into_response())
}

/// The signed-in caller's name, or null: what the pages show a player's own (their
/// row, the create form) without asking `GET /api/me`, whose 401 a visitor's browser
/// would log as an error. The answer is the caller's own, so it is never cached.
async fn with_me(state: &AppState, headers: &HeaderMap, body: Value) -> Result<Response, ApiError> {
    let me = crate::accounts::signed_in(state, headers).await?;
    Ok(no_store(body, me.map(|(_, name)| name)))
}

/// `body` with `me`, not to be cached.
fn no_store(mut body: Value, me: Option<String>) -> Response {
    body["me"] = json!(me);
    (
        [(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        )],
        Json(body),
    )
        .into_response()
}

/// The query of `GET /api/arenas/{id}` and of its socket.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaQuery {
    /// The page of the standings, from 1 (past the last: the last).
    page: Option<String>,
    /// `none`: the socket sends no standings (the game page's, which waits for `paired`).
    standings: Option<String>,
}

impl ArenaQuery {
    /// The page asked for (1 unless said), or `bad-arena`.
    fn page(&self) -> Result<usize, ApiError> {
        match &self.page {
            None => Ok(1),
            Some(p) => p
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| bad("page must be a whole number from 1")),
        }
    }

    /// Whether the socket sends standings, or `bad-arena`.
    fn standings(&self) -> Result<bool, ApiError> {
        match self.standings.as_deref() {
            None => Ok(true),
            Some("none") => Ok(false),
            Some(_) => Err(bad("standings must be none or absent")),
        }
    }
}

/// The query, or `bad-arena`.
fn arena_query(
    query: Result<Query<ArenaQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<ArenaQuery, ApiError> {
    query
        .map(|Query(q)| q)
        .map_err(|e| bad(format!("the query: {}", e.body_text())))
}

/// `GET /api/arenas`: upcoming, running and recently finished arenas.
async fn list(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let now = state.arenas.now();
    let arenas = state.arenas.arenas.list(now - RECENT_MS, LIST_SIZE).await?;
    let arenas: Vec<Value> = arenas.iter().map(|a| info_json(a, now)).collect();
    with_me(&state, &headers, json!({ "arenas": arenas })).await
}

/// `GET /api/arenas/{id}`: the arena and its standings.
async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<ArenaQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let page = arena_query(query)?.page()?;
    if !keys::is_room_id(&id) {
        return Err(ApiError::UnknownArena);
    }
    let data = state
        .arenas
        .arenas
        .get(&id)
        .await?
        .ok_or(ApiError::UnknownArena)?;
    let me = crate::accounts::signed_in(&state, &headers).await?;
    let body = arena_json(&data, state.arenas.now(), page, me.as_ref().map(|(a, _)| *a));
    Ok(no_store(body, me.map(|(_, name)| name)))
}

async fn change(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    change: Membership,
) -> Result<Response, ApiError> {
    let (account, name) = account(state, headers).await?;
    if !keys::is_room_id(id) {
        return Err(ApiError::UnknownArena);
    }
    match state
        .arenas
        .arenas
        .member(id, account, &name, change, state.arenas.now())
        .await?
    {
        Member::Done => {
            state.arenas.poke.notify_one();
            Ok(Json(json!({ "state": change.state() })).into_response())
        }
        Member::NoArena => Err(ApiError::UnknownArena),
        Member::Finished => Err(ApiError::ArenaFinished),
        Member::NotJoined => Err(ApiError::NotInArena),
    }
}

/// `POST /api/arenas/{id}/join`: join, or come back from a pause or a withdrawal.
async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    change(&state, &headers, &id, Membership::Join).await
}

/// `POST /api/arenas/{id}/withdraw`.
async fn withdraw(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    change(&state, &headers, &id, Membership::Withdraw).await
}

/// `POST /api/arenas/{id}/pause`.
async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    change(&state, &headers, &id, Membership::Pause).await
}

/// `GET /api/arenas/{id}/ws`: the arena socket. A signed-in player's cookie makes it
/// the player's (only from this site: another site's page gets a watcher's socket).
async fn socket(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<ArenaQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let Ok(upgrade) = upgrade else {
        return Err(ApiError::NotWebSocket);
    };
    let query = arena_query(query)?;
    let wants = Wants {
        page: query.standings()?.then_some(query.page()?),
        sent_page: None,
        sent_own: None,
    };
    if !keys::is_room_id(&id) {
        return Err(ApiError::UnknownArena);
    }
    let Some(feed) = state.arenas.watch(&id).await? else {
        return Err(ApiError::UnknownArena);
    };
    let player = if crate::accounts::same_origin(&state, &headers).is_ok() {
        crate::accounts::signed_in(&state, &headers)
            .await?
            .map(|(a, _)| a)
    } else {
        None
    };
    let (hub, shutdown, tracker) = (
        state.arenas.clone(),
        state.shutdown.clone(),
        state.tracker.clone(),
    );
    // The messages' bytes are shared, so a socket holds little of its own.
    Ok(upgrade
        .read_buffer_size(crate::ws::SOCKET_BUFFER)
        .write_buffer_size(crate::ws::SOCKET_BUFFER)
        .max_message_size(crate::protocol::MAX_FRAME)
        .on_upgrade(move |ws| tracker.track_future(serve(ws, hub, id, player, wants, feed, shutdown)))
        .into_response())
}

/// What one arena socket sends of the arena's messages, and what it last sent.
struct Wants {
    /// The standings page it follows; `None`: no standings.
    page: Option<usize>,
    sent_page: Option<Utf8Bytes>,
    sent_own: Option<Utf8Bytes>,
}

impl Wants {
    /// Of `pushed`, the messages this socket has not sent yet (its page; its player's
    /// own row), each the bytes every socket shares.
    fn news(&mut self, pushed: &Pushed, player: Option<i64>) -> Vec<Utf8Bytes> {
        let mut out = Vec::new();
        let Some(page) = self.page else {
            return out;
        };
        let now = pushed.page(page);
        if self.sent_page.as_ref() != Some(&now) {
            self.sent_page = Some(now.clone());
            out.push(now);
        }
        if let Some(own) = player.and_then(|a| pushed.own(a))
            && self.sent_own.as_ref() != Some(&own)
        {
            self.sent_own = Some(own.clone());
            out.push(own);
        }
        out
    }
}

/// Sends each of `messages`; false when the socket is gone.
async fn send_all(
    tx: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    messages: Vec<Utf8Bytes>,
) -> bool {
    for m in messages {
        if tx.send(Message::Text(m)).await.is_err() {
            return false;
        }
    }
    true
}

async fn serve(
    ws: WebSocket,
    hub: Arc<Hub>,
    arena: String,
    player: Option<i64>,
    mut wants: Wants,
    mut feed: tokio::sync::watch::Receiver<Arc<Pushed>>,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let (mut tx, mut rx) = ws.split();
    let first = feed.borrow_and_update().clone();
    if !send_all(&mut tx, wants.news(&first, player)).await {
        return;
    }
    // The key this socket will hand its player for the next game; only its hash is
    // stored (the ticket).
    let mut key = keys::new_seat_key();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let mut look = player.is_some();
    // A player with two sockets here is paired through the newest: the older ones stop
    // setting their tickets (the two would take the ticket from each other every look),
    // but still learn whether the ticket they set last was used.
    let socket = player.map(|account| hub.socket_opened(&arena, account));
    loop {
        if let (true, Some(account), Some(n)) = (look, player, socket) {
            let hash = keys::hash_key(&key);
            let asked = if hub.newest_socket(&arena, account, n) {
                hub.arenas.ticket(&arena, account, hash).await
            } else {
                hub.arenas.used(&arena, account, hash).await
            };
            match asked {
                Ok(Ticket::Paired(room, seat)) => {
                    let message = json!({ "type": crate::protocol::ArenaMessage::Paired.as_str(), "room": room, "seat": seat.to_string(), "key": key });
                    if tx.send(Message::Text(message.to_string().into())).await.is_err() {
                        break;
                    }
                    key = keys::new_seat_key();
                    // The new ticket at once, so the next game is paired as soon as
                    // this one ends.
                    continue;
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "an arena ticket could not be read"),
            }
        }
        let woken = hub.paired.notified();
        look = player.is_some();
        tokio::select! {
            () = woken => {}
            () = tokio::time::sleep(TICKET_POLL) => {}
            changed = feed.changed() => {
                look = false;
                if changed.is_err() {
                    // Nobody feeds this arena any more: watch it again.
                    match hub.watch(&arena).await {
                        Ok(Some(f)) => feed = f,
                        Ok(None) | Err(_) => break,
                    }
                }
                let pushed = feed.borrow_and_update().clone();
                if !send_all(&mut tx, wants.news(&pushed, player)).await {
                    break;
                }
            }
            _ = ping.tick() => {
                look = false;
                if tx.send(Message::Ping(Vec::new().into())).await.is_err() {
                    break;
                }
            }
            incoming = rx.next() => {
                look = false;
                match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => {}
                }
            }
            () = shutdown.cancelled() => break,
        }
    }
    if let (Some(account), Some(n)) = (player, socket) {
        hub.socket_closed(&arena, account, n);
        if let Err(e) = hub
            .arenas
            .drop_ticket(&arena, account, keys::hash_key(&key))
            .await
        {
            tracing::debug!(error = %e, "an arena ticket was not withdrawn");
        }
    }
    let _ = tx.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn asked(body: Value) -> Result<NewArena, String> {
        requested_arena(body.to_string().as_bytes(), NOW).map_err(|e| {
            assert_eq!(e.code(), crate::protocol::ErrorCode::BadArena);
            e.to_string()
        })
    }

    #[test]
    fn a_socket_sends_its_page_and_its_own_row_once_each_change() {
        use crate::arena::scoring::{Ending, Game, Player};
        use crate::store::arena::{ArenaData, ArenaInfo};
        let players = (0..70)
            .map(|i| Player {
                account: i,
                name: format!("n{i:02}"),
                state: "joined".into(),
            })
            .collect();
        let info = ArenaInfo {
            id: "abcdefghijkl".into(),
            name: "x".into(),
            variant: "nine".into(),
            initial: 60,
            increment: 0,
            starts_at: 0,
            ends_at: 1,
            rated: false,
            players: 70,
        };
        let mut data = ArenaData {
            info,
            players,
            games: vec![],
        };
        let first = Pushed::of(&data, 0);
        let mut watcher = Wants {
            page: Some(1),
            sent_page: None,
            sent_own: None,
        };
        let mut player = Wants {
            page: Some(2),
            sent_page: None,
            sent_own: None,
        };
        let mut quiet = Wants {
            page: None,
            sent_page: None,
            sent_own: None,
        };
        assert_eq!(watcher.news(&first, None), vec![first.page(1)]);
        assert_eq!(
            player.news(&first, Some(3)),
            vec![first.page(2), first.own(3).unwrap()]
        );
        assert!(
            quiet.news(&first, Some(3)).is_empty(),
            "standings=none sends none"
        );
        // Nothing new: nothing sent.
        assert!(watcher.news(&first, None).is_empty());
        assert!(player.news(&first, Some(3)).is_empty());
        // Players 60 and 61 begin a game: every page's count moves; player 3's row does
        // not.
        data.games.push(Game {
            room: "r".into(),
            light: 60,
            dark: 61,
            light_rating: 1500.0,
            dark_rating: 1500.0,
            started_at: 1,
            ending: None,
            turns: (0, 0),
        });
        let next = Pushed::of(&data, 0);
        assert_eq!(watcher.news(&next, None), vec![next.page(1)]);
        assert_eq!(player.news(&next, Some(3)), vec![next.page(2)]);
        assert!(quiet.news(&next, Some(3)).is_empty());
        // Player 3 wins one: its row (now first) comes, and its page (2, cut to the last).
        data.games[0].ending = Some(Ending::Light);
        data.games[0].light = 3;
        let last = Pushed::of(&data, 0);
        assert_eq!(
            player.news(&last, Some(3)),
            vec![last.page(2), last.own(3).unwrap()]
        );
        assert_ne!(last.own(3), next.own(3));
    }

    #[test]
    fn a_good_arena_is_read_with_its_defaults() {
        let a = asked(json!({"name": " Evening ", "clock": {"initial": 180, "increment": 2}, "minutes": 60}))
            .unwrap();
        assert_eq!(a.name, "Evening");
        assert_eq!(a.variant, "nine");
        assert_eq!((a.initial, a.increment), (180, 2));
        assert_eq!((a.starts_at, a.ends_at), (NOW, NOW + 3_600_000));
        assert!(!a.rated);
        let later = super::super::rfc3339(NOW + 3_600_000);
        let a = asked(
            json!({"name": "x", "variant": "six", "clock": {"initial": 60, "increment": 0},
                             "minutes": 360, "starts": later, "rated": true}),
        )
        .unwrap();
        assert_eq!(a.variant, "six");
        assert_eq!(a.starts_at, NOW + 3_600_000);
        assert!(a.rated);
    }

    #[test]
    fn every_bad_field_is_refused_with_bad_arena() {
        let ok = json!({"name": "x", "clock": {"initial": 60, "increment": 0}, "minutes": 30});
        let with = |key: &str, value: Value| {
            let mut v = ok.clone();
            v[key] = value;
            v
        };
        for body in [
            json!([]),
            json!({}),
            with("name", json!("")),
            with("name", json!("   ")),
            with("name", json!("a".repeat(61))),
            with("name", json!("tab\there")),
            with("name", json!(5)),
            with("variant", json!("chess")),
            with("variant", json!("nine+pieces-5")),
            with("clock", json!(null)),
            with("clock", json!({"days": 3})),
            with("clock", json!({"initial": -1, "increment": 0})),
            with("minutes", json!(0)),
            with("minutes", json!(361)),
            with("minutes", json!(1.5)),
            with("minutes", json!("60")),
            with("starts", json!("yesterday")),
            with("starts", json!(super::super::rfc3339(NOW - 3_600_000))),
            with("starts", json!(super::super::rfc3339(NOW + 8 * 86_400_000))),
            with("starts", json!(12)),
            with("rated", json!("yes")),
        ] {
            assert!(asked(body.clone()).is_err(), "{body}");
        }
        assert!(requested_arena(b"not json", NOW).is_err());
    }
}

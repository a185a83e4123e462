//! The HTTP routes: the page, the room API, the WebSocket upgrade and `/metrics`; the
//! layers that bound every request (body size, time); and the answers for what is not
//! there (a 404 page for people, JSON under `/api`, a "room is gone" page).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Path, Query, Request, State, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{any, delete, get, post};
use axum::{Json, Router};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::assets::{Assets, REVALIDATE};
use crate::config::Config;
use crate::error::ApiError;
use crate::protocol::{ErrorCode, MAX_FRAME, PROTOCOL, PairOutcome};
use crate::rooms::Rooms;
use crate::throttle::PerAddress;
use crate::{keys, metrics, ws};

/// The page for people who asked for something that is not there.
pub const NOT_FOUND_PAGE: &str = "404.html";
/// The page for an invite link to a room that does not exist (any more).
pub const GONE_PAGE: &str = "gone.html";

/// What every handler shares; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Every room.
    pub rooms: Rooms,
    /// Settings.
    pub config: Arc<Config>,
    /// Room creation and joins per address.
    pub per_address: Arc<PerAddress>,
    /// The page's files.
    pub assets: Assets,
    /// The address the server listens on (invite links fall back to it).
    pub local_addr: SocketAddr,
    /// Cancelled when the server shuts down; sockets close on it.
    pub shutdown: CancellationToken,
    /// Socket tasks, so shutdown can wait for their close frames.
    pub tracker: TaskTracker,
    /// Accounts and sessions (`accounts.rs`).
    pub accounts: Arc<crate::accounts::AccountsState>,
    /// Arenas: this instance's pairing loop and standings (`arena/`).
    pub arenas: Arc<crate::arena::Hub>,
    /// The endgame tables' probe endpoint (`tbprobe.rs`).
    pub tb_probes: Arc<crate::tbprobe::TbProbes>,
}

/// The router.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/api/health", get(|| async { Json(json!({ "ok": true })) }))
        .route("/api/rooms", post(create_room))
        .route("/api/rooms/{room}", get(room_info))
        .route("/api/rooms/{room}/join", post(join_room))
        .route("/api/rooms/{room}/rounds/{round}", get(round_record))
        .route("/api/rooms/{room}/ws", get(socket))
        .route("/api/{*rest}", any(|| async { ApiError::NotFound }))
        .route("/api", any(|| async { ApiError::NotFound }))
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .route("/metrics", get(metrics_text))
        .route(
            "/",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "index.html", None, &h) }),
        )
        .route("/r/{room}", get(invite_link))
        .route("/r/{room}/review/{round}", get(review_link))
        .route(
            "/rules",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "rules.html", None, &h) }),
        )
        .route(
            "/puzzles",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "puzzles.html", None, &h) }),
        )
        .route(
            "/account",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "account.html", None, &h) }),
        )
        // The leaderboard (accounts.rs `leaderboard`): the page asks /api/players?rules=&speed=.
        .route(
            "/players",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "players.html", None, &h) }),
        )
        // A player's profile: the page asks /api/players/{name} and says if there is none.
        .route(
            "/@/{name}",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "profile.html", None, &h) }),
        )
        // An arena's page: the page asks /api/arenas/{id} and its socket, and says if there is none.
        .route(
            "/arena/{id}",
            get(|s: State<AppState>, h: HeaderMap| async move { page(&s, "arena.html", None, &h) }),
        )
        .route("/tb/{*file}", get(table_file))
        .route("/api/tb/probe", get(tb_probe))
        .route("/api/seeks", get(open_seeks))
        .route("/api/pair/{seek}", delete(cancel_seek))
        // Accounts, sessions, players (accounts.rs).
        .merge(crate::accounts::routes())
        // Passkeys (passkeys.rs).
        .merge(crate::passkeys::routes())
        // Arenas (arena/api.rs).
        .merge(crate::arena::api::routes())
        .fallback(static_file)
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            state.config.request_timeout,
        ))
        // Held until an opponent comes, within its own bound (`pair_wait`), so added
        // after the request timeout, which would cut it.
        .route("/api/pair", post(pair))
        .layer(RequestBodyLimitLayer::new(state.config.max_body))
        .layer(middleware::from_fn(coded_refusals))
        // Spans name the method and path only: a query string is never logged.
        .layer(TraceLayer::new_for_http().make_span_with(
            |req: &Request| tracing::debug_span!("request", method = %req.method(), path = %req.uri().path()),
        ))
        .with_state(state)
}

/// Gives the refusals of the tower layers (body too large, too slow) the same JSON
/// shape and codes as every other API error, and counts every refusal.
async fn coded_refusals(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    match response.status() {
        StatusCode::PAYLOAD_TOO_LARGE if !is_json(&response) => ApiError::BodyTooLarge.into_response(),
        StatusCode::REQUEST_TIMEOUT if !is_json(&response) => ApiError::Timeout.into_response(),
        _ => response,
    }
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

fn page(state: &AppState, file: &str, query: Option<&str>, headers: &HeaderMap) -> Response {
    state
        .assets
        .serve(file, query, headers, StatusCode::OK)
        .unwrap_or_else(|| not_found_page(state, headers))
}

/// The 404 page (the static directory's `404.html`, else a built-in one).
fn not_found_page(state: &AppState, headers: &HeaderMap) -> Response {
    metrics::refused(ErrorCode::NotFound);
    state
        .assets
        .serve(NOT_FOUND_PAGE, None, headers, StatusCode::NOT_FOUND)
        .unwrap_or_else(|| {
            (
                StatusCode::NOT_FOUND,
                [(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE))],
                Html(FALLBACK_404),
            )
                .into_response()
        })
}

const FALLBACK_404: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Not found · Mill</title>\
<h1>Nothing here</h1><p>This page does not exist. <a href=\"/\">Go to Mill</a></p></html>";

const FALLBACK_GONE: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Room gone · Mill</title>\
<h1>This room is gone</h1><p>Rooms close after a week without play. <a href=\"/\">Start a new game</a></p></html>";

async fn static_file(State(state): State<AppState>, method: Method, req: Request) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return ApiError::MethodNotAllowed.into_response();
    }
    let path = req.uri().path().trim_start_matches('/');
    // Pages are reached by their routes; the HTML files themselves are there too, for
    // old links, but the 404 and gone pages are only answers.
    if path == NOT_FOUND_PAGE || path == GONE_PAGE {
        return not_found_page(&state, req.headers());
    }
    state
        .assets
        .serve(path, req.uri().query(), req.headers(), StatusCode::OK)
        .unwrap_or_else(|| not_found_page(&state, req.headers()))
}

/// `/tb/{file}`: an endgame table or their manifest (`assets.rs`); a table that is not
/// there is a plain 404, as the page's worker asks for it, not a person.
async fn table_file(State(state): State<AppState>, req: Request) -> Response {
    let path = req.uri().path().trim_start_matches('/');
    state
        .assets
        .serve(path, req.uri().query(), req.headers(), StatusCode::OK)
        .unwrap_or_else(|| {
            metrics::refused(ErrorCode::NotFound);
            (
                StatusCode::NOT_FOUND,
                [(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE))],
                "no such table\n",
            )
                .into_response()
        })
}

/// `GET /api/tb/probe?variant=&position=`: the server's endgame tables on one position
/// (`tbprobe.rs`, docs/PROTOCOL.md "Endgame tables").
async fn tb_probe(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    query: Result<Query<std::collections::HashMap<String, String>>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::Malformed(e.body_text()))?;
    if !state.tb_probes.per_address.allow(addr.ip()) {
        return Err(ApiError::ProbesRateLimited);
    }
    let probes = state.tb_probes.clone();
    let answer = tokio::task::spawn_blocking(move || {
        probes.answer(
            query.get("variant").map(String::as_str),
            query.get("position").map(String::as_str),
        )
    })
    .await
    .map_err(|e| ApiError::Internal(format!("a probe failed: {e}")))??;
    // The tables do not change while the server runs: a browser may keep an answer.
    Ok((
        [(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=3600"),
        )],
        Json(answer.as_ref().clone()),
    )
        .into_response())
}

/// `/r/{room}`: the page for a room that exists, else the "room is gone" page (404).
async fn invite_link(
    State(state): State<AppState>,
    Path(room): Path<String>,
    headers: HeaderMap,
) -> Response {
    room_page(&state, &room, &headers).await
}

/// `/r/{room}/review/{n}`, a finished round's share link: the page, which asks
/// `/api/rooms/{room}/rounds/{n}` for the round and says so if it cannot be had; the
/// "room is gone" page when the room is.
async fn review_link(
    State(state): State<AppState>,
    Path((room, _round)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    room_page(&state, &room, &headers).await
}

async fn room_page(state: &AppState, room: &str, headers: &HeaderMap) -> Response {
    if keys::is_room_id(room) && state.rooms.info(room).await.is_ok() {
        return page(state, "index.html", None, headers);
    }
    metrics::refused(ErrorCode::UnknownRoom);
    state
        .assets
        .serve(GONE_PAGE, None, headers, StatusCode::NOT_FOUND)
        .unwrap_or_else(|| {
            (
                StatusCode::NOT_FOUND,
                [(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE))],
                Html(FALLBACK_GONE),
            )
                .into_response()
        })
}

async fn metrics_text(State(state): State<AppState>) -> Response {
    metrics::get()
        .rooms
        .set(i64::try_from(state.rooms.in_memory()).unwrap_or(i64::MAX));
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        metrics::render(),
    )
        .into_response()
}

/// The base of invite links: `--public-url`, else the request's Host when it is one
/// the server answers to (an `--allowed-host`, or the listening address itself), else
/// the listening address. A Host header alone never chooses where a link points.
fn invite(state: &AppState, headers: &HeaderMap, room: &str) -> String {
    if let Some(url) = &state.config.public_url {
        return format!("{}/r/{room}", url.trim_end_matches('/'));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let base = match host {
        Some(host) if host_allowed(state, host) => host.to_string(),
        _ => state.local_addr.to_string(),
    };
    format!("http://{base}/r/{room}")
}

fn host_allowed(state: &AppState, host: &str) -> bool {
    let host = host.trim();
    if state
        .config
        .allowed_hosts
        .iter()
        .any(|h| h.trim().eq_ignore_ascii_case(host))
    {
        return true;
    }
    let addr = state.local_addr;
    if host == addr.to_string() {
        return true;
    }
    // On loopback, `localhost:<port>` is the same server.
    addr.ip().is_loopback() && host.eq_ignore_ascii_case(&format!("localhost:{}", addr.port()))
}

fn seat_reply(
    state: &AppState,
    headers: &HeaderMap,
    room: &str,
    seat: &str,
    key: &str,
) -> Json<serde_json::Value> {
    Json(json!({
        "room": room,
        "seat": seat,
        "key": key,
        "invite": invite(state, headers, room),
        "protocol": PROTOCOL,
    }))
}

/// The rule set a new room asks for: an empty body (older pages) or `{}` is Nine Men's
/// Morris, `{"variant": "six+per-mill"}` any rule set of mill-core's table (not one
/// with extended options, such as other piece counts or draws by claim, which
/// mill-core plays for MIF games but the page does not offer).
fn requested_rules(body: &[u8]) -> Result<&'static mill_core::Rules, ApiError> {
    // Unknown fields are ignored, as docs/PROTOCOL.md promises.
    #[derive(serde::Deserialize)]
    struct CreateRoom {
        variant: Option<String>,
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(mill_core::Variant::Nine.rules());
    }
    let asked: CreateRoom = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRules(format!("the body is not {{\"variant\": NAME}} ({e})")))?;
    match asked.variant {
        None => Ok(mill_core::Variant::Nine.rules()),
        // Only the table's rule sets: one with extended options is refused without being
        // made, so clients cannot use up the process's room for them.
        Some(name) => mill_core::Rules::parse_table(&name).map_err(|e| ApiError::BadRules(e.to_string())),
    }
}

/// The time control a new room asks for: `clock` absent or `null` is an untimed room
/// (`requested_rules` has already read the body as an object).
fn requested_clock(body: &[u8]) -> Result<Option<crate::timecontrol::TimeControl>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let asked: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| ApiError::BadClock(e.to_string()))?;
    crate::timecontrol::TimeControl::from_request(asked.get("clock"))
        .map_err(|e| ApiError::BadClock(e.to_string()))
}

async fn create_room(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let rules = requested_rules(&body)?;
    let clock = requested_clock(&body)?;
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let account = crate::accounts::seat_account(&state, &headers, false).await?;
    let (room, key) = state.rooms.create(rules, clock).await?;
    crate::accounts::bind_seat(&state, &room, "light", account).await?;
    tracing::info!(%room, %rules, "room created");
    Ok((
        StatusCode::CREATED,
        seat_reply(&state, &headers, &room, "light", &key),
    )
        .into_response())
}

/// The seeker and seek ids of a pair request (`requested_rules` has already read the
/// body as an object): tokens, or absent.
fn requested_seek(body: &[u8]) -> Result<(Option<String>, Option<String>), ApiError> {
    #[derive(serde::Deserialize)]
    struct Ids {
        seeker: Option<String>,
        seek: Option<String>,
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok((None, None));
    }
    let ids: Ids = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadSeek(format!("seeker and seek must be strings ({e})")))?;
    for (name, id) in [("seeker", &ids.seeker), ("seek", &ids.seek)] {
        if id
            .as_deref()
            .is_some_and(|id| !crate::rooms::pairing::is_token(id))
        {
            return Err(ApiError::BadSeek(format!(
                "{name} must be 8 to 64 letters, digits, - or _"
            )));
        }
    }
    Ok((ids.seeker, ids.seek))
}

/// `POST /api/pair`: held until a seeker with the same rules and clock arrives, then
/// the seat of the new room, as room creation answers, with `outcome` `paired` (201);
/// after the wait, 200 with `outcome` `no-opponent`: nobody coming is an answer, not
/// an error. The request ending early (the client gave up) withdraws the seek.
async fn pair(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let rules = requested_rules(&body)?;
    let clock = requested_clock(&body)?;
    let (seeker, seek) = requested_seek(&body)?;
    // Accounts (accounts.rs): a signed-in seeker's seat is bound to the account; a rated
    // seek needs one, and a clock.
    let rated = crate::accounts::requested_rated(&body)?;
    let account = crate::accounts::seat_account(&state, &headers, rated).await?;
    if rated && clock.is_none() {
        return Err(ApiError::BadClock("a rated game needs a clock".into()));
    }
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let asked = crate::rooms::pairing::SeekRequest {
        rules,
        clock,
        seeker,
        seek,
        account,
        rated,
        address: addr.ip(),
        address_cap: state.config.max_seeks_per_address,
        // The databases read the seeker's rating in the pairing's transaction.
        rating: None,
    };
    let Some((room, seat, key)) = state
        .rooms
        .pair(asked, state.config.pair_wait, &state.shutdown)
        .await?
    else {
        return Ok((
            StatusCode::OK,
            Json(json!({ "outcome": PairOutcome::NoOpponent, "protocol": PROTOCOL })),
        )
            .into_response());
    };
    let Json(mut reply) = seat_reply(
        &state,
        &headers,
        &room,
        crate::store::types::seat_name(seat),
        &key,
    );
    reply["outcome"] = json!(PairOutcome::Paired);
    Ok((StatusCode::CREATED, Json(reply)).into_response())
}

/// `DELETE /api/pair/{seek}`: withdraws the seek if it is still open (its held request
/// is answered `seek-withdrawn`); 204 either way.
async fn cancel_seek(State(state): State<AppState>, Path(seek): Path<String>) -> Result<Response, ApiError> {
    if crate::rooms::pairing::is_token(&seek) {
        state.rooms.withdraw_seek(&seek).await?;
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /api/seeks`: the open seeks of every instance, oldest first (no ids, no keys).
async fn open_seeks(State(state): State<AppState>) -> Result<Response, ApiError> {
    let seeks: Vec<serde_json::Value> = state
        .rooms
        .open_seeks()
        .await?
        .iter()
        .map(crate::rooms::pairing::LobbySeek::to_json)
        .collect();
    Ok((
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(json!({ "seeks": seeks, "protocol": PROTOCOL })),
    )
        .into_response())
}

async fn join_room(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    Path(room): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !keys::is_room_id(&room) {
        return Err(ApiError::UnknownRoom);
    }
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let account = crate::accounts::seat_account(&state, &headers, false).await?;
    let key = state.rooms.join(&room).await?;
    crate::accounts::bind_seat(&state, &room, "dark", account).await?;
    tracing::info!(%room, "room joined");
    Ok(seat_reply(&state, &headers, &room, "dark", &key).into_response())
}

async fn room_info(State(state): State<AppState>, Path(room): Path<String>) -> Result<Response, ApiError> {
    let info = state.rooms.info(&room).await?;
    let mut body = serde_json::to_value(info).map_err(|e| ApiError::Internal(e.to_string()))?;
    // An arena's game names its arena, so its page can lead back there (PROTOCOL.md).
    let arena = state.arenas.arenas.of_room(&room).await?;
    body["arena"] = json!(arena);
    Ok(Json(body).into_response())
}

/// A finished round's record, for review by a shared link: no seat keys, no presence.
async fn round_record(
    State(state): State<AppState>,
    Path((room, round)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    if !keys::is_room_id(&room) {
        return Err(ApiError::UnknownRoom);
    }
    // Digits only: "+1" or " 1" name no round.
    let round = round
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| round.parse::<u32>().ok())
        .flatten()
        .ok_or(ApiError::UnknownRound)?;
    let record = state.rooms.round_record(&room, round).await?;
    Ok(Json(record).into_response())
}

async fn socket(
    State(state): State<AppState>,
    Path(room): Path<String>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(upgrade) = upgrade else {
        return ApiError::NotWebSocket.into_response();
    };
    // The signed-in account, for a hello asking for its seat: only from this site (a
    // page elsewhere opening this socket gets no account, as the arena socket).
    let account = if crate::accounts::session_token(&headers).is_some()
        && crate::accounts::same_origin(&state, &headers).is_ok()
    {
        match crate::accounts::signed_in(&state, &headers).await {
            Ok(signed) => signed.map(|(id, _)| id),
            Err(e) => return e.into_response(),
        }
    } else {
        None
    };
    upgrade
        .read_buffer_size(crate::ws::SOCKET_BUFFER)
        .write_buffer_size(crate::ws::SOCKET_BUFFER)
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| {
            let tracker = state.tracker.clone();
            let context = ws::Context {
                rooms: state.rooms,
                config: state.config,
                shutdown: state.shutdown,
                accounts: state.accounts,
                account,
            };
            tracker.track_future(ws::serve(socket, context, room))
        })
}

//! The HTTP routes: the page, the room API and the WebSocket upgrade.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Path, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::error::ApiError;
use crate::keys;
use crate::protocol::{MAX_FRAME, PROTOCOL};
use crate::rooms::Rooms;
use crate::throttle::PerAddress;
use crate::ws;

/// What every handler shares; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    /// Every room.
    pub rooms: Rooms,
    /// Settings.
    pub config: Arc<Config>,
    /// Room creation and joins per address.
    pub per_address: Arc<PerAddress>,
    /// Cancelled when the server shuts down; sockets close on it.
    pub shutdown: CancellationToken,
    /// Socket tasks, so shutdown can wait for their close frames.
    pub tracker: TaskTracker,
}

/// The router.
pub fn app(state: AppState) -> Router {
    let dir = &state.config.static_dir;
    let index = ServeFile::new(dir.join("index.html"));
    Router::new()
        .route("/api/health", get(|| async { Json(json!({ "ok": true })) }))
        .route("/api/rooms", post(create_room))
        .route("/api/rooms/{room}", get(room_info))
        .route("/api/rooms/{room}/join", post(join_room))
        .route("/api/rooms/{room}/ws", get(socket))
        .route("/api/{*rest}", any(|| async { ApiError::NotFound }))
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .route_service("/", index.clone())
        .route_service("/r/{room}", index)
        .route_service("/rules", ServeFile::new(dir.join("rules.html")))
        .fallback_service(ServeDir::new(dir))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

fn invite(state: &AppState, headers: &HeaderMap, room: &str) -> String {
    let base = match &state.config.public_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("127.0.0.1");
            format!("http://{host}")
        }
    };
    format!("{base}/r/{room}")
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

async fn create_room(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let (room, key) = state.rooms.create().await?;
    tracing::info!(%room, "room created");
    Ok((
        StatusCode::CREATED,
        seat_reply(&state, &headers, &room, "light", &key),
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
    let key = state.rooms.join(&room).await?;
    tracing::info!(%room, "room joined");
    Ok(seat_reply(&state, &headers, &room, "dark", &key).into_response())
}

async fn room_info(State(state): State<AppState>, Path(room): Path<String>) -> Result<Response, ApiError> {
    let info = state.rooms.info(&room).await?;
    Ok(Json(info).into_response())
}

async fn socket(
    State(state): State<AppState>,
    Path(room): Path<String>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(upgrade) = upgrade else {
        return ApiError::NotWebSocket.into_response();
    };
    // Messages are small: 4 KiB buffers instead of the default 128 KiB keep 10,000
    // sockets in a few tens of megabytes.
    upgrade
        .read_buffer_size(4 * 1024)
        .write_buffer_size(4 * 1024)
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| {
            let tracker = state.tracker.clone();
            tracker.track_future(ws::serve(socket, state, room))
        })
}

//! Optional accounts over HTTP (docs/PROTOCOL.md, "Accounts"): sign-up, sign-in and
//! sign-out with a password, sign out everywhere, deleting an account, `GET /api/me` and
//! a player's public page. Anonymous play never needs any of it.
//!
//! - **Passwords** are hashed with argon2id, m = 19 MiB, t = 2, p = 1 ([`ARGON2_M_KIB`]…:
//!   the smallest of OWASP's recommended settings), into a PHC
//!   string that names its parameters, so they can be raised later without breaking the
//!   hashes already stored. A password is at least 8 characters and not one of the most
//!   common ones (`common-passwords.txt`) nor the name itself.
//! - **Sessions** are 32 random bytes in a cookie (`HttpOnly; SameSite=Lax; Path=/`,
//!   `Secure` when `--public-url` is https), kept in the database only as their SHA-256;
//!   each sign-in makes a new one (and ends the one the request came with), they expire
//!   after [`SESSION_DAYS`], and sign-out, sign out everywhere and deletion revoke them.
//! - **Sign-in** answers a wrong password and an unknown name alike (401
//!   `bad-credentials`), after the same work: an unknown name is checked against a dummy
//!   hash of the same parameters. Failures are counted per name and per address
//!   ([`FailureGate`]); past the allowance, 429 `throttled` without hashing.
//! - **Cross-site requests**: every state-changing request here checks `Origin` (and
//!   `Sec-Fetch-Site`), so another site cannot sign a visitor in, out or away (403
//!   `cross-site`).
//!
//! No password, token or hash is ever logged: requests are logged by path only
//! (`app.rs`), and nothing here logs a body or a header.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use rand::Rng;
use serde_json::{Value, json};

use crate::app::AppState;
use crate::error::ApiError;
use crate::store::accounts::{Accounts, NewSession, StoredRating};

/// argon2id memory, KiB.
pub const ARGON2_M_KIB: u32 = 19 * 1024;
/// argon2id passes.
pub const ARGON2_T: u32 = 2;
/// argon2id lanes.
pub const ARGON2_P: u32 = 1;
/// Shortest password.
pub const MIN_PASSWORD: usize = 8;
/// Longest password (characters): more would only make hashing a cost for the server.
pub const MAX_PASSWORD: usize = 256;
/// How long a session lasts.
pub const SESSION_DAYS: i64 = 30;
/// The session cookie's name.
pub const SESSION_COOKIE: &str = "mill_session";
/// Failed sign-ins one name may have in [`FAILURE_WINDOW`] before it is throttled.
pub const FAILURES_PER_NAME: u32 = 5;
/// Failed sign-ins one address may have in [`FAILURE_WINDOW`] before it is throttled.
pub const FAILURES_PER_ADDRESS: u32 = 20;
/// The window failures are counted in.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Names nobody may take: the name shown for deleted accounts, and words that would
/// pass for the site speaking.
const RESERVED: &[&str] = &[
    "deleted",
    "anonymous",
    "admin",
    "administrator",
    "mill",
    "system",
    "moderator",
];

static COMMON_PASSWORDS: LazyLock<std::collections::HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("common-passwords.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

fn hasher() -> Argon2<'static> {
    let params = Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password into a PHC string (blocking: tens of milliseconds).
pub fn hash_password(password: &str) -> String {
    let salt: [u8; 16] = rand::rng().random();
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a salt");
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashes any password")
        .to_string()
}

/// Whether `password` matches the PHC string `hash` (blocking); a damaged hash matches
/// nothing.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| hasher().verify_password(password.as_bytes(), &h).is_ok())
}

/// What an unknown name's password is checked against, so that it costs what a known
/// one does.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| hash_password("not a password of anyone"));

/// Why a name cannot be an account's.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    if !(3..=20).contains(&name.len()) {
        return Err(ApiError::BadName("a name is 3 to 20 characters".into()));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(ApiError::BadName(
            "a name has only letters a–z, digits, _ and -".into(),
        ));
    }
    if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(ApiError::BadName("this name is reserved".into()));
    }
    Ok(())
}

/// Why a password is too weak for `name`'s account.
pub fn check_password(name: &str, password: &str) -> Result<(), ApiError> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD {
        return Err(ApiError::WeakPassword(format!(
            "a password is at least {MIN_PASSWORD} characters"
        )));
    }
    if chars > MAX_PASSWORD {
        return Err(ApiError::WeakPassword(format!(
            "a password is at most {MAX_PASSWORD} characters"
        )));
    }
    let lower = password.to_lowercase();
    if COMMON_PASSWORDS.contains(lower.as_str()) || lower == name.to_ascii_lowercase() {
        return Err(ApiError::WeakPassword(
            "this password is one of the most common ones".into(),
        ));
    }
    Ok(())
}

/// Failed sign-ins per name and per address in a fixed window. A std `Mutex`: never
/// held across an `.await`.
#[derive(Debug, Default)]
pub struct FailureGate {
    counts: Mutex<HashMap<String, (u32, Instant)>>,
}

impl FailureGate {
    fn keys(name_key: &str, addr: IpAddr) -> [(String, u32); 2] {
        [
            (format!("n:{name_key}"), FAILURES_PER_NAME),
            (format!("a:{addr}"), FAILURES_PER_ADDRESS),
        ]
    }

    /// Whether this name or address has used up its failures.
    pub fn throttled(&self, name_key: &str, addr: IpAddr) -> bool {
        let now = Instant::now();
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        Self::keys(name_key, addr).iter().any(|(key, limit)| {
            counts
                .get(key)
                .is_some_and(|(n, since)| now.duration_since(*since) < FAILURE_WINDOW && n >= limit)
        })
    }

    /// Counts one failure against the name and the address.
    pub fn failed(&self, name_key: &str, addr: IpAddr) {
        let now = Instant::now();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        for (key, _) in Self::keys(name_key, addr) {
            let entry = counts.entry(key).or_insert((0, now));
            if now.duration_since(entry.1) >= FAILURE_WINDOW {
                *entry = (0, now);
            }
            entry.0 += 1;
        }
    }

    /// Forgets windows that have passed, so the map stays small.
    pub fn sweep(&self) {
        let now = Instant::now();
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, (_, since)| now.duration_since(*since) < FAILURE_WINDOW);
    }
}

/// The accounts' part of the server's state.
#[derive(Debug)]
pub struct AccountsState {
    /// The storage.
    pub store: Accounts,
    /// Failed sign-ins.
    pub gate: FailureGate,
}

/// The routes of this module, added to `app.rs`'s router.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/account", post(sign_up).delete(delete_account))
        .route("/api/session", get(session).post(sign_in).delete(sign_out))
        .route("/api/sessions", delete(sign_out_everywhere))
        .route("/api/me", get(me))
        .route("/api/me/games", get(my_games))
        .route("/api/players/{name}", get(player))
        .route("/api/players/{name}/games", get(player_games))
        .route("/api/players", get(leaderboard))
}

/// The origin the server is reached at, as a browser spells it in `Origin`, when
/// `--public-url` names one.
fn public_origin(state: &AppState) -> Option<String> {
    let url = state.config.public_url.as_deref()?;
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    Some(format!("{scheme}://{authority}").to_ascii_lowercase())
}

/// Refuses a request another site made a browser send: its `Origin` is neither the
/// public URL's nor the `Host` it was sent to, or (without `Origin`) its
/// `Sec-Fetch-Site` says it came from elsewhere. Clients that are not browsers send
/// neither header and pass.
pub fn same_origin(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| ApiError::CrossSite)?
            .to_ascii_lowercase();
        if public_origin(state).is_some_and(|o| o == origin) {
            return Ok(());
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        let authority = origin.split_once("://").map(|(_, a)| a);
        return match (authority, host) {
            (Some(a), Some(h)) if a == h => Ok(()),
            _ => Err(ApiError::CrossSite),
        };
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        None | Some("same-origin") | Some("none") => Ok(()),
        Some(_) => Err(ApiError::CrossSite),
    }
}

/// The session token the request's cookie carries, if any.
pub(crate) fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.to_string())
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The signed-in account (id and name) of a request, if its cookie holds a live session.
pub async fn signed_in(state: &AppState, headers: &HeaderMap) -> Result<Option<(i64, String)>, ApiError> {
    let Some(token) = session_token(headers) else {
        return Ok(None);
    };
    let now = state.config.clock.now_ms();
    Ok(state
        .accounts
        .store
        .session(crate::keys::hash_key(&token), now)
        .await?)
}

fn cookie(state: &AppState, value: &str, max_age: i64) -> HeaderValue {
    let secure = if public_origin(state).is_some_and(|o| o.starts_with("https://")) {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
    ))
    .expect("a cookie of hex digits is a header value")
}

/// A new session: its token (for the cookie) and what the database keeps of it.
pub(crate) fn new_session(state: &AppState) -> (String, NewSession) {
    let token = crate::keys::new_seat_key();
    let at = state.config.clock.now_ms();
    let session = NewSession {
        token_hash: crate::keys::hash_key(&token),
        at,
        expires_at: at + SESSION_DAYS * 24 * 3600 * 1000,
    };
    (token, session)
}

pub(crate) fn with_session(state: &AppState, status: StatusCode, token: &str, body: Value) -> Response {
    (
        status,
        [
            (header::SET_COOKIE, cookie(state, token, SESSION_DAYS * 24 * 3600)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Json(body),
    )
        .into_response()
}

fn signed_out(state: &AppState) -> Response {
    (
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, cookie(state, "", 0))],
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

fn credentials(body: &[u8]) -> Result<Credentials, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::Malformed(format!(
            "the body is not {{\"name\": NAME, \"password\": PASSWORD}} ({e})"
        ))
    })
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ApiError::Internal("password hashing panicked".into()))
}

/// `POST /api/account`: 201 `{"name"}` with the session cookie.
async fn sign_up(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let asked = credentials(&body)?;
    check_name(&asked.name)?;
    check_password(&asked.name, &asked.password)?;
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let password = asked.password;
    let hash = blocking(move || hash_password(&password)).await?;
    let (token, session) = new_session(&state);
    let key = asked.name.to_ascii_lowercase();
    match state
        .accounts
        .store
        .create(&asked.name, &key, &hash, session)
        .await?
    {
        None => Err(ApiError::NameTaken),
        Some(_) => {
            tracing::info!("account created");
            Ok(with_session(
                &state,
                StatusCode::CREATED,
                &token,
                json!({ "name": asked.name }),
            ))
        }
    }
}

/// `POST /api/session`: 200 `{"name"}` with a new session cookie.
async fn sign_in(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let asked = credentials(&body)?;
    let key = asked.name.to_ascii_lowercase();
    if state.accounts.gate.throttled(&key, addr.ip()) {
        return Err(ApiError::Throttled);
    }
    // A name that cannot be an account's is looked up all the same (it finds nothing),
    // so every refusal here takes the same path.
    let account = state.accounts.store.by_name(&key).await?;
    let hash = account
        .as_ref()
        .and_then(|a| a.password_hash.clone())
        .unwrap_or_else(|| DUMMY_HASH.clone());
    let password = asked.password;
    let matches = blocking(move || verify_password(&password, &hash)).await?;
    let account = match account {
        Some(a) if matches && a.password_hash.is_some() => a,
        _ => {
            state.accounts.gate.failed(&key, addr.ip());
            return Err(ApiError::BadCredentials);
        }
    };
    // A new id at every sign-in: the session the request came with (if any) ends.
    if let Some(old) = session_token(&headers) {
        state
            .accounts
            .store
            .end_session(crate::keys::hash_key(&old))
            .await?;
    }
    let (token, session) = new_session(&state);
    state.accounts.store.add_session(account.id, session).await?;
    Ok(with_session(
        &state,
        StatusCode::OK,
        &token,
        json!({ "name": account.name }),
    ))
}

/// `DELETE /api/session`: 204, the session ended and the cookie cleared (also when there
/// was none).
async fn sign_out(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    if let Some(token) = session_token(&headers) {
        state
            .accounts
            .store
            .end_session(crate::keys::hash_key(&token))
            .await?;
    }
    Ok(signed_out(&state))
}

/// `DELETE /api/sessions`: every session of the signed-in account ends; 204, or 401.
async fn sign_out_everywhere(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let (id, _) = signed_in(&state, &headers)
        .await?
        .ok_or(ApiError::SignInRequired)?;
    state.accounts.store.end_sessions(id).await?;
    Ok(signed_out(&state))
}

/// `DELETE /api/account` `{"password"}` (or `{"ceremony", "credential"}`: a passkey of
/// the account answering a sign-in ceremony): the signed-in account is deleted with its
/// sessions, ratings and passkeys; 204. The password (or passkey) is asked again, so a
/// session left open on a shared computer cannot delete the account.
async fn delete_account(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    #[derive(serde::Deserialize)]
    struct Confirm {
        password: String,
    }
    let (id, name) = signed_in(&state, &headers)
        .await?
        .ok_or(ApiError::SignInRequired)?;
    // Or a passkey of the account, answering a sign-in ceremony (passkeys.rs).
    if crate::passkeys::is_passkey_confirmation(&body) {
        crate::passkeys::confirm_account(&state, addr, &headers, &body, id).await?;
        state.accounts.store.delete(id).await?;
        tracing::info!("account deleted");
        return Ok(signed_out(&state));
    }
    let confirm: Confirm = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Malformed(format!("the body is not {{\"password\": PASSWORD}} ({e})")))?;
    let key = name.to_ascii_lowercase();
    if state.accounts.gate.throttled(&key, addr.ip()) {
        return Err(ApiError::Throttled);
    }
    let hash = state
        .accounts
        .store
        .by_name(&key)
        .await?
        .and_then(|a| a.password_hash)
        .unwrap_or_else(|| DUMMY_HASH.clone());
    let matches = blocking(move || verify_password(&confirm.password, &hash)).await?;
    if !matches {
        state.accounts.gate.failed(&key, addr.ip());
        return Err(ApiError::BadCredentials);
    }
    state.accounts.store.delete(id).await?;
    tracing::info!("account deleted");
    Ok(signed_out(&state))
}

/// Ratings as the API gives them: `{RULES: {SPEED: {rating, rd, vol, games,
/// provisional}}}`, rounded for people (rating and RD to tenths).
pub fn ratings_json(ratings: &[StoredRating]) -> Value {
    let mut by_rules: BTreeMap<&str, serde_json::Map<String, Value>> = BTreeMap::new();
    for r in ratings {
        by_rules.entry(&r.rules).or_default().insert(
            r.speed.as_str().to_string(),
            json!({
                "rating": (r.rating.rating * 10.0).round() / 10.0,
                "rd": (r.rating.rd * 10.0).round() / 10.0,
                "vol": r.rating.vol,
                "games": r.rating.games,
                "provisional": r.rating.provisional(),
            }),
        );
    }
    json!(by_rules)
}

/// `GET /api/session`: 200 `{"name"}`, the signed-in name or `null`: who is signed in,
/// asked by the game page at every start (signed-in.js), so never a refusal (a 401 is
/// an error in the browser's console for every anonymous visitor).
async fn session(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let name = signed_in(&state, &headers).await?.map(|(_, name)| name);
    Ok((
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(json!({ "name": name })),
    )
        .into_response())
}

/// `GET /api/me`: 200 `{"name", "ratings"}`, or 401 `sign-in-required`.
async fn me(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let (id, name) = signed_in(&state, &headers)
        .await?
        .ok_or(ApiError::SignInRequired)?;
    let ratings = state.accounts.store.ratings(id).await?;
    Ok((
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(json!({ "name": name, "ratings": ratings_json(&ratings) })),
    )
        .into_response())
}

/// Rooms with a seat of the account that `GET /api/me/games` looks at, most recently
/// active first: each is read (loaded if need be) to see whether its round goes on.
pub const MY_ROOMS_LOOKED_AT: u32 = 30;
/// The most games in progress `GET /api/me/games` lists.
pub const MY_GAMES: usize = 20;

/// `GET /api/me/games`: the signed-in account's rooms whose current round is being
/// played, most recently active first: `{"name", "games": [{"room", "seat", "rules",
/// "clock", "opponent", "rated", "round", "started"}]}` (no keys: the seat is taken on
/// the room's socket with `hello` `"account": true`). Not signed in: 200 with `name`
/// `null` and no games, not 401: the start screen asks on every visit, and a browser
/// would log a refusal as an error for every visitor without an account.
async fn my_games(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    use crate::store::accounts::{DELETED_NAME, Opponent};
    let no_store = [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))];
    let Some((id, name)) = signed_in(&state, &headers).await? else {
        return Ok((no_store, Json(json!({ "name": null, "games": [] }))).into_response());
    };
    let mut games = Vec::new();
    for r in state.accounts.store.rooms_of(id, MY_ROOMS_LOOKED_AT).await? {
        if games.len() >= MY_GAMES {
            break;
        }
        // A room purged or set aside meanwhile is not in progress.
        let Ok(Some(play)) = state.rooms.in_play(&r.room).await else {
            continue;
        };
        let opponent = match &r.opponent {
            Opponent::Account(name) => json!(name),
            Opponent::Deleted => json!(DELETED_NAME),
            Opponent::Anonymous => Value::Null,
        };
        games.push(json!({
            "room": r.room,
            "seat": crate::store::types::seat_name(r.color),
            "rules": play.variant,
            "clock": play.clock,
            "opponent": opponent,
            "rated": r.rated,
            "round": play.round,
            "started": play.both,
        }));
    }
    Ok((no_store, Json(json!({ "name": name, "games": games }))).into_response())
}

/// The account a player's public page names, 404 `unknown-player` if none.
async fn named(state: &AppState, name: &str) -> Result<crate::store::accounts::Account, ApiError> {
    if check_name(name).is_err() {
        return Err(ApiError::UnknownPlayer);
    }
    state
        .accounts
        .store
        .by_name(&name.to_ascii_lowercase())
        .await?
        .ok_or(ApiError::UnknownPlayer)
}

/// `GET /api/players/{name}`: the player's public facts (name, ratings, and the counts of
/// won, drawn and lost rounds in the record), 404 `unknown-player` if none.
async fn player(State(state): State<AppState>, Path(name): Path<String>) -> Result<Response, ApiError> {
    let account = named(&state, &name).await?;
    let ratings = state.accounts.store.ratings(account.id).await?;
    let results = state.accounts.store.results(account.id).await?;
    Ok(Json(json!({
        "name": account.name,
        "ratings": ratings_json(&ratings),
        "results": { "win": results.win, "draw": results.draw, "loss": results.loss },
    }))
    .into_response())
}

/// Rounds a page of the game list holds when the request does not say.
pub const GAMES_PAGE: u32 = 20;
/// The most rounds one page of the game list holds.
pub const GAMES_PAGE_MAX: u32 = 100;

/// The `before` cursor and `limit` of a game list request's query string.
fn games_query(query: Option<&str>) -> Result<(Option<i64>, u32), ApiError> {
    let (mut before, mut limit) = (None, GAMES_PAGE);
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "before" => {
                before = Some(value.parse::<i64>().ok().filter(|v| *v > 0).ok_or_else(|| {
                    ApiError::Malformed("before is the next cursor of an earlier page".into())
                })?);
            }
            "limit" => {
                limit = value
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=GAMES_PAGE_MAX).contains(n))
                    .ok_or_else(|| {
                        ApiError::Malformed(format!("limit is a whole number from 1 to {GAMES_PAGE_MAX}"))
                    })?;
            }
            _ => {
                return Err(ApiError::Malformed(format!(
                    "unknown parameter {key:?}: only before and limit"
                )));
            }
        }
    }
    Ok((before, limit))
}

/// One round of the record as the API gives it.
pub fn game_json(g: &crate::store::accounts::PlayerGame) -> Value {
    use crate::store::accounts::{DELETED_NAME, Opponent};
    let opponent = match &g.opponent {
        Opponent::Account(name) => json!(name),
        Opponent::Deleted => json!(DELETED_NAME),
        Opponent::Anonymous => Value::Null,
    };
    let rating = g.rated.map(|(speed, before, after)| {
        let round = |r: f64| (r * 10.0).round() / 10.0;
        json!({
            "speed": speed.as_str(),
            "before": round(before),
            "after": round(after),
            "change": (after - before).round(),
        })
    });
    json!({
        "room": g.room,
        "round": g.round,
        "color": g.color,
        "opponent": opponent,
        "result": g.result,
        "reason": g.reason,
        "rules": g.rules,
        "clock": g.clock,
        "rated": g.rated.is_some(),
        "rating": rating,
        "at": g.at,
        "review": g.room_exists.then(|| format!("/r/{}/review/{}", g.room, g.round)),
    })
}

/// `GET /api/players/{name}/games?before=CURSOR&limit=N`: the player's finished rounds,
/// newest first, `{"games": [...], "next": CURSOR | null}`.
async fn player_games(
    State(state): State<AppState>,
    Path(name): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Response, ApiError> {
    let (before, limit) = games_query(query.as_deref())?;
    let account = named(&state, &name).await?;
    // One more than asked: whether there is a next page.
    let mut games = state.accounts.store.games(account.id, before, limit + 1).await?;
    let more = games.len() > limit as usize;
    games.truncate(limit as usize);
    let next = if more {
        games.last().map(|g| g.id.to_string())
    } else {
        None
    };
    Ok(Json(json!({
        "name": account.name,
        "games": games.iter().map(game_json).collect::<Vec<_>>(),
        "next": next,
    }))
    .into_response())
}

/// How many players the leaderboard lists.
pub const BOARD_SIZE: u32 = 100;
/// A rating that has not changed for this long is off the leaderboard.
pub const BOARD_DAYS: i64 = 30;

/// `GET /api/players?rules=RULES&speed=SPEED`: the leaderboard of one rule set and speed,
/// `{"rules", "speed", "players": [{"rank", "name", "rating", "rd", "games"}]}`: the
/// [`BOARD_SIZE`] best ratings that are not provisional and changed (a rated round)
/// in the last [`BOARD_DAYS`] days.
async fn leaderboard(
    State(state): State<AppState>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Response, ApiError> {
    let (mut rules, mut speed) = (None, None);
    for pair in query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "rules"
                if !value.is_empty()
                    && value.len() <= 64
                    && value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"+-_".contains(&b)) =>
            {
                rules = Some(value.to_string());
            }
            "speed" => {
                speed = Some(
                    value
                        .parse::<crate::ratings::Speed>()
                        .map_err(|_| ApiError::Malformed(format!("unknown speed {value:?}")))?,
                );
            }
            _ => {
                return Err(ApiError::Malformed(format!(
                    "bad parameter {key:?}: only rules (a rule set's name) and speed"
                )));
            }
        }
    }
    let (Some(rules), Some(speed)) = (rules, speed) else {
        return Err(ApiError::Malformed("rules and speed are both needed".into()));
    };
    let since = state.config.clock.now_ms() - BOARD_DAYS * 24 * 3600 * 1000;
    let leaders = state
        .accounts
        .store
        .leaders(&rules, speed, crate::ratings::PROVISIONAL_RD, since, BOARD_SIZE)
        .await?;
    let players: Vec<Value> = leaders
        .iter()
        .enumerate()
        .map(|(n, l)| {
            json!({
                "rank": n + 1,
                "name": l.name,
                "rating": (l.rating.rating * 10.0).round() / 10.0,
                "rd": (l.rating.rd * 10.0).round() / 10.0,
                "games": l.rating.games,
            })
        })
        .collect();
    Ok(Json(json!({ "rules": rules, "speed": speed.as_str(), "players": players })).into_response())
}

/// Whether a pair request asks for a rated game (`"rated": true`; absent is casual).
pub fn requested_rated(body: &[u8]) -> Result<bool, ApiError> {
    #[derive(serde::Deserialize)]
    struct Rated {
        rated: Option<bool>,
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    let asked: Rated = serde_json::from_slice(body)
        .map_err(|e| ApiError::Malformed(format!("rated must be true or false ({e})")))?;
    Ok(asked.rated.unwrap_or(false))
}

/// The account a new seat is bound to: the signed-in player's, checked against
/// cross-site requests (a seat taken by another site's page would be bound to the
/// visitor's account); `None` for an anonymous player, or 401 `sign-in-required` when
/// the seat must be an account's (`required`: a rated seek).
pub async fn seat_account(
    state: &AppState,
    headers: &HeaderMap,
    required: bool,
) -> Result<Option<i64>, ApiError> {
    if session_token(headers).is_none() {
        return if required {
            Err(ApiError::SignInRequired)
        } else {
            Ok(None)
        };
    }
    same_origin(state, headers)?;
    match signed_in(state, headers).await? {
        Some((id, _)) => Ok(Some(id)),
        None if required => Err(ApiError::SignInRequired),
        None => Ok(None),
    }
}

/// Binds a created or joined seat to the signed-in player's account, if any.
pub async fn bind_seat(
    state: &AppState,
    room: &str,
    color: &'static str,
    account: Option<i64>,
) -> Result<(), ApiError> {
    if let Some(account) = account {
        state.accounts.store.bind_seat(room, color, account).await?;
        // The room's state shows the account from now on (rooms/players.rs).
        state.rooms.players_changed(room).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("ann").is_ok());
        assert!(check_name("Ann_Lee-2").is_ok());
        assert!(check_name("an").is_err());
        assert!(check_name("a23456789012345678901").is_err());
        assert!(check_name("ann lee").is_err());
        assert!(check_name("анна").is_err());
        assert!(check_name("Deleted").is_err());
    }

    #[test]
    fn weak_passwords_are_refused() {
        assert!(check_password("ann", "short").is_err());
        assert!(check_password("ann", "password").is_err());
        assert!(check_password("ann", "PassWord1").is_err());
        assert!(check_password("ann", "12345678").is_err());
        assert!(check_password("annalee1", "AnnaLee1").is_err());
        assert!(check_password("ann", "correct horse battery").is_ok());
        assert!(check_password("ann", &"x".repeat(MAX_PASSWORD + 1)).is_err());
    }

    #[test]
    fn a_hash_verifies_its_password_only_and_names_its_parameters() {
        let hash = hash_password("correct horse");
        assert!(hash.starts_with(&format!(
            "$argon2id$v=19$m={ARGON2_M_KIB},t={ARGON2_T},p={ARGON2_P}$"
        )));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsE", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(hash, hash_password("correct horse"));
    }

    #[test]
    fn the_gate_counts_failures_per_name_and_address() {
        let gate = FailureGate::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..FAILURES_PER_NAME {
            assert!(!gate.throttled("ann", a));
            gate.failed("ann", a);
        }
        assert!(gate.throttled("ann", b));
        assert!(!gate.throttled("bob", b));
        for i in FAILURES_PER_NAME..FAILURES_PER_ADDRESS {
            gate.failed(&format!("n{i}"), a);
        }
        assert!(gate.throttled("bob", a));
        gate.sweep();
        assert!(gate.throttled("bob", a));
    }

    #[test]
    fn the_session_cookie_is_read_only_in_its_shape() {
        let mut h = HeaderMap::new();
        let token = "a".repeat(64);
        h.insert(
            header::COOKIE,
            format!("x=1; {SESSION_COOKIE}={token}").parse().unwrap(),
        );
        assert_eq!(session_token(&h), Some(token));
        h.insert(header::COOKIE, format!("{SESSION_COOKIE}=short").parse().unwrap());
        assert_eq!(session_token(&h), None);
    }
}

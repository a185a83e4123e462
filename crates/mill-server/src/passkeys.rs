//! Passkeys (WebAuthn, with the `webauthn-rs` crate) over HTTP (docs/PROTOCOL.md,
//! "Passkeys"): sign up with a name and a passkey and no password, sign in with a
//! passkey, add a passkey to the signed-in account.
//!
//! - **Two steps each.** `…/start` answers the options for the browser's
//!   `navigator.credentials.create()`/`get()` and a ceremony token; `…/finish` takes the
//!   token and the browser's answer. The ceremony (webauthn-rs's state: the challenge and
//!   what the answer must match) is kept in the database (store/passkeys.rs) under the
//!   token's SHA-256, so any instance can finish it; finishing takes it out whatever the
//!   outcome, so a challenge is answered once, and it lapses after [`CEREMONY`].
//! - **Sign-in is discoverable** (no name typed): the browser offers the passkeys it
//!   holds for this site, and the answer's user handle and credential id name the
//!   account. Nothing tells a visitor whether a name has passkeys, and there is no name
//!   to mistype. So sign-up asks authenticators for a discoverable (resident) credential.
//! - **The relying party** is `--passkey-origin` (and `--passkey-rp-id`), by default
//!   `--public-url`'s origin, else `http://localhost` on any port. A passkey is bound to
//!   its RP id: a page opened at another address (`127.0.0.1`, which WebAuthn does not
//!   take as an RP id) is told where passkeys work (400 `passkey-unavailable`).
//! - **Checks**: every request is `Origin`-checked as the other cookie endpoints
//!   (accounts.rs, 403 `cross-site`); `start` spends the address's allowance
//!   (`--rooms-per-minute`, 429 `rate-limited`); refused sign-ins count as failed
//!   sign-ins per credential and per address (429 `throttled`); each sign-in makes a new
//!   session and ends the one the request came with.
//!
//! Nothing secret passes here (the private keys stay in the authenticators), and
//! nothing here logs a body, a token or a credential. webauthn-rs logs its states at
//! debug and trace level, so `logging.rs` caps it at info.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use webauthn_rs::prelude::{
    DiscoverableAuthentication, DiscoverableKey, Passkey, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Uuid,
};
use webauthn_rs::{Webauthn, WebauthnBuilder};

use crate::accounts::{check_name, same_origin, session_token, signed_in};
use crate::app::AppState;
use crate::config::Config;
use crate::error::ApiError;
use crate::store::passkeys::{Ceremony, CeremonyKind, NewPasskey, StoredPasskey};

/// How long a ceremony may take, start to finish (also the timeout the browser is given).
pub const CEREMONY: Duration = Duration::from_secs(5 * 60);

/// The routes of this module, added to `app.rs`'s router.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/passkey/register/start", post(register_start))
        .route("/api/passkey/register/finish", post(register_finish))
        .route("/api/passkey/login/start", post(login_start))
        .route("/api/passkey/login/finish", post(login_finish))
}

/// Where passkeys work: the RP id and the origins whose pages may use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    /// The RP id (a domain: the origins' host or a parent of it).
    pub id: String,
    /// The origins (`scheme://host[:port]`).
    pub origins: Vec<Url>,
    /// Whether any port of the origins' hosts is taken (the default on localhost).
    pub any_port: bool,
}

fn origin_of(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| format!("{url:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.domain().is_none() {
        return Err(format!(
            "{url:?} is not an http(s) origin with a domain name (WebAuthn takes no IP address)"
        ));
    }
    Url::parse(&parsed.origin().ascii_serialization()).map_err(|e| e.to_string())
}

impl RelyingParty {
    /// The relying party the configuration names, or why it names none.
    pub fn from_config(config: &Config) -> Result<RelyingParty, String> {
        let (origins, any_port) = if !config.passkey_origins.is_empty() {
            let origins = config
                .passkey_origins
                .iter()
                .map(|o| origin_of(o))
                .collect::<Result<Vec<_>, _>>()?;
            (origins, false)
        } else if let Some(public) = config.public_url.as_deref().and_then(|u| origin_of(u).ok()) {
            (vec![public], false)
        } else {
            (
                vec![Url::parse("http://localhost").map_err(|e| e.to_string())?],
                true,
            )
        };
        let id = match &config.passkey_rp_id {
            Some(id) => id.to_ascii_lowercase(),
            None => origins[0].domain().unwrap_or_default().to_string(),
        };
        let rp = RelyingParty {
            id,
            origins,
            any_port,
        };
        rp.webauthn()?;
        Ok(rp)
    }

    fn webauthn(&self) -> Result<Webauthn, String> {
        let mut builder = WebauthnBuilder::new(&self.id, &self.origins[0])
            .map_err(|_| {
                format!(
                    "the passkey RP id {:?} is not {}'s host or a parent of it",
                    self.id, self.origins[0]
                )
            })?
            .rp_name("Mill")
            .timeout(CEREMONY)
            .allow_any_port(self.any_port);
        for origin in &self.origins[1..] {
            if !origin
                .domain()
                .is_some_and(|d| d == self.id || d.ends_with(&format!(".{}", self.id)))
            {
                return Err(format!("the passkey RP id {:?} does not cover {origin}", self.id));
            }
            builder = builder.append_allowed_origin(origin);
        }
        builder.build().map_err(|e| e.to_string())
    }

    /// Whether a page at `origin` (as a browser spells it in `Origin`) may use passkeys.
    pub fn allows(&self, origin: &str) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        self.origins.iter().any(|o| {
            o.scheme() == url.scheme()
                && o.host_str() == url.host_str()
                && (self.any_port || o.port_or_known_default() == url.port_or_known_default())
        })
    }

    /// Where a visitor can use passkeys, for messages.
    fn address(&self) -> String {
        let first = self.origins[0].as_str().trim_end_matches('/');
        if self.any_port {
            format!("{first}:PORT")
        } else {
            first.to_string()
        }
    }
}

/// The relying party for a request: refused (400 `passkey-unavailable`) when the page
/// that sent it is at an address passkeys are not set up for.
fn relying_party(state: &AppState, headers: &HeaderMap) -> Result<(RelyingParty, Webauthn), ApiError> {
    let rp = RelyingParty::from_config(&state.config).map_err(ApiError::Internal)?;
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok())
        && !rp.allows(origin)
    {
        return Err(ApiError::PasskeyUnavailable(rp.address()));
    }
    let webauthn = rp.webauthn().map_err(ApiError::Internal)?;
    Ok((rp, webauthn))
}

fn no_store(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(body),
    )
        .into_response()
}

/// Keeps a ceremony and answers its token with the browser's options.
async fn begin(
    state: &AppState,
    kind: CeremonyKind,
    ceremony_state: String,
    name: Option<String>,
    account_id: Option<i64>,
    user_handle: Option<Vec<u8>>,
    options: Value,
) -> Result<Response, ApiError> {
    let token = crate::keys::new_seat_key();
    let expires_at = state.config.clock.now_ms() + i64::try_from(CEREMONY.as_millis()).unwrap_or(i64::MAX);
    state
        .accounts
        .store
        .start_ceremony(Ceremony {
            token_hash: crate::keys::hash_key(&token),
            kind,
            state: ceremony_state,
            name,
            account_id,
            user_handle,
            expires_at,
        })
        .await?;
    Ok(no_store(
        StatusCode::OK,
        json!({ "ceremony": token, "options": options }),
    ))
}

/// Takes the ceremony a finish names: 400 `ceremony-expired` when it is unknown, already
/// finished, expired, or of another kind.
async fn take(state: &AppState, token: &str, kinds: &[CeremonyKind]) -> Result<Ceremony, ApiError> {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::CeremonyExpired);
    }
    let now = state.config.clock.now_ms();
    match state
        .accounts
        .store
        .take_ceremony(crate::keys::hash_key(token))
        .await?
    {
        Some(c) if c.expires_at > now && kinds.contains(&c.kind) => Ok(c),
        _ => Err(ApiError::CeremonyExpired),
    }
}

#[derive(serde::Deserialize)]
struct RegisterStart {
    name: Option<String>,
}

/// `POST /api/passkey/register/start` `{"name"}` (sign-up) or `{}` (a passkey for the
/// signed-in account): 200 `{"ceremony", "options"}`.
async fn register_start(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let asked: RegisterStart = if body.iter().all(u8::is_ascii_whitespace) {
        RegisterStart { name: None }
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::Malformed(format!("the body is not {{\"name\": NAME}} or {{}} ({e})")))?
    };
    let (_, webauthn) = relying_party(&state, &headers)?;
    let (kind, name, account_id, handle, exclude) = match asked.name {
        Some(name) => {
            check_name(&name)?;
            if state
                .accounts
                .store
                .by_name(&name.to_ascii_lowercase())
                .await?
                .is_some()
            {
                return Err(ApiError::NameTaken);
            }
            (CeremonyKind::SignUp, name, None, Uuid::new_v4(), Vec::new())
        }
        None => {
            let (id, name) = signed_in(&state, &headers)
                .await?
                .ok_or(ApiError::SignInRequired)?;
            let (credentials, handle) = state.accounts.store.passkeys_of(id).await?;
            let handle = handle
                .and_then(|h| Uuid::from_slice(&h).ok())
                .unwrap_or_else(Uuid::new_v4);
            (CeremonyKind::Add, name, Some(id), handle, credentials)
        }
    };
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let exclude = (!exclude.is_empty()).then(|| exclude.into_iter().map(Into::into).collect());
    let (options, registration) = webauthn
        .start_passkey_registration(handle, &name, &name, exclude)
        .map_err(|e| ApiError::Internal(format!("starting a passkey registration: {e}")))?;
    let mut options = serde_json::to_value(options).map_err(|e| ApiError::Internal(e.to_string()))?;
    // Sign-in finds the account from the passkey alone, so the passkey must be one the
    // authenticator can offer by itself (webauthn-rs leaves that to the authenticator).
    if let Some(selection) = options
        .pointer_mut("/publicKey/authenticatorSelection")
        .and_then(Value::as_object_mut)
    {
        selection.insert("residentKey".into(), json!("required"));
        selection.insert("requireResidentKey".into(), json!(true));
    }
    let registration = serde_json::to_string(&registration).map_err(|e| ApiError::Internal(e.to_string()))?;
    let name = (kind == CeremonyKind::SignUp).then_some(name);
    begin(
        &state,
        kind,
        registration,
        name,
        account_id,
        Some(handle.as_bytes().to_vec()),
        options,
    )
    .await
}

#[derive(serde::Deserialize)]
struct Finish<C> {
    ceremony: String,
    credential: C,
}

fn finish_body<C: serde::de::DeserializeOwned>(body: &[u8]) -> Result<Finish<C>, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::Malformed(format!(
            "the body is not {{\"ceremony\": TOKEN, \"credential\": the browser's answer}} ({e})"
        ))
    })
}

/// `POST /api/passkey/register/finish` `{"ceremony", "credential"}`: a sign-up answers
/// 201 `{"name"}` with a new session cookie; an added passkey 200 `{"name"}`.
async fn register_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let asked: Finish<RegisterPublicKeyCredential> = finish_body(&body)?;
    let (_, webauthn) = relying_party(&state, &headers)?;
    let ceremony = take(
        &state,
        &asked.ceremony,
        &[CeremonyKind::SignUp, CeremonyKind::Add],
    )
    .await?;
    let registration: PasskeyRegistration = serde_json::from_str(&ceremony.state)
        .map_err(|e| ApiError::Internal(format!("a stored ceremony does not read back: {e}")))?;
    let passkey = webauthn
        .finish_passkey_registration(&asked.credential, &registration)
        .map_err(|e| {
            tracing::info!(error = %e, "passkey registration refused");
            ApiError::PasskeyRefused
        })?;
    let key = NewPasskey {
        credential_id: passkey.cred_id().to_vec(),
        user_handle: ceremony.user_handle.clone().unwrap_or_default(),
        passkey: serde_json::to_string(&passkey).map_err(|e| ApiError::Internal(e.to_string()))?,
        at: state.config.clock.now_ms(),
    };
    match (ceremony.kind, ceremony.name, ceremony.account_id) {
        (CeremonyKind::SignUp, Some(name), _) => {
            let (token, session) = crate::accounts::new_session(&state);
            let created = state
                .accounts
                .store
                .create_with_passkey(&name, &name.to_ascii_lowercase(), key, session)
                .await?;
            if created.is_none() {
                return Err(ApiError::NameTaken);
            }
            end_old_session(&state, &headers).await?;
            tracing::info!("account created with a passkey");
            Ok(crate::accounts::with_session(
                &state,
                StatusCode::CREATED,
                &token,
                json!({ "name": name }),
            ))
        }
        (CeremonyKind::Add, _, Some(id)) => {
            // Still the same account's session: one signed out meanwhile adds nothing.
            let (current, name) = signed_in(&state, &headers)
                .await?
                .ok_or(ApiError::SignInRequired)?;
            if current != id {
                return Err(ApiError::SignInRequired);
            }
            if !state.accounts.store.add_passkey(id, key).await? {
                return Err(ApiError::PasskeyRefused);
            }
            tracing::info!("passkey added");
            Ok(no_store(StatusCode::OK, json!({ "name": name })))
        }
        _ => Err(ApiError::Internal("a stored ceremony lacks its account".into())),
    }
}

/// Ends the session a sign-in request came with: each sign-in gets a new one.
async fn end_old_session(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if let Some(old) = session_token(headers) {
        state
            .accounts
            .store
            .end_session(crate::keys::hash_key(&old))
            .await?;
    }
    Ok(())
}

/// `POST /api/passkey/login/start`: 200 `{"ceremony", "options"}` for any passkey of
/// this site the browser holds.
async fn login_start(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let (_, webauthn) = relying_party(&state, &headers)?;
    if !state.per_address.allow(addr.ip()) {
        return Err(ApiError::RateLimited);
    }
    let (options, authentication) = webauthn
        .start_discoverable_authentication()
        .map_err(|e| ApiError::Internal(format!("starting a passkey sign-in: {e}")))?;
    let mut options = serde_json::to_value(options).map_err(|e| ApiError::Internal(e.to_string()))?;
    // webauthn-rs asks for conditional mediation (autofill); the page asks when the
    // visitor presses the button, so it chooses the mediation itself.
    if let Some(o) = options.as_object_mut() {
        o.remove("mediation");
    }
    let authentication =
        serde_json::to_string(&authentication).map_err(|e| ApiError::Internal(e.to_string()))?;
    begin(
        &state,
        CeremonyKind::SignIn,
        authentication,
        None,
        None,
        None,
        options,
    )
    .await
}

/// A sign-in ceremony's answer checked: the passkey it names (with its account), and
/// the passkey as it is after this use (`Some` when its counter or backup state
/// changed). A refusal counts as a failed sign-in of the credential and the address.
async fn verify_assertion(
    state: &AppState,
    addr: SocketAddr,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(StoredPasskey, Vec<u8>, Option<String>), ApiError> {
    let asked: Finish<PublicKeyCredential> = finish_body(body)?;
    let (_, webauthn) = relying_party(state, headers)?;
    let credential_id = asked.credential.get_credential_id().to_vec();
    // Failures count per credential and per address (`#` is in no account's name).
    let gate_key: String = std::iter::once("#".to_string())
        .chain(credential_id.iter().take(32).map(|b| format!("{b:02x}")))
        .collect();
    if state.accounts.gate.throttled(&gate_key, addr.ip()) {
        return Err(ApiError::Throttled);
    }
    let ceremony = take(state, &asked.ceremony, &[CeremonyKind::SignIn]).await?;
    let refuse = || {
        state.accounts.gate.failed(&gate_key, addr.ip());
        ApiError::PasskeyRefused
    };
    let authentication: DiscoverableAuthentication = serde_json::from_str(&ceremony.state)
        .map_err(|e| ApiError::Internal(format!("a stored ceremony does not read back: {e}")))?;
    let (handle, _) = webauthn
        .identify_discoverable_authentication(&asked.credential)
        .map_err(|_| refuse())?;
    let stored = state
        .accounts
        .store
        .passkey(&credential_id)
        .await?
        .filter(|p| p.user_handle == handle.as_bytes())
        .ok_or_else(refuse)?;
    let mut passkey: Passkey = serde_json::from_str(&stored.passkey)
        .map_err(|e| ApiError::Internal(format!("a stored passkey does not read back: {e}")))?;
    let result = webauthn
        .finish_discoverable_authentication(
            &asked.credential,
            authentication,
            &[DiscoverableKey::from(&passkey)],
        )
        .map_err(|e| {
            tracing::info!(error = %e, "passkey sign-in refused");
            refuse()
        })?;
    let updated = match passkey.update_credential(&result) {
        Some(true) => Some(serde_json::to_string(&passkey).map_err(|e| ApiError::Internal(e.to_string()))?),
        _ => None,
    };
    Ok((stored, credential_id, updated))
}

/// `POST /api/passkey/login/finish` `{"ceremony", "credential"}`: 200 `{"name"}` with a
/// new session cookie; 401 `passkey-refused` for a passkey that is not an account's or
/// whose answer does not verify.
async fn login_finish(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    same_origin(&state, &headers)?;
    let (stored, credential_id, updated) = verify_assertion(&state, addr, &headers, &body).await?;
    end_old_session(&state, &headers).await?;
    let (token, session) = crate::accounts::new_session(&state);
    state
        .accounts
        .store
        .sign_in_with_passkey(&credential_id, updated, stored.account_id, session)
        .await?;
    Ok(crate::accounts::with_session(
        &state,
        StatusCode::OK,
        &token,
        json!({ "name": stored.name }),
    ))
}

/// Whether a `DELETE /api/account` body confirms with a passkey (`{"ceremony",
/// "credential"}`) rather than the password.
pub fn is_passkey_confirmation(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body).is_ok_and(|v| v.get("ceremony").is_some())
}

/// Checks that a sign-in ceremony was answered by a passkey of account `id` (deleting the
/// account asks for it again, as it asks for the password): 401 `passkey-refused` for
/// another account's passkey or an answer that does not verify.
pub async fn confirm_account(
    state: &AppState,
    addr: SocketAddr,
    headers: &HeaderMap,
    body: &[u8],
    id: i64,
) -> Result<(), ApiError> {
    let (stored, _, _) = verify_assertion(state, addr, headers, body).await?;
    if stored.account_id != id {
        return Err(ApiError::PasskeyRefused);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(public_url: Option<&str>, origins: &[&str], rp_id: Option<&str>) -> Config {
        let mut c = Config::new("unused.db", ".");
        c.public_url = public_url.map(str::to_string);
        c.passkey_origins = origins.iter().map(|o| o.to_string()).collect();
        c.passkey_rp_id = rp_id.map(str::to_string);
        c
    }

    #[test]
    fn the_default_is_localhost_on_any_port() {
        let rp = RelyingParty::from_config(&config(None, &[], None)).unwrap();
        assert_eq!(rp.id, "localhost");
        assert!(rp.allows("http://localhost:8080"));
        assert!(rp.allows("http://localhost:41234"));
        assert!(!rp.allows("http://127.0.0.1:8080"));
        assert!(!rp.allows("https://evil.example"));
        assert_eq!(rp.address(), "http://localhost:PORT");
    }

    #[test]
    fn the_public_url_names_the_relying_party() {
        let rp = RelyingParty::from_config(&config(Some("https://mill.example.org/"), &[], None)).unwrap();
        assert_eq!(rp.id, "mill.example.org");
        assert!(rp.allows("https://mill.example.org"));
        assert!(!rp.allows("http://mill.example.org"));
        assert!(!rp.allows("https://mill.example.org:8443"));
        assert!(!rp.allows("https://evil.mill.example.org"));
    }

    #[test]
    fn origins_and_a_parent_rp_id_may_be_given() {
        let rp = RelyingParty::from_config(&config(
            Some("https://mill.example.org"),
            &["https://play.example.org", "https://example.org"],
            Some("example.org"),
        ))
        .unwrap();
        assert_eq!(rp.id, "example.org");
        assert!(rp.allows("https://play.example.org"));
        assert!(rp.allows("https://example.org"));
        assert!(!rp.allows("https://mill.example.org"));
    }

    #[test]
    fn a_relying_party_that_cannot_be_is_refused() {
        assert!(RelyingParty::from_config(&config(None, &["http://127.0.0.1:8080"], None)).is_err());
        assert!(RelyingParty::from_config(&config(None, &["https://a.example"], Some("b.example"))).is_err());
        assert!(
            RelyingParty::from_config(&config(None, &["https://a.example", "https://b.example"], None))
                .is_err()
        );
        assert!(RelyingParty::from_config(&config(None, &["not a url"], None)).is_err());
    }
}

//! HTTP errors: JSON `{"code", "message"}` with the right status, the code one of
//! protocol.rs's [`ErrorCode`]s. Only 5xx are logged, and their details stay in the log.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::protocol::ErrorCode;
use crate::store::DbError;

/// An HTTP API failure.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No such room.
    #[error("There is no room with this id (it may have been closed after a week without play).")]
    UnknownRoom,
    /// The room's stored events do not replay; it is set aside.
    #[error(
        "This room's stored game could not be read back, so it is set aside; other rooms are not affected."
    )]
    RoomDamaged,
    /// Both seats are taken.
    #[error("Both seats of this room are taken.")]
    RoomFull,
    /// The room has no round with this number.
    #[error("This room has no round with that number.")]
    UnknownRound,
    /// A room asked for under rules that are not a rule set.
    #[error("Not a game these rules know: {0}.")]
    BadRules(String),
    /// A room asked for with a `clock` that is not a time control.
    #[error("Not a time control: {0}.")]
    BadClock(String),
    /// A pair request whose `seeker` or `seek` is not a token.
    #[error("Not a seek: {0}.")]
    BadSeek(String),
    /// The seek was cancelled, or replaced by a newer seek of the same seeker.
    #[error("This seek was withdrawn (cancelled, or replaced by a newer one from the same browser).")]
    SeekWithdrawn,
    /// The seek's id is another seek's.
    #[error("This seek id is already in use; make a new one for each search.")]
    SeekTaken,
    /// The address holds as many open seeks as it may.
    #[error("Your address already has as many open searches as it may; wait for one of them to end.")]
    TooManySeeks,
    /// The round asked for is still being played.
    #[error("This round is still being played; it can be reviewed once it is over.")]
    RoundNotOver,
    /// Too many requests from this address.
    #[error("Too many rooms or seeks from your address; try again in a minute.")]
    RateLimited,
    /// No such API endpoint.
    #[error("There is no such API endpoint (see docs/PROTOCOL.md).")]
    NotFound,
    /// The endpoint exists but not with this method.
    #[error("This endpoint does not take that method.")]
    MethodNotAllowed,
    /// A plain HTTP request reached the WebSocket endpoint.
    #[error("This endpoint is a WebSocket; open it with a WebSocket client.")]
    NotWebSocket,
    /// The request's body is over the limit.
    #[error("The request body is too large.")]
    BodyTooLarge,
    /// The request took too long.
    #[error("The request took too long.")]
    Timeout,
    /// The request's body is not what the endpoint reads.
    #[error("Not a request this endpoint reads: {0}.")]
    Malformed(String),
    /// Sign-up with a name someone has (without regard to case).
    #[error("This name is taken; choose another.")]
    NameTaken,
    /// Sign-up with a name that cannot be one.
    #[error("Not a name for an account: {0}.")]
    BadName(String),
    /// Sign-up with a password that is too weak.
    #[error("Choose a stronger password: {0}.")]
    WeakPassword(String),
    /// Sign-in with a wrong name or password (never says which).
    #[error("No account has this name and password.")]
    BadCredentials,
    /// Too many failed sign-ins for this name or from this address.
    #[error("Too many failed sign-ins; try again in 15 minutes.")]
    Throttled,
    /// A state-changing request from another site.
    #[error("This request came from another site; it was refused.")]
    CrossSite,
    /// The request needs a signed-in session.
    #[error("Sign in first.")]
    SignInRequired,
    /// No player with this name.
    #[error("There is no player with this name.")]
    UnknownPlayer,
    /// A passkey request from a page at an address passkeys are not set up for.
    #[error("Passkeys work on this server at {0}; open the page there, or use a password.")]
    PasskeyUnavailable(String),
    /// A passkey ceremony that is unknown, already finished, or expired.
    #[error("This passkey request has expired or was already used; start again.")]
    CeremonyExpired,
    /// A passkey answer that does not verify, or a passkey of no account.
    #[error("This passkey was not accepted; try again, or use another way to sign in.")]
    PasskeyRefused,
    /// An arena asked for with bad values.
    #[error("Not an arena: {0}.")]
    BadArena(String),
    /// No such arena.
    #[error("There is no arena with this id.")]
    UnknownArena,
    /// The arena is over.
    #[error("This arena is over.")]
    ArenaFinished,
    /// Pause or withdraw without having joined.
    #[error("You have not joined this arena.")]
    NotInArena,
    /// A probe of the endgame tables without a position, or with one that is not one.
    #[error("Not a position: {0}.")]
    BadPosition(String),
    /// A probe of a position the server's endgame tables do not cover.
    #[error(
        "The server's endgame tables do not cover this position (both sides must be out of hand, no removal pending, the material within the tables)."
    )]
    NotInTables,
    /// Too many probes of the endgame tables from this address.
    #[error("Too many probes of the endgame tables from your address; try again in a minute.")]
    ProbesRateLimited,
    /// The server failed.
    #[error("The server failed; try again.")]
    Internal(String),
}

impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        ApiError::Internal(e.to_string())
    }
}

impl ApiError {
    /// Stable code (docs/PROTOCOL.md): the same codes as the WebSocket's errors.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::UnknownRoom => ErrorCode::UnknownRoom,
            ApiError::RoomDamaged => ErrorCode::RoomDamaged,
            ApiError::RoomFull => ErrorCode::RoomFull,
            ApiError::UnknownRound => ErrorCode::UnknownRound,
            ApiError::BadRules(_) => ErrorCode::BadRules,
            ApiError::BadClock(_) => ErrorCode::BadClock,
            ApiError::BadSeek(_) => ErrorCode::BadSeek,
            ApiError::SeekWithdrawn => ErrorCode::SeekWithdrawn,
            ApiError::SeekTaken => ErrorCode::SeekTaken,
            ApiError::TooManySeeks => ErrorCode::TooManySeeks,
            ApiError::RoundNotOver => ErrorCode::RoundNotOver,
            ApiError::RateLimited => ErrorCode::RateLimited,
            ApiError::NotFound => ErrorCode::NotFound,
            ApiError::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            ApiError::NotWebSocket => ErrorCode::NotWebsocket,
            ApiError::BodyTooLarge => ErrorCode::BodyTooLarge,
            ApiError::Timeout => ErrorCode::Timeout,
            ApiError::Malformed(_) => ErrorCode::Malformed,
            ApiError::NameTaken => ErrorCode::NameTaken,
            ApiError::BadName(_) => ErrorCode::BadName,
            ApiError::WeakPassword(_) => ErrorCode::WeakPassword,
            ApiError::BadCredentials => ErrorCode::BadCredentials,
            ApiError::Throttled => ErrorCode::Throttled,
            ApiError::CrossSite => ErrorCode::CrossSite,
            ApiError::SignInRequired => ErrorCode::SignInRequired,
            ApiError::UnknownPlayer => ErrorCode::UnknownPlayer,
            ApiError::PasskeyUnavailable(_) => ErrorCode::PasskeyUnavailable,
            ApiError::CeremonyExpired => ErrorCode::CeremonyExpired,
            ApiError::PasskeyRefused => ErrorCode::PasskeyRefused,
            ApiError::BadArena(_) => ErrorCode::BadArena,
            ApiError::UnknownArena => ErrorCode::UnknownArena,
            ApiError::ArenaFinished => ErrorCode::ArenaFinished,
            ApiError::NotInArena => ErrorCode::NotInArena,
            ApiError::BadPosition(_) => ErrorCode::BadPosition,
            ApiError::NotInTables => ErrorCode::NotInTables,
            ApiError::ProbesRateLimited => ErrorCode::RateLimited,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            ApiError::UnknownRoom => StatusCode::NOT_FOUND,
            ApiError::RoomDamaged => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RoomFull => StatusCode::CONFLICT,
            ApiError::UnknownRound => StatusCode::NOT_FOUND,
            ApiError::BadRules(_) | ApiError::BadClock(_) | ApiError::BadSeek(_) => StatusCode::BAD_REQUEST,
            ApiError::SeekWithdrawn | ApiError::SeekTaken => StatusCode::CONFLICT,
            ApiError::RoundNotOver => StatusCode::CONFLICT,
            ApiError::RateLimited | ApiError::TooManySeeks => StatusCode::TOO_MANY_REQUESTS,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotWebSocket => StatusCode::BAD_REQUEST,
            ApiError::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Timeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Malformed(_) | ApiError::BadName(_) | ApiError::WeakPassword(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::NameTaken => StatusCode::CONFLICT,
            ApiError::BadCredentials | ApiError::SignInRequired => StatusCode::UNAUTHORIZED,
            ApiError::Throttled => StatusCode::TOO_MANY_REQUESTS,
            ApiError::CrossSite => StatusCode::FORBIDDEN,
            ApiError::UnknownPlayer => StatusCode::NOT_FOUND,
            ApiError::PasskeyUnavailable(_) | ApiError::CeremonyExpired => StatusCode::BAD_REQUEST,
            ApiError::PasskeyRefused => StatusCode::UNAUTHORIZED,
            ApiError::BadArena(_) => StatusCode::BAD_REQUEST,
            ApiError::UnknownArena => StatusCode::NOT_FOUND,
            ApiError::ArenaFinished | ApiError::NotInArena => StatusCode::CONFLICT,
            ApiError::BadPosition(_) => StatusCode::BAD_REQUEST,
            ApiError::NotInTables => StatusCode::NOT_FOUND,
            ApiError::ProbesRateLimited => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(detail) = &self {
            tracing::error!(%detail, "request failed");
        }
        crate::metrics::refused(self.code());
        let body = json!({ "code": self.code(), "message": self.to_string() });
        (self.status(), Json(body)).into_response()
    }
}

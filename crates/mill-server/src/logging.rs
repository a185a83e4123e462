//! Tracing set-up: `RUST_LOG` chooses what is logged, text or JSON lines, and a fixed cap
//! that no `RUST_LOG` can lift keeps secrets out of the log.
//!
//! The cap is why this module exists: at trace level the WebSocket library logs every
//! frame it reads, and the first frame of a socket is `hello` with the seat key; at
//! debug level the PostgreSQL driver logs every statement with its parameters, and a
//! seat's key hash is one of them. So the WebSocket crates, hyper (whose traces show raw
//! buffers), the PostgreSQL driver and its pool, and webauthn-rs (whose debug lines
//! show passkey ceremonies' states) are held at `info` whatever
//! `RUST_LOG` says, by a second filter that every event must also pass. Request spans
//! name the path only, never the query string (see `app.rs`).

use tracing::Level;
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, fmt};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line (for journald, Loki and the like).
    Json,
}

/// What is logged when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "info,tower_http=warn";

/// Crates whose verbose levels can show message contents or statement parameters, and
/// the most they may log. A target matches its crate and every module in it (the
/// driver logs through `log`, as `tokio_postgres::query` and the like).
const CAPPED: &[(&str, Level)] = &[
    ("tungstenite", Level::INFO),
    ("tokio_tungstenite", Level::INFO),
    ("hyper", Level::INFO),
    ("hyper_util", Level::INFO),
    ("tokio_postgres", Level::INFO),
    ("postgres_protocol", Level::INFO),
    ("postgres_types", Level::INFO),
    ("deadpool", Level::INFO),
    ("deadpool_postgres", Level::INFO),
    ("deadpool.postgres", Level::INFO),
    // WebAuthn's ceremony states and the browsers' answers, at debug and trace.
    ("webauthn_rs", Level::INFO),
    ("webauthn_rs_core", Level::INFO),
];

/// The cap every event must pass besides `RUST_LOG`'s filter.
pub fn cap() -> Targets {
    CAPPED
        .iter()
        .fold(Targets::new().with_default(Level::TRACE), |t, (target, level)| {
            t.with_target(*target, *level)
        })
}

/// Installs the global subscriber, writing to stderr.
pub fn init(format: LogFormat) {
    let env = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let layer = match format {
        LogFormat::Text => fmt::layer().with_writer(std::io::stderr).boxed(),
        LogFormat::Json => fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let most = env.max_level_hint();
    tracing_subscriber::registry()
        .with(layer.with_filter(env).with_filter(cap()))
        .init();
    // `init` bridges the `log` crate (tungstenite and the PostgreSQL driver log through
    // it) at the subscriber's own ceiling, which the cap's default makes `trace`: every
    // frame's trace record was then built and dispatched before being dropped (about 3 %
    // of the server's CPU under load). Records above what `RUST_LOG` can let through are
    // now dropped by `log`'s own level check.
    log::set_max_level(log_ceiling(most));
}

/// The most verbose `log` level worth bridging, given `RUST_LOG`'s filter's ceiling
/// (`None`: it cannot tell, so everything).
fn log_ceiling(most: Option<tracing::level_filters::LevelFilter>) -> log::LevelFilter {
    use tracing_log::AsLog;
    most.map_or(log::LevelFilter::Trace, |level| level.as_log())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ceiling(filter: &str) -> log::LevelFilter {
        log_ceiling(EnvFilter::new(filter).max_level_hint())
    }

    #[test]
    fn log_records_are_bridged_only_up_to_what_rust_log_can_show() {
        assert_eq!(ceiling(DEFAULT_FILTER), log::LevelFilter::Info);
        assert_eq!(ceiling("warn"), log::LevelFilter::Warn);
        assert_eq!(ceiling("info,mill_server=debug"), log::LevelFilter::Debug);
        assert_eq!(ceiling("trace"), log::LevelFilter::Trace);
        assert_eq!(ceiling("off"), log::LevelFilter::Off);
    }
}

//! Online rooms for Mill: an axum server that is the authority over two-player games,
//! stores every confirmed action durably before acknowledging it — in SQLite, or in
//! PostgreSQL, which several instances share — and pushes the state to both players
//! over WebSockets. The wire format is docs/PROTOCOL.md.
//!
//! [`run`] is the whole server on a bound listener; `main` only parses flags, starts
//! tracing and binds, and tests call `run` the same way on `127.0.0.1:0`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod accounts;
pub mod app;
pub mod arena;
pub mod assets;
pub mod clock;
pub mod config;
pub mod error;
pub mod keys;
pub mod listen;
pub mod logging;
pub mod metrics;
pub mod passkeys;
pub mod protocol;
pub mod ratings;
pub mod rooms;
pub mod store;
pub mod table;
pub mod tbprobe;
pub mod throttle;
pub mod timecontrol;
pub mod ws;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use crate::clock::{Clock, ManualClock, SystemClock};
pub use crate::config::Config;

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or read.
    #[error(transparent)]
    Db(#[from] store::DbError),
    /// The listener failed.
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the server on `listener` until `shutdown` completes, then closes every socket,
/// lets the writer commit what it holds, and returns.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    // Rooms are not read here: each is loaded when first asked for (rooms/).
    let (store, running) = store::open(&config.db).await?;
    let accounts = store::accounts::Accounts::open(&config.db).await?;
    let arenas = Arc::new(arena::Hub::new(
        store.clone(),
        config.clock.clone(),
        config.arenas.clone(),
    ));
    let rooms = rooms::Rooms::new(store, config.clock.clone());
    rooms.set_accounts(accounts.clone());
    // Before any room is served: the time since the last server ran is nobody's.
    rooms.alive(true).await?;
    rooms.set_max_spectators(match config.max_conns {
        0 => config.max_spectators,
        all => config.max_spectators.min(all),
    });
    let background = rooms.start_background();
    tracing::info!(db = %config.db, "database open");

    let assets = assets::Assets::load(
        &config.static_dir,
        config.tb_dir.as_deref(),
        config.tb_download_max,
    )?;
    let local_addr = listener.local_addr()?;
    if config.public_url.is_none() && config.allowed_hosts.is_empty() && !local_addr.ip().is_loopback() {
        tracing::warn!(
            %local_addr,
            "no --public-url or --allowed-host: invite links will point at the listening address"
        );
    }
    let settings = listen::Settings {
        header_timeout: config.header_timeout,
        limits: listen::ConnLimits::for_process(config.max_conns_per_ip, config.max_conns),
    };

    let token = CancellationToken::new();
    let tracker = TaskTracker::new();
    let state = app::AppState {
        rooms: rooms.clone(),
        per_address: Arc::new(throttle::PerAddress::new(config.rooms_per_minute)),
        tb_probes: Arc::new(tbprobe::TbProbes::new(
            config.tb_dir.clone(),
            config.tb_probes_per_minute,
        )),
        assets,
        local_addr,
        config: Arc::new(config),
        shutdown: token.clone(),
        tracker: tracker.clone(),
        accounts: Arc::new(accounts::AccountsState {
            store: accounts,
            gate: Default::default(),
        }),
        arenas: arenas.clone(),
    };
    let purge = tokio::spawn(purge_job(state.clone()));
    let evict = tokio::spawn(evict_job(state.clone()));
    let arena_loop = tokio::spawn(arenas.run());

    let router = app::app(state.clone());
    let signal_token = token.clone();
    let signal_rooms = rooms.clone();
    let signal = tokio::spawn(async move {
        tokio::select! {
            _ = shutdown => {}
            _ = signal_token.cancelled() => {}
        }
        // The sockets about to close are not players leaving.
        signal_rooms.closing();
        signal_token.cancel();
    });
    listen::serve(listener, router, settings, token.clone()).await?;
    rooms.closing();
    token.cancel();
    signal.abort();
    purge.abort();
    evict.abort();
    arena_loop.abort();
    tracker.close();
    if tokio::time::timeout(Duration::from_secs(5), tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!("some sockets did not close in time");
    }
    rooms.flush().await?;
    // The next start counts the time it was stopped from here.
    if let Err(e) = rooms.alive(false).await {
        tracing::warn!(error = %e, "noting the stop failed");
    }
    rooms.leave().await;
    for task in background {
        task.abort();
    }
    drop(state);
    drop(rooms);
    running.finish().await;
    tracing::info!("stopped");
    Ok(())
}

/// Deletes idle rooms every `purge_every`, by the injectable clock.
async fn purge_job(state: app::AppState) {
    let mut every = tokio::time::interval(state.config.purge_every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let idle_ms = i64::try_from(state.config.idle_after.as_millis()).unwrap_or(i64::MAX);
        let cutoff = state.config.clock.now_ms().saturating_sub(idle_ms);
        if let Err(e) = state.rooms.purge(cutoff).await {
            tracing::error!(error = %e, "purge failed");
        }
        state.per_address.sweep();
        state.tb_probes.per_address.sweep();
        state.accounts.gate.sweep();
        if let Err(e) = state
            .accounts
            .store
            .purge_sessions(state.config.clock.now_ms())
            .await
        {
            tracing::error!(error = %e, "purging expired sessions failed");
        }
        if let Err(e) = state
            .accounts
            .store
            .purge_ceremonies(state.config.clock.now_ms())
            .await
        {
            tracing::error!(error = %e, "purging expired passkey ceremonies failed");
        }
    }
}

/// Takes rooms that nothing holds out of memory, every quarter of `evict_after`.
async fn evict_job(state: app::AppState) {
    let after = state.config.evict_after;
    let mut every = tokio::time::interval((after / 4).max(Duration::from_millis(10)));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let n = state.rooms.evict_idle(after);
        if n > 0 {
            tracing::debug!(rooms = n, in_memory = state.rooms.in_memory(), "rooms evicted");
        }
    }
}

//! Prometheus metrics, served at `/metrics`: rooms, sockets, connections, acknowledged
//! commands, commit latency, and refusals by code.
//!
//! One registry for the process (like the `log`/`tracing` facades), so any module can
//! count without handles threaded through constructors. Several servers in one process
//! (the tests) share it: counters only grow, so tests look at increases.

use std::sync::LazyLock;

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};

use crate::protocol::{Code, ErrorCode, ServerMsg};

/// Every metric the server keeps.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Rooms held in memory (set when scraped).
    pub rooms: IntGauge,
    /// Open WebSockets.
    pub sockets: IntGauge,
    /// Open TCP connections (HTTP and WebSocket).
    pub connections: IntGauge,
    /// Commands acknowledged (actions, offers, resignations, new rounds), duplicates
    /// not counted.
    pub commands: IntCounter,
    /// Seconds per group commit of the database writer.
    pub commit_seconds: Histogram,
    /// Events (writes, on SQLite) per group commit.
    pub commit_events: Histogram,
    /// Refused requests, messages and connections, by code.
    pub refusals: IntCounterVec,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let registry = Registry::new();
    let rooms = IntGauge::new("mill_rooms", "Rooms held in memory").expect("valid metric");
    let sockets = IntGauge::new("mill_sockets", "Open WebSockets").expect("valid metric");
    let connections =
        IntGauge::new("mill_connections", "Open TCP connections, HTTP and WebSocket").expect("valid metric");
    let commands = IntCounter::new(
        "mill_commands_acked_total",
        "Commands acknowledged after their commit (actions, offers, resignations, new rounds)",
    )
    .expect("valid metric");
    let commit_seconds = Histogram::with_opts(
        HistogramOpts::new(
            "mill_commit_seconds",
            "Duration of one group commit, to SQLite or PostgreSQL",
        )
        .buckets(vec![
            0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
        ]),
    )
    .expect("valid metric");
    let commit_events = Histogram::with_opts(
        HistogramOpts::new(
            "mill_commit_events",
            "Events per group commit (PostgreSQL: events; SQLite: every write)",
        )
        .buckets(vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]),
    )
    .expect("valid metric");
    let refusals = IntCounterVec::new(
        Opts::new(
            "mill_refusals_total",
            "Refused requests, messages and connections, by code",
        ),
        &["code"],
    )
    .expect("valid metric");
    for m in [
        Box::new(rooms.clone()) as Box<dyn prometheus::core::Collector>,
        Box::new(sockets.clone()),
        Box::new(connections.clone()),
        Box::new(commands.clone()),
        Box::new(commit_seconds.clone()),
        Box::new(commit_events.clone()),
        Box::new(refusals.clone()),
    ] {
        registry.register(m).expect("each metric registered once");
    }
    Metrics {
        registry,
        rooms,
        sockets,
        connections,
        commands,
        commit_seconds,
        commit_events,
        refusals,
    }
});

/// The process's metrics.
pub fn get() -> &'static Metrics {
    &METRICS
}

/// What a refusal is counted under: a protocol code, or the close of a flooding socket
/// (which has a close code, not an error code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// An error code the refusal was answered with.
    Code(Code),
    /// A socket closed with 1008 for flooding.
    Flooding,
}

impl Refused {
    /// The `code` label of `mill_refusals_total`.
    pub fn label(self) -> &'static str {
        match self {
            Refused::Code(code) => code.as_str(),
            Refused::Flooding => "flooding",
        }
    }
}

impl From<Code> for Refused {
    fn from(code: Code) -> Refused {
        Refused::Code(code)
    }
}

impl From<ErrorCode> for Refused {
    fn from(code: ErrorCode) -> Refused {
        Refused::Code(code.into())
    }
}

/// Counts one refusal.
pub fn refused(what: impl Into<Refused>) {
    get().refusals.with_label_values(&[what.into().label()]).inc();
}

/// Counts a message as it is written to its socket: a first acknowledgement is a
/// command done, an error a refusal under its code.
pub fn sent(msg: &ServerMsg) {
    match msg {
        ServerMsg::Ack { duplicate: false, .. } => get().commands.inc(),
        ServerMsg::Error { code, .. } => refused(*code),
        ServerMsg::Ack { duplicate: true, .. }
        | ServerMsg::Welcome { .. }
        | ServerMsg::Replaced { .. }
        | ServerMsg::Pong => {}
    }
}

/// The text exposition format.
pub fn render() -> String {
    let mut out = Vec::new();
    TextEncoder::new()
        .encode(&get().registry.gather(), &mut out)
        .expect("text encoding does not fail");
    String::from_utf8(out).unwrap_or_default()
}

//! The accept loop: connection caps per IP address and in all, HTTP/1.1 with a deadline
//! for request headers (which also bounds idle kept-alive connections), WebSocket
//! upgrades, and graceful shutdown.
//!
//! `axum::serve` has no header timeout, so connections are served with hyper's own
//! HTTP/1 builder. A connection over a cap is answered at once with a short JSON 429
//! (`too-many-connections`, per address) or 503 (`server-busy`, in all) and closed, so
//! one address holding many sockets cannot starve anyone else. The cap's guard lives
//! inside the connection's I/O, so an upgraded WebSocket keeps counting until it closes.
//!
//! The caps never exceed what the process can open ([`ConnLimits::for_process`]): with
//! more connections than file descriptors, `accept` would fail and nobody, on any
//! address, would be answered. So the caps are clamped to the open-file limit less a
//! reserve for the database, the listener and the rest ([`RESERVED_FDS`]), and at most
//! [`REFUSING`] refusals are being answered at a time, [`REFUSING_PER_IP`] to one
//! address (each holds its descriptor briefly): the newest refusal is always answered,
//! and ends the oldest one past those bounds (its answer is usually out by then).

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::metrics;
use crate::protocol::ErrorCode;

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The address already holds its share of connections.
    TooManyFromAddress,
    /// The server holds as many connections as it may.
    Busy,
}

impl Refusal {
    /// Stable code (docs/PROTOCOL.md).
    pub fn code(self) -> ErrorCode {
        match self {
            Refusal::TooManyFromAddress => ErrorCode::TooManyConnections,
            Refusal::Busy => ErrorCode::ServerBusy,
        }
    }

    fn response(self) -> String {
        let (status, message) = match self {
            Refusal::TooManyFromAddress => (
                "429 Too Many Requests",
                "Too many open connections from your address; close some and try again.",
            ),
            Refusal::Busy => (
                "503 Service Unavailable",
                "The server is full; try again in a minute.",
            ),
        };
        let body = serde_json::json!({ "code": self.code().as_str(), "message": message }).to_string();
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 60\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    }
}

/// File descriptors kept for everything but client connections: standard streams, the
/// listener, the runtime's own, the database (SQLite: two connections, each with its
/// file, WAL and shared memory; PostgreSQL: a pool of 32 and the `LISTEN` connection),
/// and a file read now and then.
pub const RESERVED_FDS: u64 = 64;

/// Refusals being answered at the same time (each holds a descriptor for up to 1.5 s);
/// a newer one ends the oldest (see [`Answering`]).
pub const REFUSING: usize = 32;

/// Of those, at most this many for one address: an address that keeps coming back over
/// its cap ends its own older refusals, never another address's.
pub const REFUSING_PER_IP: usize = 4;

/// The caps (`per_ip`, `total`; 0: none) clamped to a process that may open
/// `open_files` descriptors: the connections and the refusals being answered must fit
/// beside [`RESERVED_FDS`]. A cap of none becomes that room.
pub fn clamp(per_ip: usize, total: usize, open_files: u64) -> (usize, usize) {
    let room = open_files.saturating_sub(RESERVED_FDS + REFUSING as u64).max(1);
    let room = usize::try_from(room).unwrap_or(usize::MAX);
    let total = if total == 0 { room } else { total.min(room) };
    let per_ip = if per_ip == 0 { 0 } else { per_ip.min(total) };
    (per_ip, total)
}

/// Refusals being answered: at most [`REFUSING`], [`REFUSING_PER_IP`] per address. A
/// new one ends the oldest of its address when that address is at its bound, else the
/// oldest of all when all places are taken; so whoever asks last is told why, and an
/// address cannot end another's refusals while it holds its share.
#[derive(Debug, Default)]
struct Answering {
    /// Oldest first: the address, an id, and what ends the refusal early. A std Mutex:
    /// held for a short scan, never across an await.
    open: Mutex<std::collections::VecDeque<(IpAddr, u64, CancellationToken)>>,
    next: std::sync::atomic::AtomicU64,
}

impl Answering {
    /// A place for a refusal to `ip`: its id and the token that ends it early.
    fn take(&self, ip: IpAddr) -> (u64, CancellationToken) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let own = open.iter().filter(|(a, _, _)| *a == ip).count();
        let oldest = if own >= REFUSING_PER_IP {
            open.iter().position(|(a, _, _)| *a == ip)
        } else if open.len() >= REFUSING {
            Some(0)
        } else {
            None
        };
        if let Some((_, _, end)) = oldest.and_then(|i| open.remove(i)) {
            end.cancel();
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let end = CancellationToken::new();
        open.push_back((ip, id, end.clone()));
        (id, end)
    }

    /// Gives back the place of refusal `id` (if a newer one has not taken it).
    fn done(&self, id: u64) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|(_, i, _)| *i != id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// The soft limit on open files, if the process has one.
fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        match rlimit::getrlimit(rlimit::Resource::NOFILE) {
            Ok((soft, _)) if soft != rlimit::INFINITY => Some(soft),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the open file limit");
                None
            }
        }
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Open connections per address and in all.
#[derive(Debug)]
pub struct ConnLimits {
    per_ip: usize,
    total: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
    all: AtomicUsize,
}

/// One open connection's place under the caps; given back on drop.
#[derive(Debug)]
pub struct ConnGuard {
    limits: Arc<ConnLimits>,
    ip: IpAddr,
}

impl ConnLimits {
    /// 0 means unlimited, for either cap.
    pub fn new(per_ip: usize, total: usize) -> Arc<ConnLimits> {
        Arc::new(ConnLimits {
            per_ip,
            total,
            open: Mutex::new(HashMap::new()),
            all: AtomicUsize::new(0),
        })
    }

    /// The caps, clamped to the process's open-file limit (see [`clamp`]); says so in
    /// the log when that lowers them.
    pub fn for_process(per_ip: usize, total: usize) -> Arc<ConnLimits> {
        let Some(open_files) = open_file_limit() else {
            return ConnLimits::new(per_ip, total);
        };
        let (clamped_per_ip, clamped_total) = clamp(per_ip, total, open_files);
        if (clamped_per_ip, clamped_total) != (per_ip, total) {
            tracing::warn!(
                open_files,
                reserved = RESERVED_FDS + REFUSING as u64,
                max_conns = clamped_total,
                max_conns_per_ip = clamped_per_ip,
                asked_max_conns = total,
                asked_max_conns_per_ip = per_ip,
                "connection caps lowered to what the process can open (0: none per address)"
            );
        } else {
            tracing::info!(
                open_files,
                max_conns = total,
                max_conns_per_ip = per_ip,
                "connection caps"
            );
        }
        ConnLimits::new(clamped_per_ip, clamped_total)
    }

    /// Takes a place for a connection from `ip`.
    pub fn open(self: &Arc<Self>, ip: IpAddr) -> Result<ConnGuard, Refusal> {
        // A std Mutex: held for a map update, never across an await.
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if self.total != 0 && self.all.load(Ordering::Relaxed) >= self.total {
            return Err(Refusal::Busy);
        }
        let n = open.entry(ip).or_insert(0);
        if self.per_ip != 0 && *n >= self.per_ip {
            return Err(Refusal::TooManyFromAddress);
        }
        *n += 1;
        self.all.fetch_add(1, Ordering::Relaxed);
        metrics::get().connections.inc();
        Ok(ConnGuard {
            limits: self.clone(),
            ip,
        })
    }

    /// Connections open now.
    pub fn count(&self) -> usize {
        self.all.load(Ordering::Relaxed)
    }
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        let mut open = self.limits.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
        self.limits.all.fetch_sub(1, Ordering::Relaxed);
        metrics::get().connections.dec();
    }
}

/// A TCP stream that holds its place under the caps for as long as it lives.
#[derive(Debug)]
struct Guarded {
    tcp: TcpStream,
    _guard: ConnGuard,
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// How connections are served.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Deadline for a request's headers, and for the next request on a kept-alive
    /// connection.
    pub header_timeout: Duration,
    /// The caps.
    pub limits: Arc<ConnLimits>,
}

/// Accepts connections until `stop` is cancelled, then lets open HTTP exchanges finish
/// (for at most five seconds). Upgraded WebSockets are not waited for here: they close
/// on the same token in `ws.rs`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    settings: Settings,
    stop: CancellationToken,
) -> io::Result<()> {
    let connections = TaskTracker::new();
    let answering = Arc::new(Answering::default());
    loop {
        let (tcp, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stop.cancelled() => break,
        };
        // Small messages that must arrive now: no Nagle delay.
        let _ = tcp.set_nodelay(true);
        let guard = match settings.limits.open(addr.ip()) {
            Ok(guard) => guard,
            Err(refusal) => {
                metrics::refused(refusal.code());
                tracing::debug!(ip = %addr.ip(), code = refusal.code().as_str(), "connection refused");
                // Within the reserve: a bounded number of refusals at a time.
                let (id, end) = answering.take(addr.ip());
                let answering = answering.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        () = refuse(tcp, refusal) => {}
                        () = end.cancelled() => {}
                    }
                    answering.done(id);
                });
                continue;
            }
        };
        let io = TokioIo::new(Guarded { tcp, _guard: guard });
        let service = TowerToHyperService::new(router.clone().map_request(
            move |mut req: axum::http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(addr));
                req
            },
        ));
        let header_timeout = settings.header_timeout;
        let stop = stop.clone();
        connections.spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(true)
                .serve_connection(io, service)
                .with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(e) = result {
                        tracing::trace!(error = %e, "connection ended");
                    }
                    return;
                }
                _ = stop.cancelled() => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    drop(listener);
    connections.close();
    if tokio::time::timeout(Duration::from_secs(5), connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("some HTTP connections did not finish in time");
    }
    Ok(())
}

/// Answers a connection over a cap and closes it. The request is read first (briefly)
/// so that closing does not reset the connection before the client has the answer.
async fn refuse(mut tcp: TcpStream, refusal: Refusal) {
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_millis(500), tcp.read(&mut buf)).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        tcp.write_all(refusal.response().as_bytes()).await?;
        tcp.shutdown().await?;
        // Drain until the client closes, so the answer is not lost to a reset.
        while tcp.read(&mut buf).await? > 0 {}
        Ok::<_, io::Error>(())
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_refusal_ends_the_oldest_of_its_address_then_of_all() {
        let answering = Answering::default();
        let flood: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let first: Vec<_> = (0..REFUSING_PER_IP).map(|_| answering.take(flood)).collect();
        assert!(first.iter().all(|(_, end)| !end.is_cancelled()));
        // The flood's next refusal ends its own oldest; another address ends nothing.
        let (_, latest) = answering.take(flood);
        assert!(first[0].1.is_cancelled() && !first[1].1.is_cancelled());
        let (mine, _) = answering.take(other);
        assert!(first[1..].iter().all(|(_, end)| !end.is_cancelled()));
        assert_eq!(answering.len(), REFUSING_PER_IP + 1);
        // Places all taken (by many addresses): the oldest of all goes.
        let many: Vec<_> = (0..REFUSING)
            .map(|i| answering.take(IpAddr::from([10, 1, (i / 200) as u8, (i % 200) as u8])))
            .collect();
        assert_eq!(answering.len(), REFUSING);
        assert!(latest.is_cancelled());
        assert!(!many.last().unwrap().1.is_cancelled());
        answering.done(mine);
        answering.done(many[REFUSING - 1].0);
        assert_eq!(answering.len(), REFUSING - 1);
    }

    #[test]
    fn caps_fit_in_the_open_file_limit() {
        let reserve = RESERVED_FDS as usize + REFUSING;
        // Plenty of files: the caps stand as asked.
        assert_eq!(clamp(64, 16_384, 1 << 20), (64, 16_384));
        assert_eq!(clamp(0, 16_384, 1 << 20), (0, 16_384));
        // Too few: the total is what fits beside the reserve, and no address gets more.
        assert_eq!(clamp(64, 16_384, 1024), (64, 1024 - reserve));
        assert_eq!(clamp(5_000, 16_384, 1024), (1024 - reserve, 1024 - reserve));
        // No cap asked for still gets one.
        assert_eq!(clamp(0, 0, 2000), (0, 2000 - reserve));
        // Hardly any files: one connection at a time rather than none.
        assert_eq!(clamp(0, 0, 10), (0, 1));
    }
}

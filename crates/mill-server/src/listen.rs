//! The accept loop: connection caps per IP address and in all, HTTP/1.1 with a deadline
//! for request headers (which also bounds idle kept-alive connections), WebSocket
//! upgrades, and graceful shutdown.
//!
//! `axum::serve` has no header timeout, so connections are served with hyper's own
//! HTTP/1 builder. A connection over a cap is answered at once with a short JSON 429
//! (`too-many-connections`, per address) or 503 (`server-busy`, in all) and closed, so
//! one address holding many sockets cannot starve anyone else. The cap's guard lives
//! inside the connection's I/O, so an upgraded WebSocket keeps counting until it closes.

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
                tokio::spawn(refuse(tcp, refusal));
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

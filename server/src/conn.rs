//! The HTTP server's connections (issue 34): an accept loop under a cap on open connections, and time limits on
//! every connection, so that silent, slow or half-sent requests (slowloris) cannot hold the server's sockets or file
//! descriptors.
//!
//! Built from hyper's HTTP/1 connection ([`hyper::server::conn::http1`]), driven per accepted socket (what
//! `axum::serve` does, which exposes none of this), with:
//! - a cap on open connections ([`Limits::max_connections`], a [`Semaphore`] permit per connection): at the cap, a
//!   new connection makes room by closing the oldest one that has no request in progress (silent, sending its head,
//!   or idle between requests: nothing is lost), so a flood of silent sockets cannot keep clients out; when every
//!   connection has a request in progress, the new one waits for a place and the next ones wait in the kernel's
//!   listen queue, instead of taking descriptors the store and the webhook client need (at most one accepted
//!   socket waits beyond the cap). `accept` errors (EMFILE, ENFILE, ENOBUFS) back off (10 ms doubling to 1 s)
//!   instead of spinning;
//! - the waiting limits, enforced on the socket by a wrapper (`Guarded`): a new connection must send a whole request
//!   head within [`Limits::header_read`]; a kept-alive connection may stay silent [`Limits::idle`] after an answer,
//!   then has [`Limits::header_read`] from the first byte of its next head; an answer the client does not take (a
//!   write that makes no progress) for [`Limits::body`] closes the connection. hyper's own `header_read_timeout` is
//!   not used:
//!   it starts when hyper begins waiting for a head, so on a kept-alive connection it also counts the idle time and
//!   cannot tell an idle client from a slow one;
//! - the request limits, in the handler (`lib.rs`): the body must arrive within [`Limits::body`] (408) and the whole
//!   exchange, queues for the writer and the signing threads included, within [`Limits::request`] (503).
//!
//! Shutdown: accepting stops, every connection is told to finish (hyper's graceful shutdown: in-flight requests are
//! answered, idle connections close) and the loop returns once every permit is back.

use axum::body::Body;
use axum::Router;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, Semaphore, TryAcquireError};
use tokio::time::{Instant, Sleep};

/// Default of `--header-read-timeout`: seconds to receive a request's head.
pub const DEFAULT_HEADER_READ: Duration = Duration::from_secs(10);
/// Default of `--body-timeout`: seconds to receive a request's body (and to take an answer).
pub const DEFAULT_BODY: Duration = Duration::from_secs(30);
/// Default of `--idle-timeout`: seconds a kept-alive connection may stay silent between requests.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(60);
/// Default of `--request-timeout`: seconds from a request's head to its answer.
pub const DEFAULT_REQUEST: Duration = Duration::from_secs(60);
/// Most connections the default cap allows, whatever the file limit.
pub const MAX_DEFAULT_CONNECTIONS: usize = 1024;
/// Descriptors the default cap leaves to everything else (store, webhooks, SIFEN, logs), at least.
pub const RESERVED_FILES: u64 = 128;

/// The time limits and the connection cap of `kuatia serve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A request's head (request line and headers) must arrive within this, counted from the connection's start or,
    /// on a kept-alive connection, from the head's first byte (`--header-read-timeout`).
    pub header_read: Duration,
    /// A request's body must arrive within this once its head is in (408 otherwise); an answer the client does not
    /// take for this long closes the connection (`--body-timeout`).
    pub body: Duration,
    /// A kept-alive connection silent this long after an answer is closed (`--idle-timeout`).
    pub idle: Duration,
    /// From a request's head to its answer (503 otherwise; a create carries on and is found again by its
    /// `Idempotency-Key`) (`--request-timeout`).
    pub request: Duration,
    /// Open connections at most: at the cap a new connection closes the oldest one without a request in progress,
    /// or waits (`--max-connections`).
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read: DEFAULT_HEADER_READ,
            body: DEFAULT_BODY,
            idle: DEFAULT_IDLE,
            request: DEFAULT_REQUEST,
            max_connections: default_max_connections(),
        }
    }
}

/// The default cap on open connections: [`MAX_DEFAULT_CONNECTIONS`], or fewer when the process's open-file limit
/// (`RLIMIT_NOFILE`, soft) leaves less than a quarter of it (and at least [`RESERVED_FILES`]) to the rest; 16 at
/// least.
pub fn default_max_connections() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    cap_for_file_limit(limit)
}

/// [`default_max_connections`] for a soft open-file limit (`None`: unlimited).
pub fn cap_for_file_limit(limit: Option<u64>) -> usize {
    let Some(limit) = limit else {
        return MAX_DEFAULT_CONNECTIONS;
    };
    let reserved = RESERVED_FILES.max(limit / 4);
    let cap = usize::try_from(limit.saturating_sub(reserved)).unwrap_or(usize::MAX);
    cap.clamp(16, MAX_DEFAULT_CONNECTIONS)
}

/// The address a request came from: the socket's peer, or, when that peer is a trusted reverse proxy, the nearest
/// address before it in `X-Forwarded-For` (a request extension, read by the handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// The client of a request: `peer`, unless it is one of `trusted` (reverse proxies), in which case the right-most
/// address of `X-Forwarded-For` that is not itself trusted (what the proxy nearest to us saw; the left part is the
/// client's own word). A trusted peer without a usable header is the client.
pub fn client_address<'a>(
    peer: IpAddr,
    forwarded_for: impl Iterator<Item = &'a str>,
    trusted: &[IpAddr],
) -> IpAddr {
    if !trusted.contains(&canonical(peer)) {
        return peer;
    }
    let hops: Vec<&str> = forwarded_for.flat_map(|v| v.split(',')).collect();
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            // A hop we cannot read: what is left of it is not the proxies' word.
            return peer;
        };
        if !trusted.contains(&canonical(ip)) {
            return ip;
        }
    }
    peer
}

/// An IPv4-mapped IPv6 address as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Accepts connections on `listener` and serves `app` on each, under `limits`, until `stop` turns true; then lets
/// every connection finish its request and returns once all are closed.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let max = limits.max_connections.clamp(1, 1 << 20);
    let permits = Arc::new(Semaphore::new(max));
    let open = Arc::new(Open::default());
    let mut backoff = Duration::from_millis(10);
    'accept: loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            () = stopped(&mut stop) => break,
        };
        let (socket, peer) = match accepted {
            Ok(a) => {
                backoff = Duration::from_millis(10);
                a
            }
            // The client gave up before we took its connection: nothing to wait for.
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of descriptors (or memory): the connections already open keep being served, and this loop
                // retries shortly instead of spinning on the error.
                tracing::warn!(error = %e, retry_ms = backoff.as_millis() as u64, "accept failed");
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    () = stopped(&mut stop) => break,
                }
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(TryAcquireError::Closed) => break,
            Err(TryAcquireError::NoPermits) => {
                // At the cap: the oldest connection without a request in progress (silent, sending its head, idle
                // between requests) makes room. When every one has a request in progress, this one waits for the
                // first to close, and the next ones wait in the listen queue.
                open.evict_one();
                let mut again = tokio::time::interval(Duration::from_millis(100));
                again.tick().await;
                loop {
                    tokio::select! {
                        p = permits.clone().acquire_owned() => match p {
                            Ok(p) => break p,
                            Err(_) => break 'accept,
                        },
                        _ = again.tick() => open.evict_one(),
                        () = stopped(&mut stop) => break 'accept,
                    }
                }
            }
        };
        let _ = socket.set_nodelay(true);
        let (app, stop, state) = (app.clone(), stop.clone(), Open::register(&open));
        tokio::spawn(async move {
            connection(socket, peer, app, limits, stop, state).await;
            drop(permit);
        });
    }
    drop(listener);
    // Every connection holds a permit until it is closed.
    let _ = permits
        .acquire_many(u32::try_from(max).unwrap_or(u32::MAX))
        .await;
}

/// Resolves once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// What a connection's parts tell each other, and the accept loop.
#[derive(Debug, Default)]
struct ConnState {
    /// A request is being handled or its answer sent (set by the service, cleared when hyper drops the answer).
    busy: AtomicBool,
    /// The socket is waiting for a request head ([`Guarded`]).
    waiting: AtomicBool,
    /// A write waits on the client ([`Guarded`]).
    stalled: AtomicBool,
    /// Asks the connection to close, to make room for a new one.
    evict: Notify,
}

impl ConnState {
    /// Whether closing the connection now loses nothing: no request in progress, no answer being sent.
    fn evictable(&self) -> bool {
        !self.busy.load(Ordering::Acquire)
            && self.waiting.load(Ordering::Acquire)
            && !self.stalled.load(Ordering::Acquire)
    }
}

/// The open connections, oldest first.
#[derive(Debug, Default)]
struct Open {
    next: AtomicU64,
    conns: Mutex<BTreeMap<u64, Arc<ConnState>>>,
}

/// A connection's entry in [`Open`], removed when dropped.
struct Registered {
    open: Arc<Open>,
    id: u64,
    state: Arc<ConnState>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.open
            .conns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

impl Open {
    fn register(open: &Arc<Open>) -> Registered {
        let id = open.next.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(ConnState::default());
        // A new connection waits for its first head.
        state.waiting.store(true, Ordering::Release);
        open.conns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, state.clone());
        Registered {
            open: open.clone(),
            id,
            state,
        }
    }

    /// Asks the oldest connection that has no request in progress to close.
    fn evict_one(&self) {
        let conns = self.conns.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(state) = conns.values().find(|c| c.evictable()) {
            state.evict.notify_one();
        }
    }
}

/// Serves one connection until it closes, a limit closes it, a new connection needs its place, or `stop` asks it to
/// finish.
async fn connection(
    socket: TcpStream,
    peer: SocketAddr,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    registered: Registered,
) {
    let state = registered.state.clone();
    let io = TokioIo::new(Guarded::new(socket, state.clone(), limits));
    let tower = TowerToHyperService::new(app);
    let in_service = state.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        // A whole head is in: the socket's waiting limits stop until the answer is sent.
        in_service.busy.store(true, Ordering::Release);
        req.extensions_mut().insert(Peer(peer));
        let answer = hyper::service::Service::call(&tower, req);
        let done = Idle(in_service.clone());
        async move {
            let response = answer.await?;
            Ok::<_, std::convert::Infallible>(response.map(|body| Answer { body, _done: done }))
        }
    });
    let conn = http1::Builder::new()
        .keep_alive(true)
        .header_read_timeout(None)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let outcome = loop {
        tokio::select! {
            r = conn.as_mut() => break r,
            () = stopped(&mut stop) => {
                conn.as_mut().graceful_shutdown();
                break conn.as_mut().await;
            }
            () = state.evict.notified() => {
                // Dropped: the socket closes, with nothing asked of us on it. A request that came in meanwhile is
                // served.
                if state.evictable() {
                    tracing::debug!(%peer, "connection closed to make room");
                    break Ok(());
                }
            }
        }
    };
    drop(registered);
    if let Err(e) = outcome {
        // Timeouts, resets and malformed requests: the client's doing, not a fault of ours.
        tracing::debug!(error = %e, %peer, "connection closed");
    }
}

/// Marks its connection idle again when dropped (hyper drops an answer's body once it is sent, or abandoned).
struct Idle(Arc<ConnState>);

impl Drop for Idle {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

/// An answer's body, which marks its connection idle once hyper is done with it.
struct Answer {
    body: Body,
    _done: Idle,
}

impl HttpBody for Answer {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// How often a read that started while its connection was busy looks again at the connection's state.
const BUSY_RECHECK: Duration = Duration::from_millis(100);

/// Where a connection is in its waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// A request is being handled or answered: no limit here (the handler has its own).
    Busy,
    /// Waiting for the first byte of a head (after an answer: the idle limit).
    Silent,
    /// Some of a head is in (or the connection is new): the header limit.
    Head,
}

/// A socket that fails its reads when the client is silent or slow beyond the limits, and its writes when the
/// client does not take the answer: hyper then closes the connection.
struct Guarded {
    inner: TcpStream,
    state: Arc<ConnState>,
    limits: Limits,
    wait: Wait,
    read_deadline: Pin<Box<Sleep>>,
    /// Whether a write is waiting on the client (its deadline is `write_deadline`).
    write_stalled: bool,
    write_deadline: Pin<Box<Sleep>>,
}

impl Guarded {
    fn new(inner: TcpStream, state: Arc<ConnState>, limits: Limits) -> Guarded {
        let now = Instant::now();
        state.waiting.store(true, Ordering::Release);
        Guarded {
            inner,
            state,
            limits,
            // A new connection: its head must be in within the header limit, silent or not.
            wait: Wait::Head,
            read_deadline: Box::pin(tokio::time::sleep_until(now + limits.header_read)),
            write_stalled: false,
            write_deadline: Box::pin(tokio::time::sleep_until(now + limits.body)),
        }
    }

    /// Follows the connection's state before a read.
    fn observe(&mut self) {
        let busy = self.state.busy.load(Ordering::Acquire);
        match (busy, self.wait) {
            (true, _) => self.wait = Wait::Busy,
            (false, Wait::Busy) => {
                self.wait = Wait::Silent;
                let at = Instant::now() + self.limits.idle;
                self.read_deadline.as_mut().reset(at);
            }
            (false, _) => {}
        }
        self.state
            .waiting
            .store(self.wait != Wait::Busy, Ordering::Release);
    }

    fn timed_out(what: &str) -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, what.to_string())
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        this.observe();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if this.wait == Wait::Silent && buf.filled().len() > before {
                    // The next head has started: it has the header limit from now.
                    this.wait = Wait::Head;
                    let at = Instant::now() + this.limits.header_read;
                    this.read_deadline.as_mut().reset(at);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                if this.wait == Wait::Busy {
                    // The end of an answer (`Idle`'s drop) wakes no reader: when hyper waits for the next head
                    // before it drops the answer's body, look again shortly, so the idle limit still starts.
                    let at = Instant::now() + BUSY_RECHECK;
                    this.read_deadline.as_mut().reset(at);
                    let _ = this.read_deadline.as_mut().poll(cx);
                    return Poll::Pending;
                }
                if this.read_deadline.as_mut().poll(cx).is_ready() {
                    let what = match this.wait {
                        Wait::Silent => "idle connection timed out",
                        _ => "request head timed out",
                    };
                    return Poll::Ready(Err(Self::timed_out(what)));
                }
                Poll::Pending
            }
        }
    }
}

impl Guarded {
    /// Applies the write limit to a write's outcome.
    fn on_write<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Pending => {
                if !self.write_stalled {
                    self.write_stalled = true;
                    self.state.stalled.store(true, Ordering::Release);
                    let at = Instant::now() + self.limits.body;
                    self.write_deadline.as_mut().reset(at);
                }
                if self.write_deadline.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Self::timed_out(
                        "the client does not take the answer",
                    )));
                }
                Poll::Pending
            }
            ready => {
                if self.write_stalled {
                    self.write_stalled = false;
                    self.state.stalled.store(false, Ordering::Release);
                }
                ready
            }
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.on_write(cx, r)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let r = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.on_write(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let r = Pin::new(&mut this.inner).poll_flush(cx);
        this.on_write(cx, r)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cap_leaves_descriptors_to_the_rest() {
        assert_eq!(cap_for_file_limit(None), MAX_DEFAULT_CONNECTIONS);
        assert_eq!(cap_for_file_limit(Some(256)), 128);
        assert_eq!(cap_for_file_limit(Some(1024)), 768);
        assert_eq!(cap_for_file_limit(Some(1 << 20)), MAX_DEFAULT_CONNECTIONS);
        assert_eq!(cap_for_file_limit(Some(20)), 16);
    }

    #[test]
    fn forwarded_for_counts_only_behind_a_trusted_proxy() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let proxy = ip("10.0.0.1");
        let trusted = [proxy];
        // Not a trusted peer: its header is ignored.
        assert_eq!(
            client_address(ip("198.51.100.1"), ["203.0.113.5"].into_iter(), &trusted),
            ip("198.51.100.1")
        );
        // Behind the proxy: the right-most untrusted hop (the left part is the client's own word).
        assert_eq!(
            client_address(proxy, ["1.2.3.4, 203.0.113.5"].into_iter(), &trusted),
            ip("203.0.113.5")
        );
        assert_eq!(
            client_address(
                proxy,
                ["1.2.3.4", "203.0.113.5, 10.0.0.1"].into_iter(),
                &trusted
            ),
            ip("203.0.113.5")
        );
        assert_eq!(client_address(proxy, std::iter::empty(), &trusted), proxy);
        assert_eq!(
            client_address(proxy, ["garbage"].into_iter(), &trusted),
            proxy
        );
    }
}

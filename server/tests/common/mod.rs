//! Helpers shared by the server's end-to-end tests: temporary data directories, the server's test configuration, an
//! HTTP client for `/v1`, webhook receivers on loopback, and waits on events under one hang guard.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod api;
pub mod pki;
pub mod tls;

use axum::extract::State;
use axum::http::HeaderMap;
use kuatia_service::webhook::{verify_signature, DEFAULT_TOLERANCE, SIGNATURE_HEADER};
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a test waits for something that must happen before calling it a hang. Generous on purpose: tests wait on
/// the event itself, never on a wall-clock bound, so this only turns a hang into a clear failure.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

/// Polls `probe` (every 50 ms) until it answers `Ok`; `Err` carries what it saw, for the failure message if the
/// [`HANG_GUARD`] runs out first.
pub async fn wait_for<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let mut last = String::new();
    let polling = async {
        loop {
            match probe().await {
                Ok(t) => return t,
                Err(seen) => last = seen,
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    match tokio::time::timeout(HANG_GUARD, polling).await {
        Ok(t) => t,
        Err(_) => panic!("hang guard ({HANG_GUARD:?}): {what} never happened; last seen: {last}"),
    }
}

/// Awaits `f` under the [`HANG_GUARD`], failing with `what` if it does not finish.
pub async fn guarded<T>(what: &str, f: impl Future<Output = T>) -> T {
    match tokio::time::timeout(HANG_GUARD, f).await {
        Ok(t) => t,
        Err(_) => panic!("hang guard ({HANG_GUARD:?}): {what} never happened"),
    }
}

/// A fresh, empty path under the system temp dir (not created), removed with everything under it when dropped.
pub fn temp_dir(name: &str) -> TempPath {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kuatia-serve-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    TempPath(dir)
}

/// A temporary path that [`temp_dir`] handed out; the directory (if one was made there) goes on drop, so a test that
/// fails half-way leaves nothing behind either.
pub struct TempPath(PathBuf);

impl std::ops::Deref for TempPath {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempPath {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A webhook receiver on a loopback port: every POST to `/hook` arrives as (signature header, body).
pub async fn receiver() -> (u16, mpsc::UnboundedReceiver<(String, String)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    async fn hook(
        State(tx): State<mpsc::UnboundedSender<(String, String)>>,
        headers: HeaderMap,
        body: String,
    ) -> &'static str {
        let sig = headers
            .get(SIGNATURE_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let _ = tx.send((sig, body));
        "ok"
    }
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, rx)
}

/// Waits for the next event and checks its signature with the registration secret.
pub async fn next_event(rx: &mut mpsc::UnboundedReceiver<(String, String)>, secret: &str) -> Value {
    let (sig, body) = guarded("a webhook delivery", rx.recv())
        .await
        .expect("the receiver stopped");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    verify_signature(secret, &sig, &body, now, DEFAULT_TOLERANCE).expect("valid signature");
    assert!(verify_signature("whsec_wrong", &sig, &body, now, DEFAULT_TOLERANCE).is_err());
    serde_json::from_str(&body).unwrap()
}

/// A webhook receiver that holds every POST to `/hook` unanswered until the test releases it (a slow endpoint whose
/// slowness the test controls): returns its port, one message per request as it arrives, and the release.
pub async fn held_receiver() -> (u16, mpsc::UnboundedReceiver<()>, Release) {
    type Held = (
        mpsc::UnboundedSender<()>,
        tokio::sync::watch::Receiver<bool>,
    );
    async fn hook(State((arrived, mut release)): State<Held>) -> &'static str {
        let _ = arrived.send(());
        let _ = release.wait_for(|open| *open).await;
        "ok"
    }
    let (arrived, arrivals) = mpsc::unbounded_channel();
    let (release, open) = tokio::sync::watch::channel(false);
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .with_state((arrived, open));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, arrivals, Release(release))
}

/// Lets a [`held_receiver`] answer every request it holds and every later one.
pub struct Release(tokio::sync::watch::Sender<bool>);

impl Release {
    /// Answers everything held, and from now on answers at once.
    pub fn release(&self) {
        let _ = self.0.send(true);
    }
}

/// The Prometheus text of a server's metrics listener (`ServerConfig::metrics_addr` given).
pub async fn scrape_metrics(server: &kuatia_server::RunningServer) -> String {
    let addr = server.metrics_addr.expect("metrics_addr given");
    let r = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    r.text().await.unwrap()
}

/// The value of the sample line `series` (name and labels as written), `None` when absent.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.parse().unwrap())
}

//! Helpers shared by the server's end-to-end tests: temporary data directories and a webhook receiver on loopback.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod pki;
pub mod tls;

use axum::extract::State;
use axum::http::HeaderMap;
use kuatia_service::webhook::{verify_signature, DEFAULT_TOLERANCE, SIGNATURE_HEADER};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

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
    let (sig, body) = tokio::time::timeout(Duration::from_secs(15), rx.recv())
        .await
        .expect("no webhook delivered in time")
        .unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    verify_signature(secret, &sig, &body, now, DEFAULT_TOLERANCE).expect("valid signature");
    assert!(verify_signature("whsec_wrong", &sig, &body, now, DEFAULT_TOLERANCE).is_err());
    serde_json::from_str(&body).unwrap()
}

/// A webhook receiver that answers `/hook` after `delay` (a slow endpoint); returns its port.
pub async fn slow_receiver(delay: Duration) -> u16 {
    async fn hook(State(delay): State<Duration>) -> &'static str {
        tokio::time::sleep(delay).await;
        "ok"
    }
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .with_state(delay);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

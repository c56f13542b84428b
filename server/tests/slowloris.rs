//! Time limits on every connection and the connection cap (issue 34, point 2), against a real server on loopback:
//! silent sockets, half-sent heads, half-sent bodies, a head trickled a byte at a time, a kept-alive connection left
//! idle, and more connections than the cap. The service keeps answering `/v1/health` and creates, and the server
//! closes every one of those connections by itself (EOF read by the client) once its limit has passed. No timing is
//! asserted: each wait has a generous hang guard, which the old server (no limit at all) ran into.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::temp_dir;
use kuatia_server::conn::Limits;
use kuatia_server::{start, RunningServer, ServerConfig};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sockets of each kind.
const N: usize = 50;
/// How long a test waits for the server to close a connection before calling it a hang.
const HANG_GUARD: Duration = Duration::from_secs(30);

async fn server(dir: &std::path::Path, limits: Limits) -> RunningServer {
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.deliver_webhooks = false;
    c.limits = limits;
    start(c).await.unwrap()
}

fn short_limits(max_connections: usize) -> Limits {
    Limits {
        header_read: Duration::from_secs(2),
        body: Duration::from_secs(2),
        idle: Duration::from_secs(2),
        request: Duration::from_secs(60),
        max_connections,
    }
}

async fn open(addr: SocketAddr, first: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    if !first.is_empty() {
        s.write_all(first).await.unwrap();
    }
    s
}

/// Everything the server sends until it closes the connection (EOF or reset); panics at the hang guard.
async fn until_closed(mut s: TcpStream, what: &str) -> Vec<u8> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(HANG_GUARD, async {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "{what}: the server left the connection open ({} bytes received)",
        got.len()
    );
    got
}

async fn health(client: &reqwest::Client, base: &str) -> u16 {
    tokio::time::timeout(HANG_GUARD, client.get(format!("{base}/v1/health")).send())
        .await
        .expect("/v1/health hung")
        .unwrap()
        .status()
        .as_u16()
}

async fn create(client: &reqwest::Client, base: &str, key: &str) -> u16 {
    let body = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    let send = client
        .post(format!("{base}/v1/facturas"))
        .header("Authorization", format!("Bearer {key}"))
        .header("X-Environment", "sandbox")
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send();
    tokio::time::timeout(HANG_GUARD, send)
        .await
        .expect("a create hung")
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_silent_connections_are_closed_and_the_service_answers() {
    let dir = temp_dir("slowloris");
    let server = server(&dir, short_limits(1024)).await;
    let key = server.new_sandbox_key.clone().unwrap();
    let addr = server.addr;
    let base = format!("http://{addr}");

    let mut silent = Vec::new();
    let mut half_head = Vec::new();
    let mut half_body = Vec::new();
    for _ in 0..N {
        silent.push(open(addr, b"").await);
        half_head.push(
            open(
                addr,
                b"POST /v1/facturas HTTP/1.1\r\nHost: localhost\r\nContent-Type: appli",
            )
            .await,
        );
        half_body.push(
            open(
                addr,
                format!(
                    "POST /v1/facturas HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\
                     X-Environment: sandbox\r\nContent-Type: application/json\r\n\
                     Content-Length: 1000\r\n\r\n{{\"tipo_documento\": 1,"
                )
                .as_bytes(),
            )
            .await,
        );
    }
    // A head sent a byte at a time, never finished: its limit counts from its first byte, not from the last.
    let trickle = tokio::spawn(async move {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let mut head = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ".to_vec();
        head.resize(64 * 1024, b'a');
        let sent = tokio::time::timeout(HANG_GUARD, async {
            for b in &head {
                if s.write_all(&[*b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
        .await;
        assert!(sent.is_ok(), "a trickled head kept its connection open");
    });

    // While they are open, the service answers.
    let client = reqwest::Client::new();
    assert_eq!(health(&client, &base).await, 200);
    assert_eq!(create(&client, &base, &key).await, 201);

    // A kept-alive connection that goes silent after its answer is closed too.
    let mut idle = open(addr, b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");

    for s in silent {
        assert!(until_closed(s, "silent socket").await.is_empty());
    }
    for s in half_head {
        // hyper answers nothing to a head that never finished: it just closes.
        until_closed(s, "half a head").await;
    }
    for s in half_body {
        let answer = String::from_utf8_lossy(&until_closed(s, "half a body").await).to_string();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("REQUEST_TIMEOUT"), "{answer}");
    }
    until_closed(idle, "idle kept-alive connection").await;
    trickle.await.unwrap();

    // And the service still answers afterwards.
    assert_eq!(health(&client, &base).await, 200);
    assert_eq!(create(&client, &base, &key).await, 201);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// More connections than the cap, all silent, with limits too long to help: each new connection closes the oldest
/// one without a request in progress, so `/v1/health` and a create are served at once instead of waiting for the
/// silent ones to time out (the old server, and a cap that only waits, hang here). Once stopped, the server closes
/// the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_house_of_silent_connections_makes_room() {
    let dir = temp_dir("slowloris-cap");
    let cap = 10;
    let long = Duration::from_secs(600);
    let server = server(
        &dir,
        Limits {
            header_read: long,
            body: long,
            idle: long,
            request: Duration::from_secs(60),
            max_connections: cap,
        },
    )
    .await;
    let key = server.new_sandbox_key.clone().unwrap();
    let addr = server.addr;
    let base = format!("http://{addr}");
    let mut silent = Vec::new();
    for _ in 0..N {
        silent.push(open(addr, b"").await);
    }
    let client = reqwest::Client::new();
    assert_eq!(health(&client, &base).await, 200);
    assert_eq!(create(&client, &base, &key).await, 201);
    // The oldest were closed to make room (the health check's connection took the place of one more).
    let rest = silent.split_off(N - cap + 1);
    for s in silent {
        assert!(until_closed(s, "silent socket over the cap")
            .await
            .is_empty());
    }
    let stop = tokio::spawn(server.shutdown());
    for s in rest {
        assert!(until_closed(s, "silent socket at shutdown")
            .await
            .is_empty());
    }
    tokio::time::timeout(HANG_GUARD, stop)
        .await
        .expect("shutdown hung")
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// An answer not ready by `--request-timeout` is 503 `REQUEST_TIMEOUT` with `Retry-After`, and the create behind it
/// still completes: its `Idempotency-Key` finds it stored. (A deadline of 1 ns: a create waits for the writer and
/// the signing threads, other threads, so it cannot be ready at its first poll.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_its_deadline_is_503_and_its_create_completes() {
    let dir = temp_dir("slowloris-deadline");
    let mut limits = short_limits(1024);
    limits.request = Duration::from_nanos(1);
    let server = server(&dir, limits).await;
    let key = server.new_sandbox_key.clone().unwrap();
    let body = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    let r = tokio::time::timeout(
        HANG_GUARD,
        reqwest::Client::new()
            .post(format!("http://{}/v1/facturas", server.addr))
            .header("Authorization", format!("Bearer {key}"))
            .header("X-Environment", "sandbox")
            .header("Idempotency-Key", "deadline-1")
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send(),
    )
    .await
    .expect("the create hung")
    .unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "REQUEST_TIMEOUT", "{v}");
    let account = server.account_id.clone();
    let stored = tokio::time::timeout(HANG_GUARD, async {
        loop {
            let found = server.with_engine(|e| {
                kuatia_service::Store::idempotent(
                    &e.service.store,
                    &account,
                    kuatia_service::auth::Environment::Sandbox,
                    "deadline-1",
                )
            });
            if let Some(kept) = found {
                return kept.status;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the create behind the 503 was never stored");
    assert_eq!(stored, 201);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

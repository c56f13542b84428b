//! Faults injected into `kuatia serve` (docs/reliability.md, "Faults injected into kuatia serve"): a webhook receiver
//! that accepts the TCP connection and never answers. Real server, real sockets, loopback only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{next_event, receiver, temp_dir};
use kuatia_server::{start, ServerConfig};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

async fn call(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut r = http
        .request(method, format!("{base}{path}"))
        .header("Authorization", format!("Bearer {key}"))
        .header("X-Environment", "sandbox");
    if let Some(b) = body {
        r = r
            .header("Content-Type", "application/json")
            .body(b.to_string());
    }
    let r = r.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A webhook receiver that accepts connections and never reads nor answers; it keeps every socket open.
async fn black_hole() -> (u16, Arc<Mutex<usize>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(Mutex::new(0));
    let a = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            *a.lock().unwrap() += 1;
            held.push(s);
        }
    });
    (port, accepted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_receiver_that_never_answers_is_bounded_logged_and_retried() {
    let dir = temp_dir("fault-blackhole");
    let mut c = ServerConfig::new(dir.clone());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.webhook_timeout = Duration::from_secs(2);
    c.insecure_webhooks_http = true;
    c.allow_private_webhooks = true;
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let (hole, accepted) = black_hole().await;
    let (good, mut events) = receiver().await;
    let mut hooks = Vec::new();
    for port in [hole, good] {
        let (code, v) = call(&http, &base, &key, reqwest::Method::POST, "/v1/webhooks",
            Some(json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved"]}))).await;
        assert_eq!(code, 201, "{v}");
        hooks.push((
            v["data"]["id"].as_str().unwrap().to_string(),
            v["data"]["secret"].as_str().unwrap().to_string(),
        ));
    }
    let started = Instant::now();
    let (code, v) = call(&http, &base, &key, reqwest::Method::POST, "/v1/facturas",
        Some(json!({
            "tipo_documento": 1, "_simulate": "approved",
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
            "condicion_pago": 1
        }))).await;
    assert_eq!(code, 201, "{v}");
    // The healthy receiver is served although the other one hangs: one round waits at most the 2 s timeout.
    let ev = next_event(&mut events, &hooks[1].1).await;
    assert_eq!(ev["type"], "factura.approved");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    // The hanging delivery: one attempt, cut at the timeout, recorded as failed-for-now with the next retry after
    // the core's first back-off (1 min), not retried in a hot loop.
    let path = format!("/v1/webhooks/{}/deliveries", hooks[0].0);
    let mut d = Value::Null;
    for _ in 0..80 {
        let (code, v) = call(&http, &base, &key, reqwest::Method::GET, &path, None).await;
        assert_eq!(code, 200, "{v}");
        d = v["data"][0].clone();
        if d["attempts"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(d["attempts"], 1, "{d}");
    assert_eq!(d["status"], "pending", "{d}");
    let next = time::OffsetDateTime::parse(
        d["next_attempt_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let wait = next - time::OffsetDateTime::now_utc();
    assert!(
        wait > time::Duration::seconds(50) && wait <= time::Duration::seconds(60),
        "{wait}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        *accepted.lock().unwrap(),
        1,
        "one connection per attempt, no hot retry"
    );
    // The server still answers at once and shuts down cleanly with the receiver still hanging.
    let t = Instant::now();
    let (code, _) = call(
        &http,
        &base,
        &key,
        reqwest::Method::GET,
        "/v1/facturas",
        None,
    )
    .await;
    assert_eq!(code, 200);
    assert!(t.elapsed() < Duration::from_secs(1));
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .expect("shutdown is bounded");
}

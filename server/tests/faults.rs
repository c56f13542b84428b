//! Faults injected into `kuatia serve` (docs/reliability.md, "Faults injected into kuatia serve"): a webhook receiver
//! that accepts the TCP connection and never answers. Real server, real sockets, loopback only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, Api};
use common::{guarded, next_event, receiver, temp_dir, wait_for};
use kuatia_server::start;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    // The test configuration: its webhook timeout is 2 s.
    let server = start(config(&dir)).await.unwrap();
    let api = Api::sandbox(&server);
    let (hole, accepted) = black_hole().await;
    let (good, mut events) = receiver().await;
    let mut hooks = Vec::new();
    for port in [hole, good] {
        let (code, v) = api
            .post(
                "/v1/webhooks",
                &json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved"]}),
            )
            .await;
        assert_eq!(code, 201, "{v}");
        hooks.push((
            v["data"]["id"].as_str().unwrap().to_string(),
            v["data"]["secret"].as_str().unwrap().to_string(),
        ));
    }
    let (code, v) = api
        .post(
            "/v1/facturas",
            &json!({
            "tipo_documento": 1, "_simulate": "approved",
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
            "condicion_pago": 1
            }),
        )
        .await;
    assert_eq!(code, 201, "{v}");
    // The healthy receiver is served although the other one hangs (it would wait forever if a hanging receiver
    // held the deliveries: the hang guard fails the test then).
    let ev = next_event(&mut events, &hooks[1].1).await;
    assert_eq!(ev["type"], "factura.approved");
    // The hanging delivery: one attempt, cut at the timeout, recorded as failed-for-now with the next retry after
    // the core's first back-off (1 min), not retried in a hot loop.
    let path = format!("/v1/webhooks/{}/deliveries", hooks[0].0);
    let d: Value = wait_for("the hanging delivery's first attempt recorded", || async {
        let (code, v) = api.get(&path).await;
        assert_eq!(code, 200, "{v}");
        let d = v["data"][0].clone();
        if d["attempts"].as_u64().unwrap_or(0) >= 1 {
            Ok(d)
        } else {
            Err(v.to_string())
        }
    })
    .await;
    assert_eq!(d["attempts"], 1, "{d}");
    assert_eq!(d["status"], "pending", "{d}");
    assert_eq!(d["log"][0]["error"], "timeout", "{d}");
    let at = |field: &str| {
        time::OffsetDateTime::parse(
            d[field].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    // The back-off counts from when the delivery was first due, not from any clock the test reads.
    assert_eq!(
        at("next_attempt_at") - at("created_at"),
        time::Duration::seconds(kuatia_service::webhook::RETRY_SCHEDULE[0]),
        "{d}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        *accepted.lock().unwrap(),
        1,
        "one connection per attempt, no hot retry"
    );
    // The server still answers and shuts down cleanly with the receiver still holding its connection.
    let (code, _) = guarded(
        "an answer with the receiver hanging",
        api.get("/v1/facturas"),
    )
    .await;
    assert_eq!(code, 200);
    guarded("the shutdown with the receiver hanging", server.shutdown()).await;
}

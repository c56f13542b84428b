//! A clock that jumps (docs/reliability.md, "Faults injected into kuatia serve"): the server's clock (its `Host` and
//! its webhook worker) jumps between real time, one hour ahead and one hour behind while invoices are created, then
//! stays one hour behind. No invoice is dated beyond the jump (SIFEN accepts an emission date up to 120 h ahead),
//! the simulated SIFEN still approves every invoice, and every approval's webhook is delivered with a valid
//! signature. Real server, real sockets, loopback only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{guarded, receiver, temp_dir, HANG_GUARD};
use kuatia_server::{start, Clock, ServerConfig};
use kuatia_service::webhook::verify_signature;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

const HOUR: i64 = 3600;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_jumping_an_hour_back_and_forth_loses_nothing() {
    let offset = Arc::new(AtomicI64::new(0));
    let o = offset.clone();
    let dir = temp_dir("fault-clock");
    let mut c = ServerConfig::new(dir.clone());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.sandbox_send_after = 1;
    c.sandbox_answer_after = 2;
    c.insecure_webhooks_http = true;
    c.allow_private_webhooks = true;
    c.clock = Clock::from_fn(move || {
        OffsetDateTime::now_utc() + time::Duration::seconds(o.load(Ordering::SeqCst))
    });
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let call = |method: reqwest::Method, path: String, body: Option<Value>| {
        let mut r = http
            .request(method, format!("{base}{path}"))
            .header("Authorization", format!("Bearer {key}"))
            .header("X-Environment", "sandbox");
        if let Some(b) = body {
            r = r
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        async move {
            let r = r.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (port, mut events) = receiver().await;
    let (code, v) = call(
        reqwest::Method::POST,
        "/v1/webhooks".into(),
        Some(
            json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved"]}),
        ),
    )
    .await;
    assert_eq!(code, 201, "{v}");
    let secret = v["data"]["secret"].as_str().unwrap().to_string();

    // While invoices are created the clock steps every 150 ms: real, +1 h, -1 h, real, ...
    let steps = [0, HOUR, -HOUR];
    let jumper = {
        let offset = offset.clone();
        tokio::spawn(async move {
            for i in 0.. {
                offset.store(steps[i % 3], Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(150)).await;
            }
        })
    };
    let paraguay = UtcOffset::from_hms(-3, 0, 0).unwrap();
    let mut ids = BTreeSet::new();
    for _ in 0..15 {
        let before = OffsetDateTime::now_utc();
        let (code, v) = call(
            reqwest::Method::POST,
            "/v1/facturas".into(),
            Some(json!({
                "tipo_documento": 1,
                "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
                "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
                "condicion_pago": 1
            })),
        )
        .await;
        let after = OffsetDateTime::now_utc();
        assert_eq!(code, 201, "{v}");
        // Dated by the clock of its moment: never beyond the jump, so far inside SIFEN's 120 h. The server read its
        // clock between `before` and `after`, shifted by at most the jump (the date has whole seconds).
        let fecha = PrimitiveDateTime::parse(
            v["data"]["fecha_emision"].as_str().unwrap(),
            time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]"),
        )
        .unwrap()
        .assume_offset(paraguay);
        let (earliest, latest) = (
            before.unix_timestamp() - HOUR - 1,
            after.unix_timestamp() + HOUR,
        );
        assert!(
            (earliest..=latest).contains(&fecha.unix_timestamp()),
            "dated {fecha}, outside [{earliest}, {latest}] (real time ± the jump)"
        );
        ids.insert(v["data"]["id"].as_str().unwrap().to_string());
        tokio::time::sleep(Duration::from_millis(70)).await;
    }
    // Then the clock stays an hour behind: invoices and events stamped up to two hours "later" must not wait for it.
    jumper.abort();
    let _ = jumper.await;
    offset.store(-HOUR, Ordering::SeqCst);

    // Every invoice is approved by the simulated SIFEN and its approval delivered, signed.
    let deadline = Instant::now() + HANG_GUARD;
    let mut delivered: BTreeMap<String, i64> = BTreeMap::new();
    while delivered.len() < ids.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Some((sig, body))) = tokio::time::timeout(left, events.recv()).await else {
            panic!(
                "only {} of {} approvals delivered; missing {:?}",
                delivered.len(),
                ids.len(),
                ids.iter()
                    .filter(|i| !delivered.contains_key(*i))
                    .collect::<Vec<_>>()
            );
        };
        let t: i64 = sig
            .split(',')
            .find_map(|p| p.strip_prefix("t="))
            .unwrap()
            .parse()
            .unwrap();
        // The signature is valid for the time it names (the server's clock of that moment).
        verify_signature(&secret, &sig, &body, t, 0).expect("valid signature");
        let ev: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(ev["type"], "factura.approved");
        let id = ev["data"]["id"].as_str().unwrap().to_string();
        assert!(ids.contains(&id), "{id}");
        delivered.insert(id, t - OffsetDateTime::now_utc().unix_timestamp());
    }
    for id in &ids {
        let (code, v) = call(reqwest::Method::GET, format!("/v1/facturas/{id}"), None).await;
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["data"]["status"], "approved", "{v}");
    }
    eprintln!("signature timestamps relative to real time (s): {delivered:?}");
    guarded("the shutdown", server.shutdown()).await;
}

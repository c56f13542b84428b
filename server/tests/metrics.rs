//! `GET /metrics` of a running server (docs/operations.md, "Metrics"): served on its own listener only (and behind
//! a token when one is set), a storage fault's 503 counted under its fault and its route, the stored figures read
//! at the scrape from a read connection, so a scrape works while the writer fails. scripts/metrics-check.sh checks
//! the rest of the figures against a real `kuatia serve` with the Prometheus project's own parser, on SQLite and
//! PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, Api};
use common::{metric as sample, scrape_metrics as scrape, temp_dir};
use kuatia_server::faults::{FaultPlan, Injected};
use kuatia_server::{start, RunningServer, ServerConfig};

/// Sets (or with `None` ends) the fault plan of the server's SQLite store.
fn inject(server: &RunningServer, plan: Option<FaultPlan>) {
    server.with_engine(|e| {
        e.service
            .store
            .as_sqlite()
            .expect("SQLite")
            .inject_faults(plan);
    });
}

#[test]
fn metrics_are_off_unless_asked_for() {
    assert_eq!(ServerConfig::new("data".into()).metrics_addr, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storage_fault_is_counted_under_its_fault_and_its_route() {
    let dir = temp_dir("metrics-faults");
    let mut c = config(&dir);
    // Nothing moves by itself: the invoice stays pending.
    c.sandbox_send_after = 3600;
    c.metrics_addr = Some("127.0.0.1:0".parse().unwrap());
    let server = start(c).await.unwrap();
    let api = Api::sandbox(&server);

    // The public listener does not serve the metrics.
    let (status, _) = api.get("/metrics").await;
    assert_eq!(status, 404);

    let (status, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(status, 201, "{v}");
    // The disk is full from the next store call on: the create is refused 503.
    inject(&server, Some(FaultPlan::from_call(1, Injected::Full)));
    let (status, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(status, 503, "{v}");

    // The scrape reads the store from a read connection beside the writer: it works while the writer fails.
    let during = scrape(&server).await;
    assert!(
        during.contains("kuatia_storage_faults_total{fault=\"full\"} 1\n"),
        "{during}"
    );
    assert_eq!(
        sample(&during, "kuatia_metrics_store_failures_total"),
        Some(0.0),
        "{during}"
    );
    assert_eq!(
        sample(
            &during,
            "kuatia_invoices{environment=\"sandbox\",state=\"pending\"}"
        ),
        Some(1.0)
    );
    inject(&server, None);

    let text = scrape(&server).await;
    let expected = [
        ("kuatia_storage_faults_total{fault=\"full\"}", 1.0),
        ("kuatia_storage_faults_total{fault=\"busy\"}", 0.0),
        (
            "kuatia_http_requests_total{method=\"POST\",route=\"/v1/facturas\",status=\"503\"}",
            1.0,
        ),
        (
            "kuatia_http_requests_total{method=\"POST\",route=\"/v1/facturas\",status=\"201\"}",
            1.0,
        ),
        (
            "kuatia_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"}",
            1.0,
        ),
        (
            "kuatia_http_request_duration_seconds_count{method=\"POST\",route=\"/v1/facturas\",status=\"503\"}",
            1.0,
        ),
        (
            "kuatia_invoices{environment=\"sandbox\",state=\"pending\"}",
            1.0,
        ),
        ("kuatia_metrics_store_failures_total", 0.0),
        ("kuatia_signing_queue_depth", 0.0),
    ];
    for (series, want) in expected {
        assert_eq!(sample(&text, series), Some(want), "{series} in\n{text}");
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_a_scrape_without_it_is_refused() {
    let dir = temp_dir("metrics-token");
    let mut c = config(&dir);
    c.metrics_addr = Some("127.0.0.1:0".parse().unwrap());
    c.metrics_token = Some("s3cret-scrape-token".into());
    let server = start(c).await.unwrap();
    let url = format!("http://{}/metrics", server.metrics_addr.unwrap());
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    for given in [None, Some("Bearer wrong"), Some("s3cret-scrape-token")] {
        let mut r = http.get(&url);
        if let Some(v) = given {
            r = r.header("Authorization", v);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), 401, "{given:?}");
        assert_eq!(r.headers()["www-authenticate"], "Bearer");
        assert!(!r.text().await.unwrap().contains("kuatia_"));
    }
    let r = http
        .get(&url)
        .header("Authorization", "Bearer s3cret-scrape-token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("kuatia_signing_queue_depth 0\n"));
    server.shutdown().await;
}

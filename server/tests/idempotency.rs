//! Issue 33, idempotency keys over time (docs/operations.md, "Idempotency keys"): inside the replay window a retry
//! gets the first answer byte for byte; the server's tick then drops the stored answer (the key, its request's hash
//! and its invoice stay), and a retry after it gets the invoice as it is now, with the first answer's status and
//! `Idempotent-Replayed`, and creates nothing; another body under the key is still a conflict. The same on SQLite and
//! on PostgreSQL (`bash scripts/pg-test.sh cargo test -p kuatia-server --test idempotency`). A real server on a
//! loopback port, a real HTTP client, the server's clock moved forward by the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, Api};
use common::{temp_dir, wait_for};
use kuatia_server::pg::PgOptions;
use kuatia_server::{start, Clock, ServerConfig};
use kuatia_service::auth::Environment;
use kuatia_service::{IdempotentReply, Store, DEFAULT_IDEMPOTENCY_WINDOW};
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;

/// The server's clock: the system's, `offset` seconds ahead.
fn clock(offset: &Arc<AtomicI64>) -> Clock {
    let o = offset.clone();
    Clock::from_fn(move || {
        OffsetDateTime::now_utc() + time::Duration::seconds(o.load(Ordering::SeqCst))
    })
}

/// One keyed create: status, `Idempotent-Replayed`, the body's bytes.
async fn create(api: &Api, key: &str, body: &Value) -> (u16, bool, Vec<u8>) {
    let r = api
        .send(
            Method::POST,
            "/v1/facturas",
            Some(body),
            &[("Idempotency-Key", key)],
        )
        .await;
    let replayed = r
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_string());
    let status = r.status().as_u16();
    let body = r.bytes().await.unwrap().to_vec();
    assert!(
        matches!(replayed.as_deref(), None | Some("true")),
        "{replayed:?}"
    );
    (status, replayed.is_some(), body)
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

/// The scenario, on the store `c` names.
async fn a_key_outlives_its_stored_answer(mut c: ServerConfig) {
    let offset = Arc::new(AtomicI64::new(0));
    c.clock = clock(&offset);
    let server = start(c).await.unwrap();
    let api = Api::sandbox(&server);
    let account = server.account_id.clone();
    // The store as the server keeps it (PostgreSQL's client blocks: not on an async worker's turn).
    let kept = |key: &'static str| {
        tokio::task::block_in_place(|| {
            server.with_engine(|e| {
                e.service
                    .store
                    .idempotent(&account, Environment::Sandbox, key)
            })
        })
    };
    let body = factura(None);

    let (status, replayed, first) = create(&api, "window-1", &body).await;
    assert_eq!(
        (status, replayed),
        (201, false),
        "{}",
        String::from_utf8_lossy(&first)
    );
    let id = json_of(&first)["data"]["id"].as_str().unwrap().to_string();
    // A refusal that depends only on the body is kept for the window too.
    let bad = json!({"tipo_documento": "uno"});
    let (bad_status, _, bad_first) = create(&api, "window-bad", &bad).await;
    assert_eq!(bad_status, 422, "{}", String::from_utf8_lossy(&bad_first));

    // Inside the window: the first answer, byte for byte, though the simulated SIFEN approved the invoice meanwhile.
    let approved = wait_for("the invoice is approved", || async {
        let (_, v) = api
            .call(Method::GET, &format!("/v1/facturas/{id}"), None)
            .await;
        (v["data"]["status"] == "approved")
            .then_some(v.clone())
            .ok_or_else(|| v.to_string())
    })
    .await;
    assert_eq!(json_of(&first)["data"]["status"], "pending");
    let (status, replayed, inside) = create(&api, "window-1", &body).await;
    assert_eq!((status, replayed), (201, true));
    assert_eq!(
        inside, first,
        "a replay inside the window is the first answer byte for byte"
    );
    let (status, replayed, bad_again) = create(&api, "window-bad", &bad).await;
    // The stored refusal comes back as it was; only the error body's `request_id` names this retry, not the first try
    // (the host writes it into every error answer it sends).
    let without_request_id = |bytes: &[u8]| {
        let mut v = json_of(bytes);
        let id = v["error"]
            .as_object_mut()
            .and_then(|e| e.remove("request_id"));
        assert!(
            id.is_some(),
            "kuatia serve names the request in an error body"
        );
        v
    };
    assert_eq!((status, replayed), (422, true));
    assert_eq!(
        without_request_id(&bad_again),
        without_request_id(&bad_first)
    );
    let (status, _, conflict) = create(&api, "window-1", &factura(Some("approved"))).await;
    assert_eq!(
        (status, &json_of(&conflict)["error"]["code"]),
        (409, &json!("IDEMPOTENCY_CONFLICT"))
    );
    assert!(kept("window-1").unwrap().response.is_some());

    // A window and a minute later, the tick's sweep drops the stored answer and forgets the refusal.
    offset.store(DEFAULT_IDEMPOTENCY_WINDOW + 60, Ordering::SeqCst);
    let swept: IdempotentReply = wait_for("the sweep drops the stored answer", || async {
        match kept("window-1") {
            Some(k) if k.response.is_none() => Ok(k),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(
        (swept.status, swept.invoice_id.as_deref()),
        (201, Some(id.as_str()))
    );
    assert!(swept.body_hash.starts_with("c1:"), "{}", swept.body_hash);
    wait_for("the sweep forgets the refusal", || async {
        kept("window-bad").map_or(Ok(()), |k| Err(format!("{k:?}")))
    })
    .await;

    // Years later: the invoice as it is now, the first status, replayed; nothing created.
    offset.store(10 * 365 * 86_400, Ordering::SeqCst);
    let (status, replayed, later) = create(&api, "window-1", &body).await;
    assert_eq!(
        (status, replayed),
        (201, true),
        "{}",
        String::from_utf8_lossy(&later)
    );
    assert_eq!(
        json_of(&later),
        approved,
        "the replay is the invoice as GET reads it"
    );
    let (_, list) = api.call(Method::GET, "/v1/facturas", None).await;
    assert_eq!(
        list["meta"]["total"], 1,
        "a replay after the window created a second invoice"
    );
    let (status, _, conflict) = create(&api, "window-1", &factura(Some("approved"))).await;
    assert_eq!(
        (status, &json_of(&conflict)["error"]["code"]),
        (409, &json!("IDEMPOTENCY_CONFLICT"))
    );
    // The refusal's key is free: the same body is evaluated again (not a replay).
    let (status, replayed, _) = create(&api, "window-bad", &bad).await;
    assert_eq!((status, replayed), (422, false));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_a_key_outlives_its_stored_answer() {
    let dir = temp_dir("idem-window");
    a_key_outlives_its_stored_answer(config(&dir)).await;
}

/// The same on PostgreSQL (run under `scripts/pg-test.sh`: fails, never skips, without it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_key_outlives_its_stored_answer() {
    let dir = temp_dir("idem-window-pg");
    let mut c = config(&dir);
    c.database = Some(PgOptions {
        url: tokio::task::spawn_blocking(fresh_database).await.unwrap(),
        statement_timeout: Some(Duration::from_secs(20)),
        node_id: "idem".into(),
        ca_file: std::env::var_os("KUATIA_TEST_DATABASE_CA").map(Into::into),
    });
    a_key_outlives_its_stored_answer(c).await;
}

/// A new, empty database on the test server (`scripts/pg-test.sh`); its URL.
fn fresh_database() -> String {
    let url = std::env::var("KUATIA_TEST_DATABASE_URL").unwrap_or_else(|_| {
        panic!(
            "KUATIA_TEST_DATABASE_URL is not set: run with \
             `bash scripts/pg-test.sh cargo test -p kuatia-server --test idempotency`"
        )
    });
    let name = format!("kuatia_idem_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    format!("{}/{name}", url.rsplit_once('/').unwrap().0)
}

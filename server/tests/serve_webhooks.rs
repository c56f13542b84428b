//! `kuatia serve` end to end, webhooks: signed deliveries to a real receiver on loopback, isolation from an endpoint
//! that does not answer, the delivery log, SSRF refusals, secret rotation, redelivery, deletion and the grace period.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, register_webhook, Api};
use common::{guarded, next_event, receiver, temp_dir, HANG_GUARD};
use kuatia_server::start;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulate_approved_and_signed_webhook() {
    let dir = temp_dir("webhook");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let (port, mut rx) = receiver().await;
    let secret = register_webhook(&api, port).await;

    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    assert_eq!(v["data"]["status"], "approved");
    let cdc = v["data"]["cdc"].as_str().unwrap();
    assert!(cdc.len() == 44 && cdc.bytes().all(|b| b.is_ascii_digit()));

    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["type"], "factura.approved");
    assert_eq!(event["data"]["id"], v["data"]["id"]);
    assert_eq!(event["data"]["status"], "approved");
    assert_eq!(event["data"]["cdc"], cdc);

    // A rejection through the simulated SIFEN reaches the receiver too, with its reasons on the invoice.
    let mut rejected = factura(None);
    rejected["receptor"]["ruc"] = json!("88888801-5");
    let (code, v) = api.post("/v1/facturas", &rejected).await;
    assert_eq!(code, 201, "{v}");
    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["type"], "factura.rejected");
    let id = v["data"]["id"].as_str().unwrap();
    let inv = api.wait_status(id, "rejected").await;
    assert!(!inv["sifen_errors"].as_array().unwrap().is_empty());
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16, webhooks: a receiver that does not answer does not hold back another endpoint's deliveries; each attempt
/// is logged with its HTTP status and duration; URLs naming inside addresses are refused (SSRF).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_isolation_log_and_ssrf() {
    let dir = temp_dir("wh-iso");
    let mut c = config(&dir);
    // Longer than the hang guard: were the fast endpoint's deliveries queued behind the held one, they would wait
    // for this timeout and the test would fail on the guard instead of passing late.
    c.webhook_timeout = 5 * HANG_GUARD;
    let server = start(c).await.unwrap();
    let api = Api::sandbox(&server);
    let (slow_port, mut slow_arrivals, slow) = common::held_receiver().await;
    let (_, slow_hook) = api
        .post(
            "/v1/webhooks",
            &json!({"url": format!("https://127.0.0.1:{slow_port}/hook"), "events": ["factura.approved"]}),
        )
        .await;
    let (fast_port, mut rx) = receiver().await;
    let secret = register_webhook(&api, fast_port).await;

    // Two events in a row: the held endpoint has the first and does not answer; the fast one gets each meanwhile.
    for round in 0..2 {
        let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
        assert_eq!(code, 201, "{v}");
        if round == 0 {
            guarded("the held endpoint's first request", slow_arrivals.recv()).await;
        }
        let event = next_event(&mut rx, &secret).await;
        assert_eq!(event["data"]["id"], v["data"]["id"]);
    }

    // The fast endpoint's log: one attempt per delivery, with the receiver's status and a duration, while the held
    // endpoint's first delivery is still unanswered.
    let (list_code, hooks) = api.get("/v1/webhooks").await;
    assert_eq!(list_code, 200);
    let fast_id = hooks["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] != slow_hook["data"]["id"])
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let delivered = |log: &Value| {
        log["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["status"] == "delivered")
            .count()
    };
    let log = api
        .wait_deliveries(&fast_id, "both fast deliveries logged", |log| {
            delivered(log) == 2
        })
        .await;
    for d in log["data"].as_array().unwrap() {
        let attempt = &d["log"][0];
        assert_eq!(attempt["status"], 200, "{d}");
        assert!(attempt["error"].is_null(), "{d}");
        assert!(attempt["duration_ms"].is_u64(), "{d}");
    }
    let slow_id = slow_hook["data"]["id"].as_str().unwrap();
    let (_, held) = api.get(&format!("/v1/webhooks/{slow_id}/deliveries")).await;
    assert_eq!(delivered(&held), 0, "the held endpoint answered: {held}");

    // Released, the held endpoint's deliveries complete too.
    slow.release();
    api.wait_deliveries(slow_id, "the held endpoint's deliveries", |log| {
        delivered(log) == 2
    })
    .await;
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);

    // SSRF: without --allow-private-webhooks, loopback, private and localhost URLs are refused at registration.
    let dir = temp_dir("ssrf");
    let mut c = config(&dir);
    c.allow_private_webhooks = false;
    let server = start(c).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    for url in [
        "https://127.0.0.1/hook",
        "https://10.0.0.1/hook",
        "https://localhost:8443/hook",
        "https://[::1]/hook",
        "https://169.254.169.254/latest",
        "https://192.168.1.10/hook",
    ] {
        let (code, v) = api
            .post(
                "/v1/webhooks",
                &json!({"url": url, "events": ["factura.approved"]}),
            )
            .await;
        assert_eq!(code, 422, "{url}: {v}");
        assert_eq!(v["error"]["code"], "WEBHOOK_URL_NOT_ALLOWED", "{url}");
        assert_eq!(v["error"]["details"][0]["path"], "url");
    }
    let (code, v) = api
        .post(
            "/v1/webhooks",
            &json!({"url": "https://erp.example.com/hook", "events": ["factura.approved"]}),
        )
        .await;
    assert_eq!(code, 201, "{v}");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_rotate_redeliver_delete() {
    let dir = temp_dir("wh-manage");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let (port, mut rx) = receiver().await;
    let old = register_webhook(&api, port).await;
    let (_, hooks) = api.get("/v1/webhooks").await;
    let id = hooks["data"][0]["id"].as_str().unwrap().to_string();
    let (code, got) = api.get(&format!("/v1/webhooks/{id}")).await;
    assert_eq!(code, 200, "{got}");
    assert!(got["data"].get("secret").is_none());

    // After a rotation each delivery carries two signatures: receivers on either secret accept it.
    let (code, rotated) = api
        .post(&format!("/v1/webhooks/{id}/rotate"), &json!({}))
        .await;
    assert_eq!(code, 200, "{rotated}");
    let new = rotated["data"]["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let (sig, body) = guarded("the delivery after the rotation", rx.recv())
        .await
        .unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    for s in [&old, &new] {
        kuatia_service::webhook::verify_signature(s, &sig, &body, now, 300).unwrap();
    }
    let event: Value = serde_json::from_str(&body).unwrap();

    // A manual redelivery: the same event id arrives again, as a new delivery in the log.
    let log = api
        .wait_deliveries(&id, "the first delivery logged as delivered", |log| {
            log["data"][0]["status"] == "delivered"
        })
        .await;
    let first = log["data"][0]["id"].as_str().unwrap().to_string();
    let (code, again) = api
        .post(
            &format!("/v1/webhooks/{id}/deliveries/{first}/redeliver"),
            &json!({}),
        )
        .await;
    assert_eq!(code, 202, "{again}");
    let replayed = next_event(&mut rx, &new).await;
    assert_eq!(replayed["id"], event["id"]);
    let (_, log) = api.get(&format!("/v1/webhooks/{id}/deliveries")).await;
    assert_eq!(log["meta"]["total"], 2, "{log}");

    // Deleted: no more deliveries, and the routes answer 404 — but its delivery log stays readable (issue 34).
    let r = api
        .send(
            reqwest::Method::DELETE,
            &format!("/v1/webhooks/{id}"),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status().as_u16(), 200);
    // A webhook still registered is the witness: once it has the next event, the deleted one's delivery (which
    // would be queued with it) is known not to exist.
    let (witness_port, mut witness) = receiver().await;
    let witness_secret = register_webhook(&api, witness_port).await;
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201);
    let seen = next_event(&mut witness, &witness_secret).await;
    assert_eq!(seen["data"]["id"], v["data"]["id"]);
    assert!(
        rx.try_recv().is_err(),
        "a deleted webhook still received an event"
    );
    assert_eq!(api.get(&format!("/v1/webhooks/{id}")).await.0, 404);
    let (code, log) = api.get(&format!("/v1/webhooks/{id}/deliveries")).await;
    assert_eq!((code, &log["meta"]["total"]), (200, &json!(2)), "{log}");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--webhook-secret-grace`: the operator's grace period reaches the core. With 0 the old secret stops at once (one
/// signature per delivery, the new secret's); with an hour both sign until `previous_secret_expires_at`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_secret_grace_is_the_operators() {
    for grace in [0i64, 3600] {
        let dir = temp_dir(&format!("wh-grace-{grace}"));
        let mut c = config(&dir);
        c.webhook_secret_grace = grace;
        let server = start(c).await.unwrap();
        let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
        let (port, mut rx) = receiver().await;
        let old = register_webhook(&api, port).await;
        let (_, hooks) = api.get("/v1/webhooks").await;
        let id = hooks["data"][0]["id"].as_str().unwrap().to_string();
        let before = time::OffsetDateTime::now_utc().unix_timestamp();
        let (code, rotated) = api
            .post(&format!("/v1/webhooks/{id}/rotate"), &json!({}))
            .await;
        assert_eq!(code, 200, "{rotated}");
        let after = time::OffsetDateTime::now_utc().unix_timestamp();
        let new = rotated["data"]["secret"].as_str().unwrap().to_string();
        let (_, got) = api.get(&format!("/v1/webhooks/{id}")).await;
        let expires = &got["data"]["previous_secret_expires_at"];
        if grace == 0 {
            assert!(expires.is_null(), "{got}");
        } else {
            let t = time::OffsetDateTime::parse(
                expires.as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap()
            .unix_timestamp();
            // The server read its clock between `before` and `after`: no tolerance to guess.
            assert!((before + grace..=after + grace).contains(&t), "{got}");
        }
        let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
        assert_eq!(code, 201, "{v}");
        let (sig, body) = guarded("a delivery", rx.recv()).await.unwrap();
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        kuatia_service::webhook::verify_signature(&new, &sig, &body, now, 300).unwrap();
        let old_ok = kuatia_service::webhook::verify_signature(&old, &sig, &body, now, 300).is_ok();
        assert_eq!(old_ok, grace > 0, "grace {grace}: {sig}");
        server.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

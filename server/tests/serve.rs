//! `kuatia serve` end to end: a real server on a loopback port, a real HTTP client, a real webhook receiver.
//! Flows of the spec, error statuses, durability across a restart, and a bounded load test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{next_event, receiver, temp_dir};
use kuatia_core::api::auth::Environment;
use kuatia_server::{start, RunningServer, ServerConfig};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn config(dir: &std::path::Path) -> ServerConfig {
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.sandbox_send_after = 1;
    c.sandbox_answer_after = 2;
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.webhook_timeout = Duration::from_secs(2);
    c.insecure_webhooks_http = true;
    c
}

struct Api {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    fn new(server: &RunningServer, key: &str) -> Api {
        Api {
            http: reqwest::Client::new(),
            base: format!("http://{}", server.addr),
            key: key.to_string(),
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {}", self.key))
            .header("X-Environment", "sandbox");
        for (k, v) in extra {
            r = r.header(*k, *v);
        }
        if let Some(b) = body {
            r = r
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        r.send().await.unwrap()
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .send(reqwest::Method::POST, path, Some(body), &[])
            .await;
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.send(reqwest::Method::GET, path, None, &[]).await;
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    async fn wait_status(&self, id: &str, want: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let (code, v) = self.get(&format!("/v1/facturas/{id}")).await;
            assert_eq!(code, 200, "{v}");
            if v["data"]["status"] == want {
                return v["data"].clone();
            }
            assert!(Instant::now() < deadline, "{id} never became {want}: {v}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn factura(simulate: Option<&str>) -> Value {
    let mut v = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    if let Some(s) = simulate {
        v["_simulate"] = json!(s);
    }
    v
}

async fn register_webhook(api: &Api, port: u16) -> String {
    let (code, v) = api
        .post(
            "/v1/webhooks",
            &json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved", "factura.rejected"]}),
        )
        .await;
    assert_eq!(code, 201, "{v}");
    v["data"]["secret"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_poll_approve_download_kude() {
    let dir = temp_dir("flow");
    let server = start(config(&dir)).await.unwrap();
    let key = server
        .new_sandbox_key
        .clone()
        .expect("first start prints a key");
    assert!(key.starts_with("dk_test_"));
    let api = Api::new(&server, &key);

    let (code, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(code, 201, "{v}");
    let inv = &v["data"];
    assert_eq!(inv["status"], "pending");
    let id = inv["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("fact_"));
    assert_eq!(inv["cdc"].as_str().unwrap().len(), 44);
    assert_eq!(
        inv["kude_url"],
        format!("http://{}/v1/facturas/{id}/kude", server.addr)
    );
    let numero = inv["numero"].as_str().unwrap();
    assert_eq!(numero.len(), 15, "{numero}");

    // The KuDE is refused until the simulated SIFEN approves.
    let early = api
        .send(
            reqwest::Method::GET,
            &format!("/v1/facturas/{id}/kude"),
            None,
            &[],
        )
        .await;
    assert_eq!(early.status().as_u16(), 409);

    let approved = api.wait_status(&id, "approved").await;
    assert!(approved["protocolo"].as_str().unwrap().starts_with("SBX"));

    let kude = api
        .send(
            reqwest::Method::GET,
            &format!("/v1/facturas/{id}/kude"),
            None,
            &[],
        )
        .await;
    assert_eq!(kude.status().as_u16(), 200);
    assert_eq!(
        kude.headers()["content-type"].to_str().unwrap(),
        "application/pdf"
    );
    let pdf = kude.bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "not a PDF");
    assert!(pdf.len() > 1000);

    let (code, list) = api.get("/v1/facturas").await;
    assert_eq!(code, 200);
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["data"][0]["id"], id.as_str());

    let (code, health) = api.get("/v1/health").await;
    assert_eq!((code, &health["data"]["status"]), (200, &json!("ok")));
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_and_validation_errors() {
    let dir = temp_dir("errors");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let http = reqwest::Client::new();
    let url = format!("http://{}/v1/facturas", server.addr);

    let r = http.get(&url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["ok"], false);

    // Right shape, wrong secret.
    let mut wrong = key.clone();
    let last = if wrong.ends_with('a') { "b" } else { "a" };
    wrong.pop();
    wrong.push_str(last);
    let r = http
        .get(&url)
        .bearer_auth(&wrong)
        .header("X-Environment", "sandbox")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    let api = Api::new(&server, &key);
    // Invalid RUC check digit: 422 with the core's code and findings.
    let mut bad = factura(None);
    bad["receptor"]["ruc"] = json!("80069563-9");
    let (code, v) = api.post("/v1/facturas", &bad).await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"]["code"], "INVALID_RUC");
    assert!(!v["error"]["details"].as_array().unwrap().is_empty());

    // No stamp for this document type: INVALID_TIMBRADO.
    let mut other = factura(None);
    other["tipo_documento"] = json!(7);
    let (code, v) = api.post("/v1/facturas", &other).await;
    assert_eq!(code, 422, "{v}");

    // Body over the limit: refused by the host before the core sees it.
    let big = "x".repeat(2 * 1024 * 1024);
    let r = api
        .http
        .post(&url)
        .bearer_auth(&key)
        .header("X-Environment", "sandbox")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);

    let (code, v) = api.get("/v1/nothing").await;
    assert_eq!(code, 404, "{v}");
    let (code, v) = api.get("/v1/facturas/fact_unknown").await;
    assert_eq!(code, 404, "{v}");
    let (code, list) = api.get("/v1/facturas").await;
    assert_eq!((code, &list["meta"]["total"]), (200, &json!(0)), "{list}");

    // A production key made offline is accepted by auth but the account has no production profile yet.
    server.shutdown().await;
    let live = kuatia_server::create_key(dir.clone(), Environment::Production).unwrap();
    assert!(live.starts_with("dk_live_"));
    let server = start(config(&dir)).await.unwrap();
    assert!(server.new_sandbox_key.is_none());
    let r = reqwest::Client::new()
        .post(format!("http://{}/v1/facturas", server.addr))
        .bearer_auth(&live)
        .body(factura(None).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 422);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "PRODUCTION_NOT_CONFIGURED");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_loses_nothing() {
    let dir = temp_dir("restart");
    let (port, mut rx) = receiver().await;

    // First life: webhooks are queued but not delivered, invoices are mid-flight when it stops.
    let mut first = config(&dir);
    first.deliver_webhooks = false;
    first.sandbox_send_after = 1;
    first.sandbox_answer_after = 3;
    let server = start(first).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);
    let secret = register_webhook(&api, port).await;
    let (_, approved) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    let (_, pending) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(pending["data"]["status"], "pending");
    let approved_id = approved["data"]["id"].as_str().unwrap().to_string();
    let pending_id = pending["data"]["id"].as_str().unwrap().to_string();
    let first_numero = pending["data"]["numero"].as_str().unwrap().to_string();
    let idem = [("Idempotency-Key", "restart-1")];
    let r = api
        .send(
            reqwest::Method::POST,
            "/v1/facturas",
            Some(&factura(Some("approved"))),
            &idem,
        )
        .await;
    let replayed: Value = r.json().await.unwrap();
    server.shutdown().await;
    assert!(
        rx.try_recv().is_err(),
        "nothing delivered in the first life"
    );

    // Second life on the same data directory.
    let server = start(config(&dir)).await.unwrap();
    assert!(
        server.new_sandbox_key.is_none(),
        "the key is shown only once"
    );
    let api = Api::new(&server, &key);
    let (code, list) = api.get("/v1/facturas").await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["meta"]["total"], 3);

    // The queued factura.approved goes out after the restart, and the in-flight invoice finishes its course.
    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["type"], "factura.approved");
    let mut seen = HashSet::from([event["data"]["id"].as_str().unwrap().to_string()]);
    let event = next_event(&mut rx, &secret).await;
    seen.insert(event["data"]["id"].as_str().unwrap().to_string());
    assert!(seen.contains(&approved_id), "{seen:?}");
    api.wait_status(&pending_id, "approved").await;
    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["data"]["id"], pending_id.as_str());

    // Idempotency and numbering survive too.
    let r = api
        .send(
            reqwest::Method::POST,
            "/v1/facturas",
            Some(&factura(Some("approved"))),
            &idem,
        )
        .await;
    let again: Value = r.json().await.unwrap();
    assert_eq!(again["data"]["id"], replayed["data"]["id"]);
    let (_, next) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert!(next["data"]["numero"].as_str().unwrap() > first_numero.as_str());
    let (_, list) = api.get("/v1/facturas").await;
    assert_eq!(list["meta"]["total"], 4);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_concurrent_idempotent_creates() {
    let total: usize = std::env::var("KUATIA_LOAD_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let clients = 32;
    let dir = temp_dir("load");
    let mut c = config(&dir);
    // The core's default timings: invoices stay in flight for seconds, as in real use.
    c.sandbox_send_after = 2;
    c.sandbox_answer_after = 5;
    c.tick_interval = Duration::from_millis(500);
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let base = format!("http://{}", server.addr);
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (key, base, next) = (key.clone(), base.clone(), next.clone());
        let simulate = std::env::var("KUATIA_LOAD_SIMULATE").ok();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let mut body = factura(simulate.as_deref());
                body["items"][0]["descripcion"] = json!(format!("Servicio {i}"));
                let t = Instant::now();
                let r = http
                    .post(format!("{base}/v1/facturas"))
                    .bearer_auth(&key)
                    .header("X-Environment", "sandbox")
                    .header("Idempotency-Key", format!("load-{i}"))
                    .body(body.to_string())
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let v: Value = r.json().await.unwrap();
                out.push((
                    i,
                    status,
                    v["data"]["id"].as_str().unwrap_or_default().to_string(),
                    t.elapsed(),
                ));
            }
            out
        }));
    }
    let mut results = Vec::new();
    for t in tasks {
        results.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed();
    assert_eq!(results.len(), total);
    assert!(results.iter().all(|r| r.1 == 201), "every create succeeds");
    let mut lat: Vec<Duration> = results.iter().map(|r| r.3).collect();
    lat.sort();
    let pct = |p: usize| lat[(lat.len() * p / 100).min(lat.len() - 1)];
    println!(
        "load: {total} creates, {clients} clients, {:.1} s, {:.0} req/s, p50 {:.1} ms, p99 {:.1} ms",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        pct(50).as_secs_f64() * 1e3,
        pct(99).as_secs_f64() * 1e3
    );
    assert!(elapsed < Duration::from_secs(60));

    // Replays with the same keys return the same invoices, creating nothing.
    let api = Api::new(&server, &key);
    for (i, _, id, _) in results.iter().take(50) {
        let mut body = factura(None);
        body["items"][0]["descripcion"] = json!(format!("Servicio {i}"));
        let key = format!("load-{i}");
        let r = api
            .send(
                reqwest::Method::POST,
                "/v1/facturas",
                Some(&body),
                &[("Idempotency-Key", &key)],
            )
            .await;
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["data"]["id"], id.as_str());
    }

    // Nothing lost, nothing duplicated: every id and every document number once.
    let mut ids = HashSet::new();
    let mut numeros = HashSet::new();
    let mut page = 1;
    loop {
        let (code, v) = api
            .get(&format!("/v1/facturas?per_page=100&page={page}"))
            .await;
        assert_eq!(code, 200);
        assert_eq!(v["meta"]["total"], total);
        let data = v["data"].as_array().unwrap();
        if data.is_empty() {
            break;
        }
        for inv in data {
            assert!(ids.insert(inv["id"].as_str().unwrap().to_string()));
            assert!(numeros.insert(inv["numero"].as_str().unwrap().to_string()));
        }
        page += 1;
    }
    assert_eq!(ids.len(), total);
    let created: HashSet<String> = results.into_iter().map(|r| r.2).collect();
    assert_eq!(created, ids);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 14's failures over real HTTP: a RUC without '-', a missing field's path, `_simulate` with an establishment
/// that has no stamp, an idempotency key reused across environments; and the numbering gaps route.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_rule_per_decision_over_http() {
    let dir = temp_dir("one-rule");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);

    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("80069568");
    let (code, v) = api.post("/v1/facturas", &body).await;
    assert_eq!(
        (code, v["error"]["code"].clone()),
        (422, json!("INVALID_RUC")),
        "{v}"
    );
    assert_eq!(v["error"]["details"][0]["path"], json!("receptor.ruc"));

    let mut body = factura(None);
    body["receptor"]
        .as_object_mut()
        .unwrap()
        .remove("razon_social");
    let (code, v) = api.post("/v1/facturas", &body).await;
    assert_eq!(code, 422, "{v}");
    assert_eq!(
        (
            v["error"]["details"][0]["code"].clone(),
            v["error"]["details"][0]["path"].clone()
        ),
        (
            json!("VALIDATION_ERROR.REQUIRED"),
            json!("receptor.razon_social")
        )
    );

    let mut body = factura(Some("approved"));
    body["establecimiento"] = json!("002");
    let (code, v) = api.post("/v1/facturas", &body).await;
    assert_eq!(
        (code, v["error"]["code"].clone()),
        (422, json!("INVALID_TIMBRADO")),
        "{v}"
    );

    let r = api
        .send(
            reqwest::Method::POST,
            "/v1/facturas",
            Some(&factura(None)),
            &[("Idempotency-Key", "order-9")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let sandbox: Value = r.json().await.unwrap();
    // The same key with a live key is a production request: never the sandbox invoice.
    let live = kuatia_server::create_key(dir.clone(), Environment::Production).unwrap();
    let r = reqwest::Client::new()
        .post(format!("http://{}/v1/facturas", server.addr))
        .bearer_auth(&live)
        .header("Idempotency-Key", "order-9")
        .header("Content-Type", "application/json")
        .body(factura(None).to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (422, json!("PRODUCTION_NOT_CONFIGURED")),
        "{v}"
    );
    assert_ne!(v["data"]["id"], sandbox["data"]["id"]);

    let (code, v) = api.get("/v1/numbering/gaps").await;
    assert_eq!((code, v["data"].clone()), (200, json!([])), "{v}");
    server.shutdown().await;
}

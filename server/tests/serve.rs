//! `kuatia serve` end to end: a real server on a loopback port, a real HTTP client, a real webhook receiver.
//! Flows of the spec, error statuses, durability across a restart, and a bounded load test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{next_event, receiver, temp_dir};
use kuatia_server::{start, RunningServer, ServerConfig};
use kuatia_service::auth::Environment;
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
    c.allow_private_webhooks = true;
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
    // The server answers 413 from Content-Length and closes; a client still writing the body may see the close first
    // (broken pipe / reset) instead of the answer — both mean the body was refused unread.
    let big = "x".repeat(2 * 1024 * 1024);
    let r = api
        .http
        .post(&url)
        .bearer_auth(&key)
        .header("X-Environment", "sandbox")
        .body(big)
        .send()
        .await;
    match r {
        Ok(r) => assert_eq!(r.status().as_u16(), 413),
        Err(e) => {
            let text = format!("{e:?}");
            assert!(
                text.contains("BrokenPipe") || text.contains("ConnectionReset"),
                "{text}"
            );
        }
    }

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
    // A lookup in a new process (nothing cached) reads the document's parts from the stored XML, as created.
    let (code, got) = api.get(&format!("/v1/facturas/{approved_id}")).await;
    assert_eq!(code, 200, "{got}");
    for part in ["items", "totales", "receptor", "condicion"] {
        assert!(!got["data"][part].is_null(), "{part}: {got}");
        assert_eq!(got["data"][part], approved["data"][part], "{part}");
    }

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

/// Issue 16, HTTP hygiene: the auth scheme in any case, 415 for a body that is not JSON, `Idempotent-Replayed` on a
/// replay, a `Request-Id` on every answer, a health route that says nothing else, a private data directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_hygiene() {
    let dir = temp_dir("hygiene");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let http = reqwest::Client::new();
    let base = format!("http://{}", server.addr);

    for scheme in ["bearer", "BEARER", "Bearer"] {
        let r = http
            .get(format!("{base}/v1/facturas"))
            .header("Authorization", format!("{scheme} {key}"))
            .header("X-Environment", "sandbox")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{scheme}");
    }

    let post = |ct: &'static str| {
        http.post(format!("{base}/v1/facturas"))
            .bearer_auth(&key)
            .header("X-Environment", "sandbox")
            .header("Content-Type", ct)
            .body(factura(Some("approved")).to_string())
    };
    for ct in ["text/plain", "application/x-www-form-urlencoded"] {
        let r = post(ct).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 415, "{ct}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(
            (v["ok"].clone(), v["error"]["code"].clone()),
            (json!(false), json!("UNSUPPORTED_MEDIA_TYPE"))
        );
    }
    let r = post("application/json; charset=utf-8")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);

    let first = post("application/json")
        .header("Idempotency-Key", "hyg-1")
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().await.unwrap();
    let again = post("application/json")
        .header("Idempotency-Key", "hyg-1")
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["data"]["id"], first["data"]["id"]);

    // Every answer names its request: success, 401, 404, 413 (refused by the host), health.
    let mut ids = HashSet::new();
    let answers = [
        http.get(format!("{base}/v1/facturas"))
            .bearer_auth(&key)
            .header("X-Environment", "sandbox"),
        http.get(format!("{base}/v1/facturas")),
        http.get(format!("{base}/v1/nothing")),
        http.post(format!("{base}/v1/facturas"))
            .body("x".repeat(2 * 1024 * 1024)),
        http.get(format!("{base}/v1/health")),
    ];
    for req in answers {
        let r = req.send().await.unwrap();
        let id = r.headers()["request-id"].to_str().unwrap().to_string();
        assert!(id.starts_with("req_") && id.len() == 28, "{id}");
        assert!(ids.insert(id));
    }

    // Health: no key needed, and nothing but the status.
    let v: Value = http
        .get(format!("{base}/v1/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v, json!({"ok": true, "data": {"status": "ok"}}));

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16: the invoice as issued (receiver, items, totals, currency, dates) and its signed XML.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invoice_resource_and_signed_xml() {
    let dir = temp_dir("resource");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let (code, v) = api.get(&format!("/v1/facturas/{id}")).await;
    assert_eq!(code, 200, "{v}");
    let inv = &v["data"];
    assert_eq!(inv["receptor"]["ruc"], "80069563");
    assert_eq!(inv["receptor"]["dv"], 1);
    assert_eq!(inv["receptor"]["razon_social"], "Cliente Ejemplo S.A.");
    assert_eq!(inv["items"][0]["descripcion"], "Servicio de consultoría");
    assert_eq!(inv["items"][0]["valor"]["precio_unitario"], "1100000");
    assert_eq!(inv["totales"]["total_general"], "1100000");
    assert_eq!(inv["totales"]["iva_10"], "100000");
    assert_eq!(inv["moneda"], "PYG");
    assert_eq!(inv["tipo_documento"], 1);
    assert_eq!(inv["status"], "approved");
    assert!(inv["approved_at"].as_str().unwrap().ends_with('Z'));
    assert!(inv["sent_at"].is_string());
    assert!(inv["qr"].as_str().unwrap().starts_with("https://"));
    let xml_url = inv["xml_url"].as_str().unwrap();
    assert_eq!(
        xml_url,
        format!("http://{}/v1/facturas/{id}/xml", server.addr)
    );

    let r = api
        .send(
            reqwest::Method::GET,
            &format!("/v1/facturas/{id}/xml"),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/xml"));
    let xml = r.text().await.unwrap();
    assert!(xml.contains("<rDE") && xml.contains("<Signature"), "{xml}");
    assert!(xml.contains(inv["cdc"].as_str().unwrap()));
    let (code, v) = api.get("/v1/facturas/fact_nope/xml").await;
    assert_eq!((code, &v["error"]["code"]), (404, &json!("NOT_FOUND")));
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16: list filters, 400 for an unknown or bad parameter, and a cursor walk during 1 000 concurrent creates
/// that returns every invoice exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_filters_and_cursor_walk() {
    let dir = temp_dir("listing");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);
    let (_, approved) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    let (_, rejected) = api.post("/v1/facturas", &factura(Some("rejected"))).await;
    let mut other = factura(Some("approved"));
    other["receptor"]["ruc"] = json!("80000005-6");
    let (_, other) = api.post("/v1/facturas", &other).await;

    let (code, v) = api.get("/v1/facturas?status=approved").await;
    assert_eq!(code, 200, "{v}");
    let got: Vec<&Value> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["id"])
        .collect();
    assert_eq!(got, vec![&other["data"]["id"], &approved["data"]["id"]]);
    assert_eq!(v["meta"]["total"], 2);
    let (_, v) = api.get("/v1/facturas?status=rejected").await;
    assert_eq!(v["data"][0]["id"], rejected["data"]["id"]);
    let (_, v) = api.get("/v1/facturas?receptor_ruc=80000005-6").await;
    assert_eq!(v["meta"]["total"], 1);
    assert_eq!(v["data"][0]["id"], other["data"]["id"]);
    let cdc = approved["data"]["cdc"].as_str().unwrap();
    let (_, v) = api.get(&format!("/v1/facturas?cdc={cdc}")).await;
    assert_eq!(v["data"][0]["id"], approved["data"]["id"]);
    let numero = rejected["data"]["numero"].as_str().unwrap();
    let (_, v) = api
        .get(&format!("/v1/facturas?numero={numero}&tipo_documento=1"))
        .await;
    assert_eq!(v["data"][0]["id"], rejected["data"]["id"]);
    let (_, v) = api
        .get("/v1/facturas?created_from=2000-01-01T00:00:00Z&created_to=2001-01-01T00:00:00Z")
        .await;
    assert_eq!(v["meta"]["total"], 0);
    let (_, v) = api
        .get("/v1/facturas?created_from=2000-01-01T00:00:00Z")
        .await;
    assert_eq!(v["meta"]["total"], 3);
    let (_, v) = api.get("/v1/facturas?limit=2").await;
    assert_eq!(v["meta"]["has_more"], true);
    let next = v["meta"]["next_cursor"].as_str().unwrap();
    let (_, v) = api
        .get(&format!("/v1/facturas?limit=2&starting_after={next}"))
        .await;
    assert_eq!(v["data"][0]["id"], approved["data"]["id"]);
    assert_eq!(v["meta"]["has_more"], false);

    for (query, name) in [
        ("stauts=approved", "stauts"),
        ("status=done", "status"),
        ("created_from=yesterday", "created_from"),
        ("cdc=123", "cdc"),
        ("numero=1-1-1", "numero"),
        ("receptor_ruc=80069563-9", "receptor_ruc"),
        ("tipo_documento=9", "tipo_documento"),
        ("limit=0", "limit"),
        ("starting_after=fact_unknown", "starting_after"),
        ("status=approved&status=sent", "status"),
    ] {
        let (code, v) = api.get(&format!("/v1/facturas?{query}")).await;
        assert_eq!(code, 400, "{query}: {v}");
        assert_eq!(v["error"]["code"], "INVALID_QUERY");
        assert!(
            v["error"]["message"].as_str().unwrap().contains(name),
            "{query}: {v}"
        );
    }

    // The walk, oldest first, runs while 1 000 invoices are created by 16 clients.
    let total = 1000usize;
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    let base = format!("http://{}", server.addr);
    let mut creators = Vec::new();
    for _ in 0..16 {
        let (key, base, next, done) = (key.clone(), base.clone(), next.clone(), done.clone());
        creators.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut ids = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < total {
                let r = http
                    .post(format!("{base}/v1/facturas"))
                    .bearer_auth(&key)
                    .header("X-Environment", "sandbox")
                    .header("Content-Type", "application/json")
                    .body(factura(Some("approved")).to_string())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status().as_u16(), 201);
                let v: Value = r.json().await.unwrap();
                ids.push(v["data"]["id"].as_str().unwrap().to_string());
            }
            done.fetch_add(1, Ordering::Relaxed);
            ids
        }));
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let finished = done.load(Ordering::Relaxed) == 16;
        let path = match &cursor {
            Some(c) => format!("/v1/facturas?order=asc&limit=50&starting_after={c}"),
            None => "/v1/facturas?order=asc&limit=50".to_string(),
        };
        let (code, v) = api.get(&path).await;
        assert_eq!(code, 200, "{v}");
        let page = v["data"].as_array().unwrap();
        for inv in page {
            seen.push(inv["id"].as_str().unwrap().to_string());
        }
        if let Some(last) = page.last() {
            cursor = Some(last["id"].as_str().unwrap().to_string());
        } else if finished {
            break;
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let mut created: HashSet<String> = [&approved, &rejected, &other]
        .iter()
        .map(|v| v["data"]["id"].as_str().unwrap().to_string())
        .collect();
    for c in creators {
        created.extend(c.await.unwrap());
    }
    assert_eq!(created.len(), total + 3);
    let unique: HashSet<String> = seen.iter().cloned().collect();
    assert_eq!(unique.len(), seen.len(), "the walk repeated an invoice");
    assert_eq!(unique, created, "the walk missed invoices");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16, webhooks: a receiver that sleeps 10 s does not delay another endpoint's delivery by more than 1 s; each
/// attempt is logged with its HTTP status and duration; URLs naming inside addresses are refused (SSRF).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_isolation_log_and_ssrf() {
    let dir = temp_dir("wh-iso");
    let mut c = config(&dir);
    c.webhook_timeout = Duration::from_secs(20);
    let server = start(c).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let slow_port = common::slow_receiver(Duration::from_secs(10)).await;
    let (_, slow) = api
        .post(
            "/v1/webhooks",
            &json!({"url": format!("https://127.0.0.1:{slow_port}/hook"), "events": ["factura.approved"]}),
        )
        .await;
    let (fast_port, mut rx) = receiver().await;
    let secret = register_webhook(&api, fast_port).await;

    // Two events in a row: the slow endpoint holds the first for 10 s; the fast one gets each within a second.
    for _ in 0..2 {
        let t = Instant::now();
        let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
        assert_eq!(code, 201, "{v}");
        let event = next_event(&mut rx, &secret).await;
        assert_eq!(event["data"]["id"], v["data"]["id"]);
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "the fast endpoint waited {:?}",
            t.elapsed()
        );
    }

    // The fast endpoint's log: one attempt per delivery, with the receiver's status and a duration.
    let (list_code, hooks) = api.get("/v1/webhooks").await;
    assert_eq!(list_code, 200);
    let fast_id = hooks["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] != slow["data"]["id"])
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, log) = api.get(&format!("/v1/webhooks/{fast_id}/deliveries")).await;
        let done: Vec<&Value> = log["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["status"] == "delivered")
            .collect();
        if done.len() == 2 {
            for d in done {
                let attempt = &d["log"][0];
                assert_eq!(attempt["status"], 200, "{d}");
                assert!(attempt["error"].is_null());
                assert!(attempt["duration_ms"].as_u64().unwrap() < 1000);
            }
            break;
        }
        assert!(Instant::now() < deadline, "{log}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
    let (sig, body) = tokio::time::timeout(Duration::from_secs(15), rx.recv())
        .await
        .unwrap()
        .unwrap();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    for s in [&old, &new] {
        kuatia_service::webhook::verify_signature(s, &sig, &body, now, 300).unwrap();
    }
    let event: Value = serde_json::from_str(&body).unwrap();

    // A manual redelivery: the same event id arrives again, as a new delivery in the log.
    let deadline = Instant::now() + Duration::from_secs(5);
    let first = loop {
        let (_, log) = api.get(&format!("/v1/webhooks/{id}/deliveries")).await;
        if log["data"][0]["status"] == "delivered" {
            break log["data"][0]["id"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "{log}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
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
    let (code, _) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201);
    assert!(
        tokio::time::timeout(Duration::from_millis(800), rx.recv())
            .await
            .is_err(),
        "a deleted webhook still received an event"
    );
    assert_eq!(api.get(&format!("/v1/webhooks/{id}")).await.0, 404);
    let (code, log) = api.get(&format!("/v1/webhooks/{id}/deliveries")).await;
    assert_eq!((code, &log["meta"]["total"]), (200, &json!(2)), "{log}");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_are_isolated_and_revocation_is_immediate() {
    let dir = temp_dir("accounts");
    let server = start(config(&dir)).await.unwrap();
    // A second account, created by another process's path (`kuatia accounts create`) while the server runs.
    let (b_account, b_key) =
        kuatia_server::accounts::create_account(dir.clone(), "Empresa B").unwrap();
    let a = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let b = Api::new(&server, &b_key);
    let (port, _rx) = receiver().await;
    register_webhook(&a, port).await;
    let (_, hooks) = a.get("/v1/webhooks").await;
    let hook = hooks["data"][0]["id"].as_str().unwrap().to_string();
    let (code, v) = a.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let inv = v["data"]["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    let delivery = loop {
        let (_, log) = a.get(&format!("/v1/webhooks/{hook}/deliveries")).await;
        if let Some(id) = log["data"][0]["id"].as_str() {
            break id.to_string();
        }
        assert!(Instant::now() < deadline, "{log}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    // B sees nothing of A: lists are empty, every id of A is 404.
    let (code, list) = b.get("/v1/facturas").await;
    assert_eq!((code, list["meta"]["total"].clone()), (200, json!(0)));
    let (_, list) = b.get("/v1/webhooks").await;
    assert_eq!(list["data"], json!([]));
    for path in [
        format!("/v1/facturas/{inv}"),
        format!("/v1/facturas/{inv}/xml"),
        format!("/v1/facturas/{inv}/kude"),
        format!("/v1/webhooks/{hook}"),
        format!("/v1/webhooks/{hook}/deliveries"),
    ] {
        let (code, v) = b.get(&path).await;
        assert_eq!(code, 404, "{path}: {v}");
        assert_eq!(v["error"]["code"], "NOT_FOUND", "{path}");
    }
    for path in [
        format!("/v1/webhooks/{hook}/rotate"),
        format!("/v1/webhooks/{hook}/deliveries/{delivery}/redeliver"),
        format!("/v1/facturas/{inv}/cancel"),
    ] {
        let (code, v) = b
            .post(&path, &json!({"motivo": "Error en los datos"}))
            .await;
        assert_eq!(code, 404, "{path}: {v}");
    }
    let r = b
        .send(
            reqwest::Method::DELETE,
            &format!("/v1/webhooks/{hook}"),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status().as_u16(), 404);
    let (code, _) = b.get(&format!("/v1/facturas?starting_after={inv}")).await;
    assert_eq!(code, 400);
    // A still has all of it, and B's own invoice is B's only.
    assert_eq!(a.get(&format!("/v1/webhooks/{hook}")).await.0, 200);
    assert_eq!(a.get(&format!("/v1/facturas/{inv}/xml")).await.0, 200);
    let (code, v) = b.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let b_inv = v["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(a.get(&format!("/v1/facturas/{b_inv}")).await.0, 404);
    assert_eq!(a.get("/v1/facturas").await.1["meta"]["total"], 1);

    // Revoking B's key from outside (`kuatia keys revoke`) takes effect at the running server's next request.
    let prefix = &b_key[..16];
    let (owner, _) = kuatia_server::accounts::revoke_key(dir.clone(), prefix)
        .unwrap()
        .unwrap();
    assert_eq!(owner, b_account.id);
    let (code, v) = b.get("/v1/facturas").await;
    assert_eq!(code, 401, "{v}");
    assert_eq!(v["error"]["code"], "UNAUTHORIZED");
    assert_eq!(a.get("/v1/facturas").await.0, 200);
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
            assert!((before + grace..=before + grace + 5).contains(&t), "{got}");
        }
        let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
        assert_eq!(code, 201, "{v}");
        let (sig, body) = tokio::time::timeout(Duration::from_secs(15), rx.recv())
            .await
            .unwrap()
            .unwrap();
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        kuatia_service::webhook::verify_signature(&new, &sig, &body, now, 300).unwrap();
        let old_ok = kuatia_service::webhook::verify_signature(&old, &sig, &body, now, 300).is_ok();
        assert_eq!(old_ok, grace > 0, "grace {grace}: {sig}");
        server.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Status lookups are answered beside the writer only while the simulated SIFEN has nothing due: with no delays, a
/// lookup right after the 201 must still see the invoice moved (the writer ticks it first), and the lookups after
/// it (from the readers) agree with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookups_beside_the_writer_see_what_the_writer_would() {
    let dir = temp_dir("readers");
    let mut c = config(&dir);
    c.sandbox_send_after = 0;
    c.sandbox_answer_after = 0;
    // No background tick: only requests move the simulation here.
    c.tick_interval = Duration::from_secs(3600);
    let server = start(c).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    for _ in 0..5 {
        let (code, created) = api.post("/v1/facturas", &factura(None)).await;
        assert_eq!(code, 201, "{created}");
        assert_eq!(created["data"]["status"], "pending", "{created}");
        let path = format!("/v1/facturas/{}", created["data"]["id"].as_str().unwrap());
        let (code, got) = api.get(&path).await;
        assert_eq!(code, 200, "{got}");
        assert_eq!(got["data"]["status"], "approved", "{got}");
        for _ in 0..8 {
            assert_eq!(api.get(&path).await, (200, got.clone()));
        }
    }
    server.shutdown().await;
}

/// A create whose client hangs up while it is being signed is finished all the same: stored, its number confirmed
/// (never a gap), its idempotent answer kept for the retry. The clients hang up after 0 to 15 ms, so that some do it
/// while their create is in the writer or being signed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_whose_client_hangs_up_is_finished() {
    use tokio::io::AsyncWriteExt;
    let dir = temp_dir("hangup");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);
    const N: usize = 16;
    for i in 0..N {
        let body = factura(None).to_string();
        let request = format!(
            "POST /v1/facturas HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\n\
             Content-Type: application/json\r\nIdempotency-Key: hangup-{i}\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(i as u64)).await;
        drop(stream);
    }
    // Whatever was started is finished: the count settles, with no number left a gap.
    let total = || async {
        api.get("/v1/facturas").await.1["meta"]["total"]
            .as_u64()
            .unwrap()
    };
    let mut last = total().await;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = total().await;
        if now == last {
            break;
        }
        last = now;
    }
    let (code, gaps) = api.get("/v1/numbering/gaps").await;
    assert_eq!(
        (code, gaps["meta"]["total"].clone()),
        (200, json!(0)),
        "{gaps}"
    );
    // Each retry gets its invoice: the stored one back, or a new one if the first never started.
    let mut replayed = 0;
    for i in 0..N {
        let r = api
            .send(
                reqwest::Method::POST,
                "/v1/facturas",
                Some(&factura(None)),
                &[("Idempotency-Key", &format!("hangup-{i}"))],
            )
            .await;
        assert_eq!(r.status().as_u16(), 201);
        replayed += usize::from(r.headers().get("Idempotent-Replayed").is_some());
    }
    assert_eq!(total().await, N as u64);
    assert_eq!(replayed as u64, last, "every stored create is replayed");
    server.shutdown().await;
}

/// The files of the data directory still open in this process (its descriptors pointing there).
fn open_files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let dir = std::fs::canonicalize(dir).unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.starts_with(&dir))
        .collect()
}

/// Once `shutdown` returns, the data directory is quiescent: every connection to its databases (the writer's, the
/// readers', the checkpointer's) is closed, so it can be backed up, moved or opened by another process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_every_file_of_the_data_directory() {
    let dir = temp_dir("closed");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let (code, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    for _ in 0..20 {
        // Lookups from the readers beside the writer (their connections opened).
        let (code, _) = api.get(&format!("/v1/facturas/{id}")).await;
        assert_eq!(code, 200);
    }
    assert!(
        !open_files_under(&dir).is_empty(),
        "the server has its databases open"
    );
    server.shutdown().await;
    assert_eq!(open_files_under(&dir), Vec::<std::path::PathBuf>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 34 #6 over HTTP and SQLite: the same request pretty-printed is a replay of the first answer (before and after
/// a restart: the stored hash is the canonical JSON's), not a 409.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotent_retry_pretty_printed_is_a_replay() {
    let dir = temp_dir("idem-pretty");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let post = |base: String, body: String| {
        let key = key.clone();
        async move {
            let r = reqwest::Client::new()
                .post(format!("{base}/v1/facturas"))
                .bearer_auth(key)
                .header("X-Environment", "sandbox")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "pretty-http-1")
                .body(body)
                .send()
                .await
                .unwrap();
            let replayed = r.headers().get("Idempotent-Replayed").is_some();
            (
                r.status().as_u16(),
                replayed,
                r.json::<Value>().await.unwrap(),
            )
        }
    };
    let compact = factura(None).to_string();
    let pretty = serde_json::to_string_pretty(&factura(None))
        .unwrap()
        .replace("\"condicion_pago\": 1", "\"condicion_pago\":\n    1");
    assert_ne!(compact, pretty);
    let base = format!("http://{}", server.addr);
    let (code, replayed, first) = post(base.clone(), compact).await;
    assert_eq!((code, replayed), (201, false), "{first}");
    let (code, replayed, again) = post(base, pretty.clone()).await;
    assert_eq!((code, replayed), (201, true), "{again}");
    assert_eq!(again["data"]["id"], first["data"]["id"]);
    server.shutdown().await;

    let server = start(config(&dir)).await.unwrap();
    let (code, replayed, again) = post(format!("http://{}", server.addr), pretty).await;
    assert_eq!((code, replayed), (201, true), "{again}");
    assert_eq!(again["data"]["id"], first["data"]["id"]);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

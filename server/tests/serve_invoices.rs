//! `kuatia serve` end to end, invoices: create, poll and download, one rule per decision, HTTP hygiene, the invoice
//! resource and its signed XML, list filters and the cursor walk, idempotent replays. A real server on a loopback
//! port and a real HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, serve, Api};
use common::temp_dir;
use kuatia_server::start;
use kuatia_service::auth::Environment;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

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
    let early = api.get_raw(&format!("/v1/facturas/{id}/kude")).await;
    assert_eq!(early.status().as_u16(), 409);

    let approved = api.wait_status(&id, "approved").await;
    assert!(approved["protocolo"].as_str().unwrap().starts_with("SBX"));

    let kude = api.get_raw(&format!("/v1/facturas/{id}/kude")).await;
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

/// Issue 14's failures over real HTTP: a RUC without '-', a missing field's path, `_simulate` with an establishment
/// that has no stamp, an idempotency key reused across environments; and the numbering gaps route.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_rule_per_decision_over_http() {
    let (dir, server, api) = serve("one-rule").await;

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
    let (dir, server, api) = serve("resource").await;
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

    let r = api.get_raw(&format!("/v1/facturas/{id}/xml")).await;
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
    let (dir, server, api) = serve("listing").await;
    let key = server.new_sandbox_key.clone().unwrap();
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

//! Drives the sans-IO service like an HTTP client would: the spec's flows, every status and error code, account
//! isolation, webhooks (fan-out, signature, retries), idempotency and the production rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_service::auth::Environment;
use kuatia_service::webhook::{
    verify_signature, SignatureError, DEFAULT_TOLERANCE, RETRY_SCHEDULE, SIGNATURE_HEADER,
};
#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::lifecycle::{Estado, SifenError, Trigger};
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service, Store};
use serde_json::{json, Value};

struct Client {
    svc: Service<MemoryStore>,
    host: TestHost,
    key: String,
    account: String,
}

fn client() -> Client {
    let mut host = TestHost::new();
    let config = Config {
        base_url: "https://api.example.test".into(),
        ..Config::default()
    };
    let mut svc = Service::new(MemoryStore::default(), config);
    let (account, key) = svc.create_account("Empresa de prueba", &mut host);
    Client {
        svc,
        host,
        key,
        account: account.id,
    }
}

impl Client {
    fn call(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        extra: &[(&str, &str)],
        key: Option<&str>,
        sandbox: bool,
    ) -> HttpResponse {
        let mut headers = vec![];
        if let Some(k) = key {
            headers.push(("Authorization".to_string(), format!("Bearer {k}")));
        }
        if sandbox {
            headers.push(("X-Environment".to_string(), "sandbox".to_string()));
        }
        for (k, v) in extra {
            headers.push((k.to_string(), v.to_string()));
        }
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers,
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        self.svc.handle(&req, &mut self.host)
    }
    fn sandbox(&mut self, method: &str, path: &str, body: Option<Value>) -> HttpResponse {
        let key = self.key.clone();
        self.call(method, path, body, &[], Some(&key), true)
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

#[test]
fn spec_flow_simulate_approved() {
    let mut c = client();
    let r = c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    assert_eq!(r.status, 201);
    let body = r.json();
    assert_eq!(body["ok"], json!(true));
    let d = &body["data"];
    assert_eq!(d["status"], json!("approved"));
    assert!(d["id"].as_str().unwrap().starts_with("fact_"));
    assert_eq!(d["cdc"].as_str().unwrap().len(), 44);
    assert_eq!(d["numero"], json!("001-001-0000001"));
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(
        d["kude_url"],
        json!(format!("https://api.example.test/v1/facturas/{id}/kude"))
    );
    let k = c.sandbox("GET", &format!("/v1/facturas/{id}/kude"), None);
    assert_eq!(k.status, 200);
    assert_eq!(k.header("Content-Type"), Some("application/pdf"));
    assert!(k.body.starts_with(b"%PDF-"));
}

#[test]
fn spec_flow_create_poll_approved_kude() {
    let mut c = client();
    let r = c.sandbox("POST", "/v1/facturas", Some(factura(None)));
    assert_eq!(r.status, 201);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(r.json()["data"]["status"], json!("pending"));
    // KuDE refused before approval (spec §3 rule 4).
    let k = c.sandbox("GET", &format!("/v1/facturas/{id}/kude"), None);
    assert_eq!(
        (k.status, k.json()["error"]["code"].clone()),
        (409, json!("KUDE_NOT_AVAILABLE"))
    );
    c.host.advance(2);
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"]["status"],
        json!("sent")
    );
    let account = c.account.clone();
    assert!(!c.svc.store.account(&account).unwrap().sandbox_completed);
    c.host.advance(3);
    let g = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(g.json()["data"]["status"], json!("approved"));
    // The simulated SIFEN's approval completes the sandbox flow (preflight's first item), as `_simulate` does.
    assert!(c.svc.store.account(&account).unwrap().sandbox_completed);
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{id}/kude"), None)
            .status,
        200
    );
}

#[test]
fn rejections_carry_sifen_errors() {
    let mut c = client();
    let r = c.sandbox("POST", "/v1/facturas", Some(factura(Some("rejected"))));
    let d = r.json()["data"].clone();
    assert_eq!(d["status"], json!("rejected"));
    assert_eq!(d["sifen_errors"][0]["code"], json!("SBX-SIMULATED"));

    // The simulated SIFEN rejects the documented unknown receiver RUC.
    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("88888801-5");
    let id = c.sandbox("POST", "/v1/facturas", Some(body)).json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    c.host.advance(10);
    let d = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"].clone();
    assert_eq!(d["status"], json!("rejected"));
    assert_eq!(
        d["sifen_errors"][0],
        json!({"code": "SBX-RUC-RECEPTOR", "message": "RUC del receptor inexistente o inactivo (rechazo simulado del sandbox)", "field": "receptor.ruc"})
    );
}

#[test]
fn status_and_error_codes() {
    let mut c = client();
    let key = c.key.clone();
    // 401: missing, malformed, unknown.
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], None, true).status,
        401
    );
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], Some("nope"), true)
            .json()["error"]["code"],
        json!("UNAUTHORIZED")
    );
    let unknown = format!("dk_test_{}", "A".repeat(40));
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], Some(&unknown), true)
            .status,
        401
    );
    // A test key without the sandbox header.
    let r = c.call("GET", "/v1/facturas", None, &[], Some(&key), false);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("SANDBOX_HEADER_REQUIRED"))
    );
    // Routes and methods.
    assert_eq!(c.sandbox("GET", "/v1/nothing", None).status, 404);
    assert_eq!(c.sandbox("GET", "/v2/facturas", None).status, 404);
    let r = c.sandbox("DELETE", "/v1/facturas", None);
    assert_eq!((r.status, r.header("Allow")), (405, Some("GET, POST")));
    assert_eq!(
        c.sandbox("GET", "/v1/facturas/fact_doesnotexist", None)
            .status,
        404
    );
    // Empty list.
    let l = c.sandbox("GET", "/v1/facturas", None).json();
    assert_eq!(
        (
            l["data"].clone(),
            l["meta"]["total"].clone(),
            l["meta"]["page"].clone()
        ),
        (json!([]), json!(0), json!(1))
    );
    // Malformed JSON → 400; validation → 422 with every finding.
    let key2 = c.key.clone();
    let bad = HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key2}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: b"{\"tipo_documento\":".to_vec(),
    };
    let r = c.svc.handle(&bad, &mut c.host);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("MALFORMED_JSON"))
    );
    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("80069563-2");
    body["items"][0]["iva"] = json!(12);
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], json!("INVALID_RUC"));
    assert_eq!(r.json()["error"]["details"].as_array().unwrap().len(), 2);
    let mut body = factura(None);
    body["establecimiento"] = json!("009");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("INVALID_TIMBRADO"))
    );
    // ... and the same with _simulate: it simulates SIFEN only, never the stamp, establishment or point (issue 14).
    let mut body = factura(Some("approved"));
    body["establecimiento"] = json!("009");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("INVALID_TIMBRADO"))
    );
    assert_eq!(c.sandbox("GET", "/v1/health", None).status, 200);
}

#[test]
fn paging_and_account_isolation() {
    let mut c = client();
    for _ in 0..5 {
        assert_eq!(
            c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
                .status,
            201
        );
    }
    let p = c
        .sandbox("GET", "/v1/facturas?page=2&per_page=2", None)
        .json();
    // The cursor carries the page it opens (issue 34).
    let cursor = json!(format!("{}.3", p["data"][1]["id"].as_str().unwrap()));
    assert_eq!(
        p["meta"],
        json!({"page": 2, "per_page": 2, "total": 5, "has_more": true, "next_cursor": cursor})
    );
    assert_eq!(p["data"].as_array().unwrap().len(), 2);
    assert_eq!(c.sandbox("GET", "/v1/facturas?page=0", None).status, 400);
    let first = c.sandbox("GET", "/v1/facturas", None).json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let (_, other_key) = c.svc.create_account("Otra empresa", &mut c.host);
    let l = c
        .call("GET", "/v1/facturas", None, &[], Some(&other_key), true)
        .json();
    assert_eq!(l["meta"]["total"], json!(0));
    let r = c.call(
        "GET",
        &format!("/v1/facturas/{first}"),
        None,
        &[],
        Some(&other_key),
        true,
    );
    assert_eq!(r.status, 404);
    // Numbers are per account: the other account starts at 1.
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &[],
        Some(&other_key),
        true,
    );
    assert_eq!(r.json()["data"]["numero"], json!("001-001-0000001"));
}

#[test]
fn idempotency_key_returns_the_first_result() {
    let mut c = client();
    let key = c.key.clone();
    let a = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &[("Idempotency-Key", "order-42")],
        Some(&key),
        true,
    );
    let b = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &[("Idempotency-Key", "order-42")],
        Some(&key),
        true,
    );
    assert_eq!((a.status, &a.body), (b.status, &b.body));
    assert_eq!(b.header("Idempotent-Replayed"), Some("true"));
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1)
    );
    let conflict = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &[("Idempotency-Key", "order-42")],
        Some(&key),
        true,
    );
    assert_eq!(
        (conflict.status, conflict.json()["error"]["code"].clone()),
        (409, json!("IDEMPOTENCY_CONFLICT"))
    );
}

/// The create's phases (`handle_step` → `CreateJob::sign` → `finish_create`), as a server runs them to sign
/// outside its lock: the same key meanwhile is told to retry, a job dropped (its transaction rolled back) frees the
/// key, and a finished one answers like `handle`.
#[test]
fn a_create_signed_between_its_phases() {
    use kuatia_service::Step;
    let mut c = client();
    let request = |key: &str| HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {}", c.key)),
            ("X-Environment".into(), "sandbox".into()),
            ("Idempotency-Key".into(), key.into()),
            ("Content-Type".into(), "application/json".into()),
        ],
        body: factura(None).to_string().into_bytes(),
    };
    let (first, again) = (request("order-7"), request("order-7"));
    let Step::Sign(job) = c.svc.handle_step(&first, &mut c.host) else {
        panic!("a valid create waits for its signature");
    };
    assert_eq!(job.environment(), Environment::Sandbox);
    match c.svc.handle_step(&again, &mut c.host) {
        Step::Done(r) => assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (409, json!("IDEMPOTENCY_IN_PROGRESS"))
        ),
        Step::Sign(_) => panic!("the same key must not reserve a second number"),
    }
    // Dropped (as when the transaction that reserved its number is rolled back): the key is free again.
    drop(job);
    let Step::Sign(job) = c.svc.handle_step(&again, &mut c.host) else {
        panic!("a dropped job releases its key");
    };
    let signed = job.sign(
        c.host
            .signer
            .as_ref()
            .map(|s| s as &dyn kuatia_core::sign::Signer),
    );
    let created = c.svc.finish_create(signed, &mut c.host);
    assert_eq!(
        created.status,
        201,
        "{}",
        String::from_utf8_lossy(&created.body)
    );
    let replay = c.svc.handle(&request("order-7"), &mut c.host);
    assert_eq!((replay.status, &replay.body), (201, &created.body));
    assert_eq!(replay.header("Idempotent-Replayed"), Some("true"));
    // The first job's number was reserved and never used: a listed gap; the second got the next one.
    let data = created.json()["data"].clone();
    assert_eq!(data["numero"], json!("001-001-0000002"));
    let gaps = c.sandbox("GET", "/v1/numbering/gaps", None).json();
    assert_eq!(gaps["meta"]["total"], json!(1), "{gaps}");
}

/// `lookup` answers a status lookup exactly as `handle` does (found, other environment, unknown, no key), and
/// nothing else.
#[test]
fn a_lookup_beside_the_writer_answers_as_handle() {
    let mut c = client();
    let created = c.sandbox("POST", "/v1/facturas", Some(factura(None)));
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let key = c.key.clone();
    let get = |path: &str, key: Option<&str>, sandbox: bool| {
        let mut headers = vec![];
        if let Some(k) = key {
            headers.push(("Authorization".to_string(), format!("Bearer {k}")));
        }
        if sandbox {
            headers.push(("X-Environment".to_string(), "sandbox".to_string()));
        }
        HttpRequest {
            method: "GET".into(),
            path: path.into(),
            headers,
            body: vec![],
        }
    };
    let (window_start, window_end) = c.svc.tick_window().unwrap();
    assert!(window_start <= host::NOW_UTC && host::NOW_UTC < window_end);
    for req in [
        get(&format!("/v1/facturas/{id}"), Some(&key), true),
        get(&format!("/v1/facturas/{id}/?expand=x"), Some(&key), true),
        get("/v1/facturas/fact_nope", Some(&key), true),
        get(&format!("/v1/facturas/{id}"), None, true),
        get(&format!("/v1/facturas/{id}"), Some(&key), false),
    ] {
        let quick = c.svc.lookup(&req).expect("a status lookup");
        let full = c.svc.handle(&req, &mut c.host);
        assert_eq!(
            (quick.status, &quick.body),
            (full.status, &full.body),
            "{}",
            req.path
        );
    }
    assert!(c
        .svc
        .lookup(&get("/v1/facturas", Some(&key), true))
        .is_none());
    assert!(c
        .svc
        .lookup(&get(&format!("/v1/facturas/{id}/kude"), Some(&key), true))
        .is_none());
    let mut post = get(&format!("/v1/facturas/{id}"), Some(&key), true);
    post.method = "POST".into();
    assert!(c.svc.lookup(&post).is_none());
}

#[test]
fn webhooks_fan_out_sign_and_retry() {
    let mut c = client();
    let bad = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "http://x.example/hook", "events": ["factura.paid"]})),
    );
    assert_eq!(bad.status, 422);
    let paths: Vec<Value> = bad.json()["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].clone())
        .collect();
    assert_eq!(paths, vec![json!("url"), json!("events[0]")]);

    let approved = c.sandbox("POST", "/v1/webhooks", Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"], "description": "ERP"})));
    assert_eq!(approved.status, 201);
    let hook = approved.json()["data"].clone();
    let secret = hook["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let rejected = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/r", "events": ["factura.rejected"]})),
    );
    assert_eq!(rejected.status, 201);
    // Listing never shows secrets again.
    let list = c.sandbox("GET", "/v1/webhooks", None).json();
    assert_eq!(list["meta"]["total"], json!(2));
    assert!(list["data"][0].get("secret").is_none());

    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(
        due.len(),
        1,
        "only the approved-subscribed hook receives factura.approved"
    );
    let d = &due[0];
    assert_eq!(d.url, "https://erp.example/a");
    let payload: Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(payload["type"], json!("factura.approved"));
    assert_eq!(payload["data"]["id"], json!(id));
    assert_eq!(payload["data"]["status"], json!("approved"));
    assert!(payload["id"].as_str().unwrap().starts_with("evt_"));
    let header = d
        .headers
        .iter()
        .find(|(k, _)| k == SIGNATURE_HEADER)
        .unwrap()
        .1
        .clone();
    assert_eq!(
        verify_signature(&secret, &header, &d.body, now, DEFAULT_TOLERANCE),
        Ok(())
    );
    assert_eq!(
        verify_signature("whsec_wrong", &header, &d.body, now, DEFAULT_TOLERANCE),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(
            &secret,
            &header,
            &d.body.replace("approved", "rejected"),
            now,
            DEFAULT_TOLERANCE
        ),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(&secret, &header, &d.body, now + 3600, DEFAULT_TOLERANCE),
        Err(SignatureError::Expired)
    );
    assert_eq!(
        verify_signature(&secret, "garbage", &d.body, now, DEFAULT_TOLERANCE),
        Err(SignatureError::Malformed)
    );

    // Failure → retry on the backoff schedule; success → delivered; exhausted → failed.
    let r = c.svc.report_delivery(&d.id, false).unwrap();
    assert_eq!(
        (r.status.as_str(), r.next_attempt_at),
        ("pending", now + RETRY_SCHEDULE[0])
    );
    assert!(c.svc.due_deliveries(now).is_empty());
    assert_eq!(c.svc.due_deliveries(now + RETRY_SCHEDULE[0]).len(), 1);
    for _ in 0..RETRY_SCHEDULE.len() {
        c.svc.report_delivery(&d.id, false);
    }
    assert_eq!(
        c.svc.store.delivery(&d.id).map(|d| d.status),
        Some("failed".into())
    );

    // A rejection reaches only the rejected-subscribed hook.
    let mut body = factura(Some("rejected"));
    body["receptor"]["ruc"] = json!("4554737-8");
    c.sandbox("POST", "/v1/facturas", Some(body));
    let due: Vec<_> = c
        .svc
        .due_deliveries(now)
        .into_iter()
        .filter(|d| d.url.ends_with("/r"))
        .collect();
    assert_eq!(due.len(), 1);
}

#[test]
fn the_delivery_log_shows_each_webhooks_attempts() {
    let mut c = client();
    let hook = c
        .sandbox(
            "POST",
            "/v1/webhooks",
            Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"]})),
        )
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let log = c.sandbox("GET", &format!("/v1/webhooks/{hook}/deliveries"), None);
    assert_eq!(log.status, 200);
    assert_eq!(log.json()["data"], json!([]));
    assert_eq!(log.json()["meta"]["total"], json!(0));
    for _ in 0..3 {
        c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    }
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 3);
    c.svc.report_delivery(&due[0].id, true);
    c.svc.report_delivery(&due[1].id, false);
    let log = c
        .sandbox(
            "GET",
            &format!("/v1/webhooks/{hook}/deliveries?per_page=2"),
            None,
        )
        .json();
    assert_eq!(log["meta"]["total"], json!(3));
    assert_eq!(log["data"].as_array().unwrap().len(), 2);
    let all = c
        .sandbox("GET", &format!("/v1/webhooks/{hook}/deliveries"), None)
        .json()["data"]
        .clone();
    let by_id = |id: &str| {
        all.as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == json!(id))
            .unwrap()
            .clone()
    };
    let delivered = by_id(&due[0].id);
    assert_eq!(delivered["status"], "delivered");
    assert_eq!(delivered["attempts"], 1);
    assert_eq!(delivered["type"], "factura.approved");
    assert_eq!(delivered["next_attempt_at"], Value::Null);
    assert!(
        delivered.get("headers").is_none(),
        "no signature in the log"
    );
    let retrying = by_id(&due[1].id);
    assert_eq!(retrying["status"], "pending");
    assert_eq!(retrying["attempts"], 1);
    assert!(retrying["next_attempt_at"].is_string());
    assert_eq!(retrying["payload"]["data"]["status"], "approved");
    // Another account cannot read it; an unknown webhook is 404.
    let (_, other) = c.svc.create_account("Otra empresa", &mut c.host);
    let path = format!("/v1/webhooks/{hook}/deliveries");
    let r = c.call("GET", &path, None, &[], Some(&other), true);
    assert_eq!(r.status, 404);
    let r = c.sandbox("GET", "/v1/webhooks/wh_nope/deliveries", None);
    assert_eq!(r.status, 404);
    let r = c.sandbox("POST", &format!("/v1/webhooks/{hook}/deliveries"), None);
    assert_eq!(r.status, 405);
    let r = c.sandbox(
        "GET",
        &format!("/v1/webhooks/{hook}/deliveries?per_page=0"),
        None,
    );
    assert_eq!(r.status, 400);
}

#[test]
fn production_rules_and_preflight() {
    let mut c = client();
    let account = c.account.clone();
    let live = c
        .svc
        .create_key(&account, Environment::Production, &mut c.host)
        .unwrap();
    assert!(live.starts_with("dk_live_"));
    // A live key with the sandbox header is refused with its own code.
    let r = c.call("GET", "/v1/facturas", None, &[], Some(&live), true);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("LIVE_KEY_IN_SANDBOX"))
    );
    // _simulate is refused in production.
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &[],
        Some(&live),
        false,
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("SIMULATE_NOT_ALLOWED"))
    );
    // No production profile yet.
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &[],
        Some(&live),
        false,
    );
    assert_eq!(
        r.json()["error"]["code"],
        json!("PRODUCTION_NOT_CONFIGURED")
    );
    let checks = c.svc.preflight(&account, &mut c.host);
    let failing: Vec<&str> = checks
        .iter()
        .filter(|k| !k.ok)
        .map(|k| k.name.as_str())
        .collect();
    assert_eq!(
        failing,
        [
            "sandbox_completed",
            "production_profile",
            "certificate",
            "timbrado",
            "ruc_enabled",
            "webhooks"
        ]
    );
    // Sandbox keys never see production data and vice versa.
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], Some(&live), false)
            .json()["meta"]["total"],
        json!(0)
    );
    // A production key with the sandbox test certificate (RUC of another taxpayer) is refused.
    let mut prof = kuatia_core::profile::Emisor::sandbox();
    prof.ambiente = kuatia_core::profile::Ambiente::Produccion;
    prof.ruc = "80069563-1".into();
    let mut acc = c.svc.store.account(&account).unwrap();
    acc.production = Some(prof);
    c.svc.store.put_account(acc);
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &[],
        Some(&live),
        false,
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("CERTIFICATE_RUC_MISMATCH"))
    );
}

#[test]
fn host_reports_sifen_outcomes() {
    let mut c = client();
    let account = c.account.clone();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("pending"))))
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    c.host.advance(60);
    // _simulate: pending stays pending (no automatic progress).
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"]["status"],
        json!("pending")
    );
    assert_eq!(
        c.svc
            .apply(&account, &id, &Trigger::Submitted, &mut c.host)
            .unwrap(),
        Estado::Sent
    );
    let err = c
        .svc
        .apply(&account, &id, &Trigger::Resubmitted, &mut c.host)
        .unwrap_err();
    assert_eq!(err.code, "INVALID_TRANSITION");
    let reasons = vec![SifenError {
        code: "1003".into(),
        message: "DV del CDC inválido".into(),
        field: None,
    }];
    assert_eq!(
        c.svc
            .apply(
                &account,
                &id,
                &Trigger::Rejected { errors: reasons },
                &mut c.host
            )
            .unwrap(),
        Estado::Rejected
    );
    let d = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"].clone();
    assert_eq!(d["sifen_errors"][0]["code"], json!("1003"));
}

#[test]
fn sandbox_without_a_signer_still_works_unsigned() {
    let mut c = client();
    c.host.signer = None;
    let r = c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    assert_eq!(r.status, 201);
    let d = r.json()["data"].clone();
    assert!(d["qr"].as_str().unwrap().contains("&cHashQR="));
}

#[test]
fn cancellation_moves_to_cancelled_and_notifies() {
    let mut c = client();
    let account = c.account.clone();
    let hook = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/c", "events": ["factura.cancelled"]})),
    );
    assert_eq!(hook.status, 201);
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // The approval is not for this hook.
    let now = c.host.now.unix_timestamp();
    assert!(c.svc.due_deliveries(now).is_empty());
    // The host's SIFEN client reports the approved cancellation event (rGeVeCan, code 0600).
    let state = c
        .svc
        .apply(&account, &id, &Trigger::Cancelled, &mut c.host)
        .unwrap();
    assert_eq!(state, Estado::Cancelled);
    let d = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"].clone();
    assert_eq!(d["status"], json!("cancelled"));
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    let payload: Value = serde_json::from_str(&due[0].body).unwrap();
    assert_eq!(payload["type"], json!("factura.cancelled"));
    assert_eq!(payload["data"]["status"], json!("cancelled"));
    // A cancelled invoice's KuDE is no longer served.
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{id}/kude"), None)
            .status,
        409
    );
    // Cancelling twice is an invalid transition.
    let err = c
        .svc
        .apply(&account, &id, &Trigger::Cancelled, &mut c.host)
        .unwrap_err();
    assert_eq!(err.code, "INVALID_TRANSITION");
}

#[test]
fn idempotency_keys_never_cross_environments() {
    let mut c = client();
    let account = c.account.clone();
    let mut acc = c.svc.store.account(&account).unwrap();
    acc.production = Some(kuatia_core::profile::Emisor::sandbox());
    c.svc.store.put_account(acc);
    let live = c
        .svc
        .create_key(&account, Environment::Production, &mut c.host)
        .unwrap();
    let key = c.key.clone();
    let idem = [("Idempotency-Key", "order-7")];
    let sandbox = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &idem,
        Some(&key),
        true,
    );
    assert_eq!(sandbox.status, 201);
    // The same key with a live key is a new production invoice, never the sandbox answer.
    let prod = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &idem,
        Some(&live),
        false,
    );
    assert_eq!(prod.status, 201, "{:?}", prod.json());
    assert_ne!(prod.json()["data"]["id"], sandbox.json()["data"]["id"]);
    // Each environment replays its own answer.
    let again = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &idem,
        Some(&live),
        false,
    );
    assert_eq!((again.status, &again.body), (prod.status, &prod.body));
    let again = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(None)),
        &idem,
        Some(&key),
        true,
    );
    assert_eq!((again.status, &again.body), (sandbox.status, &sandbox.body));
    let live_list = c.call("GET", "/v1/facturas", None, &[], Some(&live), false);
    assert_eq!(live_list.json()["meta"]["total"], json!(1));
}

#[test]
fn simulate_never_changes_what_the_request_asked_for() {
    let mut c = client();
    let mut body = factura(Some("approved"));
    body["establecimiento"] = json!("002");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("INVALID_TIMBRADO"))
    );
    assert_eq!(
        r.json()["error"]["details"][0]["path"],
        json!("tipo_documento")
    );
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(0)
    );
}

#[test]
fn every_number_is_confirmed_and_gaps_are_listed() {
    use kuatia_core::numbering::NumberingKey;
    let mut c = client();
    for _ in 0..3 {
        assert_eq!(
            c.sandbox("POST", "/v1/facturas", Some(factura(None)))
                .status,
            201
        );
    }
    let r = c.sandbox("GET", "/v1/numbering/gaps", None);
    assert_eq!((r.status, r.json()["data"].clone()), (200, json!([])));
    // A number reserved by a host that died before storing the document is a gap, never handed out again.
    let stamp = kuatia_core::profile::Emisor::sandbox().timbrados[0].clone();
    let key = NumberingKey {
        tipo_documento: 1,
        timbrado: stamp.numero,
        establecimiento: stamp.establecimiento,
        punto: stamp.punto_expedicion,
    };
    let account = c.account.clone();
    assert_eq!(
        c.svc
            .store
            .reserve_number(&account, Environment::Sandbox, &key),
        Ok(4)
    );
    let r = c.sandbox("GET", "/v1/numbering/gaps", None);
    assert_eq!(r.json()["data"][0]["numero"], json!(4));
    assert_eq!(r.json()["meta"]["total"], json!(1));
    let next = c.sandbox("POST", "/v1/facturas", Some(factura(None)));
    assert_eq!(next.json()["data"]["numero"], json!("001-001-0000005"));
}

/// Issue 16: the auth scheme is case-insensitive, a non-JSON body is 415, a replay says so, health says nothing else.
#[test]
fn http_hygiene_in_the_core() {
    let mut c = client();
    let key = c.key.clone();
    let auth = format!("bearer {key}");
    let r = c.call(
        "GET",
        "/v1/facturas",
        None,
        &[("Authorization", &auth)],
        None,
        true,
    );
    assert_eq!(r.status, 200);
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &[("Content-Type", "text/plain")],
        Some(&key),
        true,
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (415, json!("UNSUPPORTED_MEDIA_TYPE"))
    );
    let idem = [
        ("Content-Type", "application/json"),
        ("Idempotency-Key", "k-1"),
    ];
    let a = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &idem,
        Some(&key),
        true,
    );
    assert_eq!((a.status, a.header("Idempotent-Replayed")), (201, None));
    let b = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &idem,
        Some(&key),
        true,
    );
    assert_eq!(
        (b.status, b.header("Idempotent-Replayed")),
        (201, Some("true"))
    );
    assert_eq!(a.json()["data"]["id"], b.json()["data"]["id"]);
    let h = c.call("GET", "/v1/health", None, &[], None, false);
    assert_eq!(h.json(), json!({"ok": true, "data": {"status": "ok"}}));
}

/// The signature header of a due delivery.
fn signature(d: &kuatia_service::webhook::Delivery) -> String {
    d.headers
        .iter()
        .find(|(k, _)| k == SIGNATURE_HEADER)
        .unwrap()
        .1
        .clone()
}

#[test]
fn webhook_get_rotate_redeliver_delete() {
    let mut c = client();
    let created = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"]})),
    );
    assert_eq!(created.status, 201);
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let old = created.json()["data"]["secret"]
        .as_str()
        .unwrap()
        .to_string();

    // GET: the webhook without its secret.
    let got = c.sandbox("GET", &format!("/v1/webhooks/{id}"), None);
    assert_eq!(got.status, 200);
    let got = got.json()["data"].clone();
    assert_eq!(got["url"], "https://erp.example/a");
    assert!(got.get("secret").is_none() && got["previous_secret_expires_at"].is_null());
    assert_eq!(c.sandbox("GET", "/v1/webhooks/wh_nope", None).status, 404);

    // Rotation: a new secret, shown once; both sign deliveries during the grace period (24 h by default).
    let rotated = c.sandbox("POST", &format!("/v1/webhooks/{id}/rotate"), None);
    assert_eq!(rotated.status, 200);
    let new = rotated.json()["data"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(new.starts_with("whsec_") && new != old);
    let listed = c.sandbox("GET", "/v1/webhooks", None).json();
    assert!(listed["data"][0].get("secret").is_none());
    assert!(listed["data"][0].get("previous_secret").is_none());
    assert!(listed["data"][0]["previous_secret_expires_at"].is_string());
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    let header = signature(&due[0]);
    assert_eq!(header.matches("v1=").count(), 2, "{header}");
    for s in [&old, &new] {
        assert_eq!(
            verify_signature(s, &header, &due[0].body, now, DEFAULT_TOLERANCE),
            Ok(())
        );
    }
    // After the grace period only the new secret signs.
    let later = now + 86_400;
    let header = signature(&c.svc.due_deliveries(later)[0]);
    assert_eq!(header.matches("v1=").count(), 1, "{header}");
    assert_eq!(
        verify_signature(&old, &header, &due[0].body, later, DEFAULT_TOLERANCE),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(&new, &header, &due[0].body, later, DEFAULT_TOLERANCE),
        Ok(())
    );

    // Manual redelivery: the same event as a new delivery, due at once.
    let first = due[0].clone();
    c.svc.report_delivery(&first.id, true);
    assert!(c.svc.due_deliveries(now).is_empty());
    let again = c.sandbox(
        "POST",
        &format!("/v1/webhooks/{id}/deliveries/{}/redeliver", first.id),
        None,
    );
    assert_eq!(again.status, 202, "{:?}", again.json());
    let again = again.json()["data"].clone();
    assert_eq!(again["event_id"], json!(first.event_id));
    assert_eq!(again["status"], "pending");
    assert_ne!(again["id"], json!(first.id));
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].body, first.body);
    let log = c
        .sandbox("GET", &format!("/v1/webhooks/{id}/deliveries"), None)
        .json();
    assert_eq!(log["meta"]["total"], 2);
    assert_eq!(
        c.sandbox(
            "POST",
            &format!("/v1/webhooks/{id}/deliveries/dlv_nope/redeliver"),
            None
        )
        .status,
        404
    );
    assert_eq!(
        c.sandbox("PUT", &format!("/v1/webhooks/{id}"), None).status,
        405
    );

    // Deletion: pending deliveries are cancelled and no new event reaches it.
    let deleted = c.sandbox("DELETE", &format!("/v1/webhooks/{id}"), None);
    assert_eq!(deleted.status, 200);
    assert!(c.svc.due_deliveries(now).is_empty());
    assert_eq!(
        c.svc.store.delivery(due[0].id.as_str()).unwrap().status,
        "cancelled"
    );
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    assert!(c.svc.due_deliveries(now + 1_000_000).is_empty());
    assert_eq!(
        c.sandbox("GET", &format!("/v1/webhooks/{id}"), None).status,
        404
    );
    assert_eq!(
        c.sandbox("DELETE", &format!("/v1/webhooks/{id}"), None)
            .status,
        404
    );
}

#[test]
fn a_revoked_key_authenticates_nothing_at_once() {
    let mut c = client();
    assert_eq!(c.sandbox("GET", "/v1/facturas", None).status, 200);
    let account = c.svc.store.account(&c.account).unwrap();
    assert!(account.created_at > 0);
    let key = &account.keys[0];
    assert!(key.created_at > 0 && key.revoked_at.is_none());
    assert!(c.key.starts_with(&key.prefix()));
    let prefix = key.prefix();
    let (owner, revoked) = c.svc.revoke_key(&prefix, &mut c.host).unwrap();
    assert_eq!(owner, c.account);
    assert!(revoked.revoked_at.is_some());
    let r = c.sandbox("GET", "/v1/facturas", None);
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["code"], "UNAUTHORIZED");
    assert!(c.svc.revoke_key("zzzzzzzz", &mut c.host).is_none());
    // Another key of the same account still works.
    let other = c
        .svc
        .create_key(&c.account, Environment::Sandbox, &mut c.host)
        .unwrap();
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], Some(&other), true)
            .status,
        200
    );
}

/// A create's 201, a lookup and a list item describe one invoice with the same resource: the 201 and the lookup are
/// written by one function from the document's fields serialized once, the list builds it as values.
#[test]
fn the_201_the_lookup_and_the_list_give_one_resource() {
    let mut c = client();
    let r = c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    assert_eq!(r.status, 201);
    let created = r.json()["data"].clone();
    for part in [
        "items",
        "receptor",
        "totales",
        "timbrado",
        "emisor",
        "condicion",
        "tipo_cambio",
    ] {
        assert!(
            created.get(part).is_some(),
            "the 201 lacks {part}: {created}"
        );
    }
    assert_eq!(
        created["emisor"]["ruc"].as_str().map(|r| r.contains('-')),
        Some(true)
    );
    assert_eq!(
        created["items"][0]["descripcion"],
        json!("Servicio de consultoría")
    );
    let id = created["id"].as_str().unwrap().to_string();
    let looked_up = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(looked_up.status, 200);
    assert_eq!(looked_up.json()["data"], created);
    let list = c.sandbox("GET", "/v1/facturas", None).json();
    assert_eq!(list["data"][0], created, "{list}");
}

impl Client {
    /// A sandbox create with `body` as given (bytes, not re-serialized) and an `Idempotency-Key`, with a key of
    /// `env`.
    fn create_raw(
        &mut self,
        body: &str,
        idempotency_key: &str,
        live: Option<&str>,
    ) -> HttpResponse {
        let key = live.map_or_else(|| self.key.clone(), str::to_string);
        let mut headers = vec![
            ("Authorization".to_string(), format!("Bearer {key}")),
            ("Idempotency-Key".to_string(), idempotency_key.to_string()),
        ];
        if live.is_none() {
            headers.push(("X-Environment".to_string(), "sandbox".to_string()));
        }
        let req = HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers,
            body: body.as_bytes().to_vec(),
        };
        self.svc.handle(&req, &mut self.host)
    }
}

/// Issue 34 #6: the idempotency key compares the parsed request, so the same JSON pretty-printed or with its keys in
/// another order is a replay, not a 409; numbers compare as written.
#[test]
fn the_same_request_pretty_printed_is_a_replay() {
    let mut c = client();
    let compact = factura(None).to_string();
    let a = c.create_raw(&compact, "pretty-1", None);
    assert_eq!((a.status, a.header("Idempotent-Replayed")), (201, None));
    let pretty = r#"{
        "items": [ { "iva": 10, "precio_unitario": 1100000, "cantidad": 1,
                     "descripcion": "Servicio de consultor\u00eda" } ],
        "condicion_pago": 1,
        "receptor": {
            "email": "cliente@example.com", "razon_social": "Cliente Ejemplo S.A.", "ruc": "80069563-1"
        },
        "tipo_documento": 1
    }"#;
    let b = c.create_raw(pretty, "pretty-1", None);
    assert_eq!(
        (b.status, b.header("Idempotent-Replayed")),
        (201, Some("true")),
        "{:?}",
        b.json()
    );
    assert_eq!(a.json()["data"]["id"], b.json()["data"]["id"]);
    // A number written another way is another request (documented: numbers compare as written).
    let other = compact.replace("1100000", "1100000.0");
    let r = c.create_raw(&other, "pretty-1", None);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (409, json!("IDEMPOTENCY_CONFLICT"))
    );
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1)
    );
}

/// Issue 34 #6: an answer that depends on the account's state is not replayed — after production is configured the
/// same key is evaluated again — while a refusal of the body alone is.
#[test]
fn an_answer_that_depends_on_the_account_is_evaluated_again() {
    let mut c = client();
    let account = c.account.clone();
    let live = c
        .svc
        .create_key(&account, Environment::Production, &mut c.host)
        .unwrap();
    let body = factura(None).to_string();
    let r = c.create_raw(&body, "prod-1", Some(&live));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("PRODUCTION_NOT_CONFIGURED"))
    );
    let mut acc = c.svc.store.account(&account).unwrap();
    acc.production = Some(kuatia_core::profile::Emisor::sandbox());
    c.svc.store.put_account(acc);
    let r = c.create_raw(&body, "prod-1", Some(&live));
    assert_eq!(
        (r.status, r.header("Idempotent-Replayed")),
        (201, None),
        "{:?}",
        r.json()
    );
    let again = c.create_raw(&body, "prod-1", Some(&live));
    assert_eq!(
        (again.status, again.header("Idempotent-Replayed")),
        (201, Some("true"))
    );
    assert_eq!(again.json()["data"]["id"], r.json()["data"]["id"]);

    // A body that does not read as a request is refused the same way whatever the account: replayed.
    let bad = r#"{"tipo_documento": 1, "receptor": {"ruc": "80069563-1"}, "items": "none"}"#;
    let first = c.create_raw(bad, "bad-1", None);
    assert_eq!(
        (first.status, first.header("Idempotent-Replayed")),
        (422, None)
    );
    let second = c.create_raw(bad, "bad-1", None);
    assert_eq!(
        (second.status, second.header("Idempotent-Replayed")),
        (422, Some("true"))
    );
    assert_eq!(first.body, second.body);
}

/// An answer stored by an earlier version (the hash of the raw bytes) still replays for the same bytes.
#[test]
fn an_idempotent_answer_stored_before_the_canonical_hash_still_replays() {
    use sha2::{Digest, Sha256};
    let mut c = client();
    let body = factura(None).to_string();
    let first = c.create_raw(&body, "old-1", None);
    assert_eq!(first.status, 201);
    let (_, stored) = c
        .svc
        .store
        .idempotent(&c.account, Environment::Sandbox, "old-1")
        .unwrap();
    let old_hash: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let account = c.account.clone();
    c.svc
        .store
        .put_idempotent(&account, Environment::Sandbox, "old-2", old_hash, stored);
    let r = c.create_raw(&body, "old-2", None);
    assert_eq!(
        (r.status, r.header("Idempotent-Replayed")),
        (201, Some("true"))
    );
    assert_eq!(r.json()["data"]["id"], first.json()["data"]["id"]);
    // Another body against the old row is still a conflict.
    let r = c.create_raw(&factura(Some("approved")).to_string(), "old-2", None);
    assert_eq!(r.status, 409);
}

/// Issue 34 #7: every route refuses a query parameter it does not take (400 `INVALID_QUERY` naming it), the
/// read-only lookup beside the writer too.
#[test]
fn unknown_query_parameters_are_refused_on_every_route() {
    let mut c = client();
    let inv = c
        .sandbox("POST", "/v1/facturas", Some(factura(None)))
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let hook = c
        .sandbox(
            "POST",
            "/v1/webhooks",
            Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"]})),
        )
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (method, path, body) in [
        ("GET", format!("/v1/facturas/{inv}?foo=1"), None),
        ("GET", format!("/v1/facturas/{inv}/kude?foo=1"), None),
        ("GET", format!("/v1/facturas/{inv}/xml?foo"), None),
        ("GET", "/v1/webhooks?foo=1".to_string(), None),
        ("GET", format!("/v1/webhooks/{hook}?foo=1"), None),
        ("GET", "/v1/numbering/gaps?foo=1".to_string(), None),
        ("POST", "/v1/facturas?foo".to_string(), Some(factura(None))),
        (
            "POST",
            format!("/v1/facturas/{inv}/cancel?foo=1"),
            Some(json!({"motivo": "Error en el monto facturado"})),
        ),
    ] {
        let r = c.sandbox(method, &path, body);
        assert_eq!(r.status, 400, "{method} {path}: {:?}", r.json());
        assert_eq!(r.json()["error"]["code"], "INVALID_QUERY", "{path}");
        assert!(
            r.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("'foo'"),
            "{path}: {:?}",
            r.json()
        );
    }
    // Nothing was created by the refused create.
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1)
    );
    // The lookup beside the writer answers as `handle`.
    let key = c.key.clone();
    let req = HttpRequest {
        method: "GET".into(),
        path: format!("/v1/facturas/{inv}?foo=1"),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: Vec::new(),
    };
    let r = c.svc.lookup(&req).unwrap();
    assert_eq!(r.status, 400);
    // The routes still answer without the parameter.
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{inv}"), None)
            .status,
        200
    );
}

/// Issue 34 #7: `GET /v1/webhooks` pages like the other lists.
#[test]
fn the_webhook_list_is_paged() {
    let mut c = client();
    let mut ids = Vec::new();
    for i in 0..3 {
        let r = c.sandbox(
            "POST",
            "/v1/webhooks",
            Some(
                json!({"url": format!("https://erp.example/{i}"), "events": ["factura.approved"]}),
            ),
        );
        assert_eq!(r.status, 201, "{:?}", r.json());
        ids.push(r.json()["data"]["id"].clone());
    }
    let first = c.sandbox("GET", "/v1/webhooks?per_page=2", None).json();
    assert_eq!(first["data"].as_array().unwrap().len(), 2, "{first}");
    assert_eq!(
        (
            &first["meta"]["page"],
            &first["meta"]["per_page"],
            &first["meta"]["total"]
        ),
        (&json!(1), &json!(2), &json!(3))
    );
    assert_eq!(first["meta"]["has_more"], true);
    let second = c
        .sandbox("GET", "/v1/webhooks?per_page=2&page=2", None)
        .json();
    assert_eq!(second["data"].as_array().unwrap().len(), 1, "{second}");
    assert_eq!(second["meta"]["page"], 2);
    assert_eq!(second["meta"]["has_more"], false);
    let mut seen: Vec<Value> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["data"].as_array().unwrap())
        .map(|w| w["id"].clone())
        .collect();
    seen.sort_by_key(|v| v.to_string());
    ids.sort_by_key(|v| v.to_string());
    assert_eq!(seen, ids);
    let r = c.sandbox("GET", "/v1/webhooks?per_page=0", None);
    assert_eq!(r.status, 400);
}

/// Issue 34 #7: every page of a cursor walk reports its own `meta.page` (the cursor carries it).
#[test]
fn cursor_pages_report_their_page() {
    let mut c = client();
    for _ in 0..5 {
        assert_eq!(
            c.sandbox("POST", "/v1/facturas", Some(factura(None)))
                .status,
            201
        );
    }
    let mut path = "/v1/facturas?limit=2".to_string();
    let mut pages = Vec::new();
    let mut ids = Vec::new();
    loop {
        let v = c.sandbox("GET", &path, None).json();
        pages.push(v["meta"]["page"].clone());
        ids.extend(
            v["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].clone()),
        );
        match v["meta"]["next_cursor"].as_str() {
            Some(cursor) => path = format!("/v1/facturas?limit=2&starting_after={cursor}"),
            None => break,
        }
    }
    assert_eq!(pages, [json!(1), json!(2), json!(3)]);
    assert_eq!(ids.len(), 5);
    // A bare invoice id still works as a cursor; it says no page.
    let bare = ids[1].as_str().unwrap();
    let v = c
        .sandbox(
            "GET",
            &format!("/v1/facturas?limit=2&starting_after={bare}"),
            None,
        )
        .json();
    assert_eq!(v["data"][0]["id"], ids[2]);
    assert_eq!(v["meta"]["page"], Value::Null);
    // A cursor of an unknown invoice is refused, with or without a page.
    for bad in [
        "fact_nope.2",
        "fact_nope",
        &format!("{bare}.x"),
        &format!("{bare}.1"),
    ] {
        let r = c.sandbox("GET", &format!("/v1/facturas?starting_after={bad}"), None);
        assert_eq!(r.status, 400, "{bad}");
    }
}

/// Issue 34 #7: the delivery log's times are RFC 3339, and a deleted webhook's log stays readable (by its account
/// only).
#[test]
fn the_delivery_log_is_rfc3339_and_outlives_its_webhook() {
    let mut c = client();
    let hook = c
        .sandbox(
            "POST",
            "/v1/webhooks",
            Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"]})),
        )
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    c.svc.report_delivery(&due[0].id, false);
    let path = format!("/v1/webhooks/{hook}/deliveries");
    let log = c.sandbox("GET", &path, None).json();
    let at = log["data"][0]["log"][0]["at"].as_str().unwrap().to_string();
    time::OffsetDateTime::parse(&at, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert_eq!(log["data"][0]["log"][0]["error"], "request");

    assert_eq!(
        c.sandbox("DELETE", &format!("/v1/webhooks/{hook}"), None)
            .status,
        200
    );
    let after = c.sandbox("GET", &path, None);
    assert_eq!(after.status, 200, "{:?}", after.json());
    assert_eq!(after.json()["data"][0]["id"], json!(due[0].id));
    assert_eq!(after.json()["data"][0]["status"], "cancelled");
    let (_, other) = c.svc.create_account("Otra empresa", &mut c.host);
    assert_eq!(
        c.call("GET", &path, None, &[], Some(&other), true).status,
        404
    );
    assert_eq!(
        c.sandbox("GET", &format!("/v1/webhooks/{hook}"), None)
            .status,
        404
    );
}

/// Issue 34 #7: a RUC with a space inside (`80069563 -1`) is refused by the API, as by every face (one parser).
#[test]
fn a_ruc_with_a_space_inside_is_refused() {
    let mut c = client();
    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("80069563 -1");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.status, 422, "{:?}", r.json());
    assert_eq!(r.json()["error"]["code"], "INVALID_RUC");
    let r = c.sandbox("GET", "/v1/facturas?receptor_ruc=80069563%20-1", None);
    assert_eq!(r.status, 400);
}

/// `(code, path)` of a 422's details.
fn details(r: &HttpResponse) -> Vec<(String, String)> {
    r.json()["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Issue 34 #4: every shape error of a body at once, next to the rules' findings, on the create, cancel and webhook
/// routes; no serde words (`u8`, `struct`, `EOF`).
#[test]
fn every_shape_error_of_a_body_at_once() {
    let mut c = client();
    let p = |c: &str, p: &str| (c.to_string(), p.to_string());
    let r = c.sandbox(
        "POST",
        "/v1/facturas",
        Some(
            json!({"tipo_documento": 1, "receptor": {"ruc": "80069563-1"},
                    "items": [{"descripcion": "a", "cantidad": 1, "precio_unitario": 1000}]}),
        ),
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.REQUIRED", "receptor.razon_social"),
            p("VALIDATION_ERROR.REQUIRED", "items[0].iva")
        ]
    );
    let r = c.sandbox(
        "POST",
        "/v1/facturas",
        Some(json!({"tipo_documento": 99, "receptor": {"ruc": "80069563-2", "razon_social": "Cliente"},
                    "items": [{"descripcion": "", "cantidad": -1, "precio_unitario": "abc", "iva": 7}]})),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], json!("INVALID_RUC"));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "items[0].precio_unitario"),
            p("VALIDATION_ERROR.INVALID_VALUE", "tipo_documento"),
            p("INVALID_RUC", "receptor.ruc"),
            p("VALIDATION_ERROR.REQUIRED", "items[0].descripcion"),
            p("VALIDATION_ERROR.OUT_OF_RANGE", "items[0].cantidad"),
            p("VALIDATION_ERROR.INVALID_VALUE", "items[0].iva"),
        ]
    );
    let mut typed = factura(None);
    typed["tipo_documento"] = json!("1");
    let r = c.sandbox("POST", "/v1/facturas", Some(typed));
    assert_eq!(r.status, 422);
    let f = &r.json()["error"]["details"][0];
    assert_eq!(
        (f["path"].clone(), f["message"].clone()),
        (
            json!("tipo_documento"),
            json!("must be a whole number, found text")
        )
    );
    for body in ["null", "[]", "1"] {
        let mut req = HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {}", c.key)),
                ("X-Environment".into(), "sandbox".into()),
            ],
            body: body.as_bytes().to_vec(),
        };
        let r = c.svc.handle(&req, &mut c.host);
        assert_eq!(r.status, 422, "{body}");
        let f = &r.json()["error"]["details"][0];
        assert_eq!(
            (f["path"].clone(), f["message"].clone()),
            (json!(""), json!("the request body must be a JSON object")),
            "{body}"
        );
        // A repeated key: at the path of the repetition, not the root.
        req.body = br#"{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo"},"items":[{"descripcion":"a","cantidad":1,"precio_unitario":1000,"iva":10,"cantidad":2}]}"#.to_vec();
        let r = c.svc.handle(&req, &mut c.host);
        assert_eq!(
            details(&r),
            [p("VALIDATION_ERROR.NOT_ALLOWED", "items[0].cantidad")]
        );
    }
    // Cancel: no body, `{}`, a wrong type, an unknown field.
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cancel = format!("/v1/facturas/{id}/cancel");
    for body in [None, Some(json!({}))] {
        let r = c.sandbox("POST", &cancel, body.clone());
        assert_eq!(r.status, 422, "{body:?}");
        let f = &r.json()["error"]["details"][0];
        assert_eq!(
            (f["code"].clone(), f["path"].clone(), f["message"].clone()),
            (
                json!("VALIDATION_ERROR.REQUIRED"),
                json!("motivo"),
                json!("is required")
            ),
            "{body:?}"
        );
    }
    let r = c.sandbox("POST", &cancel, Some(json!({"motivo": 5, "x": 1})));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "motivo"),
            p("VALIDATION_ERROR.NOT_ALLOWED", "x")
        ]
    );
    // Webhook registration: both fields at once.
    let r = c.sandbox("POST", "/v1/webhooks", Some(json!({"url": 1})));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "url"),
            p("VALIDATION_ERROR.REQUIRED", "events")
        ]
    );
}

/// An empty create body is `MALFORMED_JSON` (400), as the same empty text is on every face (the adversarial table);
/// only the routes whose body names what they need (cancel: `motivo`) read an absent body as `{}`.
#[test]
fn an_empty_create_body_is_malformed_json_as_on_every_face() {
    let mut c = client();
    let r = c.create_raw("", "empty-1", None);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("MALFORMED_JSON")),
        "{:?}",
        r.json()
    );
}

//! Wire snapshot of the `/v1` service and the panel's redirects: every route of the table (and its 401, 404, 405,
//! 415, 400 and 422 answers) is driven through [`Service::handle`] with the fixed-clock, fixed-seed test host, and
//! each answer's status, headers and body are compared byte for byte with `tests/fixtures/api/<case>.json`. The
//! `panel_*` cases are the account panel's (crate kuatia-panel): panel/tests/golden.rs runs this scenario with the
//! panel in front of the service and compares every case.
//!
//! It guards the moves of issue 30 (the service crate, the route table, typed resources): none of them may change a
//! byte on the wire. After an intended change of an answer, regenerate the fixtures with
//! `KUATIA_BLESS=1 cargo test --test api_golden` and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
pub(crate) mod host;

use host::TestHost;
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The committed fixtures: one file per case.
fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/api")
}

/// How a host answers a request: the service alone, or the panel in front of it.
pub(crate) type Handler =
    Box<dyn FnMut(&mut Service<MemoryStore>, &HttpRequest, &mut TestHost) -> HttpResponse>;

/// Drives the service and records every answer under its case name.
pub(crate) struct Recorder {
    pub(crate) svc: Service<MemoryStore>,
    pub(crate) host: TestHost,
    key: String,
    cases: BTreeMap<String, String>,
    handler: Handler,
}

impl Recorder {
    /// Sends a request and records it as `case`; returns the response body as JSON (Null when it is not JSON).
    pub(crate) fn send(
        &mut self,
        case: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, Value, Vec<(String, String)>) {
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_vec(),
        };
        let r = (self.handler)(&mut self.svc, &req, &mut self.host);
        let body_value = match std::str::from_utf8(&r.body) {
            Ok(s) => json!(s),
            Err(_) => json!({
                "binary_len": r.body.len(),
                "sha256": Sha256::digest(&r.body).iter().map(|b| format!("{b:02x}")).collect::<String>(),
            }),
        };
        let record = json!({
            "request": {
                "method": method,
                "path": path,
                "headers": headers.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
                "body": String::from_utf8_lossy(body),
            },
            "status": r.status,
            "headers": r.headers.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            "body": body_value,
        });
        let text = serde_json::to_string_pretty(&record).unwrap() + "\n";
        assert!(
            self.cases.insert(case.to_string(), text).is_none(),
            "case {case} recorded twice"
        );
        (r.status, r.json(), r.headers)
    }

    /// A sandbox call with the account's key.
    fn sandbox(&mut self, case: &str, method: &str, path: &str, body: Option<Value>) -> Value {
        let auth = format!("Bearer {}", self.key);
        let body = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        let headers = [
            ("Authorization", auth.as_str()),
            ("X-Environment", "sandbox"),
        ];
        self.send(case, method, path, &headers, &body).1
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

/// Runs the whole scenario through [`Service::handle`]; every request is one case.
fn record() -> BTreeMap<String, String> {
    record_with(Box::new(|svc, req, host| svc.handle(req, host)), |_, _| {})
}

/// Runs the whole scenario through `handler`, then `tail` (more cases, given the account id).
pub(crate) fn record_with(
    handler: Handler,
    tail: fn(&mut Recorder, &str),
) -> BTreeMap<String, String> {
    let mut host = TestHost::new();
    let config = Config {
        base_url: "https://api.example.test".into(),
        ..Config::default()
    };
    let mut svc = Service::new(MemoryStore::default(), config);
    let (account, key) = svc.create_account("Empresa de prueba", &mut host);
    let mut r = Recorder {
        svc,
        host,
        key,
        cases: BTreeMap::new(),
        handler,
    };
    let auth = format!("Bearer {}", r.key);
    let sandbox_headers = [
        ("Authorization", auth.as_str()),
        ("X-Environment", "sandbox"),
    ];

    // Routing, authentication and the request checks before any operation.
    r.send("health", "GET", "/v1/health", &[], b"");
    r.send("health_post_405", "POST", "/v1/health", &[], b"");
    r.send("no_route_404", "GET", "/v1/nope", &[], b"");
    r.send("facturas_no_key_401", "GET", "/v1/facturas", &[], b"");
    r.send(
        "facturas_bad_key_401",
        "GET",
        "/v1/facturas",
        &[("Authorization", "Bearer dk_test_nope")],
        b"",
    );
    r.send(
        "facturas_sandbox_key_without_header_401",
        "GET",
        "/v1/facturas",
        &[("Authorization", auth.as_str())],
        b"",
    );
    r.sandbox("facturas_delete_405", "DELETE", "/v1/facturas", None);
    r.sandbox("factura_post_405", "POST", "/v1/facturas/fact_nope", None);
    r.sandbox("webhook_put_405", "PUT", "/v1/webhooks/wh_nope", None);
    r.sandbox("gaps_post_405", "POST", "/v1/numbering/gaps", None);
    r.sandbox(
        "facturas_unknown_query_400",
        "GET",
        "/v1/facturas?bogus=1",
        None,
    );
    let mut text_plain = sandbox_headers.to_vec();
    text_plain.push(("Content-Type", "text/plain"));
    r.send(
        "create_text_plain_415",
        "POST",
        "/v1/facturas",
        &text_plain,
        factura(None).to_string().as_bytes(),
    );
    r.send(
        "create_malformed_json_400",
        "POST",
        "/v1/facturas",
        &sandbox_headers,
        b"{\"tipo_documento\":",
    );
    r.sandbox(
        "create_invalid_422",
        "POST",
        "/v1/facturas",
        Some(json!({"tipo_documento": 1, "items": []})),
    );

    // Webhooks.
    let hook = r.sandbox(
        "webhook_create",
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/a", "events": ["factura.approved", "factura.cancelled"], "description": "ERP"})),
    );
    let hook = hook["data"]["id"].as_str().unwrap().to_string();
    r.sandbox(
        "webhook_create_http_422",
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "http://erp.example/a", "events": ["factura.approved"]})),
    );
    r.sandbox("webhooks_list", "GET", "/v1/webhooks", None);
    r.sandbox("webhook_get", "GET", &format!("/v1/webhooks/{hook}"), None);
    r.sandbox("webhook_get_404", "GET", "/v1/webhooks/wh_nope", None);
    r.sandbox(
        "webhook_rotate",
        "POST",
        &format!("/v1/webhooks/{hook}/rotate"),
        None,
    );

    // Invoices: approved at once, pending, idempotent replay.
    let approved = r.sandbox(
        "create_approved",
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
    );
    let approved = approved["data"]["id"].as_str().unwrap().to_string();
    let pending = r.sandbox(
        "create_pending",
        "POST",
        "/v1/facturas",
        Some(factura(None)),
    );
    let pending = pending["data"]["id"].as_str().unwrap().to_string();
    r.sandbox(
        "create_rejected",
        "POST",
        "/v1/facturas",
        Some(factura(Some("rejected"))),
    );
    let mut idem = sandbox_headers.to_vec();
    idem.push(("Idempotency-Key", "golden-1"));
    let body = factura(Some("approved")).to_string();
    r.send(
        "create_idempotent",
        "POST",
        "/v1/facturas",
        &idem,
        body.as_bytes(),
    );
    r.send(
        "create_idempotent_replay",
        "POST",
        "/v1/facturas",
        &idem,
        body.as_bytes(),
    );
    r.sandbox(
        "factura_get_approved",
        "GET",
        &format!("/v1/facturas/{approved}"),
        None,
    );
    r.sandbox(
        "factura_get_pending",
        "GET",
        &format!("/v1/facturas/{pending}"),
        None,
    );
    r.sandbox("factura_get_404", "GET", "/v1/facturas/fact_nope", None);
    let mut english = sandbox_headers.to_vec();
    english.push(("Accept-Language", "en-US,en;q=0.9"));
    r.send(
        "factura_get_404_en",
        "GET",
        "/v1/facturas/fact_nope",
        &english,
        b"",
    );
    r.sandbox(
        "kude_pending_409",
        "GET",
        &format!("/v1/facturas/{pending}/kude"),
        None,
    );
    r.sandbox(
        "kude_approved",
        "GET",
        &format!("/v1/facturas/{approved}/kude"),
        None,
    );
    r.sandbox(
        "xml_approved",
        "GET",
        &format!("/v1/facturas/{approved}/xml"),
        None,
    );
    r.host.advance(2);
    r.sandbox(
        "factura_get_sent",
        "GET",
        &format!("/v1/facturas/{pending}"),
        None,
    );
    r.host.advance(3);
    r.sandbox(
        "factura_get_pending_approved",
        "GET",
        &format!("/v1/facturas/{pending}"),
        None,
    );
    r.sandbox("facturas_list", "GET", "/v1/facturas", None);
    r.sandbox(
        "facturas_list_filtered",
        "GET",
        "/v1/facturas?status=approved&per_page=1",
        None,
    );
    let next = r.sandbox(
        "facturas_list_page",
        "GET",
        "/v1/facturas?per_page=2&page=2",
        None,
    );
    assert!(next["ok"].as_bool().unwrap_or(false), "{next}");

    // Deliveries of the approvals.
    let log = r.sandbox(
        "deliveries",
        "GET",
        &format!("/v1/webhooks/{hook}/deliveries"),
        None,
    );
    let delivery = log["data"][0]["id"].as_str().unwrap().to_string();
    r.sandbox(
        "deliveries_page",
        "GET",
        &format!("/v1/webhooks/{hook}/deliveries?per_page=1"),
        None,
    );
    r.sandbox(
        "redeliver",
        "POST",
        &format!("/v1/webhooks/{hook}/deliveries/{delivery}/redeliver"),
        None,
    );
    r.sandbox(
        "redeliver_404",
        "POST",
        &format!("/v1/webhooks/{hook}/deliveries/dlv_nope/redeliver"),
        None,
    );

    // A refused create is answered in the reader's language; its retry by a Spanish reader has the same codes, rules
    // and parameters (a refusal of the account's state is evaluated again; a stored refusal's replay is written
    // again for its reader: api_idempotency.rs).
    let mut refused = sandbox_headers.to_vec();
    refused.push(("Idempotency-Key", "golden-lang"));
    let mut bad_ruc = factura(None);
    bad_ruc["receptor"]["ruc"] = json!("80069563-2");
    let bad_ruc = bad_ruc.to_string();
    let mut en = refused.clone();
    en.push(("Accept-Language", "en"));
    r.send(
        "create_invalid_en_422",
        "POST",
        "/v1/facturas",
        &en,
        bad_ruc.as_bytes(),
    );
    let mut es = refused.clone();
    es.push(("Accept-Language", "es"));
    r.send(
        "create_invalid_retry_es_422",
        "POST",
        "/v1/facturas",
        &es,
        bad_ruc.as_bytes(),
    );

    // Cancellation.
    r.sandbox(
        "cancel_no_motivo_422",
        "POST",
        &format!("/v1/facturas/{approved}/cancel"),
        Some(json!({})),
    );
    r.sandbox(
        "cancel",
        "POST",
        &format!("/v1/facturas/{approved}/cancel"),
        Some(json!({"motivo": "Error en el receptor de la factura"})),
    );
    r.sandbox(
        "cancel_again_409",
        "POST",
        &format!("/v1/facturas/{approved}/cancel"),
        Some(json!({"motivo": "Error en el receptor de la factura"})),
    );
    r.sandbox(
        "kude_cancelled_409",
        "GET",
        &format!("/v1/facturas/{approved}/kude"),
        None,
    );
    r.sandbox("numbering_gaps", "GET", "/v1/numbering/gaps", None);
    r.sandbox(
        "webhook_delete",
        "DELETE",
        &format!("/v1/webhooks/{hook}"),
        None,
    );
    r.sandbox(
        "webhook_get_deleted_404",
        "GET",
        &format!("/v1/webhooks/{hook}"),
        None,
    );
    r.sandbox("webhooks_list_empty", "GET", "/v1/webhooks", None);

    tail(&mut r, &account.id);
    r.cases
}

/// The case names of the committed fixtures, sorted.
pub(crate) fn committed_cases() -> Vec<String> {
    let dir = fixture_dir();
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (KUATIA_BLESS=1 writes it)", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    committed
}

/// The cases whose answer differs from its committed fixture.
pub(crate) fn drifted(cases: &BTreeMap<String, String>) -> Vec<String> {
    let dir = fixture_dir();
    let mut drifted = vec![];
    for (case, text) in cases {
        let want = std::fs::read_to_string(dir.join(format!("{case}.json"))).unwrap();
        if &want != text {
            drifted.push(case.clone());
        }
    }
    drifted
}

#[test]
fn every_route_answers_byte_for_byte_as_committed() {
    let cases = record();
    // The scenario is deterministic: a second run gives the same bytes.
    assert_eq!(cases, record(), "two runs of the scenario differ");
    let dir = fixture_dir();
    if std::env::var_os("KUATIA_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            // The panel's cases are panel/tests/golden.rs's to write.
            let panel = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("panel_"));
            if path.extension().is_some_and(|e| e == "json") && !panel {
                std::fs::remove_file(path).unwrap();
            }
        }
        for (case, text) in &cases {
            std::fs::write(dir.join(format!("{case}.json")), text).unwrap();
        }
        return;
    }
    let committed: Vec<String> = committed_cases()
        .into_iter()
        .filter(|c| !c.starts_with("panel_"))
        .collect();
    let produced: Vec<String> = cases.keys().cloned().collect();
    assert_eq!(
        committed, produced,
        "the fixture files differ from the scenario's cases (KUATIA_BLESS=1 regenerates them)"
    );
    let drifted = drifted(&cases);
    assert!(
        drifted.is_empty(),
        "answers differ from tests/fixtures/api/ for {drifted:?} (after an intended change: KUATIA_BLESS=1 cargo test --test api_golden, then review the diff)"
    );
}

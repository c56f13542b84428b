//! Wire snapshot of the `/v1` service and the panel's redirects: every route of the table (and its 401, 404, 405,
//! 415, 400 and 422 answers) is driven through [`Service::handle`] with the fixed-clock, fixed-seed test host, and
//! each answer's status, headers and body are compared byte for byte with `tests/fixtures/api/<case>.json`.
//!
//! It guards the moves of issue 30 (the service crate, the route table, typed resources): none of them may change a
//! byte on the wire. After an intended change of an answer, regenerate the fixtures with
//! `KUATIA_BLESS=1 cargo test --test api_golden` and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, factura, Client};
use host::TestHost;
use kuatia_service::{HttpRequest, MemoryStore, Service};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The committed fixtures: one file per case.
fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/api")
}

/// Drives the service and records every answer under its case name.
struct Recorder {
    svc: Service<MemoryStore>,
    host: TestHost,
    key: String,
    cases: BTreeMap<String, String>,
}

impl Recorder {
    /// Sends a request and records it as `case`; returns the response body as JSON (Null when it is not JSON).
    fn send(
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
        let r = self.svc.handle(&req, &mut self.host);
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

/// Runs the whole scenario; every request is one case.
fn record() -> BTreeMap<String, String> {
    let Client {
        svc,
        host,
        key,
        account,
    } = client();
    let mut r = Recorder {
        svc,
        host,
        key,
        cases: BTreeMap::new(),
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

    panel(&mut r, &account);
    r.cases
}

/// The panel's sign-in, redirects and session pages.
#[cfg(feature = "panel")]
fn panel(r: &mut Recorder, account: &str) {
    r.send("panel_sign_in_page", "GET", "/panel", &[], b"");
    r.send(
        "panel_no_session_redirect",
        "GET",
        "/panel/facturas",
        &[],
        b"",
    );
    r.send("panel_put_405", "PUT", "/panel", &[], b"");
    r.send(
        "panel_post_no_session_403",
        "POST",
        "/panel/salir",
        &[],
        b"",
    );
    let link = r.svc.panel_login_link(account, &mut r.host).unwrap();
    let token = link.split("token=").nth(1).unwrap().to_string();
    r.send(
        "panel_link_page",
        "GET",
        &format!("/panel/entrar?token={token}"),
        &[],
        b"",
    );
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let (status, _, headers) = r.send(
        "panel_link_sign_in",
        "POST",
        "/panel/entrar",
        &form,
        format!("token={token}").as_bytes(),
    );
    assert_eq!(status, 303);
    let set = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Set-Cookie"))
        .unwrap();
    let cookie = set.1.split(';').next().unwrap().to_string();
    let with_cookie = [("Cookie", cookie.as_str())];
    r.send("panel_readiness", "GET", "/panel", &with_cookie, b"");
    r.send(
        "panel_facturas",
        "GET",
        "/panel/facturas",
        &with_cookie,
        b"",
    );
    r.send(
        "panel_webhooks",
        "GET",
        "/panel/webhooks?entorno=sandbox",
        &with_cookie,
        b"",
    );
    r.send(
        "panel_unknown_page",
        "GET",
        "/panel/nope",
        &with_cookie,
        b"",
    );
    let page = r.svc.handle(
        &HttpRequest {
            method: "GET".into(),
            path: "/panel".into(),
            headers: vec![("Cookie".into(), cookie.clone())],
            body: vec![],
        },
        &mut r.host,
    );
    let page = String::from_utf8(page.body).unwrap();
    let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
    let csrf = page[at..].split('"').next().unwrap().to_string();
    let posted = [
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    r.send(
        "panel_post_bad_csrf_403",
        "POST",
        "/panel/ruc-habilitado",
        &posted,
        b"csrf=nope&habilitado=si",
    );
    r.send(
        "panel_ruc_enabled_redirect",
        "POST",
        "/panel/ruc-habilitado",
        &posted,
        format!("csrf={csrf}&habilitado=si").as_bytes(),
    );
    r.send(
        "panel_sign_out_redirect",
        "POST",
        "/panel/salir",
        &posted,
        format!("csrf={csrf}").as_bytes(),
    );
}

#[cfg(not(feature = "panel"))]
fn panel(_: &mut Recorder, _: &str) {}

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
            if path.extension().is_some_and(|e| e == "json") {
                std::fs::remove_file(path).unwrap();
            }
        }
        for (case, text) in &cases {
            std::fs::write(dir.join(format!("{case}.json")), text).unwrap();
        }
        return;
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (KUATIA_BLESS=1 writes it)", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    let produced: Vec<String> = cases.keys().cloned().collect();
    assert_eq!(
        committed, produced,
        "the fixture files differ from the scenario's cases (KUATIA_BLESS=1 regenerates them)"
    );
    let mut drifted = vec![];
    for (case, text) in &cases {
        let want = std::fs::read_to_string(dir.join(format!("{case}.json"))).unwrap();
        if &want != text {
            drifted.push(case.clone());
        }
    }
    assert!(
        drifted.is_empty(),
        "answers differ from tests/fixtures/api/ for {drifted:?} (after an intended change: KUATIA_BLESS=1 cargo test --test api_golden, then review the diff)"
    );
}

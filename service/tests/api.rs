//! Drives the sans-IO service like an HTTP client would: the spec's flows, paging and account isolation, the
//! production rules, SIFEN outcomes, cancellation and numbering. Idempotency, webhooks and the HTTP surface have
//! files of their own (`api_idempotency.rs`, `api_webhooks.rs`, `api_http.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, factura, Answer};
use kuatia_core::lifecycle::{Estado, SifenError, Trigger};
use kuatia_service::auth::Environment;
use kuatia_service::{HttpRequest, Store};
use serde_json::{json, Value};

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
    let id = r.id();
    assert_eq!(r.json()["data"]["status"], json!("pending"));
    // KuDE refused before approval (spec §3 rule 4).
    let k = c.sandbox("GET", &format!("/v1/facturas/{id}/kude"), None);
    assert_eq!(k.code(), (409, json!("KUDE_NOT_AVAILABLE")));
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
    let id = c.sandbox("POST", "/v1/facturas", Some(body)).id();
    c.host.advance(10);
    let d = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"].clone();
    assert_eq!(d["status"], json!("rejected"));
    assert_eq!(
        d["sifen_errors"][0],
        json!({"code": "SBX-RUC-RECEPTOR", "message": "RUC del receptor inexistente o inactivo (rechazo simulado del sandbox)", "field": "receptor.ruc"})
    );
}

#[test]
fn paging_and_account_isolation() {
    let mut c = client();
    c.create_many(5, Some("approved"));
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
        .with_key("GET", "/v1/facturas", None, &other_key, true)
        .json();
    assert_eq!(l["meta"]["total"], json!(0));
    let r = c.with_key(
        "GET",
        &format!("/v1/facturas/{first}"),
        None,
        &other_key,
        true,
    );
    assert_eq!(r.status, 404);
    // Numbers are per account: the other account starts at 1.
    let r = c.with_key(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &other_key,
        true,
    );
    assert_eq!(r.json()["data"]["numero"], json!("001-001-0000001"));
}

#[test]
fn production_rules_and_preflight() {
    let mut c = client();
    let account = c.account.clone();
    let live = c.live_key();
    assert!(live.starts_with("dk_live_"));
    // A live key with the sandbox header is refused with its own code.
    let r = c.with_key("GET", "/v1/facturas", None, &live, true);
    assert_eq!(r.code(), (400, json!("LIVE_KEY_IN_SANDBOX")));
    // _simulate is refused in production.
    let r = c.with_key(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &live,
        false,
    );
    assert_eq!(r.code(), (422, json!("SIMULATE_NOT_ALLOWED")));
    // No production profile yet.
    let r = c.with_key("POST", "/v1/facturas", Some(factura(None)), &live, false);
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
        c.with_key("GET", "/v1/facturas", None, &live, false).json()["meta"]["total"],
        json!(0)
    );
    // A production key with the sandbox test certificate (RUC of another taxpayer) is refused.
    let mut prof = kuatia_core::profile::Emisor::sandbox();
    prof.ambiente = kuatia_core::profile::Ambiente::Produccion;
    prof.ruc = "80069563-1".into();
    let mut acc = c.svc.store.account(&account).unwrap();
    acc.production = Some(prof);
    c.svc.store.put_account(acc);
    let r = c.with_key("POST", "/v1/facturas", Some(factura(None)), &live, false);
    assert_eq!(r.code(), (422, json!("CERTIFICATE_RUC_MISMATCH")));
}

#[test]
fn host_reports_sifen_outcomes() {
    let mut c = client();
    let account = c.account.clone();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("pending"))))
        .id();
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
        .id();
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
fn simulate_never_changes_what_the_request_asked_for() {
    let mut c = client();
    let mut body = factura(Some("approved"));
    body["establecimiento"] = json!("002");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.code(), (422, json!("INVALID_TIMBRADO")));
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
    c.create_many(3, None);
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
        c.with_key("GET", "/v1/facturas", None, &other, true).status,
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

/// `lookup` answers a status lookup exactly as `handle` does (found, other environment, unknown, no key), and
/// nothing else.
#[test]
fn a_lookup_beside_the_writer_answers_as_handle() {
    let mut c = client();
    let created = c.sandbox("POST", "/v1/facturas", Some(factura(None)));
    let id = created.id();
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

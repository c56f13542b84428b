//! The service's idempotency keys, driven like an HTTP client would: the first answer replayed, the create's
//! phases, environments kept apart, the parsed request compared, answers that depend on the account evaluated again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, factura, Answer};
use kuatia_service::auth::Environment;
use kuatia_service::{HttpRequest, Store};
use serde_json::json;

#[test]
fn idempotency_key_returns_the_first_result() {
    let mut c = client();
    let key = c.key.clone();
    let a = c.create_once(factura(None), "order-42", &key, true);
    let b = c.create_once(factura(None), "order-42", &key, true);
    assert_eq!((a.status, &a.body), (b.status, &b.body));
    assert_eq!(b.header("Idempotent-Replayed"), Some("true"));
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1)
    );
    let conflict = c.create_once(factura(Some("approved")), "order-42", &key, true);
    assert_eq!(conflict.code(), (409, json!("IDEMPOTENCY_CONFLICT")));
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
        Step::Done(r) => assert_eq!(r.code(), (409, json!("IDEMPOTENCY_IN_PROGRESS"))),
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

#[test]
fn idempotency_keys_never_cross_environments() {
    let mut c = client();
    let account = c.account.clone();
    let mut acc = c.svc.store.account(&account).unwrap();
    acc.production = Some(kuatia_core::profile::Emisor::sandbox());
    c.svc.store.put_account(acc);
    let live = c.live_key();
    let key = c.key.clone();
    let sandbox = c.create_once(factura(None), "order-7", &key, true);
    assert_eq!(sandbox.status, 201);
    // The same key with a live key is a new production invoice, never the sandbox answer.
    let prod = c.create_once(factura(None), "order-7", &live, false);
    assert_eq!(prod.status, 201, "{:?}", prod.json());
    assert_ne!(prod.json()["data"]["id"], sandbox.json()["data"]["id"]);
    // Each environment replays its own answer.
    let again = c.create_once(factura(None), "order-7", &live, false);
    assert_eq!((again.status, &again.body), (prod.status, &prod.body));
    let again = c.create_once(factura(None), "order-7", &key, true);
    assert_eq!((again.status, &again.body), (sandbox.status, &sandbox.body));
    let live_list = c.with_key("GET", "/v1/facturas", None, &live, false);
    assert_eq!(live_list.json()["meta"]["total"], json!(1));
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
    assert_eq!(r.code(), (409, json!("IDEMPOTENCY_CONFLICT")));
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
    let live = c.live_key();
    let body = factura(None).to_string();
    let r = c.create_raw(&body, "prod-1", Some(&live));
    assert_eq!(r.code(), (422, json!("PRODUCTION_NOT_CONFIGURED")));
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
    let stored = c
        .svc
        .store
        .idempotent(&c.account, Environment::Sandbox, "old-1")
        .unwrap();
    let old_hash: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let account = c.account.clone();
    c.svc.store.put_idempotent(
        &account,
        Environment::Sandbox,
        "old-2",
        kuatia_service::IdempotentReply {
            body_hash: old_hash,
            ..stored
        },
    );
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

/// Issue 33, bounded storage: inside the replay window a retry gets the first answer byte for byte; the sweep after
/// it drops the stored answer (the key, its hash and its invoice stay) and forgets a kept refusal; a retry after any
/// time then gets the invoice as it is now (201, `Idempotent-Replayed`) and creates nothing; another body is still a
/// conflict.
#[test]
fn after_the_replay_window_a_retry_gets_the_invoice_and_creates_nothing() {
    use kuatia_service::DEFAULT_IDEMPOTENCY_WINDOW;
    let mut c = client();
    let key = c.key.clone();
    let first = c.create_once(factura(None), "order-33", &key, true);
    assert_eq!(first.status, 201);
    let id = first.json()["data"]["id"].as_str().unwrap().to_string();
    // A refusal that depends only on the body is kept for the window too.
    let bad = c.create_raw("{", "bad-33", None);
    assert_eq!(bad.status, 400);
    let kept =
        |c: &client::Client, k: &str| c.svc.store.idempotent(&c.account, Environment::Sandbox, k);

    c.host.advance(DEFAULT_IDEMPOTENCY_WINDOW - 1);
    c.svc.tick(&mut c.host);
    let now = c.host.now.unix_timestamp();
    assert!(!c.svc.sweep_idempotency(now));
    let inside = c.create_once(factura(None), "order-33", &key, true);
    assert_eq!((inside.status, &inside.body), (201, &first.body));
    assert_eq!(inside.header("Idempotent-Replayed"), Some("true"));
    assert_eq!(c.create_raw("{", "bad-33", None).body, bad.body);
    assert!(kept(&c, "order-33").unwrap().response.is_some());

    c.host.advance(2);
    let now = c.host.now.unix_timestamp();
    assert!(
        !c.svc.sweep_idempotency(now),
        "two keys are less than a batch"
    );
    let swept = kept(&c, "order-33").unwrap();
    assert_eq!(swept.response, None, "the answer outlived its window");
    assert_eq!(
        (swept.status, swept.invoice_id.as_deref()),
        (201, Some(id.as_str()))
    );
    assert_eq!(
        kept(&c, "bad-33"),
        None,
        "a refusal created nothing to keep"
    );

    // Years later the key still finds its invoice, as it is now (approved by the simulated SIFEN meanwhile).
    c.host.advance(10 * 365 * 86_400);
    let later = c.create_once(factura(None), "order-33", &key, true);
    assert_eq!(later.status, 201);
    assert_eq!(later.header("Idempotent-Replayed"), Some("true"));
    assert_eq!(later.header("Content-Type"), first.header("Content-Type"));
    let now_resource = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(later.json(), now_resource.json());
    assert_eq!(later.json()["data"]["status"], "approved");
    assert_eq!(first.json()["data"]["status"], "pending");
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1),
        "a replay after the window created a second invoice"
    );
    let conflict = c.create_once(factura(Some("approved")), "order-33", &key, true);
    assert_eq!(conflict.code(), (409, json!("IDEMPOTENCY_CONFLICT")));
    // The refusal's key is free: the same bad body is evaluated again (the same answer, not a replay).
    let again = c.create_raw("{", "bad-33", None);
    assert_eq!(
        (again.status, again.header("Idempotent-Replayed")),
        (400, None)
    );
}

/// A stored refusal is replayed for the reader who retries: written in English for the first request
/// (`Accept-Language: en`), the replay of a Spanish reader has the same status, codes, rules and parameters, its text
/// in Spanish (issue 32).
#[test]
fn a_replayed_refusal_speaks_the_replaying_readers_language() {
    let mut c = client();
    let body = factura(None).to_string();
    let key = c.key.clone();
    let first = c.create_raw(&body, "lang-1", None);
    assert_eq!(first.status, 201);
    // The stored answer a refused create leaves (as built, in English) under the key of this body.
    let refusal = kuatia_service::ApiError::findings(&[kuatia_core::rule::ruc_check_digit(
        "receptor.ruc",
        1,
        2,
    )])
    .response();
    let stored = c
        .svc
        .store
        .idempotent(&c.account, Environment::Sandbox, "lang-1")
        .unwrap();
    let account = c.account.clone();
    c.svc.store.put_idempotent(
        &account,
        Environment::Sandbox,
        "lang-1",
        kuatia_service::IdempotentReply {
            status: 422,
            invoice_id: None,
            response: Some(refusal),
            ..stored
        },
    );
    let replay = |c: &mut client::Client, lang: &str| {
        let extra = [("Idempotency-Key", "lang-1"), ("Accept-Language", lang)];
        let r = c.call_raw(
            "POST",
            "/v1/facturas",
            body.as_bytes().to_vec(),
            &extra,
            Some(&key),
            true,
        );
        assert_eq!(
            (r.status, r.header("Idempotent-Replayed")),
            (422, Some("true"))
        );
        r
    };
    let en = replay(&mut c, "en");
    let es = replay(&mut c, "es");
    assert_eq!(en.header("Content-Language"), Some("en"));
    assert_eq!(es.header("Content-Language"), Some("es-PY"));
    let (en, es) = (en.json()["error"].clone(), es.json()["error"].clone());
    assert_eq!(
        en["message"],
        "INVALID_RUC at receptor.ruc: wrong RUC check digit: expected 1, got 2"
    );
    assert_eq!(
        es["message"],
        "INVALID_RUC en receptor.ruc: El dígito verificador del RUC no corresponde: debería ser 1, no 2"
    );
    for field in ["code", "rule"] {
        assert_eq!(en[field], es[field], "{field}");
    }
    assert_eq!(en["rule"], "api.finding_at");
    let d = |v: &serde_json::Value| {
        let f = &v["details"][0];
        (
            f["code"].clone(),
            f["path"].clone(),
            f["rule"].clone(),
            f["params"].clone(),
        )
    };
    assert_eq!(d(&en), d(&es));
    assert_eq!(
        es["details"][0]["params"],
        json!({"expected": "1", "got": "2"})
    );
}

//! `kuatia_service` through the C ABI, called from Rust: the spec's flow, answers versus call errors, the sandbox on
//! the caller's clock, webhooks, keys and seeds, one service shared by many threads, NULL arguments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::service::*;
use common::*;
use kuatia::*;
use std::ptr::{null, null_mut};

#[test]
fn service_spec_flow_signed_approved_get_and_kude() {
    let svc = new_service(Some(r#"{"base_url":"https://erp.example.test/"}"#));
    let signer = sandbox();
    let (account, key) = create_account(svc, 1);
    assert!(account.starts_with("acct_") && key.starts_with("dk_test_"));
    let r = post(
        svc,
        "/v1/facturas",
        Some(&key),
        &factura("approved"),
        2,
        signer,
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json()["data"].clone();
    assert_eq!(d["status"], "approved");
    assert_eq!(d["numero"], "001-001-0000001");
    let cdc = d["cdc"].as_str().unwrap().to_string();
    assert_eq!(cdc.len(), 44);
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(
        d["kude_url"],
        format!("https://erp.example.test/v1/facturas/{id}/kude")
    );
    // The CDC parses with the library's own parser and carries the sandbox RUC and the number.
    let mut parsed = zero();
    assert_eq!(
        unsafe { kuatia_cdc_parse(cdc.as_ptr(), cdc.len(), &mut parsed, null_mut()) },
        kuatia_status::Ok
    );
    let parsed: serde_json::Value = serde_json::from_str(&text(parsed)).unwrap();
    assert_eq!(parsed["ruc"], "44444401-7");

    let g = get(
        svc,
        &format!("/v1/facturas/{id}"),
        Some(&key),
        NOW_UNIX + 1,
        3,
    );
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["data"]["cdc"], cdc.as_str());
    assert_eq!(g.json()["data"]["status"], "approved");

    let k = get(
        svc,
        &format!("/v1/facturas/{id}/kude"),
        Some(&key),
        NOW_UNIX + 2,
        4,
    );
    assert_eq!(k.status, 200);
    assert_eq!(k.header("Content-Type"), Some("application/pdf"));
    assert!(k.body.starts_with(b"%PDF-") && k.body.len() > 1000);
    assert!(
        k.body.windows(5).any(|w| w == b"%%EOF"),
        "a complete PDF, binary-safe through out_body"
    );
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

/// The in-process service has kuatia-service's `email` and `archive` (issue 36, issue 33): an approval of a document
/// naming `receptor.email` stores the buyer's message `captured` (nothing sends in-process), a resend to another
/// address adds a second one, and `GET /v1/archivo` answers the month's zip with the document's XML. Before, both
/// routes were 404 and the invoice's `email` was `null`.
#[test]
fn service_captures_the_buyers_email_and_builds_the_months_archive() {
    let svc = new_service(None);
    let signer = sandbox();
    let (_, key) = create_account(svc, 1);
    let mut body = factura("approved");
    body.as_object_mut().unwrap().remove("_simulate");
    body["receptor"]["email"] = "compras@example.com".into();
    let r = post(svc, "/v1/facturas", Some(&key), &body, 2, signer);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json()["data"].clone();
    let (id, cdc) = (d["id"].as_str().unwrap(), d["cdc"].as_str().unwrap());
    assert_eq!(
        d["email"],
        serde_json::Value::Null,
        "nothing queued before the approval"
    );
    // The simulated SIFEN answers after `sandbox_answer_after` (5 s); the approval queues the message.
    let s = seed(3);
    assert_eq!(
        unsafe { kuatia_service_tick(svc, NOW_UNIX + 5, s.as_ptr(), s.len(), null_mut()) },
        kuatia_status::Ok
    );
    let inv = get(
        svc,
        &format!("/v1/facturas/{id}"),
        Some(&key),
        NOW_UNIX + 5,
        4,
    )
    .json();
    assert_eq!(inv["data"]["status"], "approved");
    assert_eq!(inv["data"]["email"]["status"], "captured");
    assert_eq!(inv["data"]["email"]["to"], "compras@example.com");
    let emails = |n: u8| {
        let r = get(
            svc,
            &format!("/v1/facturas/{id}/emails"),
            Some(&key),
            NOW_UNIX + 6,
            n,
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        r.json()["data"].as_array().unwrap().clone()
    };
    let first = emails(5);
    assert_eq!(first.len(), 1);
    assert_eq!(
        (&first[0]["kind"], &first[0]["status"], &first[0]["to"]),
        (
            &"approved".into(),
            &"captured".into(),
            &"compras@example.com".into()
        )
    );
    let again = handle(
        svc,
        "POST",
        &format!("/v1/facturas/{id}/email"),
        Some(&key),
        Some(&serde_json::json!({"to": "contabilidad@example.com"})),
        NOW_UNIX + 6,
        6,
        null(),
    );
    assert_eq!(
        again.status,
        202,
        "{}",
        String::from_utf8_lossy(&again.body)
    );
    assert_eq!(again.json()["data"]["status"], "captured");
    let both = emails(7);
    assert_eq!(both.len(), 2);
    assert_eq!(both[1]["to"], "contabilidad@example.com");

    let zip = get(svc, "/v1/archivo?mes=2025-03", Some(&key), NOW_UNIX + 7, 8);
    assert_eq!(zip.status, 200, "{}", String::from_utf8_lossy(&zip.body));
    assert_eq!(zip.header("Content-Type"), Some("application/zip"));
    assert!(
        zip.body.starts_with(b"PK\x03\x04"),
        "a zip, binary-safe through out_body"
    );
    let member = format!("{cdc}.xml");
    assert!(zip
        .body
        .windows(member.len())
        .any(|w| w == member.as_bytes()));
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_unauthorized_and_http_errors_are_answers_not_call_errors() {
    let svc = new_service(None);
    let (_, key) = create_account(svc, 1);
    let r = get(svc, "/v1/facturas", None, NOW_UNIX, 2);
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["code"], "UNAUTHORIZED");
    assert_eq!(r.header("WWW-Authenticate"), Some("Bearer"));
    let wrong = format!("{}x", &key[..key.len() - 1]);
    let r = get(svc, "/v1/facturas", Some(&wrong), NOW_UNIX, 3);
    assert_eq!(r.status, 401);
    let r = get(svc, "/v1/nada", Some(&key), NOW_UNIX, 4);
    assert_eq!(r.status, 404);
    let r = get(svc, "/v1/facturas", Some(&key), NOW_UNIX, 5);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["meta"]["total"], 0);
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sandbox_progresses_with_the_callers_clock_and_unsigned_without_a_signer() {
    let svc = new_service(Some(
        r#"{"sandbox_send_after":10,"sandbox_answer_after":20}"#,
    ));
    let (_, key) = create_account(svc, 1);
    let mut body = factura("approved");
    body.as_object_mut().unwrap().remove("_simulate");
    let r = post(svc, "/v1/facturas", Some(&key), &body, 2, null());
    assert_eq!(r.status, 201);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let status_at = |t: i64, n: u8| {
        get(svc, &format!("/v1/facturas/{id}"), Some(&key), t, n).json()["data"]["status"].clone()
    };
    assert_eq!(status_at(NOW_UNIX + 9, 3), "pending");
    assert_eq!(status_at(NOW_UNIX + 10, 4), "sent");
    // kuatia_service_tick advances it without a request.
    let s = seed(5);
    assert_eq!(
        unsafe { kuatia_service_tick(svc, NOW_UNIX + 20, s.as_ptr(), s.len(), null_mut()) },
        kuatia_status::Ok
    );
    assert_eq!(status_at(NOW_UNIX + 20, 6), "approved");
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_webhooks_due_signed_and_reported() {
    let svc = new_service(None);
    let (_, key) = create_account(svc, 1);
    let hook =
        serde_json::json!({"url": "https://erp.example.test/hook", "events": ["factura.approved"]});
    let w = post(svc, "/v1/webhooks", Some(&key), &hook, 2, null());
    assert_eq!(w.status, 201);
    let secret = w.json()["data"]["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let r = post(
        svc,
        "/v1/facturas",
        Some(&key),
        &factura("approved"),
        3,
        null(),
    );
    assert_eq!(r.status, 201);

    let due = |now: i64| -> Vec<serde_json::Value> {
        let mut out = zero();
        assert_eq!(
            unsafe { kuatia_service_due_deliveries(svc, now, &mut out, null_mut()) },
            kuatia_status::Ok
        );
        serde_json::from_str(&text(out)).unwrap()
    };
    let list = due(NOW_UNIX);
    assert_eq!(list.len(), 1);
    let d = &list[0];
    assert_eq!(d["url"], "https://erp.example.test/hook");
    let body = d["body"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap()["type"],
        "factura.approved"
    );
    let headers: Vec<(String, String)> = serde_json::from_value(d["headers"].clone()).unwrap();
    let sig = &headers
        .iter()
        .find(|(k, _)| k == "Kuatia-Signature")
        .unwrap()
        .1;
    // Independent check of the signature: HMAC-SHA256 over "t.body" recomputed here from the RFC 2104 definition.
    let t = sig.split(',').next().unwrap().strip_prefix("t=").unwrap();
    assert_eq!(t, NOW_UNIX.to_string());
    let v1 = sig.split(",v1=").nth(1).unwrap();
    assert_eq!(
        v1,
        hmac_sha256_hex(secret.as_bytes(), format!("{t}.{body}").as_bytes())
    );

    let id = d["id"].as_str().unwrap();
    let report = |ok: bool| -> serde_json::Value {
        let mut out = zero();
        assert_eq!(
            unsafe {
                kuatia_service_report_delivery(svc, id.as_ptr(), id.len(), ok, &mut out, null_mut())
            },
            kuatia_status::Ok
        );
        serde_json::from_str(&text(out)).unwrap()
    };
    let failed = report(false);
    assert_eq!(failed["status"], "pending");
    assert_eq!(failed["next_attempt_at"], NOW_UNIX + 60);
    assert!(due(NOW_UNIX + 59).is_empty());
    assert_eq!(due(NOW_UNIX + 60).len(), 1);
    assert_eq!(report(true)["status"], "delivered");
    assert!(due(NOW_UNIX + 100_000).is_empty());

    let mut err = null_mut();
    let mut out = zero();
    let unknown = "dlv_nope";
    let st = unsafe {
        kuatia_service_report_delivery(
            svc,
            unknown.as_ptr(),
            unknown.len(),
            true,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(err_parts(err).1, "NOT_FOUND");
    assert!(out.ptr.is_null());
    unsafe { kuatia_service_free(svc) };
}

/// HMAC-SHA256 (RFC 2104) over the sha2 crate, as hex.
fn hmac_sha256_hex(key: &[u8], msg: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |b: u8| k.iter().map(|x| x ^ b).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(msg)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    outer.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn service_keys_seeds_and_argument_errors() {
    let svc = new_service(None);
    let (account, _) = create_account(svc, 1);
    // The seed is the only randomness: the same seed gives the same id, another seed another id.
    let other = new_service(None);
    assert_eq!(create_account(other, 1).0, account);
    assert_ne!(create_account(other, 9).0, account);
    unsafe { kuatia_service_free(other) };

    let live = create_key(svc, &account, true, 2).unwrap();
    assert!(live.starts_with("dk_live_"), "{live}");
    // The new live key is recognised: the helper sends X-Environment: sandbox, which live keys must not.
    let r = get(svc, "/v1/facturas", Some(&live), NOW_UNIX, 3);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "LIVE_KEY_IN_SANDBOX");

    let (st, err) = create_key(svc, "acct_nobody", false, 2).unwrap_err();
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(
        err_parts(err),
        (
            kuatia_status::InvalidInput,
            "NOT_FOUND".into(),
            "account_id".into()
        )
    );

    let s = seed(2);
    let mut out = zero();
    // Seeds must be exactly 32 bytes; NULL service; absurd clock; malformed request and config JSON.
    let name = "x";
    let short = [0u8; 16];
    let (this, bad, good) = (svc as *const kuatia_service, short.as_ptr(), s.as_ptr());
    let arg = (kuatia_status::InvalidArgument, "INVALID_ARGUMENT");
    let input = (
        kuatia_status::InvalidInput,
        "VALIDATION_ERROR.INVALID_FORMAT",
    );
    for (target, now, seed, seed_len, want, want_path) in [
        (this, NOW_UNIX, bad, short.len(), arg, "seed"),
        (this, NOW_UNIX, null(), 32, arg, "seed"),
        (null(), NOW_UNIX, good, 32, arg, "svc"),
        (this, i64::MAX, good, 32, input, "now_unix"),
    ] {
        let mut err = null_mut();
        let st = unsafe {
            kuatia_service_create_account(
                target,
                name.as_ptr(),
                1,
                now,
                seed,
                seed_len,
                &mut out,
                &mut err,
            )
        };
        assert_eq!(st, want.0, "{want_path}");
        let (status, code, path) = err_parts(err);
        assert_eq!(
            (status, code.as_str(), path.as_str()),
            (want.0, want.1, want_path)
        );
        assert!(out.ptr.is_null());
    }

    let (mut head, mut body) = (zero(), zero());
    for (req, want_code, want_path) in [
        (r#"{"method":"GET"#, "MALFORMED_JSON", "request.method"),
        (
            r#"{"method":"GET","path":7}"#,
            "VALIDATION_ERROR.INVALID_TYPE",
            "request.path",
        ),
        (
            r#"{"method":"GET","path":"/v1/health","body":"x"}"#,
            "VALIDATION_ERROR.NOT_ALLOWED",
            "request.body",
        ),
    ] {
        let (st, err) = handle_raw(svc, (req.as_ptr(), req.len()), &s, &mut head, &mut body);
        assert_eq!(st, kuatia_status::InvalidInput, "{req}");
        let (_, code, path) = err_parts(err);
        assert_eq!(
            (code.as_str(), path.as_str()),
            (want_code, want_path),
            "{req}"
        );
        assert!(head.ptr.is_null() && body.ptr.is_null());
    }
    // An unknown option is named as such (the one JSON classifier: unknown field → NOT_ALLOWED).
    let bad = br#"{"base_url":"x","colour":1}"#;
    let mut err = null_mut();
    let mut other = null_mut();
    assert_eq!(
        unsafe { kuatia_service_new(bad.as_ptr(), bad.len(), &mut other, &mut err) },
        kuatia_status::InvalidInput
    );
    assert!(other.is_null());
    assert_eq!(err_parts(err).1, "VALIDATION_ERROR.NOT_ALLOWED");
    // Nothing in-process sends e-mail: the host's outbox switch is not a JSON option (messages stay `captured`).
    let bad = br#"{"email_outbox":true}"#;
    let mut err = null_mut();
    assert_eq!(
        unsafe { kuatia_service_new(bad.as_ptr(), bad.len(), &mut other, &mut err) },
        kuatia_status::InvalidInput
    );
    assert!(other.is_null());
    assert_eq!(err_parts(err).1, "VALIDATION_ERROR.NOT_ALLOWED");
    // Freeing NULL is harmless.
    unsafe { kuatia_service_free(null_mut()) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn one_service_many_threads() {
    struct Shared(*mut kuatia_service);
    // SAFETY (test): the handle is documented as shareable; the mutex inside serializes the calls.
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let svc = Shared(new_service(None));
    let (_, key) = create_account(svc.0, 1);
    let numbers = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u8)
            .map(|t| {
                let (svc, key) = (&svc, &key);
                scope.spawn(move || {
                    (0..3u8)
                        .map(|i| {
                            let r = post(
                                svc.0,
                                "/v1/facturas",
                                Some(key),
                                &factura("approved"),
                                10 + t * 10 + i,
                                null(),
                            );
                            assert_eq!(r.status, 201);
                            r.json()["data"]["numero"].as_str().unwrap().to_string()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    let mut sorted = numbers.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        12,
        "every invoice got its own number: {numbers:?}"
    );
    assert_eq!(sorted.last().unwrap(), "001-001-0000012");
    unsafe { kuatia_service_free(svc.0) };
}

#[test]
fn service_null_arguments_are_named_and_nothing_is_written() {
    let svc = new_service(None);
    let s = seed(1);
    let req = r#"{"method":"GET","path":"/v1/health"}"#;
    let (mut head, mut body) = (zero(), zero());
    for (request, with_head, want) in [
        ((req.as_ptr(), req.len()), false, "out_head"),
        ((null(), 0), true, "request_json"),
    ] {
        let out_head: *mut kuatia_bytes = if with_head { &mut head } else { null_mut() };
        let (st, err) = handle_raw(svc, request, &s, out_head, &mut body);
        assert_eq!(
            (st, err_parts(err).2.as_str()),
            (kuatia_status::InvalidArgument, want)
        );
        assert!(head.ptr.is_null() && body.ptr.is_null());
    }
    // The health route answers without a key, and an empty body is a valid (non-NULL) buffer.
    let r = get(svc, "/v1/health", None, NOW_UNIX, 2);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["status"], "ok");
    let mut err = null_mut();
    assert_eq!(
        unsafe { kuatia_service_due_deliveries(svc, NOW_UNIX, null_mut(), &mut err) },
        kuatia_status::InvalidArgument
    );
    assert_eq!(err_parts(err).2, "out_json");
    unsafe { kuatia_service_free(svc) };
}

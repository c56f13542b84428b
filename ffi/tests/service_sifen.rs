//! `kuatia_service` SIFEN transmission through the host, called from Rust: the production profile set through the
//! ABI, SIFEN jobs handed to the host and raw answers reported back, argument errors as status codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::service::*;
use common::*;
use kuatia::*;
use std::ptr::{null, null_mut};

#[test]
fn service_production_profile_is_set_through_the_abi() {
    let svc = new_service(None);
    let signer = sandbox();
    let (account, _) = create_account(svc, 1);
    let live = create_key(svc, &account, true, 2).unwrap();
    // No production profile yet: live invoices are refused.
    let f = serde_json::json!({"tipo_documento": 1, "condicion_pago": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1000, "iva": 10}]});
    let r = post_live(svc, &live, &f, signer);
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], "PRODUCTION_NOT_CONFIGURED");
    // A bad profile names the field under `profile`; an unknown account is NOT_FOUND; NULLs are named.
    let (st, code, path) = set_production_profile(svc, &account, Some(r#"{"ruc":1}"#)).unwrap_err();
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(code, "VALIDATION_ERROR.INVALID_TYPE");
    assert_eq!(path, "profile.ruc");
    let (st, code, path) = set_production_profile(svc, "acct_nobody", None).unwrap_err();
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (kuatia_status::InvalidInput, "NOT_FOUND", "account_id")
    );
    let mut err = null_mut();
    let st = unsafe { kuatia_service_set_production_profile(svc, null(), 0, null(), 0, &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "account_id");
    let st = unsafe {
        kuatia_service_set_production_profile(
            null(),
            account.as_ptr(),
            account.len(),
            null(),
            0,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    // The built-in sandbox profile (NULL) as the production one: the live key issues a pending invoice.
    set_production_profile(svc, &account, None).unwrap();
    let r = post_live(svc, &live, &f, signer);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["data"]["status"], "pending");
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sifen_jobs_go_to_the_host_and_answers_come_back_raw() {
    let svc = new_service(Some(r#"{"sifen_retry":[1]}"#));
    let signer = sandbox();
    let (account, live) = production_account(svc);
    let (id, cdc) = create_live(svc, &live, signer);

    // One synchronous recibe to SIFEN's test environment, carrying the signed DE.
    let jobs = due_sifen(svc, NOW_UNIX, 1);
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = &jobs[0];
    assert_eq!(job["service"], "recibe");
    assert_eq!(
        job["url"],
        "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl"
    );
    assert_eq!(job["content_type"], "application/xml; charset=utf-8");
    assert_eq!(job["account_id"], account.as_str());
    assert_eq!(job["invoices"], serde_json::json!([id]));
    let body = job["body"].as_str().unwrap();
    assert!(body.contains(&format!("<DE Id=\"{cdc}\"")), "{body}");
    assert!(body.contains(&format!("<dId>{}</dId>", job["d_id"])));
    // Handed out: nothing is due while the call is in flight.
    assert!(due_sifen(svc, NOW_UNIX, 2).is_empty());

    // SIFEN's approval, as raw bytes.
    let progress = report_sifen(
        svc,
        &job.to_string(),
        Outcome::Answer(200, &approval_of(&cdc)),
        NOW_UNIX + 1,
    )
    .unwrap();
    assert_eq!(progress.as_array().unwrap().len(), 1);
    assert_eq!(progress[0]["invoice_id"], id.as_str());
    assert_eq!(progress[0]["status"], "approved");
    assert_eq!(progress[0]["transmission"]["next"], "idle");
    let r = handle_live(
        svc,
        "GET",
        &format!("/v1/facturas/{id}"),
        &live,
        None,
        NOW_UNIX + 2,
        null(),
    );
    let inv = r.json()["data"].clone();
    assert_eq!(inv["status"], "approved");
    assert_eq!(inv["protocolo"], "1234567890");
    assert!(inv.get("transmission").is_none(), "{inv}");
    assert!(due_sifen(svc, NOW_UNIX + 3600, 3).is_empty());

    // A timeout: never resent blindly, queried by CDC after the back-off (sifen_retry [1]).
    let (id2, cdc2) = create_live(svc, &live, signer);
    let jobs = due_sifen(svc, NOW_UNIX + 10, 4);
    assert_eq!(jobs.len(), 1);
    let progress =
        report_sifen(svc, &jobs[0].to_string(), Outcome::Timeout, NOW_UNIX + 10).unwrap();
    assert_eq!(progress[0]["invoice_id"], id2.as_str());
    assert_eq!(progress[0]["status"], "pending");
    let t = &progress[0]["transmission"];
    assert_eq!(t["next"], "query");
    assert_eq!(t["due_at"], NOW_UNIX + 11);
    assert_eq!(t["attempts"], 1);
    assert!(t["last_error"].as_str().unwrap().contains("timeout"), "{t}");
    assert!(due_sifen(svc, NOW_UNIX + 10, 5).is_empty());
    let jobs = due_sifen(svc, NOW_UNIX + 11, 6);
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["service"], "consulta");
    assert_eq!(jobs[0]["invoices"], serde_json::json!([id2]));
    assert!(jobs[0]["body"].as_str().unwrap().contains(&cdc2));

    // Bytes that are not UTF-8 (the gateway's page) travel as they are; a transport failure keeps its message.
    let page = b"<html>\xff\xfe upstream timed out</html>";
    let progress = report_sifen(
        svc,
        &jobs[0].to_string(),
        Outcome::Answer(504, page),
        NOW_UNIX + 11,
    )
    .unwrap();
    let t = &progress[0]["transmission"];
    assert_eq!(
        (t["next"].as_str(), t["attempts"].as_u64()),
        (Some("query"), Some(2))
    );
    assert!(
        t["last_error"].as_str().unwrap().starts_with("HTTP 504"),
        "{t}"
    );
    let jobs = due_sifen(svc, NOW_UNIX + 12, 7);
    let progress = report_sifen(
        svc,
        &jobs[0].to_string(),
        Outcome::Failed("connection refused"),
        NOW_UNIX + 12,
    )
    .unwrap();
    let t = &progress[0]["transmission"];
    assert_eq!(t["attempts"], 3);
    assert_eq!(t["last_error"], "transport: connection refused");
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sifen_argument_errors_are_status_codes() {
    let svc = new_service(None);
    let job = r#"{"account_id":"acct_x","service":"recibe","url":"https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl","content_type":"application/xml; charset=utf-8","body":"<x/>","d_id":1,"invoices":["fact_nobody"]}"#;
    // A job of unknown invoices moves nothing.
    assert_eq!(
        report_sifen(svc, job, Outcome::Timeout, NOW_UNIX).unwrap(),
        serde_json::json!([])
    );
    let bad = |r: Result<serde_json::Value, (kuatia_status, String, String)>| r.unwrap_err();
    let (st, code, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(7, 0, null(), 0, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (
            kuatia_status::InvalidArgument,
            "INVALID_ARGUMENT",
            "outcome"
        )
    );
    let (st, code, path) = bad(report_sifen(svc, "{", Outcome::Timeout, NOW_UNIX));
    assert_eq!(
        (st, code.as_str()),
        (kuatia_status::InvalidInput, "MALFORMED_JSON")
    );
    assert!(path.starts_with("job"), "{path}");
    let (st, code, path) = bad(report_sifen(
        svc,
        r#"{"account_id":1}"#,
        Outcome::Timeout,
        NOW_UNIX,
    ));
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (
            kuatia_status::InvalidInput,
            "VALIDATION_ERROR.INVALID_TYPE",
            "job.account_id"
        )
    );
    let failed = kuatia_sifen_outcome::Failed as u32;
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(failed, 0, null(), 0, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!(
        (st, path.as_str()),
        (kuatia_status::InvalidArgument, "message")
    );
    let not_utf8 = [b'x', 0xC3, 0x28];
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(failed, 0, null(), 0, not_utf8.as_ptr(), not_utf8.len()),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::InvalidUtf8, "message"));
    let answer = kuatia_sifen_outcome::Answer as u32;
    let one = [0u8];
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(answer, 200, one.as_ptr(), usize::MAX, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::TooLarge, "body"));
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(
            answer,
            200,
            one.as_ptr(),
            KUATIA_MAX_INPUT_LEN + 1,
            null(),
            0,
        ),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::TooLarge, "body"));
    // An answer with no body (NULL) is an empty answer, not an error.
    let progress = report_sifen(
        svc,
        job,
        Outcome::Raw(answer, 502, null(), 9, null(), 0),
        NOW_UNIX,
    );
    assert_eq!(progress.unwrap(), serde_json::json!([]));

    // NULL job, service, out, and a short seed.
    let s = seed(1);
    let mut out = zero();
    let timeout = kuatia_sifen_outcome::Timeout as u32;
    let (no_job, the_job) = ((null(), 0), (job.as_ptr(), job.len()));
    for ((job_ptr, job_len), seed_len, with_out, want) in [
        (no_job, s.len(), true, "job_json"),
        (the_job, 16, true, "seed"),
        (the_job, s.len(), false, "out_json"),
    ] {
        let out_json: *mut kuatia_bytes = if with_out { &mut out } else { null_mut() };
        let mut err = null_mut();
        let st = unsafe {
            kuatia_service_report_sifen(
                svc,
                job_ptr,
                job_len,
                timeout,
                0,
                null(),
                0,
                null(),
                0,
                NOW_UNIX,
                s.as_ptr(),
                seed_len,
                out_json,
                &mut err,
            )
        };
        assert_eq!(
            (st, err_parts(err).2.as_str()),
            (kuatia_status::InvalidArgument, want)
        );
    }
    let this = svc as *const kuatia_service;
    for (target, seed_len, with_out, want) in [
        (null(), s.len(), true, "svc"),
        (this, 31, true, "seed"),
        (this, s.len(), false, "out_json"),
    ] {
        let out_json: *mut kuatia_bytes = if with_out { &mut out } else { null_mut() };
        let mut err = null_mut();
        let st = unsafe {
            kuatia_service_due_sifen(
                target,
                NOW_UNIX,
                s.as_ptr(),
                seed_len,
                10,
                out_json,
                &mut err,
            )
        };
        assert_eq!(
            (st, err_parts(err).2.as_str()),
            (kuatia_status::InvalidArgument, want)
        );
    }
    assert!(out.ptr.is_null());
    // Nothing due in an empty service.
    assert!(due_sifen(svc, NOW_UNIX, 2).is_empty());
    unsafe { kuatia_service_free(svc) };
}

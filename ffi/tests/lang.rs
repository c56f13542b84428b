//! The language of messages through the C ABI: an error's findings in the language asked for (`*_in`), the first
//! finding's rule id, and a report's findings rendered again (`kuatia_findings_localize`); NULL, unknown and
//! invalid arguments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use kuatia::*;
use serde_json::{json, Value};
use std::ffi::c_char;
use std::ptr::{null, null_mut};

const ES: &str = "El dígito verificador del RUC no corresponde: debería ser 1, no 2";
const EN: &str = "wrong RUC check digit: expected 1, got 2";

fn c(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s).unwrap()
}

/// The error of `kuatia_ruc_check("80069563-2")` (check digit 2, SIFEN.md §1 gives 1).
fn bad_ruc() -> *mut kuatia_error {
    let mut err = null_mut();
    let st = unsafe { kuatia_ruc_check(b"80069563-2".as_ptr(), 10, &mut err) };
    assert_eq!(st, kuatia_status::InvalidInput);
    err
}

#[test]
fn an_error_reads_in_the_language_asked_for() {
    let err = bad_ruc();
    unsafe {
        assert_eq!(cstr(kuatia_error_rule(err)), "ruc.check_digit");
        // The accessors without a language answer in Spanish of Paraguay, the default.
        assert_eq!(cstr(kuatia_error_message(err)), ES);
        let all: Value = serde_json::from_str(&cstr(kuatia_error_json(err))).unwrap();
        assert_eq!(all[0]["message"], ES);
        for (lang, want) in [
            (None, ES),
            (Some("es"), ES),
            (Some("es-PY"), ES),
            (Some("es_PY.UTF-8"), ES),
            (Some("fr"), ES),
            (Some(""), ES),
            (Some("en"), EN),
            (Some("EN-us"), EN),
        ] {
            let tag = lang.map(c);
            let p = tag.as_ref().map_or(null(), |t| t.as_ptr());
            assert_eq!(cstr(kuatia_error_message_in(err, p)), want, "{lang:?}");
            let findings: Value =
                serde_json::from_str(&cstr(kuatia_error_json_in(err, p))).unwrap();
            assert_eq!(
                findings,
                json!([{"code": "INVALID_RUC", "path": "", "message": want, "rule": "ruc.check_digit",
                        "params": {"expected": "1", "got": "2"}}]),
                "{lang:?}"
            );
        }
        // One rendering per language: the same pointer for the same language, valid while the error lives.
        let es = c("es");
        let (a, b) = (
            kuatia_error_json_in(err, es.as_ptr()),
            kuatia_error_json_in(err, null()),
        );
        assert_eq!(a, b);
        assert_ne!(a, kuatia_error_json_in(err, c("en").as_ptr()));
        kuatia_error_free(err);
    }
}

#[test]
fn invalid_utf8_and_null_errors_are_answered_without_a_crash() {
    let err = bad_ruc();
    let bad = [0xffu8, 0xfe, 0];
    unsafe {
        assert_eq!(
            cstr(kuatia_error_message_in(err, bad.as_ptr().cast::<c_char>())),
            ES
        );
        assert!(kuatia_error_json_in(null(), null()).is_null());
        assert!(kuatia_error_message_in(null(), c("en").as_ptr()).is_null());
        assert!(kuatia_error_rule(null()).is_null());
        kuatia_error_free(err);
    }
}

/// The C ABI's own argument errors have rules too (the argument's name a parameter), in both languages; so do a
/// too large input and text that is not UTF-8.
#[test]
fn an_argument_error_has_a_rule_and_both_languages() {
    let mut err = null_mut();
    let st = unsafe { kuatia_ruc_check(null(), 0, &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    unsafe {
        assert_eq!(cstr(kuatia_error_rule(err)), "host.arg.null");
        let path = cstr(kuatia_error_path(err));
        assert_eq!(
            cstr(kuatia_error_message(err)),
            format!("El argumento {path} no puede ser NULL")
        );
        assert_eq!(
            cstr(kuatia_error_message_in(err, c("en").as_ptr())),
            format!("{path} must not be NULL")
        );
        let findings: Value =
            serde_json::from_str(&cstr(kuatia_error_json_in(err, null()))).unwrap();
        assert_eq!(findings[0]["params"], json!({"arg": path}), "{findings}");
        kuatia_error_free(err);
    }
    let mut err = null_mut();
    let st = unsafe { kuatia_ruc_check(b"\xff".as_ptr(), 1, &mut err) };
    assert_eq!(st, kuatia_status::InvalidUtf8);
    unsafe {
        assert_eq!(cstr(kuatia_error_rule(err)), "host.arg.utf8");
        assert!(cstr(kuatia_error_message(err)).contains("no es UTF-8 válido"));
        kuatia_error_free(err);
    }
}

fn localize(report: &[u8], lang: Option<&str>) -> Result<Value, (kuatia_status, String, String)> {
    let tag = lang.map(c);
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_findings_localize(
            report.as_ptr(),
            report.len(),
            tag.as_ref().map_or(null(), |t| t.as_ptr()),
            &mut out,
            &mut err,
        )
    };
    if st == kuatia_status::Ok {
        Ok(serde_json::from_str(&text(out)).unwrap())
    } else {
        Err(err_parts(err))
    }
}

#[test]
fn a_report_is_rendered_again_in_a_language() {
    let err = bad_ruc();
    let findings: Value = serde_json::from_str(&cstr(unsafe { kuatia_error_json(err) })).unwrap();
    unsafe { kuatia_error_free(err) };
    let unruled = json!({"code": "INVALID_ARGUMENT", "path": "x", "message": "x must not be NULL"});
    let report =
        json!({"ok": false, "errors": [findings[0], unruled], "nested": {"more": [findings[0]]}});
    let bytes = serde_json::to_vec(&report).unwrap();
    let es = localize(&bytes, None).unwrap();
    assert_eq!(es["errors"][0]["message"], ES);
    assert_eq!(es["errors"][0]["rule"], "ruc.check_digit");
    assert_eq!(
        es["errors"][0]["params"],
        json!({"expected": "1", "got": "2"})
    );
    assert_eq!(
        es["errors"][1], unruled,
        "a finding without a rule is left as it is"
    );
    assert_eq!(es["nested"]["more"][0]["message"], ES);
    assert_eq!(es["ok"], false);
    assert_eq!(es, report, "Spanish is the language findings are built in");
    let en = localize(&bytes, Some("en")).unwrap();
    assert_eq!(en["errors"][0]["message"], EN);
    assert_eq!(en["errors"][1], unruled);
    // A bare array of findings, and a document without any.
    let arr = localize(&serde_json::to_vec(&findings).unwrap(), Some("es")).unwrap();
    assert_eq!(arr[0]["message"], ES);
    // Numbers are written back as read (1.50 stays 1.50).
    let plain = localize(b"{\"ok\":true,\"n\":1.50}", None).unwrap();
    assert_eq!(plain.to_string(), r#"{"n":1.50,"ok":true}"#);
}

#[test]
fn a_validation_report_is_localized() {
    let mut request = case("fe_spec_example")["request"].clone();
    request["receptor"]["ruc"] = json!("80069563-2");
    let request = serde_json::to_vec(&request).unwrap();
    let mut report = zero();
    let st = unsafe {
        kuatia_invoice_validate(
            request.as_ptr(),
            request.len(),
            null(),
            0,
            NOW.as_ptr(),
            NOW.len(),
            &mut report,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let report = take(report);
    let es = localize(&report, Some("es")).unwrap();
    let built: Value = serde_json::from_slice(&report).unwrap();
    assert_eq!(es["ok"], false, "{es}");
    let ruled = es["errors"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["rule"].is_string());
    let i = ruled.expect("the receptor's RUC finding has a rule");
    assert_eq!(es["errors"][i]["rule"], "ruc.check_digit", "{es}");
    assert_eq!(es["errors"][i]["message"], ES, "{es}");
    assert_eq!(built["errors"][i]["message"], ES, "{built}");
    let en = localize(&report, Some("en")).unwrap();
    assert_eq!(en["errors"][i]["message"], EN, "{en}");
    assert_eq!(
        es["errors"].as_array().unwrap().len(),
        built["errors"].as_array().unwrap().len()
    );
}

#[test]
fn localize_refuses_bad_arguments() {
    let (st, code, path) = localize(b"{\"ok\":", None).unwrap_err();
    assert_eq!(
        (st, code.as_str()),
        (kuatia_status::InvalidInput, "MALFORMED_JSON")
    );
    assert!(path.starts_with("report_json"), "{path}");
    let (st, code, _) = localize(&[0xff, 0xfe], None).unwrap_err();
    assert_eq!(
        (st, code.as_str()),
        (kuatia_status::InvalidUtf8, "INVALID_UTF8")
    );
    let mut err = null_mut();
    let st = unsafe { kuatia_findings_localize(null(), 0, null(), &mut zero(), &mut err) };
    assert_eq!(
        err_parts(err),
        (
            kuatia_status::InvalidArgument,
            "INVALID_ARGUMENT".into(),
            "report_json".into()
        )
    );
    assert_eq!(st, kuatia_status::InvalidArgument);
    let mut err = null_mut();
    let st = unsafe { kuatia_findings_localize(b"[]".as_ptr(), 2, null(), null_mut(), &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_json");
}

/// The in-process `/v1` service (`kuatia_service_handle`) passes the request's headers through: its refusals follow
/// `Accept-Language` (Spanish of Paraguay without one), with `Content-Language`, whatever the C caller reads later.
#[test]
fn the_in_process_service_answers_in_the_accept_language() {
    use common::service::{create_account, factura, new_service, seed, NOW_UNIX};
    let svc = new_service(None);
    let (_, key) = create_account(svc, 1);
    let mut body = factura("approved");
    body["receptor"]["ruc"] = json!("80069563-2");
    let body = body.to_string();
    for (i, (accept, want, tag)) in [
        (None, ES, "es-PY"),
        (Some("en"), EN, "en"),
        (Some("fr, en;q=0.5"), EN, "en"),
        (Some("es-PY, en;q=0.1"), ES, "es-PY"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut headers = vec![
            ("X-Environment".to_string(), "sandbox".to_string()),
            ("Authorization".into(), format!("Bearer {key}")),
        ];
        if let Some(a) = accept {
            headers.push(("Accept-Language".into(), a.into()));
        }
        let req = json!({"method": "POST", "path": "/v1/facturas", "headers": headers}).to_string();
        let s = seed(10 + i as u8);
        let (mut head, mut out) = (zero(), zero());
        let st = unsafe {
            kuatia_service_handle(
                svc,
                req.as_ptr(),
                req.len(),
                body.as_ptr(),
                body.len(),
                NOW_UNIX,
                s.as_ptr(),
                s.len(),
                null(),
                null(),
                &mut head,
                &mut out,
                null_mut(),
            )
        };
        assert_eq!(st, kuatia_status::Ok);
        let head: Value = serde_json::from_str(&text(head)).unwrap();
        let answer: Value = serde_json::from_slice(&take(out)).unwrap();
        assert_eq!(head["status"], 422, "{answer}");
        let language = head["headers"].as_array().unwrap().iter().find(|h| {
            h[0].as_str()
                .unwrap()
                .eq_ignore_ascii_case("Content-Language")
        });
        let ruc = answer["error"]["details"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "ruc.check_digit")
            .unwrap_or_else(|| panic!("{answer}"));
        assert_eq!(ruc["message"], want, "{accept:?}: {answer}");
        assert_eq!(
            answer["error"]["details"].as_array().unwrap().len(),
            1,
            "{answer}"
        );
        assert_eq!(language.unwrap()[1], tag, "{accept:?}: {head}");
    }
    unsafe { kuatia_service_free(svc) };
}

/// `kuatia_rules` is the registry: every rule `tests/fixtures/rules.json` records (core/tests/registry.rs keeps that
/// file to the registry, append-only) with the same code and parameters, in the same order.
#[test]
fn the_rules_are_the_registry() {
    let mut out = zero();
    assert_eq!(
        unsafe { kuatia_rules(&mut out, null_mut()) },
        kuatia_status::Ok
    );
    let got: Vec<Value> = serde_json::from_str(&text(out)).unwrap();
    let recorded: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/rules.json")).unwrap(),
    )
    .unwrap();
    let ids: Vec<&Value> = got.iter().map(|r| &r["rule"]).collect();
    let mut at = 0;
    for r in &recorded {
        let i = ids
            .iter()
            .position(|id| **id == r["rule"])
            .unwrap_or_else(|| panic!("{r} missing"));
        assert!(i >= at, "{r} out of order");
        at = i;
        assert_eq!(got[i], *r);
    }
    let check = got.iter().find(|r| r["rule"] == "ruc.check_digit").unwrap();
    assert_eq!(check["code"], "INVALID_RUC");
    assert_eq!(
        check["params"],
        json!([{"name": "expected", "kind": "int"}, {"name": "got", "kind": "int"}])
    );
    let mut err = null_mut();
    assert_eq!(
        unsafe { kuatia_rules(null_mut(), &mut err) },
        kuatia_status::InvalidArgument
    );
    assert_eq!(err_parts(err).2, "out_json");
}

//! The face functions natively: the conformance cases give the same findings, totals and CDC as core, and the
//! argument conversions (profile, context, QR input) report their problems at the right path.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::msg::Lang;
use kuatia_wasm::face;
use serde_json::{json, Value};
use std::path::PathBuf;

fn cases() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cases");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().to_string(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A finding of a report in the cases' form (params `{}` when it has none).
fn finding(f: &Value) -> Value {
    json!({"code": f["code"], "path": f["path"], "rule": f["rule"],
           "params": f.get("params").cloned().unwrap_or_else(|| json!({})), "message": f["message"]})
}

/// The findings a refused case expects, with their message in language `key` (`es`, `en`).
fn expected_in(expected: &Value, key: &str) -> Vec<Value> {
    expected["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e["message"] = e["message"][key].clone();
            e
        })
        .collect()
}

fn never() -> time::PrimitiveDateTime {
    panic!("the clock must not be read when `now` is given")
}

#[test]
fn conformance_cases_through_the_face() {
    let cases = cases();
    assert!(cases.len() >= 10);
    for (name, case) in cases {
        let request = case["request"].to_string();
        let now = case["context"]["now"].as_str().unwrap();
        let expected = &case["expected"];
        for (lang, key) in [(Lang::EsPy, "es"), (Lang::En, "en")] {
            let report: Value = serde_json::from_str(
                &face::validate(&request, None, Some(now), never, lang).unwrap(),
            )
            .unwrap();
            assert_eq!(report["ok"], expected["ok"], "{name}");
            if expected["ok"] == json!(true) {
                continue;
            }
            // Each finding as the case file has it: code, path, rule, params and the message in `lang`.
            let got: Vec<Value> = report["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(finding)
                .collect();
            assert_eq!(got, expected_in(expected, key), "{name} ({key})");
            let err = face::preview_xml(&request, &case["context"].to_string(), None).unwrap_err();
            let got: Vec<Value> = err
                .0
                .iter()
                .map(|f| {
                    let mut v = finding(&serde_json::to_value(f).unwrap());
                    v["message"] = json!(f.message_in(lang));
                    v
                })
                .collect();
            assert_eq!(got, expected_in(expected, key), "{name} ({key}): preview");
        }
        if expected["ok"] == json!(false) {
            continue;
        }
        let calc: Value = serde_json::from_str(&face::totals(&request).unwrap()).unwrap();
        let expected_totales = expected["totales"].as_object().cloned().unwrap_or_default();
        assert_eq!(
            calc["totales"].is_null(),
            expected["totales"].is_null(),
            "{name}"
        );
        for (k, v) in &expected_totales {
            assert_eq!(&calc["totales"][k], v, "{name}.totales.{k}");
        }
        let preview: Value = serde_json::from_str(
            &face::preview_xml(&request, &case["context"].to_string(), None).unwrap(),
        )
        .unwrap();
        assert_eq!(preview["cdc"], expected["cdc"], "{name}");
        assert!(preview["xml"].as_str().unwrap().contains("<rDE "), "{name}");
        #[cfg(feature = "kude")]
        {
            let pdf =
                face::kude_preview(&request, &case["context"].to_string(), None, None).unwrap();
            assert!(pdf.starts_with(b"%PDF-"), "{name}");
        }
    }
}

#[test]
fn argument_problems_are_located() {
    let bad_profile = face::validate(
        "{}",
        Some(r#"{"ruc": 5}"#),
        Some("2025-03-10T10:11:00"),
        never,
        Lang::En,
    )
    .unwrap_err();
    assert!(
        bad_profile.0[0].path.starts_with("profile"),
        "{bad_profile:?}"
    );
    let bad_now = face::validate("{}", None, Some("yesterday"), never, Lang::En).unwrap_err();
    assert_eq!(
        (bad_now.0[0].code.as_str(), bad_now.0[0].path.as_str()),
        ("VALIDATION_ERROR.INVALID_FORMAT", "now")
    );
    let ctx = face::context(r#"{"now":"2025-03-10T10:11:00","numero":1}"#).unwrap_err();
    assert_eq!(
        (ctx.0[0].code.as_str(), ctx.0[0].path.as_str()),
        ("VALIDATION_ERROR.REQUIRED", "context.codigo_seguridad")
    );
    let ctx = face::context(r#"{"now":"x","numero":1,"codigo_seguridad":1}"#).unwrap_err();
    assert_eq!(ctx.0[0].path, "context.now");
    // Malformed request JSON is a finding of the report, not a failure.
    let r: Value = serde_json::from_str(
        &face::validate("{", None, Some("2025-03-10T10:11:00"), never, Lang::En).unwrap(),
    )
    .unwrap();
    assert_eq!(r["errors"][0]["code"], "MALFORMED_JSON");
}

#[test]
fn identifiers_match_sifen_md_examples() {
    // SIFEN.md §1: 80069563 has DV 1; §2.4's CDC.
    assert_eq!(
        face::ruc_dv("80069563").unwrap(),
        r#"{"ruc":"80069563-1","dv":1}"#
    );
    assert_eq!(face::ruc_dv("x").unwrap_err().code(), "INVALID_RUC");
    let bad: Value =
        serde_json::from_str(&face::ruc_check("80069563-2", Lang::EsPy).unwrap()).unwrap();
    assert_eq!(
        (bad["valid"].clone(), bad["error"]["code"].clone()),
        (json!(false), json!("INVALID_RUC"))
    );
    // The message in the language asked for; the rule and its parameters in every language.
    assert_eq!(
        bad["error"]["message"],
        "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
    );
    let en: Value =
        serde_json::from_str(&face::ruc_check("80069563-2", Lang::En).unwrap()).unwrap();
    assert_eq!(
        en["error"]["message"],
        "wrong RUC check digit: expected 1, got 2"
    );
    assert_eq!(
        (&en["error"]["rule"], &en["error"]["params"]),
        (&bad["error"]["rule"], &bad["error"]["params"])
    );
    let cdc = "01800695631001001000000122022081411234567891";
    let parsed: Value = serde_json::from_str(&face::cdc_parse(cdc).unwrap()).unwrap();
    assert_eq!(parsed["ruc"], "80069563-1");
    let mut fields = parsed.clone();
    for k in ["cdc", "grouped", "dv"] {
        fields.as_object_mut().unwrap().remove(k);
    }
    let built: Value =
        serde_json::from_str(&face::cdc_build(&fields.to_string()).unwrap()).unwrap();
    assert_eq!(built["cdc"], cdc);
    fields["punto"] = json!(0);
    let e = face::cdc_build(&fields.to_string()).unwrap_err();
    assert_eq!((e.code(), e.0[0].path.as_str()), ("INVALID_CDC", "punto"));
}

#[test]
fn qr_round_trips_and_checks_its_hash() {
    let input = json!({"cdc": "01444444017001001000000122025031011234567890", "fecha_emision": "2025-03-10T10:11:00",
        "receptor": {"ruc": "80069563"}, "total": "185.18", "total_iva": "16.83", "items": 1,
        "digest_value": "CE0i1m0bA2h9u+l1kg5oCH2HJ3w4Bud3XtDvodXYFfQ=", "csc_id": "0001",
        "csc": "ABCD0000000000000000000000000000", "ambiente": "test"});
    let qr = face::qr_build(&input.to_string()).unwrap();
    // fe_usd's expected dCarQR (the same parts) from the conformance cases.
    let case: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cases/fe_usd.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(qr, case["expected"]["qr"].as_str().unwrap());
    let parts: Value = serde_json::from_str(
        &face::qr_parse(&qr, Some("ABCD0000000000000000000000000000")).unwrap(),
    )
    .unwrap();
    assert_eq!(parts["hash_ok"], true);
    assert_eq!(parts["receptor"]["ruc"], "80069563");
    let wrong: Value = serde_json::from_str(&face::qr_parse(&qr, Some("X")).unwrap()).unwrap();
    assert_eq!(wrong["hash_ok"], false);
}

#[test]
fn verify_reports_instead_of_failing() {
    let r: Value = serde_json::from_str(&face::verify("<nope/>", None, Lang::En).unwrap()).unwrap();
    assert_eq!(r["valid"], false);
    assert!(r["error"]["code"].is_string());
    assert_eq!(
        face::verify("<x/>", Some("bad"), Lang::En).unwrap_err().0[0].path,
        "at"
    );
}

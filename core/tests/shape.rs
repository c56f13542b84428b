//! Every shape error of a create request at once (issue 34 #4): missing fields, wrong types, unknown and repeated
//! fields, each at its JSON path with a message in the project's words, next to the rules' findings on the fields
//! that read; and the tolerant reader agrees with serde on every valid request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::error::code;
use kuatia_core::invoice::{read_request, FacturaRequest};
use kuatia_core::msg::Lang;
use kuatia_core::profile::Emisor;
use kuatia_core::validate::validate_json;
use serde_json::{json, Value};
use std::path::PathBuf;

fn now() -> time::PrimitiveDateTime {
    kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap()
}

/// `(code, path)` of every finding of `validate_json`.
fn found(request: &str) -> Vec<(String, String)> {
    validate_json(request, &Emisor::sandbox(), now())
        .errors
        .into_iter()
        .map(|f| (f.code, f.path))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(c, p)| (c.to_string(), p.to_string()))
        .collect()
}

/// Words of serde's that must never reach a user.
const SERDE_WORDS: [&str; 10] = [
    "u8",
    "u16",
    "u32",
    "struct ",
    "FacturaRequest",
    "sequence",
    "a map",
    "invalid type",
    "expected a",
    "EOF",
];

fn assert_projects_words(request: &str) {
    for f in validate_json(request, &Emisor::sandbox(), now()).errors {
        for w in SERDE_WORDS {
            assert!(!f.message.contains(w), "{w:?} in {f} for {request}");
        }
    }
}

#[test]
fn a_missing_field_does_not_hide_a_rule_elsewhere() {
    let body = r#"{"tipo_documento":1,"receptor":{"ruc":"80069563-1"},"items":[{"descripcion":"a","cantidad":1,"precio_unitario":1000}]}"#;
    assert_eq!(
        found(body),
        pairs(&[
            (code::REQUIRED, "receptor.razon_social"),
            (code::REQUIRED, "items[0].iva"),
        ])
    );
}

#[test]
fn shape_and_rule_findings_in_different_places_come_in_one_answer() {
    let body = json!({
        "tipo_documento": 99,
        "receptor": {"ruc": "80069563-2", "razon_social": "Cliente"},
        "items": [{"descripcion": "", "cantidad": -1, "precio_unitario": "abc", "iva": 7}]
    })
    .to_string();
    let got = found(&body);
    assert_eq!(
        got,
        pairs(&[
            (code::INVALID_TYPE, "items[0].precio_unitario"),
            (code::INVALID_VALUE, "tipo_documento"),
            (code::INVALID_RUC, "receptor.ruc"),
            (code::REQUIRED, "items[0].descripcion"),
            (code::OUT_OF_RANGE, "items[0].cantidad"),
            (code::INVALID_VALUE, "items[0].iva"),
        ]),
    );
    assert_projects_words(&body);
}

#[test]
fn wrong_types_are_said_in_the_projects_words() {
    let body = r#"{"tipo_documento":"1","receptor":{"ruc":"80069563-1","razon_social":"Cliente"},"items":[{"descripcion":"a","cantidad":1,"precio_unitario":1000,"iva":10}]}"#;
    let r = validate_json(body, &Emisor::sandbox(), now());
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    let f = &r.errors[0];
    assert_eq!(
        (
            f.code.as_str(),
            f.path.as_str(),
            f.message_in(Lang::En).as_str()
        ),
        (
            code::INVALID_TYPE,
            "tipo_documento",
            "must be a whole number, found text"
        )
    );
    for (body, message) in [
        ("null", "the request body must be a JSON object"),
        ("[]", "the request body must be a JSON object"),
        ("\"x\"", "the request body must be a JSON object"),
    ] {
        let r = validate_json(body, &Emisor::sandbox(), now());
        let got: Vec<_> = r
            .errors
            .iter()
            .map(|f| (f.code.as_str(), f.path.as_str(), f.message_in(Lang::En)))
            .collect();
        assert_eq!(
            got,
            [(code::INVALID_TYPE, "", message.to_string())],
            "{body}"
        );
    }
    let r = validate_json(
        r#"{"tipo_documento":1,"receptor":"Cliente","items":{}}"#,
        &Emisor::sandbox(),
        now(),
    );
    let got: Vec<_> = r
        .errors
        .iter()
        .map(|f| (f.path.as_str(), f.message_in(Lang::En)))
        .collect();
    assert_eq!(
        got,
        [
            ("items", "must be a list, found an object".to_string()),
            ("receptor", "must be an object, found text".to_string())
        ]
    );
}

#[test]
fn a_repeated_key_is_reported_at_its_own_path() {
    let body = r#"{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"A","razon_social":"B"},"items":[{"descripcion":"a","cantidad":1,"precio_unitario":1000,"iva":10,"iva":5}],"tipo_documento":1}"#;
    assert_eq!(
        found(body),
        pairs(&[
            (code::NOT_ALLOWED, "receptor.razon_social"),
            (code::NOT_ALLOWED, "items[0].iva"),
            (code::NOT_ALLOWED, "tipo_documento"),
        ])
    );
}

#[test]
fn an_empty_object_names_every_required_field() {
    assert_eq!(
        found("{}"),
        pairs(&[
            (code::REQUIRED, "tipo_documento"),
            (code::REQUIRED, "receptor"),
            (code::REQUIRED, "items"),
        ])
    );
}

fn cases() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cases");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let case: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (path.display().to_string(), case["request"].clone())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The shape has one source, the serde types: the tolerant reader reads every request serde reads into the same
/// value, and refuses what serde refuses.
#[test]
fn the_tolerant_reader_agrees_with_serde() {
    let mut read = 0;
    for (name, request) in cases() {
        let text = request.to_string();
        let serde = serde_json::from_str::<FacturaRequest>(&text);
        let tolerant = kuatia_core::shape::read::<FacturaRequest>(&text, "");
        match (serde, tolerant) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{name}");
                read += 1;
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{name}: serde {:?}, tolerant {:?}", a.is_ok(), b.is_ok()),
        }
        assert_eq!(
            read_request(&text).is_ok(),
            serde_json::from_str::<FacturaRequest>(&text).is_ok()
        );
    }
    assert!(read >= 10);
}

/// Every leaf of every case replaced by a value of another JSON type: one finding at that leaf (a value the field
/// accepts in that form gives none), never a serde type name, never a panic.
#[test]
fn every_field_of_the_wrong_type_is_found_at_its_path() {
    fn leaves(
        v: &Value,
        path: String,
        out: &mut Vec<(String, Vec<PathStep>)>,
        steps: Vec<PathStep>,
    ) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let mut s = steps.clone();
                    s.push(PathStep::Key(k.clone()));
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    leaves(x, p, out, s);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let mut s = steps.clone();
                    s.push(PathStep::Index(i));
                    leaves(x, format!("{path}[{i}]"), out, s);
                }
            }
            _ => out.push((path, steps)),
        }
    }
    fn at<'a>(v: &'a mut Value, steps: &[PathStep]) -> &'a mut Value {
        steps.iter().fold(v, |v, s| match s {
            PathStep::Key(k) => v.get_mut(k).unwrap(),
            PathStep::Index(i) => v.get_mut(*i).unwrap(),
        })
    }
    let mut checked = 0;
    for (name, request) in cases() {
        if read_request(&request.to_string()).is_err() {
            continue;
        }
        let mut all = Vec::new();
        leaves(&request, String::new(), &mut all, Vec::new());
        for (path, steps) in all {
            for wrong in [json!({"x": 1}), json!([true])] {
                let mut bad = request.clone();
                *at(&mut bad, &steps) = wrong.clone();
                let unread = read_request(&bad.to_string()).unwrap_err();
                let f = &unread.findings;
                assert_eq!(f.len(), 1, "{name} {path}={wrong}: {f:?}");
                assert_eq!(
                    (f[0].code.as_str(), f[0].path.as_str()),
                    (code::INVALID_TYPE, path.as_str()),
                    "{name} {path}={wrong}"
                );
                for w in SERDE_WORDS {
                    assert!(!f[0].message.contains(w), "{w:?} in {}", f[0]);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked}");
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

/// Issue 32: every finding of the JSON reader names its rule and parameters, crosses serde's message channel from our
/// own `Deserialize` impls (decimals, CDC parts), renders the old English when built and Spanish when localized.
#[test]
fn reader_findings_carry_rules_and_render_in_both_languages() {
    use kuatia_core::rule::Param;
    let one = |p: &str| Param::One(p.to_string());
    let findings = read_request(r#"{"items": 5, "zzz": 1, "moneda": "PYG"}"#)
        .unwrap_err()
        .findings;
    let at = |path: &str| findings.iter().find(|f| f.path == path).unwrap().clone();
    let items = at("items");
    assert_eq!(items.rule, "json.type");
    assert_eq!(
        (&items.params["must"], &items.params["found"]),
        (&one("must_list"), &one("found_number"))
    );
    assert_eq!(items.message_in(Lang::En), "must be a list, found a number");
    assert_eq!(
        items.message_in(Lang::EsPy),
        "El valor debe ser una lista; se recibió un número"
    );
    assert_eq!(at("zzz").rule, "json.unknown_field");
    let missing = at("receptor");
    assert_eq!(
        (missing.rule.as_ref(), missing.code.as_str()),
        ("json.missing", code::REQUIRED)
    );

    let e = read_request(r#"{"items": [{"precio_unitario": "12,5"}]}"#).unwrap_err();
    let price = e
        .findings
        .iter()
        .find(|f| f.path == "items[0].precio_unitario")
        .unwrap();
    assert_eq!(
        (price.rule.as_ref(), &price.params["text"]),
        ("json.not_number", &one("12,5"))
    );
    assert_eq!(price.message, "'12,5' no es un número");

    let broken = &read_request("[1,").unwrap_err().findings[0];
    assert_eq!(
        (broken.rule.as_ref(), broken.code.as_str()),
        ("json.malformed", code::MALFORMED_JSON)
    );
    assert_eq!(
        broken.message_in(Lang::En),
        "EOF while parsing a value at line 1 column 3"
    );
    assert!(broken.message_in(Lang::EsPy).contains("línea 1, columna 3"));

    let cdc = r#"{"tipo_documento":1,"ruc":"80069563-1","establecimiento":"0001","punto":"001",
        "numero":"0000123","tipo_contribuyente":2,"fecha":"2024-03-15","tipo_emision":1,"codigo_seguridad":"1"}"#;
    let e = kuatia_core::cdc::CdcFields::from_json(cdc).unwrap_err();
    assert_eq!(
        (e.rule.as_ref(), e.path.as_str()),
        ("json.digits", "establecimiento")
    );
    assert_eq!(
        e.message_in(Lang::En),
        "expected at most 3 digits, got \"0001\""
    );

    let t =
        kuatia_core::shape::read_one::<kuatia_core::de::TipoDocumento>("2", "tipo").unwrap_err();
    assert_eq!(
        (t.rule.as_ref(), t.path.as_str()),
        ("calc.tipo_documento", "tipo")
    );
    assert_eq!(
        t.message_in(Lang::En),
        "tipo_documento 2 is not one of 1, 4, 5, 6, 7"
    );

    let d = kuatia_core::fmt::date_at("2025-02-30", "fecha").unwrap_err();
    assert_eq!(
        (d.rule.as_ref(), d.path.as_str()),
        ("date.calendar", "fecha")
    );
    assert_eq!(
        kuatia_core::fmt::parse_date("2025-02-30").unwrap_err(),
        "'2025-02-30' is not a calendar date"
    );
}

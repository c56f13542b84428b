//! Hostile inputs: every entry point answers with a stable error code, quickly, without panicking.
//!
//! The table lives in `tests/adversarial/*.json` (shared with the other faces); this file replays it and adds the
//! programmatic cases a table cannot express well (an overlong value in every text field of a real request).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use kuatia_core::cdc::Cdc;
use kuatia_core::error::code;
use kuatia_core::profile::Emisor;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::response::parse_response;
use kuatia_core::sign::{verify, SoftwareSigner};
use kuatia_core::{invoice, validate, xml};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use time::macros::datetime;

/// Generous: the slowest vector (100 MB scanned by a size guard, or 10 000 items) takes well under a second in a
/// debug build; the bound only catches quadratic or exponential behaviour, so it cannot flake on a busy machine.
const TIME_BOUND: Duration = Duration::from_secs(20);

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/adversarial")
}

/// Builds a vector's input bytes (in memory, so 100 MB vectors cost nothing in the repository).
fn input_bytes(input: &Value) -> Vec<u8> {
    if let Some(t) = input.get("text") {
        return t.as_str().unwrap().as_bytes().to_vec();
    }
    if let Some(b) = input.get("base64") {
        return B64.decode(b.as_str().unwrap()).unwrap();
    }
    let r = &input["repeat"];
    let unit = r["unit"].as_str().unwrap();
    let count = usize::try_from(r["count"].as_u64().unwrap()).unwrap();
    let (prefix, suffix) = (r["prefix"].as_str().unwrap(), r["suffix"].as_str().unwrap());
    let mut out = Vec::with_capacity(prefix.len() + unit.len() * count + suffix.len());
    out.extend_from_slice(prefix.as_bytes());
    if unit.contains("{i}") {
        // Numbered copies (distinct attribute names, say): `{i}` is the copy's index.
        for i in 0..count {
            out.extend_from_slice(unit.replace("{i}", &i.to_string()).as_bytes());
        }
    } else {
        out.extend_from_slice(unit.repeat(count).as_bytes());
    }
    out.extend_from_slice(suffix.as_bytes());
    out
}

/// Outcome of one call: `Ok(())` accepted, `Err((code, path, every string the error can print))`.
type Outcome = Result<(), (String, String, String)>;

fn finding_outcome(f: &kuatia_core::Finding) -> (String, String, String) {
    (f.code.clone(), f.path.clone(), format!("{f} {f:?}"))
}

/// Runs one target on bytes; text targets get a `MALFORMED_*`-style error for non-UTF-8 like the faces do.
fn run(target: &str, bytes: &[u8], password: &str) -> Outcome {
    let text = std::str::from_utf8(bytes);
    match target {
        "request" => invoice::parse_request_bytes(bytes)
            .map(|_| ())
            .map_err(|f| finding_outcome(&f.0[0])),
        "validate" => {
            let Ok(t) = text else {
                return Err((code::MALFORMED_JSON.into(), String::new(), String::new()));
            };
            let report =
                validate::validate_json(t, &Emisor::sandbox(), datetime!(2025-03-10 10:11:00));
            match report.errors.first() {
                None => Ok(()),
                Some(f) => Err(finding_outcome(f)),
            }
        }
        "xml" => xml::parse_bytes(bytes)
            .map(|_| ())
            .map_err(|f| finding_outcome(&f)),
        "verify" => {
            let Ok(t) = text else {
                return Err(("SIGNATURE_MALFORMED".into(), String::new(), String::new()));
            };
            let r = verify(t, None);
            assert!(!r.valid || r.error.is_none());
            match r.error {
                None => Ok(()),
                Some(f) => Err(finding_outcome(&f)),
            }
        }
        "sifen_response" => parse_response(bytes)
            .map(|_| ())
            .map_err(|f| finding_outcome(&f)),
        "ruc" => {
            let t = text.unwrap();
            Ruc::parse(t)
                .map(|_| ())
                .map_err(|e| (e.code().to_string(), String::new(), format!("{e} {e:?}")))
        }
        "cdc" => {
            let t = text.unwrap();
            Cdc::parse(t)
                .map(|_| ())
                .map_err(|e| (e.code().to_string(), String::new(), format!("{e} {e:?}")))
        }
        "p12" => SoftwareSigner::from_pkcs12(bytes, password)
            .map(|_| ())
            .map_err(|e| (e.code().to_string(), String::new(), format!("{e} {e:?}"))),
        other => panic!("unknown target {other}"),
    }
}

#[test]
fn shared_vectors() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "adversarial vector files missing");
    let mut names = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for file in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for v in doc["vectors"].as_array().unwrap() {
            count += 1;
            let name = v["name"].as_str().unwrap();
            assert!(names.insert(name.to_string()), "duplicate vector {name}");
            let target = v["target"].as_str().unwrap();
            let bytes = input_bytes(&v["input"]);
            let password = v["password"].as_str().unwrap_or("");
            let start = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| run(target, &bytes, password)));
            let elapsed = start.elapsed();
            drop(bytes);
            let Ok(outcome) = outcome else {
                failures.push(format!("{name}: PANIC"));
                continue;
            };
            if elapsed > Duration::from_secs(1) {
                eprintln!("{name}: {elapsed:?}");
            }
            if elapsed > TIME_BOUND {
                failures.push(format!("{name}: took {elapsed:?}"));
            }
            let expect = &v["expect"];
            match (expect.get("ok"), outcome) {
                (Some(_), Ok(())) => {}
                (Some(_), Err((c, p, _))) => {
                    failures.push(format!("{name}: expected ok, got {c} at '{p}'"))
                }
                (None, Ok(())) => failures.push(format!("{name}: accepted, expected {expect}")),
                (None, Err((c, p, shown))) => {
                    if expect["code"] != c.as_str() {
                        failures.push(format!(
                            "{name}: expected {}, got {c} at '{p}' ({})",
                            expect["code"],
                            shown.chars().take(200).collect::<String>()
                        ));
                    }
                    if let Some(path) = expect.get("path") {
                        if path != p.as_str() {
                            failures.push(format!("{name}: expected path {path}, got '{p}'"));
                        }
                    }
                    // An error message never echoes a whole hostile input back (logs, HTTP bodies stay small).
                    if shown.len() > 4096 {
                        failures.push(format!("{name}: error text is {} bytes", shown.len()));
                    }
                }
            }
        }
    }
    assert!(count >= 100, "only {count} vectors");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A valid request from the conformance cases, as a JSON value.
fn spec_request() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cases/fe_credito_cuotas.json");
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    case["request"].clone()
}

/// Every string leaf of a JSON value with its path as the validator names it (`items[0].descripcion`).
fn string_leaves(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::String(_) => out.push(path.to_string()),
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                string_leaves(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                string_leaves(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn set_at(v: &mut Value, path: &str, new: Value) {
    let mut cur = v;
    for part in path.split('.') {
        let (key, idx) = match part.find('[') {
            Some(i) => (
                &part[..i],
                Some(part[i + 1..part.len() - 1].parse::<usize>().unwrap()),
            ),
            None => (part, None),
        };
        cur = &mut cur[key];
        if let Some(i) = idx {
            cur = &mut cur[i];
        }
    }
    *cur = new;
}

#[test]
fn overlong_and_nul_strings_in_every_text_field_are_findings_at_that_field() {
    let base = spec_request();
    let emisor = Emisor::sandbox();
    let now = datetime!(2025-03-10 10:11:00);
    let ok = validate::validate_json(&base.to_string(), &emisor, now);
    assert!(ok.ok, "base request must be valid: {:?}", ok.errors);
    let mut fields = Vec::new();
    string_leaves(&base, "", &mut fields);
    assert!(fields.len() >= 5, "{fields:?}");
    let mut failures = Vec::new();
    for field in &fields {
        for (what, value) in [
            ("overlong", "Ñ".repeat(100_000)),
            ("nul", "a\u{0}b".to_string()),
        ] {
            let mut req = base.clone();
            set_at(&mut req, field, Value::String(value));
            let start = Instant::now();
            let report = validate::validate_json(&req.to_string(), &emisor, now);
            assert!(start.elapsed() < TIME_BOUND);
            if report.ok {
                failures.push(format!("{what} {field}: accepted"));
            } else if !report.errors.iter().any(|f| f.path == *field) {
                failures.push(format!(
                    "{what} {field}: findings elsewhere: {:?}",
                    report.errors
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn size_guards_trigger_before_any_parsing() {
    // 100 MB of nesting: only a guard that looks at the length first answers TOO_LARGE (not a depth error).
    let big = "[".repeat(100 * 1024 * 1024);
    let f = invoice::parse_request(&big).unwrap_err();
    assert_eq!(f.code(), code::TOO_LARGE);
    let f = xml::parse(&big).unwrap_err();
    assert_eq!(f.code, code::TOO_LARGE);
    // The SIFEN parser files an oversized answer under its own code, saying why.
    let f = parse_response(big.as_bytes()).unwrap_err();
    assert_eq!(f.code, "SIFEN_UNEXPECTED_RESPONSE");
    assert!(
        f.message_in(kuatia_core::msg::Lang::En)
            .contains("larger than"),
        "{}",
        f.message
    );
    // Right at the limits the guards let the input through to the parser.
    let at_limit = format!("{{{}}}", " ".repeat(invoice::MAX_REQUEST_BYTES - 2));
    assert_ne!(
        invoice::parse_request(&at_limit).unwrap_err().code(),
        code::TOO_LARGE
    );
}

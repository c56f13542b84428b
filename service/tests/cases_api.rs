//! The conformance cases of `tests/fixtures/cases/` (shared by every face) through `/v1`: each request is POSTed to
//! `/v1/facturas` of the in-process service with `Accept-Language: es` and with `en`. A valid case is created; a
//! refused one answers with its findings as `error.details` (code, path, rule, params and the message in the language
//! asked for, all from the case file), `Content-Language` and the summary `expected.api_summary` records (its code,
//! rule and message in both languages: the finding itself, or how many there are).
//!
//! `KUATIA_BLESS=1` records a missing `api_summary` into the case file once, to be reviewed; the findings are
//! recorded by core's `tests/fixtures.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::client;
use serde_json::{json, Value};
use std::path::PathBuf;

fn cases() -> Vec<(PathBuf, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cases");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let case = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p, case)
        })
        .collect()
}

/// The `(Accept-Language, Content-Language, key of the case's messages)` of each language the cases hold.
const LANGS: [(&str, &str, &str); 2] = [("es", "es-PY", "es"), ("en", "en", "en")];

#[test]
fn every_case_answers_in_spanish_and_english_as_the_case_file_says() {
    let bless = std::env::var("KUATIA_BLESS").is_ok();
    let mut c = client();
    let key = c.key.clone();
    let mut failures = Vec::new();
    let mut refused = 0;
    let all = cases();
    assert!(all.len() >= 20, "conformance cases missing");
    for (path, mut case) in all {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let expected = case["expected"].clone();
        let mut summary = json!({"message": {}});
        for (accept, content, lang) in LANGS {
            let r = c.call(
                "POST",
                "/v1/facturas",
                Some(case["request"].clone()),
                &[("Accept-Language", accept)],
                Some(&key),
                true,
            );
            let body = r.json();
            if expected["ok"] == json!(true) {
                if r.status != 201 || body["ok"] != json!(true) {
                    failures.push(format!("{name} ({accept}): {} {body}", r.status));
                }
                continue;
            }
            if r.status != 422 {
                failures.push(format!("{name} ({accept}): status {}", r.status));
            }
            if r.header("Content-Language") != Some(content) {
                failures.push(format!(
                    "{name} ({accept}): Content-Language {:?}",
                    r.header("Content-Language")
                ));
            }
            let want: Vec<Value> = expected["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    let mut d = json!({"code": e["code"], "path": e["path"], "rule": e["rule"],
                                       "message": e["message"][lang]});
                    if e["params"].as_object().is_some_and(|p| !p.is_empty()) {
                        d["params"] = e["params"].clone();
                    }
                    d
                })
                .collect();
            if body["error"]["details"] != Value::Array(want.clone()) {
                failures.push(format!(
                    "{name} ({accept}): details\n{}\n!= expected\n{}",
                    serde_json::to_string_pretty(&body["error"]["details"]).unwrap(),
                    serde_json::to_string_pretty(&want).unwrap()
                ));
            }
            summary["code"] = body["error"]["code"].clone();
            summary["rule"] = body["error"]["rule"].clone();
            summary["message"][lang] = body["error"]["message"].clone();
        }
        if expected["ok"] == json!(true) {
            continue;
        }
        refused += 1;
        match expected.get("api_summary") {
            Some(s) if *s == summary => {}
            None if bless => {
                case["expected"]["api_summary"] = summary;
                std::fs::write(&path, serde_json::to_string_pretty(&case).unwrap() + "\n").unwrap();
            }
            s => failures.push(format!(
                "{name}: summary {summary} != expected {}",
                s.unwrap_or(&Value::Null)
            )),
        }
    }
    assert!(refused >= 10, "{refused} refused cases");
    assert!(
        failures.is_empty(),
        "conformance failures through /v1:\n{}",
        failures.join("\n")
    );
}

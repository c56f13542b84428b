//! `kuatia issue --batch`: parallel issuing keeps the numbering file consistent; failures are listed; and
//! `kuatia keys create` on a serve data directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::batch::{batch_dir, example, gaps_json, requests_dir, run_batch};
use std::collections::HashSet;

#[test]
fn batch_issues_in_parallel_with_unique_numbers() {
    let tmp = common::TempDir::new("batch");
    let dir = tmp.0.clone();
    let input = batch_dir(&dir, "in", 24);
    let out = dir.join("out");
    std::fs::write(input.join("zz-bad.json"), r#"{"tipo_documento":1,"receptor":{"ruc":"80069563-9","razon_social":"Cliente"},"items":[]}"#).unwrap();
    std::fs::write(input.join("notes.txt"), "ignored").unwrap();

    let (code, v, stderr) = run_batch(&input, &out, "4", &["--lang", "en"]);
    assert_eq!(code, 1, "{v} {stderr}");
    assert_eq!(v["ok"], 24);
    assert_eq!(v["failed"], 1);
    assert_eq!(v["jobs"], 4);
    let failure = &v["failures"][0];
    assert!(failure["file"].as_str().unwrap().ends_with("zz-bad.json"));
    assert!(!failure["code"].as_str().unwrap().is_empty());
    assert!(
        stderr.contains("VALIDATION_ERROR at receptor.ruc: 1 of 25 documents failed; first: "),
        "{stderr}"
    );

    // 24 distinct numbers 1..=24 (the failing request is refused before it reserves one), one XML per CDC.
    let numeros: HashSet<String> = v["issued"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["numero"].as_str().unwrap().to_string())
        .collect();
    let expected: HashSet<String> = (1..=24).map(|n| format!("001-001-{n:07}")).collect();
    assert_eq!(numeros, expected);
    for i in v["issued"].as_array().unwrap() {
        let xml = std::fs::read_to_string(i["xml"].as_str().unwrap()).unwrap();
        assert!(xml.contains(i["cdc"].as_str().unwrap()));
    }
    // Every reserved number became a document: no gap.
    assert_eq!(gaps_json(&out), serde_json::json!({"gaps": []}));

    // A second batch continues the sequence.
    let (code, v, _) = common::run(
        &[
            "issue",
            "--batch",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(v["issued"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["numero"].as_str().unwrap() > "001-001-0000024"));
}

#[test]
fn a_batch_larger_than_one_block_numbers_every_document_once() {
    // 130 requests: two chunks, so two block reservations and many group commits.
    let tmp = common::TempDir::new("batch-blocks");
    let dir = tmp.0.clone();
    let input = batch_dir(&dir, "in", 130);
    let out = dir.join("out");
    let (code, v, stderr) = run_batch(&input, &out, "2", &[]);
    assert_eq!(code, 0, "{v} {stderr}");
    let numeros: HashSet<String> = v["issued"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["numero"].as_str().unwrap().to_string())
        .collect();
    let expected: HashSet<String> = (1..=130).map(|n| format!("001-001-{n:07}")).collect();
    assert_eq!(numeros, expected);
    // Every document is in place (renamed from its synced .partial) and no .partial is left.
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.iter().filter(|n| n.ends_with(".xml")).count(), 130);
    assert!(!names.iter().any(|n| n.ends_with(".partial")), "{names:?}");
    assert_eq!(gaps_json(&out), serde_json::json!({"gaps": []}));
}

#[test]
fn keys_create_prints_a_live_key_once() {
    let tmp = common::TempDir::new("keys");
    let dir = tmp.0.clone();
    let (code, v, _) = common::run(
        &["keys", "create", "--live", "--data", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 0, "{v}");
    let key = v["key"].as_str().unwrap();
    assert!(key.starts_with("dk_live_") && key.len() == 48, "{key}");
    // Only the hash is stored (database and WAL files alike).
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(!bytes.windows(key.len()).any(|w| w == key.as_bytes()));
    }
}

/// The XML of a document with what differs from one issue of the same request to the next masked: the CDC (it holds
/// the random security code) and everything derived from it (check digit, digest, signature, QR).
fn masked(xml: &str, cdc: &str) -> String {
    let mut xml = xml.replace(cdc, "CDC");
    for tag in [
        "dDVId",
        "dCodSeg",
        "DigestValue",
        "SignatureValue",
        "dCarQR",
    ] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let mut from = 0;
        while let Some(start) = xml[from..].find(&open).map(|i| from + i + open.len()) {
            let end = start + xml[start..].find(&close).unwrap();
            xml.replace_range(start..end, "…");
            from = start;
        }
    }
    xml
}

#[test]
fn two_workers_issue_what_one_worker_issues() {
    // 150 requests (two chunks), different totals, and invalid ones among them: -j 2 gives every file the number and
    // the document -j 1 gives it, and lists the same failures.
    let tmp = common::TempDir::new("batch-same");
    let dir = tmp.0.clone();
    let example = example();
    let input = requests_dir(
        &dir,
        "in",
        (0..150).map(|i| {
            let mut req = example.clone();
            req["items"][0]["cantidad"] = serde_json::json!(i % 7 + 1);
            if i % 37 == 5 {
                req["items"] = serde_json::json!([]);
            }
            req.to_string()
        }),
    );
    let batch = |jobs: &str| {
        let out = dir.join(format!("out-j{jobs}"));
        let (code, v, stderr) = run_batch(&input, &out, jobs, &["--at", "2025-03-10T10:11:00"]);
        assert_eq!(code, 1, "{v} {stderr}");
        let issued: Vec<(String, String, String)> = v["issued"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let cdc = i["cdc"].as_str().unwrap();
                let xml = std::fs::read_to_string(i["xml"].as_str().unwrap()).unwrap();
                (
                    i["file"].as_str().unwrap().to_string(),
                    i["numero"].as_str().unwrap().to_string(),
                    masked(&xml, cdc),
                )
            })
            .collect();
        (
            v["ok"].clone(),
            v["failures"].clone(),
            issued,
            gaps_json(&out),
        )
    };
    let one = batch("1");
    let two = batch("2");
    assert_eq!(one.0, serde_json::json!(146));
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1, "the same failures");
    assert_eq!(one.3, serde_json::json!({"gaps": []}));
    assert_eq!(one.3, two.3);
    assert_eq!(one.2.len(), two.2.len());
    for (a, b) in one.2.iter().zip(&two.2) {
        assert_eq!((&a.0, &a.1), (&b.0, &b.1), "file and number");
        assert_eq!(a.2, b.2, "{}: the same document", a.0);
    }
}

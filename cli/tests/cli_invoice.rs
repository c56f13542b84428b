//! Runs the built `kuatia` binary: validate, totals, issue (with the README's example), verify.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{run, TempDir};
use serde_json::json;

const AT: &str = "2025-03-10T10:11:00";

fn example() -> String {
    format!("{}/../examples/factura.json", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn validate_reports_every_finding_and_exit_codes() {
    let (code, out, _) = run(&["validate", &example(), "--at", AT], None);
    assert_eq!(code, 0);
    assert_eq!(out, json!({"ok": true, "errors": []}));

    let bad = json!({"tipo_documento": 1, "receptor": {"ruc": "80069563-2", "razon_social": "X"},
        "items": [{"descripcion": "x", "cantidad": 0, "precio_unitario": 1, "iva": 12}]});
    let (code, out, err) = run(
        &["validate", "-", "--at", AT],
        Some(bad.to_string().as_bytes()),
    );
    assert_eq!(code, 1);
    assert_eq!(out["ok"], json!(false));
    let paths: Vec<&str> = out["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "receptor.razon_social",
            "receptor.ruc",
            "items[0].cantidad",
            "items[0].iva"
        ]
    );
    assert!(err.starts_with("kuatia: "));

    let (code, out, err) = run(&["validate", "-"], Some(b"{\"tipo_documento\":"));
    assert_eq!((code, out), (2, serde_json::Value::Null));
    assert_eq!(err.lines().count(), 1);
    let (code, _, _) = run(&["validate", "-"], Some(b"{\"tipo_documento\":\xff}"));
    assert_eq!(code, 2);
}

/// Issue 34 #4: `kuatia validate` lists every shape error and the rules' findings on the rest in one answer, in the
/// project's words.
#[test]
fn validate_reports_every_shape_error_at_once() {
    let bad = json!({"tipo_documento": 1, "receptor": {"ruc": "80069563-1"},
        "items": [{"descripcion": "a", "cantidad": true, "precio_unitario": 1000}]});
    let (code, out, _) = run(
        &["--lang", "en", "validate", "-", "--at", AT],
        Some(bad.to_string().as_bytes()),
    );
    assert_eq!(code, 1);
    let found: Vec<(&str, &str, &str)> = out["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["code"].as_str().unwrap(),
                e["path"].as_str().unwrap(),
                e["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "VALIDATION_ERROR.INVALID_TYPE",
                "items[0].cantidad",
                "must be a number, found true/false"
            ),
            (
                "VALIDATION_ERROR.REQUIRED",
                "receptor.razon_social",
                "is required"
            ),
            ("VALIDATION_ERROR.REQUIRED", "items[0].iva", found[2].2),
        ]
    );
}

#[test]
fn totals_prints_amounts_as_strings() {
    let (code, out, _) = run(&["totals", &example()], None);
    assert_eq!(code, 0);
    let t = &out["totales"];
    // 2 × 35 000 (10 %) + 3 × 21 000 (5 %) + 80 000 exento
    assert_eq!(t["total_general"], json!("213000"));
    assert_eq!(t["sub_10"], json!("70000"));
    assert_eq!(t["iva_10"], json!("6364"));
    assert_eq!(t["iva_5"], json!("3000"));
    assert_eq!(t["sub_exenta"], json!("80000"));
}

#[test]
fn issue_writes_a_signed_document_that_verifies() {
    let dir = TempDir::new("issue");
    let out_dir = dir.0.display().to_string();
    let (code, out, err) = run(&["issue", &example(), "--out", &out_dir, "--at", AT], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["status"], json!("signed"));
    assert_eq!(out["numero"], json!("001-001-0000001"));
    assert_eq!(out["test_only"], json!(true));
    let cdc = out["cdc"].as_str().unwrap();
    assert_eq!(cdc.len(), 44);
    assert!(cdc.starts_with("0144444401700100100000012202503101"));
    let xml_path = out["xml"].as_str().unwrap().to_string();
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(xml.contains(&format!("<DE Id=\"{cdc}\">")));
    assert!(xml.contains(
        "<gCamFuFD><dCarQR>https://ekuatia.set.gov.py/consultas-test/qr?nVersion=150&amp;Id="
    ));

    // The sequence advances on the next document.
    let (_, second, _) = run(&["issue", &example(), "--out", &out_dir, "--at", AT], None);
    assert_eq!(second["numero"], json!("001-001-0000002"));

    let (code, report, _) = run(&["verify", &xml_path], None);
    assert_eq!(code, 0);
    assert_eq!(report["valid"], json!(true));

    let tampered = xml.replacen("Café molido", "Cafe molido", 1);
    let bad = dir.0.join("tampered.xml");
    std::fs::write(&bad, tampered).unwrap();
    let (code, report, _) = run(&["verify", &bad.display().to_string()], None);
    assert_eq!(code, 1);
    assert_eq!(report["valid"], json!(false));
}

/// Issues `n` documents into `dir` (its numbering file beside them) and returns their paths, in name order.
fn issue_into(dir: &TempDir, n: usize) -> Vec<String> {
    let out_dir = dir.0.display().to_string();
    let mut paths: Vec<String> = (0..n)
        .map(|_| {
            let (code, out, err) = run(&["issue", &example(), "--out", &out_dir, "--at", AT], None);
            assert_eq!(code, 0, "{err}");
            out["xml"].as_str().unwrap().to_string()
        })
        .collect();
    paths.sort();
    paths
}

#[test]
fn verify_takes_several_files_and_reports_each() {
    let dir = TempDir::new("verify-many");
    let paths = issue_into(&dir, 3);
    let args: Vec<&str> = std::iter::once("verify")
        .chain(paths.iter().map(String::as_str))
        .collect();
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (
            out["total"].clone(),
            out["valid"].clone(),
            out["invalid"].clone()
        ),
        (json!(3), json!(3), json!(0))
    );
    let files = out["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    for (entry, path) in files.iter().zip(&paths) {
        assert_eq!(entry["file"], json!(path));
        assert_eq!(entry["valid"], json!(true));
        assert_eq!(entry["digest_ok"], json!(true), "{entry}");
    }
    assert_eq!(
        err.trim(),
        "kuatia: verify: 3 files, 3 valid, 0 not valid, 0 unreadable"
    );

    // One tampered document among them: every file is still reported, the tampered one as not valid, exit 1.
    let xml = std::fs::read_to_string(&paths[1]).unwrap();
    std::fs::write(&paths[1], xml.replacen("Café molido", "Cafe molido", 1)).unwrap();
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        (out["valid"].clone(), out["invalid"].clone()),
        (json!(2), json!(1))
    );
    let valid: Vec<bool> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["valid"].as_bool().unwrap())
        .collect();
    assert_eq!(valid, [true, false, true]);
    assert!(out["files"][1]["error"]["code"].is_string(), "{out}");
    assert!(
        err.starts_with("kuatia: verify: 3 files, 2 valid, 1 not valid, 0 unreadable (first: "),
        "{err}"
    );
    assert!(err.contains(&paths[1]), "{err}");
    assert_eq!(err.lines().count(), 1);

    // A missing file is reported as unreadable (exit 2) next to the others, which are still verified.
    let missing = dir.0.join("missing.xml").display().to_string();
    let (code, out, _) = run(&["verify", &paths[0], &missing], None);
    assert_eq!(code, 2);
    assert_eq!(
        (out["valid"].clone(), out["unreadable"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(out["files"][1]["valid"], json!(false));
    assert!(
        out["files"][1]["unreadable"]
            .as_str()
            .unwrap()
            .contains("cannot open"),
        "{out}"
    );
}

#[test]
fn verify_takes_a_folder_and_checks_its_xml_files() {
    let dir = TempDir::new("verify-folder");
    let paths = issue_into(&dir, 2);
    let folder = dir.0.display().to_string();
    // The numbering database beside the documents is not an .xml file: it is left alone.
    let (code, out, err) = run(&["verify", &folder], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["total"], json!(2));
    let listed: Vec<&str> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(listed, paths.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        err.trim(),
        "kuatia: verify: 2 files, 2 valid, 0 not valid, 0 unreadable"
    );

    // A folder with no .xml file is an unreadable input, not a silent success.
    let empty = TempDir::new("verify-empty");
    let (code, out, err) = run(&["verify", &empty.0.display().to_string()], None);
    assert_eq!(code, 2, "{out}");
    assert_eq!(out["total"], json!(1));
    assert!(err.contains("no .xml file in this folder"), "{err}");

    // One file alone keeps the single-report answer.
    let (code, out, _) = run(&["verify", &paths[0]], None);
    assert_eq!(code, 0);
    assert_eq!(out["valid"], json!(true));
    assert!(out.get("files").is_none());
}

#[test]
fn issue_refuses_invalid_requests_and_bad_keys() {
    let dir = TempDir::new("bad");
    let out_dir = dir.0.display().to_string();
    let bad = json!({"tipo_documento": 1, "receptor": {"razon_social": "Cliente sin RUC"},
        "items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": 1, "iva": 10}]});
    let (code, out, _) = run(
        &["issue", "-", "--out", &out_dir, "--at", AT],
        Some(bad.to_string().as_bytes()),
    );
    assert_eq!(code, 1);
    assert_eq!(out["errors"][0]["path"], json!("receptor.documento_numero"));

    let not_p12 = dir.0.join("not.p12");
    std::fs::write(&not_p12, b"this is not a PKCS#12 file").unwrap();
    let p12 = not_p12.display().to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args([
            "issue",
            &example(),
            "--out",
            &out_dir,
            "--p12",
            &p12,
            "--password-env",
            "KUATIA_TEST_PW",
        ])
        .env("KUATIA_TEST_PW", "s3cret-password")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("P12_INVALID"), "{all}");
    assert!(
        !all.contains("s3cret-password"),
        "the password leaked: {all}"
    );
}

#[test]
fn kude_renders_a_pdf_that_qpdf_accepts() {
    let dir = TempDir::new("kude");
    let out_dir = dir.0.display().to_string();
    let (_, out, _) = run(&["issue", &example(), "--out", &out_dir, "--at", AT], None);
    let xml = out["xml"].as_str().unwrap().to_string();
    for format in ["a4", "ticket"] {
        let pdf = dir.0.join(format!("{format}.pdf")).display().to_string();
        let (code, res, err) = run(&["kude", &xml, "--out", &pdf, "--format", format], None);
        assert_eq!(code, 0, "{err}");
        assert_eq!(res["cdc"], out["cdc"]);
        let check = std::process::Command::new("qpdf")
            .args(["--check", &pdf])
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
        let text = std::process::Command::new("pdftotext")
            .args([&pdf, "-"])
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(text.contains("Ñandutí Comercial S.A."), "{text}");
        assert!(text.contains("213.000"), "{text}");
    }
    // A document without its QR group cannot be rendered.
    let unsigned = dir.0.join("no-qr.xml");
    let full = std::fs::read_to_string(&xml).unwrap();
    let cut = full.find("<gCamFuFD>").unwrap();
    std::fs::write(&unsigned, format!("{}</rDE>", &full[..cut])).unwrap();
    let pdf = dir.0.join("x.pdf").display().to_string();
    let (code, res, _) = run(
        &["kude", &unsigned.display().to_string(), "--out", &pdf],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(res["error"]["code"], json!("MALFORMED_XML"));
}

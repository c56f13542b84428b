//! Runs the built `kuatia` binary: `ruc` and `cdc` commands, JSON output, exit codes 0/1/2.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{kuatia, run};

use serde_json::{json, Value};

/// One clear line on stderr.
fn assert_one_line(stderr: &str) {
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(stderr.starts_with("kuatia: "), "{stderr:?}");
}

/// `cdc parse` prints `"valid": true` and then core's CDC parts, keys in the order every face prints them.
#[test]
fn cdc_parse_exact_output() {
    let out = kuatia(
        &[
            "cdc",
            "parse",
            "01444444017001001001452822017012515873260988",
        ],
        None,
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        concat!(
            r#"{"valid":true,"cdc":"01444444017001001001452822017012515873260988","#,
            r#""grouped":"0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988","dv":8,"#,
            r#""tipo_documento":1,"ruc":"44444401-7","establecimiento":1,"punto":1,"numero":14528,"#,
            r#""tipo_contribuyente":2,"fecha":"2017-01-25","tipo_emision":1,"codigo_seguridad":587326098}"#,
            "\n"
        )
    );
}

#[test]
fn ruc_dv_table() {
    // SIFEN.md §1 worked examples.
    for (body, dv) in [
        ("80069563", 1),
        ("4554737", 8),
        ("88888801", 5),
        ("3437941", 0),
        ("1234567A", 2),
    ] {
        let (code, v, stderr) = run(&["ruc", "dv", body], None);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(v, json!({"ruc": format!("{body}-{dv}"), "dv": dv}));
        assert!(stderr.is_empty());
    }
}

#[test]
fn ruc_dv_exact_output() {
    let out = kuatia(&["ruc", "dv", "80069563"], None);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"ruc\":\"80069563-1\",\"dv\":1}\n"
    );
}

#[test]
fn ruc_dv_invalid() {
    let (code, v, stderr) = run(&["ruc", "dv", "0123"], None);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "INVALID_RUC");
    assert_one_line(&stderr);
}

#[test]
fn ruc_check() {
    let out = kuatia(&["ruc", "check", "80069563-1"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"valid\":true,\"ruc\":\"80069563-1\"}\n"
    );

    // Without the '-' a RUC is ambiguous (issue 14): refused, with the expected form in the message.
    for typed in ["800695631", "80069568"] {
        let (code, v, _) = run(&["--lang", "en", "ruc", "check", typed], None);
        assert_eq!(
            (code, &v["valid"], &v["error"]["code"]),
            (1, &json!(false), &json!("INVALID_RUC"))
        );
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("80069563-1"),
            "{v}"
        );
    }

    let (code, v, stderr) = run(&["--lang", "en", "ruc", "check", "80069563-2"], None);
    assert_eq!(code, 1);
    assert_eq!(
        v,
        json!({"valid": false, "error": {"code": "INVALID_RUC", "message": "wrong RUC check digit: expected 1, got 2",
               "rule": "ruc.check_digit", "params": {"expected": "1", "got": "2"}}})
    );
    assert_one_line(&stderr);

    for bad in ["abc", "-1", "", "١٢٣-٤", "123456789-0"] {
        let (code, v, _) = run(&["ruc", "check", bad], None);
        assert_eq!(code, 1, "{bad:?}");
        assert_eq!(v["valid"], false);
        assert_eq!(v["error"]["code"], "INVALID_RUC");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
    }
}

const BRIEF_JSON: &str = r#"{"tipo_documento":1,"ruc":"80069563-1","establecimiento":"001","punto":"001",
"numero":"0000123","tipo_contribuyente":2,"fecha":"2024-03-15","tipo_emision":1,"codigo_seguridad":"123456789"}"#;

#[test]
fn cdc_build_from_stdin_and_file() {
    let (code, v, stderr) = run(&["cdc", "build", "-"], Some(BRIEF_JSON.as_bytes()));
    assert_eq!(code, 0, "{stderr}");
    let cdc = v["cdc"].as_str().unwrap();
    // Layout by hand (SIFEN.md §2.1): 01 80069563 1 001 001 0000123 2 20240315 1 123456789, then the DV.
    assert_eq!(&cdc[..43], "0180069563100100100001232202403151123456789");
    assert_eq!(cdc.len(), 44);
    let grouped = v["grouped"].as_str().unwrap();
    assert_eq!(grouped.replace(' ', ""), cdc);
    assert_eq!(grouped.split(' ').count(), 11);

    let path = std::env::temp_dir().join(format!("kuatia-cli-ids-{}.json", std::process::id()));
    std::fs::write(&path, BRIEF_JSON).unwrap();
    let (code, from_file, _) = run(&["cdc", "build", path.to_str().unwrap()], None);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 0);
    assert_eq!(from_file, v);
}

#[test]
fn cdc_build_sifen_examples() {
    // SIFEN.md §2.4: MT example and the letter-RUC example.
    let cases = [
        (
            json!({"tipo_documento":1,"ruc":"44444401-7","establecimiento":1,"punto":1,"numero":14528,
                   "tipo_contribuyente":2,"fecha":"2017-01-25","tipo_emision":1,"codigo_seguridad":587326098}),
            "01444444017001001001452822017012515873260988",
            "0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988",
        ),
        (
            json!({"tipo_documento":"07","ruc":"80089752-8","establecimiento":"010","punto":"002","numero":"9999999",
                   "tipo_contribuyente":"2","fecha":"2024-12-01","tipo_emision":"2","codigo_seguridad":"987654321"}),
            "07800897528010002999999922024120129876543216",
            "0780 0897 5280 1000 2999 9999 2202 4120 1298 7654 3216",
        ),
        (
            json!({"tipo_documento":1,"ruc":"1234567A-2","establecimiento":1,"punto":1,"numero":10,
                   "tipo_contribuyente":1,"fecha":"2025-05-05","tipo_emision":1,"codigo_seguridad":111222333}),
            "011234567A2001001000001012025050511112223339",
            "0112 3456 7A20 0100 1000 0010 1202 5050 5111 1222 3339",
        ),
    ];
    for (input, cdc, grouped) in cases {
        let (code, v, stderr) = run(&["cdc", "build", "-"], Some(input.to_string().as_bytes()));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(v, json!({"cdc": cdc, "grouped": grouped}));
    }
}

#[test]
fn cdc_build_errors() {
    // Not UTF-8: unreadable, exit 2, one line on stderr, nothing on stdout.
    let (code, v, stderr) = run(&["cdc", "build", "-"], Some(b"{\"tipo_documento\":\xff}"));
    assert_eq!((code, v), (2, Value::Null));
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    assert_one_line(&stderr);

    let path = std::env::temp_dir().join(format!("kuatia-cli-ids-bad-{}.json", std::process::id()));
    std::fs::write(&path, b"\xfe\xff\x00{").unwrap();
    let (code, _, stderr) = run(&["cdc", "build", path.to_str().unwrap()], None);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 2);
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");

    let (code, _, stderr) = run(&["cdc", "build", "/nonexistent/kuatia.json"], None);
    assert_eq!(code, 2);
    assert_one_line(&stderr);

    let (code, _, stderr) = run(&["cdc", "build", "-"], Some(b"{\"tipo_documento\": 1,"));
    assert_eq!(code, 2);
    assert!(stderr.contains("MALFORMED_JSON"), "{stderr}");
    assert_one_line(&stderr);

    // Valid JSON, invalid content: exit 1 with the error object and the field path.
    let mut bad: Value = serde_json::from_str(BRIEF_JSON).unwrap();
    bad["establecimiento"] = json!(1000);
    let (code, v, stderr) = run(&["cdc", "build", "-"], Some(bad.to_string().as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "INVALID_CDC");
    assert_eq!(v["error"]["path"], "establecimiento");
    assert_one_line(&stderr);

    bad["establecimiento"] = json!("1");
    bad["ruc"] = json!("80069563-9");
    let (code, v, _) = run(&["cdc", "build", "-"], Some(bad.to_string().as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "INVALID_RUC");
    assert_eq!(v["error"]["path"], "ruc");

    bad["ruc"] = json!("80069563-1");
    bad["fecha"] = json!("2023-02-30");
    let (code, v, _) = run(&["cdc", "build", "-"], Some(bad.to_string().as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(v["error"]["path"], "fecha");

    bad.as_object_mut().unwrap().remove("numero");
    bad["fecha"] = json!("2023-02-28");
    let (code, v, _) = run(&["cdc", "build", "-"], Some(bad.to_string().as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "VALIDATION_ERROR.REQUIRED");
    assert_eq!(v["error"]["path"], "numero");
}

#[test]
fn cdc_parse() {
    let (code, v, stderr) = run(
        &[
            "cdc",
            "parse",
            "01444444017001001001452822017012515873260988",
        ],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        v,
        json!({
            "valid": true,
            "cdc": "01444444017001001001452822017012515873260988",
            "grouped": "0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988",
            "dv": 8,
            "tipo_documento": 1, "ruc": "44444401-7", "establecimiento": 1, "punto": 1, "numero": 14528,
            "tipo_contribuyente": 2, "fecha": "2017-01-25", "tipo_emision": 1, "codigo_seguridad": 587326098
        })
    );

    // The printed grouped form is accepted.
    let (code, v2, _) = run(
        &[
            "cdc",
            "parse",
            "0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988",
        ],
        None,
    );
    assert_eq!((code, v2), (0, v.clone()));

    // parse output feeds build back (extra keys are ignored) and gives the same CDC.
    let (code, rebuilt, _) = run(&["cdc", "build", "-"], Some(v.to_string().as_bytes()));
    assert_eq!(code, 0);
    assert_eq!(rebuilt["cdc"], v["cdc"]);
}

#[test]
fn cdc_parse_invalid() {
    for (bad, needle) in [
        (
            "01444444017001001001452822017012515873260987",
            "expected 8, got 7",
        ),
        (
            "0144444401700100100145282201701251587326098",
            "44 characters",
        ),
        (
            "0144444401700100100145282201701251587326098X",
            "invalid character",
        ),
        ("-1", "44 characters"),
    ] {
        let (code, v, stderr) = run(&["--lang", "en", "cdc", "parse", bad], None);
        assert_eq!(code, 1, "{bad}");
        assert_eq!(v["valid"], false);
        assert_eq!(v["error"]["code"], "INVALID_CDC");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{bad}: {message}");
        assert_one_line(&stderr);
    }
}

#[test]
fn usage_errors_and_help() {
    let (code, v, stderr) = run(&[], None);
    assert_eq!((code, v), (2, Value::Null));
    assert!(!stderr.is_empty());
    assert_eq!(run(&["ruc"], None).0, 2);
    assert_eq!(run(&["ruc", "dv"], None).0, 2);
    assert_eq!(run(&["nope"], None).0, 2);
    assert_eq!(run(&["cdc", "build"], None).0, 2);

    let out = kuatia(&["--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "Exit codes",
        "0  success",
        "1  invalid",
        "2  unreadable",
        "ruc",
        "cdc",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from --help:\n{help}"
        );
    }
    let out = kuatia(&["cdc", "--help"], None);
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("Exit codes"));
}

//! The language of the findings the CLI prints: `--lang es|en`, else the first non-empty of `LC_ALL`, `LC_MESSAGES`,
//! `LANG` (`en*` English, anything else Spanish of Paraguay); the same rule id and parameters in both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{json, Value};
use std::process::Command;

const ES: &str = "El dígito verificador del RUC no corresponde: debería ser 1, no 2";
const EN: &str = "wrong RUC check digit: expected 1, got 2";

/// `kuatia ARGS` with exactly the locale variables `env` (the others removed): exit code, stdout JSON, stderr.
fn run_in(env: &[(&str, &str)], args: &[&str]) -> (i32, Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kuatia"));
    for k in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        cmd.env_remove(k);
    }
    cmd.envs(env.iter().copied()).args(args);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (
        out.status.code().unwrap(),
        serde_json::from_str(&stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn error(message: &str) -> Value {
    json!({"valid": false, "error": {"code": "INVALID_RUC", "message": message, "rule": "ruc.check_digit",
           "params": {"expected": "1", "got": "2"}}})
}

#[test]
fn the_flag_and_the_environment_choose_the_language() {
    let check = ["ruc", "check", "80069563-2"];
    for (env, flag, want) in [
        (&[][..], None, ES),
        (&[("LANG", "C")][..], None, ES),
        (&[("LANG", "POSIX")][..], None, ES),
        (&[("LANG", "es_PY.UTF-8")][..], None, ES),
        (&[("LANG", "en_US.UTF-8")][..], None, EN),
        (
            &[("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "")][..],
            None,
            EN,
        ),
        (
            &[("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "es_PY")][..],
            None,
            ES,
        ),
        (
            &[("LC_MESSAGES", "es_PY"), ("LC_ALL", "en_GB")][..],
            None,
            EN,
        ),
        (
            &[("LC_ALL", "C.UTF-8"), ("LANG", "en_US.UTF-8")][..],
            None,
            ES,
        ),
        (&[("LANG", "en_US.UTF-8")][..], Some("es"), ES),
        (&[][..], Some("en"), EN),
    ] {
        let mut args: Vec<&str> = flag.map_or(vec![], |l| vec!["--lang", l]);
        args.extend(check);
        let (code, v, stderr) = run_in(env, &args);
        assert_eq!(code, 1, "{env:?} {flag:?}");
        assert_eq!(v, error(want), "{env:?} {flag:?}");
        assert_eq!(
            stderr,
            format!("kuatia: INVALID_RUC: {want}\n"),
            "{env:?} {flag:?}"
        );
    }
    // The flag is global: after the subcommand too. An unknown language is a usage error (exit 2).
    let (code, v, _) = run_in(&[], &["ruc", "check", "80069563-2", "--lang", "en"]);
    assert_eq!((code, v), (1, error(EN)));
    let out = common::kuatia(&["--lang", "fr", "ruc", "check", "80069563-2"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_validation_report_is_printed_in_the_language_chosen() {
    let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cases/fe_spec_example.json");
    let case: Value = serde_json::from_str(&std::fs::read_to_string(case).unwrap()).unwrap();
    let mut request = case["request"].clone();
    request["receptor"]["ruc"] = json!("80069563-2");
    let dir = common::TempDir::new("lang");
    let path = dir.0.join("request.json");
    std::fs::write(&path, request.to_string()).unwrap();
    let file = path.to_str().unwrap();
    for (lang, want) in [("es", ES), ("en", EN)] {
        let (code, v, stderr) = run_in(&[], &["validate", file, "--lang", lang]);
        assert_eq!(code, 1, "{v}");
        let f = v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "ruc.check_digit")
            .unwrap_or_else(|| panic!("{v}"));
        assert_eq!(
            (&f["path"], &f["message"], &f["params"]),
            (
                &json!("receptor.ruc"),
                &json!(want),
                &json!({"expected": "1", "got": "2"})
            )
        );
        assert!(stderr.starts_with("kuatia: "), "{stderr}");
    }
}

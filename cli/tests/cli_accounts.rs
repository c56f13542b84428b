//! `kuatia accounts …` and `kuatia keys list|revoke` on a serve data directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{run, TempDir};
use kuatia_core::profile::{Ambiente, Emisor};
use serde_json::Value;
use std::process::Command;

fn with_env(args: &[&str], var: &str, value: &str) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(args)
        .env(var, value)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn accounts_profiles_p12_and_keys() {
    let dir = TempDir::new("accounts");
    let data = dir.0.join("data");
    let data = data.to_str().unwrap();
    let (code, a, _) = run(&["accounts", "create", "Empresa A", "--data", data], None);
    assert_eq!(code, 0, "{a}");
    let id = a["id"].as_str().unwrap().to_string();
    let key = a["sandbox_key"].as_str().unwrap().to_string();
    assert!(id.starts_with("acct_") && key.starts_with("dk_test_"));
    run(&["accounts", "create", "Empresa B", "--data", data], None);
    let (code, list, _) = run(&["accounts", "list", "--data", data], None);
    assert_eq!(code, 0);
    let names: Vec<&str> = list["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    // The data directory's own account comes first, then the others in creation order.
    assert_eq!(names, ["kuatia serve", "Empresa A", "Empresa B"]);
    assert!(list["accounts"][1]["created_at"].is_string());

    // A one-time panel link, by name or by id; an unknown account is refused.
    let (code, v, _) = run(
        &[
            "accounts",
            "panel-login",
            "Empresa A",
            "--base-url",
            "https://panel.example.test",
            "--data",
            data,
        ],
        None,
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["account"], serde_json::json!(id));
    let link = v["link"].as_str().unwrap();
    assert!(
        link.starts_with("https://panel.example.test/panel/entrar?token="),
        "{link}"
    );
    assert_eq!(v["expires_in"], serde_json::json!(900));
    let (code, _, _) = run(&["accounts", "panel-login", &id, "--data", data], None);
    assert_eq!(code, 0);
    let (code, _, err) = run(&["accounts", "panel-login", "Nadie", "--data", data], None);
    assert_eq!(code, 2, "{err}");

    // Profiles: the core's rules (a test-environment profile is refused, with the path of the problem).
    let sandbox = dir.0.join("sandbox.json");
    std::fs::write(&sandbox, serde_json::to_string(&Emisor::sandbox()).unwrap()).unwrap();
    let (code, v, _) = run(
        &[
            "accounts",
            "set-profile",
            &id,
            sandbox.to_str().unwrap(),
            "--data",
            data,
        ],
        None,
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["findings"][0]["path"], "ambiente");
    let mut prod = Emisor::sandbox();
    prod.ambiente = Ambiente::Produccion;
    let prod_file = dir.0.join("prod.json");
    std::fs::write(&prod_file, serde_json::to_string(&prod).unwrap()).unwrap();
    let (code, v, _) = run(
        &[
            "accounts",
            "set-profile",
            &id,
            prod_file.to_str().unwrap(),
            "--data",
            data,
        ],
        None,
    );
    assert_eq!(code, 0, "{v}");
    let (code, _, err) = run(
        &[
            "accounts",
            "set-profile",
            "acct_nope",
            prod_file.to_str().unwrap(),
            "--data",
            data,
        ],
        None,
    );
    assert_eq!(code, 2, "{err}");

    // P12: opened with the password from the named variable, checked against the profile; never stored in clear.
    let p12 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/certs/sandbox.p12"
    );
    let args = [
        "accounts",
        "set-p12",
        &id,
        p12,
        "--password-env",
        "KUATIA_T_PW",
        "--data",
        data,
    ];
    let (code, _, err) = with_env(&args, "KUATIA_T_PW", "wrong");
    assert_eq!(code, 2, "{err}");
    let (code, v, err) = with_env(&args, "KUATIA_T_PW", "kuatia-test");
    // The built-in test certificate carries the sandbox profile's RUC: accepted unless expired.
    assert!(
        code == 0 || v["error"]["code"] == "CERTIFICATE_EXPIRED",
        "{v} {err}"
    );
    if code == 0 {
        assert!(v["certificate"]["subject"].is_string(), "{v}");
    }
    for entry in std::fs::read_dir(data).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(!bytes.windows(11).any(|w| w == b"kuatia-test"));
    }

    // Keys: prefixes and dates only; revocation by prefix.
    let (code, keys, _) = run(&["keys", "list", "--account", &id, "--data", data], None);
    assert_eq!(code, 0, "{keys}");
    let text = keys.to_string();
    assert!(!text.contains(&key) && !text.contains("hash"), "{text}");
    let k = &keys["keys"][0];
    let prefix = k["prefix"].as_str().unwrap();
    assert!(key.starts_with(prefix) && prefix.len() == 16);
    assert!(k["created_at"].is_string() && k["revoked_at"].is_null());
    let (code, v, _) = run(
        &["keys", "create", "--live", "--account", &id, "--data", data],
        None,
    );
    assert_eq!(code, 0, "{v}");
    let (code, v, _) = run(&["keys", "revoke", prefix, "--data", data], None);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["account"], id.as_str());
    let (_, keys, _) = run(&["keys", "list", "--account", &id, "--data", data], None);
    assert_eq!(keys["keys"].as_array().unwrap().len(), 2);
    assert!(keys["keys"][0]["revoked_at"].is_string());
    assert!(keys["keys"][1]["revoked_at"].is_null());
    let (code, v, _) = run(&["keys", "revoke", "zzzzzzzz", "--data", data], None);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "NOT_FOUND");
}

/// Issue 34 #7: `panel-login` without `--base-url` links to the address `kuatia serve` recorded in the data
/// directory at its start (here an ephemeral port), not to a fixed default.
#[test]
fn panel_login_links_to_the_address_the_server_recorded() {
    use std::io::BufRead as _;
    let dir = TempDir::new("panel-address");
    let data = dir.0.join("data");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&data)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let started: serde_json::Value = serde_json::from_str(&line).unwrap();
    let base = started["base_url"].as_str().unwrap().to_string();
    assert!(!base.ends_with(":8080"), "{base}");
    let term = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // The address is recorded before the startup line is printed; how the process ends does not matter here.
    child.wait().unwrap();

    let data = data.to_str().unwrap();
    let (code, v, err) = run(
        &["accounts", "panel-login", "kuatia serve", "--data", data],
        None,
    );
    assert_eq!(code, 0, "{v} {err}");
    let link = v["link"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{base}/panel/entrar?token=")),
        "{link} {base}"
    );
    // --base-url still wins.
    let (code, v, _) = run(
        &[
            "accounts",
            "panel-login",
            "kuatia serve",
            "--base-url",
            "https://p.example.test",
            "--data",
            data,
        ],
        None,
    );
    assert_eq!(code, 0);
    assert!(v["link"]
        .as_str()
        .unwrap()
        .starts_with("https://p.example.test/panel/"));
}

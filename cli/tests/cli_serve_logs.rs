//! `kuatia serve --log-format json|text` (issue 33, logs): the real binary on a loopback port, raw HTTP/1.1; its
//! stderr captured to a file and, in JSON, every line read by a JSON parser. Each request has one access line naming
//! it (method, path, status, duration_ms) under its `request_id`, and no line carries the API key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::serve::{start, Serve};
use common::{TempDir, HANG_GUARD};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

/// `kuatia serve --log-format <format>` on a fresh data directory, stderr into `<dir>/stderr.log`.
fn serve(dir: &TempDir, format: Option<&str>) -> Serve {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kuatia"));
    cmd.args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(dir.0.join("data"));
    if let Some(f) = format {
        cmd.args(["--log-format", f]);
    }
    let log = std::fs::File::create(dir.0.join("stderr.log")).unwrap();
    cmd.stderr(Stdio::from(log));
    start(cmd)
}

/// One request on its own connection; the answer's head and body as text.
fn request(
    serve: &Serve,
    method: &str,
    path: &str,
    request_id: Option<&str>,
    body: &str,
) -> String {
    let mut s = TcpStream::connect(&serve.addr).unwrap();
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let id = request_id
        .map(|id| format!("X-Request-Id: {id}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nX-Environment: sandbox\r\n{id}\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        serve.addr,
        serve.key,
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer
}

/// Stops the server (SIGTERM, exit 0: its log writer flushes) and reads what it wrote on stderr.
fn stop(mut serve: Serve, dir: &TempDir) -> String {
    serve.terminate();
    assert_eq!(serve.wait_exit().code(), Some(0));
    std::fs::read_to_string(dir.0.join("stderr.log")).unwrap()
}

const CREATE: &str = r#"{"tipo_documento":1,"_simulate":"approved","receptor":{"ruc":"80069563-1","razon_social":"Cliente","email":"c@example.com"},"items":[{"descripcion":"Servicio","cantidad":1,"precio_unitario":1100000,"iva":10}],"condicion_pago":1}"#;

#[test]
fn json_logs_are_one_object_per_line_and_every_request_line_names_its_request_id() {
    let dir = TempDir::new("logs-json");
    let serve = serve(&dir, Some("json"));
    let key = serve.key.clone();
    assert!(key.starts_with("dk_test_"), "{key}");

    let missing = request(
        &serve,
        "GET",
        "/v1/facturas/fact_nope",
        Some("logs-404"),
        "",
    );
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    assert!(
        missing
            .to_ascii_lowercase()
            .contains("request-id: logs-404"),
        "{missing}"
    );
    assert!(missing.contains(r#""request_id":"logs-404""#), "{missing}");
    let created = request(&serve, "POST", "/v1/facturas", Some("logs-create"), CREATE);
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let refused = request(&serve, "POST", "/v1/facturas", Some("logs-422"), "{}");
    assert!(refused.starts_with("HTTP/1.1 422"), "{refused}");
    // An unsafe id: a fresh one in the answer and the log, the sent one nowhere.
    let evil = request(&serve, "GET", "/v1/health", Some("evil\"id;x=1"), "");
    assert!(evil.starts_with("HTTP/1.1 200"), "{evil}");
    let fresh = evil
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("request-id: ")
                .map(str::to_string)
        })
        .expect("a Request-Id");
    assert!(fresh.starts_with("req_"), "{fresh}");

    let log = stop(serve, &dir);
    assert!(!log.contains(&key), "the API key is never logged");
    assert!(!log.contains("evil"), "an unsafe id is never logged");
    assert!(!log.contains("Cliente"), "request bodies are never logged");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object: {l:?}: {e}"))
        })
        .collect();
    assert!(lines.iter().all(Value::is_object), "{log}");
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "kuatia serve listening"),
        "{log}"
    );

    // Every access line carries its request's id; one line per request.
    let access: Vec<&Value> = lines.iter().filter(|l| l["message"] == "request").collect();
    assert_eq!(access.len(), 4, "{log}");
    for line in &access {
        let id = line["span"]["request_id"]
            .as_str()
            .unwrap_or_else(|| panic!("{line}"));
        assert!(!id.is_empty(), "{line}");
        assert!(line["duration_ms"].as_f64().is_some(), "{line}");
    }
    let of = |id: &str| -> Vec<&Value> {
        lines
            .iter()
            .filter(|l| l["span"]["request_id"] == id)
            .collect()
    };
    let line = |id: &str| -> &Value {
        let found = of(id);
        assert_eq!(found.len(), 1, "{id}: {log}");
        found[0]
    };
    let l = line("logs-404");
    assert_eq!(
        (&l["method"], &l["path"], &l["status"]),
        (&"GET".into(), &"/v1/facturas/fact_nope".into(), &404.into())
    );
    let l = line("logs-create");
    assert_eq!(
        (&l["method"], &l["path"], &l["status"]),
        (&"POST".into(), &"/v1/facturas".into(), &201.into())
    );
    assert_eq!(line("logs-422")["status"], 422);
    assert_eq!(line(&fresh)["path"], "/v1/health");
}

#[test]
fn text_logs_name_the_request_id_on_its_line() {
    let dir = TempDir::new("logs-text");
    let serve = serve(&dir, None);
    let key = serve.key.clone();
    let answer = request(&serve, "GET", "/v1/facturas/fact_nope", Some("text-1"), "");
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    let log = stop(serve, &dir);
    assert!(!log.contains(&key), "the API key is never logged");
    assert!(
        serde_json::from_str::<Value>(log.lines().next().unwrap()).is_err(),
        "text by default: {log}"
    );
    let access: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("request_id=text-1"))
        .collect();
    assert_eq!(access.len(), 1, "{log}");
    assert!(access[0].contains("status=404"), "{log}");
    assert!(access[0].contains("path=/v1/facturas/fact_nope"), "{log}");
    assert!(access[0].contains("duration_ms="), "{log}");
}

//! Faults injected into the `kuatia serve` process (docs/reliability.md, "Faults injected into kuatia serve"):
//! SIGTERM while a request is in flight. The real binary on a loopback port, raw HTTP/1.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TempDir;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigterm_stops_accepting_finishes_the_request_in_flight_and_exits_0() {
    let dir = TempDir::new("sigterm");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let started: serde_json::Value = serde_json::from_str(&line).unwrap();
    let addr = started["listening"].as_str().unwrap().to_string();
    let key = started["sandbox_key"].as_str().unwrap().to_string();

    // A create whose body is only half sent when SIGTERM arrives.
    let body = serde_json::json!({
        "tipo_documento": 1, "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST /v1/facturas HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        body.len(),
        &body[..body.len() / 2]
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // Stop accepting: new connections are refused once the signal is handled.
    let deadline = Instant::now() + Duration::from_secs(5);
    while TcpStream::connect(&addr).is_ok() {
        assert!(Instant::now() < deadline, "still accepting after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Finish in-flight: the rest of the body arrives after the signal, and the request still succeeds.
    s.write_all(&body.as_bytes()[body.len() / 2..]).unwrap();
    let mut response = String::new();
    let _ = s.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 201"), "{response}");
    assert!(response.contains("\"status\":\"approved\""), "{response}");
    // Exit 0, with the stop document on stdout.
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline + Duration::from_secs(10),
            "no exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("\"stopped\""), "{rest}");

    // Durable: the invoice is there after a restart.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = serde_json::from_str::<serde_json::Value>(&line).unwrap()["listening"]
        .as_str()
        .unwrap()
        .to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /v1/facturas HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut listing = String::new();
    let _ = s.read_to_string(&mut listing);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert!(listing.contains("\"total\":1"), "{listing}");
}

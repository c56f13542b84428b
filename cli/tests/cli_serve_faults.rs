//! Faults injected into the `kuatia serve` process (docs/reliability.md, "Faults injected into kuatia serve"):
//! SIGTERM while a request is in flight. The real binary on a loopback port, raw HTTP/1.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::serve::{command, start};
use common::{wait_until, TempDir, HANG_GUARD};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

#[test]
fn sigterm_stops_accepting_finishes_the_request_in_flight_and_exits_0() {
    let dir = TempDir::new("sigterm");
    let mut serve = start(command(&dir.0));
    let (addr, key) = (serve.addr.clone(), serve.key.clone());

    // A create whose body is only half sent when SIGTERM arrives. `Expect: 100-continue` makes the request's start
    // observable: the server answers `100 Continue` once it reads the body, so the request is in flight (accepted,
    // its head read) before the signal, whatever the machine's load.
    let body = serde_json::json!({
        "tipo_documento": 1, "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    write!(
        s,
        "POST /v1/facturas HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n{}",
        body.len(),
        &body[..body.len() / 2]
    )
    .unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    let mut interim = String::new();
    reader.read_line(&mut interim).unwrap();
    assert!(interim.starts_with("HTTP/1.1 100"), "{interim}");
    let mut blank = String::new();
    reader.read_line(&mut blank).unwrap();
    assert_eq!(blank, "\r\n");
    serve.terminate();
    // Stop accepting: new connections are refused once the signal is handled.
    wait_until("refusing connections after SIGTERM", || {
        TcpStream::connect(&addr).is_err()
    });
    // Finish in-flight: the rest of the body arrives after the signal, and the request still succeeds.
    s.write_all(&body.as_bytes()[body.len() / 2..]).unwrap();
    let mut response = String::new();
    let _ = reader.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 201"), "{response}");
    assert!(response.contains("\"status\":\"approved\""), "{response}");
    // Exit 0, with the stop document on stdout.
    assert_eq!(serve.wait_exit().code(), Some(0));
    let mut rest = String::new();
    serve.out.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("\"stopped\""), "{rest}");

    // Durable: the invoice is there after a restart.
    let mut serve = start(command(&dir.0));
    let addr = serve.addr.clone();
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /v1/facturas HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut listing = String::new();
    let _ = s.read_to_string(&mut listing);
    serve.terminate();
    let _ = serve.wait_exit();
    assert!(listing.contains("\"total\":1"), "{listing}");
}

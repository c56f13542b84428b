//! The slowloris attack of issue 34 against the real `kuatia serve` binary, as it was found: 300 connections sending
//! nothing, half a head or half a body, against a server limited to 256 open files. It used to take every descriptor
//! (`accept error: Too many open files`) and `/v1/health` stopped answering. Now health answers, the server closes
//! every one of those connections by itself, logs no EMFILE, and still stops cleanly on SIGTERM. No timing is
//! asserted: each wait has a 30-second hang guard.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::serve::start;
use common::{TempDir, HANG_GUARD};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;

/// Reads until the server closes the connection; panics if it is still open at the hang guard.
fn until_closed(mut s: TcpStream, what: &str) -> String {
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("{what}: the server left the connection open")
            }
            // Reset: closed too.
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn three_hundred_slow_connections_under_256_open_files() {
    let dir = TempDir::new("serve-limits");
    let stderr = dir.0.join("stderr.log");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"ulimit -n 256 && exec "$0" serve --addr 127.0.0.1:0 --data "$1" --header-read-timeout 2 --body-timeout 2"#)
        .arg(env!("CARGO_BIN_EXE_kuatia"))
        .arg(dir.0.join("data"))
        .stderr(std::fs::File::create(&stderr).unwrap());
    let mut serve = start(cmd);
    let (addr, key) = (serve.addr.clone(), serve.key.clone());

    let mut slow = Vec::new();
    for i in 0..300 {
        let mut s = TcpStream::connect(&addr).unwrap();
        match i % 3 {
            0 => {}
            1 => s
                .write_all(b"POST /v1/facturas HTTP/1.1\r\nHost: localhost\r\nContent-Le")
                .unwrap(),
            _ => write!(
                s,
                "POST /v1/facturas HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\n\
                 X-Environment: sandbox\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
            )
            .unwrap(),
        }
        slow.push((i, s));
    }

    // The service answers while they are open.
    let mut health = TcpStream::connect(&addr).unwrap();
    health.set_read_timeout(Some(HANG_GUARD)).unwrap();
    health
        .write_all(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let answer = until_closed(health, "/v1/health");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // Every slow connection is closed by the server (a half body with its 408).
    for (i, s) in slow {
        let got = until_closed(s, &format!("slow connection {i}"));
        if i % 3 == 2 && !got.is_empty() {
            assert!(got.starts_with("HTTP/1.1 408"), "{got}");
        }
    }

    serve.terminate();
    assert_eq!(serve.wait_exit().code(), Some(0));
    let log = std::fs::read_to_string(&stderr).unwrap();
    assert!(!log.contains("Too many open files"), "{log}");
    assert!(log.contains("max_connections: 128"), "{log}");
}

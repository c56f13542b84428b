//! `kuatia serve --smtp-url` (issue 36) killed with SIGKILL in the middle of an SMTP exchange, against a real SMTP
//! server on loopback (aiosmtpd, tests/smtp): a message the server acknowledged is never sent again after the
//! restart; one it never acknowledged is sent again (the same message, the same Message-ID: at-least-once there).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../tests/smtp/fake.rs"]
mod fake;

use common::serve::{self, Serve};
use common::{wait_until, TempDir, HANG_GUARD};
use fake::FakeSmtp;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

/// `kuatia serve` e-mailing through `smtp`: a lease of one second (a killed sender's message is claimed again one
/// second later), a retry one second after a temporary failure.
fn start(data: &Path, smtp: &FakeSmtp) -> Serve {
    let mut cmd = serve::command(data);
    cmd.args([
        "--tick-ms",
        "50",
        "--smtp-url",
        &smtp.url(),
        "--smtp-from",
        "Empresa de Prueba <facturas@empresa.com.py>",
        "--smtp-lease",
        "1",
        "--smtp-retry",
        "1",
    ]);
    serve::start(cmd)
}

/// An approved sandbox invoice to `cliente@example.com`, created through the running server.
fn create(addr: &str, key: &str) {
    let body = serde_json::json!({
        "tipo_documento": 1, "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    write!(
        s,
        "POST /v1/facturas HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
}

/// The Message-ID of each end of data the SMTP server received, in order.
fn message_ids(smtp: &FakeSmtp) -> Vec<String> {
    smtp.data_lines()
        .iter()
        .map(|l| l.split(' ').nth(2).unwrap().to_string())
        .collect()
}

fn kill9(s: &mut Serve) {
    s.child.kill().unwrap();
    s.child.wait().unwrap();
}

/// Two messages in flight when the server is killed: the first acknowledged (its QUIT never answered), the second
/// not (its end of data never answered). After the restart the second is sent again once its lease ends; the first,
/// claimed earlier (so due earlier, and claimed no later than the second), never is.
#[test]
fn a_kill_mid_send_resends_only_what_the_smtp_server_never_acknowledged() {
    let dir = TempDir::new("email-kill");
    let smtp = FakeSmtp::start(&dir.0.join("spool"), &["hang-quit", "hang-data"]);
    let data = dir.0.join("data");
    let mut first = start(&data, &smtp);
    let key = first.key.clone();
    create(&first.addr, &key);
    // QUIT comes only after the acknowledgement was committed as `sent`.
    wait_until("the QUIT after the acknowledged message", || {
        smtp.log().iter().any(|l| l == "QUIT")
    });
    create(&first.addr, &key);
    wait_until("the data of the second message", || {
        smtp.data_lines().len() == 2
    });
    kill9(&mut first);
    let ids = message_ids(&smtp);
    let (acked, unacked) = (ids[0].clone(), ids[1].clone());

    let mut second = start(&data, &smtp);
    wait_until("the unacknowledged message sent again", || {
        smtp.accepted().len() == 2
    });
    // One more round of the worker after it.
    create(&second.addr, &key);
    wait_until("the third invoice's message", || smtp.accepted().len() == 3);
    kill9(&mut second);
    let ids = message_ids(&smtp);
    assert_eq!(ids.len(), 4, "{:?}", smtp.log());
    let count = |id: &str| ids.iter().filter(|i| *i == id).count();
    assert_eq!(
        count(&acked),
        1,
        "an acknowledged message was sent again: {ids:?}"
    );
    assert_eq!(
        count(&unacked),
        2,
        "the same message, under the same Message-ID: {ids:?}"
    );
}

//! The restore drill (issue 33): `kuatia backup` of a live `kuatia serve` under load, `kuatia restore` into a new
//! directory, a server started on it, and every invoice acknowledged before the backup began found there with its
//! numbering intact; a damaged backup is refused. The real binary on loopback ports, raw HTTP/1.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::serve::{command, start};
use common::{run, TempDir, HANG_GUARD};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request on its own connection: (status, JSON body).
fn call(addr: &str, key: &str, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let json = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = rest;
        loop {
            let (size, after) = rest.split_once("\r\n").unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.push_str(&after[..n]);
            rest = &after[n + 2..];
        }
        out
    } else {
        rest.to_string()
    };
    (status, serde_json::from_str(&json).unwrap_or(Value::Null))
}

fn factura(i: usize) -> String {
    // A third approved at once, the rest left to the simulated SIFEN (its ticks write beside the creates).
    let simulate = if i.is_multiple_of(3) {
        Some("approved")
    } else {
        None
    };
    let mut f = serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "c@example.com"},
        "items": [{"descripcion": format!("Servicio {i}"), "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    if let Some(s) = simulate {
        f["_simulate"] = s.into();
    }
    f.to_string()
}

/// An acknowledged create: (id, cdc, numero).
type Acked = (String, String, String);

/// Every invoice of the server, through the list's cursor.
fn all_invoices(addr: &str, key: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = "/v1/facturas?limit=100".to_string();
    loop {
        let (code, v) = call(addr, key, "GET", &path, None);
        assert_eq!(code, 200, "{v}");
        out.extend(v["data"].as_array().unwrap().iter().cloned());
        match v["meta"]["next_cursor"].as_str() {
            Some(c) if v["meta"]["has_more"] == true => {
                path = format!("/v1/facturas?limit=100&starting_after={c}");
            }
            _ => return out,
        }
    }
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn restore_drill_backup_under_load_restores_every_acknowledged_invoice_and_its_numbering() {
    let dir = TempDir::new("drill");
    let data = dir.0.join("data");
    let mut serve = start(command(&data));
    let (addr, key) = (serve.addr.clone(), serve.key.clone());
    assert!(key.starts_with("dk_test_"));

    // Load: three clients creating invoices back to back until told to stop.
    let acked: Arc<Mutex<Vec<Acked>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..3)
        .map(|c| {
            let (acked, stop, addr, key) = (acked.clone(), stop.clone(), addr.clone(), key.clone());
            std::thread::spawn(move || {
                let mut i = c;
                while !stop.load(Ordering::Relaxed) {
                    let (code, v) = call(&addr, &key, "POST", "/v1/facturas", Some(&factura(i)));
                    assert_eq!(code, 201, "{v}");
                    let inv = &v["data"];
                    let field = |k: &str| inv[k].as_str().unwrap().to_string();
                    acked
                        .lock()
                        .unwrap()
                        .push((field("id"), field("cdc"), field("numero")));
                    i += 3;
                }
            })
        })
        .collect();
    let wait_for = |n: usize, what: &str| {
        let deadline = Instant::now() + HANG_GUARD;
        while acked.lock().unwrap().len() < n {
            assert!(Instant::now() < deadline, "hang guard: {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    wait_for(30, "30 invoices acknowledged");

    // Everything acknowledged so far was acknowledged before the backup began: it starts after this copy.
    let before: Vec<Acked> = acked.lock().unwrap().clone();
    let file = dir.0.join("kuatia.backup.tar");
    let (code, report, err) = run(
        &[
            "backup",
            "--data",
            data.to_str().unwrap(),
            "--to",
            file.to_str().unwrap(),
        ],
        None,
    );
    let during_and_after = acked.lock().unwrap().len() - before.len();
    assert_eq!(code, 0, "{err}");
    assert_eq!(report["manifest"]["format"], "kuatia-backup");
    let members: Vec<&str> = report["manifest"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["kuatia.sqlite3", "panel.key"]);
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);
    // The load goes on after the backup, then stops.
    let total = acked.lock().unwrap().len();
    wait_for(total + 10, "10 more invoices after the backup");
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    serve.terminate();
    assert_eq!(serve.wait_exit().code(), Some(0));
    eprintln!(
        "drill: {} acknowledged before the backup, {during_and_after} while it ran, {} in all; the backup holds {}",
        before.len(),
        acked.lock().unwrap().len(),
        report["invoices"]
    );
    assert!(report["invoices"].as_u64().unwrap() >= before.len() as u64);

    // Restore into a new directory; refused into one that is not empty.
    let restored = dir.0.join("restored");
    let (code, _, err) = run(
        &[
            "restore",
            "--from",
            file.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("not empty"), "{err}");
    let (code, out, err) = run(
        &[
            "restore",
            "--from",
            file.to_str().unwrap(),
            "--data",
            restored.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["integrity_check"], "ok");
    assert_eq!(out["invoices"], report["invoices"]);
    #[cfg(unix)]
    for f in ["kuatia.sqlite3", "panel.key"] {
        assert_eq!(mode(&restored.join(f)), 0o600, "{f}");
    }
    assert_eq!(
        std::fs::read(restored.join("panel.key")).unwrap(),
        std::fs::read(data.join("panel.key")).unwrap()
    );

    // A server on the restored directory: the same key works, every invoice acknowledged before the backup is there.
    let mut again = start(command(&restored));
    assert_eq!(
        again.key, "",
        "the restored directory has its account and keys"
    );
    let addr = again.addr.clone();
    for (id, cdc, numero) in &before {
        let (code, v) = call(&addr, &key, "GET", &format!("/v1/facturas/{id}"), None);
        assert_eq!(code, 200, "{id}: {v}");
        assert_eq!(v["data"]["cdc"], cdc.as_str(), "{id}");
        assert_eq!(v["data"]["numero"], numero.as_str(), "{id}");
    }
    // Numbering: no number twice in the restored database, and the next create continues after its highest.
    let listed = all_invoices(&addr, &key);
    assert_eq!(listed.len() as u64, report["invoices"].as_u64().unwrap());
    let mut numbers: BTreeMap<String, String> = BTreeMap::new();
    for inv in &listed {
        let (n, id) = (inv["numero"].as_str().unwrap(), inv["id"].as_str().unwrap());
        assert!(
            numbers.insert(n.to_string(), id.to_string()).is_none(),
            "{n} twice"
        );
    }
    let highest = numbers.keys().next_back().unwrap().clone();
    let (code, v) = call(&addr, &key, "POST", "/v1/facturas", Some(&factura(0)));
    assert_eq!(code, 201, "{v}");
    let next = v["data"]["numero"].as_str().unwrap().to_string();
    assert!(!numbers.contains_key(&next), "{next} reused");
    assert!(
        next > highest,
        "next {next} is not after the highest restored {highest}"
    );
    let before_numbers: BTreeSet<&str> = before.iter().map(|(_, _, n)| n.as_str()).collect();
    assert!(before_numbers.iter().all(|n| numbers.contains_key(*n)));
    again.terminate();
    assert_eq!(again.wait_exit().code(), Some(0));

    // A damaged copy (one byte flipped in the middle, inside the database) is refused, and nothing is restored.
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    let bad = dir.0.join("damaged.tar");
    std::fs::write(&bad, bytes).unwrap();
    let into = dir.0.join("from-damaged");
    let (code, out, err) = run(
        &[
            "restore",
            "--from",
            bad.to_str().unwrap(),
            "--data",
            into.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("kuatia.sqlite3: its SHA-256 or size differs from the manifest's"),
        "{err}"
    );
    assert!(!into.exists());
}

#[test]
fn backup_refuses_a_postgresql_setup_and_points_to_the_docs() {
    let dir = TempDir::new("backup-pg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(["backup", "--data"])
        .arg(&dir.0)
        .arg("--to")
        .arg(dir.0.join("b.tar"))
        .env(
            "KUATIA_DATABASE_URL",
            "postgres://kuatia@127.0.0.1:1/kuatia",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("pg_dump") && err.contains("docs/operations.md"),
        "{err}"
    );
    assert!(!dir.0.join("b.tar").exists());
}

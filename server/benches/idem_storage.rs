//! Storage of idempotency keys per invoice (issue 33): `KUATIA_IDEM_INVOICES` (1 000) sandbox creates, each with its
//! own `Idempotency-Key`, through [`Service::handle`] into the server's SQLite store; then the server's clock moves
//! past the replay window ([`kuatia_service::DEFAULT_IDEMPOTENCY_WINDOW`]) and the sweep runs as the tick runs it
//! (`Service::sweep_idempotency`, a batch per transaction). Prints, before and after the sweep, each table's bytes
//! (SQLite's `dbstat`: pages in use, indexes included) per invoice and the database file; after the sweep also after
//! a `VACUUM` (the sweep frees pages that later inserts reuse; the file itself only shrinks with `VACUUM`). Run with
//! `cargo bench -p kuatia-server --bench idem_storage`; the figures are in docs/benchmarks.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use kuatia_server::backend::HostStore;
use kuatia_server::{Clock, SqliteStore, SystemHost};
use kuatia_service::{Config, HttpRequest, Service, DEFAULT_IDEMPOTENCY_WINDOW};
use serde_json::json;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use time::OffsetDateTime;

fn create(key: &str, n: usize) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers: vec![
            ("authorization".into(), format!("Bearer {key}")),
            ("x-environment".into(), "sandbox".into()),
            ("idempotency-key".into(), format!("order-{n:06}")),
            ("content-type".into(), "application/json".into()),
        ],
        body: json!({
            "tipo_documento": 1,
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
            "items": [{"descripcion": format!("Servicio {n}"), "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
            "condicion_pago": 1
        })
        .to_string()
        .into_bytes(),
    }
}

/// Bytes in use per table or index (`dbstat`), largest first, and the file's size.
fn usage(db: &std::path::Path) -> (Vec<(String, i64)>, u64) {
    let c = rusqlite::Connection::open(db).unwrap();
    let rows = c
        .prepare("SELECT name, SUM(pgsize - unused) FROM dbstat GROUP BY name ORDER BY 2 DESC")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    (rows, std::fs::metadata(db).unwrap().len())
}

fn report(what: &str, db: &std::path::Path, n: usize) {
    let (rows, file) = usage(db);
    let per = |b: i64| b as f64 / n as f64;
    println!(
        "\n{what}: file {file} bytes ({:.0} per invoice)",
        file as f64 / n as f64
    );
    let mut total = 0;
    for (name, bytes) in &rows {
        if name.starts_with("idempotency")
            || name.starts_with("sqlite_autoindex_idempotency")
            || per(*bytes) >= 50.0
        {
            println!(
                "  {name:<40} {bytes:>10} bytes {:>8.0} per invoice",
                per(*bytes)
            );
        }
        total += bytes;
    }
    let idem: i64 = rows
        .iter()
        .filter(|(n, _)| n.contains("idempotency"))
        .map(|(_, b)| b)
        .sum();
    println!(
        "  idempotency (table + indexes)            {idem:>10} bytes {:>8.0} per invoice",
        per(idem)
    );
    println!(
        "  everything                               {total:>10} bytes {:>8.0} per invoice",
        per(total)
    );
}

fn main() {
    let n: usize = std::env::var("KUATIA_IDEM_INVOICES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let dir = std::env::temp_dir().join(format!("kuatia-idem-storage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let offset = Arc::new(AtomicI64::new(0));
    let o = offset.clone();
    let sandbox = kuatia_core::sign::sandbox_test_signer().expect("built-in sandbox certificate");
    let mut host = SystemHost::new(Some(sandbox), None)
        .unwrap()
        .with_clock(Clock::from_fn(move || {
            OffsetDateTime::now_utc() + time::Duration::seconds(o.load(Ordering::SeqCst))
        }));
    let mut svc = Service::new(SqliteStore::open(&dir).unwrap(), Config::default());
    svc.store.begin().unwrap();
    let (_, key) = svc.create_account("storage", &mut host);
    svc.store.finish().unwrap();
    for i in 0..n {
        svc.store.begin().unwrap();
        let r = svc.handle(&create(&key, i), &mut host);
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        svc.store.finish().unwrap();
    }
    let db = dir.join(kuatia_server::store::DB_FILE);
    report(&format!("{n} keyed creates, inside the window"), &db, n);

    offset.store(DEFAULT_IDEMPOTENCY_WINDOW + 1, Ordering::SeqCst);
    let now = kuatia_service::Host::now(&mut host).unix_timestamp();
    let mut transactions = 0;
    loop {
        svc.store.begin().unwrap();
        let more = svc.sweep_idempotency(now);
        svc.store.finish().unwrap();
        transactions += 1;
        if !more {
            break;
        }
    }
    drop(svc);
    report(
        &format!("after the sweep ({transactions} transactions)"),
        &db,
        n,
    );
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    report("after the sweep and VACUUM", &db, n);
    let _ = std::fs::remove_dir_all(&dir);
}

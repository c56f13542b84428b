//! [`super::SqliteStore`]'s own tests: the caches, the old databases it opens, and the store contract.

#![allow(clippy::unwrap_used)]

use crate::backend::HostStore;

#[test]
fn the_sqlite_store_keeps_the_listing_contract() {
    let dir = std::env::temp_dir().join(format!("kuatia-store-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = super::SqliteStore::open(&dir).unwrap();
    assert_eq!(
        kuatia_service::store::conformance::list_invoices(&mut s),
        Ok(())
    );
    assert_eq!(s.take_error(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every method of the store contract, as the in-memory store and PostgreSQL keep it.
#[test]
fn the_sqlite_store_keeps_the_whole_contract() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join(format!("kuatia-store-all-{}", std::process::id()));
    let mut dir = root.clone();
    let result =
        kuatia_service::store::conformance::run_all::<super::SqliteStore>(&mut |prev| match prev {
            Some(s) => {
                assert_eq!(s.take_error(), None);
                drop(s);
                super::SqliteStore::open(&dir).unwrap()
            }
            None => {
                dir = root.join(N.fetch_add(1, Ordering::Relaxed).to_string());
                super::SqliteStore::open(&dir).unwrap()
            }
        });
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(result, Ok(()));
}

/// A key revoked, by another connection or by this one, authenticates nothing at once, whatever was cached; a
/// rolled-back change is forgotten.
#[test]
fn cached_keys_follow_revocations_and_rollbacks() {
    use kuatia_service::auth::{new_key, Environment};
    use kuatia_service::store::Store;
    let dir = std::env::temp_dir().join(format!("kuatia-store-auth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut writer = super::SqliteStore::open(&dir).unwrap();
    let mut n = 7u32;
    let (_, key) = new_key(Environment::Sandbox, &mut || {
        n = n.wrapping_mul(2_654_435_761).wrapping_add(1);
        n
    });
    let account = kuatia_service::Account {
        id: "acct_cache".into(),
        name: "cache".into(),
        sandbox: kuatia_core::profile::Emisor::sandbox(),
        production: None,
        sandbox_completed: false,
        ruc_enabled: false,
        keys: vec![key.clone()],
        created_at: 1,
    };
    writer.put_account(account.clone());
    let mut reader = super::SqliteStore::open(&dir).unwrap();
    reader.into_reader();
    let live = |s: &super::SqliteStore| {
        let (acct, k) = s.find_key(&key.key_id).unwrap();
        assert_eq!(acct, "acct_cache");
        assert_eq!(
            s.account(&acct).unwrap().name,
            s.account(&acct).unwrap().name
        );
        k.revoked_at.is_none()
    };
    assert!(live(&reader) && live(&reader) && live(&writer) && live(&writer));

    // Revoked through the writer's connection: the reader (cached) and the writer (cached) see it.
    let mut revoked = account.clone();
    revoked.keys[0].revoked_at = Some(2);
    revoked.name = "renamed".into();
    writer.put_account(revoked.clone());
    assert!(!live(&writer));
    assert!(!live(&reader));
    assert_eq!(reader.account("acct_cache").unwrap().name, "renamed");

    // Put back inside a transaction that rolls back: the writer forgets what it read meanwhile.
    writer.begin().unwrap();
    writer.put_account(account.clone());
    assert!(live(&writer));
    writer.rollback();
    assert!(!live(&writer));
    assert!(!live(&reader));
    assert_eq!(writer.take_error(), None);
    assert_eq!(reader.take_error(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The webhooks an invoice's events go to, cached by the writer: a webhook added by another connection, or
/// changed, removed or rolled back by this one, is seen at the next read.
#[test]
fn cached_webhooks_follow_every_change() {
    use kuatia_service::auth::Environment;
    use kuatia_service::store::Store;
    use kuatia_service::webhook::Webhook;
    let dir = std::env::temp_dir().join(format!("kuatia-store-wh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut writer = super::SqliteStore::open(&dir).unwrap();
    let mut other = super::SqliteStore::open(&dir).unwrap();
    let env = Environment::Sandbox;
    let hook = |id: &str, url: &str| Webhook {
        id: id.into(),
        url: url.into(),
        events: Vec::new(),
        description: None,
        created_at: "2026-11-24T00:00:00Z".into(),
        secret: Some("whsec_x".into()),
        previous_secret: None,
        previous_secret_expires_at: None,
    };
    let urls = |s: &super::SqliteStore| -> Vec<String> {
        s.webhooks("acct_wh", env)
            .into_iter()
            .map(|w| w.url)
            .collect()
    };
    assert!(urls(&writer).is_empty() && urls(&writer).is_empty());
    other.insert_webhook("acct_wh", env, hook("wh_1", "https://a.example"));
    assert_eq!(
        urls(&writer),
        ["https://a.example"],
        "another connection's insert"
    );
    writer.update_webhook("acct_wh", env, hook("wh_1", "https://b.example"));
    assert_eq!(
        urls(&writer),
        ["https://b.example"],
        "this connection's update"
    );
    writer.begin().unwrap();
    writer.insert_webhook("acct_wh", env, hook("wh_2", "https://c.example"));
    assert_eq!(urls(&writer).len(), 2);
    writer.rollback();
    assert_eq!(urls(&writer), ["https://b.example"], "a rolled-back insert");
    assert!(writer.delete_webhook("acct_wh", env, "wh_1"));
    assert!(urls(&writer).is_empty(), "this connection's delete");
    assert!(urls(&other).is_empty());
    assert_eq!(writer.take_error(), None);
    assert_eq!(other.take_error(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Migration 6 moves the XML of invoices stored before it out of their JSON: they read back whole, and a
/// status change afterwards rewrites the record without touching the XML.
#[test]
fn invoices_stored_before_migration_6_keep_their_xml() {
    use kuatia_service::store::Store;
    use rusqlite::Connection;
    let dir = std::env::temp_dir().join(format!("kuatia-store-xml-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = super::SqliteStore::open(&dir).unwrap();
    kuatia_service::store::conformance::list_invoices(&mut s).unwrap();
    let (before, total) = s.list_invoices(
        "acct_a",
        kuatia_service::auth::Environment::Sandbox,
        &kuatia_service::store::InvoiceQuery::default(),
    );
    assert!(total > 0 && before.iter().all(|i| i.xml.starts_with("<rDE>")));
    drop(s);
    // The database as version 5 kept it: the XML inside each record's JSON, no `invoice_xml`.
    let db = Connection::open(dir.join(super::DB_FILE)).unwrap();
    db.execute_batch(
        "UPDATE invoices SET json = json_set(json, '$.xml',
             (SELECT xml FROM invoice_xml x WHERE x.seq = invoices.seq));
         DROP TABLE invoice_xml;
         DELETE FROM migrations WHERE version = 6;",
    )
    .unwrap();
    drop(db);
    let mut s = super::SqliteStore::open(&dir).unwrap();
    let (after, _) = s.list_invoices(
        "acct_a",
        kuatia_service::auth::Environment::Sandbox,
        &kuatia_service::store::InvoiceQuery::default(),
    );
    assert_eq!(after, before);
    let mut changed = after[0].clone();
    changed.status = kuatia_core::lifecycle::Estado::Rejected;
    s.update_invoice(changed.clone());
    assert_eq!(s.invoice("acct_a", &changed.id), Some(changed.clone()));
    let json: String = s
        .conn
        .query_row(
            "SELECT json FROM invoices WHERE id = ?1",
            [&changed.id],
            |r| r.get(0),
        )
        .unwrap();
    assert!(json.contains(r#""xml":"""#), "{json}");
    assert_eq!(s.take_error(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[path = "../../tests/common/legacy.rs"]
mod legacy;

/// A database as main 94cdda2 made it (migrations 1-6 recorded): the frozen fixture's schema, then its records.
const OLD_SCHEMA: &str = include_str!("../../../tests/fixtures/stores/sqlite-94cdda2-schema.sql");
const OLD_DATA: &str = include_str!("../../../tests/fixtures/stores/sqlite-94cdda2-data.sql");

fn temp(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kuatia-store-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory holding a database made by main 94cdda2 (its records too with `data`).
fn old_database(tag: &str, data: bool) -> std::path::PathBuf {
    let dir = temp(tag);
    let db = rusqlite::Connection::open(dir.join(super::DB_FILE)).unwrap();
    db.execute_batch(OLD_SCHEMA).unwrap();
    if data {
        db.execute_batch(OLD_DATA).unwrap();
    }
    dir
}

/// Every table's columns (name, type, NOT NULL, key) and every index's definition, whitespace aside.
fn shape(s: &super::SqliteStore) -> Vec<String> {
    let c = &s.conn;
    let names: Vec<(String, String, Option<String>)> = c
        .prepare(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = Vec::new();
    for (kind, name, sql) in names {
        if kind == "table" {
            let mut cols: Vec<String> = c
                .prepare(&format!("PRAGMA table_info({name})"))
                .unwrap()
                .query_map([], |r| {
                    Ok(format!(
                        "{name}.{}: {} notnull={} pk={}",
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(5)?
                    ))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            cols.sort();
            out.extend(cols);
        } else {
            let sql = sql.unwrap_or_default();
            out.push(format!(
                "{kind} {name}: {}",
                sql.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
    }
    out
}

fn versions(s: &super::SqliteStore) -> Vec<i64> {
    s.conn
        .prepare("SELECT version FROM migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A database made before the schema was unified opens, migrates to the same tables and indexes a new database
/// gets, and reads back every record it held.
#[test]
fn a_database_made_by_94cdda2_opens_with_its_records_and_the_new_schema() {
    let dir = old_database("old", true);
    let mut s = super::SqliteStore::open(&dir).unwrap();
    legacy::check(&mut s);
    legacy::check_host(s.meta(legacy::META.0), s.certificates());
    // What `GET /metrics` reads of it.
    let b = s.backlog().unwrap();
    let read = legacy::sorted(b.invoices, b.oldest_waiting, b.pending_deliveries);
    assert_eq!(read, legacy::backlog());
    assert_eq!(s.take_error(), None);
    let fresh_dir = temp("new");
    let fresh = super::SqliteStore::open(&fresh_dir).unwrap();
    assert_eq!(shape(&s), shape(&fresh));
    assert!(shape(&s).contains(
        &"index deliveries_due: CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending'"
            .to_string()
    ));
    assert_eq!(versions(&s), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(versions(&fresh), versions(&s));
    // Opened again: nothing left to run.
    drop(s);
    let s = super::SqliteStore::open(&dir).unwrap();
    assert_eq!(versions(&s), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&fresh_dir);
}

/// Every method of the store contract on a database made before the schema was unified.
#[test]
fn a_database_made_by_94cdda2_keeps_the_whole_contract() {
    let mut dir = std::path::PathBuf::new();
    let mut made = Vec::new();
    let result = kuatia_service::store::conformance::run_all::<super::SqliteStore>(&mut |prev| {
        if let Some(s) = prev {
            assert_eq!(s.take_error(), None);
        } else {
            dir = old_database("old-contract", false);
            made.push(dir.clone());
        }
        super::SqliteStore::open(&dir).unwrap()
    });
    for d in made {
        let _ = std::fs::remove_dir_all(d);
    }
    assert_eq!(result, Ok(()));
}

/// Migration 8 on keys an old database held (a refusal, an answer whose invoice is gone, one whose invoice is there),
/// then the sweep.
#[test]
fn migration_8_keeps_each_old_key_as_the_sweep_needs_it() {
    let dir = old_database("old-keys", true);
    let db = rusqlite::Connection::open(dir.join(super::DB_FILE)).unwrap();
    for (key, response) in legacy::old_keys() {
        db.execute(
            "INSERT INTO idempotency (account_id, environment, key, body_hash, response)
             VALUES ('acct_old', 'sandbox', ?1, 'hash-old', ?2)",
            [key, response.as_str()],
        )
        .unwrap();
    }
    drop(db);
    let mut s = super::SqliteStore::open(&dir).unwrap();
    legacy::check_old_keys(&mut s);
    assert_eq!(s.take_error(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

//! The PostgreSQL store against a real server (run through `scripts/pg-test.sh`, which starts one and passes its URL
//! in `KUATIA_TEST_DATABASE_URL`): the same store and numbering conformance suites SQLite and the in-memory store
//! pass, migrations under concurrent starts, and the cross-connection rules (numbers, idempotency keys, claimed work)
//! that several nodes rely on. Without the URL these tests fail: they never skip.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::lifecycle::Estado;
use kuatia_core::numbering::{self, NumberingKey};
use kuatia_server::backend::HostStore;
use kuatia_server::pg::{PgOptions, PgStore};
use kuatia_service::auth::Environment;
use kuatia_service::store::conformance::{self, OwnedNumbering};
use kuatia_service::transmit::Transmission;
use kuatia_service::webhook::Delivery;
use kuatia_service::{HttpResponse, IdempotentReply, InvoiceRecord, Store};
#[path = "../../service/tests/common/fake_sifen.rs"]
mod fake_sifen;
#[path = "../../service/tests/common/host.rs"]
mod host;
#[path = "common/legacy.rs"]
mod legacy;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// The test server's URL; fails (never skips) without it.
fn server_url() -> String {
    std::env::var("KUATIA_TEST_DATABASE_URL").unwrap_or_else(|_| {
        panic!(
            "KUATIA_TEST_DATABASE_URL is not set: run these tests with \
             `bash scripts/pg-test.sh cargo test -p kuatia-server --test pg` (it starts a PostgreSQL server)"
        )
    })
}

/// A new, empty database on the test server; its URL.
fn fresh_database(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let url = server_url();
    let name = format!(
        "kuatia_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let base = url.rsplit_once('/').unwrap().0;
    format!("{base}/{name}")
}

fn options(url: &str, node: &str) -> PgOptions {
    PgOptions {
        url: url.to_string(),
        statement_timeout: Some(Duration::from_secs(20)),
        node_id: node.to_string(),
        // The test server offers TLS (scripts/pg-test.sh): verified against its CA.
        ca_file: std::env::var_os("KUATIA_TEST_DATABASE_CA").map(Into::into),
    }
}

fn open(url: &str) -> PgStore {
    PgStore::open(options(url, "test")).unwrap()
}

#[test]
fn the_postgres_store_keeps_the_listing_contract() {
    let url = fresh_database("list");
    let mut s = open(&url);
    assert_eq!(conformance::list_invoices(&mut s), Ok(()));
    assert_eq!(s.take_error(), None);
}

/// Every method of the store contract, as the in-memory store and SQLite keep it; each group on a new database.
#[test]
fn the_postgres_store_keeps_the_whole_contract() {
    let mut url = String::new();
    let result = conformance::run_all::<PgStore>(&mut |prev| match prev {
        Some(s) => {
            assert_eq!(s.take_error(), None);
            drop(s);
            open(&url)
        }
        None => {
            url = fresh_database("all");
            open(&url)
        }
    });
    assert_eq!(result, Ok(()));
}

/// A database as main 94cdda2 made it (migrations 1-2 recorded): the frozen fixture's schema, then its records.
const OLD_SCHEMA: &str = include_str!("../../tests/fixtures/stores/pg-94cdda2-schema.sql");
const OLD_DATA: &str = include_str!("../../tests/fixtures/stores/pg-94cdda2-data.sql");

/// A new database holding what main 94cdda2 made (its records too with `data`); its URL.
fn old_database(tag: &str, data: bool) -> String {
    let url = fresh_database(tag);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute(OLD_SCHEMA).unwrap();
    if data {
        c.batch_execute(OLD_DATA).unwrap();
    }
    url
}

/// Every column (type, nullability) and index definition of the database, and the versions recorded.
fn shape(url: &str) -> (Vec<String>, Vec<i32>) {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let mut out: Vec<String> = c
        .query(
            "SELECT table_name || '.' || column_name || ': ' || data_type || ' ' || is_nullable
             FROM information_schema.columns WHERE table_schema = 'public'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    out.extend(
        c.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0)),
    );
    out.sort();
    let versions = c
        .query(
            "SELECT version FROM kuatia_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    (out, versions)
}

/// A database made before the schema was unified opens, migrates to the same tables and indexes a new database
/// gets, and reads back every record it held.
#[test]
fn a_database_made_by_94cdda2_opens_with_its_records_and_the_new_schema() {
    let url = old_database("old", true);
    let mut s = open(&url);
    legacy::check(&mut s);
    legacy::check_host(s.meta(legacy::META.0), s.certificates());
    // What `GET /metrics` reads of it.
    let b = s.backlog().unwrap();
    let read = legacy::sorted(b.invoices, b.oldest_waiting, b.pending_deliveries);
    assert_eq!(read, legacy::backlog());
    assert_eq!(s.take_error(), None);
    let fresh = fresh_database("new");
    drop(open(&fresh));
    let (old_shape, old_versions) = shape(&url);
    let (new_shape, new_versions) = shape(&fresh);
    assert_eq!(old_shape, new_shape);
    assert!(old_shape.contains(
        &"CREATE INDEX deliveries_due ON public.deliveries USING btree (next_attempt_at, id) WHERE (status = 'pending'::text)"
            .to_string()
    ), "{old_shape:#?}");
    assert_eq!(old_versions, [1, 2, 7, 8, 9, 10]);
    assert_eq!(new_versions, old_versions);
}

/// Migration 8 on keys an old database held (a refusal, an answer whose invoice is gone, one whose invoice is there),
/// then the sweep: as on SQLite.
#[test]
fn migration_8_keeps_each_old_key_as_the_sweep_needs_it() {
    let url = old_database("old_keys", true);
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    for (key, response) in legacy::old_keys() {
        db.execute(
            "INSERT INTO idempotency (account_id, environment, key, body_hash, response)
             VALUES ('acct_old', 'sandbox', $1, 'hash-old', $2)",
            &[&key, &response],
        )
        .unwrap();
    }
    drop(db);
    let mut s = open(&url);
    legacy::check_old_keys(&mut s);
    assert_eq!(s.take_error(), None);
}

/// Every method of the store contract on a database made before the schema was unified.
#[test]
fn a_database_made_by_94cdda2_keeps_the_whole_contract() {
    let mut url = String::new();
    let result = conformance::run_all::<PgStore>(&mut |prev| {
        match prev {
            Some(s) => assert_eq!(s.take_error(), None),
            None => url = old_database("old_all", false),
        }
        open(&url)
    });
    assert_eq!(result, Ok(()));
}

/// Migration 2 moves the XML of invoices stored before it out of their JSON: they read back whole, and a status
/// change afterwards rewrites the record without the XML.
#[test]
fn invoices_stored_before_migration_2_keep_their_xml() {
    let url = fresh_database("xml");
    let mut s = open(&url);
    conformance::list_invoices(&mut s).unwrap();
    let all = kuatia_service::store::InvoiceQuery::default();
    let (before, total) = s.list_invoices("acct_a", Environment::Sandbox, &all);
    assert!(total > 0 && before.iter().all(|i| i.xml.starts_with("<rDE>")));
    drop(s);
    // The database as version 1 kept it: the XML inside each record's JSON, no `invoice_xml`.
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    db.batch_execute(
        "UPDATE invoices SET json = jsonb_set(json::jsonb, '{xml}',
             to_jsonb((SELECT xml FROM invoice_xml x WHERE x.seq = invoices.seq)))::text;
         DROP TABLE invoice_xml;
         DELETE FROM kuatia_migrations WHERE version = 2;",
    )
    .unwrap();
    drop(db);
    let mut s = open(&url);
    let (after, _) = s.list_invoices("acct_a", Environment::Sandbox, &all);
    assert_eq!(after, before);
    let mut changed = after[0].clone();
    changed.status = Estado::Rejected;
    s.update_invoice(changed.clone());
    assert_eq!(s.invoice("acct_a", &changed.id), Some(changed.clone()));
    let mut state = changed.clone();
    state.xml = String::new();
    assert_eq!(s.invoice_state("acct_a", &changed.id), Some(state));
    assert_eq!(s.take_error(), None);
}

#[test]
fn the_postgres_store_keeps_the_numbering_contract() {
    let url = fresh_database("numbering");
    numbering::conformance::check::<OwnedNumbering<PgStore>>(&mut |prev| {
        drop(prev);
        OwnedNumbering(open(&url))
    })
    .unwrap();
}

#[test]
fn nodes_starting_together_migrate_once() {
    let url = fresh_database("migrate");
    let start = Arc::new(Barrier::new(6));
    let nodes: Vec<_> = (0..6)
        .map(|n| {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                PgStore::open(options(&url, &format!("node{n}"))).map(|_| ())
            })
        })
        .collect();
    for n in nodes {
        n.join().unwrap().unwrap();
    }
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    // Every version recorded once: PostgreSQL's own (1-2) and the shared ones, as a new database records them.
    let versions: Vec<i64> = c
        .query(
            "SELECT version::BIGINT FROM kuatia_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let all = kuatia_server::schema::plan(kuatia_server::schema::Dialect::Postgres, &[]);
    assert_eq!(versions, all[0].versions);
    assert_eq!(versions[..2], [1, 2]);
}

fn key() -> NumberingKey {
    NumberingKey {
        tipo_documento: 1,
        timbrado: "12345678".into(),
        establecimiento: "001".into(),
        punto: "001".into(),
    }
}

#[test]
fn concurrent_nodes_never_share_a_number_and_rolled_back_ones_are_reused_not_lost() {
    let url = fresh_database("race");
    drop(open(&url));
    let per_node = 150;
    let nodes: Vec<_> = (0..4)
        .map(|n| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut s = PgStore::open(options(&url, &format!("node{n}"))).unwrap();
                let mut kept = Vec::new();
                for i in 0..per_node {
                    s.begin().unwrap();
                    let numero = s
                        .reserve_number("acct", Environment::Production, &key())
                        .unwrap();
                    if i % 10 == 3 {
                        // A request that fails after reserving: its transaction (and number) is rolled back.
                        s.put_idempotent("acct", Environment::Production, "dup", dup_reply());
                        s.put_idempotent("acct", Environment::Production, "dup", dup_reply());
                        assert!(s.finish().is_err(), "a duplicate idempotency key fails");
                        continue;
                    }
                    let cdc = format!("cdc-{numero}");
                    s.confirm_number("acct", Environment::Production, &key(), numero, &cdc)
                        .unwrap();
                    s.finish().unwrap();
                    kept.push(numero);
                }
                kept
            })
        })
        .collect();
    let mut all: Vec<u32> = nodes.into_iter().flat_map(|n| n.join().unwrap()).collect();
    all.sort_unstable();
    let n = all.len();
    all.dedup();
    assert_eq!(all.len(), n, "a number was handed out twice");
    // Committed numbers are 1..=n without holes: a rolled-back reservation left nothing behind.
    assert_eq!(all, (1..=u32::try_from(n).unwrap()).collect::<Vec<_>>());
    let s = open(&url);
    assert_eq!(
        s.number_gaps("acct", Environment::Production).unwrap(),
        vec![]
    );
}

#[test]
fn a_second_node_with_the_same_idempotency_key_waits_and_replays_the_first_answer() {
    let url = fresh_database("idem");
    let mut a = open(&url);
    a.begin().unwrap();
    assert!(a.idempotent("acct", Environment::Sandbox, "k1").is_none());
    let url2 = url.clone();
    let second = std::thread::spawn(move || {
        let mut b = open(&url2);
        b.begin().unwrap();
        let seen = b.idempotent("acct", Environment::Sandbox, "k1");
        b.finish().unwrap();
        seen
    });
    // The second request is queued on the key's lock (not merely slow) before the first one answers.
    wait_until_one_waits(&url, "advisory", "the second request never queued");
    let answer = HttpResponse {
        status: 201,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: b"{\"ok\":true}".to_vec(),
    };
    let reply = IdempotentReply {
        body_hash: "hash".into(),
        status: 201,
        invoice_id: Some("fact_1".into()),
        stored_at: 1_000,
        response: Some(answer),
    };
    a.put_idempotent("acct", Environment::Sandbox, "k1", reply.clone());
    a.finish().unwrap();
    assert_eq!(second.join().unwrap(), Some(reply));
    // The key is scoped by environment: a live key does not see the sandbox answer.
    let b = open(&url);
    assert!(b
        .idempotent("acct", Environment::Production, "k1")
        .is_none());
}

/// A kept create's key for the duplicate-key test.
fn dup_reply() -> IdempotentReply {
    IdempotentReply {
        body_hash: "h".into(),
        status: 201,
        invoice_id: Some("fact_dup".into()),
        stored_at: 0,
        response: Some(HttpResponse {
            status: 201,
            headers: Vec::new(),
            body: Vec::new(),
        }),
    }
}

fn production_invoice(n: usize, due: i64) -> InvoiceRecord {
    InvoiceRecord {
        id: format!("fact_{n:04}"),
        account_id: "acct".into(),
        environment: Environment::Production,
        status: Estado::Pending,
        cdc: format!("{n:044}"),
        numero: format!("001-001-{n:07}"),
        tipo_documento: 1,
        fecha_emision: "2025-01-01T00:00:00".into(),
        total: Some("1000".into()),
        moneda: Some("PYG".into()),
        simulate: None,
        sifen_errors: Vec::new(),
        protocolo: None,
        xml: String::new(),
        qr: String::new(),
        signed: true,
        created_at: 1_700_000_000,
        updated_at: 1_700_000_000,
        transmission: Transmission::start(due),
        tipo_emision: 1,
        sent_at: None,
        receptor_ruc: None,
        approved_at: None,
        cancellation: None,
    }
}

/// Waits (at most 20 s) until exactly one session of the database at `url` waits for a lock of kind `wait_event`
/// (`advisory`; `transactionid` for a row another transaction holds), failing with `never` otherwise.
fn wait_until_one_waits(url: &str, wait_event: &str, never: &str) {
    let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let waiting: i64 = admin
            .query_one(
                "SELECT COUNT(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = $1",
                &[&wait_event],
            )
            .unwrap()
            .get(0);
        if waiting == 1 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{never}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Two nodes report the same SIFEN approval at once (the first one's call outlived its lease, so the second took the
/// job again): the second waits for the first's transaction, then finds the invoice approved and changes nothing.
/// Reading the invoice without the row lock, both saw it pending and each queued its own `factura.approved`.
#[test]
fn two_nodes_reporting_one_approval_queue_one_event() {
    use kuatia_service::transmit::{SifenMode, SifenOutcome};
    use kuatia_service::{Config, HttpRequest, Service};
    let url = fresh_database("report");
    let config = Config {
        base_url: "https://api.example.test".into(),
        sifen_mode: SifenMode::Sync,
        ..Config::default()
    };
    let mut host_a = host::TestHost::new();
    let mut a = Service::new(open(&url), config.clone());
    let (mut account, _) = a.create_account("Emisor", &mut host_a);
    account.production = Some(kuatia_core::profile::Emisor::sandbox());
    a.store.put_account(account.clone());
    let live = a
        .create_key(&account.id, Environment::Production, &mut host_a)
        .unwrap();
    let call = |svc: &mut Service<PgStore>, host: &mut host::TestHost, path: &str, body: &str| {
        let r = svc.handle(
            &HttpRequest {
                method: "POST".into(),
                path: path.into(),
                headers: vec![
                    ("Authorization".into(), format!("Bearer {live}")),
                    ("Content-Type".into(), "application/json".into()),
                ],
                body: body.as_bytes().to_vec(),
            },
            host,
        );
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    };
    call(
        &mut a,
        &mut host_a,
        "/v1/webhooks",
        r#"{"url": "https://erp.example.test/hook", "events": ["factura.approved"]}"#,
    );
    call(
        &mut a,
        &mut host_a,
        "/v1/facturas",
        r#"{"tipo_documento": 1, "receptor": {"ruc": "80069563-1", "razon_social": "Cliente S.A."},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
            "condicion_pago": 1}"#,
    );
    let jobs = a.due_sifen(&mut host_a, 10);
    assert_eq!(jobs.len(), 1);
    let job = jobs.into_iter().next().unwrap();
    let outcome = match fake_sifen::FakeSifen::new().answer(&job.body) {
        fake_sifen::Reply::Http { status, body, .. } => SifenOutcome::Answer {
            status,
            body: body.into_bytes(),
        },
        fake_sifen::Reply::Silence => panic!("the fake SIFEN answers"),
    };

    a.store.begin().unwrap();
    let first = a.report_sifen(&job, &outcome, &mut host_a);
    assert_eq!(first[0].status, Estado::Approved);
    let second = {
        let (url, config, job, outcome) =
            (url.clone(), config.clone(), job.clone(), outcome.clone());
        std::thread::spawn(move || {
            let mut host_b = host::TestHost::new();
            host_b.state ^= 0x5555; // its own ids
            let mut b = Service::new(open(&url), config);
            b.store.begin().unwrap();
            let progress = b.report_sifen(&job, &outcome, &mut host_b);
            b.store.finish().unwrap();
            progress
        })
    };
    // The second node is blocked on the first one's row before the first commits.
    wait_until_one_waits(&url, "transactionid", "the second report never waited");
    a.store.finish().unwrap();
    assert!(
        second.join().unwrap().is_empty(),
        "the second report found nothing left to do"
    );
    let events: Vec<String> = a
        .store
        .due_deliveries(i64::MAX)
        .into_iter()
        .map(|d| d.body)
        .filter(|b| b.contains("factura.approved"))
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(a.store.take_error(), None);
}

#[test]
fn due_work_is_claimed_by_one_node_at_a_time() {
    let url = fresh_database("claim");
    let mut setup = open(&url);
    for n in 0..10 {
        setup.insert_invoice(production_invoice(n, 100));
    }
    setup.put_delivery(Delivery {
        id: "dlv_1".into(),
        account_id: "acct".into(),
        environment: Environment::Production,
        webhook_id: "wh_1".into(),
        url: "https://example.com/hook".into(),
        event_id: "evt_1".into(),
        headers: Vec::new(),
        body: "{}".into(),
        attempts: 0,
        next_attempt_at: 100,
        first_due_at: 100,
        status: "pending".into(),
        log: Vec::new(),
    });
    assert_eq!(setup.take_error(), None);
    let (mut a, mut b) = (open(&url), open(&url));
    a.begin().unwrap();
    let mine = a.sifen_due(200, 4);
    assert_eq!(mine.len(), 4);
    assert_eq!(a.due_deliveries(200).len(), 1);
    b.begin().unwrap();
    let theirs = b.sifen_due(200, 100);
    assert_eq!(theirs.len(), 6, "rows another node holds are skipped");
    assert!(theirs.iter().all(|t| mine.iter().all(|m| m.id != t.id)));
    assert!(b.due_deliveries(200).is_empty());
    // The claim writes a lease; once committed, nobody takes the job again before it ends.
    for mut r in mine {
        r.transmission.due_at = 500;
        a.update_invoice(r);
    }
    a.finish().unwrap();
    b.finish().unwrap();
    b.begin().unwrap();
    assert_eq!(b.sifen_due(200, 100).len(), 6);
    assert_eq!(b.sifen_due(500, 100).len(), 10, "after the lease");
    b.finish().unwrap();
}

/// Kills the connections of the node named `node` (as a crashed server or a network cut would).
fn terminate(admin: &mut postgres::Client, node: &str) {
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&format!("kuatia/{node}")],
        )
        .unwrap();
}

#[test]
fn a_broken_connection_is_reopened_at_the_next_transaction() {
    let url = fresh_database("reconnect");
    let mut s = PgStore::open(options(&url, "reconnect-victim")).unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    terminate(&mut admin, "reconnect-victim");
    std::thread::sleep(Duration::from_millis(200));
    s.begin().unwrap();
    s.insert_invoice(production_invoice(1, 100));
    s.finish().unwrap();
    assert_eq!(s.invoice_count(), 1);
}

/// A failed statement is named by the driver's error, not by its text: a lock held past the statement timeout and a
/// connection killed mid-transaction are the machine's state (503, retry), a stored record that does not decode is
/// the data's (500).
#[test]
fn failures_are_classified_from_the_driver_error() {
    use kuatia_service::storage::StorageFault;
    let url = fresh_database("faults");
    let mut s = PgStore::open(PgOptions {
        statement_timeout: Some(Duration::from_millis(300)),
        ..options(&url, "faults-victim")
    })
    .unwrap();
    s.insert_invoice(production_invoice(1, 100));
    s.insert_invoice(production_invoice(2, 100));
    assert!(s.take_error().is_none());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();

    // Another session holds the row past the statement timeout (57014).
    let mut holder = admin.transaction().unwrap();
    holder
        .execute(
            "SELECT 1 FROM invoices WHERE id = 'fact_0001' FOR UPDATE",
            &[],
        )
        .unwrap();
    s.begin().unwrap();
    assert!(s.invoice_for_update("acct", "fact_0001").is_none());
    let e = s.finish().expect_err("the statement timed out");
    assert_eq!(e.fault, StorageFault::Busy, "{e}");
    holder.rollback().unwrap();

    // A record that does not decode.
    admin
        .execute("UPDATE invoices SET json = '{' WHERE id = 'fact_0002'", &[])
        .unwrap();
    assert!(s.invoice("acct", "fact_0002").is_none());
    let e = s.take_error().expect("the record does not decode");
    assert_eq!(e.fault, StorageFault::Other, "{e}");

    // The connection is killed inside a transaction.
    s.begin().unwrap();
    terminate(&mut admin, "faults-victim");
    assert!(s.invoice("acct", "fact_0001").is_none());
    let e = s.finish().expect_err("the connection was lost");
    assert_eq!(e.fault, StorageFault::Io, "{e}");
    // And the next transaction reconnects.
    s.begin().unwrap();
    assert!(s.invoice("acct", "fact_0001").is_some());
    s.finish().unwrap();
}

#[test]
fn tls_is_required_and_verified_when_the_url_asks_for_it() {
    let url = fresh_database("tls");
    let ca = std::env::var("KUATIA_TEST_DATABASE_CA")
        .expect("scripts/pg-test.sh sets KUATIA_TEST_DATABASE_CA");
    let required = format!("{url}?sslmode=require");
    let mut s = PgStore::open(PgOptions {
        ca_file: Some(ca.into()),
        ..options(&required, "tls")
    })
    .unwrap();
    s.begin().unwrap();
    s.set_meta("probe", "1");
    s.finish().unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let ssl: bool = admin
        .query_one(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
             WHERE a.application_name = 'kuatia/tls'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(ssl, "the store's connection uses TLS");
    // A server certificate nobody vouches for is refused (the test CA is not a system root).
    let err = PgStore::open(PgOptions {
        ca_file: None,
        ..options(&required, "tls-unverified")
    })
    .unwrap_err();
    assert!(err.contains("connecting to PostgreSQL"), "{err}");
}

//! The records a database made before the schema was unified (main 94cdda2) holds: `fill` wrote them through that
//! version's store into the frozen fixtures (`server/tests/fixtures/schema/`), and `check` reads them back through
//! today's store after it migrated the database.
#![allow(dead_code)]

use kuatia_core::lifecycle::{Estado, EventKind};
use kuatia_core::numbering::{Gap, NumberingKey};
use kuatia_core::profile::Emisor;
use kuatia_service::auth::{Environment, StoredKey};
use kuatia_service::transmit::{Step, Transmission};
use kuatia_service::webhook::{Delivery, Webhook};
use kuatia_service::{Account, HttpResponse, InvoiceQuery, InvoiceRecord, Store};

pub const META: (&str, &str) = ("first_account", "acct_old");
pub const CERTIFICATE: (&str, &[u8], &str) =
    ("acct_old", b"\x30\x82\x00\xff\x00p12", "KUATIA_OLD_P12");

pub fn account() -> Account {
    Account {
        id: "acct_old".into(),
        name: "Old account".into(),
        sandbox: Emisor::sandbox(),
        production: Some(Emisor::sandbox()),
        sandbox_completed: true,
        ruc_enabled: true,
        keys: vec![StoredKey {
            key_id: "OLDKEY01".into(),
            environment: Environment::Sandbox,
            hash: format!("{:064x}", 1),
            created_at: 1_700_000_000,
            revoked_at: None,
        }],
        created_at: 1_700_000_000,
    }
}

fn invoice(n: u32, env: Environment) -> InvoiceRecord {
    InvoiceRecord {
        id: format!("fact_old_{n}"),
        account_id: "acct_old".into(),
        environment: env,
        status: Estado::Pending,
        cdc: format!("{n:044}"),
        numero: format!("001-001-{n:07}"),
        tipo_documento: 1,
        fecha_emision: "2026-11-01T10:00:00".into(),
        total: Some("110000".into()),
        moneda: Some("PYG".into()),
        simulate: None,
        sifen_errors: Vec::new(),
        protocolo: None,
        xml: format!(
            "<rDE><DE Id=\"{n:044}\"><dDesProSer>\"ítem\" &amp; old</dDesProSer></DE></rDE>"
        ),
        qr: "https://ekuatia.set.gov.py/consultas/qr?nVersion=150".into(),
        signed: true,
        created_at: 1_700_000_000 + i64::from(n),
        updated_at: 1_700_000_000 + i64::from(n),
        transmission: Transmission::default(),
        tipo_emision: 1,
        sent_at: None,
        receptor_ruc: Some("80069561-1".into()),
        approved_at: None,
        cancellation: None,
    }
}

/// The sandbox invoice (in flight for the simulated SIFEN) and the production one (its SIFEN step due).
pub fn invoices() -> [InvoiceRecord; 2] {
    let sandbox = invoice(1, Environment::Sandbox);
    let mut production = invoice(2, Environment::Production);
    production.status = Estado::Sent;
    production.sent_at = Some(1_700_000_010);
    production.transmission = Transmission {
        next: Step::Query,
        due_at: 1_700_000_100,
        attempts: 1,
        lote: Some("123".into()),
        last_error: None,
    };
    [sandbox, production]
}

pub fn webhook() -> Webhook {
    Webhook {
        id: "wh_old".into(),
        url: "https://erp.example/hooks".into(),
        events: vec![EventKind::FacturaApproved],
        description: Some("old hook".into()),
        created_at: "2026-11-01T10:00:00Z".into(),
        secret: Some("whsec_old".into()),
        previous_secret: None,
        previous_secret_expires_at: None,
    }
}

pub fn reply() -> HttpResponse {
    HttpResponse {
        status: 201,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: br#"{"ok":true,"data":{"id":"fact_old_1"}}"#.to_vec(),
    }
}

/// The kept key as migration 8 reads the old row: the status and invoice of its answer, its invoice's creation time.
pub fn kept_reply() -> kuatia_service::IdempotentReply {
    kuatia_service::IdempotentReply {
        body_hash: "hash-old".into(),
        status: 201,
        invoice_id: Some("fact_old_1".into()),
        stored_at: 1_700_000_001,
        response: Some(reply()),
    }
}

pub fn deliveries() -> [Delivery; 2] {
    let d = |n: i64, status: &str| Delivery {
        id: format!("dlv_old_{n}"),
        account_id: "acct_old".into(),
        environment: Environment::Sandbox,
        webhook_id: "wh_old".into(),
        url: "https://erp.example/hooks".into(),
        event_id: format!("evt_old_{n}"),
        body: format!(r#"{{"id":"evt_old_{n}"}}"#),
        headers: Vec::new(),
        attempts: 0,
        next_attempt_at: 1_700_000_000 + n,
        first_due_at: 1_700_000_000 + n,
        status: status.into(),
        log: Vec::new(),
    };
    [d(1, "pending"), d(2, "delivered")]
}

pub fn numbering_key() -> NumberingKey {
    NumberingKey {
        tipo_documento: 1,
        timbrado: "12345678".into(),
        establecimiento: "001".into(),
        punto: "001".into(),
    }
}

pub const PANEL: (&str, &str) = ("session:old", r#"{"account":"acct_old"}"#);

/// Writes the records through the store's trait (the host's own tables, meta and certificates, are the caller's).
pub fn fill<S: Store>(s: &mut S) {
    s.put_account(account());
    for i in invoices() {
        s.insert_invoice(i);
    }
    s.insert_webhook("acct_old", Environment::Sandbox, webhook());
    s.put_idempotent("acct_old", Environment::Sandbox, "idem-old", kept_reply());
    for d in deliveries() {
        s.put_delivery(d);
    }
    let k = numbering_key();
    let env = Environment::Production;
    assert_eq!(s.reserve_number("acct_old", env, &k), Ok(1));
    assert_eq!(s.reserve_number("acct_old", env, &k), Ok(2));
    s.confirm_number("acct_old", env, &k, 2, &format!("{:044}", 2))
        .unwrap();
    s.put_panel_record(PANEL.0, Some(PANEL.1));
}

/// The host records the old database held, as the store reads them back: the [`META`] setting's value and every
/// stored certificate.
pub fn check_host(meta: Option<String>, certificates: Vec<(String, Vec<u8>, String)>) {
    assert_eq!(meta.as_deref(), Some(META.1));
    let (account, p12, env) = CERTIFICATE;
    assert_eq!(
        certificates,
        vec![(account.to_string(), p12.to_vec(), env.to_string())]
    );
}

/// Reads every record back as [`fill`] wrote it, and the next number goes on from the old sequence.
pub fn check<S: Store>(s: &mut S) {
    assert_eq!(s.account("acct_old"), Some(account()));
    assert_eq!(s.accounts(), vec![account()]);
    assert_eq!(
        s.find_key("OLDKEY01").map(|(a, _)| a).as_deref(),
        Some("acct_old")
    );
    let [sandbox, production] = invoices();
    assert_eq!(s.invoice("acct_old", &sandbox.id).as_ref(), Some(&sandbox));
    assert_eq!(
        s.invoice("acct_old", &production.id).as_ref(),
        Some(&production)
    );
    let (listed, total) =
        s.list_invoices("acct_old", Environment::Sandbox, &InvoiceQuery::default());
    assert_eq!((listed, total), (vec![sandbox.clone()], 1));
    assert_eq!(s.simulated_in_flight(), vec![sandbox]);
    assert_eq!(s.sifen_due(1_700_000_100, 10), vec![production]);
    assert_eq!(
        s.webhooks("acct_old", Environment::Sandbox),
        vec![webhook()]
    );
    assert_eq!(
        s.idempotent("acct_old", Environment::Sandbox, "idem-old"),
        Some(kept_reply())
    );
    let [pending, delivered] = deliveries();
    assert_eq!(s.due_deliveries(i64::MAX), vec![pending.clone()]);
    assert_eq!(
        s.webhook_deliveries("wh_old", 0, 10),
        (vec![delivered, pending], 2)
    );
    let k = numbering_key();
    let env = Environment::Production;
    assert_eq!(
        s.number_gaps("acct_old", env),
        Ok(vec![Gap {
            key: k.clone(),
            numero: 1
        }])
    );
    assert_eq!(s.reserve_number("acct_old", env, &k), Ok(3));
    assert_eq!(s.panel_record(PANEL.0).as_deref(), Some(PANEL.1));
}

/// `HostStore::backlog` as fields: invoices by (environment, state, count), the oldest waiting for SIFEN by
/// (environment, state, created_at), pending deliveries (count, oldest first due time).
pub type Backlog = (
    Vec<(String, String, i64)>,
    Vec<(String, String, i64)>,
    (i64, Option<i64>),
);

/// What `HostStore::backlog` (`GET /metrics`) reads of these records: each invoice counted by environment and state,
/// both waiting for SIFEN (the sandbox one in flight, the production one with a query due), one delivery pending.
pub fn backlog() -> Backlog {
    let pending = deliveries()
        .into_iter()
        .find(|d| d.status == "pending")
        .map(|d| d.first_due_at);
    let by_state = |n: fn(&InvoiceRecord) -> i64| {
        invoices()
            .iter()
            .map(|i| {
                let env = i.environment.as_str().to_string();
                (env, i.status.as_str().to_string(), n(i))
            })
            .collect::<Vec<_>>()
    };
    sorted(by_state(|_| 1), by_state(|i| i.created_at), (1, pending))
}

/// A store's backlog fields, its lists sorted.
pub fn sorted(
    mut invoices: Vec<(String, String, i64)>,
    mut oldest_waiting: Vec<(String, String, i64)>,
    pending_deliveries: (i64, Option<i64>),
) -> Backlog {
    invoices.sort();
    oldest_waiting.sort();
    (invoices, oldest_waiting, pending_deliveries)
}

/// Keys an old database may hold besides [`reply`]'s, as `(key, answer)`: a kept refusal, and a 201 whose invoice is
/// not in the database. Written into the old table (`account_id, environment, key, body_hash, response`) under
/// `acct_old`, sandbox, hash `hash-old`.
pub fn old_keys() -> Vec<(&'static str, String)> {
    let refusal = HttpResponse {
        status: 422,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: br#"{"ok":false,"error":{"code":"VALIDATION_ERROR"}}"#.to_vec(),
    };
    let ghost = HttpResponse {
        status: 201,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: br#"{"ok":true,"data":{"id":"fact_gone"}}"#.to_vec(),
    };
    vec![
        ("idem-refused", serde_json::to_string(&refusal).unwrap()),
        ("idem-ghost", serde_json::to_string(&ghost).unwrap()),
    ]
}

/// Migration 8 read [`old_keys`] and [`fill`]'s key (status, invoice, time from the invoice), and the sweep then forgets
/// the refusal, drops the answer of the key whose invoice is there, and keeps the ghost's (it cannot be rebuilt).
pub fn check_old_keys<S: Store>(s: &mut S) {
    let old = |k: &str| s.idempotent("acct_old", Environment::Sandbox, k);
    let [(_, refusal), (_, ghost)]: [(&str, String); 2] = old_keys().try_into().unwrap();
    let as_kept = |status: u16, json: &str| kuatia_service::IdempotentReply {
        body_hash: "hash-old".into(),
        status,
        invoice_id: None,
        stored_at: 0,
        response: Some(serde_json::from_str(json).unwrap()),
    };
    assert_eq!(old("idem-refused"), Some(as_kept(422, &refusal)));
    assert_eq!(old("idem-ghost"), Some(as_kept(201, &ghost)));
    assert_eq!(old("idem-old"), Some(kept_reply()));
    assert_eq!(s.expire_idempotent(1_800_000_000, 100), 2);
    let old = |k: &str| s.idempotent("acct_old", Environment::Sandbox, k);
    assert_eq!(old("idem-refused"), None);
    assert_eq!(old("idem-ghost"), Some(as_kept(201, &ghost)));
    assert_eq!(
        old("idem-old"),
        Some(kuatia_service::IdempotentReply {
            response: None,
            ..kept_reply()
        })
    );
}

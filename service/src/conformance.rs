//! The store contract every [`Store`] keeps (in memory, SQLite, PostgreSQL, ...), one function per group of methods
//! and [`run_all`] for all of them: what a host runs against its store so that the service behaves the same on any
//! of them. Reached as `store::conformance` too.
//!
//! Each check takes an empty store and returns the first difference as text. `reopen(previous)` is the store under
//! test: given `None`, a fresh, empty one; given the previous instance, the same state as a restarted process sees it
//! (a durable store drops it and opens its file or database again; an in-memory one hands the instance back).

use super::auth::{Environment, StoredKey};
use super::store::{
    Account, IdempotentReply, InvoiceQuery, InvoiceRecord, Store, StoreNumbering, DELIVERY_BATCH,
};
use super::transmit::{Step, Transmission};
use super::webhook::{Attempt, Delivery, Webhook};
use super::HttpResponse;
use kuatia_core::error::Finding;
use kuatia_core::lifecycle::{Estado, EventKind};
use kuatia_core::numbering::{Gap, Numbering, NumberingKey};
use kuatia_core::profile::Emisor;

mod emails;
mod webhooks;
pub use emails::{emails, smtp_settings};
pub use webhooks::{deliveries, idempotency, webhooks};

/// An owned store as the [`Numbering`] of one account environment (`acct_1`, production): what
/// [`kuatia_core::numbering::conformance::check`] reopens between its steps when the numbering under test is a
/// [`Store`]'s.
pub struct OwnedNumbering<S: Store>(pub S);

impl<S: Store> OwnedNumbering<S> {
    fn scoped(&mut self) -> StoreNumbering<'_, S> {
        StoreNumbering {
            store: &mut self.0,
            account_id: "acct_1",
            env: Environment::Production,
        }
    }
}

impl<S: Store> Numbering for OwnedNumbering<S> {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        self.scoped().reserve(key)
    }
    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding> {
        self.scoped().confirm(key, numero, cdc)
    }
    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        self.0.number_gaps("acct_1", Environment::Production)
    }
}

fn record(n: usize, account: &str, env: Environment) -> InvoiceRecord {
    let status = [Estado::Pending, Estado::Approved, Estado::Rejected][n % 3];
    InvoiceRecord {
        id: format!("fact_{account}_{env:?}_{n:04}"),
        account_id: account.into(),
        environment: env,
        status,
        cdc: format!("{n:044}"),
        numero: format!("001-001-{n:07}"),
        tipo_documento: if n.is_multiple_of(4) { 4 } else { 1 },
        fecha_emision: "2025-01-01T00:00:00".into(),
        total: Some("1000".into()),
        moneda: Some("PYG".into()),
        simulate: Some("approved".into()),
        sifen_errors: Vec::new(),
        protocolo: None,
        // A stored document's XML comes back as written, whatever the store keeps it in.
        xml: format!(
            "<rDE><DE Id=\"{n:044}\"><dDesProSer>\"ítem\" & {account}</dDesProSer></DE></rDE>"
        ),
        qr: String::new(),
        signed: true,
        created_at: 1_700_000_000 + i64::try_from(n / 2).unwrap_or(0),
        updated_at: 1_700_000_000,
        transmission: Transmission::default(),
        tipo_emision: 1,
        sent_at: None,
        receptor_ruc: (!n.is_multiple_of(5)).then(|| format!("8006956{}-1", n % 2)),
        approved_at: None,
        cancellation: None,
    }
}

fn ids(v: &[InvoiceRecord]) -> Vec<String> {
    v.iter().map(|i| i.id.clone()).collect()
}

/// Runs the contract on an empty store.
pub fn list_invoices<S: Store>(store: &mut S) -> Result<(), String> {
    let env = Environment::Sandbox;
    let mut mine = Vec::new();
    for n in 0..40 {
        let r = record(n, "acct_a", env);
        store.insert_invoice(r.clone());
        mine.push(r);
        store.insert_invoice(record(n, "acct_b", env));
        store.insert_invoice(record(n, "acct_a", Environment::Production));
    }
    // A status change after insertion is what a filter sees, and the record read back is the one written last.
    if let Some(r) = mine.get_mut(3) {
        r.status = Estado::Cancelled;
        store.update_invoice(r.clone());
        if store.invoice("acct_a", &r.id).as_ref() != Some(&*r) {
            return Err(format!("{} does not read back as updated", r.id));
        }
    }
    if let Some(first) = mine.first() {
        if store.invoice("acct_b", &first.id).is_some() {
            return Err("an invoice is found under another account".into());
        }
    }
    let queries = [
        InvoiceQuery::default(),
        InvoiceQuery {
            status: Some(Estado::Approved),
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            status: Some(Estado::Cancelled),
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            created_from: Some(1_700_000_005),
            created_to: Some(1_700_000_010),
            ascending: true,
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            cdc: Some(format!("{:044}", 7)),
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            numero: Some("001-001-0000012".into()),
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            receptor_ruc: Some("80069561-1".into()),
            tipo_documento: Some(1),
            ..InvoiceQuery::default()
        },
        InvoiceQuery {
            tipo_documento: Some(4),
            offset: 2,
            limit: 3,
            ..InvoiceQuery::default()
        },
    ];
    for q in &queries {
        let mut want: Vec<InvoiceRecord> = mine.iter().filter(|i| q.matches(i)).cloned().collect();
        if !q.ascending {
            want.reverse();
        }
        let total = want.len();
        let want: Vec<InvoiceRecord> = want.into_iter().skip(q.offset).take(q.limit).collect();
        let (got, got_total) = store.list_invoices("acct_a", env, q);
        if got != want || got_total != total {
            return Err(format!(
                "{q:?}: expected {:?} of {total}, got {:?} of {got_total}",
                ids(&want),
                ids(&got)
            ));
        }
    }
    // A cursor walk, oldest first, with inserts between pages: every record once, the new ones included.
    for ascending in [true, false] {
        let mut seen = Vec::new();
        let mut cursor = None;
        let mut extra = 0;
        loop {
            let q = InvoiceQuery {
                ascending,
                starting_after: cursor.clone(),
                limit: 7,
                ..InvoiceQuery::default()
            };
            let (page, _) = store.list_invoices("acct_a", env, &q);
            if page.is_empty() {
                break;
            }
            cursor = page.last().map(|i| i.id.clone());
            seen.extend(ids(&page));
            if extra < 5 {
                let r = record(
                    1000 + extra + if ascending { 0 } else { 100 },
                    "acct_a",
                    env,
                );
                store.insert_invoice(r.clone());
                mine.push(r);
                extra += 1;
            }
        }
        let unique: std::collections::BTreeSet<&String> = seen.iter().collect();
        if unique.len() != seen.len() {
            return Err(format!(
                "a cursor walk (ascending {ascending}) repeated a row"
            ));
        }
        let all: std::collections::BTreeSet<String> = ids(&mine).into_iter().collect();
        let seen: std::collections::BTreeSet<String> = seen.into_iter().collect();
        // Oldest first sees every row, the inserted ones too; newest first sees every row that existed when it
        // started (the new ones sort before its first page).
        let missing: Vec<&String> = all
            .iter()
            .filter(|id| !seen.contains(*id))
            .filter(|id| ascending || !id.contains("_11"))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "a cursor walk (ascending {ascending}) missed {missing:?}"
            ));
        }
    }
    Ok(())
}

/// A failed expectation as the check's answer.
fn expect(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// Runs every check, each on a fresh store from `reopen(None)`; the first failure names its group.
pub fn run_all<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let in_group = |group: &'static str| move |e: String| format!("{group}: {e}");
    let mut s = reopen(None);
    list_invoices(&mut s).map_err(in_group("list_invoices"))?;
    drop(reopen(Some(s)));
    accounts(reopen).map_err(in_group("accounts"))?;
    invoices(reopen).map_err(in_group("invoices"))?;
    simulated_in_flight(reopen).map_err(in_group("simulated_in_flight"))?;
    sifen_due(reopen).map_err(in_group("sifen_due"))?;
    webhooks(reopen).map_err(in_group("webhooks"))?;
    idempotency(reopen).map_err(in_group("idempotency"))?;
    deliveries(reopen).map_err(in_group("deliveries"))?;
    panel_records(reopen).map_err(in_group("panel_records"))?;
    emails(reopen).map_err(in_group("emails"))?;
    smtp_settings(reopen).map_err(in_group("smtp_settings"))?;
    numbering(reopen).map_err(in_group("numbering"))?;
    Ok(())
}

fn account(id: &str, created_at: i64, keys: Vec<StoredKey>) -> Account {
    Account {
        id: id.into(),
        name: format!("name of {id}"),
        sandbox: Emisor::sandbox(),
        production: None,
        sandbox_completed: false,
        ruc_enabled: false,
        keys,
        created_at,
    }
}

fn key(id: &str, environment: Environment) -> StoredKey {
    StoredKey {
        key_id: id.into(),
        environment,
        hash: format!("{:064x}", id.len()),
        created_at: 7,
        revoked_at: None,
    }
}

/// Accounts and their keys: read back as stored, replaced whole, keys found by their id (revocations included),
/// and [`Store::accounts`] oldest first with ties in the order the accounts were first stored.
pub fn accounts<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    expect(s.accounts().is_empty(), || {
        "a fresh store lists accounts".into()
    })?;
    expect(s.account("acct_z").is_none(), || {
        "an unknown account is found".into()
    })?;
    expect(s.find_key("k_none").is_none(), || {
        "an unknown key is found".into()
    })?;
    let z = account("acct_z", 5, vec![key("k_z1", Environment::Sandbox)]);
    let b = account(
        "acct_b",
        5,
        vec![
            key("k_b1", Environment::Sandbox),
            key("k_b2", Environment::Production),
        ],
    );
    let m = account("acct_m", 1, Vec::new());
    for a in [&z, &b, &m] {
        s.put_account(a.clone());
    }
    let mut s = reopen(Some(s));
    for a in [&z, &b, &m] {
        let got = s.account(&a.id);
        expect(got.as_ref() == Some(a), || {
            format!("{} reads back as {got:?}", a.id)
        })?;
    }
    for (k, owner) in [("k_z1", "acct_z"), ("k_b1", "acct_b"), ("k_b2", "acct_b")] {
        let got = s.find_key(k);
        expect(
            got.as_ref()
                .is_some_and(|(o, sk)| o == owner && sk.key_id == k),
            || format!("key {k} is found as {got:?}"),
        )?;
    }
    let order: Vec<String> = s.accounts().into_iter().map(|a| a.id).collect();
    expect(order == ["acct_m", "acct_z", "acct_b"], || {
        format!("accounts are listed as {order:?} (oldest first, ties in storing order)")
    })?;
    // Replaced: a new name, a revoked key and one more; the order of the listing does not change.
    let mut z2 = z.clone();
    z2.name = "renamed".into();
    z2.production = Some(Emisor::sandbox());
    z2.keys[0].revoked_at = Some(9);
    z2.keys.push(key("k_z2", Environment::Production));
    s.put_account(z2.clone());
    let got = s.account("acct_z");
    expect(got.as_ref() == Some(&z2), || {
        format!("a replaced account reads {got:?}")
    })?;
    let got = s.find_key("k_z1");
    expect(
        got.as_ref().is_some_and(|(_, k)| k.revoked_at == Some(9)),
        || format!("a revoked key is found as {got:?}"),
    )?;
    expect(
        s.find_key("k_z2").is_some_and(|(o, _)| o == "acct_z"),
        || "a key added by a replacement is not found".into(),
    )?;
    let order: Vec<String> = s.accounts().into_iter().map(|a| a.id).collect();
    expect(order == ["acct_m", "acct_z", "acct_b"], || {
        format!("after a replacement, accounts are listed as {order:?}")
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

/// One invoice as [`Store::invoice_state`] may give it: the XML left out.
fn without_xml(i: &InvoiceRecord) -> InvoiceRecord {
    InvoiceRecord {
        xml: String::new(),
        ..i.clone()
    }
}

/// Invoices: read back whole (XML included) only by their account, [`Store::invoice_state`] and
/// [`Store::invoice_for_update`] as [`Store::invoice`], and an update replaces the record and keeps the XML.
pub fn invoices<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    let mut a = record(1, "acct_a", Environment::Production);
    a.transmission = Transmission::start(1_700_000_000);
    a.simulate = None;
    a.sifen_errors = vec![kuatia_core::lifecycle::SifenError {
        code: "0160".into(),
        message: "XML mal formado".into(),
        field: Some("dDesProSer".into()),
    }];
    let b = record(2, "acct_a", Environment::Sandbox);
    for r in [&a, &b] {
        s.insert_invoice(r.clone());
    }
    let mut s = reopen(Some(s));
    for r in [&a, &b] {
        let got = s.invoice("acct_a", &r.id);
        expect(got.as_ref() == Some(r), || {
            format!("{} reads back as {got:?}", r.id)
        })?;
        let got = s.invoice_for_update("acct_a", &r.id);
        expect(got.as_ref() == Some(r), || {
            format!("{} reads back for update as {got:?}", r.id)
        })?;
        let got = s.invoice_state("acct_a", &r.id);
        expect(
            got.as_ref().is_some_and(|g| {
                without_xml(g) == without_xml(r) && (g.xml.is_empty() || g.xml == r.xml)
            }),
            || format!("{} reads back as a state as {got:?}", r.id),
        )?;
        expect(s.invoice("acct_other", &r.id).is_none(), || {
            format!("{} is found under another account", r.id)
        })?;
        expect(s.invoice_state("acct_other", &r.id).is_none(), || {
            format!("{}'s state is found under another account", r.id)
        })?;
    }
    expect(s.invoice("acct_a", "fact_none").is_none(), || {
        "an unknown invoice is found".into()
    })?;
    // A change of state: the record read back is the one written last, its XML the one stored at creation.
    let mut changed = a.clone();
    changed.status = Estado::Approved;
    changed.protocolo = Some("123".into());
    changed.approved_at = Some(1_700_000_100);
    changed.updated_at = 1_700_000_100;
    changed.transmission = Transmission::default();
    s.update_invoice(changed.clone());
    let got = s.invoice("acct_a", &a.id);
    expect(got.as_ref() == Some(&changed), || {
        format!("an updated invoice reads {got:?}")
    })?;
    let s = reopen(Some(s));
    let got = s.invoice("acct_a", &a.id);
    expect(got.as_ref() == Some(&changed), || {
        format!("an updated invoice reads {got:?} after a reopen")
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

fn in_flight_ids<S: Store>(s: &S) -> Vec<String> {
    ids(&s.simulated_in_flight())
}

/// [`Store::simulated_in_flight`]: the sandbox invoices without `_simulate` that are pending or sent, in id order,
/// whole; an update that moves one on takes it out. Asked once per opened store: a store that several nodes share
/// may scan at intervals and answer nothing when asked again within moments.
pub fn simulated_in_flight<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    let env = Environment::Sandbox;
    let mut rows = Vec::new();
    for (n, status, simulate, env) in [
        (9, Estado::Pending, None, env),
        (3, Estado::Sent, None, env),
        (5, Estado::Pending, Some("approved"), env),
        (6, Estado::Approved, None, env),
        (7, Estado::Pending, None, Environment::Production),
        (1, Estado::Pending, None, env),
    ] {
        let mut r = record(n, "acct_a", env);
        r.status = status;
        r.simulate = simulate.map(String::from);
        s.insert_invoice(r.clone());
        rows.push(r);
    }
    let want = |rows: &[InvoiceRecord]| -> Vec<InvoiceRecord> {
        let mut w: Vec<InvoiceRecord> = rows
            .iter()
            .filter(|r| r.is_simulated_in_flight())
            .cloned()
            .collect();
        w.sort_by(|a, b| a.id.cmp(&b.id));
        w
    };
    let s = reopen(Some(s));
    let got = s.simulated_in_flight();
    expect(got == want(&rows), || {
        format!(
            "in flight: {:?}, expected {:?}",
            ids(&got),
            ids(&want(&rows))
        )
    })?;
    let mut s = reopen(Some(s));
    if let Some(r) = rows.get_mut(1) {
        r.status = Estado::Approved;
        s.update_invoice(r.clone());
    }
    if let Some(r) = rows.get_mut(2) {
        r.simulate = None;
        s.update_invoice(r.clone());
    }
    let s = reopen(Some(s));
    let got = in_flight_ids(&s);
    expect(got == ids(&want(&rows)), || {
        format!(
            "in flight after updates: {got:?}, expected {:?}",
            ids(&want(&rows))
        )
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

/// [`Store::sifen_due`]: invoices whose next SIFEN step is due at or before `now`, earliest due first (ties in
/// creation order), at most `limit`; an update reschedules or ends the step.
pub fn sifen_due<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    let env = Environment::Production;
    // (record number, due at): ids sort differently from creation order, so a tie shows which order a store keeps.
    let plan = [
        (8, Some(100)),
        (2, Some(50)),
        (9, Some(200)),
        (1, Some(50)),
        (4, None),
        (3, Some(100)),
    ];
    let mut rows = Vec::new();
    for (n, due) in plan {
        let mut r = record(n, "acct_a", env);
        r.simulate = None;
        r.status = Estado::Pending;
        if let Some(d) = due {
            r.transmission = Transmission {
                next: Step::Send,
                due_at: d,
                ..Transmission::default()
            };
        }
        s.insert_invoice(r.clone());
        rows.push(r);
    }
    let want = |rows: &[InvoiceRecord], now: i64, limit: usize| -> Vec<String> {
        let mut w: Vec<(i64, usize, &InvoiceRecord)> = rows
            .iter()
            .enumerate()
            .filter_map(|(n, r)| r.sifen_due_at().filter(|d| *d <= now).map(|d| (d, n, r)))
            .collect();
        w.sort_by_key(|(d, n, _)| (*d, *n));
        w.into_iter()
            .take(limit)
            .map(|(_, _, r)| r.id.clone())
            .collect()
    };
    let mut s = reopen(Some(s));
    for (now, limit) in [
        (49, 10),
        (50, 10),
        (100, 10),
        (100, 3),
        (1_000, 10),
        (1_000, 0),
    ] {
        let got = s.sifen_due(now, limit);
        expect(ids(&got) == want(&rows, now, limit), || {
            format!(
                "due at {now}, at most {limit}: {:?}, expected {:?}",
                ids(&got),
                want(&rows, now, limit)
            )
        })?;
        for g in &got {
            expect(rows.iter().any(|r| r == g), || {
                format!("{} does not read back whole", g.id)
            })?;
        }
    }
    // Rescheduled, finished, and a new step for one that had none.
    let mut moves = [
        (0, Step::Query, 10),
        (3, Step::Idle, 0),
        (4, Step::QueryLot, 60),
    ];
    for (i, next, due) in &mut moves {
        if let Some(r) = rows.get_mut(*i) {
            r.transmission = Transmission {
                next: *next,
                due_at: *due,
                attempts: 1,
                ..Transmission::default()
            };
            s.update_invoice(r.clone());
        }
    }
    let s = reopen(Some(s));
    let got = ids(&s.sifen_due(100, 10));
    expect(got == want(&rows, 100, 10), || {
        format!(
            "after rescheduling: {got:?}, expected {:?}",
            want(&rows, 100, 10)
        )
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

/// Panel records: stored, replaced and deleted by key, each key apart.
pub fn panel_records<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    expect(s.panel_record("session:a").is_none(), || {
        "a fresh store has a record".into()
    })?;
    s.put_panel_record("session:a", Some(r#"{"account":"acct_a"}"#));
    s.put_panel_record("session:b", Some(r#"{"account":"acct_b"}"#));
    s.put_panel_record("throttle:1.2.3.4", Some("[1,2,3]"));
    let mut s = reopen(Some(s));
    expect(
        s.panel_record("session:a").as_deref() == Some(r#"{"account":"acct_a"}"#),
        || "a record does not read back".into(),
    )?;
    s.put_panel_record("session:a", Some("{}"));
    s.put_panel_record("session:b", None);
    s.put_panel_record("session:none", None);
    let s = reopen(Some(s));
    let got = (
        s.panel_record("session:a"),
        s.panel_record("session:b"),
        s.panel_record("throttle:1.2.3.4"),
    );
    expect(
        got == (Some("{}".into()), None, Some("[1,2,3]".into())),
        || format!("after a replacement and a delete: {got:?}"),
    )?;
    drop(reopen(Some(s)));
    Ok(())
}

/// The numbering contract ([`kuatia_core::numbering::conformance::check`]) on one account environment, and each
/// account environment numbered apart.
pub fn numbering<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    kuatia_core::numbering::conformance::check::<OwnedNumbering<S>>(&mut |prev| {
        OwnedNumbering(reopen(prev.map(|o| o.0)))
    })?;
    let k = NumberingKey {
        tipo_documento: 1,
        timbrado: "12345678".into(),
        establecimiento: "001".into(),
        punto: "001".into(),
    };
    let mut s = reopen(None);
    let take =
        |s: &mut S, acct: &str, env| s.reserve_number(acct, env, &k).map_err(|e| e.to_string());
    let got = [
        take(&mut s, "acct_a", Environment::Production)?,
        take(&mut s, "acct_a", Environment::Production)?,
        take(&mut s, "acct_a", Environment::Sandbox)?,
        take(&mut s, "acct_b", Environment::Production)?,
    ];
    expect(got == [1, 2, 1, 1], || {
        format!("numbers by account environment: {got:?}")
    })?;
    s.confirm_number("acct_a", Environment::Production, &k, 2, "cdc-2")
        .map_err(|e| e.to_string())?;
    let refused = s.confirm_number("acct_b", Environment::Production, &k, 2, "cdc-x");
    expect(refused.is_err(), || {
        "a number reserved elsewhere was confirmed".into()
    })?;
    let s = reopen(Some(s));
    let gaps = |acct: &str, env| s.number_gaps(acct, env).map_err(|e| e.to_string());
    let one = |numero| {
        vec![Gap {
            key: k.clone(),
            numero,
        }]
    };
    let got = (
        gaps("acct_a", Environment::Production)?,
        gaps("acct_a", Environment::Sandbox)?,
        gaps("acct_b", Environment::Production)?,
        gaps("acct_c", Environment::Production)?,
    );
    expect(got == (one(1), one(1), one(1), Vec::new()), || {
        format!("gaps by account environment: {got:?}")
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::MemoryStore;

    #[test]
    fn the_memory_store_keeps_the_listing_contract() {
        let mut s = MemoryStore::default();
        assert_eq!(super::list_invoices(&mut s), Ok(()));
    }

    #[test]
    fn the_memory_store_keeps_the_whole_contract() {
        assert_eq!(
            super::run_all::<MemoryStore>(&mut |prev| prev.unwrap_or_default()),
            Ok(())
        );
    }
}

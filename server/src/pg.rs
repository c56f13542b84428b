//! [`PgStore`]: the core's [`Store`] on PostgreSQL, so several `kuatia serve` nodes share one database.
//!
//! The layout mirrors [`crate::SqliteStore`] (records as the core's JSON plus the columns the queries need). What a
//! shared database adds, all of it storage and none of it a rule of the core:
//! - every request is one transaction (`READ COMMITTED`, [`HostStore::begin`] / [`HostStore::finish`]);
//! - a document number is taken with an upsert on the sequence's row, which holds that row's lock until the
//!   transaction ends: two nodes never get the same number, and a reservation row without a CDC is a gap;
//! - an idempotency key is looked up under a transaction-scoped advisory lock on the key, and stored under the
//!   table's primary key (`account_id, environment, key`): a second node with the same key waits for the first and
//!   replays its answer; should the lock ever be bypassed, the constraint fails the second transaction as a whole;
//! - background work is claimed, not broadcast: due SIFEN jobs, due webhook deliveries and the simulated SIFEN's
//!   in-flight invoices are read `FOR UPDATE SKIP LOCKED`, so a row another node is working on is skipped, and the
//!   core's leases (written back in the same transaction) hand a dead node's work to another node once they expire;
//! - migrations run once, under a session advisory lock, however many nodes start together.
//!
//! The [`Store`] trait is infallible, so a failed statement is remembered ([`HostStore::take_error`]) and the server
//! rolls back the request's transaction, as with SQLite.

use crate::backend::HostStore;
use crate::faults::StoreError;
use crate::numbering::sequence;
use crate::schema::{self, Arg, Dialect};
use kuatia_core::numbering::{self, Gap, NumberingKey, MAX_NUMERO};
use kuatia_core::Finding;
use kuatia_service::auth::{Environment, StoredKey};
use kuatia_service::email::{EmailMessage, SmtpAccountSettings};
use kuatia_service::webhook::{Delivery, Webhook};
use kuatia_service::{Account, IdempotentReply, InvoiceQuery, InvoiceRecord, Store};
use postgres::types::ToSql;
use postgres::{Client, Row};
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::time::Duration;

/// How to reach the database.
#[derive(Clone)]
pub struct PgOptions {
    /// `postgres://user:password@host:port/db` (or a key=value connection string).
    pub url: String,
    /// Longest a statement (lock waits included) may run; `None`: the server's setting.
    pub statement_timeout: Option<Duration>,
    /// Reported to PostgreSQL as `application_name` (`kuatia/<node id>`), so `pg_stat_activity` shows the node.
    pub node_id: String,
    /// CA certificates (PEM) trusted for the server's TLS certificate besides the system's (`--database-ca`).
    pub ca_file: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for PgOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password.
        f.debug_struct("PgOptions")
            .field("node_id", &self.node_id)
            .field("statement_timeout", &self.statement_timeout)
            .finish_non_exhaustive()
    }
}

/// The core's [`Store`] over PostgreSQL (one connection, reopened when it breaks).
pub struct PgStore {
    options: PgOptions,
    /// `None` only while dropping (the connection is closed off the async threads).
    client: RefCell<Option<Client>>,
    /// First error since the last [`HostStore::take_error`] (reads take `&self`, hence the cell).
    error: RefCell<Option<StoreError>>,
    in_transaction: bool,
    /// When this node last scanned the simulated SIFEN's in-flight invoices (see `simulated_in_flight`).
    last_scan: std::cell::Cell<Option<std::time::Instant>>,
    /// The statements prepared on this connection, by SQL text: each is parsed and planned once, not per call
    /// (which also saves the round trip of an unnamed prepare).
    statements: RefCell<std::collections::HashMap<String, postgres::Statement>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

/// An error's text without the connection string (the driver never puts it there; its `Display` is the server's
/// message and SQLSTATE).
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

fn connect(options: &PgOptions) -> Result<Client, String> {
    let mut config: postgres::Config = options
        .url
        .parse()
        .map_err(|e: postgres::Error| format!("--database: {}", describe(&e)))?;
    let name = format!("kuatia/{}", options.node_id);
    config.application_name(&name);
    config.connect_timeout(Duration::from_secs(10));
    // TLS through the system's OpenSSL (already linked for the SIFEN transport): the server's certificate is verified
    // against the system's roots (+ `ca_file`) and its host name. The URL's `sslmode` decides: `prefer` (default)
    // uses TLS when the server offers it, `require` refuses a plain connection, `disable` never tries.
    let mut tls = openssl::ssl::SslConnector::builder(openssl::ssl::SslMethod::tls())
        .map_err(|e| format!("TLS for PostgreSQL: {e}"))?;
    if let Some(ca) = &options.ca_file {
        tls.set_ca_file(ca)
            .map_err(|e| format!("--database-ca {}: {e}", ca.display()))?;
    }
    let tls = postgres_openssl::MakeTlsConnector::new(tls.build());
    let mut client = config
        .connect(tls)
        .map_err(|e| format!("connecting to PostgreSQL: {}", describe(&e)))?;
    if let Some(t) = options.statement_timeout {
        client
            .batch_execute(&format!("SET statement_timeout = {}", t.as_millis()))
            .map_err(|e| describe(&e))?;
    }
    Ok(client)
}

fn usize_of(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

fn i64_of(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Most due deliveries one claim reads (the contract's [`kuatia_service::store::DELIVERY_BATCH`]).
const DELIVERY_BATCH: i64 = kuatia_service::store::DELIVERY_BATCH as i64;

/// How often a node reads the simulated SIFEN's in-flight invoices.
const SCAN_EVERY: Duration = Duration::from_millis(250);

const CLOSED: &str = "the PostgreSQL connection is closed";

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl PgStore {
    /// Connects and applies pending migrations (under an advisory lock: nodes starting together migrate once).
    pub fn open(options: PgOptions) -> Result<PgStore, String> {
        let client = connect(&options)?;
        let mut store = PgStore {
            options,
            client: RefCell::new(Some(client)),
            error: RefCell::new(None),
            in_transaction: false,
            last_scan: std::cell::Cell::new(None),
            statements: RefCell::default(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<(), String> {
        let Some(c) = self.client.get_mut().as_mut() else {
            return Err(CLOSED.into());
        };
        schema::migrate_postgres(c)
            .map_err(|e| format!("migrating the PostgreSQL schema: {}", describe(&e)))
    }

    /// Runs `f` on the connection.
    fn run<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        match self.client.borrow_mut().as_mut() {
            Some(c) => f(c).map_err(|e| StoreError::postgres(&e, describe(&e))),
            None => Err(StoreError::unreachable(CLOSED.to_string())),
        }
    }

    fn remember(&self, what: StoreError) {
        tracing::error!(error = %what, "postgres statement failed");
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some(what);
        }
    }

    /// `sql` prepared on this connection (once).
    fn statement(&self, c: &mut Client, sql: &str) -> Result<postgres::Statement, postgres::Error> {
        if let Some(st) = self.statements.borrow().get(sql) {
            return Ok(st.clone());
        }
        let st = c.prepare(sql)?;
        let mut kept = self.statements.borrow_mut();
        // The list queries are built from the filters given: a bounded set, but keep the cache bounded anyway.
        if kept.len() >= 256 {
            kept.clear();
        }
        kept.insert(sql.to_string(), st.clone());
        Ok(st)
    }

    fn rows(&self, sql: &str, params: Params) -> Vec<Row> {
        match self.run(|c| {
            let st = self.statement(c, sql)?;
            c.query(&st, params)
        }) {
            Ok(r) => r,
            Err(e) => {
                self.remember(e);
                Vec::new()
            }
        }
    }

    fn write(&self, sql: &str, params: Params) -> u64 {
        match self.run(|c| {
            let st = self.statement(c, sql)?;
            c.execute(&st, params)
        }) {
            Ok(n) => n,
            Err(e) => {
                self.remember(e);
                0
            }
        }
    }

    fn decode<T: DeserializeOwned>(&self, json: &str) -> Option<T> {
        match serde_json::from_str(json) {
            Ok(v) => Some(v),
            Err(e) => {
                self.remember(StoreError::other(format!(
                    "stored record does not decode: {e}"
                )));
                None
            }
        }
    }

    fn encode<T: serde::Serialize>(&self, v: &T) -> String {
        serde_json::to_string(v).unwrap_or_else(|e| {
            self.remember(StoreError::other(format!("record does not encode: {e}")));
            String::new()
        })
    }

    fn get<T: for<'a> postgres::types::FromSql<'a>>(&self, row: &Row, i: usize) -> Option<T> {
        match row.try_get(i) {
            Ok(v) => Some(v),
            // A column of a type the code does not expect: the data's fault, not the machine's.
            Err(e) => {
                self.remember(StoreError::other(describe(&e)));
                None
            }
        }
    }

    fn query_json<T: DeserializeOwned>(&self, sql: &str, params: Params) -> Vec<T> {
        self.rows(sql, params)
            .iter()
            .filter_map(|r| self.get::<String>(r, 0))
            .filter_map(|j| self.decode(&j))
            .collect()
    }

    /// Invoice rows of a [`select_invoices!`] statement: each record decoded from its JSON, with its XML put back.
    fn query_invoices(&self, sql: &str, params: Params) -> Vec<InvoiceRecord> {
        self.rows(sql, params)
            .iter()
            .filter_map(|r| {
                let mut invoice: InvoiceRecord = self.decode(&self.get::<String>(r, 0)?)?;
                if let Some(xml) = self.get::<Option<String>>(r, 1).flatten() {
                    invoice.xml = xml;
                }
                Some(invoice)
            })
            .collect()
    }

    fn one_json<T: DeserializeOwned>(&self, sql: &str, params: Params) -> Option<T> {
        self.query_json(sql, params).into_iter().next()
    }

    fn count(&self, sql: &str, params: Params) -> usize {
        self.rows(sql, params)
            .first()
            .and_then(|r| self.get::<i64>(r, 0))
            .map(usize_of)
            .unwrap_or(0)
    }

    fn numbering_failed(&self, e: StoreError) -> Finding {
        let f = kuatia_core::rule::storage_numbering_write("", &e.to_string());
        self.remember(StoreError {
            fault: e.fault,
            message: f.message.clone(),
        });
        f
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // The sync client blocks on its own runtime to close; on an async worker thread that would panic, so the
        // connection is closed from a thread of its own there.
        if let Some(client) = self.client.get_mut().take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                let _ = std::thread::Builder::new()
                    .name("kuatia-pg-close".into())
                    .spawn(move || drop(client));
            } else {
                drop(client);
            }
        }
    }
}

impl Store for PgStore {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        let rows = self.rows(
            "SELECT account_id, json FROM api_keys WHERE key_id = $1",
            &[&key_id],
        );
        let row = rows.first()?;
        let account: String = self.get(row, 0)?;
        let json: String = self.get(row, 1)?;
        Some((account, self.decode(&json)?))
    }

    fn account(&self, id: &str) -> Option<Account> {
        self.one_json("SELECT json FROM accounts WHERE id = $1", &[&id])
    }

    fn put_account(&mut self, account: Account) {
        let json = self.encode(&account);
        self.write(
            "INSERT INTO accounts (id, json, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET json = excluded.json",
            &[&account.id, &json, &account.created_at],
        );
        for k in &account.keys {
            let key_json = self.encode(k);
            self.write(
                "INSERT INTO api_keys (key_id, account_id, json) VALUES ($1, $2, $3)
                 ON CONFLICT (key_id) DO UPDATE SET account_id = excluded.account_id, json = excluded.json",
                &[&k.key_id, &account.id, &key_json],
            );
        }
    }

    fn insert_invoice(&mut self, mut invoice: InvoiceRecord) {
        let xml = std::mem::take(&mut invoice.xml);
        let json = self.encode(&invoice);
        self.write(
            "WITH row AS (
                 INSERT INTO invoices (id, account_id, environment, in_flight, sifen_due_at, json,
                                       status, created_at, cdc, numero, receptor_ruc, tipo_documento)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING seq)
             INSERT INTO invoice_xml (seq, xml) SELECT seq, $13 FROM row",
            &[
                &invoice.id,
                &invoice.account_id,
                &invoice.environment.as_str(),
                &invoice.is_simulated_in_flight(),
                &invoice.sifen_due_at(),
                &json,
                &invoice.status.as_str(),
                &invoice.created_at,
                &invoice.cdc,
                &invoice.numero,
                &invoice.receptor_ruc,
                &i16::from(invoice.tipo_documento),
                &xml,
            ],
        );
    }

    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.query_invoices(
            select_invoices!("FROM invoices WHERE id = $1 AND account_id = $2"),
            &[&id, &account_id],
        )
        .into_iter()
        .next()
    }

    /// `FOR UPDATE`: a second node reading the same invoice waits for this transaction, then reads what it wrote
    /// (`READ COMMITTED` re-reads a row that changed while waiting).
    fn invoice_for_update(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.query_invoices(
            select_invoices!("FROM invoices WHERE id = $1 AND account_id = $2 FOR UPDATE"),
            &[&id, &account_id],
        )
        .into_iter()
        .next()
    }

    fn invoice_state(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.one_json(
            "SELECT json FROM invoices WHERE id = $1 AND account_id = $2",
            &[&id, &account_id],
        )
    }

    /// The XML is not written again: the core never changes an invoice's XML after creating it.
    fn update_invoice(&mut self, mut invoice: InvoiceRecord) {
        invoice.xml = String::new();
        let json = self.encode(&invoice);
        self.write(
            "UPDATE invoices SET in_flight = $2, sifen_due_at = $3, json = $4, status = $5 WHERE id = $1",
            &[
                &invoice.id,
                &invoice.is_simulated_in_flight(),
                &invoice.sifen_due_at(),
                &json,
                &invoice.status.as_str(),
            ],
        );
    }

    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize) {
        let l = schema::list_invoices(
            Dialect::Postgres,
            select_invoices!(""),
            account_id,
            env,
            query,
        );
        let args: Vec<&(dyn ToSql + Sync)> = l.args.iter().map(Arg::postgres).collect();
        let total = self.count(&l.count, &args[..l.count_args]);
        (self.query_invoices(&l.page, &args), total)
    }

    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        // The core asks on every request (it ticks first). SQLite keeps these rows in memory, which no node can do
        // with a shared database, so a node reads them at most every SCAN_EVERY (the simulated SIFEN counts in
        // seconds; the background tick runs meanwhile). Rows another node's transaction is moving are skipped.
        let now = std::time::Instant::now();
        if self
            .last_scan
            .get()
            .is_some_and(|t| now.duration_since(t) < SCAN_EVERY)
        {
            return Vec::new();
        }
        self.last_scan.set(Some(now));
        self.query_invoices(
            select_invoices!("FROM invoices WHERE in_flight ORDER BY id FOR UPDATE SKIP LOCKED"),
            &[],
        )
    }

    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        // Claimed: the core writes each one back with its lease in this transaction; other nodes skip them.
        self.query_invoices(
            select_invoices!(
                "FROM invoices WHERE sifen_due_at IS NOT NULL AND sifen_due_at <= $1
                 ORDER BY sifen_due_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED"
            ),
            &[&now, &i64_of(limit)],
        )
    }

    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        let json = self.encode(&webhook);
        self.write(
            "INSERT INTO webhooks (id, account_id, environment, json) VALUES ($1, $2, $3, $4)",
            &[&webhook.id, &account_id, &env.as_str(), &json],
        );
    }

    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        self.query_json(
            "SELECT json FROM webhooks WHERE account_id = $1 AND environment = $2 ORDER BY seq",
            &[&account_id, &env.as_str()],
        )
    }

    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook> {
        self.one_json(
            "SELECT json FROM webhooks WHERE id = $1 AND account_id = $2 AND environment = $3",
            &[&id, &account_id, &env.as_str()],
        )
    }

    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        let json = self.encode(&webhook);
        self.write(
            "UPDATE webhooks SET json = $4 WHERE id = $1 AND account_id = $2 AND environment = $3",
            &[&webhook.id, &account_id, &env.as_str(), &json],
        );
    }

    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool {
        self.write(
            "DELETE FROM webhooks WHERE id = $1 AND account_id = $2 AND environment = $3",
            &[&id, &account_id, &env.as_str()],
        ) > 0
    }

    fn accounts(&self) -> Vec<Account> {
        self.query_json("SELECT json FROM accounts ORDER BY created_at, seq", &[])
    }

    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        let seq = sequence(key);
        let env = env.as_str();
        // The upsert locks the sequence's row until the transaction ends: a concurrent node waits, then reads the
        // committed `last` and goes past it. A rolled-back transaction hands its number back with its document.
        let row = self
            .run(|c| {
                c.query_opt(
                "INSERT INTO numbering AS n (account_id, environment, sequence, last) VALUES ($1, $2, $3, 1)
                 ON CONFLICT (account_id, environment, sequence) DO UPDATE SET last = n.last + 1
                 WHERE n.last < $4
                 RETURNING last",
                &[&account_id, &env, &seq, &i64::from(MAX_NUMERO)],
                )
            })
            .map_err(|e| self.numbering_failed(e))?;
        let last: i64 = match row {
            Some(r) => r
                .try_get(0)
                .map_err(|e| self.numbering_failed(StoreError::other(describe(&e))))?,
            None => return Err(numbering::exhausted(key)),
        };
        let numero = u32::try_from(last).map_err(|_| numbering::exhausted(key))?;
        self.run(|c| {
            c.execute(
                "INSERT INTO number_reservations (account_id, environment, sequence, numero, cdc)
                 VALUES ($1, $2, $3, $4, NULL)",
                &[&account_id, &env, &seq, &last],
            )
        })
        .map_err(|e| self.numbering_failed(e))?;
        Ok(numero)
    }

    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        let seq = sequence(key);
        let changed = self
            .run(|c| {
                c.execute(
                "UPDATE number_reservations SET cdc = $5
                 WHERE account_id = $1 AND environment = $2 AND sequence = $3 AND numero = $4 AND cdc IS NULL",
                &[
                    &account_id,
                    &env.as_str(),
                    &seq,
                    &i64::from(numero),
                    &cdc,
                ],
                )
            })
            .map_err(|e| self.numbering_failed(e))?;
        if changed == 1 {
            Ok(())
        } else {
            Err(numbering::not_reserved(key, numero))
        }
    }

    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        let rows = self
            .run(|c| {
                c.query(
                "SELECT sequence, numero FROM number_reservations
                 WHERE account_id = $1 AND environment = $2 AND cdc IS NULL ORDER BY sequence, numero",
                &[&account_id, &env.as_str()],
            )
            })
            .map_err(|e| {
                kuatia_core::rule::storage_numbering_read("", &e.to_string())
            })?;
        let corrupt = |why: String| kuatia_core::rule::storage_numbering_reservation("", &why);
        rows.iter()
            .map(|r| {
                let seq: String = r.try_get(0).map_err(|e| corrupt(e.to_string()))?;
                let numero: i64 = r.try_get(1).map_err(|e| corrupt(e.to_string()))?;
                let key: NumberingKey =
                    serde_json::from_str(&seq).map_err(|e| corrupt(e.to_string()))?;
                let numero = u32::try_from(numero).map_err(|e| corrupt(e.to_string()))?;
                Ok(Gap { key, numero })
            })
            .collect()
    }

    fn idempotent(&self, account_id: &str, env: Environment, key: &str) -> Option<IdempotentReply> {
        // Requests with one key queue here, across nodes, until the first one's transaction ends; then the row it
        // stored is visible (READ COMMITTED reads as of each statement).
        let lock = format!("{account_id}\u{1f}{}\u{1f}{key}", env.as_str());
        self.write(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
            &[&lock],
        );
        let rows = self.rows(
            "SELECT body_hash, status, invoice_id, stored_at, response FROM idempotency
             WHERE account_id = $1 AND environment = $2 AND key = $3",
            &[&account_id, &env.as_str(), &key],
        );
        let row = rows.first()?;
        let status: i64 = self.get(row, 1)?;
        let json: Option<String> = self.get(row, 4)?;
        let response = match json {
            Some(json) => Some(self.decode(&json)?),
            None => None,
        };
        Some(IdempotentReply {
            body_hash: self.get(row, 0)?,
            status: match u16::try_from(status) {
                Ok(s) => s,
                Err(e) => {
                    self.remember(StoreError::other(format!("stored status {status}: {e}")));
                    return None;
                }
            },
            invoice_id: self.get(row, 2)?,
            stored_at: self.get(row, 3)?,
            response,
        })
    }

    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        reply: IdempotentReply,
    ) {
        let json = reply.response.as_ref().map(|r| self.encode(r));
        let status = i64::from(reply.status);
        // The primary key is the unique constraint: a second answer for one key fails the whole transaction (so
        // its invoice and number are not kept) and the client's retry replays the first answer.
        self.write(
            "INSERT INTO idempotency (account_id, environment, key, body_hash, status, invoice_id, stored_at, response)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &account_id,
                &env.as_str(),
                &key,
                &reply.body_hash,
                &status,
                &reply.invoice_id,
                &reply.stored_at,
                &json,
            ],
        );
    }

    fn expire_idempotent(&mut self, before: i64, limit: usize) -> usize {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        schema::expire_idempotent(Dialect::Postgres)
            .iter()
            .map(|sql| self.write(sql, &[&before, &limit]))
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .sum()
    }

    fn put_delivery(&mut self, delivery: Delivery) {
        let json = self.encode(&delivery);
        self.write(
            "INSERT INTO deliveries (id, status, next_attempt_at, webhook_id, created_at, json)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET status = excluded.status,
                 next_attempt_at = excluded.next_attempt_at, json = excluded.json",
            &[
                &delivery.id,
                &delivery.status,
                &delivery.next_attempt_at,
                &delivery.webhook_id,
                &delivery.first_due_at,
                &json,
            ],
        );
    }

    fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        // Claimed like SIFEN jobs: `Service::claim_deliveries` writes each one back with its lease. A batch of the
        // earliest due, not the whole backlog: a worker takes a few per endpoint each round, and reading (and locking)
        // thousands of rows per round to keep four made a backlog drain at a few per second.
        self.query_json(
            "SELECT json FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1
             ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&now, &DELIVERY_BATCH],
        )
    }

    fn delivery(&self, id: &str) -> Option<Delivery> {
        self.one_json("SELECT json FROM deliveries WHERE id = $1", &[&id])
    }

    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        let total = self.count(
            "SELECT COUNT(*) FROM deliveries WHERE webhook_id = $1",
            &[&webhook_id],
        );
        let items = self.query_json(
            "SELECT json FROM deliveries WHERE webhook_id = $1
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
            &[&webhook_id, &i64_of(limit), &i64_of(offset)],
        );
        (items, total)
    }

    fn put_email(&mut self, message: EmailMessage) {
        let json = self.encode(&message);
        self.write(
            "INSERT INTO emails (id, invoice_id, status, next_attempt_at, created_at, json)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT(id) DO UPDATE SET status = excluded.status,
                 next_attempt_at = excluded.next_attempt_at, json = excluded.json",
            &[
                &message.id,
                &message.invoice_id,
                &message.status,
                &message.next_attempt_at,
                &message.created_at,
                &json,
            ],
        );
    }

    fn due_emails(&self, now: i64) -> Vec<EmailMessage> {
        // Claimed like deliveries (`Service::claim_emails` writes each back with its lease).
        self.query_json(
            "SELECT json FROM emails WHERE status = 'pending' AND next_attempt_at <= $1
             ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&now, &DELIVERY_BATCH],
        )
    }

    fn email(&self, id: &str) -> Option<EmailMessage> {
        self.one_json("SELECT json FROM emails WHERE id = $1", &[&id])
    }

    fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage> {
        self.query_json(
            "SELECT json FROM emails WHERE invoice_id = $1 ORDER BY created_at, id",
            &[&invoice_id],
        )
    }

    fn smtp_settings(&self, account_id: &str, env: Environment) -> Option<SmtpAccountSettings> {
        self.one_json(
            "SELECT json FROM smtp_settings WHERE account_id = $1 AND environment = $2",
            &[&account_id, &env.as_str()],
        )
    }

    fn put_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        settings: Option<&SmtpAccountSettings>,
    ) {
        let Some(settings) = settings else {
            self.write(
                "DELETE FROM smtp_settings WHERE account_id = $1 AND environment = $2",
                &[&account_id, &env.as_str()],
            );
            return;
        };
        let json = self.encode(settings);
        self.write(
            "INSERT INTO smtp_settings (account_id, environment, updated_at, json) VALUES ($1, $2, $3, $4)
             ON CONFLICT(account_id, environment) DO UPDATE SET updated_at = excluded.updated_at, json = excluded.json",
            &[&account_id, &env.as_str(), &settings.updated_at, &json],
        );
    }

    fn panel_record(&self, key: &str) -> Option<String> {
        self.meta(&format!("panel:{key}"))
    }

    fn put_panel_record(&mut self, key: &str, value: Option<&str>) {
        let key = format!("panel:{key}");
        match value {
            Some(v) => self.set_meta(&key, v),
            None => {
                self.write("DELETE FROM meta WHERE key = $1", &[&key]);
            }
        }
    }
}

mod host;

//! [`SqliteStore`]: the core's [`Store`] on one SQLite file (WAL), so a restart loses nothing.
//!
//! Records are kept as the core's own JSON (serde) plus the few columns the queries need; API keys exist only as
//! their SHA-256 (the core never hands the host a clear key to store). Webhook signing secrets are stored as given:
//! the HMAC needs them.
//!
//! The [`Store`] trait is infallible, so a failed statement is remembered ([`HostStore::take_error`]) and the
//! server rolls back the request's transaction instead of answering with a half-written state.

use crate::backend::HostStore;
use crate::faults::{FaultPlan, StoreError};
use crate::numbering;
use crate::schema::{self, Arg, Dialect};
use kuatia_core::numbering::{Gap, NumberingKey};
use kuatia_core::Finding;
use kuatia_service::auth::{Environment, StoredKey};
use kuatia_service::email::{EmailMessage, SmtpAccountSettings};
use kuatia_service::store::DELIVERY_BATCH;
use kuatia_service::webhook::{Delivery, Webhook};
use kuatia_service::{Account, IdempotentReply, InvoiceQuery, InvoiceRecord, Store};
use rusqlite::{params, Connection, OptionalExtension};
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Name of the database file inside the data directory.
pub const DB_FILE: &str = "kuatia.sqlite3";

/// The core's [`Store`] over SQLite.
pub struct SqliteStore {
    conn: Connection,
    /// First error since the last [`HostStore::take_error`] (reads take `&self`, hence the cell).
    error: RefCell<Option<StoreError>>,
    /// Failures injected into every call (tests only; see [`SqliteStore::inject_faults`]).
    faults: RefCell<Option<FaultPlan>>,
    /// Decoded copies of the `in_flight = 1` rows. The core calls `simulated_in_flight` on every request (its
    /// `handle` ticks first), so reading and decoding those rows each time would make every request O(in flight).
    /// This process is the only writer of invoices; the cache is rebuilt whenever a transaction rolls back.
    in_flight: BTreeMap<String, InvoiceRecord>,
    /// The cache could not be rebuilt after a rollback: it is rebuilt at the next [`HostStore::begin`].
    in_flight_stale: bool,
    /// A reader's connection ([`SqliteStore::into_reader`]): no in-flight cache.
    reader: bool,
    /// Keys and accounts as read last, while the database has not changed.
    auth: RefCell<AuthCache>,
}

/// API keys, accounts and webhooks as last read, kept while the database is unchanged: every request authenticates,
/// and the two reads (statement, row, JSON) were a sixth of a status lookup. Another connection's commit changes
/// SQLite's `data_version` and empties it; this connection's own writes of accounts, keys and webhooks, and its
/// rollbacks, empty it too.
#[derive(Debug, Default)]
struct AuthCache {
    /// `PRAGMA data_version` read before the cached rows were: they are at least that recent.
    version: i64,
    keys: HashMap<String, (String, StoredKey)>,
    accounts: HashMap<String, Account>,
    /// The webhooks of an account environment: read at every state change an invoice makes (its events), and as the
    /// statement of that read was re-prepared by SQLite each time, a twelfth of the writer's time under load.
    webhooks: HashMap<(String, Environment), Vec<Webhook>>,
}

/// Entries kept at most (only rows that exist are kept: unknown keys are never cached).
const AUTH_CACHE_MAX: usize = 4096;

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

/// The data directory holds webhook secrets and buyers' personal data: the directory becomes 0700 and the database
/// 0600 (created so before SQLite opens it; its `-wal` and `-shm` files take the database's mode).
#[cfg(unix)]
fn private(dir: &Path, db: &Path) -> Result<(), String> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let fail = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| fail(dir, e))?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(db)
        .map_err(|e| fail(db, e))?;
    for suffix in ["", "-wal", "-shm"] {
        let file = std::path::PathBuf::from(format!("{}{suffix}", db.display()));
        if file.exists() {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| fail(&file, e))?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_dir: &Path, _db: &Path) -> Result<(), String> {
    Ok(())
}

/// Moves the WAL's committed frames into the database file from a connection of its own, so the server's writer does
/// not stall on that copy and its sync in the middle of a request (see [`HostStore::defer_checkpoints`]).
#[derive(Debug)]
pub struct Checkpointer {
    conn: Connection,
}

impl Checkpointer {
    /// A connection to the data directory's database for checkpoints.
    pub fn open(dir: &Path) -> Result<Checkpointer, String> {
        let path = dir.join(DB_FILE);
        let conn = Connection::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        conn.execute_batch("PRAGMA busy_timeout = 1000;")
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Checkpointer { conn })
    }

    /// One PASSIVE checkpoint: copies what it can without waiting for, or blocking, the writer.
    pub fn run(&self) -> Result<(), String> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| e.to_string())
    }
}

impl SqliteStore {
    /// Opens (creating if needed) `<dir>/kuatia.sqlite3`, switches to WAL and applies pending migrations.
    pub fn open(dir: &Path) -> Result<SqliteStore, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(DB_FILE);
        private(dir, &path)?;
        let conn = Connection::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        // WAL: readers never block the writer. FULL: every commit syncs the WAL, so a 201 means the invoice is on disk
        // (across power loss too); the server shares one sync among the requests that wait together
        // ([`crate::commit`]); each request of a group is a savepoint, whose journal stays in memory (temp_store).
        // busy_timeout lets `kuatia keys create` write while a server runs.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;
             PRAGMA temp_store = MEMORY;
             PRAGMA foreign_keys = ON;",
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        // Every statement of the hot paths is prepared once (`prepare_cached`); room for all of them, the list
        // filters' combinations included.
        conn.set_prepared_statement_cache_capacity(64);
        let mut store = SqliteStore {
            conn,
            error: RefCell::new(None),
            faults: RefCell::new(None),
            in_flight: BTreeMap::new(),
            in_flight_stale: false,
            reader: false,
            auth: RefCell::default(),
        };
        crate::schema::migrate_sqlite(&store.conn)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        store.reload_in_flight()?;
        Ok(store)
    }

    fn reload_in_flight(&mut self) -> Result<(), StoreError> {
        if self.reader {
            return Ok(());
        }
        let rows = self.query_invoices(select_invoices!("FROM invoices WHERE in_flight = 1"), &[]);
        if let Some(e) = self.take_error() {
            self.in_flight_stale = true;
            return Err(e);
        }
        self.in_flight = rows.into_iter().map(|r| (r.id.clone(), r)).collect();
        self.in_flight_stale = false;
        Ok(())
    }

    /// Keeps the in-flight cache in step with a written invoice (taken by value: the write is its last use).
    fn track(&mut self, invoice: InvoiceRecord) {
        if self.reader {
            return;
        }
        if invoice.is_simulated_in_flight() {
            self.in_flight.insert(invoice.id.clone(), invoice);
        } else {
            self.in_flight.remove(&invoice.id);
        }
    }

    /// Makes this connection a reader's ([`crate::readers`]): it never writes, so an in-flight cache of its own would
    /// only go stale; every read goes to the database.
    pub fn into_reader(&mut self) {
        self.reader = true;
        self.in_flight.clear();
    }

    /// Runs a statement without parameters, prepared once (the transaction and savepoint statements of every request).
    fn exec(&self, sql: &str) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut st| st.execute([]))
            .map(drop)
    }

    /// Starts a read transaction (a deferred `BEGIN`: one snapshot and one WAL lock for the reads up to
    /// [`SqliteStore::end_read`], never blocking the writer), for the readers beside the writer ([`crate::readers`]).
    pub fn begin_read(&self) -> bool {
        self.exec("BEGIN DEFERRED").is_ok()
    }

    /// Ends a read transaction started by [`SqliteStore::begin_read`] (nothing was written: nothing to lose).
    pub fn end_read(&self) {
        let _ = self.exec("COMMIT");
    }

    /// Makes calls fail as `plan` draws (every statement, `BEGIN` and `COMMIT`; fault-injection tests), or stops
    /// injecting with `None`; returns the previous plan with its counters.
    pub fn inject_faults(&self, plan: Option<FaultPlan>) -> Option<FaultPlan> {
        self.faults.replace(plan)
    }

    fn injected(&self) -> Option<rusqlite::Error> {
        self.faults.borrow_mut().as_mut()?.next_failure()
    }

    /// Keeps the first error of the transaction.
    fn keep(&self, e: StoreError) {
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    /// Keeps the first error and turns a result into an option.
    fn read<T>(&self, r: rusqlite::Result<T>) -> Option<T> {
        let r = match self.injected() {
            Some(e) => Err(e),
            None => r,
        };
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "sqlite statement failed");
                self.keep(e.into());
                None
            }
        }
    }

    fn decode<T: DeserializeOwned>(&self, json: &str) -> Option<T> {
        match serde_json::from_str(json) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "stored record does not decode");
                self.keep(StoreError::other(format!(
                    "stored record does not decode: {e}"
                )));
                None
            }
        }
    }

    fn encode<T: serde::Serialize>(&self, v: &T) -> String {
        match serde_json::to_string(v) {
            Ok(s) => s,
            Err(e) => {
                self.keep(StoreError::other(format!("record does not encode: {e}")));
                String::new()
            }
        }
    }

    fn query_json<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Vec<T> {
        self.query_json_whole(sql, params).0
    }

    /// [`SqliteStore::query_json`], and whether every row was read and decoded (a failure is kept as the error).
    fn query_json_whole<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> (Vec<T>, bool) {
        let rows = self.conn.prepare_cached(sql).and_then(|mut st| {
            st.query_map(params, |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        });
        let Some(rows) = self.read(rows) else {
            return (Vec::new(), false);
        };
        let found: Vec<T> = rows.iter().filter_map(|j| self.decode(j)).collect();
        let whole = found.len() == rows.len();
        (found, whole)
    }

    /// Invoice rows of a [`select_invoices!`] statement: each record decoded from its JSON, with its XML put back.
    fn query_invoices(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Vec<InvoiceRecord> {
        let rows = self.conn.prepare_cached(sql).and_then(|mut st| {
            st.query_map(params, |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        });
        self.read(rows)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(json, xml)| {
                let mut invoice: InvoiceRecord = self.decode(&json)?;
                if let Some(xml) = xml {
                    invoice.xml = xml;
                }
                Some(invoice)
            })
            .collect()
    }

    /// Stores an invoice's record without its XML (the caller stores that once, in `invoice_xml`): returns the XML.
    fn encode_invoice(&self, invoice: &mut InvoiceRecord) -> (String, String) {
        let xml = std::mem::take(&mut invoice.xml);
        let json = self.encode(&*invoice);
        (json, xml)
    }

    fn one_json<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Option<T> {
        self.query_json(sql, params).into_iter().next()
    }

    /// A numbering refusal as the contract's finding; a failed statement is also remembered like any other (its
    /// fault named from SQLite's code), so the request is rolled back. The contract's own answers (exhausted, not
    /// reserved) are the request's outcome, not a storage failure.
    fn refused(&self, r: numbering::Refusal) -> Finding {
        match r {
            numbering::Refusal::Sql(e) => {
                let finding = numbering::sql_finding(&e);
                self.keep(StoreError::from(e));
                finding
            }
            numbering::Refusal::Rule(finding) => finding,
        }
    }

    /// The authentication cache, emptied first if the database changed since it was filled (`None` when the version
    /// cannot be read: then nothing is cached or answered from it).
    fn auth_cache(&self) -> Option<std::cell::RefMut<'_, AuthCache>> {
        let version = self
            .conn
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
            .ok();
        let mut cache = self.auth.borrow_mut();
        let Some(version) = version else {
            *cache = AuthCache::default();
            return None;
        };
        if cache.version != version
            || cache.keys.len() + cache.accounts.len() + cache.webhooks.len() >= AUTH_CACHE_MAX
        {
            *cache = AuthCache {
                version,
                ..AuthCache::default()
            };
        }
        Some(cache)
    }

    /// Forgets every cached key and account (this connection wrote or rolled back).
    fn forget_auth(&self) {
        *self.auth.borrow_mut() = AuthCache::default();
    }

    fn write(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) {
        let r = self
            .conn
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params));
        self.read(r);
    }
}

impl Store for SqliteStore {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        // Held across the read: what is read is at least as recent as the version the cache is labelled with.
        let mut cache = self.auth_cache();
        if let Some(hit) = cache.as_ref().and_then(|c| c.keys.get(key_id).cloned()) {
            return self.read(Ok(hit));
        }
        let r = self
            .conn
            .prepare_cached("SELECT account_id, json FROM api_keys WHERE key_id = ?1")
            .and_then(|mut st| {
                st.query_row([key_id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                })
                .optional()
            });
        let (account, json) = self.read(r).flatten()?;
        let found = (account, self.decode::<StoredKey>(&json)?);
        if let Some(cache) = cache.as_mut() {
            cache.keys.insert(key_id.to_string(), found.clone());
        }
        Some(found)
    }

    fn account(&self, id: &str) -> Option<Account> {
        let mut cache = self.auth_cache();
        if let Some(hit) = cache.as_ref().and_then(|c| c.accounts.get(id).cloned()) {
            return self.read(Ok(hit));
        }
        let found: Account = self.one_json("SELECT json FROM accounts WHERE id = ?1", &[&id])?;
        if let Some(cache) = cache.as_mut() {
            cache.accounts.insert(id.to_string(), found.clone());
        }
        Some(found)
    }

    fn put_account(&mut self, account: Account) {
        self.forget_auth();
        let json = self.encode(&account);
        self.write(
            "INSERT INTO accounts (id, json, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET json = excluded.json",
            &[&account.id, &json, &account.created_at],
        );
        for k in &account.keys {
            let key_json = self.encode(k);
            self.write(
                "INSERT INTO api_keys (key_id, account_id, json) VALUES (?1, ?2, ?3)
                 ON CONFLICT(key_id) DO UPDATE SET account_id = excluded.account_id, json = excluded.json",
                &[&k.key_id, &account.id, &key_json],
            );
        }
    }

    fn insert_invoice(&mut self, mut invoice: InvoiceRecord) {
        let (json, xml) = self.encode_invoice(&mut invoice);
        self.write(
            "INSERT INTO invoices (id, account_id, environment, in_flight, sifen_due_at, json,
                                   status, created_at, cdc, numero, receptor_ruc, tipo_documento)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
                &invoice.tipo_documento,
            ],
        );
        self.write(
            "INSERT INTO invoice_xml (seq, xml) VALUES (last_insert_rowid(), ?1)",
            &[&xml],
        );
        invoice.xml = xml;
        self.track(invoice);
    }

    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        // The simulated SIFEN reads every invoice it moves: those in flight are in the cache, as written.
        let cached = match self.in_flight_stale {
            false => self
                .in_flight
                .get(id)
                .filter(|r| r.account_id == account_id),
            true => None,
        };
        if let Some(cached) = cached {
            return self.read(Ok(cached.clone()));
        }
        self.query_invoices(
            select_invoices!("FROM invoices WHERE id = ?1 AND account_id = ?2"),
            &[&id, &account_id],
        )
        .into_iter()
        .next()
    }

    fn invoice_state(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.one_json(
            "SELECT json FROM invoices WHERE id = ?1 AND account_id = ?2",
            &[&id, &account_id],
        )
    }

    /// The XML is not written again: the core never changes an invoice's XML after creating it.
    fn update_invoice(&mut self, mut invoice: InvoiceRecord) {
        let (json, xml) = self.encode_invoice(&mut invoice);
        self.write(
            "UPDATE invoices SET in_flight = ?2, sifen_due_at = ?3, json = ?4, status = ?5 WHERE id = ?1",
            &[
                &invoice.id,
                &invoice.is_simulated_in_flight(),
                &invoice.sifen_due_at(),
                &json,
                &invoice.status.as_str(),
            ],
        );
        invoice.xml = xml;
        self.track(invoice);
    }

    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize) {
        let l = schema::list_invoices(
            Dialect::Sqlite,
            select_invoices!(""),
            account_id,
            env,
            query,
        );
        let args: Vec<&dyn rusqlite::ToSql> = l.args.iter().map(Arg::sqlite).collect();
        let total = self
            .read(
                self.conn
                    .prepare_cached(&l.count)
                    .and_then(|mut st| st.query_row(&args[..l.count_args], |r| r.get::<_, i64>(0))),
            )
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        (self.query_invoices(&l.page, &args), total)
    }

    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        self.in_flight.values().cloned().collect()
    }

    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.query_invoices(
            select_invoices!(
                "FROM invoices WHERE sifen_due_at IS NOT NULL AND sifen_due_at <= ?1
                 ORDER BY sifen_due_at, seq LIMIT ?2"
            ),
            &[&now, &limit],
        )
    }

    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        self.forget_auth();
        let json = self.encode(&webhook);
        self.write(
            "INSERT INTO webhooks (id, account_id, environment, json) VALUES (?1, ?2, ?3, ?4)",
            &[&webhook.id, &account_id, &env.as_str(), &json],
        );
    }

    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        let mut cache = self.auth_cache();
        let key = (account_id.to_string(), env);
        if let Some(hit) = cache.as_ref().and_then(|c| c.webhooks.get(&key).cloned()) {
            return hit;
        }
        let (found, whole) = self.query_json_whole::<Webhook>(
            "SELECT json FROM webhooks WHERE account_id = ?1 AND environment = ?2 ORDER BY seq",
            &[&account_id, &env.as_str()],
        );
        // Only a whole answer is kept (a failed read or a row that did not decode is an error, reported each time).
        if let (Some(cache), true) = (cache.as_mut(), whole) {
            cache.webhooks.insert(key, found.clone());
        }
        found
    }

    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook> {
        self.one_json(
            "SELECT json FROM webhooks WHERE id = ?1 AND account_id = ?2 AND environment = ?3",
            &[&id, &account_id, &env.as_str()],
        )
    }

    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        self.forget_auth();
        let json = self.encode(&webhook);
        self.write(
            "UPDATE webhooks SET json = ?4 WHERE id = ?1 AND account_id = ?2 AND environment = ?3",
            &[&webhook.id, &account_id, &env.as_str(), &json],
        );
    }

    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool {
        self.forget_auth();
        let r = self
            .conn
            .prepare_cached(
                "DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2 AND environment = ?3",
            )
            .and_then(|mut st| st.execute(params![id, account_id, env.as_str()]));
        self.read(r).is_some_and(|n| n > 0)
    }

    fn accounts(&self) -> Vec<Account> {
        self.query_json("SELECT json FROM accounts ORDER BY created_at, rowid", &[])
    }

    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        // A failure is also remembered, so the request's transaction is rolled back as a whole.
        if let Some(e) = self.injected() {
            return Err(self.refused(numbering::Refusal::Sql(e)));
        }
        numbering::reserve(&self.conn, account_id, env.as_str(), key).map_err(|r| self.refused(r))
    }

    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        if let Some(e) = self.injected() {
            return Err(self.refused(numbering::Refusal::Sql(e)));
        }
        numbering::confirm(&self.conn, account_id, env.as_str(), key, numero, cdc)
            .map_err(|r| self.refused(r))
    }

    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        numbering::gaps(&self.conn, account_id, env.as_str())
    }

    fn idempotent(&self, account_id: &str, env: Environment, key: &str) -> Option<IdempotentReply> {
        let r = self
            .conn
            .prepare_cached(
                "SELECT body_hash, status, invoice_id, stored_at, response FROM idempotency
                 WHERE account_id = ?1 AND environment = ?2 AND key = ?3",
            )
            .and_then(|mut st| {
                st.query_row([account_id, env.as_str(), key], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, u16>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, Option<String>>(4)?,
                    ))
                })
                .optional()
            });
        let (body_hash, status, invoice_id, stored_at, json) = self.read(r).flatten()?;
        let response = match json {
            Some(json) => Some(self.decode(&json)?),
            None => None,
        };
        Some(IdempotentReply {
            body_hash,
            status,
            invoice_id,
            stored_at,
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
        self.write(
            "INSERT INTO idempotency (account_id, environment, key, body_hash, status, invoice_id, stored_at, response)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT(account_id, environment, key)
             DO UPDATE SET body_hash = excluded.body_hash, status = excluded.status,
                 invoice_id = excluded.invoice_id, stored_at = excluded.stored_at, response = excluded.response",
            &[
                &account_id,
                &env.as_str(),
                &key,
                &reply.body_hash,
                &reply.status,
                &reply.invoice_id,
                &reply.stored_at,
                &json,
            ],
        );
    }

    fn expire_idempotent(&mut self, before: i64, limit: usize) -> usize {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut changed = 0;
        for sql in schema::expire_idempotent(schema::Dialect::Sqlite) {
            let r = self
                .conn
                .prepare_cached(&sql)
                .and_then(|mut st| st.execute(params![before, limit]));
            changed += self.read(r).unwrap_or(0);
        }
        changed
    }

    fn put_delivery(&mut self, delivery: Delivery) {
        let json = self.encode(&delivery);
        self.write(
            "INSERT INTO deliveries (id, status, next_attempt_at, webhook_id, created_at, json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET status = excluded.status,
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
        self.query_json(
            "SELECT json FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?1
             ORDER BY next_attempt_at, id LIMIT ?2",
            &[&now, &i64::try_from(DELIVERY_BATCH).unwrap_or(i64::MAX)],
        )
    }

    fn delivery(&self, id: &str) -> Option<Delivery> {
        self.one_json("SELECT json FROM deliveries WHERE id = ?1", &[&id])
    }

    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        let total = self
            .read(self.conn.query_row(
                "SELECT COUNT(*) FROM deliveries WHERE webhook_id = ?1",
                [webhook_id],
                |r| r.get::<_, i64>(0),
            ))
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let items = self.query_json(
            "SELECT json FROM deliveries WHERE webhook_id = ?1
             ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3",
            &[&webhook_id, &limit, &offset],
        );
        (items, total)
    }

    fn put_email(&mut self, message: EmailMessage) {
        let json = self.encode(&message);
        self.write(
            "INSERT INTO emails (id, invoice_id, status, next_attempt_at, created_at, json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
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
            "SELECT json FROM emails WHERE status = 'pending' AND next_attempt_at <= ?1
             ORDER BY next_attempt_at, id LIMIT ?2",
            &[&now, &i64::try_from(DELIVERY_BATCH).unwrap_or(i64::MAX)],
        )
    }

    fn email(&self, id: &str) -> Option<EmailMessage> {
        self.one_json("SELECT json FROM emails WHERE id = ?1", &[&id])
    }

    fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage> {
        self.query_json(
            "SELECT json FROM emails WHERE invoice_id = ?1 ORDER BY created_at, id",
            &[&invoice_id],
        )
    }

    fn smtp_settings(&self, account_id: &str, env: Environment) -> Option<SmtpAccountSettings> {
        self.one_json(
            "SELECT json FROM smtp_settings WHERE account_id = ?1 AND environment = ?2",
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
                "DELETE FROM smtp_settings WHERE account_id = ?1 AND environment = ?2",
                &[&account_id, &env.as_str()],
            );
            return;
        };
        let json = self.encode(settings);
        self.write(
            "INSERT INTO smtp_settings (account_id, environment, updated_at, json) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(account_id, environment) DO UPDATE SET updated_at = excluded.updated_at, json = excluded.json",
            &[&account_id, &env.as_str(), &settings.updated_at, &json],
        );
    }

    // Panel records live in `meta` under a `panel:` prefix (no schema change; the host's own keys have no prefix).
    fn panel_record(&self, key: &str) -> Option<String> {
        self.meta(&format!("panel:{key}"))
    }

    fn put_panel_record(&mut self, key: &str, value: Option<&str>) {
        let key = format!("panel:{key}");
        match value {
            Some(v) => self.set_meta(&key, v),
            None => self.write("DELETE FROM meta WHERE key = ?1", &[&key]),
        }
    }
}

mod host;

#[cfg(test)]
mod tests;

//! [`Backend`]: the store a server runs on, SQLite (one node, the default) or PostgreSQL (`--database`, any number
//! of nodes). Both are the core's [`Store`]; the host-side extras (transactions, meta, certificates) are the same
//! calls on either, so the engine does not care which one it holds.

use crate::faults::StoreError;
use crate::pg::PgStore;
use crate::store::SqliteStore;
use kuatia_core::numbering::{Gap, NumberingKey};
use kuatia_core::Finding;
use kuatia_service::auth::{Environment, StoredKey};
use kuatia_service::webhook::{Delivery, Webhook};
use kuatia_service::{Account, HttpResponse, InvoiceQuery, InvoiceRecord, Store};
use sha2::{Digest, Sha256};

/// Meta key that changes with every stored certificate, so engines know when to reload the accounts' signers.
pub const CERTIFICATES_META: &str = "certificates_changed";

/// SQLite or PostgreSQL.
// One per engine, made once at start: the size of the SQLite variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Backend {
    /// One SQLite file (`--data DIR`).
    Sqlite(SqliteStore),
    /// A shared PostgreSQL database (`--database postgres://…`).
    Postgres(Box<PgStore>),
}

macro_rules! each {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Backend::Sqlite($s) => $e,
            Backend::Postgres($s) => $e,
        }
    };
}

impl Backend {
    /// Starts a request's transaction.
    pub fn begin(&mut self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(s) => s.begin(),
            Backend::Postgres(s) => s.begin(),
        }
    }

    /// Commits it, or rolls it back when a statement failed.
    pub fn finish(&mut self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(s) => s.finish(),
            Backend::Postgres(s) => s.finish(),
        }
    }

    /// Leaves WAL checkpoints to a [`crate::store::Checkpointer`] (SQLite; PostgreSQL checkpoints by itself).
    pub fn defer_checkpoints(&self) -> Result<(), String> {
        match self {
            Backend::Sqlite(s) => s.defer_checkpoints(),
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Rolls the transaction back.
    pub fn rollback(&mut self) {
        match self {
            Backend::Sqlite(s) => s.rollback(),
            Backend::Postgres(s) => s.rollback(),
        }
    }

    /// Marks where one request of a group commit starts.
    pub fn savepoint(&mut self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(s) => s.savepoint(),
            Backend::Postgres(s) => s.savepoint(),
        }
    }

    /// Keeps the request's writes for the group's commit.
    pub fn release(&mut self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(s) => s.release(),
            Backend::Postgres(s) => s.release(),
        }
    }

    /// Drops the request's writes, keeping the group's others.
    pub fn rollback_request(&mut self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(s) => s.rollback_request(),
            Backend::Postgres(s) => s.rollback_request(),
        }
    }

    /// The first statement error since the last call, if any.
    pub fn take_error(&self) -> Option<StoreError> {
        match self {
            Backend::Sqlite(s) => s.take_error(),
            Backend::Postgres(s) => s.take_error(),
        }
    }

    /// A host setting.
    pub fn meta(&self, key: &str) -> Option<String> {
        each!(self, s => s.meta(key))
    }

    /// Sets a host setting.
    pub fn set_meta(&mut self, key: &str, value: &str) {
        each!(self, s => s.set_meta(key, value))
    }

    /// Stores (or replaces) an account's production P12 and the name of its password's environment variable.
    pub fn put_certificate(
        &mut self,
        account_id: &str,
        p12: &[u8],
        password_env: &str,
        subject: &str,
        not_after: &str,
    ) {
        each!(self, s => s.put_certificate(account_id, p12, password_env, subject, not_after));
        // Other engines (another node, a `kuatia accounts set-p12` while serving) see the marker change and reload.
        let mut h = Sha256::new();
        for part in [account_id.as_bytes(), p12, password_env.as_bytes()] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part);
        }
        self.set_meta(CERTIFICATES_META, &kuatia_service::auth::hex(&h.finalize()));
    }

    /// Every stored production certificate: `(account_id, p12, password_env)`.
    pub fn certificates(&self) -> Vec<(String, Vec<u8>, String)> {
        each!(self, s => s.certificates())
    }

    /// Number of stored invoices (all accounts).
    pub fn invoice_count(&self) -> usize {
        each!(self, s => s.invoice_count())
    }

    /// Serialises one-time setup (the first account) across the nodes of a shared database until the transaction
    /// ends; SQLite's write lock already does.
    pub fn lock_setup(&mut self) {
        if let Backend::Postgres(s) = self {
            s.lock_setup();
        }
    }

    /// Whether several nodes may share this store (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        matches!(self, Backend::Postgres(_))
    }
}

impl Store for Backend {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        each!(self, s => s.find_key(key_id))
    }
    fn account(&self, id: &str) -> Option<Account> {
        each!(self, s => s.account(id))
    }
    fn put_account(&mut self, account: Account) {
        each!(self, s => s.put_account(account))
    }
    fn insert_invoice(&mut self, invoice: InvoiceRecord) {
        each!(self, s => s.insert_invoice(invoice))
    }
    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        each!(self, s => s.invoice(account_id, id))
    }
    fn invoice_state(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        each!(self, s => s.invoice_state(account_id, id))
    }
    fn invoice_for_update(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        each!(self, s => s.invoice_for_update(account_id, id))
    }
    fn update_invoice(&mut self, invoice: InvoiceRecord) {
        each!(self, s => s.update_invoice(invoice))
    }
    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize) {
        each!(self, s => s.list_invoices(account_id, env, query))
    }
    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        each!(self, s => s.simulated_in_flight())
    }
    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        each!(self, s => s.sifen_due(now, limit))
    }
    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        each!(self, s => s.insert_webhook(account_id, env, webhook))
    }
    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        each!(self, s => s.webhooks(account_id, env))
    }
    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook> {
        each!(self, s => s.webhook(account_id, env, id))
    }
    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        each!(self, s => s.update_webhook(account_id, env, webhook))
    }
    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool {
        each!(self, s => s.delete_webhook(account_id, env, id))
    }
    fn accounts(&self) -> Vec<Account> {
        each!(self, s => s.accounts())
    }
    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        each!(self, s => s.reserve_number(account_id, env, key))
    }
    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        each!(self, s => s.confirm_number(account_id, env, key, numero, cdc))
    }
    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        each!(self, s => s.number_gaps(account_id, env))
    }
    fn idempotent(
        &self,
        account_id: &str,
        env: Environment,
        key: &str,
    ) -> Option<(String, HttpResponse)> {
        each!(self, s => s.idempotent(account_id, env, key))
    }
    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        body_hash: String,
        response: HttpResponse,
    ) {
        each!(self, s => s.put_idempotent(account_id, env, key, body_hash, response))
    }
    fn put_delivery(&mut self, delivery: Delivery) {
        each!(self, s => s.put_delivery(delivery))
    }
    fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        each!(self, s => s.due_deliveries(now))
    }
    fn delivery(&self, id: &str) -> Option<Delivery> {
        each!(self, s => s.delivery(id))
    }
    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        each!(self, s => s.webhook_deliveries(webhook_id, offset, limit))
    }
    fn panel_record(&self, key: &str) -> Option<String> {
        each!(self, s => s.panel_record(key))
    }
    fn put_panel_record(&mut self, key: &str, value: Option<&str>) {
        each!(self, s => s.put_panel_record(key, value))
    }
}

//! [`Backend`]: the store a server runs on, SQLite (one node, the default) or PostgreSQL (`--database`, any number
//! of nodes), as one trait object. Both are the core's [`Store`] and a [`HostStore`] (transactions, meta,
//! certificates), so the engine does not care which one it holds; what only one engine does (SQLite's readers and
//! checkpoints, PostgreSQL's setup lock) is a provided method the other leaves as it is.

use crate::faults::StoreError;
use kuatia_service::Store;
use sha2::{Digest, Sha256};

/// Meta key that changes with every stored certificate, so engines know when to reload the accounts' signers.
pub const CERTIFICATES_META: &str = "certificates_changed";

/// An account's production certificate as stored: the P12, the name of the environment variable holding its
/// password at start, and `subject` and `not_after` for listings.
#[derive(Debug, Clone, Copy)]
pub struct CertificateRow<'a> {
    /// The account.
    pub account_id: &'a str,
    /// The PKCS#12 file.
    pub p12: &'a [u8],
    /// The environment variable holding its password.
    pub password_env: &'a str,
    /// The certificate's subject.
    pub subject: &'a str,
    /// The end of its validity (RFC 3339).
    pub not_after: &'a str,
}

impl<'a> CertificateRow<'a> {
    /// The columns in statement order: account, P12, password variable, subject, not-after.
    pub fn fields(&self) -> (&'a str, &'a [u8], &'a str, &'a str, &'a str) {
        (
            self.account_id,
            self.p12,
            self.password_env,
            self.subject,
            self.not_after,
        )
    }
}

/// What `GET /metrics` reads of the store at each scrape ([`HostStore::backlog`]): three statements, each served
/// by an index (no scan of the records), the same on both stores but for the in-flight flag's type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Invoices by `(environment, status)`: how many.
    pub invoices: Vec<(String, String, i64)>,
    /// Invoices waiting for SIFEN (the simulated one's in flight, or a SIFEN step due) by `(environment, status)`:
    /// the oldest one's `created_at` (Unix time).
    pub oldest_waiting: Vec<(String, String, i64)>,
    /// Webhook deliveries still pending: how many, and the oldest one's first due time.
    pub pending_deliveries: (i64, Option<i64>),
}

impl Backlog {
    /// [`Backlog::invoices`] from rows per account (`BACKLOG_COUNTS`), summed by environment and status.
    pub fn sum_counts(rows: Vec<(String, String, i64)>) -> Vec<(String, String, i64)> {
        let mut sums = std::collections::BTreeMap::<(String, String), i64>::new();
        for (env, status, n) in rows {
            *sums.entry((env, status)).or_default() += n;
        }
        sums.into_iter().map(|((e, s), n)| (e, s, n)).collect()
    }
}

/// Invoices counted per account, environment and status: the order of the `invoices_by_status` index, which covers
/// it (a scan of the index, no temporary sort); [`Backlog::sum_counts`] sums the accounts.
pub const BACKLOG_COUNTS: &str =
    "SELECT environment, status, COUNT(*) FROM invoices GROUP BY account_id, environment, status";
/// The oldest invoice waiting for SIFEN per environment and status, through the two partial indexes of the
/// background work (`{in_flight}`: the dialect's test of the flag).
pub const BACKLOG_WAITING: &str = "SELECT environment, status, MIN(created_at) FROM (
         SELECT environment, status, created_at FROM invoices WHERE {in_flight}
         UNION ALL SELECT environment, status, created_at FROM invoices WHERE sifen_due_at IS NOT NULL) w
     WHERE status IN ('pending', 'sent') GROUP BY environment, status";
/// The pending webhook deliveries (the `deliveries_due` partial index): how many, and the oldest.
pub const BACKLOG_DELIVERIES: &str =
    "SELECT COUNT(*), MIN(created_at) FROM deliveries WHERE status = 'pending'";

/// SQLite or PostgreSQL, chosen once at start.
pub type Backend = Box<dyn HostStore>;

/// What the server needs of a store besides the core's [`Store`]: one transaction per request (with a savepoint per
/// request of a group commit), the first failed statement, host settings and production certificates.
pub trait HostStore: Store + Send + std::fmt::Debug {
    /// Starts a request's transaction.
    fn begin(&mut self) -> Result<(), StoreError>;
    /// Commits it, or rolls it back when a statement failed.
    fn finish(&mut self) -> Result<(), StoreError>;
    /// Rolls the transaction back.
    fn rollback(&mut self);
    /// Marks where one request of a group commit starts.
    fn savepoint(&mut self) -> Result<(), StoreError>;
    /// Keeps the request's writes for the group's commit.
    fn release(&mut self) -> Result<(), StoreError>;
    /// Drops the request's writes, keeping the group's others.
    fn rollback_request(&mut self) -> Result<(), StoreError>;
    /// The first statement error since the last call, if any.
    fn take_error(&self) -> Option<StoreError>;
    /// A host setting.
    fn meta(&self, key: &str) -> Option<String>;
    /// Sets a host setting.
    fn set_meta(&mut self, key: &str, value: &str);
    /// Stores (or replaces) an account's production P12 row (see [`HostStore::put_certificate`]).
    fn put_certificate_row(&mut self, row: &CertificateRow<'_>);
    /// Every stored production certificate: `(account_id, p12, password_env)`.
    fn certificates(&self) -> Vec<(String, Vec<u8>, String)>;
    /// Number of stored invoices (all accounts).
    fn invoice_count(&self) -> usize;
    /// Invoices and webhook deliveries counted by state, with the oldest of each (`GET /metrics`).
    fn backlog(&self) -> Result<Backlog, StoreError>;

    /// Leaves WAL checkpoints to a [`crate::store::Checkpointer`] (SQLite; PostgreSQL checkpoints by itself).
    fn defer_checkpoints(&self) -> Result<(), String> {
        Ok(())
    }

    /// Serialises one-time setup (the first account) across the nodes of a shared database until the transaction
    /// ends; SQLite's write lock already does.
    fn lock_setup(&mut self) {}

    /// Whether several nodes may share this store (PostgreSQL).
    fn is_shared(&self) -> bool {
        false
    }

    /// The store as [`Any`](std::any::Any), so what only one engine has can be reached by its type
    /// (`<dyn HostStore>::as_sqlite`: SQLite's readers and fault injection).
    fn as_any(&self) -> &dyn std::any::Any;

    /// [`HostStore::as_any`], mutable.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;

    /// Stores (or replaces) an account's production P12 and the name of its password's environment variable, and
    /// changes [`CERTIFICATES_META`]: other engines (another node, a `kuatia accounts set-p12` while serving) see
    /// the marker change and reload.
    fn put_certificate(
        &mut self,
        account_id: &str,
        p12: &[u8],
        password_env: &str,
        subject: &str,
        not_after: &str,
    ) {
        self.put_certificate_row(&CertificateRow {
            account_id,
            p12,
            password_env,
            subject,
            not_after,
        });
        let mut h = Sha256::new();
        for part in [account_id.as_bytes(), p12, password_env.as_bytes()] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part);
        }
        self.set_meta(CERTIFICATES_META, &kuatia_service::auth::hex(&h.finalize()));
    }
}

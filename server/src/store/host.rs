//! [`HostStore`] for [`SqliteStore`]: the transaction, savepoints, host settings and certificates of one SQLite database.

use super::*;
use crate::backend::CertificateRow;

impl HostStore for SqliteStore {
    /// Starts a write transaction (one per request, so a request's writes land together or not at all).
    fn begin(&mut self) -> Result<(), StoreError> {
        if !self.conn.is_autocommit() {
            // A previous holder left a transaction open (it cannot happen without a panic): drop its writes.
            self.rollback();
        }
        self.error.replace(None);
        if let Some(e) = self.injected() {
            return Err(e.into());
        }
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::from)?;
        if self.in_flight_stale {
            if let Err(e) = self.reload_in_flight() {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        Ok(())
    }

    /// Commits the transaction, or rolls it back when a statement failed since [`HostStore::begin`].
    fn finish(&mut self) -> Result<(), StoreError> {
        if let Some(e) = self.take_error() {
            self.rollback();
            return Err(e);
        }
        let commit = match self.injected() {
            Some(e) => Err(e),
            None => self.conn.execute_batch("COMMIT"),
        };
        if let Err(e) = commit {
            self.rollback();
            return Err(e.into());
        }
        Ok(())
    }

    /// Rolls the transaction back.
    fn rollback(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
        self.forget_auth();
        // Left as the rolled-back writes made it, the cache would hide invoices from the simulated SIFEN for good
        // (found by the fault-injection tests): when it cannot be rebuilt now, `begin` rebuilds it.
        if let Err(e) = self.reload_in_flight() {
            tracing::error!(error = %e, "reloading in-flight invoices failed; retried at the next transaction");
        }
    }

    /// Marks where one request of a group commit starts ([`crate::commit`]), inside the transaction.
    fn savepoint(&mut self) -> Result<(), StoreError> {
        self.exec("SAVEPOINT request").map_err(StoreError::from)
    }

    /// Keeps the request's writes (they commit with the group).
    fn release(&mut self) -> Result<(), StoreError> {
        self.exec("RELEASE request").map_err(StoreError::from)
    }

    /// Drops the request's writes, keeping the group's others.
    fn rollback_request(&mut self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("ROLLBACK TO request; RELEASE request")
            .map_err(StoreError::from)?;
        self.forget_auth();
        self.error.replace(None);
        // The in-flight cache followed the dropped writes.
        self.reload_in_flight()
    }

    /// The first statement error since the last call, if any.
    fn take_error(&self) -> Option<StoreError> {
        self.error.replace(None)
    }

    /// A host setting (e.g. the id of the account created on first start).
    fn meta(&self, key: &str) -> Option<String> {
        self.read(
            // Read once per transaction (the certificates marker): prepared once.
            self.conn
                .prepare_cached("SELECT value FROM meta WHERE key = ?1")
                .and_then(|mut st| st.query_row([key], |r| r.get(0)).optional()),
        )
        .flatten()
    }

    /// Sets a host setting.
    fn set_meta(&mut self, key: &str, value: &str) {
        let r = self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        );
        self.read(r);
    }

    /// Stores (or replaces) an account's production P12 with the name of the environment variable holding its
    /// password at start; `subject` and `not_after` are for listings.
    fn put_certificate_row(&mut self, row: &CertificateRow<'_>) {
        let (a, p, e, s, n) = row.fields();
        let t = time::OffsetDateTime::now_utc().unix_timestamp();
        let sql = schema::put_certificate(Dialect::Sqlite);
        self.write(&sql, &[&a, &p, &e, &s, &n, &t]);
    }

    /// Every stored production certificate: `(account_id, p12, password_env)`.
    fn certificates(&self) -> Vec<(String, Vec<u8>, String)> {
        let rows = self
            .conn
            .prepare_cached(
                "SELECT account_id, p12, password_env FROM certificates ORDER BY account_id",
            )
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            });
        self.read(rows).unwrap_or_default()
    }

    /// Number of stored invoices (all accounts), for logs and tests.
    fn invoice_count(&self) -> usize {
        self.read(
            self.conn
                .query_row("SELECT COUNT(*) FROM invoices", [], |r| r.get::<_, i64>(0)),
        )
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
    }

    fn backlog(&self) -> Result<crate::backend::Backlog, StoreError> {
        use crate::backend::{Backlog, BACKLOG_COUNTS, BACKLOG_DELIVERIES, BACKLOG_WAITING};
        let counts = self
            .conn
            .prepare_cached(BACKLOG_COUNTS)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let oldest_waiting = self
            .conn
            .prepare_cached(&BACKLOG_WAITING.replace("{in_flight}", "in_flight = 1"))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let pending_deliveries = self
            .conn
            .prepare_cached(BACKLOG_DELIVERIES)?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(Backlog {
            invoices: Backlog::sum_counts(counts),
            oldest_waiting,
            pending_deliveries,
        })
    }

    /// Leaves checkpoints to a [`Checkpointer`]: this connection checkpoints only when the WAL passes 64 MB (a
    /// checkpointer that stopped), not every 4 MB in the middle of a commit.
    fn defer_checkpoints(&self) -> Result<(), String> {
        self.conn
            .execute_batch("PRAGMA wal_autocheckpoint = 16384;")
            .map_err(|e| e.to_string())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl dyn HostStore {
    /// The SQLite store, when this is one (its readers and fault injection).
    pub fn as_sqlite(&self) -> Option<&SqliteStore> {
        self.as_any().downcast_ref()
    }

    /// The SQLite store, when this is one.
    pub fn as_sqlite_mut(&mut self) -> Option<&mut SqliteStore> {
        self.as_any_mut().downcast_mut()
    }
}

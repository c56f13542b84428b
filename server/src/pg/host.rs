//! [`HostStore`] for [`PgStore`]: the transaction, savepoints, host settings, certificates and setup lock of one
//! PostgreSQL connection.

use super::*;
use crate::backend::CertificateRow;

impl HostStore for PgStore {
    /// Starts the request's transaction (reconnecting first if the connection broke).
    fn begin(&mut self) -> Result<(), StoreError> {
        if self.in_transaction {
            // A previous holder left a transaction open (it cannot happen without a panic): drop its writes.
            self.rollback();
        }
        self.error.replace(None);
        if self.client.get_mut().as_ref().is_none_or(|c| c.is_closed()) {
            tracing::warn!("PostgreSQL connection lost; reconnecting");
            self.statements.get_mut().clear();
            *self.client.get_mut() = Some(connect(&self.options).map_err(StoreError::unreachable)?);
        }
        if let Err(e) = self.run(|c| c.batch_execute("BEGIN")) {
            // A connection that died while idle: reconnect once and try again.
            tracing::warn!(error = %e, "BEGIN failed; reconnecting");
            self.statements.get_mut().clear();
            *self.client.get_mut() = Some(connect(&self.options).map_err(StoreError::unreachable)?);
            self.run(|c| c.batch_execute("BEGIN"))?;
        }
        self.in_transaction = true;
        Ok(())
    }

    /// Commits, or rolls back when a statement failed since [`HostStore::begin`].
    fn finish(&mut self) -> Result<(), StoreError> {
        if let Some(e) = self.take_error() {
            self.rollback();
            return Err(e);
        }
        self.in_transaction = false;
        self.run(|c| c.batch_execute("COMMIT"))
    }

    /// Rolls the transaction back.
    fn rollback(&mut self) {
        self.in_transaction = false;
        let _ = self.run(|c| c.batch_execute("ROLLBACK"));
    }

    /// Marks where one request of a group commit starts ([`crate::commit`]), inside the transaction.
    fn savepoint(&mut self) -> Result<(), StoreError> {
        self.run(|c| c.batch_execute("SAVEPOINT request"))
    }

    /// Keeps the request's writes (they commit with the group).
    fn release(&mut self) -> Result<(), StoreError> {
        self.run(|c| c.batch_execute("RELEASE SAVEPOINT request"))
    }

    /// Drops the request's writes (and the transaction's failed state), keeping the group's others.
    fn rollback_request(&mut self) -> Result<(), StoreError> {
        self.error.replace(None);
        self.run(|c| c.batch_execute("ROLLBACK TO SAVEPOINT request; RELEASE SAVEPOINT request"))
    }

    /// The first statement error since the last call, if any.
    fn take_error(&self) -> Option<StoreError> {
        self.error.replace(None)
    }

    /// A host setting (e.g. the id of the account created on first start).
    fn meta(&self, key: &str) -> Option<String> {
        let rows = self.rows("SELECT value FROM meta WHERE key = $1", &[&key]);
        rows.first().and_then(|r| self.get(r, 0))
    }

    /// Sets a host setting.
    fn set_meta(&mut self, key: &str, value: &str) {
        self.write(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&key, &value],
        );
    }

    /// Stores (or replaces) an account's production P12 with the name of the environment variable holding its
    /// password at start.
    fn put_certificate_row(&mut self, row: &CertificateRow<'_>) {
        let (a, p, e, s, n) = row.fields();
        let t = time::OffsetDateTime::now_utc().unix_timestamp();
        let sql = schema::put_certificate(Dialect::Postgres);
        self.write(&sql, &[&a, &p, &e, &s, &n, &t]);
    }

    /// Every stored production certificate: `(account_id, p12, password_env)`.
    fn certificates(&self) -> Vec<(String, Vec<u8>, String)> {
        self.rows(
            "SELECT account_id, p12, password_env FROM certificates ORDER BY account_id",
            &[],
        )
        .iter()
        .filter_map(|r| Some((self.get(r, 0)?, self.get(r, 1)?, self.get(r, 2)?)))
        .collect()
    }

    /// Number of stored invoices (all accounts), for logs and tests.
    fn invoice_count(&self) -> usize {
        self.count("SELECT COUNT(*) FROM invoices", &[])
    }

    fn backlog(&self) -> Result<crate::backend::Backlog, StoreError> {
        use crate::backend::{Backlog, BACKLOG_COUNTS, BACKLOG_DELIVERIES, BACKLOG_WAITING};
        self.run(|c| {
            let triples = |rows: Vec<postgres::Row>| {
                rows.iter()
                    .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                    .collect::<Result<Vec<_>, postgres::Error>>()
            };
            let counts = triples(c.query(BACKLOG_COUNTS, &[])?)?;
            let waiting = BACKLOG_WAITING.replace("{in_flight}", "in_flight");
            let oldest_waiting = triples(c.query(&waiting, &[])?)?;
            let row = c.query_one(BACKLOG_DELIVERIES, &[])?;
            Ok(Backlog {
                invoices: Backlog::sum_counts(counts),
                oldest_waiting,
                pending_deliveries: (row.try_get(0)?, row.try_get(1)?),
            })
        })
    }

    /// Holds the setup lock until the transaction ends (nodes starting together create one first account).
    fn lock_setup(&mut self) {
        self.write(
            "SELECT pg_advisory_xact_lock($1)",
            &[&(schema::MIGRATION_LOCK + 1)],
        );
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

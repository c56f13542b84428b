//! The server's database schema, written once for both engines: the tables and indexes ([`TABLES`]), the migrations,
//! and the SQL that [`crate::SqliteStore`] and [`crate::pg::PgStore`] build from a query, with [`Dialect`] hooks
//! where SQLite and PostgreSQL spell a thing differently (`BLOB`/`BYTEA`, `?n`/`$n`, an autoincrement key, a boolean).
//!
//! **Versions.** The two engines' histories drifted before the schema was unified: SQLite recorded migrations 1-6
//! (the XML moved out of the record in 6), PostgreSQL 1-2 (the same move in 2). Both arrive at the same tables, so
//! each engine keeps its own old versions ([`LEGACY_SQLITE`], [`LEGACY_POSTGRES`], frozen: they only upgrade
//! databases made before) and every migration from [`FIRST_SHARED`] on is one [`SHARED`] entry, recorded under the
//! same version on both. A new, empty database gets [`TABLES`] at once and records every version, old ones included,
//! so an older build opening it finds nothing to do.

use kuatia_service::auth::Environment;
use kuatia_service::{HttpResponse, InvoiceQuery};

/// The SQL engine a statement is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (one node, the default).
    Sqlite,
    /// PostgreSQL (a database shared by several nodes).
    Postgres,
}

impl Dialect {
    /// The words of each hook in this engine.
    fn words(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Dialect::Sqlite => &[
                ("{serial}", "INTEGER PRIMARY KEY AUTOINCREMENT"),
                ("{int}", "INTEGER"),
                ("{small}", "INTEGER"),
                ("{bool}", "INTEGER"),
                ("{blob}", "BLOB"),
                ("{in_flight}", "in_flight = 1"),
                // SQLite numbers every row itself (`rowid`); PostgreSQL needs a column for the accounts' order.
                ("{accounts_seq}", ""),
                ("{accounts_tie}", "id"),
                // Migration 8: the status and the created invoice's id of a stored answer (its JSON).
                (
                    "{reply_status}",
                    "COALESCE(json_extract(response, '$.status'), 0)",
                ),
                (
                    "{reply_invoice}",
                    "CASE WHEN json_extract(response, '$.status') BETWEEN 200 AND 299
                          AND json_type(response, '$.body') = 'text'
                          AND json_valid(json_extract(response, '$.body'))
                     THEN json_extract(json_extract(response, '$.body'), '$.data.id') END",
                ),
                ("{idempotency_pkey_aside}", ""),
            ],
            Dialect::Postgres => &[
                ("{serial}", "BIGSERIAL PRIMARY KEY"),
                ("{int}", "BIGINT"),
                ("{small}", "SMALLINT"),
                ("{bool}", "BOOLEAN"),
                ("{blob}", "BYTEA"),
                ("{in_flight}", "in_flight"),
                ("{accounts_seq}", "seq BIGSERIAL, "),
                ("{accounts_tie}", "seq"),
                (
                    "{reply_status}",
                    "COALESCE((response::jsonb ->> 'status')::int, 0)",
                ),
                (
                    "{reply_invoice}",
                    "CASE WHEN (response::jsonb ->> 'status')::int BETWEEN 200 AND 299
                          AND jsonb_typeof(response::jsonb -> 'body') = 'string'
                     THEN (response::jsonb ->> 'body')::jsonb -> 'data' ->> 'id' END",
                ),
                // A renamed table keeps its primary key's index name, which the new table's needs.
                (
                    "{idempotency_pkey_aside}",
                    "ALTER INDEX idempotency_pkey RENAME TO idempotency_v2_pkey;",
                ),
            ],
        }
    }

    /// `template` in this engine's words.
    pub fn render(self, template: &str) -> String {
        self.words()
            .iter()
            .fold(template.to_string(), |sql, (hook, word)| {
                sql.replace(hook, word)
            })
    }

    /// The `n`th statement parameter (from 1): `?n` or `$n`.
    pub fn param(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!("?{n}"),
            Dialect::Postgres => format!("${n}"),
        }
    }

    /// The table recording which migrations ran (named apart in PostgreSQL, where the database may hold others').
    pub fn migrations_table(self) -> &'static str {
        match self {
            Dialect::Sqlite => "migrations",
            Dialect::Postgres => "kuatia_migrations",
        }
    }
}

/// Stores (or replaces) an account's production certificate; parameters `account_id, p12, password_env, subject,
/// not_after, stored_at`.
pub fn put_certificate(d: Dialect) -> String {
    let p: Vec<String> = (1..=6).map(|n| d.param(n)).collect();
    format!(
        "INSERT INTO certificates (account_id, p12, password_env, subject, not_after, stored_at)
         VALUES ({})
         ON CONFLICT (account_id) DO UPDATE SET p12 = excluded.p12, password_env = excluded.password_env,
             subject = excluded.subject, not_after = excluded.not_after, stored_at = excluded.stored_at",
        p.join(", ")
    )
}

/// The statements of [`kuatia_service::Store::expire_idempotent`], parameters `before, limit`: kept refusals
/// stored before `before` go whole, then created invoices' answers as old are dropped (the key, its hash, status and
/// invoice stay); each the oldest `limit` first, through the index `idempotency_expiring`.
pub fn expire_idempotent(d: Dialect) -> [String; 2] {
    let (before, limit) = (d.param(1), d.param(2));
    let due = |kind: &str| {
        format!(
            "(account_id, environment, key) IN (SELECT account_id, environment, key FROM idempotency
                 WHERE response IS NOT NULL AND stored_at < {before} AND {kind}
                 ORDER BY stored_at LIMIT {limit})"
        )
    };
    [
        format!(
            "DELETE FROM idempotency WHERE {}",
            due("invoice_id IS NULL AND status NOT BETWEEN 200 AND 299")
        ),
        format!(
            "UPDATE idempotency SET response = NULL WHERE {}",
            due("invoice_id IS NOT NULL")
        ),
    ]
}

/// The numbering contract's tables: the last number handed out per sequence and each reservation, a gap until its
/// CDC is confirmed (also the whole database of `kuatia issue`'s store, [`crate::numbering::SqliteNumbering`]).
pub const NUMBERING_TABLES: &str = "CREATE TABLE IF NOT EXISTS numbering (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         sequence TEXT NOT NULL,
         last {int} NOT NULL,
         PRIMARY KEY (account_id, environment, sequence));
     CREATE TABLE IF NOT EXISTS number_reservations (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         sequence TEXT NOT NULL,
         numero {int} NOT NULL,
         cdc TEXT,
         PRIMARY KEY (account_id, environment, sequence, numero));
     CREATE INDEX IF NOT EXISTS number_gaps ON number_reservations (account_id, environment) WHERE cdc IS NULL;";

/// The indexes of the background work (in-flight sandbox invoices, due SIFEN steps, due deliveries), each matching
/// the one query that reads it (shared migration 7 gave both engines these).
const WORK_INDEXES: &str = "CREATE INDEX invoices_in_flight ON invoices (id) WHERE {in_flight};
     CREATE INDEX invoices_sifen_due ON invoices (sifen_due_at, seq) WHERE sifen_due_at IS NOT NULL;
     CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';";

/// Every table and index as of the latest version. Records are the core's JSON (`json`) plus the columns the queries
/// need; an invoice's signed XML is kept apart (`invoice_xml`, written once at creation: the record changes with each
/// state, the XML never).
pub const TABLES: &str = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE accounts (id TEXT PRIMARY KEY, {accounts_seq}created_at {int} NOT NULL, json TEXT NOT NULL);
     CREATE INDEX accounts_by_created ON accounts (created_at, {accounts_tie});
     CREATE TABLE api_keys (key_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, json TEXT NOT NULL);
     CREATE INDEX api_keys_by_account ON api_keys (account_id);
     CREATE TABLE invoices (
         seq {serial},
         id TEXT NOT NULL UNIQUE,
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         in_flight {bool} NOT NULL,
         sifen_due_at {int},
         status TEXT NOT NULL,
         created_at {int} NOT NULL,
         cdc TEXT NOT NULL,
         numero TEXT NOT NULL,
         receptor_ruc TEXT,
         tipo_documento {small} NOT NULL,
         json TEXT NOT NULL);
     CREATE INDEX invoices_by_account ON invoices (account_id, environment, seq);
     CREATE INDEX invoices_by_status ON invoices (account_id, environment, status, seq);
     CREATE INDEX invoices_by_created ON invoices (account_id, environment, created_at);
     CREATE INDEX invoices_by_cdc ON invoices (cdc);
     CREATE INDEX invoices_by_numero ON invoices (account_id, environment, numero);
     CREATE INDEX invoices_by_receptor ON invoices (account_id, environment, receptor_ruc, seq);
     CREATE TABLE invoice_xml (seq {int} PRIMARY KEY, xml TEXT NOT NULL);
     CREATE TABLE webhooks (
         seq {serial},
         id TEXT NOT NULL UNIQUE,
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         json TEXT NOT NULL);
     CREATE INDEX webhooks_by_account ON webhooks (account_id, environment);
     CREATE TABLE idempotency (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         key TEXT NOT NULL,
         body_hash TEXT NOT NULL,
         status {int} NOT NULL,
         invoice_id TEXT,
         stored_at {int} NOT NULL,
         response TEXT,
         PRIMARY KEY (account_id, environment, key));
     CREATE INDEX idempotency_expiring ON idempotency (stored_at) WHERE response IS NOT NULL;
     CREATE TABLE deliveries (
         id TEXT PRIMARY KEY,
         status TEXT NOT NULL,
         next_attempt_at {int} NOT NULL,
         webhook_id TEXT NOT NULL,
         created_at {int} NOT NULL,
         json TEXT NOT NULL);
     CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);
     CREATE TABLE certificates (
         account_id TEXT PRIMARY KEY,
         p12 {blob} NOT NULL,
         password_env TEXT NOT NULL,
         subject TEXT NOT NULL,
         not_after TEXT NOT NULL,
         stored_at {int} NOT NULL);";

/// The e-mail outbox (issue 36): one row per message to a buyer, its record as JSON, the columns its two queries
/// read (the due ones, an invoice's). Shared migration 8 made it; a new database gets it with [`TABLES`].
const EMAIL_TABLES: &str = "CREATE TABLE emails (
         id TEXT PRIMARY KEY,
         invoice_id TEXT NOT NULL,
         status TEXT NOT NULL,
         next_attempt_at {int} NOT NULL,
         created_at {int} NOT NULL,
         json TEXT NOT NULL);
     CREATE INDEX emails_by_invoice ON emails (invoice_id, created_at, id);
     CREATE INDEX emails_due ON emails (next_attempt_at, id) WHERE status = 'pending'";

/// Each account's own SMTP settings per environment (issue 36, the panel's "Correo" page): the service's record as
/// JSON (the password in it sealed under `panel.key`). Shared migration 10 made it; a new database gets it at once.
const SMTP_TABLES: &str = "CREATE TABLE smtp_settings (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         updated_at {int} NOT NULL,
         json TEXT NOT NULL,
         PRIMARY KEY (account_id, environment))";

/// The first version both engines record alike.
pub const FIRST_SHARED: i64 = 7;

/// Migrations from [`FIRST_SHARED`] on, in order, once for both engines. A new one also changes [`TABLES`] (or what
/// it includes): a new database runs none of them, it gets [`TABLES`]. The old-database tests (`store/tests.rs`,
/// `tests/pg.rs`) check that a migrated database and a new one have the same columns and indexes.
pub const SHARED: &[(i64, &str)] = &[
    (
        7,
        // The background work's indexes in one shape (they differed: SQLite's served no ORDER BY, PostgreSQL's
        // in-flight index ordered by `seq` while the scan reads in id order).
        "DROP INDEX IF EXISTS invoices_in_flight;
         DROP INDEX IF EXISTS invoices_sifen_due;
         DROP INDEX IF EXISTS deliveries_due;
         {work_indexes}",
    ),
    (
        8,
        // Idempotency keys outlive their stored answer (issue 33; docs/operations.md, "Idempotency keys"): each key
        // keeps its answer's status, the invoice it created and when, and the answer only until the sweep drops it
        // (`response` NULL). A kept answer gets its status and invoice from its JSON, and its invoice's creation
        // time; a kept refusal gets time 0 (forgotten at the first sweep); a 2xx whose invoice is not found gets no
        // invoice and keeps its body (it could not be rebuilt).
        "{idempotency_pkey_aside}
         ALTER TABLE idempotency RENAME TO idempotency_v2;
         CREATE TABLE idempotency (
             account_id TEXT NOT NULL,
             environment TEXT NOT NULL,
             key TEXT NOT NULL,
             body_hash TEXT NOT NULL,
             status {int} NOT NULL,
             invoice_id TEXT,
             stored_at {int} NOT NULL,
             response TEXT,
             PRIMARY KEY (account_id, environment, key));
         INSERT INTO idempotency (account_id, environment, key, body_hash, status, invoice_id, stored_at, response)
             SELECT account_id, environment, key, body_hash, {reply_status}, {reply_invoice}, 0, response
             FROM idempotency_v2;
         UPDATE idempotency SET invoice_id = NULL
             WHERE invoice_id IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.id = idempotency.invoice_id);
         UPDATE idempotency
             SET stored_at = (SELECT i.created_at FROM invoices i WHERE i.id = idempotency.invoice_id)
             WHERE invoice_id IS NOT NULL;
         DROP TABLE idempotency_v2;
         CREATE INDEX idempotency_expiring ON idempotency (stored_at) WHERE response IS NOT NULL;",
    ),
    // The e-mail outbox (issue 36).
    (9, "{email_tables}"),
    // Per-account SMTP settings (issue 36).
    (10, "{smtp_tables}"),
];

/// SQLite's own history before the schema was unified (only databases made before run them; version 1 made the
/// first tables, which any such database has). Migration 3 also runs [`NUMBERING_TABLES`] and moves the stored
/// replies to their environment ([`migrate_sqlite`]).
pub const LEGACY_SQLITE: &[(i64, &str)] = &[
    (
        2,
        // Production transmission to SIFEN (the due time of each invoice's next step) and the delivery log.
        "ALTER TABLE invoices ADD COLUMN sifen_due_at INTEGER;
         CREATE INDEX invoices_sifen_due ON invoices (sifen_due_at) WHERE sifen_due_at IS NOT NULL;
         ALTER TABLE deliveries ADD COLUMN webhook_id TEXT NOT NULL DEFAULT '';
         ALTER TABLE deliveries ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
         UPDATE deliveries SET webhook_id = json_extract(json, '$.webhook_id'),
                               created_at = json_extract(json, '$.first_due_at');
         CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);",
    ),
    (
        3,
        // Idempotency keys scoped by environment.
        "ALTER TABLE idempotency RENAME TO idempotency_v1;
         CREATE TABLE idempotency (
             account_id TEXT NOT NULL,
             environment TEXT NOT NULL,
             key TEXT NOT NULL,
             body_hash TEXT NOT NULL,
             response TEXT NOT NULL,
             PRIMARY KEY (account_id, environment, key));",
    ),
    (
        4,
        // Listing filters (issue 16): the filtered fields as columns, filled from the stored JSON. Rows stored before
        // have no receiver RUC column value, so the `receptor_ruc` filter does not find them.
        "ALTER TABLE invoices ADD COLUMN status TEXT NOT NULL DEFAULT '';
         ALTER TABLE invoices ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE invoices ADD COLUMN cdc TEXT NOT NULL DEFAULT '';
         ALTER TABLE invoices ADD COLUMN numero TEXT NOT NULL DEFAULT '';
         ALTER TABLE invoices ADD COLUMN receptor_ruc TEXT;
         ALTER TABLE invoices ADD COLUMN tipo_documento INTEGER NOT NULL DEFAULT 0;
         UPDATE invoices SET status = json_extract(json, '$.status'),
                             created_at = json_extract(json, '$.created_at'),
                             cdc = json_extract(json, '$.cdc'),
                             numero = json_extract(json, '$.numero'),
                             receptor_ruc = json_extract(json, '$.receptor_ruc'),
                             tipo_documento = json_extract(json, '$.tipo_documento');
         CREATE INDEX invoices_by_status ON invoices (account_id, environment, status, seq);
         CREATE INDEX invoices_by_created ON invoices (account_id, environment, created_at);
         CREATE INDEX invoices_by_cdc ON invoices (cdc);
         CREATE INDEX invoices_by_numero ON invoices (account_id, environment, numero);
         CREATE INDEX invoices_by_receptor ON invoices (account_id, environment, receptor_ruc, seq);",
    ),
    (
        5,
        // Accounts in creation order and each account's production certificate (the P12 as given and the name of
        // the environment variable holding its password: the password is never stored).
        "ALTER TABLE accounts ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
         UPDATE accounts SET created_at = COALESCE(json_extract(json, '$.created_at'), 0);
         CREATE INDEX accounts_by_created ON accounts (created_at, id);
         CREATE INDEX api_keys_by_account ON api_keys (account_id);
         CREATE TABLE certificates (
             account_id TEXT PRIMARY KEY,
             p12 BLOB NOT NULL,
             password_env TEXT NOT NULL,
             subject TEXT NOT NULL,
             not_after TEXT NOT NULL,
             stored_at INTEGER NOT NULL);",
    ),
    (
        6,
        // The signed XML apart from the rest of the record (issue 15). `seq` is the invoice's row id.
        "CREATE TABLE invoice_xml (seq INTEGER PRIMARY KEY, xml TEXT NOT NULL);
         INSERT INTO invoice_xml (seq, xml) SELECT seq, json_extract(json, '$.xml') FROM invoices;
         UPDATE invoices SET json = json_set(json, '$.xml', '');",
    ),
];

/// PostgreSQL's own history before the schema was unified (version 1 made every table but `invoice_xml`).
pub const LEGACY_POSTGRES: &[(i64, &str)] = &[(
    2,
    // The signed XML apart from the record, written once (as SQLite's migration 6).
    "CREATE TABLE invoice_xml (seq BIGINT PRIMARY KEY, xml TEXT NOT NULL);
     INSERT INTO invoice_xml (seq, xml) SELECT seq, json::jsonb ->> 'xml' FROM invoices;
     UPDATE invoices SET json = jsonb_set(json::jsonb, '{xml}', '\"\"')::text;",
)];

/// One step of [`plan`]: a script run in one transaction, then its versions recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The versions it records.
    pub versions: Vec<i64>,
    /// The script.
    pub sql: String,
}

impl Dialect {
    /// This engine's versions before [`FIRST_SHARED`] (version 1 first).
    fn legacy(self) -> &'static [(i64, &'static str)] {
        match self {
            Dialect::Sqlite => LEGACY_SQLITE,
            Dialect::Postgres => LEGACY_POSTGRES,
        }
    }

    /// A shared migration's script in this engine's words.
    fn shared(self, sql: &str) -> String {
        self.render(
            &sql.replace("{work_indexes}", WORK_INDEXES)
                .replace("{email_tables}", EMAIL_TABLES)
                .replace("{smtp_tables}", SMTP_TABLES),
        )
    }
}

/// What brings a database whose migrations table lists `recorded` up to date, in order: for an empty database the
/// whole [`TABLES`] at once, recording every version; else each missing old version of its engine, then each missing
/// shared one.
pub fn plan(dialect: Dialect, recorded: &[i64]) -> Vec<Step> {
    let shared = SHARED.iter().map(|(v, sql)| (*v, dialect.shared(sql)));
    if recorded.is_empty() {
        let mut versions = vec![1];
        versions.extend(dialect.legacy().iter().map(|(v, _)| *v));
        versions.extend(SHARED.iter().map(|(v, _)| *v));
        let sql = format!(
            "{};\n{};\n{};\n{};\n{}",
            dialect.render(TABLES),
            dialect.render(NUMBERING_TABLES),
            dialect.render(WORK_INDEXES),
            dialect.render(EMAIL_TABLES),
            dialect.render(SMTP_TABLES)
        );
        return vec![Step { versions, sql }];
    }
    dialect
        .legacy()
        .iter()
        .map(|(v, sql)| (*v, sql.to_string()))
        .chain(shared)
        .filter(|(v, _)| !recorded.contains(v))
        .map(|(v, sql)| Step {
            versions: vec![v],
            sql,
        })
        .collect()
}

/// A value bound to a statement built from a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Text.
    Text(String),
    /// A whole number (`{int}`).
    Int(i64),
    /// A small whole number (`{small}`: PostgreSQL's driver binds only an `i16` to a `SMALLINT`).
    Small(i16),
}

impl Arg {
    /// As SQLite binds it.
    pub fn sqlite(&self) -> &dyn rusqlite::ToSql {
        match self {
            Arg::Text(t) => t,
            Arg::Int(n) => n,
            Arg::Small(n) => n,
        }
    }

    /// As PostgreSQL binds it.
    pub fn postgres(&self) -> &(dyn postgres::types::ToSql + Sync) {
        match self {
            Arg::Text(t) => t,
            Arg::Int(n) => n,
            Arg::Small(n) => n,
        }
    }
}

/// The statements of [`kuatia_service::Store::list_invoices`] for one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Counts the rows the filters match (bound to the first `count_args` of `args`).
    pub count: String,
    /// Reads the page (bound to all of `args`).
    pub page: String,
    /// The values, in parameter order.
    pub args: Vec<Arg>,
    /// How many of `args` the count takes.
    pub count_args: usize,
}

/// [`Listing`] for a query: the filters of [`InvoiceQuery::matches`] over the columns, then the cursor, the order
/// and the page. `select` is the start of the page's statement (its columns; `FROM invoices` follows).
pub fn list_invoices(
    dialect: Dialect,
    select: &str,
    account_id: &str,
    env: Environment,
    query: &InvoiceQuery,
) -> Listing {
    let mut args = vec![Arg::Text(account_id.into()), Arg::Text(env.as_str().into())];
    let mut filter = format!(
        "account_id = {} AND environment = {}",
        dialect.param(1),
        dialect.param(2)
    );
    let mut add = |column: &str, op: &str, v: Arg| {
        args.push(v);
        filter.push_str(&format!(" AND {column} {op} {}", dialect.param(args.len())));
    };
    if let Some(s) = query.status {
        add("status", "=", Arg::Text(s.as_str().into()));
    }
    if let Some(t) = query.created_from {
        add("created_at", ">=", Arg::Int(t));
    }
    if let Some(t) = query.created_to {
        add("created_at", "<", Arg::Int(t));
    }
    if let Some(c) = &query.cdc {
        add("cdc", "=", Arg::Text(c.clone()));
    }
    if let Some(n) = &query.numero {
        add("numero", "=", Arg::Text(n.clone()));
    }
    if let Some(r) = &query.receptor_ruc {
        add("receptor_ruc", "=", Arg::Text(r.clone()));
    }
    if let Some(t) = query.tipo_documento {
        add("tipo_documento", "=", Arg::Small(i16::from(t)));
    }
    let count = format!("SELECT COUNT(*) FROM invoices WHERE {filter}");
    let count_args = args.len();
    let (cmp, order) = if query.ascending {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    if let Some(after) = &query.starting_after {
        args.push(Arg::Text(after.clone()));
        filter.push_str(&format!(
            " AND seq {cmp} (SELECT seq FROM invoices WHERE id = {})",
            dialect.param(args.len())
        ));
    }
    args.push(Arg::Int(i64::try_from(query.limit).unwrap_or(i64::MAX)));
    args.push(Arg::Int(i64::try_from(query.offset).unwrap_or(i64::MAX)));
    let page = format!(
        "{select} FROM invoices WHERE {filter} ORDER BY seq {order} LIMIT {} OFFSET {}",
        dialect.param(args.len() - 1),
        dialect.param(args.len())
    );
    Listing {
        count,
        page,
        args,
        count_args,
    }
}

/// Brings a SQLite database up to date ([`plan`]), each step in one `BEGIN IMMEDIATE` transaction.
pub fn migrate_sqlite(conn: &rusqlite::Connection) -> Result<(), String> {
    let d = Dialect::Sqlite;
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {} (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);",
        d.migrations_table()
    ))
    .map_err(|e| e.to_string())?;
    let recorded: Vec<i64> = conn
        .prepare("SELECT version FROM migrations")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .map_err(|e| e.to_string())?;
    for step in plan(d, &recorded) {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let apply = || -> Result<(), String> {
            let fail = |e: rusqlite::Error| e.to_string();
            conn.execute_batch(&format!("BEGIN IMMEDIATE; {};", step.sql))
                .map_err(fail)?;
            if step.versions == [3] {
                conn.execute_batch(&d.render(NUMBERING_TABLES))
                    .map_err(fail)?;
                scope_idempotency(conn).map_err(fail)?;
            }
            for v in &step.versions {
                conn.execute(
                    "INSERT INTO migrations (version, applied_at) VALUES (?1, ?2)",
                    [v, &now],
                )
                .map_err(fail)?;
            }
            conn.execute_batch("COMMIT").map_err(fail)
        };
        apply().map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            format!("migration {:?}: {e}", step.versions)
        })?;
    }
    Ok(())
}

/// SQLite's migration 3: each stored reply gets the environment of the invoice it created; a reply that created
/// nothing (a 422) is kept for both environments, where replaying it is harmless.
fn scope_idempotency(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let rows: Vec<(String, String, String, String)> = conn
        .prepare("SELECT account_id, key, body_hash, response FROM idempotency_v1")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (account, key, hash, response) in rows {
        let invoice_id = serde_json::from_str::<HttpResponse>(&response)
            .ok()
            .and_then(|r| {
                r.json()
                    .pointer("/data/id")
                    .and_then(|v| v.as_str().map(String::from))
            });
        let env: Option<String> = match invoice_id {
            Some(id) => rusqlite::OptionalExtension::optional(conn.query_row(
                "SELECT environment FROM invoices WHERE id = ?1",
                [&id],
                |r| r.get(0),
            ))?,
            None => None,
        };
        let envs = match env {
            Some(e) => vec![e],
            None => vec!["sandbox".to_string(), "production".to_string()],
        };
        for e in envs {
            conn.execute(
                "INSERT OR IGNORE INTO idempotency (account_id, environment, key, body_hash, response)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![account, e, key, hash, response],
            )?;
        }
    }
    conn.execute_batch("DROP TABLE idempotency_v1")
}

/// Key of the session advisory lock held while migrating PostgreSQL (any constant; "kuatia" in ASCII). The setup
/// lock is the next key.
pub const MIGRATION_LOCK: i64 = 0x6b75_6174_6961;

/// Brings a PostgreSQL database up to date ([`plan`]), each step in one transaction, under a session advisory lock:
/// nodes starting together migrate once.
pub fn migrate_postgres(c: &mut postgres::Client) -> Result<(), postgres::Error> {
    c.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
    let run = (|| -> Result<(), postgres::Error> {
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS kuatia_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )?;
        let recorded: Vec<i64> = c
            .query("SELECT version FROM kuatia_migrations", &[])?
            .iter()
            .map(|r| r.try_get::<_, i32>(0).map(i64::from))
            .collect::<Result<_, _>>()?;
        for step in plan(Dialect::Postgres, &recorded) {
            let now = time::OffsetDateTime::now_utc().unix_timestamp();
            let mut tx = c.transaction()?;
            tx.batch_execute(&step.sql)?;
            for v in &step.versions {
                let v = i32::try_from(*v).unwrap_or(i32::MAX);
                tx.execute(
                    "INSERT INTO kuatia_migrations (version, applied_at) VALUES ($1, $2)",
                    &[&v, &now],
                )?;
            }
            tx.commit()?;
            tracing::info!(versions = ?step.versions, "PostgreSQL migration applied");
        }
        Ok(())
    })();
    let unlock = c.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    run?;
    unlock.map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hook_has_a_word_in_both_engines() {
        for d in [Dialect::Sqlite, Dialect::Postgres] {
            for sql in [TABLES, NUMBERING_TABLES, WORK_INDEXES]
                .into_iter()
                .map(|t| d.render(t))
                .chain(SHARED.iter().map(|(_, t)| d.shared(t)))
            {
                assert!(!sql.contains('{'), "{d:?}: {sql}");
            }
        }
    }

    #[test]
    fn a_new_database_records_every_version_and_an_old_one_runs_what_it_misses() {
        let fresh = plan(Dialect::Sqlite, &[]);
        assert_eq!(fresh.len(), 1);
        assert_eq!(fresh[0].versions, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(
            plan(Dialect::Postgres, &[])[0].versions,
            [1, 2, 7, 8, 9, 10]
        );
        let steps = |d, r: &[i64]| -> Vec<Vec<i64>> {
            plan(d, r).into_iter().map(|s| s.versions).collect()
        };
        assert_eq!(
            steps(Dialect::Sqlite, &[1, 2, 3]),
            [[4], [5], [6], [7], [8], [9], [10]]
        );
        assert_eq!(
            steps(Dialect::Sqlite, &[1, 2, 3, 4, 5, 6]),
            [[7], [8], [9], [10]]
        );
        assert_eq!(steps(Dialect::Postgres, &[1]), [[2], [7], [8], [9], [10]]);
        assert_eq!(steps(Dialect::Postgres, &[1, 2, 7]), [[8], [9], [10]]);
        assert_eq!(steps(Dialect::Postgres, &[1, 2, 7, 8, 9]), [[10]]);
        assert!(steps(Dialect::Postgres, &[1, 2, 7, 8, 9, 10]).is_empty());
    }

    #[test]
    fn a_list_statement_numbers_its_parameters_in_each_engine() {
        let q = InvoiceQuery {
            status: Some(kuatia_core::lifecycle::Estado::Approved),
            tipo_documento: Some(1),
            starting_after: Some("fact_1".into()),
            ..InvoiceQuery::default()
        };
        let l = list_invoices(
            Dialect::Postgres,
            "SELECT json",
            "acct",
            Environment::Sandbox,
            &q,
        );
        assert_eq!(l.count_args, 4);
        let (count, page, args) = (l.count, l.page, l.args);
        assert_eq!(
            count,
            "SELECT COUNT(*) FROM invoices WHERE account_id = $1 AND environment = $2 AND status = $3 \
             AND tipo_documento = $4"
        );
        assert!(
            page.ends_with(
                "AND tipo_documento = $4 AND seq < (SELECT seq FROM invoices WHERE id = $5) \
                 ORDER BY seq DESC LIMIT $6 OFFSET $7"
            ),
            "{page}"
        );
        assert_eq!(args.len(), 7);
        let page = list_invoices(
            Dialect::Sqlite,
            "SELECT json",
            "acct",
            Environment::Sandbox,
            &q,
        )
        .page;
        assert!(
            page.contains("id = ?5) ORDER BY seq DESC LIMIT ?6 OFFSET ?7"),
            "{page}"
        );
    }
}

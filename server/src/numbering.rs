//! The numbering contract ([`kuatia_core::numbering`]) on SQLite: the statements the server's [`crate::SqliteStore`]
//! runs inside each request's transaction, and [`SqliteNumbering`], the store `kuatia issue` keeps next to its output.
//!
//! A reservation is a row of `number_reservations` written in the same transaction that advances the sequence, so a
//! number is never handed out twice whatever process asks (SQLite's write lock serialises them) and a reservation
//! without a CDC is a gap that survives any crash.

use kuatia_core::code;
use kuatia_core::numbering::{self, Confirmation, Gap, Numbering, NumberingKey, MAX_NUMERO};
use kuatia_core::Finding;
use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OptionalExtension};
use std::path::{Path, PathBuf};

/// The tables of the numbering contract (also migration 3 of the server's database, with `numbering` from 1).
pub const RESERVATIONS_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS number_reservations (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         sequence TEXT NOT NULL,
         numero INTEGER NOT NULL,
         cdc TEXT,
         PRIMARY KEY (account_id, environment, sequence, numero));
     CREATE INDEX IF NOT EXISTS number_gaps ON number_reservations (account_id, environment) WHERE cdc IS NULL;";

/// The `numbering` table (the last number handed out per sequence).
pub const NUMBERING_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS numbering (
         account_id TEXT NOT NULL,
         environment TEXT NOT NULL,
         sequence TEXT NOT NULL,
         last INTEGER NOT NULL,
         PRIMARY KEY (account_id, environment, sequence));";

/// A SQLite failure as the contract's finding: a damaged file is `NUMBERING_STATE_CORRUPT`, anything else (full
/// disk, read-only file, a lock held too long) `NUMBERING_UNAVAILABLE`.
pub fn sql_finding(e: &rusqlite::Error) -> Finding {
    let corrupt = matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    );
    if corrupt {
        Finding::new(
            code::NUMBERING_STATE_CORRUPT,
            "",
            format!("the numbering database is damaged ({e}); restore it from a backup — it is never reset"),
        )
    } else {
        Finding::new(
            code::NUMBERING_UNAVAILABLE,
            "",
            format!("the numbering database cannot be written: {e}"),
        )
    }
}

pub(crate) fn sequence(key: &NumberingKey) -> String {
    // The server has always stored the key's JSON as the sequence; serialising a plain struct cannot fail.
    serde_json::to_string(key).unwrap_or_else(|_| key.sequence())
}

/// Why [`reserve`] or [`confirm`] gave no answer: SQLite failed (kept as its error, so a store names the fault from
/// its code, not from a message), or a rule of the numbering contract said no (exhausted, not reserved).
#[derive(Debug)]
pub enum Refusal {
    /// The statement failed.
    Sql(rusqlite::Error),
    /// The contract's answer.
    Rule(Finding),
}

impl From<Refusal> for Finding {
    fn from(r: Refusal) -> Finding {
        match r {
            Refusal::Sql(e) => sql_finding(&e),
            Refusal::Rule(f) => f,
        }
    }
}

/// Reserves the next number of a sequence (inside the caller's write transaction).
pub fn reserve(
    conn: &Connection,
    account_id: &str,
    env: &str,
    key: &NumberingKey,
) -> Result<u32, Refusal> {
    let seq = sequence(key);
    let next: Option<u32> = conn
        .prepare_cached(
            "INSERT INTO numbering (account_id, environment, sequence, last) VALUES (?1, ?2, ?3, 1)
             ON CONFLICT(account_id, environment, sequence) DO UPDATE SET last = last + 1 WHERE last < ?4
             RETURNING last",
        )
        .and_then(|mut st| {
            st.query_row(params![account_id, env, seq, MAX_NUMERO], |r| r.get(0))
                .optional()
        })
        .map_err(Refusal::Sql)?;
    let numero = next.ok_or_else(|| Refusal::Rule(numbering::exhausted(key)))?;
    conn.prepare_cached(
        "INSERT INTO number_reservations (account_id, environment, sequence, numero, cdc)
         VALUES (?1, ?2, ?3, ?4, NULL)",
    )
    .and_then(|mut st| st.execute(params![account_id, env, seq, numero]))
    .map_err(Refusal::Sql)?;
    Ok(numero)
}

/// Reserves the next `count` numbers of a sequence (inside the caller's write transaction): the sequence advances
/// once and each number gets its reservation row, a gap until confirmed.
pub fn reserve_block(
    conn: &Connection,
    account_id: &str,
    env: &str,
    key: &NumberingKey,
    count: u32,
) -> Result<Vec<u32>, Finding> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let seq = sequence(key);
    let last: u32 = conn
        .prepare_cached(
            "SELECT last FROM numbering WHERE account_id = ?1 AND environment = ?2 AND sequence = ?3",
        )
        .and_then(|mut st| {
            st.query_row(params![account_id, env, seq], |r| r.get(0))
                .optional()
        })
        .map_err(|e| sql_finding(&e))?
        .unwrap_or(0);
    if last >= MAX_NUMERO {
        return Err(numbering::exhausted(key));
    }
    let end = last.saturating_add(count).min(MAX_NUMERO);
    conn.prepare_cached(
        "INSERT INTO numbering (account_id, environment, sequence, last) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(account_id, environment, sequence) DO UPDATE SET last = excluded.last",
    )
    .and_then(|mut st| st.execute(params![account_id, env, seq, end]))
    .map_err(|e| sql_finding(&e))?;
    let mut insert = conn
        .prepare_cached(
            "INSERT INTO number_reservations (account_id, environment, sequence, numero, cdc)
             VALUES (?1, ?2, ?3, ?4, NULL)",
        )
        .map_err(|e| sql_finding(&e))?;
    for numero in last + 1..=end {
        insert
            .execute(params![account_id, env, seq, numero])
            .map_err(|e| sql_finding(&e))?;
    }
    Ok((last + 1..=end).collect())
}

/// Confirms a reservation with its document's CDC (inside the caller's write transaction).
pub fn confirm(
    conn: &Connection,
    account_id: &str,
    env: &str,
    key: &NumberingKey,
    numero: u32,
    cdc: &str,
) -> Result<(), Refusal> {
    let changed = conn
        .prepare_cached(
            "UPDATE number_reservations SET cdc = ?5
             WHERE account_id = ?1 AND environment = ?2 AND sequence = ?3 AND numero = ?4 AND cdc IS NULL",
        )
        .and_then(|mut st| st.execute(params![account_id, env, sequence(key), numero, cdc]))
        .map_err(Refusal::Sql)?;
    if changed == 1 {
        Ok(())
    } else {
        Err(Refusal::Rule(numbering::not_reserved(key, numero)))
    }
}

/// The reservations of a scope that never became a document.
pub fn gaps(conn: &Connection, account_id: &str, env: &str) -> Result<Vec<Gap>, Finding> {
    let rows: Vec<(String, u32)> = conn
        .prepare_cached(
            "SELECT sequence, numero FROM number_reservations
             WHERE account_id = ?1 AND environment = ?2 AND cdc IS NULL ORDER BY sequence, numero",
        )
        .and_then(|mut st| {
            st.query_map(params![account_id, env], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(|e| sql_finding(&e))?;
    rows.into_iter()
        .map(|(seq, numero)| {
            let key: NumberingKey = serde_json::from_str(&seq).map_err(|e| {
                Finding::new(
                    code::NUMBERING_STATE_CORRUPT,
                    "",
                    format!("a stored sequence does not decode ({e})"),
                )
            })?;
            Ok(Gap { key, numero })
        })
        .collect()
}

/// Name of the CLI's numbering database inside the output directory.
pub const CLI_DB_FILE: &str = "numbering.sqlite3";
/// The JSON counters earlier versions of `kuatia issue` kept; imported once, then renamed.
pub const LEGACY_FILE: &str = "numbering.json";

/// The numbering `kuatia issue` keeps in `<out>/numbering.sqlite3`: every reservation and confirmation is its own
/// synced transaction (`synchronous = FULL`), so processes started together on one directory never share a number,
/// a crash leaves at most a listed gap, and a damaged or missing-schema file is an error, never a new sequence.
pub struct SqliteNumbering {
    conn: Connection,
}

impl std::fmt::Debug for SqliteNumbering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteNumbering").finish_non_exhaustive()
    }
}

const SCOPE: (&str, &str) = ("", "cli");

fn corrupt(path: &Path, why: impl std::fmt::Display) -> Finding {
    Finding::new(
        code::NUMBERING_STATE_CORRUPT,
        "",
        format!(
            "{}: {why}; the numbering state is never reset — restore it, or move it away to start a new sequence \
             knowingly",
            path.display()
        ),
    )
}

impl SqliteNumbering {
    /// Opens (creating on first use) the numbering of an output directory, importing a legacy `numbering.json`.
    pub fn open(dir: &Path) -> Result<SqliteNumbering, Finding> {
        let path = dir.join(CLI_DB_FILE);
        if !path.exists() {
            Self::create(dir, &path)?;
        }
        if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) == 0 {
            return Err(corrupt(&path, "the file is empty (truncated)"));
        }
        let unavailable = |e: rusqlite::Error| sql_finding(&e);
        let conn = Connection::open(&path).map_err(unavailable)?;
        conn.execute_batch(
            "PRAGMA busy_timeout = 60000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
             PRAGMA wal_autocheckpoint = 64;",
        )
        .map_err(unavailable)?;
        // A `kuatia issue` process makes two commits. Checkpointing at close (the default) cost it two more syncs,
        // and deleting the WAL two more when the next process made it again (its header, the directory): 8 syncs
        // for 4. The WAL stays beside the database, committed and synced; the next process reads its few pages back
        // (a checkpoint runs every 64 pages, ~5 processes), so `numbering.sqlite3-wal` is part of the state.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(unavailable)?;
        let tables: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'
                 AND name IN ('numbering', 'number_reservations')",
                [],
                |r| r.get(0),
            )
            .map_err(unavailable)?;
        if tables != 2 {
            return Err(corrupt(&path, "the numbering tables are missing"));
        }
        Ok(SqliteNumbering { conn })
    }

    /// Creates the database complete (schema and legacy counters) under a private name and links it into place, so
    /// processes starting together never see a half-made file; the one whose link lands wins, the others use it.
    fn create(dir: &Path, path: &Path) -> Result<(), Finding> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let tmp = dir.join(format!(".{CLI_DB_FILE}.{}.{nanos}", std::process::id()));
        let made = (|| {
            let conn = Connection::open(&tmp).map_err(|e| sql_finding(&e))?;
            conn.execute_batch("PRAGMA synchronous = FULL;")
                .map_err(|e| sql_finding(&e))?;
            let store = SqliteNumbering { conn };
            store
                .transaction(|c| {
                    c.execute_batch(NUMBERING_SCHEMA)?;
                    c.execute_batch(RESERVATIONS_SCHEMA)
                })
                .map_err(|e| sql_finding(&e))?;
            let legacy = store.import_legacy(&dir.join(LEGACY_FILE))?;
            drop(store);
            std::fs::File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| corrupt(&tmp, e))?;
            Ok::<_, Finding>(legacy)
        })();
        let linked = made.and_then(|legacy| match std::fs::hard_link(&tmp, path) {
            Ok(()) => {
                if let Some(old) = legacy {
                    let mut done = PathBuf::from(&old);
                    done.set_extension("json.imported");
                    std::fs::rename(&old, &done).map_err(|e| corrupt(&old, e))?;
                }
                std::fs::File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| corrupt(path, e))
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(corrupt(path, e)),
        });
        let _ = std::fs::remove_file(&tmp);
        linked
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction (the write lock first, so concurrent processes queue).
    fn transaction<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match f(&self.conn) {
            Ok(v) => {
                self.conn.execute_batch("COMMIT")?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Finding>) -> Result<T, Finding> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| sql_finding(&e))?;
        match f(&self.conn) {
            Ok(v) => {
                self.conn
                    .execute_batch("COMMIT")
                    .map_err(|e| sql_finding(&e))?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Earlier versions counted in `numbering.json` (`{"timbrado-est-punto-tipo": next}`); its counters carry over
    /// so no number is reused, and a file that does not read is an error, not a reset. Returns the file imported.
    fn import_legacy(&self, legacy: &Path) -> Result<Option<PathBuf>, Finding> {
        let text = match std::fs::read_to_string(legacy) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(corrupt(legacy, e)),
        };
        let map: std::collections::BTreeMap<String, u32> =
            serde_json::from_str(&text).map_err(|e| corrupt(legacy, e))?;
        let mut rows = Vec::new();
        for (k, next) in map {
            let parts: Vec<&str> = k.split('-').collect();
            let [timbrado, est, punto, tipo] = parts.as_slice() else {
                return Err(corrupt(legacy, format!("unknown sequence {k:?}")));
            };
            let tipo_documento = tipo
                .parse()
                .map_err(|_| corrupt(legacy, format!("unknown sequence {k:?}")))?;
            let key = NumberingKey {
                tipo_documento,
                timbrado: timbrado.to_string(),
                establecimiento: est.to_string(),
                punto: punto.to_string(),
            };
            rows.push((sequence(&key), next.saturating_sub(1)));
        }
        self.transaction(|c| {
            for (seq, last) in &rows {
                c.execute(
                    "INSERT INTO numbering (account_id, environment, sequence, last) VALUES (?1, ?2, ?3, ?4)",
                    params![SCOPE.0, SCOPE.1, seq, last],
                )?;
            }
            Ok(())
        })
        .map_err(|e| sql_finding(&e))?;
        Ok(Some(legacy.to_path_buf()))
    }
}

impl Numbering for SqliteNumbering {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        self.with(|c| Ok(reserve(c, SCOPE.0, SCOPE.1, key)?))
    }

    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding> {
        self.with(|c| Ok(confirm(c, SCOPE.0, SCOPE.1, key, numero, cdc)?))
    }

    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        gaps(&self.conn, SCOPE.0, SCOPE.1)
    }

    /// One synced transaction for the whole block.
    fn reserve_block(&mut self, key: &NumberingKey, count: u32) -> Result<Vec<u32>, Finding> {
        self.with(|c| reserve_block(c, SCOPE.0, SCOPE.1, key, count))
    }

    /// One synced transaction for the whole group: all confirmed, or none.
    fn confirm_all(&mut self, group: &[Confirmation]) -> Result<(), Finding> {
        self.with(|c| {
            group
                .iter()
                .try_for_each(|g| Ok(confirm(c, SCOPE.0, SCOPE.1, &g.key, g.numero, &g.cdc)?))
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::store::SqliteStore;
    use kuatia_core::api::store::conformance::OwnedNumbering;
    use kuatia_core::numbering::conformance;

    fn temp(tag: &str) -> PathBuf {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p =
            std::env::temp_dir().join(format!("kuatia-numbering-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn the_cli_store_keeps_the_contract() {
        let dir = temp("cli");
        conformance::check::<SqliteNumbering>(&mut |prev| {
            drop(prev);
            SqliteNumbering::open(&dir).unwrap()
        })
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A failed statement comes back as SQLite's error (a store names its fault from the code), the contract's
    /// answers as findings.
    #[test]
    fn a_refusal_keeps_the_sqlite_error_or_the_rule() {
        let dir = temp("refusal");
        drop(SqliteNumbering::open(&dir).unwrap());
        let k = NumberingKey {
            tipo_documento: 1,
            timbrado: "12345678".into(),
            establecimiento: "001".into(),
            punto: "001".into(),
        };
        let ro = Connection::open_with_flags(
            dir.join(CLI_DB_FILE),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        match reserve(&ro, SCOPE.0, SCOPE.1, &k) {
            Err(Refusal::Sql(e)) => assert_eq!(
                crate::faults::fault_of(&e),
                kuatia_core::api::storage::StorageFault::ReadOnly
            ),
            other => panic!("{other:?}"),
        }
        let rw = Connection::open(dir.join(CLI_DB_FILE)).unwrap();
        match confirm(&rw, SCOPE.0, SCOPE.1, &k, 7, "cdc") {
            Err(Refusal::Rule(f)) => assert_eq!(f.code, code::NUMBER_NOT_RESERVED),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cli_block_stops_at_the_last_number_and_confirms_all_or_nothing() {
        let dir = temp("cli-block-end");
        // A legacy counter puts the sequence two numbers before its end.
        std::fs::write(
            dir.join(LEGACY_FILE),
            format!(r#"{{"12345678-001-001-1": {}}}"#, MAX_NUMERO - 1),
        )
        .unwrap();
        let mut n = SqliteNumbering::open(&dir).unwrap();
        let k = NumberingKey {
            tipo_documento: 1,
            timbrado: "12345678".into(),
            establecimiento: "001".into(),
            punto: "001".into(),
        };
        assert_eq!(
            n.reserve_block(&k, 5).unwrap(),
            vec![MAX_NUMERO - 1, MAX_NUMERO]
        );
        assert_eq!(
            n.reserve_block(&k, 1).unwrap_err().code,
            code::NUMBERING_EXHAUSTED
        );
        assert_eq!(n.reserve(&k).unwrap_err().code, code::NUMBERING_EXHAUSTED);
        // One bad confirmation in a group: the transaction confirms none of it.
        let c = |numero| Confirmation {
            key: k.clone(),
            numero,
            cdc: format!("cdc-{numero}"),
        };
        let group = [c(MAX_NUMERO - 1), c(42)];
        assert_eq!(
            n.confirm_all(&group).unwrap_err().code,
            code::NUMBER_NOT_RESERVED
        );
        assert_eq!(n.gaps().unwrap().len(), 2);
        n.confirm_all(&[c(MAX_NUMERO - 1), c(MAX_NUMERO)]).unwrap();
        assert!(n.gaps().unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_server_store_keeps_the_contract() {
        let dir = temp("server");
        conformance::check::<OwnedNumbering<SqliteStore>>(&mut |prev| {
            drop(prev);
            OwnedNumbering(SqliteStore::open(&dir).unwrap())
        })
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_in_memory_service_store_keeps_the_contract() {
        conformance::check::<OwnedNumbering<kuatia_core::api::MemoryStore>>(&mut |prev| {
            prev.unwrap_or(OwnedNumbering(Default::default()))
        })
        .unwrap();
    }
}

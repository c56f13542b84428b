//! The numbering contract ([`kuatia_core::numbering`]) on SQLite: the statements the server's [`crate::SqliteStore`]
//! runs inside each request's transaction, and [`SqliteNumbering`], the store `kuatia issue` keeps next to its output.
//!
//! A reservation is a row of `number_reservations` written in the same transaction that advances the sequence, so a
//! number is never handed out twice whatever process asks (SQLite's write lock serialises them) and a reservation
//! without a CDC is a gap that survives any crash.

use crate::schema::{Dialect, NUMBERING_TABLES};
use kuatia_core::cdc::Cdc;
use kuatia_core::code;
use kuatia_core::numbering::{self, Confirmation, Gap, Numbering, NumberingKey, MAX_NUMERO};
use kuatia_core::rule;
use kuatia_core::Finding;
use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OptionalExtension};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A SQLite failure as the contract's finding: a damaged file is `NUMBERING_STATE_CORRUPT`, anything else (full
/// disk, read-only file, a lock held too long) `NUMBERING_UNAVAILABLE`.
pub fn sql_finding(e: &rusqlite::Error) -> Finding {
    let corrupt = matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    );
    if corrupt {
        kuatia_core::rule::storage_numbering_damaged("", &e.to_string())
    } else {
        kuatia_core::rule::storage_numbering_write("", &e.to_string())
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
            let key: NumberingKey = serde_json::from_str(&seq)
                .map_err(|e| kuatia_core::rule::storage_numbering_sequence("", &e.to_string()))?;
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

/// The numbering file (or a file beside it) `path` as a `numbering.file.*` rule names it: the file and its
/// directory, where `kuatia numbering repair --out` rebuilds the state.
fn names(path: &Path) -> (String, String) {
    let dir = path.parent().unwrap_or(Path::new("."));
    (path.display().to_string(), dir.display().to_string())
}

/// `path` cannot be read or written: `why` is the system's error.
fn corrupt(path: &Path, why: impl std::fmt::Display) -> Finding {
    let (file, dir) = names(path);
    rule::numbering_file_corrupt("", &file, &why.to_string(), &dir)
}

/// The finding of rule `def` about `path`, with `reason` (a finding) as its reason and the reason's parameters.
fn corrupt_because(def: &'static rule::RuleDef, path: &Path, reason: Finding) -> Finding {
    let (file, dir) = names(path);
    let mut params = reason.params;
    params.insert("file", rule::Param::One(file));
    params.insert("dir", rule::Param::One(dir));
    params.insert("reason", rule::Param::One(reason.rule.into_owned()));
    rule::finding(def, "", params)
}

/// [`sql_finding`] for the CLI's file: a file SQLite cannot read is named, with the way to recover.
fn cli_sql_finding(path: &Path, e: &rusqlite::Error) -> Finding {
    let f = sql_finding(e);
    if f.code == code::NUMBERING_STATE_CORRUPT {
        let (file, dir) = names(path);
        rule::numbering_file_sqlite("", &file, &e.to_string(), &dir)
    } else {
        f
    }
}

/// A series of document numbers as a CDC names it: document type, establishment, point of issue (the stamp is not
/// in the CDC).
type Series = (u8, u16, u16);

/// The signed documents of an output directory, by their file names `<CDC>.xml` (read with the core's CDC parser;
/// other files are not documents): per series, the highest number and its file.
fn highest_documents(dir: &Path) -> Result<BTreeMap<Series, (u32, PathBuf)>, Finding> {
    let mut high: BTreeMap<Series, (u32, PathBuf)> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| corrupt(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| corrupt(dir, e))?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".xml")) else {
            continue;
        };
        let Ok(cdc) = Cdc::parse(stem) else {
            continue;
        };
        let f = cdc.fields();
        let series = (f.tipo_documento, f.establecimiento, f.punto);
        if high.get(&series).is_none_or(|(n, _)| f.numero > *n) {
            high.insert(series, (f.numero, entry.path()));
        }
    }
    Ok(high)
}

/// The series of a stored sequence (`None` for a key that names none: it cannot hold a document's number).
fn series_of(key: &NumberingKey) -> Option<Series> {
    Some((
        key.tipo_documento,
        key.establecimiento.parse().ok()?,
        key.punto.parse().ok()?,
    ))
}

impl SqliteNumbering {
    /// Opens (creating on first use) the numbering of an output directory, importing a legacy `numbering.json`.
    pub fn open(dir: &Path) -> Result<SqliteNumbering, Finding> {
        let path = dir.join(CLI_DB_FILE);
        // The documents first, the state after (see `check`).
        let documents = highest_documents(dir)?;
        if !path.exists() {
            // Documents without a state (it was moved away or lost): a new one would start at 1 again. A legacy
            // counters file is imported instead, and checked like any state.
            let highest = documents.values().max_by_key(|(n, _)| *n);
            if let (Some((n, file)), false) = (highest, dir.join(LEGACY_FILE).exists()) {
                let (state, dir) = names(&path);
                return Err(rule::numbering_file_missing(
                    "",
                    &state,
                    &file.display().to_string(),
                    *n,
                    &dir,
                ));
            }
            Self::create(dir, &path)?;
        }
        if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) == 0 {
            let (file, dir) = names(&path);
            return Err(rule::numbering_file_empty("", &file, &dir));
        }
        let unavailable = |e: rusqlite::Error| cli_sql_finding(&path, &e);
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
            let (file, dir) = names(&path);
            return Err(rule::numbering_file_tables("", &file, &dir));
        }
        let store = SqliteNumbering { conn };
        store.check(&path, documents)?;
        Ok(store)
    }

    /// The checks at open: SQLite's `PRAGMA quick_check` of the file, then the state against the documents — in
    /// every series, the highest number among the signed documents of the directory must be below the next number
    /// the state hands out. The directory was read before this (any document seen was reserved before it was
    /// written), so a process issuing meanwhile cannot make an intact state look behind.
    fn check(
        &self,
        path: &Path,
        documents: BTreeMap<Series, (u32, PathBuf)>,
    ) -> Result<(), Finding> {
        let problems: Vec<String> = self
            .conn
            .prepare("PRAGMA quick_check")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| cli_sql_finding(path, &e))?;
        if problems.iter().any(|p| p != "ok") {
            let (file, dir) = names(path);
            let found = problems.join("; ");
            return Err(rule::numbering_file_integrity("", &file, &found, &dir));
        }
        let mut last: BTreeMap<Series, u32> = BTreeMap::new();
        for (key, n) in self.lasts().map_err(|e| match e {
            Refusal::Sql(e) => cli_sql_finding(path, &e),
            Refusal::Rule(f) => corrupt_because(rule::NUMBERING_FILE_STATE, path, f),
        })? {
            if let Some(series) = series_of(&key) {
                let l = last.entry(series).or_default();
                *l = (*l).max(n);
            }
        }
        for ((tipo, est, punto), (highest, file)) in documents {
            // The stamp is not in the CDC: a series' state is its highest counter over the stamps.
            let next = last
                .get(&(tipo, est, punto))
                .map_or(1, |l| l.saturating_add(1));
            if highest >= next {
                let (state, dir) = names(path);
                return Err(rule::numbering_file_behind(
                    "",
                    &state,
                    &file.display().to_string(),
                    highest,
                    &format!("{est:03}-{punto:03}"),
                    tipo,
                    next,
                    &dir,
                ));
            }
        }
        Ok(())
    }

    /// Every sequence of the CLI's scope with its last number handed out.
    fn lasts(&self) -> Result<Vec<(NumberingKey, u32)>, Refusal> {
        let rows: Vec<(String, u32)> = self
            .conn
            .prepare(
                "SELECT sequence, last FROM numbering WHERE account_id = ?1 AND environment = ?2",
            )
            .and_then(|mut st| {
                st.query_map(params![SCOPE.0, SCOPE.1], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(Refusal::Sql)?;
        rows.into_iter()
            .map(|(seq, last)| {
                serde_json::from_str(&seq)
                    .map(|key| (key, last))
                    .map_err(|e| {
                        Refusal::Rule(kuatia_core::rule::storage_numbering_sequence(
                            "",
                            &e.to_string(),
                        ))
                    })
            })
            .collect()
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
                .transaction(|c| c.execute_batch(&Dialect::Sqlite.render(NUMBERING_TABLES)))
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
                let (file, dir) = names(legacy);
                return Err(rule::numbering_file_legacy_key("", &file, &k, &dir));
            };
            let tipo_documento = tipo.parse().map_err(|_| {
                let (file, dir) = names(legacy);
                rule::numbering_file_legacy_key("", &file, &k, &dir)
            })?;
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

/// One sequence as [`SqliteNumbering::repair`] rebuilt it.
#[derive(Debug, serde::Serialize)]
pub struct RepairedSequence {
    /// The sequence.
    #[serde(flatten)]
    pub key: NumberingKey,
    /// The last number handed out: the highest of the documents and of what the old state still said.
    pub last: u32,
    /// Signed documents of the sequence in the directory.
    pub documents: usize,
    /// Gaps carried over from the old state (numbers reserved and never issued), listed by `kuatia numbering gaps`.
    pub gaps: usize,
    /// How many numbers up to `last` are neither a document here nor a known gap (documents kept elsewhere, or
    /// gaps the damaged state lost): check them before voiding any.
    pub unaccounted: usize,
    /// The first of them (at most 100).
    pub unaccounted_first: Vec<u32>,
}

/// What [`SqliteNumbering::repair`] did.
#[derive(Debug, serde::Serialize)]
pub struct Repaired {
    /// The damaged files, kept under these names.
    pub moved_aside: Vec<String>,
    /// Whether the old state could still be read (its counters and gaps carried over).
    pub old_state_read: bool,
    /// The rebuilt sequences.
    pub sequences: Vec<RepairedSequence>,
}

impl SqliteNumbering {
    /// Rebuilds the numbering of an output directory from its signed documents (the ground truth): the old files
    /// are moved aside (`numbering.sqlite3.damaged-<unix time>` and its `-wal`/`-shm`), and a new state continues
    /// every sequence after its highest number — the highest of the documents (each read for its stamp) and of what
    /// the old state still says, whose gaps are carried over when it can be read. Never lowers a counter.
    pub fn repair(dir: &Path) -> Result<Repaired, Finding> {
        let path = dir.join(CLI_DB_FILE);
        // Every document's sequence and number.
        let mut docs: BTreeMap<NumberingKey, std::collections::BTreeSet<u32>> = BTreeMap::new();
        for entry in std::fs::read_dir(dir).map_err(|e| corrupt(dir, e))? {
            let entry = entry.map_err(|e| corrupt(dir, e))?;
            let name = entry.file_name();
            let Some(cdc) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".xml"))
                .and_then(|stem| Cdc::parse(stem).ok())
            else {
                continue;
            };
            let file = entry.path();
            let bytes = std::fs::read(&file).map_err(|e| corrupt(&file, e))?;
            let de = kuatia_core::xml::parse_bytes(&bytes)
                .map_err(|f| corrupt_because(rule::NUMBERING_FILE_DOCUMENT, &file, f))?;
            let key = NumberingKey {
                tipo_documento: cdc.fields().tipo_documento,
                timbrado: de.timbrado.numero_timbrado.clone(),
                establecimiento: de.timbrado.establecimiento.clone(),
                punto: de.timbrado.punto.clone(),
            };
            docs.entry(key).or_default().insert(cdc.fields().numero);
        }
        // What the old state still says, if it reads at all.
        let old = Self::read_old(&path);
        let old_state_read = old.is_some();
        let (old_lasts, old_gaps) = old.unwrap_or_default();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut moved_aside = Vec::new();
        for suffix in ["", "-wal", "-shm"] {
            let from = dir.join(format!("{CLI_DB_FILE}{suffix}"));
            if from.exists() {
                let to = dir.join(format!("{CLI_DB_FILE}.damaged-{stamp}{suffix}"));
                std::fs::rename(&from, &to).map_err(|e| corrupt(&from, e))?;
                moved_aside.push(to.display().to_string());
            }
        }
        Self::create(dir, &path)?;
        let conn = Connection::open(&path).map_err(|e| sql_finding(&e))?;
        conn.execute_batch(
            "PRAGMA busy_timeout = 60000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;",
        )
        .map_err(|e| sql_finding(&e))?;
        let store = SqliteNumbering { conn };
        let mut keys: std::collections::BTreeSet<NumberingKey> = docs.keys().cloned().collect();
        keys.extend(old_lasts.keys().cloned());
        let mut sequences = Vec::new();
        store.with(|c| {
            for key in keys {
                let numbers = docs.remove(&key).unwrap_or_default();
                let last = numbers
                    .last()
                    .copied()
                    .unwrap_or(0)
                    .max(old_lasts.get(&key).copied().unwrap_or(0));
                let seq = sequence(&key);
                c.execute(
                    "INSERT INTO numbering (account_id, environment, sequence, last) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(account_id, environment, sequence) DO UPDATE SET last = max(last, excluded.last)",
                    params![SCOPE.0, SCOPE.1, seq, last],
                )
                .map_err(|e| sql_finding(&e))?;
                let mut gaps = 0;
                for &n in old_gaps.get(&key).into_iter().flatten() {
                    if !numbers.contains(&n) {
                        c.execute(
                            "INSERT OR IGNORE INTO number_reservations (account_id, environment, sequence, numero, cdc)
                             VALUES (?1, ?2, ?3, ?4, NULL)",
                            params![SCOPE.0, SCOPE.1, seq, n],
                        )
                        .map_err(|e| sql_finding(&e))?;
                        gaps += 1;
                    }
                }
                let known = |n: &u32| {
                    numbers.contains(n) || old_gaps.get(&key).is_some_and(|g| g.contains(n))
                };
                let unaccounted = (1..=last).filter(|n| !known(n)).count();
                let unaccounted_first = (1..=last).filter(|n| !known(n)).take(100).collect();
                sequences.push(RepairedSequence {
                    key,
                    last,
                    documents: numbers.len(),
                    gaps,
                    unaccounted,
                    unaccounted_first,
                });
            }
            Ok(())
        })?;
        Ok(Repaired {
            moved_aside,
            old_state_read,
            sequences,
        })
    }

    /// The counters and gaps of a damaged state, when SQLite can still read them (`None` otherwise).
    #[allow(clippy::type_complexity)]
    fn read_old(
        path: &Path,
    ) -> Option<(
        BTreeMap<NumberingKey, u32>,
        BTreeMap<NumberingKey, std::collections::BTreeSet<u32>>,
    )> {
        if !path.exists() {
            return None;
        }
        let conn =
            Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
        let store = SqliteNumbering { conn };
        let lasts = store.lasts().ok()?.into_iter().collect();
        let mut open: BTreeMap<NumberingKey, std::collections::BTreeSet<u32>> = BTreeMap::new();
        for g in gaps(&store.conn, SCOPE.0, SCOPE.1).ok()? {
            open.entry(g.key).or_default().insert(g.numero);
        }
        Some((lasts, open))
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
    use kuatia_core::numbering::conformance;
    use kuatia_service::store::conformance::OwnedNumbering;

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
                kuatia_service::storage::StorageFault::ReadOnly
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
        conformance::check::<OwnedNumbering<kuatia_service::MemoryStore>>(&mut |prev| {
            prev.unwrap_or(OwnedNumbering(Default::default()))
        })
        .unwrap();
    }
}

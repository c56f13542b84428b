//! `kuatia backup` and `kuatia restore`: one file that holds everything a SQLite data directory needs to serve again.
//!
//! The file is a plain ustar archive (any `tar tvf` lists it) of, in this order:
//! - `manifest.json`: [`Manifest`]: format and version, the kuatia version that wrote it, when, and each member's
//!   size and SHA-256;
//! - `kuatia.sqlite3`: a copy of the database taken with SQLite's online backup API while `kuatia serve` writes;
//! - `panel.key`: the server key that seals the passwords of the P12s uploaded through the panel (without it those
//!   certificates cannot sign after a restore).
//!
//! The copy is one `sqlite3_backup_step(-1)`: every page copied inside one read transaction, so it is the database as
//! of one commit. In WAL mode that reader never blocks the server's writer. (Stepping a few pages at a time, as
//! rusqlite's `run_to_completion` does, restarts the copy whenever another connection commits, so under steady load
//! it might never end.) `VACUUM INTO` would give the same snapshot; the backup API copies pages without rebuilding
//! every index, and is what SQLite documents for live backups.
//!
//! Not in the file: `serve.json` (the address of the last start, rewritten at each start) and the WAL's `-wal` and
//! `-shm` files (the copy is complete without them).
//!
//! The file holds secrets (`panel.key`, the sealed P12s, webhook secrets, buyers' data): it is created with mode 0600,
//! written under a temporary name and renamed once complete, so a failed run never leaves a half file under the
//! requested name (an earlier backup of that name survives it).

use crate::panel::KEY_FILE;
use crate::store::DB_FILE;
use rusqlite::backup::{Backup, StepResult};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// `format` of a kuatia backup's manifest.
pub const FORMAT: &str = "kuatia-backup";
/// The manifest format this version writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Name of the manifest, the archive's first member.
pub const MANIFEST: &str = "manifest.json";
/// Where docs/operations.md explains backups, named by every refusal that concerns PostgreSQL.
pub const DOCS: &str = "docs/operations.md, \"Backup and restore\"";
/// Largest manifest accepted (it lists two members).
const MANIFEST_MAX: u64 = 64 * 1024;
/// The members a backup may hold besides the manifest; anything else in an archive is refused.
const MEMBERS: [&str; 2] = [DB_FILE, KEY_FILE];

/// The first member of a backup: what it holds and the sums restore checks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] when written.
    pub format_version: u32,
    /// Version of the kuatia that wrote it.
    pub kuatia_version: String,
    /// When the database copy was taken (RFC 3339, UTC).
    pub created_at: String,
    /// Every other member, in archive order.
    pub members: Vec<Member>,
}

/// One file of a backup.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Member {
    /// File name in the data directory.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the contents, lowercase hex.
    pub sha256: String,
}

/// What [`backup`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct BackupReport {
    /// The backup file.
    pub file: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Invoices in the database copy.
    pub invoices: u64,
    /// Files of the data directory left out (see the module documentation), by name.
    pub skipped: Vec<String>,
}

/// What [`restore`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreReport {
    /// The restored data directory.
    pub data: PathBuf,
    /// The manifest of the backup, every sum checked.
    pub manifest: Manifest,
    /// Invoices in the restored database.
    pub invoices: u64,
    /// SQLite's `PRAGMA integrity_check` of the restored database (`ok`).
    pub integrity_check: String,
}

/// Writes a backup of the SQLite data directory `data` to `to` (replaced if it exists, once the new one is complete).
pub fn backup(data: &Path, to: &Path) -> Result<BackupReport, String> {
    let db = data.join(DB_FILE);
    if !db.is_file() {
        return Err(if data.join(KEY_FILE).is_file() {
            format!(
                "{}: no SQLite database, only {KEY_FILE}: a server over PostgreSQL keeps its data in PostgreSQL; back \
                 it up with PostgreSQL's tools (pg_dump, or a base backup with WAL archiving) and keep {KEY_FILE} \
                 beside it ({DOCS})",
                data.display()
            )
        } else {
            format!(
                "{}: not a kuatia serve data directory (no {DB_FILE})",
                data.display()
            )
        });
    }
    let parent = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: not a file name", to.display()))?;
    let tag = format!("{}-{}", std::process::id(), nanos());
    let copy = Temp(parent.join(format!(".{stem}.{tag}.sqlite3")));
    let partial = Temp(parent.join(format!(".{stem}.{tag}.partial")));

    let created_at = snapshot(&db, &copy.0)?;
    let invoices = count_invoices(&copy.0)?;
    let mut members = vec![member(DB_FILE, &copy.0)?];
    let key = data.join(KEY_FILE);
    if key.is_file() {
        members.push(member(KEY_FILE, &key)?);
    }
    let manifest = Manifest {
        format: FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        kuatia_version: env!("CARGO_PKG_VERSION").to_string(),
        created_at,
        members,
    };
    let sources = [copy.0.clone(), key];
    write_archive(&partial.0, &manifest, &sources)?;
    std::fs::rename(&partial.0, to).map_err(|e| format!("{}: {e}", to.display()))?;
    sync_dir(&parent);
    let skipped = std::fs::read_dir(data)
        .map_err(|e| format!("{}: {e}", data.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // The WAL's files are in the copy (it reads through them).
        .filter(|n| !MEMBERS.contains(&n.as_str()) && !n.starts_with(&format!("{DB_FILE}-")))
        .collect::<Vec<_>>();
    let mut skipped = skipped;
    skipped.sort();
    Ok(BackupReport {
        file: to.to_path_buf(),
        manifest,
        invoices,
        skipped,
    })
}

/// Restores the backup `from` into `data`, which must be missing or empty: checks the manifest and every member's
/// size and SHA-256, writes the files with mode 0600 (the directory 0700), then runs `PRAGMA integrity_check` on the
/// database. On any failure what it wrote is removed again.
pub fn restore(from: &Path, data: &Path) -> Result<RestoreReport, String> {
    let created = match std::fs::read_dir(data) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!(
                    "{}: not empty; restore into a new or empty directory",
                    data.display()
                ));
            }
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            private_dir(data)?;
            true
        }
        Err(e) => return Err(format!("{}: {e}", data.display())),
    };
    let result = restore_into(from, data);
    if result.is_err() {
        for name in MEMBERS {
            let _ = std::fs::remove_file(data.join(name));
        }
        if created {
            let _ = std::fs::remove_dir(data);
        }
    }
    result
}

fn restore_into(from: &Path, data: &Path) -> Result<RestoreReport, String> {
    let at = |what: String| format!("{}: {what}", from.display());
    let file = File::open(from).map_err(|e| at(e.to_string()))?;
    let mut archive = tar::Archive::new(BufReader::new(file));
    let mut entries = archive
        .entries()
        .map_err(|e| at(format!("not a kuatia backup: {e}")))?;
    let damaged = |e: std::io::Error| at(format!("damaged archive: {e}"));

    let mut first = entries
        .next()
        .ok_or_else(|| at("empty archive".to_string()))?
        .map_err(damaged)?;
    if name_of(&first).as_deref() != Some(MANIFEST) {
        return Err(at(format!(
            "not a kuatia backup: {MANIFEST} is not its first member"
        )));
    }
    let mut text = Vec::new();
    (&mut first)
        .take(MANIFEST_MAX + 1)
        .read_to_end(&mut text)
        .map_err(damaged)?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| at(format!("{MANIFEST} is damaged: {e}")))?;
    if manifest.format != FORMAT {
        return Err(at(format!(
            "not a kuatia backup (format {:?})",
            manifest.format
        )));
    }
    if manifest.format_version != FORMAT_VERSION {
        return Err(at(format!(
            "backup format version {} (this kuatia reads {FORMAT_VERSION}): restore it with the kuatia that wrote it \
             ({})",
            manifest.format_version, manifest.kuatia_version
        )));
    }
    for m in &manifest.members {
        if !MEMBERS.contains(&m.name.as_str()) {
            return Err(at(format!(
                "{MANIFEST} lists an unknown member {:?}",
                m.name
            )));
        }
    }
    if !manifest.members.iter().any(|m| m.name == DB_FILE) {
        return Err(at(format!("{MANIFEST} lists no {DB_FILE}")));
    }

    let mut seen: Vec<String> = Vec::new();
    for entry in entries {
        let mut entry = entry.map_err(damaged)?;
        let name =
            name_of(&entry).ok_or_else(|| at("a member with an unexpected path".to_string()))?;
        let Some(expected) = manifest.members.iter().find(|m| m.name == name) else {
            return Err(at(format!("member {name:?} is not in the manifest")));
        };
        if seen.contains(&name) || entry.header().entry_type() != tar::EntryType::Regular {
            return Err(at(format!(
                "member {name:?} is repeated or not a regular file"
            )));
        }
        let path = data.join(&name);
        let (size, sum) = write_private(&path, &mut entry).map_err(|e| match e {
            Failure::Read(e) => damaged(e),
            Failure::Write(e) => format!("{}: {e}", path.display()),
        })?;
        if size != expected.size || sum != expected.sha256 {
            return Err(at(format!(
                "{name}: its SHA-256 or size differs from the manifest's: the backup is damaged or was altered; \
                 nothing restored"
            )));
        }
        seen.push(name);
    }
    if let Some(missing) = manifest.members.iter().find(|m| !seen.contains(&m.name)) {
        return Err(at(format!(
            "{} is listed in the manifest but missing: the backup is truncated",
            missing.name
        )));
    }
    sync_dir(data);
    let db = data.join(DB_FILE);
    let integrity_check = integrity(&db)?;
    let invoices = count_invoices(&db)?;
    Ok(RestoreReport {
        data: data.to_path_buf(),
        manifest,
        invoices,
        integrity_check,
    })
}

/// A file removed on drop (the temporary copy and the partial archive).
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Copies the live database at `db` into a new file `copy` (mode 0600) with the online backup API, in one step (one
/// read transaction: the database as of one commit), checks the copy and returns the time it was taken.
fn snapshot(db: &Path, copy: &Path) -> Result<String, String> {
    let fail = |e: rusqlite::Error| format!("{}: {e}", db.display());
    let src = Connection::open(db).map_err(fail)?;
    src.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(fail)?;
    create_private(copy).map_err(|e| format!("{}: {e}", copy.display()))?;
    let mut dst = Connection::open(copy).map_err(|e| format!("{}: {e}", copy.display()))?;
    let created_at = {
        let backup = Backup::new(&src, &mut dst).map_err(fail)?;
        // Busy or Locked: another connection held a lock SQLite's reader could not wait on (a WAL restart); the step
        // is retried, a bounded number of times.
        let mut tries = 0;
        loop {
            let now = time::OffsetDateTime::now_utc();
            match backup.step(-1).map_err(fail)? {
                StepResult::Done => break now,
                _ if tries < 200 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                _ => return Err(format!("{}: the database stayed locked", db.display())),
            }
        }
    };
    // The copy is one self-contained file (the source's WAL mode came with its first page).
    dst.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))
        .map_err(|e| format!("{}: {e}", copy.display()))?;
    drop(dst);
    integrity(copy)?;
    created_at
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| e.to_string())
}

/// `PRAGMA integrity_check` of the database at `path`: `Ok("ok")`, or the problems it lists.
pub fn integrity(path: &Path) -> Result<String, String> {
    let fail = |e: rusqlite::Error| format!("{}: {e}", path.display());
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(fail)?;
    let problems: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .map_err(fail)?;
    if problems.len() == 1 && problems[0] == "ok" {
        Ok("ok".to_string())
    } else {
        Err(format!(
            "{}: SQLite's integrity check fails: {}",
            path.display(),
            problems.join("; ")
        ))
    }
}

fn count_invoices(path: &Path) -> Result<u64, String> {
    let fail = |e: rusqlite::Error| format!("{}: {e}", path.display());
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(fail)?;
    let n: i64 = conn
        .query_row("SELECT count(*) FROM invoices", [], |r| r.get(0))
        .map_err(fail)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Size and SHA-256 of the file at `path`, read as a stream.
fn member(name: &str, path: &Path) -> Result<Member, String> {
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut file = File::open(path).map_err(fail)?;
    let mut hasher = Sha256::new();
    let size = std::io::copy(&mut file, &mut hasher).map_err(fail)?;
    Ok(Member {
        name: name.to_string(),
        size,
        sha256: kuatia_service::auth::hex(&hasher.finalize()),
    })
}

/// Writes the archive to `path` (created with mode 0600): the manifest, then each member from `sources` (in manifest
/// order), every header 0600; synced before it returns.
fn write_archive(path: &Path, manifest: &Manifest, sources: &[PathBuf]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = create_private(path).map_err(fail)?;
    let mtime = time::OffsetDateTime::parse(
        &manifest.created_at,
        &time::format_description::well_known::Rfc3339,
    )
    .map_or(0, |t| u64::try_from(t.unix_timestamp()).unwrap_or(0));
    let mut tar = tar::Builder::new(BufWriter::new(file));
    let header = |size: u64| {
        let mut h = tar::Header::new_ustar();
        h.set_size(size);
        h.set_mode(0o600);
        h.set_mtime(mtime);
        h.set_entry_type(tar::EntryType::Regular);
        h
    };
    let text = serde_json::to_vec_pretty(manifest).map_err(|e| e.to_string())?;
    tar.append_data(&mut header(text.len() as u64), MANIFEST, text.as_slice())
        .map_err(fail)?;
    for (m, source) in manifest.members.iter().zip(sources) {
        let from = File::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
        // The size is the manifest's: a file that changed since it was summed fails here rather than later.
        tar.append_data(&mut header(m.size), &m.name, from.take(m.size))
            .map_err(fail)?;
    }
    let out = tar.into_inner().map_err(fail)?;
    let file = out.into_inner().map_err(|e| fail(e.into_error()))?;
    file.sync_all().map_err(fail)
}

/// The member's name when its path is one plain file name.
fn name_of<R: Read>(entry: &tar::Entry<'_, R>) -> Option<String> {
    let path = entry.path().ok()?;
    let mut parts = path.components();
    match (parts.next(), parts.next()) {
        (Some(std::path::Component::Normal(n)), None) => n.to_str().map(str::to_string),
        _ => None,
    }
}

/// Where a copy failed: reading the archive or writing the file.
enum Failure {
    Read(std::io::Error),
    Write(std::io::Error),
}

/// Copies `from` into a new file at `path` (mode 0600, synced): its size and SHA-256.
fn write_private(path: &Path, from: &mut impl Read) -> Result<(u64, String), Failure> {
    let mut file = create_private(path).map_err(Failure::Write)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = from.read(&mut buf).map_err(Failure::Read)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n]).map_err(Failure::Write)?;
        size += n as u64;
    }
    file.sync_all().map_err(Failure::Write)?;
    Ok((size, kuatia_service::auth::hex(&hasher.finalize())))
}

/// A new file, mode 0600 from its creation (never world-readable, not even for a moment).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Creates `dir` and its parents, the last one with mode 0700.
fn private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
}

/// Syncs a directory, so the names of the files just written survive a power loss (best effort).
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests;

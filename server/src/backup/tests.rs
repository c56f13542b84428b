//! Backup and restore of a data directory in-process: the round trip, and every refusal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::SqliteStore;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "kuatia-backup-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A data directory as `kuatia serve` leaves it: the database (schema, a row written by hand), `panel.key`,
/// `serve.json`.
fn data_dir(root: &Dir) -> PathBuf {
    let data = root.0.join("data");
    let store = SqliteStore::open(&data).unwrap();
    drop(store);
    let key = crate::panel::server_key(&data).unwrap();
    assert_eq!(key.len(), 32);
    std::fs::write(data.join("serve.json"), "{}").unwrap();
    let conn = Connection::open(data.join(DB_FILE)).unwrap();
    conn.execute_batch("CREATE TABLE drill (v TEXT); INSERT INTO drill VALUES ('kept');")
        .unwrap();
    data
}

/// Keeps a connection open whose last commit is still only in the WAL (as while `kuatia serve` runs).
fn live_writer(data: &Path) -> Connection {
    let conn = Connection::open(data.join(DB_FILE)).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; INSERT INTO drill VALUES ('in the wal');",
    )
    .unwrap();
    assert!(
        std::fs::metadata(data.join(format!("{DB_FILE}-wal")))
            .unwrap()
            .len()
            > 0
    );
    conn
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn round_trip_keeps_the_database_and_the_key_private() {
    let root = Dir::new("trip");
    let data = data_dir(&root);
    let _writer = live_writer(&data);
    let file = root.0.join("b.tar");
    let report = backup(&data, &file).unwrap();
    let names: Vec<_> = report
        .manifest
        .members
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, [DB_FILE, KEY_FILE]);
    assert_eq!(report.manifest.format, FORMAT);
    assert_eq!(report.manifest.kuatia_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(report.skipped, ["serve.json"]);
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);
    // Nothing but the backup is left beside it (the temporary copy and the partial file are gone).
    let beside: Vec<_> = std::fs::read_dir(&root.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(beside.len(), 2, "{beside:?}");

    let to = root.0.join("restored/deeper");
    let restored = restore(&file, &to).unwrap();
    assert_eq!(restored.manifest, report.manifest);
    assert_eq!(restored.integrity_check, "ok");
    assert_eq!(
        std::fs::read(to.join(KEY_FILE)).unwrap(),
        std::fs::read(data.join(KEY_FILE)).unwrap()
    );
    assert!(!to.join("serve.json").exists());
    #[cfg(unix)]
    {
        assert_eq!(mode(&to.join(KEY_FILE)), 0o600);
        assert_eq!(mode(&to.join(DB_FILE)), 0o600);
        assert_eq!(mode(&to), 0o700);
    }
    // A P12 password sealed under the original key opens under the restored one.
    let sealed =
        crate::panel::seal(&crate::panel::server_key(&data).unwrap(), "acct_1", "pw").unwrap();
    let key = crate::panel::server_key(&to).unwrap();
    assert_eq!(
        crate::panel::unseal(&key, "acct_1", &sealed)
            .unwrap()
            .as_str(),
        "pw"
    );
    let conn = Connection::open(to.join(DB_FILE)).unwrap();
    let v: Vec<String> = conn
        .prepare("SELECT v FROM drill ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(v, ["kept", "in the wal"]);
    // One self-contained file: no WAL came with it.
    assert!(!to.join(format!("{DB_FILE}-wal")).exists());
    // The restored directory opens as a store (its migrations are all there).
    drop(conn);
    SqliteStore::open(&to).unwrap();

    // A second backup to the same name replaces the first.
    let again = backup(&data, &file).unwrap();
    assert_eq!(again.manifest.members.len(), 2);
}

#[test]
fn restore_refuses_a_directory_that_is_not_empty() {
    let root = Dir::new("nonempty");
    let data = data_dir(&root);
    let file = root.0.join("b.tar");
    backup(&data, &file).unwrap();
    let e = restore(&file, &data).unwrap_err();
    assert!(e.contains("not empty"), "{e}");
    let other = root.0.join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("x"), "x").unwrap();
    assert!(restore(&file, &other).unwrap_err().contains("not empty"));
    // What was there is untouched.
    assert_eq!(std::fs::read_to_string(other.join("x")).unwrap(), "x");
}

/// Offset of the first byte of member `name`'s contents in the archive.
fn offset_of(file: &Path, name: &str) -> u64 {
    let mut archive = tar::Archive::new(File::open(file).unwrap());
    for e in archive.entries().unwrap() {
        let e = e.unwrap();
        if e.path().unwrap().to_str() == Some(name) {
            return e.raw_file_position();
        }
    }
    panic!("{name} not in the archive");
}

fn flip(file: &Path, at: u64) {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[usize::try_from(at).unwrap()] ^= 0x01;
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn a_flipped_byte_in_a_member_or_a_header_is_refused_and_nothing_is_left() {
    let root = Dir::new("flip");
    let data = data_dir(&root);
    let good = root.0.join("good.tar");
    let report = backup(&data, &good).unwrap();
    let db_size = report.manifest.members[0].size;
    let db_at = offset_of(&good, DB_FILE);
    let cases = [
        (
            offset_of(&good, DB_FILE) + db_size / 2,
            "kuatia.sqlite3: its SHA-256",
        ),
        (db_at + db_size - 1, "kuatia.sqlite3: its SHA-256"),
        (offset_of(&good, KEY_FILE) + 5, "panel.key: its SHA-256"),
        // The manifest's own text, then a header's name and its size field (the header checksum catches them).
        (offset_of(&good, MANIFEST) + 3, "manifest.json is damaged"),
        (db_at - 512 + 2, "damaged archive"),
        (db_at - 512 + 130, "damaged archive"),
    ];
    for (i, (at, expect)) in cases.into_iter().enumerate() {
        let bad = root.0.join(format!("bad{i}.tar"));
        std::fs::copy(&good, &bad).unwrap();
        flip(&bad, at);
        let to = root.0.join(format!("to{i}"));
        let e = restore(&bad, &to).unwrap_err();
        assert!(e.contains(expect), "byte {at}: {e}");
        assert!(!to.exists(), "byte {at}: {} left behind", to.display());
    }
    // A truncated backup too.
    let bytes = std::fs::read(&good).unwrap();
    let cut = root.0.join("cut.tar");
    std::fs::write(
        &cut,
        &bytes[..usize::try_from(db_at + db_size / 2).unwrap()],
    )
    .unwrap();
    let e = restore(&cut, &root.0.join("to-cut")).unwrap_err();
    assert!(
        e.contains("damaged archive") || e.contains("SHA-256"),
        "{e}"
    );
    // And the good one still restores.
    restore(&good, &root.0.join("to-good")).unwrap();
}

#[test]
fn a_postgresql_node_directory_is_refused_with_a_pointer_to_the_docs() {
    let root = Dir::new("pg");
    let data = root.0.join("data");
    crate::panel::server_key(&data).unwrap();
    let e = backup(&data, &root.0.join("b.tar")).unwrap_err();
    assert!(e.contains("PostgreSQL") && e.contains(DOCS), "{e}");
    assert!(!root.0.join("b.tar").exists());
    let e = backup(&root.0.join("nothing"), &root.0.join("b.tar")).unwrap_err();
    assert!(e.contains("not a kuatia serve data directory"), "{e}");
}

#[test]
fn an_archive_with_a_foreign_member_is_refused() {
    let root = Dir::new("foreign");
    let file = root.0.join("evil.tar");
    let manifest = Manifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        kuatia_version: "0".into(),
        created_at: "2026-11-28T00:00:00Z".into(),
        members: vec![Member {
            name: "../escape".into(),
            size: 1,
            sha256: String::new(),
        }],
    };
    let mut tar = tar::Builder::new(File::create(&file).unwrap());
    let text = serde_json::to_vec(&manifest).unwrap();
    let mut h = tar::Header::new_ustar();
    h.set_size(text.len() as u64);
    h.set_cksum();
    tar.append_data(&mut h, MANIFEST, text.as_slice()).unwrap();
    tar.finish().unwrap();
    drop(tar);
    let e = restore(&file, &root.0.join("to")).unwrap_err();
    assert!(e.contains("unknown member"), "{e}");
    assert!(!root.0.join("escape").exists());
}

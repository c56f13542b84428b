//! The numbering contract through `kuatia issue`: a damaged state is an error (never a restart), concurrent processes
//! on one `--out` never share a number, and processes killed at random points leave only listed gaps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::batch::{batch_dir, documents, gaps, numero_of, spawn_batch, EXAMPLE};
use common::{wait_until, TempDir};
use std::collections::BTreeSet;
use std::path::Path;

fn issue(out: &Path) -> (i32, serde_json::Value, String) {
    common::run(&["issue", EXAMPLE, "--out", out.to_str().unwrap()], None)
}

#[test]
fn a_damaged_numbering_state_is_an_error_never_a_restart() {
    let dir = TempDir::new("numbering-damaged");
    let out = dir.0.join("out");
    assert_eq!(issue(&out).0, 0);
    assert_eq!(issue(&out).1["numero"], "001-001-0000002");

    // Truncated to nothing.
    std::fs::write(out.join("numbering.sqlite3"), b"").unwrap();
    let (code, v, _) = issue(&out);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "NUMBERING_STATE_CORRUPT", "{v}");
    // Garbage.
    std::fs::write(out.join("numbering.sqlite3"), vec![b'x'; 8192]).unwrap();
    for f in ["numbering.sqlite3-wal", "numbering.sqlite3-shm"] {
        let _ = std::fs::remove_file(out.join(f));
    }
    let (code, v, _) = issue(&out);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "NUMBERING_STATE_CORRUPT", "{v}");
    // A file SQLite cannot read is named, with the way to recover.
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("numbering.sqlite3") && message.contains("numbering repair"),
        "{message}"
    );
    // Nothing was issued by the refused runs.
    assert_eq!(documents(&out), BTreeSet::from([1, 2]));
}

#[test]
fn a_legacy_numbering_file_carries_over_or_is_refused() {
    let dir = TempDir::new("numbering-legacy");
    let out = dir.0.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("numbering.json"), r#"{"12558946-001-001-1": 41}"#).unwrap();
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["numero"], "001-001-0000041");
    assert!(out.join("numbering.json.imported").exists());

    let out2 = dir.0.join("out2");
    std::fs::create_dir_all(&out2).unwrap();
    std::fs::write(out2.join("numbering.json"), r#"{"12345678-001-0"#).unwrap();
    let (code, v, _) = issue(&out2);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "NUMBERING_STATE_CORRUPT", "{v}");
}

#[test]
fn eight_processes_on_one_out_never_share_a_number() {
    let dir = TempDir::new("numbering-8x50");
    let out = dir.0.join("out");
    let input = batch_dir(&dir.0, "in", 50);
    let children: Vec<_> = (0..8)
        .map(|_| spawn_batch(&input, &out, "1", true))
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(documents(&out), (1..=400).collect());
    assert!(gaps(&out).is_empty());
}

#[test]
fn processes_killed_at_random_points_leave_only_listed_gaps() {
    let dir = TempDir::new("numbering-sigkill");
    let out = dir.0.join("out");
    let input = batch_dir(&dir.0, "in", 40);
    // A fixed xorshift seed: the kill points differ run to run of the loop, not between test runs.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..20 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = spawn_batch(&input, &out, "2", false);
        std::thread::sleep(std::time::Duration::from_millis(5 + seed % 400));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    // One clean run after the kills: the store still opens and continues.
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 0, "{v} {stderr}");
    let last = numero_of(v["cdc"].as_str().unwrap());
    let docs = documents(&out);
    let gaps = gaps(&out);
    // Every number up to the last is a document or a listed gap (a document written just before its confirmation
    // is both: listed, and findable by its file).
    let accounted: BTreeSet<u32> = docs.union(&gaps).copied().collect();
    assert_eq!(
        accounted,
        (1..=last).collect::<BTreeSet<u32>>(),
        "docs {docs:?} gaps {gaps:?}"
    );
    assert!(docs.contains(&last));
}

#[test]
fn a_batch_killed_inside_its_block_leaves_the_rest_of_the_block_as_gaps() {
    let dir = TempDir::new("numbering-block-kill");
    let out = dir.0.join("out");
    let input = batch_dir(&dir.0, "in", 40);
    let mut child = spawn_batch(&input, &out, "1", false);
    // The 40 numbers are reserved as one block before the first document is signed: kill at the first file.
    wait_until("the first document written", || {
        std::fs::read_dir(&out).ok().is_some_and(|d| {
            d.filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().contains(".xml"))
        })
    });
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let docs = documents(&out);
    assert!(docs.len() < 40, "killed before the end: {docs:?}");
    // The sequence continues after the whole block; every number of it is a document or a listed gap.
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(numero_of(v["cdc"].as_str().unwrap()), 41);
    let accounted: BTreeSet<u32> = documents(&out).union(&gaps(&out)).copied().collect();
    assert_eq!(accounted, (1..=41).collect::<BTreeSet<u32>>());
    assert!(gaps(&out).len() >= 40 - docs.len());
}

/// Truncates `path` to half its size (a partial copy), if it exists.
fn halve(path: &Path) {
    if let Ok(m) = std::fs::metadata(path) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_len(m.len() / 2).unwrap();
    }
}

/// Three documents in `out`, numbers 1 to 3.
fn three_documents(out: &Path) {
    for n in 1..=3 {
        let (code, v, stderr) = issue(out);
        assert_eq!(code, 0, "{v} {stderr}");
        assert_eq!(v["numero"], format!("001-001-000000{n}"));
    }
}

/// What the refusal of a state behind its documents looks like: exit 1, `NUMBERING_STATE_CORRUPT` naming the
/// highest document's number and file and the state's next number, and nothing issued.
fn assert_behind(out: &Path, v: &serde_json::Value, code: i32) {
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "NUMBERING_STATE_CORRUPT", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    let highest = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.ends_with(".xml") && numero_of(n) == 3)
        .unwrap();
    assert!(message.contains(&highest), "{message}");
    assert!(message.contains("numbering repair"), "{message}");
    assert_eq!(documents(out), BTreeSet::from([1, 2, 3]));
}

/// The issue's case: the state's files cut to half their size (a partial copy) must not hand out number 2 again.
#[test]
fn a_truncated_numbering_state_never_reuses_a_number() {
    let dir = TempDir::new("numbering-truncated");
    let out = dir.0.join("out");
    three_documents(&out);
    for f in [
        "numbering.sqlite3",
        "numbering.sqlite3-wal",
        "numbering.sqlite3-shm",
    ] {
        halve(&out.join(f));
    }
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 1, "{v} {stderr}");
    assert_eq!(v["error"]["code"], "NUMBERING_STATE_CORRUPT", "{v}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(documents(&out), BTreeSet::from([1, 2, 3]));
}

/// A copy without its `-wal` (a backup that skipped it): the database alone is behind the documents.
#[test]
fn a_numbering_state_without_its_wal_is_behind_the_documents_and_refused() {
    let dir = TempDir::new("numbering-no-wal");
    let out = dir.0.join("out");
    three_documents(&out);
    for f in ["numbering.sqlite3-wal", "numbering.sqlite3-shm"] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let (code, v, _) = issue(&out);
    assert_behind(&out, &v, code);
    // The batch path opens the same store and refuses the same way.
    let input = batch_dir(&dir.0, "in", 2);
    let (code, v, _) = common::run(
        &[
            "issue",
            "--batch",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(documents(&out), BTreeSet::from([1, 2, 3]));

    // The repair rebuilds the state from the documents: the sequence continues after the highest one.
    let (code, v, stderr) = common::run(
        &["numbering", "repair", "--out", out.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 0, "{v} {stderr}");
    assert_eq!(v["sequences"][0]["last"], 3, "{v}");
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 0, "{v} {stderr}");
    assert_eq!(v["numero"], "001-001-0000004");
    assert_eq!(documents(&out), (1..=4).collect());
}

/// A state moved away while the documents stay is behind them too (it would restart at 1).
#[test]
fn a_missing_numbering_state_beside_documents_is_refused() {
    let dir = TempDir::new("numbering-missing");
    let out = dir.0.join("out");
    three_documents(&out);
    for f in [
        "numbering.sqlite3",
        "numbering.sqlite3-wal",
        "numbering.sqlite3-shm",
    ] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let (code, v, _) = issue(&out);
    assert_behind(&out, &v, code);
    assert!(!out.join("numbering.sqlite3").exists(), "no new state made");

    // Repaired from the documents alone: a number without a document is reported, never reused nor made a gap.
    let second = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "xml")
                && numero_of(p.file_stem().unwrap().to_str().unwrap()) == 2
        })
        .unwrap();
    std::fs::remove_file(second).unwrap();
    let (code, v, stderr) = common::run(
        &["numbering", "repair", "--out", out.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 0, "{v} {stderr}");
    assert_eq!(v["old_state_read"], false, "{v}");
    assert_eq!(v["moved_aside"], serde_json::json!([]), "{v}");
    let seq = &v["sequences"][0];
    assert_eq!(
        (&seq["last"], &seq["documents"]),
        (&serde_json::json!(3), &serde_json::json!(2)),
        "{v}"
    );
    assert_eq!(seq["unaccounted_first"], serde_json::json!([2]), "{v}");
    assert!(gaps(&out).is_empty());
    let (code, v, _) = issue(&out);
    assert_eq!(
        (code, &v["numero"]),
        (0, &serde_json::json!("001-001-0000004")),
        "{v}"
    );
}

/// The check against the documents passes on an intact state, after a checkpoint too, and ignores files that are
/// not signed documents.
#[test]
fn an_intact_numbering_state_passes_the_check_against_the_documents() {
    let dir = TempDir::new("numbering-intact");
    let out = dir.0.join("out");
    three_documents(&out);
    std::fs::write(out.join("notes.xml"), "<x/>").unwrap();
    std::fs::write(out.join("0123.xml"), "<x/>").unwrap();
    let (code, v, stderr) = issue(&out);
    assert_eq!(code, 0, "{v} {stderr}");
    assert_eq!(v["numero"], "001-001-0000004");
    assert!(gaps(&out).is_empty());
}

//! `kuatia issue --batch DIR`: issue every `*.json` request of a directory in parallel, with a progress bar and a
//! summary. Numbers come from the same numbering store as single issuing (`<out>/numbering.sqlite3`), under the
//! contract of `kuatia_core::numbering`, without touching the store per document:
//!
//! 1. a reader thread reads and parses the requests a chunk of [`CHUNK`] at a time; the numbering thread checks each
//!    chunk (`issue::prepare`) and reserves the numbers of its valid documents in one block per sequence
//!    (`numbering::Blocks`: one synced transaction), in the order of the files, and queues them — a chunk ahead of the
//!    workers, so they never wait for a check or a block;
//! 2. the workers (`-j`, started once per window of [`WINDOW`] chunks) sign and write each document to
//!    `<cdc>.xml.partial`;
//! 3. a committer thread takes the written documents as one group (at least 128, or what 100 ms brought): 8 sync
//!    threads, started once, sync the files concurrently, each starting the writes of all its files
//!    (`posix_fadvise`) before it syncs them one by one; the committer renames each to `<cdc>.xml`, syncs the
//!    directory once and confirms the whole group in one synced transaction (`issue::confirm_all`).
//!
//! Threads hand work over a chunk or a group at a time (one wake-up each, not one per document). `-j 2` issues what
//! `-j 1` issues: the same numbers for the same files, the same documents.
//!
//! Parallel workers and other processes never share a number (a block is reserved under SQLite's write lock); a
//! document that fails after its reservation, or a process killed mid-way, leaves gaps that `kuatia numbering gaps`
//! lists — reserved numbers are gaps until their group is confirmed, so the unused rest of a block is one too.

use super::args::IssueArgs;
use super::host::{load_signer, open_numbering, OsRandom};
use crate::invoice::{at_arg, profile};
use crate::output::Outcome;
use kuatia_core::invoice::FacturaRequest;
use kuatia_core::issue::{
    confirm_all, prepare, Blocks, Detail, Pending, Prepared, Reserved, Summary,
};
use kuatia_core::rule;
use kuatia_core::sign::Signer;
use kuatia_core::Finding;
use kuatia_server::numbering::SqliteNumbering;
use serde::Serialize;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};
use std::sync::{Mutex, OnceLock};

/// Requests checked and numbered together (one block reservation per sequence).
pub const CHUNK: usize = 128;
/// Most documents one group commit takes (files synced, one directory sync, one confirming transaction).
const GROUP: usize = 256;

/// A row of the batch's answer: the request file, the document's summary, the file written.
#[derive(Debug, Serialize)]
struct Issued {
    file: String,
    #[serde(flatten)]
    summary: Summary,
    xml: String,
}

#[derive(Debug, Serialize)]
struct Failed {
    file: String,
    /// The first finding (the whole list comes from `kuatia validate FILE`).
    code: String,
    message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    path: String,
}

/// The answer of a batch: counts, the rows issued and the failures.
#[derive(Debug, Serialize)]
struct Report {
    ok: usize,
    failed: usize,
    jobs: usize,
    out: String,
    seconds: f64,
    issued: Vec<Issued>,
    failures: Vec<Failed>,
}

fn requests(dir: &Path) -> Result<Vec<PathBuf>, Outcome> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Outcome::unreadable(format!("{}: cannot list: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            // The entry's type comes with the listing; only a symbolic link costs a stat.
            let file = match e.file_type() {
                Ok(t) if t.is_symlink() => e.path().is_file(),
                Ok(t) => t.is_file(),
                Err(_) => false,
            };
            file && e.path().extension().is_some_and(|x| x == "json")
        })
        .map(|e| e.path())
        .collect();
    files.sort();
    Ok(files)
}

/// `kuatia issue --batch DIR --out OUT [-j N]`: exit 0 when every document was issued, 1 when some failed.
pub fn run(args: &IssueArgs, dir: &Path) -> Outcome {
    run_with(args, dir, None)
}

/// [`run`], with the signer given (`None`: the one `--p12` names, or the built-in test-only certificate).
fn run_with(args: &IssueArgs, dir: &Path, given: Option<&dyn Signer>) -> Outcome {
    let run = || -> Result<Outcome, Outcome> {
        let started = std::time::Instant::now();
        let emisor = profile(&args.profile)?;
        // Validate --at once up front so a bad value is a usage error, not N failures.
        at_arg(&args.at)?;
        let files = requests(dir)?;
        let loaded;
        let signer: &dyn Signer = match given {
            Some(s) => s,
            None => {
                loaded = load_signer(args)?.0;
                &loaded
            }
        };
        // Two connections: blocks are reserved on one while the committer confirms groups on the other.
        let mut reserving = open_numbering(&args.out)?;
        let confirming = open_numbering(&args.out)?;
        let jobs = args
            .batch
            .jobs
            .map(usize::from)
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .clamp(1, files.len().max(1));
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} issued ({per_sec}, eta {eta}) {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let results: Mutex<Vec<Result<Issued, Failed>>> = Mutex::new(Vec::new());
        let done = |r: Result<Issued, Failed>| {
            if let Err(f) = &r {
                bar.set_message(format!("{} failed", f.file));
            }
            results.lock().unwrap_or_else(|p| p.into_inner()).push(r);
            bar.inc(1);
        };
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<(Box<Written>, File)>(GROUP);
            let done = &done;
            s.spawn(move || commit(rx, confirming, &args.out, done));
            // A reader thread reads and parses the requests a chunk or two ahead, handing over a chunk at a time.
            let (reqs_tx, reqs_rx) = std::sync::mpsc::sync_channel::<Vec<Read>>(2);
            let files = &files;
            s.spawn(move || {
                for chunk in files.chunks(CHUNK) {
                    let reads = chunk
                        .iter()
                        .map(|file| (file.display().to_string(), read_request(file)))
                        .collect();
                    if reqs_tx.send(reads).is_err() {
                        break;
                    }
                }
            });
            let mut chunks = reqs_rx.iter().peekable();
            while chunks.peek().is_some() {
                issue_window(
                    &mut chunks,
                    args,
                    &emisor,
                    signer,
                    &mut reserving,
                    jobs,
                    &tx,
                    done,
                );
            }
        });
        bar.finish_and_clear();
        let mut issued = Vec::new();
        let mut failures = Vec::new();
        for r in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            match r {
                Ok(i) => issued.push(i),
                Err(f) => failures.push(f),
            }
        }
        issued.sort_by(|a, b| a.file.cmp(&b.file));
        failures.sort_by(|a, b| a.file.cmp(&b.file));
        let summary = Report {
            ok: issued.len(),
            failed: failures.len(),
            jobs,
            out: args.out.display().to_string(),
            seconds: started.elapsed().as_secs_f64(),
            issued,
            failures,
        };
        Ok(match summary.failures.first() {
            None => Outcome::ok(&summary),
            Some(f) => {
                let first = rule::cli_batch_failed(
                    f.path.clone(),
                    summary.failed,
                    summary.failed + summary.ok,
                    &f.file,
                    &f.message,
                );
                Outcome::invalid(&summary, &first)
            }
        })
    };
    run().unwrap_or_else(|o| o)
}

fn failed(file: &str, f: Finding) -> Failed {
    Failed {
        file: file.to_string(),
        message: f.message_in(crate::output::lang()),
        code: f.code,
        path: f.path,
    }
}

fn first_finding(fs: kuatia_core::Findings) -> Finding {
    fs.0.into_iter()
        .next()
        .unwrap_or_else(|| rule::api_internal_no_finding(""))
}

fn read_request(file: &Path) -> Result<FacturaRequest, Finding> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| rule::cli_file_read("", &file.display().to_string(), &e.to_string()))?;
    kuatia_core::invoice::parse_request(&text).map_err(first_finding)
}

/// A request file's name and its parsed request (or why it does not read).
type Read = (String, Result<FacturaRequest, Finding>);

/// A signed document written to its `.partial` file (open: the committer syncs it), waiting for its group commit.
struct Written {
    file: String,
    pending: Pending,
    partial: PathBuf,
}

/// Chunks numbered in one window: the requests of a window stay in memory until its documents are signed, and the
/// workers are joined once per window (every `WINDOW × CHUNK` documents), not once per chunk.
const WINDOW: usize = 32;

/// A document ready for a worker: its request's file, the checked request and its reserved number.
type Job<'a> = (&'a str, Prepared<'a>, Reserved);

/// The documents numbered and waiting for a worker. The numbering thread adds a chunk at a time and waits while a
/// chunk is queued; the workers take one document at a time and wake it when the queue runs low (one wake-up per
/// chunk each way, not one per document).
struct Queue<'a> {
    state: Mutex<(std::collections::VecDeque<Job<'a>>, bool)>,
    /// Signalled when a job is added or the queue is closed (workers wait on it).
    added: std::sync::Condvar,
    /// Signalled when the queue ran low (the numbering thread waits on it).
    low: std::sync::Condvar,
}

impl<'a> Queue<'a> {
    fn new() -> Self {
        Queue {
            state: Mutex::new((std::collections::VecDeque::new(), false)),
            added: std::sync::Condvar::new(),
            low: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (std::collections::VecDeque<Job<'a>>, bool)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a chunk's jobs once fewer than a chunk are waiting.
    fn push(&self, jobs: Vec<Job<'a>>) {
        let mut q = self.lock();
        while q.0.len() >= CHUNK {
            q = self.low.wait(q).unwrap_or_else(|p| p.into_inner());
        }
        q.0.extend(jobs);
        drop(q);
        self.added.notify_all();
    }

    /// No more jobs: the workers finish what is queued and return.
    fn close(&self) {
        self.lock().1 = true;
        self.added.notify_all();
    }

    /// The next job, or `None` once the queue is closed and empty.
    fn pop(&self) -> Option<Job<'a>> {
        let mut q = self.lock();
        loop {
            if let Some(job) = q.0.pop_front() {
                if q.0.len() == CHUNK - 1 {
                    self.low.notify_one();
                }
                return Some(job);
            }
            if q.1 {
                return None;
            }
            q = self.added.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// One window: `jobs` workers sign and write documents while this thread checks the next chunk and reserves its
/// numbers, so the workers never wait for a check or a block's synced transaction (the queue holds a chunk ahead).
/// Numbers are handed out in the order of the files whatever `jobs` is, as with one worker.
#[allow(clippy::too_many_arguments)]
fn issue_window(
    chunks: &mut std::iter::Peekable<impl Iterator<Item = Vec<Read>>>,
    args: &IssueArgs,
    emisor: &kuatia_core::profile::Emisor,
    signer: &dyn Signer,
    store: &mut SqliteNumbering,
    jobs: usize,
    tx: &SyncSender<(Box<Written>, File)>,
    done: &(dyn Fn(Result<Issued, Failed>) + Sync),
) {
    // The window's requests, one slot per chunk, filled as they are read: what a worker borrows outlives the workers.
    let window: Vec<OnceLock<Vec<(String, FacturaRequest)>>> =
        (0..WINDOW).map(|_| OnceLock::new()).collect();
    let queue = Queue::new();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let queue = &queue;
            s.spawn(move || work(queue, signer, &args.out, tx, done));
        }
        for slot in &window {
            let Some(reads) = chunks.next() else {
                break;
            };
            let mut chunk = Vec::with_capacity(reads.len());
            for (name, read) in reads {
                match read {
                    Ok(req) => chunk.push((name, req)),
                    Err(f) => done(Err(failed(&name, f))),
                }
            }
            let chunk = slot.get_or_init(|| chunk);
            queue.push(number_chunk(chunk, args, emisor, signer, store, done));
        }
        queue.close();
    });
}

/// Checks a chunk's requests and reserves the valid ones' numbers in blocks (one synced transaction per sequence).
fn number_chunk<'a>(
    chunk: &'a [(String, FacturaRequest)],
    args: &IssueArgs,
    emisor: &'a kuatia_core::profile::Emisor,
    signer: &dyn Signer,
    store: &mut SqliteNumbering,
    done: &(dyn Fn(Result<Issued, Failed>) + Sync),
) -> Vec<Job<'a>> {
    let mut prepared: Vec<(&str, Prepared<'_>)> = Vec::with_capacity(chunk.len());
    for (name, req) in chunk {
        // Each document gets the time it is checked at (or the fixed --at, checked up front).
        let now = match at_arg(&args.at) {
            Ok(now) => now,
            Err(_) => {
                done(Err(failed(
                    name,
                    rule::cli_at("at", args.at.as_deref().unwrap_or("")),
                )));
                continue;
            }
        };
        match prepare(emisor, req, Some(signer), now) {
            Ok(p) => prepared.push((name, p)),
            Err(e) => done(Err(failed(name, first_finding(e.findings)))),
        }
    }
    let mut blocks = match Blocks::reserve(store, prepared.iter().map(|(_, p)| p.key())) {
        Ok(b) => b,
        Err(f) => {
            for (name, _) in prepared {
                done(Err(failed(name, f.clone())));
            }
            return Vec::new();
        }
    };
    let mut work = Vec::with_capacity(prepared.len());
    for (name, p) in prepared {
        match blocks.take(p.key()) {
            Ok(r) => work.push((name, p, r)),
            Err(f) => done(Err(failed(name, f))),
        }
    }
    work
}

/// A worker: signs and writes the documents of the queue, handing each written one to the committer.
fn work(
    queue: &Queue<'_>,
    signer: &dyn Signer,
    out: &Path,
    tx: &SyncSender<(Box<Written>, File)>,
    done: &(dyn Fn(Result<Issued, Failed>) + Sync),
) {
    while let Some((name, p, reserved)) = queue.pop() {
        match sign_and_write(out, p, reserved, signer) {
            Ok((pending, handle, partial)) => {
                // Boxed: the signed document (3 KB) is handed on as a pointer, not copied at every step.
                let w = Box::new(Written {
                    file: name.to_string(),
                    pending,
                    partial,
                });
                if let Err(std::sync::mpsc::SendError((w, _))) = tx.send((w, handle)) {
                    // The committer is gone (it never returns early): the number stays a gap.
                    done(Err(failed(&w.file, rule::storage_failed(""))));
                }
            }
            Err(f) => done(Err(failed(name, f))),
        }
    }
}

/// Signs a document with its reserved number and writes it, unsynced, to `<out>/<cdc>.xml.partial`.
fn sign_and_write(
    out: &Path,
    p: Prepared<'_>,
    reserved: Reserved,
    signer: &dyn Signer,
) -> Result<(Pending, File, PathBuf), Finding> {
    use std::io::Write as _;
    let mut pending = p
        .issue_reserved(reserved, Some(signer), &mut OsRandom)
        .map_err(|e| first_finding(e.findings))?;
    let partial = out.join(format!("{}.xml.partial", pending.issued.cdc));
    let write = || -> std::io::Result<File> {
        let mut f = File::create(&partial)?;
        f.write_all(pending.issued.xml.as_bytes())?;
        Ok(f)
    };
    // Not written: the number stays reserved and unconfirmed, a listed gap.
    let handle = write().map_err(|e| {
        rule::storage_file_write("", &partial.display().to_string(), &e.to_string())
    })?;
    // The XML is in the file now; freed here, on the worker, rather than by the committer.
    pending.issued.xml = String::new();
    Ok((pending, handle, partial))
}

/// Threads syncing a group's files at once (started once per batch, not per group).
const SYNC_THREADS: usize = 8;
/// A group waits for this many documents (or [`GROUP_WAIT`]) before it is synced: each group costs a directory sync
/// and a synced transaction, and concurrent file syncs share their cache flushes.
const MIN_GROUP: usize = 128;
/// Longest a group waits for [`MIN_GROUP`] documents after its first one arrived.
const GROUP_WAIT: std::time::Duration = std::time::Duration::from_millis(100);
/// How long the committer sleeps between looks at the documents written while a group fills.
const GROUP_NAP: std::time::Duration = std::time::Duration::from_millis(5);

/// Files to sync, each with its index in the group, and their results.
type ToSync = Vec<(usize, File)>;
type Synced = Vec<(usize, std::io::Result<()>)>;

/// A sync thread: syncs (and closes) the files it is given until the committer hangs up.
fn sync_files(files: &Mutex<Receiver<ToSync>>, results: &std::sync::mpsc::Sender<Synced>) {
    loop {
        let next = files.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(part) = next else {
            return;
        };
        // Every file's writing is started before the first sync: the blocks are allocated and written in one pass,
        // and the bitmaps, inode table blocks and directory they share are written once by the syncs, not once each.
        #[cfg(target_os = "linux")]
        for (_, f) in &part {
            // Advice: where the kernel ignores it, the sync below still writes everything.
            let _ = rustix::fs::fadvise(f, 0, None, rustix::fs::Advice::DontNeed);
        }
        let synced = part.into_iter().map(|(i, f)| (i, f.sync_all())).collect();
        if results.send(synced).is_err() {
            return;
        }
    }
}

/// Syncs (and closes) every file of a group on the sync threads, in up to [`SYNC_THREADS`] parts; one result per
/// file, in order.
fn sync_all(
    files: Vec<File>,
    to_sync: &std::sync::mpsc::Sender<ToSync>,
    synced: &Receiver<Synced>,
) -> Vec<std::io::Result<()>> {
    let n = files.len();
    if n == 1 {
        return files.iter().map(File::sync_all).collect();
    }
    let mut results: Vec<std::io::Result<()>> = Vec::with_capacity(n);
    results.resize_with(n, || Err(std::io::Error::other("not synced")));
    let mut parts: Vec<ToSync> = (0..SYNC_THREADS.min(n)).map(|_| Vec::new()).collect();
    let count = parts.len();
    for (i, f) in files.into_iter().enumerate() {
        if let Some(part) = parts.get_mut(i % count) {
            part.push((i, f));
        }
    }
    let mut sent = 0;
    for part in parts {
        match to_sync.send(part) {
            Ok(()) => sent += 1,
            // No sync thread is left (they never return early): synced here.
            Err(std::sync::mpsc::SendError(part)) => {
                for (i, f) in part {
                    if let Some(r) = results.get_mut(i) {
                        *r = f.sync_all();
                    }
                }
            }
        }
    }
    for _ in 0..sent {
        let Ok(part) = synced.recv() else {
            break;
        };
        for (i, r) in part {
            if let Some(slot) = results.get_mut(i) {
                *slot = r;
            }
        }
    }
    results
}

/// The committer: takes the written documents as one group (at least [`MIN_GROUP`] of them, or what arrived within
/// [`GROUP_WAIT`], or the last ones), syncs each file and renames it into place, syncs the directory, then confirms
/// the group in one transaction.
fn commit(
    rx: Receiver<(Box<Written>, File)>,
    store: SqliteNumbering,
    out: &Path,
    done: &(dyn Fn(Result<Issued, Failed>) + Sync),
) {
    let (to_sync, files) = std::sync::mpsc::channel::<ToSync>();
    let (results, synced) = std::sync::mpsc::channel::<Synced>();
    let files = Mutex::new(files);
    std::thread::scope(|s| {
        for _ in 0..SYNC_THREADS {
            let (files, results) = (&files, results.clone());
            s.spawn(move || sync_files(files, &results));
        }
        drop(results);
        commit_groups(&rx, store, out, &to_sync, &synced, done);
        drop(to_sync);
    });
}

/// The committer's loop (see [`commit`]).
fn commit_groups(
    rx: &Receiver<(Box<Written>, File)>,
    mut store: SqliteNumbering,
    out: &Path,
    to_sync: &std::sync::mpsc::Sender<ToSync>,
    synced: &Receiver<Synced>,
    done: &(dyn Fn(Result<Issued, Failed>) + Sync),
) {
    // The directory, opened once to sync it after each group's renames.
    let mut dir: Option<File> = None;
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        let until = std::time::Instant::now() + GROUP_WAIT;
        // The group fills while this thread sleeps (a wake-up per document cost more than the documents' handling).
        let mut ended = false;
        loop {
            while group.len() < GROUP {
                match rx.try_recv() {
                    Ok(w) => group.push(w),
                    Err(e) => {
                        ended = e == TryRecvError::Disconnected;
                        break;
                    }
                }
            }
            let now = std::time::Instant::now();
            if group.len() >= MIN_GROUP || now >= until || ended {
                break;
            }
            std::thread::sleep(GROUP_NAP.min(until - now));
        }
        // The files are synced concurrently: the file system joins concurrent syncs (a journal commit, the disk's
        // cache flushes), where one sync after another pays for each (3–4 ms apiece on a busy disk).
        let (group, handles): (Vec<Box<Written>>, Vec<File>) = group.into_iter().unzip();
        let syncs = sync_all(handles, to_sync, synced);
        let mut stored: Vec<(String, PathBuf, Pending)> = Vec::with_capacity(group.len());
        for (w, synced) in group.into_iter().zip(syncs) {
            let path = out.join(format!("{}.xml", w.pending.issued.cdc));
            let synced = synced.and_then(|()| std::fs::rename(&w.partial, &path));
            match synced {
                Ok(()) => stored.push((w.file, path, w.pending)),
                Err(e) => {
                    let _ = std::fs::remove_file(&w.partial);
                    done(Err(failed(
                        &w.file,
                        rule::storage_file_write("", &path.display().to_string(), &e.to_string()),
                    )));
                }
            }
        }
        if stored.is_empty() {
            continue;
        }
        let (names, pending): (Vec<(String, PathBuf)>, Vec<Pending>) = stored
            .into_iter()
            .map(|(file, path, p)| ((file, path), p))
            .unzip();
        let dir_synced = match &dir {
            Some(d) => d.sync_all(),
            None => File::open(out).and_then(|d| {
                d.sync_all()?;
                dir = Some(d);
                Ok(())
            }),
        };
        let synced = dir_synced
            .map_err(|e| rule::storage_file_sync("", &out.display().to_string(), &e.to_string()));
        // Not confirmed: the numbers stay listed gaps (their files, if any, findable by CDC).
        let confirmed = synced
            .and_then(|()| confirm_all(pending, &mut store).map_err(|e| first_finding(e.findings)));
        match confirmed {
            Ok(issued) => {
                for ((file, path), issued) in names.into_iter().zip(issued) {
                    done(Ok(Issued {
                        file,
                        summary: Summary::of(&issued, Detail::Number),
                        xml: path.display().to_string(),
                    }));
                }
            }
            Err(f) => {
                for (file, _) in names {
                    done(Err(failed(&file, f.clone())));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use kuatia_core::probe;
    use kuatia_core::sign::{sandbox_test_signer, CertificateInfo, SignError, SoftwareSigner};
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The test-only signer, counting its certificate checks on every thread.
    struct Counting {
        inner: SoftwareSigner,
        checks: AtomicU32,
    }

    impl Signer for Counting {
        fn certificate_der(&self) -> &[u8] {
            self.inner.certificate_der()
        }
        fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, SignError> {
            self.inner.sign_rsa_sha256(data)
        }
        fn certificate_info(&self) -> Result<CertificateInfo, SignError> {
            self.checks.fetch_add(1, Ordering::SeqCst);
            self.inner.certificate_info()
        }
    }

    /// Validated once (issue 30): each document of a batch is validated, gets its stamp and has its certificate
    /// checked once, on the numbering thread; the signing workers decide nothing again.
    #[test]
    fn a_batch_validates_each_document_once() {
        let root = std::env::temp_dir().join(format!("kuatia-once-{}", std::process::id()));
        let (dir, out) = (root.join("in"), root.join("out"));
        std::fs::create_dir_all(&dir).unwrap();
        let request = serde_json::json!({
            "tipo_documento": 1,
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
            "condicion_pago": 1
        });
        const N: u32 = 5;
        for i in 0..N {
            std::fs::write(dir.join(format!("{i}.json")), request.to_string()).unwrap();
        }
        let args = IssueArgs {
            input: None,
            out: out.clone(),
            profile: None,
            p12: None,
            password_env: None,
            at: Some("2025-03-10T10:11:00".into()),
            batch: super::super::args::BatchArgs {
                batch: Some(dir.clone()),
                jobs: Some(2),
            },
        };
        let signer = Counting {
            inner: sandbox_test_signer().unwrap(),
            checks: AtomicU32::new(0),
        };
        probe::take();
        let outcome = run_with(&args, &dir, Some(&signer));
        let counts = probe::take();
        let written = std::fs::read_dir(&out)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "xml")
            })
            .count();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(outcome.message(), None, "{outcome:?}");
        assert_eq!(written, N as usize);
        assert_eq!(
            counts,
            probe::Counts {
                validate: N,
                stamp: N,
                certificate: N
            }
        );
        assert_eq!(signer.checks.load(Ordering::SeqCst), N);
    }
}

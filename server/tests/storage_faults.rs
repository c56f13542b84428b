//! Storage faults injected into `kuatia serve` (docs/reliability.md, "Faults injected into kuatia serve"):
//! - a data directory on a real size-limited filesystem (a tmpfs with `size=`, mounted by the test in its own mount
//!   namespace) that fills up mid-load, then gets its space back;
//! - a data directory that is read-only at start (the same tmpfs remounted read-only);
//! - the database locked by another process (a second connection holding `BEGIN EXCLUSIVE`);
//! - seeded random `SQLITE_FULL` / `SQLITE_BUSY` / `SQLITE_READONLY` on any store call (statements, `BEGIN`,
//!   `COMMIT`), which reaches the calls a real fault cannot aim at.
//!
//! Every request must either succeed and be durable (the database, reopened after the run, holds every 201's
//! invoice with its number confirmed, no number twice) or fail with 503 `STORAGE_UNAVAILABLE` and store nothing
//! but, for a create that failed after its number was reserved, that number as a listed gap; service resumes once
//! the fault is gone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{guarded, receiver, temp_dir, HANG_GUARD};
use kuatia_core::code;
use kuatia_server::faults::{FaultPlan, Injected};
use kuatia_server::store::DB_FILE;
use kuatia_server::{start, RunningServer, ServerConfig};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn config(dir: &Path) -> ServerConfig {
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c
}

fn factura() -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

struct Client {
    http: reqwest::Client,
    base: String,
    key: String,
}

/// What one request got.
#[derive(Debug)]
enum Outcome {
    /// 201: the invoice id and number.
    Created(String, String),
    /// 503 `STORAGE_UNAVAILABLE` with `Retry-After`: the message.
    Unavailable(String),
}

impl Client {
    fn new(server: &RunningServer, key: &str) -> Client {
        Client {
            http: reqwest::Client::new(),
            base: format!("http://{}", server.addr),
            key: key.to_string(),
        }
    }

    /// One create with an idempotency key; anything but a 201 or a clean 503 fails the test.
    async fn create(&self, idempotency_key: &str) -> Outcome {
        let r = self
            .http
            .post(format!("{}/v1/facturas", self.base))
            .header("Authorization", format!("Bearer {}", self.key))
            .header("X-Environment", "sandbox")
            .header("Idempotency-Key", idempotency_key)
            .header("Content-Type", "application/json")
            .body(factura().to_string())
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let retry_after = r
            .headers()
            .get("Retry-After")
            .map(|v| v.to_str().unwrap().to_string());
        let replayed = r.headers().get("Idempotent-Replayed").is_some();
        let v: Value = r.json().await.unwrap();
        match status {
            201 => {
                assert!(!replayed, "a key is only retried after a 503: {v}");
                Outcome::Created(
                    v["data"]["id"].as_str().unwrap().to_string(),
                    v["data"]["numero"].as_str().unwrap().to_string(),
                )
            }
            503 => {
                assert_eq!(v["error"]["code"], code::STORAGE_UNAVAILABLE, "{v}");
                assert_eq!(retry_after.as_deref(), Some("5"), "{v}");
                Outcome::Unavailable(v["error"]["message"].as_str().unwrap().to_string())
            }
            _ => panic!("a storage fault must give 201 or 503, got {status}: {v}"),
        }
    }

    async fn list_total(&self) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}/v1/facturas?limit=1", self.base))
            .header("Authorization", format!("Bearer {}", self.key))
            .header("X-Environment", "sandbox")
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
}

/// Sets (or with `None` ends) the fault plan of the server's store; returns the previous plan with its counters.
fn inject(server: &RunningServer, plan: Option<FaultPlan>) -> Option<FaultPlan> {
    server.with_engine(|e| match e.service.store.as_sqlite() {
        Some(s) => s.inject_faults(plan),
        None => panic!("the storage-fault tests run on SQLite"),
    })
}

/// Reopens the database after the run: every created invoice is there with its number, no number twice, nothing
/// else was stored, no number reservation is left unconfirmed, and SQLite finds the file intact.
fn assert_durable(dir: &Path, created: &BTreeMap<String, String>) {
    let conn = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let rows: Vec<(String, String)> = conn
        .prepare("SELECT id, numero FROM invoices")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let stored: BTreeMap<String, String> = rows.iter().cloned().collect();
    assert_eq!(&stored, created, "the database holds exactly the 201s");
    let numbers: BTreeSet<&String> = rows.iter().map(|(_, n)| n).collect();
    assert_eq!(numbers.len(), rows.len(), "no number twice");
    // A create reserves its number in one transaction and stores the signed invoice in another (it is signed in
    // between, outside the store): a fault in the second leaves the number reserved and unused, a listed gap
    // (`GET /v1/numbering/gaps`), never a number used twice or an invoice without its confirmed number.
    let confirmed: Vec<String> = conn
        .prepare("SELECT cdc FROM number_reservations WHERE cdc IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let cdcs: BTreeSet<String> = conn
        .prepare("SELECT cdc FROM invoices")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        confirmed.iter().cloned().collect::<BTreeSet<_>>(),
        cdcs,
        "every stored invoice's number is confirmed with its CDC, and only those"
    );
    assert_eq!(confirmed.len(), cdcs.len(), "no CDC confirmed twice");
}

/// Creates `keys` invoices, each retried with its idempotency key after every 503 (as a client told
/// `Retry-After` would, without the wait), until it is created; returns (id → number, 503s seen).
async fn create_all(
    client: &Client,
    keys: impl Iterator<Item = String>,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut created = BTreeMap::new();
    let mut refused = Vec::new();
    for key in keys {
        let mut tries = 0;
        loop {
            tries += 1;
            assert!(tries < 200, "{key} was never created");
            match client.create(&key).await {
                Outcome::Created(id, numero) => {
                    assert!(created.insert(id, numero).is_none());
                    break;
                }
                Outcome::Unavailable(m) => refused.push(m),
            }
        }
    }
    (created, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_store_faults_either_commit_or_answer_503() {
    let seed: u64 = std::env::var("KUATIA_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let dir = temp_dir("fault-random");
    let mut c = config(&dir);
    // The simulated SIFEN sends 3 s and approves 4 s after creation: partly under the faults, which end at 4.5 s.
    c.sandbox_send_after = 3;
    c.sandbox_answer_after = 4;
    c.insecure_webhooks_http = true;
    c.allow_private_webhooks = true;
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let client = Client::new(&server, &key);
    // A webhook for every approval, registered before the faults start.
    let (port, mut events) = receiver().await;
    let r = client
        .http
        .post(format!("{}/v1/webhooks", client.base))
        .header("Authorization", format!("Bearer {key}"))
        .header("X-Environment", "sandbox")
        .header("Content-Type", "application/json")
        .body(
            json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved"]})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let kinds = [Injected::Full, Injected::Busy, Injected::ReadOnly];
    // About one call in 10 fails for 4.5 s: about half the creates (some 8 calls each) meet a fault somewhere, then
    // the simulated SIFEN's first steps (at 3 s) and the webhook worker do. The faults end at a fixed time, not
    // when the creates are done: a create also carries the simulation's updates (the service advances the sandbox
    // first in every request), and a transaction of hundreds of calls would almost never commit at this rate.
    let faults_end = tokio::time::Instant::now() + Duration::from_millis(4500);
    inject(&server, Some(FaultPlan::new(seed, 10, &kinds)));
    // Four clients at once, 15 invoices each.
    let mut tasks = Vec::new();
    for c in 0..4 {
        let client = Client::new(&server, &key);
        tasks.push(tokio::spawn(async move {
            create_all(&client, (0..15).map(|i| format!("key-{c}-{i}"))).await
        }));
    }
    let mut created = BTreeMap::new();
    let mut refused = Vec::new();
    tokio::time::sleep_until(faults_end).await;
    let plan = inject(&server, None).unwrap();
    for t in tasks {
        let (c, r) = t.await.unwrap();
        created.extend(c);
        refused.extend(r);
    }
    eprintln!(
        "seed {seed}: {} calls, {} failures injected, {} answers 503, {} invoices",
        plan.calls,
        plan.injected,
        refused.len(),
        created.len()
    );
    assert_eq!(created.len(), 60);
    assert!(
        refused.len() >= 30,
        "the faults reached the requests: {}",
        refused.len()
    );
    for reason in [
        "El almacenamiento está lleno",
        "El almacenamiento es de solo lectura",
        "Otro proceso tiene bloqueado el almacenamiento",
    ] {
        assert!(
            refused.iter().any(|m| m.starts_with(reason)),
            "a 503 says '{reason}'"
        );
    }
    // Service resumes: the sandbox still advances the invoices created under faults.
    let (code, v) = client.list_total().await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["meta"]["total"], 60, "{v}");
    let (more, none) = create_all(&client, std::iter::once("after".to_string())).await;
    assert!(none.is_empty());
    created.extend(more);
    // No approval is lost: each invoice's event arrives (at least once: an attempt whose report was refused by a
    // fault is made again).
    let mut approved = BTreeSet::new();
    let mut deliveries = 0;
    let deadline = Instant::now() + HANG_GUARD;
    while approved.len() < created.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Some((_, body))) = tokio::time::timeout(left, events.recv()).await else {
            panic!(
                "{} of {} approvals delivered",
                approved.len(),
                created.len()
            );
        };
        let ev: Value = serde_json::from_str(&body).unwrap();
        let id = ev["data"]["id"].as_str().unwrap().to_string();
        assert!(created.contains_key(&id), "{id}");
        approved.insert(id);
        deliveries += 1;
    }
    eprintln!(
        "{} approvals delivered in {deliveries} POSTs",
        approved.len()
    );
    server.shutdown().await;
    assert_durable(&dir, &created);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_stays_full_read_only_or_locked_answers_503_until_it_recovers() {
    let dir = temp_dir("fault-steady");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let client = Client::new(&server, &key);
    let mut created = BTreeMap::new();
    for (kind, reason) in [
        (Injected::Full, "El almacenamiento está lleno"),
        (Injected::ReadOnly, "El almacenamiento es de solo lectura"),
        (
            Injected::Busy,
            "Otro proceso tiene bloqueado el almacenamiento",
        ),
    ] {
        inject(&server, Some(FaultPlan::new(1, 1, &[kind])));
        for i in 0..3 {
            match client.create(&format!("{kind:?}")).await {
                Outcome::Unavailable(m) => assert!(m.starts_with(reason), "{m}"),
                o => panic!("{kind:?} #{i}: {o:?}"),
            }
        }
        let (code, v) = client.list_total().await;
        assert_eq!(code, 503, "reads fail too while every call fails: {v}");
        inject(&server, None);
        // Recovery: the same key now creates the invoice (nothing of the refused attempts was kept).
        match client.create(&format!("{kind:?}")).await {
            Outcome::Created(id, n) => {
                created.insert(id, n);
            }
            o => panic!("{kind:?} after recovery: {o:?}"),
        }
    }
    server.shutdown().await;
    assert_durable(&dir, &created);
}

/// A fault that starts at the `COMMIT` of a create and lasts through its rollback: the store's cache of the sandbox's
/// in-flight invoices, which the create had already updated, cannot be rebuilt then. It must be rebuilt at the next
/// transaction, or the simulated SIFEN would keep advancing an invoice that does not exist (and hide real ones).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cache_left_by_a_failed_rollback_is_rebuilt_before_the_next_request() {
    let dir = temp_dir("fault-stale");
    let mut c = config(&dir);
    // Nothing else touches the store meanwhile (the tick runs once at start).
    c.tick_interval = Duration::from_secs(3600);
    c.deliver_webhooks = false;
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let client = Client::new(&server, &key);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // How many calls a create makes, its COMMIT being the last.
    inject(
        &server,
        Some(FaultPlan::new(0, u64::MAX, &[Injected::Full])),
    );
    let Outcome::Created(first, _) = client.create("count").await else {
        panic!("no fault yet")
    };
    let calls = inject(&server, None).unwrap().calls;
    inject(&server, Some(FaultPlan::from_call(calls, Injected::Full)));
    match client.create("phantom").await {
        Outcome::Unavailable(m) => assert!(m.starts_with("El almacenamiento está lleno"), "{m}"),
        o => panic!("{o:?}"),
    }
    inject(&server, None);
    let (code, v) = client.list_total().await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["meta"]["total"], 1, "{v}");
    let cached: BTreeSet<String> = server.with_engine(|e| {
        use kuatia_service::Store;
        e.service
            .store
            .simulated_in_flight()
            .into_iter()
            .map(|i| i.id)
            .collect()
    });
    assert_eq!(
        cached,
        BTreeSet::from([first.clone()]),
        "the cache is the database's"
    );
    server.shutdown().await;
    assert_durable(
        &dir,
        &BTreeMap::from([(first, "001-001-0000001".to_string())]),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_locked_by_another_process_is_a_bounded_wait_then_503() {
    let dir = temp_dir("fault-locked");
    let mut c = config(&dir);
    // The tick would queue behind the lock too; this test looks at one request's wait.
    c.tick_interval = Duration::from_secs(3600);
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let client = Client::new(&server, &key);
    let mut created = BTreeMap::new();
    if let Outcome::Created(id, n) = client.create("before").await {
        created.insert(id, n);
    } else {
        panic!("no fault yet");
    }
    // Another process's connection takes the write lock and keeps it: the create does not wait forever (an answer
    // comes while the lock is still held, under the hang guard) and that answer is a clean 503.
    let other = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    match guarded(
        "an answer while the database is locked",
        client.create("while-locked"),
    )
    .await
    {
        Outcome::Unavailable(m) => {
            assert!(
                m.starts_with("Otro proceso tiene bloqueado el almacenamiento"),
                "{m}"
            )
        }
        o => panic!("{o:?}"),
    }
    // It waits for the lock rather than failing at once (SQLite's busy_timeout, 5 s): a lock let go while the create
    // waits does not fail it. SQLite shows no waiter from outside (no pg_stat_activity), so the lock is let go a
    // moment after the request is sent; that delay orders the two, it asserts nothing. Without a busy timeout the
    // create answers 503 at once and this fails.
    let (released, let_go) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let _ = let_go.recv();
        std::thread::sleep(Duration::from_millis(500));
        other.execute_batch("COMMIT").unwrap();
        other
    });
    let waiting = client.create("while-briefly-locked");
    released.send(()).unwrap();
    match guarded("the create that waited for the lock", waiting).await {
        Outcome::Created(id, n) => {
            created.insert(id, n);
        }
        o => panic!("a lock let go within the busy timeout failed the create: {o:?}"),
    }
    let other = holder.join().unwrap();
    match client.create("while-locked").await {
        Outcome::Created(id, n) => {
            created.insert(id, n);
        }
        o => panic!("after the lock: {o:?}"),
    }
    drop(other);
    server.shutdown().await;
    assert_durable(&dir, &created);
}

// ---- Real filesystems: a tmpfs mounted in the test's own mount namespace ----

const NS_DIR: &str = "KUATIA_FAULT_NS_DIR";

/// Runs test `name` again, alone, in a new mount namespace (inside a user namespace where allowed) where `dir` is a
/// fresh tmpfs of `size`; the test, seeing `NS_DIR`, then does its work (and the caller, seeing `None`, has nothing
/// left to do). Fails, never skips, when no mount namespace can be made.
fn in_namespace(name: &str, size: &str) -> Option<PathBuf> {
    if let Ok(dir) = std::env::var(NS_DIR) {
        return Some(PathBuf::from(dir));
    }
    let dir = temp_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let script = format!(
        "mount -t tmpfs -o size={size},mode=0700 kuatia-fault \"$0\" && exec \"$1\" --exact {name} --nocapture --test-threads=1"
    );
    // A user namespace first (works without root where unprivileged user namespaces are allowed), else a mount
    // namespace alone (root with CAP_SYS_ADMIN, where user namespaces are disabled).
    let mut tried = Vec::new();
    for userns in [true, false] {
        let mut cmd = Command::new("unshare");
        if userns {
            cmd.args(["--user", "--map-root-user"]);
        }
        let out = cmd
            .args(["--mount", "--propagation", "private", "sh", "-c", &script])
            .arg(dir.as_os_str())
            .arg(&exe)
            .env(NS_DIR, dir.as_os_str())
            .output()
            .expect("unshare (util-linux) runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if text.contains("unshare failed") || text.contains("cannot open /proc/self/uid_map") {
            tried.push(text);
            continue;
        }
        eprintln!("{text}");
        assert!(
            out.status.success() && text.contains("1 passed"),
            "the test in its mount namespace failed"
        );
        return None;
    }
    panic!(
        "no mount namespace could be made for a size-limited tmpfs (needs unprivileged user namespaces, or root with \
         CAP_SYS_ADMIN, and util-linux's unshare): {tried:?}"
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Fills the filesystem of `dir` with a ballast file, then gives `free` bytes back.
fn fill(dir: &Path, free: u64) -> PathBuf {
    let path = dir.join("ballast");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    let mut len = 0u64;
    loop {
        match f.write(&chunk) {
            Ok(0) => break,
            Ok(n) => len += n as u64,
            Err(e) => {
                assert_eq!(e.raw_os_error(), Some(28), "{e}"); // ENOSPC
                break;
            }
        }
    }
    f.set_len(len.saturating_sub(free)).unwrap();
    f.sync_all().unwrap();
    path
}

#[test]
fn a_data_directory_that_fills_up_mid_load() {
    let Some(mount) = in_namespace("a_data_directory_that_fills_up_mid_load", "8m") else {
        return;
    };
    runtime().block_on(async move {
        let dir = mount.join("data");
        let server = start(config(&dir)).await.unwrap();
        let key = server.new_sandbox_key.clone().unwrap();
        let client = Client::new(&server, &key);
        let ballast = fill(&mount, 512 * 1024);
        // Load until the disk is full: creates succeed, then answer 503 "full" and change nothing (10 in a row).
        let mut created = BTreeMap::new();
        let (mut full, mut refused) = (0, 0);
        let mut seen = BTreeSet::new();
        let mut i = 0;
        while full < 10 {
            i += 1;
            assert!(i < 400, "the disk never filled up");
            match client.create(&format!("k{i}")).await {
                Outcome::Created(id, n) => {
                    full = 0;
                    created.insert(id, n);
                }
                Outcome::Unavailable(m) => {
                    assert!(
                        m.starts_with("El almacenamiento está lleno")
                            || m.starts_with("Falló el dispositivo de almacenamiento"),
                        "{m}"
                    );
                    seen.insert(m);
                    full += 1;
                    refused += 1;
                }
            }
        }
        eprintln!(
            "{} invoices stored while the disk filled up, {refused} refused: {seen:?}",
            created.len()
        );
        assert!(
            created.len() >= 2,
            "the load started before the disk was full"
        );
        // Space returns: the refused key is created, and new ones.
        std::fs::remove_file(&ballast).unwrap();
        let (more, refused) = create_all(&client, (i..i + 5).map(|k| format!("k{k}"))).await;
        assert!(refused.is_empty(), "{refused:?}");
        created.extend(more);
        let (code, v) = client.list_total().await;
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["meta"]["total"], created.len(), "{v}");
        server.shutdown().await;
        assert_durable(&dir, &created);
    });
}

#[test]
fn a_read_only_data_directory_at_start() {
    let Some(mount) = in_namespace("a_read_only_data_directory_at_start", "8m") else {
        return;
    };
    runtime().block_on(async move {
        let dir = mount.join("data");
        let server = start(config(&dir)).await.unwrap();
        let key = server.new_sandbox_key.clone().unwrap();
        let client = Client::new(&server, &key);
        let (created, _) = create_all(&client, std::iter::once("one".to_string())).await;
        server.shutdown().await;
        let remount = |mode: &str| {
            let ok = Command::new("mount")
                // The mount's own flag (`bind`): a tmpfs made in a user namespace cannot remount its superblock.
                .args(["-o", &format!("remount,bind,{mode}")])
                .arg(&mount)
                .status()
                .unwrap()
                .success();
            assert!(ok, "remount {mode}");
        };
        remount("ro");
        let e = start(config(&dir)).await.unwrap_err();
        eprintln!("start on a read-only data directory: {e}");
        assert!(e.contains(&dir.display().to_string()), "{e}");
        assert!(e.contains("Read-only file system"), "{e}");
        remount("rw");
        let server = start(config(&dir)).await.unwrap();
        assert!(server.new_sandbox_key.is_none(), "the same data directory");
        let client = Client::new(&server, &key);
        let (code, v) = client.list_total().await;
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["meta"]["total"], 1, "{v}");
        server.shutdown().await;
        assert_durable(&dir, &created);
    });
}

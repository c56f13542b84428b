//! In-process baseline of the server's creates (issue 15): `POST /v1/facturas` straight into [`Service::handle`], no
//! HTTP, on 1 and on 2 threads at once. Each thread owns its own service over its own store, so the threads share
//! nothing but the machine:
//! - `memory`: the core's [`MemoryStore`] and the server's host ([`SystemHost`]: system clock, OS randomness, the
//!   built-in sandbox signer): what `handle` itself costs, the baseline `scripts/bench.sh` compares the server with;
//! - `sqlite`: the server's store ([`SqliteStore`] in a temporary directory, `synchronous = FULL`) with one
//!   transaction, so one sync, per create, for reference: the server shares one sync among the requests that wait
//!   together (group commit), which an in-process loop of single requests cannot.
//!
//! Every create carries its own `Idempotency-Key` and the invoice of `server/benches/load.rs` and `scripts/wrk/`; every
//! answer must be a 201. Each run lasts `KUATIA_INPROC_SECONDS` (5) after a short warm-up.
//!
//! Writes `target/inproc-report.json` {seconds, runs: {memory: {threads_1, threads_2}, sqlite: {threads_2}}, each
//! with creates, creates_per_s, the threads' CPU time and run-queue wait, loadavg before/after}; the figure
//! `scripts/bench.sh` compares `kuatia serve` with is `runs.memory.threads_2.creates_per_s`. Run with
//! `cargo bench -p kuatia-server --bench inproc`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use kuatia_server::backend::HostStore;
use kuatia_server::{SqliteStore, SystemHost};
use kuatia_service::{Config, HttpRequest, MemoryStore, Service};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// The `kuatia` binary's allocator (cli/src/main.rs): `kuatia serve` and this bench allocate alike.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Creates per thread before the clock starts (first pages of the database, caches, branch predictors).
const WARM_UP: usize = 100;

/// Nanoseconds this thread has run on a CPU and waited for one (`/proc/thread-self/schedstat`; zeros elsewhere).
fn schedstat() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let mut f = text.split_whitespace().map(|v| v.parse().unwrap_or(0));
    (f.next().unwrap_or(0), f.next().unwrap_or(0))
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The invoice of `server/benches/load.rs`'s `factura(i)`, as text.
fn factura(tag: &str) -> String {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": format!("Servicio {tag}"), "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string()
}

/// A create as the server hands it to the core (axum gives header names in lower case).
fn create(key: &str, tag: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers: vec![
            ("authorization".into(), format!("Bearer {key}")),
            ("x-environment".into(), "sandbox".into()),
            ("idempotency-key".into(), format!("inproc-{tag}")),
            ("content-type".into(), "application/json".into()),
        ],
        body: factura(tag).into_bytes(),
    }
}

/// One thread's service: `handle` one request inside whatever transaction its store needs.
trait Worker {
    fn account(&mut self) -> String;
    fn create(&mut self, req: &HttpRequest) -> u16;
}

fn host() -> SystemHost {
    let sandbox = kuatia_core::sign::sandbox_test_signer().expect("built-in sandbox certificate");
    SystemHost::new(Some(sandbox), None).expect("OS random generator")
}

struct Sqlite {
    svc: Service<SqliteStore>,
    host: SystemHost,
}

impl Worker for Sqlite {
    fn account(&mut self) -> String {
        self.svc.store.begin().expect("BEGIN");
        let (_, key) = self.svc.create_account("inproc", &mut self.host);
        self.svc.store.finish().expect("COMMIT");
        key
    }
    fn create(&mut self, req: &HttpRequest) -> u16 {
        // What the server's handler does around `handle` (Engine::transact): BEGIN IMMEDIATE … COMMIT.
        if self.svc.store.begin().is_err() {
            return 0;
        }
        let status = self.svc.handle(req, &mut self.host).status;
        match self.svc.store.finish() {
            Ok(()) => status,
            Err(_) => 0,
        }
    }
}

struct Memory {
    svc: Service<MemoryStore>,
    host: SystemHost,
}

impl Worker for Memory {
    fn account(&mut self) -> String {
        self.svc.create_account("inproc", &mut self.host).1
    }
    fn create(&mut self, req: &HttpRequest) -> u16 {
        self.svc.handle(req, &mut self.host).status
    }
}

fn worker(kind: &str, dir: &Path) -> Box<dyn Worker> {
    match kind {
        "sqlite" => Box::new(Sqlite {
            svc: Service::new(SqliteStore::open(dir).expect("SQLite store"), config()),
            host: host(),
        }),
        _ => Box::new(Memory {
            svc: Service::new(MemoryStore::default(), config()),
            host: host(),
        }),
    }
}

fn config() -> Config {
    Config {
        base_url: "http://127.0.0.1:8080".into(),
        ..Config::default()
    }
}

/// `threads` threads, each with its own service, creating for `seconds` after the warm-up.
fn run(kind: &str, threads: usize, seconds: f64, root: &Path) -> Value {
    let start = Arc::new(Barrier::new(threads + 1));
    let load_before = loadavg();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (start, dir, kind) = (
                start.clone(),
                root.join(format!("{kind}-{threads}-{t}")),
                kind.to_string(),
            );
            std::thread::spawn(move || {
                let mut w = worker(&kind, &dir);
                let key = w.account();
                let mut bad = 0usize;
                for i in 0..WARM_UP {
                    bad += usize::from(w.create(&create(&key, &format!("w{t}-{i}"))) != 201);
                }
                start.wait();
                let t0 = Instant::now();
                let sched0 = schedstat();
                let limit = Duration::from_secs_f64(seconds);
                let mut n = 0usize;
                while t0.elapsed() < limit {
                    // The request is built per create, as the server builds one from each HTTP request.
                    bad += usize::from(w.create(&create(&key, &format!("{t}-{n}"))) != 201);
                    n += 1;
                }
                let sched1 = schedstat();
                let cpu = (sched1.0 - sched0.0) as f64 / 1e9;
                let waited = (sched1.1 - sched0.1) as f64 / 1e9;
                (n, t0.elapsed().as_secs_f64(), bad, cpu, waited)
            })
        })
        .collect();
    start.wait();
    let results: Vec<(usize, f64, usize, f64, f64)> = handles
        .into_iter()
        .map(|h| h.join().expect("bench thread"))
        .collect();
    let creates: usize = results.iter().map(|r| r.0).sum();
    let wall = results.iter().map(|r| r.1).fold(0.0, f64::max);
    let non_201: usize = results.iter().map(|r| r.2).sum();
    let per_s = creates as f64 / wall;
    let cpu: f64 = results.iter().map(|r| r.3).sum();
    let waited: f64 = results.iter().map(|r| r.4).sum();
    json!({
        "threads": threads,
        "creates": creates,
        "seconds": (wall * 100.0).round() / 100.0,
        "creates_per_s": (per_s * 10.0).round() / 10.0,
        "us_per_create_per_thread": (threads as f64 * 1e6 / per_s * 10.0).round() / 10.0,
        "non_201": non_201,
        // Run-queue wait: time the threads were ready but the machine's CPUs were busy with something else.
        "cpu_s": (cpu * 100.0).round() / 100.0,
        "runqueue_wait_s": (waited * 100.0).round() / 100.0,
        "us_cpu_per_create": (cpu * 1e6 / creates.max(1) as f64 * 10.0).round() / 10.0,
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
    })
}

fn report_path() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("inproc-report.json")
}

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; there is nothing to filter.
    let seconds: f64 = std::env::var("KUATIA_INPROC_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|s: &f64| *s > 0.0)
        .unwrap_or(5.0);
    let root = std::env::temp_dir().join(format!("kuatia-inproc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let memory_1 = run("memory", 1, seconds, &root);
    let memory_2 = run("memory", 2, seconds, &root);
    let sqlite_2 = run("sqlite", 2, seconds, &root);
    let _ = std::fs::remove_dir_all(&root);
    let report = json!({
        "what": "POST /v1/facturas through Service::handle in-process, each thread with its own service and store",
        "seconds": seconds,
        "warm_up_per_thread": WARM_UP,
        "runs": {
            "memory": {"threads_1": memory_1, "threads_2": memory_2},
            "sqlite": {"threads_2": sqlite_2},
        },
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "build": if cfg!(debug_assertions) { "debug" } else { "optimized" },
    });
    let text = serde_json::to_string_pretty(&report).expect("report");
    println!("{text}");
    let path = report_path();
    if let Err(e) = std::fs::write(&path, format!("{text}\n")) {
        eprintln!("inproc: {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("written: {}", path.display());
    let bad: u64 = [&memory_1, &memory_2, &sqlite_2]
        .iter()
        .map(|r| r["non_201"].as_u64().unwrap_or(1))
        .sum();
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("inproc: {bad} creates were not answered 201");
        ExitCode::FAILURE
    }
}

//! Load test of `kuatia serve` (issue #9): the real server on a loopback port, `KUATIA_LOAD_CREATES` (10 000)
//! `POST /v1/facturas` with `Idempotency-Key` headers from `KUATIA_LOAD_CLIENTS` (64) concurrent clients, then a
//! concurrent replay of a sample of the keys (same invoice back, nothing created) and a count through
//! `GET /v1/facturas`: exactly one invoice per key, no duplicated id or `numero`.
//!
//! Prints and writes `target/load-report.json` {creates, clients, seconds, creates_per_s, p50_ms, p99_ms, max_ms,
//! lost, duplicated, …}; exits non-zero when anything was lost, duplicated or failed, or when the whole run exceeds
//! `KUATIA_LOAD_TIMEOUT_S` (600 s). Run with `cargo bench -p kuatia-server --bench load`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use kuatia_server::{start, ServerConfig};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Attempts per create: a transport error or a 5xx is retried with the same key, as a real client would.
const ATTEMPTS: usize = 3;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn factura(i: usize) -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": format!("Servicio {i}"), "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

/// One create as a client sees it.
struct Outcome {
    i: usize,
    status: u16,
    id: String,
    elapsed: Duration,
    retries: usize,
}

struct Client {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Client {
    async fn create(&self, i: usize, body: &Value) -> Result<(u16, Value), String> {
        let r = self
            .http
            .post(format!("{}/v1/facturas", self.base))
            .bearer_auth(&self.key)
            .header("X-Environment", "sandbox")
            .header("Idempotency-Key", format!("load-{i}"))
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = r.status().as_u16();
        let v: Value = r.json().await.map_err(|e| e.to_string())?;
        Ok((status, v))
    }

    /// A create retried on transport errors and 5xx with the same idempotency key.
    async fn create_retrying(&self, i: usize) -> Outcome {
        let body = factura(i);
        let t = Instant::now();
        let mut last = (0, String::new());
        for attempt in 0..ATTEMPTS {
            match self.create(i, &body).await {
                Ok((status, v)) if status < 500 => {
                    let id = v["data"]["id"].as_str().unwrap_or_default().to_string();
                    return Outcome {
                        i,
                        status,
                        id,
                        elapsed: t.elapsed(),
                        retries: attempt,
                    };
                }
                Ok((status, v)) => last = (status, v["error"]["code"].to_string()),
                Err(e) => last = (0, e),
            }
        }
        eprintln!(
            "load-{i}: failed after {ATTEMPTS} attempts: {} {}",
            last.0, last.1
        );
        Outcome {
            i,
            status: last.0,
            id: String::new(),
            elapsed: t.elapsed(),
            retries: ATTEMPTS - 1,
        }
    }
}

/// Runs `per_client` on `clients` tasks that share a counter over `0..n`; returns every result.
async fn fan_out<T: Send + 'static, F, Fut>(
    clients: usize,
    n: usize,
    make: impl Fn() -> Arc<Client>,
    per_client: F,
) -> Vec<T>
where
    F: Fn(Arc<Client>, usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = T> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (client, next, f) = (make(), next.clone(), per_client.clone());
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                out.push(f(client.clone(), i).await);
            }
            out
        }));
    }
    let mut all = Vec::with_capacity(n);
    for t in tasks {
        all.extend(t.await.expect("client task"));
    }
    all
}

fn data_dir() -> PathBuf {
    std::env::temp_dir().join(format!("kuatia-load-{}", std::process::id()))
}

fn report_path() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("load-report.json")
}

async fn run(creates: usize, clients: usize) -> Result<Value, String> {
    let dir = data_dir();
    let _ = std::fs::remove_dir_all(&dir);
    // KUATIA_LOAD_DATABASE: an empty PostgreSQL database instead of SQLite; KUATIA_LOAD_NODES servers over it, the
    // clients spread over them in turn.
    let database = std::env::var("KUATIA_LOAD_DATABASE").ok();
    let nodes = if database.is_some() {
        env_usize("KUATIA_LOAD_NODES", 1)
    } else {
        1
    };
    let mut servers = Vec::new();
    for n in 0..nodes {
        let mut config = ServerConfig::new(dir.clone());
        config.addr = "127.0.0.1:0".parse().expect("loopback address");
        config.deliver_webhooks = false;
        config.db_pool = env_usize("KUATIA_LOAD_DB_POOL", 1);
        config.database = database.clone().map(|url| kuatia_server::pg::PgOptions {
            url,
            statement_timeout: Some(Duration::from_secs(30)),
            node_id: format!("load{n}"),
            ca_file: std::env::var_os("KUATIA_TEST_DATABASE_CA").map(Into::into),
        });
        // Otherwise the core's defaults: invoices move pending → sent → approved on the background tick meanwhile.
        servers.push(start(config).await?);
    }
    let server = servers.remove(0);
    let key = server
        .new_sandbox_key
        .clone()
        .ok_or("fresh data directory without a sandbox key")?;
    let base = format!("http://{}", server.addr);
    let bases: Vec<String> = std::iter::once(base.clone())
        .chain(servers.iter().map(|s| format!("http://{}", s.addr)))
        .collect();
    let turn = AtomicUsize::new(0);
    let make = || {
        Arc::new(Client {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(120))
                .build()
                .expect("http client"),
            base: bases[turn.fetch_add(1, Ordering::Relaxed) % bases.len()].clone(),
            key: key.clone(),
        })
    };
    let load_before = loadavg();

    // 1. The creates.
    let started = Instant::now();
    let results = fan_out(clients, creates, make, |c, i| async move {
        c.create_retrying(i).await
    })
    .await;
    let seconds = started.elapsed().as_secs_f64();
    let load_after = loadavg();
    let failed = results
        .iter()
        .filter(|r| r.status != 201 || r.id.is_empty())
        .count();
    let retries: usize = results.iter().map(|r| r.retries).sum();
    let by_key: HashMap<usize, String> = results
        .iter()
        .filter(|r| r.status == 201 && !r.id.is_empty())
        .map(|r| (r.i, r.id.clone()))
        .collect();
    let mut lat: Vec<Duration> = results.iter().map(|r| r.elapsed).collect();
    lat.sort();
    let ms = |d: Duration| (d.as_secs_f64() * 1e4).round() / 10.0;
    let pct = |p: usize| ms(lat[(lat.len() * p / 100).min(lat.len() - 1)]);

    // 2. Replays of every 50th key (at least one), concurrently: the same invoice back, nothing created. One replay
    //    with another body must be refused.
    let sample: Vec<usize> = (0..creates).step_by(50).collect();
    let sample = Arc::new(sample);
    let replays = {
        let sample = sample.clone();
        fan_out(clients, sample.len(), make, move |c, j| {
            let i = sample[j];
            async move { (i, c.create(i, &factura(i)).await) }
        })
        .await
    };
    let mut replay_mismatches = 0;
    for (i, r) in &replays {
        let same = matches!(r, Ok((201, v)) if v["data"]["id"].as_str() == by_key.get(i).map(String::as_str));
        if !same {
            eprintln!("replay load-{i}: {r:?}, first answer {:?}", by_key.get(i));
            replay_mismatches += 1;
        }
    }
    let conflict = make().create(0, &factura(creates + 1)).await;
    let conflict_refused =
        matches!(&conflict, Ok((409, v)) if v["error"]["code"] == "IDEMPOTENCY_CONFLICT");
    if !conflict_refused {
        eprintln!("replay of load-0 with another body: {conflict:?}");
    }

    // 3. Everything stored, through the API: one invoice per key, every id and every numero once.
    let client = make();
    let (mut listed, mut ids, mut numeros) = (0usize, HashSet::new(), HashSet::new());
    let mut reported_total = Value::Null;
    for page in 1.. {
        let r = client
            .http
            .get(format!("{base}/v1/facturas?per_page=100&page={page}"))
            .bearer_auth(&key)
            .header("X-Environment", "sandbox")
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if r.status() != 200 {
            return Err(format!("GET /v1/facturas page {page}: {}", r.status()));
        }
        let v: Value = r.json().await.map_err(|e| e.to_string())?;
        reported_total = v["meta"]["total"].clone();
        let data = v["data"].as_array().ok_or("list without data")?;
        if data.is_empty() {
            break;
        }
        for inv in data {
            listed += 1;
            ids.insert(inv["id"].as_str().unwrap_or_default().to_string());
            numeros.insert(inv["numero"].as_str().unwrap_or_default().to_string());
        }
    }
    let returned: HashSet<&String> = by_key.values().collect();
    // Lost: a key without a stored invoice (failed, or answered with an id that is not stored).
    let lost = failed + by_key.values().filter(|id| !ids.contains(*id)).count();
    // Duplicated: an id or numero listed twice, two keys answered with one invoice, or a stored invoice that no key
    // was answered with (a retry that created a second one).
    let duplicated = (listed - ids.len())
        + (listed - numeros.len())
        + (by_key.len() - returned.len())
        + ids.iter().filter(|id| !returned.contains(id)).count();

    server.shutdown().await;
    for s in servers {
        s.shutdown().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(json!({
        "store": if database.is_some() { "postgres" } else { "sqlite" },
        "nodes": nodes,
        "creates": creates,
        "clients": clients,
        "seconds": (seconds * 100.0).round() / 100.0,
        "creates_per_s": (creates as f64 / seconds * 10.0).round() / 10.0,
        "p50_ms": pct(50),
        "p99_ms": pct(99),
        "max_ms": ms(lat.last().copied().unwrap_or_default()),
        "lost": lost,
        "duplicated": duplicated,
        "failed": failed,
        "retries": retries,
        "stored": listed,
        "meta_total": reported_total,
        "replays": replays.len(),
        "replay_mismatches": replay_mismatches,
        "conflict_refused": conflict_refused,
        "machine": {"cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
                    "loadavg_before": load_before, "loadavg_after": load_after},
        "build": if cfg!(debug_assertions) { "debug" } else { "optimized" },
    }))
}

/// The `kuatia` binary's allocator (cli/src/main.rs): `kuatia serve` and this bench allocate alike.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let creates = env_usize("KUATIA_LOAD_CREATES", 10_000);
    let clients = env_usize("KUATIA_LOAD_CLIENTS", 64);
    let limit = Duration::from_secs(env_usize("KUATIA_LOAD_TIMEOUT_S", 600) as u64);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = rt.block_on(async { tokio::time::timeout(limit, run(creates, clients)).await });
    // Whatever is still in flight after a timeout or an error is dropped with the runtime.
    rt.shutdown_timeout(Duration::from_secs(5));
    let report = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            eprintln!("load: {e}");
            return ExitCode::FAILURE;
        }
        Err(_) => {
            let _ = std::fs::remove_dir_all(data_dir());
            eprintln!("load: not finished within {} s", limit.as_secs());
            return ExitCode::FAILURE;
        }
    };
    let text = serde_json::to_string_pretty(&report).expect("report");
    println!("{text}");
    let path = report_path();
    if let Err(e) = std::fs::write(&path, format!("{text}\n")) {
        eprintln!("load: {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("written: {}", path.display());
    let ok = report["lost"] == 0
        && report["duplicated"] == 0
        && report["failed"] == 0
        && report["replay_mismatches"] == 0
        && report["conflict_refused"] == true
        && report["meta_total"] == creates
        && report["stored"] == creates;
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("load: FAILED (lost, duplicated, failed or replayed wrongly; see the report)");
        ExitCode::FAILURE
    }
}

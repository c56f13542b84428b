//! Several `kuatia serve` nodes over one PostgreSQL (issue 18's "done when"): three `kuatia serve --database`
//! processes on loopback in production mode, a fake SIFEN (TLS 1.2, client certificate required, SIFEN's answers;
//! the one of tests/sifen.rs) and a webhook receiver. 64 clients create invoices with idempotency keys spread over the
//! nodes (some keys sent to two nodes at once); one node is SIGKILLed and restarted during the run. Then: no invoice
//! lost or duplicated, no number twice, every document reached SIFEN once (a document whose node died mid-call is
//! queried by CDC by another node, never sent blindly again), every approval reached the webhook at least once, and a
//! redelivery carries the same event id.
//!
//! Run through `scripts/pg-test.sh` (it starts PostgreSQL); `KUATIA_NODES_CREATES` sets the number of creates (600
//! by default; `scripts/nodes-load.sh` runs 10 000). The `kuatia` binary comes from the same target directory (built
//! by `cargo test --workspace`, or `cargo build -p kuatia-cli`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../service/tests/common/fake_sifen.rs"]
mod fake_sifen;

use common::pki::{pki, Pki};
use common::tls::ExpectClient;
use fake_sifen::FakeSifen;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Starts the fake SIFEN (TLS 1.2 only, the client must present `client_cert`); returns its port and state.
async fn fake_sifen(pki: &Pki, client_cert: Vec<u8>) -> (u16, Arc<Mutex<FakeSifen>>) {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS12])
        .unwrap()
        .with_client_cert_verifier(Arc::new(ExpectClient {
            expected: vec![client_cert],
            provider,
            presented: Arc::default(),
        }))
        .with_single_cert(
            vec![CertificateDer::from(pki.cert.clone())],
            PrivateKeyDer::Pkcs8(pki.key.clone().into()),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let sifen = Arc::new(Mutex::new(FakeSifen::new()));
    let s = sifen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, sifen) = (acceptor.clone(), s.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(
                    move |req: hyper::Request<hyper::body::Incoming>| {
                        let sifen = sifen.clone();
                        async move {
                            let body = req.into_body().collect().await?.to_bytes();
                            // SIFEN takes its time: jobs are in flight when a node is killed.
                            tokio::time::sleep(Duration::from_millis(150)).await;
                            let reply = sifen
                                .lock()
                                .unwrap()
                                .answer(&String::from_utf8_lossy(&body));
                            let (status, content_type, body) = match reply {
                                fake_sifen::Reply::Http {
                                    status,
                                    content_type,
                                    body,
                                } => (status, content_type, body),
                                fake_sifen::Reply::Silence => (504, "text/plain", String::new()),
                            };
                            Ok::<_, hyper::Error>(
                                hyper::Response::builder()
                                    .status(status)
                                    .header("content-type", content_type)
                                    .body(Full::new(Bytes::from(body)))
                                    .unwrap(),
                            )
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    (port, sifen)
}

/// Every webhook POST received: (event id, event type, invoice id).
type Received = Arc<Mutex<Vec<(String, String, String)>>>;

async fn webhook_receiver() -> (u16, Received) {
    let seen: Received = Arc::default();
    async fn hook(
        axum::extract::State(seen): axum::extract::State<Received>,
        body: String,
    ) -> &'static str {
        let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        seen.lock().unwrap().push((
            v["id"].as_str().unwrap_or_default().to_string(),
            v["type"].as_str().unwrap_or_default().to_string(),
            v["data"]["id"].as_str().unwrap_or_default().to_string(),
        ));
        "ok"
    }
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(hook))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, seen)
}

/// A new, empty database on the test server (`scripts/pg-test.sh`); fails (never skips) without one.
fn fresh_database() -> String {
    let url = std::env::var("KUATIA_TEST_DATABASE_URL").unwrap_or_else(|_| {
        panic!(
            "KUATIA_TEST_DATABASE_URL is not set: run with \
             `bash scripts/pg-test.sh cargo test -p kuatia-server --test nodes` (it starts PostgreSQL)"
        )
    });
    let name = format!("kuatia_nodes_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    format!("{}/{name}", url.rsplit_once('/').unwrap().0)
}

/// The `kuatia` binary of this target directory.
fn kuatia_bin() -> PathBuf {
    if let Ok(p) = std::env::var("KUATIA_BIN") {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/nodes-… → target/<profile>/kuatia
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("kuatia");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p kuatia-cli`",
        bin.display()
    );
    bin
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

const P12_PASSWORD_ENV: &str = "KUATIA_NODES_P12_PASSWORD";

/// One `kuatia serve` process.
struct Node {
    name: String,
    port: u16,
    child: Option<Child>,
}

struct Cluster {
    dir: PathBuf,
    database: String,
    sifen_port: u16,
}

impl Cluster {
    fn args(&self, name: &str, port: u16) -> Vec<String> {
        let certs = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/certs");
        [
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--database",
            &self.database,
            "--node-id",
            name,
            "--database-ca",
            &std::env::var("KUATIA_TEST_DATABASE_CA").unwrap_or_default(),
            "--data",
            &self.dir.join(name).display().to_string(),
            "--p12",
            &format!("{certs}/sandbox.p12"),
            "--password-env",
            P12_PASSWORD_ENV,
            "--production-profile",
            &self.dir.join("profile.json").display().to_string(),
            "--sifen-url",
            &format!("https://127.0.0.1:{}", self.sifen_port),
            "--sifen-ca",
            &self.dir.join("ca.pem").display().to_string(),
            "--sifen-timeout",
            "2",
            "--sifen-lease",
            "4",
            "--tick-ms",
            "100",
            "--insecure-webhooks-http",
            "--allow-private-webhooks",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// Starts a node and waits for its startup line.
    fn start(&self, node: &mut Node) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{}.log", node.name)))
            .unwrap();
        let mut child = Command::new(kuatia_bin())
            .args(self.args(&node.name, node.port))
            .env(P12_PASSWORD_ENV, "kuatia-test")
            .env_remove("KUATIA_DATABASE_URL")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let started: Value = serde_json::from_str(&line).unwrap_or_else(|_| {
            panic!(
                "{} did not start ({line:?}); see {}",
                node.name,
                self.dir.join(format!("{}.log", node.name)).display()
            )
        });
        assert_eq!(
            started["listening"],
            format!("127.0.0.1:{}", node.port),
            "{started}"
        );
        node.child = Some(child);
    }
}

impl Node {
    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SIGKILL: no graceful anything.
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

fn factura(n: usize) -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": format!("Cliente {n}"), "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000 + n, "iva": 10}],
        "condicion_pago": 1
    })
}

/// Creates invoice `n` with its idempotency key on `port`: the invoice id, or why not (connection refused while a
/// node is down, a 5xx).
async fn create(http: &reqwest::Client, port: u16, key: &str, n: usize) -> Result<String, String> {
    let r = http
        .post(format!("http://127.0.0.1:{port}/v1/facturas"))
        .header("Idempotency-Key", key)
        .header("Content-Type", "application/json")
        .body(factura(n).to_string())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let v: Value = r.json().await.map_err(|e| e.to_string())?;
    if status == 201 {
        Ok(v["data"]["id"].as_str().unwrap().to_string())
    } else {
        Err(format!("HTTP {status}: {v}"))
    }
}

/// Runs `f` on a fresh connection off the async threads (the sync client blocks).
async fn sql<T: Send + 'static>(
    url: &str,
    f: impl FnOnce(&mut postgres::Client) -> T + Send + 'static,
) -> T {
    let url = url.to_string();
    tokio::task::spawn_blocking(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        f(&mut c)
    })
    .await
    .unwrap()
}

async fn count(url: &str, query: &'static str) -> i64 {
    sql(url, move |c| c.query_one(query, &[]).unwrap().get(0)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_share_the_work_through_a_node_crash() {
    let total: usize = std::env::var("KUATIA_NODES_CREATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let clients = 64;
    // Removed on drop, also when the test fails half-way.
    let dir = common::temp_dir("nodes");
    std::fs::create_dir_all(&dir).unwrap();
    let pki = pki(&dir);
    std::fs::write(
        dir.join("profile.json"),
        serde_json::to_string(&kuatia_core::profile::Emisor::sandbox()).unwrap(),
    )
    .unwrap();
    let signer = kuatia_core::sign::sandbox_test_signer().unwrap();
    let (sifen_port, sifen) = fake_sifen(
        &pki,
        kuatia_core::sign::Signer::certificate_der(&signer).to_vec(),
    )
    .await;
    let (hook_port, received) = webhook_receiver().await;
    let database = tokio::task::spawn_blocking(fresh_database).await.unwrap();
    let cluster = Cluster {
        dir: dir.clone(),
        database: database.clone(),
        sifen_port,
    };

    // The account and its live key, made by `kuatia keys create --live` against the same database.
    let out = Command::new(kuatia_bin())
        .args(["keys", "create", "--live", "--data"])
        .arg(dir.join("admin"))
        .env("KUATIA_DATABASE_URL", &database)
        .env(
            "KUATIA_DATABASE_CA",
            std::env::var("KUATIA_TEST_DATABASE_CA").unwrap_or_default(),
        )
        .output()
        .unwrap();
    let created: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("keys create: {}", String::from_utf8_lossy(&out.stderr)));
    let key = created["key"].as_str().unwrap().to_string();

    // Three nodes started together (they migrate once and agree on the account).
    let mut nodes: Vec<Node> = (0..3)
        .map(|i| Node {
            name: format!("node{i}"),
            port: free_port(),
            child: None,
        })
        .collect();
    std::thread::scope(|s| {
        for node in nodes.iter_mut() {
            let cluster = &cluster;
            s.spawn(move || cluster.start(node));
        }
    });
    let ports: Vec<u16> = nodes.iter().map(|n| n.port).collect();
    let http = reqwest::Client::builder()
        .default_headers({
            let mut h = reqwest::header::HeaderMap::new();
            h.insert("Authorization", format!("Bearer {key}").parse().unwrap());
            h
        })
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let r = http
        .post(format!("http://127.0.0.1:{}/v1/webhooks", ports[0]))
        .header("Content-Type", "application/json")
        .body(
            json!({"url": format!("https://127.0.0.1:{hook_port}/hook"), "events": ["factura.approved", "factura.rejected"]})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());

    // The load: 64 clients, each key on one node (every 25th on two nodes at once), retried on the next node when a
    // node is down; all answers for one key name one invoice.
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let answers: Arc<Mutex<BTreeMap<usize, BTreeSet<String>>>> = Arc::default();
    let retries = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (http, next, done, answers, retries, ports) = (
            http.clone(),
            next.clone(),
            done.clone(),
            answers.clone(),
            retries.clone(),
            ports.clone(),
        );
        tasks.push(tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    return;
                }
                let key = format!("key-{n}");
                let first = (n + c) % 3;
                let targets = if n % 25 == 0 {
                    vec![first, (first + 1) % 3]
                } else {
                    vec![first]
                };
                let calls = targets.into_iter().map(|t| {
                    let (http, key, ports, retries) =
                        (http.clone(), key.clone(), ports.clone(), retries.clone());
                    async move {
                        for attempt in 0..400 {
                            let port = ports[(t + attempt) % 3];
                            match create(&http, port, &key, n).await {
                                Ok(id) => return id,
                                Err(_) => {
                                    retries.fetch_add(1, Ordering::Relaxed);
                                    tokio::time::sleep(Duration::from_millis(50)).await;
                                }
                            }
                        }
                        panic!("{key}: no node answered");
                    }
                });
                let ids = futures_join_all(calls).await;
                answers.lock().unwrap().entry(n).or_default().extend(ids);
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    // One node dies (SIGKILL) a third of the way in, and comes back.
    while done.load(Ordering::Relaxed) < total / 3 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    nodes[1].kill();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    {
        let cluster = &cluster;
        let node = &mut nodes[1];
        tokio::task::block_in_place(|| cluster.start(node));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let load_secs = started.elapsed().as_secs_f64();

    // Everything reaches SIFEN and the webhook.
    let deadline = Instant::now() + Duration::from_secs(120 + total as u64 / 20);
    loop {
        let open = count(
            &database,
            "SELECT COUNT(*) FROM invoices WHERE status IN ('pending', 'sent')",
        )
        .await;
        let undelivered = count(
            &database,
            "SELECT COUNT(*) FROM deliveries WHERE status <> 'delivered'",
        )
        .await;
        if open == 0 && undelivered == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{open} invoices still in flight, {undelivered} deliveries not delivered; logs in {}",
            dir.display()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let settle_secs = started.elapsed().as_secs_f64() - load_secs;

    // 0 lost, 0 duplicated: one invoice per key, every key's answers agree, nothing else stored.
    let answers = answers.lock().unwrap().clone();
    assert_eq!(answers.len(), total);
    for (n, ids) in &answers {
        assert_eq!(ids.len(), 1, "key-{n} created {ids:?}");
    }
    let ids: BTreeSet<String> = answers.values().flat_map(|s| s.iter().cloned()).collect();
    assert_eq!(ids.len(), total);
    let rows: Vec<(String, String, String, String)> = sql(&database, |c| {
        c.query("SELECT id, numero, cdc, status FROM invoices", &[])
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect()
    })
    .await;
    assert_eq!(rows.len(), total, "invoices stored");
    let stored: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(
        stored, ids,
        "the stored invoices are exactly the answered ones"
    );
    let numeros: BTreeSet<&String> = rows.iter().map(|r| &r.1).collect();
    assert_eq!(numeros.len(), total, "a number was used twice");
    assert!(rows.iter().all(|r| r.3 == "approved"), "all approved");
    // Every number up to the highest is an invoice or a recorded gap (the numbering contract).
    let gaps = count(
        &database,
        "SELECT COUNT(*) FROM number_reservations WHERE cdc IS NULL",
    )
    .await;
    let highest = count(&database, "SELECT MAX(numero) FROM number_reservations").await;
    assert_eq!(
        usize::try_from(highest).unwrap(),
        total + usize::try_from(gaps).unwrap()
    );

    // SIFEN got each document once: a document whose node died mid-call was queried, not sent again.
    let (documents, resent, consultas) = {
        let f = sifen.lock().unwrap();
        let resent: Vec<(&String, &u32)> = f.received.iter().filter(|(_, n)| **n != 1).collect();
        (
            f.documents.len(),
            format!("{resent:?}"),
            f.calls.iter().filter(|c| c.as_str() == "consulta").count(),
        )
    };
    assert_eq!(documents, total);
    assert_eq!(resent, "[]", "documents sent more than once");
    for r in &rows {
        assert_eq!(
            sifen.lock().unwrap().received.get(&r.2),
            Some(&1),
            "{}",
            r.0
        );
    }

    // Webhooks: every approval delivered at least once; a redelivery carries the same event id.
    let seen = received.lock().unwrap().clone();
    let mut events: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
    for (event, kind, invoice) in &seen {
        events
            .entry((invoice.clone(), kind.clone()))
            .or_default()
            .insert(event.clone());
    }
    for id in &ids {
        let approved = events
            .get(&(id.clone(), "factura.approved".to_string()))
            .unwrap_or_else(|| panic!("no factura.approved for {id}"));
        assert_eq!(approved.len(), 1, "{id}: one event, one id: {approved:?}");
    }
    let redelivered = seen.len() - events.len();
    println!(
        "nodes: {total} creates from {clients} clients in {load_secs:.1} s ({:.0}/s), settled in {settle_secs:.1} s; \
         {} client retries; {gaps} gaps; {consultas} SIFEN queries by CDC; {redelivered} webhook redeliveries",
        total as f64 / load_secs,
        retries.load(Ordering::Relaxed)
    );
    for mut n in nodes {
        n.kill();
    }
}

/// Awaits every future (the dev-dependencies have no `futures`).
async fn futures_join_all<F: std::future::Future<Output = String> + Send + 'static>(
    calls: impl Iterator<Item = F>,
) -> Vec<String> {
    let handles: Vec<_> = calls.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

//! `kuatia serve` end to end, the server's life: durability across a restart, a bounded load test, lookups beside the
//! writer, creates whose client hangs up, and a shutdown that closes every file of the data directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{config, factura, register_webhook, Api};
use common::{guarded, next_event, receiver, temp_dir};
use kuatia_server::start;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_loses_nothing() {
    let dir = temp_dir("restart");
    let (port, mut rx) = receiver().await;

    // First life: webhooks are queued but not delivered, invoices are mid-flight when it stops.
    let mut first = config(&dir);
    first.deliver_webhooks = false;
    first.sandbox_send_after = 1;
    first.sandbox_answer_after = 3;
    let server = start(first).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);
    let secret = register_webhook(&api, port).await;
    let (_, approved) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    let (_, pending) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(pending["data"]["status"], "pending");
    let approved_id = approved["data"]["id"].as_str().unwrap().to_string();
    let pending_id = pending["data"]["id"].as_str().unwrap().to_string();
    let first_numero = pending["data"]["numero"].as_str().unwrap().to_string();
    let idem = [("Idempotency-Key", "restart-1")];
    let r = api
        .send(
            reqwest::Method::POST,
            "/v1/facturas",
            Some(&factura(Some("approved"))),
            &idem,
        )
        .await;
    let replayed: Value = r.json().await.unwrap();
    server.shutdown().await;
    assert!(
        rx.try_recv().is_err(),
        "nothing delivered in the first life"
    );

    // Second life on the same data directory.
    let server = start(config(&dir)).await.unwrap();
    assert!(
        server.new_sandbox_key.is_none(),
        "the key is shown only once"
    );
    let api = Api::new(&server, &key);
    let (code, list) = api.get("/v1/facturas").await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["meta"]["total"], 3);
    // A lookup in a new process (nothing cached) reads the document's parts from the stored XML, as created.
    let (code, got) = api.get(&format!("/v1/facturas/{approved_id}")).await;
    assert_eq!(code, 200, "{got}");
    for part in ["items", "totales", "receptor", "condicion"] {
        assert!(!got["data"][part].is_null(), "{part}: {got}");
        assert_eq!(got["data"][part], approved["data"][part], "{part}");
    }

    // The queued factura.approved goes out after the restart, and the in-flight invoice finishes its course.
    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["type"], "factura.approved");
    let mut seen = HashSet::from([event["data"]["id"].as_str().unwrap().to_string()]);
    let event = next_event(&mut rx, &secret).await;
    seen.insert(event["data"]["id"].as_str().unwrap().to_string());
    assert!(seen.contains(&approved_id), "{seen:?}");
    api.wait_status(&pending_id, "approved").await;
    let event = next_event(&mut rx, &secret).await;
    assert_eq!(event["data"]["id"], pending_id.as_str());

    // Idempotency and numbering survive too.
    let r = api
        .send(
            reqwest::Method::POST,
            "/v1/facturas",
            Some(&factura(Some("approved"))),
            &idem,
        )
        .await;
    let again: Value = r.json().await.unwrap();
    assert_eq!(again["data"]["id"], replayed["data"]["id"]);
    let (_, next) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert!(next["data"]["numero"].as_str().unwrap() > first_numero.as_str());
    let (_, list) = api.get("/v1/facturas").await;
    assert_eq!(list["meta"]["total"], 4);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_concurrent_idempotent_creates() {
    let total: usize = std::env::var("KUATIA_LOAD_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let clients = 32;
    let dir = temp_dir("load");
    let mut c = config(&dir);
    // The core's default timings: invoices stay in flight for seconds, as in real use.
    c.sandbox_send_after = 2;
    c.sandbox_answer_after = 5;
    c.tick_interval = Duration::from_millis(500);
    let server = start(c).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let base = format!("http://{}", server.addr);
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (key, base, next) = (key.clone(), base.clone(), next.clone());
        let simulate = std::env::var("KUATIA_LOAD_SIMULATE").ok();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let mut body = factura(simulate.as_deref());
                body["items"][0]["descripcion"] = json!(format!("Servicio {i}"));
                let t = Instant::now();
                let r = http
                    .post(format!("{base}/v1/facturas"))
                    .bearer_auth(&key)
                    .header("X-Environment", "sandbox")
                    .header("Idempotency-Key", format!("load-{i}"))
                    .body(body.to_string())
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let v: Value = r.json().await.unwrap();
                out.push((
                    i,
                    status,
                    v["data"]["id"].as_str().unwrap_or_default().to_string(),
                    t.elapsed(),
                ));
            }
            out
        }));
    }
    let mut results = Vec::new();
    guarded(&format!("{total} creates"), async {
        for t in tasks {
            results.extend(t.await.unwrap());
        }
    })
    .await;
    // Measured for the report line only: a speed target is a benchmark (server/benches), never an assertion.
    let elapsed = started.elapsed();
    assert_eq!(results.len(), total);
    assert!(results.iter().all(|r| r.1 == 201), "every create succeeds");
    let mut lat: Vec<Duration> = results.iter().map(|r| r.3).collect();
    lat.sort();
    let pct = |p: usize| lat[(lat.len() * p / 100).min(lat.len() - 1)];
    println!(
        "load: {total} creates, {clients} clients, {:.1} s, {:.0} req/s, p50 {:.1} ms, p99 {:.1} ms",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        pct(50).as_secs_f64() * 1e3,
        pct(99).as_secs_f64() * 1e3
    );

    // Replays with the same keys return the same invoices, creating nothing.
    let api = Api::new(&server, &key);
    for (i, _, id, _) in results.iter().take(50) {
        let mut body = factura(None);
        body["items"][0]["descripcion"] = json!(format!("Servicio {i}"));
        let key = format!("load-{i}");
        let r = api
            .send(
                reqwest::Method::POST,
                "/v1/facturas",
                Some(&body),
                &[("Idempotency-Key", &key)],
            )
            .await;
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["data"]["id"], id.as_str());
    }

    // Nothing lost, nothing duplicated: every id and every document number once.
    let mut ids = HashSet::new();
    let mut numeros = HashSet::new();
    let mut page = 1;
    loop {
        let (code, v) = api
            .get(&format!("/v1/facturas?per_page=100&page={page}"))
            .await;
        assert_eq!(code, 200);
        assert_eq!(v["meta"]["total"], total);
        let data = v["data"].as_array().unwrap();
        if data.is_empty() {
            break;
        }
        for inv in data {
            assert!(ids.insert(inv["id"].as_str().unwrap().to_string()));
            assert!(numeros.insert(inv["numero"].as_str().unwrap().to_string()));
        }
        page += 1;
    }
    assert_eq!(ids.len(), total);
    let created: HashSet<String> = results.into_iter().map(|r| r.2).collect();
    assert_eq!(created, ids);
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Status lookups are answered beside the writer only while the simulated SIFEN has nothing due: with no delays, a
/// lookup right after the 201 must still see the invoice moved (the writer ticks it first), and the lookups after
/// it (from the readers) agree with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookups_beside_the_writer_see_what_the_writer_would() {
    let dir = temp_dir("readers");
    let mut c = config(&dir);
    c.sandbox_send_after = 0;
    c.sandbox_answer_after = 0;
    // No background tick: only requests move the simulation here.
    c.tick_interval = Duration::from_secs(3600);
    let server = start(c).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    for _ in 0..5 {
        let (code, created) = api.post("/v1/facturas", &factura(None)).await;
        assert_eq!(code, 201, "{created}");
        assert_eq!(created["data"]["status"], "pending", "{created}");
        let path = format!("/v1/facturas/{}", created["data"]["id"].as_str().unwrap());
        let (code, got) = api.get(&path).await;
        assert_eq!(code, 200, "{got}");
        assert_eq!(got["data"]["status"], "approved", "{got}");
        for _ in 0..8 {
            assert_eq!(api.get(&path).await, (200, got.clone()));
        }
    }
    server.shutdown().await;
}

/// A create whose client hangs up while it is being signed is finished all the same: stored, its number confirmed
/// (never a gap), its idempotent answer kept for the retry. The clients hang up after 0 to 15 ms, so that some do it
/// while their create is in the writer or being signed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_whose_client_hangs_up_is_finished() {
    use tokio::io::AsyncWriteExt;
    let dir = temp_dir("hangup");
    let server = start(config(&dir)).await.unwrap();
    let key = server.new_sandbox_key.clone().unwrap();
    let api = Api::new(&server, &key);
    const N: usize = 16;
    for i in 0..N {
        let body = factura(None).to_string();
        let request = format!(
            "POST /v1/facturas HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\nX-Environment: sandbox\r\n\
             Content-Type: application/json\r\nIdempotency-Key: hangup-{i}\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(i as u64)).await;
        drop(stream);
    }
    // Whatever was started is finished: the count settles, with no number left a gap.
    let total = || async {
        api.get("/v1/facturas").await.1["meta"]["total"]
            .as_u64()
            .unwrap()
    };
    let mut last = total().await;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = total().await;
        if now == last {
            break;
        }
        last = now;
    }
    let (code, gaps) = api.get("/v1/numbering/gaps").await;
    assert_eq!(
        (code, gaps["meta"]["total"].clone()),
        (200, json!(0)),
        "{gaps}"
    );
    // Each retry gets its invoice: the stored one back, or a new one if the first never started.
    let mut replayed = 0;
    for i in 0..N {
        let r = api
            .send(
                reqwest::Method::POST,
                "/v1/facturas",
                Some(&factura(None)),
                &[("Idempotency-Key", &format!("hangup-{i}"))],
            )
            .await;
        assert_eq!(r.status().as_u16(), 201);
        replayed += usize::from(r.headers().get("Idempotent-Replayed").is_some());
    }
    assert_eq!(total().await, N as u64);
    assert_eq!(replayed as u64, last, "every stored create is replayed");
    server.shutdown().await;
}

/// The files of the data directory still open in this process (its descriptors pointing there).
fn open_files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let dir = std::fs::canonicalize(dir).unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.starts_with(&dir))
        .collect()
}

/// Once `shutdown` returns, the data directory is quiescent: every connection to its databases (the writer's, the
/// readers', the checkpointer's) is closed, so it can be backed up, moved or opened by another process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_every_file_of_the_data_directory() {
    let dir = temp_dir("closed");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::new(&server, server.new_sandbox_key.as_deref().unwrap());
    let (code, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    for _ in 0..20 {
        // Lookups from the readers beside the writer (their connections opened).
        let (code, _) = api.get(&format!("/v1/facturas/{id}")).await;
        assert_eq!(code, 200);
    }
    assert!(
        !open_files_under(&dir).is_empty(),
        "the server has its databases open"
    );
    server.shutdown().await;
    assert_eq!(open_files_under(&dir), Vec::<std::path::PathBuf>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

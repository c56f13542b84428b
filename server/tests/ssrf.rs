//! The webhook SSRF guard end to end (issue 34): a real `kuatia serve` inside a network namespace the test makes,
//! where EVERY address is local (`ip route add local 0.0.0.0/0 dev lo`, and `::/0`), so one listener on port 443
//! catches a connection to any address: loopback, private, link-local, shared, and the "public" control address.
//! Webhooks naming inside addresses in every form the WHATWG parser accepts are stored (as webhooks registered
//! before the guard was fixed would be: a path that skips the registration check), names resolving inside are
//! registered, an invoice is approved, every delivery is attempted, and the listener must see connections to the
//! public control addresses only. Needs root and iproute2 (`ip netns`): without them the test fails, it never skips.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::api::{factura, Api};
use common::temp_dir;
use kuatia_core::lifecycle::EventKind;
use kuatia_server::{start, ServerConfig};
use kuatia_service::auth::Environment;
use kuatia_service::webhook::Webhook;
use kuatia_service::Store;
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Set in the copy of this test that runs inside the namespace.
const IN_NETNS: &str = "KUATIA_SSRF_IN_NETNS";
const TEST_NAME: &str = "ssrf_table_reaches_nothing_inside_a_network_namespace";
/// The "public" address of the control: local in the namespace like every other, but one webhooks may reach.
const PUBLIC_V4: &str = "93.184.215.14";
const PUBLIC_V6: &str = "2606:2800:220:1:248:1893:25c8:1946";

/// `/etc/hosts` of the namespace (`ip netns exec` mounts `/etc/netns/NAME/hosts` over it): names that resolve
/// inside, one that resolves both inside and outside, and public ones.
const HOSTS: &str = "127.0.0.1 localhost
::1 localhost
93.184.215.14 public.test
10.1.2.3 inside.test
127.0.0.1 loop.test
93.184.215.14 mixed.test
10.9.9.9 mixed.test
::ffff:127.0.0.1 mapped.test
fd00::5 ula.test
169.254.169.254 metadata.test
";

/// Stored as they are (no registration check), each refused at delivery with the given error kind.
const STORED: [(&str, &str); 34] = [
    // The bypasses of the issue (PORT = 443, where the listener is).
    ("https://127.0.0.1%2e:443/", "forbidden_address"),
    ("https://%31%32%37.0.0.1:443/", "forbidden_address"),
    (
        "https://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}:443/",
        "forbidden_address",
    ),
    ("https://127.0.0.1:443\\@93.184.215.14/", "invalid_url"),
    ("https://127.1/", "forbidden_address"),
    ("https://2130706433/", "forbidden_address"),
    ("https://0x7f000001/", "forbidden_address"),
    ("https://0/", "forbidden_address"),
    // The classic lists.
    ("https://0177.0.0.1/", "forbidden_address"),
    ("https://0x7f.0.0.1/", "forbidden_address"),
    ("https://127.0.0.1./", "forbidden_address"),
    ("https://0.0.0.0/", "forbidden_address"),
    ("https://[::ffff:127.0.0.1]/", "forbidden_address"),
    ("https://[::ffff:7f00:1]/", "forbidden_address"),
    ("https://[::1]/", "forbidden_address"),
    ("https://localhost/", "forbidden_address"),
    ("https://localhost./", "forbidden_address"),
    ("https://LOCALHOST/", "forbidden_address"),
    ("https://sub.localhost/", "forbidden_address"),
    ("https://%6c%6f%63%61%6c%68%6f%73%74/", "forbidden_address"),
    ("https://10.0.0.1/", "forbidden_address"),
    ("https://172.16.0.1/", "forbidden_address"),
    ("https://192.168.1.10/", "forbidden_address"),
    ("https://169.254.169.254/", "forbidden_address"),
    ("https://100.64.0.1/", "forbidden_address"),
    ("https://[fd00::1]/", "forbidden_address"),
    ("https://[fe80::1]/", "forbidden_address"),
    ("https://127.0.0.1#@93.184.215.14/", "forbidden_address"),
    ("https://127.0.0.1?@93.184.215.14/", "forbidden_address"),
    ("https://93.184.215.14@127.0.0.1/", "invalid_url"),
    ("https://127.0.0.1:443@93.184.215.14/", "invalid_url"),
    ("https:\\\\127.0.0.1/", "invalid_url"),
    ("https://example.com:99999/", "invalid_url"),
    ("https://exa mple.com/", "invalid_url"),
];

/// Names accepted at registration (a name is checked when resolved) and refused at delivery.
const INSIDE_NAMES: [&str; 7] = [
    "https://inside.test/",
    "https://loop.test/",
    "https://LOOP.Test/",
    "https://mixed.test/",
    "https://mapped.test/",
    "https://ula.test/",
    "https://metadata.test/latest/meta-data/",
];

/// The controls: delivered (a TLS handshake the listener does not answer), so the listener does count.
const PUBLIC: [&str; 3] = [
    "https://public.test/",
    "https://93.184.215.14/",
    "https://[2606:2800:220:1:248:1893:25c8:1946]/",
];

#[test]
fn ssrf_table_reaches_nothing_inside_a_network_namespace() {
    if std::env::var_os(IN_NETNS).is_some() {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(inside_the_namespace());
        return;
    }
    let ns = Netns::create();
    let exe = std::env::current_exe().unwrap();
    let status = Command::new("ip")
        .args(["netns", "exec", &ns.name])
        .arg(&exe)
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(IN_NETNS, "1")
        .status()
        .expect("running the test inside the namespace");
    assert!(
        status.success(),
        "the SSRF table failed inside {}: see above",
        ns.name
    );
}

/// A network namespace with every address local, and its hosts file; removed on drop.
struct Netns {
    name: String,
}

impl Netns {
    fn create() -> Netns {
        let name = format!("kuatia-ssrf-{}", std::process::id());
        let ns = Netns { name: name.clone() };
        let run = |args: &[&str]| {
            let out = Command::new("ip").args(args).output().unwrap_or_else(|e| {
                panic!(
                    "this test needs iproute2's `ip` (apt-get install iproute2) and root: running ip {args:?}: {e}"
                )
            });
            assert!(
                out.status.success(),
                "this test needs root and network namespaces (`ip netns add`): ip {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(&["netns", "add", &name]);
        run(&["-n", &name, "link", "set", "lo", "up"]);
        run(&[
            "-n",
            &name,
            "route",
            "add",
            "local",
            "0.0.0.0/0",
            "dev",
            "lo",
        ]);
        run(&[
            "-n", &name, "-6", "route", "add", "local", "::/0", "dev", "lo",
        ]);
        let etc = std::path::Path::new("/etc/netns").join(&name);
        std::fs::create_dir_all(&etc).expect("creating /etc/netns/NAME (root needed)");
        std::fs::write(etc.join("hosts"), HOSTS).unwrap();
        ns
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
        let _ = std::fs::remove_dir_all(std::path::Path::new("/etc/netns").join(&self.name));
    }
}

/// Every connection accepted on port 443 of any address: the address it was made to.
fn listener_443() -> Arc<Mutex<Vec<SocketAddr>>> {
    let hits = Arc::new(Mutex::new(Vec::new()));
    // `[::]` is dual-stack in a fresh namespace (net.ipv6.bindv6only = 0): IPv4 arrives as ::ffff:a.b.c.d.
    let std_listener =
        std::net::TcpListener::bind("[::]:443").expect("binding [::]:443 in the namespace");
    std_listener.set_nonblocking(true).unwrap();
    let l = tokio::net::TcpListener::from_std(std_listener).unwrap();
    let seen = hits.clone();
    tokio::spawn(async move {
        while let Ok((s, _)) = l.accept().await {
            let to = s.local_addr().unwrap();
            seen.lock().unwrap().push(to);
            drop(s);
        }
    });
    hits
}

fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// A plain-HTTP server on loopback answering every request with a redirect to `location`; counts connections.
async fn redirector(location: &str) -> (u16, Arc<Mutex<usize>>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let count = Arc::new(Mutex::new(0));
    let (n, location) = (count.clone(), location.to_string());
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            *n.lock().unwrap() += 1;
            let location = location.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(k) => got.extend_from_slice(&buf[..k]),
                    }
                }
                let answer = format!(
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    (port, count)
}

/// The test configuration, with a 3 s webhook timeout and the private-address switch as given. Webhooks may use
/// plain HTTP: the test downgrade must not open a way to loopback either.
fn config(dir: &std::path::Path, allow_private: bool) -> ServerConfig {
    let mut c = common::api::config(dir);
    c.webhook_timeout = Duration::from_secs(3);
    c.allow_private_webhooks = allow_private;
    c
}

async fn register(api: &Api, url: &str) -> (u16, Value) {
    api.call(
        reqwest::Method::POST,
        "/v1/webhooks",
        Some(json!({"url": url, "events": ["factura.approved"]})),
    )
    .await
}

async fn approve_one(api: &Api) {
    // Approved by the simulated SIFEN after its delays, as any sandbox invoice.
    let (code, v) = api.post("/v1/facturas", &factura(None)).await;
    assert_eq!(code, 201, "{v}");
}

/// The first attempt of the webhook's only delivery, once made (under the hang guard).
async fn first_attempt(api: &Api, webhook: &str) -> Value {
    let log = api
        .wait_deliveries(webhook, &format!("an attempt for {webhook}"), |log| {
            !log["data"][0]["log"][0].is_null()
        })
        .await;
    log["data"][0]["log"][0].clone()
}

fn stored(id: usize, url: &str) -> Webhook {
    Webhook {
        id: format!("wh_ssrfstored{id:08}"),
        url: url.to_string(),
        events: vec![EventKind::FacturaApproved],
        description: None,
        created_at: "2026-01-01T00:00:00Z".into(),
        secret: Some("whsec_ssrf".into()),
        previous_secret: None,
        previous_secret_expires_at: None,
    }
}

async fn inside_the_namespace() {
    let hits = listener_443();

    // The guarded server: private addresses not allowed.
    let dir = temp_dir("ssrf-netns");
    let server = start(config(&dir, false)).await.unwrap();
    let api = Api::sandbox(&server);
    let mut expect: Vec<(String, String, &str)> = Vec::new(); // (webhook id, url, error kind)
    let mut wrong = Vec::new();
    for (i, (url, kind)) in STORED.iter().enumerate() {
        // Registration refuses each (422, on `url`)…
        let (code, v) = register(&api, url).await;
        if code != 422 || v["error"]["details"][0]["path"] != "url" {
            let got = (&v["error"]["code"], &v["data"]["url"]); // not the body: it carries the secret
            wrong.push(format!("{url:?} at registration: {code} {got:?}"));
        }
        if code == 201 {
            expect.push((
                v["data"]["id"].as_str().unwrap().to_string(),
                url.to_string(),
                kind,
            ));
            continue;
        }
        // …and stored anyway (a webhook from before the fix), delivery refuses it too.
        let hook = stored(i, url);
        let account = server.account_id.clone();
        let id = hook.id.clone();
        server
            .with_engine(|e| {
                e.transact(|svc, _| {
                    svc.store
                        .insert_webhook(&account, Environment::Sandbox, hook)
                })
            })
            .unwrap();
        expect.push((id, url.to_string(), kind));
    }
    let mut controls = Vec::new();
    for url in INSIDE_NAMES.iter().chain(PUBLIC.iter()) {
        let (code, v) = register(&api, url).await;
        assert_eq!(code, 201, "{url:?}: {v}");
        let id = v["data"]["id"].as_str().unwrap().to_string();
        if PUBLIC.contains(url) {
            controls.push((id, url.to_string()));
        } else {
            expect.push((id, url.to_string(), "forbidden_address"));
        }
    }
    approve_one(&api).await;

    for (id, url, kind) in &expect {
        let a = first_attempt(&api, id).await;
        if a["error"] != *kind || a["duration_ms"] != 0 || !a["status"].is_null() {
            wrong.push(format!("{url:?}: want {kind} in 0 ms, got {a}"));
        }
    }
    for (id, url) in &controls {
        let a = first_attempt(&api, id).await;
        // The listener takes the connection and closes it: a transport failure, after a connection.
        if a["error"] == "forbidden_address" || a["error"] == "invalid_url" || a["error"].is_null()
        {
            wrong.push(format!("control {url:?}: {a}"));
        }
    }
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);

    // Redirects are not followed, even where private addresses are allowed: a 302 to an inside address is a
    // failed attempt (`http_status` 302), and the address it names sees nothing.
    let dir = temp_dir("ssrf-redirect");
    let server = start(config(&dir, true)).await.unwrap();
    let api = Api::sandbox(&server);
    let mut redirects = Vec::new();
    for to in [
        "http://10.0.0.1:443/",
        "https://127.0.0.1/",
        "http://[fd00::1]:443/",
        "http://169.254.169.254:443/latest",
    ] {
        let (port, count) = redirector(to).await;
        let (code, v) = register(&api, &format!("https://127.0.0.1:{port}/hook")).await;
        assert_eq!(code, 201, "{v}");
        redirects.push((v["data"]["id"].as_str().unwrap().to_string(), to, count));
    }
    approve_one(&api).await;
    for (id, to, count) in &redirects {
        let a = first_attempt(&api, id).await;
        if a["error"] != "http_status" || a["status"] != 302 || *count.lock().unwrap() == 0 {
            wrong.push(format!("redirect to {to}: {a}"));
        }
    }
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);

    let hits = hits.lock().unwrap().clone();
    let public: Vec<IpAddr> = vec![PUBLIC_V4.parse().unwrap(), PUBLIC_V6.parse().unwrap()];
    let leaks: Vec<&SocketAddr> = hits
        .iter()
        .filter(|a| !public.contains(&unmapped(a.ip())))
        .collect();
    let control_hits = hits.len() - leaks.len();
    assert!(
        wrong.is_empty() && leaks.is_empty() && control_hits >= PUBLIC.len(),
        "attempts:\n{}\nconnections to inside addresses: {leaks:?}\nconnections to the public controls: {control_hits} (want ≥ {})",
        wrong.join("\n"),
        PUBLIC.len()
    );
}

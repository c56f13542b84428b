//! The `/v1` client of the server's end-to-end tests, the test configuration of `kuatia serve`, and the request bodies
//! the tests send.

use super::{temp_dir, wait_for, TempPath};
use kuatia_server::{start, RunningServer, ServerConfig};
use serde_json::{json, Value};
use std::time::Duration;

/// A sandbox `kuatia serve` on a loopback port with short intervals: the simulated SIFEN sends after 1 s and answers
/// after 2 s; webhooks may go to plain-HTTP loopback receivers.
pub fn config(dir: &std::path::Path) -> ServerConfig {
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.sandbox_send_after = 1;
    c.sandbox_answer_after = 2;
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.webhook_timeout = Duration::from_secs(2);
    c.insecure_webhooks_http = true;
    c.allow_private_webhooks = true;
    c
}

/// A sandbox `kuatia serve` on [`config`] in a fresh temporary directory named after `name`, and a client with the
/// sandbox key its first start printed.
pub async fn serve(name: &str) -> (TempPath, RunningServer, Api) {
    let dir = temp_dir(name);
    let server = start(config(&dir)).await.unwrap();
    let api = Api::sandbox(&server);
    (dir, server, api)
}

/// An API client holding one key; sandbox calls carry `X-Environment: sandbox`, live ones no environment header.
pub struct Api {
    /// The HTTP client, for a request the helpers do not make.
    pub http: reqwest::Client,
    base: String,
    key: String,
    sandbox: bool,
}

impl Api {
    /// A client of `server` with a sandbox `key`.
    pub fn new(server: &RunningServer, key: &str) -> Api {
        Api::at(server.addr, key, true)
    }

    /// A client of `server` with its first sandbox key.
    pub fn sandbox(server: &RunningServer) -> Api {
        Api::new(server, server.new_sandbox_key.as_deref().unwrap())
    }

    /// A client of `server` with a production (live) `key`.
    pub fn live(server: &RunningServer, key: &str) -> Api {
        Api::at(server.addr, key, false)
    }

    fn at(addr: std::net::SocketAddr, key: &str, sandbox: bool) -> Api {
        Api {
            // No proxy from the environment: every test server is on loopback (or inside a network namespace).
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
            base: format!("http://{addr}"),
            key: key.to_string(),
            sandbox,
        }
    }

    /// One request with extra headers; the raw response.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {}", self.key));
        if self.sandbox {
            r = r.header("X-Environment", "sandbox");
        }
        for (k, v) in extra {
            r = r.header(*k, *v);
        }
        if let Some(b) = body {
            r = r
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        r.send().await.unwrap()
    }

    /// A GET; the raw response.
    pub async fn get_raw(&self, path: &str) -> reqwest::Response {
        self.send(reqwest::Method::GET, path, None, &[]).await
    }

    /// One request; the status and the JSON body (`null` when the body is not JSON).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let r = self.send(method, path, body.as_ref(), &[]).await;
        let status = r.status().as_u16();
        let bytes = r.bytes().await.unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// A POST whose answer must be JSON.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .send(reqwest::Method::POST, path, Some(body), &[])
            .await;
        (r.status().as_u16(), r.json().await.unwrap())
    }

    /// A GET; `null` when the body is not JSON.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, path, None).await
    }

    /// Polls the invoice until its status is `want` (under the hang guard); its resource then.
    pub async fn wait_status(&self, id: &str, want: &str) -> Value {
        wait_for(&format!("{id} becoming {want}"), || async move {
            let (code, v) = self.get(&format!("/v1/facturas/{id}")).await;
            assert_eq!(code, 200, "{v}");
            if v["data"]["status"] == want {
                Ok(v["data"].clone())
            } else {
                Err(v.to_string())
            }
        })
        .await
    }

    /// Polls the webhook's delivery log until `done` accepts it (under the hang guard); the log then.
    pub async fn wait_deliveries(
        &self,
        webhook: &str,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let done = &done;
        wait_for(what, || async move {
            let (code, log) = self
                .get(&format!("/v1/webhooks/{webhook}/deliveries"))
                .await;
            assert_eq!(code, 200, "{log}");
            if done(&log) {
                Ok(log)
            } else {
                Err(log.to_string())
            }
        })
        .await
    }
}

/// A valid invoice request (one service at 10 % VAT to a taxpayer), with `_simulate` when given.
pub fn factura(simulate: Option<&str>) -> Value {
    let mut v = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    if let Some(s) = simulate {
        v["_simulate"] = json!(s);
    }
    v
}

/// Registers the receiver on `port` for approvals and rejections; its signing secret.
pub async fn register_webhook(api: &Api, port: u16) -> String {
    let (code, v) = api
        .post(
            "/v1/webhooks",
            &json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved", "factura.rejected"]}),
        )
        .await;
    assert_eq!(code, 201, "{v}");
    v["data"]["secret"].as_str().unwrap().to_string()
}

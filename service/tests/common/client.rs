//! A client of the sans-IO service as an HTTP client would drive it: one account with a sandbox key, requests with
//! or without a key, the sandbox header and extra headers, and the parts of an answer the API tests read. Shared by
//! `api*.rs` (included with `#[path]`, beside `host.rs`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use crate::host::TestHost;
use kuatia_service::auth::Environment;
use kuatia_service::webhook::{Delivery, SIGNATURE_HEADER};
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service};
use serde_json::{json, Value};

/// A service with one account and its sandbox key.
pub struct Client {
    pub svc: Service<MemoryStore>,
    pub host: TestHost,
    pub key: String,
    pub account: String,
}

/// A service (base URL `https://api.example.test`) with one account, "Empresa de prueba".
pub fn client() -> Client {
    let mut host = TestHost::new();
    let config = Config {
        base_url: "https://api.example.test".into(),
        ..Config::default()
    };
    let mut svc = Service::new(MemoryStore::default(), config);
    let (account, key) = svc.create_account("Empresa de prueba", &mut host);
    Client {
        svc,
        host,
        key,
        account: account.id,
    }
}

impl Client {
    /// A request with an optional bearer key, the sandbox header when `sandbox`, and `extra` headers.
    pub fn call(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        extra: &[(&str, &str)],
        key: Option<&str>,
        sandbox: bool,
    ) -> HttpResponse {
        let body = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        self.call_raw(method, path, body, extra, key, sandbox)
    }

    /// [`Client::call`] with the body's bytes as given (not re-serialized).
    pub fn call_raw(
        &mut self,
        method: &str,
        path: &str,
        body: Vec<u8>,
        extra: &[(&str, &str)],
        key: Option<&str>,
        sandbox: bool,
    ) -> HttpResponse {
        let mut headers = vec![];
        if let Some(k) = key {
            headers.push(("Authorization".to_string(), format!("Bearer {k}")));
        }
        if sandbox {
            headers.push(("X-Environment".to_string(), "sandbox".to_string()));
        }
        for (k, v) in extra {
            headers.push((k.to_string(), v.to_string()));
        }
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers,
            body,
        };
        self.svc.handle(&req, &mut self.host)
    }

    /// A create with `body` as given (bytes, not re-serialized) and an `Idempotency-Key`, with the sandbox key or
    /// the `live` one.
    pub fn create_raw(
        &mut self,
        body: &str,
        idempotency_key: &str,
        live: Option<&str>,
    ) -> HttpResponse {
        let key = live.map_or_else(|| self.key.clone(), str::to_string);
        let extra = [("Idempotency-Key", idempotency_key)];
        let body = body.as_bytes().to_vec();
        self.call_raw(
            "POST",
            "/v1/facturas",
            body,
            &extra,
            Some(&key),
            live.is_none(),
        )
    }

    /// A request with `key` and no extra header.
    pub fn with_key(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        key: &str,
        sandbox: bool,
    ) -> HttpResponse {
        self.call(method, path, body, &[], Some(key), sandbox)
    }

    /// `POST /v1/facturas` with an `Idempotency-Key`.
    pub fn create_once(
        &mut self,
        body: Value,
        idem: &str,
        key: &str,
        sandbox: bool,
    ) -> HttpResponse {
        let extra = [("Idempotency-Key", idem)];
        self.call(
            "POST",
            "/v1/facturas",
            Some(body),
            &extra,
            Some(key),
            sandbox,
        )
    }

    /// A request with the account's sandbox key.
    pub fn sandbox(&mut self, method: &str, path: &str, body: Option<Value>) -> HttpResponse {
        let key = self.key.clone();
        self.call(method, path, body, &[], Some(&key), true)
    }

    /// Creates `n` sandbox facturas (`_simulate` when given), each answered 201.
    pub fn create_many(&mut self, n: usize, simulate: Option<&str>) {
        for _ in 0..n {
            let r = self.sandbox("POST", "/v1/facturas", Some(factura(simulate)));
            assert_eq!(r.status, 201, "{:?}", r.json());
        }
    }

    /// A new production key of the account.
    pub fn live_key(&mut self) -> String {
        let account = self.account.clone();
        self.svc
            .create_key(&account, Environment::Production, &mut self.host)
            .unwrap()
    }

    /// Registers `https://erp.example/a` for `factura.approved`; its id.
    pub fn approved_hook(&mut self) -> String {
        let body = json!({"url": "https://erp.example/a", "events": ["factura.approved"]});
        self.sandbox("POST", "/v1/webhooks", Some(body)).id()
    }
}

/// What the API tests read of an answer.
pub trait Answer {
    /// `data.id`.
    fn id(&self) -> String;
    /// The status and `error.code`.
    fn code(&self) -> (u16, Value);
}

impl Answer for HttpResponse {
    fn id(&self) -> String {
        self.json()["data"]["id"].as_str().unwrap().to_string()
    }

    fn code(&self) -> (u16, Value) {
        (self.status, self.json()["error"]["code"].clone())
    }
}

/// A factura for the sandbox, with `_simulate` when given.
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

/// The signature header of a due delivery.
pub fn signature(d: &Delivery) -> String {
    d.headers
        .iter()
        .find(|(k, _)| k == SIGNATURE_HEADER)
        .unwrap()
        .1
        .clone()
}

/// `(code, path)` of a 422's details.
pub fn details(r: &HttpResponse) -> Vec<(String, String)> {
    r.json()["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

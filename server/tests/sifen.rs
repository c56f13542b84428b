//! Production mode of `kuatia serve` against a fake SIFEN on loopback: HTTPS with TLS 1.2 and a mandatory client
//! certificate (the emitter's, checked byte for byte, its handshake signature verified), answering in SIFEN's
//! format. Flows: synchronous approval (KuDE, signed webhook), rejection with SIFEN's code, the gateway's HTML page,
//! a slow answer (timeout → query by CDC, never a second send), lots, and a server that refuses our certificate.
//! Every flow runs over both TLS stacks (`SifenTls::Rustls`, `SifenTls::Openssl`). Two more fakes run on OpenSSL
//! (what SIFEN's gateway may be): one offering only a CBC suite with RSA key exchange, one asking for the client
//! certificate by renegotiation after reading the request; the openssl stack passes both, rustls fails both with an
//! error naming the cause and `--sifen-tls openssl`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../service/tests/common/fake_sifen.rs"]
mod fake_sifen;
#[path = "common/fake_sifen_tls.rs"]
mod fake_sifen_tls;

use common::api::Api;
use common::pki::{openssl, pki, Pki};
use common::{metric, next_event, receiver, scrape_metrics, wait_for};
use fake_sifen_tls::{fake_sifen, fake_sifen_accepting, fake_sifen_openssl, Fake, OpensslMode};

use fake_sifen::{Fault, REJECT_MARKER};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::{sandbox_test_signer, Signer};
use kuatia_server::sifen::{SifenTls, SifenTransport};
use kuatia_server::{start, RunningServer, ServerConfig};
use kuatia_service::auth::Environment;
use kuatia_service::transmit::SifenMode;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A fresh directory for one test (removed when the returned guard drops).
fn dir(name: &str) -> common::TempPath {
    let d = common::temp_dir(&format!("sifen-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A production `kuatia serve` (live key, the test certificate as the emitter's, SIFEN's test environment)
/// talking to the fake.
async fn server(
    dir: &Path,
    fake: &Fake,
    pki: &Pki,
    mode: SifenMode,
    tls: SifenTls,
) -> (RunningServer, String) {
    let live = kuatia_server::create_key(dir.to_path_buf(), Environment::Production).unwrap();
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.webhook_timeout = Duration::from_secs(2);
    c.insecure_webhooks_http = true;
    c.allow_private_webhooks = true;
    c.production_signer = Some(sandbox_test_signer().unwrap());
    c.production_profile = Some(Emisor::sandbox());
    c.sifen_mode = mode;
    c.sifen_lot_poll_after = 1;
    c.sifen_retry = vec![1];
    c.metrics_addr = Some("127.0.0.1:0".parse().unwrap());
    c.sifen = SifenTransport {
        timeout: Duration::from_secs(1),
        interval: Duration::from_millis(100),
        extra_roots: vec![pki.ca.clone()],
        base_url: Some(format!("https://127.0.0.1:{}", fake.port)),
        tls,
    };
    (start(c).await.unwrap(), live)
}

/// A client with the production key.
struct Live(Api);

impl Live {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        self.0.call(method, path, body).await
    }

    async fn create(&self, receptor: &str) -> (String, String) {
        let (status, v) = self
            .call(
                reqwest::Method::POST,
                "/v1/facturas",
                Some(factura(receptor)),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        assert_eq!(v["data"]["status"], "pending");
        (
            v["data"]["id"].as_str().unwrap().to_string(),
            v["data"]["cdc"].as_str().unwrap().to_string(),
        )
    }

    async fn get(&self, id: &str) -> Value {
        self.call(reqwest::Method::GET, &format!("/v1/facturas/{id}"), None)
            .await
            .1["data"]
            .clone()
    }

    /// Polls until a cancellation is answered.
    async fn settle_cancellation(&self, id: &str) -> Value {
        wait_for(&format!("the cancellation of {id} answered"), || async {
            let v = self.get(id).await;
            if v["cancellation"]["status"] != "pending" {
                Ok(v)
            } else {
                Err(v.to_string())
            }
        })
        .await
    }

    /// Polls until the invoice leaves pending/sent.
    async fn settle(&self, id: &str) -> Value {
        wait_for(&format!("invoice {id} out of flight"), || async {
            let v = self.get(id).await;
            if !matches!(v["status"].as_str(), Some("pending" | "sent")) {
                Ok(v)
            } else {
                Err(v.to_string())
            }
        })
        .await
    }
}

fn factura(receptor: &str) -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": receptor, "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn production_invoices_reach_sifen_over_mutual_tls_rustls() {
    production_invoices_reach_sifen_over_mutual_tls(SifenTls::Rustls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn production_invoices_reach_sifen_over_mutual_tls_openssl() {
    production_invoices_reach_sifen_over_mutual_tls(SifenTls::Openssl).await;
}

async fn production_invoices_reach_sifen_over_mutual_tls(tls: SifenTls) {
    let dir = dir(&format!("sync-{}", tls.as_str()));
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Sync, tls).await;
    let api = Live(Api::live(&server, &key));
    let (port, mut events) = receiver().await;
    let (status, hook) = api
        .call(
            reqwest::Method::POST,
            "/v1/webhooks",
            Some(json!({"url": format!("https://127.0.0.1:{port}/hook"), "events": ["factura.approved", "factura.rejected"]})),
        )
        .await;
    assert_eq!(status, 201, "{hook}");
    let secret = hook["data"]["secret"].as_str().unwrap().to_string();

    // Approval: create → pending → approved by SIFEN → KuDE → signed webhook.
    let (id, cdc) = api.create("Cliente Ejemplo S.A.").await;
    let inv = api.settle(&id).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    assert!(inv["protocolo"].is_string());
    let pdf = api
        .0
        .send(
            reqwest::Method::GET,
            &format!("/v1/facturas/{id}/kude"),
            None,
            &[],
        )
        .await;
    assert_eq!(pdf.status(), 200);
    assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF-"));
    let ev = next_event(&mut events, &secret).await;
    assert_eq!(ev["type"], "factura.approved");
    assert_eq!(ev["data"]["id"], json!(id));
    assert_eq!(ev["data"]["cdc"], json!(cdc));
    let approved = id.clone();
    // The call is counted once reported: it was, the invoice is approved.
    let text = scrape_metrics(&server).await;
    let ok = "kuatia_sifen_calls_total{service=\"recibe\",outcome=\"ok\"}";
    assert_eq!(metric(&text, ok), Some(1.0), "{text}");
    {
        let wire = fake.wire.lock().unwrap();
        assert_eq!(
            wire.requests[0],
            (
                "/de/ws/sync/recibe.wsdl".to_string(),
                "application/xml; charset=utf-8".to_string()
            )
        );
        assert!(wire.handshakes_ok >= 1);
        assert_eq!(wire.handshakes_failed, 0);
        let agent = format!("kuatia/{}", env!("CARGO_PKG_VERSION"));
        assert!(
            wire.user_agents.iter().all(|a| *a == agent),
            "{:?}",
            wire.user_agents
        );
    }

    // Rejection: SIFEN's code reaches sifen_errors and the webhook.
    let (id, _) = api.create(&format!("Cliente {REJECT_MARKER}")).await;
    let inv = api.settle(&id).await;
    assert_eq!(inv["status"], "rejected", "{inv}");
    assert_eq!(inv["sifen_errors"][0]["code"], "1003");
    let ev = next_event(&mut events, &secret).await;
    assert_eq!(ev["type"], "factura.rejected");

    // The gateway's HTML page: not a verdict; after the back-off the CDC is queried (unknown) and sent.
    let before = fake.sifen.lock().unwrap().calls.len();
    fake.sifen.lock().unwrap().faults.push_back(Fault::Html);
    let (id, cdc) = api.create("Cliente Dos").await;
    assert_eq!(api.settle(&id).await["status"], "approved");
    {
        let s = fake.sifen.lock().unwrap();
        assert_eq!(s.calls[before..], ["recibe", "consulta", "recibe"]);
        assert_eq!(
            s.received[&cdc], 1,
            "the HTML page came before SIFEN saw it"
        );
    }

    // A slow answer: SIFEN approved it but the answer came after our timeout; a query by CDC finds it approved,
    // and the document is not sent a second time.
    let before = fake.sifen.lock().unwrap().calls.len();
    fake.sifen
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::LoseAnswer);
    let (id, cdc) = api.create("Cliente Tres").await;
    let inv = api.settle(&id).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    {
        let s = fake.sifen.lock().unwrap();
        assert_eq!(s.calls[before..], ["recibe", "consulta"]);
        assert_eq!(s.received[&cdc], 1);
    }

    // Cancellation: the signed rGeVeCan event goes to SIFEN's evento service; cancelled once registered.
    let (status, v) = api
        .call(
            reqwest::Method::POST,
            &format!("/v1/facturas/{approved}/cancel"),
            Some(json!({"motivo": "Error en el precio unitario"})),
        )
        .await;
    assert_eq!(status, 202, "{v}");
    let inv = api.settle_cancellation(&approved).await;
    assert_eq!(inv["status"], "cancelled", "{inv}");
    assert_eq!(
        fake.sifen.lock().unwrap().calls.last().map(String::as_str),
        Some("evento")
    );
    assert!(fake
        .wire
        .lock()
        .unwrap()
        .requests
        .iter()
        .any(|(p, _)| p == "/de/ws/eventos/evento.wsdl"));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lots_are_sent_and_polled_rustls() {
    lots_are_sent_and_polled(SifenTls::Rustls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lots_are_sent_and_polled_openssl() {
    lots_are_sent_and_polled(SifenTls::Openssl).await;
}

async fn lots_are_sent_and_polled(tls: SifenTls) {
    let dir = dir(&format!("lote-{}", tls.as_str()));
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Lote, tls).await;
    let api = Live(Api::live(&server, &key));
    let mut ids = Vec::new();
    for name in ["Uno", "Dos", REJECT_MARKER] {
        ids.push(api.create(&format!("Cliente {name}")).await.0);
    }
    let mut states = Vec::new();
    for id in &ids {
        states.push(api.settle(id).await["status"].as_str().unwrap().to_string());
    }
    assert_eq!(states, ["approved", "approved", "rejected"]);
    {
        let s = fake.sifen.lock().unwrap();
        assert!(
            s.calls
                .iter()
                .all(|c| c.starts_with("recibe-lote") || c == "consulta-lote"),
            "{:?}",
            s.calls
        );
        assert!(s.calls.contains(&"consulta-lote".to_string()));
        assert!(s.received.values().all(|n| *n == 1), "{:?}", s.received);
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason_rustls() {
    a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason(SifenTls::Rustls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason_openssl() {
    a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason(SifenTls::Openssl).await;
}

async fn a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason(tls: SifenTls) {
    let dir = dir(&format!("refused-{}", tls.as_str()));
    let pki = pki(&dir);
    // This SIFEN expects another certificate (its own CA's), so our handshake fails.
    let fake = fake_sifen(&pki, pki.ca.clone()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Sync, tls).await;
    let api = Live(Api::live(&server, &key));
    let (id, _) = api.create("Cliente").await;
    let inv = wait_for("two attempts to reach SIFEN", || async {
        let inv = api.get(&id).await;
        if inv["transmission"]["attempts"].as_u64().unwrap_or(0) >= 2 {
            Ok(inv)
        } else {
            Err(inv.to_string())
        }
    })
    .await;
    assert_eq!(inv["status"], "pending", "{inv}");
    let err = inv["transmission"]["last_error"]
        .as_str()
        .unwrap_or_default();
    assert!(err.starts_with("transport:"), "{inv}");
    // Each failed call is counted (the send, then queries by CDC: a failed send may have arrived), and each left
    // the document to retry.
    // The sum of the samples whose line starts with `series` and contains `with`.
    let total = |text: &str, series: &str, with: &str| -> f64 {
        let lines = text
            .lines()
            .filter(|l| l.starts_with(series) && l.contains(with));
        lines
            .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
            .sum()
    };
    wait_for("two failed SIFEN calls counted", || async {
        let text = scrape_metrics(&server).await;
        let failed = metric(
            &text,
            "kuatia_sifen_calls_total{service=\"recibe\",outcome=\"failed\"}",
        );
        let all_failed = total(&text, "kuatia_sifen_calls_total{", "outcome=\"failed\"");
        match failed {
            Some(1.0)
                if all_failed >= 2.0 && total(&text, "kuatia_sifen_retries_total{", "") >= 2.0 =>
            {
                Ok(())
            }
            _ => Err(text),
        }
    })
    .await;
    {
        let wire = fake.wire.lock().unwrap();
        assert!(wire.handshakes_failed >= 2);
        assert!(
            wire.requests.is_empty(),
            "nothing reached SIFEN without the right certificate"
        );
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_transmission_loses_nothing_rustls() {
    a_restart_mid_transmission_loses_nothing(SifenTls::Rustls).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_transmission_loses_nothing_openssl() {
    a_restart_mid_transmission_loses_nothing(SifenTls::Openssl).await;
}

async fn a_restart_mid_transmission_loses_nothing(tls: SifenTls) {
    let dir = dir(&format!("restart-{}", tls.as_str()));
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let data = dir.join("data");
    // SIFEN does not answer the first request.
    fake.sifen.lock().unwrap().faults.push_back(Fault::Drop);
    let (server1, key) = server(&data, &fake, &pki, SifenMode::Sync, tls).await;
    let api = Live(Api::live(&server1, &key));
    let (id, cdc) = api.create("Cliente S.A.").await;
    wait_for("the first request at SIFEN", || async {
        if fake.wire.lock().unwrap().requests.is_empty() {
            Err("no request yet".to_string())
        } else {
            Ok(())
        }
    })
    .await;
    assert_eq!(fake.sifen.lock().unwrap().calls, ["recibe"]);
    // Stop while the call is in flight; the next start resumes from SQLite.
    server1.shutdown().await;
    let (server2, _) = server(&data, &fake, &pki, SifenMode::Sync, tls).await;
    let api = Live(Api::live(&server2, &key));
    let inv = api.settle(&id).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    {
        let s = fake.sifen.lock().unwrap();
        assert_eq!(s.calls, ["recibe", "consulta", "recibe"]);
        assert_eq!(s.received[&cdc], 1, "processed once");
    }
    server2.shutdown().await;
}

/// Creates one invoice against an OpenSSL fake in `mode` and waits for the verdict (or for two failed attempts).
async fn against_openssl_fake(mode: OpensslMode, tls: SifenTls) -> (Value, Fake) {
    let dir = dir(&format!("{mode:?}-{}", tls.as_str()));
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen_openssl(&pki, signer.certificate_der().to_vec(), mode);
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Sync, tls).await;
    let api = Live(Api::live(&server, &key));
    let (id, _) = api.create("Cliente Ejemplo S.A.").await;
    let inv = wait_for("a verdict or two failed attempts", || async {
        let inv = api.get(&id).await;
        if inv["status"] != "pending" || inv["transmission"]["attempts"].as_u64().unwrap_or(0) >= 2
        {
            Ok(inv)
        } else {
            Err(inv.to_string())
        }
    })
    .await;
    server.shutdown().await;
    (inv, fake)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cbc_only_sifen_is_reached_with_openssl() {
    let (inv, fake) = against_openssl_fake(OpensslMode::CbcOnly, SifenTls::Openssl).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    let wire = fake.wire.lock().unwrap();
    assert!(
        wire.ciphers.iter().all(|c| c == "AES128-SHA"),
        "{:?}",
        wire.ciphers
    );
    assert_eq!(wire.requests[0].0, "/de/ws/sync/recibe.wsdl");
    assert_eq!(
        wire.user_agents[0],
        format!("kuatia/{}", env!("CARGO_PKG_VERSION"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cbc_only_sifen_fails_with_rustls_naming_the_remedy() {
    let (inv, fake) = against_openssl_fake(OpensslMode::CbcOnly, SifenTls::Rustls).await;
    assert_eq!(inv["status"], "pending", "{inv}");
    let err = inv["transmission"]["last_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        err.contains("CBC") && err.contains("--sifen-tls openssl"),
        "{err}"
    );
    let wire = fake.wire.lock().unwrap();
    assert!(wire.handshakes_failed >= 1 && wire.requests.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renegotiating_sifen_is_reached_with_openssl() {
    let (inv, fake) = against_openssl_fake(OpensslMode::Renegotiate, SifenTls::Openssl).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    let wire = fake.wire.lock().unwrap();
    assert!(
        wire.renegotiated >= 1,
        "the certificate came by renegotiation"
    );
    assert_eq!(wire.handshakes_failed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renegotiating_sifen_fails_with_rustls_naming_the_remedy() {
    let (inv, fake) = against_openssl_fake(OpensslMode::Renegotiate, SifenTls::Rustls).await;
    assert_eq!(inv["status"], "pending", "{inv}");
    let err = inv["transmission"]["last_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        err.contains("renegotiation") && err.contains("--sifen-tls openssl"),
        "{err}"
    );
    let wire = fake.wire.lock().unwrap();
    assert_eq!(wire.renegotiated, 0);
    assert!(
        wire.requests.is_empty(),
        "no request was answered without the certificate"
    );
}

/// A signer that is not a `SoftwareSigner` (as a token or HSM would be): it signs through another and counts.
struct CountingSigner(
    kuatia_core::sign::SoftwareSigner,
    std::sync::atomic::AtomicUsize,
);

impl Signer for CountingSigner {
    fn certificate_der(&self) -> &[u8] {
        self.0.certificate_der()
    }
    fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, kuatia_core::sign::SignError> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.0.sign_rsa_sha256(data)
    }
}

/// The openssl stack signs the handshake through the `Signer` trait only, during the first handshake and during a
/// renegotiation alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openssl_stack_signs_through_any_signer() {
    for mode in [OpensslMode::CbcOnly, OpensslMode::Renegotiate] {
        let dir = dir(&format!("hsm-{mode:?}"));
        let pki = pki(&dir);
        let signer = Arc::new(CountingSigner(
            sandbox_test_signer().unwrap(),
            std::sync::atomic::AtomicUsize::new(0),
        ));
        let fake = fake_sifen_openssl(&pki, signer.certificate_der().to_vec(), mode);
        let transport = SifenTransport {
            timeout: Duration::from_secs(5),
            extra_roots: vec![pki.ca.clone()],
            tls: SifenTls::Openssl,
            ..SifenTransport::default()
        };
        let client = kuatia_server::sifen::client(signer.clone(), &transport).unwrap();
        let job = kuatia_service::transmit::SifenJob {
            account_id: "acct".into(),
            service: kuatia_core::sifen::Service::Consulta,
            url: "https://sifen-test.set.gov.py/de/ws/consultas/consulta.wsdl".into(),
            content_type: "application/xml; charset=utf-8".into(),
            body: "<rEnviConsDeRequest><dId>1</dId><dCDC>01444444017001001000000122026112314629362355</dCDC></rEnviConsDeRequest>".into(),
            d_id: 1,
            invoices: vec![],
        };
        let base = format!("https://127.0.0.1:{}", fake.port);
        let outcome = kuatia_server::sifen::post(&client, &job, Some(&base)).await;
        let kuatia_service::transmit::SifenOutcome::Answer { status, body } = &outcome else {
            panic!("{mode:?}: {outcome:?}");
        };
        assert_eq!(*status, 200, "{}", String::from_utf8_lossy(body));
        assert!(String::from_utf8_lossy(body).contains("<ns2:dCodRes>0420</ns2:dCodRes>"));
        assert_eq!(
            signer.1.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "{mode:?}"
        );
        assert_eq!(fake.sifen.lock().unwrap().calls, ["consulta"]);
    }
}

/// `kuatia sifen ping`'s handshake: what was negotiated, over both stacks, and rustls's diagnosis of a CBC-only server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_reports_what_the_handshake_negotiated() {
    let dir = dir("ping");
    let pki = pki(&dir);
    let signer: Arc<dyn Signer> = Arc::new(sandbox_test_signer().unwrap());
    let rustls_fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let cbc_fake = fake_sifen_openssl(
        &pki,
        signer.certificate_der().to_vec(),
        OpensslMode::CbcOnly,
    );
    let url = "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl";
    let transport = |port: u16, tls: SifenTls| SifenTransport {
        timeout: Duration::from_secs(5),
        extra_roots: vec![pki.ca.clone()],
        base_url: Some(format!("https://127.0.0.1:{port}")),
        tls,
        ..SifenTransport::default()
    };
    let ping = |port, tls| {
        let (signer, t) = (signer.clone(), transport(port, tls));
        tokio::task::spawn_blocking(move || kuatia_server::sifen::ping(signer, &t, url))
    };
    for tls in [SifenTls::Rustls, SifenTls::Openssl] {
        let p = ping(rustls_fake.port, tls).await.unwrap().unwrap();
        assert_eq!(p.stack, tls.as_str());
        assert_eq!((p.host.as_str(), p.port), ("127.0.0.1", rustls_fake.port));
        assert_eq!(p.protocol, "TLSv1.2");
        assert!(
            p.cipher.contains("GCM") || p.cipher.contains("CHACHA"),
            "{}",
            p.cipher
        );
        let cert = p.server_certificate.unwrap();
        assert_eq!(cert.subject, "CN=127.0.0.1");
        assert_eq!(cert.issuer, "CN=kuatia fake SIFEN test CA");
        assert!(cert.not_after.ends_with("GMT"), "{}", cert.not_after);
        assert!(p.client_certificate_requested && p.client_certificate_sent);
    }
    // The rustls fake verified our handshake signature both times, and no HTTP request was made. Its accept task
    // counts a handshake after the client already has its answer, so wait for the count (a hang guard, not a timing).
    for _ in 0..200 {
        if rustls_fake.wire.lock().unwrap().handshakes_ok >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(rustls_fake.wire.lock().unwrap().handshakes_ok, 2);
    assert!(rustls_fake.wire.lock().unwrap().requests.is_empty());

    let p = ping(cbc_fake.port, SifenTls::Openssl)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(p.cipher, "AES128-SHA");
    assert!(p.client_certificate_sent);
    let err = ping(cbc_fake.port, SifenTls::Rustls)
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        err.contains("--sifen-tls openssl") && err.contains("CBC"),
        "{err}"
    );
}

/// A P12 for the sandbox profile's RUC with a key and certificate of its own (not the built-in test certificate),
/// valid now: the certificate (DER) and the P12 (password `acct-test`).
fn own_p12(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/certs/other.key.pem"
    );
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-key",
            key,
            "-out",
            "acct.pem",
            "-days",
            "2",
            "-subj",
            "/CN=CUENTA PROPIA TEST/serialNumber=RUC44444401-7/C=PY",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-addext",
            "keyUsage=critical,digitalSignature,nonRepudiation",
            "-addext",
            "extendedKeyUsage=clientAuth",
        ],
    );
    openssl(
        dir,
        &[
            "pkcs12",
            "-export",
            "-inkey",
            key,
            "-in",
            "acct.pem",
            "-out",
            "acct.p12",
            "-passout",
            "pass:acct-test",
        ],
    );
    openssl(
        dir,
        &[
            "x509", "-in", "acct.pem", "-outform", "DER", "-out", "acct.der",
        ],
    );
    (
        std::fs::read(dir.join("acct.der")).unwrap(),
        std::fs::read(dir.join("acct.p12")).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_account_reaches_sifen_with_its_own_certificate_rustls() {
    each_account_reaches_sifen_with_its_own_certificate(SifenTls::Rustls, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_account_reaches_sifen_with_its_own_certificate_openssl() {
    each_account_reaches_sifen_with_its_own_certificate(SifenTls::Openssl, false).await;
}

/// A certificate stored while the server runs (`kuatia accounts set-p12` from another process, or another node's
/// panel) is picked up at the next request: the account's documents travel under it, without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_stored_while_serving_is_used_without_a_restart() {
    each_account_reaches_sifen_with_its_own_certificate(SifenTls::Rustls, true).await;
}

/// Two accounts: one with its own P12 (`accounts set-p12`), one without. The fake SIFEN accepts both certificates
/// and records the one each handshake presents: the first account's documents travel (and are signed) under its own
/// certificate, the second's under the server-wide `--p12`.
async fn each_account_reaches_sifen_with_its_own_certificate(tls: SifenTls, while_serving: bool) {
    use kuatia_server::accounts;
    let dir = dir(&format!("own-cert-{}-{while_serving}", tls.as_str()));
    let pki = pki(&dir);
    let data = dir.join("data");
    let (own_cert, p12) = own_p12(&dir);
    let server_wide = sandbox_test_signer().unwrap();
    let server_cert = server_wide.certificate_der().to_vec();
    assert_ne!(own_cert, server_cert);

    let mut prod = Emisor::sandbox();
    prod.ambiente = kuatia_core::profile::Ambiente::Produccion;
    // Account A: its own certificate. Account B: none (the server-wide one).
    let key_a = kuatia_server::create_key(data.clone(), Environment::Production).unwrap();
    let a = accounts::list_accounts(data.clone()).unwrap()[0].id.clone();
    let (b, _) = accounts::create_account(data.clone(), "Otra empresa").unwrap();
    let key_b = accounts::create_key(data.clone(), Environment::Production, Some(&b.id)).unwrap();
    for id in [&a, &b.id] {
        accounts::set_profile(data.clone(), id, prod.clone())
            .unwrap()
            .unwrap();
    }
    let var = format!(
        "KUATIA_T_OWN_P12_{}_{while_serving}",
        tls.as_str().to_uppercase()
    );
    std::env::set_var(&var, "acct-test");
    let store_p12 = {
        let (data, a, p12, var) = (data.clone(), a.clone(), p12.clone(), var.clone());
        move || {
            accounts::set_p12(data, &a, &p12, &var).unwrap().unwrap();
        }
    };
    let store_p12 = if while_serving {
        Some(store_p12)
    } else {
        store_p12();
        None
    };

    let fake = fake_sifen_accepting(&pki, vec![own_cert.clone(), server_cert.clone()]).await;
    let mut c = ServerConfig::new(data.clone());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.deliver_webhooks = false;
    c.production_signer = Some(server_wide);
    c.sifen_retry = vec![1];
    c.sifen = SifenTransport {
        timeout: Duration::from_secs(2),
        interval: Duration::from_millis(100),
        extra_roots: vec![pki.ca.clone()],
        base_url: Some(format!("https://127.0.0.1:{}", fake.port)),
        tls,
    };
    let server = start(c).await.unwrap();
    if let Some(store_p12) = store_p12 {
        // Another connection to the same data directory, as the CLI would be.
        tokio::task::spawn_blocking(store_p12).await.unwrap();
    }
    let api = |key: &str| Live(Api::live(&server, key));
    let (api_a, api_b) = (api(&key_a), api(&key_b));

    let (id_a, _) = api_a.create("Cliente de A").await;
    let inv = api_a.settle(&id_a).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    let presented_by_a = fake
        .wire
        .lock()
        .unwrap()
        .client_certs
        .lock()
        .unwrap()
        .clone();
    assert!(!presented_by_a.is_empty());
    assert!(
        presented_by_a.iter().all(|c| *c == own_cert),
        "account A's connections present its own certificate only"
    );

    let (id_b, _) = api_b.create("Cliente de B").await;
    let inv = api_b.settle(&id_b).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    let presented = fake
        .wire
        .lock()
        .unwrap()
        .client_certs
        .lock()
        .unwrap()
        .clone();
    assert!(
        presented[presented_by_a.len()..]
            .iter()
            .all(|c| *c == server_cert),
        "account B has no certificate of its own: the server-wide one"
    );
    assert!(presented.len() > presented_by_a.len());

    // The documents are signed with the same certificate that authenticated their connection.
    let b64 = |der: &[u8]| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(der)
    };
    for (api, id, cert) in [(&api_a, &id_a, &own_cert), (&api_b, &id_b, &server_cert)] {
        let xml = api
            .0
            .send(
                reqwest::Method::GET,
                &format!("/v1/facturas/{id}/xml"),
                None,
                &[],
            )
            .await
            .text()
            .await
            .unwrap();
        assert!(xml.replace(['\n', '\r'], "").contains(&b64(cert)), "{id}");
    }
    server.shutdown().await;
}

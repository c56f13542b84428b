//! Production mode of `kuatia serve` against a fake SIFEN on loopback: HTTPS with TLS 1.2 and a mandatory client
//! certificate (the emitter's, checked byte for byte, its handshake signature verified), answering in SIFEN's
//! format. Flows: synchronous approval (KuDE, signed webhook), rejection with SIFEN's code, the gateway's HTML page,
//! a slow answer (timeout → query by CDC, never a second send), lots, and a server that refuses our certificate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../core/tests/common/fake_sifen.rs"]
mod fake_sifen;

use common::{next_event, receiver};

use fake_sifen::{FakeSifen, Fault, Reply, REJECT_MARKER};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use kuatia_core::api::auth::Environment;
use kuatia_core::api::transmit::SifenMode;
use kuatia_core::profile::Emisor;
use kuatia_core::sign::{sandbox_test_signer, Signer};
use kuatia_server::sifen::SifenTransport;
use kuatia_server::{start, RunningServer, ServerConfig};
use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = common::temp_dir(&format!("sifen-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A test CA and a server certificate for 127.0.0.1 it signed, made by openssl (DER; the key as PKCS#8).
struct Pki {
    ca: Vec<u8>,
    cert: Vec<u8>,
    key: Vec<u8>,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is installed (.ci/run installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn pki(dir: &Path) -> Pki {
    std::fs::write(
        dir.join("srv.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
    )
    .unwrap();
    for args in [
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=kuatia fake SIFEN test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ][..],
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "srv.key",
            "-out",
            "srv.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "srv.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "srv.pem",
            "-days",
            "2",
            "-extfile",
            "srv.ext",
        ],
        &["x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der"],
        &[
            "x509", "-in", "srv.pem", "-outform", "DER", "-out", "srv.der",
        ],
        &[
            "pkcs8",
            "-topk8",
            "-nocrypt",
            "-in",
            "srv.key",
            "-outform",
            "DER",
            "-out",
            "srv.key.der",
        ],
    ] {
        openssl(dir, args);
    }
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
    Pki {
        ca: read("ca.der"),
        cert: read("srv.der"),
        key: read("srv.key.der"),
    }
}

/// Accepts exactly one client certificate and verifies the handshake signature made with its key.
#[derive(Debug)]
struct ExpectClient {
    expected: Vec<u8>,
    provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for ExpectClient {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.expected.as_slice() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "unexpected client certificate".into(),
            ))
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// What the fake saw besides the SIFEN requests: the request paths and content types, and the handshakes.
#[derive(Default)]
struct Wire {
    requests: Vec<(String, String)>,
    handshakes_ok: usize,
    handshakes_failed: usize,
}

struct Fake {
    port: u16,
    sifen: Arc<Mutex<FakeSifen>>,
    wire: Arc<Mutex<Wire>>,
}

/// Starts the fake SIFEN: TLS 1.2 only, the client must present `client_cert`.
async fn fake_sifen(pki: &Pki, client_cert: Vec<u8>) -> Fake {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS12])
        .unwrap()
        .with_client_cert_verifier(Arc::new(ExpectClient {
            expected: client_cert,
            provider,
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
    let wire = Arc::new(Mutex::new(Wire::default()));
    let (s, w) = (sifen.clone(), wire.clone());
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, sifen, wire) = (acceptor.clone(), s.clone(), w.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    wire.lock().unwrap().handshakes_failed += 1;
                    return;
                };
                assert_eq!(
                    tls.get_ref().1.protocol_version(),
                    Some(rustls::ProtocolVersion::TLSv1_2)
                );
                wire.lock().unwrap().handshakes_ok += 1;
                let service = hyper::service::service_fn(
                    move |req: hyper::Request<hyper::body::Incoming>| {
                        let (sifen, wire) = (sifen.clone(), wire.clone());
                        async move {
                            let path = req.uri().path().to_string();
                            let ctype = req
                                .headers()
                                .get("content-type")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_string();
                            wire.lock().unwrap().requests.push((path, ctype));
                            let body = req.into_body().collect().await?.to_bytes();
                            let reply = sifen
                                .lock()
                                .unwrap()
                                .answer(&String::from_utf8_lossy(&body));
                            let (status, content_type, body) = match reply {
                                Reply::Http {
                                    status,
                                    content_type,
                                    body,
                                } => (status, content_type, body),
                                // Slower than the client's timeout.
                                Reply::Silence => {
                                    tokio::time::sleep(Duration::from_secs(4)).await;
                                    (504, "text/plain", String::new())
                                }
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
    Fake { port, sifen, wire }
}

/// A production `kuatia serve` (live key, the test certificate as the emitter's, SIFEN's test environment)
/// talking to the fake.
async fn server(dir: &Path, fake: &Fake, pki: &Pki, mode: SifenMode) -> (RunningServer, String) {
    let live = kuatia_server::create_key(dir.to_path_buf(), Environment::Production).unwrap();
    let mut c = ServerConfig::new(dir.to_path_buf());
    c.addr = "127.0.0.1:0".parse().unwrap();
    c.tick_interval = Duration::from_millis(100);
    c.webhook_interval = Duration::from_millis(100);
    c.webhook_timeout = Duration::from_secs(2);
    c.insecure_webhooks_http = true;
    c.production_signer = Some(sandbox_test_signer().unwrap());
    c.production_profile = Some(Emisor::sandbox());
    c.sifen_mode = mode;
    c.sifen_lot_poll_after = 1;
    c.sifen_retry = vec![1];
    c.sifen = SifenTransport {
        timeout: Duration::from_secs(1),
        interval: Duration::from_millis(100),
        extra_roots: vec![pki.ca.clone()],
        base_url: Some(format!("https://127.0.0.1:{}", fake.port)),
    };
    (start(c).await.unwrap(), live)
}

struct Live {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Live {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {}", self.key));
        if let Some(b) = body {
            r = r
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        let r = r.send().await.unwrap();
        let status = r.status().as_u16();
        let bytes = r.bytes().await.unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
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
        for _ in 0..200 {
            let v = self.get(id).await;
            if v["cancellation"]["status"] != "pending" {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("cancellation of {id} still pending: {}", self.get(id).await);
    }

    /// Polls until the invoice leaves pending/sent.
    async fn settle(&self, id: &str) -> Value {
        for _ in 0..200 {
            let v = self.get(id).await;
            if !matches!(v["status"].as_str(), Some("pending" | "sent")) {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("invoice {id} still in flight: {}", self.get(id).await);
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
async fn production_invoices_reach_sifen_over_mutual_tls() {
    let dir = dir("sync");
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Sync).await;
    let api = Live {
        http: reqwest::Client::new(),
        base: format!("http://{}", server.addr),
        key,
    };
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
        .http
        .get(format!("{}/v1/facturas/{id}/kude", api.base))
        .header("Authorization", format!("Bearer {}", api.key))
        .send()
        .await
        .unwrap();
    assert_eq!(pdf.status(), 200);
    assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF-"));
    let ev = next_event(&mut events, &secret).await;
    assert_eq!(ev["type"], "factura.approved");
    assert_eq!(ev["data"]["id"], json!(id));
    assert_eq!(ev["data"]["cdc"], json!(cdc));
    let approved = id.clone();
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
async fn lots_are_sent_and_polled() {
    let dir = dir("lote");
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Lote).await;
    let api = Live {
        http: reqwest::Client::new(),
        base: format!("http://{}", server.addr),
        key,
    };
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
async fn a_refused_client_certificate_keeps_the_invoice_pending_with_the_reason() {
    let dir = dir("refused");
    let pki = pki(&dir);
    // This SIFEN expects another certificate (its own CA's), so our handshake fails.
    let fake = fake_sifen(&pki, pki.ca.clone()).await;
    let (server, key) = server(&dir.join("data"), &fake, &pki, SifenMode::Sync).await;
    let api = Live {
        http: reqwest::Client::new(),
        base: format!("http://{}", server.addr),
        key,
    };
    let (id, _) = api.create("Cliente").await;
    let mut inv = Value::Null;
    for _ in 0..100 {
        inv = api.get(&id).await;
        if inv["transmission"]["attempts"].as_u64().unwrap_or(0) >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(inv["status"], "pending", "{inv}");
    let err = inv["transmission"]["last_error"]
        .as_str()
        .unwrap_or_default();
    assert!(err.starts_with("transport:"), "{inv}");
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
async fn a_restart_mid_transmission_loses_nothing() {
    let dir = dir("restart");
    let pki = pki(&dir);
    let signer = sandbox_test_signer().unwrap();
    let fake = fake_sifen(&pki, signer.certificate_der().to_vec()).await;
    let data = dir.join("data");
    // SIFEN does not answer the first request.
    fake.sifen.lock().unwrap().faults.push_back(Fault::Drop);
    let (server1, key) = server(&data, &fake, &pki, SifenMode::Sync).await;
    let api = Live {
        http: reqwest::Client::new(),
        base: format!("http://{}", server1.addr),
        key: key.clone(),
    };
    let (id, cdc) = api.create("Cliente S.A.").await;
    for _ in 0..100 {
        if !fake.wire.lock().unwrap().requests.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(fake.sifen.lock().unwrap().calls, ["recibe"]);
    // Stop while the call is in flight; the next start resumes from SQLite.
    server1.shutdown().await;
    let (server2, _) = server(&data, &fake, &pki, SifenMode::Sync).await;
    let api = Live {
        http: reqwest::Client::new(),
        base: format!("http://{}", server2.addr),
        key,
    };
    let inv = api.settle(&id).await;
    assert_eq!(inv["status"], "approved", "{inv}");
    {
        let s = fake.sifen.lock().unwrap();
        assert_eq!(s.calls, ["recibe", "consulta", "recibe"]);
        assert_eq!(s.received[&cdc], 1, "processed once");
    }
    server2.shutdown().await;
}

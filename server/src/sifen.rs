//! The SIFEN transport of `kuatia serve`: HTTPS `POST` over TLS 1.2 with mutual authentication by the emitter's
//! certificate (SIFEN.md §6.1), for the jobs of [`kuatia_service::Service::due_sifen`], each outcome reported
//! back with [`kuatia_service::Service::report_sifen`]. Every decision (what to send, when to query by CDC
//! instead of resending, back-off) is the core's; this module only moves bytes.
//!
//! The private key never leaves the [`Signer`]: the TLS handshake's `CertificateVerify` is signed through it
//! (RSA PKCS#1 v1.5 SHA-256, which TLS 1.2 client authentication uses), so a token or HSM signer works the same.
//!
//! Two TLS stacks ([`SifenTls`]): rustls (the default: TLS 1.2, AEAD suites with ECDHE only, no renegotiation) and
//! the system's OpenSSL (`--sifen-tls openssl`, [`crate::sifen_openssl`]: OpenSSL's default suites, CBC and RSA key
//! exchange included, and server-initiated renegotiation), for a gateway rustls cannot talk to. Both send
//! `User-Agent: kuatia/<version>`.

use crate::sifen_openssl::SignerPkey;
use crate::{lock, Engine};
use kuatia_core::sign::Signer;
use kuatia_service::transmit::{SifenJob, SifenOutcome};
use openssl::ssl::SslConnector;
use rustls::client::ResolvesClientCert;
use rustls::pki_types::CertificateDer;
use rustls::sign::{CertifiedKey, SigningKey};
use rustls::{SignatureAlgorithm, SignatureScheme};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// `User-Agent` of every SIFEN call (SIFEN's production peers all send one).
pub const USER_AGENT: &str = concat!("kuatia/", env!("CARGO_PKG_VERSION"));

/// The TLS stack SIFEN calls go through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SifenTls {
    /// rustls: TLS 1.2, ECDHE + AEAD suites only, no renegotiation.
    #[default]
    Rustls,
    /// The system's OpenSSL: TLS 1.2, OpenSSL's default suites (CBC, RSA key exchange), renegotiation accepted.
    Openssl,
}

impl SifenTls {
    /// The name used by `--sifen-tls`.
    pub fn as_str(self) -> &'static str {
        match self {
            SifenTls::Rustls => "rustls",
            SifenTls::Openssl => "openssl",
        }
    }
}

/// Invoices handed out per round.
const SIFEN_BATCH: usize = 64;

/// How `kuatia serve` reaches SIFEN.
#[derive(Debug, Clone)]
pub struct SifenTransport {
    /// Timeout of one call (connect + answer); the core's lease must be longer.
    pub timeout: Duration,
    /// Period of the worker.
    pub interval: Duration,
    /// Extra trusted root certificates (DER), besides the system's.
    pub extra_roots: Vec<Vec<u8>>,
    /// Replaces `https://sifen.set.gov.py` / `https://sifen-test.set.gov.py` in the core's URLs (a local fake SIFEN
    /// or a proxy); the path is kept.
    pub base_url: Option<String>,
    /// The TLS stack.
    pub tls: SifenTls,
}

impl Default for SifenTransport {
    fn default() -> Self {
        SifenTransport {
            timeout: Duration::from_secs(60),
            interval: Duration::from_secs(1),
            extra_roots: Vec::new(),
            base_url: None,
            tls: SifenTls::Rustls,
        }
    }
}

/// Signs the TLS handshake with the emitter's [`Signer`].
struct SignerKey(Arc<dyn Signer>);

impl std::fmt::Debug for SignerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SignerKey(<redacted>)")
    }
}

impl SigningKey for SignerKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn rustls::sign::Signer>> {
        offered
            .contains(&SignatureScheme::RSA_PKCS1_SHA256)
            .then(|| Box::new(SchemeSigner(self.0.clone())) as Box<dyn rustls::sign::Signer>)
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::RSA
    }
}

struct SchemeSigner(Arc<dyn Signer>);

impl std::fmt::Debug for SchemeSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemeSigner(<redacted>)")
    }
}

impl rustls::sign::Signer for SchemeSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        self.0.sign_rsa_sha256(message).map_err(|e| {
            rustls::Error::General(format!("client certificate signature: {}", e.code()))
        })
    }

    fn scheme(&self) -> SignatureScheme {
        SignatureScheme::RSA_PKCS1_SHA256
    }
}

/// Whether the server asked for the client certificate, and whether we sent it (for `kuatia sifen ping`).
#[derive(Debug, Default)]
struct CertFlags {
    requested: AtomicBool,
    sent: AtomicBool,
}

/// Offers the emitter's certificate whenever the server asks for one it can sign for.
#[derive(Debug)]
struct ClientCert(Arc<CertifiedKey>, Arc<CertFlags>);

impl ResolvesClientCert for ClientCert {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        sigschemes: &[SignatureScheme],
    ) -> Option<Arc<CertifiedKey>> {
        self.1.requested.store(true, Ordering::SeqCst);
        let offered = sigschemes.contains(&SignatureScheme::RSA_PKCS1_SHA256);
        self.1.sent.store(offered, Ordering::SeqCst);
        offered.then(|| self.0.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// The rustls configuration: TLS 1.2 only, the system's roots plus `extra_roots`, the signer's certificate for client
/// authentication.
fn rustls_config(
    signer: Arc<dyn Signer>,
    transport: &SifenTransport,
) -> Result<(rustls::ClientConfig, Arc<CertFlags>), String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let roots = transport
        .extra_roots
        .iter()
        .map(|der| CertificateDer::from(der.clone()));
    let verifier =
        rustls_platform_verifier::Verifier::new_with_extra_roots(roots, provider.clone())
            .map_err(|e| format!("TLS trust store: {e}"))?;
    // The leaf, then the issuers the P12 carried (SIFEN checks the chain: its codes 0001-0007).
    let chain = std::iter::once(signer.certificate_der())
        .chain(signer.certificate_chain().iter().map(Vec::as_slice))
        .map(|der| CertificateDer::from(der.to_vec()))
        .collect();
    let key = CertifiedKey::new(chain, Arc::new(SignerKey(signer)));
    let flags = Arc::new(CertFlags::default());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS12])
        .map_err(|e| format!("TLS 1.2: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_client_cert_resolver(Arc::new(ClientCert(Arc::new(key), flags.clone())));
    Ok((tls, flags))
}

/// The OpenSSL side of a [`SifenClient`].
pub struct OpensslClient {
    connector: SslConnector,
    key: SignerPkey,
    timeout: Duration,
}

/// An HTTPS client for SIFEN over the chosen TLS stack: TLS 1.2 only, the system's roots plus `extra_roots`, the
/// signer's certificate for client authentication, no redirects, `User-Agent: kuatia/<version>`.
#[derive(Clone)]
pub enum SifenClient {
    /// rustls through reqwest.
    Rustls(reqwest::Client),
    /// OpenSSL through hyper's HTTP/1.1 client.
    Openssl(Arc<OpensslClient>),
}

impl std::fmt::Debug for SifenClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SifenClient::Rustls(_) => "SifenClient(rustls)",
            SifenClient::Openssl(_) => "SifenClient(openssl)",
        })
    }
}

/// The SIFEN client of `transport.tls`.
pub fn client(signer: Arc<dyn Signer>, transport: &SifenTransport) -> Result<SifenClient, String> {
    match transport.tls {
        SifenTls::Rustls => {
            let (tls, _) = rustls_config(signer, transport)?;
            reqwest::Client::builder()
                .tls_backend_preconfigured(tls)
                .timeout(transport.timeout)
                .connect_timeout(transport.timeout)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(USER_AGENT)
                .build()
                .map(SifenClient::Rustls)
                .map_err(|e| format!("SIFEN client: {e}"))
        }
        SifenTls::Openssl => {
            let key = SignerPkey::new(signer.clone())?;
            let connector =
                crate::sifen_openssl::connector(&key, signer.as_ref(), &transport.extra_roots)?;
            Ok(SifenClient::Openssl(Arc::new(OpensslClient {
                connector,
                key,
                timeout: transport.timeout,
            })))
        }
    }
}

/// A client and the signer it was built for.
type ClientFor = (Arc<dyn Signer>, SifenClient);

/// The SIFEN clients of a running server. Each connection authenticates with the certificate of the account whose
/// documents it carries (SIFEN.md §6.1): an account with its own P12 (`kuatia accounts set-p12`) gets a client of
/// its own, built on its first job and kept; an account without one uses the server-wide client (`--p12`).
pub struct SifenClients {
    transport: SifenTransport,
    /// The server-wide signer's client, built at start.
    fallback: Option<SifenClient>,
    /// Clients built so far, by account, with the signer each was built for (a certificate uploaded later through
    /// the panel or `set-p12` replaces the signer, and so the client).
    cache: Mutex<std::collections::HashMap<String, ClientFor>>,
}

impl std::fmt::Debug for SifenClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SifenClients")
            .field("fallback", &self.fallback.is_some())
            .finish_non_exhaustive()
    }
}

impl SifenClients {
    /// The clients for a server-wide signer (if any); accounts' own signers are given per job, as the host holds
    /// them at that moment.
    pub fn new(
        fallback: Option<Arc<dyn Signer>>,
        transport: &SifenTransport,
    ) -> Result<SifenClients, String> {
        let fallback = fallback.map(|s| client(s, transport)).transpose()?;
        Ok(SifenClients {
            transport: transport.clone(),
            fallback,
            cache: Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// The client that authenticates as `account_id`: its own certificate's (`signer`, built once per signer, then
    /// cached), else the server-wide one.
    pub fn for_account(
        &self,
        account_id: &str,
        signer: Option<Arc<dyn Signer>>,
    ) -> Result<SifenClient, String> {
        let Some(signer) = signer else {
            return self.fallback.clone().ok_or_else(|| {
                format!(
                    "no certificate for account {account_id}: set one with kuatia accounts set-p12 or the panel"
                )
            });
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((built_for, c)) = cache.get(account_id) {
            if Arc::ptr_eq(built_for, &signer) {
                return Ok(c.clone());
            }
        }
        let built = client(signer.clone(), &self.transport)
            .map_err(|e| format!("certificate of account {account_id}: {e}"))?;
        cache.insert(account_id.to_string(), (signer, built.clone()));
        Ok(built)
    }
}

/// Host, port and path of an `https://` URL.
fn split_url(url: &str) -> Result<(String, u16, String), String> {
    let rest = url
        .strip_prefix("https://")
        .ok_or_else(|| format!("not an https URL: {url}"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, p) = v6.split_once(']').ok_or("bad IPv6 address")?;
        (h, p.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => p.parse().map_err(|_| format!("bad port in {url}"))?,
        None => 443,
    };
    Ok((host.to_string(), port, path.to_string()))
}

/// TCP + TLS 1.2 handshake with OpenSSL.
async fn openssl_connect(
    c: &OpensslClient,
    host: &str,
    port: u16,
) -> Result<tokio_openssl::SslStream<tokio::net::TcpStream>, String> {
    let tcp = tokio::net::TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("connect {host}:{port}: {e}"))?;
    let ssl = c
        .connector
        .configure()
        .and_then(|cfg| cfg.into_ssl(host))
        .map_err(|e| format!("OpenSSL: {e}"))?;
    let mut tls = tokio_openssl::SslStream::new(ssl, tcp).map_err(|e| format!("OpenSSL: {e}"))?;
    std::pin::Pin::new(&mut tls).connect().await.map_err(|e| {
        format!(
            "TLS handshake: {}",
            crate::sifen_openssl::explain(&e, &c.key)
        )
    })?;
    Ok(tls)
}

/// One POST over OpenSSL: status and body, or the transport's error.
async fn openssl_post(
    c: &OpensslClient,
    url: &str,
    content_type: &str,
    body: Vec<u8>,
) -> Result<(u16, Vec<u8>), String> {
    use http_body_util::{BodyExt, Full};
    let (host, port, path) = split_url(url)?;
    let tls = openssl_connect(c, &host, port).await?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
            .await
            .map_err(|e| error_chain(&e))?;
    let conn = tokio::spawn(conn);
    let host_header = if port == 443 {
        host.clone()
    } else {
        format!("{host}:{port}")
    };
    let request = hyper::Request::post(path)
        .header(hyper::header::HOST, host_header)
        .header(hyper::header::CONTENT_TYPE, content_type)
        .header(hyper::header::USER_AGENT, USER_AGENT)
        .body(Full::new(hyper::body::Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let answer = async {
        let response = sender.send_request(request).await?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await?.to_bytes();
        Ok::<_, hyper::Error>((status, body.to_vec()))
    }
    .await;
    match answer {
        Ok(a) => {
            conn.abort();
            Ok(a)
        }
        Err(e) => {
            // The connection task holds the real cause (a TLS alert, a failed renegotiation).
            let cause = match conn.await {
                Ok(Err(ce)) => error_chain(&ce),
                _ => error_chain(&e),
            };
            let mut message = cause;
            if let Some(m) = c
                .key
                .last_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
            {
                message.push_str(": ");
                message.push_str(&m);
            }
            Err(message)
        }
    }
}

/// A certificate as `kuatia sifen ping` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CertSummary {
    /// Subject, `CN=…, O=…`.
    pub subject: String,
    /// Issuer.
    pub issuer: String,
    /// Start of validity (OpenSSL's text, GMT).
    pub not_before: String,
    /// End of validity.
    pub not_after: String,
}

/// What a TLS handshake with SIFEN negotiated (`kuatia sifen ping`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Ping {
    /// `rustls` or `openssl`.
    pub stack: &'static str,
    /// Host and port reached.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Protocol version, e.g. `TLSv1.2`.
    pub protocol: String,
    /// Cipher suite (IANA name under rustls, OpenSSL's name under openssl).
    pub cipher: String,
    /// The server's leaf certificate.
    pub server_certificate: Option<CertSummary>,
    /// Whether the server asked for the client certificate during this handshake.
    pub client_certificate_requested: bool,
    /// Whether ours was sent (and the handshake signed through the Signer).
    pub client_certificate_sent: bool,
}

fn name_text(name: &openssl::x509::X509NameRef) -> String {
    name.entries()
        .map(|e| {
            let key = e.object().nid().short_name().unwrap_or("?");
            let value = e.data().to_string().unwrap_or_default();
            format!("{key}={value}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary(der: &[u8]) -> Option<CertSummary> {
    let c = openssl::x509::X509::from_der(der).ok()?;
    Some(CertSummary {
        subject: name_text(c.subject_name()),
        issuer: name_text(c.issuer_name()),
        not_before: c.not_before().to_string(),
        not_after: c.not_after().to_string(),
    })
}

/// Only the TLS handshake with the server of `url` (its origin), with the signer's certificate, over the stack of
/// `transport.tls`; blocking, bounded by `transport.timeout`. No HTTP request is sent, so a server that asks for the
/// certificate by renegotiation shows `client_certificate_requested: false` here.
pub fn ping(
    signer: Arc<dyn Signer>,
    transport: &SifenTransport,
    url: &str,
) -> Result<Ping, String> {
    use std::net::ToSocketAddrs;
    let url = target(url, transport.base_url.as_deref());
    let (host, port, _) = split_url(&url)?;
    let addr = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("{host}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}: no address"))?;
    let tcp = std::net::TcpStream::connect_timeout(&addr, transport.timeout)
        .map_err(|e| format!("connect {host}:{port}: {e}"))?;
    tcp.set_read_timeout(Some(transport.timeout))
        .and_then(|()| tcp.set_write_timeout(Some(transport.timeout)))
        .map_err(|e| e.to_string())?;
    match transport.tls {
        SifenTls::Rustls => {
            let (cfg, flags) = rustls_config(signer, transport)?;
            let name = rustls::pki_types::ServerName::try_from(host.clone())
                .map_err(|e| format!("{host}: {e}"))?;
            let mut conn = rustls::ClientConnection::new(Arc::new(cfg), name)
                .map_err(|e| format!("TLS: {e}"))?;
            let mut tcp = tcp;
            while conn.is_handshaking() {
                conn.complete_io(&mut tcp).map_err(|e| {
                    explain_rustls(&format!("TLS handshake: {}", error_chain(&e)), true)
                })?;
            }
            let protocol = match conn.protocol_version() {
                Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
                other => format!("{other:?}"),
            };
            let cipher = conn
                .negotiated_cipher_suite()
                .map(|s| s.suite().as_str().unwrap_or("?").to_string())
                .unwrap_or_default();
            let server_certificate = conn
                .peer_certificates()
                .and_then(|c| c.first())
                .and_then(|c| summary(c.as_ref()));
            conn.send_close_notify();
            let _ = conn.complete_io(&mut tcp);
            Ok(Ping {
                stack: "rustls",
                host,
                port,
                protocol,
                cipher,
                server_certificate,
                client_certificate_requested: flags.requested.load(Ordering::SeqCst),
                client_certificate_sent: flags.sent.load(Ordering::SeqCst),
            })
        }
        SifenTls::Openssl => {
            let key = SignerPkey::new(signer.clone())?;
            let connector =
                crate::sifen_openssl::connector(&key, signer.as_ref(), &transport.extra_roots)?;
            let mut tls = connector.connect(&host, tcp).map_err(|e| match e {
                openssl::ssl::HandshakeError::Failure(m) => format!(
                    "TLS handshake: {}",
                    crate::sifen_openssl::explain(m.error(), &key)
                ),
                other => format!("TLS handshake: {other}"),
            })?;
            let sent = key.signatures.load(Ordering::SeqCst) > 0;
            let ssl = tls.ssl();
            let ping = Ping {
                stack: "openssl",
                host: host.clone(),
                port,
                protocol: ssl.version_str().to_string(),
                cipher: ssl
                    .current_cipher()
                    .map(|c| c.name().to_string())
                    .unwrap_or_default(),
                server_certificate: ssl
                    .peer_certificate()
                    .and_then(|c| c.to_der().ok())
                    .and_then(|d| summary(&d)),
                // We always answer a request with our certificate, and every answer is signed.
                client_certificate_requested: sent,
                client_certificate_sent: sent,
            };
            let _ = tls.shutdown();
            Ok(ping)
        }
    }
}

/// The certificates of a PEM file (every `CERTIFICATE` block), or the file itself when it is one DER certificate.
pub fn certificates(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    use rustls::pki_types::pem::PemObject;
    if bytes.first() == Some(&0x30) {
        return Ok(vec![bytes.to_vec()]);
    }
    let certs = CertificateDer::pem_slice_iter(bytes)
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("not a PEM certificate file: {e}"))?;
    if certs.is_empty() {
        return Err("no CERTIFICATE block".into());
    }
    Ok(certs)
}

/// The URL to post a job to: the core's, or its path under `base_url`.
pub fn target(url: &str, base_url: Option<&str>) -> String {
    match (base_url, url.find("/de/ws/")) {
        (Some(base), Some(i)) => format!("{}{}", base.trim_end_matches('/'), &url[i..]),
        _ => url.to_string(),
    }
}

/// One call: the answer whatever its status, a timeout, or the transport's error.
pub async fn post(client: &SifenClient, job: &SifenJob, base_url: Option<&str>) -> SifenOutcome {
    let url = target(&job.url, base_url);
    let client = match client {
        SifenClient::Rustls(c) => c,
        SifenClient::Openssl(c) => {
            let call = openssl_post(c, &url, &job.content_type, job.body.clone().into_bytes());
            return match tokio::time::timeout(c.timeout, call).await {
                Err(_) => SifenOutcome::Timeout,
                Ok(Ok((status, body))) => SifenOutcome::Answer { status, body },
                Ok(Err(message)) => SifenOutcome::Failed { message },
            };
        }
    };
    let sent = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, &job.content_type)
        .body(job.body.clone())
        .send()
        .await;
    let response = match sent {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return SifenOutcome::Timeout,
        Err(e) => {
            return SifenOutcome::Failed {
                message: explain_rustls(&error_chain(&e), e.is_connect()),
            }
        }
    };
    let status = response.status().as_u16();
    match response.bytes().await {
        Ok(body) => SifenOutcome::Answer {
            status,
            body: body.to_vec(),
        },
        Err(e) if e.is_timeout() => SifenOutcome::Timeout,
        Err(e) => SifenOutcome::Failed {
            message: explain_rustls(&error_chain(&e), false),
        },
    }
}

/// rustls's error, with the cause and the remedy when it is one of the two things rustls refuses by design: a server
/// offering only suites it lacks (CBC, RSA key exchange), or one asking for the client certificate by renegotiation.
fn explain_rustls(chain: &str, during_handshake: bool) -> String {
    let refused = chain.contains("HandshakeFailure") || chain.contains("InsufficientSecurity");
    if refused && during_handshake {
        format!(
            "{chain} — SIFEN's server refused every cipher suite rustls offers (rustls speaks only ECDHE with \
             AES-GCM/ChaCha20; the server likely offers only CBC or RSA key exchange suites): run kuatia serve with \
             --sifen-tls openssl"
        )
    } else if refused || chain.contains("NoRenegotiation") {
        format!(
            "{chain} — SIFEN's server broke the connection after the handshake, as a server does when it asks for \
             the client certificate by renegotiation, which rustls does not support: run kuatia serve with \
             --sifen-tls openssl"
        )
    } else {
        chain.to_string()
    }
}

/// The error and its causes (reqwest's own message is only "error sending request").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The worker: hands out due jobs, posts them concurrently, reports each outcome in its own transaction.
pub(crate) async fn sifen_loop(
    engine: Arc<Mutex<Engine>>,
    clients: SifenClients,
    transport: SifenTransport,
    mut stop: watch::Receiver<bool>,
    metrics: Arc<crate::metrics::Metrics>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(transport.interval) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let e = engine.clone();
        let jobs = tokio::task::spawn_blocking(move || {
            lock(&e).transact(|svc, host| {
                let jobs = svc.due_sifen(host, SIFEN_BATCH);
                // Each job with its account's signer as the host holds it now (uploads replace it at run time).
                jobs.into_iter()
                    .map(|j| {
                        let signer = host.account_signer(&j.account_id);
                        (j, signer)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .await;
        let jobs = match jobs {
            Ok(Ok(j)) => j,
            Ok(Err(err)) => {
                tracing::error!(error = %err, "taking due SIFEN jobs failed; rolled back");
                continue;
            }
            Err(_) => continue,
        };
        let mut calls = tokio::task::JoinSet::new();
        for (job, signer) in jobs {
            // The account's own certificate authenticates the connection (or the server-wide one).
            let client = clients.for_account(&job.account_id, signer);
            let base = transport.base_url.clone();
            calls.spawn(async move {
                let outcome = match client {
                    Ok(client) => post(&client, &job, base.as_deref()).await,
                    Err(message) => SifenOutcome::Failed { message },
                };
                (job, outcome)
            });
        }
        while let Some(done) = calls.join_next().await {
            let Ok((job, outcome)) = done else { continue };
            let summary = match &outcome {
                SifenOutcome::Answer { status, .. } => format!("HTTP {status}"),
                SifenOutcome::Timeout => "timeout".to_string(),
                SifenOutcome::Failed { message } => message.clone(),
            };
            let class = match &outcome {
                SifenOutcome::Answer { status, .. } if (200..300).contains(status) => "ok",
                SifenOutcome::Answer { .. } => "http_error",
                SifenOutcome::Timeout => "timeout",
                SifenOutcome::Failed { .. } => "failed",
            };
            let e = engine.clone();
            let r = tokio::task::spawn_blocking(move || {
                lock(&e).transact(|svc, host| {
                    let progress = svc.report_sifen(&job, &outcome, host);
                    (job, progress)
                })
            })
            .await;
            match r {
                Ok(Ok((job, progress))) => {
                    // A document whose call failed and is due again (failed attempts in a row, work left).
                    let retries = progress
                        .iter()
                        .filter(|p| p.transmission.attempts > 0 && !p.transmission.is_idle())
                        .count();
                    metrics.sifen_call(job.service.as_str(), class, retries as u64);
                    for p in progress {
                        // Ids, states and SIFEN's codes only: no document content, no key material.
                        tracing::info!(
                            service = job.service.as_str(),
                            invoice = %p.invoice_id,
                            status = %p.status,
                            attempts = p.transmission.attempts,
                            error = p.transmission.last_error.as_deref().unwrap_or(""),
                            outcome = %summary,
                            "sifen"
                        );
                    }
                }
                Ok(Err(err)) => {
                    // The invoices keep their "query by CDC" fallback: the outcome is recovered by a query later.
                    tracing::error!(error = %err, "recording a SIFEN outcome failed; the documents will be queried");
                }
                Err(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{certificates, target};

    #[test]
    fn certificates_from_pem_or_der() {
        let pem = include_str!("../../tests/fixtures/certs/sandbox.cert.pem");
        let from_pem = certificates(pem.as_bytes()).unwrap();
        assert_eq!(from_pem.len(), 1);
        assert_eq!(certificates(&from_pem[0]).unwrap(), from_pem);
        assert!(certificates(b"hello").is_err());
    }

    #[test]
    fn base_url_replaces_the_origin_only() {
        let url = "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl";
        assert_eq!(target(url, None), url);
        assert_eq!(
            target(url, Some("https://127.0.0.1:9443/")),
            "https://127.0.0.1:9443/de/ws/sync/recibe.wsdl"
        );
    }
}

//! The fake SIFEN behind TLS for the server's production tests: a rustls server with TLS 1.2 and a mandatory client
//! certificate, and two OpenSSL servers (a CBC-only suite; a client certificate asked by renegotiation). Each answers
//! with the sans-IO `FakeSifen` (service/tests/common/fake_sifen.rs) and records what it saw on the wire.
//! Declared by the test binaries that talk to SIFEN only (it needs `crate::fake_sifen`).
#![allow(dead_code)]

use crate::common::pki::Pki;
use crate::common::tls::ExpectClient;
use crate::fake_sifen::{FakeSifen, Reply};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake saw besides the SIFEN requests: the request paths and content types, and the handshakes.
#[derive(Default)]
pub struct Wire {
    pub requests: Vec<(String, String)>,
    /// `User-Agent` of each request.
    pub user_agents: Vec<String>,
    pub handshakes_ok: usize,
    pub handshakes_failed: usize,
    /// OpenSSL fakes: the cipher suite of each accepted handshake.
    pub ciphers: Vec<String>,
    /// Renegotiation fake: client certificates obtained by renegotiation (checked byte for byte, signature verified).
    pub renegotiated: usize,
    /// rustls fake: the client certificate (DER) presented in each handshake, accepted or not.
    pub client_certs: Arc<Mutex<Vec<Vec<u8>>>>,
}

pub struct Fake {
    pub port: u16,
    pub sifen: Arc<Mutex<FakeSifen>>,
    pub wire: Arc<Mutex<Wire>>,
}

/// Starts the fake SIFEN: TLS 1.2 only, the client must present `client_cert`.
pub async fn fake_sifen(pki: &Pki, client_cert: Vec<u8>) -> Fake {
    fake_sifen_accepting(pki, vec![client_cert]).await
}

/// Starts the fake SIFEN: TLS 1.2 only, the client must present one of `client_certs`.
pub async fn fake_sifen_accepting(pki: &Pki, client_certs: Vec<Vec<u8>>) -> Fake {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let presented = Arc::new(Mutex::new(Vec::new()));
    let tls = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS12])
        .unwrap()
        .with_client_cert_verifier(Arc::new(ExpectClient {
            expected: client_certs,
            provider,
            presented: presented.clone(),
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
    let wire = Arc::new(Mutex::new(Wire {
        client_certs: presented,
        ..Wire::default()
    }));
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
                            let agent = req
                                .headers()
                                .get("user-agent")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_string();
                            {
                                let mut w = wire.lock().unwrap();
                                w.requests.push((path, ctype));
                                w.user_agents.push(agent);
                            }
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

/// How an OpenSSL fake SIFEN behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpensslMode {
    /// Offers only `AES128-SHA` (RSA key exchange, AES-CBC, HMAC-SHA1) and demands the client certificate.
    CbcOnly,
    /// Handshakes without asking for a certificate, reads the request, then asks for the client certificate by
    /// renegotiation (as IIS-style gateways do) before answering.
    Renegotiate,
}

// libssl calls the openssl crate does not wrap (the renegotiating fake only).
extern "C" {
    fn SSL_renegotiate(ssl: *mut openssl_sys::SSL) -> std::ffi::c_int;
    fn SSL_in_init(ssl: *const openssl_sys::SSL) -> std::ffi::c_int;
}

/// Starts a fake SIFEN on OpenSSL (blocking threads): TLS 1.2 only, the client must present `client_cert`.
pub fn fake_sifen_openssl(pki: &Pki, client_cert: Vec<u8>, mode: OpensslMode) -> Fake {
    use openssl::ssl::{SslAcceptor, SslMethod, SslVerifyMode, SslVersion};
    use std::io::{Read, Write};
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).unwrap();
    b.set_min_proto_version(Some(SslVersion::TLS1_2)).unwrap();
    b.set_max_proto_version(Some(SslVersion::TLS1_2)).unwrap();
    b.set_certificate(&openssl::x509::X509::from_der(&pki.cert).unwrap())
        .unwrap();
    b.set_private_key(&openssl::pkey::PKey::private_key_from_der(&pki.key).unwrap())
        .unwrap();
    // Required by OpenSSL once client certificates are verified (session resumption is keyed by it).
    b.set_session_id_context(b"kuatia-fake-sifen").unwrap();
    // A renegotiation must be a full handshake (a resumed one carries no new certificate), as mod_ssl does.
    b.set_options(openssl::ssl::SslOptions::NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
    if mode == OpensslMode::CbcOnly {
        b.set_cipher_list("AES128-SHA").unwrap();
    }
    let demand = SslVerifyMode::PEER | SslVerifyMode::FAIL_IF_NO_PEER_CERT;
    // OpenSSL verifies the CertificateVerify signature itself; the callback only pins the leaf certificate (the
    // test certificate is self-signed, so the chain check is ours).
    let expected = Arc::new(client_cert);
    let pin = move |_ok: bool, ctx: &mut openssl::x509::X509StoreContextRef| {
        ctx.error_depth() != 0
            || ctx
                .current_cert()
                .is_some_and(|c| c.to_der().unwrap() == *expected)
    };
    match mode {
        OpensslMode::CbcOnly => b.set_verify_callback(demand, pin.clone()),
        OpensslMode::Renegotiate => b.set_verify(SslVerifyMode::NONE),
    }
    let acceptor = Arc::new(b.build());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sifen = Arc::new(Mutex::new(FakeSifen::new()));
    let wire = Arc::new(Mutex::new(Wire::default()));
    let (s, w) = (sifen.clone(), wire.clone());
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(tcp) = tcp else { return };
            let (acceptor, sifen, wire, pin) =
                (acceptor.clone(), s.clone(), w.clone(), pin.clone());
            std::thread::spawn(move || {
                tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let Ok(mut tls) = acceptor.accept(tcp) else {
                    wire.lock().unwrap().handshakes_failed += 1;
                    return;
                };
                assert_eq!(tls.ssl().version_str(), "TLSv1.2");
                {
                    let mut w = wire.lock().unwrap();
                    w.handshakes_ok += 1;
                    w.ciphers
                        .push(tls.ssl().current_cipher().unwrap().name().to_string());
                }
                // One HTTP/1.1 request: headers, then Content-Length bytes.
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                let head_end = loop {
                    if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                    match tls.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => raw.extend_from_slice(&buf[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
                let header = |name: &str| {
                    head.lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
                        })
                        .unwrap_or_default()
                };
                let length: usize = header("content-length").parse().unwrap_or(0);
                while raw.len() < head_end + length {
                    match tls.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => raw.extend_from_slice(&buf[..n]),
                    }
                }
                if mode == OpensslMode::Renegotiate {
                    // Now ask for the certificate: HelloRequest, then a full handshake driven by reads.
                    use foreign_types::ForeignTypeRef;
                    let ssl = tls.ssl().as_ptr();
                    // SAFETY: the same live SSL; nothing else borrows it while the verify mode changes.
                    unsafe { openssl::ssl::SslRef::from_ptr_mut(ssl) }
                        .set_verify_callback(demand, pin);
                    // SAFETY: a live SSL owned by `tls`; AUTO_RETRY off makes SSL_read return once the new
                    // handshake is done instead of blocking for application data the client will not send.
                    unsafe {
                        openssl_sys::SSL_ctrl(
                            ssl,
                            78, /* SSL_CTRL_CLEAR_MODE */
                            4,  /* AUTO_RETRY */
                            std::ptr::null_mut(),
                        );
                        assert_eq!(SSL_renegotiate(ssl), 1);
                        if openssl_sys::SSL_do_handshake(ssl) != 1 {
                            wire.lock().unwrap().handshakes_failed += 1;
                            return;
                        }
                    }
                    let mut one = [0u8; 1];
                    // Until the new handshake is over with a certificate (SAFETY: the same live SSL).
                    while unsafe { SSL_in_init(ssl) } == 1 || tls.ssl().peer_certificate().is_none()
                    {
                        match tls.ssl_read(&mut one) {
                            Ok(_) => {}
                            Err(e) if e.code() == openssl::ssl::ErrorCode::WANT_READ => {}
                            Err(_) => {
                                wire.lock().unwrap().handshakes_failed += 1;
                                return;
                            }
                        }
                    }
                    let cert = tls.ssl().peer_certificate().map(|c| c.to_der().unwrap());
                    assert!(cert.is_some(), "renegotiated without a client certificate");
                    wire.lock().unwrap().renegotiated += 1;
                }
                {
                    let mut w = wire.lock().unwrap();
                    let path = head.split(' ').nth(1).unwrap_or_default().to_string();
                    w.requests.push((path, header("content-type")));
                    w.user_agents.push(header("user-agent"));
                }
                let body = String::from_utf8_lossy(&raw[head_end..head_end + length]).to_string();
                let reply = sifen.lock().unwrap().answer(&body);
                let (status, content_type, body) = match reply {
                    Reply::Http {
                        status,
                        content_type,
                        body,
                    } => (status, content_type, body),
                    Reply::Silence => {
                        std::thread::sleep(Duration::from_secs(4));
                        (504, "text/plain", String::new())
                    }
                };
                let _ = write!(
                    tls,
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.shutdown();
            });
        }
    });
    Fake { port, sifen, wire }
}

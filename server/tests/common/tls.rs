//! The fake SIFEN's side of mutual TLS, shared by the SIFEN and multi-node tests.

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use std::sync::{Arc, Mutex};

/// Accepts only the expected client certificates (records each one presented) and verifies the handshake
/// signature made with its key.
#[derive(Debug)]
pub struct ExpectClient {
    /// The certificates (DER) accepted.
    pub expected: Vec<Vec<u8>>,
    /// Verifies the handshake signatures.
    pub provider: Arc<CryptoProvider>,
    /// Every certificate presented, accepted or not.
    pub presented: Arc<Mutex<Vec<Vec<u8>>>>,
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
        self.presented
            .lock()
            .unwrap()
            .push(end_entity.as_ref().to_vec());
        if self
            .expected
            .iter()
            .any(|e| e.as_slice() == end_entity.as_ref())
        {
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

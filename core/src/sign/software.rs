//! The built-in signer: an RSA key held in memory, signing with aws-lc-rs (constant-time RSA).

use super::{pkcs12, SignError, Signer};
use aws_lc_rs::signature::{KeyPair as _, RsaKeyPair, RSA_PKCS1_SHA256};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use std::fmt;
use x509_parser::certificate::X509Certificate;
use x509_parser::oid_registry::OID_PKCS1_RSAENCRYPTION;
use x509_parser::prelude::FromDer;
use zeroize::Zeroizing;

/// DER contents of the rsaEncryption OID, to tell RSA PKCS#8 keys from others before parsing.
const OID_RSA: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01];

/// An RSA private key (2048 bits or more) and its certificate, loaded from PKCS#12 or PEM.
/// Key material lives inside aws-lc (freed and wiped on drop); intermediate buffers are zeroized.
pub struct SoftwareSigner {
    key: RsaKeyPair,
    cert_der: Vec<u8>,
    subject: String,
    /// The certificate parsed once (issuing checks it for every document).
    info: super::CertificateInfo,
    /// Its issuers found in the same file, nearest first.
    chain: Vec<Vec<u8>>,
}

impl fmt::Debug for SoftwareSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SoftwareSigner")
            .field("certificate", &self.subject)
            .field("key", &"<redacted>")
            .finish()
    }
}

impl SoftwareSigner {
    /// Loads the first private key of a PKCS#12 (`.p12` / `.pfx`) file and the certificate that matches it.
    pub fn from_pkcs12(der: &[u8], password: &str) -> Result<Self, SignError> {
        let contents = pkcs12::parse(der, password)?;
        let pkcs8 = contents.keys.first().ok_or(SignError::P12NoPrivateKey)?;
        if contents.certs.is_empty() {
            return Err(SignError::P12NoCertificate);
        }
        let key = rsa_from_pkcs8(pkcs8)?;
        let public = key.public_key().as_ref();
        let cert = contents
            .certs
            .iter()
            .find(|c| cert_public_key(c).is_ok_and(|p| p == public))
            .ok_or(SignError::KeyCertMismatch)?;
        let chain = issuers(cert, &contents.certs);
        let mut signer = Self::new(key, cert.clone())?;
        signer.chain = chain;
        Ok(signer)
    }

    /// Loads an unencrypted PEM private key (`PRIVATE KEY` or `RSA PRIVATE KEY`) and a PEM certificate.
    pub fn from_pem(key_pem: &str, cert_pem: &str) -> Result<Self, SignError> {
        let (label, der) =
            pem_block(key_pem).ok_or_else(|| SignError::KeyInvalid("no PEM block".into()))?;
        let key = match label.as_str() {
            "PRIVATE KEY" => rsa_from_pkcs8(&der)?,
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der).map_err(|_| too_weak_or_bad())?,
            "ENCRYPTED PRIVATE KEY" => {
                return Err(SignError::KeyInvalid(
                    "encrypted PEM keys are not supported; use PKCS#12".into(),
                ))
            }
            "EC PRIVATE KEY" => return Err(SignError::KeyUnsupported("sign-key-ec".into())),
            other => {
                return Err(SignError::KeyInvalid(format!(
                    "unexpected PEM block {other:?}"
                )))
            }
        };
        let (label, cert) = pem_block(cert_pem)
            .ok_or_else(|| SignError::CertificateInvalid("no PEM block".into()))?;
        if label != "CERTIFICATE" {
            return Err(SignError::CertificateInvalid(format!(
                "unexpected PEM block {label:?}"
            )));
        }
        if cert_public_key(&cert)? != key.public_key().as_ref() {
            return Err(SignError::KeyCertMismatch);
        }
        Self::new(key, cert.to_vec())
    }

    fn new(key: RsaKeyPair, cert_der: Vec<u8>) -> Result<Self, SignError> {
        if key.public_modulus_len() < 256 {
            return Err(SignError::KeyUnsupported("sign-key-short".into()));
        }
        let subject = X509Certificate::from_der(&cert_der)
            .map(|(_, c)| super::dn::name_text(c.subject()))
            .map_err(|e| SignError::CertificateInvalid(e.to_string()))?;
        let info = super::certificate_info(&cert_der)?;
        Ok(SoftwareSigner {
            key,
            cert_der,
            subject,
            info,
            chain: Vec::new(),
        })
    }
}

impl Signer for SoftwareSigner {
    fn certificate_der(&self) -> &[u8] {
        &self.cert_der
    }

    fn certificate_info(&self) -> Result<super::CertificateInfo, SignError> {
        Ok(self.info.clone())
    }

    fn certificate_chain(&self) -> &[Vec<u8>] {
        &self.chain
    }

    fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, SignError> {
        let mut sig = vec![0u8; self.key.public_modulus_len()];
        // aws-lc-rs ignores the RNG for PKCS#1 v1.5, which is deterministic.
        let rng = aws_lc_rs::rand::SystemRandom::new();
        self.key
            .sign(&RSA_PKCS1_SHA256, &rng, data, &mut sig)
            .map_err(|_| SignError::SignatureFailed("RSA signing failed".into()))?;
        Ok(sig)
    }
}

/// The issuers of `leaf` among `certs`, nearest first: each one's subject is the previous one's issuer; stops at a
/// self-signed certificate or when no issuer is in the file (CAs ship P12s with and without their chain).
fn issuers(leaf: &[u8], certs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut chain: Vec<Vec<u8>> = Vec::new();
    let mut current = leaf.to_vec();
    while chain.len() < certs.len() {
        let Ok((_, cur)) = X509Certificate::from_der(&current) else {
            break;
        };
        if cur.subject().as_raw() == cur.issuer().as_raw() {
            break;
        }
        let next = certs.iter().find(|c| {
            c.as_slice() != current.as_slice()
                && !chain.contains(c)
                && X509Certificate::from_der(c)
                    .is_ok_and(|(_, cand)| cand.subject().as_raw() == cur.issuer().as_raw())
        });
        match next {
            Some(n) => {
                chain.push(n.clone());
                current = n.clone();
            }
            None => break,
        }
    }
    chain
}

fn too_weak_or_bad() -> SignError {
    SignError::KeyUnsupported("sign-key-rejected".into())
}

/// Parses PKCS#8, telling non-RSA keys apart for a clear error.
fn rsa_from_pkcs8(der: &[u8]) -> Result<RsaKeyPair, SignError> {
    if !pkcs8_is_rsa(der) {
        return Err(SignError::KeyUnsupported("sign-key-not_rsa".into()));
    }
    RsaKeyPair::from_pkcs8(der).map_err(|_| too_weak_or_bad())
}

/// PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier { algorithm OID, .. }, privateKey }
fn pkcs8_is_rsa(der: &[u8]) -> bool {
    use super::der::{Reader, INTEGER, OID, SEQUENCE};
    let check = || -> Result<bool, super::der::DerError> {
        let pki = Reader::new(der).expect(SEQUENCE)?;
        let mut r = pki.reader();
        r.expect(INTEGER)?;
        let alg = r.expect(SEQUENCE)?;
        Ok(alg.reader().expect(OID)?.content == OID_RSA)
    };
    check().unwrap_or(false)
}

/// The certificate's RSA public key as DER `RSAPublicKey` (what aws-lc-rs exposes for the key pair).
fn cert_public_key(cert_der: &[u8]) -> Result<Vec<u8>, SignError> {
    let (_, cert) = X509Certificate::from_der(cert_der)
        .map_err(|e| SignError::CertificateInvalid(e.to_string()))?;
    let spki = cert.public_key();
    if spki.algorithm.algorithm != OID_PKCS1_RSAENCRYPTION {
        return Err(SignError::KeyUnsupported("sign-key-cert_not_rsa".into()));
    }
    Ok(spki.subject_public_key.data.to_vec())
}

/// First PEM block: its label and decoded bytes (wiped on drop: this may be a private key).
fn pem_block(pem: &str) -> Option<(String, Zeroizing<Vec<u8>>)> {
    let start = pem.find("-----BEGIN ")?;
    let rest = pem.get(start + 11..)?;
    let label_end = rest.find("-----")?;
    let label = rest.get(..label_end)?.to_string();
    let body = rest.get(label_end + 5..)?;
    let end = body.find(&format!("-----END {label}-----"))?;
    let b64: Zeroizing<String> = Zeroizing::new(
        body.get(..end)?
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect(),
    );
    let der = Zeroizing::new(B64.decode(b64.as_bytes()).ok()?);
    Some((label, der))
}

const SANDBOX_KEY_PEM: &str = include_str!("../../../tests/fixtures/certs/sandbox.key.pem");
const SANDBOX_CERT_PEM: &str = include_str!("../../../tests/fixtures/certs/sandbox.cert.pem");

/// TEST-ONLY signer for the sandbox: a public, committed RSA-2048 key with a self-signed certificate
/// (CN "kuatia SANDBOX TEST ONLY - NOT VALID FOR SIFEN", RUC 44444401-7, valid 2024-01-01 to 2054-01-01).
/// SIFEN rejects its signatures; never use it for real documents.
pub fn sandbox_test_signer() -> Result<SoftwareSigner, SignError> {
    SoftwareSigner::from_pem(SANDBOX_KEY_PEM, SANDBOX_CERT_PEM)
}

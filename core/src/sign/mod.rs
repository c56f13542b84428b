//! Enveloped XMLDSig signatures for SIFEN documents (SIFEN.md §4): signing with a pluggable [`Signer`],
//! verification with the public key only, certificate facts (validity, RUC) and, behind the `native-sign`
//! feature, a software signer that loads PKCS#12 / PEM keys and signs with aws-lc-rs.
//!
//! Signing digests the exclusive canonical form of the element whose `Id` is given (the `DE` of an `rDE`,
//! or the `rEve` of an event), builds `SignedInfo` exactly as the SIFEN profile prescribes and inserts
//! the `Signature` right after that element's end tag.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use sha2::{Digest as _, Sha256};
use std::fmt;

pub mod c14n;
mod cert;
mod dn;
mod lex;
mod verify;

#[cfg(feature = "native-sign")]
mod der;
#[cfg(feature = "native-sign")]
mod pkcs12;
#[cfg(feature = "native-sign")]
mod software;

pub use cert::{certificate_info, check_certificate, CertificateInfo};
#[cfg(feature = "native-sign")]
pub use software::{sandbox_test_signer, SoftwareSigner};
pub use verify::{verify, Verifier, VerifyReport};

/// XMLDSig namespace, the default namespace of the `Signature` element.
pub const DSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";
/// SignatureMethod URI for RSA PKCS#1 v1.5 with SHA-256.
pub const RSA_SHA256: &str = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
/// DigestMethod URI for SHA-256.
pub const SHA256: &str = "http://www.w3.org/2001/04/xmlenc#sha256";
/// Transform URI of the enveloped-signature transform.
pub const ENVELOPED_SIGNATURE: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

/// The error codes of this module (see [`SignError::code`] and [`VerifyReport::error`]), from the registry.
pub mod code {
    pub use crate::code::{
        CERTIFICATE_EXPIRED, CERTIFICATE_INVALID, CERTIFICATE_NOT_YET_VALID,
        CERTIFICATE_RUC_MISMATCH, CERTIFICATE_RUC_MISSING, DIGEST_MISMATCH, DUPLICATE_ID,
        ELEMENT_NOT_FOUND, KEY_CERT_MISMATCH, KEY_INVALID, KEY_UNSUPPORTED, P12_INVALID,
        P12_NO_CERTIFICATE, P12_NO_PRIVATE_KEY, P12_WRONG_PASSWORD, SIGNATURE_FAILED,
        SIGNATURE_INVALID, SIGNATURE_MALFORMED, SIGNATURE_MISSING, UNSUPPORTED_ALGORITHM,
    };
}

/// Why signing, key loading or a certificate check failed. Never contains passwords or key bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignError {
    /// Not a PKCS#12 file, or a structure or algorithm we cannot read.
    P12Invalid(String),
    /// The password does not open the PKCS#12 file.
    P12WrongPassword,
    /// The PKCS#12 file holds no private key.
    P12NoPrivateKey,
    /// The PKCS#12 file holds no certificate.
    P12NoCertificate,
    /// A PEM private key cannot be read.
    KeyInvalid(String),
    /// Not an RSA key of at least 2048 bits.
    KeyUnsupported(String),
    /// The private key does not match the certificate.
    KeyCertMismatch,
    /// The signer could not sign.
    SignatureFailed(String),
    /// The certificate cannot be parsed.
    CertificateInvalid(String),
    /// The certificate is not valid yet at the given time.
    CertificateNotYetValid(String),
    /// The certificate has expired at the given time.
    CertificateExpired(String),
    /// The certificate carries no RUC.
    CertificateRucMissing,
    /// The certificate's RUC differs from the emitter's.
    CertificateRucMismatch {
        /// RUC found in the certificate (`body-dv`).
        certificate: String,
        /// RUC of the emitter that was expected.
        emitter: String,
    },
    /// The XML to sign is malformed, lacks the `Id` or repeats it.
    Xml(c14n::C14nError),
}

impl SignError {
    /// Stable machine-readable code (see [`code`]).
    pub fn code(&self) -> &'static str {
        match self {
            SignError::P12Invalid(_) => code::P12_INVALID,
            SignError::P12WrongPassword => code::P12_WRONG_PASSWORD,
            SignError::P12NoPrivateKey => code::P12_NO_PRIVATE_KEY,
            SignError::P12NoCertificate => code::P12_NO_CERTIFICATE,
            SignError::KeyInvalid(_) => code::KEY_INVALID,
            SignError::KeyUnsupported(_) => code::KEY_UNSUPPORTED,
            SignError::KeyCertMismatch => code::KEY_CERT_MISMATCH,
            SignError::SignatureFailed(_) => code::SIGNATURE_FAILED,
            SignError::CertificateInvalid(_) => code::CERTIFICATE_INVALID,
            SignError::CertificateNotYetValid(_) => code::CERTIFICATE_NOT_YET_VALID,
            SignError::CertificateExpired(_) => code::CERTIFICATE_EXPIRED,
            SignError::CertificateRucMissing => code::CERTIFICATE_RUC_MISSING,
            SignError::CertificateRucMismatch { .. } => code::CERTIFICATE_RUC_MISMATCH,
            SignError::Xml(e) => e.code(),
        }
    }
}

impl fmt::Display for SignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        match self {
            SignError::P12Invalid(m) => write!(f, "{code}: not a readable PKCS#12 file ({m})"),
            SignError::P12WrongPassword => write!(f, "{code}: wrong PKCS#12 password"),
            SignError::P12NoPrivateKey => {
                write!(f, "{code}: the PKCS#12 file holds no private key")
            }
            SignError::P12NoCertificate => {
                write!(f, "{code}: the PKCS#12 file holds no certificate")
            }
            SignError::KeyInvalid(m) => write!(f, "{code}: cannot read the private key ({m})"),
            SignError::KeyUnsupported(m) => write!(
                f,
                "{code}: {m}; SIFEN needs an RSA key of 2048 bits or more"
            ),
            SignError::KeyCertMismatch => write!(
                f,
                "{code}: the private key does not belong to the certificate"
            ),
            SignError::SignatureFailed(m) => write!(f, "{code}: {m}"),
            SignError::CertificateInvalid(m) => {
                write!(f, "{code}: cannot read the certificate ({m})")
            }
            SignError::CertificateNotYetValid(m) | SignError::CertificateExpired(m) => {
                write!(f, "{code}: {m}")
            }
            SignError::CertificateRucMissing => {
                write!(f, "{code}: the certificate has no RUC serialNumber in its subject or SubjectAltName")
            }
            SignError::CertificateRucMismatch {
                certificate,
                emitter,
            } => {
                write!(f, "{code}: the certificate belongs to RUC {certificate}, not to the emitter {emitter}")
            }
            SignError::Xml(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SignError {}

impl From<c14n::C14nError> for SignError {
    fn from(e: c14n::C14nError) -> Self {
        SignError::Xml(e)
    }
}

impl From<SignError> for crate::Finding {
    fn from(e: SignError) -> Self {
        crate::Finding::new(e.code(), "", e.to_string())
    }
}

/// Something that holds a signing key: the built-in [`SoftwareSigner`] or a host's token / HSM.
pub trait Signer: Send + Sync {
    /// DER of the signer's leaf certificate, embedded in `KeyInfo/X509Data/X509Certificate`.
    fn certificate_der(&self) -> &[u8];
    /// RSA PKCS#1 v1.5 signature over SHA-256 of `data` (the signer hashes).
    fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, SignError>;
    /// What the certificate says (validity, RUC), checked before every document is signed. The default parses
    /// [`Signer::certificate_der`]; a signer that keeps it parsed returns its copy.
    fn certificate_info(&self) -> Result<CertificateInfo, SignError> {
        cert::certificate_info(self.certificate_der())
    }
    /// DER of the certificates that issued the leaf, nearest first (intermediate CAs, then the root when known),
    /// for hosts that present the chain, e.g. in TLS client authentication. Empty by default.
    fn certificate_chain(&self) -> &[Vec<u8>] {
        &[]
    }
}

/// A signed document and the `DigestValue` it carries (the QR code needs it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The input document with the `Signature` inserted after the signed element.
    pub xml: String,
    /// Base64 of the SHA-256 digest of the signed element's exclusive canonical form.
    pub digest_value: String,
}

/// Signs the element whose `Id` equals `id` with an enveloped XMLDSig signature (SIFEN profile).
pub fn sign_element(xml: &str, id: &str, signer: &dyn Signer) -> Result<Signed, SignError> {
    let subtree =
        c14n::canonicalize_subtree(xml, c14n::Target::Id(id), None, &c14n::Method::EXCLUSIVE)?;
    sign_canonical(xml, id, &subtree.bytes, subtree.end, signer)
}

/// Signs a document [`crate::xml::write`] produced: its `DE` is canonical already, so nothing is parsed. Anything
/// else goes through [`sign_element`].
pub(crate) fn sign_written_de(
    xml: &str,
    cdc: &str,
    signer: &dyn Signer,
) -> Result<Signed, SignError> {
    match crate::xml::written_de_canonical(xml) {
        Some((canonical, end)) => sign_canonical(xml, cdc, &canonical, end, signer),
        None => sign_element(xml, cdc, signer),
    }
}

/// Signs the element `id` whose exclusive canonical form is `canonical` and whose end tag ends at byte `end`.
fn sign_canonical(
    xml: &str,
    id: &str,
    canonical: &[u8],
    end: usize,
    signer: &dyn Signer,
) -> Result<Signed, SignError> {
    let digest_value = B64.encode(Sha256::digest(canonical));

    let mut id_attr = Vec::with_capacity(id.len());
    c14n::escape_attr(id, &mut id_attr);
    let id_attr = String::from_utf8_lossy(&id_attr);

    // SignedInfo is written in canonical form, so these bytes are both what we sign and what we embed.
    let mut signed_info = String::with_capacity(900);
    signed_info.push_str("<SignedInfo xmlns=\"");
    signed_info.push_str(DSIG_NS);
    signed_info.push_str("\"><CanonicalizationMethod Algorithm=\"");
    signed_info.push_str(c14n::EXC_C14N);
    signed_info.push_str("\"></CanonicalizationMethod><SignatureMethod Algorithm=\"");
    signed_info.push_str(RSA_SHA256);
    signed_info.push_str("\"></SignatureMethod><Reference URI=\"#");
    signed_info.push_str(&id_attr);
    signed_info.push_str("\"><Transforms><Transform Algorithm=\"");
    signed_info.push_str(ENVELOPED_SIGNATURE);
    signed_info.push_str("\"></Transform><Transform Algorithm=\"");
    signed_info.push_str(c14n::EXC_C14N);
    signed_info.push_str("\"></Transform></Transforms><DigestMethod Algorithm=\"");
    signed_info.push_str(SHA256);
    signed_info.push_str("\"></DigestMethod><DigestValue>");
    signed_info.push_str(&digest_value);
    signed_info.push_str("</DigestValue></Reference></SignedInfo>");

    let signature = signer.sign_rsa_sha256(signed_info.as_bytes())?;
    if signature.is_empty() {
        return Err(SignError::SignatureFailed(
            "the signer returned an empty signature".into(),
        ));
    }
    let cert = signer.certificate_der();
    if cert.is_empty() {
        return Err(SignError::CertificateInvalid(
            "the signer has no certificate".into(),
        ));
    }

    // Inside Signature the xmlns on SignedInfo is redundant (inherited), so the embedded copy omits it.
    let signed_info_body = signed_info
        .get(signed_info.find('>').map_or(0, |i| i + 1)..)
        .unwrap_or_default();
    let sig_b64 = B64.encode(&signature);
    let cert_b64 = B64.encode(cert);
    let mut out =
        String::with_capacity(xml.len() + signed_info.len() + sig_b64.len() + cert_b64.len() + 200);
    out.push_str(xml.get(..end).unwrap_or(xml));
    out.push_str("<Signature xmlns=\"");
    out.push_str(DSIG_NS);
    out.push_str("\"><SignedInfo>");
    out.push_str(signed_info_body);
    out.push_str("<SignatureValue>");
    out.push_str(&sig_b64);
    out.push_str("</SignatureValue><KeyInfo><X509Data><X509Certificate>");
    out.push_str(&cert_b64);
    out.push_str("</X509Certificate></X509Data></KeyInfo></Signature>");
    out.push_str(xml.get(end..).unwrap_or_default());
    Ok(Signed {
        xml: out,
        digest_value,
    })
}

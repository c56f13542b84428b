//! Enveloped XMLDSig signatures for SIFEN documents (SIFEN.md §4): signing with a pluggable [`Signer`],
//! verification with the public key only, certificate facts (validity, RUC) and, behind the `native-sign`
//! feature, a software signer that loads PKCS#12 / PEM keys and signs with aws-lc-rs.
//!
//! Signing digests the exclusive canonical form of the element whose `Id` is given (the `DE` of an `rDE`,
//! or the `rEve` of an event), builds `SignedInfo` exactly as the SIFEN profile prescribes and inserts
//! the `Signature` right after that element's end tag.

use crate::rule;
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
    /// Not an RSA key of at least 2048 bits: why, as the id of a catalog term `sign-key-*` (`sign-key-ec`,
    /// `core/locales/<lang>/sign.ftl`) or a signer's own text.
    KeyUnsupported(String),
    /// The private key does not match the certificate.
    KeyCertMismatch,
    /// The signer could not sign.
    SignatureFailed(String),
    /// The certificate cannot be parsed.
    CertificateInvalid(String),
    /// The certificate is not valid yet at the given time.
    CertificateNotYetValid {
        /// Start of the certificate's validity (RFC 3339).
        not_before: String,
        /// The time it was checked at (RFC 3339, Paraguay's offset).
        at: String,
    },
    /// The certificate has expired at the given time.
    CertificateExpired {
        /// End of the certificate's validity (RFC 3339).
        not_after: String,
        /// The time it was checked at (RFC 3339, Paraguay's offset).
        at: String,
    },
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
            SignError::CertificateNotYetValid { .. } => code::CERTIFICATE_NOT_YET_VALID,
            SignError::CertificateExpired { .. } => code::CERTIFICATE_EXPIRED,
            SignError::CertificateRucMissing => code::CERTIFICATE_RUC_MISSING,
            SignError::CertificateRucMismatch { .. } => code::CERTIFICATE_RUC_MISMATCH,
            SignError::Xml(e) => e.code(),
        }
    }
}

impl SignError {
    /// Turns the error into a [`crate::Finding`] of its rule (`sign.*`, `cert.*`, `xml.*`, [`crate::rule`]) located
    /// at the JSON `path`. A key's error names no key bytes and no password.
    pub fn to_finding(&self, path: impl Into<String>) -> crate::Finding {
        let path = path.into();
        match self {
            SignError::P12Invalid(m) => rule::sign_p12_invalid(path, m),
            SignError::P12WrongPassword => rule::sign_p12_password(path),
            SignError::P12NoPrivateKey => rule::sign_p12_no_key(path),
            SignError::P12NoCertificate => rule::sign_p12_no_cert(path),
            SignError::KeyInvalid(m) => rule::sign_key_invalid(path, m),
            SignError::KeyUnsupported(m) => key_unsupported(path, m),
            SignError::KeyCertMismatch => rule::sign_key_cert_mismatch(path),
            SignError::SignatureFailed(m) => rule::sign_failed(path, m),
            SignError::CertificateInvalid(m) => rule::cert_invalid(path, m),
            SignError::CertificateNotYetValid { not_before, at } => {
                rule::cert_not_yet_valid(path, not_before, at)
            }
            SignError::CertificateExpired { not_after, at } => {
                rule::cert_expired(path, not_after, at)
            }
            SignError::CertificateRucMissing => rule::cert_ruc_missing(path),
            SignError::CertificateRucMismatch {
                certificate,
                emitter,
            } => rule::cert_ruc_mismatch(path, certificate, emitter),
            SignError::Xml(e) => e.to_finding(path),
        }
    }
}

/// Rule `sign.key_unsupported`: its reason is a catalog term (`sign-key-ec`); a signer's own text stays as written.
fn key_unsupported(path: String, reason: &str) -> crate::Finding {
    let mut params = rule::Params::new();
    params.insert("reason", rule::Param::One(reason.to_string()));
    rule::finding(rule::SIGN_KEY_UNSUPPORTED, path, params)
}

/// The code and the English message of the error's rule (core/locales/en/sign.ftl).
impl fmt::Display for SignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.to_finding("").message_in(crate::msg::Lang::En);
        write!(f, "{}: {message}", self.code())
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
        e.to_finding("")
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
        let detail = "the signer returned an empty signature";
        return Err(SignError::SignatureFailed(detail.into()));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::msg::Lang;

    /// The error's `Display` is the code and the English catalog entry; its finding has the rule and parameters,
    /// and renders in Spanish; a secret never reaches a parameter.
    #[test]
    fn errors_are_rules_with_parameters() {
        let e = SignError::CertificateRucMismatch {
            certificate: "80069563-1".into(),
            emitter: "44444401-7".into(),
        };
        assert_eq!(
            e.to_string(),
            "CERTIFICATE_RUC_MISMATCH: the certificate belongs to RUC 80069563-1, not to the emitter 44444401-7"
        );
        let f = crate::Finding::from(e);
        assert_eq!(f.rule, "cert.ruc_mismatch");
        assert_eq!(f.params["emitter"], rule::Param::One("44444401-7".into()));
        assert_eq!(
            f.message_in(Lang::EsPy),
            "El certificado pertenece al RUC 80069563-1, no al del emisor 44444401-7"
        );

        let e = SignError::KeyUnsupported("sign-key-ec".into());
        assert_eq!(
            e.to_string(),
            "KEY_UNSUPPORTED: the key is an EC key; SIFEN needs an RSA key of 2048 bits or more"
        );
        assert!(e
            .to_finding("")
            .message_in(Lang::EsPy)
            .starts_with("La clave es de tipo EC; SIFEN requiere"));
        // A host signer's own reason is kept as written.
        let own = SignError::KeyUnsupported("token locked".into()).to_finding("");
        assert_eq!(
            own.message_in(Lang::En),
            "token locked; SIFEN needs an RSA key of 2048 bits or more"
        );

        let wrong = SignError::P12WrongPassword.to_finding("certificate");
        assert_eq!(
            (wrong.code.as_str(), wrong.path.as_str()),
            (code::P12_WRONG_PASSWORD, "certificate")
        );
        assert!(wrong.params.is_empty());
        assert_eq!(
            wrong.message_in(Lang::EsPy),
            "La contraseña del archivo PKCS#12 no es correcta"
        );
    }

    /// A canonicalization error keeps its code and English text, and is a rule of its own.
    #[test]
    fn c14n_errors_are_rules() {
        let xml = r#"<r><a Id="x"/><b Id="x"/></r>"#;
        let e = c14n::canonicalize_element(xml, "x", &c14n::Method::EXCLUSIVE).unwrap_err();
        assert_eq!(
            e.to_string(),
            "DUPLICATE_ID: 2 elements share the referenced Id"
        );
        let f = SignError::from(e).to_finding("");
        assert_eq!(
            (f.rule.as_ref(), f.code.as_str()),
            ("sign.id_duplicate", "DUPLICATE_ID")
        );
        let e = c14n::canonicalize_element("<r a='&nbsp;'/>", "x", &c14n::Method::EXCLUSIVE)
            .unwrap_err();
        assert_eq!(e.to_string(), "MALFORMED_XML: undeclared entity '&nbsp;'");
        assert_eq!(
            e.to_finding("").message_in(Lang::EsPy),
            "Entidad no declarada '&nbsp;'"
        );
    }
}

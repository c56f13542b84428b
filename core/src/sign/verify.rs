//! Verification of an enveloped XMLDSig signature with the certificate it carries (public key only;
//! builds for WebAssembly). Works on documents signed by other software, e.g. xmlsec1.
//!
//! The RSA operation runs in aws-lc (`native-sign`, every native build) or in the pure-Rust `rsa` crate where aws-lc
//! cannot go (wasm32). Both see the same keys: [`rsa_key_policy`] decides which keys are verified at all, so the
//! browser and native builds give the same verdict on every document (`backends_agree` below checks it).
//!
//! Two paths read the document (natively; the browser build has only the general one). The one-pass path (`fast`) takes the usual SIFEN shape, whose `DE` and `SignedInfo`
//! are their own canonical form apart from the start tag, and hashes them straight from the input; it gives up at
//! the first thing outside a strict subset, and the general path (every token recorded, C14N replayed from them)
//! starts over. Both end in the same checks (`plan`, `conclude`); `fast_tests` holds their reports equal.

use super::c14n::{self, Job, Method, Target};
use super::cert::{check_validity, info_of, CertificateInfo};
use super::lex::{self, Lexer, Tag, Tok};
use super::{code, DSIG_NS, ENVELOPED_SIGNATURE};
use crate::Finding;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde::Serialize;
use sha2::{Digest as _, Sha256, Sha384, Sha512};
use std::borrow::Cow;
use time::PrimitiveDateTime;
use x509_parser::certificate::X509Certificate;
use x509_parser::oid_registry::OID_PKCS1_RSAENCRYPTION;
use x509_parser::prelude::FromDer;
use x509_parser::public_key::PublicKey;

// Not in the browser build, whose size budget it would exceed (~4.6 KB gzipped); it verifies on the general path,
// with the same reports.
#[cfg(not(target_arch = "wasm32"))]
mod fast;

const EXC_C14N_NS: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";

/// Outcome of [`verify`]: each check separately, and the first failure as a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VerifyReport {
    /// True when the digest and signature verify and the certificate (if a time was given) was valid then.
    pub valid: bool,
    /// The `Id` the signature's Reference points to (callers check it is the CDC / event Id they expect).
    pub reference_id: Option<String>,
    /// The referenced element hashes to `DigestValue`.
    pub digest_ok: bool,
    /// `SignatureValue` verifies over the canonical `SignedInfo` with the certificate's key.
    pub signature_ok: bool,
    /// The embedded signer certificate.
    pub certificate: Option<CertificateInfo>,
    /// Whether the certificate was within its validity at the given time (`None` if no time was given).
    pub certificate_valid_at: Option<bool>,
    /// The first problem found, with a stable code (see [`super::code`]).
    pub error: Option<Finding>,
}

impl VerifyReport {
    fn fail(mut self, code: &str, message: impl Into<String>) -> Self {
        if self.error.is_none() {
            self.error = Some(Finding::new(code, "", message));
        }
        self.valid = false;
        self
    }
}

/// Verifies the first XMLDSig `Signature` in `xml`; `at` (Paraguay local time) also checks the certificate
/// dates. Never panics; problems are reported in [`VerifyReport::error`]. A host that verifies many documents keeps a
/// [`Verifier`] instead, which reads each certificate once.
pub fn verify(xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
    Verifier::new().verify(xml, at)
}

/// How many certificates a [`Verifier`] remembers (the most recently used; SIFEN documents come from few signers).
const KNOWN_CERTIFICATES: usize = 16;

/// Verification that remembers what it read from the last certificates it met: their facts ([`CertificateInfo`]),
/// the key checks, and the parsed RSA public key (aws-lc keeps its Montgomery constants with it). Reading a
/// certificate and preparing its key cost about a third of the work around the RSA operation, and a host verifies
/// documents of few signers. The memory is keyed by the certificate's base64 text as written and by its whole DER,
/// and holds only what is computed from the DER, so [`Verifier::verify`] gives what [`verify`] gives, for every
/// document, whatever came before.
#[derive(Default)]
pub struct Verifier {
    /// Most recently used first.
    known: Vec<KnownCertificate>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("known_certificates", &self.known.len())
            .finish()
    }
}

/// What [`Verifier`] keeps of one certificate.
struct KnownCertificate {
    /// The base64 it was met as, and its DER.
    text: String,
    der: Vec<u8>,
    info: CertificateInfo,
    /// The RSA key that passed [`rsa_key_policy`], or why the certificate's key is not verified.
    key: Result<RsaKey, (&'static str, String)>,
}

/// An RSA public key as both backends read it: `RSAPublicKey` DER, and natively aws-lc's parsed key per hash.
struct RsaKey {
    der: Vec<u8>,
    #[cfg(feature = "native-sign")]
    parsed: [Option<Option<aws_lc_rs::signature::ParsedPublicKey>>; 3],
}

impl RsaKey {
    fn new(der: &[u8]) -> Self {
        RsaKey {
            der: der.to_vec(),
            #[cfg(feature = "native-sign")]
            parsed: [None, None, None],
        }
    }

    /// RSA PKCS#1 v1.5 verification of `message` (the canonical SignedInfo, hashed here): aws-lc natively (the key
    /// parsed once per hash; a key aws-lc refuses verifies nothing, as [`rsa_verify`] gives), the `rsa` crate in the
    /// browser build.
    #[cfg(feature = "native-sign")]
    fn verify(&mut self, hash: HashAlg, message: &[u8], signature: &[u8]) -> bool {
        let slot = match hash {
            HashAlg::Sha256 => 0,
            HashAlg::Sha384 => 1,
            HashAlg::Sha512 => 2,
        };
        let Some(entry) = self.parsed.get_mut(slot) else {
            return false;
        };
        let der = &self.der;
        entry
            .get_or_insert_with(|| {
                aws_lc_rs::signature::ParsedPublicKey::new(native_algorithm(hash), der).ok()
            })
            .as_ref()
            .is_some_and(|key| key.verify_sig(message, signature).is_ok())
    }

    #[cfg(not(feature = "native-sign"))]
    fn verify(&mut self, hash: HashAlg, message: &[u8], signature: &[u8]) -> bool {
        rsa_verify(hash, &self.der, message, signature)
    }
}

/// What [`Verifier`] learns from a certificate's DER (met as `text`): the same checks, in the same order, as
/// reading it each time.
fn read_certificate(text: &str, der: Vec<u8>) -> Result<KnownCertificate, String> {
    let cert = match X509Certificate::from_der(&der) {
        Ok((_, c)) => c,
        Err(e) => return Err(format!("cannot read X509Certificate: {e}")),
    };
    let info = info_of(&cert);
    let spki = cert.public_key();
    let key = if spki.algorithm.algorithm != OID_PKCS1_RSAENCRYPTION {
        Err((
            code::UNSUPPORTED_ALGORITHM,
            "the certificate key is not RSA".to_string(),
        ))
    } else {
        // RSAPublicKey DER, as both backends read it; the policy decides first, so they see the same keys.
        let policy = match spki.parsed() {
            Ok(PublicKey::RSA(k)) => rsa_key_policy(k.modulus, k.exponent),
            _ => Err((
                code::CERTIFICATE_INVALID,
                "cannot read the RSA public key".into(),
            )),
        };
        policy.map(|()| RsaKey::new(&spki.subject_public_key.data))
    };
    Ok(KnownCertificate {
        text: text.to_string(),
        der,
        info,
        key,
    })
}

impl Verifier {
    /// A verifier that knows no certificate yet.
    pub fn new() -> Self {
        Verifier::default()
    }

    /// [`verify`], reading each certificate once while it stays among the last ones used.
    pub fn verify(&mut self, xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
        verify_with(self, xml, at)
    }

    /// The certificate whose base64 is `text` (an `X509Certificate` element's content), remembered (and moved to the
    /// front) or read now: a remembered text is not decoded again.
    fn certificate(&mut self, text: &str) -> Lookup<'_> {
        let found = match self.known.iter().position(|k| k.text == text) {
            Some(i) => i,
            None => {
                let Some(der) = b64(text) else {
                    return Lookup::Malformed;
                };
                match self.known.iter().position(|k| k.der == der) {
                    Some(i) => i,
                    None => {
                        let known = match read_certificate(text, der) {
                            Ok(known) => known,
                            Err(m) => return Lookup::Invalid(m),
                        };
                        self.known.truncate(KNOWN_CERTIFICATES - 1);
                        self.known.insert(0, known);
                        0
                    }
                }
            }
        };
        if let Some(recent) = self.known.get_mut(..=found) {
            recent.rotate_right(1);
        }
        match self.known.first_mut() {
            Some(known) => Lookup::Known(known),
            None => Lookup::Malformed,
        }
    }
}

/// What [`Verifier::certificate`] found.
enum Lookup<'v> {
    /// The text is not base64.
    Malformed,
    /// The DER is not a readable certificate: the message.
    Invalid(String),
    /// The certificate.
    Known(&'v mut KnownCertificate),
}

fn verify_with(verifier: &mut Verifier, xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
    let report = VerifyReport {
        valid: false,
        reference_id: None,
        digest_ok: false,
        signature_ok: false,
        certificate: None,
        certificate_valid_at: None,
        error: None,
    };
    // The same bound as the DE parser: a signed DE or event is far smaller, and a huge input is refused unread.
    if xml.len() > crate::xml::MAX_XML_BYTES {
        let limit = crate::xml::MAX_XML_BYTES;
        return report.fail(
            crate::error::code::TOO_LARGE,
            format!("the document exceeds {limit} bytes"),
        );
    }
    // A document whose signed parts are canonical as written (what our signer and SIFEN's shape give) is verified in
    // one pass without tokens; anything else, or anything the pass is unsure of, goes the general way below.
    if let Some(r) = try_fast(verifier, xml, at, &report) {
        return r;
    }
    verify_general(verifier, xml, at, report)
}

/// The one-pass path's report, or `None` when it leaves the document to the general path.
#[cfg(not(target_arch = "wasm32"))]
fn try_fast(
    verifier: &mut Verifier,
    xml: &str,
    at: Option<PrimitiveDateTime>,
    report: &VerifyReport,
) -> Option<VerifyReport> {
    let scan = fast::scan(xml)?;
    fast::verify(verifier, xml, &scan, at, report.clone())
}

#[cfg(target_arch = "wasm32")]
fn try_fast(
    _: &mut Verifier,
    _: &str,
    _: Option<PrimitiveDateTime>,
    _: &VerifyReport,
) -> Option<VerifyReport> {
    None
}

/// The general verification: every token of the document recorded, the canonical forms replayed from them.
fn verify_general(
    verifier: &mut Verifier,
    xml: &str,
    at: Option<PrimitiveDateTime>,
    report: VerifyReport,
) -> VerifyReport {
    // One parse: the scan for the Signature records its tokens, then the rest of the document is read and recorded
    // too, and the canonicalizations replay them (the same tokens a second parse would give).
    let mut lexer = Lexer::new(xml);
    // At most a token per markup and one of text before each (plus the end): counted, the vector never grows (a
    // growth copied ~25 KB of tokens for a SIFEN document).
    let markups = memchr::memchr_iter(b'<', xml.as_bytes()).count();
    let mut events = Vec::with_capacity(2 * markups + 2);
    let (sig, scope) = match find_signature(&mut lexer, &mut events) {
        Ok(Some(found)) => found,
        Ok(None) => {
            return report.fail(
                code::SIGNATURE_MISSING,
                "the document has no XMLDSig Signature",
            )
        }
        Err(e) => return report.fail(e.code(), e.message()),
    };
    let error = loop {
        let before = lexer.pos();
        match lexer.next() {
            Ok(event) => {
                events.push((event, before, lexer.pos()));
                if matches!(event, Tok::Eof | Tok::DocType) {
                    break None;
                }
            }
            Err(e) => break Some(c14n::C14nError::from(e)),
        }
    };
    let recorded = c14n::Recorded { events, error };
    let len = xml.len();
    let mut canonical = |plan: &Plan<'_, '_>, r: &mut VerifyReport| {
        // The referenced element and SignedInfo, canonicalized from the one parse of the document. SignedInfo's job
        // sees the Signature's ancestors' start tags (its namespace and xml:* scope) and the tokens from the
        // Signature on: whatever lies before it in the document was read by the scan and by the referenced
        // element's job, which runs to the end of the document and reports any problem there first.
        let exclude = plan.enveloped.then_some(sig.offset);
        let [subtree] = c14n::canonicalize_recorded(
            &recorded,
            len,
            [Job {
                target: Target::Id(plan.id),
                exclude,
                method: &plan.ref_method,
            }],
        );
        let subtree = subtree.map_err(|e| (e.code(), e.message().to_string()))?;
        r.digest_ok = plan.dig_hash.digest(&subtree.bytes) == plan.digest_value;

        let si_events = scope
            .ancestors
            .iter()
            .filter_map(|i| recorded.events.get(*i))
            .chain(recorded.events.get(scope.signature..).unwrap_or_default())
            .copied()
            .collect();
        let si_recorded = c14n::Recorded {
            events: si_events,
            error: recorded.error.clone(),
        };
        let [si_c14n] = c14n::canonicalize_recorded(
            &si_recorded,
            len,
            [Job {
                target: Target::Offset(plan.si.offset),
                exclude: None,
                method: &plan.si_method,
            }],
        );
        si_c14n
            .map(|s| s.bytes)
            .map_err(|e| (e.code(), e.message().to_string()))
    };
    match plan(&sig, report) {
        Ok((plan, r)) => match conclude(verifier, &plan, at, r, &mut canonical) {
            Ok(r) | Err(r) => r,
        },
        Err(r) => r,
    }
}

/// What [`plan`] reads from the `Signature` before anything is canonicalized.
struct Plan<'s, 'x> {
    si: &'s El<'x>,
    si_method: Method,
    hash: HashAlg,
    id: &'s str,
    enveloped: bool,
    ref_method: Method,
    dig_hash: HashAlg,
    digest_value: Vec<u8>,
    signature_value: Vec<u8>,
    cert_text: Option<&'s str>,
}

/// The first checks of a `Signature` (algorithms, the one Reference, the base64 values), in the order their
/// failures are reported; `Err` carries the report that stops there.
#[allow(clippy::result_large_err)]
fn plan<'s, 'x>(
    sig: &'s El<'x>,
    mut r: VerifyReport,
) -> Result<(Plan<'s, 'x>, VerifyReport), VerifyReport> {
    let malformed =
        |r: VerifyReport, what: &str| Err(r.fail(code::SIGNATURE_MALFORMED, what.to_string()));
    let Some(si) = sig.child("SignedInfo") else {
        return malformed(r, "Signature has no SignedInfo");
    };
    let c14n_alg = si
        .child("CanonicalizationMethod")
        .and_then(|c| c.attr("Algorithm"));
    let Some(si_method) = c14n_alg.and_then(|a| method_of(a, si.child("CanonicalizationMethod")))
    else {
        let m = format!(
            "CanonicalizationMethod {:?} is not supported",
            c14n_alg.unwrap_or("")
        );
        return Err(r.fail(code::UNSUPPORTED_ALGORITHM, m));
    };
    let sig_alg = si
        .child("SignatureMethod")
        .and_then(|c| c.attr("Algorithm"))
        .unwrap_or("");
    let Some(hash) = HashAlg::from_signature_uri(sig_alg) else {
        return Err(r.fail(
            code::UNSUPPORTED_ALGORITHM,
            format!("SignatureMethod {sig_alg:?} is not supported"),
        ));
    };
    let mut refs = si.children.iter().filter(|c| c.is("Reference"));
    let (Some(reference), None) = (refs.next(), refs.next()) else {
        return malformed(r, "SignedInfo must hold exactly one Reference");
    };
    let uri = reference.attr("URI").unwrap_or("");
    let Some(id) = uri.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return malformed(r, "Reference URI must be #Id of the signed element");
    };
    r.reference_id = Some(id.to_string());

    // Transforms: enveloped-signature and one canonicalization; a same-document #Id drops comments.
    let mut enveloped = false;
    let mut ref_method = Method::Inclusive {
        with_comments: false,
    };
    for t in reference
        .child("Transforms")
        .map(|t| t.children.as_slice())
        .unwrap_or_default()
    {
        let alg = t.attr("Algorithm").unwrap_or("");
        if alg == ENVELOPED_SIGNATURE {
            enveloped = true;
        } else if let Some(m) = method_of(alg, Some(t)) {
            ref_method = match m {
                Method::Exclusive {
                    inclusive_prefixes, ..
                } => Method::Exclusive {
                    with_comments: false,
                    inclusive_prefixes,
                },
                Method::Inclusive { .. } => Method::Inclusive {
                    with_comments: false,
                },
            };
        } else {
            return Err(r.fail(
                code::UNSUPPORTED_ALGORITHM,
                format!("Transform {alg:?} is not supported"),
            ));
        }
    }
    let dig_alg = reference
        .child("DigestMethod")
        .and_then(|c| c.attr("Algorithm"))
        .unwrap_or("");
    let Some(dig_hash) = HashAlg::from_digest_uri(dig_alg) else {
        return Err(r.fail(
            code::UNSUPPORTED_ALGORITHM,
            format!("DigestMethod {dig_alg:?} is not supported"),
        ));
    };
    let Some(digest_value) = reference.child("DigestValue").and_then(|d| b64(&d.text)) else {
        return malformed(r, "DigestValue is missing or not base64");
    };
    let Some(signature_value) = sig.child("SignatureValue").and_then(|d| b64(&d.text)) else {
        return malformed(r, "SignatureValue is missing or not base64");
    };
    let cert_text = sig
        .child("KeyInfo")
        .and_then(|k| k.child("X509Data"))
        .and_then(|x| x.child("X509Certificate"))
        .map(|c| c.text.as_ref());
    let plan = Plan {
        si,
        si_method,
        hash,
        id,
        enveloped,
        ref_method,
        dig_hash,
        digest_value,
        signature_value,
        cert_text,
    };
    Ok((plan, r))
}

/// Sets `digest_ok` and returns the canonical SignedInfo, or the code and message of a canonicalization error.
type Canonical<'c> =
    dyn FnMut(&Plan<'_, '_>, &mut VerifyReport) -> Result<Vec<u8>, (&'static str, String)> + 'c;

/// The rest of the checks once the `Signature` is read: the certificate and its key, then the canonical forms
/// (`canonical` sets `digest_ok` and returns the canonical SignedInfo, or the code and message of a canonicalization
/// error), the signature, the dates.
#[allow(clippy::result_large_err)]
fn conclude(
    verifier: &mut Verifier,
    plan: &Plan<'_, '_>,
    at: Option<PrimitiveDateTime>,
    mut r: VerifyReport,
    // `dyn`: one copy of this function for both paths.
    canonical: &mut Canonical<'_>,
) -> Result<VerifyReport, VerifyReport> {
    let lookup = match plan.cert_text {
        Some(text) => verifier.certificate(text),
        None => Lookup::Malformed,
    };
    // Certificate and its RSA key (read once per certificate by a kept Verifier).
    let known = match lookup {
        Lookup::Known(k) => k,
        Lookup::Malformed => {
            return Err(r.fail(
                code::SIGNATURE_MALFORMED,
                "KeyInfo/X509Data/X509Certificate is missing or not base64",
            ))
        }
        Lookup::Invalid(m) => return Err(r.fail(code::CERTIFICATE_INVALID, m)),
    };
    r.certificate = Some(known.info.clone());
    let key = match &mut known.key {
        Ok(key) => key,
        Err((c, m)) => {
            let (c, m) = (*c, m.clone());
            return Err(r.fail(c, m));
        }
    };

    let si_c14n = match canonical(plan, &mut r) {
        Ok(s) => s,
        Err((c, m)) => return Err(r.fail(c, m)),
    };
    // Signature over the canonical SignedInfo.
    r.signature_ok = key.verify(plan.hash, &si_c14n, &plan.signature_value);

    if let (Some(at), Some(info)) = (at, r.certificate.as_ref()) {
        r.certificate_valid_at = Some(check_validity(info, at).is_ok());
    }
    r.valid = r.digest_ok && r.signature_ok && r.certificate_valid_at != Some(false);
    let id = plan.id;
    if !r.digest_ok {
        return Err(r.fail(
            code::DIGEST_MISMATCH,
            format!("the element with Id=\"{id}\" does not match DigestValue"),
        ));
    }
    if !r.signature_ok {
        return Err(r.fail(
            code::SIGNATURE_INVALID,
            "SignatureValue does not verify with the certificate's key",
        ));
    }
    if let (Some(at), Some(info)) = (at, r.certificate.as_ref()) {
        if let Err(e) = check_validity(info, at) {
            let c = e.code();
            return Err(r.fail(
                c,
                e.to_string()
                    .trim_start_matches(c)
                    .trim_start_matches(": ")
                    .to_string(),
            ));
        }
    }
    Ok(r)
}

fn b64(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    // ASCII whitespace (space, tab, line feed, form feed, carriage return) found with `memchr`: a byte loop over the
    // ~1.8 KB of a certificate's base64 cost ~0.6 µs per document.
    let spaced = memchr::memchr3(b' ', b'\n', b'\t', bytes).is_some()
        || memchr::memchr2(b'\r', 0x0c, bytes).is_some();
    let decoded = if spaced {
        let compact: Vec<u8> = bytes
            .iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        B64.decode(compact)
    } else {
        B64.decode(bytes)
    };
    decoded.ok().filter(|v| !v.is_empty())
}

/// A canonicalization URI plus its `InclusiveNamespaces PrefixList` child, if any.
fn method_of(uri: &str, el: Option<&El<'_>>) -> Option<Method> {
    let method = Method::from_uri(uri)?;
    Some(match method {
        Method::Exclusive { with_comments, .. } => {
            let list = el
                .and_then(|e| {
                    e.children
                        .iter()
                        .find(|c| c.local == "InclusiveNamespaces" && c.ns == EXC_C14N_NS)
                })
                .and_then(|c| c.attr("PrefixList"))
                .unwrap_or("");
            Method::Exclusive {
                with_comments,
                inclusive_prefixes: list.split_whitespace().map(String::from).collect(),
            }
        }
        m => m,
    })
}

#[derive(Clone, Copy)]
enum HashAlg {
    Sha256,
    Sha384,
    Sha512,
}

impl HashAlg {
    fn from_signature_uri(uri: &str) -> Option<Self> {
        match uri {
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" => Some(HashAlg::Sha256),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384" => Some(HashAlg::Sha384),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512" => Some(HashAlg::Sha512),
            _ => None,
        }
    }
    fn from_digest_uri(uri: &str) -> Option<Self> {
        match uri {
            "http://www.w3.org/2001/04/xmlenc#sha256" => Some(HashAlg::Sha256),
            "http://www.w3.org/2001/04/xmldsig-more#sha384" => Some(HashAlg::Sha384),
            "http://www.w3.org/2001/04/xmlenc#sha512" => Some(HashAlg::Sha512),
            _ => None,
        }
    }
    /// An incremental hash of this algorithm.
    #[cfg(not(target_arch = "wasm32"))]
    fn hasher(self) -> Hasher {
        match self {
            HashAlg::Sha256 => Hasher::Sha256(Sha256::new()),
            HashAlg::Sha384 => Hasher::Sha384(Sha384::new()),
            HashAlg::Sha512 => Hasher::Sha512(Sha512::new()),
        }
    }
    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            HashAlg::Sha256 => Sha256::digest(data).to_vec(),
            HashAlg::Sha384 => Sha384::digest(data).to_vec(),
            HashAlg::Sha512 => Sha512::digest(data).to_vec(),
        }
    }
}

/// A hash of [`HashAlg`] fed in parts.
#[cfg(not(target_arch = "wasm32"))]
enum Hasher {
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
}

#[cfg(not(target_arch = "wasm32"))]
impl Hasher {
    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha384(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
        }
    }
    fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

/// Smallest and largest RSA modulus verified (bits): SIFEN's keys are 2048-bit and signing refuses less; 8192 is
/// aws-lc's ceiling for PKCS#1 v1.5 verification.
const RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=8192;

/// Which RSA public keys are verified, decided once for both backends from the DER integers of `RSAPublicKey`:
/// a positive odd modulus of [`RSA_BITS`] and an odd exponent from 3 to 2^33 - 1 (aws-lc's own bounds, which the
/// `rsa` crate is held to here). A key outside is reported, never half-verified by one backend only.
fn rsa_key_policy(modulus: &[u8], exponent: &[u8]) -> Result<(), (&'static str, String)> {
    let invalid = |what: &str| {
        (
            code::CERTIFICATE_INVALID,
            format!("the RSA public key {what}"),
        )
    };
    let (n_bits, e_bits) = (positive_bits(modulus), positive_bits(exponent));
    let (Some(n_bits), Some(e_bits)) = (n_bits, e_bits) else {
        return Err(invalid("has a negative or empty integer"));
    };
    if !RSA_BITS.contains(&n_bits) {
        return Err((
            code::KEY_UNSUPPORTED,
            format!(
                "the certificate's RSA key has {n_bits} bits; {} to {} are verified",
                RSA_BITS.start(),
                RSA_BITS.end()
            ),
        ));
    }
    let odd = |b: &[u8]| b.last().is_some_and(|l| l & 1 == 1);
    if !odd(modulus) {
        return Err(invalid("has an even modulus"));
    }
    if !odd(exponent) || !(2..=33).contains(&e_bits) {
        return Err(invalid("has an exponent outside 3 to 2^33 - 1 or even"));
    }
    Ok(())
}

/// Bit length of a DER INTEGER's content octets read as unsigned; `None` if it is empty or negative.
fn positive_bits(der_int: &[u8]) -> Option<usize> {
    if der_int.first().is_none_or(|b| b & 0x80 != 0) {
        return None;
    }
    let first = der_int.iter().position(|b| *b != 0)?;
    let top = der_int.get(first)?;
    Some((der_int.len() - first - 1) * 8 + (8 - top.leading_zeros() as usize))
}

/// RSA PKCS#1 v1.5 verification of `message` (the canonical SignedInfo, hashed here) with an `RSAPublicKey` DER
/// that [`rsa_key_policy`] accepted: aws-lc, about 20 times cheaper than the signature it checks. Natively
/// [`RsaKey::verify`] keeps the parsed key instead; the tests hold the two to the same verdicts.
#[cfg(all(feature = "native-sign", test))]
fn rsa_verify(hash: HashAlg, key_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    use aws_lc_rs::signature::UnparsedPublicKey;
    UnparsedPublicKey::new(native_algorithm(hash), key_der)
        .verify(message, signature)
        .is_ok()
}

/// aws-lc's PKCS#1 v1.5 verification for `hash`, 2048 to 8192 bits.
#[cfg(feature = "native-sign")]
fn native_algorithm(hash: HashAlg) -> &'static aws_lc_rs::signature::RsaParameters {
    use aws_lc_rs::signature::{
        RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_2048_8192_SHA384, RSA_PKCS1_2048_8192_SHA512,
    };
    match hash {
        HashAlg::Sha256 => &RSA_PKCS1_2048_8192_SHA256,
        HashAlg::Sha384 => &RSA_PKCS1_2048_8192_SHA384,
        HashAlg::Sha512 => &RSA_PKCS1_2048_8192_SHA512,
    }
}

#[cfg(not(feature = "native-sign"))]
fn rsa_verify(hash: HashAlg, key_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    rsa_verify_pure(hash, key_der, message, signature)
}

/// The same verification with the pure-Rust `rsa` crate (the browser build; native tests compare the two).
#[cfg(any(not(feature = "native-sign"), test))]
fn rsa_verify_pure(hash: HashAlg, key_der: &[u8], message: &[u8], signature: &[u8]) -> bool {
    use rsa::pkcs1::der::Decode as _;
    use rsa::{BigUint, Pkcs1v15Sign, RsaPublicKey};
    // Strict DER, as aws-lc reads it; `new_with_max_size` because `from_pkcs1_der` stops at 4096 bits.
    let Ok(parts) = rsa::pkcs1::RsaPublicKey::from_der(key_der) else {
        return false;
    };
    let n = BigUint::from_bytes_be(parts.modulus.as_bytes());
    let e = BigUint::from_bytes_be(parts.public_exponent.as_bytes());
    let Ok(key) = RsaPublicKey::new_with_max_size(n, e, *RSA_BITS.end()) else {
        return false;
    };
    let scheme = match hash {
        HashAlg::Sha256 => Pkcs1v15Sign::new::<Sha256>(),
        HashAlg::Sha384 => Pkcs1v15Sign::new::<Sha384>(),
        HashAlg::Sha512 => Pkcs1v15Sign::new::<Sha512>(),
    };
    key.verify(scheme, &hash.digest(message), signature).is_ok()
}

/// A small element tree of the `Signature` (namespace-resolved names, unprefixed attributes, text), borrowing the
/// input where it can.
#[derive(Debug)]
struct El<'x> {
    local: &'x str,
    ns: Cow<'x, str>,
    attrs: Vec<(&'x str, Cow<'x, str>)>,
    text: Cow<'x, str>,
    children: Vec<El<'x>>,
    offset: usize,
}

impl<'x> El<'x> {
    fn is(&self, local: &str) -> bool {
        self.local == local && self.ns == DSIG_NS
    }
    fn child(&self, local: &str) -> Option<&El<'x>> {
        self.children.iter().find(|c| c.is(local))
    }
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_ref())
    }
}

/// Where the `Signature` sits in the recorded tokens: the indices of its ancestors' start tags and its own.
#[derive(Debug)]
struct Scope {
    ancestors: Vec<usize>,
    signature: usize,
}

#[derive(Debug)]
struct ScanError(&'static str, String);

impl ScanError {
    fn code(&self) -> &'static str {
        self.0
    }
    fn message(&self) -> String {
        self.1.clone()
    }
}

fn bad(msg: impl Into<String>) -> ScanError {
    ScanError(crate::error::code::MALFORMED_XML, msg.into())
}

/// Finds the first `Signature` in the XMLDSig namespace and returns it as a tree.
/// Every token read is appended to `events` (with the offsets before and after it); `lexer` stops after the
/// `Signature`'s end.
fn find_signature<'x>(
    lexer: &mut Lexer<'x>,
    events: &mut Vec<(Tok<'x>, usize, usize)>,
) -> Result<Option<(El<'x>, Scope)>, ScanError> {
    let mut ns: Vec<(&'x str, Cow<'x, str>)> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut stack: Vec<El<'x>> = Vec::new(); // open elements of the Signature being captured
    let mut ancestors: Vec<usize> = Vec::new(); // token indices of the open start tags outside it
    let mut signature = 0;
    loop {
        let before = lexer.pos();
        let event = lexer
            .next()
            .map_err(|e| bad(format!("XML is not well-formed: {e}")))?;
        events.push((event, before, lexer.pos()));
        let (tag, empty) = match event {
            Tok::Start(tag) => (tag, false),
            Tok::Empty(tag) => (tag, true),
            Tok::End(_) => {
                close(&mut ns, &mut marks);
                match stack.pop() {
                    Some(done) => match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => {
                            return Ok(Some((
                                done,
                                Scope {
                                    ancestors,
                                    signature,
                                },
                            )))
                        }
                    },
                    None => {
                        ancestors.pop();
                    }
                }
                continue;
            }
            Tok::Text(t) | Tok::Plain(t) => {
                if let Some(top) = stack.last_mut() {
                    push_text(&mut top.text, t, matches!(event, Tok::Plain(_)))?;
                }
                continue;
            }
            Tok::DocType => {
                return Err(bad(
                    "DOCTYPE is not allowed (no DTDs or entity declarations)",
                ))
            }
            Tok::Eof => return Ok(None),
            _ => continue,
        };
        if marks.len() >= c14n::MAX_DEPTH {
            return Err(ScanError(
                crate::error::code::TOO_LARGE,
                "elements nested too deeply".into(),
            ));
        }
        let outside = stack.is_empty();
        let Some(el) = open(&tag, &mut ns, &mut marks, before, outside)? else {
            // Outside the Signature and not one: only its namespace declarations were kept.
            if empty {
                close(&mut ns, &mut marks);
            } else {
                ancestors.push(events.len().saturating_sub(1));
            }
            continue;
        };
        if outside {
            signature = events.len().saturating_sub(1);
        }
        if empty {
            close(&mut ns, &mut marks);
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => {
                    return Ok(Some((
                        el,
                        Scope {
                            ancestors,
                            signature,
                        },
                    )))
                }
            }
        } else {
            stack.push(el);
        }
    }
}

/// Appends raw character data of a `Signature` element with its predefined entities resolved; character
/// references such as `&#13;` only appear as line breaks in base64 text and are dropped.
fn push_text<'x>(text: &mut Cow<'x, str>, raw: &'x str, plain: bool) -> Result<(), ScanError> {
    if text.is_empty() && (plain || !raw.contains('&')) {
        *text = Cow::Borrowed(raw);
        return Ok(());
    }
    let text = text.to_mut();
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        let (plain, tail) = rest.split_at(amp);
        text.push_str(plain);
        let semi = tail
            .find(';')
            .ok_or_else(|| bad("unterminated reference"))?;
        match tail.get(1..semi).unwrap_or_default() {
            "amp" => text.push('&'),
            "lt" => text.push('<'),
            "gt" => text.push('>'),
            "quot" => text.push('"'),
            "apos" => text.push('\''),
            n if n.starts_with('#') => {}
            n => return Err(bad(format!("undefined entity &{n};"))),
        }
        rest = tail.get(semi + 1..).unwrap_or_default();
    }
    text.push_str(rest);
    Ok(())
}

/// An attribute value as the parser reports it (whitespace normalized, references resolved).
fn attr_value(raw: &str) -> Result<Cow<'_, str>, ScanError> {
    c14n::attr_value(raw).map_err(|e| bad(format!("bad attribute value: {}", e.message())))
}

/// Records the namespace declarations of a start tag (checking every attribute) and builds its element; with
/// `only_signature`, returns `None` without allocating unless the element is an XMLDSig `Signature`: before the
/// signature only the namespace scope matters, and a DE has a hundred elements for one Signature.
fn open<'x>(
    e: &Tag<'x>,
    ns: &mut Vec<(&'x str, Cow<'x, str>)>,
    marks: &mut Vec<usize>,
    offset: usize,
    only_signature: bool,
) -> Result<Option<El<'x>>, ScanError> {
    marks.push(ns.len());
    let mut plain = 0usize;
    for (key, raw) in lex::attributes(e.attrs) {
        if (key == "xmlns" || key.starts_with("xmlns:"))
            && ns.len() >= crate::xml::MAX_NAMESPACE_BINDINGS
        {
            return Err(too_many_bindings());
        }
        let value = attr_value(raw)?;
        if key == "xmlns" {
            ns.push(("", value));
        } else if let Some(p) = key.strip_prefix("xmlns:") {
            ns.push((p, value));
        } else {
            plain += 1;
        }
    }
    let qname = e.name;
    let (prefix, local) = lex::split_qname(qname);
    if only_signature && local != "Signature" {
        return Ok(None);
    }
    let uri: Cow<'x, str> = ns
        .iter()
        .rev()
        .find(|(p, _)| *p == prefix)
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    if only_signature && uri != DSIG_NS {
        return Ok(None);
    }
    let mut attrs = Vec::with_capacity(plain);
    if plain > 0 {
        for (key, raw) in lex::attributes(e.attrs) {
            if key == "xmlns" || key.contains(':') {
                continue;
            }
            attrs.push((key, attr_value(raw)?));
        }
    }
    Ok(Some(El {
        local,
        ns: uri,
        attrs,
        text: Cow::Borrowed(""),
        children: Vec::new(),
        offset,
    }))
}

fn too_many_bindings() -> ScanError {
    let n = crate::xml::MAX_NAMESPACE_BINDINGS;
    ScanError(
        crate::error::code::TOO_LARGE,
        format!("more than {n} namespace declarations in scope"),
    )
}

fn close(ns: &mut Vec<(&str, Cow<'_, str>)>, marks: &mut Vec<usize>) {
    if let Some(m) = marks.pop() {
        ns.truncate(m);
    }
}

#[cfg(all(test, feature = "native-sign"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use aws_lc_rs::signature::{KeyPair as _, RSA_PKCS1_SHA512};
    use aws_lc_rs::signature::{RsaEncoding, RsaKeyPair, RSA_PKCS1_SHA256, RSA_PKCS1_SHA384};

    fn key_pair(pem: &str) -> RsaKeyPair {
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        RsaKeyPair::from_pkcs8(&B64.decode(b64).unwrap()).unwrap()
    }

    fn sign(key: &RsaKeyPair, enc: &'static dyn RsaEncoding, msg: &[u8]) -> Vec<u8> {
        let mut sig = vec![0u8; key.public_modulus_len()];
        let rng = aws_lc_rs::rand::SystemRandom::new();
        key.sign(enc, &rng, msg, &mut sig).unwrap();
        sig
    }

    /// aws-lc (native) and the `rsa` crate (browser) give the same verdict on good, tampered and malformed input.
    #[test]
    fn backends_agree() {
        let key = key_pair(include_str!("../../testdata/sandbox.key.pem"));
        let other = key_pair(include_str!("../../testdata/other.key.pem"));
        let der = key.public_key().as_ref().to_vec();
        let msg = b"<SignedInfo xmlns=\"http://www.w3.org/2000/09/xmldsig#\">x</SignedInfo>";
        let s256 = sign(&key, &RSA_PKCS1_SHA256, msg);
        let s384 = sign(&key, &RSA_PKCS1_SHA384, msg);
        let s512 = sign(&key, &RSA_PKCS1_SHA512, msg);
        let flip = |s: &[u8], i: usize| {
            let mut s = s.to_vec();
            s[i] ^= 1;
            s
        };
        let mut longer = vec![0u8];
        longer.extend_from_slice(&s256);
        /// Name, hash, message, signature, expected verdict.
        type Case<'a> = (&'a str, HashAlg, &'a [u8], Vec<u8>, bool);
        let cases: Vec<Case> = vec![
            ("sha256", HashAlg::Sha256, msg, s256.clone(), true),
            ("sha384", HashAlg::Sha384, msg, s384.clone(), true),
            ("sha512", HashAlg::Sha512, msg, s512, true),
            (
                "other message",
                HashAlg::Sha256,
                b"<SignedInfo/>",
                s256.clone(),
                false,
            ),
            ("hash mismatch", HashAlg::Sha384, msg, s256.clone(), false),
            ("first bit", HashAlg::Sha256, msg, flip(&s256, 0), false),
            ("last bit", HashAlg::Sha256, msg, flip(&s256, 255), false),
            ("truncated", HashAlg::Sha256, msg, s256[1..].to_vec(), false),
            ("leading zero byte", HashAlg::Sha256, msg, longer, false),
            ("empty", HashAlg::Sha256, msg, Vec::new(), false),
            ("zeros", HashAlg::Sha256, msg, vec![0; 256], false),
            ("ones", HashAlg::Sha256, msg, vec![0xff; 256], false),
            (
                "other key",
                HashAlg::Sha256,
                msg,
                sign(&other, &RSA_PKCS1_SHA256, msg),
                false,
            ),
        ];
        for (name, hash, m, sig, expected) in cases {
            let native = rsa_verify(hash, &der, m, &sig);
            let pure = rsa_verify_pure(hash, &der, m, &sig);
            assert_eq!(native, pure, "{name}: aws-lc {native}, rsa {pure}");
            // The kept key, parsed once per hash, gives the same verdict the first time and the next.
            let mut kept = RsaKey::new(&der);
            assert_eq!(kept.verify(hash, m, &sig), native, "{name}: kept key");
            assert_eq!(kept.verify(hash, m, &sig), native, "{name}: kept key again");
            assert_eq!(native, expected, "{name}");
        }
        // A key DER either refuses alike.
        for bad in [&der[..der.len() - 1], &[][..], &[0x30, 0x00][..]] {
            assert!(!rsa_verify(HashAlg::Sha256, bad, msg, &s256));
            assert!(!rsa_verify_pure(HashAlg::Sha256, bad, msg, &s256));
            assert!(!RsaKey::new(bad).verify(HashAlg::Sha256, msg, &s256));
        }
    }

    /// SignedInfo canonicalized from the Signature's ancestors and the tokens from the Signature on gives what a
    /// canonicalization of the whole document gives, errors included, for both C14N methods.
    #[test]
    fn signed_info_scope_matches_whole_document() {
        let docs = [
            r#"<r xmlns="urn:d" xmlns:a="urn:a" xml:lang="gn"><a:x xmlns:b="urn:b" xml:base="z"/><p xml:space="preserve"><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo a:k="1"><x/>t</SignedInfo></Signature></p></r>"#,
            // A prefix declared on a sibling only is not in SignedInfo's scope.
            r#"<r><s xmlns:b="urn:b"/><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo b:k="1"/></Signature></r>"#,
            r#"<r><s xmlns:b="urn:b"/><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><b:x/></SignedInfo></Signature></r>"#,
            r#"<q:r xmlns:q="urn:q"><q:s/><q:Signature xmlns:q="http://www.w3.org/2000/09/xmldsig#"><q:SignedInfo/></q:Signature></q:r>"#,
        ];
        let methods = [
            Method::EXCLUSIVE,
            Method::Inclusive {
                with_comments: false,
            },
        ];
        for xml in docs {
            let mut lexer = Lexer::new(xml);
            let mut events = Vec::new();
            let (sig, scope) = find_signature(&mut lexer, &mut events).unwrap().unwrap();
            loop {
                let before = lexer.pos();
                let t = lexer.next().unwrap();
                events.push((t, before, lexer.pos()));
                if t == Tok::Eof {
                    break;
                }
            }
            let si = sig.child("SignedInfo").unwrap();
            let seeded: Vec<_> = scope
                .ancestors
                .iter()
                .map(|i| events[*i])
                .chain(events[scope.signature..].iter().copied())
                .collect();
            let recorded = c14n::Recorded {
                events: seeded,
                error: None,
            };
            for method in &methods {
                let job = Job {
                    target: Target::Offset(si.offset),
                    exclude: None,
                    method,
                };
                let [got] = c14n::canonicalize_recorded(&recorded, xml.len(), [job]);
                let whole = c14n::canonicalize_subtree(xml, job.target, None, method);
                assert_eq!(
                    got.as_ref().map(|s| &s.bytes),
                    whole.as_ref().map(|s| &s.bytes),
                    "{xml} {method:?}"
                );
            }
        }
    }

    #[test]
    fn key_policy() {
        assert_eq!(positive_bits(&[0x00, 0x80]), Some(8));
        assert_eq!(positive_bits(&[0x01, 0x00, 0x01]), Some(17));
        assert_eq!(positive_bits(&[0x00, 0x00, 0x01]), Some(1));
        assert_eq!(positive_bits(&[0x80]), None);
        assert_eq!(positive_bits(&[]), None);
        assert_eq!(positive_bits(&[0x00]), None);
        let modulus = |bits: usize| {
            let mut m = vec![0u8; bits.div_ceil(8) + 1];
            m[1] = 0xff >> ((8 - bits % 8) % 8);
            *m.last_mut().unwrap() |= 1;
            m
        };
        let f4 = [0x01, 0x00, 0x01];
        let code_of = |m: &[u8], e: &[u8]| rsa_key_policy(m, e).err().map(|(c, _)| c);
        assert_eq!(code_of(&modulus(2048), &f4), None);
        assert_eq!(code_of(&modulus(8192), &f4), None);
        assert_eq!(code_of(&modulus(3), &[0x03]), Some(code::KEY_UNSUPPORTED));
        assert_eq!(code_of(&modulus(1024), &f4), Some(code::KEY_UNSUPPORTED));
        assert_eq!(code_of(&modulus(2047), &f4), Some(code::KEY_UNSUPPORTED));
        assert_eq!(code_of(&modulus(8193), &f4), Some(code::KEY_UNSUPPORTED));
        let mut even = modulus(2048);
        *even.last_mut().unwrap() = 0;
        assert_eq!(code_of(&even, &f4), Some(code::CERTIFICATE_INVALID));
        for e in [
            &[0x01][..],
            &[0x02],
            &[0x01, 0x00, 0x00],
            &[0x02, 0x00, 0x00, 0x00, 0x01],
        ] {
            assert_eq!(
                code_of(&modulus(2048), e),
                Some(code::CERTIFICATE_INVALID),
                "{e:?}"
            );
        }
        assert_eq!(code_of(&modulus(2048), &[0x03]), None);
        assert_eq!(
            code_of(&modulus(2048), &[0x01, 0xff, 0xff, 0xff, 0xff]),
            None
        );
    }
}

/// The one-pass path (`fast`) against the general path: the same report on every document, and the documents the
/// one-pass path must leave to the general one.
#[cfg(all(test, feature = "native-sign"))]
mod fast_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const ID: &str = "01444444017001001000000122025031011234567890";

    fn blank() -> VerifyReport {
        VerifyReport {
            valid: false,
            reference_id: None,
            digest_ok: false,
            signature_ok: false,
            certificate: None,
            certificate_valid_at: None,
            error: None,
        }
    }

    /// Whether the one-pass path decides `xml` itself instead of handing it to the general path.
    fn fast_decides(xml: &str) -> bool {
        fast::scan(xml)
            .is_some_and(|s| fast::verify(&mut Verifier::new(), xml, &s, None, blank()).is_some())
    }

    /// `verify` (which tries the one-pass path first) and the general path alone give the same report.
    fn same(xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
        let got = verify(xml, at);
        let general = verify_general(&mut Verifier::new(), xml, at, blank());
        assert_eq!(got, general, "{xml}");
        got
    }

    fn rde(body: &str) -> String {
        format!(
            concat!(
                r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
                r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
                r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd">"#,
                r#"<dVerFor>150</dVerFor><DE Id="{ID}">{body}</DE></rDE>"#
            ),
            ID = ID,
            body = body
        )
    }

    fn signed(xml: &str) -> String {
        let signer = crate::sign::sandbox_test_signer().unwrap();
        crate::sign::sign_element(xml, ID, &signer).unwrap().xml
    }

    /// A signed DE in the usual shape, with the QR group after the Signature as SIFEN documents carry it.
    fn usual() -> String {
        let body = "<dDVId>0</dDVId><gDatRec><dNomRec>Cliente &amp; Hijos &lt;S.A.&gt; Ñandutí</dNomRec></gDatRec>\
                    <gCamItem><dCantProSer>2</dCantProSer><gValorItem><dPUniProSer>110000</dPUniProSer></gValorItem></gCamItem>";
        signed(&rde(body)).replace(
            "</rDE>",
            "<gCamFuFD><dCarQR>https://ekuatia.set.gov.py/consultas/qr?nVersion=150&amp;Id=1</dCarQR></gCamFuFD></rDE>\n",
        )
    }

    #[test]
    fn takes_the_usual_shape_and_reports_what_the_general_path_reports() {
        let doc = usual();
        assert!(fast_decides(&doc));
        let at = time::macros::datetime!(2026-01-01 00:00:00);
        assert!(same(&doc, None).valid);
        assert!(same(&doc, Some(at)).certificate_valid_at.is_some());
        // Pretty-printed Signature (line feeds between its elements, in its base64), as xmlsec1 writes it.
        let pretty = doc
            .replace("<SignedInfo>", "\n<SignedInfo>")
            .replace("</SignedInfo>", "</SignedInfo>\n")
            .replace("</SignatureValue>", "\n</SignatureValue>\n")
            .replace("<X509Certificate>", "<X509Certificate>\n");
        assert!(fast_decides(&pretty));
        assert!(same(&pretty, None).valid);
        // Tampered, still in the shape: each failure found on the one-pass path.
        let cases = [
            ("Hijos", "Hijas", code::DIGEST_MISMATCH),
            ("<dCantProSer>2<", "<dCantProSer>3<", code::DIGEST_MISMATCH),
            (
                "<SignatureValue>",
                "<SignatureValue>AAAA",
                code::SIGNATURE_INVALID,
            ),
            (
                "xmldsig-more#rsa-sha256",
                "xmldsig-more#rsa-sha384",
                code::SIGNATURE_INVALID,
            ),
            ("xmlenc#sha256", "xmlenc#sha512", code::DIGEST_MISMATCH),
            (
                "xmldsig-more#rsa-sha256",
                "xmldsig-more#rsa-md5",
                code::UNSUPPORTED_ALGORITHM,
            ),
            (
                "<X509Certificate>",
                "<X509Certificate>AAAA",
                code::CERTIFICATE_INVALID,
            ),
            ("<DigestValue>", "<DigestValue>!", code::SIGNATURE_MALFORMED),
            ("URI=\"#", "URI=\"#x", code::ELEMENT_NOT_FOUND),
        ];
        for (from, to, expected) in cases {
            let bad = doc.replacen(from, to, 1);
            assert_ne!(bad, doc, "{from}");
            let report = same(&bad, None);
            assert_eq!(
                report.error.map(|e| e.code),
                Some(expected.to_string()),
                "{to}"
            );
            if expected != code::ELEMENT_NOT_FOUND {
                assert!(fast_decides(&bad), "{to}");
            }
        }
    }

    /// What `issue` signs (our writer's DE, the QR group after the Signature) takes the one-pass path, with the
    /// request's special characters escaped in its text.
    #[test]
    fn takes_what_issue_signs() {
        let signer = crate::sign::sandbox_test_signer().unwrap();
        let req = crate::invoice::parse_request(
            r#"{"tipo_documento": 1, "receptor": {"ruc": "80069563-1", "razon_social": "Cliente \"Ñandutí\" & <Hijos> S.A."},
                "items": [{"descripcion": "Servicio 'mensual' > 1", "cantidad": 3, "precio_unitario": 1100000, "iva": 10},
                          {"descripcion": "Chipa", "cantidad": 2, "precio_unitario": 5000, "iva": 5}]}"#,
        )
        .unwrap();
        let issued = crate::issue::issue(
            &crate::profile::Emisor::sandbox(),
            &req,
            &signer,
            time::macros::datetime!(2025-03-10 10:11:00),
            &mut crate::cdc::FixedSecurityCode(123_456_789),
            &mut crate::issue::MemoryNumbering::default(),
        )
        .unwrap();
        assert!(fast_decides(&issued.xml), "{}", issued.xml);
        assert!(same(&issued.xml, None).valid);
    }

    #[test]
    fn leaves_other_shapes_to_the_general_path() {
        // Valid signatures over DEs not canonical as written: the general path verifies them.
        for body in [
            "<a/>",
            r#"<x b="1" a="2">t</x>"#,
            "<x a='1'>t</x>",
            r#"<x  a="1">t</x>"#,
            r#"<x a = "1">t</x>"#,
            r#"<x a="1&amp;2">t</x>"#,
            r#"<x a="1 2" >t</x>"#,
            "<x>&quot;q&quot;</x>",
            "<x>&#xE9;</x>",
            "<x>a > b</x>",
            "<x>a\r\nb</x>",
            "<x>\tt\n</x >",
            "<!-- c --><x>t</x>",
            "<?pi x?><x>t</x>",
            "<x><![CDATA[<&>]]></x>",
            r#"<p:x xmlns:p="urn:p">t</p:x>"#,
            r#"<x xmlns="urn:o">t</x>"#,
            r#"<x xmlns:p="urn:p" p:a="1">t</x>"#,
            r#"<x xml:lang="gn">t</x>"#,
        ] {
            let doc = signed(&rde(body));
            assert!(!fast_decides(&doc), "{body}");
            assert!(same(&doc, None).valid, "{body}");
        }
        let doc = usual();
        // Refused documents, each refused by the general path with its own code.
        let cases = [
            // Another element with the referenced Id, before or after the Signature.
            (
                "<dVerFor>".to_string(),
                format!(r#"<x Id="{ID}"></x><dVerFor>"#),
                code::DUPLICATE_ID,
            ),
            (
                "<gCamFuFD>".to_string(),
                format!(r#"<x Id="{ID}"></x><gCamFuFD>"#),
                code::DUPLICATE_ID,
            ),
            (
                "</rDE>".into(),
                "</rDE><rDE></rDE>".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "</rDE>".into(),
                "</rDE>x".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "<?xml".into(),
                "<!DOCTYPE r><?xml".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "</gCamFuFD>".into(),
                "</gCamFuFD><x>&foo;</x>".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "</gCamFuFD>".into(),
                "</gCamFuFD><x a=\"&foo;\"></x>".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "</gCamFuFD>".into(),
                "</gCamFuFD><x xmlns:p=\"\"></x>".into(),
                crate::error::code::MALFORMED_XML,
            ),
            (
                "</dVerFor>".into(),
                "</dVerFr>".into(),
                crate::error::code::MALFORMED_XML,
            ),
            // Valid, outside the subset: a comment after the root element, a byte order mark.
            ("</rDE>".into(), "</rDE><!-- c -->".into(), ""),
            ("<?xml".into(), "\u{feff}<?xml".into(), ""),
        ];
        for (from, to, expected) in cases {
            let bad = doc.replacen(&from, &to, 1);
            assert_ne!(bad, doc, "{from}");
            let report = same(&bad, None);
            assert!(!fast_decides(&bad), "{to}");
            assert_eq!(
                report.error.map(|e| e.code).unwrap_or_default(),
                expected,
                "{to}"
            );
        }
        // The Signature inside the signed element (enveloped): left to the general path, which verifies it.
        let inside = {
            let signer = crate::sign::sandbox_test_signer().unwrap();
            let xml = rde("<a>t</a>");
            let s = crate::sign::sign_element(&xml, ID, &signer).unwrap().xml;
            let at = s.find("<Signature").unwrap();
            let end = s.find("</Signature>").unwrap() + "</Signature>".len();
            let sig = &s[at..end];
            let rest = format!("{}{}", &s[..at], &s[end..]);
            rest.replacen("<a>t</a>", &format!("<a>t</a>{sig}"), 1)
        };
        assert!(!fast_decides(&inside));
        assert!(same(&inside, None).valid);
    }

    /// Small edits at every markup character of a signed document (and every 11th byte): the one-pass path, when it
    /// decides, gives the general path's report.
    #[test]
    fn agrees_with_the_general_path_on_edits() {
        let doc = usual();
        let edits: [&str; 12] = [
            "",
            " ",
            "\n",
            "\r",
            "/",
            "'",
            "\"",
            "&amp;",
            "&quot;",
            ":",
            "xmlns=\"urn:x\" ",
            " Id=\"01444444017001001000000122025031011234567890\"",
        ];
        let (mut fast, mut all) = (0, 0);
        let mut kept = Verifier::new();
        let mut kept_general = Verifier::new();
        for (i, c) in doc.char_indices() {
            if !(matches!(c, '<' | '>' | '"' | '=' | '&') || i % 11 == 0) {
                continue;
            }
            for (k, edit) in edits.iter().enumerate() {
                // Insert before the character, or replace it (the empty edit deletes it).
                for replace in [false, true] {
                    if !replace && k == 0 {
                        continue;
                    }
                    let end = if replace { i + c.len_utf8() } else { i };
                    let xml = format!("{}{edit}{}", &doc[..i], &doc[end..]);
                    all += 1;
                    if fast_decides(&xml) {
                        fast += 1;
                    }
                    let got = kept.verify(&xml, None);
                    let general = verify_general(&mut kept_general, &xml, None, blank());
                    assert_eq!(got, general, "{i} {edit:?} {replace}: {xml}");
                }
            }
        }
        // Not vacuous: the one-pass path decided many of them (text and base64 edits stay in its subset).
        assert!(fast > all / 10, "{fast} of {all}");
    }

    /// The fuzz targets' seeds that are text (documents, fragments, adversarial shapes): the same reports.
    #[test]
    fn agrees_with_the_general_path_on_fuzz_seeds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
        let mut n = 0;
        for dir in ["de_xml", "c14n_diff", "sifen_response"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in entries {
                let bytes = std::fs::read(e.unwrap().path()).unwrap();
                if let Ok(xml) = std::str::from_utf8(&bytes) {
                    same(xml, None);
                    n += 1;
                }
            }
        }
        assert!(n > 100, "{n} seeds");
    }
}

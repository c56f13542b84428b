//! Verification of an enveloped XMLDSig signature with the certificate it carries (public key only;
//! builds for WebAssembly). Works on documents signed by other software, e.g. xmlsec1.

use super::c14n::{self, Method, Target};
use super::cert::{check_validity, info_of, CertificateInfo};
use super::{code, DSIG_NS, ENVELOPED_SIGNATURE};
use crate::Finding;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use rsa::pkcs1::DecodeRsaPublicKey;
use rsa::{Pkcs1v15Sign, RsaPublicKey};
use serde::Serialize;
use sha2::{Digest as _, Sha256, Sha384, Sha512};
use time::PrimitiveDateTime;
use x509_parser::certificate::X509Certificate;
use x509_parser::oid_registry::OID_PKCS1_RSAENCRYPTION;
use x509_parser::prelude::FromDer;

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
/// dates. Never panics; problems are reported in [`VerifyReport::error`].
pub fn verify(xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
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
    let sig = match find_signature(xml) {
        Ok(Some(sig)) => sig,
        Ok(None) => {
            return report.fail(
                code::SIGNATURE_MISSING,
                "the document has no XMLDSig Signature",
            )
        }
        Err(e) => return report.fail(e.code(), e.message()),
    };
    match check(xml, &sig, at, report) {
        Ok(r) | Err(r) => r,
    }
}

// Both arms carry the report (Err = stopped early); it is built once per call, so its size is harmless.
#[allow(clippy::result_large_err)]
fn check(
    xml: &str,
    sig: &El,
    at: Option<PrimitiveDateTime>,
    mut r: VerifyReport,
) -> Result<VerifyReport, VerifyReport> {
    let malformed =
        |r: VerifyReport, what: &str| r.fail(code::SIGNATURE_MALFORMED, what.to_string());
    let Some(si) = sig.child("SignedInfo") else {
        return Err(malformed(r, "Signature has no SignedInfo"));
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
    let refs: Vec<&El> = si.children.iter().filter(|c| c.is("Reference")).collect();
    let [reference] = refs.as_slice() else {
        return Err(malformed(r, "SignedInfo must hold exactly one Reference"));
    };
    let uri = reference.attr("URI").unwrap_or("");
    let Some(id) = uri.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return Err(malformed(
            r,
            "Reference URI must be #Id of the signed element",
        ));
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
        return Err(malformed(r, "DigestValue is missing or not base64"));
    };
    let Some(signature_value) = sig.child("SignatureValue").and_then(|d| b64(&d.text)) else {
        return Err(malformed(r, "SignatureValue is missing or not base64"));
    };
    let cert_el = sig
        .child("KeyInfo")
        .and_then(|k| k.child("X509Data"))
        .and_then(|x| x.child("X509Certificate"));
    let Some(cert_der) = cert_el.and_then(|c| b64(&c.text)) else {
        return Err(malformed(
            r,
            "KeyInfo/X509Data/X509Certificate is missing or not base64",
        ));
    };

    // Certificate and its RSA key.
    let cert = match X509Certificate::from_der(&cert_der) {
        Ok((_, c)) => c,
        Err(e) => {
            return Err(r.fail(
                code::CERTIFICATE_INVALID,
                format!("cannot read X509Certificate: {e}"),
            ))
        }
    };
    r.certificate = Some(info_of(&cert));
    let spki = cert.public_key();
    if spki.algorithm.algorithm != OID_PKCS1_RSAENCRYPTION {
        return Err(r.fail(
            code::UNSUPPORTED_ALGORITHM,
            "the certificate key is not RSA",
        ));
    }
    let key = match RsaPublicKey::from_pkcs1_der(&spki.subject_public_key.data) {
        Ok(k) => k,
        Err(e) => {
            return Err(r.fail(
                code::CERTIFICATE_INVALID,
                format!("cannot read the RSA public key: {e}"),
            ))
        }
    };

    // Digest of the referenced element.
    let exclude = enveloped.then_some(sig.offset);
    let subtree = match c14n::canonicalize_subtree(xml, Target::Id(id), exclude, &ref_method) {
        Ok(s) => s,
        Err(e) => return Err(r.fail(e.code(), e.message())),
    };
    r.digest_ok = dig_hash.digest(&subtree.bytes) == digest_value;

    // Signature over the canonical SignedInfo.
    let si_c14n = match c14n::canonicalize_subtree(xml, Target::Offset(si.offset), None, &si_method)
    {
        Ok(s) => s,
        Err(e) => return Err(r.fail(e.code(), e.message())),
    };
    let hashed = hash.digest(&si_c14n.bytes);
    r.signature_ok = key.verify(hash.scheme(), &hashed, &signature_value).is_ok();

    if let (Some(at), Some(info)) = (at, r.certificate.as_ref()) {
        r.certificate_valid_at = Some(check_validity(info, at).is_ok());
    }
    r.valid = r.digest_ok && r.signature_ok && r.certificate_valid_at != Some(false);
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
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    B64.decode(compact.as_bytes())
        .ok()
        .filter(|v| !v.is_empty())
}

/// A canonicalization URI plus its `InclusiveNamespaces PrefixList` child, if any.
fn method_of(uri: &str, el: Option<&El>) -> Option<Method> {
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
    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            HashAlg::Sha256 => Sha256::digest(data).to_vec(),
            HashAlg::Sha384 => Sha384::digest(data).to_vec(),
            HashAlg::Sha512 => Sha512::digest(data).to_vec(),
        }
    }
    fn scheme(self) -> Pkcs1v15Sign {
        match self {
            HashAlg::Sha256 => Pkcs1v15Sign::new::<Sha256>(),
            HashAlg::Sha384 => Pkcs1v15Sign::new::<Sha384>(),
            HashAlg::Sha512 => Pkcs1v15Sign::new::<Sha512>(),
        }
    }
}

/// A small element tree of the `Signature` (namespace-resolved names, unprefixed attributes, text).
#[derive(Debug, Default)]
struct El {
    local: String,
    ns: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<El>,
    offset: usize,
}

impl El {
    fn is(&self, local: &str) -> bool {
        self.local == local && self.ns == DSIG_NS
    }
    fn child(&self, local: &str) -> Option<&El> {
        self.children.iter().find(|c| c.is(local))
    }
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
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
fn find_signature(xml: &str) -> Result<Option<El>, ScanError> {
    let mut reader = Reader::from_str(xml);
    let mut ns: Vec<(String, String)> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut stack: Vec<El> = Vec::new(); // open elements of the Signature being captured
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = reader
            .read_event()
            .map_err(|e| bad(format!("XML is not well-formed: {e}")))?;
        let (e, empty) = match event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                close(&mut ns, &mut marks);
                if let Some(done) = stack.pop() {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => return Ok(Some(done)),
                    }
                }
                continue;
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t);
                }
                continue;
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    match &*r {
                        "amp" => top.text.push('&'),
                        "lt" => top.text.push('<'),
                        "gt" => top.text.push('>'),
                        "quot" => top.text.push('"'),
                        "apos" => top.text.push('\''),
                        // Character references such as &#13; only appear as line breaks in base64 text.
                        n if n.starts_with('#') => {}
                        n => return Err(bad(format!("undefined entity &{n};"))),
                    }
                }
                continue;
            }
            Event::DocType(_) => {
                return Err(bad(
                    "DOCTYPE is not allowed (no DTDs or entity declarations)",
                ))
            }
            Event::Eof => return Ok(None),
            _ => continue,
        };
        if marks.len() >= c14n::MAX_DEPTH {
            return Err(ScanError(
                crate::error::code::TOO_LARGE,
                "elements nested too deeply".into(),
            ));
        }
        let el = open(&e, &mut ns, &mut marks, before)?;
        if stack.is_empty() && !el.is("Signature") {
            if empty {
                close(&mut ns, &mut marks);
            }
            continue;
        }
        if empty {
            close(&mut ns, &mut marks);
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => return Ok(Some(el)),
            }
        } else {
            stack.push(el);
        }
    }
}

fn open(
    e: &BytesStart<'_>,
    ns: &mut Vec<(String, String)>,
    marks: &mut Vec<usize>,
    offset: usize,
) -> Result<El, ScanError> {
    marks.push(ns.len());
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| bad(format!("bad attribute: {err}")))?;
        let key = a.key.as_ref();
        if (key == "xmlns" || key.starts_with("xmlns:"))
            && ns.len() >= crate::xml::MAX_NAMESPACE_BINDINGS
        {
            return Err(too_many_bindings());
        }
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| bad(format!("bad attribute value: {err}")))?
            .into_owned();
        if key == "xmlns" {
            ns.push((String::new(), value));
        } else if let Some(p) = key.strip_prefix("xmlns:") {
            ns.push((p.to_string(), value));
        } else if !key.contains(':') {
            attrs.push((key.to_string(), value));
        }
    }
    let qname = e.name().into_inner();
    let (prefix, local) = qname.split_once(':').unwrap_or(("", qname));
    let uri = ns
        .iter()
        .rev()
        .find(|(p, _)| p == prefix)
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    Ok(El {
        local: local.to_string(),
        ns: uri,
        attrs,
        text: String::new(),
        children: Vec::new(),
        offset,
    })
}

fn too_many_bindings() -> ScanError {
    let n = crate::xml::MAX_NAMESPACE_BINDINGS;
    ScanError(
        crate::error::code::TOO_LARGE,
        format!("more than {n} namespace declarations in scope"),
    )
}

fn close(ns: &mut Vec<(String, String)>, marks: &mut Vec<usize>) {
    if let Some(m) = marks.pop() {
        ns.truncate(m);
    }
}

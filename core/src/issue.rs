//! Issuing end to end: request → validated DE → CDC and number → DE XML → XMLDSig signature → QR (`gCamFuFD`).
//!
//! The host passes everything that is not pure: the clock (`now`), the security-code source (a CSPRNG), the
//! document-number sequence and the signer (a P12 in memory, or a token/HSM behind [`Signer`]).

use crate::cdc::{security_code, SecurityCodeSource};
use crate::de::DocumentoElectronico;
use crate::document::{build, IssueContext};
use crate::error::{code, Finding, Findings};
use crate::fmt::{datetime, dec};
use crate::invoice::FacturaRequest;
use crate::profile::{Ambiente, Emisor};
use crate::qr::{self, QrInput, QrReceptor};
use crate::sign::{check_certificate, Signer};
use crate::validate::code3;
use serde::Serialize;
use time::PrimitiveDateTime;

/// What identifies one numbering sequence: document type, stamp, establishment and point of issue.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct NumberingKey {
    /// Document type code.
    pub tipo_documento: u8,
    /// Stamp number.
    pub timbrado: String,
    /// Establishment, 3 digits.
    pub establecimiento: String,
    /// Point of issue, 3 digits.
    pub punto: String,
}

/// The host's document-number sequence (a database row, a file, an in-memory counter in tests).
pub trait Numbering {
    /// Returns the next number (1..=9 999 999) for the sequence `key`, reserving it.
    fn next_number(&mut self, key: &NumberingKey) -> Result<u32, Finding>;
}

/// A simple in-memory numbering, per key, starting at 1 (tests, single-process hosts).
#[derive(Debug, Default, Clone)]
pub struct MemoryNumbering {
    next: std::collections::HashMap<NumberingKey, u32>,
}

impl MemoryNumbering {
    /// A numbering where every sequence starts at `first`.
    pub fn starting_at(key: NumberingKey, first: u32) -> Self {
        let mut next = std::collections::HashMap::new();
        next.insert(key, first);
        MemoryNumbering { next }
    }
}

impl Numbering for MemoryNumbering {
    fn next_number(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        let n = self.next.entry(key.clone()).or_insert(1);
        let current = *n;
        if current > 9_999_999 {
            return Err(Finding::new(
                code::OUT_OF_RANGE,
                "numero",
                "the sequence reached 9 999 999; a series (dSerieNum) or a new stamp is needed",
            ));
        }
        *n += 1;
        Ok(current)
    }
}

/// An issued document: the model, its identifiers and the signed XML ready for SIFEN.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Issued {
    /// The resolved document.
    pub documento: DocumentoElectronico,
    /// The CDC.
    pub cdc: String,
    /// The document number as `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// `dCarQR`: the QR content (URL).
    pub qr: String,
    /// The base64 SHA-256 digest of the signed `DE`.
    pub digest_value: String,
    /// The complete signed `rDE` (UTF-8 XML).
    pub xml: String,
}

/// The numbering key a request will use with this profile at `now` (so a host can reserve the number first).
pub fn numbering_key(
    req: &FacturaRequest,
    emisor: &Emisor,
    now: PrimitiveDateTime,
) -> Option<NumberingKey> {
    let fecha = req
        .fecha
        .as_deref()
        .and_then(|f| crate::fmt::parse_datetime(f).ok())
        .unwrap_or(now);
    let est = req.establecimiento.as_deref().and_then(code3);
    let punto = req.punto.as_deref().and_then(code3);
    let t = emisor
        .timbrado_for(
            req.tipo_documento,
            est.as_deref(),
            punto.as_deref(),
            fecha.date(),
        )
        .or_else(|| {
            emisor
                .timbrados
                .iter()
                .find(|t| t.tipos_documento.contains(&req.tipo_documento))
        })?;
    Some(NumberingKey {
        tipo_documento: req.tipo_documento,
        timbrado: t.numero.clone(),
        establecimiento: t.establecimiento.clone(),
        punto: t.punto_expedicion.clone(),
    })
}

/// Validates, numbers, builds, signs and completes with the QR one document.
///
/// Certificate rules: in production the signing certificate must be valid at `now` (`CERTIFICATE_EXPIRED`) and carry
/// the emitter's RUC; a sandbox profile accepts any certificate except one that claims the RUC of a different
/// emitter (production keys are never accepted in the sandbox: see [`crate::sign`]).
pub fn issue(
    emisor: &Emisor,
    req: &FacturaRequest,
    signer: &dyn Signer,
    now: PrimitiveDateTime,
    codes: &mut dyn SecurityCodeSource,
    numbering: &mut dyn Numbering,
) -> Result<Issued, Findings> {
    let findings = crate::validate::validate(req, emisor, now);
    if !findings.is_empty() {
        return Err(Findings(findings));
    }
    check_signer(emisor, signer, now)?;
    let key = numbering_key(req, emisor, now).ok_or_else(|| {
        Findings::from(Finding::new(
            code::INVALID_TIMBRADO,
            "tipo_documento",
            "no stamp covers this document type",
        ))
    })?;
    let numero = numbering.next_number(&key).map_err(Findings::from)?;
    let codigo_seguridad = security_code(codes, numero);
    let documento = build(
        req,
        emisor,
        IssueContext {
            now,
            numero,
            codigo_seguridad,
        },
    )?;
    sign_document(documento, emisor, signer)
}

/// Checks the certificate against the profile before anything is signed.
pub fn check_signer(
    emisor: &Emisor,
    signer: &dyn Signer,
    now: PrimitiveDateTime,
) -> Result<(), Findings> {
    let info = signer
        .certificate_info()
        .map_err(|e| Findings::from(Finding::new(e.code(), "certificate", e.to_string())))?;
    match check_certificate(&info, &emisor.ruc, now) {
        Ok(()) => Ok(()),
        // The sandbox tolerates test certificates (no RUC, expired) but never another taxpayer's certificate.
        Err(e) if emisor.ambiente == Ambiente::Test && e.code() != "CERTIFICATE_RUC_MISMATCH" => {
            Ok(())
        }
        Err(e) => Err(Findings::from(Finding::new(
            e.code(),
            "certificate",
            e.to_string(),
        ))),
    }
}

/// Writes, signs and adds the QR to an already built document.
pub fn sign_document(
    documento: DocumentoElectronico,
    emisor: &Emisor,
    signer: &dyn Signer,
) -> Result<Issued, Findings> {
    let unsigned = crate::xml::write(&documento);
    let signed = crate::sign::sign_written_de(&unsigned, &documento.cdc, signer)
        .map_err(|e| Findings::from(Finding::new(e.code(), "", e.to_string())))?;
    complete(documento, emisor, &signed.xml, signed.digest_value)
}

/// Sandbox without a private key (the browser build): the document is written and its QR computed from the real
/// digest of `DE`, but no `Signature` is added. Such a document has no validity anywhere and is marked unsigned.
pub fn simulate_unsigned(
    documento: DocumentoElectronico,
    emisor: &Emisor,
) -> Result<Issued, Findings> {
    use base64::Engine as _;
    use sha2::Digest as _;
    let unsigned = crate::xml::write(&documento);
    let canonical = match crate::xml::written_de_canonical(&unsigned) {
        Some((c, _)) => c,
        None => crate::sign::c14n::canonicalize_element(
            &unsigned,
            &documento.cdc,
            &crate::sign::c14n::Method::EXCLUSIVE,
        )
        .map_err(|e| Findings::from(Finding::new(e.code(), "", e.message())))?,
    };
    let digest = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&canonical));
    complete(documento, emisor, &unsigned, digest)
}

/// Adds the QR group to a (signed) document and assembles the result.
fn complete(
    documento: DocumentoElectronico,
    emisor: &Emisor,
    xml: &str,
    digest_value: String,
) -> Result<Issued, Findings> {
    let fecha = datetime(documento.fecha_emision);
    let r = &documento.receptor;
    let receptor = match (&r.ruc, &r.numero_documento) {
        (Some(ruc), _) => QrReceptor::Ruc(ruc),
        (None, Some(n)) => QrReceptor::Documento(n),
        (None, None) => QrReceptor::SinDocumento,
    };
    let totales = documento.totales.as_ref();
    let total = totales
        .map(|t| dec(t.total_general))
        .unwrap_or_else(|| "0".into());
    let total_iva = totales
        .and_then(|t| t.total_iva)
        .map(dec)
        .unwrap_or_else(|| "0".into());
    let qr = qr::build(&QrInput {
        cdc: &documento.cdc,
        fecha_emision: &fecha,
        receptor,
        total: &total,
        total_iva: &total_iva,
        items: documento.items.len(),
        digest_value: &digest_value,
        csc_id: &emisor.csc.id,
        csc: emisor.csc.secreto.expose(),
        ambiente: emisor.ambiente,
    });
    let xml = insert_qr(xml, &qr)?;
    let t = &documento.timbrado;
    Ok(Issued {
        cdc: documento.cdc.clone(),
        numero: format!("{}-{}-{}", t.establecimiento, t.punto, t.numero),
        qr,
        digest_value,
        xml,
        documento,
    })
}

/// Appends `gCamFuFD` (outside the signed `DE`, after `Signature`) just before `</rDE>`.
fn insert_qr(signed: &str, dcarqr: &str) -> Result<String, Findings> {
    let end = signed.rfind("</rDE>").ok_or_else(|| {
        Findings::from(Finding::new(
            code::MALFORMED_XML,
            "",
            "signed document has no </rDE>",
        ))
    })?;
    let mut out = String::with_capacity(signed.len() + dcarqr.len() + 64);
    out.push_str(signed.get(..end).unwrap_or_default());
    out.push_str("<gCamFuFD><dCarQR>");
    // The only XML-special character a dCarQR holds is '&'.
    out.push_str(&dcarqr.replace('&', "&amp;"));
    out.push_str("</dCarQR></gCamFuFD></rDE>");
    Ok(out)
}

//! Issuing end to end: request → validated DE → CDC and number → DE XML → XMLDSig signature → QR (`gCamFuFD`).
//!
//! The host passes everything that is not pure: the clock (`now`), the security-code source (a CSPRNG), the
//! document-number sequence and the signer (a P12 in memory, or a token/HSM behind [`Signer`]).

use crate::cdc::{security_code, SecurityCodeSource};
use crate::de::DocumentoElectronico;
use crate::document::build_checked;
use crate::error::{code, Finding, Findings};
use crate::fmt::{datetime, dec};
use crate::invoice::FacturaRequest;
use crate::profile::{Ambiente, Emisor};
use crate::qr::{self, QrInput, QrReceptor};
use crate::sign::{check_certificate, Signer};
use crate::validate::{check, Checked};
use serde::Serialize;
use time::PrimitiveDateTime;

pub use crate::numbering::{
    Blocks, Confirmation, Gap, MemoryNumbering, Numbering, NumberingKey, Reserved,
};

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

/// The numbering key a request will use with this profile at `now` (so a host that numbers itself, like a C caller,
/// can reserve the number first). The request is checked: an invalid one answers with every finding.
pub fn numbering_key(
    req: &FacturaRequest,
    emisor: &Emisor,
    now: PrimitiveDateTime,
) -> Result<NumberingKey, Findings> {
    Ok(check(req, emisor, now)?.numbering_key())
}

/// The stage of the pipeline a failure happened in, so hosts answer each the right way (a bad request is the
/// caller's to fix, a failed signer or store is not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// The request breaks a rule (every finding at once).
    Check,
    /// The certificate is missing, expired or not the emitter's.
    Certificate,
    /// No number could be reserved (exhausted sequence, store unavailable).
    Numbering,
    /// The document could not be built or signed (a failed signer).
    Signing,
    /// The number could not be confirmed.
    Confirm,
}

/// Why issuing failed: the stage and its findings.
#[derive(Debug, Clone, PartialEq)]
pub struct IssueError {
    /// Where it failed.
    pub stage: Stage,
    /// What was wrong.
    pub findings: Findings,
}

impl IssueError {
    /// The error of `stage` for the findings given to the returned function (`.map_err(IssueError::at(stage))`);
    /// public for hosts that run the stages themselves (kuatia-service's create).
    pub fn at(stage: Stage) -> impl Fn(Findings) -> IssueError {
        move |findings| IssueError { stage, findings }
    }
}

impl From<IssueError> for Findings {
    fn from(e: IssueError) -> Findings {
        e.findings
    }
}

/// A document issued with a reserved number that is not confirmed yet. The host stores it (a file synced to disk, a
/// database row) and then [`Pending::confirm`]s the number; if it never does, the number stays a listed gap.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a pending document's number must be confirmed once the document is stored"]
pub struct Pending {
    /// The issued document.
    pub issued: Issued,
    /// The sequence its number was reserved in.
    pub key: NumberingKey,
    /// Its number.
    pub numero: u32,
}

impl Pending {
    /// Confirms the number with the document's CDC (after the host stored the document) and hands the document over.
    pub fn confirm(self, numbering: &mut dyn Numbering) -> Result<Issued, IssueError> {
        numbering
            .confirm(&self.key, self.numero, &self.issued.cdc)
            .map_err(|f| IssueError::at(Stage::Confirm)(Findings::from(f)))?;
        Ok(self.issued)
    }
}

/// The issuing pipeline up to the stored document: check (validated once: stamp, establishment and point, totals) →
/// certificate → reserve a number → build the DE → sign (or, in the sandbox without a signer, the unsigned
/// simulation) → QR. Every host issues through this; none re-validates or chooses a stamp itself.
pub fn issue_pending(
    emisor: &Emisor,
    req: &FacturaRequest,
    signer: Option<&dyn Signer>,
    now: PrimitiveDateTime,
    codes: &mut dyn SecurityCodeSource,
    numbering: &mut dyn Numbering,
) -> Result<Pending, IssueError> {
    prepare(emisor, req, signer, now)?.issue(codes, numbering)
}

/// A request that passed the stages before numbering (check and certificate): [`Prepared::key`] names the sequence
/// its number will come from, so a host issuing many documents can reserve their numbers in one block first
/// ([`crate::numbering::Numbering::reserve_block`]) and then [`Prepared::issue`] each from that block.
pub struct Prepared<'a> {
    checked: Checked<'a>,
    signer: Option<&'a dyn Signer>,
    key: NumberingKey,
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// The first stages of [`issue_pending`]: check the request, then the signer's certificate against the profile (a
/// production profile without a signer is `CERTIFICATE_MISSING`). Nothing is reserved yet.
pub fn prepare<'a>(
    emisor: &'a Emisor,
    req: &'a FacturaRequest,
    signer: Option<&'a dyn Signer>,
    now: PrimitiveDateTime,
) -> Result<Prepared<'a>, IssueError> {
    let checked = check(req, emisor, now).map_err(IssueError::at(Stage::Check))?;
    match signer {
        Some(s) => check_signer(emisor, s, now).map_err(IssueError::at(Stage::Certificate))?,
        None if emisor.ambiente == Ambiente::Produccion => {
            return Err(IssueError::at(Stage::Certificate)(Findings::from(
                Finding::new(
                    code::CERTIFICATE_MISSING,
                    "certificate",
                    "production documents are signed: load the emitter's P12 certificate",
                ),
            )))
        }
        None => {}
    }
    let key = checked.numbering_key();
    Ok(Prepared {
        checked,
        signer,
        key,
    })
}

impl Prepared<'_> {
    /// The sequence this document's number comes from.
    pub fn key(&self) -> &NumberingKey {
        &self.key
    }

    /// The stages after the check: reserve a number, build the DE, sign it with the signer given to [`prepare`] (or
    /// simulate, in the sandbox without one) and add the QR.
    pub fn issue(
        self,
        codes: &mut dyn SecurityCodeSource,
        numbering: &mut dyn Numbering,
    ) -> Result<Pending, IssueError> {
        let Prepared {
            checked,
            signer,
            key,
        } = self;
        let numero = numbering
            .reserve(&key)
            .map_err(|f| IssueError::at(Stage::Numbering)(Findings::from(f)))?;
        finish(checked, signer, key, numero, codes)
    }

    /// As [`Prepared::issue`], with a number taken from a block reserved beforehand ([`Blocks::take`]); a number of
    /// another sequence is `NUMBER_NOT_RESERVED`.
    pub fn issue_reserved(
        self,
        reserved: Reserved,
        codes: &mut dyn SecurityCodeSource,
    ) -> Result<Pending, IssueError> {
        let Prepared {
            checked,
            signer,
            key,
        } = self;
        if reserved.key() != &key {
            return Err(IssueError::at(Stage::Numbering)(Findings::from(
                crate::numbering::not_reserved(&key, reserved.numero()),
            )));
        }
        finish(checked, signer, key, reserved.numero(), codes)
    }
}

/// Confirms a group of stored documents' numbers at once ([`Numbering::confirm_all`]: one transaction, one sync) and
/// hands the documents over. On an error, the numbers not confirmed stay listed gaps.
pub fn confirm_all(
    pending: Vec<Pending>,
    numbering: &mut dyn Numbering,
) -> Result<Vec<Issued>, IssueError> {
    let group: Vec<Confirmation> = pending
        .iter()
        .map(|p| Confirmation {
            key: p.key.clone(),
            numero: p.numero,
            cdc: p.issued.cdc.clone(),
        })
        .collect();
    numbering
        .confirm_all(&group)
        .map_err(|f| IssueError::at(Stage::Confirm)(Findings::from(f)))?;
    Ok(pending.into_iter().map(|p| p.issued).collect())
}

/// Build, sign (or simulate) and complete a checked document with its reserved number.
fn finish(
    checked: Checked<'_>,
    signer: Option<&dyn Signer>,
    key: NumberingKey,
    numero: u32,
    codes: &mut dyn SecurityCodeSource,
) -> Result<Pending, IssueError> {
    let emisor = checked.emisor();
    let codigo_seguridad = security_code(codes, numero);
    let documento = build_checked(&checked, numero, codigo_seguridad)
        .map_err(IssueError::at(Stage::Signing))?;
    let issued = match signer {
        Some(s) => sign_document(documento, emisor, s),
        None => simulate_unsigned(documento, emisor),
    }
    .map_err(IssueError::at(Stage::Signing))?;
    Ok(Pending {
        issued,
        key,
        numero,
    })
}

/// Validates, numbers, builds, signs and completes with the QR one document, confirming its number at once (for
/// hosts that keep the result in memory; hosts that store documents use [`issue_pending`] and confirm after storing).
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
    let pending = issue_pending(emisor, req, Some(signer), now, codes, numbering)?;
    Ok(pending.confirm(numbering)?)
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
        Err(e)
            if emisor.ambiente == Ambiente::Test && e.code() != code::CERTIFICATE_RUC_MISMATCH =>
        {
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

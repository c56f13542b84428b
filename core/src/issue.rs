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
use crate::validate::{check, check_with, Checked, Simulate};
use serde::Serialize;
use std::borrow::Cow;
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

/// How much of an issued document a [`Summary`] tells, as each host has always written it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detail {
    /// `{"cdc","numero"}` (a row of `kuatia issue --batch`).
    Number,
    /// `{"cdc","numero","qr","digest_value","fecha_emision"}` (the C face's `kuatia_invoice_issue`).
    Signature,
    /// `{"cdc","numero","tipo_documento","fecha_emision","total","moneda","qr"}` (`kuatia issue`).
    Document,
}

/// What a host reports of an issued document, beside the document itself: one type for every face, which writes the
/// members of its [`Detail`] (a host adds its own, such as the file written, around it with `#[serde(flatten)]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The CDC.
    pub cdc: String,
    /// The document number as `EEE-PPP-NNNNNNN`.
    pub numero: String,
    /// The document type's code.
    pub tipo_documento: u8,
    /// The emission time (`YYYY-MM-DDThh:mm:ss`, Paraguay local).
    pub fecha_emision: String,
    /// The total (`dTotGralOpe`), for documents with values.
    pub total: Option<String>,
    /// The currency, for documents with values.
    pub moneda: Option<String>,
    /// `dCarQR`: the QR content (URL).
    pub qr: String,
    /// The base64 SHA-256 digest of the signed `DE`.
    pub digest_value: String,
    /// Which members it writes.
    pub detail: Detail,
}

impl Summary {
    /// The summary of an issued document, writing the members of `detail`.
    pub fn of(issued: &Issued, detail: Detail) -> Summary {
        let d = &issued.documento;
        Summary {
            cdc: issued.cdc.clone(),
            numero: issued.numero.clone(),
            tipo_documento: d.timbrado.tipo_documento.code(),
            fecha_emision: datetime(d.fecha_emision),
            total: d.totales.as_ref().map(|t| dec(t.total_general)),
            moneda: d.operacion_comercial.as_ref().map(|o| o.moneda.clone()),
            qr: issued.qr.clone(),
            digest_value: issued.digest_value.clone(),
            detail,
        }
    }
}

impl Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let st = match self.detail {
            Detail::Number => {
                let mut st = serializer.serialize_struct("Summary", 2)?;
                st.serialize_field("cdc", &self.cdc)?;
                st.serialize_field("numero", &self.numero)?;
                st
            }
            Detail::Signature => {
                let mut st = serializer.serialize_struct("Summary", 5)?;
                st.serialize_field("cdc", &self.cdc)?;
                st.serialize_field("numero", &self.numero)?;
                st.serialize_field("qr", &self.qr)?;
                st.serialize_field("digest_value", &self.digest_value)?;
                st.serialize_field("fecha_emision", &self.fecha_emision)?;
                st
            }
            Detail::Document => {
                let mut st = serializer.serialize_struct("Summary", 7)?;
                st.serialize_field("cdc", &self.cdc)?;
                st.serialize_field("numero", &self.numero)?;
                st.serialize_field("tipo_documento", &self.tipo_documento)?;
                st.serialize_field("fecha_emision", &self.fecha_emision)?;
                st.serialize_field("total", &self.total)?;
                st.serialize_field("moneda", &self.moneda)?;
                st.serialize_field("qr", &self.qr)?;
                st
            }
        };
        st.end()
    }
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
    /// A failure at `stage`.
    pub fn new(stage: Stage, findings: Findings) -> IssueError {
        IssueError { stage, findings }
    }

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
/// database row) and then [`Pending::confirm`]s the number; if it never does, the number stays a listed gap. A host
/// that stores the document by moving it ([`Pending::into_parts`]) confirms with the [`Ticket`] it keeps.
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
        let (issued, ticket) = self.into_parts();
        ticket.confirm(numbering)?;
        Ok(issued)
    }

    /// The document, to store (moved, not copied), and the ticket that confirms its number once it is stored.
    pub fn into_parts(self) -> (Issued, Ticket) {
        let ticket = Ticket {
            key: self.key,
            numero: self.numero,
            cdc: self.issued.cdc.clone(),
        };
        (self.issued, ticket)
    }
}

/// The confirmation a [`Pending`] document's number waits for, apart from the document ([`Pending::into_parts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a pending document's number must be confirmed once the document is stored"]
pub struct Ticket {
    /// The sequence the number was reserved in.
    pub key: NumberingKey,
    /// The number.
    pub numero: u32,
    /// The CDC of the document that uses it.
    pub cdc: String,
}

impl Ticket {
    /// Confirms the number with the document's CDC (after the host stored the document).
    pub fn confirm(self, numbering: &mut dyn Numbering) -> Result<(), IssueError> {
        numbering
            .confirm(&self.key, self.numero, &self.cdc)
            .map_err(|f| IssueError::at(Stage::Confirm)(Findings::from(f)))
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
    prepare(emisor, req, signer, now)?.issue(signer, codes, numbering)
}

/// A request that passed the stages before numbering (check and certificate): [`Prepared::key`] names the sequence
/// its number will come from, so a host issuing many documents can reserve their numbers in one block first
/// ([`crate::numbering::Numbering::reserve_block`]) and then [`Prepared::issue_reserved`] each from that block.
///
/// It keeps which certificate was checked, not the signer: the signer comes when the document is signed, and one
/// with another certificate is checked then. Made by [`prepare_owned`] (or [`prepare_with`] over owned inputs), a
/// `Prepared<'static>` moves to the thread that signs it.
pub struct Prepared<'a> {
    checked: Checked<'a>,
    /// The DER of the certificate checked by [`prepare`], if a signer was given (a copy: comparing a couple of KB is
    /// cheaper than hashing them twice on every create).
    certificate: Option<Box<[u8]>>,
    key: NumberingKey,
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

// A prepared document moves to the thread that signs it.
const _: fn() = || {
    fn send<T: Send + 'static>() {}
    send::<Prepared<'static>>();
};

/// The first stages of [`issue_pending`]: check the request, then the signer's certificate against the profile (a
/// production profile without a signer is `CERTIFICATE_MISSING`). Nothing is reserved yet.
pub fn prepare<'a>(
    emisor: &'a Emisor,
    req: &'a FacturaRequest,
    signer: Option<&dyn Signer>,
    now: PrimitiveDateTime,
) -> Result<Prepared<'a>, IssueError> {
    prepare_with(
        Cow::Borrowed(emisor),
        Cow::Borrowed(req),
        signer,
        now,
        Simulate::ByProfile,
    )
}

/// As [`prepare`], keeping the profile and request: the result owns everything and can move to another thread.
pub fn prepare_owned(
    emisor: Emisor,
    req: FacturaRequest,
    signer: Option<&dyn Signer>,
    now: PrimitiveDateTime,
) -> Result<Prepared<'static>, IssueError> {
    prepare_with(
        Cow::Owned(emisor),
        Cow::Owned(req),
        signer,
        now,
        Simulate::ByProfile,
    )
}

/// As [`prepare`], over borrowed or owned inputs, with the `_simulate` rule applied by validation or already by the
/// caller ([`Simulate`]: the service applies it by the caller's environment before it looks up the profile).
pub fn prepare_with<'a>(
    emisor: Cow<'a, Emisor>,
    req: Cow<'a, FacturaRequest>,
    signer: Option<&dyn Signer>,
    now: PrimitiveDateTime,
    simulate: Simulate,
) -> Result<Prepared<'a>, IssueError> {
    let checked = check_with(req, emisor, now, simulate).map_err(IssueError::at(Stage::Check))?;
    let certificate = match signer {
        Some(s) => {
            check_signer(checked.emisor(), s, now).map_err(IssueError::at(Stage::Certificate))?;
            Some(Box::from(s.certificate_der()))
        }
        None => {
            no_signer(checked.emisor())?;
            None
        }
    };
    let key = checked.numbering_key();
    Ok(Prepared {
        checked,
        certificate,
        key,
    })
}

/// A production profile signs every document: without a signer it is `CERTIFICATE_MISSING` (the sandbox simulates).
fn no_signer(emisor: &Emisor) -> Result<(), IssueError> {
    if emisor.ambiente == Ambiente::Produccion {
        return Err(IssueError::at(Stage::Certificate)(Findings::from(
            crate::rule::cert_production_required("certificate"),
        )));
    }
    Ok(())
}

impl Prepared<'_> {
    /// The sequence this document's number comes from.
    pub fn key(&self) -> &NumberingKey {
        &self.key
    }

    /// The checked request.
    pub fn checked(&self) -> &Checked<'_> {
        &self.checked
    }

    /// The stages after the check: reserve a number, build the DE, sign it with `signer` (or simulate, in the sandbox
    /// without one) and add the QR. A signer other than the one [`prepare`] checked has its certificate checked first.
    pub fn issue(
        self,
        signer: Option<&dyn Signer>,
        codes: &mut dyn SecurityCodeSource,
        numbering: &mut dyn Numbering,
    ) -> Result<Pending, IssueError> {
        self.signer_checked(signer)?;
        let numero = numbering
            .reserve(&self.key)
            .map_err(|f| IssueError::at(Stage::Numbering)(Findings::from(f)))?;
        finish(self.checked, signer, self.key, numero, codes)
    }

    /// As [`Prepared::issue`], with a number reserved beforehand: taken from a block ([`Blocks::take`]) or reserved by
    /// the host ([`Reserved::new`]); a number of another sequence is `NUMBER_NOT_RESERVED`.
    pub fn issue_reserved(
        self,
        reserved: Reserved,
        signer: Option<&dyn Signer>,
        codes: &mut dyn SecurityCodeSource,
    ) -> Result<Pending, IssueError> {
        if reserved.key() != &self.key {
            return Err(IssueError::at(Stage::Numbering)(Findings::from(
                crate::numbering::not_reserved(&self.key, reserved.numero()),
            )));
        }
        self.signer_checked(signer)?;
        finish(self.checked, signer, self.key, reserved.numero(), codes)
    }

    /// The certificate rules for the signer given now: the one checked passes; another is checked (valid, the
    /// emitter's RUC); none is `CERTIFICATE_MISSING` in production.
    fn signer_checked(&self, signer: Option<&dyn Signer>) -> Result<(), IssueError> {
        match signer {
            Some(s) if self.certificate.as_deref() == Some(s.certificate_der()) => Ok(()),
            Some(s) => check_signer(self.checked.emisor(), s, self.checked.now())
                .map_err(IssueError::at(Stage::Certificate)),
            None => no_signer(self.checked.emisor()),
        }
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
    crate::probe::hit(crate::probe::Probe::Certificate);
    let info = signer
        .certificate_info()
        .map_err(|e| Findings::from(at_certificate(e)))?;
    match check_certificate(&info, &emisor.ruc, now) {
        Ok(()) => Ok(()),
        // The sandbox tolerates test certificates (no RUC, expired) but never another taxpayer's certificate.
        Err(e)
            if emisor.ambiente == Ambiente::Test && e.code() != code::CERTIFICATE_RUC_MISMATCH =>
        {
            Ok(())
        }
        Err(e) => Err(Findings::from(at_certificate(e))),
    }
}

/// A signer's or certificate's error as the finding at `certificate`.
fn at_certificate(e: crate::sign::SignError) -> Finding {
    e.to_finding("certificate")
}

/// Writes, signs and adds the QR to an already built document.
pub fn sign_document(
    documento: DocumentoElectronico,
    emisor: &Emisor,
    signer: &dyn Signer,
) -> Result<Issued, Findings> {
    let unsigned = crate::xml::write(&documento);
    let signed = crate::sign::sign_written_de(&unsigned, &documento.cdc, signer)
        .map_err(|e| Findings::from(Finding::from(e)))?;
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
        .map_err(|e| Findings::from(e.to_finding("")))?,
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
    let end = signed
        .rfind("</rDE>")
        .ok_or_else(|| Findings::from(crate::rule::qr_no_rde("")))?;
    let mut out = String::with_capacity(signed.len() + dcarqr.len() + 64);
    out.push_str(signed.get(..end).unwrap_or_default());
    out.push_str("<gCamFuFD><dCarQR>");
    // The only XML-special character a dCarQR holds is '&'.
    out.push_str(&dcarqr.replace('&', "&amp;"));
    out.push_str("</dCarQR></gCamFuFD></rDE>");
    Ok(out)
}

//! What SIFEN's response codes mean and the usual fix (SIFEN.md §6.4, §7.3, §10), in English.
//! Only codes our sources document are listed; ranges whose individual codes are not documented share one text.

use serde::Serialize;

/// Meaning and usual fix of one SIFEN code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeInfo {
    /// The four-digit code.
    pub code: &'static str,
    /// What SIFEN means.
    pub meaning: &'static str,
    /// What usually fixes it.
    pub fix: &'static str,
}

const TLS: &str = "Renew or replace the P12: it must be a valid certificate of a PSC accredited in Paraguay, with clientAuth usage and the RUC (serialNumber RUC<number>-<dv>).";
const TOO_LARGE: &str =
    "Keep every message under 1 000 KB: send fewer documents per lot or fewer events per request.";
const TIMBRADO: &str = "Use a timbrado of this RUC enabled for electronic documents and valid at dFeEmiDE; check the number against Marangatu.";

/// `(code, meaning, fix)`, sorted by code.
const CODES: &[(&str, &str, &str)] = &[
    ("0001", "TLS connection certificate invalid.", TLS),
    ("0002", "TLS connection certificate expired or not yet valid.", TLS),
    ("0003", "TLS certificate chain invalid.", TLS),
    ("0004", "TLS certificate CRL problem.", TLS),
    ("0005", "TLS certificate revoked.", TLS),
    ("0006", "TLS certificate not issued under the MIC root.", TLS),
    ("0007", "TLS certificate has no RUC extension.", TLS),
    ("0120", "Signing certificate invalid (including an invalid chain since NT-016).", "Sign with a valid certificate of a PSC accredited in Paraguay, with digitalSignature and nonRepudiation usages."),
    ("0121", "Signing certificate dates invalid at dFecFirma.", "Sign with a certificate valid at the signing time, and check the signer's clock."),
    ("0122", "Signing certificate has no RUC extension.", "Use a certificate carrying the taxpayer RUC (serialNumber RUC<number>-<dv>)."),
    ("0140", "Signature differs from the SIFEN standard (Reference URI, transforms, c14n, algorithms, URI ≠ Id, XML modified after signing).", "Sign with kuatia's profile and never re-indent or edit the XML after signing."),
    ("0141", "SignatureValue invalid, or certificate chain/CRL/revocation/root problem.", "Re-sign the unmodified document; check the certificate's chain and revocation status."),
    ("0142", "Signing certificate RUC differs from the emitter RUC.", "Sign with the emitter's own certificate (dRucEm-dDVEmi)."),
    ("0143", "Receiver event not signed by the receiver.", "Sign receiver events (conformidad, disconformidad, desconocimiento, notificación) with the receiver's certificate."),
    ("0160", "XML malformed: schema error; the message names the element (e.g. [Elemento esperado: dBasExe dentro de: gCamIVA]).", "Fix the element named in the message; follow the XSD order, send gCamFuFD, no empty optional elements, the XML declaration on every request."),
    ("0161", "Processing server momentarily without answer.", "Retry later with the same document (do not change the CDC)."),
    ("0162", "Processing server halted.", "Retry later with the same document (do not change the CDC)."),
    ("0163", "Web-service format version not supported.", "Send dVerFor 150 with the v150 schemas."),
    ("0183", "The RUC of the connection certificate is not an active taxpayer.", "Use the certificate of an active taxpayer enabled as electronic invoicer."),
    ("0200", "Message too large for recibe.", TOO_LARGE),
    ("0260", "recibe: authorization of the DE satisfactory (Aprobado, possibly with observations).", "Nothing to fix: keep dProtAut as the authorization number."),
    ("0270", "Message too large for recibe-lote.", TOO_LARGE),
    ("0300", "recibe-lote: lot received; dProtConsLote is the lot number.", "Query the lot with consulta-lote, first after 10 minutes, then every 10 minutes or more."),
    ("0301", "recibe-lote: lot not queued (several RUCs or document types, more than 50 DE, repeated CDCs, size, or the emitter is temporarily blocked).", "Fix the lot (one RUC, one type, ≤ 50 distinct DE, ≤ 1 000 KB) and resend after the block expires (10–60 min)."),
    ("0320", "Message too large for consulta-lote.", TOO_LARGE),
    ("0340", "A lot can only be queried by the RUC that sent it.", "Query with the certificate of the emitter that sent the lot."),
    ("0360", "consulta-lote: the lot does not exist.", "Check the lot number; query each CDC with consulta."),
    ("0361", "consulta-lote: lot still in processing.", "Wait (at least 10 minutes) and query again."),
    ("0362", "consulta-lote: processing finished; each DE has its result.", "Apply each DE's result: Aprobado, Aprobado con observación or Rechazado."),
    ("0363", "consulta-lote: the lot holds DE of different types.", "Send one document type per lot."),
    ("0364", "consulta-lote: query out of time (more than 48 h after sending).", "Query each CDC with consulta."),
    ("0380", "Message too large for consulta.", TOO_LARGE),
    ("0420", "consulta: the DE does not exist or was rejected.", "If it was never approved, fix and send it again."),
    ("0422", "consulta: CDC found; xContenDE holds the DE and its authorization.", "Nothing to fix."),
    ("0460", "Message too large for consulta-ruc.", TOO_LARGE),
    ("0500", "consulta-ruc: the RUC does not exist.", "Check the RUC number (without the check digit)."),
    ("0501", "consulta-ruc: no permission to query this RUC.", "Query with the certificate of an electronic invoicer."),
    ("0502", "consulta-ruc: RUC found.", "Nothing to fix."),
    ("0560", "Message too large for evento.", TOO_LARGE),
    ("0600", "evento: event registered correctly.", "Nothing to fix: keep dProtAut."),
    ("1000", "The CDC does not match the XML fields (type, RUC, DV, establishment, point, number, contributor type, date, emission type, security code).", "Rebuild the CDC from the document's own fields."),
    ("1001", "Duplicate CDC: already approved.", "Do not resend: query it with consulta; issue a new document only with a new number."),
    ("1002", "Duplicate document: same type, timbrado, establishment, point, number, emission type and series already exists.", "Use the next free number of the sequence."),
    ("1003", "The CDC check digit (DV) is wrong.", "Compute the DV with the modulo-11 algorithm (weights 2..11)."),
    ("1004", "dFecFirma is later than SIFEN's clock.", "Synchronise the clock (NTP aravo1.set.gov.py) and sign with the real time."),
    ("1005", "Extemporaneous transmission: sent more than 72 h after signing (approved with observation, sanctionable).", "Send documents within 72 h of signing."),
    ("1050", "Contingency emission (iTipEmi 2) is not allowed at this stage.", "Send with iTipEmi 1 (normal)."),
    ("1101", "Timbrado problem (not of this RUC, not an electronic-document stamp, or not valid at dFeEmiDE; codes 1101–1104).", TIMBRADO),
    ("1102", "Timbrado problem (codes 1101–1104, see 1101).", TIMBRADO),
    ("1103", "Timbrado problem (codes 1101–1104, see 1101).", TIMBRADO),
    ("1104", "Timbrado problem (codes 1101–1104, see 1101).", TIMBRADO),
    ("1105", "The establishment (dEst) does not belong to the timbrado.", "Use an establishment and point of issue enabled for this timbrado."),
    ("1255", "Emitter department, district and city are not related.", "Take department, district and city codes from the DNIT table and their descriptions from it."),
    ("1263", "The test-environment emitter name literal is used in production (or missing in test).", "In test use exactly 'DE generado en ambiente de prueba - sin valor comercial ni fiscal'; never in production."),
    ("1300", "Receiver that is not a taxpayer with an operation type other than B2C or B2F.", "Use iTiOpe 2 (B2C) or 4 (B2F) for non-taxpayer receivers."),
    ("1316", "An AFE must be B2C.", "Set iTiOpe 2 on autofacturas."),
    ("1317", "In an AFE the receiver RUC must be the emitter's.", "Put the emitter as the receiver of the autofactura."),
    ("1318", "Receiver address missing (mandatory for NRE and B2F).", "Send dDirRec."),
    ("1320", "Receiver country inconsistent: B2F needs a foreign country, others PRY.", "Set cPaisRec consistently with the operation type."),
    ("1321", "Innominado receiver above the allowed amount.", "Identify the receiver (RUC or identity document) for large amounts."),
    ("1328", "Receiver department, district and city are not related.", "Take the codes and descriptions from the DNIT table."),
    ("1335", "Receiver identity document required for a non-taxpayer (NT-023).", "Send iTipIDRec and dNumIDRec."),
    ("2501", "The CSC (IdCSC) is not valid at dFeEmiDE, or the QR hash is wrong.", "Use an active CSC and build the QR from the XML strings exactly (lowercase hex, DigestValue as base64 text)."),
    ("4000", "Cancellation: event version invalid.", "Send dVerFor 150."),
    ("4001", "Cancellation: the CDC is invalid.", "Check the CDC of the document to cancel."),
    ("4002", "Cancellation: the DTE is not approved.", "Only approved documents can be cancelled; query it first."),
    ("4003", "Cancellation: the DTE is already cancelled.", "Nothing to do: treat the document as cancelled."),
    ("4006", "Cancellation: the signer is not the emitter.", "Sign with the emitter's certificate."),
    ("4007", "Cancellation: the signing certificate is revoked.", "Sign with a valid certificate."),
    ("4008", "Cancellation: dFecFirma is before the approval of the DTE.", "Sign the event after the approval, with the real time."),
    ("4009", "Cancellation of an FE later than 48 h after approval.", "Out of time: issue a credit note (NCE) instead."),
    ("4010", "Cancellation of an AFE, NCE, NDE or NRE later than 168 h after approval.", "Out of time: issue the corresponding note instead."),
    ("4051", "Inutilización in test needs a test timbrado.", "Use the test-environment timbrado."),
    ("4052", "Inutilización: timbrado, establishment or point do not match (codes 4052–4055).", TIMBRADO),
    ("4060", "Inutilización: wrong document type (iTiDE).", "Send the type of the numbers voided."),
    ("4065", "Inutilización: an approved DTE exists in the range.", "Exclude approved numbers from the range."),
    ("4066", "Inutilización: the range is already voided.", "Nothing to do."),
    ("4067", "Inutilización: more than 1000 numbers.", "Split the range into events of at most 1000 numbers."),
    ("4068", "Inutilización: the range ends before it starts.", "Send dNumFin ≥ dNumIn."),
    ("4069", "Inutilización: the signer is not the emitter.", "Sign with the emitter's certificate."),
    ("4070", "Inutilización: certificate problem.", "Sign with a valid certificate of the emitter."),
    ("4071", "Inutilización: dFecFirma is in the future.", "Synchronise the clock and sign with the real time."),
    ("4103", "Late notificación de recepción (more than 45 days): approved with observation.", "Send receiver events within 45 days."),
    ("4114", "Late receiver event (more than 45 days): approved with observation.", "Send receiver events within 45 days."),
];

/// Meaning and usual fix of a SIFEN response code (`dCodRes`, `dCodResLot`), or `None` when not catalogued.
pub fn describe(code: &str) -> Option<CodeInfo> {
    let code = code.trim();
    CODES
        .binary_search_by(|(c, _, _)| (*c).cmp(code))
        .ok()
        .and_then(|i| CODES.get(i))
        .map(|&(code, meaning, fix)| CodeInfo { code, meaning, fix })
}

/// Every catalogued code, sorted.
pub fn all() -> impl Iterator<Item = CodeInfo> {
    CODES
        .iter()
        .map(|&(code, meaning, fix)| CodeInfo { code, meaning, fix })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_unique() {
        assert!(CODES.windows(2).all(|w| matches!(w, [a, b] if a.0 < b.0)));
        assert!(describe("0160").is_some_and(|c| c.meaning.contains("malformed")));
        assert!(describe("9999").is_none());
    }
}

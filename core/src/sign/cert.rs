//! Facts SIFEN checks on the signing certificate: validity dates and the emitter's RUC (SIFEN.md §4).

use super::dn::{name_text, upper_hex};
use super::SignError;
use serde::{Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;
use x509_parser::oid_registry::OID_X509_SERIALNUMBER;
use x509_parser::prelude::FromDer;
use x509_parser::x509::X509Name;

/// What a signer certificate says: who, by whom, when, and for which RUC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CertificateInfo {
    /// Subject distinguished name, e.g. `CN=…, serialNumber=RUC80069563-1, C=PY`.
    pub subject: String,
    /// Issuer distinguished name.
    pub issuer: String,
    /// Serial number in uppercase hex without separators or leading zero bytes.
    pub serial_hex: String,
    /// Start of validity.
    #[serde(serialize_with = "rfc3339")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub not_before: OffsetDateTime,
    /// End of validity.
    #[serde(serialize_with = "rfc3339")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub not_after: OffsetDateTime,
    /// Taxpayer RUC as `body-dv` (e.g. `80069563-1`), from subject or SubjectAltName serialNumber.
    pub ruc: Option<String>,
}

fn rfc3339<S: Serializer>(t: &OffsetDateTime, s: S) -> Result<S::Ok, S::Error> {
    let text = t.format(&Rfc3339).map_err(serde::ser::Error::custom)?;
    s.serialize_str(&text)
}

/// Parses a DER X.509 certificate into the facts SIFEN cares about.
pub fn certificate_info(der: &[u8]) -> Result<CertificateInfo, SignError> {
    let (_, cert) =
        X509Certificate::from_der(der).map_err(|e| SignError::CertificateInvalid(e.to_string()))?;
    Ok(info_of(&cert))
}

pub(crate) fn info_of(cert: &X509Certificate<'_>) -> CertificateInfo {
    let serial = cert.raw_serial();
    let first = serial
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(serial.len().saturating_sub(1));
    let serial_hex = upper_hex(serial.get(first..).unwrap_or_default());
    let ruc = ruc_in(cert.subject()).or_else(|| {
        let san = cert.subject_alternative_name().ok().flatten()?;
        san.value.general_names.iter().find_map(|g| match g {
            GeneralName::DirectoryName(name) => ruc_in(name),
            _ => None,
        })
    });
    CertificateInfo {
        subject: name_text(cert.subject()),
        issuer: name_text(cert.issuer()),
        serial_hex,
        not_before: cert.validity().not_before.to_datetime(),
        not_after: cert.validity().not_after.to_datetime(),
        ruc,
    }
}

/// The RUC carried by a name's serialNumber attributes (`RUC80069563-1` → `80069563-1`).
fn ruc_in(name: &X509Name<'_>) -> Option<String> {
    name.iter_by_oid(&OID_X509_SERIALNUMBER)
        .find_map(|atv| atv.as_str().ok().and_then(parse_ruc))
}

/// Accepts `RUC` + body + `-` + DV (the MT §7.5 format), tolerating spaces and a missing prefix;
/// rejects other identifiers such as a natural person's `CI1234567`.
fn parse_ruc(value: &str) -> Option<String> {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let upper = compact.to_ascii_uppercase();
    let body_dv = upper.strip_prefix("RUC").unwrap_or(&upper);
    let (body, dv) = body_dv.split_once('-')?;
    let ok = !body.is_empty()
        && body.chars().all(|c| c.is_ascii_alphanumeric())
        && dv.len() == 1
        && dv.chars().all(|c| c.is_ascii_digit());
    ok.then(|| body_dv.to_string())
}

/// Checks that the certificate is valid at `at` (Paraguay local time, taken as UTC-3) and belongs to
/// `emitter_ruc` (`body-dv`, e.g. `80069563-1`).
pub fn check_certificate(
    info: &CertificateInfo,
    emitter_ruc: &str,
    at: PrimitiveDateTime,
) -> Result<(), SignError> {
    check_validity(info, at)?;
    let ruc = info
        .ruc
        .as_deref()
        .ok_or(SignError::CertificateRucMissing)?;
    let expected = emitter_ruc.trim().to_ascii_uppercase();
    let expected = expected.strip_prefix("RUC").unwrap_or(&expected);
    if ruc != expected {
        return Err(SignError::CertificateRucMismatch {
            certificate: ruc.to_string(),
            emitter: expected.to_string(),
        });
    }
    Ok(())
}

/// Paraguay's offset; the country stays on UTC-3 all year since 2024.
fn paraguay_offset() -> UtcOffset {
    UtcOffset::from_hms(-3, 0, 0).unwrap_or(UtcOffset::UTC)
}

pub(crate) fn check_validity(
    info: &CertificateInfo,
    at: PrimitiveDateTime,
) -> Result<(), SignError> {
    let at = at.assume_offset(paraguay_offset());
    let show = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
    if at < info.not_before {
        return Err(SignError::CertificateNotYetValid {
            not_before: show(info.not_before),
            at: show(at),
        });
    }
    if at > info.not_after {
        return Err(SignError::CertificateExpired {
            not_after: show(info.not_after),
            at: show(at),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn ruc_formats() {
        assert_eq!(parse_ruc("RUC80069563-1").as_deref(), Some("80069563-1"));
        assert_eq!(parse_ruc("RUC 80069563-1").as_deref(), Some("80069563-1"));
        assert_eq!(parse_ruc("80069563-1").as_deref(), Some("80069563-1"));
        assert_eq!(parse_ruc("CI1234567"), None);
        assert_eq!(parse_ruc("RUC-1"), None);
    }
}

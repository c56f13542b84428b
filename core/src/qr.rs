//! The KuDE QR text `dCarQR` (gCamFuFD/J002, SIFEN.md §5): build it, parse it back, check its hash.
//!
//! `dCarQR = base URL + params + "&cHashQR=" + hex(SHA-256(params + CSC))`, where params are, in this
//! order: `nVersion`, `Id`, `dFeEmiDE` (hex of the XML text), `dRucRec` or `dNumIDRec`, `dTotGralOpe`,
//! `dTotIVA`, `cItems`, `DigestValue` (hex of the base64 text), `IdCSC`. All hex is lowercase.
//! The secret CSC is only hashed, never written out. The strings handled here are the raw value;
//! escaping `&` as `&amp;` is the XML writer's job.

use crate::error::Finding;
use crate::rule;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// SIFEN environment: selects the QR base URL (and, elsewhere, the web-service endpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Ambiente {
    /// Test environment (`sifen-test`, `consultas-test`).
    Test,
    /// Production environment.
    Produccion,
}

/// QR base URL of production (NT-010 §3).
pub const BASE_URL_PRODUCCION: &str = "https://ekuatia.set.gov.py/consultas/qr?";
/// QR base URL of the test environment (NT-010 §3).
pub const BASE_URL_TEST: &str = "https://ekuatia.set.gov.py/consultas-test/qr?";
/// Value of `nVersion` (= dVerFor of the v150 schemas).
pub const VERSION: &str = "150";
/// Minimum length of dCarQR allowed by the XSD.
pub const MIN_LEN: usize = 100;
/// Maximum length of dCarQR allowed by the XSD.
pub const MAX_LEN: usize = 600;

const HASH_SEP: &str = "&cHashQR=";
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Returns the QR base URL (ending in `?`) of an environment.
pub fn base_url(ambiente: Ambiente) -> &'static str {
    match ambiente {
        Ambiente::Test => BASE_URL_TEST,
        Ambiente::Produccion => BASE_URL_PRODUCCION,
    }
}

/// How the receiver is identified in the QR (parameter 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrReceptor<'a> {
    /// Contributor receiver (iNatRec = 1): `dRucRec=` the RUC body without check digit.
    Ruc(&'a str),
    /// Non-contributor receiver: `dNumIDRec=` the document number (D210) as written.
    Documento(&'a str),
    /// Non-contributor without document number: written as `dNumIDRec=0` (MT "(*) complete with 0").
    SinDocumento,
}

/// Everything dCarQR is made of; strings are taken exactly as written in the signed XML.
#[derive(Debug, Clone, Copy)]
pub struct QrInput<'a> {
    /// CDC, the 44 characters of the DE `Id`.
    pub cdc: &'a str,
    /// dFeEmiDE exactly as written, e.g. `2025-03-10T10:11:00`.
    pub fecha_emision: &'a str,
    /// Receiver identification.
    pub receptor: QrReceptor<'a>,
    /// dTotGralOpe as written; `"0"` when there is no gTotSub (NRE).
    pub total: &'a str,
    /// dTotIVA as written; `"0"` when absent.
    pub total_iva: &'a str,
    /// Number of gCamItem elements.
    pub items: usize,
    /// The signature Reference's DigestValue text (base64).
    pub digest_value: &'a str,
    /// IdCSC, 4 digits zero-padded (`0001`).
    pub csc_id: &'a str,
    /// The secret CSC; hashed, never output.
    pub csc: &'a str,
    /// Environment, selects the base URL.
    pub ambiente: Ambiente,
}

/// Receiver identification read back from a dCarQR; in JSON `{"ruc": "80069563"}` or `{"documento": "1234567"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceptorQr {
    /// `dRucRec` value (RUC without DV).
    Ruc(String),
    /// `dNumIDRec` value (`0` when the receiver had no document).
    Documento(String),
}

/// The parts of a dCarQR, with `dFeEmiDE` and `DigestValue` decoded from hex, strings exactly as written in it: what
/// every face answers a QR parse with (`kuatia_qr_parse`, `qrParse`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QrParts {
    /// Environment given by the base URL.
    pub ambiente: Ambiente,
    /// `nVersion`.
    pub version: String,
    /// `Id` (CDC).
    pub cdc: String,
    /// dFeEmiDE text, decoded.
    pub fecha_emision: String,
    /// Receiver identification: `dRucRec` or `dNumIDRec`.
    #[cfg_attr(feature = "ts", ts(inline))]
    pub receptor: ReceptorQr,
    /// `dTotGralOpe` text.
    pub total: String,
    /// `dTotIVA` text.
    pub total_iva: String,
    /// `cItems`.
    pub items: usize,
    /// DigestValue base64 text, decoded.
    pub digest_value: String,
    /// `IdCSC`.
    pub csc_id: String,
    /// `cHashQR` (64 lowercase hex digits).
    pub hash: String,
    /// Whether `cHashQR` matches the CSC the caller gave; absent when none was given (a parse alone does not check
    /// the hash: [`QrParts::checked`] does).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "schema", schemars(with = "bool"))]
    pub hash_ok: Option<bool>,
}

impl QrParts {
    /// These parts with `hash_ok` set when a CSC is given ([`check_hash`] of `dcarqr`, the text they were parsed
    /// from), left `None` otherwise.
    pub fn checked(mut self, dcarqr: &str, csc: Option<&str>) -> QrParts {
        self.hash_ok = csc.map(|c| check_hash(dcarqr, c));
        self
    }
}

/// Builds dCarQR: base URL, the nine parameters, then `&cHashQR=` and the SHA-256 of params + CSC.
pub fn build(input: &QrInput) -> String {
    let base = base_url(input.ambiente);
    let (rec_name, rec_value) = match input.receptor {
        QrReceptor::Ruc(r) => ("&dRucRec=", r),
        QrReceptor::Documento(d) => ("&dNumIDRec=", d),
        QrReceptor::SinDocumento => ("&dNumIDRec=", "0"),
    };
    // Exact size up to the item count's digits (20 covers any usize), so the String never regrows.
    let capacity = base.len()
        + "nVersion=".len()
        + VERSION.len()
        + "&Id=".len()
        + input.cdc.len()
        + "&dFeEmiDE=".len()
        + 2 * input.fecha_emision.len()
        + rec_name.len()
        + rec_value.len()
        + "&dTotGralOpe=".len()
        + input.total.len()
        + "&dTotIVA=".len()
        + input.total_iva.len()
        + "&cItems=".len()
        + 20
        + "&DigestValue=".len()
        + 2 * input.digest_value.len()
        + "&IdCSC=".len()
        + input.csc_id.len()
        + HASH_SEP.len()
        + 64;
    let mut out = String::with_capacity(capacity);
    out.push_str(base);
    out.push_str("nVersion=");
    out.push_str(VERSION);
    out.push_str("&Id=");
    out.push_str(input.cdc);
    out.push_str("&dFeEmiDE=");
    push_hex(&mut out, input.fecha_emision.as_bytes());
    out.push_str(rec_name);
    out.push_str(rec_value);
    out.push_str("&dTotGralOpe=");
    out.push_str(input.total);
    out.push_str("&dTotIVA=");
    out.push_str(input.total_iva);
    out.push_str("&cItems=");
    push_decimal(&mut out, input.items);
    out.push_str("&DigestValue=");
    push_hex(&mut out, input.digest_value.as_bytes());
    out.push_str("&IdCSC=");
    out.push_str(input.csc_id);
    let hash = hash_params(out.get(base.len()..).unwrap_or_default(), input.csc);
    out.push_str(HASH_SEP);
    push_hex(&mut out, &hash);
    out
}

/// Parses a dCarQR (raw text, not XML-escaped): known base URL, the nine parameters in their fixed
/// order with lowercase hex, and a 64-digit lowercase `cHashQR`. Does not check the hash (see [`check_hash`]).
pub fn parse(dcarqr: &str) -> Result<QrParts, Finding> {
    let (ambiente, rest) = if let Some(r) = dcarqr.strip_prefix(BASE_URL_TEST) {
        (Ambiente::Test, r)
    } else if let Some(r) = dcarqr.strip_prefix(BASE_URL_PRODUCCION) {
        (Ambiente::Produccion, r)
    } else {
        return Err(rule::qr_base_url(AT));
    };
    let mut fields = rest.split('&');
    let mut f = [""; 10];
    for slot in f.iter_mut() {
        *slot = fields.next().ok_or_else(|| rule::qr_param_count(AT))?;
    }
    if fields.next().is_some() {
        return Err(rule::qr_extra_param(AT));
    }
    let [f_version, f_id, f_fecha, f_rec, f_total, f_iva, f_items, f_digest, f_csc_id, f_hash] = f;
    let version = value(f_version, "nVersion")?.to_string();
    let cdc = value(f_id, "Id")?;
    if cdc.len() != 44 || !cdc.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(rule::qr_cdc(AT));
    }
    let cdc = cdc.to_string();
    let fecha_emision = decode_hex_text(value(f_fecha, "dFeEmiDE")?, "dFeEmiDE")?;
    let receptor = match value(f_rec, "dRucRec") {
        Ok(ruc) => ReceptorQr::Ruc(ruc.to_string()),
        Err(_) => ReceptorQr::Documento(value(f_rec, "dNumIDRec")?.to_string()),
    };
    let total = value(f_total, "dTotGralOpe")?.to_string();
    let total_iva = value(f_iva, "dTotIVA")?.to_string();
    let items_text = value(f_items, "cItems")?;
    if items_text.is_empty() || !items_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(rule::qr_items(AT));
    }
    let items = items_text.parse().map_err(|_| rule::qr_items(AT))?;
    let digest_value = decode_hex_text(value(f_digest, "DigestValue")?, "DigestValue")?;
    let csc_id = value(f_csc_id, "IdCSC")?;
    if csc_id.len() != 4 || !csc_id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(rule::qr_csc_id(AT));
    }
    let csc_id = csc_id.to_string();
    let hash = value(f_hash, "cHashQR")?;
    if hash.len() != 64 || !hash.bytes().all(|b| hex_value(b).is_some()) {
        return Err(rule::qr_hash(AT));
    }
    let hash = hash.to_string();
    Ok(QrParts {
        ambiente,
        version,
        cdc,
        fecha_emision,
        receptor,
        total,
        total_iva,
        items,
        digest_value,
        csc_id,
        hash,
        hash_ok: None,
    })
}

/// True when dCarQR's `cHashQR` equals SHA-256 of its parameters followed by `csc`.
pub fn check_hash(dcarqr: &str, csc: &str) -> bool {
    let Some(query_start) = dcarqr.find('?') else {
        return false;
    };
    let Some(sep) = dcarqr.rfind(HASH_SEP) else {
        return false;
    };
    let (Some(params), Some(given)) = (
        dcarqr.get(query_start + 1..sep),
        dcarqr.get(sep + HASH_SEP.len()..),
    ) else {
        return false;
    };
    let expected = hash_params(params, csc);
    given.len() == 64 && given.as_bytes().chunks(2).zip(expected.iter()).all(|(pair, byte)| {
        matches!(pair, [hi, lo] if hex_value(*hi) == Some(byte >> 4) && hex_value(*lo) == Some(byte & 0x0f))
    })
}

/// SHA-256 of the parameter string followed by the CSC.
fn hash_params(params: &str, csc: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(params.as_bytes());
    h.update(csc.as_bytes());
    h.finalize().into()
}

/// Appends the lowercase hex of `bytes`.
fn push_hex(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
}

/// Appends `n` in decimal without going through the formatting machinery.
fn push_decimal(out: &mut String, mut n: usize) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        // n % 10 < 10, so the cast cannot truncate.
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    for &d in buf.get(i..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// Value of a lowercase hex digit.
fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Decodes lowercase hex into UTF-8 text.
fn decode_hex_text(hex: &str, name: &str) -> Result<String, Finding> {
    let err = || rule::qr_hex(AT, name);
    if !hex.len().is_multiple_of(2) {
        return Err(err());
    }
    let bytes = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| match pair {
            [hi, lo] => Some(hex_value(*hi)? << 4 | hex_value(*lo)?),
            _ => None,
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(err)?;
    String::from_utf8(bytes).map_err(|_| err())
}

/// The value of a `name=value` field, or an error naming the expected parameter.
fn value<'a>(field: &'a str, name: &str) -> Result<&'a str, Finding> {
    field
        .strip_prefix(name)
        .and_then(|v| v.strip_prefix('='))
        .ok_or_else(|| rule::qr_param(AT, name))
}

/// Where a finding about the QR text is: its element.
const AT: &str = "dCarQR";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits() {
        for n in [0usize, 7, 10, 999, usize::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }
}

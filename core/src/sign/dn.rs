//! Distinguished names as text, written exactly as x509-parser 0.18's `Display` for `X509Name` writes
//! them (`CN=…, serialNumber=RUC80069563-1, C=PY`), without linking its OID registry: that registry
//! (a lazily built `HashMap` of about 150 OIDs with their descriptions) and the hex encoder behind it
//! cost the WebAssembly package about 40 KB of code and data.
//!
//! `dn/names.txt` lists, one per line, `dotted-OID short-name` for every OID of x509-parser's
//! `oid_registry()`, with x509-parser's abbreviations (`CN`, `C`, `L`, `ST`, `O`, `OU`, `DC`, `Email`)
//! in place of the registry's short names; the attribute types of names come first, so that a lookup
//! usually stops within a few lines. The tests compare this module with x509-parser's `Display`
//! for every one of them, so an x509-parser upgrade that changes the text fails a test.

use std::borrow::Cow;
use std::fmt::Write as _;
use x509_parser::asn1_rs::{Any, BmpString, Oid, Tag};
use x509_parser::x509::X509Name;

/// `dotted-OID short-name` lines (see the module documentation).
const NAMES: &str = include_str!("dn/names.txt");

/// What x509-parser writes when a string value does not decode.
const INVALID: &str = "<X509Error: Invalid X.509 name>";

/// The name as text: RDNs joined by `, `, the attributes of a multi-valued RDN by ` + `, each
/// `type=value` with the type's short name (or `OID(1.2.3)`) and string values as they are, other
/// values in uppercase hex.
pub(crate) fn name_text(name: &X509Name<'_>) -> String {
    rdns_text(name).unwrap_or_else(|| INVALID.to_string())
}

fn rdns_text(name: &X509Name<'_>) -> Option<String> {
    let mut out = String::new();
    for rdn in name.iter() {
        let mut part = String::new();
        for atv in rdn.iter() {
            let value = value_text(atv.attr_value())?;
            if !part.is_empty() {
                part.push_str(" + ");
            }
            push_type(&mut part, atv.attr_type());
            part.push('=');
            part.push_str(&value);
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&part);
    }
    Some(out)
}

/// The short name of the attribute type, or `OID(…)` (the OID's `Debug`) when it has none.
fn push_type(out: &mut String, oid: &Oid<'_>) {
    match short_name(oid) {
        Some(short) => out.push_str(short),
        None => {
            let _ = write!(out, "{oid:?}");
        }
    }
}

/// The line of `NAMES` for an absolute OID whose arcs fit in u64 (no other has one).
fn short_name(oid: &Oid<'_>) -> Option<&'static str> {
    // A relative OID never equals a registry entry (x509-parser's registry compares the kind too).
    if *oid != Oid::new(Cow::Borrowed(oid.as_bytes())) {
        return None;
    }
    let mut dotted = String::new();
    for (i, arc) in oid.iter()?.enumerate() {
        let sep = if i == 0 { "" } else { "." };
        let _ = write!(dotted, "{sep}{arc}");
    }
    NAMES.lines().find_map(|line| {
        let (key, short) = line.split_once(' ')?;
        (key == dotted).then_some(short)
    })
}

/// A string value as it is (BMPString decoded from UTF-16), any other value as uppercase hex of its
/// content; `None` when a string does not decode.
fn value_text(value: &Any<'_>) -> Option<String> {
    match value.tag() {
        Tag::NumericString
        | Tag::VisibleString
        | Tag::PrintableString
        | Tag::GeneralString
        | Tag::ObjectDescriptor
        | Tag::GraphicString
        | Tag::T61String
        | Tag::VideotexString
        | Tag::Utf8String
        | Tag::Ia5String => std::str::from_utf8(value.data).ok().map(str::to_owned),
        Tag::BmpString => BmpString::try_from(value).ok().map(|s| s.string()),
        _ => Some(upper_hex(value.as_bytes())),
    }
}

/// Bytes as uppercase hex without separators.
pub(crate) fn upper_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

#[cfg(test)]
mod tests;

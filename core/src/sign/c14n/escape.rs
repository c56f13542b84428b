//! References, attribute-value normalization, line ends and the C14N escaping of text and attribute values.

use super::C14nError;
use crate::xml::entity;
use std::borrow::Cow;

/// Resolves `&name;` with the crate's one resolver ([`crate::xml::entity`]): the five predefined entities and
/// character references of XML `Char`s; anything else is malformed.
pub(super) fn resolve_reference(name: &str) -> Result<char, C14nError> {
    entity::resolve(name).map_err(|e| C14nError::from(e.to_finding("")))
}

/// Attribute value as the XML parser reports it: line ends and literal whitespace become spaces
/// (CDATA attribute normalization, no DTD), then references are resolved ([`entity::attribute_value`]).
pub(crate) fn attr_value(s: &str) -> Result<Cow<'_, str>, C14nError> {
    entity::attribute_value(s).map_err(|e| C14nError::from(e.to_finding("")))
}

/// XML end-of-line handling: `\r\n` and lone `\r` become `\n`.
pub(super) fn normalize_newlines_bytes(b: &[u8]) -> Cow<'_, [u8]> {
    if !b.contains(&b'\r') {
        return Cow::Borrowed(b);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut iter = b.iter().peekable();
    while let Some(&c) = iter.next() {
        if c == b'\r' {
            out.push(b'\n');
            if iter.peek() == Some(&&b'\n') {
                iter.next();
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Escapes character content per C14N: `&`, `<`, `>` and carriage return.
pub(crate) fn escape_text(s: &str, out: &mut Vec<u8>) {
    escape_text_bytes(s.as_bytes(), out);
}

pub(super) fn escape_text_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        out.extend_from_slice(bytes.get(last..i).unwrap_or_default());
        out.extend_from_slice(rep);
        last = i + 1;
    }
    out.extend_from_slice(bytes.get(last..).unwrap_or_default());
}

/// Escapes an attribute value per C14N: `&`, `<`, `"`, tab, newline and carriage return.
pub(crate) fn escape_attr(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'"' => b"&quot;",
            b'\t' => b"&#x9;",
            b'\n' => b"&#xA;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        out.extend_from_slice(bytes.get(last..i).unwrap_or_default());
        out.extend_from_slice(rep);
        last = i + 1;
    }
    out.extend_from_slice(bytes.get(last..).unwrap_or_default());
}

//! The one resolver of entity and character references, used by every XML reader of the crate: the DE parser
//! ([`crate::xml::parse`]), C14N ([`crate::sign::c14n`]), signature verification ([`crate::sign::verify`]) and
//! the reader of SIFEN's SOAP answers. They read the same reference the same way, as XML 1.0 (Fifth Edition)
//! defines it:
//!
//! - A character reference is `&#` followed by one or more decimal digits, or `&#x` (lower-case `x`) followed by
//!   one or more hexadecimal digits (either case), then `;` (production 66, `CharRef`). No sign, no spaces, no
//!   `&#X`; leading zeros are allowed.
//! - The character it names must match production 2, `Char`: tab, line feed, carriage return, U+0020–U+D7FF,
//!   U+E000–U+FFFD or U+10000–U+10FFFF (WFC: Legal Character). So `&#0;`, `&#1;`, a surrogate (`&#xD800;`),
//!   U+FFFE, U+FFFF and anything above U+10FFFF are errors.
//! - Without a DTD (every reader refuses `<!DOCTYPE`) only the five predefined entities exist: `&amp;` `&lt;`
//!   `&gt;` `&quot;` `&apos;`. Any other entity reference is an error (WFC: Entity Declared).
//!
//! An error is never repaired or dropped: the reader that meets it refuses the document with its own code
//! (`MALFORMED_XML` for documents and signatures, `SIFEN_UNEXPECTED_RESPONSE` for SIFEN answers).
//! `core/tests/entities.rs` feeds the same references to the four readers and to xmllint and expects one verdict.

use crate::{rule, Finding};
use std::borrow::Cow;
use std::fmt;

/// Why a reference (or a text holding references) cannot be read: a finding of an `xml.*` rule ([`crate::rule`]),
/// code `MALFORMED_XML`; a reader that reports it with another code says why with this rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityError(Finding);

impl EntityError {
    /// A message for people, quoting the reference (in the language findings are built in).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The finding of the error's rule, located at the JSON `path`.
    pub fn to_finding(&self, path: impl Into<String>) -> Finding {
        let mut f = self.0.clone();
        f.path = path.into();
        f
    }
}

/// The English message of the error's rule (core/locales/en/xml.ftl).
impl fmt::Display for EntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message_in(crate::msg::Lang::En))
    }
}

impl std::error::Error for EntityError {}

/// Whether `c` is an XML 1.0 `Char` (production 2).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The character a reference stands for; `name` is what lies between `&` and `;` (`amp`, `#65`, `#x41`).
pub fn resolve(name: &str) -> Result<char, EntityError> {
    match name {
        "amp" => return Ok('&'),
        "lt" => return Ok('<'),
        "gt" => return Ok('>'),
        "quot" => return Ok('"'),
        "apos" => return Ok('\''),
        _ => {}
    }
    let Some(num) = name.strip_prefix('#') else {
        return Err(EntityError(rule::xml_entity_undeclared("", name)));
    };
    let (digits, radix) = match num.strip_prefix('x') {
        Some(hex) => (hex, 16),
        None => (num, 10),
    };
    let mut code: u32 = 0;
    for b in digits.bytes() {
        let d = char::from(b)
            .to_digit(radix)
            .ok_or_else(|| EntityError(rule::xml_char_ref("", name)))?;
        // Saturates above the largest code point, so long runs of digits stay an error and never wrap.
        code = code.saturating_mul(radix).saturating_add(d).min(0x11_0000);
    }
    if digits.is_empty() {
        return Err(EntityError(rule::xml_char_ref("", name)));
    }
    char::from_u32(code)
        .filter(|&c| is_xml_char(c))
        .ok_or_else(|| EntityError(rule::xml_char_ref_range("", name)))
}

/// Character data with its references resolved (a borrow when it holds none). Line ends are left as they are:
/// the readers normalize them (or not) themselves.
pub fn unescape(raw: &str) -> Result<Cow<'_, str>, EntityError> {
    if !raw.contains('&') {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        let (plain, tail) = rest.split_at(amp);
        out.push_str(plain);
        let semi = tail
            .find(';')
            .ok_or_else(|| EntityError(rule::xml_ref_unterminated("")))?;
        out.push(resolve(tail.get(1..semi).unwrap_or_default())?);
        rest = tail.get(semi + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// An attribute value as an XML processor reports it without a DTD (CDATA attribute-value normalization): a
/// literal tab, line feed, carriage return or CR LF becomes one space, `<` is an error, then references are
/// resolved (a resolved `&#9;` stays a tab). A borrow when nothing changes.
pub fn attribute_value(raw: &str) -> Result<Cow<'_, str>, EntityError> {
    if !raw
        .bytes()
        .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r' | b'<'))
    {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => return Err(EntityError(rule::xml_attr_lt(""))),
            '\r' => {
                out.push(' ');
                rest = rest
                    .strip_prefix("\r\n")
                    .or_else(|| rest.get(1..))
                    .unwrap_or("");
                continue;
            }
            '\t' | '\n' => out.push(' '),
            '&' => {
                let end = rest
                    .find(';')
                    .ok_or_else(|| EntityError(rule::xml_attr_ref_unterminated("")))?;
                out.push(resolve(rest.get(1..end).unwrap_or(""))?);
                rest = rest.get(end + 1..).unwrap_or("");
                continue;
            }
            other => out.push(other),
        }
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn references_follow_the_xml_grammar_and_the_char_production() {
        assert_eq!(resolve("amp"), Ok('&'));
        assert_eq!(resolve("#xD"), Ok('\r'));
        assert_eq!(resolve("#x00041"), Ok('A'));
        assert_eq!(resolve("#0065"), Ok('A'));
        assert_eq!(resolve("#241"), Ok('ñ'));
        assert_eq!(resolve("#x10FFFF"), Ok('\u{10FFFF}'));
        for bad in [
            "#x1",
            "#0",
            "#xD800",
            "#xDFFF",
            "#xFFFE",
            "#xFFFF",
            "#x110000",
            "#+65",
            "#x+41",
            "#X41",
            "#-1",
            "#",
            "#x",
            "# 65",
            "#65 ",
            "#x4G",
            "#99999999999999999999",
            "lol",
            "",
            "AMP",
        ] {
            assert!(resolve(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn attribute_values_are_normalized_then_resolved() {
        assert_eq!(attribute_value("a\r\nb\tc&#9;d").unwrap(), "a b c\td");
        assert!(matches!(
            attribute_value("plain").unwrap(),
            Cow::Borrowed(_)
        ));
        assert!(attribute_value("a<b").is_err());
        assert!(attribute_value("a&#0;").is_err());
        assert!(attribute_value("a&amp").is_err());
        assert_eq!(unescape("x&lt;&#x41;").unwrap(), "x<A");
        assert!(unescape("&bogus;").is_err());
    }
}

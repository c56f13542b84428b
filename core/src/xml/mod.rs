//! The DE XML of SIFEN v150: [`write()`] a [`DocumentoElectronico`](crate::de::DocumentoElectronico) as an unsigned `rDE`, [`parse`] an `rDE` back.
//!
//! The writer emits the exact bytes that get signed and sent (SIFEN.md §3.1): elements in the XSD `xs:sequence`
//! order, no whitespace between tags, no prefixes, no empty optional elements, and text escaped as Canonical XML
//! escapes it, so canonicalizing the `DE` subtree changes nothing but the inherited namespace declaration. It
//! writes straight into one pre-sized `String`; there is no DOM.
//!
//! The parser accepts our documents and documents from others: prefixed or default namespace, pretty-printed,
//! with `Signature`, `gCamFuFD` or elements kuatia does not model (they are skipped). It rejects DTDs (so no
//! entity expansion can happen), bounds size and nesting depth, and reports the XPath-like element path of the
//! first problem. Descriptions that SIFEN derives from a code (`dDesTipEmi`, `dDesTiDE`, `dDesTImp`,
//! `dDCondOpe`, `dDCondCred`) are not stored in the model: the writer derives them again.

use quick_xml::NsReader;

pub mod entity;
mod read;
#[cfg(test)]
mod tests;
pub(crate) mod tree;
mod write;

pub use read::{extract_digest_value, extract_qr, parse, parse_bytes};
pub use write::write;

/// SIFEN's XML namespace, the default namespace of `rDE`.
pub const NAMESPACE: &str = "http://ekuatia.set.gov.py/sifen/xsd";
/// The XML-DSig namespace of `Signature`.
pub const DSIG_NAMESPACE: &str = "http://www.w3.org/2000/09/xmldsig#";
/// The `xsi:schemaLocation` value written on `rDE` (two-token form, SIFEN.md §3.1).
pub const SCHEMA_LOCATION: &str = "http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd";
/// Largest XML document [`parse`] accepts, in bytes (a 999-item DE with long texts stays well below it).
pub const MAX_XML_BYTES: usize = 16 * 1024 * 1024;
/// Deepest element nesting [`parse`] accepts (a DE needs 7 levels, a signature 5).
pub const MAX_DEPTH: usize = 64;
/// Most namespace declarations (`xmlns`, `xmlns:p`) in scope at once, in every XML reader of the crate (the DE
/// parser, signature verification and C14N, SIFEN answers). A signed DE declares 3; the bound keeps the scope
/// stacks small, so a start tag with 100 000 declarations (RUSTSEC-2026-0195) is refused after 128 of them and
/// resolving a prefix never scans more than this many bindings.
pub const MAX_NAMESPACE_BINDINGS: usize = 128;

/// A namespace-aware reader over `xml` with the crate's bound on namespace declarations in scope.
pub(crate) fn ns_reader(xml: &str) -> NsReader<&[u8]> {
    let mut reader = NsReader::from_str(xml);
    reader
        .resolver_mut()
        .set_max_namespace_bindings(MAX_NAMESPACE_BINDINGS);
    reader
}

/// A quick-xml error at byte `at` as a finding (quick-xml's advice to raise its limit is not for people).
pub(crate) fn xml_error(e: &quick_xml::Error, at: u64) -> crate::Finding {
    match e {
        quick_xml::Error::Namespace(quick_xml::name::NamespaceError::TooManyBindings(n)) => {
            crate::rule::xml_namespaces("", *n)
        }
        e => crate::rule::xml_reader("", at, &e.to_string()),
    }
}

/// Everything up to the `DE` start tag: declaration, `rDE` with its namespaces, `dVerFor`. Attribute order is the
/// canonical one (default namespace, `xmlns:xsi`, then `xsi:schemaLocation`).
const HEAD: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
    r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
    r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd">"#,
    "<dVerFor>150</dVerFor>"
);

// ---------------------------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------------------------

/// The exclusive canonical form (SIFEN's signature transform) of the `DE` element of a document [`write()`]
/// produced, and the byte offset just after `</DE>`. The writer emits canonical bytes (C14N escaping, start and end
/// tags, no whitespace), so the canonical `DE` is its own bytes with the namespace it inherits from `rDE` declared
/// on it: signing needs no XML parse. `None` for any other input.
pub(crate) fn written_de_canonical(xml: &str) -> Option<(Vec<u8>, usize)> {
    let rest = xml.strip_prefix(HEAD)?.strip_prefix("<DE ")?;
    let len = rest.find("</DE>")? + "</DE>".len();
    let body = rest.get(..len)?;
    let end = HEAD.len() + "<DE ".len() + len;
    let mut out = Vec::with_capacity(body.len() + NAMESPACE.len() + 16);
    out.extend_from_slice(b"<DE xmlns=\"");
    out.extend_from_slice(NAMESPACE.as_bytes());
    out.extend_from_slice(b"\" ");
    out.extend_from_slice(body.as_bytes());
    Some((out, end))
}

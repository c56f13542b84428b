//! Rules of XML reading shared by every reader of the crate: the tokenizer of the signature code
//! ([`crate::sign::c14n`], verification), the one resolver of references ([`crate::xml::entity`]) and the bounds on
//! size and nesting. Codes `MALFORMED_XML` and `TOO_LARGE`. Catalogs: `core/locales/<lang>/xml.ftl`.

use super::{finding, Param, RuleDef};
use crate::Finding;

rules! {
    /// The XML is not well-formed at a byte offset; `what` names the problem (a term `xml-lex-*` of the catalog).
    xml_syntax / XML_SYNTAX = "xml.syntax" => MALFORMED_XML { what: Term = "xml-lex-unclosed_end_tag", at: Int = "12" };
    /// The document has a `<!DOCTYPE`: no DTDs and no entity declarations are read.
    xml_doctype / XML_DOCTYPE = "xml.doctype" => MALFORMED_XML {};
    /// A CDATA section outside the root element.
    xml_cdata_outside / XML_CDATA_OUTSIDE = "xml.cdata_outside" => MALFORMED_XML {};
    /// Text other than whitespace outside the root element.
    xml_text_outside / XML_TEXT_OUTSIDE = "xml.text_outside" => MALFORMED_XML {};
    /// The document ends before its root element does.
    xml_unexpected_end / XML_UNEXPECTED_END = "xml.unexpected_end" => MALFORMED_XML {};
    /// A second root element.
    xml_root_twice / XML_ROOT_TWICE = "xml.root_twice" => MALFORMED_XML {};
    /// An end tag that closes no open element.
    xml_unbalanced_end / XML_UNBALANCED_END = "xml.unbalanced_end" => MALFORMED_XML {};
    /// A namespace prefix used but not declared.
    xml_prefix_undeclared / XML_PREFIX_UNDECLARED = "xml.prefix_undeclared" => MALFORMED_XML { prefix: Text = "ds" };
    /// A namespace prefix bound to an empty URI (`xmlns:p=""`, XML Namespaces 1.0 forbids it).
    xml_prefix_empty_uri / XML_PREFIX_EMPTY_URI = "xml.prefix_empty_uri" => MALFORMED_XML { prefix: Text = "ds" };
    /// A reference to an entity other than the five predefined ones (there is no DTD to declare it).
    xml_entity_undeclared / XML_ENTITY_UNDECLARED = "xml.entity_undeclared" => MALFORMED_XML { name: Text = "nbsp" };
    /// A character reference that is not `&#digits;` or `&#xhex;`.
    xml_char_ref / XML_CHAR_REF = "xml.char_ref" => MALFORMED_XML { name: Text = "#x" };
    /// A character reference to a code point that is not an XML 1.0 character.
    xml_char_ref_range / XML_CHAR_REF_RANGE = "xml.char_ref_range" => MALFORMED_XML { name: Text = "#0" };
    /// A `&` without its closing `;` in character data.
    xml_ref_unterminated / XML_REF_UNTERMINATED = "xml.ref_unterminated" => MALFORMED_XML {};
    /// A `&` without its closing `;` in an attribute value.
    xml_attr_ref_unterminated / XML_ATTR_REF_UNTERMINATED = "xml.attr_ref_unterminated" => MALFORMED_XML {};
    /// A literal `<` in an attribute value.
    xml_attr_lt / XML_ATTR_LT = "xml.attr_lt" => MALFORMED_XML {};
    /// An attribute value that cannot be read; `reason` is the rule that says why, whose parameters the finding
    /// carries too.
    xml_attr_value / XML_ATTR_VALUE = "xml.attr_value" => MALFORMED_XML { reason: Rule = "xml.attr_lt" };
    /// The XML reader (quick-xml) refuses the document at a byte offset; `detail` is its explanation (English).
    xml_reader / XML_READER = "xml.reader" => MALFORMED_XML { at: Int = "40", detail: Text = "unexpected token" };
    /// An attribute the XML reader cannot read; `detail` is its explanation (English).
    xml_attr / XML_ATTR = "xml.attr" => MALFORMED_XML { detail: Text = "duplicated attribute" };
    /// An element name that is not UTF-8.
    xml_name_utf8 / XML_NAME_UTF8 = "xml.name_utf8" => MALFORMED_XML {};
    /// The document has no root element.
    xml_no_root / XML_NO_ROOT = "xml.no_root" => MALFORMED_XML {};
    /// The root element is not the one expected (in the SIFEN namespace).
    xml_root / XML_ROOT = "xml.root" => MALFORMED_XML { want: Text = "rDE", name: Text = "rEve" };
    /// A reader's bound or another rule's problem reported as malformed XML; `reason` is that rule, whose parameters
    /// the finding carries too.
    xml_malformed / XML_MALFORMED = "xml.malformed" => MALFORMED_XML { reason: Rule = "xml.depth" };
    /// Elements nested deeper than the readers accept.
    xml_depth / XML_DEPTH = "xml.depth" => TOO_LARGE { max: Int = "256" };
    /// More namespace declarations in scope than the readers accept.
    xml_namespaces / XML_NAMESPACES = "xml.namespaces" => TOO_LARGE { max: Int = "128" };
    /// More elements than the readers accept.
    xml_elements / XML_ELEMENTS = "xml.elements" => TOO_LARGE { max: Int = "200000" };
    /// A document larger than the readers accept, in bytes.
    xml_too_large / XML_TOO_LARGE = "xml.too_large" => TOO_LARGE { max: Int = "16777216", size: Int = "20000000" };
    /// The document is not UTF-8 from a byte offset on.
    xml_utf8 / XML_UTF8 = "xml.utf8" => MALFORMED_XML { at: Int = "12" };
    /// A required element of a DE is missing.
    xml_element_missing / XML_ELEMENT_MISSING = "xml.element_missing" => MALFORMED_XML { name: Text = "dRucEm" };
    /// A required element of a DE is empty.
    xml_element_empty / XML_ELEMENT_EMPTY = "xml.element_empty" => MALFORMED_XML { name: Text = "dRucEm" };
    /// A DE's value is not of its form; `what` names the form (a term `xml-value-*`).
    xml_value / XML_VALUE = "xml.value" => MALFORMED_XML { value: Text = "31/02/2025", what: Term = "xml-value-date" };
    /// A DE of a format version kuatia does not read (`dVerFor` other than 150).
    xml_version / XML_VERSION = "xml.version" => MALFORMED_XML { value: Text = "140" };
    /// A DE without its `Id` attribute (the CDC).
    xml_de_id / XML_DE_ID = "xml.de_id" => MALFORMED_XML {};
    /// A DE whose `dDVId` is not the CDC's last digit.
    xml_de_dv / XML_DE_DV = "xml.de_dv" => MALFORMED_XML { dv: Text = "7", cdc: Text = "CDC-EJEMPLO" };
    /// A DE of a document type kuatia does not handle.
    xml_tipo / XML_TIPO = "xml.tipo" => MALFORMED_XML { tipo: Int = "2" };
    /// A DE without items (`gCamItem`).
    xml_items / XML_ITEMS = "xml.items" => MALFORMED_XML {};
}

/// A finding of `outer`, a rule whose parameter `reason` is a [`Kind::Rule`](super::Kind::Rule), that says why with
/// `inner`'s rule and parameters (carried too, so that the message renders whole in every language). `inner` must
/// have no `reason` parameter of its own.
pub fn because(outer: &'static RuleDef, path: impl Into<String>, inner: Finding) -> Finding {
    let mut params = inner.params;
    params.insert("reason", Param::One(inner.rule.into_owned()));
    finding(outer, path, params)
}

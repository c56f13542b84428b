//! SOAP 1.2 framing: the envelope around a request body, and an answer read into the crate's bounded,
//! namespace-aware tree ([`crate::xml::tree`]: the same depth and element bounds and the same reference rules
//! as the DE parser).

use crate::error::Finding;
use crate::rule;
use crate::xml::tree::{self, Rules};

/// The SOAP 1.1 namespace, accepted in answers (a gateway may downgrade) but never sent.
const SOAP11_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// Largest answer parsed (SIFEN answers are far below; a lot answer with 50 results is ~30 KB, a consulta with
/// the whole DE a few hundred KB).
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// Wraps a body element (which declares its own default namespace) in a SOAP 1.2 envelope with the XML
/// declaration SIFEN requires (SIFEN.md §6.1, §10 #3).
pub fn envelope(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 200);
    out.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env=""#);
    out.push_str(super::SOAP12_NS);
    out.push_str(r#""><env:Header/><env:Body>"#);
    out.push_str(body);
    out.push_str("</env:Body></env:Envelope>");
    out
}

/// Where an element's name lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ns {
    /// SOAP 1.2 or 1.1 envelope namespace.
    Soap,
    /// The SIFEN namespace.
    Sifen,
    /// No namespace.
    None,
    /// Anything else.
    Other,
}

/// A parsed answer: every element, root first (the crate's one bounded tree, [`crate::xml::tree`]).
pub(crate) type Tree<'a> = tree::Tree<'a, Ns>;

/// SOAP's reading of namespaces: every element kept, classed by namespace; any root (the caller checks it).
const RULES: Rules<Ns> = Rules {
    classify,
    skip: None,
    root: None,
};

/// A short, printable excerpt of an answer for error messages (first 160 characters, whitespace collapsed).
pub fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes.get(..600).unwrap_or(bytes));
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = collapsed.chars().take(160).collect();
    if collapsed.chars().count() > 160 || bytes.len() > 600 {
        out.push('…');
    }
    out
}

/// `SIFEN_UNEXPECTED_RESPONSE` for the answer `bytes`; `why` is the finding of the rule that says what is wrong.
pub fn unexpected(bytes: &[u8], why: Finding) -> Finding {
    let ex = excerpt(bytes);
    // SIFEN's F5 BIG-IP gateway answers with an HTML logout page when the session fails (SIFEN.md §10 #14).
    let head = String::from_utf8_lossy(bytes.get(..600).unwrap_or(bytes)).to_ascii_lowercase();
    let outer = if ex.is_empty() {
        rule::SIFEN_UNEXPECTED_EMPTY
    } else if head.contains("<html") {
        rule::SIFEN_UNEXPECTED_HTML
    } else {
        rule::SIFEN_UNEXPECTED
    };
    // The reason's rule and parameters, as `rule::because` carries them, and the excerpt.
    let mut params = why.params;
    params.insert("why", rule::Param::One(why.rule.into_owned()));
    if !ex.is_empty() {
        params.insert("excerpt", rule::Param::One(ex));
    }
    rule::finding(outer, "", params)
}

fn classify(ns: Option<&str>) -> Ns {
    match ns {
        None => Ns::None,
        Some(ns) if ns == super::NAMESPACE => Ns::Sifen,
        Some(ns) if ns == super::SOAP12_NS || ns == SOAP11_NS => Ns::Soap,
        Some(_) => Ns::Other,
    }
}

impl<'a> Tree<'a> {
    /// Parses an answer: UTF-8, well-formed, one root, no DOCTYPE (so no entity can be declared), bounded in
    /// size, depth and elements; every reference read by [`crate::xml::entity`].
    pub fn parse(bytes: &'a [u8]) -> Result<Tree<'a>, Finding> {
        if bytes.len() > MAX_RESPONSE_BYTES {
            let why = rule::sifen_response_too_large("", MAX_RESPONSE_BYTES);
            return Err(unexpected(bytes, why));
        }
        let src = std::str::from_utf8(bytes)
            .map_err(|e| unexpected(bytes, rule::sifen_response_not_utf8("", e.valid_up_to())))?;
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        if src.trim().is_empty() {
            return Err(unexpected(bytes, rule::sifen_response_empty("")));
        }
        tree::Tree::build(src, &RULES).map_err(|e| unexpected(bytes, e.0))
    }

    /// First child of `i` named `name` (SIFEN namespace or none).
    pub fn child(&self, i: usize, name: &str) -> Option<usize> {
        self.kids(i).find(|&c| {
            self.nodes
                .get(c)
                .is_some_and(|n| n.name == name && matches!(n.ns, Ns::Sifen | Ns::None))
        })
    }

    /// Every child of `i` named `name`.
    pub fn children<'s>(&'s self, i: usize, name: &'s str) -> impl Iterator<Item = usize> + 's {
        self.kids(i).filter(move |&c| {
            self.nodes
                .get(c)
                .is_some_and(|n| n.name == name && matches!(n.ns, Ns::Sifen | Ns::None))
        })
    }

    /// Trimmed text of the child `name` of `i`, if present.
    pub fn text(&self, i: usize, name: &str) -> Option<String> {
        self.child(i, name)
            .and_then(|c| self.nodes.get(c))
            .map(|n| n.text.trim().to_string())
    }

    /// The first descendant of `i` (depth-first, including `i`) named `name` in any namespace.
    pub fn find(&self, i: usize, name: &str) -> Option<usize> {
        if self.name(i) == name {
            return Some(i);
        }
        self.kids(i).find_map(|c| self.find(c, name))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::msg::Lang;

    /// An unexpected answer is one rule that names its reason's rule and carries its parameters, in both languages.
    #[test]
    fn unexpected_answers_say_why_with_a_rule() {
        let f = super::super::parse_response(b"<html><body>Logout</body></html>").unwrap_err();
        assert_eq!(
            (f.rule.as_ref(), f.code.as_str()),
            ("sifen.unexpected_html", "SIFEN_UNEXPECTED_RESPONSE")
        );
        assert_eq!(
            f.params["why"],
            crate::rule::Param::One("sifen.response_root".into())
        );
        assert_eq!(
            f.message_in(Lang::En),
            "SIFEN's answer is not the expected SOAP message: the root element is html instead of a SOAP Envelope; \
             it is an HTML page (the SET gateway's logout page: retry later); the answer starts with: \
             <html><body>Logout</body></html>"
        );
        assert!(f.message_in(Lang::EsPy).starts_with(
            "La respuesta de SIFEN no es el mensaje SOAP esperado. El elemento raíz es html"
        ));

        let f = super::super::parse_response(b"  ").unwrap_err();
        assert_eq!(f.rule, "sifen.unexpected_empty");
        assert_eq!(
            f.message_in(Lang::En),
            "SIFEN's answer is not the expected SOAP message: the body is empty; the answer starts with: (empty)"
        );

        // A tree error keeps its own rule as the reason (here the tokenizer's, with its offset).
        let f = super::super::parse_response(b"<a><b></a>").unwrap_err();
        assert_eq!(f.rule, "sifen.unexpected");
        assert_eq!(
            f.params["why"],
            crate::rule::Param::One("xml.reader".into())
        );
        assert!(f.params.get("at").is_some(), "{f:?}");

        // A reason with a reason of its own (a bad attribute value, because of an undeclared entity) renders whole.
        let f = super::super::parse_response(b"<a x='&bogus;'/>").unwrap_err();
        assert_eq!(
            f.params["why"],
            crate::rule::Param::One("xml.attr_value".into())
        );
        assert!(
            f.message_in(Lang::En)
                .contains(": bad attribute value: undeclared entity '&bogus;'; the answer"),
            "{}",
            f.message
        );
        assert!(
            f.message_in(Lang::EsPy)
                .contains("Valor de atributo no válido. Entidad no declarada '&bogus;'."),
            "{}",
            f.message_in(Lang::EsPy)
        );
    }
}

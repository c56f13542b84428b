//! The scan: one pass of the tokenizer up to the end of the first XMLDSig `Signature`, recording every token
//! (C14N replays them) and building the `Signature` as a small tree. References go through [`crate::xml::entity`].

use super::*;
use crate::rule;

/// A small element tree of the `Signature` (namespace-resolved names, unprefixed attributes, text), borrowing the
/// input where it can.
#[derive(Debug)]
pub(super) struct El<'x> {
    pub(super) local: &'x str,
    pub(super) ns: Cow<'x, str>,
    pub(super) attrs: Vec<(&'x str, Cow<'x, str>)>,
    pub(super) text: Cow<'x, str>,
    pub(super) children: Vec<El<'x>>,
    pub(super) offset: usize,
}

impl<'x> El<'x> {
    pub(super) fn is(&self, local: &str) -> bool {
        self.local == local && self.ns == DSIG_NS
    }
    pub(super) fn child(&self, local: &str) -> Option<&El<'x>> {
        self.children.iter().find(|c| c.is(local))
    }
    pub(super) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_ref())
    }
}

/// Where the `Signature` sits in the recorded tokens: the indices of its ancestors' start tags and its own.
#[derive(Debug)]
pub(super) struct Scope {
    pub(super) ancestors: Vec<usize>,
    pub(super) signature: usize,
}

/// Why the scan stopped: a finding of an `xml.*` rule.
pub(super) type ScanError = Finding;

/// Finds the first `Signature` in the XMLDSig namespace and returns it as a tree.
/// Every token read is appended to `events` (with the offsets before and after it); `lexer` stops after the
/// `Signature`'s end.
pub(super) fn find_signature<'x>(
    lexer: &mut Lexer<'x>,
    events: &mut Vec<(Tok<'x>, usize, usize)>,
) -> Result<Option<(El<'x>, Scope)>, ScanError> {
    let mut ns: Vec<(&'x str, Cow<'x, str>)> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut stack: Vec<El<'x>> = Vec::new(); // open elements of the Signature being captured
    let mut ancestors: Vec<usize> = Vec::new(); // token indices of the open start tags outside it
    let mut signature = 0;
    loop {
        let before = lexer.pos();
        let event = lexer.next().map_err(|e| e.to_finding())?;
        events.push((event, before, lexer.pos()));
        let (tag, empty) = match event {
            Tok::Start(tag) => (tag, false),
            Tok::Empty(tag) => (tag, true),
            Tok::End(_) => {
                close(&mut ns, &mut marks);
                match stack.pop() {
                    Some(done) => match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => {
                            return Ok(Some((
                                done,
                                Scope {
                                    ancestors,
                                    signature,
                                },
                            )))
                        }
                    },
                    None => {
                        ancestors.pop();
                    }
                }
                continue;
            }
            Tok::Text(t) | Tok::Plain(t) => {
                if let Some(top) = stack.last_mut() {
                    push_text(&mut top.text, t, matches!(event, Tok::Plain(_)))?;
                }
                continue;
            }
            Tok::DocType => return Err(rule::xml_doctype("")),
            Tok::Eof => return Ok(None),
            _ => continue,
        };
        if marks.len() >= c14n::MAX_DEPTH {
            return Err(rule::xml_depth("", c14n::MAX_DEPTH));
        }
        let outside = stack.is_empty();
        let Some(el) = open(&tag, &mut ns, &mut marks, before, outside)? else {
            // Outside the Signature and not one: only its namespace declarations were kept.
            if empty {
                close(&mut ns, &mut marks);
            } else {
                ancestors.push(events.len().saturating_sub(1));
            }
            continue;
        };
        if outside {
            signature = events.len().saturating_sub(1);
        }
        if empty {
            close(&mut ns, &mut marks);
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => {
                    return Ok(Some((
                        el,
                        Scope {
                            ancestors,
                            signature,
                        },
                    )))
                }
            }
        } else {
            stack.push(el);
        }
    }
}

/// Appends raw character data of a `Signature` element with its references resolved by the crate's one resolver
/// ([`crate::xml::entity`]): a character reference such as `&#13;` is the character it names (base64 decoding
/// skips it when it is whitespace), and a reference that names no XML character is malformed XML.
pub(super) fn push_text<'x>(
    text: &mut Cow<'x, str>,
    raw: &'x str,
    plain: bool,
) -> Result<(), ScanError> {
    if text.is_empty() && (plain || !raw.contains('&')) {
        *text = Cow::Borrowed(raw);
        return Ok(());
    }
    let resolved = if plain {
        Cow::Borrowed(raw)
    } else {
        crate::xml::entity::unescape(raw).map_err(|e| e.to_finding(""))?
    };
    text.to_mut().push_str(&resolved);
    Ok(())
}

/// An attribute value as the parser reports it (whitespace normalized, references resolved).
pub(super) fn attr_value(raw: &str) -> Result<Cow<'_, str>, ScanError> {
    c14n::attr_value(raw).map_err(|e| rule::because(rule::XML_ATTR_VALUE, "", e.to_finding("")))
}

/// Records the namespace declarations of a start tag (checking every attribute) and builds its element; with
/// `only_signature`, returns `None` without allocating unless the element is an XMLDSig `Signature`: before the
/// signature only the namespace scope matters, and a DE has a hundred elements for one Signature.
pub(super) fn open<'x>(
    e: &Tag<'x>,
    ns: &mut Vec<(&'x str, Cow<'x, str>)>,
    marks: &mut Vec<usize>,
    offset: usize,
    only_signature: bool,
) -> Result<Option<El<'x>>, ScanError> {
    marks.push(ns.len());
    let mut plain = 0usize;
    for (key, raw) in lex::attributes(e.attrs) {
        if (key == "xmlns" || key.starts_with("xmlns:"))
            && ns.len() >= crate::xml::MAX_NAMESPACE_BINDINGS
        {
            return Err(too_many_bindings());
        }
        let value = attr_value(raw)?;
        if key == "xmlns" {
            ns.push(("", value));
        } else if let Some(p) = key.strip_prefix("xmlns:") {
            ns.push((p, value));
        } else {
            plain += 1;
        }
    }
    let qname = e.name;
    let (prefix, local) = lex::split_qname(qname);
    if only_signature && local != "Signature" {
        return Ok(None);
    }
    let uri: Cow<'x, str> = ns
        .iter()
        .rev()
        .find(|(p, _)| *p == prefix)
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    if only_signature && uri != DSIG_NS {
        return Ok(None);
    }
    let mut attrs = Vec::with_capacity(plain);
    if plain > 0 {
        for (key, raw) in lex::attributes(e.attrs) {
            if key == "xmlns" || key.contains(':') {
                continue;
            }
            attrs.push((key, attr_value(raw)?));
        }
    }
    Ok(Some(El {
        local,
        ns: uri,
        attrs,
        text: Cow::Borrowed(""),
        children: Vec::new(),
        offset,
    }))
}

pub(super) fn too_many_bindings() -> ScanError {
    rule::xml_namespaces("", crate::xml::MAX_NAMESPACE_BINDINGS)
}

pub(super) fn close(ns: &mut Vec<(&str, Cow<'_, str>)>, marks: &mut Vec<usize>) {
    if let Some(m) = marks.pop() {
        ns.truncate(m);
    }
}

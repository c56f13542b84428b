//! SOAP 1.2 framing: the envelope around a request body, and a small bounded, namespace-aware tree of an answer.

use super::code;
use crate::error::Finding;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;

/// The SOAP 1.1 namespace, accepted in answers (a gateway may downgrade) but never sent.
const SOAP11_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// Largest answer parsed (SIFEN answers are far below; a lot answer with 50 results is ~30 KB, a consulta with
/// the whole DE a few hundred KB).
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// Deepest nesting accepted in an answer.
const MAX_DEPTH: usize = 64;
/// Most elements accepted in an answer.
const MAX_NODES: usize = 200_000;

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

/// One element of an answer.
#[derive(Debug, Clone)]
pub struct Node {
    pub ns: Ns,
    pub name: String,
    pub text: String,
    pub children: Vec<usize>,
    /// Byte range of the element's content in the input (between its start and end tags).
    pub inner: (usize, usize),
}

/// A parsed answer: every element, root first.
#[derive(Debug)]
pub struct Tree<'a> {
    pub src: &'a str,
    pub nodes: Vec<Node>,
}

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

pub fn unexpected(bytes: &[u8], why: impl std::fmt::Display) -> Finding {
    let ex = excerpt(bytes);
    // SIFEN's F5 BIG-IP gateway answers with an HTML logout page when the session fails (SIFEN.md §10 #14).
    let head = String::from_utf8_lossy(bytes.get(..600).unwrap_or(bytes)).to_ascii_lowercase();
    let why = if head.contains("<html") {
        format!("{why}; it is an HTML page (the SET gateway's logout page: retry later)")
    } else {
        why.to_string()
    };
    let ex = if ex.is_empty() {
        "(empty)".to_string()
    } else {
        ex
    };
    Finding::new(
        code::UNEXPECTED_RESPONSE,
        "",
        format!(
            "SIFEN's answer is not the expected SOAP message: {why}; the answer starts with: {ex}"
        ),
    )
}

fn classify(r: &ResolveResult<'_>) -> Ns {
    match r {
        ResolveResult::Unbound => Ns::None,
        ResolveResult::Bound(ns) if ns.as_ref() == super::NAMESPACE => Ns::Sifen,
        ResolveResult::Bound(ns) if ns.as_ref() == super::SOAP12_NS || ns.as_ref() == SOAP11_NS => {
            Ns::Soap
        }
        _ => Ns::Other,
    }
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let num = name.strip_prefix('#')?;
            let n = match num.strip_prefix('x') {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(n)
        }
    }
}

impl<'a> Tree<'a> {
    /// Parses an answer: UTF-8, well-formed, one root, no DOCTYPE (so no entity can be declared), bounded.
    pub fn parse(bytes: &'a [u8]) -> Result<Tree<'a>, Finding> {
        if bytes.len() > MAX_RESPONSE_BYTES {
            return Err(unexpected(
                bytes,
                format!("it is larger than {MAX_RESPONSE_BYTES} bytes"),
            ));
        }
        let src = std::str::from_utf8(bytes)
            .map_err(|e| unexpected(bytes, format!("it is not UTF-8 ({e})")))?;
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        if src.trim().is_empty() {
            return Err(unexpected(bytes, "the body is empty"));
        }
        let bad = |m: String| unexpected(bytes, m);
        let mut reader = crate::xml::ns_reader(src);
        let mut nodes: Vec<Node> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut done = false;
        loop {
            let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let (ns, unknown, ev) = match reader.read_resolved_event() {
                Ok((r, ev)) => {
                    let unknown = match &r {
                        ResolveResult::Unknown(p) => Some(p.clone()),
                        _ => None,
                    };
                    (classify(&r), unknown, ev)
                }
                Err(e) => {
                    return Err(bad(format!(
                        "not well-formed XML at byte {}: {}",
                        reader.error_position(),
                        crate::xml::xml_error_message(&e)
                    )))
                }
            };
            let after = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            match ev {
                Event::Start(ref e) | Event::Empty(ref e) => {
                    if done {
                        return Err(bad("more than one root element".into()));
                    }
                    if stack.len() >= MAX_DEPTH || nodes.len() >= MAX_NODES {
                        return Err(bad(
                            "the XML is nested too deeply or has too many elements".into()
                        ));
                    }
                    if let Some(p) = unknown {
                        return Err(bad(format!("undeclared namespace prefix '{p}'")));
                    }
                    let empty = matches!(ev, Event::Empty(_));
                    let idx = nodes.len();
                    nodes.push(Node {
                        ns,
                        name: e.local_name().as_ref().to_owned(),
                        text: String::new(),
                        children: Vec::new(),
                        inner: (after, after),
                    });
                    if let Some(p) = stack.last().and_then(|&p| nodes.get_mut(p)) {
                        p.children.push(idx);
                    }
                    if empty {
                        done |= stack.is_empty();
                    } else {
                        stack.push(idx);
                    }
                }
                Event::End(_) => {
                    if let Some(n) = stack.pop().and_then(|i| nodes.get_mut(i)) {
                        n.inner.1 = before;
                    }
                    done |= stack.is_empty();
                }
                Event::Text(t) => {
                    let s = t.xml10_content();
                    match stack.last().and_then(|&i| nodes.get_mut(i)) {
                        Some(n) => n.text.push_str(&s),
                        None if s.trim().is_empty() => {}
                        None => return Err(bad("text outside the root element".into())),
                    }
                }
                Event::CData(t) => {
                    let s = t.xml10_content();
                    if let Some(n) = stack.last().and_then(|&i| nodes.get_mut(i)) {
                        n.text.push_str(&s);
                    }
                }
                Event::GeneralRef(g) => {
                    let name = g.as_ref();
                    let c =
                        entity(name).ok_or_else(|| bad(format!("undeclared entity '&{name};'")))?;
                    if let Some(n) = stack.last().and_then(|&i| nodes.get_mut(i)) {
                        n.text.push(c);
                    }
                }
                Event::DocType(_) => {
                    return Err(bad(
                        "it has a DOCTYPE (not allowed: it could declare entities)".into(),
                    ))
                }
                Event::Eof => break,
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            }
        }
        if !stack.is_empty() {
            return Err(bad("the XML is truncated (unclosed elements)".into()));
        }
        if nodes.is_empty() {
            return Err(bad("it holds no XML element".into()));
        }
        Ok(Tree { src, nodes })
    }

    /// The node at `i` (the root is 0).
    pub fn node(&self, i: usize) -> Option<&Node> {
        self.nodes.get(i)
    }

    /// Name of node `i`, or "".
    pub fn name(&self, i: usize) -> &str {
        self.nodes.get(i).map_or("", |n| &n.name)
    }

    /// Element children of `i`.
    pub fn kids(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .get(i)
            .map(|n| n.children.as_slice())
            .unwrap_or(&[])
            .iter()
            .copied()
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

    /// The raw XML between the start and end tags of `i`.
    pub fn inner_xml(&self, i: usize) -> &str {
        self.nodes
            .get(i)
            .and_then(|n| self.src.get(n.inner.0..n.inner.1))
            .unwrap_or_default()
    }
}

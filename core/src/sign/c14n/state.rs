//! The canonicalization state machine: one State per job, fed the tokens of one parse; namespace scopes,
//! attribute sorting and rendering of start and end tags.

use super::escape::{
    escape_attr, escape_text, escape_text_bytes, normalize_newlines_bytes, resolve_reference,
};
use super::*;
use crate::rule;
use std::borrow::Cow;
use std::rc::Rc;

pub(super) fn states_for<'x, 'm, 't, const N: usize>(
    len: usize,
    jobs: [Job<'m, 't>; N],
) -> [State<'x, 'm, 't>; N] {
    jobs.map(|job| State {
        method: job.method,
        target: job.target,
        exclude: job.exclude,
        // Enough for a SIFEN document; a larger output grows as it needs.
        out: Vec::with_capacity((len / N + 64).min(1 << 16)),
        depth: 0,
        ns: Vec::new(),
        ns_marks: Vec::new(),
        rendered: Vec::new(),
        rendered_marks: Vec::new(),
        out_prefixes: Vec::new(),
        xml_attrs: Vec::new(),
        attrs: Vec::new(),
        decls: Vec::new(),
        apex_depth: None,
        skip_depth: None,
        done: false,
        end: 0,
        matches: 0,
        seen_root: false,
        failed: None,
        finished: false,
    })
}

pub(super) fn finish_all<const N: usize>(
    states: [State<'_, '_, '_>; N],
    result: Result<(), C14nError>,
) -> [Result<Subtree, C14nError>; N] {
    match result {
        Ok(()) => states.map(State::finish),
        Err(e) => states.map(|st| {
            if st.finished {
                st.finish()
            } else {
                Err(e.clone())
            }
        }),
    }
}

/// Feeds every event of `xml` to the states still running; `Err` for an error of the reader (or a DOCTYPE).
pub(super) fn run<'x>(xml: &'x str, states: &mut [State<'x, '_, '_>]) -> Result<(), C14nError> {
    let mut lexer = Lexer::new(xml);
    loop {
        let before = lexer.pos();
        let event = lexer.next()?;
        let after = lexer.pos();
        if !feed(states, &event, before, after)? {
            return Ok(());
        }
    }
}

/// [`run`] over recorded events.
pub(super) fn replay<'x>(
    recorded: &Recorded<'x>,
    states: &mut [State<'x, '_, '_>],
) -> Result<(), C14nError> {
    for (event, before, after) in &recorded.events {
        if !feed(states, event, *before, *after)? {
            return Ok(());
        }
    }
    match &recorded.error {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

/// Gives one event to the states still running; `Ok(false)` once none is (or at the end of the document).
fn feed<'x>(
    states: &mut [State<'x, '_, '_>],
    event: &Tok<'x>,
    before: usize,
    after: usize,
) -> Result<bool, C14nError> {
    if let Tok::DocType = event {
        return Err(C14nError::from(rule::xml_doctype("")));
    }
    if let Tok::Eof = event {
        return Ok(false);
    }
    let mut running = false;
    for st in states.iter_mut().filter(|st| !st.finished) {
        if let Err(e) = st.event(event, before, after) {
            st.failed = Some(e);
            st.finished = true;
            continue;
        }
        // With an offset target nothing later can change the result.
        st.finished = st.done && matches!(st.target, Target::Offset(_));
        running |= !st.finished;
    }
    Ok(running)
}

impl<'x> State<'x, '_, '_> {
    fn event(&mut self, event: &Tok<'x>, before: usize, after: usize) -> Result<(), C14nError> {
        match event {
            Tok::Start(e) => self.start(e, false, before, after)?,
            Tok::Empty(e) => self.start(e, true, before, after)?,
            Tok::End(name) => self.end(name.as_bytes(), after)?,
            Tok::Plain(t) if self.in_output() => self.out.extend_from_slice(t.as_bytes()),
            Tok::Plain(t) => self.text(t, true)?,
            Tok::Text(t) => self.text(t, false)?,
            Tok::CData(t) => {
                if self.in_output() {
                    escape_text_bytes(&normalize_newlines_bytes(t.as_bytes()), &mut self.out);
                } else if self.depth == 0 {
                    return Err(C14nError::from(rule::xml_cdata_outside("")));
                }
            }
            Tok::Comment(c) => {
                if self.in_output() && self.method.with_comments() {
                    self.out.extend_from_slice(b"<!--");
                    self.out
                        .extend_from_slice(normalize_newlines_bytes(c.as_bytes()).as_ref());
                    self.out.extend_from_slice(b"-->");
                }
            }
            Tok::PI(p) => {
                if self.in_output() {
                    self.out.extend_from_slice(b"<?");
                    self.out
                        .extend_from_slice(normalize_newlines_bytes(p.as_bytes()).as_ref());
                    self.out.extend_from_slice(b"?>");
                }
            }
            Tok::Decl | Tok::DocType | Tok::Eof => {}
        }
        Ok(())
    }

    /// Character data with its references: resolved (an unknown entity is an error anywhere), line ends
    /// normalized and escaped in the output; outside the root element only whitespace is allowed.
    fn text(&mut self, raw: &str, plain: bool) -> Result<(), C14nError> {
        let bytes = raw.as_bytes();
        let has_ref = !plain && memchr::memchr(b'&', bytes).is_some();
        if self.in_output() {
            if !has_ref && memchr::memchr3(b'>', b'\r', b'<', bytes).is_none() {
                // The common case: nothing to escape or normalize.
                self.out.extend_from_slice(bytes);
                return Ok(());
            }
            let mut rest = raw;
            while let Some(amp) = rest.find('&') {
                let (plain, tail) = rest.split_at(amp);
                escape_text_bytes(&normalize_newlines_bytes(plain.as_bytes()), &mut self.out);
                let semi = tail
                    .find(';')
                    .ok_or_else(|| C14nError::from(rule::xml_ref_unterminated("")))?;
                let ch = resolve_reference(tail.get(1..semi).unwrap_or_default())?;
                let mut buf = [0u8; 4];
                escape_text(ch.encode_utf8(&mut buf), &mut self.out);
                rest = tail.get(semi + 1..).unwrap_or_default();
            }
            escape_text_bytes(&normalize_newlines_bytes(rest.as_bytes()), &mut self.out);
            return Ok(());
        }
        if self.depth == 0 && !raw_is_blank(bytes) {
            return Err(C14nError::from(rule::xml_text_outside("")));
        }
        if has_ref {
            let mut rest = raw;
            while let Some(amp) = rest.find('&') {
                let tail = rest.get(amp..).unwrap_or_default();
                let semi = tail
                    .find(';')
                    .ok_or_else(|| C14nError::from(rule::xml_ref_unterminated("")))?;
                resolve_reference(tail.get(1..semi).unwrap_or_default())?;
                rest = tail.get(semi + 1..).unwrap_or_default();
            }
        }
        Ok(())
    }

    /// The job's result once the document (or, for an offset target, its element) has been read.
    fn finish(self) -> Result<Subtree, C14nError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let early = self.done && matches!(self.target, Target::Offset(_));
        if !early && (self.depth != 0 || !self.seen_root) {
            return Err(C14nError::from(rule::xml_unexpected_end("")));
        }
        if !self.done {
            // An offset target is a SignedInfo the scan found, so it is always there; named by its offset if not.
            let id = match self.target {
                Target::Id(id) => Cow::Borrowed(id),
                Target::Offset(o) => Cow::Owned(format!("@{o}")),
            };
            return Err(C14nError::from(rule::sign_id_missing("", &id)));
        }
        if self.matches > 1 {
            return Err(C14nError::from(rule::sign_id_duplicate("", self.matches)));
        }
        Ok(Subtree {
            bytes: self.out,
            end: self.end,
        })
    }
}

fn raw_is_blank(t: &[u8]) -> bool {
    t.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// A namespace binding `(prefix, uri)`; `""` is the default namespace. Shared, so a rendered binding and the
/// in-scope one it came from compare by pointer before comparing text (this runs for every element).
type Binding = (Rc<str>, Rc<str>);

/// Text equality without a `memcmp` call for the usual empty prefix.
fn same_str(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Equal URIs: the same binding, or the same text.
fn same_uri(a: &Rc<str>, b: &Rc<str>) -> bool {
    Rc::ptr_eq(a, b) || same_str(a, b)
}

/// Adds a declaration of `prefix` to `decls` if its in-scope URI differs from what output ancestors
/// rendered; `must_bind` makes an undeclared prefix an error (it is used by the element or an attribute).
fn consider_ns(
    ns: &[Binding],
    rendered: &[Binding],
    decls: &mut Vec<Binding>,
    prefix: &str,
    must_bind: bool,
) -> Result<(), C14nError> {
    if prefix == "xml" || decls.iter().any(|(p, _)| same_str(p, prefix)) {
        return Ok(());
    }
    let in_scope = lookup_binding(ns, prefix);
    let render = if prefix.is_empty() {
        // xmlns="" only cancels a non-empty default rendered by an output ancestor.
        match (in_scope, lookup_binding(rendered, "")) {
            (Some(b), Some(r)) => (!same_uri(&b.1, &r.1)).then(|| b.clone()),
            (Some(b), None) => (!b.1.is_empty()).then(|| b.clone()),
            (None, Some(r)) => (!r.1.is_empty()).then(|| (Rc::from(""), Rc::from(""))),
            (None, None) => None,
        }
    } else {
        match in_scope {
            None if must_bind => {
                return Err(C14nError::from(rule::xml_prefix_undeclared("", prefix)));
            }
            None => None,
            Some(b) => match lookup_binding(rendered, prefix) {
                Some(r) if same_uri(&r.1, &b.1) => None,
                _ => Some(b.clone()),
            },
        }
    };
    if let Some(b) = render {
        decls.push(b);
    }
    Ok(())
}

/// Nearest binding of `prefix` in a scoped stack.
fn lookup_binding<'s>(stack: &'s [Binding], prefix: &str) -> Option<&'s Binding> {
    stack.iter().rev().find(|(p, _)| same_str(p, prefix))
}

/// Nearest URI bound to `prefix` in a scoped stack.
fn lookup<'s>(stack: &'s [Binding], prefix: &str) -> Option<&'s str> {
    lookup_binding(stack, prefix).map(|(_, u)| &**u)
}

/// An attribute of the current element: its qualified name and its value as the parser reports it.
#[derive(Clone)]
struct Attr<'x> {
    qname: &'x str,
    value: Cow<'x, str>,
}

pub(super) struct State<'x, 'm, 't> {
    method: &'m Method,
    target: Target<'t>,
    exclude: Option<usize>,
    out: Vec<u8>,
    depth: usize,
    /// In-scope namespace bindings (prefix, uri); `""` is the default namespace.
    ns: Vec<Binding>,
    ns_marks: Vec<usize>,
    /// Namespace declarations rendered by output ancestors.
    rendered: Vec<Binding>,
    rendered_marks: Vec<usize>,
    /// The prefix of each open output element.
    out_prefixes: Vec<&'x str>,
    /// `xml:*` attributes of ancestors outside the output (depth, qname, value), for inclusive C14N.
    xml_attrs: Vec<(usize, Attr<'x>)>,
    attrs: Vec<Attr<'x>>,
    decls: Vec<Binding>,
    apex_depth: Option<usize>,
    skip_depth: Option<usize>,
    done: bool,
    end: usize,
    matches: usize,
    seen_root: bool,
    /// This job's own error (the others go on).
    failed: Option<C14nError>,
    /// Nothing later can change this job's result.
    finished: bool,
}

impl<'x> State<'x, '_, '_> {
    fn in_output(&self) -> bool {
        self.apex_depth.is_some() && !self.done && self.skip_depth.is_none()
    }

    fn start(
        &mut self,
        e: &Tag<'x>,
        empty: bool,
        offset: usize,
        after: usize,
    ) -> Result<(), C14nError> {
        if self.depth == 0 {
            if self.seen_root {
                return Err(C14nError::from(rule::xml_root_twice("")));
            }
            self.seen_root = true;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(C14nError::from(rule::xml_depth("", MAX_DEPTH)));
        }
        self.ns_marks.push(self.ns.len());
        self.attrs.clear();
        if e.attrs.is_empty() && self.in_output() && self.exclude != Some(offset) {
            // Inside the output, without attributes (so no namespace declarations) and with its parent's prefix:
            // the parent's rendering already made that prefix's rendered binding the in-scope one, so nothing is
            // declared and the canonical start tag is `<name>`.
            let (prefix, _) = lex::split_qname(e.name);
            if self.out_prefixes.last() == Some(&prefix) {
                self.rendered_marks.push(self.rendered.len());
                self.out_prefixes.push(prefix);
                self.out.push(b'<');
                self.out.extend_from_slice(e.name.as_bytes());
                self.out.push(b'>');
                if empty {
                    self.end(e.name.as_bytes(), after)?;
                }
                return Ok(());
            }
        }
        let mut is_target = matches!(self.target, Target::Offset(o) if o == offset);
        // Attributes borrow the input (a value is copied only when it holds references or line ends to normalize).
        for (key, raw) in lex::attributes(e.attrs) {
            if (key == "xmlns" || key.starts_with("xmlns:"))
                && self.ns.len() >= crate::xml::MAX_NAMESPACE_BINDINGS
            {
                let n = crate::xml::MAX_NAMESPACE_BINDINGS;
                return Err(C14nError::from(rule::xml_namespaces("", n)));
            }
            let value = attr_value(raw)?;
            if key == "xmlns" {
                self.ns.push((Rc::from(""), Rc::from(value.as_ref())));
            } else if let Some(p) = key.strip_prefix("xmlns:") {
                if value.is_empty() {
                    return Err(C14nError::from(rule::xml_prefix_empty_uri("", p)));
                }
                self.ns.push((Rc::from(p), Rc::from(value.as_ref())));
            } else {
                if let Target::Id(id) = self.target {
                    if key == "Id" && value == id {
                        self.matches += 1;
                        is_target = true;
                    }
                }
                self.attrs.push(Attr { qname: key, value });
            }
        }
        if is_target && self.apex_depth.is_none() {
            self.apex_depth = Some(self.depth);
        }
        if self.in_output() {
            if self.exclude == Some(offset) {
                self.skip_depth = Some(self.depth);
            } else {
                self.render_start(e.name)?;
            }
        } else if matches!(self.method, Method::Inclusive { .. }) && self.apex_depth.is_none() {
            for a in &self.attrs {
                if a.qname.starts_with("xml:") {
                    self.xml_attrs.push((self.depth, a.clone()));
                }
            }
        }
        if empty {
            self.end(e.name.as_bytes(), after)?;
        }
        Ok(())
    }

    fn render_start(&mut self, qname: &'x str) -> Result<(), C14nError> {
        let (el_prefix, _) = lex::split_qname(qname);
        self.rendered_marks.push(self.rendered.len());
        self.out_prefixes.push(el_prefix);
        let is_apex = self.apex_depth == Some(self.depth);

        // Namespace declarations to render (no allocation in the common no-change case).
        self.decls.clear();
        let (ns, rendered, decls) = (&self.ns, &self.rendered, &mut self.decls);
        consider_ns(ns, rendered, decls, el_prefix, true)?;
        match self.method {
            Method::Exclusive {
                inclusive_prefixes, ..
            } => {
                for a in &self.attrs {
                    if let Some((p, _)) = a.qname.split_once(':') {
                        consider_ns(ns, rendered, decls, p, true)?;
                    }
                }
                for p in inclusive_prefixes {
                    let p = if p == "#default" { "" } else { p.as_str() };
                    consider_ns(ns, rendered, decls, p, false)?;
                }
            }
            Method::Inclusive { .. } => {
                for (p, _) in ns {
                    consider_ns(ns, rendered, decls, p, false)?;
                }
            }
        }
        self.decls.sort_by(|a, b| a.0.cmp(&b.0));
        self.rendered.extend(self.decls.iter().cloned());

        // Attributes sorted by (namespace URI, local name); unqualified ones have an empty URI and come first.
        let mut sorted: Vec<(&str, &str, &Attr)> = Vec::with_capacity(self.attrs.len());
        for a in &self.attrs {
            let (uri, local) = match a.qname.split_once(':') {
                None => ("", a.qname),
                Some(("xml", l)) => (XML_NS, l),
                Some((p, l)) => match lookup(&self.ns, p) {
                    Some(u) => (u, l),
                    None => return Err(C14nError::from(rule::xml_prefix_undeclared("", p))),
                },
            };
            sorted.push((uri, local, a));
        }
        // Inclusive C14N: the apex inherits xml:* attributes of its ancestors.
        let mut inherited: Vec<Attr> = Vec::new();
        if is_apex && matches!(self.method, Method::Inclusive { .. }) {
            for (_, x) in self.xml_attrs.iter().rev() {
                let present = self.attrs.iter().any(|a| a.qname == x.qname)
                    || inherited.iter().any(|a| a.qname == x.qname);
                if !present {
                    inherited.push(x.clone());
                }
            }
        }
        for a in &inherited {
            sorted.push((XML_NS, a.qname.get(4..).unwrap_or(""), a));
        }
        sorted.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));

        let out = &mut self.out;
        out.push(b'<');
        out.extend_from_slice(qname.as_bytes());
        for (p, uri) in &self.decls {
            if p.is_empty() {
                out.extend_from_slice(b" xmlns=\"");
            } else {
                out.extend_from_slice(b" xmlns:");
                out.extend_from_slice(p.as_bytes());
                out.extend_from_slice(b"=\"");
            }
            escape_attr(uri, out);
            out.push(b'"');
        }
        for (_, _, a) in &sorted {
            out.push(b' ');
            out.extend_from_slice(a.qname.as_bytes());
            out.extend_from_slice(b"=\"");
            escape_attr(&a.value, out);
            out.push(b'"');
        }
        out.push(b'>');
        Ok(())
    }

    fn end(&mut self, qname: &[u8], after: usize) -> Result<(), C14nError> {
        if self.depth == 0 {
            return Err(C14nError::from(rule::xml_unbalanced_end("")));
        }
        if self.in_output() {
            self.out.extend_from_slice(b"</");
            self.out.extend_from_slice(qname);
            self.out.push(b'>');
            if let Some(mark) = self.rendered_marks.pop() {
                self.rendered.truncate(mark);
            }
            self.out_prefixes.pop();
        } else if self.skip_depth == Some(self.depth) {
            self.skip_depth = None;
        }
        if self.apex_depth == Some(self.depth) && !self.done {
            self.done = true;
            self.end = after;
        }
        if let Some(mark) = self.ns_marks.pop() {
            self.ns.truncate(mark);
        }
        while self.xml_attrs.last().is_some_and(|(d, _)| *d == self.depth) {
            self.xml_attrs.pop();
        }
        self.depth -= 1;
        Ok(())
    }
}

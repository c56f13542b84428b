//! One bounded, namespace-aware element tree, shared by the DE parser ([`super::parse`]) and the reader of
//! SIFEN's SOAP answers (`sifen::soap`). Both get the same guarantees from one builder: UTF-8 input already
//! checked by the caller, well-formed XML with one root, no DOCTYPE (so no entity can be declared), every entity
//! and character reference in text and attribute values read by [`super::entity`], at most [`MAX_DEPTH`] levels
//! and [`MAX_NODES`] elements, at most [`super::MAX_NAMESPACE_BINDINGS`] namespace declarations in scope. Each
//! caller bounds the input size and turns a [`TreeError`] into a finding with its own code.
//!
//! Names and text borrow the input where they can; relatives are indices into [`Tree::nodes`], so building
//! allocates little beyond the node vector.

use super::entity;
use super::{ns_reader, xml_error, MAX_DEPTH};
use crate::{rule, Finding};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use std::borrow::Cow;

/// Most elements one tree holds (a 999-item DE has about 40 000; a SIFEN answer far fewer).
pub(crate) const MAX_NODES: usize = 200_000;

/// No node (end of a sibling chain, parent of the root).
pub(crate) const NONE: usize = usize::MAX;

/// One element: its namespace class, local name, text and `Id` attribute, and links to its relatives.
#[derive(Debug)]
pub(crate) struct Node<'a, K> {
    /// The class the caller's rule put the element's namespace in.
    pub(crate) ns: K,
    /// Local name.
    pub(crate) name: Cow<'a, str>,
    pub(crate) parent: usize,
    pub(crate) first_child: usize,
    pub(crate) last_child: usize,
    pub(crate) next_sibling: usize,
    /// Character data directly inside the element (references resolved, line ends normalized).
    pub(crate) text: Cow<'a, str>,
    /// The normalized value of an unprefixed `Id` attribute.
    pub(crate) id: Option<Cow<'a, str>>,
    /// Byte range of the element's content in the input (between its start and end tags).
    pub(crate) inner: (usize, usize),
}

/// How a caller reads namespaces: a class for each element, which class is skipped with its content, which root
/// is required.
pub(crate) struct Rules<K> {
    /// The class of an element in namespace `Some(uri)`, or in none.
    pub(crate) classify: fn(Option<&str>) -> K,
    /// Elements of this class are checked but not kept, with everything inside them.
    pub(crate) skip: Option<K>,
    /// The root element must be this local name in this class.
    pub(crate) root: Option<(K, &'static str)>,
}

/// Why a tree could not be built: where (the path of open elements) and what, for people.
#[derive(Debug)]
pub(crate) struct TreeError(
    /// What is wrong: a finding of an `xml.*` rule whose path is the XPath-like path of the open elements (`""` at
    /// the top).
    pub(crate) Finding,
);

/// Elements of one document, root first.
#[derive(Debug)]
pub(crate) struct Tree<'a, K> {
    /// The input.
    pub(crate) src: &'a str,
    /// Every kept element, in document order.
    pub(crate) nodes: Vec<Node<'a, K>>,
}

/// The children of one node, in document order.
pub(crate) struct Kids<'t, 'a, K> {
    t: &'t Tree<'a, K>,
    next: usize,
}

impl<K> Iterator for Kids<'_, '_, K> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let cur = self.next;
        self.next = self.t.nodes.get(cur)?.next_sibling;
        Some(cur)
    }
}

/// `part` as a slice of `whole`, when it lies inside it (checked by address and by content); else `None`.
fn sub_of<'a>(whole: &'a str, part: &str) -> Option<&'a str> {
    let off = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    whole
        .get(off..off.checked_add(part.len())?)
        .filter(|s| *s == part)
}

/// A borrowed piece of `whole` when it is one, else an owned copy.
fn cow_of<'a>(whole: &'a str, part: &str) -> Cow<'a, str> {
    match sub_of(whole, part) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(part.to_owned()),
    }
}

impl<'a, K: Copy + PartialEq> Tree<'a, K> {
    /// The node at `i` (the root is 0).
    pub(crate) fn node(&self, i: usize) -> Option<&Node<'a, K>> {
        self.nodes.get(i)
    }

    /// Local name of node `i`, or "".
    pub(crate) fn name(&self, i: usize) -> &str {
        self.nodes.get(i).map_or("", |n| &n.name)
    }

    /// Element children of `i`, in document order.
    pub(crate) fn kids(&self, i: usize) -> Kids<'_, 'a, K> {
        Kids {
            t: self,
            next: self.nodes.get(i).map_or(NONE, |n| n.first_child),
        }
    }

    /// XPath-like location of a node, e.g. `/rDE/DE/gDtipDE/gCamItem[2]/dCantProSer` (1-based like XPath).
    pub(crate) fn path(&self, i: usize) -> String {
        let mut parts = Vec::new();
        let mut cur = i;
        while let Some(n) = self.nodes.get(cur) {
            let mut part = n.name.to_string();
            if n.parent != NONE {
                let all: Vec<usize> = self
                    .kids(n.parent)
                    .filter(|&c| self.name(c) == n.name)
                    .collect();
                if all.len() > 1 {
                    let k = all.iter().position(|&c| c == cur).unwrap_or(0) + 1;
                    part = format!("{part}[{k}]");
                }
            }
            parts.push(part);
            cur = n.parent;
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// The raw XML between the start and end tags of `i`.
    pub(crate) fn inner_xml(&self, i: usize) -> &str {
        self.nodes
            .get(i)
            .and_then(|n| self.src.get(n.inner.0..n.inner.1))
            .unwrap_or_default()
    }

    /// Reads `xml` (the caller has bounded its size and removed a byte order mark) into a tree.
    pub(crate) fn build(xml: &'a str, rules: &Rules<K>) -> Result<Tree<'a, K>, TreeError> {
        let mut b = Builder {
            xml,
            rules,
            nodes: Vec::with_capacity(256),
            stack: Vec::with_capacity(16),
            skip: 0,
            root_done: false,
        };
        let mut reader = ns_reader(xml);
        loop {
            let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let (ns, ev) = match reader.read_resolved_event() {
                Ok((r, ev)) => {
                    let ns = match r {
                        ResolveResult::Unbound => Ok((rules.classify)(None)),
                        ResolveResult::Bound(n) => Ok((rules.classify)(Some(n.as_ref()))),
                        ResolveResult::Unknown(p) => Err(rule::xml_prefix_undeclared("", &p)),
                    };
                    (ns, ev)
                }
                Err(e) => return Err(b.fail(xml_error(&e, reader.error_position()))),
            };
            let after = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            match ev {
                Event::Start(e) => b.start(&e, ns, false, after)?,
                Event::Empty(e) => b.start(&e, ns, true, after)?,
                Event::End(_) => b.end(before),
                Event::Text(t) => b.text(t.xml10_content())?,
                Event::CData(t) => b.text(t.xml10_content())?,
                Event::GeneralRef(r) => {
                    let c = entity::resolve(&r).map_err(|e| b.fail(e.to_finding("")))?;
                    b.text(Cow::Owned(c.to_string()))?;
                }
                Event::DocType(_) => return Err(TreeError(rule::xml_doctype(""))),
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => {
                    if !b.stack.is_empty() || b.skip > 0 {
                        return Err(b.fail(rule::xml_unexpected_end("")));
                    }
                    if b.nodes.is_empty() {
                        return Err(b.fail(rule::xml_no_root("")));
                    }
                    return Ok(Tree {
                        src: xml,
                        nodes: b.nodes,
                    });
                }
            }
        }
    }
}

/// The state of one build.
struct Builder<'a, 'r, K> {
    xml: &'a str,
    rules: &'r Rules<K>,
    nodes: Vec<Node<'a, K>>,
    /// Open kept elements.
    stack: Vec<usize>,
    /// Open skipped elements below the top kept one.
    skip: usize,
    root_done: bool,
}

impl<'a, K: Copy + PartialEq> Builder<'a, '_, K> {
    /// An error at the open elements' path.
    fn fail(&self, finding: Finding) -> TreeError {
        self.fail_at(self.here(), finding)
    }

    fn fail_at(&self, path: String, mut finding: Finding) -> TreeError {
        finding.path = path;
        TreeError(finding)
    }

    fn here(&self) -> String {
        let names: Vec<&str> = self
            .stack
            .iter()
            .filter_map(|&i| self.nodes.get(i).map(|n| &*n.name))
            .collect();
        format!("/{}", names.join("/"))
    }

    fn start(
        &mut self,
        e: &BytesStart<'_>,
        ns: Result<K, Finding>,
        empty: bool,
        after: usize,
    ) -> Result<(), TreeError> {
        if self.stack.len() + self.skip >= MAX_DEPTH {
            return Err(self.fail(rule::xml_depth("", MAX_DEPTH)));
        }
        if self.nodes.len() >= MAX_NODES {
            return Err(self.fail(rule::xml_elements("", MAX_NODES)));
        }
        let ns = ns.map_err(|m| self.fail(m))?;
        // Every attribute is checked (syntax, duplicates, references), kept element or not.
        let mut id = None;
        for a in e.attributes() {
            let a = a.map_err(|err| self.fail(rule::xml_attr("", &err.to_string())))?;
            let raw = cow_of(self.xml, &a.value);
            let value = match raw {
                Cow::Borrowed(s) => entity::attribute_value(s),
                Cow::Owned(s) => entity::attribute_value(&s).map(|v| Cow::Owned(v.into_owned())),
            }
            .map_err(|err| {
                self.fail(rule::because(rule::XML_ATTR_VALUE, "", err.to_finding("")))
            })?;
            if a.key.as_ref() == "Id" {
                id = Some(value);
            }
        }
        if self.skip > 0 {
            self.skip += usize::from(!empty);
            return Ok(());
        }
        let local = e.local_name();
        let name = cow_of(self.xml, local.as_ref());
        if name.is_empty() {
            return Err(self.fail(rule::xml_name_utf8("")));
        }
        if self.stack.is_empty() {
            if self.root_done {
                return Err(self.fail_at(String::new(), rule::xml_root_twice("")));
            }
            if let Some((want_ns, want)) = self.rules.root {
                if name != want || ns != want_ns {
                    return Err(self.fail_at(format!("/{name}"), rule::xml_root("", want, &name)));
                }
            }
        }
        if self.rules.skip == Some(ns) {
            self.skip = usize::from(!empty);
            return Ok(());
        }
        let idx = self.nodes.len();
        let parent = self.stack.last().copied().unwrap_or(NONE);
        self.nodes.push(Node {
            ns,
            name,
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            text: Cow::Borrowed(""),
            id,
            inner: (after, after),
        });
        let prev = self.nodes.get(parent).map_or(NONE, |p| p.last_child);
        if let Some(p) = self.nodes.get_mut(prev) {
            p.next_sibling = idx;
        }
        if let Some(p) = self.nodes.get_mut(parent) {
            if p.first_child == NONE {
                p.first_child = idx;
            }
            p.last_child = idx;
        }
        if empty {
            self.root_done |= self.stack.is_empty();
        } else {
            self.stack.push(idx);
        }
        Ok(())
    }

    fn end(&mut self, before: usize) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        if let Some(n) = self.stack.pop().and_then(|i| self.nodes.get_mut(i)) {
            n.inner.1 = before;
        }
        self.root_done |= self.stack.is_empty();
    }

    /// Adds text to the open kept element (borrowing it when it is the first piece); outside the root only
    /// whitespace may appear.
    fn text(&mut self, s: Cow<'a, str>) -> Result<(), TreeError> {
        if self.skip > 0 {
            return Ok(());
        }
        match self.stack.last().and_then(|&i| self.nodes.get_mut(i)) {
            Some(n) if n.text.is_empty() => n.text = s,
            Some(n) => n.text.to_mut().push_str(&s),
            None if s.trim().is_empty() => {}
            None => return Err(self.fail_at(String::new(), rule::xml_text_outside(""))),
        }
        Ok(())
    }
}

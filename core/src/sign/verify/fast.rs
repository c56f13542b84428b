//! One pass over a document whose signed parts are canonical as written: the usual SIFEN shape, which our signer
//! and most others emit. The referenced element and `SignedInfo` are then hashed straight from the input (their
//! canonical start tag, their content as it stands, their end tag), without tokens, recordings or a C14N state.
//!
//! The pass accepts a strict subset of what the general path accepts without error, and gives up (`None`, and
//! the general path runs from the start) at the first thing outside it: a byte order mark, comments, processing
//! instructions, CDATA, DOCTYPE, empty-element tags, prefixed element names, text with `>`, a carriage return or a
//! reference other than `&amp;` `&lt;` `&gt;` (any reference inside the `Signature`), attribute values that need
//! normalizing, an `xmlns:p=""`, more than [`MAX_DEPTH`] levels or [`MAX_BINDINGS`] namespace declarations in
//! scope, an end tag not written `</name>`, text outside the root element other than spaces, tabs and line feeds.
//! What it accepts it checks as the tokenizer does (names with [`lex::name_ok`], attribute lists with
//! [`lex::check_attributes`], values with [`c14n::attr_value`]), so a document it verifies is one the general path
//! reads without error, into the same `Signature` tree. It verifies only when both canonical forms are the bytes
//! as written: exclusive C14N without an inclusive prefix list, exactly one element with the referenced `Id`,
//! lying before the `Signature`, and no start tag inside the two parts with namespace declarations, prefixed
//! attributes or attributes not written ` name="value"` in canonical order. The differential tests in
//! `verify/fast_tests.rs` hold it to the general path's reports.

use super::scan::{push_text, El};
use super::{conclude, plan, Plan, Verifier, VerifyReport};
use crate::sign::c14n::{self, Method};
use crate::sign::{lex, DSIG_NS};
use std::borrow::Cow;
use time::PrimitiveDateTime;

/// Deepest nesting the pass follows (SIFEN documents stay under 10 levels); deeper goes the general way.
const MAX_DEPTH: usize = 64;
/// Namespace declarations in scope the pass follows.
const MAX_BINDINGS: usize = 32;

/// An element whose start tag has attributes, or that lies in the `Signature`.
struct Region<'x> {
    /// Offset of its start tag's `<`.
    start: usize,
    /// Offset just after its start tag.
    tag_end: usize,
    /// Offset of its end tag's `<`.
    inner_end: usize,
    name: &'x str,
    /// The raw attribute list (checked).
    attrs: &'x str,
    /// The default namespace in scope on it.
    default_ns: &'x str,
    /// Its unprefixed `Id` attribute's value.
    id: Option<&'x str>,
}

/// What the pass read: the first XMLDSig `Signature` as the general scan builds it, and where the candidates for
/// the two canonical parts lie.
pub(super) struct Scan<'x> {
    sig: El<'x>,
    regions: Vec<Region<'x>>,
    /// Offsets of the start tags not written in canonical form, in document order.
    irregular: Vec<usize>,
}

/// An open element.
struct Open<'x> {
    name: &'x str,
    default_ns: &'x str,
    /// Namespace declarations in scope, its own included.
    bindings: usize,
    region: Option<usize>,
}

/// How a byte of an element name reads: part of the name, the end of it (whitespace, `>`, `/`, quotes: where the
/// tokenizer stops reading a name), or outside the subset (`:`, and what [`lex::name_ok`] refuses in a name).
const NAME: u8 = 0;
const NAME_END: u8 = 1;
const NAME_BAD: u8 = 2;
static NAME_BYTES: [u8; 256] = {
    let mut t = [NAME; 256];
    let ends = b" \t\r\n>/\"'";
    let mut i = 0;
    while i < ends.len() {
        t[ends[i] as usize] = NAME_END;
        i += 1;
    }
    let bad = b":<&=?!";
    let mut i = 0;
    while i < bad.len() {
        t[bad[i] as usize] = NAME_BAD;
        i += 1;
    }
    t
};

/// How a byte of text reads: `<` ends it, `&`, `>` and a carriage return need a look.
static TEXT_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = 1;
    t[b'&' as usize] = 2;
    t[b'>' as usize] = 2;
    t[b'\r' as usize] = 2;
    t
};

/// The length of the text at the start of `rest` (up to the next `<`) and whether it holds `&`, `>` or a carriage
/// return: a byte loop for the short texts of a DE, `memchr` past 32 bytes (the base64 of a certificate).
#[inline(always)]
fn text_run(rest: &[u8]) -> (usize, bool) {
    let mut special = false;
    for (i, c) in rest.iter().take(32).enumerate() {
        match TEXT_BYTES[usize::from(*c)] {
            0 => {}
            1 => return (i, special),
            _ => special = true,
        }
    }
    let len = memchr::memchr(b'<', rest).unwrap_or(rest.len());
    let special = special
        || rest
            .get(..len)
            .is_some_and(|t| memchr::memchr3(b'&', b'>', b'\r', t).is_some());
    (len, special)
}

/// Reads the whole document, or `None` when it leaves the subset (see the module's documentation).
pub(super) fn scan(xml: &str) -> Option<Scan<'_>> {
    let b = xml.as_bytes();
    let mut pos = 0;
    if b.starts_with(b"<?xml") && b.get(5).is_some_and(|c| lex::is_ws(*c)) {
        pos = memchr::memmem::find(b.get(2..)?, b"?>")? + 4;
    }
    let mut stack: Vec<Open<'_>> = Vec::with_capacity(16);
    let mut regions: Vec<Region<'_>> = Vec::with_capacity(32);
    let mut irregular = Vec::new();
    let mut sig_stack: Vec<El<'_>> = Vec::new();
    let mut sig: Option<El<'_>> = None;
    let mut root_done = false;
    loop {
        let (lt, special) = text_run(b.get(pos..)?);
        if lt > 0 {
            let text = xml.get(pos..pos + lt)?;
            if stack.is_empty() {
                if !text.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\n')) {
                    return None;
                }
            } else {
                if special {
                    text_ok(text.as_bytes(), !sig_stack.is_empty())?;
                }
                if let Some(top) = sig_stack.last_mut() {
                    push_text(&mut top.text, text, true).ok()?;
                }
            }
        }
        pos += lt;
        if pos >= b.len() {
            break;
        }
        match *b.get(pos + 1)? {
            b'/' => {
                let open = stack.pop()?;
                let close = pos + 2 + open.name.len();
                if b.get(pos + 2..close)? != open.name.as_bytes() || b.get(close) != Some(&b'>') {
                    return None;
                }
                if let Some(i) = open.region {
                    regions.get_mut(i)?.inner_end = pos;
                }
                if let Some(done) = sig_stack.pop() {
                    match sig_stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => sig = Some(done),
                    }
                }
                root_done = stack.is_empty();
                pos = close + 1;
            }
            b'!' | b'?' => return None,
            _ => {
                if root_done || stack.len() >= MAX_DEPTH {
                    return None;
                }
                // One look at each byte of the name: `lex::name_ok` of an unprefixed name.
                let mut n = pos + 1;
                let mut class = NAME_END;
                while let Some(c) = b.get(n) {
                    class = NAME_BYTES[usize::from(*c)];
                    if class != NAME {
                        break;
                    }
                    n += 1;
                }
                if class != NAME_END
                    || n == pos + 1
                    || matches!(b.get(pos + 1)?, b'0'..=b'9' | b'-' | b'.')
                {
                    return None;
                }
                let name = xml.get(pos + 1..n)?;
                let (attrs, tag_end) = match *b.get(n)? {
                    b'>' => ("", n + 1),
                    b' ' => {
                        // The closing '>', skipping quoted values (which may hold '>'), as the tokenizer finds it.
                        let mut i = n;
                        let gt = loop {
                            let at = i + memchr::memchr3(b'>', b'"', b'\'', b.get(i..)?)?;
                            match *b.get(at)? {
                                b'>' => break at,
                                q => i = at + 1 + memchr::memchr(q, b.get(at + 1..)?)? + 1,
                            }
                        };
                        let attrs = xml.get(n..gt)?;
                        if attrs.ends_with('/') {
                            return None;
                        }
                        (attrs, gt + 1)
                    }
                    _ => return None,
                };
                let (mut default_ns, mut bindings) =
                    stack.last().map_or(("", 0), |o| (o.default_ns, o.bindings));
                let mut id = None;
                let mut el_attrs = Vec::new();
                if !attrs.is_empty() {
                    lex::check_attributes(attrs).ok()?;
                    // Canonical as written: unprefixed, in order, ` name="value"` with single spaces (values
                    // borrowed by `attr_value` hold no `&`, `<`, tab or line end, and no `"` between double quotes).
                    let mut regular = memchr::memchr3(b'\t', b'\n', b'\r', attrs.as_bytes())
                        .is_none()
                        && memchr::memchr(b'\'', attrs.as_bytes()).is_none();
                    let mut minimal = 0;
                    let mut last = "";
                    for (key, raw) in lex::attributes(attrs) {
                        let Cow::Borrowed(value) = c14n::attr_value(raw).ok()? else {
                            return None;
                        };
                        minimal += key.len() + value.len() + 4;
                        if key == "xmlns" {
                            default_ns = value;
                            bindings += 1;
                            regular = false;
                        } else if key.starts_with("xmlns:") {
                            if value.is_empty() {
                                return None;
                            }
                            bindings += 1;
                            regular = false;
                        } else if key.contains(':') {
                            regular = false;
                        } else {
                            if key == "Id" {
                                id = Some(value);
                            }
                            regular &= key > last;
                            last = key;
                            el_attrs.push((key, Cow::Borrowed(value)));
                        }
                    }
                    if bindings > MAX_BINDINGS {
                        return None;
                    }
                    if !regular || minimal != attrs.len() {
                        irregular.push(pos);
                    }
                }
                let in_sig = !sig_stack.is_empty()
                    || (sig.is_none() && name == "Signature" && default_ns == DSIG_NS);
                let region = if in_sig || !attrs.is_empty() {
                    regions.push(Region {
                        start: pos,
                        tag_end,
                        inner_end: 0,
                        name,
                        attrs,
                        default_ns,
                        id,
                    });
                    Some(regions.len() - 1)
                } else {
                    None
                };
                if in_sig {
                    sig_stack.push(El {
                        local: name,
                        ns: Cow::Borrowed(default_ns),
                        attrs: el_attrs,
                        text: Cow::Borrowed(""),
                        children: Vec::new(),
                        offset: pos,
                    });
                }
                stack.push(Open {
                    name,
                    default_ns,
                    bindings,
                    region,
                });
                pos = tag_end;
            }
        }
    }
    if !root_done || !stack.is_empty() {
        return None;
    }
    Some(Scan {
        sig: sig?,
        regions,
        irregular,
    })
}

/// Text inside the root element that is its own canonical form (and, in the `Signature`, without references).
fn text_ok(text: &[u8], in_signature: bool) -> Option<()> {
    let Some(first) = memchr::memchr3(b'&', b'>', b'\r', text) else {
        return Some(());
    };
    if in_signature || memchr::memchr2(b'>', b'\r', text).is_some() {
        return None;
    }
    let mut at = first;
    loop {
        let rest = text.get(at + 1..)?;
        let len = if rest.starts_with(b"amp;") {
            4
        } else if rest.starts_with(b"lt;") || rest.starts_with(b"gt;") {
            3
        } else {
            return None;
        };
        let from = at + 1 + len;
        match memchr::memchr(b'&', text.get(from..)?) {
            Some(i) => at = from + i,
            None => return Some(()),
        }
    }
}

/// Verifies what [`scan`] read, or `None` when a canonical part is not the bytes as written (the general path
/// decides then).
pub(super) fn verify(
    verifier: &mut Verifier,
    xml: &str,
    scan: &Scan<'_>,
    at: Option<PrimitiveDateTime>,
    report: VerifyReport,
) -> Option<VerifyReport> {
    let (plan, r) = match plan(&scan.sig, report) {
        Ok(p) => p,
        Err(r) => return Some(r),
    };
    let as_written = |m: &Method| matches!(m, Method::Exclusive { inclusive_prefixes, .. } if inclusive_prefixes.is_empty());
    if !as_written(&plan.si_method) || !as_written(&plan.ref_method) {
        return None;
    }
    let mut targets = scan.regions.iter().filter(|g| g.id == Some(plan.id));
    let (Some(target), None) = (targets.next(), targets.next()) else {
        return None;
    };
    // Before the Signature: the enveloped transform leaves nothing out of it.
    if target.inner_end >= scan.sig.offset {
        return None;
    }
    let si = scan.regions.iter().find(|g| g.start == plan.si.offset)?;
    let clean = |g: &Region<'_>| {
        let first = scan.irregular.partition_point(|o| *o < g.tag_end);
        scan.irregular.get(first).is_none_or(|o| *o >= g.inner_end)
    };
    if !clean(target) || !clean(si) {
        return None;
    }
    let target_start = canonical_start(target)?;
    let si_start = canonical_start(si)?;
    let parts = |g: &Region<'_>, start: &[u8], out: &mut dyn FnMut(&[u8])| {
        out(start);
        out(xml
            .get(g.tag_end..g.inner_end)
            .unwrap_or_default()
            .as_bytes());
        out(b"</");
        out(g.name.as_bytes());
        out(b">");
    };
    let mut canonical = |plan: &Plan<'_, '_>, r: &mut VerifyReport| {
        let mut hasher = plan.dig_hash.hasher();
        parts(target, &target_start, &mut |p| hasher.update(p));
        r.digest_ok = hasher.finish() == plan.digest_value;
        let mut out = Vec::with_capacity(si.inner_end - si.tag_end + si_start.len() + 16);
        parts(si, &si_start, &mut |p| out.extend_from_slice(p));
        Ok(out)
    };
    Some(match conclude(verifier, &plan, at, r, &mut canonical) {
        Ok(r) | Err(r) => r,
    })
}

/// The exclusive canonical start tag of an apex element without prefixed attributes: the default namespace in
/// scope (if any), then its unprefixed attributes sorted.
fn canonical_start(g: &Region<'_>) -> Option<Vec<u8>> {
    let mut attrs: Vec<(&str, Cow<'_, str>)> = Vec::new();
    for (key, raw) in lex::attributes(g.attrs) {
        if key == "xmlns" || key.starts_with("xmlns:") {
            continue;
        }
        if key.contains(':') {
            return None;
        }
        attrs.push((key, c14n::attr_value(raw).ok()?));
    }
    attrs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = Vec::with_capacity(g.attrs.len() + g.default_ns.len() + g.name.len() + 16);
    out.push(b'<');
    out.extend_from_slice(g.name.as_bytes());
    if !g.default_ns.is_empty() {
        out.extend_from_slice(b" xmlns=\"");
        c14n::escape_attr(g.default_ns, &mut out);
        out.push(b'"');
    }
    for (key, value) in &attrs {
        out.push(b' ');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"=\"");
        c14n::escape_attr(value, &mut out);
        out.push(b'"');
    }
    out.push(b'>');
    Some(out)
}

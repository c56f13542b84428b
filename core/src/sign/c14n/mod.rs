//! Canonical XML of one element subtree: Exclusive XML Canonicalization 1.0 (what SIFEN signatures use) and
//! inclusive Canonical XML 1.0, streaming over quick-xml without building a tree.
//!
//! Scope (enough for XMLDSig over SIFEN documents and documents signed by other software): namespaces
//! (visibly utilized for exclusive C14N, plus an `InclusiveNamespaces` prefix list), attribute sorting,
//! text and attribute escaping, empty elements expanded, whitespace kept, comments dropped unless asked for,
//! character and predefined entity references resolved by the crate's one resolver ([`crate::xml::entity`]). No
//! DTD: `<!DOCTYPE` and unknown entities are errors, which rules out entity-expansion bombs. Element depth is
//! bounded by [`MAX_DEPTH`].
//!
//! Layout: this file holds the API and the jobs; `state.rs` the per-job state machine (namespace scopes, attribute
//! sorting, start and end tags); `escape.rs` references, attribute-value normalization and the C14N escaping.

use super::lex::{self, Lexer, Tag, Tok};
use crate::msg::Lang;
use crate::Finding;
use std::fmt;

mod escape;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use escape::{attr_value, escape_attr};
use state::{finish_all, replay, run, states_for};

/// Deepest element nesting accepted; SIFEN documents stay under 10 levels.
pub const MAX_DEPTH: usize = 256;

const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// URI of Exclusive XML Canonicalization 1.0 without comments.
pub const EXC_C14N: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
/// URI of Exclusive XML Canonicalization 1.0 with comments.
pub const EXC_C14N_WITH_COMMENTS: &str = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments";
/// URI of inclusive Canonical XML 1.0 without comments.
pub const C14N: &str = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
/// URI of inclusive Canonical XML 1.0 with comments.
pub const C14N_WITH_COMMENTS: &str = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments";

/// A canonicalization algorithm and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// Exclusive C14N 1.0; `inclusive_prefixes` is the `InclusiveNamespaces PrefixList` (`#default` = default ns).
    Exclusive {
        /// Keep comments (the `#WithComments` variant).
        with_comments: bool,
        /// Prefixes treated with inclusive rules.
        inclusive_prefixes: Vec<String>,
    },
    /// Inclusive Canonical XML 1.0.
    Inclusive {
        /// Keep comments (the `#WithComments` variant).
        with_comments: bool,
    },
}

impl Method {
    /// Exclusive C14N without comments and without an inclusive prefix list: the SIFEN profile.
    pub const EXCLUSIVE: Method = Method::Exclusive {
        with_comments: false,
        inclusive_prefixes: Vec::new(),
    };

    /// The algorithm named by an XMLDSig `Algorithm` URI, or `None` if unsupported.
    pub fn from_uri(uri: &str) -> Option<Method> {
        match uri {
            // NT-016 prints the exclusive URI without its trailing '#'; accept that spelling too.
            EXC_C14N | "http://www.w3.org/2001/10/xml-exc-c14n" => Some(Method::EXCLUSIVE),
            EXC_C14N_WITH_COMMENTS => Some(Method::Exclusive {
                with_comments: true,
                inclusive_prefixes: Vec::new(),
            }),
            C14N => Some(Method::Inclusive {
                with_comments: false,
            }),
            C14N_WITH_COMMENTS => Some(Method::Inclusive {
                with_comments: true,
            }),
            _ => None,
        }
    }

    fn with_comments(&self) -> bool {
        match self {
            Method::Exclusive { with_comments, .. } | Method::Inclusive { with_comments } => {
                *with_comments
            }
        }
    }
}

/// Why canonicalization failed: a finding of an `xml.*` or `sign.*` rule ([`crate::rule`]); `code()` is one of the
/// stable codes below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct C14nError(Finding);

/// Code: the input is not well-formed XML, or uses a DTD / unknown entity.
pub const MALFORMED_XML: &str = crate::error::code::MALFORMED_XML;
/// Code: no element carries the requested `Id`.
pub const ELEMENT_NOT_FOUND: &str = crate::code::ELEMENT_NOT_FOUND;
/// Code: several elements carry the requested `Id` (would allow signature-wrapping tricks).
pub const DUPLICATE_ID: &str = crate::code::DUPLICATE_ID;
/// Code: elements nested deeper than [`MAX_DEPTH`].
pub const TOO_LARGE: &str = crate::error::code::TOO_LARGE;

impl C14nError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        [ELEMENT_NOT_FOUND, DUPLICATE_ID, TOO_LARGE]
            .into_iter()
            .find(|c| *c == self.0.code)
            .unwrap_or(MALFORMED_XML)
    }
    /// Human-readable explanation (in the language findings are built in).
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

impl From<Finding> for C14nError {
    fn from(f: Finding) -> Self {
        C14nError(f)
    }
}

/// The code and the English message of the error's rule (core/locales/en/xml.ftl, sign.ftl).
impl fmt::Display for C14nError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.0.message_in(Lang::En))
    }
}

impl std::error::Error for C14nError {}

impl From<lex::LexError> for C14nError {
    fn from(e: lex::LexError) -> Self {
        C14nError(e.to_finding())
    }
}

/// Canonical form of the element whose `Id` attribute equals `id` (and its descendants).
pub fn canonicalize_element(xml: &str, id: &str, method: &Method) -> Result<Vec<u8>, C14nError> {
    canonicalize_subtree(xml, Target::Id(id), None, method).map(|s| s.bytes)
}

/// Which element is the apex of the canonicalized subtree.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// The unique element whose unprefixed `Id` attribute has this value.
    Id(&'a str),
    /// The element whose start tag begins at this byte offset.
    Offset(usize),
}

/// A canonicalized subtree and the byte offset just after its element's end tag in the input.
#[derive(Debug)]
pub(crate) struct Subtree {
    pub bytes: Vec<u8>,
    pub end: usize,
}

/// Canonicalizes the `target` element; `exclude` is the start offset of an element left out with its
/// subtree (the enveloped-signature transform).
pub(crate) fn canonicalize_subtree(
    xml: &str,
    target: Target<'_>,
    exclude: Option<usize>,
    method: &Method,
) -> Result<Subtree, C14nError> {
    let [one] = canonicalize_subtrees(
        xml,
        [Job {
            target,
            exclude,
            method,
        }],
    );
    one
}

/// One subtree to canonicalize in [`canonicalize_subtrees`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Job<'m, 't> {
    /// The apex element.
    pub target: Target<'t>,
    /// Start offset of an element left out with its subtree (the enveloped-signature transform).
    pub exclude: Option<usize>,
    /// The canonicalization.
    pub method: &'m Method,
}

/// Several subtrees of one document in a single parse (verification needs the referenced element and `SignedInfo`):
/// each job sees the same events and gives the result [`canonicalize_subtree`] would give for it alone. A job stops
/// at its own first error, or once its offset target is complete; a parse error of the reader reaches only the jobs
/// still running, as it would a separate parse of each.
pub(crate) fn canonicalize_subtrees<const N: usize>(
    xml: &str,
    jobs: [Job<'_, '_>; N],
) -> [Result<Subtree, C14nError>; N] {
    let mut states = states_for(xml.len(), jobs);
    let result = run(xml, &mut states);
    finish_all(states, result)
}

/// The events of one parse of a document with the byte offsets before and after each (its `Eof` included), and
/// how that parse ended: `Some` with the reader's error when it stopped on one. Verification records them while it
/// scans for the `Signature`, so the canonicalization does not parse the document again.
pub(crate) struct Recorded<'x> {
    /// Every token read, in order.
    pub events: Vec<(Tok<'x>, usize, usize)>,
    /// The reader's error that ended the parse, converted as [`canonicalize_subtrees`] converts it.
    pub error: Option<C14nError>,
}

/// [`canonicalize_subtrees`] over recorded events of a document of `len` bytes: the same results as parsing it
/// again with the same reader settings (tested in `jobs_in_one_parse_match_separate_parses`).
pub(crate) fn canonicalize_recorded<'x, const N: usize>(
    recorded: &Recorded<'x>,
    len: usize,
    jobs: [Job<'_, '_>; N],
) -> [Result<Subtree, C14nError>; N] {
    let mut states = states_for(len, jobs);
    let result = replay(recorded, &mut states);
    finish_all(states, result)
}

//! Structured findings and errors shared by every module: a stable code, the JSON path of the field, a message.

use crate::msg;
use crate::rule::{self, Params};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// The registry of every error code (re-exported here, where findings live).
pub use crate::code;

/// The JSON path serde_path_to_error reports, as findings carry it: `items[2].iva` as is, the root (`.`) empty, and
/// its placeholder for a segment it could not name (`?`, e.g. `items[0].?` when the input ends inside an object)
/// dropped.
pub fn json_path(raw: &str) -> String {
    let mut p = raw;
    while let Some(rest) = p.strip_suffix(".?") {
        p = rest;
    }
    if p == "." || p == "?" {
        String::new()
    } else {
        p.to_string()
    }
}

/// `field` under `base` (`items[2]` + `iva` → `items[2].iva`, `events` + `[0]` → `events[0]`).
pub fn join_path(base: &str, field: &str) -> String {
    match (base.is_empty(), field.is_empty()) {
        (true, _) => field.to_string(),
        (false, true) => base.to_string(),
        (false, false) if field.starts_with('[') => format!("{base}{field}"),
        (false, false) => format!("{base}.{field}"),
    }
}

/// The message a `Deserialize` impl gives serde for a value that has a registry code of its own (a RUC, a CDC), so
/// that the JSON readers of the `shape` module report that code: `serde::de::Error::custom(coded(code::INVALID_RUC, e))`.
pub fn coded(code: &str, message: impl fmt::Display) -> String {
    format!("{code}: {message}")
}

/// The prefix of [`coded_rule`]'s messages (U+0001 cannot start a message of serde's own).
pub const RULE_CHANNEL: &str = "\u{1}kuatia:";

/// The message a `Deserialize` impl gives serde for a finding of a registered rule, so that the JSON readers of the
/// `shape` module report its code, rule and parameters at the value's path: `E::custom(coded_rule(&e.to_finding("")))`.
/// Plain text, not JSON (the WebAssembly package pays for every serde path): the prefix, the rule id, then each
/// parameter's value in the rule's order after U+001F, a list's items after U+001D and joined by U+001E.
pub fn coded_rule(f: &Finding) -> String {
    let mut s = format!("{RULE_CHANNEL}{}", f.rule);
    for (_, v) in f.params.iter() {
        s.push('\u{1f}');
        match v {
            rule::Param::One(v) => s.push_str(v),
            rule::Param::List(l) => {
                s.push('\u{1d}');
                s.push_str(&l.join("\u{1e}"));
            }
        }
    }
    s
}

/// Reads a [`coded_rule`] message back as the finding at `path` (`None` when the message is not one, or names a rule
/// this build does not know).
pub fn read_coded_rule(message: &str, path: impl Into<String>) -> Option<Finding> {
    let mut parts = message.strip_prefix(RULE_CHANNEL)?.split('\u{1f}');
    let def = rule::find(parts.next()?)?;
    let mut params = Params::new();
    for ((name, _), v) in def.params.iter().zip(parts) {
        let value = match v.strip_prefix('\u{1d}') {
            Some("") => rule::Param::List(Vec::new()),
            Some(l) => rule::Param::List(l.split('\u{1e}').map(String::from).collect()),
            None => rule::Param::One(v.to_string()),
        };
        params.insert(*name, value);
    }
    Some(Finding::of(def, path, params))
}

/// One problem found in an input: stable `code`, JSON `path` of the field (empty for the whole input), human `message`,
/// and the `rule` that found it with its `params` (docs/errors.md, "Rules"), from which a host can write its own text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// Stable machine-readable code, see [`code`].
    pub code: String,
    /// JSON path of the offending field, like `items[2].iva`; empty when it concerns the whole document.
    pub path: String,
    /// Human-readable explanation, rendered from the rule's catalog entry in the face's language.
    pub message: String,
    /// Stable id of the rule that found the problem (`ruc.check_digit`, docs/errors.md); absent while the finding is
    /// still built from a sentence (`unclassified`).
    #[serde(default = "unclassified", skip_serializing_if = "is_unclassified")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub rule: Cow<'static, str>,
    /// The rule's parameters in machine form (`{"expected": "1", "got": "2"}`); absent when it has none.
    #[serde(default, skip_serializing_if = "Params::is_empty")]
    #[cfg_attr(
        feature = "ts",
        ts(
            as = "Option<std::collections::BTreeMap<String, rule::Param>>",
            optional
        )
    )]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "std::collections::BTreeMap<String, rule::Param>")
    )]
    pub params: Params,
}

fn unclassified() -> Cow<'static, str> {
    Cow::Borrowed(rule::UNCLASSIFIED)
}

fn is_unclassified(rule: &str) -> bool {
    rule == rule::UNCLASSIFIED
}

impl Finding {
    /// Builds a finding from a sentence (rule `unclassified`, no parameters).
    ///
    /// Deprecated: use the rule's builder (`rule::ruc_check_digit(path, …)`), whose message comes from the
    /// catalogs; this shim goes once every finding has a rule (docs/plans/issue-32.md, lane Z).
    pub fn new(code: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::sentence(code, path.into(), message.into())
    }

    /// [`Finding::new`]'s body, once in the binary rather than at each of its call sites.
    #[inline(never)]
    fn sentence(code: &str, path: String, message: String) -> Self {
        Finding {
            code: code.to_string(),
            path,
            message,
            rule: unclassified(),
            params: Params::new(),
        }
    }

    /// A finding of rule `def` with its `params` in wire form, its message rendered in [`msg::BUILD_LANG`].
    pub fn of(def: &'static rule::RuleDef, path: impl Into<String>, params: Params) -> Self {
        Finding {
            code: def.code.to_string(),
            path: path.into(),
            message: msg::render(msg::BUILD_LANG, def, &params),
            rule: Cow::Borrowed(def.id),
            params,
        }
    }

    /// The human-readable explanation.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message in `lang`, rendered from the rule's catalog entry (the stored message for an `unclassified`
    /// finding or an unknown rule).
    pub fn message_in(&self, lang: msg::Lang) -> String {
        match rule::find(&self.rule) {
            Some(def) => msg::render(lang, def, &self.params),
            None => self.message.clone(),
        }
    }

    /// Renders the message again in `lang` from the rule's catalog entry; an `unclassified` finding, or one of a
    /// rule this build does not know (read back from JSON), keeps its message.
    pub fn localize(&mut self, lang: msg::Lang) {
        if let Some(def) = rule::find(&self.rule) {
            self.message = msg::render(lang, def, &self.params);
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.code, self.message)
        } else {
            write!(f, "{} at {}: {}", self.code, self.path, self.message)
        }
    }
}

/// A collection of findings returned when an input is rejected; never empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings(pub Vec<Finding>);

impl Findings {
    /// Renders every message again in `lang` ([`Finding::localize`]): each face calls it once, at its boundary.
    pub fn localize(&mut self, lang: msg::Lang) {
        self.0.iter_mut().for_each(|f| f.localize(lang));
    }

    /// The first finding's code, used as the summary code of the whole rejection.
    pub fn code(&self) -> &str {
        self.0
            .first()
            .map(|f| f.code.as_str())
            .unwrap_or(code::VALIDATION_ERROR)
    }
}

impl fmt::Display for Findings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, finding) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{finding}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Findings {}

impl From<Finding> for Findings {
    fn from(f: Finding) -> Self {
        Findings(vec![f])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn json_paths_drop_serde_path_to_errors_placeholders() {
        assert_eq!(json_path("items[2].iva"), "items[2].iva");
        assert_eq!(json_path("."), "");
        assert_eq!(json_path("?"), "");
        assert_eq!(json_path("items[0].?"), "items[0]");
        assert_eq!(join_path("job", &json_path(".")), "job");
        assert_eq!(join_path("events", "[0]"), "events[0]");
        assert_eq!(join_path("", "receptor.ruc"), "receptor.ruc");
    }
}

//! Structured findings and errors shared by every module: a stable code, the JSON path of the field, a message.

use crate::msg;
use crate::rule::{self, Params};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// The registry of every error code (re-exported here, where findings live).
pub use crate::code;

/// `field` under `base` (`items[2]` + `iva` → `items[2].iva`, `events` + `[0]` → `events[0]`).
pub fn join_path(base: &str, field: &str) -> String {
    match (base.is_empty(), field.is_empty()) {
        (true, _) => field.to_string(),
        (false, true) => base.to_string(),
        (false, false) if field.starts_with('[') => format!("{base}{field}"),
        (false, false) => format!("{base}.{field}"),
    }
}

/// The prefix of [`coded_rule`]'s messages (U+0001 cannot start a message of serde's own).
pub const RULE_CHANNEL: &str = "\u{1}kuatia:";

/// The message a `Deserialize` impl gives serde for a finding of a registered rule, so that the JSON readers of the
/// `shape` module report its code, rule and parameters at the value's path: `E::custom(coded_rule(&e.to_finding("")))`.
/// Plain text, not JSON (the WebAssembly package pays for every serde path): the prefix, the rule id, then each
/// parameter as U+001F `name=value`, a list's items after U+001D and joined by U+001E. Every parameter of the finding
/// travels, including those of a rule a `Rule` parameter names.
pub fn coded_rule(f: &Finding) -> String {
    let mut s = format!("{RULE_CHANNEL}{}", f.rule);
    for (name, v) in f.params.iter() {
        s.push('\u{1f}');
        s.push_str(name);
        s.push('=');
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
    for part in parts {
        let (name, v) = part.split_once('=')?;
        let value = match v.strip_prefix('\u{1d}') {
            Some("") => rule::Param::List(Vec::new()),
            Some(l) => rule::Param::List(l.split('\u{1e}').map(String::from).collect()),
            None => rule::Param::One(v.to_string()),
        };
        params.insert(name.to_string(), value);
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
    /// A finding from a sentence (rule `unclassified`, no parameters), for core's own tests only: every finding is
    /// built by its rule's builder (`rule::ruc_check_digit(path, …)`), whose message comes from the catalogs.
    #[cfg(test)]
    pub(crate) fn new(code: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Finding {
            code: code.to_string(),
            path: path.into(),
            message: message.into(),
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
    fn json_paths_join() {
        assert_eq!(join_path("job", ""), "job");
        assert_eq!(join_path("items[2]", "iva"), "items[2].iva");
        assert_eq!(join_path("events", "[0]"), "events[0]");
        assert_eq!(join_path("", "receptor.ruc"), "receptor.ruc");
    }
}

/// JSON text (a report, an answer, a list of findings) with the message of every finding in it rendered again in
/// `lang` from its rule ([`localize_value`]). Text that is not JSON, or holds no finding whose message changes, comes
/// back as it was, byte for byte.
pub fn localize_json(text: &str, lang: msg::Lang) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.to_string();
    };
    if !localize_value(&mut v, lang) {
        return text.to_string();
    }
    serde_json::to_string(&v).unwrap_or_else(|_| text.to_string())
}

/// Renders again in `lang` the message of every finding inside a parsed JSON document: any object, at any depth,
/// with a registered `rule`, its `params` and a `message`. The one way every face localizes findings it already holds
/// as JSON (the C ABI's `kuatia_findings_localize`). Returns whether a message changed.
pub fn localize_value(v: &mut serde_json::Value, lang: msg::Lang) -> bool {
    fn walk(v: &mut serde_json::Value, lang: msg::Lang, changed: &mut bool) {
        match v {
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|i| walk(i, lang, changed))
            }
            serde_json::Value::Object(map) => {
                let def = map
                    .get("rule")
                    .and_then(serde_json::Value::as_str)
                    .and_then(rule::find);
                if let (Some(def), Some(serde_json::Value::String(old))) = (def, map.get("message"))
                {
                    let params: Params = map
                        .get("params")
                        .and_then(|p| serde_json::from_value(p.clone()).ok())
                        .unwrap_or_default();
                    let message = msg::render(lang, def, &params);
                    if *old != message {
                        map.insert("message".into(), serde_json::Value::String(message));
                        *changed = true;
                    }
                }
                map.values_mut().for_each(|i| walk(i, lang, changed));
            }
            _ => {}
        }
    }
    let mut changed = false;
    walk(v, lang, &mut changed);
    changed
}

#[cfg(test)]
mod channel_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every parameter crosses serde's message channel, those of a rule named by a `Rule` parameter and lists too.
    #[test]
    fn the_serde_channel_keeps_every_parameter() {
        let f = crate::cdc::CdcError::Ruc(crate::ruc::RucError::WrongDv {
            expected: 1,
            got: 2,
        })
        .to_finding("");
        assert_eq!(f.params.iter().count(), 3, "{f:?}");
        let back = read_coded_rule(&coded_rule(&f), "cdc").unwrap();
        assert_eq!((back.rule.as_ref(), back.path.as_str()), ("cdc.ruc", "cdc"));
        assert_eq!(back.params, f.params);
        assert_eq!(back.message, f.message);

        let mut list = f.clone();
        list.params
            .insert("items", rule::Param::List(vec!["a".into(), "b=c".into()]));
        list.params.insert("none", rule::Param::List(Vec::new()));
        let back = read_coded_rule(&coded_rule(&list), "").unwrap();
        assert_eq!(back.params, list.params);
        assert!(read_coded_rule("\u{1}kuatia:no.such_rule", "").is_none());
        assert!(read_coded_rule("ruc.empty", "").is_none());
    }

    /// Findings inside any JSON are rendered again in the language asked for; other text is left byte for byte.
    #[test]
    fn json_findings_are_localized_in_place() {
        let report = serde_json::json!({"ok": false, "errors": [
            rule::ruc_check_digit("receptor.ruc", 1, 2),
            Finding::new(code::REQUIRED, "items", "text without a rule"),
        ]})
        .to_string();
        let es = localize_json(&report, msg::Lang::EsPy);
        let v: serde_json::Value = serde_json::from_str(&es).unwrap();
        assert_eq!(
            v["errors"][0]["message"],
            "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
        assert_eq!(v["errors"][0]["params"]["got"], "2");
        assert_eq!(v["errors"][1]["message"], "text without a rule");
        let back = localize_json(&es, msg::Lang::En);
        let v: serde_json::Value = serde_json::from_str(&back).unwrap();
        assert_eq!(
            v["errors"][0]["message"],
            "wrong RUC check digit: expected 1, got 2"
        );
        assert_eq!(localize_json(&report, msg::Lang::EsPy), report);
        assert_eq!(localize_json("not json {", msg::Lang::EsPy), "not json {");
    }
}

//! Structured findings and errors shared by every module: a stable code, the JSON path of the field, a message.

use serde::{Deserialize, Serialize};
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
/// that the JSON readers of [`crate::shape`] report that code: `serde::de::Error::custom(coded(code::INVALID_RUC, e))`.
pub fn coded(code: &str, message: impl fmt::Display) -> String {
    format!("{code}: {message}")
}

/// Reads JSON text into `T`; any problem is one finding located under `base`, in the words of [`crate::shape`] (for
/// the inputs that answer with one; request bodies use [`crate::shape::read`] and report every finding).
pub fn from_json<T: serde::de::DeserializeOwned>(text: &str, base: &str) -> Result<T, Finding> {
    crate::shape::read_one(text, base)
}

/// [`crate::shape::read`] for the hot inputs of native hosts (a create request): tracking the path costs on every
/// field and is only needed to say where a problem is, so valid input (nearly all of it) is read once without it, and
/// input that fails is read again, tolerantly, for every finding. Not in WebAssembly, whose package has a size budget
/// (a second deserializer per type) and whose validation as you type does not need the microseconds.
pub fn from_json_fast<T: serde::de::DeserializeOwned>(
    text: &str,
    base: &str,
) -> Result<T, crate::shape::Unread<T>> {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    crate::shape::read(text, base)
}

/// Reads JSON bytes into `T`: invalid UTF-8 is `MALFORMED_JSON`, the rest as [`from_json`].
pub fn from_json_bytes<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    base: &str,
) -> Result<T, Finding> {
    from_json(crate::shape::utf8(bytes, base)?, base)
}

/// Reads an already parsed JSON value into `T`, with the same findings as [`from_json`].
pub fn from_json_value<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    base: &str,
) -> Result<T, Finding> {
    crate::shape::read_value_one(value, base)
}

/// One problem found in an input: stable `code`, JSON `path` of the field (empty for the whole input), human `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// Stable machine-readable code, see [`code`].
    pub code: String,
    /// JSON path of the offending field, like `items[2].iva`; empty when it concerns the whole document.
    pub path: String,
    /// Human-readable explanation (Spanish domain terms, English prose).
    pub message: String,
}

impl Finding {
    /// Builds a finding from its three parts.
    pub fn new(code: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Finding {
            code: code.to_string(),
            path: path.into(),
            message: message.into(),
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

    /// The fast read (no path) and the located one agree: valid input reads the same, anything else gets the located
    /// finding, trailing characters included.
    #[test]
    fn from_json_fast_reads_once_and_locates_problems() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct T {
            a: Vec<u8>,
        }
        assert_eq!(
            from_json_fast::<T>(r#"{"a":[1,2]}"#, "x").unwrap(),
            T { a: vec![1, 2] }
        );
        for bad in [
            r#"{"a":[1,300]}"#,
            r#"{"a":[]} x"#,
            r#"{"a":[],"b":1}"#,
            "{",
        ] {
            assert_eq!(
                from_json_fast::<T>(bad, "x").map_err(|u| u.findings),
                crate::shape::read::<T>(bad, "x").map_err(|u| u.findings),
                "{bad}"
            );
        }
        let f = from_json_fast::<T>(r#"{"a":[1,300]}"#, "x")
            .unwrap_err()
            .first();
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::OUT_OF_RANGE, "x.a[1]")
        );
        let f = from_json_fast::<T>(r#"{"a":[]} x"#, "x")
            .unwrap_err()
            .first();
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::MALFORMED_JSON, "x")
        );
    }

    #[test]
    fn json_findings_name_the_kind_of_problem() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct T {
            a: u8,
        }
        let read = |s: &str| from_json::<T>(s, "arg").unwrap_err();
        let f = read(r#"{"a":1"#);
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::MALFORMED_JSON, "arg")
        );
        let f = read("{}");
        assert_eq!(
            (f.code.as_str(), f.path.as_str(), f.message.as_str()),
            (code::REQUIRED, "arg.a", "is required")
        );
        assert_eq!(read(r#"{"a":1,"b":2}"#).code, code::NOT_ALLOWED);
        let f = read(r#"{"a":"x"}"#);
        assert_eq!(
            (f.code.as_str(), f.path.as_str(), f.message.as_str()),
            (
                code::INVALID_TYPE,
                "arg.a",
                "must be a whole number, found text"
            )
        );
    }
}

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
/// that the JSON readers of the `shape` module report that code: `serde::de::Error::custom(coded(code::INVALID_RUC, e))`.
pub fn coded(code: &str, message: impl fmt::Display) -> String {
    format!("{code}: {message}")
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
}

//! Structured findings and errors shared by every module: a stable code, the JSON path of the field, a message.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable error codes. They never change meaning once published; faces (C, WASM, bindings) expose them as strings.
pub mod code {
    /// A RUC is malformed or its check digit is wrong.
    pub const INVALID_RUC: &str = "INVALID_RUC";
    /// The stamp (timbrado) is missing, expired, not yet valid or does not cover the document type.
    pub const INVALID_TIMBRADO: &str = "INVALID_TIMBRADO";
    /// A CDC is malformed or its check digit is wrong.
    pub const INVALID_CDC: &str = "INVALID_CDC";
    /// Generic validation failure of a field (the message says which rule).
    pub const VALIDATION_ERROR: &str = "VALIDATION_ERROR";
    /// A required field is absent.
    pub const REQUIRED: &str = "VALIDATION_ERROR.REQUIRED";
    /// A field has the wrong JSON type or cannot be read (e.g. letters where a number goes).
    pub const INVALID_TYPE: &str = "VALIDATION_ERROR.INVALID_TYPE";
    /// A field is not in its allowed set of values (codes, enumerations).
    pub const INVALID_VALUE: &str = "VALIDATION_ERROR.INVALID_VALUE";
    /// A number is out of its allowed range (negative, zero, too many digits or decimals).
    pub const OUT_OF_RANGE: &str = "VALIDATION_ERROR.OUT_OF_RANGE";
    /// A text is too short, too long or has a bad format.
    pub const INVALID_FORMAT: &str = "VALIDATION_ERROR.INVALID_FORMAT";
    /// A field is present where the document type or another field forbids it.
    pub const NOT_ALLOWED: &str = "VALIDATION_ERROR.NOT_ALLOWED";
    /// Fields contradict each other (e.g. payments do not add up to the total).
    pub const INCONSISTENT: &str = "VALIDATION_ERROR.INCONSISTENT";
    /// The input is not valid JSON (or not UTF-8).
    pub const MALFORMED_JSON: &str = "MALFORMED_JSON";
    /// The input is not well-formed XML or not the expected SIFEN document.
    pub const MALFORMED_XML: &str = "MALFORMED_XML";
    /// The input exceeds a size or count limit.
    pub const TOO_LARGE: &str = "TOO_LARGE";
}

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

/// A failed `serde_path_to_error` read of JSON as one finding under `base`: bad syntax or a truncated input is
/// `MALFORMED_JSON`; a missing field `REQUIRED`, an unknown one `NOT_ALLOWED`, anything else `INVALID_TYPE`.
pub fn json_finding(e: serde_path_to_error::Error<serde_json::Error>, base: &str) -> Finding {
    let path = join_path(base, &json_path(&e.path().to_string()));
    let inner = e.into_inner();
    let message = inner.to_string();
    let code = if inner.is_syntax() || inner.is_eof() {
        code::MALFORMED_JSON
    } else if message.starts_with("missing field") {
        code::REQUIRED
    } else if message.starts_with("unknown field") {
        code::NOT_ALLOWED
    } else {
        code::INVALID_TYPE
    };
    Finding::new(code, path, message)
}

/// One problem found in an input: stable `code`, JSON `path` of the field (empty for the whole input), human `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

    #[test]
    fn json_findings_name_the_kind_of_problem() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct T {
            a: u8,
        }
        let read = |s: &str| {
            let de = &mut serde_json::Deserializer::from_str(s);
            serde_path_to_error::deserialize::<_, T>(de)
                .map_err(|e| json_finding(e, "arg"))
                .unwrap_err()
        };
        let f = read(r#"{"a":1"#);
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::MALFORMED_JSON, "arg")
        );
        assert_eq!(read("{}").code, code::REQUIRED);
        assert_eq!(read(r#"{"a":1,"b":2}"#).code, code::NOT_ALLOWED);
        let f = read(r#"{"a":"x"}"#);
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::INVALID_TYPE, "arg.a")
        );
    }
}

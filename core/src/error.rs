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

/// A failed `serde_path_to_error` read of JSON as one finding under `base` — the one JSON-error classifier every
/// entry point uses: bad syntax, a truncated input or invalid UTF-8 is `MALFORMED_JSON` (the message keeps the line
/// and column); a missing field `REQUIRED` at the field's own path; an unknown field `NOT_ALLOWED`; a value whose type
/// reports a registry code of its own (see [`coded`]) that code; anything else `INVALID_TYPE`.
pub fn json_finding(e: serde_path_to_error::Error<serde_json::Error>, base: &str) -> Finding {
    let path = join_path(base, &json_path(&e.path().to_string()));
    let inner = e.into_inner();
    if inner.is_syntax() || inner.is_eof() || inner.is_io() {
        // Where the text broke is worth saying, except past the nesting limit, where the path is only noise.
        let message = inner.to_string();
        let at = if message.starts_with("recursion limit exceeded") {
            base.to_string()
        } else {
            path
        };
        return Finding::new(code::MALFORMED_JSON, at, message);
    }
    let message = inner.to_string();
    let bare = strip_position(&message);
    if let Some(field) = quoted_after(bare, "missing field `") {
        let path = join_path(&path, field);
        return Finding::new(code::REQUIRED, path, format!("`{field}` is required"));
    }
    if bare.starts_with("unknown field `") {
        return Finding::new(code::NOT_ALLOWED, path, bare);
    }
    if let Some((c, rest)) = bare.split_once(": ") {
        if let Some((registered, _)) = code::ALL.iter().find(|(r, _)| *r == c) {
            return Finding::new(registered, path, rest);
        }
    }
    Finding::new(code::INVALID_TYPE, path, bare)
}

/// The message a `Deserialize` impl gives serde for a value that has a registry code of its own (a RUC, a CDC), so
/// that [`json_finding`] reports that code: `serde::de::Error::custom(coded(code::INVALID_RUC, e))`.
pub fn coded(code: &str, message: impl fmt::Display) -> String {
    format!("{code}: {message}")
}

/// Reads JSON text into `T`; any problem is one finding located under `base` (see [`json_finding`]).
pub fn from_json<T: serde::de::DeserializeOwned>(text: &str, base: &str) -> Result<T, Finding> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| json_finding(e, base))?;
    // Trailing characters after the value are a syntax error, as serde_json::from_str reports them.
    de.end()
        .map_err(|e| Finding::new(code::MALFORMED_JSON, base, e.to_string()))?;
    Ok(value)
}

/// [`from_json`] for the hot inputs of native hosts (a create request): tracking the path costs on every field and is
/// only needed to say where a problem is, so valid input (nearly all of it) is read once without it, and input that
/// fails is read again by [`from_json`] for the finding. Not in WebAssembly, whose package has a size budget (a second
/// deserializer per type) and whose validation as you type does not need the microseconds.
pub fn from_json_fast<T: serde::de::DeserializeOwned>(
    text: &str,
    base: &str,
) -> Result<T, Finding> {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    from_json(text, base)
}

/// Reads JSON bytes into `T`: invalid UTF-8 is `MALFORMED_JSON`, the rest as [`from_json`].
pub fn from_json_bytes<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    base: &str,
) -> Result<T, Finding> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Finding::new(
            code::MALFORMED_JSON,
            base,
            format!("input is not valid UTF-8 (byte {})", e.valid_up_to()),
        )
    })?;
    from_json(text, base)
}

/// Reads an already parsed JSON value into `T`, with the same findings as [`from_json`].
pub fn from_json_value<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    base: &str,
) -> Result<T, Finding> {
    serde_path_to_error::deserialize(value).map_err(|e| json_finding(e, base))
}

/// Drops serde_json's " at line L column C" suffix on data errors, which the path replaces.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => message.get(..i).unwrap_or(message),
        None => message,
    }
}

/// The name between `prefix` and the next backtick.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split('`').next()
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
            from_json_fast::<T>(r#"{"a":[1,2]}"#, "x"),
            Ok(T { a: vec![1, 2] })
        );
        for bad in [
            r#"{"a":[1,300]}"#,
            r#"{"a":[]} x"#,
            r#"{"a":[],"b":1}"#,
            "{",
        ] {
            assert_eq!(
                from_json_fast::<T>(bad, "x"),
                from_json::<T>(bad, "x"),
                "{bad}"
            );
        }
        let f = from_json_fast::<T>(r#"{"a":[1,300]}"#, "x").unwrap_err();
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::INVALID_TYPE, "x.a[1]")
        );
        let f = from_json_fast::<T>(r#"{"a":[]} x"#, "x").unwrap_err();
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
        let f = read("{}");
        assert_eq!(
            (f.code.as_str(), f.path.as_str(), f.message.as_str()),
            (code::REQUIRED, "arg.a", "`a` is required")
        );
        assert_eq!(read(r#"{"a":1,"b":2}"#).code, code::NOT_ALLOWED);
        let f = read(r#"{"a":"x"}"#);
        assert_eq!(
            (f.code.as_str(), f.path.as_str()),
            (code::INVALID_TYPE, "arg.a")
        );
    }
}

//! JSON input read with every shape problem at once: each missing field, value of the wrong type and unknown or
//! repeated field of a body, with its JSON path and a message in the project's words.
//!
//! The shape comes from one place, the serde types themselves: there is no second description to keep in step. The
//! input is read into the type by plain serde_json, once; only when that fails is it parsed into a [`Value`] (noting
//! repeated keys, which a `Value` would silently merge) and read again from its text; each problem serde reports is
//! recorded and its field set aside (an unknown or mistyped field removed, a missing or mistyped required one given a
//! stand-in), and the value is read again, until it reads. What did read is handed to the rules
//! ([`Unread::with_rules`]), so a bad RUC next to a missing field is reported in the same answer. A JSON Schema
//! validator would need a schema generated from the same types and a validator crate in the WebAssembly package,
//! which has no room for it; this pass adds no dependency and runs only when the plain read fails.
//!
//! Where a problem is comes from serde_json's position of it (`shape/locate.rs`), not from a path-tracking wrapper around
//! the read (serde_path_to_error, until issue 32): a wrapper is a second deserializer for every type, about 130 KB
//! of WebAssembly code. The differential test (`shape/differential.rs`) holds the two to the same findings.

use crate::error::{join_path, Finding, Findings};
use crate::rule;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Most shape findings collected from one input: each costs one more read of the value, so past this the reader
/// stops looking (and the rules are not run on the rest).
pub const MAX_SHAPE_FINDINGS: usize = 100;

/// The English message for a body that is not an object (`null`, a list, a number): rule `json.not_object`.
pub const NOT_AN_OBJECT: &str = "the request body must be a JSON object";

/// An input whose shape is wrong: every shape finding (never none) and, when the rest could still be read, that rest,
/// so that the rules can check the fields that are right ([`Unread::with_rules`]).
#[derive(Debug)]
pub struct Unread<T> {
    /// Every shape finding, in the order found.
    pub findings: Vec<Finding>,
    /// The value read with the wrong fields set aside, and the paths of those fields.
    rest: Option<Box<(T, Vec<String>)>>,
}

impl<T> Unread<T> {
    /// One finding about the whole input (unreadable JSON, a body too large): there is no rest to check.
    pub fn one(finding: Finding) -> Self {
        Unread {
            findings: vec![finding],
            rest: None,
        }
    }

    /// The shape findings followed by what `rules` finds in the readable rest, leaving out what it says at or under a
    /// field already reported (its stand-in would only repeat the finding).
    pub fn with_rules(self, rules: impl FnOnce(&T) -> Vec<Finding>) -> Vec<Finding> {
        let found = self.rest().map(rules).unwrap_or_default();
        self.merge(found)
    }

    /// What could be read, the wrong fields set aside (given stand-ins): for the rules, see [`Unread::merge`].
    pub fn rest(&self) -> Option<&T> {
        self.rest.as_deref().map(|(value, _)| value)
    }

    /// The shape findings followed by `rules`' findings over [`Unread::rest`], leaving out those at or under a field
    /// already reported.
    pub fn merge(self, rules: Vec<Finding>) -> Vec<Finding> {
        let mut out = self.findings;
        if let Some(rest) = self.rest {
            let set_aside = &rest.1;
            out.extend(
                rules
                    .into_iter()
                    .filter(|f| !set_aside.iter().any(|p| under(&f.path, p))),
            );
        }
        out
    }

    /// The first finding (for the callers that answer with one).
    pub fn first(mut self) -> Finding {
        self.findings.swap_remove(0)
    }
}

impl<T> From<Unread<T>> for Findings {
    fn from(u: Unread<T>) -> Self {
        Findings(u.findings)
    }
}

/// Reads JSON text into `T`; any problem is one finding located under `base`, in the words of this module (for
/// the inputs that answer with one; request bodies use [`read`] and report every finding).
pub fn from_json<T: serde::de::DeserializeOwned>(text: &str, base: &str) -> Result<T, Finding> {
    read_one(text, base)
}

/// [`read`] for the hot inputs (a create request): valid input (nearly all of it) is read once, by plain serde_json,
/// and input that fails is read again, tolerantly, for every finding. [`read`] itself does the same now that no read
/// tracks the path (see the module documentation); the name stays for its callers.
pub fn from_json_fast<T: serde::de::DeserializeOwned>(
    text: &str,
    base: &str,
) -> Result<T, Unread<T>> {
    read(text, base)
}

/// Reads JSON bytes into `T`: invalid UTF-8 is `MALFORMED_JSON`, the rest as [`from_json`].
pub fn from_json_bytes<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    base: &str,
) -> Result<T, Finding> {
    from_json(utf8(bytes, base)?, base)
}

/// Whether `path` is `field` or inside it (`items[0].iva` is inside `items[0]` and `items`, not inside `item`).
pub fn under(path: &str, field: &str) -> bool {
    field.is_empty()
        || path
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// Reads JSON text into `T`, reporting every shape problem located under `base`. Unreadable JSON (bad syntax, a
/// truncated input, trailing characters) is one `MALFORMED_JSON` finding whose message keeps the line and column.
pub fn read<T: DeserializeOwned>(text: &str, base: &str) -> Result<T, Unread<T>> {
    // Most input is right: one read of the text, as it always was; the tolerant pass only when that fails.
    if let Ok(value) = plain(text) {
        return Ok(value);
    }
    let (value, repeated) = parse(text, base).map_err(Unread::one)?;
    settle(value, base, repeated)
}

/// The one typed read of JSON text per type, trailing characters refused (`true` beside the error): [`read`]'s first
/// attempt (so [`from_json_fast`]'s), [`settle`]'s rounds and [`read_one`] all use it.
fn plain<T: DeserializeOwned>(text: &str) -> Result<T, (serde_json::Error, bool)> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = T::deserialize(&mut *de).map_err(|e| (e, false))?;
    de.end().map_err(|e| (e, true))?;
    Ok(value)
}

/// [`plain`], and where a failure is: `spaced` when the text is [`locate::spaced`] already (see [`locate`]).
fn located<T: DeserializeOwned>(text: &str, spaced: bool) -> Result<T, Failed> {
    #[cfg(test)]
    if oracle::on() {
        return oracle::located(text);
    }
    plain(text).map_err(|e| {
        where_failed(text, e, spaced, &|t: &str| {
            plain::<T>(t).err().map(|(e, _)| e)
        })
    })
}

/// Why a located read failed.
enum Failed {
    /// The value (or the text) is wrong at a path.
    Read(Located),
    /// Characters after the value.
    Trailing(serde_json::Error),
}

/// serde_json's error and the steps from the value read to the value it is about (for a repeated or missing field,
/// to the object that has it: the field is in the message).
struct Located {
    steps: Vec<Step>,
    error: serde_json::Error,
}

/// Where a failed [`plain`] read failed. A data error is placed from its position in the [`locate::spaced`] text
/// (read `again` when `text` is not); a syntax error at the value being read when the text broke, as [`broke_at`]
/// finds it.
fn where_failed(
    text: &str,
    (error, trailing): (serde_json::Error, bool),
    spaced: bool,
    again: &dyn Fn(&str) -> Option<serde_json::Error>,
) -> Failed {
    if trailing {
        return Failed::Trailing(error);
    }
    let at = |text: &str, e: &serde_json::Error| {
        let message = e.to_string();
        locate::path(
            text,
            locate::offset(text, e.line(), e.column()),
            strip_position(&message),
        )
    };
    let steps = if !error.is_data() {
        broke_at(text, &error).unwrap_or_else(|| at(text, &error))
    } else if spaced {
        at(text, &error)
    } else {
        let text = locate::spaced(text);
        again(&text).map(|e| at(&text, &e)).unwrap_or_default()
    };
    Failed::Read(Located { steps, error })
}

/// JSON text read into `T` with the first problem only, for inputs that answer with one (a profile, CDC fields):
/// the same findings and words as [`read`]'s, without its tolerant pass.
pub fn read_one<T: DeserializeOwned>(text: &str, base: &str) -> Result<T, Finding> {
    located(text, false).map_err(|e| one_finding(e, base))
}

/// The finding for a failed located read: unreadable text is `MALFORMED_JSON` located where it broke (at `base`
/// past the nesting limit, where the path is only noise); the rest as [`finding_for`] says it.
fn one_finding(e: Failed, base: &str) -> Finding {
    let Located { mut steps, error } = match e {
        Failed::Trailing(e) => return malformed(base, &e),
        Failed::Read(e) => e,
    };
    let message = error.to_string();
    if !error.is_data() {
        let at = if message.starts_with("recursion limit exceeded") {
            base.to_string()
        } else {
            path_text(base, &steps)
        };
        return malformed(at, &error);
    }
    let message = strip_position(&message);
    for (prefix, build) in [
        (
            "missing field `",
            rule::json_missing as fn(String) -> Finding,
        ),
        ("duplicate field `", rule::json_duplicate_field),
    ] {
        if let Some(field) = quoted_after(message, prefix) {
            steps.push(Step::Key(field.to_string()));
            return build(path_text(base, &steps));
        }
    }
    finding_for(base, &steps, message)
}

/// [`read`] for bytes: invalid UTF-8 is `MALFORMED_JSON`.
pub fn read_bytes<T: DeserializeOwned>(bytes: &[u8], base: &str) -> Result<T, Unread<T>> {
    read(utf8(bytes, base).map_err(Unread::one)?, base)
}

/// [`read`] for an already parsed value (whose repeated keys, if any, are gone already).
pub fn read_value<T: DeserializeOwned>(value: Value, base: &str) -> Result<T, Unread<T>> {
    settle(value, base, Vec::new())
}

/// The text of JSON bytes, or the `MALFORMED_JSON` finding for invalid UTF-8.
pub fn utf8<'a>(bytes: &'a [u8], base: &str) -> Result<&'a str, Finding> {
    std::str::from_utf8(bytes).map_err(|e| rule::json_utf8(base, e.valid_up_to()))
}

/// The `MALFORMED_JSON` finding for text serde_json could not parse, at `path`: its reason and where it broke.
fn malformed(path: impl Into<String>, e: &serde_json::Error) -> Finding {
    let message = e.to_string();
    rule::json_malformed(path, strip_position(&message), e.line(), e.column())
}

/// Repeated keys: where.
type Repeated = Vec<Vec<Step>>;

/// One step of a path into a value.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

fn path_text(base: &str, steps: &[Step]) -> String {
    steps.iter().fold(base.to_string(), |p, s| match s {
        Step::Key(k) => join_path(&p, k),
        Step::Index(i) => join_path(&p, &format!("[{i}]")),
    })
}

/// Stand-ins tried, in order, for a required field that is missing or of the wrong type: the first one the type
/// reads is kept (a number for numbers, text for text, an object for an object whose own fields get stand-ins…).
fn stand_in(n: usize) -> Option<Value> {
    Some(match n {
        0 => Value::from(0u8),
        1 => Value::from(""),
        2 => Value::Object(Map::new()),
        3 => Value::Array(Vec::new()),
        4 => Value::Bool(false),
        _ => return None,
    })
}

/// The read-record-set-aside loop of the module documentation.
fn settle<T: DeserializeOwned>(
    value: Value,
    base: &str,
    repeated: Repeated,
) -> Result<T, Unread<T>> {
    // Only this read is generic: the loop is one copy for every type (the WebAssembly package has a size budget).
    let mut read = None;
    let outcome = settle_with(
        value,
        base,
        repeated,
        &mut |text| match located::<T>(text, true) {
            Ok(t) => {
                read = Some(t);
                Ok(())
            }
            Err(Failed::Read(e)) => Err(e),
            // Not from the text serde_json writes; `read` stays empty and the outcome says so below.
            Err(Failed::Trailing(_)) => Ok(()),
        },
    );
    match (outcome, read) {
        (Ok(()), Some(t)) => Ok(t),
        (Err(u), t) => Err(Unread {
            findings: u.findings,
            rest: u.rest.zip(t).map(|(rest, t)| Box::new((t, rest.1))),
        }),
        (Ok(()), None) => Err(Unread::one(rule::json_no_value(base))),
    }
}

/// One read of the value's text into the type, see [`settle`].
type ReadText<'a> = dyn FnMut(&str) -> Result<(), Located> + 'a;

fn settle_with(
    mut value: Value,
    base: &str,
    repeated: Repeated,
    read: &mut ReadText<'_>,
) -> Result<(), Unread<()>> {
    let mut findings = Vec::new();
    // Relative paths (steps) of every field reported or replaced, and of the stand-ins with the candidate they hold.
    let mut set_aside: Vec<Vec<Step>> = Vec::new();
    let mut stand_ins: Vec<(Vec<Step>, usize)> = Vec::new();
    for steps in repeated {
        findings.push(rule::json_duplicate_field(path_text(base, &steps)));
        set_aside.push(steps);
    }
    let give_up = |findings: Vec<Finding>| {
        let mut findings = findings;
        if findings.is_empty() {
            findings.push(rule::json_unreadable(base));
        }
        Err(Unread {
            findings,
            rest: None,
        })
    };
    // Each round either reports a finding or moves a stand-in to its next candidate (at most five per field).
    for _ in 0..MAX_SHAPE_FINDINGS * 6 {
        // Read from text (serde_json's own, so always well-formed, spaced for `locate`): the reader every face
        // already links for these types, whose messages keep the number that does not fit (from a `Value` they only
        // say "invalid number").
        let e = match read(&locate::spaced(&value.to_string())) {
            Ok(()) if findings.is_empty() => return Ok(()),
            Ok(()) => {
                let set_aside = set_aside.iter().map(|s| path_text(base, s)).collect();
                return Err(Unread {
                    findings,
                    rest: Some(Box::new(((), set_aside))),
                });
            }
            Err(e) => e,
        };
        let Located { mut steps, error } = e;
        let message = error.to_string();
        let message = strip_position(&message);
        if findings.len() >= MAX_SHAPE_FINDINGS {
            return give_up(findings);
        }
        if let Some(field) = quoted_after(message, "missing field `") {
            steps.push(Step::Key(field.to_string()));
            // Not reported again when it was removed for its type, nor inside a stand-in (its parent is reported).
            if !set_aside.contains(&steps) && !inside(&stand_ins, &steps) {
                findings.push(rule::json_missing(path_text(base, &steps)));
            }
            if !put(&mut value, &steps, stand_in(0)) {
                return give_up(findings);
            }
            set_aside.push(steps.clone());
            stand_ins.push((steps, 0));
            continue;
        }
        if let Some(slot) = stand_ins.iter_mut().find(|(s, _)| *s == steps) {
            // The stand-in is of the wrong type: the next candidate.
            slot.1 += 1;
            let candidate = stand_in(slot.1);
            if candidate.is_none() || !put(&mut value, &steps, candidate) {
                return give_up(findings);
            }
            continue;
        }
        if inside(&stand_ins, &steps) {
            return give_up(findings);
        }
        findings.push(finding_for(base, &steps, message));
        if steps.is_empty() {
            // Not even the body is of the right kind: there is nothing to read further.
            return give_up(findings);
        }
        set_aside.push(steps.clone());
        match steps.last() {
            // A member is removed: if it is optional the rest reads, if required the next round gives it a stand-in.
            Some(Step::Key(_)) => {
                if !put(&mut value, &steps, None) {
                    return give_up(findings);
                }
            }
            _ => {
                if !put(&mut value, &steps, stand_in(0)) {
                    return give_up(findings);
                }
                stand_ins.push((steps, 0));
            }
        }
    }
    give_up(findings)
}

/// Whether `steps` is at or inside one of the stand-ins.
fn inside(stand_ins: &[(Vec<Step>, usize)], steps: &[Step]) -> bool {
    stand_ins.iter().any(|(s, _)| steps.starts_with(s))
}

/// Sets (or, with `None`, removes) the member or element at `steps`; false when its parent is not there.
fn put(value: &mut Value, steps: &[Step], new: Option<Value>) -> bool {
    let Some((last, parent)) = steps.split_last() else {
        return false;
    };
    let mut v = value;
    for s in parent {
        let next = match s {
            Step::Key(k) => v.get_mut(k),
            Step::Index(i) => v.get_mut(i),
        };
        match next {
            Some(n) => v = n,
            None => return false,
        }
    }
    match (last, v, new) {
        (Step::Key(k), Value::Object(m), Some(n)) => {
            m.insert(k.clone(), n);
            true
        }
        (Step::Key(k), Value::Object(m), None) => {
            // Rebuilt rather than `remove`d: insertion is in the package already, B-tree removal would add 3 KB.
            let before = m.len();
            for (key, v) in std::mem::take(m) {
                if key != *k {
                    m.insert(key, v);
                }
            }
            m.len() < before
        }
        (Step::Index(i), Value::Array(a), Some(n)) => match a.get_mut(*i) {
            Some(slot) => {
                *slot = n;
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// The finding for one serde complaint about the value at `steps`, in the project's words: no serde type
/// names (`u8`, `struct FacturaRequest`), what the field must be and what it is (catalog terms `must_*`, `found_*`).
fn finding_for(base: &str, steps: &[Step], message: &str) -> Finding {
    let path = path_text(base, steps);
    let root = steps.is_empty();
    if message.starts_with("unknown field `") {
        return rule::json_unknown_field(path);
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (unexpected, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let must = must_be(expected);
        return match (root, found_kind(unexpected)) {
            (true, _) if must == MUST_OBJECT => rule::json_not_object(path),
            (true, Some(k)) => rule::json_body_type(path, must, k),
            (true, None) => rule::json_body_type_any(path, must),
            (false, Some(k)) => rule::json_type(path, must, k),
            (false, None) => rule::json_type_any(path, must),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        let expected = rest.split_once(", expected ").map_or("", |(_, e)| e);
        return match whole_range(expected) {
            Some((lo, hi)) => rule::json_range(path, lo, hi),
            None => rule::json_value(path, must_be(expected)),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        // serde reads a struct from a list too, by position: a list where an object goes says so.
        let expected = rest.split_once(", expected ").map_or("", |(_, e)| e);
        return match must_be(expected) {
            MUST_OBJECT if root => rule::json_not_object(path),
            MUST_OBJECT => rule::json_type_any(path, MUST_OBJECT),
            _ => rule::json_length(path),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        // serde's "expected one of `a`, `b`" (or "`a` or `b`", "`a`"): the names without their quotes.
        let allowed = rest.split_once("expected ").map_or("", |(_, e)| e);
        let allowed = allowed.strip_prefix("one of ").unwrap_or(allowed);
        let names: Vec<&str> = allowed
            .split([',', '`'])
            .flat_map(|p| p.split(" or "))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        return rule::json_variant(path, &names);
    }
    // A finding of a registered rule (`crate::error::coded_rule`), else a message of our own `Deserialize` impls.
    crate::error::read_coded_rule(message, path.clone())
        .unwrap_or_else(|| rule::json_invalid(path, message))
}

/// What serde found (its `Unexpected`: `string "x"`, `integer `5``, `map`…), as a catalog term (`found_text`).
fn found_kind(unexpected: &str) -> Option<&'static str> {
    let word = unexpected.split([' ', '`']).next().unwrap_or("");
    Some(match word {
        "string" | "char" => "found_text",
        "integer" | "floating" => "found_number",
        "boolean" => "found_bool",
        "null" | "unit" | "Option" => "found_null",
        "sequence" => "found_list",
        "map" => "found_object",
        _ => return None,
    })
}

/// The term of an object where an object goes.
const MUST_OBJECT: &str = "must_object";

/// What a value must be, for serde's name of what it expected, as a catalog term (`must_text`).
fn must_be(expected: &str) -> &'static str {
    if whole_range(expected).is_some() {
        "must_whole_number"
    } else if matches!(expected, "f32" | "f64") {
        "must_number"
    } else if matches!(
        expected,
        "a string" | "a borrowed string" | "a character" | "a char"
    ) {
        "must_text"
    } else if expected == "a boolean" {
        "must_bool"
    } else if expected.starts_with("struct ") || expected.contains("map") {
        MUST_OBJECT
    } else if expected.contains("sequence")
        || expected.starts_with("tuple")
        || expected.contains("array")
    {
        "must_list"
    } else {
        "wrong_type"
    }
}

/// The range of serde's integer type names.
fn whole_range(expected: &str) -> Option<(i64, u64)> {
    Some(match expected {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX),
        "i8" => (i8::MIN.into(), i8::MAX.unsigned_abs().into()),
        "i16" => (i16::MIN.into(), i16::MAX.unsigned_abs().into()),
        "i32" => (i32::MIN.into(), i32::MAX.unsigned_abs().into()),
        "i64" | "isize" => (i64::MIN, i64::MAX.unsigned_abs()),
        _ => return None,
    })
}

/// A value's kind as a catalog term (`found_list`), for rule `json.type`'s `found`.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "found_null",
        Value::Bool(_) => "found_bool",
        Value::Number(_) => "found_number",
        Value::String(_) => "found_text",
        Value::Array(_) => "found_list",
        Value::Object(_) => "found_object",
    }
}

/// Drops serde_json's " at line L column C" suffix on data errors, which the path replaces.
pub(crate) fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => message.get(..i).unwrap_or(message),
        None => message,
    }
}

/// The name between `prefix` and the next backtick.
pub(crate) fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split('`').next()
}

/// The name serde_json gives the one-member map it hands a visitor for a number kept as text
/// (`arbitrary_precision`); `serde_json::Value`'s own visitor recognises it the same way.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// What the parse noted: repeated keys (path, message) and the path where the text broke; `entered`: that path is
/// the innermost value whose read had begun (see [`broke_at`]).
#[derive(Default)]
struct Notes {
    repeated: Repeated,
    broke_at: Option<Vec<Step>>,
    entered: bool,
}

/// The path where unreadable text broke, as a typed read of it places the break: the innermost value whose read
/// had begun (a member's after its `:`, an element's once something other than `]` follows `[` or `,`); `None`
/// when the text parses, or breaks otherwise than `e` says (a number too large for the type reads as a `Value`).
fn broke_at(text: &str, e: &serde_json::Error) -> Option<Vec<Step>> {
    let notes = RefCell::new(Notes {
        entered: true,
        ..Notes::default()
    });
    let de = &mut serde_json::Deserializer::from_str(text);
    let broke = Tracked {
        steps: Vec::new(),
        notes: &notes,
    }
    .deserialize(&mut *de)
    .err()?;
    let same = broke.to_string() == e.to_string();
    notes.into_inner().broke_at.filter(|_| same)
}

/// Parses JSON text into a [`Value`], noting every repeated key with its path, and the path where unreadable text
/// broke (as `MALFORMED_JSON` at that path; past the nesting limit at `base`, where the path is only noise).
fn parse(text: &str, base: &str) -> Result<(Value, Repeated), Finding> {
    let notes = RefCell::new(Notes::default());
    let de = &mut serde_json::Deserializer::from_str(text);
    let parsed = Tracked {
        steps: Vec::new(),
        notes: &notes,
    }
    .deserialize(&mut *de)
    .and_then(|v| de.end().map(|()| v));
    let notes = notes.into_inner();
    match parsed {
        Ok(value) => Ok((value, notes.repeated)),
        Err(e) => {
            let message = e.to_string();
            let at = match notes.broke_at {
                Some(steps) if !message.starts_with("recursion limit exceeded") => {
                    path_text(base, &steps)
                }
                _ => base.to_string(),
            };
            Err(malformed(at, &e))
        }
    }
}

/// A [`Value`] read at `steps`, see [`parse`].
struct Tracked<'a> {
    steps: Vec<Step>,
    notes: &'a RefCell<Notes>,
}

impl Tracked<'_> {
    fn child(&self, step: Step) -> Self {
        let mut steps = self.steps.clone();
        steps.push(step);
        Tracked {
            steps,
            notes: self.notes,
        }
    }

    /// The first (innermost) place where the text broke.
    fn broke<E>(&self, steps: &[Step], e: E) -> E {
        let mut notes = self.notes.borrow_mut();
        if notes.broke_at.is_none() && !notes.entered {
            notes.broke_at = Some(steps.to_vec());
        }
        e
    }
}

impl<'de> DeserializeSeed<'de> for Tracked<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if !self.notes.borrow().entered {
            return d.deserialize_any(self);
        }
        let (notes, steps) = (self.notes, self.steps.clone());
        d.deserialize_any(self).inspect_err(|_| {
            let mut notes = notes.borrow_mut();
            if notes.broke_at.is_none() {
                notes.broke_at = Some(steps);
            }
        })
    }
}

impl<'de> Visitor<'de> for Tracked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let child = self.child(Step::Index(out.len()));
            let steps = child.steps.clone();
            match seq.next_element_seed(child) {
                Ok(Some(v)) => out.push(v),
                Ok(None) => return Ok(Value::Array(out)),
                Err(e) => return Err(self.broke(&steps, e)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut first = true;
        loop {
            let key: String = match map.next_key() {
                Ok(Some(k)) => k,
                Ok(None) => return Ok(Value::Object(out)),
                Err(e) => return Err(self.broke(&self.steps, e)),
            };
            if first && key == NUMBER_TOKEN {
                // A number, as its exact text (looking for a break, a member: as a typed read places it).
                let text: String = if self.notes.borrow().entered {
                    match map.next_value_seed(self.child(Step::Key(key)))? {
                        Value::String(s) => s,
                        _ => String::new(),
                    }
                } else {
                    map.next_value()?
                };
                return text
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .map_err(de::Error::custom);
            }
            first = false;
            let child = self.child(Step::Key(key.clone()));
            let steps = child.steps.clone();
            let v = match map.next_value_seed(child) {
                Ok(v) => v,
                Err(e) => return Err(self.broke(&steps, e)),
            };
            if out.contains_key(&key) {
                let mut notes = self.notes.borrow_mut();
                if !notes.repeated.contains(&steps) {
                    notes.repeated.push(steps);
                }
            } else {
                out.insert(key, v);
            }
        }
    }
}

#[cfg(test)]
mod differential;
mod locate;
#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;

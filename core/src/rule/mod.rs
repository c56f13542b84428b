//! The registry of rule ids: every check that can produce a [`Finding`](crate::Finding) has a stable id (`ruc.check_digit`), one
//! registry code and typed parameters, so that a host can render its own text and the catalogs
//! (`core/locales/<lang>/<group>.ftl`, [`crate::msg`]) can render ours. An id is never renamed, renumbered or reused;
//! parameters may be added, never removed, renamed or retyped (docs/errors.md, "Rules").
//!
//! Each group lives in its own file with one `rules!` block, which generates for every rule a constant
//! ([`RuleDef`]), a typed builder (`rule::ruc_check_digit(path, expected, got) -> Finding`: the compiler checks the
//! parameters at every call site) and the group's `ALL` list; [`ALL`] chains the groups.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// The rule of a finding without one, read back from JSON written before rules: its text is its `message`, it has no
/// parameters and no catalog entry, and it is not written on the wire. Nothing builds one: every finding comes from a
/// rule's builder.
pub const UNCLASSIFIED: &str = "unclassified";

/// How a parameter's value is written on the wire (always as text, in machine form) and rendered in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number, digits with an optional `-` (`"3"`); rendered as is (counts go through a plural select).
    Int,
    /// A decimal number in `fmt::dec` form (`"1234.5"`); rendered with Paraguay's separators in es-PY.
    Dec,
    /// An amount in `fmt::dec` form; rendered with its currency, taken from the rule's `moneda` parameter
    /// (`Gs. 1.100.000`, `USD 1.234,56`).
    Money,
    /// A percentage in `fmt::dec` form (`"10"`); rendered `10 %` in es-PY, `10%` in English.
    Percent,
    /// A date `YYYY-MM-DD`; rendered `dd/mm/aaaa`.
    Date,
    /// A date and time `YYYY-MM-DDTHH:MM:SS`; rendered `dd/mm/aaaa hh:mm`.
    DateTime,
    /// Text echoed from the input or a field name, never translated.
    Text,
    /// The id of a catalog term (`whole_number`), rendered as the term's text in the message's language.
    Term,
    /// A list of values (an array of strings on the wire), rendered joined by `, `.
    List,
    /// The id of another rule whose message is rendered in its place, with the finding's other parameters (a CDC
    /// whose embedded RUC is wrong says why with the RUC rule).
    Rule,
}

impl Kind {
    /// The kind's name as docs/errors.md and `rules.json` write it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Dec => "dec",
            Kind::Money => "money",
            Kind::Percent => "percent",
            Kind::Date => "date",
            Kind::DateTime => "datetime",
            Kind::Text => "text",
            Kind::Term => "term",
            Kind::List => "list",
            Kind::Rule => "rule",
        }
    }
}

/// One registered rule: its id, the registry code of its findings, its parameters with a sample value each (for the
/// catalog checks and `tests/fixtures/messages.json`), and what it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleDef {
    /// The stable id, `domain.subject.check` (2–4 lowercase `[a-z0-9_]` segments).
    pub id: &'static str,
    /// The registry code every finding of this rule carries.
    pub code: &'static str,
    /// The parameters in declaration order: name and kind.
    pub params: &'static [(&'static str, Kind)],
    /// A sample value in wire form for each parameter (`tests/fixtures/messages.json`, the catalog checks); not in the
    /// WebAssembly build.
    #[cfg(not(target_family = "wasm"))]
    pub samples: &'static [&'static str],
    /// What the rule checks (its doc comment); not in the WebAssembly build, which has no use for it.
    #[cfg(not(target_family = "wasm"))]
    pub doc: &'static str,
}

impl RuleDef {
    /// The kind of parameter `name`, if the rule has it.
    pub fn kind(&self, name: &str) -> Option<Kind> {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
    }
}

/// One parameter of a finding's rule on the wire: a string, or a list of strings for a `list` parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "FindingParam"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "FindingParam")
)]
pub enum Param {
    /// Every kind but a list.
    One(String),
    /// A `list` parameter.
    List(Vec<String>),
}

impl Param {
    /// The value as one text (a list joined by `, `).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Param::One(s) => s.as_str().into(),
            Param::List(l) => l.join(", ").into(),
        }
    }
}

/// Read by hand rather than `#[serde(untagged)]`, whose buffering of the value costs the WebAssembly package
/// kilobytes.
impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Param;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Param, E> {
                Ok(Param::One(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Param, E> {
                Ok(Param::One(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Param, A::Error> {
                let mut list = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    list.push(s);
                }
                Ok(Param::List(list))
            }
        }
        d.deserialize_any(V)
    }
}

/// A finding's parameters by name, in machine form (`{"expected": "1", "got": "2"}`), in the rule's order. A list
/// rather than a map: a finding has a handful, and a map's code would cost the WebAssembly package kilobytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Params(Vec<(Cow<'static, str>, Param)>);

impl Params {
    /// No parameters.
    pub const fn new() -> Self {
        Params(Vec::new())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&Param> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Sets parameter `name` (replacing its value if it has one).
    pub fn insert(&mut self, name: impl Into<Cow<'static, str>>, value: Param) {
        let name = name.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    /// The parameters in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Param)> {
        self.0.iter().map(|(n, v)| (n.as_ref(), v))
    }
}

impl std::ops::Index<&str> for Params {
    type Output = Param;
    /// The value of parameter `name`; panics when there is none (tests).
    fn index(&self, name: &str) -> &Param {
        self.get(name)
            .unwrap_or_else(|| panic!("no parameter {name}"))
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (n, v) in &self.0 {
            map.serialize_entry(n.as_ref(), v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of parameters")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
                let mut p = Params::new();
                while let Some((k, v)) = map.next_entry::<String, Param>()? {
                    p.insert(k, v);
                }
                Ok(p)
            }
        }
        d.deserialize_map(V)
    }
}

/// A whole number a builder takes for an [`Kind::Int`] parameter.
pub trait Integer: fmt::Display + Arg {}
macro_rules! integer {
    ($($t:ty),*) => { $(impl Integer for $t {})* };
}
integer!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The Rust type a builder takes for a parameter of each kind.
macro_rules! rule_arg {
    (Int) => { impl $crate::rule::Integer };
    (Dec) => { rust_decimal::Decimal };
    (Money) => { rust_decimal::Decimal };
    (Percent) => { rust_decimal::Decimal };
    (Date) => { time::Date };
    (DateTime) => { time::PrimitiveDateTime };
    (Text) => { &str };
    (Term) => { &'static str };
    (List) => { &[&str] };
    (Rule) => { &'static $crate::rule::RuleDef };
}

/// A builder's argument: its parameter's value in wire form. One implementation per Rust type, shared by every
/// builder (a builder passes `&dyn Arg`s), so a rule costs the WebAssembly package a few bytes of code.
pub trait Arg {
    /// The wire form.
    fn wire(&self) -> Param;
}

macro_rules! arg_display {
    ($($t:ty),*) => { $(impl Arg for $t { fn wire(&self) -> Param { Param::One(self.to_string()) } })* };
}
arg_display!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, &str);

impl Arg for rust_decimal::Decimal {
    fn wire(&self) -> Param {
        Param::One(crate::fmt::dec(*self))
    }
}

impl Arg for time::Date {
    fn wire(&self) -> Param {
        Param::One(crate::fmt::date(*self))
    }
}

impl Arg for time::PrimitiveDateTime {
    fn wire(&self) -> Param {
        Param::One(crate::fmt::datetime(*self))
    }
}

impl Arg for &[&str] {
    fn wire(&self) -> Param {
        Param::List(self.iter().map(|s| s.to_string()).collect())
    }
}

impl Arg for &'static RuleDef {
    fn wire(&self) -> Param {
        Param::One(self.id.to_string())
    }
}

/// Declares a group of rules: for each, a [`RuleDef`] constant, a typed builder returning a [`Finding`](crate::Finding), and the
/// group's `ALL`.
///
/// ```text
/// rules! {
///     /// The RUC's check digit does not match its body.
///     ruc_check_digit / RUC_CHECK_DIGIT = "ruc.check_digit" => INVALID_RUC { expected: Int = "1", got: Int = "2" };
/// }
/// ```
macro_rules! rules {
    ($(
        $(#[doc = $doc:literal])+
        $build:ident / $name:ident = $id:literal => $code:ident { $($p:ident : $k:ident = $sample:literal),* $(,)? };
    )*) => {
        $(
            $(#[doc = $doc])+
            pub const $name: &$crate::rule::RuleDef = &$crate::rule::RuleDef {
                id: $id,
                code: $crate::code::$code,
                params: &[$((stringify!($p), $crate::rule::Kind::$k)),*],
                #[cfg(not(target_family = "wasm"))]
                samples: &[$($sample),*],
                #[cfg(not(target_family = "wasm"))]
                doc: concat!($($doc),+),
            };

            $(#[doc = $doc])+
            #[allow(clippy::too_many_arguments)]
            pub fn $build(path: impl Into<String>, $($p: rule_arg!($k)),*) -> $crate::error::Finding {
                $crate::rule::build($name, path.into(), &[$(&$p as &dyn $crate::rule::Arg),*])
            }
        )*

        /// Every rule of this group.
        pub const ALL: &[&$crate::rule::RuleDef] = &[$($name),*];
    };
}

mod amount;
mod api;
mod archive;
mod arg;
mod calc;
mod code;
mod event;
mod face;
mod host;
mod ids;
mod items;
mod json;
mod kude;
mod numbering;
mod pagos;
mod panel;
mod qr;
mod receptor;
mod request;
mod sifen;
mod sign;
mod storage;
mod text;
mod totals;
mod transporte;
mod webhook;
mod xml;
pub use amount::*;
pub use api::*;
pub use archive::*;
pub use arg::*;
pub use calc::*;
pub use code::*;
pub use event::*;
pub use face::*;
pub use host::*;
pub use ids::*;
pub use items::*;
pub use json::*;
pub use kude::*;
pub use numbering::*;
pub use pagos::*;
pub use panel::*;
pub use qr::*;
pub use receptor::*;
pub use request::*;
pub use sifen::*;
pub use sign::*;
pub use storage::*;
pub use text::*;
pub use totals::*;
pub use transporte::*;
pub use webhook::*;
pub use xml::*;

/// The groups of rules, one per file of this module.
pub const GROUPS: &[&[&RuleDef]] = &[
    ids::ALL,
    text::ALL,
    amount::ALL,
    code::ALL,
    request::ALL,
    receptor::ALL,
    items::ALL,
    pagos::ALL,
    transporte::ALL,
    totals::ALL,
    api::ALL,
    xml::ALL,
    sign::ALL,
    sifen::ALL,
    event::ALL,
    kude::ALL,
    webhook::ALL,
    storage::ALL,
    host::ALL,
    panel::ALL,
    json::ALL,
    calc::ALL,
    numbering::ALL,
    qr::ALL,
    face::ALL,
    archive::ALL,
    arg::ALL,
];

const fn count(groups: &[&[&RuleDef]]) -> usize {
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        n += groups[g].len();
        g += 1;
    }
    n
}

const fn chain<const N: usize>(groups: &[&[&'static RuleDef]]) -> [&'static RuleDef; N] {
    let mut out: [&'static RuleDef; N] = [ids::RUC_EMPTY; N];
    let (mut i, mut g) = (0, 0);
    while g < groups.len() {
        let mut j = 0;
        while j < groups[g].len() {
            out[i] = groups[g][j];
            i += 1;
            j += 1;
        }
        g += 1;
    }
    out
}

/// Every registered rule, all groups chained, in declaration order.
pub const ALL: &[&RuleDef] = &chain::<{ count(GROUPS) }>(GROUPS);

/// The registry as JSON, `[{"rule","code","params":[{"name","kind"}]}]` in [`ALL`]'s order: what every face's
/// `rules()` answers and `tests/fixtures/rules.json` records, so a host can write its own text from a finding's
/// `rule` and `params`.
pub fn all_json() -> String {
    let list: Vec<serde_json::Value> = ALL
        .iter()
        .map(|r| {
            let params: Vec<serde_json::Value> = r
                .params
                .iter()
                .map(|(name, kind)| serde_json::json!({"name": name, "kind": kind.name()}))
                .collect();
            serde_json::json!({"rule": r.id, "code": r.code, "params": params})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The rule with id `id`.
pub fn find(id: &str) -> Option<&'static RuleDef> {
    FOUND.iter().copied().find(|r| r.id == id)
}

/// The rules [`find`] knows: all of them.
#[cfg(not(feature = "light-catalog"))]
const FOUND: &[&RuleDef] = ALL;

/// The rules [`find`] knows with feature `light-catalog` (`kuatia/validate`): the groups whose messages that build has
/// (tools/codegen/catalog `LIGHT_GROUPS`; `msg` tests check the two lists agree), so it does not link the others'.
#[cfg(feature = "light-catalog")]
const FOUND: &[&RuleDef] = &chain::<{ count(LIGHT) }>(LIGHT);

/// The groups of [`FOUND`] with feature `light-catalog`.
#[cfg(feature = "light-catalog")]
const LIGHT: &[&[&RuleDef]] = &[
    ids::ALL,
    text::ALL,
    amount::ALL,
    code::ALL,
    request::ALL,
    receptor::ALL,
    items::ALL,
    pagos::ALL,
    transporte::ALL,
    totals::ALL,
    json::ALL,
    calc::ALL,
    arg::ALL,
];

/// A builder's finding: `values` are the parameters' wire forms in the rule's order. Not generic, so that each
/// builder is a few instructions (the WebAssembly package pays for every builder).
#[inline(never)]
pub fn build(def: &'static RuleDef, path: String, values: &[&dyn Arg]) -> crate::Finding {
    let params = def.params.iter().zip(values);
    let params = params.map(|((n, _), v)| (Cow::Borrowed(*n), v.wire()));
    crate::Finding::of(def, path, Params(params.collect()))
}

/// A finding of rule `def` with wire-form `params` (a builder's result, or parameters read back from JSON).
pub fn finding(def: &'static RuleDef, path: impl Into<String>, params: Params) -> crate::Finding {
    crate::Finding::of(def, path, params)
}

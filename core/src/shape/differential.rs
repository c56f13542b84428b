//! The position scanner ([`super::locate`]) against the reader it replaced ([`super::oracle`], serde_path_to_error):
//! every reader of the crate that goes through this module gives the same findings (code, path, message, rule,
//! params) both ways, on the requests of tests/fixtures/cases, the corpora of the JSON fuzz targets, this module's
//! own cases, and mutations of valid inputs (each value made each wrong kind, removed, repeated, an unknown member
//! added to each object, the text cut short or spoiled), compact and pretty-printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::oracle;
use crate::cdc::{Cdc, CdcFields};
use crate::error::Finding;
use crate::profile::Emisor;
use crate::sifen::event::{input_from_json, inputs_from_json, signed_events_from_json};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Inner {
    n: u8,
    s: String,
    #[serde(default)]
    o: Option<u16>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Outer {
    a: u8,
    inner: Inner,
    list: Vec<Inner>,
    #[serde(default)]
    flag: bool,
}

type Reader = fn(&str) -> Option<Vec<Finding>>;

fn now() -> time::PrimitiveDateTime {
    time::macros::datetime!(2025-03-10 10:11:00)
}

/// Every reader compared: request bodies (every finding, with the rules' over the rest), the inputs that answer
/// with one finding, the events (read part by part from a `Value`).
const READERS: [(&str, Reader); 10] = [
    ("read_request", |t| {
        crate::invoice::read_request(t).err().map(|u| u.findings)
    }),
    ("validate_json", |t| {
        Some(crate::validate::validate_json(t, &Emisor::sandbox(), now()).errors)
    }),
    ("read_one FacturaRequest", |t| {
        super::read_one::<crate::invoice::FacturaRequest>(t, "arg")
            .err()
            .map(|f| vec![f])
    }),
    ("Emisor::from_json", |t| {
        Emisor::from_json(t).err().map(|f| vec![f])
    }),
    ("CdcFields::from_json", |t| {
        CdcFields::from_json(t).err().map(|f| vec![f])
    }),
    ("input_from_json", |t| input_from_json(t).err().map(|f| f.0)),
    ("inputs_from_json", |t| {
        inputs_from_json(t, Some(now())).err().map(|f| f.0)
    }),
    ("signed_events_from_json", |t| {
        signed_events_from_json(t).err().map(|f| f.0)
    }),
    ("read Outer", |t| {
        super::read::<Outer>(t, "x").err().map(|u| u.findings)
    }),
    ("read_one Outer", |t| {
        super::read_one::<Outer>(t, "x").err().map(|f| vec![f])
    }),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    out.sort();
    out
}

/// The values of `v` by path (the root excluded), parents before children.
fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    let children: Vec<(Value, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, c)| (json!(k), c)).collect(),
        Value::Array(a) => a.iter().enumerate().map(|(i, c)| (json!(i), c)).collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        at.push(step);
        out.push(at.clone());
        paths(child, at, out);
        at.pop();
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        Value::String(k) => v.get_mut(k.as_str()),
        Value::Number(i) => v.get_mut(i.as_u64()? as usize),
        _ => None,
    })
}

/// The wrong values tried at every place.
fn wrong() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(300),
        json!(70000),
        json!(12345678901234567890u64),
        json!(""),
        json!("x"),
        json!("2025-13-45"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"k": 1}),
    ]
}

/// Mutations of a valid input (see the module documentation), each as text.
fn mutations(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let sentinel = "\u{1}repeat\u{1}";
    for path in &all {
        let (last, parent) = path.split_last().unwrap();
        for w in wrong() {
            let mut m = v.clone();
            *get_mut(&mut m, path).unwrap() = w;
            out.push(m.to_string());
        }
        let mut m = v.clone();
        match (get_mut(&mut m, parent).unwrap(), last) {
            (Value::Object(o), Value::String(k)) => {
                let was = o.remove(k).unwrap();
                out.push(m.to_string());
                // The member repeated, with its own value and with a wrong one.
                for again in [was.clone(), json!("x")] {
                    let mut m = v.clone();
                    *get_mut(&mut m, path).unwrap() = json!(sentinel);
                    let key = serde_json::to_string(k).unwrap();
                    let text = m.to_string().replace(
                        &serde_json::to_string(sentinel).unwrap(),
                        &format!("{was},{key}:{again}"),
                    );
                    out.push(text);
                }
            }
            (Value::Array(a), Value::Number(i)) => {
                a.remove(i.as_u64().unwrap() as usize);
                out.push(m.to_string());
            }
            _ => {}
        }
    }
    // An unknown member in every object, the root's included.
    for path in std::iter::once(&Vec::new()).chain(&all) {
        for (key, extra) in [("zz_unknown", json!(1)), ("aa_unknown", json!({"x": [1]}))] {
            let mut m = v.clone();
            if let Some(Value::Object(o)) = get_mut(&mut m, path) {
                o.insert(key.into(), extra);
                out.push(m.to_string());
            }
        }
    }
    // The text cut short and spoiled, at a spread of places.
    let text = v.to_string();
    let step = (text.len() / 40).max(1);
    for at in (0..text.len()).step_by(step) {
        if text.is_char_boundary(at) {
            out.push(text[..at].to_string());
            out.push(format!("{}x{}", &text[..at], &text[at..]));
            out.push(format!("{}}}{}", &text[..at], &text[at..]));
        }
    }
    out.push(format!("{text} x"));
    out
}

/// The valid inputs mutated: a few requests of tests/fixtures/cases, a profile, CDC fields, events, an `Outer`.
fn seeds() -> Vec<Value> {
    let mut out = Vec::new();
    for (i, f) in files(&root().join("tests/fixtures/cases"))
        .iter()
        .enumerate()
    {
        if i % 6 == 0 {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            out.push(case["request"].clone());
        }
    }
    out.push(serde_json::to_value(Emisor::sandbox()).unwrap());
    let cdc = Cdc::parse("01444444017001001000000122025031011234567890").unwrap();
    out.push(serde_json::to_value(cdc.fields()).unwrap());
    let cdc = cdc.as_str();
    for event in [
        json!({"id": 1, "fecha_firma": "2025-03-11T09:00:00", "tipo": "cancelacion", "cdc": cdc,
               "motivo": "Error en datos del receptor"}),
        json!([{"id": 1, "fecha_firma": "2025-03-11T09:00:00", "tipo": "inutilizacion",
                "timbrado": 12345678, "establecimiento": "001", "punto": "001", "desde": 1, "hasta": 3,
                "tipo_documento": 1, "motivo": "Salto de numeracion"}]),
        json!({"id": 2, "fecha_firma": "2025-03-11T09:00:00", "tipo": "nominacion", "cdc": cdc,
               "receptor": {"ruc": "80069563-1", "razon_social": "Cliente"}}),
        json!([{"id": "1", "kind": "cancelacion", "cdc": cdc, "xml": "<rGesEve/>"}]),
    ] {
        out.push(event);
    }
    out.push(json!({"a": 1, "inner": {"n": 2, "s": "x"}, "list": [{"n": 3, "s": "y", "o": 7}, {"n": 4, "s": "z"}],
                    "flag": true}));
    out
}

/// The findings of both readers agree. One difference is allowed: unreadable text inside a member the type skips
/// (an unknown member of a type that allows them) is `MALFORMED_JSON` where the text broke, as the tolerant reader
/// of request bodies always said it, not at the member (serde_path_to_error does not follow a skipped value).
fn same(new: Option<&[Finding]>, old: Option<&[Finding]>) -> bool {
    match (new, old) {
        (Some(new), Some(old)) => {
            new.len() == old.len()
                && new.iter().zip(old).all(|(n, o)| {
                    n == o
                        || (n.code == crate::error::code::MALFORMED_JSON
                            && super::under(&n.path, &o.path)
                            && Finding {
                                path: o.path.clone(),
                                ..n.clone()
                            } == *o)
                })
        }
        (new, old) => new == old,
    }
}

/// Inputs read both ways: how many, and the first differences.
#[test]
fn the_scanner_places_every_finding_where_serde_path_to_error_did() {
    let mut inputs: Vec<String> = Vec::new();
    for f in files(&root().join("tests/fixtures/cases")) {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        inputs.push(case["request"].to_string());
        inputs.push(serde_json::to_string_pretty(&case["request"]).unwrap());
    }
    for target in ["create_request", "event_json"] {
        for f in files(&root().join("fuzz/corpus").join(target)) {
            inputs.push(String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned());
        }
    }
    inputs.extend(super::tests::CASES.iter().map(|s| s.to_string()));
    for seed in seeds() {
        let m = mutations(&seed);
        // Every fourth mutation also pretty-printed (whitespace and lines in the positions), when it still parses.
        for (i, text) in m.iter().enumerate() {
            if i % 4 == 0 {
                if let Ok(v) = serde_json::from_str::<Value>(text) {
                    inputs.push(serde_json::to_string_pretty(&v).unwrap());
                }
            }
        }
        inputs.extend(m);
    }
    let mut differences = Vec::new();
    let mut compared = 0;
    for text in &inputs {
        for (name, reader) in READERS {
            let new = reader(text);
            let old = oracle::with(|| reader(text));
            compared += 1;
            if !same(new.as_deref(), old.as_deref()) {
                differences.push(format!("{name} on {text}\n  new {new:?}\n  old {old:?}"));
            }
        }
    }
    if let Ok(out) = std::env::var("KUATIA_SHAPE_DIFF_OUT") {
        // Every difference, for a closer look.
        std::fs::write(out, differences.join("\n")).unwrap();
    }
    assert!(inputs.len() > 10_000, "{} inputs", inputs.len());
    assert!(
        differences.is_empty(),
        "{} of {compared} reads of {} inputs differ; the first:\n{}",
        differences.len(),
        inputs.len(),
        differences[..differences.len().min(15)].join("\n")
    );
    eprintln!("{} inputs, {compared} reads compared", inputs.len());
}

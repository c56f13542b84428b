//! One error vocabulary: the registry (`kuatia_core::code::ALL`) is the only list of codes. docs/errors.md, the C
//! header's documentation of `kuatia_error_codes` and `tests/fixtures/codes.json` (which every binding's `codes()`
//! is compared with) must name exactly its codes, and no face may answer with a code literal of its own.
//! `KUATIA_BLESS=1` rewrites docs/errors.md's table and codes.json from the registry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::code;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn registry() -> BTreeSet<String> {
    code::ALL.iter().map(|(c, _)| c.to_string()).collect()
}

fn is_code(token: &str) -> bool {
    token.len() > 3
        && token
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
        && token.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
}

const TABLE_START: &str = "<!-- registry:start -->";
const TABLE_END: &str = "<!-- registry:end -->";

fn table() -> String {
    let mut t = String::from("| Code | Meaning |\n|---|---|\n");
    for (c, d) in code::ALL {
        t.push_str(&format!("| `{c}` | {} |\n", d.trim().replace('|', "\\|")));
    }
    t
}

#[test]
fn docs_errors_table_is_the_registry() {
    let path = root().join("docs/errors.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = text
        .split_once(TABLE_START)
        .expect("docs/errors.md has the registry markers");
    let (_, tail) = rest.split_once(TABLE_END).unwrap();
    let want = format!("{head}{TABLE_START}\n{}{TABLE_END}{tail}", table());
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(
        text, want,
        "docs/errors.md differs from the registry: run with KUATIA_BLESS=1"
    );
}

#[test]
fn codes_json_fixture_is_the_registry() {
    let path = root().join("tests/fixtures/codes.json");
    let want: serde_json::Value = serde_json::from_str(&code::all_json()).unwrap();
    let want = serde_json::to_string_pretty(&want).unwrap() + "\n";
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
}

#[test]
fn the_c_header_documents_exactly_the_registry() {
    let header = std::fs::read_to_string(root().join("include/kuatia.h")).unwrap();
    let at = header
        .find("kuatia_error_codes(")
        .expect("kuatia_error_codes in the header");
    let before = &header[..at];
    let doc_start = before.rfind("/**").unwrap();
    let doc = &before[doc_start..];
    let named: BTreeSet<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| is_code(t))
        .map(String::from)
        .collect();
    assert_eq!(named, registry());
}

/// The crates whose findings reach a reader: the guards below read their sources.
const SOURCES: [&str; 7] = [
    "core/src",
    "service/src",
    "ffi/src",
    "wasm/src",
    "cli/src",
    "server/src",
    "panel/src",
];

/// The Rust source files below `dirs` (relative to the workspace), each with its path relative to the workspace
/// and its text before the first `#[cfg(test)]`: the code the guards below read.
fn non_test_sources(dirs: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in dirs {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let rel = p
                        .strip_prefix(root())
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    let text = std::fs::read_to_string(&p).unwrap();
                    let body = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                    out.push((rel, body));
                }
            }
        }
    }
    out
}

/// Every code a face returns is a registry constant: no `err(404, "X")`, `Finding::new("X", …)` or
/// `Error::new(…, "X", …)` with a literal.
#[test]
fn no_face_answers_with_a_literal_code() {
    let mut offenders = Vec::new();
    for (rel, body) in non_test_sources(&SOURCES) {
        for (i, line) in body.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") || l.starts_with("assert") {
                continue;
            }
            // A code alone on its line, as an argument of a call spread over lines.
            if let Some(lit) = l.strip_prefix('"').and_then(|r| r.strip_suffix("\",")) {
                if code::is_registered(lit) {
                    offenders.push(format!("{rel}:{}: {lit}", i + 1));
                }
            }
            for pat in [
                "Finding::new(\"",
                "err(400, \"",
                "err(401, \"",
                "err(403, \"",
                "err(404, \"",
                "err(405, \"",
                "err(409, \"",
                "err(422, \"",
                "err(500, \"",
                "err(502, \"",
                "err(503, \"",
                "Error::new(kuatia_status::Panic, \"",
                "Error::new(kuatia_status::InvalidArgument, \"",
            ] {
                if let Some(k) = line.find(pat) {
                    let lit = &line[k + pat.len()..];
                    let lit = lit.split('"').next().unwrap_or("");
                    if is_code(lit) {
                        offenders.push(format!("{rel}:{}: {lit}", i + 1));
                    }
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "literal codes (use kuatia_core::code):\n{}",
        offenders.join("\n")
    );
}

/// No finding outside tests is built from a sentence (issue 32): every message comes from a catalog by rule id, so
/// a finding is built by its rule's builder (`rule::ruc_check_digit(path, …)`), never by `Finding::new(code, path,
/// text)`, `ApiError::new(status, code, text)` or a `Finding { … }` literal with a `message` of its own. Test modules
/// (after `#[cfg(test)]`, or files named `tests.rs`/`*_tests.rs`) may; `core/src/error.rs` defines the type.
#[test]
fn no_finding_is_built_from_a_sentence() {
    let mut offenders = Vec::new();
    for (rel, body) in non_test_sources(&SOURCES) {
        let name = rel.rsplit('/').next().unwrap_or("");
        if name == "tests.rs" || name.ends_with("_tests.rs") || rel == "core/src/error.rs" {
            continue;
        }
        for (i, line) in body.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            for pat in ["Finding::new(", "ApiError::new(", "Finding {"] {
                let literal = pat == "Finding {"
                    && !(l.starts_with("Finding {") || line.contains("= Finding {"));
                if line.contains(pat) && !literal {
                    offenders.push(format!("{rel}:{}: {}", i + 1, l));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "findings built from a sentence (use the rule's builder, kuatia_core::rule):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn every_code_a_finding_names_in_the_fixtures_is_registered() {
    let dir = root().join("tests/fixtures/cases");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for f in v["expected"]["errors"].as_array().into_iter().flatten() {
            let c = f["code"].as_str().unwrap();
            assert!(code::is_registered(c), "{}: {c}", p.display());
        }
    }
}

/// The doc comment of `kuatia_error_codes` in the C ABI's source (cbindgen copies it into the header, whose drift
/// `scripts/ffi-check.sh` checks) lists the registry; `KUATIA_BLESS=1` rewrites it.
#[test]
fn the_c_abi_source_lists_the_registry() {
    let path = root().join("ffi/src/abi.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find("/// The registry of error codes every face returns")
        .expect("the kuatia_error_codes doc comment");
    let end = start + text[start..].find("///\n/// # Safety").unwrap();
    let mut words = String::from(
        "The registry of error codes every face returns, as JSON `[{\"code\",\"description\"}]` (core's `code::ALL`), \
         into `out_json`. Every code:",
    );
    let list: Vec<String> = code::ALL.iter().map(|(c, _)| format!("`{c}`")).collect();
    words.push(' ');
    words.push_str(&list.join(", "));
    words.push('.');
    let mut doc = String::new();
    let mut line = String::from("///");
    for w in words.split(' ') {
        if line.len() + 1 + w.len() > 116 {
            doc.push_str(&line);
            doc.push('\n');
            line = String::from("///");
        }
        line.push(' ');
        line.push_str(w);
    }
    doc.push_str(&line);
    doc.push('\n');
    let want = format!("{}{doc}{}", &text[..start], &text[end..]);
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(
        text, want,
        "ffi/src/abi.rs: run with KUATIA_BLESS=1, then regenerate the header"
    );
}

// ---- Rules (issue 32): ids, parameters, catalogs ----------------------------------------------------------------

use kuatia_core::msg::{self, Lang};
use kuatia_core::rule::{self, Kind, Param, Params, RuleDef};

/// The domains a rule id may start with (docs/plans/issue-32.md §2.1).
const DOMAINS: &[&str] = &[
    "json",
    "text",
    "amount",
    "code",
    "date",
    "ruc",
    "cdc",
    "qr",
    "geo",
    "request",
    "receptor",
    "items",
    "pagos",
    "credito",
    "asociado",
    "transporte",
    "totals",
    "calc",
    "timbrado",
    "xml",
    "sign",
    "cert",
    "sifen",
    "event",
    "numbering",
    "api",
    "webhook",
    "panel",
    "storage",
    "host",
    "kude",
    "cli",
    "archive",
];

#[test]
fn rule_ids_are_well_formed_unique_and_coded() {
    let mut seen = BTreeSet::new();
    for r in rule::ALL {
        let segments: Vec<&str> = r.id.split('.').collect();
        assert!(
            (2..=4).contains(&segments.len()),
            "{}: 2 to 4 segments",
            r.id
        );
        assert!(
            segments.iter().all(|s| !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')),
            "{}: lowercase [a-z0-9_] segments",
            r.id
        );
        assert!(DOMAINS.contains(&segments[0]), "{}: unknown domain", r.id);
        assert!(seen.insert(r.id), "{} is registered twice", r.id);
        assert!(
            code::is_registered(r.code),
            "{}: {} is not a registry code",
            r.id,
            r.code
        );
        assert!(!r.doc.trim().is_empty(), "{}: no doc comment", r.id);
        assert_eq!(rule::find(r.id), Some(*r));
    }
    assert_eq!(
        rule::ALL.len(),
        rule::GROUPS.iter().map(|g| g.len()).sum::<usize>()
    );
}

/// Every rule has a message in every language, using exactly its parameters; no catalog has a message of a rule the
/// registry lacks.
#[test]
fn every_rule_has_both_messages_with_the_same_params() {
    for r in rule::ALL {
        let declared: BTreeSet<String> = r.params.iter().map(|(n, _)| n.to_string()).collect();
        for lang in Lang::ALL {
            let m = msg::message(lang, r.id)
                .unwrap_or_else(|| panic!("{}: no {} message (core/locales)", r.id, lang.tag()));
            let mut used: BTreeSet<String> =
                msg::variables(m).into_iter().map(String::from).collect();
            // A money parameter is written with the currency of the rule's `moneda` parameter (msg::format).
            if r.params.iter().any(|(_, k)| *k == Kind::Money) {
                used.insert("moneda".into());
            }
            assert_eq!(
                used,
                declared,
                "{} ({}): the message's variables are not the rule's params",
                r.id,
                lang.tag()
            );
        }
    }
    for lang in Lang::ALL {
        {
            for id in msg::message_ids(lang) {
                assert!(
                    rule::find(id).is_some(),
                    "{} catalog: {id} is not a registered rule",
                    lang.tag()
                );
            }
        }
    }
}

/// A rule's sample parameters, with the samples of the rule a `Rule` parameter names.
fn sample(r: &RuleDef) -> Params {
    let mut params = Params::new();
    assert_eq!(
        r.samples.len(),
        r.params.len(),
        "{}: a sample per parameter",
        r.id
    );
    for ((name, kind), value) in r.params.iter().zip(r.samples) {
        params.insert(name.to_string(), Param::One(value.to_string()));
        if *kind == Kind::Rule {
            let inner = rule::find(value)
                .unwrap_or_else(|| panic!("{}: {name} = {value} is not a rule", r.id));
            for ((n, _), v) in inner.params.iter().zip(inner.samples) {
                params.insert(n.to_string(), Param::One(v.to_string()));
            }
        }
        if *kind == Kind::Term {
            for lang in Lang::ALL {
                assert!(
                    msg::term(lang, value).is_some(),
                    "{}: no {} term -{value}",
                    r.id,
                    lang.tag()
                );
            }
        }
    }
    params
}

/// `tests/fixtures/messages.json`: every rule's sample rendered in es and en, which every face renders too, and
/// `kuatia-catalog --check` compares with fluent-bundle.
#[test]
fn messages_json_fixture_is_every_rule_rendered() {
    let mut all = Vec::new();
    for r in rule::ALL {
        let params = sample(r);
        let es = msg::render(Lang::EsPy, r, &params);
        let en = msg::render(Lang::En, r, &params);
        for text in [&es, &en] {
            assert!(
                !text.contains("{$") && !text.contains(['\u{2068}', '\u{2069}']),
                "{}: {text}",
                r.id
            );
        }
        // A message made only of its parameters and punctuation (`api.finding`: `{ $code }: { $message }`) has no
        // words to translate.
        let words = |m: &str| {
            let mut rest = m;
            let mut letters = false;
            while !rest.is_empty() {
                let (text, after) = rest.split_once('\u{1}').unwrap_or((rest, ""));
                letters |= text.chars().any(char::is_alphabetic);
                rest = after.split_once('\u{2}').map_or("", |(_, r)| r);
            }
            letters
        };
        if words(msg::message(Lang::En, r.id).unwrap_or_default()) {
            assert_ne!(es, en, "{}: the Spanish message is the English one", r.id);
        }
        let f = rule::finding(r, "x", params.clone());
        assert_eq!((f.code.as_str(), f.rule.as_ref()), (r.code, r.id));
        all.push(serde_json::json!({"rule": r.id, "params": params, "es": es, "en": en}));
    }
    let want = serde_json::to_string_pretty(&all).unwrap() + "\n";
    let path = root().join("tests/fixtures/messages.json");
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        want,
        "run with KUATIA_BLESS=1"
    );
}

/// What every face's `rules()` answers (`rule::all_json`, read as JSON), checked against `rule::ALL` here.
fn rules_json() -> Vec<serde_json::Value> {
    let list: Vec<serde_json::Value> = serde_json::from_str(&rule::all_json()).unwrap();
    assert_eq!(list.len(), rule::ALL.len());
    for (r, j) in rule::ALL.iter().zip(&list) {
        assert_eq!(
            (j["rule"].as_str(), j["code"].as_str()),
            (Some(r.id), Some(r.code))
        );
        let names: Vec<_> = j["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        let kinds: Vec<_> = j["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            r.params.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            "{}",
            r.id
        );
        assert_eq!(
            kinds,
            r.params.iter().map(|(_, k)| k.name()).collect::<Vec<_>>(),
            "{}",
            r.id
        );
    }
    list
}

/// `tests/fixtures/rules.json` is append-only: a published rule keeps its id, code and parameters (more may be
/// added); `KUATIA_BLESS=1` rewrites it from the registry but never drops or changes one.
#[test]
fn rules_json_fixture_is_the_registry_and_only_grows() {
    let path = root().join("tests/fixtures/rules.json");
    let want = rules_json();
    let committed: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or_default();
    for old in &committed {
        let id = old["rule"].as_str().unwrap();
        let now = want.iter().find(|r| r["rule"] == id).unwrap_or_else(|| {
            panic!("rule {id} was published and is gone (retire it, never delete it)")
        });
        assert_eq!(now["code"], old["code"], "rule {id} changed its code");
        let now_params = now["params"].as_array().unwrap();
        for p in old["params"].as_array().unwrap() {
            assert!(
                now_params.contains(p),
                "rule {id} lost or retyped its parameter {p}"
            );
        }
    }
    let text = serde_json::to_string_pretty(&want).unwrap() + "\n";
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        text,
        "run with KUATIA_BLESS=1"
    );
}

const RULES_START: &str = "<!-- rules:start -->";
const RULES_END: &str = "<!-- rules:end -->";

fn rules_table() -> String {
    let mut t = String::from("| Rule | Code | Parameters | Checks |\n|---|---|---|---|\n");
    for r in rule::ALL {
        let params: Vec<String> = r
            .params
            .iter()
            .map(|(n, k)| format!("`{n}`: {}", k.name()))
            .collect();
        t.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            r.id,
            r.code,
            params.join(", "),
            r.doc.trim().replace('|', "\\|")
        ));
    }
    t
}

#[test]
fn docs_errors_rules_table_is_the_registry() {
    let path = root().join("docs/errors.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = text
        .split_once(RULES_START)
        .expect("docs/errors.md has the rules markers");
    let (_, tail) = rest.split_once(RULES_END).unwrap();
    let want = format!("{head}{RULES_START}\n{}{RULES_END}{tail}", rules_table());
    if std::env::var("KUATIA_BLESS").is_ok() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(
        text, want,
        "docs/errors.md differs from the rules registry: run with KUATIA_BLESS=1"
    );
}

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

/// Every code a face returns is a registry constant: no `err(404, "X")`, `Finding::new("X", …)` or
/// `Error::new(…, "X", …)` with a literal.
#[test]
fn no_face_answers_with_a_literal_code() {
    let mut offenders = Vec::new();
    for dir in [
        "core/src",
        "service/src",
        "ffi/src",
        "wasm/src",
        "cli/src",
        "server/src",
    ] {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let body = text.split("#[cfg(test)]").next().unwrap_or("");
                for (i, line) in body.lines().enumerate() {
                    let l = line.trim_start();
                    if l.starts_with("//") || l.starts_with("assert") {
                        continue;
                    }
                    // A code alone on its line, as an argument of a call spread over lines.
                    if let Some(lit) = l.strip_prefix('"').and_then(|r| r.strip_suffix("\",")) {
                        if code::is_registered(lit) {
                            offenders.push(format!("{}:{}: {lit}", p.display(), i + 1));
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
                                offenders.push(format!("{}:{}: {lit}", p.display(), i + 1));
                            }
                        }
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

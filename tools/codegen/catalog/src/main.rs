//! `kuatia-catalog`: compiles the message catalogs `core/locales/<lang>/<group>.ftl` (Project Fluent) into the static
//! tables `core/src/msg/gen/<group>.rs` (and `gen/mod.rs`), which kuatia-core renders without a Fluent runtime.
//!
//! The FTL subset: text, `{ $variable }`, `{ -term }` (inlined; terms are also listed for `Term` parameters),
//! `{ "literal" }`, and a select on a variable with identifier or number keys. Anything else (attributes, functions,
//! message references, nested selects) is refused, so that the tables mean what Fluent means.
//!
//! `kuatia-catalog` writes the tables; `kuatia-catalog --check` fails when they differ from the catalogs (drift,
//! scripts/ffi-check.sh) and renders every message through `fluent-bundle` (the reference implementation, bidi
//! isolation off) to compare with the tables' reading: once per combination of its select arms with a marker for
//! every other variable, and once with each rule's sample parameters from `tests/fixtures/messages.json`, whose
//! texts kuatia-core's renderer wrote.

use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};
use fluent_syntax::ast;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Groups whose messages are texts of their own module, not rules: kept out of `catalogs()` (the rules' lookup, which
/// every face links), each read through a function of its name in `gen/mod.rs`, and without variables.
/// `sifen_codes`: what SIFEN's response codes mean and their usual fix (`sifen::describe`).
const TEXTS: [&str; 1] = ["sifen_codes"];

/// The languages, as directory names under core/locales and the constants of the generated tables.
const LANGS: [(&str, &str); 2] = [("es-PY", "ES_PY"), ("en", "EN")];

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Var(String),
    Select(String, Vec<(String, Vec<Piece>)>, Vec<Piece>),
}

/// One language's catalog of one group: rule id → pieces, term id → text.
#[derive(Default)]
struct Catalog {
    messages: BTreeMap<String, Vec<Piece>>,
    terms: BTreeMap<String, Vec<Piece>>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    match run(&root, check) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kuatia-catalog: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(root: &Path, check: bool) -> Result<(), String> {
    let locales = root.join("core/locales");
    let gen_dir = root.join("core/src/msg/gen");
    let mut groups = BTreeSet::new();
    for (dir, _) in LANGS {
        for e in read_dir(&locales.join(dir))? {
            if let Some(stem) = e.strip_suffix(".ftl") {
                groups.insert(stem.to_string());
            }
        }
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let mut stale = Vec::new();
    for group in &groups {
        let mut catalogs = Vec::new();
        for (dir, _) in LANGS {
            let path = locales.join(dir).join(format!("{group}.ftl"));
            let source = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "{}: {e} (every group has a catalog per language)",
                    path.display()
                )
            })?;
            let catalog = compile(&source).map_err(|e| format!("{}: {e}", path.display()))?;
            if TEXTS.contains(&group.as_str()) {
                if let Some(id) = catalog.messages.iter().find_map(|(id, p)| {
                    p.iter().any(|p| !matches!(p, Piece::Text(_))).then_some(id)
                }) {
                    return Err(format!("{}: {id}: a text group's messages have no variables", path.display()));
                }
            }
            if check {
                oracle(dir, &source, &catalog).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            catalogs.push(catalog);
        }
        files.push((
            gen_dir.join(format!("{group}.rs")),
            group_file(group, &catalogs)?,
        ));
    }
    files.push((gen_dir.join("mod.rs"), mod_file(&groups)));
    if check {
        let written: BTreeSet<String> = read_dir(&gen_dir)?.into_iter().collect();
        let wanted: BTreeSet<String> = files
            .iter()
            .filter_map(|(p, _)| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for extra in written.difference(&wanted) {
            stale.push(format!("core/src/msg/gen/{extra} has no catalog"));
        }
        for (path, text) in &files {
            if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
                stale.push(format!("{} is stale", path.display()));
            }
        }
        samples(root)?;
        if !stale.is_empty() {
            return Err(format!(
                "{}: run cargo run --manifest-path tools/codegen/Cargo.toml -p kuatia-catalog",
                stale.join("; ")
            ));
        }
        println!(
            "kuatia-catalog: {} groups match their catalogs; fluent-bundle agrees",
            groups.len()
        );
    } else {
        std::fs::create_dir_all(&gen_dir).map_err(|e| e.to_string())?;
        for (path, text) in &files {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        println!(
            "kuatia-catalog: wrote {} files under core/src/msg/gen",
            files.len()
        );
    }
    Ok(())
}

fn read_dir(dir: &Path) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        names.push(e.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Parses one FTL file into pieces, refusing what the subset does not have.
fn compile(source: &str) -> Result<Catalog, String> {
    let resource = fluent_syntax::parser::parse(source)
        .map_err(|(_, errors)| format!("FTL syntax: {errors:?}"))?;
    let mut raw_terms = BTreeMap::new();
    for entry in &resource.body {
        if let ast::Entry::Term(t) = entry {
            if !t.attributes.is_empty() {
                return Err(format!("-{}: attributes are not supported", t.id.name));
            }
            raw_terms.insert(t.id.name.to_string(), &t.value);
        }
    }
    let mut cat = Catalog::default();
    for (name, pattern) in &raw_terms {
        let pieces = pattern_pieces(pattern, &raw_terms, 0).map_err(|e| format!("-{name}: {e}"))?;
        cat.terms.insert(name.clone(), pieces);
    }
    for entry in &resource.body {
        match entry {
            ast::Entry::Message(m) => {
                let name = m.id.name;
                if !m.attributes.is_empty() {
                    return Err(format!("{name}: attributes are not supported"));
                }
                if name.contains('.') || name.starts_with('-') {
                    return Err(format!("{name}: not a rule id written with '-' for '.'"));
                }
                let pattern = m
                    .value
                    .as_ref()
                    .ok_or_else(|| format!("{name}: no value"))?;
                let pieces =
                    pattern_pieces(pattern, &raw_terms, 0).map_err(|e| format!("{name}: {e}"))?;
                let id = name.replace('-', ".");
                if cat.messages.insert(id, pieces).is_some() {
                    return Err(format!("{name}: defined twice"));
                }
            }
            ast::Entry::Junk { content } => return Err(format!("unparsed text: {content:?}")),
            _ => {}
        }
    }
    Ok(cat)
}

type Terms<'s> = BTreeMap<String, &'s ast::Pattern<&'s str>>;

fn pattern_pieces(
    p: &ast::Pattern<&str>,
    terms: &Terms<'_>,
    depth: u8,
) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    for el in &p.elements {
        match el {
            ast::PatternElement::TextElement { value } => {
                // The tables mark variables and selects with control characters, and a message is one line.
                if value.chars().any(char::is_control) {
                    return Err("a message is one line of text without control characters".into());
                }
                push_text(&mut out, value)
            }
            ast::PatternElement::Placeable { expression } => match expression {
                ast::Expression::Inline(inline) => inline_pieces(&mut out, inline, terms, depth)?,
                ast::Expression::Select { selector, variants } => {
                    let ast::InlineExpression::VariableReference { id } = selector else {
                        return Err("a select must be on a variable".into());
                    };
                    let mut arms = Vec::new();
                    let mut default = None;
                    for v in variants {
                        let key = match &v.key {
                            ast::VariantKey::Identifier { name } => name.to_string(),
                            ast::VariantKey::NumberLiteral { value } => value.to_string(),
                        };
                        if !matches!(key.as_str(), "one" | "other")
                            && !key
                                .bytes()
                                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                        {
                            return Err(format!("select key [{key}] is not supported"));
                        }
                        let value = pattern_pieces(&v.value, terms, depth)?;
                        if value.iter().any(|p| matches!(p, Piece::Select(..))) {
                            return Err("nested selects are not supported".into());
                        }
                        if v.default {
                            default = Some(value.clone());
                        }
                        arms.push((key, value));
                    }
                    let default = default.ok_or("a select needs a default arm")?;
                    out.push(Piece::Select(id.name.to_string(), arms, default));
                }
            },
        }
    }
    Ok(out)
}

fn inline_pieces(
    out: &mut Vec<Piece>,
    inline: &ast::InlineExpression<&str>,
    terms: &Terms<'_>,
    depth: u8,
) -> Result<(), String> {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            out.push(Piece::Var(id.name.to_string()))
        }
        ast::InlineExpression::StringLiteral { value } if !value.contains('\\') => {
            push_text(out, value)
        }
        ast::InlineExpression::TermReference {
            id,
            attribute: None,
            arguments: None,
        } if depth < 4 => {
            let t = terms
                .get(id.name)
                .ok_or_else(|| format!("-{} is not defined", id.name))?;
            for p in pattern_pieces(t, terms, depth + 1)? {
                match p {
                    Piece::Text(s) => push_text(out, &s),
                    p => out.push(p),
                }
            }
        }
        ast::InlineExpression::Placeable { expression } => match expression.as_ref() {
            ast::Expression::Inline(i) => inline_pieces(out, i, terms, depth)?,
            ast::Expression::Select { .. } => {
                return Err("a select inside a placeable is not supported".into())
            }
        },
        other => return Err(format!("not in kuatia's FTL subset: {other:?}")),
    }
    Ok(())
}

fn push_text(out: &mut Vec<Piece>, s: &str) {
    if s.is_empty() {
        return;
    }
    if let Some(Piece::Text(last)) = out.last_mut() {
        last.push_str(s);
    } else {
        out.push(Piece::Text(s.to_string()));
    }
}

/// A message in the tables' text form (kuatia_core::msg::Catalog): text as is, `U+0001 name U+0002` for a variable,
/// `U+0003 name U+0004 (key U+0005 arm U+0006)… U+0007` for a select, the default arm's key marked with `*`.
fn encode(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(v) => {
                let _ = write!(out, "\u{1}{v}\u{2}");
            }
            Piece::Select(v, arms, default) => {
                let _ = write!(out, "\u{3}{v}\u{4}");
                for (k, a) in arms {
                    let star = if a == default { "*" } else { "" };
                    let _ = write!(out, "{star}{k}\u{5}{}\u{6}", encode(a));
                }
                out.push('\u{7}');
            }
        }
    }
    out
}

/// Records `id U+001F body U+001E` in one text, and where each starts (sorted by id, as the map is).
fn records<'a>(
    items: impl Iterator<Item = (&'a String, String)>,
) -> Result<(String, Vec<u16>), String> {
    let (mut text, mut starts) = (String::new(), Vec::new());
    for (id, body) in items {
        starts.push(
            u16::try_from(text.len())
                .map_err(|_| "a group's catalog passed 64 KiB: split the group")?,
        );
        let _ = write!(text, "{id}\u{1f}{body}\u{1e}");
    }
    Ok((text, starts))
}

fn term_text(pieces: &[Piece]) -> Option<String> {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn group_file(group: &str, catalogs: &[Catalog]) -> Result<String, String> {
    let mut s = format!(
        "//! Generated by kuatia-catalog (tools/codegen/catalog) from core/locales/*/{group}.ftl: do not edit; run\n\
         //! `cargo run --manifest-path tools/codegen/Cargo.toml -p kuatia-catalog`.\n\n\
         use crate::msg::Catalog;\n"
    );
    for ((dir, name), cat) in LANGS.iter().zip(catalogs) {
        let (messages, message_starts) =
            records(cat.messages.iter().map(|(id, p)| (id, encode(p))))?;
        let (terms, term_starts) = records(
            cat.terms
                .iter()
                .filter_map(|(id, p)| Some((id, term_text(p)?))),
        )?;
        let _ = write!(
            s,
            "\n/// The `{group}` messages in {dir}.\npub const {name}: Catalog = Catalog {{\n    \
             messages: {messages:?},\n    message_starts: &{message_starts:?},\n    \
             terms: {terms:?},\n    term_starts: &{term_starts:?},\n}};\n"
        );
    }
    Ok(s)
}

/// The groups whose rules request validation, totals, RUC and CDC can emit: the only catalogs of kuatia-core's
/// `light-catalog` build (`kuatia/validate`). scripts/wasm-check.sh checks that its build links none of the code that
/// emits the other groups (XML, signatures, QR, SIFEN, events, numbering, KuDE, the service).
const LIGHT_GROUPS: &[&str] = &[
    "amount",
    "arg",
    "calc",
    "code",
    "ids",
    "items",
    "json",
    "pagos",
    "receptor",
    "request",
    "text",
    "totals",
    "transporte",
];

fn mod_file(groups: &BTreeSet<String>) -> String {
    let mut s = String::from(
        "//! Generated by kuatia-catalog (tools/codegen/catalog) from core/locales: do not edit; run\n\
         //! `cargo run --manifest-path tools/codegen/Cargo.toml -p kuatia-catalog`.\n\n",
    );
    for g in groups {
        if !LIGHT_GROUPS.contains(&g.as_str()) {
            s.push_str("#[cfg_attr(feature = \"light-catalog\", allow(dead_code))]\n");
        }
        let _ = writeln!(s, "#[rustfmt::skip]\nmod {g};");
    }
    s.push_str("\nuse super::{Catalog, Lang};\n");
    let light: Vec<&String> = groups
        .iter()
        .filter(|g| LIGHT_GROUPS.contains(&g.as_str()))
        .collect();
    for (doc, cfg, list) in [
        (
            "The compiled catalogs of `lang`, one per group.",
            "not(feature = \"light-catalog\")",
            groups.iter().filter(|g| !TEXTS.contains(&g.as_str())).collect(),
        ),
        (
            "The compiled catalogs of `lang` of the groups request validation, totals, RUC and CDC emit (feature\n/// `light-catalog`, the `kuatia/validate` build): a finding of another group renders as its rule id.",
            "feature = \"light-catalog\"",
            light,
        ),
    ] {
        let _ = write!(s, "\n/// {doc}\n#[cfg({cfg})]\n#[rustfmt::skip]\npub fn catalogs(lang: Lang) -> &'static [Catalog] {{\n    match lang {{\n");
        for ((_, name), variant) in LANGS.iter().zip(["EsPy", "En"]) {
            let list: Vec<String> = list.iter().map(|g| format!("{g}::{name}")).collect();
            let _ = writeln!(s, "        Lang::{variant} => &[{}],", list.join(", "));
        }
        s.push_str("    }\n}\n");
    }
    for g in groups.iter().filter(|g| TEXTS.contains(&g.as_str())) {
        let _ = write!(
            s,
            "\n/// The `{g}` texts of `lang` (not rules: read by their own module).\n#[rustfmt::skip]\npub fn {g}(lang: Lang) -> &'static Catalog {{\n    match lang {{\n"
        );
        for ((_, name), variant) in LANGS.iter().zip(["EsPy", "En"]) {
            let _ = writeln!(s, "        Lang::{variant} => &{g}::{name},");
        }
        s.push_str("    }\n}\n");
    }
    s
}

/// The tables' reading of a message, as kuatia-core renders it (an exact key, then the plural category `one` for 1,
/// then the default arm); a variable's value is written as given.
fn interpret(pieces: &[Piece], args: &BTreeMap<String, String>, out: &mut String) {
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(v) => match args.get(v) {
                Some(x) => out.push_str(x),
                None => {
                    let _ = write!(out, "{{${v}}}");
                }
            },
            Piece::Select(v, arms, default) => {
                let value = args.get(v).map(String::as_str).unwrap_or("");
                let category = value.parse::<f64>().ok().map(|n| {
                    if n == 1.0 && !value.contains('.') {
                        "one"
                    } else {
                        "other"
                    }
                });
                let arm = arms
                    .iter()
                    .find(|(k, _)| k == value)
                    .or_else(|| arms.iter().find(|(k, _)| Some(k.as_str()) == category))
                    .map_or(default, |(_, a)| a);
                interpret(arm, args, out);
            }
        }
    }
}

fn vars(
    pieces: &[Piece],
    out: &mut BTreeSet<String>,
    selectors: &mut BTreeMap<String, Vec<String>>,
) {
    for p in pieces {
        match p {
            Piece::Text(_) => {}
            Piece::Var(v) => {
                out.insert(v.clone());
            }
            Piece::Select(v, arms, default) => {
                out.insert(v.clone());
                let mut keys: Vec<String> = arms
                    .iter()
                    .map(|(k, _)| match k.as_str() {
                        "one" => "1".into(),
                        "other" => "2".into(),
                        k => k.to_string(),
                    })
                    .collect();
                keys.push("7".into());
                selectors.entry(v.clone()).or_default().extend(keys);
                for (_, a) in arms {
                    vars(a, out, selectors);
                }
                vars(default, out, selectors);
            }
        }
    }
}

fn bundle(lang: &str, source: &str) -> Result<FluentBundle<FluentResource>, String> {
    let langid: unic_langid::LanguageIdentifier =
        lang.parse().map_err(|e| format!("{lang}: {e:?}"))?;
    let resource = FluentResource::try_new(source.to_string())
        .map_err(|(_, e)| format!("fluent-bundle: {e:?}"))?;
    let mut b = FluentBundle::new(vec![langid]);
    b.set_use_isolating(false);
    b.add_resource(resource)
        .map_err(|e| format!("fluent-bundle: {e:?}"))?;
    Ok(b)
}

fn fluent_value(v: &str) -> FluentValue<'static> {
    match v.parse::<f64>() {
        Ok(n)
            if !v.is_empty()
                && v.bytes()
                    .all(|b| b.is_ascii_digit() || b == b'-' || b == b'.') =>
        {
            FluentValue::from(n)
        }
        _ => FluentValue::from(v.to_string()),
    }
}

fn format(
    b: &FluentBundle<FluentResource>,
    id: &str,
    args: &BTreeMap<String, String>,
) -> Result<String, String> {
    let msg = b
        .get_message(&id.replace('.', "-"))
        .ok_or_else(|| format!("{id}: fluent-bundle has no such message"))?;
    let pattern = msg.value().ok_or_else(|| format!("{id}: no value"))?;
    let mut fargs = FluentArgs::new();
    for (k, v) in args {
        fargs.set(k.clone(), fluent_value(v));
    }
    let mut errors = Vec::new();
    let text = b
        .format_pattern(pattern, Some(&fargs), &mut errors)
        .into_owned();
    if !errors.is_empty() {
        return Err(format!("{id}: fluent-bundle: {errors:?}"));
    }
    Ok(text)
}

/// Every message rendered by fluent-bundle and by the tables' reading, for every combination of its select arms.
fn oracle(lang: &str, source: &str, cat: &Catalog) -> Result<(), String> {
    let b = bundle(lang, source)?;
    for (id, pieces) in &cat.messages {
        let mut names = BTreeSet::new();
        let mut selectors = BTreeMap::new();
        vars(pieces, &mut names, &mut selectors);
        let mut combos: Vec<BTreeMap<String, String>> = vec![names
            .iter()
            .map(|n| (n.clone(), format!("<{n}>")))
            .collect()];
        for (sel, keys) in &selectors {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    keys.iter().map(move |k| {
                        let mut c = c.clone();
                        c.insert(sel.clone(), k.clone());
                        c
                    })
                })
                .collect();
        }
        for args in combos {
            let mut ours = String::new();
            interpret(pieces, &args, &mut ours);
            let theirs = format(&b, id, &args)?;
            if ours != theirs {
                return Err(format!(
                    "{id} with {args:?}: tables say {ours:?}, fluent-bundle {theirs:?}"
                ));
            }
        }
    }
    Ok(())
}

/// Each rule's sample in tests/fixtures/messages.json (parameters and the texts kuatia-core rendered) through
/// fluent-bundle. A `rule` parameter renders the named rule's message; parameters of the kinds kuatia formats itself
/// (money, dates, …) are compared after kuatia's formatting only by the core's tests, so such samples are skipped.
fn samples(root: &Path) -> Result<(), String> {
    let path = root.join("tests/fixtures/messages.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rules_path = root.join("tests/fixtures/rules.json");
    let rules_text = std::fs::read_to_string(&rules_path)
        .map_err(|e| format!("{}: {e}", rules_path.display()))?;
    let samples: Vec<serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let rules: Vec<serde_json::Value> =
        serde_json::from_str(&rules_text).map_err(|e| format!("{}: {e}", rules_path.display()))?;
    let kinds: BTreeMap<String, BTreeMap<String, String>> = rules
        .iter()
        .map(|r| {
            let id = r["rule"].as_str().unwrap_or_default().to_string();
            let params = r["params"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    let name = p["name"].as_str().unwrap_or_default().to_string();
                    (name, p["kind"].as_str().unwrap_or_default().to_string())
                })
                .collect();
            (id, params)
        })
        .collect();
    let mut bundles = Vec::new();
    for (dir, _) in LANGS {
        let mut source = String::new();
        for f in read_dir(&root.join("core/locales").join(dir))? {
            let p = root.join("core/locales").join(dir).join(f);
            source.push_str(
                &std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?,
            );
            source.push('\n');
        }
        bundles.push((dir, bundle(dir, &source)?));
    }
    for s in &samples {
        let id = s["rule"].as_str().unwrap_or_default();
        let params: BTreeMap<String, String> = s["params"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
        let plain = |r: &str| {
            kinds.get(r).is_some_and(|k| {
                k.values()
                    .all(|kind| matches!(kind.as_str(), "int" | "text" | "rule"))
            })
        };
        if !plain(id) {
            continue;
        }
        for (dir, b) in &bundles {
            let want = s[if *dir == "en" { "en" } else { "es" }]
                .as_str()
                .unwrap_or_default();
            let mut args = params.clone();
            for (name, kind) in kinds.get(id).into_iter().flatten() {
                if kind == "rule" {
                    let inner = params.get(name).cloned().unwrap_or_default();
                    if !plain(&inner) {
                        return Err(format!(
                            "{id}: {name} names {inner}, which is not a plain rule"
                        ));
                    }
                    args.insert(name.clone(), format(b, &inner, &params)?);
                }
            }
            let got = format(b, id, &args)?;
            if got != want {
                return Err(format!(
                    "{id} ({dir}): messages.json says {want:?}, fluent-bundle {got:?}"
                ));
            }
        }
    }
    Ok(())
}

//! Messages: a finding's text rendered from the catalogs (`core/locales/<lang>/<group>.ftl`, Project Fluent) by its
//! rule id and parameters, in Spanish of Paraguay (the default) or English.
//!
//! The catalogs are compiled by `tools/codegen/catalog` (kuatia-catalog) into the static tables of [`gen`]: no
//! localisation runtime is linked, a message is one binary search and a few pushes. The FTL subset is text,
//! `{ $variable }`, `{ -term }` (inlined) and a select on a variable (`[one]`/`*[other]` or exact keys).

pub mod format;
pub mod gen;

use crate::rule::{self, Kind, Params, RuleDef};

/// A language kuatia writes its messages in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// Spanish of Paraguay (`es-PY`), the default of every face.
    #[default]
    EsPy,
    /// English (`en`).
    En,
}

/// The language a finding's message is rendered in when it is built: Spanish of Paraguay, the default of every face,
/// so a face that forgets to localize (`Findings::localize`) gives Spanish, never English. The `Display` of the error
/// enums (`RucError`, `SignError`, …) renders English instead: it is developer text (logs, `?` in a `main`).
pub const BUILD_LANG: Lang = Lang::EsPy;

impl Lang {
    /// Every language, the default first.
    pub const ALL: [Lang; 2] = [Lang::EsPy, Lang::En];

    /// The BCP 47 tag (`es-PY`, `en`), as `Content-Language` writes it.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::EsPy => "es-PY",
            Lang::En => "en",
        }
    }

    /// A language tag read loosely: `es`, `es-PY`, `es_AR.UTF-8` → Spanish, `en`, `en-US` → English, case
    /// insensitive; anything else is `None`.
    pub fn parse(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_', '.', '@']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("es") {
            Some(Lang::EsPy)
        } else if primary.eq_ignore_ascii_case("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The language for an `Accept-Language` header (RFC 9110 §12.5.4, lookup in order of `q`): the first range
    /// with `q` > 0 that names one of ours; `*`, an unknown or a malformed header gives the default. Never fails.
    pub fn negotiate(accept_language: &str) -> Lang {
        let mut ranges: Vec<(u16, usize, &str)> = Vec::new();
        for (i, item) in accept_language.split(',').enumerate().take(32) {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or("").trim();
            let mut q = 1000u16;
            for p in parts {
                let p = p.trim();
                if let Some(v) = p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")) {
                    q = qvalue(v.trim()).unwrap_or(0);
                }
            }
            if q > 0 && !range.is_empty() {
                ranges.push((q, i, range));
            }
        }
        ranges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        ranges
            .iter()
            .find_map(|(_, _, r)| {
                if *r == "*" {
                    Some(Lang::default())
                } else {
                    Lang::parse(r)
                }
            })
            .unwrap_or_default()
    }
}

/// An RFC 9110 `qvalue` in thousandths (`0.5` → 500); `None` when malformed.
fn qvalue(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{frac:0<3}").parse::<u16>().ok()?;
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// A compiled catalog of one group in one language: its records in one text, sorted by id, each
/// `id U+001F message U+001E`, and where each record starts. In a message, `U+0001 name U+0002` is a parameter and
/// `U+0003 name U+0004 (key U+0005 arm U+0006)… U+0007` a select on one (the default arm's key starts with `*`).
/// One text and a table of offsets rather than a structure per message: the WebAssembly package pays for the text
/// and little else (docs/plans/issue-32.md §7.4).
#[derive(Debug, Clone, Copy)]
pub struct Catalog {
    /// The messages' records, sorted by rule id.
    pub messages: &'static str,
    /// The byte offset of each message record.
    pub message_starts: &'static [u16],
    /// The terms' records (`-whole_number` → `whole_number`), sorted by id, without markers.
    pub terms: &'static str,
    /// The byte offset of each term record.
    pub term_starts: &'static [u16],
}

const ID_END: char = '\u{1f}';
const RECORD_END: char = '\u{1e}';
const VAR: char = '\u{1}';
const VAR_END: char = '\u{2}';
const SELECT: char = '\u{3}';
const SELECT_ARMS: char = '\u{4}';
const ARM_KEY_END: char = '\u{5}';
const ARM_END: char = '\u{6}';
const SELECT_END: char = '\u{7}';

/// The record `i` of `text`: its id and its body.
fn record(text: &'static str, starts: &[u16], i: usize) -> Option<(&'static str, &'static str)> {
    let start = usize::from(*starts.get(i)?);
    let end = starts.get(i + 1).map_or(text.len(), |e| usize::from(*e));
    let r = text.get(start..end)?.strip_suffix(RECORD_END)?;
    r.split_once(ID_END)
}

/// The body of the record with id `id`, by binary search.
fn lookup(text: &'static str, starts: &[u16], id: &str) -> Option<&'static str> {
    let (mut lo, mut hi) = (0, starts.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let (k, body) = record(text, starts, mid)?;
        match k.cmp(id) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(body),
        }
    }
    None
}

/// The compiled message of rule `id` in `lang`, if its catalog has one.
pub fn message(lang: Lang, id: &str) -> Option<&'static str> {
    gen::catalogs(lang)
        .iter()
        .find_map(|c| lookup(c.messages, c.message_starts, id))
}

/// The message `id` of a text group's catalog (`gen::sifen_codes(lang)`): texts that are not rules and have no
/// parameters, so the record's body is the text.
pub fn text(catalog: &'static Catalog, id: &str) -> Option<&'static str> {
    lookup(catalog.messages, catalog.message_starts, id)
}

/// The text of term `id` in `lang`.
pub fn term(lang: Lang, id: &str) -> Option<&'static str> {
    gen::catalogs(lang)
        .iter()
        .find_map(|c| lookup(c.terms, c.term_starts, id))
}

/// The rule ids a catalog of `lang` has a message for (the registry tests read the catalogs against the rules).
pub fn message_ids(lang: Lang) -> Vec<&'static str> {
    let mut ids = Vec::new();
    for c in gen::catalogs(lang) {
        ids.extend(
            (0..c.message_starts.len())
                .filter_map(|i| Some(record(c.messages, c.message_starts, i)?.0)),
        );
    }
    ids
}

/// The parameter names compiled message `m` uses (in its text and its selects), in order, with repeats.
pub fn variables(m: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = m;
    while let Some(i) = rest.find([VAR, SELECT]) {
        let end = if rest.get(i..).is_some_and(|r| r.starts_with(VAR)) {
            VAR_END
        } else {
            SELECT_ARMS
        };
        let Some((name, r)) = rest.get(i + 1..).unwrap_or_default().split_once(end) else {
            break;
        };
        names.push(name);
        rest = r;
    }
    names
}

/// The message of rule `def` with `params`, in `lang` (the other language's when a catalog lacks it, the rule id when
/// both do: a message is never empty).
pub fn render(lang: Lang, def: &RuleDef, params: &Params) -> String {
    let mut out = String::new();
    render_into(&mut out, lang, def, params, 0);
    out
}

fn render_into(out: &mut String, lang: Lang, def: &RuleDef, params: &Params, depth: u8) {
    let found = message(lang, def.id).map(|m| (lang, m)).or_else(|| {
        Lang::ALL
            .iter()
            .find_map(|&l| message(l, def.id).map(|m| (l, m)))
    });
    match found {
        Some((l, m)) => pieces_into(out, l, def, params, m, depth),
        None => out.push_str(def.id),
    }
}

/// Appends compiled message text `m` (see [`Catalog`]); a marker the generator cannot have written ends it.
fn pieces_into(out: &mut String, lang: Lang, def: &RuleDef, params: &Params, m: &str, depth: u8) {
    let mut rest = m;
    while let Some(i) = rest.find(|c: char| c < '\u{8}') {
        out.push_str(rest.get(..i).unwrap_or_default());
        let marker = rest.get(i..).and_then(|r| r.chars().next());
        let after = rest.get(i + 1..).unwrap_or_default();
        match marker {
            Some(VAR) => {
                let Some((name, r)) = after.split_once(VAR_END) else {
                    return;
                };
                var_into(out, lang, def, params, name, depth);
                rest = r;
            }
            Some(SELECT) => {
                let Some((name, r)) = after.split_once(SELECT_ARMS) else {
                    return;
                };
                let Some((arms, r)) = r.split_once(SELECT_END) else {
                    return;
                };
                let arm = select(lang, params, name, arms);
                pieces_into(out, lang, def, params, arm, depth);
                rest = r;
            }
            _ => return,
        }
    }
    out.push_str(rest);
}

/// Appends parameter `name` formatted by its kind (its marker when the finding lacks it).
fn var_into(out: &mut String, lang: Lang, def: &RuleDef, params: &Params, name: &str, depth: u8) {
    match (def.kind(name), params.get(name)) {
        (_, None) => {
            out.push_str("{$");
            out.push_str(name);
            out.push('}');
        }
        (Some(Kind::Rule), Some(v)) => match rule::find(&v.text()) {
            Some(inner) if depth < 2 => render_into(out, lang, inner, params, depth + 1),
            _ => out.push_str(&v.text()),
        },
        (kind, Some(v)) => format::value(out, lang, kind.unwrap_or(Kind::Text), v, params),
    }
}

/// The arm of a select on parameter `name`: the one whose key is its value, else its plural category (`one`,
/// `other`), else the default one.
fn select<'m>(lang: Lang, params: &Params, name: &str, arms: &'m str) -> &'m str {
    let value = params.get(name).map(|v| v.text());
    let value = value.as_deref().unwrap_or("");
    let arms = || {
        arms.split(ARM_END)
            .filter_map(|a| a.split_once(ARM_KEY_END))
            .map(|(k, a)| (k.strip_prefix('*').map_or((k, false), |k| (k, true)), a))
    };
    let category = format::plural(lang, value);
    arms()
        .find(|((k, _), _)| *k == value)
        .or_else(|| arms().find(|((k, _), _)| Some(*k) == category))
        .or_else(|| arms().find(|((_, default), _)| *default))
        .map_or("", |(_, a)| a)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn negotiation_follows_q_and_never_fails() {
        assert_eq!(Lang::negotiate(""), Lang::EsPy);
        assert_eq!(Lang::negotiate("en-US,en;q=0.9"), Lang::En);
        assert_eq!(Lang::negotiate("fr, en;q=0.5, es;q=0.8"), Lang::EsPy);
        assert_eq!(Lang::negotiate("es;q=0.2, en;q=0.8"), Lang::En);
        assert_eq!(Lang::negotiate("en;q=0, es"), Lang::EsPy);
        assert_eq!(Lang::negotiate("de, *"), Lang::EsPy);
        assert_eq!(Lang::negotiate("fr"), Lang::EsPy);
        assert_eq!(Lang::negotiate(";;;,,q=x,en;q=2"), Lang::EsPy);
        assert_eq!(Lang::negotiate("EN-gb;Q=0.7"), Lang::En);
        assert_eq!(Lang::parse("es_PY.UTF-8"), Some(Lang::EsPy));
        assert_eq!(Lang::parse("C"), None);
    }

    #[test]
    fn a_rule_renders_in_each_language_with_its_params() {
        // Built in Spanish, the default; rendered again in English on demand.
        let f = rule::ruc_check_digit("receptor.ruc", 1, 2);
        assert_eq!(
            f.message,
            "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
        assert_eq!(
            render(Lang::En, rule::RUC_CHECK_DIGIT, &f.params),
            "wrong RUC check digit: expected 1, got 2"
        );
        let mut fs = crate::Findings::from(f);
        fs.localize(Lang::En);
        assert!(
            fs.0[0].message.starts_with("wrong RUC"),
            "{}",
            fs.0[0].message
        );
    }

    #[test]
    fn a_rule_without_a_message_renders_as_its_id() {
        let def = RuleDef {
            id: "nowhere.rule",
            code: crate::code::VALIDATION_ERROR,
            params: &[],
            samples: &[],
            doc: "",
        };
        assert_eq!(render(Lang::EsPy, &def, &Params::default()), "nowhere.rule");
        assert_eq!(render(Lang::En, &def, &Params::default()), "nowhere.rule");
    }

    /// The `kuatia/validate` build's tables (`cargo test -p kuatia-core --lib --features light-catalog msg::`): the
    /// validation groups in both languages, an XML rule as its id.
    #[cfg(feature = "light-catalog")]
    #[test]
    fn the_light_catalog_keeps_the_validation_groups_only() {
        let f = rule::ruc_check_digit("receptor.ruc", 1, 2);
        assert!(f.message.starts_with("El dígito"));
        assert_eq!(
            render(Lang::En, rule::RUC_CHECK_DIGIT, &f.params),
            "wrong RUC check digit: expected 1, got 2"
        );
        // The faces' argument errors are in the light build too.
        let a = rule::host_arg_required("request", "request");
        assert_eq!(a.message, "Falta el argumento request");
        let x = rule::xml_attr("", "duplicated attribute");
        assert_eq!(render(Lang::EsPy, rule::XML_ATTR, &x.params), "xml.attr");
        assert_eq!(
            gen::catalogs(Lang::EsPy).len(),
            gen::catalogs(Lang::En).len()
        );
        // `rule::find` knows exactly the rules whose messages this build has (two lists: LIGHT_GROUPS, rule::LIGHT).
        for def in rule::ALL {
            for lang in Lang::ALL {
                assert_eq!(
                    rule::find(def.id).is_some(),
                    message(lang, def.id).is_some(),
                    "{}",
                    def.id
                );
            }
        }
    }

    #[test]
    fn a_select_picks_the_plural_arm() {
        let short = |len| {
            render(
                Lang::EsPy,
                rule::RUC_TOO_SHORT,
                &rule::ruc_too_short("", len, 3).params,
            )
        };
        assert!(short(1).contains("tiene 1 carácter;"), "{}", short(1));
        assert!(short(2).contains("tiene 2 caracteres;"), "{}", short(2));
    }

    #[test]
    fn a_rule_param_renders_the_inner_rule() {
        let f = crate::cdc::CdcError::Ruc(crate::ruc::RucError::WrongDv {
            expected: 1,
            got: 2,
        })
        .to_finding("cdc");
        assert_eq!(f.rule, "cdc.ruc");
        assert_eq!(
            f.params["reason"],
            rule::Param::One("ruc.check_digit".into())
        );
        assert_eq!(
            f.message_in(Lang::En),
            "CDC embedded RUC is invalid: wrong RUC check digit: expected 1, got 2"
        );
        assert_eq!(
            render(Lang::EsPy, rule::CDC_RUC, &f.params),
            "El RUC contenido en el CDC no es válido. El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
    }
}

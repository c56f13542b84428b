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

/// The language a finding's message is rendered in when it is built. English while the faces learn to choose a
/// language at their boundary (`Findings::localize`): no face changes language silently in the middle of the
/// migration (docs/plans/issue-32.md §2.1). It becomes [`Lang::EsPy`] when the `Finding::new` shim goes.
pub const BUILD_LANG: Lang = Lang::En;

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

/// One piece of a compiled message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Text(&'static str),
    /// A parameter, formatted by its kind in the message's language.
    Var(&'static str),
    /// A select on a parameter: the arm whose key equals its value, else its plural category (`one`, `other`), else
    /// the default arm.
    Select(
        &'static str,
        &'static [(&'static str, &'static [Piece])],
        &'static [Piece],
    ),
}

/// A compiled catalog: `(rule id, message)` sorted by id, and `(term id, text)` sorted by id.
#[derive(Debug, Clone, Copy)]
pub struct Catalog {
    /// The messages, sorted by rule id.
    pub messages: &'static [(&'static str, &'static [Piece])],
    /// The terms (`-whole_number` → `whole_number`), sorted by id.
    pub terms: &'static [(&'static str, &'static str)],
}

/// The message of rule `id` in `lang`, if its catalog has one.
pub fn message(lang: Lang, id: &str) -> Option<&'static [Piece]> {
    gen::catalogs(lang).iter().find_map(|c| {
        c.messages
            .binary_search_by(|(k, _)| (*k).cmp(id))
            .ok()
            .and_then(|i| c.messages.get(i))
            .map(|(_, m)| *m)
    })
}

/// The text of term `id` in `lang`.
pub fn term(lang: Lang, id: &str) -> Option<&'static str> {
    gen::catalogs(lang).iter().find_map(|c| {
        c.terms
            .binary_search_by(|(k, _)| (*k).cmp(id))
            .ok()
            .and_then(|i| c.terms.get(i))
            .map(|(_, t)| *t)
    })
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
        Some((l, pieces)) => pieces_into(out, l, def, params, pieces, depth),
        None => out.push_str(def.id),
    }
}

fn pieces_into(
    out: &mut String,
    lang: Lang,
    def: &RuleDef,
    params: &Params,
    pieces: &[Piece],
    depth: u8,
) {
    for piece in pieces {
        match *piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(name) => match (def.kind(name), params.get(name)) {
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
            },
            Piece::Select(name, arms, default) => {
                let value = params.get(name).map(|v| v.text());
                let value = value.as_deref().unwrap_or("");
                let arm = arms
                    .iter()
                    .find(|(k, _)| *k == value)
                    .or_else(|| {
                        let category = format::plural(lang, value)?;
                        arms.iter().find(|(k, _)| *k == category)
                    })
                    .map_or(default, |(_, p)| p);
                pieces_into(out, lang, def, params, arm, depth);
            }
        }
    }
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
        let f = rule::ruc_check_digit("receptor.ruc", 1, 2);
        assert_eq!(f.message, "wrong RUC check digit: expected 1, got 2");
        assert_eq!(
            render(Lang::EsPy, rule::RUC_CHECK_DIGIT, &f.params),
            "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
        let mut fs = crate::Findings::from(f);
        fs.localize(Lang::EsPy);
        assert!(
            fs.0[0].message.starts_with("El dígito"),
            "{}",
            fs.0[0].message
        );
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
            f.message,
            "CDC embedded RUC is invalid: wrong RUC check digit: expected 1, got 2"
        );
        assert_eq!(
            render(Lang::EsPy, rule::CDC_RUC, &f.params),
            "El RUC contenido en el CDC no es válido. El dígito verificador del RUC no corresponde: debería ser 1, no 2"
        );
    }
}

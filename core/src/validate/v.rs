//! The checks every rule group uses (texts, codes, amounts, dates, RUCs, locations), each adding its finding.

use crate::de::TipoDocumento;
use crate::error::Finding;
use crate::fmt::date_at;
use crate::geo;
use crate::invoice::Direccion;
use crate::ruc::Ruc;
use crate::rule;
use rust_decimal::Decimal;
use std::fmt;

/// The findings of one validation run, and the checks that add to them.
pub(super) struct V {
    pub(super) out: Vec<Finding>,
}

/// The catalog term of a document type (`request.not_allowed`, `asociado.required`).
pub(super) fn tipo_term(tipo: TipoDocumento) -> &'static str {
    match tipo {
        TipoDocumento::Factura => "factura",
        TipoDocumento::Autofactura => "autofactura",
        TipoDocumento::NotaCredito => "nota_credito",
        TipoDocumento::NotaDebito => "nota_debito",
        TipoDocumento::NotaRemision => "nota_remision",
    }
}

impl V {
    /// Adds a finding. Its path is formatted by the caller only when there is one: building paths eagerly for every
    /// field of every item cost more than the checks themselves.
    pub(super) fn push(&mut self, f: Finding) {
        self.out.push(f);
    }

    /// Text of `min..=max` characters after trimming; SIFEN rejects leading/trailing blanks, so they count as errors.
    pub(super) fn text(&mut self, path: impl fmt::Display + Copy, v: &str, min: usize, max: usize) {
        let n = v.chars().count();
        let f = if v.trim().is_empty() {
            if min == 0 {
                return;
            }
            rule::text_blank(path.to_string())
        } else if v.trim() != v {
            rule::text_spaces(path.to_string())
        } else if n < min || n > max {
            rule::text_length(path.to_string(), min, max, n)
        } else if v.chars().any(|c| c.is_control()) {
            rule::text_control(path.to_string())
        } else if v.chars().any(|c| matches!(c, '\u{FFFE}' | '\u{FFFF}')) {
            // The only non-control scalar values outside XML 1.0's `Char`: a document carrying them is not XML.
            rule::text_noncharacter(path.to_string())
        } else {
            return;
        };
        self.push(f);
    }

    pub(super) fn opt_text(
        &mut self,
        path: impl fmt::Display + Copy,
        v: &Option<String>,
        min: usize,
        max: usize,
    ) {
        if let Some(v) = v {
            self.text(path, v, min, max);
        }
    }

    /// Decimal with at most `int` integer digits and `frac` fraction digits, and `min` as lower bound.
    pub(super) fn amount(
        &mut self,
        path: impl fmt::Display + Copy,
        d: Decimal,
        int: u32,
        frac: u32,
        positive: bool,
    ) {
        let f = if d.is_sign_negative() && !d.is_zero() {
            rule::amount_negative(path.to_string(), d)
        } else if positive && d.is_zero() {
            rule::amount_zero(path.to_string())
        } else if d.normalize().scale() > frac {
            rule::amount_decimals(path.to_string(), frac, d)
        } else if d.trunc() >= Decimal::from(10u64.pow(int)) {
            rule::amount_integer_digits(path.to_string(), int, d)
        } else {
            return;
        };
        self.push(f);
    }

    /// A code of the table `what` (a catalog term naming it) that is not one of its values when `ok` is false.
    pub(super) fn code_in(
        &mut self,
        path: impl fmt::Display + Copy,
        value: u32,
        ok: bool,
        what: &'static str,
    ) {
        if !ok {
            self.push(rule::code_unknown(path.to_string(), value, what));
        }
    }

    pub(super) fn not_allowed(
        &mut self,
        path: impl fmt::Display + Copy,
        present: bool,
        tipo: TipoDocumento,
    ) {
        if present {
            self.push(rule::request_not_allowed(path.to_string(), tipo_term(tipo)));
        }
    }

    /// Department, optional district and city: each in SIFEN's table, and belonging together (SIFEN rejects
    /// inconsistent ones with code 1255).
    pub(super) fn location(&mut self, path: &str, dep: u8, dist: Option<u16>, ciudad: u32) {
        if let Err(f) = geo::check_location(path, dep, dist, ciudad) {
            self.push(f);
        }
    }

    pub(super) fn direccion(&mut self, path: &str, d: &Direccion) {
        self.text(&format!("{path}.direccion"), &d.direccion, 1, 255);
        if d.numero_casa > 999_999 {
            self.push(rule::amount_digits(format!("{path}.numero_casa"), 6));
        }
        self.location(path, d.departamento, d.distrito, d.ciudad);
        self.opt_text(&format!("{path}.telefono"), &d.telefono, 6, 15);
    }

    pub(super) fn date(&mut self, path: &str, v: &Option<String>) {
        if let Some(s) = v {
            if let Err(f) = date_at(s, path) {
                self.push(f);
            }
        }
    }

    pub(super) fn digits(&mut self, path: &str, v: &str, min: usize, max: usize) {
        let n = v.len();
        if !v.bytes().all(|b| b.is_ascii_digit()) || n < min || n > max {
            self.push(if min == max {
                rule::text_digits_exact(path, min)
            } else {
                rule::text_digits(path, min, max)
            });
        }
    }

    pub(super) fn ruc(&mut self, path: &str, v: &str) -> Option<Ruc> {
        match Ruc::parse(v) {
            Ok(r) => Some(r),
            Err(e) => {
                self.out.push(e.to_finding(path));
                None
            }
        }
    }

    pub(super) fn id_number(&mut self, path: &str, v: &str) {
        let ok = !v.is_empty()
            && v.len() <= 20
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !ok {
            self.push(rule::text_id_number(path));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::fmt::{parse_date, parse_datetime};

    /// Every catalog term validation passes as a parameter exists in both languages: the document types, and the
    /// last literal of each call that takes a term (`code_in`, `code_unknown`, `request_required_for`,
    /// `request_too_many`) in the sources of validation and of `geo::check_location`, so a misspelt term cannot render as its raw id.
    #[test]
    fn every_term_validation_passes_is_in_both_catalogs() {
        use crate::msg::{term, Lang};
        let tipos = [1, 4, 5, 6, 7].map(|c| TipoDocumento::from_code(c).unwrap());
        let mut terms: Vec<String> = tipos.iter().map(|t| tipo_term(*t).to_string()).collect();
        let sources = [
            include_str!("run.rs"),
            include_str!("v.rs"),
            include_str!("receptor.rs"),
            include_str!("items.rs"),
            include_str!("pagos.rs"),
            include_str!("asociados.rs"),
            include_str!("transporte.rs"),
            include_str!("../geo.rs"),
        ];
        let calls = [
            "code_in(",
            "code_unknown(",
            "required_for(",
            "request_too_many(",
        ];
        for src in sources {
            // Not this test's own text.
            let src = src.split("#[cfg(test)]").next().unwrap_or_default();
            for call in calls {
                for (at, _) in src.match_indices(call) {
                    // The call's arguments, up to its closing parenthesis.
                    let args = &src[at + call.len()..];
                    let mut depth = 1;
                    let end = args
                        .char_indices()
                        .find(|&(_, c)| {
                            depth += match c {
                                '(' => 1,
                                ')' => -1,
                                _ => 0,
                            };
                            depth == 0
                        })
                        .map_or(args.len(), |(i, _)| i);
                    let args = &args[..end];
                    let Some(close) = args.rfind('"') else {
                        continue;
                    };
                    let Some(open) = args[..close].rfind('"') else {
                        continue;
                    };
                    terms.push(args[open + 1..close].to_string());
                }
            }
        }
        assert!(terms.len() > 40, "{terms:?}");
        for t in &terms {
            for lang in Lang::ALL {
                assert!(term(lang, t).is_some(), "no {} term -{t}", lang.tag());
            }
        }
    }

    /// The date findings validation pushes (`fmt::date_at`, `datetime_at`) say what `fmt::parse_date` and
    /// `parse_datetime` say, for each way a value can be wrong.
    #[test]
    fn date_findings_match_the_parsers() {
        for s in [
            "10/03/2025",
            "2025-3-10",
            "",
            "2025-0x-10",
            "2025-é-01",
            "2025-02-30",
            "2025-13-01",
            &"9".repeat(60),
        ] {
            let mut v = V { out: Vec::new() };
            v.date("d", &Some(s.to_string()));
            let f = v.out.pop().unwrap();
            assert_eq!(
                Err(f.message_in(crate::msg::Lang::En)),
                parse_date(s).map(|_| ()),
                "{s}"
            );
            assert_eq!(f.code, crate::code::INVALID_FORMAT);
        }
        for s in [
            "2025-03-10 10:11:00",
            "2025-03-10T10:11",
            "2025-02-30T10:11:00",
            "2025-0x-10T10:11:00",
            "2025-03-10T1x:11:00",
            "2025-03-10T25:00:00",
            "2025-03-10T10:60:00",
        ] {
            let f = crate::fmt::datetime_at(s, "d").unwrap_err();
            assert_eq!(
                Err(f.message_in(crate::msg::Lang::En)),
                parse_datetime(s).map(|_| ()),
                "{s}"
            );
        }
    }
}

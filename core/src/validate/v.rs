//! The checks every rule group uses (texts, codes, amounts, dates, RUCs, locations), each adding its finding.

use crate::codes;
use crate::de::TipoDocumento;
use crate::error::{code, Finding};
use crate::fmt::parse_date;
use crate::geo;
use crate::invoice::Direccion;
use crate::ruc::Ruc;
use rust_decimal::Decimal;
use std::fmt;

/// The findings of one validation run, and the checks that add to them.
pub(super) struct V {
    pub(super) out: Vec<Finding>,
}

impl V {
    /// Paths are formatted only here, when there is a finding: building them eagerly for every field of every item
    /// cost more than the checks themselves.
    pub(super) fn push(&mut self, code: &str, path: impl fmt::Display, msg: impl Into<String>) {
        self.out.push(Finding::new(code, path.to_string(), msg));
    }

    /// Text of `min..=max` characters after trimming; SIFEN rejects leading/trailing blanks, so they count as errors.
    pub(super) fn text(&mut self, path: impl fmt::Display + Copy, v: &str, min: usize, max: usize) {
        let n = v.chars().count();
        if v.trim().is_empty() {
            if min > 0 {
                self.push(code::REQUIRED, path, "must not be empty");
            }
        } else if v.trim() != v {
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not start or end with spaces",
            );
        } else if n < min || n > max {
            self.push(
                code::INVALID_FORMAT,
                path,
                format!("must have {min} to {max} characters, has {n}"),
            );
        } else if v.chars().any(|c| c.is_control()) {
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not contain control characters (tabs, line breaks)",
            );
        } else if v.chars().any(|c| matches!(c, '\u{FFFE}' | '\u{FFFF}')) {
            // The only non-control scalar values outside XML 1.0's `Char`: a document carrying them is not XML.
            self.push(
                code::INVALID_FORMAT,
                path,
                "must not contain the noncharacters U+FFFE or U+FFFF (not allowed in XML)",
            );
        }
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
        if d.is_sign_negative() && !d.is_zero() {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("must not be negative (got {d})"),
            );
        } else if positive && d.is_zero() {
            self.push(code::OUT_OF_RANGE, path, "must be greater than zero");
        } else if d.normalize().scale() > frac {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("at most {frac} decimals allowed (got {d})"),
            );
        } else if d.trunc() >= Decimal::from(10u64.pow(int)) {
            self.push(
                code::OUT_OF_RANGE,
                path,
                format!("at most {int} integer digits allowed (got {d})"),
            );
        }
    }

    pub(super) fn code_in(
        &mut self,
        path: impl fmt::Display + Copy,
        value: u32,
        ok: bool,
        what: &str,
    ) {
        if !ok {
            self.push(
                code::INVALID_VALUE,
                path,
                format!("{value} is not a valid {what}"),
            );
        }
    }

    pub(super) fn not_allowed(
        &mut self,
        path: impl fmt::Display + Copy,
        present: bool,
        tipo: TipoDocumento,
    ) {
        if present {
            self.push(
                code::NOT_ALLOWED,
                path,
                format!("not allowed in a {}", tipo.descripcion()),
            );
        }
    }

    pub(super) fn location(&mut self, path: &str, dep: u8, dist: Option<u16>, ciudad: u32) {
        if codes::departamento(dep).is_none() {
            self.push(
                code::INVALID_VALUE,
                format!("{path}.departamento"),
                format!("{dep} is not a department code (1–20)"),
            );
            return;
        }
        if let Some(d) = dist {
            if geo::distrito(d).is_none() {
                self.push(
                    code::INVALID_VALUE,
                    format!("{path}.distrito"),
                    format!("{d} is not a district code"),
                );
                return;
            }
        }
        if geo::ciudad(ciudad).is_none() {
            self.push(
                code::INVALID_VALUE,
                format!("{path}.ciudad"),
                format!("{ciudad} is not a city code"),
            );
            return;
        }
        if let Err(msg) = geo::check_location(dep, dist, ciudad) {
            self.push(code::INCONSISTENT, format!("{path}.ciudad"), msg);
        }
    }

    pub(super) fn direccion(&mut self, path: &str, d: &Direccion) {
        self.text(&format!("{path}.direccion"), &d.direccion, 1, 255);
        if d.numero_casa > 999_999 {
            self.push(
                code::OUT_OF_RANGE,
                format!("{path}.numero_casa"),
                "at most 6 digits",
            );
        }
        self.location(path, d.departamento, d.distrito, d.ciudad);
        self.opt_text(&format!("{path}.telefono"), &d.telefono, 6, 15);
    }

    pub(super) fn date(&mut self, path: &str, v: &Option<String>) {
        if let Some(s) = v {
            if let Err(e) = parse_date(s) {
                self.push(code::INVALID_FORMAT, path, e);
            }
        }
    }

    pub(super) fn digits(&mut self, path: &str, v: &str, min: usize, max: usize) {
        let n = v.len();
        if !v.bytes().all(|b| b.is_ascii_digit()) || n < min || n > max {
            let what = if min == max {
                format!("exactly {min}")
            } else {
                format!("{min} to {max}")
            };
            self.push(code::INVALID_FORMAT, path, format!("must be {what} digits"));
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
            self.push(
                code::INVALID_FORMAT,
                path,
                "must be 1 to 20 letters, digits or '-'",
            );
        }
    }
}

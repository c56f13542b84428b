//! Parameters written as Paraguay writes them: `Gs. 1.100.000`, `USD 1.234,56`, `10 %`, `10/03/2025` in es-PY; the
//! English catalog keeps the Paraguayan context with English separators (`Gs. 1,100,000`, `10%`, `10/03/2025`).

use super::Lang;
use crate::rule::{Kind, Param, Params};
use rust_decimal::Decimal;
use std::str::FromStr;

/// Appends the value `v` of a parameter of `kind` in `lang`; a value not in its machine form is written as is.
pub fn value(out: &mut String, lang: Lang, kind: Kind, v: &Param, params: &Params) {
    let text = v.text();
    let text = text.as_ref();
    match kind {
        Kind::Int | Kind::Text | Kind::List | Kind::Rule => out.push_str(text),
        Kind::Dec => out.push_str(&number(lang, text, None).unwrap_or_else(|| text.to_string())),
        Kind::Money => {
            let moneda = params.get("moneda").map(|m| m.text().into_owned());
            out.push_str(&money(lang, text, moneda.as_deref().unwrap_or("PYG")));
        }
        Kind::Percent => out.push_str(&percent(lang, text)),
        Kind::Date => out.push_str(&date(text).unwrap_or_else(|| text.to_string())),
        Kind::DateTime => out.push_str(&datetime(text).unwrap_or_else(|| text.to_string())),
        Kind::Term => out.push_str(super::term(lang, text).unwrap_or(text)),
    }
}

/// A decimal in `lang`'s separators (es-PY `1.234,5`, en `1,234.5`), rounded to `decimals` when given.
pub fn number(lang: Lang, text: &str, decimals: Option<u32>) -> Option<String> {
    let d = Decimal::from_str(text).ok()?;
    let decimals = decimals.unwrap_or(d.normalize().scale());
    let es = crate::fmt::human_amount(d, decimals);
    Some(match lang {
        Lang::EsPy => es,
        Lang::En => es
            .chars()
            .map(|c| match c {
                '.' => ',',
                ',' => '.',
                c => c,
            })
            .collect(),
    })
}

/// An amount with its currency: guaraníes as `Gs. 1.100.000` (no decimals), others as `USD 1.234,56`.
pub fn money(lang: Lang, text: &str, moneda: &str) -> String {
    let decimals = crate::fmt::currency_decimals(moneda);
    let n = number(lang, text, Some(decimals)).unwrap_or_else(|| text.to_string());
    if moneda == "PYG" {
        format!("Gs. {n}")
    } else {
        format!("{moneda} {n}")
    }
}

/// A percentage: `10 %` in es-PY (with a space, as the RAE writes it), `10%` in English.
pub fn percent(lang: Lang, text: &str) -> String {
    let n = number(lang, text, None).unwrap_or_else(|| text.to_string());
    match lang {
        Lang::EsPy => format!("{n} %"),
        Lang::En => format!("{n}%"),
    }
}

/// `YYYY-MM-DD` as `dd/mm/aaaa`.
pub fn date(text: &str) -> Option<String> {
    let (y, rest) = text.split_once('-')?;
    let (m, d) = rest.split_once('-')?;
    let ok = |s: &str, n| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    (ok(y, 4) && ok(m, 2) && ok(d, 2)).then(|| format!("{d}/{m}/{y}"))
}

/// `YYYY-MM-DDTHH:MM:SS` as `dd/mm/aaaa hh:mm`.
pub fn datetime(text: &str) -> Option<String> {
    let (day, time) = text.split_once('T')?;
    let hm = time
        .get(..5)
        .filter(|t| t.as_bytes().get(2) == Some(&b':'))?;
    Some(format!("{} {hm}", date(day)?))
}

/// The CLDR plural category of a number in `lang` (`one` for exactly 1 in both languages, `other` otherwise);
/// `None` when the value is not a number.
pub fn plural(_lang: Lang, value: &str) -> Option<&'static str> {
    let d = Decimal::from_str(value).ok()?;
    Some(if d == Decimal::ONE && !value.contains('.') {
        "one"
    } else {
        "other"
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn paraguayan_forms() {
        assert_eq!(money(Lang::EsPy, "1100000", "PYG"), "Gs. 1.100.000");
        assert_eq!(money(Lang::En, "1100000", "PYG"), "Gs. 1,100,000");
        assert_eq!(money(Lang::EsPy, "1234.56", "USD"), "USD 1.234,56");
        assert_eq!(money(Lang::En, "1234.5", "USD"), "USD 1,234.50");
        assert_eq!(percent(Lang::EsPy, "10"), "10 %");
        assert_eq!(percent(Lang::En, "10"), "10%");
        assert_eq!(percent(Lang::EsPy, "2.5"), "2,5 %");
        assert_eq!(
            number(Lang::EsPy, "-1234567.25", None).unwrap(),
            "-1.234.567,25"
        );
        assert_eq!(date("2025-03-10").unwrap(), "10/03/2025");
        assert_eq!(datetime("2025-03-10T10:11:00").unwrap(), "10/03/2025 10:11");
        assert_eq!(date("10/03/2025"), None);
        assert_eq!(plural(Lang::EsPy, "1"), Some("one"));
        assert_eq!(plural(Lang::En, "3"), Some("other"));
        assert_eq!(plural(Lang::En, "x"), None);
    }
}

//! Number and date formats of SIFEN: `.` decimal separator, no grouping, no trailing zeros; `AAAA-MM-DD` dates and
//! `AAAA-MM-DDThh:mm:ss` local date-times without zone.

use crate::error::Finding;
use crate::rule;
use rust_decimal::{Decimal, RoundingStrategy};
use time::{Date, Month, PrimitiveDateTime, Time};

/// Formats an amount as SIFEN wants it: plain digits, `.` separator, no trailing zeros, no exponent.
pub fn dec(d: Decimal) -> String {
    d.normalize().to_string()
}

/// Rounds half away from zero ("HALF_UP" in the reference implementations) to `dp` decimals.
pub fn round(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
        .normalize()
}

/// Decimals kept for document-level amounts of a currency: 0 for guaraníes, 2 for every other currency.
pub fn currency_decimals(moneda: &str) -> u32 {
    if moneda == "PYG" {
        0
    } else {
        2
    }
}

/// Formats a date as `YYYY-MM-DD`.
pub fn date(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// Formats a date as `DD-MM-YYYY` (how the KuDE prints the stamp start, NT-010).
pub fn date_dmy(d: Date) -> String {
    format!("{:02}-{:02}-{:04}", d.day(), u8::from(d.month()), d.year())
}

/// Formats a local date-time as `YYYY-MM-DDThh:mm:ss`.
pub fn datetime(dt: PrimitiveDateTime) -> String {
    format!(
        "{}T{:02}:{:02}:{:02}",
        date(dt.date()),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

/// Parses `YYYY-MM-DD` strictly (four-digit year, real calendar date); the error is the English message of
/// [`date_at`]'s finding.
pub fn parse_date(s: &str) -> Result<Date, String> {
    date_at(s, "").map_err(|f| f.message_in(crate::msg::Lang::En))
}

/// [`parse_date`] with the finding at `path` (rules `date.format`, `date.calendar`, `date.digits`).
pub fn date_at(s: &str, path: &str) -> Result<Date, Finding> {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return Err(rule::date_format(path, &short(s)));
    }
    let y = digits(s, 0, 4, path)?;
    let m = digits(s, 5, 7, path)?;
    let d = digits(s, 8, 10, path)?;
    let month = u8::try_from(m).ok().and_then(|m| Month::try_from(m).ok());
    let calendar = || rule::date_calendar(path, &short(s));
    let (Some(month), Ok(day), Ok(year)) = (month, u8::try_from(d), i32::try_from(y)) else {
        return Err(calendar());
    };
    Date::from_calendar_date(year, month, day).map_err(|_| calendar())
}

/// Parses `YYYY-MM-DDThh:mm:ss` strictly (no zone, no fraction), as SIFEN's `fecHhmmss`; the error is the English
/// message of [`datetime_at`]'s finding.
pub fn parse_datetime(s: &str) -> Result<PrimitiveDateTime, String> {
    datetime_at(s, "").map_err(|f| f.message_in(crate::msg::Lang::En))
}

/// [`parse_datetime`] with the finding at `path` (rules `date.datetime_format`, `date.time` and [`date_at`]'s).
pub fn datetime_at(s: &str, path: &str) -> Result<PrimitiveDateTime, Finding> {
    let b = s.as_bytes();
    if b.len() != 19
        || b.get(10) != Some(&b'T')
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return Err(rule::date_datetime_format(path, &short(s)));
    }
    let d = date_at(s.get(..10).unwrap_or_default(), path)?;
    let (h, mi, se) = (
        digits(s, 11, 13, path)?,
        digits(s, 14, 16, path)?,
        digits(s, 17, 19, path)?,
    );
    let t = u8::try_from(h)
        .ok()
        .zip(u8::try_from(mi).ok())
        .zip(u8::try_from(se).ok())
        .and_then(|((h, m), s)| Time::from_hms(h, m, s).ok())
        .ok_or_else(|| rule::date_time(path, &short(s)))?;
    Ok(PrimitiveDateTime::new(d, t))
}

/// The number written at `from..to` of `s` (whose length the caller checked).
fn digits(s: &str, from: usize, to: usize, path: &str) -> Result<u32, Finding> {
    let part = s.get(from..to).unwrap_or_default();
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(rule::date_digits(path, &short(s)));
    }
    part.parse::<u32>()
        .map_err(|_| rule::date_digits(path, &short(s)))
}

fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Formats an amount for people (KuDE): thousands separated by `.`, decimals by `,`, as in Paraguay.
pub fn human_amount(d: Decimal, decimals: u32) -> String {
    let r = round(d, decimals);
    let neg = r.is_sign_negative() && !r.is_zero();
    let text = r.abs().to_string();
    let (int, frac) = text.split_once('.').unwrap_or((text.as_str(), ""));
    let mut out = String::with_capacity(text.len() + text.len() / 3 + 2);
    if neg {
        out.push('-');
    }
    let len = int.len();
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (len - i) % 3 == 0 {
            out.push('.');
        }
        out.push(ch);
    }
    if decimals > 0 {
        out.push(',');
        let mut f: String = frac.chars().take(decimals as usize).collect();
        while f.len() < decimals as usize {
            f.push('0');
        }
        out.push_str(&f);
    }
    out
}

/// serde for `YYYY-MM-DD` dates.
pub mod date_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::Date;

    /// Serializes a date as `YYYY-MM-DD`.
    pub fn serialize<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::fmt::date(*d))
    }

    /// Deserializes a `YYYY-MM-DD` date.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        let s = String::deserialize(d)?;
        crate::fmt::parse_date(&s).map_err(serde::de::Error::custom)
    }
}

/// serde for optional `YYYY-MM-DD` dates.
pub mod opt_date_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::Date;

    /// Serializes an optional date as `YYYY-MM-DD`.
    pub fn serialize<S: Serializer>(d: &Option<Date>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_str(&crate::fmt::date(*d)),
            None => s.serialize_none(),
        }
    }

    /// Deserializes an optional `YYYY-MM-DD` date.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Date>, D::Error> {
        let s = Option::<String>::deserialize(d)?;
        s.map(|s| crate::fmt::parse_date(&s).map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// serde for `YYYY-MM-DDThh:mm:ss` local date-times.
pub mod datetime_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::PrimitiveDateTime;

    /// Serializes a date-time as `YYYY-MM-DDThh:mm:ss`.
    pub fn serialize<S: Serializer>(d: &PrimitiveDateTime, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::fmt::datetime(*d))
    }

    /// Deserializes a `YYYY-MM-DDThh:mm:ss` date-time.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PrimitiveDateTime, D::Error> {
        let s = String::deserialize(d)?;
        crate::fmt::parse_datetime(&s).map_err(serde::de::Error::custom)
    }
}

/// Normalizes an establishment / point code (`1`, `01`, `001`) to three digits; `None` when it is not 1..=999.
pub fn code3(v: &str) -> Option<String> {
    let t = v.trim();
    if t.is_empty() || t.len() > 3 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u16 = t.parse().ok()?;
    (1..=999).contains(&n).then(|| format!("{n:03}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::str::FromStr;

    #[test]
    fn decimals_print_without_trailing_zeros() {
        assert_eq!(dec(Decimal::from_str("100000.00000000").unwrap()), "100000");
        assert_eq!(dec(Decimal::from_str("185.180").unwrap()), "185.18");
        assert_eq!(dec(Decimal::from_str("0.00").unwrap()), "0");
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(
            round(Decimal::from_str("1351906.59").unwrap(), 0),
            Decimal::from(1351907)
        );
        assert_eq!(
            round(Decimal::from_str("2.5").unwrap(), 0),
            Decimal::from(3)
        );
        assert_eq!(
            round(Decimal::from_str("168.345454545").unwrap(), 8),
            Decimal::from_str("168.34545455").unwrap()
        );
    }

    #[test]
    fn dates_parse_strictly() {
        assert_eq!(date(parse_date("2024-03-15").unwrap()), "2024-03-15");
        assert!(parse_date("2023-02-30").is_err());
        assert!(parse_date("2023-2-3").is_err());
        assert!(parse_date("２０２３-02-03").is_err());
        let dt = parse_datetime("2025-03-10T10:11:00").unwrap();
        assert_eq!(datetime(dt), "2025-03-10T10:11:00");
        assert!(parse_datetime("2025-03-10T10:11:00Z").is_err());
        assert!(parse_datetime("2025-03-10T25:11:00").is_err());
    }

    #[test]
    fn human_amounts_group_thousands() {
        assert_eq!(human_amount(Decimal::from(1351907), 0), "1.351.907");
        assert_eq!(
            human_amount(Decimal::from_str("185.18").unwrap(), 2),
            "185,18"
        );
        assert_eq!(human_amount(Decimal::from(100), 0), "100");
    }
}

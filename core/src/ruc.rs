//! RUC (Registro Único del Contribuyente) and its mod-11 check digit (SIFEN.md §1, `Pa_Calcular_Dv_11_A`).
//!
//! [`check_digit`] is the generic routine also used for the CDC (SIFEN.md §2.2); [`Ruc`] is the
//! validated identifier `NNNNNNN-D` whose body follows the XSD type `tRuc`.

use crate::error::{code, Finding};
use crate::msg::Lang;
use crate::rule;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Shortest RUC body allowed by XSD `tRuc` (DE_Types_v150.xsd).
pub const MIN_BODY_LEN: usize = 3;
/// Longest RUC body allowed by XSD `tRuc`; it is also the width of the RUC inside the CDC.
pub const MAX_BODY_LEN: usize = 8;

/// Why a RUC (or a string handed to [`check_digit`]) was rejected; [`RucError::code`] is always `INVALID_RUC`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RucError {
    /// The input is empty (or only spaces).
    Empty,
    /// A character that cannot appear at that position (0-based, in characters).
    InvalidChar {
        /// The offending character.
        ch: char,
        /// Its 0-based position in the part being checked.
        pos: usize,
    },
    /// The body (without DV) is shorter than 3 characters.
    TooShort {
        /// Length of the body in characters.
        len: usize,
    },
    /// The body (without DV) is longer than 8 characters.
    TooLong {
        /// Length of the body in characters.
        len: usize,
    },
    /// The body starts with `0`, which XSD `tRuc` forbids.
    LeadingZero,
    /// The check digit is missing (e.g. `80069563-`).
    MissingDv,
    /// A RUC given to the consulta-ruc web service has a body shorter than its schema's 5 characters.
    ConsultaTooShort {
        /// Length of the body in characters.
        len: usize,
    },
    /// No `-` between body and check digit (`80069568`): the form is ambiguous, so it is refused.
    MissingSeparator,
    /// The check digit is not a single decimal digit.
    InvalidDv {
        /// What was found where the DV goes.
        found: String,
    },
    /// The check digit does not match the body.
    WrongDv {
        /// The DV computed from the body.
        expected: u8,
        /// The DV that was given.
        got: u8,
    },
}

impl RucError {
    /// Stable machine-readable code: always [`code::INVALID_RUC`].
    pub fn code(&self) -> &'static str {
        code::INVALID_RUC
    }

    /// Turns the error into a shared [`Finding`] of its rule (`ruc.*`, [`crate::rule`]) located at the JSON `path`.
    pub fn to_finding(&self, path: impl Into<String>) -> Finding {
        let path = path.into();
        match self {
            RucError::Empty => rule::ruc_empty(path),
            RucError::InvalidChar { ch, pos } if ch.is_ascii_alphabetic() => {
                rule::ruc_letter(path, &ch.to_string(), *pos)
            }
            RucError::InvalidChar { ch, pos } => rule::ruc_char(path, &ch.to_string(), *pos),
            RucError::TooShort { len } => rule::ruc_too_short(path, *len, MIN_BODY_LEN),
            RucError::TooLong { len } => rule::ruc_too_long(path, *len, MAX_BODY_LEN),
            RucError::LeadingZero => rule::ruc_leading_zero(path),
            RucError::MissingDv => rule::ruc_dv_missing(path),
            RucError::ConsultaTooShort { len } => {
                rule::ruc_consulta_too_short(path, *len, CONSULTA_MIN_BODY_LEN)
            }
            RucError::MissingSeparator => rule::ruc_separator_missing(path),
            RucError::InvalidDv { found } => rule::ruc_dv_invalid(path, found),
            RucError::WrongDv { expected, got } => rule::ruc_check_digit(path, *expected, *got),
        }
    }
}

/// The written form every RUC input must have, quoted by the format errors.
pub const EXPECTED_FORM: &str =
    "a RUC is written as its body, '-' and the check digit, e.g. 80069563-1";

/// The English message of the error's rule (core/locales/en/ids.ftl).
impl fmt::Display for RucError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_finding("").message_in(Lang::En))
    }
}

impl std::error::Error for RucError {}

/// Reads a RUC given to a SIFEN query (`consulta-ruc`): the WS schema (`FE_Types_v141` `tRuc`) takes the body alone,
/// 5 to 8 characters. `digits-DV` is read strictly (a wrong check digit is reported as such); a body alone is accepted
/// as the schema's own form. Every face that builds a consulta-ruc calls this.
pub fn consulta_body(input: &str) -> Result<Ruc, RucError> {
    let s = input.trim();
    let ruc = if s.contains('-') {
        Ruc::parse(s)?
    } else {
        Ruc::from_body(s)?
    };
    if ruc.body().len() < CONSULTA_MIN_BODY_LEN {
        return Err(RucError::ConsultaTooShort {
            len: ruc.body().len(),
        });
    }
    Ok(ruc)
}

/// Shortest RUC body the consulta-ruc web service accepts (`FE_Types_v141` `tRuc` minLength; shorter: SIFEN 0160).
pub const CONSULTA_MIN_BODY_LEN: usize = 5;

/// Mod-11 check digit (`Pa_Calcular_Dv_11_A`) of `body`: ASCII digits and letters, letters counted as
/// the decimal ASCII code of their upper-case form (A→65), weights 2..=11 cycling from the right,
/// DV = 11 − r when r > 1, else 0. Used for RUCs and for the 43-character CDC prefix.
pub fn check_digit(body: &str) -> Result<u8, RucError> {
    if body.is_empty() {
        return Err(RucError::Empty);
    }
    check_digit_bytes(body.as_bytes()).map_err(|_| {
        // Report the first offending character (the scan runs right to left and sees bytes, not chars).
        let (pos, ch) = body
            .chars()
            .enumerate()
            .find(|(_, c)| !c.is_ascii_alphanumeric())
            .unwrap_or((0, char::REPLACEMENT_CHARACTER));
        RucError::InvalidChar { ch, pos }
    })
}

/// The same algorithm over raw bytes; on a byte that is not an ASCII alphanumeric, returns its byte index.
/// Works right to left without allocating (a letter contributes two digits: units first, then tens).
pub(crate) fn check_digit_bytes(bytes: &[u8]) -> Result<u8, usize> {
    // Weighted sum; u64 cannot overflow below ~10^17 characters, far beyond any addressable input.
    let total = if bytes.iter().all(u8::is_ascii_digit) {
        // Fast path (no letters): one weight per byte, so the cycle can be zipped in lockstep.
        const WEIGHTS: [u64; 10] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        bytes
            .iter()
            .rev()
            .zip(WEIGHTS.iter().cycle())
            .fold(0u64, |acc, (&b, &w)| {
                acc.wrapping_add(u64::from(b - b'0') * w)
            })
    } else {
        let mut total: u64 = 0;
        let mut weight: u64 = 2;
        let mut add = |digit: u8| {
            total = total.wrapping_add(u64::from(digit) * weight);
            weight = if weight == 11 { 2 } else { weight + 1 };
        };
        for (idx, &b) in bytes.iter().enumerate().rev() {
            match b {
                b'0'..=b'9' => add(b - b'0'),
                b'A'..=b'Z' | b'a'..=b'z' => {
                    let ascii = b.to_ascii_uppercase(); // 65..=90: always two decimal digits
                    add(ascii % 10);
                    add(ascii / 10);
                }
                _ => return Err(idx),
            }
        }
        total
    };
    let r = total % 11;
    // r ∈ 2..=10 gives 1..=9; the cast cannot truncate.
    Ok(if r > 1 { (11 - r) as u8 } else { 0 })
}

/// The character starting at byte index `pos` (or U+FFFD if `pos` is not a char boundary).
fn char_at(s: &str, pos: usize) -> char {
    s.get(pos..)
        .and_then(|rest| rest.chars().next())
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Character position (not byte index) of byte index `pos` in `s`, for human messages.
fn char_pos(s: &str, pos: usize) -> usize {
    s.char_indices().take_while(|(i, _)| *i < pos).count()
}

/// A validated RUC: body matching XSD `tRuc` (`[1-9][0-9]*[0-9A-D]?`, 3–8 characters) and its correct DV.
///
/// Stored inline (no heap), so it is `Copy`. Displays and serializes as `80069563-1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ruc {
    /// Body bytes, upper-case ASCII; only the first `len` are meaningful, the rest are zero.
    body: [u8; MAX_BODY_LEN],
    len: u8,
    dv: u8,
}

impl Ruc {
    /// Parses `NNNNNNN-D`, the one written form of a RUC (surrounding spaces trimmed), and checks the DV. Without the
    /// `-` the input is refused ([`RucError::MissingSeparator`]): `80069568` could be body 8006956 with DV 8 or a body
    /// whose DV was forgotten, and reading it either way issues documents to the wrong taxpayer.
    pub fn parse(s: &str) -> Result<Ruc, RucError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(RucError::Empty);
        }
        let (body, dv) = match s.split_once('-') {
            Some((body, dv)) => {
                // Only the outer spaces go: `80069563 -1` or `80069563- 1` is not a RUC as written (issue 34).
                if dv.is_empty() {
                    if body.is_empty() {
                        return Err(RucError::Empty);
                    }
                    return Err(RucError::MissingDv);
                }
                if body.is_empty() {
                    // `-1`: a DV without a body.
                    return Err(RucError::TooShort { len: 0 });
                }
                (body, dv)
            }
            None => {
                // Report a bad character first (`abc` is not a RUC at all), then the missing separator.
                let bad = s
                    .chars()
                    .enumerate()
                    .find(|(i, c)| !c.is_ascii_alphanumeric() || (*i == 0 && !c.is_ascii_digit()));
                return Err(match bad {
                    Some((pos, ch)) => RucError::InvalidChar { ch, pos },
                    None => RucError::MissingSeparator,
                });
            }
        };
        // Body first: for input like `abc` the bad body is the useful message, not the DV.
        let ruc = Ruc::from_body(body)?;
        let dv = match dv.as_bytes() {
            [d @ b'0'..=b'9'] => d - b'0',
            _ => {
                return Err(RucError::InvalidDv {
                    found: dv.to_string(),
                })
            }
        };
        if ruc.dv != dv {
            return Err(RucError::WrongDv {
                expected: ruc.dv,
                got: dv,
            });
        }
        Ok(ruc)
    }

    /// Builds a RUC from its body alone (no DV, no dash), computing the DV; a lower-case final letter is upper-cased.
    pub fn from_body(body: &str) -> Result<Ruc, RucError> {
        let bytes = body.as_bytes();
        if bytes.is_empty() {
            return Err(RucError::Empty);
        }
        // Character checks come first so that e.g. Arabic-Indic digits report the character, not a length.
        let last = bytes.len() - 1;
        for (i, &b) in bytes.iter().enumerate() {
            let ok = match b {
                b'0'..=b'9' => true,
                b'A'..=b'D' | b'a'..=b'd' => i == last && i > 0,
                _ => false,
            };
            if !ok {
                return Err(RucError::InvalidChar {
                    ch: char_at(body, i),
                    pos: char_pos(body, i),
                });
            }
        }
        // Only ASCII remains, so byte length = character length.
        if bytes.len() > MAX_BODY_LEN {
            return Err(RucError::TooLong { len: bytes.len() });
        }
        if bytes.first() == Some(&b'0') {
            return Err(RucError::LeadingZero);
        }
        if bytes.len() < MIN_BODY_LEN {
            return Err(RucError::TooShort { len: bytes.len() });
        }
        let mut buf = [0u8; MAX_BODY_LEN];
        for (dst, src) in buf.iter_mut().zip(bytes) {
            *dst = src.to_ascii_uppercase();
        }
        let dv = check_digit_bytes(bytes).map_err(|i| RucError::InvalidChar {
            ch: char_at(body, i),
            pos: i,
        })?;
        Ok(Ruc {
            body: buf,
            len: bytes.len() as u8,
            dv,
        })
    }

    /// Builds a RUC from a body and a separately given DV (as in XML `dRucEm` + `dDVEmi`), checking the DV.
    pub fn from_parts(body: &str, dv: u8) -> Result<Ruc, RucError> {
        let ruc = Ruc::from_body(body)?;
        if ruc.dv != dv {
            return Err(RucError::WrongDv {
                expected: ruc.dv,
                got: dv,
            });
        }
        Ok(ruc)
    }

    /// The body without DV, as written in XML `dRucEm` (e.g. `80069563`, `1234567A`).
    pub fn body(&self) -> &str {
        let bytes = self.body.get(..usize::from(self.len)).unwrap_or(&[]);
        std::str::from_utf8(bytes).unwrap_or("")
    }

    /// The check digit 0–9.
    pub fn dv(&self) -> u8 {
        self.dv
    }

    /// The body left-padded with zeros to 8 characters, as embedded in the CDC (SIFEN.md §2.1).
    pub fn padded8(&self) -> String {
        let mut out = String::with_capacity(MAX_BODY_LEN);
        for _ in usize::from(self.len)..MAX_BODY_LEN {
            out.push('0');
        }
        out.push_str(self.body());
        out
    }

    /// The 8 padded body bytes without allocating (for the CDC builder).
    pub(crate) fn padded8_bytes(&self) -> [u8; MAX_BODY_LEN] {
        let mut out = [b'0'; MAX_BODY_LEN];
        let len = usize::from(self.len);
        let start = MAX_BODY_LEN.saturating_sub(len);
        for (dst, src) in out.iter_mut().skip(start).zip(self.body.iter().take(len)) {
            *dst = *src;
        }
        out
    }
}

impl fmt::Display for Ruc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.body(), self.dv)
    }
}

impl fmt::Debug for Ruc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ruc(\"{self}\")")
    }
}

impl FromStr for Ruc {
    type Err = RucError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ruc::parse(s)
    }
}

impl TryFrom<&str> for Ruc {
    type Error = RucError;
    fn try_from(s: &str) -> Result<Self, Self::Error> {
        Ruc::parse(s)
    }
}

impl Serialize for Ruc {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Ruc {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Ruc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a RUC string like \"80069563-1\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Ruc, E> {
                Ruc::parse(v).map_err(|e| E::custom(crate::error::coded_rule(&e.to_finding(""))))
            }
        }
        deserializer.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn dv_examples() {
        assert_eq!(check_digit("80069563"), Ok(1));
        assert_eq!(check_digit("1234567A"), Ok(2));
        assert_eq!(check_digit("1234567a"), Ok(2));
        assert_eq!(check_digit(""), Err(RucError::Empty));
    }

    #[test]
    fn padded() {
        let r = Ruc::parse("4554737-8").unwrap();
        assert_eq!(r.padded8(), "04554737");
        assert_eq!(&r.padded8_bytes(), b"04554737");
    }
}

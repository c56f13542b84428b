//! CDC (Código de Control): the 44-character identifier of an electronic document (SIFEN.md §2).
//!
//! [`Cdc::build`] lays out [`CdcFields`] as in SIFEN.md §2.1 and appends the mod-11 DV (§2.2);
//! [`Cdc::parse`] checks a CDC string completely and gives the fields back. [`security_code`] turns a
//! host-supplied random source into a valid `dCodSeg` (§2.3); the core itself never draws randomness.

use crate::error::{code, coded_rule, Finding};
use crate::msg::Lang;
use crate::ruc::{check_digit_bytes, Ruc, RucError};
use crate::rule;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use time::{Date, Month};

/// Length of a CDC in characters (XSD `tCDC`).
pub const CDC_LEN: usize = 44;

/// Byte offsets of each CDC component (SIFEN.md §2.1), as half-open ranges.
mod layout {
    use std::ops::Range;
    pub const TIPO_DOCUMENTO: Range<usize> = 0..2;
    pub const RUC: Range<usize> = 2..10;
    pub const RUC_DV: usize = 10;
    pub const ESTABLECIMIENTO: Range<usize> = 11..14;
    pub const PUNTO: Range<usize> = 14..17;
    pub const NUMERO: Range<usize> = 17..24;
    pub const TIPO_CONTRIBUYENTE: usize = 24;
    pub const FECHA: Range<usize> = 25..33;
    pub const TIPO_EMISION: usize = 33;
    pub const CODIGO_SEGURIDAD: Range<usize> = 34..43;
    pub const DV: usize = 43;
}

/// Why a CDC could not be built or parsed; [`CdcError::code`] is always `INVALID_CDC`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CdcError {
    /// The CDC does not have 44 characters.
    Length {
        /// Number of characters found.
        len: usize,
    },
    /// A character not allowed at that position (digits everywhere; `A`–`D` also at position 9).
    InvalidChar {
        /// The offending character.
        ch: char,
        /// Its 0-based position.
        pos: usize,
    },
    /// The final check digit does not match the first 43 characters.
    WrongDv {
        /// The DV computed from the first 43 characters.
        expected: u8,
        /// The DV found at position 43.
        got: u8,
    },
    /// A numeric component is outside its allowed range.
    OutOfRange {
        /// Field name as in [`CdcFields`].
        field: &'static str,
        /// The value found.
        value: u64,
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// The emission date is not a real calendar date or its year is not 1–9999.
    InvalidDate {
        /// The date as written (`YYYYMMDD` inside a CDC, `YYYY-MM-DD` otherwise).
        text: String,
    },
    /// The embedded RUC is invalid (bad body or wrong RUC DV).
    Ruc(RucError),
}

impl CdcError {
    /// Stable machine-readable code: always [`code::INVALID_CDC`].
    pub fn code(&self) -> &'static str {
        code::INVALID_CDC
    }

    /// Turns the error into a shared [`Finding`] of its rule (`cdc.*`, [`crate::rule`]) located at the JSON `path`.
    pub fn to_finding(&self, path: impl Into<String>) -> Finding {
        let path = path.into();
        match self {
            CdcError::Length { len } => rule::cdc_length(path, CDC_LEN, *len),
            CdcError::InvalidChar { ch, pos } if *pos == layout::RUC.end - 1 => {
                rule::cdc_ruc_char(path, &ch.to_string(), *pos)
            }
            CdcError::InvalidChar { ch, pos } => rule::cdc_char(path, &ch.to_string(), *pos),
            CdcError::WrongDv { expected, got } => rule::cdc_check_digit(path, *expected, *got),
            CdcError::OutOfRange {
                field,
                value,
                min,
                max,
            } => rule::cdc_range(path, field, *value, *min, *max),
            CdcError::InvalidDate { text } => rule::cdc_date(path, text),
            CdcError::Ruc(e) => {
                let inner = e.to_finding("");
                let mut params = inner.params;
                params.insert("reason", rule::Param::One(inner.rule.into_owned()));
                rule::finding(rule::CDC_RUC, path, params)
            }
        }
    }

    /// The [`CdcFields`] field at fault, when the error concerns one (useful as a finding path).
    pub fn field(&self) -> Option<&'static str> {
        match self {
            CdcError::OutOfRange { field, .. } => Some(field),
            CdcError::InvalidDate { .. } => Some("fecha"),
            CdcError::Ruc(_) => Some("ruc"),
            _ => None,
        }
    }
}

/// The English message of the error's rule (core/locales/en/ids.ftl).
impl fmt::Display for CdcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_finding("").message_in(Lang::En))
    }
}

impl std::error::Error for CdcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CdcError::Ruc(e) => Some(e),
            _ => None,
        }
    }
}

impl From<RucError> for CdcError {
    fn from(e: RucError) -> Self {
        CdcError::Ruc(e)
    }
}

/// The components of a CDC (SIFEN.md §2.1). Serialized with these names, numbers as JSON numbers and
/// `fecha` as `YYYY-MM-DD`; deserialization also accepts codes as zero-padded digit strings (`"001"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CdcFields {
    /// `iTiDE`: document type, 1..=99 (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE).
    pub tipo_documento: u8,
    /// Emitter RUC (`dRucEm` + `dDVEmi`).
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub ruc: Ruc,
    /// `dEst`: establishment, 1..=999.
    pub establecimiento: u16,
    /// `dPunExp`: point of issue, 1..=999.
    pub punto: u16,
    /// `dNumDoc`: document number, 1..=9_999_999.
    pub numero: u32,
    /// `iTipCont`: 1 persona física, 2 persona jurídica.
    pub tipo_contribuyente: u8,
    /// Date part of `dFeEmiDE`.
    #[serde(serialize_with = "serialize_date")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub fecha: Date,
    /// `iTipEmi`: 1 normal, 2 contingencia.
    pub tipo_emision: u8,
    /// `dCodSeg`: security code, 1..=999_999_999 (see [`security_code`]).
    pub codigo_seguridad: u32,
}

impl CdcFields {
    /// Checks every range of SIFEN.md §2.1 (the RUC is already valid by construction).
    pub fn validate(&self) -> Result<(), CdcError> {
        check_range("tipo_documento", self.tipo_documento.into(), 1, 99)?;
        check_range("establecimiento", self.establecimiento.into(), 1, 999)?;
        check_range("punto", self.punto.into(), 1, 999)?;
        check_range("numero", self.numero.into(), 1, 9_999_999)?;
        check_range("tipo_contribuyente", self.tipo_contribuyente.into(), 1, 2)?;
        check_range("tipo_emision", self.tipo_emision.into(), 1, 2)?;
        check_range(
            "codigo_seguridad",
            self.codigo_seguridad.into(),
            1,
            999_999_999,
        )?;
        if !(1..=9999).contains(&self.fecha.year()) {
            return Err(CdcError::InvalidDate {
                text: format_date(self.fecha),
            });
        }
        Ok(())
    }

    /// Reads CDC fields from JSON (codes as numbers or zero-padded strings), shared by every face.
    ///
    /// Errors are a [`Finding`]: `MALFORMED_JSON` for bad syntax, `VALIDATION_ERROR.REQUIRED` for a
    /// missing field, `INVALID_RUC` for a bad `ruc`, `VALIDATION_ERROR.INVALID_TYPE` otherwise.
    /// Ranges are not checked here: [`Cdc::build`] does that.
    pub fn from_json(json: &str) -> Result<CdcFields, Finding> {
        crate::shape::from_json(json, "")
    }
}

fn check_range(field: &'static str, value: u64, min: u64, max: u64) -> Result<(), CdcError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(CdcError::OutOfRange {
            field,
            value,
            min,
            max,
        })
    }
}

/// A validated 44-character CDC. `Copy`, stored inline; displays and serializes as the bare 44 characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cdc {
    bytes: [u8; CDC_LEN],
    // Kept alongside so `fields()` cannot fail; it is a pure function of `bytes`, so derived Eq/Hash agree.
    fields: CdcFields,
}

impl Cdc {
    /// Builds the CDC of `fields` (SIFEN.md §2.1) after checking every range; a RUC letter stays in the CDC (§2.2).
    pub fn build(fields: &CdcFields) -> Result<Cdc, CdcError> {
        fields.validate()?;
        let mut b = [b'0'; CDC_LEN];
        write_digits(&mut b[layout::TIPO_DOCUMENTO], fields.tipo_documento.into());
        b[layout::RUC].copy_from_slice(&fields.ruc.padded8_bytes());
        b[layout::RUC_DV] = b'0' + fields.ruc.dv();
        write_digits(
            &mut b[layout::ESTABLECIMIENTO],
            fields.establecimiento.into(),
        );
        write_digits(&mut b[layout::PUNTO], fields.punto.into());
        write_digits(&mut b[layout::NUMERO], fields.numero);
        b[layout::TIPO_CONTRIBUYENTE] = b'0' + fields.tipo_contribuyente;
        // One calendar conversion (month() and day() would each redo it); validate() bounded the
        // year to 1..=9999, so the cast is lossless.
        let (year, month, day) = fields.fecha.to_calendar_date();
        let ymd = (year as u32) * 10_000 + u32::from(u8::from(month)) * 100 + u32::from(day);
        write_digits(&mut b[layout::FECHA], ymd);
        b[layout::TIPO_EMISION] = b'0' + fields.tipo_emision;
        write_digits(&mut b[layout::CODIGO_SEGURIDAD], fields.codigo_seguridad);
        let dv = check_digit_bytes(&b[..layout::DV])
            .map_err(|pos| CdcError::InvalidChar { ch: '?', pos })?;
        b[layout::DV] = b'0' + dv;
        Ok(Cdc {
            bytes: b,
            fields: *fields,
        })
    }

    /// Parses and fully checks a CDC: 44 characters (outer spaces trimmed; the grouped KuDE form is accepted),
    /// XSD `tCDC` pattern, CDC DV, field ranges, calendar date and the embedded RUC's DV.
    pub fn parse(s: &str) -> Result<Cdc, CdcError> {
        let s = s.trim();
        if let Some((pos, ch)) = s.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
            return Err(CdcError::InvalidChar { ch, pos });
        }
        // From here on the input is ASCII: bytes are characters.
        let mut b = [0u8; CDC_LEN];
        let src = s.as_bytes();
        if src.len() == CDC_LEN {
            b.copy_from_slice(src);
        } else if !ungroup(src, &mut b) {
            let without_spaces = src.iter().filter(|&&c| c != b' ').count();
            if without_spaces == CDC_LEN {
                // Right length once spaces go, but not the exact 4-by-4 grouping: point at the first space.
                let pos = src.iter().position(|&c| c == b' ').unwrap_or(0);
                return Err(CdcError::InvalidChar { ch: ' ', pos });
            }
            return Err(CdcError::Length { len: src.len() });
        }
        // Positions below are positions in the 44-character CDC (grouping spaces removed).
        for (pos, &c) in b.iter().enumerate() {
            let ok =
                c.is_ascii_digit() || (pos == layout::RUC.end - 1 && (b'A'..=b'D').contains(&c));
            if !ok {
                return Err(CdcError::InvalidChar {
                    ch: char::from(c),
                    pos,
                });
            }
        }
        let expected = check_digit_bytes(&b[..layout::DV])
            .map_err(|pos| CdcError::InvalidChar { ch: '?', pos })?;
        let got = b[layout::DV] - b'0';
        if expected != got {
            return Err(CdcError::WrongDv { expected, got });
        }

        let tipo_documento = read_digits(&b[layout::TIPO_DOCUMENTO]) as u8;
        let padded = std::str::from_utf8(&b[layout::RUC]).unwrap_or("");
        let ruc = Ruc::from_parts(padded.trim_start_matches('0'), b[layout::RUC_DV] - b'0')?;
        let year = read_digits(&b[layout::FECHA.start..layout::FECHA.start + 4]);
        let month = read_digits(&b[layout::FECHA.start + 4..layout::FECHA.start + 6]);
        let day = read_digits(&b[layout::FECHA.start + 6..layout::FECHA.end]);
        let fecha = Month::try_from(month as u8)
            .ok()
            .and_then(|m| Date::from_calendar_date(year as i32, m, day as u8).ok())
            .filter(|_| year >= 1)
            .ok_or_else(|| CdcError::InvalidDate {
                text: std::str::from_utf8(&b[layout::FECHA])
                    .unwrap_or("")
                    .to_string(),
            })?;
        let fields = CdcFields {
            tipo_documento,
            ruc,
            establecimiento: read_digits(&b[layout::ESTABLECIMIENTO]) as u16,
            punto: read_digits(&b[layout::PUNTO]) as u16,
            numero: read_digits(&b[layout::NUMERO]),
            tipo_contribuyente: b[layout::TIPO_CONTRIBUYENTE] - b'0',
            fecha,
            tipo_emision: b[layout::TIPO_EMISION] - b'0',
            codigo_seguridad: read_digits(&b[layout::CODIGO_SEGURIDAD]),
        };
        fields.validate()?;
        Ok(Cdc { bytes: b, fields })
    }

    /// The components encoded in this CDC.
    pub fn fields(&self) -> CdcFields {
        self.fields
    }

    /// The 44 characters.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored, so this never falls back.
        std::str::from_utf8(&self.bytes).unwrap_or("")
    }

    /// The CDC's own check digit (last character, `dDVId`).
    pub fn dv(&self) -> u8 {
        self.bytes[layout::DV] - b'0'
    }

    /// Eleven groups of four separated by spaces, as printed on the KuDE (SIFEN.md §2.4).
    pub fn grouped(&self) -> String {
        let mut out = String::with_capacity(CDC_LEN + CDC_LEN / 4 - 1);
        for (i, chunk) in self.bytes.chunks(4).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.extend(chunk.iter().map(|&c| char::from(c)));
        }
        out
    }
}

/// Copies the grouped form (eleven groups of four, single spaces) into `out`; false if `src` is not that form.
fn ungroup(src: &[u8], out: &mut [u8; CDC_LEN]) -> bool {
    if src.len() != CDC_LEN + CDC_LEN / 4 - 1 {
        return false;
    }
    let mut n = 0;
    for (i, &c) in src.iter().enumerate() {
        if i % 5 == 4 {
            if c != b' ' {
                return false;
            }
        } else if let Some(slot) = out.get_mut(n) {
            *slot = c;
            n += 1;
        }
    }
    n == CDC_LEN
}

/// Writes `value` right-aligned and zero-padded into `dst` (callers guarantee it fits).
fn write_digits(dst: &mut [u8], mut value: u32) {
    for slot in dst.iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// Reads ASCII digits (already checked) as a number; at most 9 digits, so it fits in u32.
fn read_digits(src: &[u8]) -> u32 {
    src.iter()
        .fold(0u32, |acc, &c| acc * 10 + u32::from(c.wrapping_sub(b'0')))
}

/// A checked CDC and its parts, as every face answers a CDC parse (`kuatia cdc parse`, `kuatia_cdc_parse`,
/// `cdcParse`): the 44 characters, grouped as the KuDE prints them, the check digit, and the fields beside them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CdcParsed"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CdcParts {
    /// The 44 digits.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub cdc: Cdc,
    /// The digits in groups of 4.
    pub grouped: String,
    /// The check digit (the last digit).
    pub dv: u8,
    /// The components, as [`CdcFields`] serializes them.
    #[serde(flatten)]
    pub fields: CdcFields,
}

impl From<Cdc> for CdcParts {
    fn from(cdc: Cdc) -> CdcParts {
        CdcParts {
            cdc,
            grouped: cdc.grouped(),
            dv: cdc.dv(),
            fields: cdc.fields(),
        }
    }
}

impl Cdc {
    /// The CDC with its grouped form, check digit and fields ([`CdcParts`]).
    pub fn parts(&self) -> CdcParts {
        CdcParts::from(*self)
    }
}

impl fmt::Display for Cdc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Cdc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cdc(\"{}\")", self.as_str())
    }
}

impl FromStr for Cdc {
    type Err = CdcError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Cdc::parse(s)
    }
}

impl TryFrom<&str> for Cdc {
    type Error = CdcError;
    fn try_from(s: &str) -> Result<Self, Self::Error> {
        Cdc::parse(s)
    }
}

impl Serialize for Cdc {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A string of 44 characters: digits, except the last of the RUC body, which may be `A`–`D` (XSD `tCDC`).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Cdc {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Cdc".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]{9}[0-9A-D][0-9]{34}$"
        })
    }
}

impl<'de> Deserialize<'de> for Cdc {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Cdc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a 44-character CDC string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Cdc, E> {
                Cdc::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Serde helpers for CdcFields: `YYYY-MM-DD` dates and lenient codes.

fn format_date(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn serialize_date<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!(
        "{:04}-{:02}-{:02}",
        d.year(),
        u8::from(d.month()),
        d.day()
    ))
}

/// Parses a strict `YYYY-MM-DD` calendar date (year 1–9999).
fn parse_date(text: &str) -> Option<Date> {
    let b = text.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| read_digits(part))
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if year == 0 {
        return None;
    }
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    Date::from_calendar_date(i32::try_from(year).ok()?, month, u8::try_from(day).ok()?).ok()
}

/// A code given as a JSON number or as a string of at most `width` ASCII digits (`"001"`).
fn lenient_code<'de, D, T, const WIDTH: usize>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    use serde::de::Error;
    // Going through Value keeps this independent of serde_json's arbitrary_precision number encoding.
    let v = serde_json::Value::deserialize(d)?;
    let n = match &v {
        serde_json::Value::Number(n) => n.as_u64().ok_or_else(|| {
            D::Error::custom(coded_rule(&rule::json_whole_number("", &n.to_string())))
        })?,
        serde_json::Value::String(s) => {
            if s.is_empty() || s.len() > WIDTH || !s.bytes().all(|c| c.is_ascii_digit()) {
                return Err(D::Error::custom(coded_rule(&rule::json_digits(
                    "", WIDTH, s,
                ))));
            }
            u64::from(read_digits(s.as_bytes()))
        }
        other => {
            return Err(D::Error::custom(coded_rule(&rule::json_code_type(
                "",
                &other.to_string(),
            ))))
        }
    };
    T::try_from(n).map_err(|_| D::Error::custom(coded_rule(&rule::json_too_big("", n))))
}

fn deserialize_date<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
    use serde::de::Error;
    let s = String::deserialize(d)?;
    parse_date(&s).ok_or_else(|| D::Error::custom(coded_rule(&rule::json_date("", &s))))
}

/// CDC components as they are read (`cdcBuild`): codes as numbers or digit strings (`"001"`), `fecha` as
/// `YYYY-MM-DD`; other keys (e.g. `cdc`, `dv` from a parse) are ignored.
#[derive(Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CdcFieldsInput"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "CdcFieldsInput")
)]
pub(crate) struct CdcFieldsWire {
    /// `iTiDE`: document type, 1..=99 (1 FE, 4 AFE, 5 NCE, 6 NDE, 7 NRE).
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 2>")]
    tipo_documento: u8,
    /// Emitter RUC with check digit (`80069563-1`).
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ruc: Ruc,
    /// `dEst`: establishment, 1..=999.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 3>")]
    establecimiento: u16,
    /// `dPunExp`: point of issue, 1..=999.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 3>")]
    punto: u16,
    /// `dNumDoc`: document number, 1..=9_999_999.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 7>")]
    numero: u32,
    /// `iTipCont`: 1 persona física, 2 persona jurídica.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 1>")]
    tipo_contribuyente: u8,
    /// Emission date `YYYY-MM-DD`.
    #[serde(deserialize_with = "deserialize_date")]
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    fecha: Date,
    /// `iTipEmi`: 1 normal, 2 contingencia.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 1>")]
    tipo_emision: u8,
    /// `dCodSeg`: security code, 1..=999_999_999.
    #[cfg_attr(feature = "ts", ts(as = "crate::ts::Code"))]
    #[cfg_attr(feature = "schema", schemars(with = "crate::schema::Code"))]
    #[serde(deserialize_with = "lenient_code::<_, _, 9>")]
    codigo_seguridad: u32,
}

impl<'de> Deserialize<'de> for CdcFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = CdcFieldsWire::deserialize(deserializer)?;
        Ok(CdcFields {
            tipo_documento: w.tipo_documento,
            ruc: w.ruc,
            establecimiento: w.establecimiento,
            punto: w.punto,
            numero: w.numero,
            tipo_contribuyente: w.tipo_contribuyente,
            fecha: w.fecha,
            tipo_emision: w.tipo_emision,
            codigo_seguridad: w.codigo_seguridad,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Security code (dCodSeg, SIFEN.md §2.3).

/// Largest security code (9 digits).
pub const MAX_SECURITY_CODE: u32 = 999_999_999;

/// A source of random 32-bit values for [`security_code`]; hosts pass a CSPRNG, tests a fixed value.
pub trait SecurityCodeSource {
    /// Returns the next random value (uniform over all of `u32`).
    fn next_u32(&mut self) -> u32;
}

/// Any `FnMut() -> u32` closure is a source, e.g. `&mut || rng.next_u32()`.
impl<F: FnMut() -> u32> SecurityCodeSource for F {
    fn next_u32(&mut self) -> u32 {
        self()
    }
}

/// TEST-ONLY source that always returns the same value; never use it to issue real documents.
///
/// Values 1..=999_999_999 map to themselves through [`security_code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedSecurityCode(pub u32);

impl SecurityCodeSource for FixedSecurityCode {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

/// Draws a security code in 1..=999_999_999 that differs from `numero` (MT §10.3).
///
/// Uses rejection sampling so a uniform source gives a uniform code (values 1..=999_999_999 map to
/// themselves, 0 to 999_999_999, values ≥ 3_999_999_996 are drawn again). At most 64 draws are made;
/// if the source keeps failing (stuck or hostile), a deterministic neighbour of the last draw is returned.
pub fn security_code(source: &mut dyn SecurityCodeSource, numero: u32) -> u32 {
    // Bounded: a uniform source is rejected with probability ~7%, so 64 failures never happen in practice.
    const MAX_DRAWS: usize = 64;
    const LIMIT: u32 = 4 * MAX_SECURITY_CODE; // largest multiple of the range that fits in u32
    let map = |v: u32| match v % MAX_SECURITY_CODE {
        0 => MAX_SECURITY_CODE,
        r => r,
    };
    let mut last = 0;
    for _ in 0..MAX_DRAWS {
        let v = source.next_u32();
        last = v;
        if v < LIMIT {
            let code = map(v);
            if code != numero {
                return code;
            }
        }
    }
    let code = map(last);
    if code != numero {
        code
    } else if code == MAX_SECURITY_CODE {
        1
    } else {
        code + 1
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn mt_example_round_trip() {
        let cdc = Cdc::parse("01444444017001001001452822017012515873260988").unwrap();
        assert_eq!(Cdc::build(&cdc.fields()).unwrap(), cdc);
        assert_eq!(cdc.dv(), 8);
    }
}

//! What SIFEN's response codes mean and the usual fix (SIFEN.md §6.4, §7.3, §10), in Spanish and English: the texts
//! are the catalogs' (`core/locales/<lang>/sifen_codes.ftl`), where accountants' words are translated with the rest.
//! Only codes our sources document are listed; ranges whose individual codes are not documented share one text.

use crate::msg::{self, Lang};
use serde::Serialize;

/// Meaning and usual fix of one SIFEN code, in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeInfo {
    /// The four-digit code.
    pub code: &'static str,
    /// What SIFEN means.
    pub meaning: &'static str,
    /// What usually fixes it.
    pub fix: &'static str,
}

/// The codes with a meaning and a fix in the catalogs, sorted.
const CODES: &[&str] = &[
    "0001", "0002", "0003", "0004", "0005", "0006", "0007", "0120", "0121", "0122", "0140", "0141",
    "0142", "0143", "0160", "0161", "0162", "0163", "0183", "0200", "0260", "0270", "0300", "0301",
    "0320", "0340", "0360", "0361", "0362", "0363", "0364", "0380", "0420", "0422", "0460", "0500",
    "0501", "0502", "0560", "0600", "1000", "1001", "1002", "1003", "1004", "1005", "1050", "1101",
    "1102", "1103", "1104", "1105", "1255", "1263", "1300", "1316", "1317", "1318", "1320", "1321",
    "1328", "1335", "2501", "4000", "4001", "4002", "4003", "4006", "4007", "4008", "4009", "4010",
    "4051", "4052", "4060", "4065", "4066", "4067", "4068", "4069", "4070", "4071", "4103", "4114",
];

/// The catalogued text of `code` in `lang`: the `sifen_code-<code>-meaning` and `-fix` messages of
/// `core/locales/<lang>/sifen_codes.ftl`.
fn info(code: &'static str, lang: Lang) -> Option<CodeInfo> {
    let texts = msg::gen::sifen_codes(lang);
    Some(CodeInfo {
        code,
        meaning: msg::text(texts, &format!("sifen_code.{code}.meaning"))?,
        fix: msg::text(texts, &format!("sifen_code.{code}.fix"))?,
    })
}

/// Meaning and usual fix of a SIFEN response code (`dCodRes`, `dCodResLot`) in Spanish (es-PY, the default of every
/// face), or `None` when not catalogued.
pub fn describe(code: &str) -> Option<CodeInfo> {
    describe_in(code, Lang::EsPy)
}

/// [`describe`] in `lang`.
pub fn describe_in(code: &str, lang: Lang) -> Option<CodeInfo> {
    let code = code.trim();
    let i = CODES.binary_search(&code).ok()?;
    info(CODES.get(i)?, lang)
}

/// Every catalogued code in `lang`, sorted.
pub fn all(lang: Lang) -> impl Iterator<Item = CodeInfo> {
    CODES.iter().filter_map(move |code| info(code, lang))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_unique_and_in_both_languages() {
        assert!(CODES.windows(2).all(|w| matches!(w, [a, b] if a < b)));
        for lang in [Lang::EsPy, Lang::En] {
            assert_eq!(all(lang).count(), CODES.len(), "{lang:?} has every code");
        }
        assert!(describe("0160").is_some_and(|c| c.meaning.contains("XML mal formado")));
        assert!(describe_in(" 0160 ", Lang::En).is_some_and(|c| c.meaning.contains("malformed")));
        assert!(describe("9999").is_none());
    }

    #[test]
    fn shared_fixes_are_inlined() {
        let tls = describe_in("0001", Lang::EsPy).map(|c| c.fix);
        assert!(
            tls.is_some_and(|f| f.starts_with("Renueve o reemplace el P12")),
            "{tls:?}"
        );
        assert_eq!(tls, describe_in("0007", Lang::EsPy).map(|c| c.fix));
    }
}

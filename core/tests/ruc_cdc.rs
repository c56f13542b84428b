//! RUC and CDC against the worked examples of SIFEN.md §1 and §2.4, bad inputs, and round-trip properties.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::cdc::{
    security_code, Cdc, CdcError, CdcFields, FixedSecurityCode, SecurityCodeSource,
};
use kuatia_core::error::code;
use kuatia_core::ruc::{check_digit, Ruc, RucError};
use proptest::prelude::*;
use time::{Date, Month};

// ------------------------------------------------------------------------------------------------
// RUC

/// SIFEN.md §1 worked examples (verified by two independent implementations).
const RUC_TABLE: &[(&str, u8)] = &[
    ("80069563", 1),
    ("4554737", 8),
    ("44444401", 7),
    ("80089752", 8),
    ("88888801", 5),
    ("1234567", 9),
    ("3437941", 0),
    ("1234567A", 2),
    ("80000005", 6),
];

#[test]
fn ruc_table_check_digit() {
    for &(body, dv) in RUC_TABLE {
        assert_eq!(check_digit(body), Ok(dv), "check_digit({body})");
        let ruc = Ruc::from_body(body).unwrap();
        assert_eq!(ruc.dv(), dv, "from_body({body})");
        assert_eq!(ruc.body(), body);
    }
}

#[test]
fn ruc_table_parse_forms() {
    for &(body, dv) in RUC_TABLE {
        let canonical = format!("{body}-{dv}");
        // Without '-' the same digits are refused: `{body}{dv}` could be another body (issue 14).
        for input in [format!("{body}{dv}"), format!("\t{body}{dv}\n")] {
            assert_eq!(
                Ruc::parse(&input),
                Err(RucError::MissingSeparator),
                "{input:?}"
            );
        }
        for input in [
            canonical.clone(),
            format!("  {body}-{dv}  "),
            canonical.to_lowercase(),
        ] {
            let ruc = Ruc::parse(&input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
            assert_eq!(ruc.to_string(), canonical, "{input:?}");
            assert_eq!(ruc.dv(), dv);
            assert_eq!(input.parse::<Ruc>().unwrap(), ruc);
        }
    }
}

#[test]
fn ruc_sum_from_sifen_md() {
    // 3·2+6·3+5·4+9·5+6·6+0·7+0·8+8·9 = 197, 197 mod 11 = 10 → DV 1 (recomputed by hand here).
    let weights = [2u32, 3, 4, 5, 6, 7, 8, 9];
    let sum: u32 = "80069563"
        .bytes()
        .rev()
        .zip(weights)
        .map(|(d, w)| u32::from(d - b'0') * w)
        .sum();
    assert_eq!(sum, 197);
    assert_eq!(check_digit("80069563"), Ok((11 - sum % 11) as u8));
}

#[test]
fn check_digit_is_generic() {
    // Leading zeros do not change the DV.
    assert_eq!(check_digit("04554737"), Ok(8));
    assert_eq!(check_digit("0001234567A"), Ok(2));
    // The 43-char prefix of the MT example CDC gives its official DV 8.
    assert_eq!(
        check_digit("0144444401700100100145282201701251587326098"),
        Ok(8)
    );
    // Letters expand to their ASCII code: A → 65.
    assert_eq!(check_digit("1234567A"), check_digit("123456765"));
    assert!(matches!(
        check_digit("12-3"),
        Err(RucError::InvalidChar { ch: '-', pos: 2 })
    ));
    assert!(matches!(
        check_digit("1١"),
        Err(RucError::InvalidChar { ch: '١', pos: 1 })
    ));
    assert_eq!(check_digit(""), Err(RucError::Empty));
    // Very long inputs neither panic nor overflow.
    assert!(check_digit(&"9".repeat(1_000_000)).unwrap() <= 9);
}

#[test]
fn ruc_padded8_and_letter() {
    assert_eq!(Ruc::parse("4554737-8").unwrap().padded8(), "04554737");
    assert_eq!(Ruc::parse("80069563-1").unwrap().padded8(), "80069563");
    let r = Ruc::parse("1234567a-2").unwrap();
    assert_eq!(r.body(), "1234567A");
    assert_eq!(r.to_string(), "1234567A-2");
    assert_eq!(Ruc::parse("123-6").unwrap().padded8(), "00000123");
}

#[test]
fn ruc_from_parts() {
    assert_eq!(
        Ruc::from_parts("80069563", 1).unwrap().to_string(),
        "80069563-1"
    );
    assert_eq!(
        Ruc::from_parts("80069563", 2),
        Err(RucError::WrongDv {
            expected: 1,
            got: 2
        })
    );
}

fn ruc_err(input: &str) -> RucError {
    let e = Ruc::parse(input).expect_err(input);
    assert_eq!(e.code(), code::INVALID_RUC);
    assert_eq!(e.code(), "INVALID_RUC");
    assert!(!e.to_string().is_empty());
    e
}

#[test]
fn ruc_bad_inputs() {
    assert_eq!(ruc_err(""), RucError::Empty);
    assert_eq!(ruc_err("   "), RucError::Empty);
    assert_eq!(ruc_err("-"), RucError::Empty);
    assert_eq!(ruc_err("-1"), RucError::TooShort { len: 0 });
    assert_eq!(ruc_err("80069563-"), RucError::MissingDv);
    assert_eq!(
        ruc_err("80069563-2"),
        RucError::WrongDv {
            expected: 1,
            got: 2
        }
    );
    assert_eq!(
        ruc_err("80069563-2").to_string(),
        "wrong RUC check digit: expected 1, got 2"
    );
    assert_eq!(ruc_err("800695632"), RucError::MissingSeparator);
    assert!(ruc_err("800695632").to_string().contains("e.g. 80069563-1"));
    assert_eq!(ruc_err("0123-4"), RucError::LeadingZero);
    assert_eq!(ruc_err("12-3"), RucError::TooShort { len: 2 });
    assert_eq!(ruc_err("123456789-0"), RucError::TooLong { len: 9 });
    assert_eq!(ruc_err("1234567890"), RucError::MissingSeparator);
    assert!(matches!(
        ruc_err("abc"),
        RucError::InvalidChar { ch: 'a', pos: 0 }
    ));
    assert!(matches!(ruc_err("80069563-X"), RucError::InvalidDv { .. }));
    assert!(matches!(ruc_err("80069563-12"), RucError::InvalidDv { .. }));
    assert!(matches!(
        ruc_err("8006956E-1"),
        RucError::InvalidChar { ch: 'E', pos: 7 }
    ));
    assert!(matches!(
        ruc_err("12A4567-1"),
        RucError::InvalidChar { ch: 'A', pos: 2 }
    ));
    assert!(matches!(
        ruc_err("A234567-1"),
        RucError::InvalidChar { ch: 'A', pos: 0 }
    ));
    assert!(matches!(
        ruc_err("١٢٣-٤"),
        RucError::InvalidChar { ch: '١', pos: 0 }
    ));
    assert!(matches!(
        ruc_err("١٢٣٤"),
        RucError::InvalidChar { ch: '١', pos: 0 }
    ));
    assert!(matches!(
        ruc_err("80.069.563-1"),
        RucError::InvalidChar { ch: '.', pos: 2 }
    ));
    assert!(matches!(
        ruc_err(&"9".repeat(100_000)),
        RucError::MissingSeparator
    ));
    assert!(matches!(
        ruc_err(&format!("{}-1", "9".repeat(100_000))),
        RucError::TooLong { len: 100_000 }
    ));
    // Spaces inside are not the written form (issue 34): only the outer ones are trimmed.
    assert!(matches!(
        ruc_err("80069563 -1"),
        RucError::InvalidChar { ch: ' ', pos: 8 }
    ));
    assert!(matches!(ruc_err("80069563- 1"), RucError::InvalidDv { .. }));
    assert!(matches!(
        ruc_err("80069563 - 1"),
        RucError::InvalidChar { ch: ' ', pos: 8 }
    ));
    assert!(matches!(
        kuatia_core::ruc::consulta_body("80069563 -1"),
        Err(RucError::InvalidChar { ch: ' ', pos: 8 })
    ));
    assert_eq!(ruc_err("1-2-3"), RucError::TooShort { len: 1 });
    assert!(matches!(ruc_err("123-2-3"), RucError::InvalidDv { .. }));
    assert!(matches!(
        ruc_err("😀😀😀😀"),
        RucError::InvalidChar { ch: '😀', pos: 0 }
    ));
}

#[test]
fn ruc_error_finding() {
    let f = ruc_err("80069563-2").to_finding("emisor.ruc");
    assert_eq!(f.code, "INVALID_RUC");
    assert_eq!(f.path, "emisor.ruc");
    assert!(
        f.message_in(kuatia_core::msg::Lang::En)
            .contains("expected 1, got 2"),
        "{}",
        f.message
    );
}

#[test]
fn ruc_serde() {
    let r = Ruc::parse("80069563-1").unwrap();
    assert_eq!(serde_json::to_string(&r).unwrap(), "\"80069563-1\"");
    assert_eq!(serde_json::from_str::<Ruc>("\"80069563-1\"").unwrap(), r);
    assert!(serde_json::from_str::<Ruc>("\"80069563-2\"").is_err());
    assert!(serde_json::from_str::<Ruc>("80069563").is_err());
}

/// Any body matching XSD `tRuc`: `[1-9][0-9]*[0-9A-D]?`, 3–8 characters.
fn valid_body() -> impl Strategy<Value = String> {
    prop_oneof!["[1-9][0-9]{2,7}", "[1-9][0-9]{1,6}[A-Da-d]"]
}

proptest! {
    #[test]
    fn ruc_round_trip(body in valid_body()) {
        let ruc = Ruc::from_body(&body).unwrap();
        let text = ruc.to_string();
        let back = Ruc::parse(&text).unwrap();
        prop_assert_eq!(back, ruc);
        prop_assert_eq!(back.body(), body.to_ascii_uppercase());
        prop_assert_eq!(check_digit(&body).unwrap(), ruc.dv());
        prop_assert_eq!(ruc.padded8().len(), 8);
        prop_assert_eq!(Ruc::parse(&format!("{}{}", body, ruc.dv())), Err(RucError::MissingSeparator));
        for wrong in (0..=9u8).filter(|d| *d != ruc.dv()) {
            let bad = format!("{}-{}", ruc.body(), wrong);
            prop_assert_eq!(Ruc::parse(&bad), Err(RucError::WrongDv { expected: ruc.dv(), got: wrong }));
        }
    }

    #[test]
    fn ruc_parse_never_panics(s in "\\PC{0,20}") {
        let _ = Ruc::parse(&s);
        let _ = check_digit(&s);
    }
}

// ------------------------------------------------------------------------------------------------
// CDC

fn date(y: i32, m: Month, d: u8) -> Date {
    Date::from_calendar_date(y, m, d).unwrap()
}

#[allow(clippy::too_many_arguments)]
fn fields(
    td: u8,
    ruc: &str,
    est: u16,
    pe: u16,
    num: u32,
    tc: u8,
    fecha: Date,
    te: u8,
    cod: u32,
) -> CdcFields {
    CdcFields {
        tipo_documento: td,
        ruc: Ruc::parse(ruc).unwrap(),
        establecimiento: est,
        punto: pe,
        numero: num,
        tipo_contribuyente: tc,
        fecha,
        tipo_emision: te,
        codigo_seguridad: cod,
    }
}

/// SIFEN.md §2.4 worked examples.
fn cdc_table() -> Vec<(CdcFields, &'static str)> {
    vec![
        (
            fields(
                1,
                "44444401-7",
                1,
                1,
                14528,
                2,
                date(2017, Month::January, 25),
                1,
                587_326_098,
            ),
            "01444444017001001001452822017012515873260988",
        ),
        (
            fields(
                1,
                "80069563-1",
                1,
                1,
                1,
                2,
                date(2022, Month::August, 14),
                1,
                123_456_789,
            ),
            "01800695631001001000000122022081411234567891",
        ),
        (
            fields(
                5,
                "4554737-8",
                2,
                3,
                245,
                1,
                date(2025, Month::January, 31),
                1,
                1,
            ),
            "05045547378002003000024512025013110000000014",
        ),
        (
            fields(
                7,
                "80089752-8",
                10,
                2,
                9_999_999,
                2,
                date(2024, Month::December, 1),
                2,
                987_654_321,
            ),
            "07800897528010002999999922024120129876543216",
        ),
        (
            fields(
                4,
                "1234567-9",
                1,
                1,
                37,
                1,
                date(2023, Month::June, 17),
                1,
                555_000_111,
            ),
            "04012345679001001000003712023061715550001113",
        ),
        (
            fields(
                1,
                "1234567A-2",
                1,
                1,
                10,
                1,
                date(2025, Month::May, 5),
                1,
                111_222_333,
            ),
            "011234567A2001001000001012025050511112223339",
        ),
        (
            fields(
                1,
                "44444401-7",
                1,
                1,
                1,
                2,
                date(2025, Month::March, 10),
                1,
                123_456_789,
            ),
            "01444444017001001000000122025031011234567890",
        ),
    ]
}

#[test]
fn cdc_table_build_and_parse() {
    for (f, expected) in cdc_table() {
        let built = Cdc::build(&f).unwrap();
        assert_eq!(built.as_str(), expected);
        assert_eq!(built.to_string(), expected);
        assert_eq!(
            u32::from(built.dv()),
            expected[43..].parse::<u32>().unwrap()
        );
        let parsed = Cdc::parse(expected).unwrap();
        assert_eq!(parsed.fields(), f, "{expected}");
        assert_eq!(parsed, built);
        assert_eq!(expected.parse::<Cdc>().unwrap(), built);
        // The DV is the generic mod-11 over the first 43 characters.
        assert_eq!(check_digit(&expected[..43]).unwrap(), built.dv());
    }
}

#[test]
fn cdc_grouped_mt_example() {
    let cdc = Cdc::parse("01444444017001001001452822017012515873260988").unwrap();
    let grouped = "0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 0988";
    assert_eq!(cdc.grouped(), grouped);
    // The printed (grouped) form is accepted back.
    assert_eq!(Cdc::parse(grouped).unwrap(), cdc);
    assert_eq!(
        Cdc::parse(" 01444444017001001001452822017012515873260988\n").unwrap(),
        cdc
    );
}

#[test]
fn cdc_serde() {
    let cdc = Cdc::parse("01800695631001001000000122022081411234567891").unwrap();
    let json = serde_json::to_string(&cdc).unwrap();
    assert_eq!(json, "\"01800695631001001000000122022081411234567891\"");
    assert_eq!(serde_json::from_str::<Cdc>(&json).unwrap(), cdc);
    assert!(
        serde_json::from_str::<Cdc>("\"01800695631001001000000122022081411234567892\"").is_err()
    );

    let f = serde_json::to_value(cdc.fields()).unwrap();
    assert_eq!(
        f,
        serde_json::json!({
            "tipo_documento": 1, "ruc": "80069563-1", "establecimiento": 1, "punto": 1, "numero": 1,
            "tipo_contribuyente": 2, "fecha": "2022-08-14", "tipo_emision": 1, "codigo_seguridad": 123456789
        })
    );
    let back: CdcFields = serde_json::from_value(f).unwrap();
    assert_eq!(back, cdc.fields());
}

#[test]
fn cdc_fields_lenient_json() {
    let json = r#"{"tipo_documento":1,"ruc":"80069563-1","establecimiento":"001","punto":"001",
        "numero":"0000123","tipo_contribuyente":2,"fecha":"2024-03-15","tipo_emision":1,
        "codigo_seguridad":"123456789"}"#;
    let f = CdcFields::from_json(json).unwrap();
    assert_eq!(f.establecimiento, 1);
    assert_eq!(f.numero, 123);
    assert_eq!(f.codigo_seguridad, 123_456_789);
    assert_eq!(f.fecha, date(2024, Month::March, 15));
    let cdc = Cdc::build(&f).unwrap();
    // Layout by hand: 01 80069563 1 001 001 0000123 2 20240315 1 123456789 + DV.
    assert_eq!(
        &cdc.as_str()[..43],
        "0180069563100100100001232202403151123456789"
    );
    assert_eq!(check_digit(&cdc.as_str()[..43]).unwrap(), cdc.dv());

    // Same answer with numbers everywhere.
    let numeric = r#"{"tipo_documento":"01","ruc":"80069563-1","establecimiento":1,"punto":1,"numero":123,
        "tipo_contribuyente":"2","fecha":"2024-03-15","tipo_emision":"1","codigo_seguridad":123456789,"extra":true}"#;
    assert_eq!(CdcFields::from_json(numeric).unwrap(), f);
}

#[test]
fn cdc_fields_json_errors() {
    let base = serde_json::json!({"tipo_documento":1,"ruc":"80069563-1","establecimiento":"001","punto":"001",
        "numero":"0000123","tipo_contribuyente":2,"fecha":"2024-03-15","tipo_emision":1,"codigo_seguridad":"123456789"});
    let with = |key: &str, v: serde_json::Value| {
        let mut o = base.clone();
        o[key] = v;
        CdcFields::from_json(&o.to_string()).unwrap_err()
    };
    let e = with("establecimiento", "0001".into());
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        (code::INVALID_TYPE, "establecimiento")
    );
    let e = with("numero", "12a".into());
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        (code::INVALID_TYPE, "numero")
    );
    let e = with("numero", serde_json::json!(-5));
    assert_eq!(e.path, "numero");
    let e = with("numero", serde_json::json!(1.5));
    assert_eq!(e.path, "numero");
    let e = with("tipo_documento", serde_json::json!(300));
    assert_eq!(e.path, "tipo_documento");
    let e = with("fecha", "2023-02-30".into());
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        (code::INVALID_TYPE, "fecha")
    );
    let e = with("fecha", "2023-2-3".into());
    assert_eq!(e.path, "fecha");
    let e = with("ruc", "80069563-2".into());
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        (code::INVALID_RUC, "ruc")
    );
    assert!(
        e.message_in(kuatia_core::msg::Lang::En)
            .contains("expected 1, got 2"),
        "{}",
        e.message
    );

    let mut o = base.clone();
    o.as_object_mut().unwrap().remove("punto");
    let e = CdcFields::from_json(&o.to_string()).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        (code::REQUIRED, "punto")
    );

    let e = CdcFields::from_json("{\"tipo_documento\":").unwrap_err();
    assert_eq!(e.code, code::MALFORMED_JSON);
}

fn cdc_err(input: &str) -> CdcError {
    let e = Cdc::parse(input).expect_err(input);
    assert_eq!(e.code(), "INVALID_CDC");
    assert_eq!(e.code(), code::INVALID_CDC);
    assert_eq!(e.to_finding("cdc").code, "INVALID_CDC");
    e
}

/// Replaces the DV of a 43-char prefix so the string passes the DV check and reaches later checks.
fn with_dv(prefix43: &str) -> String {
    assert_eq!(prefix43.len(), 43);
    format!("{prefix43}{}", check_digit(prefix43).unwrap())
}

#[test]
fn cdc_bad_inputs() {
    let good = "01444444017001001001452822017012515873260988";
    assert_eq!(
        cdc_err(&format!("{}7", &good[..43])),
        CdcError::WrongDv {
            expected: 8,
            got: 7
        }
    );
    assert_eq!(
        cdc_err(&format!("{}7", &good[..43])).to_string(),
        "wrong CDC check digit: expected 8, got 7"
    );
    assert_eq!(cdc_err(&good[..43]), CdcError::Length { len: 43 });
    assert_eq!(cdc_err(&format!("{good}0")), CdcError::Length { len: 45 });
    assert_eq!(cdc_err(""), CdcError::Length { len: 0 });
    assert_eq!(
        cdc_err(&"1".repeat(100_000)),
        CdcError::Length { len: 100_000 }
    );
    assert_eq!(
        cdc_err(&good.replace('5', "X")),
        CdcError::InvalidChar { ch: 'X', pos: 21 }
    );
    // A letter A–D is only allowed at position 9 (last RUC character).
    assert_eq!(
        cdc_err(&format!("A{}", &good[1..])),
        CdcError::InvalidChar { ch: 'A', pos: 0 }
    );
    assert_eq!(
        cdc_err(&format!("{}E{}", &good[..9], &good[10..])),
        CdcError::InvalidChar { ch: 'E', pos: 9 }
    );
    assert_eq!(
        cdc_err(&format!("{}a{}", &good[..9], &good[10..])),
        CdcError::InvalidChar { ch: 'a', pos: 9 }
    );
    assert!(matches!(
        cdc_err(&format!("{}١", &good[..42])),
        CdcError::InvalidChar { ch: '١', pos: 42 }
    ));
    assert_eq!(
        cdc_err("0144 4444 0170 0100 1001 4528 2201 7012 5158 73260988 "),
        CdcError::InvalidChar { ch: ' ', pos: 4 }
    );
    assert_eq!(
        cdc_err("0144  4444 0170 0100 1001 4528 2201 7012 5158 7326 0988"),
        CdcError::InvalidChar { ch: ' ', pos: 4 }
    );
    assert_eq!(
        cdc_err("0144 4444 0170 0100 1001 4528 2201 7012 5158 7326 098"),
        CdcError::Length { len: 53 }
    );

    // Well-formed with a valid DV but bad content.
    let bad_date = with_dv("0144444401700100100145282202302301587326098");
    assert_eq!(
        cdc_err(&bad_date),
        CdcError::InvalidDate {
            text: "20230230".into()
        }
    );
    assert!(matches!(
        cdc_err(&with_dv("0144444401700100100145282202313011587326098")),
        CdcError::InvalidDate { .. }
    ));
    assert!(matches!(
        cdc_err(&with_dv("0144444401700100100145282000001011587326098")),
        CdcError::InvalidDate { .. }
    ));
    let oor = |field: &'static str, value: u64, min: u64, max: u64| CdcError::OutOfRange {
        field,
        value,
        min,
        max,
    };
    assert_eq!(
        cdc_err(&with_dv("0044444401700100100145282201701251587326098")),
        oor("tipo_documento", 0, 1, 99)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700000100145282201701251587326098")),
        oor("establecimiento", 0, 1, 999)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700100000145282201701251587326098")),
        oor("punto", 0, 1, 999)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700100100000002201701251587326098")),
        oor("numero", 0, 1, 9_999_999)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700100100145283201701251587326098")),
        oor("tipo_contribuyente", 3, 1, 2)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700100100145282201701250587326098")),
        oor("tipo_emision", 0, 1, 2)
    );
    assert_eq!(
        cdc_err(&with_dv("0144444401700100100145282201701251000000000")),
        oor("codigo_seguridad", 0, 1, 999_999_999)
    );
    // Embedded RUC with a wrong DV (44444401-6), all zeros, or a leading zero after padding is stripped (2 chars).
    assert_eq!(
        cdc_err(&with_dv("0144444401600100100145282201701251587326098")),
        CdcError::Ruc(RucError::WrongDv {
            expected: 7,
            got: 6
        })
    );
    assert_eq!(
        cdc_err(&with_dv("0100000000000100100145282201701251587326098")),
        CdcError::Ruc(RucError::Empty)
    );
    assert!(matches!(
        cdc_err(&with_dv("0100000012000100100145282201701251587326098")),
        CdcError::Ruc(RucError::TooShort { len: 2 })
    ));
}

#[test]
fn cdc_build_ranges() {
    let (ok, _) = cdc_table().remove(0);
    let check = |f: CdcFields, field: &str| {
        let e = Cdc::build(&f).unwrap_err();
        assert_eq!(e.code(), "INVALID_CDC");
        match e {
            CdcError::OutOfRange { field: got, .. } => assert_eq!(got, field),
            CdcError::InvalidDate { .. } => assert_eq!("fecha", field),
            other => panic!("{other:?}"),
        }
    };
    check(
        CdcFields {
            tipo_documento: 0,
            ..ok
        },
        "tipo_documento",
    );
    check(
        CdcFields {
            tipo_documento: 100,
            ..ok
        },
        "tipo_documento",
    );
    check(
        CdcFields {
            establecimiento: 0,
            ..ok
        },
        "establecimiento",
    );
    check(
        CdcFields {
            establecimiento: 1000,
            ..ok
        },
        "establecimiento",
    );
    check(CdcFields { punto: 1000, ..ok }, "punto");
    check(CdcFields { numero: 0, ..ok }, "numero");
    check(
        CdcFields {
            numero: 10_000_000,
            ..ok
        },
        "numero",
    );
    check(
        CdcFields {
            tipo_contribuyente: 3,
            ..ok
        },
        "tipo_contribuyente",
    );
    check(
        CdcFields {
            tipo_emision: 0,
            ..ok
        },
        "tipo_emision",
    );
    check(
        CdcFields {
            codigo_seguridad: 0,
            ..ok
        },
        "codigo_seguridad",
    );
    check(
        CdcFields {
            codigo_seguridad: 1_000_000_000,
            ..ok
        },
        "codigo_seguridad",
    );
    check(
        CdcFields {
            fecha: date(0, Month::January, 1),
            ..ok
        },
        "fecha",
    );
    assert!(Cdc::build(&CdcFields {
        tipo_documento: 99,
        establecimiento: 999,
        punto: 999,
        ..ok
    })
    .is_ok());
}

#[test]
fn weight_11_positions_do_not_change_dv() {
    // SIFEN.md §2.2: switching iTipEmi 1↔2 keeps the same DV.
    let (f, cdc) = cdc_table().remove(0);
    let other = Cdc::build(&CdcFields {
        tipo_emision: 2,
        ..f
    })
    .unwrap();
    assert_eq!(other.dv(), Cdc::parse(cdc).unwrap().dv());
}

// ------------------------------------------------------------------------------------------------
// Security code

struct Seq(Vec<u32>, usize);
impl SecurityCodeSource for Seq {
    fn next_u32(&mut self) -> u32 {
        let v = self.0[self.1 % self.0.len()];
        self.1 += 1;
        v
    }
}

#[test]
fn security_code_basics() {
    assert_eq!(
        security_code(&mut FixedSecurityCode(123_456_789), 1),
        123_456_789
    );
    assert_eq!(
        security_code(&mut FixedSecurityCode(999_999_999), 1),
        999_999_999
    );
    assert_eq!(security_code(&mut FixedSecurityCode(0), 1), 999_999_999);
    // Equal to numero with a stuck source: deterministic fallback, still in range and different.
    assert_eq!(security_code(&mut FixedSecurityCode(5), 5), 6);
    assert_eq!(
        security_code(&mut FixedSecurityCode(999_999_999), 999_999_999),
        1
    );
    // Equal to numero with a working source: draws again.
    assert_eq!(security_code(&mut Seq(vec![5, 77], 0), 5), 77);
    // Values in the biased tail (≥ 4 × 999_999_999) are rejected, not folded.
    assert_eq!(security_code(&mut Seq(vec![u32::MAX, 42], 0), 1), 42);
    // Any FnMut() -> u32 is a source.
    let mut n = 0u32;
    let mut counter = || {
        n += 1;
        n
    };
    assert_eq!(security_code(&mut counter, 1), 2);
}

proptest! {
    #[test]
    fn security_code_in_range_and_not_numero(draws in proptest::collection::vec(any::<u32>(), 1..5), numero in 1u32..=9_999_999) {
        let mut src = Seq(draws.clone(), 0);
        let c = security_code(&mut src, numero);
        prop_assert!((1..=999_999_999).contains(&c));
        prop_assert_ne!(c, numero);
        // Stuck on numero itself.
        let c = security_code(&mut FixedSecurityCode(numero), numero);
        prop_assert!((1..=999_999_999).contains(&c));
        prop_assert_ne!(c, numero);
    }

    #[test]
    fn cdc_build_parse_round_trip(
        td in 1u8..=99,
        body in valid_body(),
        est in 1u16..=999,
        pe in 1u16..=999,
        num in 1u32..=9_999_999,
        tc in 1u8..=2,
        day in 0i32..200_000,
        te in 1u8..=2,
        cod in 1u32..=999_999_999,
    ) {
        let fecha = date(1900, Month::January, 1) + time::Duration::days(i64::from(day));
        let f = CdcFields {
            tipo_documento: td, ruc: Ruc::from_body(&body).unwrap(), establecimiento: est, punto: pe,
            numero: num, tipo_contribuyente: tc, fecha, tipo_emision: te, codigo_seguridad: cod,
        };
        let cdc = Cdc::build(&f).unwrap();
        prop_assert_eq!(cdc.as_str().len(), 44);
        let parsed = Cdc::parse(cdc.as_str()).unwrap();
        prop_assert_eq!(parsed.fields(), f);
        prop_assert_eq!(Cdc::parse(&cdc.grouped()).unwrap(), cdc);
        // Any other last digit is rejected.
        let wrong = (cdc.dv() + 1) % 10;
        let bad = format!("{}{}", &cdc.as_str()[..43], wrong);
        prop_assert_eq!(Cdc::parse(&bad), Err(CdcError::WrongDv { expected: cdc.dv(), got: wrong }));
        // JSON round trip of the fields.
        let json = serde_json::to_string(&f).unwrap();
        prop_assert_eq!(CdcFields::from_json(&json).unwrap(), f);
    }

    #[test]
    fn cdc_parse_never_panics(s in "\\PC{0,60}") {
        let _ = Cdc::parse(&s);
    }

    #[test]
    fn cdc_parse_never_panics_digits(s in "[0-9A-D ]{40,56}") {
        if let Ok(c) = Cdc::parse(&s) {
            prop_assert_eq!(Cdc::build(&c.fields()).unwrap(), c);
        }
    }
}

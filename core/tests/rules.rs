//! Issue 32's pilot group `ids`: RUC and CDC findings carry their rule and parameters, render in both languages,
//! and keep their old English text and wire shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::cdc::Cdc;
use kuatia_core::error::code;
use kuatia_core::ruc::{Ruc, RucError};

fn ruc_err(s: &str) -> RucError {
    Ruc::parse(s).unwrap_err()
}

/// Issue 32's pilot: a RUC or CDC finding names its rule and parameters, keeps its English text on the wire for now,
/// renders in Spanish on request, and the JSON reader's serde channel carries the rule to the field's path.
#[test]
fn ruc_and_cdc_findings_name_their_rule() {
    use kuatia_core::msg::Lang;
    use kuatia_core::rule::Param;
    let mut f = ruc_err("80069563-2").to_finding("receptor.ruc");
    assert_eq!(f.rule, "ruc.check_digit");
    assert_eq!(f.params["expected"], Param::One("1".into()));
    assert_eq!(f.params["got"], Param::One("2".into()));
    assert_eq!(
        f.message,
        "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
    );
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["rule"], "ruc.check_digit");
    assert_eq!(
        json["params"],
        serde_json::json!({"expected": "1", "got": "2"})
    );
    let back: kuatia_core::Finding = serde_json::from_value(json).unwrap();
    assert_eq!(back, f);
    f.localize(Lang::En);
    assert_eq!(f.message, "wrong RUC check digit: expected 1, got 2");

    // A finding read back from JSON written before rules (no `rule`) writes exactly the three fields it had.
    let old = r#"{"code":"VALIDATION_ERROR","path":"x","message":"text"}"#;
    let read: kuatia_core::Finding = serde_json::from_str(old).unwrap();
    assert_eq!(read.rule, kuatia_core::rule::UNCLASSIFIED);
    assert_eq!(serde_json::to_string(&read).unwrap(), old);

    let cdc = Cdc::parse(&"0".repeat(43)).unwrap_err().to_finding("cdc");
    assert_eq!(
        (cdc.rule.as_ref(), cdc.code.as_str()),
        ("cdc.length", code::INVALID_CDC)
    );
    assert_eq!(
        cdc.message_in(kuatia_core::msg::Lang::En),
        "CDC must have 44 characters, got 43"
    );

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Body {
        ruc: Ruc,
    }
    let e = kuatia_core::shape::read::<Body>(r#"{"ruc": "80069563-2"}"#, "receptor").unwrap_err();
    let f = e.first();
    assert_eq!(
        (f.code.as_str(), f.path.as_str(), f.rule.as_ref()),
        ("INVALID_RUC", "receptor.ruc", "ruc.check_digit")
    );
    assert_eq!(
        f.message_in(kuatia_core::msg::Lang::En),
        "wrong RUC check digit: expected 1, got 2"
    );
}

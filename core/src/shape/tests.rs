#![allow(clippy::unwrap_used)]
use super::*;
use crate::error::code;

/// The texts of these tests, for the differential test (`super::differential`) too.
pub(super) const CASES: &[&str] = &[
    r#"{"a":1,"inner":{"n":2,"s":"x"},"list":[{"n":3,"s":"y","o":7}],"flag":true}"#,
    r#"{"a":"1","inner":{"s":5,"zz":1},"list":[{"n":300,"s":"ok"},"x",{"s":"y","o":-1}],"flag":1}"#,
    "{}",
    r#"{"a":"1","inner":{"n":1,"s":[]},"list":{},"flag":null}"#,
    r#"{"a":-1,"inner":{"n":1,"s":""},"list":[]}"#,
    "null",
    "[]",
    "7",
    r#"{"a":1,"b":2,"inner":{"n":1,"s":""},"list":[]}"#,
    r#"{"a":1,"a":2,"inner":{"n":1,"s":"","n":3},"list":[{"n":1,"s":"","s":""}]}"#,
    r#"{"a":1"#,
    r#"{"a":1} x"#,
    r#"{"inner":{"n":1,"#,
    r#"{"list":[{"n":1},"#,
    "",
    r#"{"a":"x","inner":{"n":9},"list":[{"n":1,"s":"ok"}]}"#,
    r#"{"a":[1,300]}"#,
    r#"{"a":[]} x"#,
    r#"{"a":[],"b":1}"#,
    "{",
    r#"{"a":"x"}"#,
    "{\n  \"a\": 1,\n  \"inner\": {\"n\": \"2\", \"s\": \"x\"},\n  \"list\": [ {\"n\":1, \"s\":\"\"} , 5 ]\n}",
    r#"{"list":[{"n":1,"s":""},[],{"n":1,"s":""},{}]}"#,
    r#"{"list":[{"n":1,"s":""} , [1] , {"n":1,"s":"","o":{}}]}"#,
    r#"{"a":1 x"#,
    r#"{"a" 1}"#,
    r#"{"a":tru}"#,
    r#"{"a":1.}"#,
    "[1,",
    "[1 x",
    r#"{"inner":{"n":1e999,"s":""}}"#,
    r#"{"inner":{"n":"\u00e9","s":"","\u00e9":1}}"#,
];

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Inner {
    n: u8,
    s: String,
    #[serde(default)]
    o: Option<u16>,
}

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Outer {
    a: u8,
    inner: Inner,
    list: Vec<Inner>,
    #[serde(default)]
    flag: bool,
}

fn found(text: &str) -> Vec<(String, String, String)> {
    read::<Outer>(text, "")
        .unwrap_err()
        .findings
        .into_iter()
        .map(|f| {
            let message = f.message_in(crate::msg::Lang::En);
            (f.code, f.path, message)
        })
        .collect()
}

fn codes(text: &str) -> Vec<(String, String)> {
    found(text).into_iter().map(|(c, p, _)| (c, p)).collect()
}

fn pair(c: &str, p: &str) -> (String, String) {
    (c.to_string(), p.to_string())
}

#[test]
fn valid_input_reads_as_serde_reads_it() {
    let text = r#"{"a":1,"inner":{"n":2,"s":"x"},"list":[{"n":3,"s":"y","o":7}],"flag":true}"#;
    assert_eq!(
        read::<Outer>(text, "").unwrap(),
        serde_json::from_str::<Outer>(text).unwrap()
    );
}

#[test]
fn every_missing_field_wrong_type_and_unknown_field_at_once() {
    // In the order serde meets them, members by name (`serde_json::Map` keeps them sorted).
    let got = codes(
        r#"{"a":"1","inner":{"s":5,"zz":1},"list":[{"n":300,"s":"ok"},"x",{"s":"y","o":-1}],"flag":1}"#,
    );
    assert_eq!(
        got,
        vec![
            pair(code::INVALID_TYPE, "a"),
            pair(code::INVALID_TYPE, "flag"),
            pair(code::INVALID_TYPE, "inner.s"),
            pair(code::NOT_ALLOWED, "inner.zz"),
            pair(code::REQUIRED, "inner.n"),
            pair(code::OUT_OF_RANGE, "list[0].n"),
            pair(code::INVALID_TYPE, "list[1]"),
            pair(code::OUT_OF_RANGE, "list[2].o"),
            pair(code::REQUIRED, "list[2].n"),
        ]
    );
    // Everything required and absent, nothing said about what is inside the absent parts.
    assert_eq!(
        codes("{}"),
        vec![
            pair(code::REQUIRED, "a"),
            pair(code::REQUIRED, "inner"),
            pair(code::REQUIRED, "list")
        ]
    );
}

#[test]
fn messages_are_in_the_projects_words() {
    let got = found(r#"{"a":"1","inner":{"n":1,"s":[]},"list":{},"flag":null}"#);
    let messages: Vec<&str> = got.iter().map(|(_, _, m)| m.as_str()).collect();
    assert_eq!(
        messages,
        [
            "must be a whole number, found text",
            "must be true or false, found null",
            "must be text, found a list",
            "must be a list, found an object",
        ]
    );
    let f = found(r#"{"a":-1,"inner":{"n":1,"s":""},"list":[]}"#);
    assert_eq!(f[0].2, "must be a whole number from 0 to 255");
    for (text, message) in [
        ("null", NOT_AN_OBJECT),
        ("[]", NOT_AN_OBJECT),
        ("7", NOT_AN_OBJECT),
    ] {
        assert_eq!(
            found(text),
            vec![(code::INVALID_TYPE.into(), String::new(), message.into())]
        );
    }
    let f = found(r#"{"a":1,"b":2,"inner":{"n":1,"s":""},"list":[]}"#);
    assert_eq!(f[0].1, "b");
    assert_eq!(f[0].2, "is not a known field here");
    assert_eq!(found("{}")[0].2, "is required");
}

#[test]
fn repeated_keys_are_reported_at_their_own_path() {
    assert_eq!(
        codes(r#"{"a":1,"a":2,"inner":{"n":1,"s":"","n":3},"list":[{"n":1,"s":"","s":""}]}"#),
        vec![
            pair(code::NOT_ALLOWED, "a"),
            pair(code::NOT_ALLOWED, "inner.n"),
            pair(code::NOT_ALLOWED, "list[0].s"),
        ]
    );
}

#[test]
fn unreadable_json_is_one_located_finding() {
    for (text, path) in [
        (r#"{"a":1"#, "x"),
        (r#"{"a":1} x"#, "x"),
        (r#"{"inner":{"n":1,"#, "x.inner"),
        (r#"{"list":[{"n":1},"#, "x.list[1]"),
        ("", "x"),
    ] {
        let u = read::<Outer>(text, "x").unwrap_err();
        assert_eq!(u.findings.len(), 1, "{text}");
        assert_eq!(
            (u.findings[0].code.as_str(), u.findings[0].path.as_str()),
            (code::MALFORMED_JSON, path),
            "{text}"
        );
    }
    let deep = "[".repeat(200);
    let u = read::<Outer>(&deep, "x").unwrap_err();
    assert_eq!(u.findings[0].path, "x");
}

#[test]
fn numbers_keep_their_exact_text() {
    let (v, _) = parse(r#"{"a":1.10,"b":12345678901234567890123.5,"c":-0}"#, "").unwrap();
    assert_eq!(
        v.to_string(),
        r#"{"a":1.10,"b":12345678901234567890123.5,"c":-0}"#
    );
}

#[test]
fn the_rules_see_the_rest_but_not_the_stand_ins() {
    let u =
        read::<Outer>(r#"{"a":"x","inner":{"n":9},"list":[{"n":1,"s":"ok"}]}"#, "").unwrap_err();
    let all = u.with_rules(|o| {
        vec![
            Finding::new(code::INVALID_VALUE, "a", format!("{}", o.a)),
            Finding::new(code::INVALID_VALUE, "inner.n", format!("{}", o.inner.n)),
            Finding::new(code::REQUIRED, "inner.s", "empty"),
            Finding::new(code::INVALID_VALUE, "list[0].s", o.list[0].s.clone()),
        ]
    });
    let all: Vec<Finding> = all
        .into_iter()
        .map(|mut f| {
            f.localize(crate::msg::Lang::En);
            f
        })
        .collect();
    let got: Vec<(&str, &str)> = all
        .iter()
        .map(|f| (f.path.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", "must be a whole number, found text"),
            ("inner.s", "is required"),
            ("inner.n", "9"),
            ("list[0].s", "ok"),
        ]
    );
}

#[test]
fn paths_inside_fields() {
    assert!(under("items[0].iva", "items[0]"));
    assert!(under("items[0].iva", "items"));
    assert!(under("items", "items"));
    assert!(!under("items2", "items"));
    assert!(!under("receptor.ruc", "receptor.r"));
    assert!(under("anything", ""));
}

/// The fast read (no path) and the located one agree: valid input reads the same, anything else gets the located
/// finding, trailing characters included.
#[test]
fn from_json_fast_reads_once_and_locates_problems() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct T {
        a: Vec<u8>,
    }
    assert_eq!(
        from_json_fast::<T>(r#"{"a":[1,2]}"#, "x").unwrap(),
        T { a: vec![1, 2] }
    );
    for bad in [
        r#"{"a":[1,300]}"#,
        r#"{"a":[]} x"#,
        r#"{"a":[],"b":1}"#,
        "{",
    ] {
        assert_eq!(
            from_json_fast::<T>(bad, "x").map_err(|u| u.findings),
            read::<T>(bad, "x").map_err(|u| u.findings),
            "{bad}"
        );
    }
    let f = from_json_fast::<T>(r#"{"a":[1,300]}"#, "x")
        .unwrap_err()
        .first();
    assert_eq!(
        (f.code.as_str(), f.path.as_str()),
        (code::OUT_OF_RANGE, "x.a[1]")
    );
    let f = from_json_fast::<T>(r#"{"a":[]} x"#, "x")
        .unwrap_err()
        .first();
    assert_eq!(
        (f.code.as_str(), f.path.as_str()),
        (code::MALFORMED_JSON, "x")
    );
}

#[test]
fn json_findings_name_the_kind_of_problem() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: u8,
    }
    let read = |s: &str| from_json::<T>(s, "arg").unwrap_err();
    let f = read(r#"{"a":1"#);
    assert_eq!(
        (f.code.as_str(), f.path.as_str()),
        (code::MALFORMED_JSON, "arg")
    );
    let f = read("{}");
    assert_eq!(
        (
            f.code.as_str(),
            f.path.as_str(),
            f.message_in(crate::msg::Lang::En).as_str()
        ),
        (code::REQUIRED, "arg.a", "is required")
    );
    assert_eq!(read(r#"{"a":1,"b":2}"#).code, code::NOT_ALLOWED);
    let f = read(r#"{"a":"x"}"#);
    assert_eq!(
        (
            f.code.as_str(),
            f.path.as_str(),
            f.message_in(crate::msg::Lang::En).as_str()
        ),
        (
            code::INVALID_TYPE,
            "arg.a",
            "must be a whole number, found text"
        )
    );
}

/// Inside an enum's variant (`{"ruc": …}` of the QR receptor in the C ABI and WebAssembly), the path goes through the
/// variant's name as through a member: from its position alone the variant cannot be told from a field (with
/// serde_path_to_error the path stopped at the enum). An unknown variant is still at the enum.
#[test]
fn inside_a_variant_the_path_names_it() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Receptor {
        Ruc(String),
        SinDocumento,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Q {
        receptor: Receptor,
    }
    let at = |text: &str| {
        let f = read_one::<Q>(text, "x").unwrap_err();
        (f.code, f.path)
    };
    assert_eq!(
        at(r#"{"receptor":{"ruc":5}}"#),
        (code::INVALID_TYPE.to_string(), "x.receptor.ruc".to_string())
    );
    for text in [r#"{"receptor":{"dni":"5"}}"#, r#"{"receptor":"dni"}"#] {
        assert_eq!(
            at(text),
            (code::INVALID_VALUE.to_string(), "x.receptor".to_string()),
            "{text}"
        );
    }
    assert!(read_one::<Q>(r#"{"receptor":"sin_documento"}"#, "x").is_ok());
}

/// The spaced text leaves strings alone; serde_json's line and column become a byte offset.
#[test]
fn spaced_text_and_offsets() {
    assert_eq!(
        locate::spaced(r#"{"a":["x,]\"}",1],"b":{}}"#),
        r#"{"a":["x,]\"}" ,1 ]  ,"b":{ }  } "#
    );
    let text = "{\n  \"a\": 1,\n  \"b\": x";
    assert_eq!(locate::offset(text, 3, 7), 19);
    assert_eq!(locate::offset(text, 1, 1), 1);
    assert_eq!(locate::offset(text, 0, 0), 0);
    assert_eq!(locate::offset(text, 9, 99), text.len());
}

//! One answer for every entity and character reference, from every XML reader of the crate: the DE parser
//! (`xml::parse`), C14N (`sign::c14n::canonicalize_element`), signature verification (`sign::verify`) and the
//! SOAP reader (`sifen::parse_response`), in text and in attribute values. The expected answers follow XML 1.0
//! (production 66 `CharRef`, production 2 `Char`, WFC: Entity Declared) and xmllint agrees with each of them.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use kuatia_core::document::{build, IssueContext};
use kuatia_core::error::code;
use kuatia_core::invoice::parse_request;
use kuatia_core::profile::Emisor;
use kuatia_core::sifen::{self, parse_response, Response};
use kuatia_core::sign::c14n::{canonicalize_element, Method};
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify};
use std::io::Write as _;
use std::process::{Command, Stdio};
use time::macros::datetime;

/// Each reference and the character it stands for, `None` when no conforming XML processor accepts it.
const CASES: &[(&str, Option<char>)] = &[
    ("&#0;", None),
    ("&#1;", None),
    ("&#9;", Some('\t')),
    ("&#xD800;", None),
    ("&#x110000;", None),
    ("&#xFFFE;", None),
    ("&#+65;", None),
    ("&#x+41;", None),
    ("&#X41;", None),
    ("&#-65;", None),
    ("&#;", None),
    ("&bogus;", None),
    ("&amp;", Some('&')),
    ("&#65;", Some('A')),
    ("&#x41;", Some('A')),
    ("&#x0041;", Some('A')),
    ("&#x1F600;", Some('😀')),
];

/// xmllint's verdict on a document: well-formed or not.
fn xmllint_accepts(xml: &str) -> bool {
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xmllint (libxml2-utils) must be installed to run these tests");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

#[test]
fn the_expected_answers_are_xmllints() {
    for &(r, want) in CASES {
        let text = format!("<r>t{r}u</r>");
        let attr = format!("<r a=\"x{r}y\"/>");
        assert_eq!(xmllint_accepts(&text), want.is_some(), "xmllint on {text}");
        assert_eq!(xmllint_accepts(&attr), want.is_some(), "xmllint on {attr}");
    }
}

/// A signed rDE whose first item description holds `XMARKX` (where the DE-parser cases put their reference).
fn signed_rde() -> (String, String) {
    let json = r#"{"tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Mandioca XMARKX", "cantidad": 1, "precio_unitario": 10000, "iva": 10}]}"#;
    let req = parse_request(json).unwrap();
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 1,
        codigo_seguridad: 123_456_789,
    };
    let de = build(&req, &Emisor::sandbox(), ctx).unwrap();
    let xml = kuatia_core::xml::write(&de);
    let signed = sign_element(&xml, &de.cdc, &sandbox_test_signer().unwrap()).unwrap();
    assert!(verify(&signed.xml, None).valid);
    (signed.xml, de.cdc)
}

#[test]
fn the_de_parser_gives_the_answer() {
    let (xml, _) = signed_rde();
    for &(r, want) in CASES {
        let text = xml.replacen("XMARKX", &format!("X{r}X"), 1);
        match (kuatia_core::xml::parse(&text), want) {
            (Ok(de), Some(c)) => {
                assert_eq!(de.items[0].descripcion, format!("Mandioca X{c}X"), "{r}")
            }
            (Err(e), None) => assert_eq!(e.code, code::MALFORMED_XML, "{r}: {e}"),
            (got, _) => panic!("xml::parse, {r} in text: {got:?}, expected {want:?}"),
        }
        let attr = xml.replacen("<dVerFor>", &format!("<dVerFor a=\"x{r}y\">"), 1);
        match (kuatia_core::xml::parse(&attr), want) {
            (Ok(_), Some(_)) => {}
            (Err(e), None) => assert_eq!(e.code, code::MALFORMED_XML, "{r}: {e}"),
            (got, _) => panic!("xml::parse, {r} in an attribute: {got:?}, expected {want:?}"),
        }
    }
}

/// `c` escaped as C14N writes it in text (`attr` false) or in an attribute value.
fn c14n_escaped(c: char, attr: bool) -> String {
    match c {
        '&' => "&amp;".into(),
        '<' => "&lt;".into(),
        '>' if !attr => "&gt;".into(),
        '"' if attr => "&quot;".into(),
        '\t' if attr => "&#x9;".into(),
        '\n' if attr => "&#xA;".into(),
        '\r' => "&#xD;".into(),
        c => c.to_string(),
    }
}

#[test]
fn c14n_gives_the_answer() {
    for &(r, want) in CASES {
        for (xml, expected) in [
            (
                format!("<r Id=\"a\">t{r}u</r>"),
                want.map(|c| format!("<r Id=\"a\">t{}u</r>", c14n_escaped(c, false))),
            ),
            (
                format!("<r Id=\"a\" b=\"x{r}y\"></r>"),
                want.map(|c| format!("<r Id=\"a\" b=\"x{}y\"></r>", c14n_escaped(c, true))),
            ),
        ] {
            let got = canonicalize_element(&xml, "a", &Method::EXCLUSIVE);
            match (got, expected) {
                (Ok(bytes), Some(e)) => assert_eq!(String::from_utf8(bytes).unwrap(), e, "{xml}"),
                (Err(e), None) => assert_eq!(e.code(), code::MALFORMED_XML, "{xml}: {e}"),
                (got, expected) => panic!("C14N of {xml}: {got:?}, expected {expected:?}"),
            }
        }
    }
}

#[test]
fn verification_gives_the_answer() {
    let (xml, _) = signed_rde();
    let start = xml.find("<X509Certificate>").unwrap() + "<X509Certificate>".len();
    let cert_len = xml[start..].find('<').unwrap();
    for &(r, want) in CASES {
        // In the certificate's base64 text: a resolved whitespace character is skipped by base64 decoding, a
        // resolved base64 letter put in the place of the same letter leaves the certificate as it was.
        let text = match want {
            Some(c) if c.is_ascii_alphanumeric() => {
                let at = start + xml[start..start + cert_len].find(c).unwrap();
                format!("{}{r}{}", &xml[..at], &xml[at + c.len_utf8()..])
            }
            _ => format!("{}{r}{}", &xml[..start + 4], &xml[start + 4..]),
        };
        let report = verify(&text, None);
        let got = report.error.as_ref().map(|e| e.code.as_str());
        match want {
            Some(c) if c.is_ascii_alphanumeric() || c.is_ascii_whitespace() => {
                assert!(report.valid, "{r} in the certificate: {report:?}")
            }
            // A character base64 does not have: the document reads, the certificate does not.
            Some(_) => assert!(
                !report.valid && got != Some(code::MALFORMED_XML),
                "{r} in the certificate: {report:?}"
            ),
            None => assert_eq!(
                got,
                Some(code::MALFORMED_XML),
                "{r} in the certificate: {report:?}"
            ),
        }
        // In an attribute of the Signature element (outside what is signed).
        let attr = xml.replacen("<Signature ", &format!("<Signature a=\"x{r}y\" "), 1);
        let report = verify(&attr, None);
        match want {
            Some(_) => assert!(report.valid, "{r} in an attribute: {report:?}"),
            None => assert_eq!(
                report.error.as_ref().map(|e| e.code.as_str()),
                Some(code::MALFORMED_XML),
                "{r} in an attribute: {report:?}"
            ),
        }
    }
}

#[test]
fn the_soap_reader_gives_the_answer() {
    let answer = |msg_attr: &str, msg: &str| {
        format!(
            concat!(
                r#"<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">"#,
                r#"<env:Header/><env:Body><ns2:rResEnviConsRUC xmlns:ns2="http://ekuatia.set.gov.py/sifen/xsd">"#,
                r#"<ns2:dCodRes>0500</ns2:dCodRes><ns2:dMsgRes a="{}">{}</ns2:dMsgRes></ns2:rResEnviConsRUC>"#,
                r#"</env:Body></env:Envelope>"#
            ),
            msg_attr, msg
        )
    };
    for &(r, want) in CASES {
        for (attr, msg) in [
            ("x", format!("RUC{r}no existe")),
            (&*format!("x{r}y"), "RUC no existe".into()),
        ] {
            let xml = answer(attr, &msg);
            match (parse_response(xml.as_bytes()), want) {
                (Ok(Response::ConsultaRuc(res)), Some(c)) => {
                    let expected = msg.replace(r, &c.to_string());
                    assert_eq!(res.resultado.message, expected, "{xml}");
                }
                (Err(e), None) => {
                    assert_eq!(e.code, sifen::code::UNEXPECTED_RESPONSE, "{xml}: {e}")
                }
                (got, _) => panic!("SOAP answer {xml}: {got:?}, expected {want:?}"),
            }
        }
    }
}

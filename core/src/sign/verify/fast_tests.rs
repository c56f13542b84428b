#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

const ID: &str = "01444444017001001000000122025031011234567890";

fn blank() -> VerifyReport {
    VerifyReport {
        valid: false,
        reference_id: None,
        digest_ok: false,
        signature_ok: false,
        certificate: None,
        certificate_valid_at: None,
        error: None,
    }
}

/// Whether the one-pass path decides `xml` itself instead of handing it to the general path.
fn fast_decides(xml: &str) -> bool {
    fast::scan(xml)
        .is_some_and(|s| fast::verify(&mut Verifier::new(), xml, &s, None, blank()).is_some())
}

/// `verify` (which tries the one-pass path first) and the general path alone give the same report.
fn same(xml: &str, at: Option<PrimitiveDateTime>) -> VerifyReport {
    let got = verify(xml, at);
    let general = verify_general(&mut Verifier::new(), xml, at, blank());
    assert_eq!(got, general, "{xml}");
    got
}

fn rde(body: &str) -> String {
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
            r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
            r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd">"#,
            r#"<dVerFor>150</dVerFor><DE Id="{ID}">{body}</DE></rDE>"#
        ),
        ID = ID,
        body = body
    )
}

fn signed(xml: &str) -> String {
    let signer = crate::sign::sandbox_test_signer().unwrap();
    crate::sign::sign_element(xml, ID, &signer).unwrap().xml
}

/// A signed DE in the usual shape, with the QR group after the Signature as SIFEN documents carry it.
fn usual() -> String {
    let body = "<dDVId>0</dDVId><gDatRec><dNomRec>Cliente &amp; Hijos &lt;S.A.&gt; Ñandutí</dNomRec></gDatRec>\
                <gCamItem><dCantProSer>2</dCantProSer><gValorItem><dPUniProSer>110000</dPUniProSer></gValorItem></gCamItem>";
    signed(&rde(body)).replace(
        "</rDE>",
        "<gCamFuFD><dCarQR>https://ekuatia.set.gov.py/consultas/qr?nVersion=150&amp;Id=1</dCarQR></gCamFuFD></rDE>\n",
    )
}

#[test]
fn takes_the_usual_shape_and_reports_what_the_general_path_reports() {
    let doc = usual();
    assert!(fast_decides(&doc));
    let at = time::macros::datetime!(2026-01-01 00:00:00);
    assert!(same(&doc, None).valid);
    assert!(same(&doc, Some(at)).certificate_valid_at.is_some());
    // Pretty-printed Signature (line feeds between its elements, in its base64), as xmlsec1 writes it.
    let pretty = doc
        .replace("<SignedInfo>", "\n<SignedInfo>")
        .replace("</SignedInfo>", "</SignedInfo>\n")
        .replace("</SignatureValue>", "\n</SignatureValue>\n")
        .replace("<X509Certificate>", "<X509Certificate>\n");
    assert!(fast_decides(&pretty));
    assert!(same(&pretty, None).valid);
    // Tampered, still in the shape: each failure found on the one-pass path.
    let cases = [
        ("Hijos", "Hijas", code::DIGEST_MISMATCH),
        ("<dCantProSer>2<", "<dCantProSer>3<", code::DIGEST_MISMATCH),
        (
            "<SignatureValue>",
            "<SignatureValue>AAAA",
            code::SIGNATURE_INVALID,
        ),
        (
            "xmldsig-more#rsa-sha256",
            "xmldsig-more#rsa-sha384",
            code::SIGNATURE_INVALID,
        ),
        ("xmlenc#sha256", "xmlenc#sha512", code::DIGEST_MISMATCH),
        (
            "xmldsig-more#rsa-sha256",
            "xmldsig-more#rsa-md5",
            code::UNSUPPORTED_ALGORITHM,
        ),
        (
            "<X509Certificate>",
            "<X509Certificate>AAAA",
            code::CERTIFICATE_INVALID,
        ),
        ("<DigestValue>", "<DigestValue>!", code::SIGNATURE_MALFORMED),
        ("URI=\"#", "URI=\"#x", code::ELEMENT_NOT_FOUND),
    ];
    for (from, to, expected) in cases {
        let bad = doc.replacen(from, to, 1);
        assert_ne!(bad, doc, "{from}");
        let report = same(&bad, None);
        assert_eq!(
            report.error.map(|e| e.code),
            Some(expected.to_string()),
            "{to}"
        );
        if expected != code::ELEMENT_NOT_FOUND {
            assert!(fast_decides(&bad), "{to}");
        }
    }
}

/// What `issue` signs (our writer's DE, the QR group after the Signature) takes the one-pass path, with the
/// request's special characters escaped in its text.
#[test]
fn takes_what_issue_signs() {
    let signer = crate::sign::sandbox_test_signer().unwrap();
    let req = crate::invoice::parse_request(
        r#"{"tipo_documento": 1, "receptor": {"ruc": "80069563-1", "razon_social": "Cliente \"Ñandutí\" & <Hijos> S.A."},
            "items": [{"descripcion": "Servicio 'mensual' > 1", "cantidad": 3, "precio_unitario": 1100000, "iva": 10},
                      {"descripcion": "Chipa", "cantidad": 2, "precio_unitario": 5000, "iva": 5}]}"#,
    )
    .unwrap();
    let issued = crate::issue::issue(
        &crate::profile::Emisor::sandbox(),
        &req,
        &signer,
        time::macros::datetime!(2025-03-10 10:11:00),
        &mut crate::cdc::FixedSecurityCode(123_456_789),
        &mut crate::issue::MemoryNumbering::default(),
    )
    .unwrap();
    assert!(fast_decides(&issued.xml), "{}", issued.xml);
    assert!(same(&issued.xml, None).valid);
}

#[test]
fn leaves_other_shapes_to_the_general_path() {
    // Valid signatures over DEs not canonical as written: the general path verifies them.
    for body in [
        "<a/>",
        r#"<x b="1" a="2">t</x>"#,
        "<x a='1'>t</x>",
        r#"<x  a="1">t</x>"#,
        r#"<x a = "1">t</x>"#,
        r#"<x a="1&amp;2">t</x>"#,
        r#"<x a="1 2" >t</x>"#,
        "<x>&quot;q&quot;</x>",
        "<x>&#xE9;</x>",
        "<x>a > b</x>",
        "<x>a\r\nb</x>",
        "<x>\tt\n</x >",
        "<!-- c --><x>t</x>",
        "<?pi x?><x>t</x>",
        "<x><![CDATA[<&>]]></x>",
        r#"<p:x xmlns:p="urn:p">t</p:x>"#,
        r#"<x xmlns="urn:o">t</x>"#,
        r#"<x xmlns:p="urn:p" p:a="1">t</x>"#,
        r#"<x xml:lang="gn">t</x>"#,
    ] {
        let doc = signed(&rde(body));
        assert!(!fast_decides(&doc), "{body}");
        assert!(same(&doc, None).valid, "{body}");
    }
    let doc = usual();
    // Refused documents, each refused by the general path with its own code.
    let cases = [
        // Another element with the referenced Id, before or after the Signature.
        (
            "<dVerFor>".to_string(),
            format!(r#"<x Id="{ID}"></x><dVerFor>"#),
            code::DUPLICATE_ID,
        ),
        (
            "<gCamFuFD>".to_string(),
            format!(r#"<x Id="{ID}"></x><gCamFuFD>"#),
            code::DUPLICATE_ID,
        ),
        (
            "</rDE>".into(),
            "</rDE><rDE></rDE>".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "</rDE>".into(),
            "</rDE>x".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "<?xml".into(),
            "<!DOCTYPE r><?xml".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "</gCamFuFD>".into(),
            "</gCamFuFD><x>&foo;</x>".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "</gCamFuFD>".into(),
            "</gCamFuFD><x a=\"&foo;\"></x>".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "</gCamFuFD>".into(),
            "</gCamFuFD><x xmlns:p=\"\"></x>".into(),
            crate::error::code::MALFORMED_XML,
        ),
        (
            "</dVerFor>".into(),
            "</dVerFr>".into(),
            crate::error::code::MALFORMED_XML,
        ),
        // Valid, outside the subset: a comment after the root element, a byte order mark.
        ("</rDE>".into(), "</rDE><!-- c -->".into(), ""),
        ("<?xml".into(), "\u{feff}<?xml".into(), ""),
    ];
    for (from, to, expected) in cases {
        let bad = doc.replacen(&from, &to, 1);
        assert_ne!(bad, doc, "{from}");
        let report = same(&bad, None);
        assert!(!fast_decides(&bad), "{to}");
        assert_eq!(
            report.error.map(|e| e.code).unwrap_or_default(),
            expected,
            "{to}"
        );
    }
    // The Signature inside the signed element (enveloped): left to the general path, which verifies it.
    let inside = {
        let signer = crate::sign::sandbox_test_signer().unwrap();
        let xml = rde("<a>t</a>");
        let s = crate::sign::sign_element(&xml, ID, &signer).unwrap().xml;
        let at = s.find("<Signature").unwrap();
        let end = s.find("</Signature>").unwrap() + "</Signature>".len();
        let sig = &s[at..end];
        let rest = format!("{}{}", &s[..at], &s[end..]);
        rest.replacen("<a>t</a>", &format!("<a>t</a>{sig}"), 1)
    };
    assert!(!fast_decides(&inside));
    assert!(same(&inside, None).valid);
}

/// Small edits at every markup character of a signed document (and every 11th byte): the one-pass path, when it
/// decides, gives the general path's report.
#[test]
fn agrees_with_the_general_path_on_edits() {
    let doc = usual();
    let edits: [&str; 12] = [
        "",
        " ",
        "\n",
        "\r",
        "/",
        "'",
        "\"",
        "&amp;",
        "&quot;",
        ":",
        "xmlns=\"urn:x\" ",
        " Id=\"01444444017001001000000122025031011234567890\"",
    ];
    let (mut fast, mut all) = (0, 0);
    let mut kept = Verifier::new();
    let mut kept_general = Verifier::new();
    for (i, c) in doc.char_indices() {
        if !(matches!(c, '<' | '>' | '"' | '=' | '&') || i % 11 == 0) {
            continue;
        }
        for (k, edit) in edits.iter().enumerate() {
            // Insert before the character, or replace it (the empty edit deletes it).
            for replace in [false, true] {
                if !replace && k == 0 {
                    continue;
                }
                let end = if replace { i + c.len_utf8() } else { i };
                let xml = format!("{}{edit}{}", &doc[..i], &doc[end..]);
                all += 1;
                if fast_decides(&xml) {
                    fast += 1;
                }
                let got = kept.verify(&xml, None);
                let general = verify_general(&mut kept_general, &xml, None, blank());
                assert_eq!(got, general, "{i} {edit:?} {replace}: {xml}");
            }
        }
    }
    // Not vacuous: the one-pass path decided many of them (text and base64 edits stay in its subset).
    assert!(fast > all / 10, "{fast} of {all}");
}

/// The fuzz targets' seeds that are text (documents, fragments, adversarial shapes): the same reports.
#[test]
fn agrees_with_the_general_path_on_fuzz_seeds() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut n = 0;
    for dir in ["de_xml", "c14n_diff", "sifen_response"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let bytes = std::fs::read(e.unwrap().path()).unwrap();
            if let Ok(xml) = std::str::from_utf8(&bytes) {
                same(xml, None);
                n += 1;
            }
        }
    }
    assert!(n > 100, "{n} seeds");
}

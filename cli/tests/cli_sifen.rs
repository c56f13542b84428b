//! `kuatia sifen`: the SOAP requests it prints (checked against the official WS schemas with xmllint) and the
//! answers it parses, with the CLI's exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../core/tests/common/mod.rs"]
mod xsd;

use common::{run, TempDir};
use std::path::PathBuf;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/sifen_samples")
        .join(name)
}

/// The body element of a printed envelope, validated with xmllint against the official `schema` (through the
/// XML catalog of core's test helpers, which maps SIFEN's schema URLs to the vendored reference/sifen/xsd).
fn assert_body_valid(envelope: &str, schema: &str) {
    let start = envelope.find("<env:Body>").unwrap() + "<env:Body>".len();
    let end = envelope.rfind("</env:Body>").unwrap();
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
        &envelope[start..end]
    );
    xsd::Schemas::new()
        .validate(&body, schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}\n{body}"));
}

#[test]
fn consulta_prints_a_schema_valid_request_for_the_chosen_environment() {
    let cdc = "01800695631001001000000122022081411234567891";
    let (code, v, _) = run(&["sifen", "consulta", cdc, "--id", "7"], None);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["service"], "consulta");
    assert_eq!(
        v["url"],
        "https://sifen-test.set.gov.py/de/ws/consultas/consulta.wsdl"
    );
    assert_eq!(v["content_type"], "application/xml; charset=utf-8");
    let xml = v["xml"].as_str().unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert!(xml.contains("<dId>7</dId>") && xml.contains(&format!("<dCDC>{cdc}</dCDC>")));
    assert_body_valid(xml, "WS_SiConsDE_v141.xsd");
    let (_, v, _) = run(&["sifen", "consulta", cdc, "--prod"], None);
    assert_eq!(
        v["url"],
        "https://sifen.set.gov.py/de/ws/consultas/consulta.wsdl"
    );
    // A CDC with a wrong check digit is the caller's error (exit 1, the finding on stdout).
    let (code, v, _) = run(
        &[
            "sifen",
            "consulta",
            "01800695631001001000000122022081411234567890",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], "INVALID_CDC");
}

#[test]
fn consulta_ruc_takes_the_ruc_without_its_check_digit() {
    let (code, v, _) = run(&["sifen", "consulta-ruc", "80069563-1", "--id", "3"], None);
    assert_eq!(code, 0, "{v}");
    let xml = v["xml"].as_str().unwrap();
    assert!(xml.contains("<dRUCCons>80069563</dRUCCons>"), "{xml}");
    assert_body_valid(xml, "WS_SiConsRUC_v141.xsd");
    // The WS schema's own form, the body alone (5 to 8 characters), is accepted too.
    let (code, v, _) = run(&["sifen", "consulta-ruc", "80069563", "--id", "3"], None);
    assert_eq!(code, 0, "{v}");
    assert_body_valid(v["xml"].as_str().unwrap(), "WS_SiConsRUC_v141.xsd");
}

/// Issue 14 #6: a body shorter than the schema's 5 characters never becomes a request SIFEN answers 0160 to, and a
/// wrong check digit is named as such.
#[test]
fn consulta_ruc_refuses_what_the_schema_refuses() {
    let (code, v, _) = run(&["--lang", "en", "sifen", "consulta-ruc", "444-8"], None);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "INVALID_RUC");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at least 5 characters"),
        "{v}"
    );
    let (code, v, _) = run(
        &["sifen", "consulta-ruc", "80069563-2", "--lang", "en"],
        None,
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(
        v["error"]["message"],
        "wrong RUC check digit: expected 1, got 2"
    );
}

/// Issue 34 #7: a space inside the RUC is not its written form (only the outer ones are trimmed).
#[test]
fn consulta_ruc_refuses_a_space_inside_the_ruc() {
    for ruc in ["80069563 -1", "80069563- 1", "8006 9563-1"] {
        let (code, v, _) = run(&["sifen", "consulta-ruc", ruc, "--id", "3"], None);
        assert_eq!(code, 1, "{ruc}: {v}");
        assert_eq!(v["error"]["code"], "INVALID_RUC", "{ruc}: {v}");
    }
    let (code, v, _) = run(
        &["sifen", "consulta-ruc", " 80069563-1 ", "--id", "3"],
        None,
    );
    assert_eq!(code, 0, "{v}");
}

#[test]
fn an_issued_document_goes_into_recibe_and_a_cancellation_event() {
    let tmp = TempDir::new("sifen-recibe");
    let out = tmp.0.to_str().unwrap();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/factura.json");
    let (code, issued, err) = run(
        &[
            "issue",
            example.to_str().unwrap(),
            "--out",
            out,
            "--at",
            "2025-03-10T10:11:00",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let cdc = issued["cdc"].as_str().unwrap();
    let file = tmp.0.join(format!("{cdc}.xml"));
    let (code, v, err) = run(
        &["sifen", "recibe", file.to_str().unwrap(), "--id", "11"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        v["url"],
        "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl"
    );
    assert!(v["xml"]
        .as_str()
        .unwrap()
        .contains(&format!("<DE Id=\"{cdc}\">")));
    let (code, v, err) = run(
        &[
            "sifen",
            "cancelar",
            cdc,
            "--motivo",
            "Error en el precio",
            "--event-id",
            "5",
            "--at",
            "2025-03-10T11:00:00",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["service"], "evento");
    let xml = v["xml"].as_str().unwrap();
    assert!(xml.contains("<rGeVeCan><Id>") && xml.contains("<Signature"));
    assert_body_valid(xml, "WS_SiRecepEvento_v150.xsd");
    // A motive of 3 characters breaks SIFEN's rule: exit 1 with the finding.
    let (code, v, _) = run(&["sifen", "cancelar", cdc, "--motivo", "mal"], None);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["errors"][0]["path"], "motivo");
}

#[test]
fn evento_signs_events_from_json_and_prints_a_valid_request() {
    let golden = "01444444017001001000000122025031011234567890"; // emitted by the sandbox RUC 44444401-7
    let foreign = "01800695631001001000000122022081411234567891"; // emitted by 80069563-1
    let tmp = TempDir::new("sifen-evento");
    let cancel = format!(
        r#"{{"tipo":"cancelacion","id":1,"fecha_firma":"2025-03-11T09:00:00","cdc":"{golden}","motivo":"Error en el precio"}}"#
    );
    let file = tmp.0.join("cancelacion.json");
    std::fs::write(&file, &cancel).unwrap();
    let (code, v, err) = run(
        &["sifen", "evento", file.to_str().unwrap(), "--id", "12"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["service"], "evento");
    assert_eq!(
        v["url"],
        "https://sifen-test.set.gov.py/de/ws/eventos/evento.wsdl"
    );
    let xml = v["xml"].as_str().unwrap();
    assert!(xml.contains("<dId>12</dId>") && xml.contains("<rGeVeCan><Id>"));
    assert_body_valid(xml, "WS_SiRecepEvento_v150.xsd");
    let start = xml.find("<env:Body>").unwrap() + "<env:Body>".len();
    let end = xml.rfind("</env:Body>").unwrap();
    xsd::xmlsec_verify(&format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
        &xml[start..end]
    ))
    .unwrap();
    // The same cancellation as `kuatia sifen cancelar` prints, byte for byte (signing is deterministic).
    let (code, c, err) = run(
        &[
            "sifen",
            "cancelar",
            golden,
            "--motivo",
            "Error en el precio",
            "--event-id",
            "1",
            "--at",
            "2025-03-11T09:00:00",
            "--id",
            "12",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(c["xml"], v["xml"]);

    // An array from stdin: the cancellation and a receiver event (the sandbox certificate's RUC receives a document
    // of 80069563-1), the signing time of the second from --at, production endpoint.
    let both = format!(r#"[{cancel},{{"tipo":"conformidad","id":2,"cdc":"{foreign}"}}]"#);
    let (code, v, err) = run(
        &[
            "sifen",
            "evento",
            "-",
            "--at",
            "2025-03-11T10:00:00",
            "--ruc",
            "44444401-7",
            "--prod",
        ],
        Some(both.as_bytes()),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        v["url"],
        "https://sifen.set.gov.py/de/ws/eventos/evento.wsdl"
    );
    let xml = v["xml"].as_str().unwrap();
    assert!(
        xml.contains("<rGeVeConf>") && xml.contains("<dFecFirma>2025-03-11T10:00:00</dFecFirma>")
    );
    assert_body_valid(xml, "WS_SiRecepEvento_v150.xsd");

    // Every problem of every event, with its path: exit 1.
    let bad = format!(
        r#"[{cancel},{{"tipo":"cancelacion","id":2,"cdc":"{golden}","motivo":"mal"}},{{"tipo":"x","id":3}}]"#
    );
    let (code, v, _) = run(&["sifen", "evento", "-"], Some(bad.as_bytes()));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["errors"][0]["path"], "[2].tipo");
    assert_eq!(v["errors"][0]["code"], "VALIDATION_ERROR.INVALID_VALUE");
    let bad =
        format!(r#"[{cancel},{{"tipo":"cancelacion","id":2,"cdc":"{golden}","motivo":"mal"}}]"#);
    let (code, v, _) = run(&["sifen", "evento", "-"], Some(bad.as_bytes()));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["errors"][0]["path"], "[1].motivo");
    assert_eq!(v["errors"][0]["code"], "SIFEN_EVENT_INVALID");
    // Signed for another RUC than the CDC's emitter.
    let (code, v, _) = run(
        &[
            "sifen",
            "evento",
            file.to_str().unwrap(),
            "--ruc",
            "80069563-1",
        ],
        None,
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["errors"][0]["code"], "SIFEN_EVENT_SIGNER");
    // Two events with one id: the request refuses them.
    let (code, v, _) = run(
        &["sifen", "evento", "-"],
        Some(format!("[{cancel},{cancel}]").as_bytes()),
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "SIFEN_EVENT_DUPLICATE_ID");
    // Malformed JSON and a missing file are unreadable input: exit 2.
    let (code, _, err) = run(&["sifen", "evento", "-"], Some(b"{"));
    assert_eq!(code, 2);
    assert!(err.contains("MALFORMED_JSON"), "{err}");
    let (code, _, _) = run(&["sifen", "evento", "/nonexistent/evento.json"], None);
    assert_eq!(code, 2);
}

#[test]
fn parse_types_answers_and_refuses_what_is_not_sifen() {
    let (code, v, _) = run(
        &[
            "sifen",
            "parse",
            sample("recibe_aprobado.xml").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["service"], "recibe");
    assert_eq!(v["action"]["action"], "apply");
    assert_eq!(v["action"]["trigger"]["type"], "approved");
    let (code, v, _) = run(
        &[
            "sifen",
            "parse",
            sample("cons_lote_0361.xml").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0);
    assert_eq!(v["action"]["action"], "no_change");
    let html = std::fs::read(sample("f5_logout.html")).unwrap();
    let (code, v, _) = run(&["--lang", "en", "sifen", "parse", "-"], Some(&html));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "SIFEN_UNEXPECTED_RESPONSE");
    assert_eq!(v["error"]["rule"], "sifen.unexpected_html", "{v}");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("HTML page"));
    let (code, _, err) = run(&["sifen", "parse", "/nonexistent/answer.xml"], None);
    assert_eq!(code, 2);
    assert!(!err.is_empty());
}

//! Helpers of the SIFEN message tests (sifen_requests.rs, sifen_events.rs): sample answers and request fixtures, a
//! document issued with the sandbox profile, schema validation with xmllint, CDCs and signers.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use kuatia_core::cdc::{Cdc, CdcFields, FixedSecurityCode};
use kuatia_core::issue::{issue, numbering_key, sign_document, Issued, MemoryNumbering};
use kuatia_core::lifecycle::Trigger;
use kuatia_core::profile::Emisor;
use kuatia_core::qr::Ambiente;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::event::*;
use kuatia_core::sifen::response::{parse_for, Estado, Response};
use kuatia_core::sifen::{
    self, code, deadline, endpoint, parse_response, request, Action, Service,
};
use kuatia_core::sign::{sandbox_test_signer, SoftwareSigner};
use rust_decimal::Decimal;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use time::macros::datetime;

pub const GOLDEN_CDC: &str = "01444444017001001000000122025031011234567890";

pub fn sample(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sifen_samples")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn case_request(name: &str) -> serde_json::Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cases")
        .join(name);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v["request"].clone()
}

/// Issues the request `req` as document number `numero` with the sandbox profile and test signer.
pub fn issue_json(req: &serde_json::Value, numero: u32) -> Issued {
    let emisor = Emisor::sandbox();
    let now = datetime!(2025-03-10 10:11:00);
    let req = kuatia_core::invoice::parse_request(&req.to_string()).unwrap();
    let key = numbering_key(&req, &emisor, now).unwrap();
    let mut numbering = MemoryNumbering::starting_at(key, numero);
    issue(
        &emisor,
        &req,
        &sandbox_test_signer().unwrap(),
        now,
        &mut FixedSecurityCode(123_456_789),
        &mut numbering,
    )
    .unwrap()
}

pub fn fe(numero: u32) -> Issued {
    issue_json(&case_request("fe_spec_example.json"), numero)
}

pub fn schemas() -> &'static crate::common::Schemas {
    static S: OnceLock<crate::common::Schemas> = OnceLock::new();
    S.get_or_init(crate::common::Schemas::new)
}

/// The body element of an envelope as a standalone document.
pub fn body_of(envelope: &str) -> String {
    let start = envelope.find("<env:Body>").unwrap() + "<env:Body>".len();
    let end = envelope.rfind("</env:Body>").unwrap();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
        &envelope[start..end]
    )
}

/// Validates with the official schema, except that xmllint (libxml2) cannot compile the two lot schemas: their
/// `maxInclusive` of 28 nines overflows libxml2's decimal type. For those, a copy of the schema directory with
/// that one facet cut to 24 nines (`totalDigits 28` kept) is used; everything else is the official text.
pub fn validate_xsd(doc: &str, schema: &str) -> Result<(), String> {
    if !matches!(
        schema,
        "WS_SiRecepLoteDE_v141.xsd" | "WS_SiConsLote_v141.xsd"
    ) {
        return schemas().validate(doc, schema);
    }
    let src = crate::common::reference_dir("xsd").canonicalize().unwrap();
    let tmp = crate::common::TempDir::new("xsd-lot");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let mut text = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name == schema {
            let t = String::from_utf8(text).unwrap();
            assert!(t.contains("9999999999999999999999999999"));
            text = t
                .replace("9999999999999999999999999999", "999999999999999999999999")
                .into_bytes();
        }
        tmp.file(&name, &text);
    }
    let prefix = format!("file://{}/", tmp.0.display());
    let catalog = tmp.file(
        "catalog.xml",
        format!(
            r#"<?xml version="1.0"?><catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog"><rewriteURI uriStartString="https://ekuatia.set.gov.py/sifen/xsd/" rewritePrefix="{prefix}"/><rewriteSystem systemIdStartString="https://ekuatia.set.gov.py/sifen/xsd/" rewritePrefix="{prefix}"/></catalog>"#
        )
        .as_bytes(),
    );
    let file = tmp.file("doc.xml", doc.as_bytes());
    let out = Command::new("xmllint")
        .env("XML_CATALOG_FILES", &catalog)
        .args(["--noout", "--nonet", "--schema"])
        .arg(tmp.0.join(schema))
        .arg(&file)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

pub fn assert_valid(envelope: &str, schema: &str) {
    assert!(envelope.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?><env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Header/><env:Body>"));
    validate_xsd(&body_of(envelope), schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}\n{envelope}"));
}

pub fn cdc_of(ruc: &str, tipo: u8, numero: u32) -> Cdc {
    Cdc::build(&CdcFields {
        tipo_documento: tipo,
        ruc: Ruc::parse(ruc).unwrap(),
        establecimiento: 1,
        punto: 1,
        numero,
        tipo_contribuyente: 2,
        fecha: time::macros::date!(2025 - 03 - 10),
        tipo_emision: 1,
        codigo_seguridad: 123_456_789,
    })
    .unwrap()
}

pub fn sandbox_ruc() -> Ruc {
    Ruc::parse("44444401-7").unwrap()
}

/// A signer whose certificate carries RUC 80069563-1 (tests/fixtures/certs/person.cert.pem, sandbox key).
pub fn receiver_signer() -> SoftwareSigner {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/certs");
    SoftwareSigner::from_pem(
        &std::fs::read_to_string(dir.join("sandbox.key.pem")).unwrap(),
        &std::fs::read_to_string(dir.join("person.cert.pem")).unwrap(),
    )
    .unwrap()
}

pub fn codes_of(f: &kuatia_core::Findings) -> Vec<&str> {
    f.0.iter().map(|x| x.code.as_str()).collect()
}

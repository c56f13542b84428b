#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `name_text` against x509-parser's own `Display` (the text it replaces), so any difference fails.

use super::*;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use std::path::PathBuf;
use x509_parser::certificate::X509Certificate;
use x509_parser::objects::oid_registry;
use x509_parser::prelude::FromDer;

/// A DER TLV with a definite length.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// An attribute: the OID's DER content and a whole value TLV.
type Atv<'a> = (&'a [u8], Vec<u8>);

/// A Name DER from RDNs, each a list of attributes.
fn name_der(rdns: &[Vec<Atv<'_>>]) -> Vec<u8> {
    let mut seq = Vec::new();
    for rdn in rdns {
        let mut set = Vec::new();
        for (oid, value) in rdn {
            let mut atv = tlv(0x06, oid);
            atv.extend_from_slice(value);
            set.extend(tlv(0x30, &atv));
        }
        seq.extend(tlv(0x31, &set));
    }
    tlv(0x30, &seq)
}

/// Formats the Name both ways and requires the same text; returns it.
fn same(der: &[u8]) -> String {
    let (rest, name) = X509Name::from_der(der).expect("x509-parser reads the test name");
    assert!(rest.is_empty());
    let theirs = name.to_string();
    assert_eq!(name_text(&name), theirs, "{der:02x?}");
    theirs
}

fn utf8(s: &str) -> Vec<u8> {
    tlv(0x0c, s.as_bytes())
}

const CN: &[u8] = &[0x55, 0x04, 0x03];
const C: &[u8] = &[0x55, 0x04, 0x06];
const SERIAL: &[u8] = &[0x55, 0x04, 0x05];

#[test]
fn every_registry_oid_gets_the_same_short_name() {
    let registry = oid_registry();
    let mut n = 0;
    for (oid, _) in registry.iter() {
        let text = same(&name_der(&[vec![(oid.as_bytes(), utf8("v"))]]));
        assert!(!text.starts_with("OID("), "{text}");
        n += 1;
    }
    assert_eq!(
        n,
        NAMES.lines().count(),
        "dn/names.txt and the registry differ in size"
    );
    for line in NAMES.lines() {
        let (dotted, short) = line.split_once(' ').unwrap();
        let oid: Oid<'static> = dotted.parse().unwrap();
        assert_eq!(
            same(&name_der(&[vec![(oid.as_bytes(), utf8("v"))]])),
            format!("{short}=v")
        );
    }
}

#[test]
fn unusual_names_read_the_same() {
    let unknown: Oid<'static> = "1.3.6.1.4.1.99999.1".parse().unwrap();
    // An arc past u64 (2^70): asn1-rs writes such an OID as spaced hex bytes.
    let huge: &[u8] = &[
        0x2b, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
    ];
    let cases: Vec<(Vec<Vec<Atv<'_>>>, &str)> = vec![
        (vec![], ""),
        (
            vec![
                vec![(CN, utf8("kuatia, \"TEST\" = +x"))],
                vec![(SERIAL, tlv(0x13, b"RUC80069563-1")), (C, tlv(0x13, b"PY"))],
            ],
            "CN=kuatia, \"TEST\" = +x, serialNumber=RUC80069563-1 + C=PY",
        ),
        (vec![vec![(CN, utf8(""))]], "CN="),
        (
            vec![vec![(CN, utf8("Asunción ñandutí"))]],
            "CN=Asunción ñandutí",
        ),
        // BMPString: UTF-16BE, an odd trailing byte taken as a code unit, a lone surrogate invalid.
        (vec![vec![(CN, tlv(0x1e, &[0, 0x41, 0, 0xf1]))]], "CN=Añ"),
        (vec![vec![(CN, tlv(0x1e, &[0, 0x41, 0x42]))]], "CN=AB"),
        (
            vec![vec![(CN, tlv(0x1e, &[0xd8, 0x00]))], vec![(C, utf8("PY"))]],
            INVALID,
        ),
        // A Latin-1 T61String is not UTF-8: the whole name becomes x509-parser's error text.
        (
            vec![vec![(C, utf8("PY"))], vec![(CN, tlv(0x14, &[0x41, 0xf1]))]],
            INVALID,
        ),
        (vec![vec![(CN, tlv(0x0c, &[0xff]))]], INVALID),
        // Other values: uppercase hex of the content.
        (vec![vec![(CN, tlv(0x02, &[0x01, 0xab]))]], "CN=01AB"),
        (vec![vec![(CN, tlv(0x04, &[]))]], "CN="),
        (vec![vec![(CN, tlv(0x30, &utf8("x")))]], "CN=0C0178"),
        // Every string tag x509-parser reads as text, and a context tag with a string's number.
        (vec![vec![(CN, tlv(0x12, b"123"))]], "CN=123"),
        (vec![vec![(CN, tlv(0x16, b"a@b.py"))]], "CN=a@b.py"),
        (vec![vec![(CN, tlv(0x1a, b"vis"))]], "CN=vis"),
        (vec![vec![(CN, tlv(0x1b, b"gen"))]], "CN=gen"),
        (vec![vec![(CN, tlv(0x19, b"gra"))]], "CN=gra"),
        (vec![vec![(CN, tlv(0x15, b"vid"))]], "CN=vid"),
        (vec![vec![(CN, tlv(0x07, b"od"))]], "CN=od"),
        (vec![vec![(CN, tlv(0x8c, b"ctx"))]], "CN=ctx"),
        (vec![vec![(CN, tlv(0x1c, b"\0\0\0A"))]], "CN=00000041"),
        (
            vec![vec![(unknown.as_bytes(), utf8("x")), (huge, utf8("y"))]],
            "OID(1.3.6.1.4.1.99999.1)=x + OID(2b 81 80 80 80 80 80 80 80 80 80 00)=y",
        ),
    ];
    for (rdns, want) in &cases {
        assert_eq!(same(&name_der(rdns)), *want);
    }
}

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// The certificates of the test fixtures (PEM files, the sandbox signer, signed XML).
fn fixture_certificates() -> Vec<Vec<u8>> {
    let mut ders = Vec::new();
    let dir = fixture("tests/fixtures/certs");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".cert.pem") {
            let pem = std::fs::read_to_string(&path).unwrap();
            let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
            ders.push(B64.decode(b64).unwrap());
        }
    }
    let json = std::fs::read_to_string(fixture("tests/fixtures/api/xml_approved.json")).unwrap();
    for part in json.split("<X509Certificate>").skip(1) {
        let b64 = part
            .split("</X509Certificate>")
            .next()
            .unwrap()
            .replace("\\n", "");
        ders.push(B64.decode(b64.trim()).unwrap());
    }
    #[cfg(feature = "native-sign")]
    ders.push(
        crate::sign::Signer::certificate_der(&crate::sign::sandbox_test_signer().unwrap()).to_vec(),
    );
    ders
}

#[test]
fn fixture_certificates_read_the_same() {
    let ders = fixture_certificates();
    assert!(ders.len() >= 9, "{} certificates", ders.len());
    let mut names = 0;
    for der in &ders {
        let (_, cert) = X509Certificate::from_der(der).unwrap();
        assert!(name_text(cert.subject()).contains("CN="));
        let mut all = vec![cert.subject(), cert.issuer()];
        let san = cert.subject_alternative_name().unwrap();
        for g in san.iter().flat_map(|s| s.value.general_names.iter()) {
            if let x509_parser::extensions::GeneralName::DirectoryName(n) = g {
                all.push(n);
            }
        }
        for name in all {
            assert_eq!(name_text(name), name.to_string());
            names += 1;
        }
    }
    assert!(
        names > 2 * ders.len(),
        "a SubjectAltName directoryName was read"
    );
}

#[test]
fn upper_hex_writes_every_digit() {
    assert_eq!(
        upper_hex(&[0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]),
        "0123456789ABCDEF"
    );
    assert_eq!(upper_hex(&[]), "");
}

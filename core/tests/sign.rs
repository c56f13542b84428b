//! Signing and verification checked against independent tools: xmlsec1, xmllint and openssl.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use kuatia_core::sign::{
    certificate_info, check_certificate, sandbox_test_signer, sign_element, verify, SignError,
    Signer, SoftwareSigner, Verifier,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use time::macros::datetime;

const ID: &str = "01444444017001001000000122025031011234567890";
const PASS: &str = "kuatia-test";

fn cert_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/certs")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(cert_path(name)).unwrap()
}

/// A fresh temporary folder of this test (removed on drop).
fn tmp(name: &str) -> common::TempDir {
    common::TempDir::new(&format!("sign-{name}"))
}

/// A compact rDE as our XML writer emits it, with a few characters C14N must escape.
fn sample_rde() -> String {
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" "#,
            r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#,
            r#"xsi:schemaLocation="http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd"><dVerFor>150</dVerFor>"#,
            r#"<DE Id="{id}"><dDVId>0</dDVId><dFecFirma>2025-03-10T10:11:00</dFecFirma><dSisFact>1</dSisFact>"#,
            r#"<gDatRec><dNomRec>Cliente &amp; Hijos &quot;Ñandutí&quot; &lt;S.A.&gt;</dNomRec></gDatRec>"#,
            r#"<gCamItem><dDesProSer>Mandioca 'chipa' &#x3E; 1kg</dDesProSer><dCantProSer>2</dCantProSer></gCamItem>"#,
            r#"<gTotSub><dTotGralOpe>660000</dTotGralOpe></gTotSub></DE></rDE>"#
        ),
        id = ID
    )
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().expect("tool installed");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn xmlsec_verify(xml: &str, name: &str) -> (bool, String) {
    let tmp = tmp(name);
    let path = tmp.file("doc.xml", xml.as_bytes());
    run(Command::new("xmlsec1")
        .args(["--verify", "--id-attr:Id", "DE", "--trusted-pem"])
        .arg(cert_path("sandbox.cert.pem"))
        .arg(&path))
}

#[test]
fn signed_document_shape() {
    let signer = sandbox_test_signer().unwrap();
    let signed = sign_element(&sample_rde(), ID, &signer).unwrap();
    let cert_b64 = B64.encode(signer.certificate_der());
    assert!(signed.xml.contains(
        "</DE><Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\"><SignedInfo><CanonicalizationMethod Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\">"
    ));
    assert!(signed.xml.contains(&format!("<Reference URI=\"#{ID}\"><Transforms><Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"></Transform><Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"></Transform></Transforms><DigestMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"></DigestMethod><DigestValue>{}</DigestValue>", signed.digest_value)));
    assert!(signed.xml.ends_with(&format!(
        "<KeyInfo><X509Data><X509Certificate>{cert_b64}</X509Certificate></X509Data></KeyInfo></Signature></rDE>"
    )));
    assert!(!signed.xml.contains('\n'));
    assert!(signed
        .xml
        .starts_with(&sample_rde()[..sample_rde().find("</DE>").unwrap()]));
}

#[test]
fn xmlsec1_accepts_our_signature_and_rejects_tampering() {
    let signer = sandbox_test_signer().unwrap();
    let signed = sign_element(&sample_rde(), ID, &signer).unwrap();
    let (ok, log) = xmlsec_verify(&signed.xml, "signed.xml");
    assert!(ok, "xmlsec1 rejected our signature: {log}");
    let report = verify(&signed.xml, Some(datetime!(2025-03-10 10:11:00)));
    assert!(report.valid, "{report:?}");
    assert_eq!(report.reference_id.as_deref(), Some(ID));
    assert_eq!(
        report.certificate.as_ref().unwrap().ruc.as_deref(),
        Some("44444401-7")
    );
    assert_eq!(report.certificate_valid_at, Some(true));

    let tampered = signed.xml.replace("<dCantProSer>2<", "<dCantProSer>3<");
    assert_ne!(tampered, signed.xml);
    let (ok, _) = xmlsec_verify(&tampered, "tampered.xml");
    assert!(!ok, "xmlsec1 accepted a tampered document");
    let report = verify(&tampered, None);
    assert!(!report.valid && !report.digest_ok && report.signature_ok);
    assert_eq!(report.error.unwrap().code, "DIGEST_MISMATCH");

    // A changed SignatureValue breaks the signature but not the digest.
    let sig_start = signed.xml.find("<SignatureValue>").unwrap() + "<SignatureValue>".len();
    let mut bad = signed.xml.clone();
    let c = if &bad[sig_start + 5..sig_start + 6] == "A" {
        "B"
    } else {
        "A"
    };
    bad.replace_range(sig_start + 5..sig_start + 6, c);
    let report = verify(&bad, None);
    assert!(!report.valid && report.digest_ok && !report.signature_ok);
    assert_eq!(report.error.unwrap().code, "SIGNATURE_INVALID");
    assert!(!xmlsec_verify(&bad, "badsig.xml").0);
}

#[test]
fn digest_matches_xmllint_exc_c14n_and_openssl() {
    let signer = sandbox_test_signer().unwrap();
    let xml = sample_rde();
    let signed = sign_element(&xml, ID, &signer).unwrap();
    // Extract the DE on its own, declaring the namespaces it inherits from rDE.
    let start = xml.find("<DE ").unwrap();
    let end = xml.find("</DE>").unwrap() + "</DE>".len();
    let de = xml[start..end].replacen(
        "<DE ",
        "<DE xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" ",
        1,
    );
    let tmp = tmp("c14n");
    let path = tmp.file(
        "de.xml",
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{de}").as_bytes(),
    );
    let script = format!(
        "xmllint --exc-c14n {} | openssl dgst -sha256 -binary | base64",
        path.display()
    );
    let (ok, out) = run(Command::new("sh").args(["-c", &script]));
    assert!(ok, "{out}");
    assert_eq!(out.trim(), signed.digest_value);
}

/// Builds an xmlsec1 template, signs it with xmlsec1 and returns the signed document.
fn xmlsec_sign(template: &str, name: &str) -> String {
    xmlsec_sign_with(template, name, "sandbox")
}

/// The same with the key and certificate `<key>.key.pem`, `<key>.cert.pem` of tests/fixtures/certs.
fn xmlsec_sign_with(template: &str, name: &str, key: &str) -> String {
    let tmp = tmp(name);
    let path = tmp.file("template.xml", template.as_bytes());
    let out = tmp.0.join("signed.xml");
    let keys = format!(
        "{},{}",
        cert_path(&format!("{key}.key.pem")).display(),
        cert_path(&format!("{key}.cert.pem")).display()
    );
    let (ok, log) = run(Command::new("xmlsec1")
        .args([
            "--sign",
            "--id-attr:Id",
            "DE",
            "--privkey-pem",
            &keys,
            "--output",
        ])
        .arg(&out)
        .arg(&path));
    assert!(ok, "xmlsec1 --sign failed: {log}");
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn verifies_documents_signed_by_xmlsec1() {
    // Prefixed ds: Signature, exclusive C14N, SHA-512 digest, pretty-printed (whitespace inside DE).
    let template = format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <dVerFor>150</dVerFor>
  <DE Id="{ID}" xsi:type="x" dSisFact="2">
    <dNomRec attr='a"b'>Cliente &amp; "Hijos"</dNomRec>
    <!-- a comment -->
    <vacío/>
  </DE>
  <ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
    <ds:SignedInfo>
      <ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
      <ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>
      <ds:Reference URI="#{ID}">
        <ds:Transforms>
          <ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>
          <ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
        </ds:Transforms>
        <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha512"/>
        <ds:DigestValue/>
      </ds:Reference>
    </ds:SignedInfo>
    <ds:SignatureValue/>
    <ds:KeyInfo><ds:X509Data/></ds:KeyInfo>
  </ds:Signature>
</rDE>
"##
    );
    let signed = xmlsec_sign(&template, "foreign1.xml");
    let report = verify(&signed, Some(datetime!(2030-01-01 00:00:00)));
    assert!(report.valid, "{report:?}");
    let tampered = signed.replace("Cliente", "Cliento");
    assert_eq!(
        verify(&tampered, None).error.unwrap().code,
        "DIGEST_MISMATCH"
    );

    // Signature inside the signed element (true enveloped case), inclusive C14N, SHA-384 signature.
    let template = format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<rGesEve xmlns="http://ekuatia.set.gov.py/sifen/xsd" xmlns:u="urn:unused"><DE Id="{ID}"><a b="1" a="2">x
y</a><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/><SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"/><Reference URI="#{ID}"><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></Transforms><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue/></Reference></SignedInfo><SignatureValue/><KeyInfo><X509Data/></KeyInfo></Signature></DE></rGesEve>"##
    );
    let signed = xmlsec_sign(&template, "foreign2.xml");
    let report = verify(&signed, None);
    assert!(report.valid, "{report:?}");

    // A 1024-bit key: refused with its own code in every build (aws-lc natively, `rsa` in the browser).
    let signed = xmlsec_sign_with(&template, "foreign3.xml", "rsa1024");
    let report = verify(&signed, None);
    assert!(!report.valid && !report.signature_ok, "{report:?}");
    let err = report.error.unwrap();
    assert_eq!(err.code, "KEY_UNSUPPORTED");
    assert!(err.message.contains("1024 bits"), "{}", err.message);
}

#[test]
fn signs_events_after_reve() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?><rEnviEventoDe xmlns="http://ekuatia.set.gov.py/sifen/xsd"><dId>1</dId><dEvReg><gGroupGesEve xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><rGesEve><rEve Id="7"><dFecFirma>2025-03-10T10:11:00</dFecFirma><dVerFor>150</dVerFor><gGroupTiEvt><rGeVeCan><Id>01444444017001001000000122025031011234567890</Id><mOtEve>Error en datos</mOtEve></rGeVeCan></gGroupTiEvt></rEve></rGesEve></gGroupGesEve></dEvReg></rEnviEventoDe>"#;
    let signed = sign_element(xml, "7", &sandbox_test_signer().unwrap()).unwrap();
    assert!(signed
        .xml
        .contains("</rEve><Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\">"));
    assert!(signed
        .xml
        .ends_with("</Signature></rGesEve></gGroupGesEve></dEvReg></rEnviEventoDe>"));
    let tmp = tmp("event");
    let path = tmp.file("event.xml", signed.xml.as_bytes());
    let (ok, log) = run(Command::new("xmlsec1")
        .args(["--verify", "--id-attr:Id", "rEve", "--trusted-pem"])
        .arg(cert_path("sandbox.cert.pem"))
        .arg(&path));
    assert!(ok, "{log}");
    assert!(verify(&signed.xml, None).valid);
}

#[test]
fn sign_errors() {
    let signer = sandbox_test_signer().unwrap();
    assert_eq!(
        sign_element(&sample_rde(), "nope", &signer)
            .unwrap_err()
            .code(),
        "ELEMENT_NOT_FOUND"
    );
    assert_eq!(
        sign_element("<a Id=\"1\">", "1", &signer)
            .unwrap_err()
            .code(),
        "MALFORMED_XML"
    );
    let dup = "<r><a Id=\"1\"/><b Id=\"1\"/></r>";
    assert_eq!(
        sign_element(dup, "1", &signer).unwrap_err().code(),
        "DUPLICATE_ID"
    );
}

fn p12_err(file: &str, password: &str) -> SignError {
    SoftwareSigner::from_pkcs12(&read(file), password).unwrap_err()
}

#[test]
fn pkcs12_files() {
    let pem = sandbox_test_signer().unwrap();
    for file in ["sandbox.p12", "sandbox-legacy.p12"] {
        let signer = SoftwareSigner::from_pkcs12(&read(file), PASS)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(signer.certificate_der(), pem.certificate_der(), "{file}");
        // Same key: PKCS#1 v1.5 is deterministic.
        assert_eq!(
            signer.sign_rsa_sha256(b"x").unwrap(),
            pem.sign_rsa_sha256(b"x").unwrap()
        );
        let debug = format!("{signer:?}");
        assert!(
            !debug.contains(PASS) && debug.contains("redacted"),
            "{debug}"
        );
    }
    for file in ["sandbox.p12", "sandbox-legacy.p12"] {
        let e = p12_err(file, "wrong-password");
        assert_eq!(e.code(), "P12_WRONG_PASSWORD", "{file}");
        assert!(
            !e.to_string().contains("wrong-password")
                && !format!("{e:?}").contains("wrong-password")
        );
    }
    assert_eq!(p12_err("sandbox.cert.pem", PASS).code(), "P12_INVALID");
    assert_eq!(
        SoftwareSigner::from_pkcs12(b"", PASS).unwrap_err().code(),
        "P12_INVALID"
    );
    assert_eq!(p12_err("nokeys.p12", PASS).code(), "P12_NO_PRIVATE_KEY");
    assert_eq!(p12_err("ec.p12", PASS).code(), "KEY_UNSUPPORTED");
    assert_eq!(p12_err("rsa1024.p12", PASS).code(), "KEY_UNSUPPORTED");
    for e in [p12_err("nokeys.p12", PASS), p12_err("ec.p12", PASS)] {
        assert!(!e.to_string().contains(PASS) && !format!("{e:?}").contains(PASS));
    }
}

#[test]
fn pem_keys() {
    let key = std::fs::read_to_string(cert_path("sandbox.key.pem")).unwrap();
    let other = std::fs::read_to_string(cert_path("other.key.pem")).unwrap();
    let cert = std::fs::read_to_string(cert_path("sandbox.cert.pem")).unwrap();
    let ec_key = std::fs::read_to_string(cert_path("ec.key.pem")).unwrap();
    let ec_cert = std::fs::read_to_string(cert_path("ec.cert.pem")).unwrap();
    assert!(SoftwareSigner::from_pem(&key, &cert).is_ok());
    assert_eq!(
        SoftwareSigner::from_pem(&other, &cert).unwrap_err().code(),
        "KEY_CERT_MISMATCH"
    );
    assert_eq!(
        SoftwareSigner::from_pem(&ec_key, &ec_cert)
            .unwrap_err()
            .code(),
        "KEY_UNSUPPORTED"
    );
    assert_eq!(
        SoftwareSigner::from_pem("junk", &cert).unwrap_err().code(),
        "KEY_INVALID"
    );
    assert_eq!(
        SoftwareSigner::from_pem(&key, "junk").unwrap_err().code(),
        "CERTIFICATE_INVALID"
    );
}

/// Random and mutated inputs must never panic (cheap fuzzing with a fixed-seed generator).
#[test]
fn pkcs12_garbage_never_panics() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let len = (next() % 3000) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        assert!(SoftwareSigner::from_pkcs12(&bytes, PASS).is_err());
    }
    for file in ["sandbox.p12", "sandbox-legacy.p12"] {
        let good = read(file);
        for _ in 0..300 {
            let mut bytes = good.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % bytes.len();
                bytes[i] = next() as u8;
            }
            if next() % 4 == 0 {
                bytes.truncate((next() as usize) % bytes.len());
            }
            let _ = SoftwareSigner::from_pkcs12(&bytes, PASS);
        }
    }
}

fn cert_der(name: &str) -> Vec<u8> {
    let pem = std::fs::read_to_string(cert_path(name)).unwrap();
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    B64.decode(b64).unwrap()
}

#[test]
fn certificates() {
    let at = datetime!(2025-03-10 10:11:00);
    let sandbox = certificate_info(&cert_der("sandbox.cert.pem")).unwrap();
    assert_eq!(sandbox.ruc.as_deref(), Some("44444401-7"));
    assert!(
        sandbox
            .subject
            .contains("kuatia SANDBOX TEST ONLY - NOT VALID FOR SIFEN"),
        "{}",
        sandbox.subject
    );
    assert_eq!(
        sandbox.not_before,
        time::macros::datetime!(2024-01-01 00:00:00 UTC)
    );
    assert_eq!(
        sandbox.not_after,
        time::macros::datetime!(2054-01-01 00:00:00 UTC)
    );
    assert_eq!(sandbox.serial_hex, "1000");
    assert!(check_certificate(&sandbox, "44444401-7", at).is_ok());
    assert_eq!(
        check_certificate(&sandbox, "80069563-1", at)
            .unwrap_err()
            .code(),
        "CERTIFICATE_RUC_MISMATCH"
    );
    // 2023-12-31 22:00 in Asunción (UTC-3) is 2024-01-01 01:00 UTC: already valid; 20:59 is not.
    assert!(check_certificate(&sandbox, "44444401-7", datetime!(2023-12-31 22:00:00)).is_ok());
    assert_eq!(
        check_certificate(&sandbox, "44444401-7", datetime!(2023-12-31 20:59:00))
            .unwrap_err()
            .code(),
        "CERTIFICATE_NOT_YET_VALID"
    );

    let expired = certificate_info(&cert_der("expired.cert.pem")).unwrap();
    assert_eq!(
        check_certificate(&expired, "44444401-7", at)
            .unwrap_err()
            .code(),
        "CERTIFICATE_EXPIRED"
    );
    let notyet = certificate_info(&cert_der("notyet.cert.pem")).unwrap();
    assert_eq!(
        check_certificate(&notyet, "44444401-7", at)
            .unwrap_err()
            .code(),
        "CERTIFICATE_NOT_YET_VALID"
    );

    let person = certificate_info(&cert_der("person.cert.pem")).unwrap();
    assert_eq!(person.ruc.as_deref(), Some("80069563-1"));
    assert!(check_certificate(&person, "80069563-1", at).is_ok());
    assert_eq!(
        check_certificate(&person, "44444401-7", at)
            .unwrap_err()
            .code(),
        "CERTIFICATE_RUC_MISMATCH"
    );

    let norucs = certificate_info(&cert_der("norucs.cert.pem")).unwrap();
    assert_eq!(norucs.ruc, None);
    assert_eq!(
        check_certificate(&norucs, "44444401-7", at)
            .unwrap_err()
            .code(),
        "CERTIFICATE_RUC_MISSING"
    );
    assert_eq!(
        certificate_info(b"not a cert").unwrap_err().code(),
        "CERTIFICATE_INVALID"
    );
    let json = serde_json::to_value(&sandbox).unwrap();
    assert_eq!(json["not_after"], "2054-01-01T00:00:00Z");
}

#[test]
fn verify_reports_problems_without_panicking() {
    let code = |xml: &str| verify(xml, None).error.map(|f| f.code).unwrap_or_default();
    let bomb = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>"#;
    let report = verify(bomb, None);
    assert!(!report.valid);
    let err = report.error.unwrap();
    assert_eq!(err.code, "MALFORMED_XML");
    assert!(err.message.contains("DOCTYPE"), "{}", err.message);
    assert_eq!(code(&sample_rde()), "SIGNATURE_MISSING");
    assert_eq!(code("not xml <"), "MALFORMED_XML");
    assert_eq!(code("<a><b></a>"), "MALFORMED_XML");
    let signed = sign_element(&sample_rde(), ID, &sandbox_test_signer().unwrap())
        .unwrap()
        .xml;
    assert_eq!(
        code(&signed.replace("xml-exc-c14n#\"></Transform>", "bogus\"></Transform>")),
        "UNSUPPORTED_ALGORITHM"
    );
    assert_eq!(
        code(&signed.replace("rsa-sha256", "rsa-sha1")),
        "UNSUPPORTED_ALGORITHM"
    );
    assert_eq!(
        code(&signed.replace("<X509Certificate>", "<X509Certificate>!!")),
        "SIGNATURE_MALFORMED"
    );
    assert_eq!(
        code(&signed.replace("<X509Certificate>", "<X509Certificate>AAAA")),
        "CERTIFICATE_INVALID"
    );
    assert_eq!(
        code(&signed.replace(&format!("URI=\"#{ID}\""), "URI=\"#other\"")),
        "ELEMENT_NOT_FOUND"
    );
    let expired_at = verify(&signed, Some(datetime!(2060-01-01 00:00:00)));
    assert!(!expired_at.valid && expired_at.digest_ok && expired_at.signature_ok);
    assert_eq!(expired_at.certificate_valid_at, Some(false));
    assert_eq!(expired_at.error.unwrap().code, "CERTIFICATE_EXPIRED");
    // Truncations of a signed document never panic.
    for cut in (0..signed.len()).step_by(97) {
        if signed.is_char_boundary(cut) {
            let _ = verify(&signed[..cut], None);
        }
    }
    let json = serde_json::to_string(&verify(&signed, None)).unwrap();
    assert!(json.contains("\"valid\":true"));
}

/// A signer that embeds `cert` but signs with the sandbox key (a wrong key for every other certificate).
struct WithCertificate(Vec<u8>, SoftwareSigner);

impl Signer for WithCertificate {
    fn certificate_der(&self) -> &[u8] {
        &self.0
    }
    fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, SignError> {
        self.1.sign_rsa_sha256(data)
    }
}

/// A kept `Verifier` gives the reports `verify` gives, whatever it verified before: documents with good, tampered,
/// unreadable, non-RSA and too-small-key certificates, in several orders, at several times, repeated.
#[test]
fn a_kept_verifier_agrees_with_verify() {
    let sandbox = sandbox_test_signer().unwrap();
    let mut docs = Vec::new();
    for cert in [
        "sandbox.cert.pem",
        "expired.cert.pem",
        "notyet.cert.pem",
        "norucs.cert.pem",
        "person.cert.pem",
        "rsa1024.cert.pem",
        "ec.cert.pem",
    ] {
        let signer = WithCertificate(cert_der(cert), sandbox_test_signer().unwrap());
        docs.push(sign_element(&sample_rde(), ID, &signer).unwrap().xml);
    }
    let good = sign_element(&sample_rde(), ID, &sandbox).unwrap().xml;
    docs.push(good.replace("Ñandutí", "Nandutí"));
    docs.push(good.replace("<X509Certificate>", "<X509Certificate>AAAA"));
    docs.push(good.replace("<X509Certificate>", "<X509Certificate>!!"));
    // The same certificate with line breaks in its base64 (as xmlsec1 writes it).
    docs.push(good.replace("<X509Certificate>MII", "<X509Certificate>\nMII&#13;\n"));
    assert!(verify(docs.last().unwrap(), None).valid);
    docs.push(good.replace("<SignatureValue>", "<SignatureValue>AAAA"));
    docs.push(good.clone());
    let times = [
        None,
        Some(datetime!(2025-03-10 10:11:00)),
        Some(datetime!(2060-01-01 00:00:00)),
    ];
    let mut kept = Verifier::new();
    for round in 0..3 {
        for (i, doc) in docs.iter().enumerate() {
            let doc = if round == 1 {
                &docs[docs.len() - 1 - i]
            } else {
                doc
            };
            for at in times {
                assert_eq!(
                    kept.verify(doc, at),
                    verify(doc, at),
                    "round {round}, document {i}"
                );
            }
        }
    }
    assert!(kept.verify(&good, None).valid);
}

/// The production profile of the sandbox certificate's taxpayer (RUC 44444401-7) with a stamp from `desde`.
fn production_profile(desde: time::Date) -> kuatia_core::profile::Emisor {
    let mut e = kuatia_core::profile::Emisor::sandbox();
    e.ambiente = kuatia_core::profile::Ambiente::Produccion;
    e.timbrados[0].fecha_inicio = desde;
    e
}

fn issue_with(
    emisor: &kuatia_core::profile::Emisor,
    cert: &str,
    at: time::PrimitiveDateTime,
) -> Result<kuatia_core::issue::Issued, kuatia_core::error::Findings> {
    let key = std::fs::read_to_string(cert_path("sandbox.key.pem")).unwrap();
    let cert = std::fs::read_to_string(cert_path(cert)).unwrap();
    let signer = SoftwareSigner::from_pem(&key, &cert).unwrap();
    let req = kuatia_core::invoice::parse_request(
        r#"{"tipo_documento": 1, "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}]}"#,
    )
    .unwrap();
    let mut numbering = kuatia_core::issue::MemoryNumbering::default();
    kuatia_core::issue::issue(
        emisor,
        &req,
        &signer,
        at,
        &mut kuatia_core::cdc::FixedSecurityCode(123_456_789),
        &mut numbering,
    )
}

#[test]
fn an_expired_certificate_fails_issuing_in_production() {
    // expired.cert.pem: the sandbox key and RUC, valid 2020-01-01 to 2021-01-01 (UTC).
    let at = datetime!(2025-03-10 10:11:00);
    let prod = production_profile(time::macros::date!(2024 - 01 - 01));
    let err = issue_with(&prod, "expired.cert.pem", at).unwrap_err();
    assert_eq!(
        err.0
            .iter()
            .map(|f| (f.code.as_str(), f.path.as_str()))
            .collect::<Vec<_>>(),
        [("CERTIFICATE_EXPIRED", "certificate")],
        "{err}"
    );
    // Not yet valid at emission time: refused too, with its own code.
    let err = issue_with(&prod, "notyet.cert.pem", at).unwrap_err();
    assert_eq!(
        (err.0[0].code.as_str(), err.0[0].path.as_str()),
        ("CERTIFICATE_NOT_YET_VALID", "certificate")
    );
    // The same key with the current certificate issues, and the sandbox tolerates the expired test certificate.
    assert!(issue_with(&prod, "sandbox.cert.pem", at).is_ok());
    let sandbox = kuatia_core::profile::Emisor::sandbox();
    assert!(issue_with(&sandbox, "expired.cert.pem", at).is_ok());
    // Validity is judged at the emission time, not by the file: within its period the certificate issues in
    // production (with a stamp valid then), and the result verifies at that time but not today.
    let then = datetime!(2020-06-01 09:00:00);
    let prod_2020 = production_profile(time::macros::date!(2020 - 01 - 01));
    let issued = issue_with(&prod_2020, "expired.cert.pem", then).unwrap();
    assert!(verify(&issued.xml, Some(then)).valid);
    let today = verify(&issued.xml, Some(at));
    assert!(!today.valid && today.digest_ok && today.signature_ok);
    assert_eq!(today.error.unwrap().code, "CERTIFICATE_EXPIRED");
    // One second past its end (2021-01-01 00:00 UTC = 2020-12-31 21:00 in Asunción) it no longer issues.
    let after = datetime!(2020-12-31 21:00:01);
    let err = issue_with(&prod_2020, "expired.cert.pem", after).unwrap_err();
    assert_eq!(err.0[0].code, "CERTIFICATE_EXPIRED");
    assert!(issue_with(
        &prod_2020,
        "expired.cert.pem",
        datetime!(2020-12-31 20:59:59)
    )
    .is_ok());
}

/// A root CA, an intermediate it signed and a leaf the intermediate signed, made by openssl in `dir`; returns the
/// DER of (leaf, intermediate, root) and writes the leaf's key to `leaf.key`.
fn three_level_pki(dir: &Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let ossl = |args: &[&str]| {
        let (ok, log) = run(Command::new("openssl").current_dir(dir).args(args));
        assert!(ok, "openssl {args:?}: {log}");
    };
    std::fs::write(
        dir.join("ca.ext"),
        "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("leaf.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,nonRepudiation\n",
    )
    .unwrap();
    ossl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "root.key",
        "-out",
        "root.pem",
        "-days",
        "2",
        "-subj",
        "/CN=kuatia TEST root CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
    ]);
    ossl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "int.key",
        "-out",
        "int.csr",
        "-subj",
        "/CN=kuatia TEST intermediate CA",
    ]);
    ossl(&[
        "x509",
        "-req",
        "-in",
        "int.csr",
        "-CA",
        "root.pem",
        "-CAkey",
        "root.key",
        "-CAcreateserial",
        "-out",
        "int.pem",
        "-days",
        "2",
        "-extfile",
        "ca.ext",
    ]);
    ossl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/CN=kuatia TEST leaf/serialNumber=RUC44444401-7",
    ]);
    ossl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "int.pem",
        "-CAkey",
        "int.key",
        "-CAcreateserial",
        "-out",
        "leaf.pem",
        "-days",
        "2",
        "-extfile",
        "leaf.ext",
    ]);
    for n in ["root", "int", "leaf"] {
        ossl(&[
            "x509",
            "-in",
            &format!("{n}.pem"),
            "-outform",
            "DER",
            "-out",
            &format!("{n}.der"),
        ]);
    }
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
    (read("leaf.der"), read("int.der"), read("root.der"))
}

#[test]
fn a_p12_keeps_the_issuers_of_its_certificate_in_chain_order() {
    let tmp = tmp("chain");
    let dir = tmp.0.clone();
    let (leaf, int, root) = three_level_pki(&dir);
    let p12 = |certfile: Option<&str>, name: &str| {
        let mut args = vec![
            "pkcs12",
            "-export",
            "-inkey",
            "leaf.key",
            "-in",
            "leaf.pem",
            "-passout",
            "pass:chain-test",
            "-out",
            name,
        ];
        if let Some(f) = certfile {
            args.extend(["-certfile", f]);
        }
        let (ok, log) = run(Command::new("openssl").current_dir(&dir).args(&args));
        assert!(ok, "{log}");
        std::fs::read(dir.join(name)).unwrap()
    };
    // The CA bundle in reverse order (root first): the chain still comes out nearest issuer first.
    let mut bundle = std::fs::read(dir.join("root.pem")).unwrap();
    bundle.extend(std::fs::read(dir.join("int.pem")).unwrap());
    std::fs::write(dir.join("bundle.pem"), bundle).unwrap();
    let s =
        SoftwareSigner::from_pkcs12(&p12(Some("bundle.pem"), "full.p12"), "chain-test").unwrap();
    assert_eq!(s.certificate_der(), leaf.as_slice());
    assert_eq!(s.certificate_chain(), [int.clone(), root]);
    // Only the intermediate shipped: the chain stops there.
    let s = SoftwareSigner::from_pkcs12(&p12(Some("int.pem"), "int.p12"), "chain-test").unwrap();
    assert_eq!(s.certificate_chain(), [int]);
    // No CA certificates in the file, or a PEM signer: no chain.
    let s = SoftwareSigner::from_pkcs12(&p12(None, "alone.p12"), "chain-test").unwrap();
    assert!(s.certificate_chain().is_empty());
    assert!(sandbox_test_signer()
        .unwrap()
        .certificate_chain()
        .is_empty());
}

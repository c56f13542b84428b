//! Secrets never leak into text: the P12 password and the private key never appear in an error's Display or Debug,
//! a signer's Debug, a verification report or a finding; the CSC secret never appears in a dCarQR, an `Emisor`'s Debug
//! or any API response. The key and P12 are made by openssl here, with a distinctive password, then every string we
//! can produce is scanned for the password and for windows of the private key's secret numbers.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../../core/tests/common/mod.rs"]
mod common;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use kuatia_core::cdc::FixedSecurityCode;
use kuatia_core::issue::{issue, numbering_key, MemoryNumbering};
use kuatia_core::profile::{Emisor, Secret};
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify, Signer, SoftwareSigner};
use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, MemoryStore, Service, Store};
use std::path::PathBuf;
use std::process::Command;
use time::macros::datetime;
use time::OffsetDateTime;

const PASSWORD: &str = "Zq7!Secr3t-P12-pa55word-kuatia";
const CSC_SECRET: &str = "CSCsecretQ7W9X2Z4V6B8N1M3K5J7H9G0";

struct Material {
    p12: Vec<u8>,
    legacy_p12: Option<Vec<u8>>,
    key_pem: String,
    cert_pem: String,
    /// Fragments that must never appear: hex and base64 windows of d, p, q, dP, dQ, qInv, and the password.
    needles: Vec<String>,
}

fn openssl(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl installed")
        .status
        .success()
}

/// The secret integers of the key as big-endian bytes, read from `openssl rsa -text`.
fn secret_integers(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let secret_header = [
            "privateExponent:",
            "prime1:",
            "prime2:",
            "exponent1:",
            "exponent2:",
            "coefficient:",
        ]
        .iter()
        .any(|h| line.starts_with(h));
        if !line.starts_with(' ') {
            if let Some(hex) = current.take() {
                out.push(hex_bytes(&hex));
            }
            if secret_header {
                current = Some(String::new());
            }
        } else if let Some(h) = current.as_mut() {
            h.push_str(&line.trim().replace(':', ""));
        }
    }
    if let Some(hex) = current.take() {
        out.push(hex_bytes(&hex));
    }
    out
}

fn hex_bytes(h: &str) -> Vec<u8> {
    (0..h.len() / 2)
        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn material() -> Material {
    let tmp = common::TempDir::new("secrets");
    let dir = tmp.0.clone();
    assert!(openssl(
        &dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-days",
            "3650",
            "-subj",
            "/CN=Secreto Test/serialNumber=RUC44444401-7",
        ]
    ));
    let pass = format!("pass:{PASSWORD}");
    assert!(openssl(
        &dir,
        &[
            "pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-out", "k.p12",
            "-passout", &pass
        ]
    ));
    // 3DES/RC2 P12 files (older tooling) go through another code path; openssl 3 needs -legacy for them.
    let legacy = openssl(
        &dir,
        &[
            "pkcs12",
            "-export",
            "-legacy",
            "-inkey",
            "key.pem",
            "-in",
            "cert.pem",
            "-out",
            "legacy.p12",
            "-passout",
            &pass,
        ],
    );
    let text = Command::new("openssl")
        .args(["rsa", "-in", "key.pem", "-text", "-noout"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let ints = secret_integers(&String::from_utf8_lossy(&text.stdout));
    assert_eq!(ints.len(), 6, "could not read the key's secret numbers");
    let mut needles = vec![PASSWORD.to_string(), PASSWORD[..12].to_string()];
    for int in &ints {
        let int: Vec<u8> = int.iter().copied().skip_while(|b| *b == 0).collect();
        // 8-byte windows every 8 bytes: any leak of 16+ bytes of a secret number contains one in full.
        for w in int.chunks(8).filter(|w| w.len() == 8) {
            needles.push(hex(w));
            needles.push(hex(w).to_uppercase());
        }
        // Base64 at the three byte alignments, a middle stretch of each.
        for shift in 0..3 {
            let b = B64.encode(&int[shift..]);
            needles.push(b[8..40].to_string());
        }
    }
    let key_pem = std::fs::read_to_string(dir.join("key.pem")).unwrap();
    Material {
        p12: std::fs::read(dir.join("k.p12")).unwrap(),
        legacy_p12: legacy.then(|| std::fs::read(dir.join("legacy.p12")).unwrap()),
        cert_pem: std::fs::read_to_string(dir.join("cert.pem")).unwrap(),
        key_pem,
        needles,
    }
}

fn assert_clean(what: &str, text: &str, needles: &[String]) {
    for n in needles {
        assert!(
            !text.contains(n.as_str()),
            "{what} leaks a secret fragment {n:?}: {text}"
        );
    }
}

fn describe<T: std::fmt::Debug, E: std::fmt::Debug + std::fmt::Display>(
    r: &Result<T, E>,
) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("{e} | {e:?}"),
    }
}

#[test]
fn p12_password_and_key_never_appear_in_errors_signers_or_reports() {
    let m = material();
    let mut texts: Vec<(String, String)> = Vec::new();

    // The needles really are in the key (so the scan can fail).
    let der_text = format!("{:?} {}", m.key_pem, hex(m.key_pem.as_bytes()));
    assert!(m
        .needles
        .iter()
        .skip(2)
        .any(|n| m.key_pem.contains(n.as_str()) || der_text.contains(n.as_str())));

    // Valid loads: the signer's Debug, a signature, its verification.
    let mut p12s = vec![("aes", m.p12.clone())];
    if let Some(l) = &m.legacy_p12 {
        p12s.push(("legacy", l.clone()));
    }
    for (kind, p12) in &p12s {
        let signer = SoftwareSigner::from_pkcs12(p12, PASSWORD);
        assert!(signer.is_ok(), "{kind}: {:?}", signer.err());
        texts.push((format!("{kind} signer"), describe(&signer)));
        let signer = signer.unwrap();
        let xml =
            r#"<rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd"><DE Id="x1"><a>1</a></DE></rDE>"#;
        let signed = sign_element(xml, "x1", &signer).unwrap();
        texts.push((format!("{kind} signed"), format!("{signed:?}")));
        let report = verify(&signed.xml, Some(datetime!(2025-03-10 10:11:00)));
        assert!(report.signature_ok, "{report:?}");
        texts.push((format!("{kind} report"), format!("{report:?}")));

        // Wrong passwords, including near misses: neither the tried nor the real password comes back.
        for wrong in [
            "",
            "n0t-the-Passw0rd",
            &PASSWORD[..PASSWORD.len() - 1],
            &format!("{PASSWORD}x"),
        ] {
            let r = SoftwareSigner::from_pkcs12(p12, wrong);
            assert_eq!(
                r.as_ref().err().map(|e| e.code()),
                Some("P12_WRONG_PASSWORD"),
                "{kind} {wrong:?}"
            );
            let t = describe(&r);
            if wrong.len() > 3 {
                assert!(!t.contains(wrong), "{kind}: tried password echoed: {t}");
            }
            texts.push((format!("{kind} wrong password {wrong:?}"), t));
        }
        // Truncations and single-byte corruptions with the right password.
        for cut in (0..p12.len()).step_by(61) {
            let r = SoftwareSigner::from_pkcs12(&p12[..cut], PASSWORD);
            assert!(r.is_err());
            texts.push((format!("{kind} cut at {cut}"), describe(&r)));
        }
        for at in (0..p12.len()).step_by(37) {
            let mut bad = p12.clone();
            bad[at] ^= 0x5a;
            let r = SoftwareSigner::from_pkcs12(&bad, PASSWORD);
            texts.push((format!("{kind} flipped at {at}"), describe(&r)));
        }
    }
    // Garbage with the real password.
    for g in [
        &b""[..],
        b"\x30\x82\xff\xff",
        m.key_pem.as_bytes(),
        m.cert_pem.as_bytes(),
    ] {
        let r = SoftwareSigner::from_pkcs12(g, PASSWORD);
        assert!(r.is_err());
        texts.push(("garbage".into(), describe(&r)));
    }
    // PEM loads: good, mismatched certificate, corrupted key body.
    let pem = SoftwareSigner::from_pem(&m.key_pem, &m.cert_pem);
    assert!(pem.is_ok(), "{:?}", pem.err());
    texts.push(("pem signer".into(), describe(&pem)));
    let sandbox = sandbox_test_signer().unwrap();
    let sandbox_cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        B64.encode(sandbox.certificate_der())
    );
    let mismatch = SoftwareSigner::from_pem(&m.key_pem, &sandbox_cert);
    assert_eq!(
        mismatch.as_ref().err().map(|e| e.code()),
        Some("KEY_CERT_MISMATCH")
    );
    texts.push(("pem mismatch".into(), describe(&mismatch)));
    let lines: Vec<&str> = m.key_pem.lines().collect();
    for i in 1..lines.len().saturating_sub(1) {
        let mut l = lines.clone();
        l[i] = "AAAA";
        let r = SoftwareSigner::from_pem(&l.join("\n"), &m.cert_pem);
        texts.push((format!("pem line {i} replaced"), describe(&r)));
    }
    // Findings of issuing with this signer for a profile of another RUC (production rules).
    let mut emisor = Emisor::sandbox();
    emisor.ambiente = kuatia_core::profile::Ambiente::Produccion;
    emisor.ruc = "80069563-1".into();
    let signer = SoftwareSigner::from_pkcs12(&m.p12, PASSWORD).unwrap();
    let r = kuatia_core::issue::check_signer(&emisor, &signer, datetime!(2025-03-10 10:11:00));
    texts.push(("check_signer".into(), format!("{r:?}")));

    assert!(texts.len() > 50);
    for (what, t) in &texts {
        assert_clean(what, t, &m.needles);
    }
}

fn request_json() -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cases/fe_spec_example.json");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    case["request"].clone()
}

fn secret_profile() -> Emisor {
    let mut e = Emisor::sandbox();
    e.csc.secreto = Secret::new(CSC_SECRET);
    e
}

#[test]
fn csc_secret_never_in_qr_debug_or_issued_document() {
    let emisor = secret_profile();
    let needles = vec![CSC_SECRET.to_string(), CSC_SECRET[..12].to_string()];
    assert_clean("Emisor Debug", &format!("{emisor:?}"), &needles);
    assert_clean("Csc Debug", &format!("{:?}", emisor.csc), &needles);
    let now = datetime!(2025-03-10 10:11:00);
    let req = kuatia_core::invoice::parse_request(&request_json().to_string()).unwrap();
    let key = numbering_key(&req, &emisor, now).unwrap();
    let issued = issue(
        &emisor,
        &req,
        &sandbox_test_signer().unwrap(),
        now,
        &mut FixedSecurityCode(123_456_789),
        &mut MemoryNumbering::starting_at(key, 1),
    )
    .unwrap();
    // The QR carries only the hash made with the secret: it must verify with it and not contain it.
    assert!(kuatia_core::qr::check_hash(&issued.qr, CSC_SECRET));
    assert!(!kuatia_core::qr::check_hash(
        &issued.qr,
        "ABCD0000000000000000000000000000"
    ));
    assert_clean("dCarQR", &issued.qr, &needles);
    assert_clean("signed XML", &issued.xml, &needles);
    assert_clean("Issued Debug", &format!("{issued:?}"), &needles);
    assert_clean(
        "Issued JSON",
        &serde_json::to_string(&issued).unwrap(),
        &needles,
    );
}

struct TestHost {
    now: OffsetDateTime,
    n: u32,
    signer: SoftwareSigner,
}

impl Host for TestHost {
    fn now(&mut self) -> OffsetDateTime {
        self.now
    }
    fn random_u32(&mut self) -> u32 {
        self.n = self.n.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.n
    }
    fn signer(&self, _account: &str, _env: Environment) -> Option<&dyn Signer> {
        Some(&self.signer)
    }
}

#[test]
fn csc_secret_never_in_api_responses() {
    let mut host = TestHost {
        now: OffsetDateTime::from_unix_timestamp(1_741_612_260).unwrap(),
        n: 7,
        signer: sandbox_test_signer().unwrap(),
    };
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (account, key) = svc.create_account("Secretos S.A.", &mut host);
    let mut acc = svc.store.account(&account.id).unwrap();
    acc.sandbox = secret_profile();
    svc.store.put_account(acc);
    let needles = vec![CSC_SECRET.to_string(), CSC_SECRET[..12].to_string()];
    let mut call = |method: &str, path: &str, body: Option<serde_json::Value>| {
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {key}")),
                ("X-Environment".into(), "sandbox".into()),
            ],
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        let r = svc.handle(&req, &mut host);
        let text = format!("{:?} {}", r.headers, String::from_utf8_lossy(&r.body));
        assert_clean(&format!("{method} {path}"), &text, &needles);
        r
    };
    let r = call("POST", "/v1/facturas", Some(request_json()));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let qr = r.json()["data"]["qr"].as_str().map(str::to_string);
    call("GET", &format!("/v1/facturas/{id}"), None);
    call("GET", &format!("/v1/facturas/{id}/kude"), None);
    call("GET", "/v1/facturas", None);
    call("GET", "/v1/health", None);
    call(
        "POST",
        "/v1/webhooks",
        Some(serde_json::json!({"url": "https://example.com/h", "events": ["factura.approved"]})),
    );
    call("GET", "/v1/webhooks", None);
    let mut bad = request_json();
    bad["items"][0]["iva"] = serde_json::json!(7);
    call("POST", "/v1/facturas", Some(bad));
    if let Some(qr) = qr {
        assert!(
            kuatia_core::qr::check_hash(&qr, CSC_SECRET),
            "the API's QR uses the profile's CSC"
        );
    }
    let checks = svc.preflight(&account.id, &mut host);
    assert_clean("preflight", &format!("{checks:?}"), &needles);
}

//! The C exports for identifiers and invoices, called from Rust: RUC and CDC, validation findings all at once, an
//! issue matching the conformance case and everything downstream, signers from PKCS#12 and PEM, one signer shared by
//! many threads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use kuatia::*;
use std::ptr::{null, null_mut};

#[test]
fn ruc_and_cdc() {
    let mut dv = 0u8;
    let body = b"80069563";
    assert_eq!(
        unsafe { kuatia_ruc_dv(body.as_ptr(), body.len(), &mut dv, null_mut()) },
        kuatia_status::Ok
    );
    assert_eq!(dv, 1, "SIFEN.md §1: 80069563-1");
    for (ruc, ok) in [(&b"80069563-1"[..], true), (b"80069563-2", false)] {
        let st = unsafe { kuatia_ruc_check(ruc.as_ptr(), ruc.len(), null_mut()) };
        assert_eq!(st == kuatia_status::Ok, ok);
    }
    let mut err = null_mut();
    let st = unsafe { kuatia_ruc_check(b"80069563-2".as_ptr(), 10, &mut err) };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(err_parts(err).1, "INVALID_RUC");

    let fields = br#"{"tipo_documento":1,"ruc":"44444401-7","establecimiento":1,"punto":1,"numero":1,"tipo_contribuyente":2,"fecha":"2025-03-10","tipo_emision":1,"codigo_seguridad":123456789}"#;
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe { kuatia_cdc_build(fields.as_ptr(), fields.len(), &mut out, &mut err) };
    if st != kuatia_status::Ok {
        panic!("{:?}", err_parts(err));
    }
    let cdc = text(out);
    assert_eq!(cdc.len(), 44);
    let mut out = zero();
    assert_eq!(
        unsafe { kuatia_cdc_parse(cdc.as_ptr(), cdc.len(), &mut out, null_mut()) },
        kuatia_status::Ok
    );
    let parsed: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    assert_eq!(parsed["cdc"], cdc);
    assert_eq!(parsed["numero"], 1);
    assert_eq!(parsed["codigo_seguridad"], 123456789);

    let mut err = null_mut();
    let mut out = zero();
    let bad = b"01444444017001001000000122025031011234567891";
    assert_eq!(
        unsafe { kuatia_cdc_parse(bad.as_ptr(), bad.len(), &mut out, &mut err) },
        kuatia_status::InvalidInput
    );
    assert_eq!(err_parts(err).1, "INVALID_CDC");
}

#[test]
fn validation_findings_come_back_all_at_once() {
    let req = br#"{"tipo_documento":1,"receptor":{"ruc":"80069563-2","razon_social":""},"items":[{"descripcion":"","cantidad":0,"precio_unitario":5,"iva":11}]}"#;
    let (st, out, err) = validate(req, None, NOW.as_bytes());
    assert_eq!(st, kuatia_status::Ok, "a report with findings is a result");
    assert!(err.is_null());
    let report: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    assert_eq!(report["ok"], false);
    let codes: Vec<&str> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "receptor.razon_social",
            "receptor.ruc",
            "items[0].descripcion",
            "items[0].cantidad",
            "items[0].iva"
        ]
    );

    // The same request through issue: INVALID_INPUT with every finding in the error.
    let signer = sandbox();
    let Issued { status, err, .. } = issue(req, signer, NOW, 1, 5);
    unsafe { kuatia_signer_free(signer) };
    assert_eq!(status, kuatia_status::InvalidInput);
    let n = unsafe { kuatia_error_count(err) };
    assert_eq!(n, report["errors"].as_array().unwrap().len());
    let json: serde_json::Value =
        serde_json::from_str(&cstr(unsafe { kuatia_error_json(err) })).unwrap();
    for i in 0..n {
        let (mut c, mut p, mut m) = (null(), null(), null());
        assert!(unsafe { kuatia_error_finding(err, i, &mut c, &mut p, &mut m) });
        assert_eq!(cstr(c), report["errors"][i]["code"]);
        assert_eq!(cstr(p), report["errors"][i]["path"]);
        assert_eq!(cstr(m), json[i]["message"]);
    }
    assert!(!unsafe { kuatia_error_finding(err, n, null_mut(), null_mut(), null_mut()) });
    unsafe { kuatia_error_free(err) };

    // A bad profile and a bad `now` are errors, located.
    let (st, out, err) = validate(req, Some(b"{\"ruc\": 5}"), NOW.as_bytes());
    assert_eq!((st, out.ptr.is_null()), (kuatia_status::InvalidInput, true));
    assert!(err_parts(err).2.starts_with("profile"));
    let (st, out, err) = validate(req, None, b"yesterday");
    assert_eq!((st, out.ptr.is_null()), (kuatia_status::InvalidInput, true));
    assert_eq!(err_parts(err).2, "now");
}

/// Issue through the C ABI gives exactly what the conformance case records (which Rust produces), and the
/// signed XML verifies, renders as a KuDE, and its QR parses back with a matching hash.
#[test]
fn issue_matches_the_conformance_case_and_everything_downstream_works() {
    let c = case("fe_spec_example");
    let req = c["request"].to_string();
    let signer = sandbox();
    let ctx = &c["context"];
    let now = ctx["now"].as_str().unwrap();
    let numero = ctx["numero"].as_u64().unwrap() as u32;
    let issued = issue(
        req.as_bytes(),
        signer,
        now,
        numero,
        ctx["codigo_seguridad"].as_u64().unwrap() as u32,
    );
    if issued.status != kuatia_status::Ok {
        panic!("{:?}", err_parts(issued.err));
    }
    let xml = text(issued.xml);
    let summary: serde_json::Value = serde_json::from_str(&text(issued.summary)).unwrap();
    let exp = &c["expected"];
    assert_eq!(summary["cdc"], exp["cdc"]);
    assert_eq!(summary["numero"], exp["numero"]);
    assert_eq!(summary["qr"], exp["qr"]);
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(xml.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest, exp["xml_sha256"].as_str().unwrap());

    let mut valid = false;
    let mut rep = zero();
    assert_eq!(
        unsafe {
            kuatia_xml_verify(
                xml.as_ptr(),
                xml.len(),
                now.as_ptr(),
                now.len(),
                &mut valid,
                &mut rep,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    assert!(valid);
    let report: serde_json::Value = serde_json::from_str(&text(rep)).unwrap();
    assert_eq!(report["reference_id"], exp["cdc"]);
    let tampered = xml.replacen("<dCodSeg>1", "<dCodSeg>2", 1);
    assert_ne!(tampered, xml);
    let mut rep = zero();
    assert_eq!(
        unsafe {
            kuatia_xml_verify(
                tampered.as_ptr(),
                tampered.len(),
                null(),
                0,
                &mut valid,
                &mut rep,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    assert!(!valid);
    drop(take(rep));

    for format in [kuatia_kude_format::A4, kuatia_kude_format::Ticket] {
        let mut pdf = zero();
        assert_eq!(
            unsafe {
                kuatia_kude_pdf(
                    xml.as_ptr(),
                    xml.len(),
                    format as u32,
                    true,
                    &mut pdf,
                    null_mut(),
                )
            },
            kuatia_status::Ok
        );
        assert!(take(pdf).starts_with(b"%PDF-"));
    }
    // A number that is no format (a C enum is an int; a binding may pass anything) is an error, never UB.
    for format in [2, 7, u32::MAX] {
        let mut pdf = zero();
        let mut err = null_mut();
        assert_eq!(
            unsafe { kuatia_kude_pdf(xml.as_ptr(), xml.len(), format, true, &mut pdf, &mut err) },
            kuatia_status::InvalidArgument
        );
        assert!(pdf.ptr.is_null(), "nothing written for format {format}");
        let (status, code, path) = err_parts(err);
        assert_eq!(status, kuatia_status::InvalidArgument);
        assert_eq!(
            (code.as_str(), path.as_str()),
            ("INVALID_ARGUMENT", "format")
        );
    }

    let qr = exp["qr"].as_str().unwrap();
    let mut parts = zero();
    let csc = kuatia_core::profile::Emisor::sandbox()
        .csc
        .secreto
        .expose()
        .to_string();
    assert_eq!(
        unsafe {
            kuatia_qr_parse(
                qr.as_ptr(),
                qr.len(),
                csc.as_ptr(),
                csc.len(),
                &mut parts,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    let mut p: serde_json::Value = serde_json::from_str(&text(parts)).unwrap();
    assert_eq!(p["hash_ok"], true);
    assert_eq!(p["receptor"]["ruc"], "80069563");
    // Rebuild it from the parsed parts: same text.
    let obj = p.as_object_mut().unwrap();
    for k in ["version", "hash", "hash_ok"] {
        obj.remove(k);
    }
    obj.insert("csc".into(), csc.into());
    let fields = p.to_string();
    let mut built = zero();
    let mut err = null_mut();
    let st = unsafe { kuatia_qr_build(fields.as_ptr(), fields.len(), &mut built, &mut err) };
    if st != kuatia_status::Ok {
        panic!("{:?}", err_parts(err));
    }
    assert_eq!(text(built), qr);

    // Preview with the same context carries the same CDC, and signing it by hand gives a verifiable document.
    let mut pre = zero();
    let st = unsafe {
        kuatia_invoice_preview_xml(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            now.as_ptr(),
            now.len(),
            1,
            123456789,
            &mut pre,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let unsigned = text(pre);
    let cdc = exp["cdc"].as_str().unwrap();
    assert!(unsigned.contains(&format!("Id=\"{cdc}\"")));
    let mut signed = zero();
    assert_eq!(
        unsafe {
            kuatia_xml_sign(
                unsigned.as_ptr(),
                unsigned.len(),
                cdc.as_ptr(),
                cdc.len(),
                signer,
                &mut signed,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    let signed = text(signed);
    let mut rep = zero();
    unsafe {
        kuatia_xml_verify(
            signed.as_ptr(),
            signed.len(),
            null(),
            0,
            &mut valid,
            &mut rep,
            null_mut(),
        )
    };
    drop(take(rep));
    assert!(valid);
    let mut err = null_mut();
    let mut out = zero();
    let st = unsafe {
        kuatia_xml_sign(
            unsigned.as_ptr(),
            unsigned.len(),
            b"nope".as_ptr(),
            4,
            signer,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(err_parts(err).1, "ELEMENT_NOT_FOUND");

    let mut key = zero();
    let st = unsafe {
        kuatia_invoice_numbering_key(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            now.as_ptr(),
            now.len(),
            &mut key,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let key: serde_json::Value = serde_json::from_str(&text(key)).unwrap();
    assert_eq!(key["establecimiento"], "001");
    let mut totals = zero();
    assert_eq!(
        unsafe { kuatia_invoice_totals(req.as_ptr(), req.len(), &mut totals, null_mut()) },
        kuatia_status::Ok
    );
    let totals: serde_json::Value = serde_json::from_str(&text(totals)).unwrap();
    assert_eq!(
        totals["totales"]["total_general"],
        exp["totales"]["total_general"]
    );
    unsafe { kuatia_signer_free(signer) };
}

#[test]
fn signers_from_p12_and_pem() {
    let data = root().join("tests/fixtures/certs");
    let read = |name: &str| std::fs::read(data.join(name)).unwrap();
    let (p12, key, cert, other) = (
        read("sandbox.p12"),
        read("sandbox.key.pem"),
        read("sandbox.cert.pem"),
        read("other.key.pem"),
    );
    for (source, want) in [
        (SignerSource::P12(&p12, b"kuatia-test"), None),
        (
            SignerSource::P12(&p12, b"wrong"),
            Some("P12_WRONG_PASSWORD"),
        ),
        (SignerSource::Pem(&key, &cert), None),
        (SignerSource::Pem(&other, &cert), Some("KEY_CERT_MISMATCH")),
    ] {
        let (st, s, err) = signer_from(source);
        match want {
            None => {
                assert_eq!(
                    (st, s.is_null(), err.is_null()),
                    (kuatia_status::Ok, false, true)
                );
                unsafe { kuatia_signer_free(s) };
            }
            Some(code) => {
                assert_eq!((st, s.is_null()), (kuatia_status::SignError, true));
                assert_eq!(err_parts(err).1, code);
            }
        }
    }
}

/// One signer shared by eight threads issuing at once: every document is the one a single thread gets.
#[test]
fn one_signer_many_threads() {
    struct Shared(*mut kuatia_signer);
    // SAFETY: kuatia_signer is documented shareable (Send + Sync inside).
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let signer = std::sync::Arc::new(Shared(sandbox()));
    let req = std::sync::Arc::new(case("fe_spec_example")["request"].to_string());
    let handles: Vec<_> = (1..=8u32)
        .map(|n| {
            let (signer, req) = (signer.clone(), req.clone());
            std::thread::spawn(move || {
                let issued = issue(req.as_bytes(), signer.0, NOW, n, 1000 + n);
                assert_eq!(issued.status, kuatia_status::Ok);
                drop(take(issued.xml));
                let s: serde_json::Value = serde_json::from_str(&text(issued.summary)).unwrap();
                (n, s["cdc"].as_str().unwrap().to_string())
            })
        })
        .collect();
    for h in handles {
        let (n, cdc) = h.join().unwrap();
        let c = &cdc;
        assert_eq!(&c[17..24], format!("{n:07}"), "numero in the CDC");
        assert_eq!(
            &c[34..43],
            format!("{:09}", 1000 + n),
            "security code in the CDC"
        );
    }
    unsafe { kuatia_signer_free(signer.0) };
}

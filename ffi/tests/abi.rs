//! Calls the C exports directly from Rust: argument checking (NULL, invalid UTF-8, absurd lengths), error objects,
//! freeing, the panic boundary on every export, the header's version macros and concurrent use of one signer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia::*;
use std::ffi::CStr;
use std::path::PathBuf;
use std::ptr::{null, null_mut};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn zero() -> kuatia_bytes {
    kuatia_bytes {
        ptr: null_mut(),
        len: 0,
    }
}

/// Takes a result buffer: checks the trailing NUL, copies it out and frees it.
fn take(mut b: kuatia_bytes) -> Vec<u8> {
    assert!(!b.ptr.is_null());
    let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len + 1) }.to_vec();
    assert_eq!(v.last(), Some(&0), "results are NUL-terminated");
    unsafe { kuatia_bytes_free(&mut b) };
    assert!(b.ptr.is_null() && b.len == 0, "free resets the buffer");
    v[..v.len() - 1].to_vec()
}

fn text(b: kuatia_bytes) -> String {
    String::from_utf8(take(b)).unwrap()
}

fn cstr(p: *const std::ffi::c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// Code, path and status of an error, then frees it.
fn err_parts(err: *mut kuatia_error) -> (kuatia_status, String, String) {
    assert!(
        !err.is_null(),
        "a failing call with err != NULL writes an error"
    );
    let parts = unsafe {
        (
            kuatia_error_status(err),
            cstr(kuatia_error_code(err)),
            cstr(kuatia_error_path(err)),
        )
    };
    unsafe { kuatia_error_free(err) };
    parts
}

const NOW: &str = "2025-03-10T10:11:00";

fn case(name: &str) -> serde_json::Value {
    let path = root()
        .join("tests/fixtures/cases")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn sandbox() -> *mut kuatia_signer {
    let mut s = null_mut();
    assert_eq!(
        unsafe { kuatia_signer_sandbox(&mut s, null_mut()) },
        kuatia_status::Ok
    );
    s
}

#[test]
fn version_macros_match_cargo() {
    let header = std::fs::read_to_string(root().join("include/kuatia.h")).unwrap();
    let v = env!("CARGO_PKG_VERSION");
    let parts: Vec<&str> = v.split('.').collect();
    assert!(header.contains(&format!("#define KUATIA_VERSION \"{v}\"")));
    for (name, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(&parts) {
        assert!(
            header.contains(&format!("#define KUATIA_VERSION_{name} {value}\n")),
            "KUATIA_VERSION_{name} is not {value}"
        );
    }
    assert_eq!(cstr(kuatia_version()), v);
}

/// Every `extern "C" fn` in ffi/src must run its whole body inside `call(` or `guard(`.
#[test]
fn every_export_is_behind_the_panic_boundary() {
    let mut exports = 0;
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("ffi/src")).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        let mut rest = src.as_str();
        while let Some(i) = rest.find("extern \"C\" fn ") {
            rest = &rest[i + "extern \"C\" fn ".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // Signatures hold no braces, so the first '{' opens the body.
            let body = &rest[rest.find('{').unwrap() + 1..];
            let first = body.trim_start();
            let first = first.strip_prefix("abi::").unwrap_or(first);
            if !(first.starts_with("call(err,") || first.starts_with("guard(")) {
                missing.push(format!("{}: {name}", path.display()));
            }
            exports += 1;
        }
    }
    assert!(
        exports >= 28,
        "only {exports} exports found: scanner broken?"
    );
    assert!(
        missing.is_empty(),
        "exports without the panic boundary: {missing:?}"
    );
}

#[test]
fn every_export_is_in_the_header() {
    let header = std::fs::read_to_string(root().join("include/kuatia.h")).unwrap();
    for entry in std::fs::read_dir(root().join("ffi/src")).unwrap() {
        let src = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for part in src.split("extern \"C\" fn ").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            assert!(
                header.contains(&format!("{name}(")),
                "{name} missing from include/kuatia.h"
            );
        }
    }
}

#[test]
fn null_inputs_and_outputs_are_invalid_arguments_and_nothing_is_written() {
    let json = b"{}";
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe { kuatia_cdc_build(null(), 3, &mut out, &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert!(out.ptr.is_null(), "out-params are written only on success");
    let (s, code, path) = err_parts(err);
    assert_eq!(
        (s, code.as_str(), path.as_str()),
        (st, "INVALID_ARGUMENT", "fields_json")
    );

    let mut err = null_mut();
    let st = unsafe { kuatia_cdc_build(json.as_ptr(), json.len(), null_mut(), &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_cdc");

    // err itself may be NULL.
    let st = unsafe { kuatia_ruc_dv(null(), 0, null_mut(), null_mut()) };
    assert_eq!(st, kuatia_status::InvalidArgument);

    let req = case("fe_spec_example")["request"].to_string();
    let (mut x, mut j) = (zero(), zero());
    let mut err = null_mut();
    let st = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            null(),
            NOW.as_ptr(),
            NOW.len(),
            1,
            123456789,
            &mut x,
            &mut j,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "signer");
    assert!(x.ptr.is_null() && j.ptr.is_null());

    let signer = sandbox();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            signer,
            NOW.as_ptr(),
            NOW.len(),
            1,
            123456789,
            &mut x,
            &mut x,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument, "aliased out-params");
    unsafe { kuatia_error_free(err) };
    unsafe { kuatia_signer_free(signer) };

    let mut valid = false;
    let mut err = null_mut();
    let xml = b"<a/>";
    let st = unsafe {
        kuatia_xml_verify(
            xml.as_ptr(),
            xml.len(),
            null(),
            0,
            &mut valid,
            null_mut(),
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_report");
}

#[test]
fn invalid_utf8_is_reported_with_the_argument() {
    let bad = [b'{', 0xff, 0xfe, b'}'];
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe { kuatia_invoice_totals(bad.as_ptr(), bad.len(), &mut out, &mut err) };
    assert_eq!(st, kuatia_status::InvalidUtf8);
    assert!(out.ptr.is_null());
    let (_, code, path) = err_parts(err);
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("INVALID_UTF8", "request_json")
    );

    let mut err = null_mut();
    let st = unsafe { kuatia_ruc_check(bad.as_ptr(), bad.len(), &mut err) };
    assert_eq!(st, kuatia_status::InvalidUtf8);
    unsafe { kuatia_error_free(err) };
}

#[test]
fn absurd_lengths_are_refused_before_reading() {
    // The pointer is valid for 1 byte only: kuatia must refuse the length without touching the memory.
    let one = [b'x'];
    let mut out = zero();
    let mut err = null_mut();
    for len in [
        KUATIA_MAX_INPUT_LEN + 1,
        usize::MAX,
        isize::MAX as usize + 1,
    ] {
        let st = unsafe { kuatia_cdc_parse(one.as_ptr(), len, &mut out, &mut err) };
        assert_eq!(st, kuatia_status::TooLarge);
        let (_, code, path) = err_parts(err);
        assert_eq!((code.as_str(), path.as_str()), ("TOO_LARGE", "cdc"));
        err = null_mut();
    }
    assert!(out.ptr.is_null());
}

#[test]
fn frees_accept_null_and_double_free_through_the_same_buffer_is_harmless() {
    unsafe {
        kuatia_bytes_free(null_mut());
        kuatia_error_free(null_mut());
        kuatia_signer_free(null_mut());
        let mut b = zero();
        kuatia_bytes_free(&mut b);
        let mut out = zero();
        let cdc = b"01444444017001001000000122025031011234567890";
        assert_eq!(
            kuatia_cdc_parse(cdc.as_ptr(), cdc.len(), &mut out, null_mut()),
            kuatia_status::Ok
        );
        kuatia_bytes_free(&mut out);
        kuatia_bytes_free(&mut out);
        assert!(out.ptr.is_null());
        // Accessors on a NULL error.
        assert!(kuatia_error_code(null()).is_null());
        assert!(kuatia_error_message(null()).is_null());
        assert!(kuatia_error_path(null()).is_null());
        assert!(kuatia_error_json(null()).is_null());
        assert_eq!(kuatia_error_count(null()), 0);
        assert_eq!(kuatia_error_status(null()), kuatia_status::InvalidArgument);
        assert!(!kuatia_error_finding(
            null(),
            0,
            null_mut(),
            null_mut(),
            null_mut()
        ));
    }
}

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
    let mut out = zero();
    let st = unsafe {
        kuatia_invoice_validate(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            NOW.as_ptr(),
            NOW.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok, "a report with findings is a result");
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
    let (mut x, mut j) = (zero(), zero());
    let mut err = null_mut();
    let st = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            signer,
            NOW.as_ptr(),
            NOW.len(),
            1,
            5,
            &mut x,
            &mut j,
            &mut err,
        )
    };
    unsafe { kuatia_signer_free(signer) };
    assert_eq!(st, kuatia_status::InvalidInput);
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
    let mut out = zero();
    let mut err = null_mut();
    let profile = b"{\"ruc\": 5}";
    let st = unsafe {
        kuatia_invoice_validate(
            req.as_ptr(),
            req.len(),
            profile.as_ptr(),
            profile.len(),
            NOW.as_ptr(),
            NOW.len(),
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert!(err_parts(err).2.starts_with("profile"));
    let mut err = null_mut();
    let st = unsafe {
        kuatia_invoice_validate(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            b"yesterday".as_ptr(),
            9,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
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
    let (mut x, mut j) = (zero(), zero());
    let mut err = null_mut();
    let st = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            signer,
            now.as_ptr(),
            now.len(),
            ctx["numero"].as_u64().unwrap() as u32,
            ctx["codigo_seguridad"].as_u64().unwrap() as u32,
            &mut x,
            &mut j,
            &mut err,
        )
    };
    if st != kuatia_status::Ok {
        panic!("{:?}", err_parts(err));
    }
    let xml = text(x);
    let summary: serde_json::Value = serde_json::from_str(&text(j)).unwrap();
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
            unsafe { kuatia_kude_pdf(xml.as_ptr(), xml.len(), format, true, &mut pdf, null_mut()) },
            kuatia_status::Ok
        );
        assert!(take(pdf).starts_with(b"%PDF-"));
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
    let data = root().join("core/testdata");
    let p12 = std::fs::read(data.join("sandbox.p12")).unwrap();
    let mut s = null_mut();
    let pass = b"kuatia-test";
    assert_eq!(
        unsafe {
            kuatia_signer_from_p12(
                p12.as_ptr(),
                p12.len(),
                pass.as_ptr(),
                pass.len(),
                &mut s,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    assert!(!s.is_null());
    unsafe { kuatia_signer_free(s) };
    let mut s = null_mut();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_signer_from_p12(
            p12.as_ptr(),
            p12.len(),
            b"wrong".as_ptr(),
            5,
            &mut s,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::SignError);
    assert!(s.is_null());
    assert_eq!(err_parts(err).1, "P12_WRONG_PASSWORD");

    let key = std::fs::read(data.join("sandbox.key.pem")).unwrap();
    let cert = std::fs::read(data.join("sandbox.cert.pem")).unwrap();
    assert_eq!(
        unsafe {
            kuatia_signer_from_pem(
                key.as_ptr(),
                key.len(),
                cert.as_ptr(),
                cert.len(),
                &mut s,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    unsafe { kuatia_signer_free(s) };
    let other = std::fs::read(data.join("other.key.pem")).unwrap();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_signer_from_pem(
            other.as_ptr(),
            other.len(),
            cert.as_ptr(),
            cert.len(),
            &mut s,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::SignError);
    assert_eq!(err_parts(err).1, "KEY_CERT_MISMATCH");
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
                let (mut x, mut j) = (zero(), zero());
                let st = unsafe {
                    kuatia_invoice_issue(
                        req.as_ptr(),
                        req.len(),
                        null(),
                        0,
                        signer.0,
                        NOW.as_ptr(),
                        NOW.len(),
                        n,
                        1000 + n,
                        &mut x,
                        &mut j,
                        null_mut(),
                    )
                };
                assert_eq!(st, kuatia_status::Ok);
                drop(take(x));
                let s: serde_json::Value = serde_json::from_str(&text(j)).unwrap();
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

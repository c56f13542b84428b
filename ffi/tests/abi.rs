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
    // The ABI version (the soname's suffix, scripts/install-c.sh): MAJOR from 1.0, 0.MINOR before.
    let abi = if parts[0] == "0" {
        format!("0.{}", parts[1])
    } else {
        parts[0].to_string()
    };
    assert!(
        header.contains(&format!("#define KUATIA_ABI_VERSION \"{abi}\"\n")),
        "KUATIA_ABI_VERSION is not {abi}"
    );
    assert!(cstr(kuatia_version()).starts_with(&format!("{abi}.")));
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

// --- kuatia_service ----------------------------------------------------------------------------------------------

/// 2025-03-10 13:11:00 UTC = 10:11 in Asunción.
const NOW_UNIX: i64 = 1_741_612_260;

fn new_service(config: Option<&str>) -> *mut kuatia_service {
    let mut svc = null_mut();
    let (p, n) = config.map_or((null(), 0), |c| (c.as_ptr(), c.len()));
    assert_eq!(
        unsafe { kuatia_service_new(p, n, &mut svc, null_mut()) },
        kuatia_status::Ok
    );
    assert!(!svc.is_null());
    svc
}

/// A distinct seed per call, as a host's CSPRNG would give (tests only need them distinct).
fn seed(n: u8) -> [u8; KUATIA_SEED_LEN] {
    let mut s = [0u8; KUATIA_SEED_LEN];
    s[0] = n;
    s[31] = 0xA5;
    s
}

fn create_account(svc: *mut kuatia_service, n: u8) -> (String, String) {
    let mut out = zero();
    let s = seed(n);
    let name = "Empresa de prueba";
    let st = unsafe {
        kuatia_service_create_account(
            svc,
            name.as_ptr(),
            name.len(),
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let v: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    (
        v["account_id"].as_str().unwrap().to_string(),
        v["key"].as_str().unwrap().to_string(),
    )
}

struct Answer {
    status: u64,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[allow(clippy::too_many_arguments)]
fn handle(
    svc: *mut kuatia_service,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&serde_json::Value>,
    now: i64,
    n: u8,
    signer: *const kuatia_signer,
) -> Answer {
    let mut headers = vec![("X-Environment".to_string(), "sandbox".to_string())];
    if let Some(k) = key {
        headers.push(("Authorization".into(), format!("Bearer {k}")));
    }
    let req = serde_json::json!({"method": method, "path": path, "headers": headers}).to_string();
    let body = body.map(|b| b.to_string());
    let (bp, bn) = body.as_ref().map_or((null(), 0), |b| (b.as_ptr(), b.len()));
    let s = seed(n);
    let (mut head, mut out) = (zero(), zero());
    let st = unsafe {
        kuatia_service_handle(
            svc,
            req.as_ptr(),
            req.len(),
            bp,
            bn,
            now,
            s.as_ptr(),
            s.len(),
            signer,
            null(),
            &mut head,
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let head: serde_json::Value = serde_json::from_str(&text(head)).unwrap();
    Answer {
        status: head["status"].as_u64().unwrap(),
        headers: serde_json::from_value(head["headers"].clone()).unwrap(),
        body: take(out),
    }
}

fn factura(simulate: &str) -> serde_json::Value {
    serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1,
        "_simulate": simulate
    })
}

#[test]
fn service_spec_flow_signed_approved_get_and_kude() {
    let svc = new_service(Some(r#"{"base_url":"https://erp.example.test/"}"#));
    let signer = sandbox();
    let (account, key) = create_account(svc, 1);
    assert!(account.starts_with("acct_") && key.starts_with("dk_test_"));
    let r = handle(
        svc,
        "POST",
        "/v1/facturas",
        Some(&key),
        Some(&factura("approved")),
        NOW_UNIX,
        2,
        signer,
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json()["data"].clone();
    assert_eq!(d["status"], "approved");
    assert_eq!(d["numero"], "001-001-0000001");
    let cdc = d["cdc"].as_str().unwrap().to_string();
    assert_eq!(cdc.len(), 44);
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(
        d["kude_url"],
        format!("https://erp.example.test/v1/facturas/{id}/kude")
    );
    // The CDC parses with the library's own parser and carries the sandbox RUC and the number.
    let mut parsed = zero();
    assert_eq!(
        unsafe { kuatia_cdc_parse(cdc.as_ptr(), cdc.len(), &mut parsed, null_mut()) },
        kuatia_status::Ok
    );
    let parsed: serde_json::Value = serde_json::from_str(&text(parsed)).unwrap();
    assert_eq!(parsed["ruc"], "44444401-7");

    let g = handle(
        svc,
        "GET",
        &format!("/v1/facturas/{id}"),
        Some(&key),
        None,
        NOW_UNIX + 1,
        3,
        null(),
    );
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["data"]["cdc"], cdc.as_str());
    assert_eq!(g.json()["data"]["status"], "approved");

    let k = handle(
        svc,
        "GET",
        &format!("/v1/facturas/{id}/kude"),
        Some(&key),
        None,
        NOW_UNIX + 2,
        4,
        null(),
    );
    assert_eq!(k.status, 200);
    assert_eq!(k.header("Content-Type"), Some("application/pdf"));
    assert!(k.body.starts_with(b"%PDF-") && k.body.len() > 1000);
    assert!(
        k.body.windows(5).any(|w| w == b"%%EOF"),
        "a complete PDF, binary-safe through out_body"
    );
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_unauthorized_and_http_errors_are_answers_not_call_errors() {
    let svc = new_service(None);
    let (_, key) = create_account(svc, 1);
    let r = handle(svc, "GET", "/v1/facturas", None, None, NOW_UNIX, 2, null());
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"]["code"], "UNAUTHORIZED");
    assert_eq!(r.header("WWW-Authenticate"), Some("Bearer"));
    let wrong = format!("{}x", &key[..key.len() - 1]);
    let r = handle(
        svc,
        "GET",
        "/v1/facturas",
        Some(&wrong),
        None,
        NOW_UNIX,
        3,
        null(),
    );
    assert_eq!(r.status, 401);
    let r = handle(
        svc,
        "GET",
        "/v1/nada",
        Some(&key),
        None,
        NOW_UNIX,
        4,
        null(),
    );
    assert_eq!(r.status, 404);
    let r = handle(
        svc,
        "GET",
        "/v1/facturas",
        Some(&key),
        None,
        NOW_UNIX,
        5,
        null(),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["meta"]["total"], 0);
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sandbox_progresses_with_the_callers_clock_and_unsigned_without_a_signer() {
    let svc = new_service(Some(
        r#"{"sandbox_send_after":10,"sandbox_answer_after":20}"#,
    ));
    let (_, key) = create_account(svc, 1);
    let mut body = factura("approved");
    body.as_object_mut().unwrap().remove("_simulate");
    let r = handle(
        svc,
        "POST",
        "/v1/facturas",
        Some(&key),
        Some(&body),
        NOW_UNIX,
        2,
        null(),
    );
    assert_eq!(r.status, 201);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    let status_at = |t: i64, n: u8| {
        handle(
            svc,
            "GET",
            &format!("/v1/facturas/{id}"),
            Some(&key),
            None,
            t,
            n,
            null(),
        )
        .json()["data"]["status"]
            .clone()
    };
    assert_eq!(status_at(NOW_UNIX + 9, 3), "pending");
    assert_eq!(status_at(NOW_UNIX + 10, 4), "sent");
    // kuatia_service_tick advances it without a request.
    let s = seed(5);
    assert_eq!(
        unsafe { kuatia_service_tick(svc, NOW_UNIX + 20, s.as_ptr(), s.len(), null_mut()) },
        kuatia_status::Ok
    );
    assert_eq!(status_at(NOW_UNIX + 20, 6), "approved");
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_webhooks_due_signed_and_reported() {
    let svc = new_service(None);
    let (_, key) = create_account(svc, 1);
    let hook =
        serde_json::json!({"url": "https://erp.example.test/hook", "events": ["factura.approved"]});
    let w = handle(
        svc,
        "POST",
        "/v1/webhooks",
        Some(&key),
        Some(&hook),
        NOW_UNIX,
        2,
        null(),
    );
    assert_eq!(w.status, 201);
    let secret = w.json()["data"]["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let r = handle(
        svc,
        "POST",
        "/v1/facturas",
        Some(&key),
        Some(&factura("approved")),
        NOW_UNIX,
        3,
        null(),
    );
    assert_eq!(r.status, 201);

    let due = |now: i64| -> Vec<serde_json::Value> {
        let mut out = zero();
        assert_eq!(
            unsafe { kuatia_service_due_deliveries(svc, now, &mut out, null_mut()) },
            kuatia_status::Ok
        );
        serde_json::from_str(&text(out)).unwrap()
    };
    let list = due(NOW_UNIX);
    assert_eq!(list.len(), 1);
    let d = &list[0];
    assert_eq!(d["url"], "https://erp.example.test/hook");
    let body = d["body"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap()["type"],
        "factura.approved"
    );
    let headers: Vec<(String, String)> = serde_json::from_value(d["headers"].clone()).unwrap();
    let sig = &headers
        .iter()
        .find(|(k, _)| k == "Kuatia-Signature")
        .unwrap()
        .1;
    // Independent check of the signature: HMAC-SHA256 over "t.body" recomputed here from the RFC 2104 definition.
    let t = sig.split(',').next().unwrap().strip_prefix("t=").unwrap();
    assert_eq!(t, NOW_UNIX.to_string());
    let v1 = sig.split(",v1=").nth(1).unwrap();
    assert_eq!(
        v1,
        hmac_sha256_hex(secret.as_bytes(), format!("{t}.{body}").as_bytes())
    );

    let id = d["id"].as_str().unwrap();
    let report = |ok: bool| -> serde_json::Value {
        let mut out = zero();
        assert_eq!(
            unsafe {
                kuatia_service_report_delivery(svc, id.as_ptr(), id.len(), ok, &mut out, null_mut())
            },
            kuatia_status::Ok
        );
        serde_json::from_str(&text(out)).unwrap()
    };
    let failed = report(false);
    assert_eq!(failed["status"], "pending");
    assert_eq!(failed["next_attempt_at"], NOW_UNIX + 60);
    assert!(due(NOW_UNIX + 59).is_empty());
    assert_eq!(due(NOW_UNIX + 60).len(), 1);
    assert_eq!(report(true)["status"], "delivered");
    assert!(due(NOW_UNIX + 100_000).is_empty());

    let mut err = null_mut();
    let mut out = zero();
    let unknown = "dlv_nope";
    let st = unsafe {
        kuatia_service_report_delivery(
            svc,
            unknown.as_ptr(),
            unknown.len(),
            true,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(err_parts(err).1, "NOT_FOUND");
    assert!(out.ptr.is_null());
    unsafe { kuatia_service_free(svc) };
}

/// HMAC-SHA256 (RFC 2104) over the sha2 crate, as hex.
fn hmac_sha256_hex(key: &[u8], msg: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |b: u8| k.iter().map(|x| x ^ b).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(msg)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    outer.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn service_keys_seeds_and_argument_errors() {
    let svc = new_service(None);
    let (account, _) = create_account(svc, 1);
    // The seed is the only randomness: the same seed gives the same id, another seed another id.
    let other = new_service(None);
    assert_eq!(create_account(other, 1).0, account);
    assert_ne!(create_account(other, 9).0, account);
    unsafe { kuatia_service_free(other) };

    let s = seed(2);
    let mut out = zero();
    let st = unsafe {
        kuatia_service_create_key(
            svc,
            account.as_ptr(),
            account.len(),
            true,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let live = text(out);
    assert!(live.starts_with("dk_live_"), "{live}");
    // The new live key is recognised: the helper sends X-Environment: sandbox, which live keys must not.
    let r = handle(
        svc,
        "GET",
        "/v1/facturas",
        Some(&live),
        None,
        NOW_UNIX,
        3,
        null(),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "LIVE_KEY_IN_SANDBOX");

    let mut err = null_mut();
    let mut out = zero();
    let nobody = "acct_nobody";
    let st = unsafe {
        kuatia_service_create_key(
            svc,
            nobody.as_ptr(),
            nobody.len(),
            false,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(
        err_parts(err),
        (
            kuatia_status::InvalidInput,
            "NOT_FOUND".into(),
            "account_id".into()
        )
    );
    assert!(out.ptr.is_null());

    // Seeds must be exactly 32 bytes; NULL service; absurd clock; malformed request and config JSON.
    let name = "x";
    let short = [0u8; 16];
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_create_account(
            svc,
            name.as_ptr(),
            1,
            NOW_UNIX,
            short.as_ptr(),
            short.len(),
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "seed");
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_create_account(
            svc,
            name.as_ptr(),
            1,
            NOW_UNIX,
            null(),
            32,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(
        err_parts(err),
        (
            kuatia_status::InvalidArgument,
            "INVALID_ARGUMENT".into(),
            "seed".into()
        )
    );
    assert_eq!(st, kuatia_status::InvalidArgument);
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_create_account(
            null(),
            name.as_ptr(),
            1,
            NOW_UNIX,
            s.as_ptr(),
            32,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "svc");
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_create_account(
            svc,
            name.as_ptr(),
            1,
            i64::MAX,
            s.as_ptr(),
            32,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(err_parts(err).2, "now_unix");
    assert!(out.ptr.is_null());

    let (mut head, mut body) = (zero(), zero());
    for (req, want_code, want_path) in [
        (r#"{"method":"GET"#, "MALFORMED_JSON", "request.method"),
        (
            r#"{"method":"GET","path":7}"#,
            "VALIDATION_ERROR.INVALID_TYPE",
            "request.path",
        ),
        (
            r#"{"method":"GET","path":"/v1/health","body":"x"}"#,
            "VALIDATION_ERROR.NOT_ALLOWED",
            "request.body",
        ),
    ] {
        let mut err = null_mut();
        let st = unsafe {
            kuatia_service_handle(
                svc,
                req.as_ptr(),
                req.len(),
                null(),
                0,
                NOW_UNIX,
                s.as_ptr(),
                32,
                null(),
                null(),
                &mut head,
                &mut body,
                &mut err,
            )
        };
        assert_eq!(st, kuatia_status::InvalidInput, "{req}");
        let (_, code, path) = err_parts(err);
        assert_eq!(
            (code.as_str(), path.as_str()),
            (want_code, want_path),
            "{req}"
        );
        assert!(head.ptr.is_null() && body.ptr.is_null());
    }
    // An unknown option is named as such (the one JSON classifier: unknown field → NOT_ALLOWED).
    let bad = br#"{"base_url":"x","colour":1}"#;
    let mut err = null_mut();
    let mut other = null_mut();
    assert_eq!(
        unsafe { kuatia_service_new(bad.as_ptr(), bad.len(), &mut other, &mut err) },
        kuatia_status::InvalidInput
    );
    assert!(other.is_null());
    assert_eq!(err_parts(err).1, "VALIDATION_ERROR.NOT_ALLOWED");
    // Freeing NULL is harmless.
    unsafe { kuatia_service_free(null_mut()) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn one_service_many_threads() {
    struct Shared(*mut kuatia_service);
    // SAFETY (test): the handle is documented as shareable; the mutex inside serializes the calls.
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let svc = Shared(new_service(None));
    let (_, key) = create_account(svc.0, 1);
    let numbers = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u8)
            .map(|t| {
                let (svc, key) = (&svc, &key);
                scope.spawn(move || {
                    (0..3u8)
                        .map(|i| {
                            let r = handle(
                                svc.0,
                                "POST",
                                "/v1/facturas",
                                Some(key),
                                Some(&factura("approved")),
                                NOW_UNIX,
                                10 + t * 10 + i,
                                null(),
                            );
                            assert_eq!(r.status, 201);
                            r.json()["data"]["numero"].as_str().unwrap().to_string()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    let mut sorted = numbers.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        12,
        "every invoice got its own number: {numbers:?}"
    );
    assert_eq!(sorted.last().unwrap(), "001-001-0000012");
    unsafe { kuatia_service_free(svc.0) };
}

#[test]
fn service_null_arguments_are_named_and_nothing_is_written() {
    let svc = new_service(None);
    let s = seed(1);
    let req = r#"{"method":"GET","path":"/v1/health"}"#;
    let mut body = zero();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_handle(
            svc,
            req.as_ptr(),
            req.len(),
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            null(),
            null(),
            null_mut(),
            &mut body,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_head");
    assert!(body.ptr.is_null());
    let (mut head, mut err) = (zero(), null_mut());
    let st = unsafe {
        kuatia_service_handle(
            svc,
            null(),
            0,
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            null(),
            null(),
            &mut head,
            &mut body,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "request_json");
    // The health route answers without a key, and an empty body is a valid (non-NULL) buffer.
    let r = handle(svc, "GET", "/v1/health", None, None, NOW_UNIX, 2, null());
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["status"], "ok");
    let mut err = null_mut();
    assert_eq!(
        unsafe { kuatia_service_due_deliveries(svc, NOW_UNIX, null_mut(), &mut err) },
        kuatia_status::InvalidArgument
    );
    assert_eq!(err_parts(err).2, "out_json");
    unsafe { kuatia_service_free(svc) };
}

// --- SIFEN transmission through the host (kuatia_service_due_sifen / report_sifen) -----------------------------

/// A request of a live key (no `X-Environment`), signed by `signer` as the production signer.
fn handle_live(
    svc: *mut kuatia_service,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&serde_json::Value>,
    now: i64,
    signer: *const kuatia_signer,
) -> Answer {
    let req = serde_json::json!({"method": method, "path": path,
        "headers": [["Authorization", format!("Bearer {key}")]]})
    .to_string();
    let body = body.map(|b| b.to_string());
    let (bp, bn) = body.as_ref().map_or((null(), 0), |b| (b.as_ptr(), b.len()));
    let s = seed(0x40);
    let (mut head, mut out) = (zero(), zero());
    let st = unsafe {
        kuatia_service_handle(
            svc,
            req.as_ptr(),
            req.len(),
            bp,
            bn,
            now,
            s.as_ptr(),
            s.len(),
            null(),
            signer,
            &mut head,
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let head: serde_json::Value = serde_json::from_str(&text(head)).unwrap();
    Answer {
        status: head["status"].as_u64().unwrap(),
        headers: serde_json::from_value(head["headers"].clone()).unwrap(),
        body: take(out),
    }
}

fn set_production_profile(
    svc: *mut kuatia_service,
    account: &str,
    profile: Option<&str>,
) -> Result<(), (kuatia_status, String, String)> {
    let (p, n) = profile.map_or((null(), 0), |p| (p.as_ptr(), p.len()));
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_set_production_profile(svc, account.as_ptr(), account.len(), p, n, &mut err)
    };
    if st == kuatia_status::Ok {
        assert!(err.is_null());
        Ok(())
    } else {
        let parts = err_parts(err);
        assert_eq!(parts.0, st);
        Err(parts)
    }
}

fn due_sifen(svc: *mut kuatia_service, now: i64, n: u8) -> Vec<serde_json::Value> {
    let s = seed(n);
    let mut out = zero();
    let st = unsafe {
        kuatia_service_due_sifen(svc, now, s.as_ptr(), s.len(), 50, &mut out, null_mut())
    };
    assert_eq!(st, kuatia_status::Ok);
    serde_json::from_str(&text(out)).unwrap()
}

/// An outcome as the C caller passes it: kind, HTTP status, body, message.
enum Outcome<'a> {
    Answer(u16, &'a [u8]),
    Timeout,
    Failed(&'a str),
    Raw(u32, u16, *const u8, usize, *const u8, usize),
}

fn report_sifen(
    svc: *mut kuatia_service,
    job: &str,
    outcome: Outcome,
    now: i64,
) -> Result<serde_json::Value, (kuatia_status, String, String)> {
    let (kind, status, bp, bn, mp, mn) = match outcome {
        Outcome::Answer(st, body) => (
            kuatia_sifen_outcome::Answer as u32,
            st,
            body.as_ptr(),
            body.len(),
            null(),
            0,
        ),
        Outcome::Timeout => (
            kuatia_sifen_outcome::Timeout as u32,
            0,
            null(),
            0,
            null(),
            0,
        ),
        Outcome::Failed(m) => (
            kuatia_sifen_outcome::Failed as u32,
            0,
            null(),
            0,
            m.as_ptr(),
            m.len(),
        ),
        Outcome::Raw(k, st, bp, bn, mp, mn) => (k, st, bp, bn, mp, mn),
    };
    let s = seed(0x50);
    let (mut out, mut err) = (zero(), null_mut());
    let st = unsafe {
        kuatia_service_report_sifen(
            svc,
            job.as_ptr(),
            job.len(),
            kind,
            status,
            bp,
            bn,
            mp,
            mn,
            now,
            s.as_ptr(),
            s.len(),
            &mut out,
            &mut err,
        )
    };
    if st == kuatia_status::Ok {
        Ok(serde_json::from_str(&text(out)).unwrap())
    } else {
        assert!(out.ptr.is_null(), "out written on failure");
        let parts = err_parts(err);
        assert_eq!(parts.0, st);
        Err(parts)
    }
}

/// SIFEN's synchronous approval (core/tests/sifen_samples/recibe_aprobado.xml) of `cdc`.
fn approval_of(cdc: &str) -> Vec<u8> {
    let sample =
        std::fs::read_to_string(root().join("core/tests/sifen_samples/recibe_aprobado.xml"))
            .unwrap();
    let sample_cdc = "01444444017001001000000122025031011234567890";
    assert!(sample.contains(sample_cdc));
    sample.replace(sample_cdc, cdc).into_bytes()
}

/// An account whose live key issues with the sandbox profile in SIFEN's test environment, like core's transmit
/// tests: returns (account id, live key).
fn production_account(svc: *mut kuatia_service) -> (String, String) {
    let (account, _) = create_account(svc, 0x30);
    let s = seed(0x31);
    let mut out = zero();
    let st = unsafe {
        kuatia_service_create_key(
            svc,
            account.as_ptr(),
            account.len(),
            true,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let live = text(out);
    set_production_profile(svc, &account, None).unwrap();
    (account, live)
}

fn create_live(
    svc: *mut kuatia_service,
    live: &str,
    signer: *const kuatia_signer,
) -> (String, String) {
    let mut f = factura("approved");
    f.as_object_mut().unwrap().remove("_simulate");
    let r = handle_live(
        svc,
        "POST",
        "/v1/facturas",
        live,
        Some(&f),
        NOW_UNIX,
        signer,
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let d = r.json()["data"].clone();
    assert_eq!(d["status"], "pending");
    (
        d["id"].as_str().unwrap().to_string(),
        d["cdc"].as_str().unwrap().to_string(),
    )
}

#[test]
fn service_production_profile_is_set_through_the_abi() {
    let svc = new_service(None);
    let signer = sandbox();
    let (account, _) = create_account(svc, 1);
    let s = seed(2);
    let mut out = zero();
    assert_eq!(
        unsafe {
            kuatia_service_create_key(
                svc,
                account.as_ptr(),
                account.len(),
                true,
                NOW_UNIX,
                s.as_ptr(),
                s.len(),
                &mut out,
                null_mut(),
            )
        },
        kuatia_status::Ok
    );
    let live = text(out);
    // No production profile yet: live invoices are refused.
    let f = serde_json::json!({"tipo_documento": 1, "condicion_pago": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1000, "iva": 10}]});
    let r = handle_live(
        svc,
        "POST",
        "/v1/facturas",
        &live,
        Some(&f),
        NOW_UNIX,
        signer,
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], "PRODUCTION_NOT_CONFIGURED");
    // A bad profile names the field under `profile`; an unknown account is NOT_FOUND; NULLs are named.
    let (st, code, path) = set_production_profile(svc, &account, Some(r#"{"ruc":1}"#)).unwrap_err();
    assert_eq!(st, kuatia_status::InvalidInput);
    assert_eq!(code, "VALIDATION_ERROR.INVALID_TYPE");
    assert_eq!(path, "profile.ruc");
    let (st, code, path) = set_production_profile(svc, "acct_nobody", None).unwrap_err();
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (kuatia_status::InvalidInput, "NOT_FOUND", "account_id")
    );
    let mut err = null_mut();
    let st = unsafe { kuatia_service_set_production_profile(svc, null(), 0, null(), 0, &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "account_id");
    let st = unsafe {
        kuatia_service_set_production_profile(
            null(),
            account.as_ptr(),
            account.len(),
            null(),
            0,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    // The built-in sandbox profile (NULL) as the production one: the live key issues a pending invoice.
    set_production_profile(svc, &account, None).unwrap();
    let r = handle_live(
        svc,
        "POST",
        "/v1/facturas",
        &live,
        Some(&f),
        NOW_UNIX,
        signer,
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["data"]["status"], "pending");
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sifen_jobs_go_to_the_host_and_answers_come_back_raw() {
    let svc = new_service(Some(r#"{"sifen_retry":[1]}"#));
    let signer = sandbox();
    let (account, live) = production_account(svc);
    let (id, cdc) = create_live(svc, &live, signer);

    // One synchronous recibe to SIFEN's test environment, carrying the signed DE.
    let jobs = due_sifen(svc, NOW_UNIX, 1);
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = &jobs[0];
    assert_eq!(job["service"], "recibe");
    assert_eq!(
        job["url"],
        "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl"
    );
    assert_eq!(job["content_type"], "application/xml; charset=utf-8");
    assert_eq!(job["account_id"], account.as_str());
    assert_eq!(job["invoices"], serde_json::json!([id]));
    let body = job["body"].as_str().unwrap();
    assert!(body.contains(&format!("<DE Id=\"{cdc}\"")), "{body}");
    assert!(body.contains(&format!("<dId>{}</dId>", job["d_id"])));
    // Handed out: nothing is due while the call is in flight.
    assert!(due_sifen(svc, NOW_UNIX, 2).is_empty());

    // SIFEN's approval, as raw bytes.
    let progress = report_sifen(
        svc,
        &job.to_string(),
        Outcome::Answer(200, &approval_of(&cdc)),
        NOW_UNIX + 1,
    )
    .unwrap();
    assert_eq!(progress.as_array().unwrap().len(), 1);
    assert_eq!(progress[0]["invoice_id"], id.as_str());
    assert_eq!(progress[0]["status"], "approved");
    assert_eq!(progress[0]["transmission"]["next"], "idle");
    let r = handle_live(
        svc,
        "GET",
        &format!("/v1/facturas/{id}"),
        &live,
        None,
        NOW_UNIX + 2,
        null(),
    );
    let inv = r.json()["data"].clone();
    assert_eq!(inv["status"], "approved");
    assert_eq!(inv["protocolo"], "1234567890");
    assert!(inv.get("transmission").is_none(), "{inv}");
    assert!(due_sifen(svc, NOW_UNIX + 3600, 3).is_empty());

    // A timeout: never resent blindly, queried by CDC after the back-off (sifen_retry [1]).
    let (id2, cdc2) = create_live(svc, &live, signer);
    let jobs = due_sifen(svc, NOW_UNIX + 10, 4);
    assert_eq!(jobs.len(), 1);
    let progress =
        report_sifen(svc, &jobs[0].to_string(), Outcome::Timeout, NOW_UNIX + 10).unwrap();
    assert_eq!(progress[0]["invoice_id"], id2.as_str());
    assert_eq!(progress[0]["status"], "pending");
    let t = &progress[0]["transmission"];
    assert_eq!(t["next"], "query");
    assert_eq!(t["due_at"], NOW_UNIX + 11);
    assert_eq!(t["attempts"], 1);
    assert!(t["last_error"].as_str().unwrap().contains("timeout"), "{t}");
    assert!(due_sifen(svc, NOW_UNIX + 10, 5).is_empty());
    let jobs = due_sifen(svc, NOW_UNIX + 11, 6);
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["service"], "consulta");
    assert_eq!(jobs[0]["invoices"], serde_json::json!([id2]));
    assert!(jobs[0]["body"].as_str().unwrap().contains(&cdc2));

    // Bytes that are not UTF-8 (the gateway's page) travel as they are; a transport failure keeps its message.
    let page = b"<html>\xff\xfe upstream timed out</html>";
    let progress = report_sifen(
        svc,
        &jobs[0].to_string(),
        Outcome::Answer(504, page),
        NOW_UNIX + 11,
    )
    .unwrap();
    let t = &progress[0]["transmission"];
    assert_eq!(
        (t["next"].as_str(), t["attempts"].as_u64()),
        (Some("query"), Some(2))
    );
    assert!(
        t["last_error"].as_str().unwrap().starts_with("HTTP 504"),
        "{t}"
    );
    let jobs = due_sifen(svc, NOW_UNIX + 12, 7);
    let progress = report_sifen(
        svc,
        &jobs[0].to_string(),
        Outcome::Failed("connection refused"),
        NOW_UNIX + 12,
    )
    .unwrap();
    let t = &progress[0]["transmission"];
    assert_eq!(t["attempts"], 3);
    assert_eq!(t["last_error"], "transport: connection refused");
    unsafe { kuatia_signer_free(signer) };
    unsafe { kuatia_service_free(svc) };
}

#[test]
fn service_sifen_argument_errors_are_status_codes() {
    let svc = new_service(None);
    let job = r#"{"account_id":"acct_x","service":"recibe","url":"https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl","content_type":"application/xml; charset=utf-8","body":"<x/>","d_id":1,"invoices":["fact_nobody"]}"#;
    // A job of unknown invoices moves nothing.
    assert_eq!(
        report_sifen(svc, job, Outcome::Timeout, NOW_UNIX).unwrap(),
        serde_json::json!([])
    );
    let bad = |r: Result<serde_json::Value, (kuatia_status, String, String)>| r.unwrap_err();
    let (st, code, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(7, 0, null(), 0, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (
            kuatia_status::InvalidArgument,
            "INVALID_ARGUMENT",
            "outcome"
        )
    );
    let (st, code, path) = bad(report_sifen(svc, "{", Outcome::Timeout, NOW_UNIX));
    assert_eq!(
        (st, code.as_str()),
        (kuatia_status::InvalidInput, "MALFORMED_JSON")
    );
    assert!(path.starts_with("job"), "{path}");
    let (st, code, path) = bad(report_sifen(
        svc,
        r#"{"account_id":1}"#,
        Outcome::Timeout,
        NOW_UNIX,
    ));
    assert_eq!(
        (st, code.as_str(), path.as_str()),
        (
            kuatia_status::InvalidInput,
            "VALIDATION_ERROR.INVALID_TYPE",
            "job.account_id"
        )
    );
    let failed = kuatia_sifen_outcome::Failed as u32;
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(failed, 0, null(), 0, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!(
        (st, path.as_str()),
        (kuatia_status::InvalidArgument, "message")
    );
    let not_utf8 = [b'x', 0xC3, 0x28];
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(failed, 0, null(), 0, not_utf8.as_ptr(), not_utf8.len()),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::InvalidUtf8, "message"));
    let answer = kuatia_sifen_outcome::Answer as u32;
    let one = [0u8];
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(answer, 200, one.as_ptr(), usize::MAX, null(), 0),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::TooLarge, "body"));
    let (st, _, path) = bad(report_sifen(
        svc,
        job,
        Outcome::Raw(
            answer,
            200,
            one.as_ptr(),
            KUATIA_MAX_INPUT_LEN + 1,
            null(),
            0,
        ),
        NOW_UNIX,
    ));
    assert_eq!((st, path.as_str()), (kuatia_status::TooLarge, "body"));
    // An answer with no body (NULL) is an empty answer, not an error.
    let progress = report_sifen(
        svc,
        job,
        Outcome::Raw(answer, 502, null(), 9, null(), 0),
        NOW_UNIX,
    );
    assert_eq!(progress.unwrap(), serde_json::json!([]));

    // NULL job, service, out, and a short seed.
    let s = seed(1);
    let mut out = zero();
    let mut err = null_mut();
    let timeout = kuatia_sifen_outcome::Timeout as u32;
    let st = unsafe {
        kuatia_service_report_sifen(
            svc,
            null(),
            0,
            timeout,
            0,
            null(),
            0,
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "job_json");
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_report_sifen(
            svc,
            job.as_ptr(),
            job.len(),
            timeout,
            0,
            null(),
            0,
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            16,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "seed");
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_report_sifen(
            svc,
            job.as_ptr(),
            job.len(),
            timeout,
            0,
            null(),
            0,
            null(),
            0,
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            null_mut(),
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_json");
    assert!(out.ptr.is_null());
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_due_sifen(
            null(),
            NOW_UNIX,
            s.as_ptr(),
            s.len(),
            10,
            &mut out,
            &mut err,
        )
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "svc");
    let mut err = null_mut();
    let st =
        unsafe { kuatia_service_due_sifen(svc, NOW_UNIX, s.as_ptr(), 31, 10, &mut out, &mut err) };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "seed");
    let mut err = null_mut();
    let st = unsafe {
        kuatia_service_due_sifen(svc, NOW_UNIX, s.as_ptr(), s.len(), 10, null_mut(), &mut err)
    };
    assert_eq!(st, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(err).2, "out_json");
    assert!(out.ptr.is_null());
    // Nothing due in an empty service.
    assert!(due_sifen(svc, NOW_UNIX, 2).is_empty());
    unsafe { kuatia_service_free(svc) };
}

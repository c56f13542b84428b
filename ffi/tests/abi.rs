//! Calls the C exports directly from Rust, the ABI's safety: argument checking (NULL, invalid UTF-8, absurd
//! lengths), error objects, freeing, the panic boundary on every export, and the header's version macros.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use kuatia::*;
use std::ptr::{null, null_mut};

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
    let no_signer = issue(req.as_bytes(), null(), NOW, 1, 123456789);
    assert_eq!(no_signer.status, kuatia_status::InvalidArgument);
    assert_eq!(err_parts(no_signer.err).2, "signer");
    assert!(no_signer.xml.ptr.is_null() && no_signer.summary.ptr.is_null());
    let mut x = zero();

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

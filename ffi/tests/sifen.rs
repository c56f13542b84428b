//! The SIFEN web-service exports: request building per kind, response parsing of recorded answers and the code
//! catalog, called through the C ABI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia::*;
use std::ffi::CStr;
use std::ptr::null_mut;

/// The golden CDC of SIFEN.md §3.9.
const CDC: &str = "01444444017001001000000122025031011234567890";

fn zero() -> kuatia_bytes {
    kuatia_bytes {
        ptr: null_mut(),
        len: 0,
    }
}

fn json(mut b: kuatia_bytes) -> serde_json::Value {
    let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len) }.to_vec();
    unsafe { kuatia_bytes_free(&mut b) };
    serde_json::from_slice(&v).unwrap()
}

/// Status and error code (empty on success) of a call, plus its JSON on success.
fn request(kind: &str, arg: &str, prod: bool) -> (kuatia_status, String, serde_json::Value) {
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_sifen_request(
            kind.as_ptr(),
            kind.len(),
            arg.as_ptr(),
            arg.len(),
            7,
            prod,
            &mut out,
            &mut err,
        )
    };
    finish(st, out, err)
}

fn finish(
    st: kuatia_status,
    out: kuatia_bytes,
    err: *mut kuatia_error,
) -> (kuatia_status, String, serde_json::Value) {
    if st == kuatia_status::Ok {
        return (st, String::new(), json(out));
    }
    let code = unsafe { CStr::from_ptr(kuatia_error_code(err)) }
        .to_str()
        .unwrap()
        .to_string();
    unsafe { kuatia_error_free(err) };
    (st, code, serde_json::Value::Null)
}

#[test]
fn consulta_request_carries_the_cdc_and_the_endpoint() {
    let (st, _, v) = request("consulta", CDC, false);
    assert_eq!(st, kuatia_status::Ok);
    assert_eq!(v["service"], "consulta");
    assert_eq!(v["content_type"], "application/xml; charset=utf-8");
    assert!(v["url"]
        .as_str()
        .unwrap()
        .starts_with("https://sifen-test."));
    let xml = v["xml"].as_str().unwrap();
    assert!(xml.contains(&format!("<dCDC>{CDC}</dCDC>")), "{xml}");
    assert!(xml.contains("<dId>7</dId>"), "{xml}");
    let (_, _, p) = request("consulta", CDC, true);
    assert!(p["url"].as_str().unwrap().starts_with("https://sifen.set"));
}

#[test]
fn ruc_and_lot_queries_and_bad_inputs() {
    let (st, _, v) = request("consulta-ruc", "80069563-1", false);
    assert_eq!(st, kuatia_status::Ok);
    assert!(v["xml"].as_str().unwrap().contains("80069563"));
    let (st, _, v) = request("consulta-lote", "123456789", false);
    assert_eq!(st, kuatia_status::Ok);
    assert_eq!(v["service"], "consulta-lote");
    assert_eq!(
        request("consulta", "0144", false).1,
        "INVALID_CDC",
        "a short CDC is refused"
    );
    assert_eq!(
        request("consulta-ruc", "80069563-2", false).0,
        kuatia_status::InvalidInput
    );
    assert_eq!(request("nope", CDC, false).0, kuatia_status::InvalidInput);
    assert_eq!(
        request("recibe-lote", "not json", false).1,
        "MALFORMED_JSON"
    );
    assert_eq!(request("recibe-lote", "[]", false).1, "SIFEN_LOT_EMPTY");
    assert_eq!(
        request("recibe", "<rDE/>", false).0,
        kuatia_status::InvalidInput,
        "an unsigned rDE is refused"
    );
}

fn parse(bytes: &[u8]) -> (kuatia_status, String, serde_json::Value) {
    let mut out = zero();
    let mut err = null_mut();
    let st =
        unsafe { kuatia_sifen_parse_response(bytes.as_ptr(), bytes.len(), &mut out, &mut err) };
    finish(st, out, err)
}

#[test]
fn recorded_answers_parse_with_their_action() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/sifen_samples");
    let ok = std::fs::read(dir.join("consulta_0422.xml")).unwrap();
    let (st, _, v) = parse(&ok);
    assert_eq!(st, kuatia_status::Ok);
    assert_eq!(v["service"], "consulta");
    assert!(v["result"].to_string().contains("0422"), "{v}");
    assert!(v.get("action").is_some(), "{v}");
    let html = std::fs::read(dir.join("f5_logout.html")).unwrap();
    assert_eq!(parse(&html).1, "SIFEN_UNEXPECTED_RESPONSE");
    assert_eq!(parse(b"").1, "SIFEN_UNEXPECTED_RESPONSE");
}

#[test]
fn describe_knows_documented_codes_only() {
    let d = |c: &str| {
        let mut out = zero();
        let st = unsafe { kuatia_sifen_describe(c.as_ptr(), c.len(), &mut out, null_mut()) };
        assert_eq!(st, kuatia_status::Ok);
        json(out)
    };
    let v = d("0160");
    assert_eq!(v["code"], "0160");
    assert!(v["meaning"].as_str().unwrap().contains("malformed"));
    assert!(d("9999").is_null());
}

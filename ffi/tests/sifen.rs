//! The SIFEN web-service exports: request building per kind, response parsing of recorded answers and the code
//! catalog, called through the C ABI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../core/tests/common/mod.rs"]
mod core_common;

use common::zero;
use kuatia::*;
use std::ffi::CStr;
use std::ptr::{null, null_mut};

/// The golden CDC of SIFEN.md §3.9.
const CDC: &str = "01444444017001001000000122025031011234567890";

fn json(mut b: kuatia_bytes) -> serde_json::Value {
    let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len) }.to_vec();
    unsafe { kuatia_bytes_free(&mut b) };
    serde_json::from_slice(&v).unwrap()
}

/// `kuatia_sifen_request` of `kind` and `arg` (dId 7): the status, the output and the error, as written.
fn call_request(
    kind: &str,
    arg: &str,
    prod: bool,
) -> (kuatia_status, kuatia_bytes, *mut kuatia_error) {
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
    (st, out, err)
}

/// Status and error code (empty on success) of a call, plus its JSON on success.
fn request(kind: &str, arg: &str, prod: bool) -> (kuatia_status, String, serde_json::Value) {
    let (st, out, err) = call_request(kind, arg, prod);
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
    // Issue 14 #6: the schema's 5-character minimum, and a wrong DV named as such, through the C ABI.
    assert_eq!(request("consulta-ruc", "444-8", false).1, "INVALID_RUC");
    assert_eq!(
        request("consulta-ruc", "80069563", false).0,
        kuatia_status::Ok
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

/// Code, path and message of a failed request.
fn request_error(kind: &str, arg: &str) -> (String, String, String) {
    let (st, _, err) = call_request(kind, arg, false);
    assert_ne!(st, kuatia_status::Ok, "{kind} {arg:?} was accepted");
    let text =
        |p: *const std::ffi::c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    let got = unsafe {
        (
            text(kuatia_error_code(err)),
            text(kuatia_error_path(err)),
            text(kuatia_error_message(err)),
        )
    };
    unsafe { kuatia_error_free(err) };
    got
}

#[test]
fn a_lot_that_is_not_a_json_array_of_strings_is_located_like_every_json_argument() {
    // A wrong element: its type, at its index (it was MALFORMED_JSON at `arg`, whatever the problem).
    let (code, path, message) = request_error("recibe-lote", r#"["<rDE/>", 5]"#);
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("VALIDATION_ERROR.INVALID_TYPE", "arg[1]"),
        "{message}"
    );
    let (code, path, _) = request_error("recibe-lote", r#"{"xml": "<rDE/>"}"#);
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("VALIDATION_ERROR.INVALID_TYPE", "arg")
    );
    // Text that is not JSON: MALFORMED_JSON located under the argument, with serde's line and column.
    let (code, path, message) = request_error("recibe-lote", r#"["<rDE/>", "#);
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("MALFORMED_JSON", "arg"),
        "{message}"
    );
    assert!(message.contains("línea 1, columna 11"), "{message}");
    // The same words as another JSON argument of the C face (kuatia_sifen_request `evento`).
    let (code, path, _) = request_error("evento", r#"["#);
    assert_eq!(code, "MALFORMED_JSON");
    assert!(path.starts_with("arg"), "{path}");
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
    assert!(
        v["meaning"].as_str().unwrap().contains("XML mal formado"),
        "{v}"
    );
    assert!(d("9999").is_null());
    let d_in = |c: &str, lang: Option<&std::ffi::CStr>| {
        let mut out = zero();
        let lang = lang.map_or(std::ptr::null(), std::ffi::CStr::as_ptr);
        let st =
            unsafe { kuatia_sifen_describe_in(c.as_ptr(), c.len(), lang, &mut out, null_mut()) };
        assert_eq!(st, kuatia_status::Ok);
        json(out)
    };
    let en = d_in("0160", Some(c"en-US"));
    assert!(
        en["meaning"].as_str().unwrap().contains("malformed"),
        "{en}"
    );
    assert_eq!(d_in("0160", None), v, "NULL is es-PY");
    assert_eq!(d_in("0160", Some(c"gn")), v, "an unknown tag is es-PY");
    assert!(d_in("9999", Some(c"en")).is_null());
}

/// Signs one event through the ABI: status, error code and path (empty on success), and the JSON on success.
fn event_sign(
    event: &str,
    ruc: &str,
    signer: *const kuatia_signer,
) -> (kuatia_status, String, String, serde_json::Value) {
    let mut out = zero();
    let mut err = null_mut();
    let st = unsafe {
        kuatia_sifen_event_sign(
            event.as_ptr(),
            event.len(),
            ruc.as_ptr(),
            ruc.len(),
            signer,
            &mut out,
            &mut err,
        )
    };
    if st == kuatia_status::Ok {
        assert!(err.is_null());
        return (st, String::new(), String::new(), json(out));
    }
    let (code, path) = unsafe {
        (
            CStr::from_ptr(kuatia_error_code(err))
                .to_str()
                .unwrap()
                .to_string(),
            CStr::from_ptr(kuatia_error_path(err))
                .to_str()
                .unwrap()
                .to_string(),
        )
    };
    unsafe { kuatia_error_free(err) };
    (st, code, path, serde_json::Value::Null)
}

fn sandbox() -> *mut kuatia_signer {
    let mut s = null_mut();
    assert_eq!(
        unsafe { kuatia_signer_sandbox(&mut s, null_mut()) },
        kuatia_status::Ok
    );
    s
}

/// The body of an envelope as its own document, for xmllint.
fn body(envelope: &str) -> String {
    let start = envelope.find("<env:Body>").unwrap() + "<env:Body>".len();
    let end = envelope.rfind("</env:Body>").unwrap();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}",
        &envelope[start..end]
    )
}

#[test]
fn events_are_signed_from_json_and_sent_in_an_evento_request() {
    let signer = sandbox();
    let cancel = format!(
        r#"{{"tipo":"cancelacion","id":1,"fecha_firma":"2025-03-11T09:00:00","cdc":"{CDC}",
            "motivo":"Error en el precio"}}"#
    );
    let (st, code, _, signed) = event_sign(&cancel, "44444401-7", signer);
    assert_eq!(st, kuatia_status::Ok, "{code}");
    assert_eq!(signed["id"], 1);
    assert_eq!(signed["kind"], "rGeVeCan");
    assert_eq!(signed["cdc"], CDC);
    let xml = signed["xml"].as_str().unwrap();
    assert!(xml.starts_with("<rGesEve><rEve Id=\"1\">"), "{xml}");
    // A receiver event: with the sandbox certificate the receiver is its RUC, 44444401-7, so the document
    // must come from another emitter.
    let foreign = "01800695631001001000000122022081411234567891";
    let conf = format!(
        r#"{{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"{foreign}"}}"#
    );
    let (st, code, _, conf) = event_sign(&conf, "44444401-7", signer);
    assert_eq!(st, kuatia_status::Ok, "{code}");
    assert_eq!(conf["kind"], "rGeVeConf");

    let arg = serde_json::json!([signed, conf]).to_string();
    let (st, code, v) = request("evento", &arg, false);
    assert_eq!(st, kuatia_status::Ok, "{code}");
    assert_eq!(v["service"], "evento");
    assert_eq!(
        v["url"],
        "https://sifen-test.set.gov.py/de/ws/eventos/evento.wsdl"
    );
    let envelope = v["xml"].as_str().unwrap();
    core_common::Schemas::new()
        .validate(&body(envelope), "WS_SiRecepEvento_v150.xsd")
        .unwrap_or_else(|e| panic!("{e}\n{envelope}"));
    // xmlsec1 checks one signature per document: the cancellation alone.
    let (_, _, one) = request("evento", &serde_json::json!([signed]).to_string(), false);
    core_common::xmlsec_verify(&body(one["xml"].as_str().unwrap())).unwrap();

    // What the ABI refuses, with the finding's path.
    let bad = |event: &str, ruc: &str| {
        let (st, code, path, _) = event_sign(event, ruc, signer);
        (st, code, path)
    };
    assert_eq!(
        bad(&cancel.replace("Error en el precio", "mal"), "44444401-7"),
        (
            kuatia_status::InvalidInput,
            "SIFEN_EVENT_INVALID".into(),
            "motivo".into()
        )
    );
    assert_eq!(
        bad(&cancel, "80069563-1"),
        (
            kuatia_status::InvalidInput,
            "SIFEN_EVENT_SIGNER".into(),
            "firmante".into()
        )
    );
    assert_eq!(
        bad(&cancel, "44444401-8").1,
        "INVALID_RUC",
        "a RUC with a wrong DV"
    );
    assert_eq!(
        bad(r#"{"tipo":"anulacion"}"#, "44444401-7").1,
        "VALIDATION_ERROR.INVALID_VALUE"
    );
    assert_eq!(bad("{", "44444401-7").1, "MALFORMED_JSON");
    assert_eq!(
        bad(&cancel, "").1,
        "INVALID_RUC",
        "an empty RUC is a bad RUC, not a missing argument"
    );
    // NULL arguments: nothing written.
    let mut out = zero();
    let ruc = "44444401-7";
    for (e, r, s, o) in [
        (null(), ruc.as_ptr(), signer as *const _, &mut out as *mut _),
        (cancel.as_ptr(), null(), signer, &mut out),
        (cancel.as_ptr(), ruc.as_ptr(), null(), &mut out),
        (cancel.as_ptr(), ruc.as_ptr(), signer, null_mut()),
    ] {
        let st =
            unsafe { kuatia_sifen_event_sign(e, cancel.len(), r, ruc.len(), s, o, null_mut()) };
        assert_eq!(st, kuatia_status::InvalidArgument);
        assert!(out.ptr.is_null());
    }
    // Invalid UTF-8.
    let st = unsafe {
        kuatia_sifen_event_sign(
            b"\xff".as_ptr(),
            1,
            ruc.as_ptr(),
            ruc.len(),
            signer,
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::InvalidUtf8);

    // The evento request refuses what is not a signed event, with paths under arg.
    let mut tampered = signed.clone();
    tampered["xml"] = xml
        .replace("Error en el precio", "Error en el monto")
        .into();
    let (st, code, _) = request("evento", &serde_json::json!([tampered]).to_string(), false);
    assert_eq!(
        (st, code.as_str()),
        (kuatia_status::InvalidInput, "SIFEN_EVENT_INVALID")
    );
    assert_eq!(request("evento", "[]", false).1, "SIFEN_EVENT_COUNT");
    let many = serde_json::Value::Array(vec![signed.clone(); 16]).to_string();
    assert_eq!(request("evento", &many, false).1, "SIFEN_EVENT_COUNT");
    let dup = serde_json::json!([signed, signed]).to_string();
    assert_eq!(request("evento", &dup, false).1, "SIFEN_EVENT_DUPLICATE_ID");
    assert_eq!(request("evento", "{", false).1, "MALFORMED_JSON");
    unsafe { kuatia_signer_free(signer) };
}

//! SIFEN web services, sans-IO: build the SOAP request the host `POST`s (TLS and HTTP stay in the host) and
//! parse SIFEN's answer into typed JSON with its lifecycle action.

use crate::abi::{
    bytes_in, call, kuatia_bytes, kuatia_error, kuatia_status, out, put_json, text_in, Error,
};
use kuatia_core::cdc::Cdc;
use kuatia_core::error::{code, Finding};
use kuatia_core::qr::Ambiente;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::{self, request, Request, CONTENT_TYPE};
use serde::Serialize;

/// The JSON a request becomes (same shape as `kuatia sifen <service>` prints).
#[derive(Serialize)]
struct RequestJson<'a> {
    service: &'a str,
    url: &'a str,
    content_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cdcs: Option<&'a [String]>,
    xml: &'a str,
}

/// Builds the SOAP request of one SIFEN web service and writes `{"service","url","content_type","xml"}` (plus
/// `"cdcs"` for a lot). `kind` is `recibe` (`arg`: a signed rDE), `recibe-lote` (`arg`: a JSON array of signed
/// rDE strings), `consulta` (`arg`: a CDC), `consulta-lote` (`arg`: the lot number SIFEN returned) or
/// `consulta-ruc` (`arg`: a RUC, with or without DV). `d_id` is the request identifier (1..=999999999999999);
/// `production` picks the production endpoint instead of the test one.
///
/// # Safety
/// `kind` points to `kind_len` readable bytes and `arg` to `arg_len`; `out_json` is writable; `err` is NULL or
/// writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn kuatia_sifen_request(
    kind: *const u8,
    kind_len: usize,
    arg: *const u8,
    arg_len: usize,
    d_id: u64,
    production: bool,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let kind = unsafe { text_in(kind, kind_len, "kind") }?;
        let arg = unsafe { text_in(arg, arg_len, "arg") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let ambiente = if production {
            Ambiente::Produccion
        } else {
            Ambiente::Test
        };
        let write = |slot: &mut kuatia_bytes, r: &Request, cdcs: Option<&[String]>| {
            put_json(
                slot,
                &RequestJson {
                    service: r.service.as_str(),
                    url: r.url(ambiente),
                    content_type: CONTENT_TYPE,
                    cdcs,
                    xml: &r.xml,
                },
            )
        };
        match kind {
            "recibe" => write(slot, &request::recibe(d_id, arg)?, None),
            "recibe-lote" => {
                let rdes: Vec<String> = serde_json::from_str(arg).map_err(|e| {
                    Error::from(Finding::new(
                        code::MALFORMED_JSON,
                        "arg",
                        format!("arg must be a JSON array of signed rDE strings: {e}"),
                    ))
                })?;
                let refs: Vec<&str> = rdes.iter().map(String::as_str).collect();
                let lot = request::recibe_lote(d_id, &refs)?;
                write(slot, &lot.request, Some(&lot.cdcs))
            }
            "consulta" => {
                let cdc = Cdc::parse(arg).map_err(|e| Error::from(e.to_finding("arg")))?;
                write(slot, &request::consulta(d_id, &cdc)?, None)
            }
            "consulta-lote" => write(slot, &request::consulta_lote(d_id, arg)?, None),
            "consulta-ruc" => {
                // Like `kuatia sifen consulta-ruc`: a complete RUC, or a bare body whose DV is computed.
                let ruc = Ruc::parse(arg)
                    .or_else(|_| Ruc::from_body(arg))
                    .map_err(|e| Error::from(e.to_finding("arg")))?;
                write(slot, &request::consulta_ruc(d_id, &ruc)?, None)
            }
            other => Err(Error::from(Finding::new(
                code::INVALID_VALUE,
                "kind",
                format!(
                    "unknown kind {other:?}: expected recibe, recibe-lote, consulta, consulta-lote or consulta-ruc"
                ),
            ))),
        }
    })
}

/// Parses a SIFEN answer (the SOAP XML body of the HTTP response) and writes `{"service","result","action"}`:
/// the typed result of that service and what it means for the invoice lifecycle (`null` for RUC queries and
/// events). Fails with `SIFEN_UNEXPECTED_RESPONSE` for anything that is not SIFEN SOAP (gateway pages, empty
/// bodies) and `SIFEN_SOAP_FAULT` for a SOAP Fault.
///
/// # Safety
/// `bytes` points to `len` readable bytes; `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_sifen_parse_response(
    bytes: *const u8,
    len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let bytes = unsafe { bytes_in(bytes, len, "bytes") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let parsed = sifen::parse_response(bytes)?;
        put_json(slot, &parsed.with_action())
    })
}

/// What a SIFEN response code means and its usual fix: writes `{"code","meaning","fix"}`, or `null` when the
/// catalog does not document the code.
///
/// # Safety
/// `code` points to `len` readable bytes; `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_sifen_describe(
    code: *const u8,
    len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let code = unsafe { text_in(code, len, "code") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        put_json(slot, &sifen::describe(code))
    })
}

//! SIFEN web services, sans-IO: build the SOAP request the host `POST`s (TLS and HTTP stay in the host) and
//! parse SIFEN's answer into typed JSON with its lifecycle action.

use crate::abi::{
    bytes_in, call, json_arg, kuatia_bytes, kuatia_error, kuatia_status, out, put_json, text_in,
    Error,
};
use crate::sign::kuatia_signer;
use kuatia_core::cdc::Cdc;
use kuatia_core::qr::Ambiente;
use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::{self, event, request, Request};

/// Builds the SOAP request of one SIFEN web service and writes `{"service","url","content_type","xml"}` (plus
/// `"cdcs"` for a lot). `kind` is `recibe` (`arg`: a signed rDE), `recibe-lote` (`arg`: a JSON array of signed
/// rDE strings), `consulta` (`arg`: a CDC), `consulta-lote` (`arg`: the lot number SIFEN returned),
/// `consulta-ruc` (`arg`: a RUC, with or without DV) or `evento` (`arg`: a JSON array of 1 to 15 signed events,
/// the objects `kuatia_sifen_event_sign` writes, with distinct ids; each must still verify). `d_id` is the request
/// identifier (1..=999999999999999); `production` picks the production endpoint instead of the test one.
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
        let write = |slot: &mut kuatia_bytes, r: &Request| put_json(slot, &r.parts(ambiente));
        match kind {
            "recibe" => write(slot, &request::recibe(d_id, arg)?),
            "recibe-lote" => {
                // Read like every JSON argument: a syntax error is MALFORMED_JSON where it broke, a wrong element
                // VALIDATION_ERROR.INVALID_TYPE at `arg[i]`.
                let rdes: Vec<String> = json_arg(arg, "arg")?;
                let refs: Vec<&str> = rdes.iter().map(String::as_str).collect();
                let lot = request::recibe_lote(d_id, &refs)?;
                put_json(slot, &lot.parts(ambiente))
            }
            "consulta" => {
                let cdc = Cdc::parse(arg).map_err(|e| Error::from(e.to_finding("arg")))?;
                write(slot, &request::consulta(d_id, &cdc)?)
            }
            "consulta-lote" => write(slot, &request::consulta_lote(d_id, arg)?),
            "consulta-ruc" => {
                // Core's one reading of a consulta-ruc RUC, as `kuatia sifen consulta-ruc` uses it.
                let req = request::consulta_ruc_text(d_id, arg).map_err(|mut f| {
                    f.path = "arg".into();
                    Error::from(f)
                })?;
                write(slot, &req)
            }
            "evento" => {
                let events = event::signed_events_from_json(arg).map_err(|f| prefix(f, "arg"))?;
                write(slot, &request::evento(d_id, &events)?)
            }
            other => Err(Error::from(kuatia_core::rule::host_arg_choice(
                "kind",
                "kind",
                other,
                &[
                    "recibe",
                    "recibe-lote",
                    "consulta",
                    "consulta-lote",
                    "consulta-ruc",
                    "evento",
                ],
            ))),
        }
    })
}

/// Findings about a JSON argument, with the argument's name in front of their paths (`arg[0].xml`).
fn prefix(mut f: kuatia_core::Findings, arg: &str) -> Error {
    for x in &mut f.0 {
        x.path = if x.path.is_empty() {
            arg.to_string()
        } else if x.path.starts_with('[') {
            format!("{arg}{}", x.path)
        } else {
            format!("{arg}.{}", x.path)
        };
    }
    f.into()
}

/// Builds and signs one SIFEN event from its JSON form and writes `{"id","kind","cdc","xml"}`: the event `Id`,
/// the payload element (`rGeVeCan`, ...), the CDC concerned (`null` for an inutilización) and the signed
/// `rGesEve`, ready for `kuatia_sifen_request` kind `evento`. `event_json` is one object with `"tipo"`
/// (`cancelacion`, `inutilizacion`, `nominacion`, `transporte`, `notificacion_recepcion`, `conformidad`,
/// `disconformidad`, `desconocimiento`), `"id"` (1..=9999999999), `"fecha_firma"` (Paraguay local
/// `YYYY-MM-DDThh:mm:ss`) and the fields of its kind (docs/sifen.md, "Events"). `firmante_ruc` is the RUC (with DV)
/// that must sign: the emitter's for emitter events (it must be the CDC's emitter), the receiver's for receiver
/// events; `signer`'s certificate must carry it. Every problem is a finding with its JSON path
/// (`VALIDATION_ERROR.*`, `INVALID_CDC`, `INVALID_RUC`, `SIFEN_EVENT_INVALID`, `SIFEN_INUTILIZACION_RANGE`,
/// `SIFEN_EVENT_SIGNER`, `SIFEN_INVALID_ID`, ...); the cancellation window is the host's to check.
///
/// # Safety
/// `event_json` points to `event_len` readable bytes and `firmante_ruc` to `ruc_len`; `signer` is a live signer;
/// `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn kuatia_sifen_event_sign(
    event_json: *const u8,
    event_len: usize,
    firmante_ruc: *const u8,
    ruc_len: usize,
    signer: *const kuatia_signer,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let text = unsafe { text_in(event_json, event_len, "event_json") }?;
        let ruc = unsafe { text_in(firmante_ruc, ruc_len, "firmante_ruc") }?;
        let signer = unsafe { signer.as_ref() }.ok_or_else(|| Error::null("signer"))?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let input = event::input_from_json(text)?;
        let ruc = Ruc::parse(ruc).map_err(|e| Error::from(e.to_finding("firmante_ruc")))?;
        put_json(slot, &event::sign_event(&input, &ruc, &signer.inner)?)
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

/// What a SIFEN response code means and its usual fix, in Spanish (es-PY): writes `{"code","meaning","fix"}`, or
/// `null` when the catalog does not document the code. [`kuatia_sifen_describe_in`] chooses the language.
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

/// [`kuatia_sifen_describe`] in `lang` (`"es"`, `"es-PY"`, `"en"`, …; NULL or an unknown tag: es-PY).
///
/// # Safety
/// `code` points to `len` readable bytes; `lang` is NULL or a NUL-terminated string; `out_json` is writable; `err`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_sifen_describe_in(
    code: *const u8,
    len: usize,
    lang: *const std::ffi::c_char,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let code = unsafe { text_in(code, len, "code") }?;
        let lang = unsafe { crate::lang::lang_in(lang) };
        let slot = unsafe { out(out_json, "out_json") }?;
        put_json(slot, &sifen::describe_in(code, lang))
    })
}

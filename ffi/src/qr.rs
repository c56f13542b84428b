//! The QR text of a DE (`dCarQR`): build from its parts, parse back.

use crate::abi::{
    call, json_arg, kuatia_bytes, kuatia_error, kuatia_status, opt_text_in, out, put, put_json,
    text_in,
};
use kuatia_core::qr::{self, Ambiente, QrInput, QrReceptor};
use serde::Deserialize;

/// The JSON shape of [`QrInput`] (the core's input borrows, C gives JSON).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QrJson {
    cdc: String,
    fecha_emision: String,
    receptor: Receptor,
    total: String,
    total_iva: String,
    items: usize,
    digest_value: String,
    csc_id: String,
    csc: zeroize::Zeroizing<String>,
    ambiente: Ambiente,
}

/// Receiver identification: `{"ruc":"80069563"}`, `{"documento":"1234567"}` or `"sin_documento"`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Receptor {
    Ruc(String),
    Documento(String),
    SinDocumento,
}

/// Builds `dCarQR` from its parts as JSON: `{"cdc","fecha_emision","receptor","total","total_iva","items",
/// "digest_value","csc_id","csc","ambiente":"test"|"produccion"}`, strings exactly as written in the signed XML;
/// `receptor` is `{"ruc":"<body without DV>"}`, `{"documento":"<number>"}` or `"sin_documento"`.
///
/// # Safety
/// `fields_json` points to `fields_len` readable bytes; `out_qr` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_qr_build(
    fields_json: *const u8,
    fields_len: usize,
    out_qr: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let json = unsafe { text_in(fields_json, fields_len, "fields_json") }?;
        let slot = unsafe { out(out_qr, "out_qr") }?;
        let f: QrJson = json_arg(json, "")?;
        let receptor = match &f.receptor {
            Receptor::Ruc(r) => QrReceptor::Ruc(r),
            Receptor::Documento(d) => QrReceptor::Documento(d),
            Receptor::SinDocumento => QrReceptor::SinDocumento,
        };
        put(
            slot,
            qr::build(&QrInput {
                cdc: &f.cdc,
                fecha_emision: &f.fecha_emision,
                receptor,
                total: &f.total,
                total_iva: &f.total_iva,
                items: f.items,
                digest_value: &f.digest_value,
                csc_id: &f.csc_id,
                csc: &f.csc,
                ambiente: f.ambiente,
            }),
        );
        Ok(())
    })
}

/// Parses a `dCarQR` (raw text, not XML-escaped) and writes its parts as JSON (same names as
/// [`kuatia_qr_build`]'s input, plus `version` and `hash`). When `csc` is not NULL, also checks `cHashQR` against
/// it and adds `"hash_ok": bool`. Fails with `INVALID_INPUT` when the text is not a SIFEN QR.
///
/// # Safety
/// `dcarqr` points to `dcarqr_len` readable bytes; `csc` is NULL or points to `csc_len`; `out_json` is writable;
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_qr_parse(
    dcarqr: *const u8,
    dcarqr_len: usize,
    csc: *const u8,
    csc_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let text = unsafe { text_in(dcarqr, dcarqr_len, "dcarqr") }?;
        let csc = unsafe { opt_text_in(csc, csc_len, "csc") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        put_json(slot, &qr::parse(text)?.checked(text, csc))
    })
}

//! RUC check digits and CDC build/parse.

use crate::abi::{
    call, kuatia_bytes, kuatia_error, kuatia_status, out, put, put_json, text_in, Error,
};
use kuatia_core::cdc::{Cdc, CdcFields};
use kuatia_core::ruc::{check_digit, Ruc};

/// Computes the mod-11 check digit (DV) of a RUC body (digits, without the `-DV`).
/// Fails with `INVALID_INPUT` / `INVALID_RUC` for an empty, too long or non-numeric body.
///
/// # Safety
/// `body` points to `body_len` readable bytes; `out_dv` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_ruc_dv(
    body: *const u8,
    body_len: usize,
    out_dv: *mut u8,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let body = unsafe { text_in(body, body_len, "body") }?;
        let slot = unsafe { out(out_dv, "out_dv") }?;
        *slot = check_digit(body).map_err(|e| Error::from(e.to_finding("")))?;
        Ok(())
    })
}

/// Checks a complete RUC (`80069563-1`): `KUATIA_STATUS_OK` when valid, `INVALID_INPUT` / `INVALID_RUC` otherwise.
///
/// # Safety
/// `ruc` points to `ruc_len` readable bytes; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_ruc_check(
    ruc: *const u8,
    ruc_len: usize,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let ruc = unsafe { text_in(ruc, ruc_len, "ruc") }?;
        Ruc::parse(ruc).map_err(|e| Error::from(e.to_finding("")))?;
        Ok(())
    })
}

/// Builds a CDC from its fields as JSON (`tipo_documento`, `ruc`, `establecimiento`, `punto`, `numero`,
/// `tipo_contribuyente`, `fecha` `YYYY-MM-DD`, `tipo_emision`, `codigo_seguridad`) and writes the 44 characters.
///
/// # Safety
/// `fields_json` points to `fields_len` readable bytes; `out_cdc` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_cdc_build(
    fields_json: *const u8,
    fields_len: usize,
    out_cdc: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let json = unsafe { text_in(fields_json, fields_len, "fields_json") }?;
        let slot = unsafe { out(out_cdc, "out_cdc") }?;
        let fields = CdcFields::from_json(json)?;
        let cdc =
            Cdc::build(&fields).map_err(|e| Error::from(e.to_finding(e.field().unwrap_or(""))))?;
        put(slot, cdc.as_str());
        Ok(())
    })
}

/// Checks a CDC and writes its parts as JSON: `{"cdc","grouped","dv", tipo_documento, ruc, establecimiento, punto,
/// numero, tipo_contribuyente, fecha, tipo_emision, codigo_seguridad}`. Fails with `INVALID_CDC` when malformed.
///
/// # Safety
/// `cdc` points to `cdc_len` readable bytes; `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_cdc_parse(
    cdc: *const u8,
    cdc_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let text = unsafe { text_in(cdc, cdc_len, "cdc") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let cdc = Cdc::parse(text).map_err(|e| Error::from(e.to_finding("")))?;
        put_json(slot, &cdc.parts())
    })
}

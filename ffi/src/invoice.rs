//! Invoice requests: validate, totals, numbering key, unsigned preview and issue.

use crate::abi::{
    call, kuatia_bytes, kuatia_error, kuatia_status, opt_text_in, out, put, put_json, text_in,
    Error,
};
use crate::sign::kuatia_signer;
use kuatia_core::cdc::{security_code, FixedSecurityCode};
use kuatia_core::document::{build, IssueContext};
use kuatia_core::error::Findings;
use kuatia_core::invoice::parse_request;
use kuatia_core::issue::{numbering_key, prepare, Detail, Reserved, Summary};
use kuatia_core::profile::Emisor;
use kuatia_core::validate::read_json;

/// The emitter profile given as JSON, or the built-in sandbox profile for NULL. Finding paths are prefixed with
/// `profile` so the caller knows which input was wrong.
///
/// # Safety
/// As for [`opt_text_in`].
pub(crate) unsafe fn emisor(ptr: *const u8, len: usize) -> Result<Emisor, Error> {
    // SAFETY: forwarded contract.
    match unsafe { opt_text_in(ptr, len, "profile_json") }? {
        None => Ok(Emisor::sandbox()),
        Some(json) => Emisor::from_json(json).map_err(|mut f| {
            f.path = if f.path.is_empty() {
                "profile".into()
            } else {
                format!("profile.{}", f.path)
            };
            Error::from(f)
        }),
    }
}

/// Parses `now`, the caller's Paraguay local time `YYYY-MM-DDThh:mm:ss` (the core has no clock).
///
/// # Safety
/// As for [`text_in`].
unsafe fn now_in(ptr: *const u8, len: usize) -> Result<time::PrimitiveDateTime, Error> {
    // SAFETY: forwarded contract.
    let text = unsafe { text_in(ptr, len, "now") }?;
    kuatia_core::fmt::datetime_at(text, "now").map_err(Error::from)
}

/// Validates a request (the JSON body of `POST /v1/facturas`) against the profile (NULL: the sandbox profile) at
/// `now` (`YYYY-MM-DDThh:mm:ss`, Paraguay time) and writes the report `{"ok":bool,"errors":[{code,path,message}]}`.
/// A request with findings is still `KUATIA_STATUS_OK`: the report is the result. Errors are for bad arguments,
/// a bad profile or a bad `now`.
///
/// # Safety
/// Each `(ptr, len)` points to readable bytes (`profile_json` may be NULL); `out_report` is writable; `err` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_invoice_validate(
    request_json: *const u8,
    request_len: usize,
    profile_json: *const u8,
    profile_len: usize,
    now: *const u8,
    now_len: usize,
    out_report: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let emisor = unsafe { emisor(profile_json, profile_len) }?;
        let now = unsafe { now_in(now, now_len) }?;
        let slot = unsafe { out(out_report, "out_report") }?;
        put_json(
            slot,
            &kuatia_core::validate::validate_json(request, &emisor, now),
        )
    })
}

/// Computes item values and document totals of a request and writes them as JSON
/// (`{"tipo_documento","moneda","items":[{valor,iva}],"totales":{...}}`, amounts as decimal strings).
/// Fails with `INVALID_INPUT` when the items cannot be computed.
///
/// # Safety
/// `request_json` points to `request_len` readable bytes; `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_invoice_totals(
    request_json: *const u8,
    request_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let req = parse_request(request)?;
        put_json(slot, &kuatia_core::totals::compute(&req)?)
    })
}

/// Writes the numbering sequence a request will draw from with this profile at `now`, as JSON
/// `{"tipo_documento","timbrado","establecimiento","punto"}`, so the host can reserve the next number of that
/// sequence before calling [`kuatia_invoice_issue`]. The request is checked first: an invalid one fails with every
/// finding (`INVALID_TIMBRADO` when no stamp covers its type, establishment and point).
///
/// # Safety
/// As for [`kuatia_invoice_validate`].
#[no_mangle]
pub unsafe extern "C" fn kuatia_invoice_numbering_key(
    request_json: *const u8,
    request_len: usize,
    profile_json: *const u8,
    profile_len: usize,
    now: *const u8,
    now_len: usize,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let emisor = unsafe { emisor(profile_json, profile_len) }?;
        let now = unsafe { now_in(now, now_len) }?;
        let slot = unsafe { out(out_json, "out_json") }?;
        let req = read_json(request, &emisor, now)?;
        let key = numbering_key(&req, &emisor, now)?;
        put_json(slot, &key)
    })
}

/// Builds the complete document and writes its unsigned `rDE` XML (a preview: no signature, no QR). `numero` and
/// `codigo_seguridad` are used as in [`kuatia_invoice_issue`], so the preview carries the CDC issuing will give.
///
/// # Safety
/// As for [`kuatia_invoice_validate`]; `out_xml` is writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_invoice_preview_xml(
    request_json: *const u8,
    request_len: usize,
    profile_json: *const u8,
    profile_len: usize,
    now: *const u8,
    now_len: usize,
    numero: u32,
    codigo_seguridad: u32,
    out_xml: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let emisor = unsafe { emisor(profile_json, profile_len) }?;
        let now = unsafe { now_in(now, now_len) }?;
        let slot = unsafe { out(out_xml, "out_xml") }?;
        let req = read_json(request, &emisor, now)?;
        let ctx = IssueContext {
            now,
            numero,
            codigo_seguridad: security_code(&mut FixedSecurityCode(codigo_seguridad), numero),
        };
        let de = build(&req, &emisor, ctx)?;
        put(slot, kuatia_core::xml::write(&de));
        Ok(())
    })
}

/// Issues one document: validates, builds, signs with `signer` and adds the QR. Writes the signed `rDE` (UTF-8 XML,
/// ready for SIFEN) to `out_xml` and `{"cdc","numero","qr","digest_value","fecha_emision"}` to `out_json`.
///
/// The host owns randomness and sequences: `numero` is the next number of the sequence given by
/// [`kuatia_invoice_numbering_key`] (1..9999999), reserved by the caller; `codigo_seguridad` MUST come from a
/// cryptographically secure generator (e.g. `getrandom(2)`, `arc4random_buf`, `BCryptGenRandom`): any `uint32_t`
/// draw is mapped uniformly into 1..999999999 and made different from `numero`, as SIFEN requires. A predictable
/// code lets third parties guess CDCs. `profile_json` NULL means the built-in sandbox profile (TEST ONLY).
///
/// # Safety
/// As for [`kuatia_invoice_validate`]; `signer` is a live signer; `out_xml` and `out_json` are writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_invoice_issue(
    request_json: *const u8,
    request_len: usize,
    profile_json: *const u8,
    profile_len: usize,
    signer: *const kuatia_signer,
    now: *const u8,
    now_len: usize,
    numero: u32,
    codigo_seguridad: u32,
    out_xml: *mut kuatia_bytes,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let request = unsafe { text_in(request_json, request_len, "request_json") }?;
        let emisor = unsafe { emisor(profile_json, profile_len) }?;
        let signer = unsafe { signer.as_ref() }.ok_or_else(|| Error::null("signer"))?;
        let now = unsafe { now_in(now, now_len) }?;
        if std::ptr::eq(out_xml, out_json) {
            return Err(Error::of(
                kuatia_status::InvalidArgument,
                kuatia_core::rule::host_arg_aliased("out_json", "out_json", "out_xml"),
            ));
        }
        let xml_slot = unsafe { out(out_xml, "out_xml") }?;
        let json_slot = unsafe { out(out_json, "out_json") }?;
        let req = read_json(request, &emisor, now)?;
        // The host keeps the sequence (and its gaps): its number is the one reserved, confirmed by the host.
        let prepared = prepare(&emisor, &req, Some(&signer.inner), now).map_err(Findings::from)?;
        let reserved = Reserved::new(prepared.key().clone(), numero);
        let (issued, _ticket) = prepared
            .issue_reserved(
                reserved,
                Some(&signer.inner),
                &mut FixedSecurityCode(codigo_seguridad),
            )
            .map_err(Findings::from)?
            .into_parts();
        let summary = Summary::of(&issued, Detail::Signature);
        let json = serde_json::to_vec(&summary).map_err(Error::serialize)?;
        // Both buffers exist before either slot is written, so a failure leaves both untouched.
        put(json_slot, json);
        put(xml_slot, issued.xml);
        Ok(())
    })
}

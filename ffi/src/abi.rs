//! The plumbing every export shares: status codes, owned byte buffers, the error object, the panic boundary and
//! the checked conversion of C inputs. Nothing here knows about invoices.

use kuatia_core::error::{code, Finding, Findings};
use kuatia_core::msg::Lang;
use kuatia_core::rule;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// Largest input (in bytes) any function accepts; longer inputs fail with `KUATIA_STATUS_TOO_LARGE` before they
/// are read. The core has tighter limits of its own (8 MiB requests, 16 MiB XML).
pub const KUATIA_MAX_INPUT_LEN: usize = 64 * 1024 * 1024;

/// Outcome of every call. The numbers are part of the ABI: they are never renumbered or reused.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum kuatia_status {
    /// Success; the out-parameters were written.
    Ok = 0,
    /// A required pointer was NULL (the error's path names the argument).
    InvalidArgument = 1,
    /// A text input was not valid UTF-8.
    InvalidUtf8 = 2,
    /// An input exceeded `KUATIA_MAX_INPUT_LEN` or a limit of the core (error code `TOO_LARGE`).
    TooLarge = 3,
    /// The input was read but rejected: the error carries every finding (code, path, message).
    InvalidInput = 4,
    /// A key, certificate or signature operation failed (error codes `P12_*`, `KEY_*`, `CERTIFICATE_*`, ...).
    SignError = 5,
    /// A bug inside kuatia was caught at the boundary; the process state is intact, please report it.
    Panic = 6,
}

/// An owned byte buffer returned by kuatia: `len` bytes at `ptr`, followed by a NUL that `len` does not count
/// (so text results can be used as C strings). Free it with `kuatia_bytes_free`.
#[repr(C)]
#[derive(Debug)]
#[allow(non_camel_case_types)]
pub struct kuatia_bytes {
    /// First byte; NULL only in a zeroed or freed buffer.
    pub ptr: *mut u8,
    /// Number of bytes, not counting the trailing NUL.
    pub len: usize,
}

impl kuatia_bytes {
    /// Moves `data` into a NUL-terminated heap buffer owned by the caller.
    pub(crate) fn from_vec(mut data: Vec<u8>) -> kuatia_bytes {
        let len = data.len();
        data.push(0);
        let ptr = Box::into_raw(data.into_boxed_slice()).cast::<u8>();
        kuatia_bytes { ptr, len }
    }
}

/// Frees a buffer returned by kuatia and resets it to `{NULL, 0}`, so freeing it again is harmless.
/// Accepts NULL and an already freed or zeroed buffer.
///
/// # Safety
/// `bytes` is NULL or points to a `kuatia_bytes` that kuatia filled (or that is zeroed).
#[no_mangle]
pub unsafe extern "C" fn kuatia_bytes_free(bytes: *mut kuatia_bytes) {
    guard((), || {
        // SAFETY: the caller passes NULL or a valid, exclusive pointer.
        let Some(b) = (unsafe { bytes.as_mut() }) else {
            return;
        };
        if !b.ptr.is_null() {
            // SAFETY: ptr/len came from `from_vec`: a boxed slice of len + 1 bytes (the NUL).
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(b.ptr, b.len + 1)) });
        }
        b.ptr = std::ptr::null_mut();
        b.len = 0;
    })
}

/// Why a call failed: the status, a stable code, a message, the field path, and every finding.
/// Created by kuatia only on failure; free it with `kuatia_error_free`. Not shared between threads while in use.
#[allow(non_camel_case_types)]
pub struct kuatia_error {
    status: kuatia_status,
    findings: Vec<CFinding>,
    json: CString,
    /// The findings as built, from which the messages of another language are rendered.
    source: Vec<Finding>,
    /// The first finding's rule id (`unclassified` for a sentence); empty when there is none.
    rule: CString,
    /// One rendering per language of [`Lang::ALL`], made on first use.
    rendered: [OnceLock<Rendered>; Lang::ALL.len()],
}

/// The findings of an error rendered in one language.
pub(crate) struct Rendered {
    /// Every finding as JSON.
    pub(crate) json: CString,
    /// The first finding's message (empty when there is none).
    pub(crate) message: CString,
}

impl kuatia_error {
    /// The findings rendered in `lang` (cached: the pointers stay valid as long as the error).
    pub(crate) fn rendered(&self, lang: Lang) -> &Rendered {
        let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
        self.rendered[i].get_or_init(|| {
            let mut findings = Findings(self.source.clone());
            findings.localize(lang);
            let json = serde_json::to_string(&findings.0).unwrap_or_else(|_| "[]".into());
            let message = findings.0.first().map_or("", |f| f.message.as_str());
            Rendered {
                json: c_string(&json),
                message: c_string(message),
            }
        })
    }

    /// The first finding's rule id.
    pub(crate) fn rule(&self) -> &CString {
        &self.rule
    }
}

struct CFinding {
    code: CString,
    path: CString,
    message: CString,
}

/// A C string from Rust text; an interior NUL (possible only in echoed input) becomes U+FFFD.
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{FFFD}")).unwrap_or_default()
}

/// A failure inside the Rust side of one call, turned into a `kuatia_error` at the boundary.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: kuatia_status,
    pub(crate) findings: Vec<Finding>,
}

impl Error {
    /// One finding of a rule (`kuatia_core::rule`) with an explicit status.
    pub(crate) fn of(status: kuatia_status, finding: Finding) -> Error {
        Error {
            status,
            findings: vec![finding],
        }
    }

    /// A required pointer argument was NULL.
    pub(crate) fn null(arg: &str) -> Error {
        Error::of(
            kuatia_status::InvalidArgument,
            rule::host_arg_null(arg, arg),
        )
    }

    /// A result that could not be written as JSON (a bug): `detail` is the serializer's error.
    pub(crate) fn serialize(detail: impl std::fmt::Display) -> Error {
        Error::of(
            kuatia_status::Panic,
            rule::host_result_json("", &detail.to_string()),
        )
    }

    fn into_ffi(mut self) -> kuatia_error {
        // The accessors without a language answer in Spanish of Paraguay, the default of every face.
        self.findings
            .iter_mut()
            .for_each(|f| f.localize(Lang::EsPy));
        let json = serde_json::to_string(&self.findings).unwrap_or_else(|_| "[]".into());
        kuatia_error {
            status: self.status,
            findings: self
                .findings
                .iter()
                .map(|f| CFinding {
                    code: c_string(&f.code),
                    path: c_string(&f.path),
                    message: c_string(&f.message),
                })
                .collect(),
            json: c_string(&json),
            rule: c_string(self.findings.first().map_or("", |f| &f.rule)),
            source: self.findings,
            rendered: Default::default(),
        }
    }
}

/// Status for findings of the core: size limits keep their own status, everything else is invalid input.
fn status_of(findings: &[Finding]) -> kuatia_status {
    match findings.first() {
        Some(f) if f.code == code::TOO_LARGE => kuatia_status::TooLarge,
        _ => kuatia_status::InvalidInput,
    }
}

impl From<Findings> for Error {
    fn from(f: Findings) -> Error {
        Error {
            status: status_of(&f.0),
            findings: f.0,
        }
    }
}

impl From<Finding> for Error {
    fn from(f: Finding) -> Error {
        Findings::from(f).into()
    }
}

impl From<kuatia_core::sign::SignError> for Error {
    fn from(e: kuatia_core::sign::SignError) -> Error {
        // A missing or repeated Id is a problem of the XML given, not of the key.
        let status = match e {
            kuatia_core::sign::SignError::Xml(_) => kuatia_status::InvalidInput,
            _ => kuatia_status::SignError,
        };
        Error {
            status,
            findings: vec![Finding::from(e)],
        }
    }
}

/// Runs the body of a status-returning export behind the panic boundary, and reports its failure in `*err`
/// (when `err` is not NULL). `*err` is written only on failure.
pub(crate) fn call(
    err: *mut *mut kuatia_error,
    body: impl FnOnce() -> Result<(), Error>,
) -> kuatia_status {
    let outcome = catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|_| Err(Error::of(kuatia_status::Panic, rule::host_panic(""))));
    match outcome {
        Ok(()) => kuatia_status::Ok,
        Err(e) => {
            let status = e.status;
            if !err.is_null() {
                let boxed = Box::into_raw(Box::new(e.into_ffi()));
                // SAFETY: err is not NULL and the caller guarantees it is writable.
                unsafe { *err = boxed };
            }
            status
        }
    }
}

/// Runs the body of an export that returns a plain value (accessors, frees) behind the panic boundary;
/// `on_panic` is returned if it panics.
pub(crate) fn guard<T>(on_panic: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(on_panic)
}

/// Borrows `(ptr, len)` input bytes: NULL is an invalid argument, an absurd length is too large.
///
/// # Safety
/// When not NULL, `ptr` points to `len` readable bytes that stay valid and unchanged during the call.
pub(crate) unsafe fn bytes_in<'a>(
    ptr: *const u8,
    len: usize,
    arg: &str,
) -> Result<&'a [u8], Error> {
    if ptr.is_null() {
        return Err(Error::null(arg));
    }
    // Checked before the slice exists: a length beyond isize::MAX would make the slice itself undefined.
    if len > KUATIA_MAX_INPUT_LEN {
        return Err(Error::of(
            kuatia_status::TooLarge,
            rule::host_arg_too_large(arg, arg, len, KUATIA_MAX_INPUT_LEN),
        ));
    }
    // SAFETY: not NULL, length bounded, validity guaranteed by the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows `(ptr, len)` as UTF-8 text (see [`bytes_in`]).
///
/// # Safety
/// As for [`bytes_in`].
pub(crate) unsafe fn text_in<'a>(ptr: *const u8, len: usize, arg: &str) -> Result<&'a str, Error> {
    // SAFETY: forwarded contract.
    let bytes = unsafe { bytes_in(ptr, len, arg) }?;
    std::str::from_utf8(bytes).map_err(|e| {
        Error::of(
            kuatia_status::InvalidUtf8,
            rule::host_arg_utf8(arg, arg, e.valid_up_to()),
        )
    })
}

/// Like [`text_in`], but NULL means "not given".
///
/// # Safety
/// As for [`bytes_in`].
pub(crate) unsafe fn opt_text_in<'a>(
    ptr: *const u8,
    len: usize,
    arg: &str,
) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    unsafe { text_in(ptr, len, arg) }.map(Some)
}

/// Checks an out-parameter up front (so nothing is computed for a call that cannot deliver).
///
/// # Safety
/// When not NULL, `ptr` is valid for writes and not aliased during the call.
pub(crate) unsafe fn out<'a, T>(ptr: *mut T, arg: &str) -> Result<&'a mut T, Error> {
    // SAFETY: forwarded contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| Error::null(arg))
}

/// Writes an owned buffer into a checked out-parameter.
pub(crate) fn put(slot: &mut kuatia_bytes, data: impl Into<Vec<u8>>) {
    *slot = kuatia_bytes::from_vec(data.into());
}

/// Parses JSON text into `T` for an argument, with core's one JSON-error classifier (paths under `arg`).
pub(crate) fn json_arg<T: serde::de::DeserializeOwned>(text: &str, arg: &str) -> Result<T, Error> {
    kuatia_core::shape::from_json(text, arg).map_err(Error::from)
}

/// Serializes a result as compact JSON into an out-parameter.
pub(crate) fn put_json(
    slot: &mut kuatia_bytes,
    value: &impl serde::Serialize,
) -> Result<(), Error> {
    let text = serde_json::to_vec(value).map_err(Error::serialize)?;
    put(slot, text);
    Ok(())
}

/// The registry of error codes every face returns, as JSON `[{"code","description"}]` (core's `code::ALL`), into
/// `out_json`. Every code: `INVALID_RUC`, `INVALID_TIMBRADO`, `INVALID_CDC`, `VALIDATION_ERROR`,
/// `VALIDATION_ERROR.REQUIRED`, `VALIDATION_ERROR.INVALID_TYPE`, `VALIDATION_ERROR.INVALID_VALUE`,
/// `VALIDATION_ERROR.OUT_OF_RANGE`, `VALIDATION_ERROR.INVALID_FORMAT`, `VALIDATION_ERROR.NOT_ALLOWED`,
/// `VALIDATION_ERROR.INCONSISTENT`, `MALFORMED_JSON`, `MALFORMED_XML`, `TOO_LARGE`, `NUMBERING_STATE_CORRUPT`,
/// `NUMBERING_UNAVAILABLE`, `NUMBERING_EXHAUSTED`, `NUMBER_NOT_RESERVED`, `P12_INVALID`, `P12_WRONG_PASSWORD`,
/// `P12_NO_PRIVATE_KEY`, `P12_NO_CERTIFICATE`, `KEY_INVALID`, `KEY_UNSUPPORTED`, `KEY_CERT_MISMATCH`,
/// `SIGNATURE_FAILED`, `CERTIFICATE_INVALID`, `CERTIFICATE_NOT_YET_VALID`, `CERTIFICATE_EXPIRED`,
/// `CERTIFICATE_RUC_MISSING`, `CERTIFICATE_RUC_MISMATCH`, `CERTIFICATE_MISSING`, `SIGNATURE_MISSING`,
/// `SIGNATURE_MALFORMED`, `DIGEST_MISMATCH`, `SIGNATURE_INVALID`, `UNSUPPORTED_ALGORITHM`, `ELEMENT_NOT_FOUND`,
/// `DUPLICATE_ID`, `SIFEN_UNEXPECTED_RESPONSE`, `SIFEN_SOAP_FAULT`, `SIFEN_INVALID_ID`, `SIFEN_MESSAGE_TOO_LARGE`,
/// `SIFEN_DE_UNSIGNED`, `SIFEN_DE_WITHOUT_QR`, `SIFEN_LOT_EMPTY`, `SIFEN_LOT_TOO_MANY`, `SIFEN_LOT_MIXED_RUC`,
/// `SIFEN_LOT_MIXED_TYPE`, `SIFEN_LOT_DUPLICATE_CDC`, `SIFEN_EVENT_COUNT`, `SIFEN_EVENT_DUPLICATE_ID`,
/// `SIFEN_EVENT_INVALID`, `SIFEN_CANCEL_WINDOW_EXPIRED`, `SIFEN_INUTILIZACION_RANGE`, `SIFEN_EVENT_SIGNER`,
/// `SIFEN_OUT_OF_WINDOW`, `SIFEN_TLS_HANDSHAKE`, `INVALID_TRANSITION`, `UNAUTHORIZED`, `LIVE_KEY_IN_SANDBOX`,
/// `SANDBOX_HEADER_REQUIRED`, `NOT_FOUND`, `METHOD_NOT_ALLOWED`, `INVALID_QUERY`, `UNSUPPORTED_MEDIA_TYPE`,
/// `REQUEST_TIMEOUT`, `WEBHOOK_URL_NOT_ALLOWED`, `INVALID_IDEMPOTENCY_KEY`, `IDEMPOTENCY_CONFLICT`,
/// `IDEMPOTENCY_IN_PROGRESS`, `SIMULATE_NOT_ALLOWED`, `PRODUCTION_NOT_CONFIGURED`, `KUDE_NOT_AVAILABLE`,
/// `XML_NOT_AVAILABLE`, `NOT_CANCELLABLE`, `CANCELLATION_PENDING`, `STORAGE_ERROR`, `STORAGE_UNAVAILABLE`,
/// `INTERNAL_ERROR`, `INVALID_ARGUMENT`, `INVALID_UTF8`, `PANIC`.
///
/// # Safety
/// `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_codes(
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let slot = unsafe { out(out_json, "out_json") }?;
        put(slot, kuatia_core::code::all_json());
        Ok(())
    })
}

/// Frees an error returned by kuatia. Accepts NULL.
///
/// # Safety
/// `err` is NULL or an error from kuatia not yet freed.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_free(err: *mut kuatia_error) {
    guard((), || {
        if !err.is_null() {
            // SAFETY: created by Box::into_raw in `call`, freed once by contract.
            drop(unsafe { Box::from_raw(err) });
        }
    })
}

/// The status of the failed call (`KUATIA_STATUS_INVALID_ARGUMENT` for a NULL error).
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_status(err: *const kuatia_error) -> kuatia_status {
    guard(kuatia_status::Panic, || {
        // SAFETY: NULL or live, by contract.
        match unsafe { err.as_ref() } {
            Some(e) => e.status,
            None => kuatia_status::InvalidArgument,
        }
    })
}

fn first_field(err: *const kuatia_error, pick: fn(&CFinding) -> &CString) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: NULL or live, by the contract of the public accessors.
        match unsafe { err.as_ref() }.and_then(|e| e.findings.first()) {
            Some(f) => pick(f).as_ptr(),
            None => std::ptr::null(),
        }
    })
}

/// Stable code of the (first) problem, e.g. `VALIDATION_ERROR.REQUIRED`, `INVALID_CDC`, `P12_WRONG_PASSWORD`,
/// `INVALID_ARGUMENT`, `INVALID_UTF8`, `TOO_LARGE`, `PANIC`. Owned by `err`; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_code(err: *const kuatia_error) -> *const c_char {
    guard(std::ptr::null(), || first_field(err, |f| &f.code))
}

/// Human-readable message of the (first) problem. Owned by `err`; NULL when `err` is NULL. In Spanish of Paraguay
/// (`es-PY`, the default); `kuatia_error_message_in` renders it in another language.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_message(err: *const kuatia_error) -> *const c_char {
    guard(std::ptr::null(), || first_field(err, |f| &f.message))
}

/// JSON path of the field at fault (`items[2].iva`), or the argument name (`request`, `signer`); empty when it
/// concerns the whole input. Owned by `err`; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_path(err: *const kuatia_error) -> *const c_char {
    guard(std::ptr::null(), || first_field(err, |f| &f.path))
}

/// Number of findings (validation reports every problem at once); 0 when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_count(err: *const kuatia_error) -> usize {
    guard(0, || {
        // SAFETY: NULL or live, by contract.
        unsafe { err.as_ref() }.map_or(0, |e| e.findings.len())
    })
}

/// Reads finding `index` (0-based): writes borrowed C strings (owned by `err`) into each non-NULL out pointer
/// and returns true, or returns false when `err` is NULL or `index` is out of range. The message is in Spanish of
/// Paraguay (`es-PY`); `kuatia_error_json_in` has every finding in another language.
///
/// # Safety
/// `err` is NULL or a live error from kuatia; each out pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_finding(
    err: *const kuatia_error,
    index: usize,
    code: *mut *const c_char,
    path: *mut *const c_char,
    message: *mut *const c_char,
) -> bool {
    guard(false, || {
        // SAFETY: NULL or live, by contract.
        let Some(f) = unsafe { err.as_ref() }.and_then(|e| e.findings.get(index)) else {
            return false;
        };
        for (slot, value) in [(code, &f.code), (path, &f.path), (message, &f.message)] {
            // SAFETY: NULL or writable, by contract.
            if let Some(slot) = unsafe { slot.as_mut() } {
                *slot = value.as_ptr();
            }
        }
        true
    })
}

/// Every finding as a JSON array `[{"code":..,"path":..,"message":..,"rule":..,"params":..}]`, the messages in
/// Spanish of Paraguay (`es-PY`, the default); `kuatia_error_json_in` renders them in another language.
/// Owned by `err`; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_json(err: *const kuatia_error) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: NULL or live, by contract.
        unsafe { err.as_ref() }.map_or(std::ptr::null(), |e| e.json.as_ptr())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_panic_becomes_the_panic_status_and_an_error() {
        let mut err: *mut kuatia_error = std::ptr::null_mut();
        let status = call(&mut err, || panic!("boom"));
        assert_eq!(status, kuatia_status::Panic);
        assert!(!err.is_null());
        let code = unsafe { std::ffi::CStr::from_ptr(kuatia_error_code(err)) };
        assert_eq!(code.to_str().unwrap(), "PANIC");
        assert_eq!(unsafe { kuatia_error_status(err) }, kuatia_status::Panic);
        unsafe { kuatia_error_free(err) };
        assert_eq!(guard(7, || panic!("boom")), 7);
    }

    #[test]
    fn interior_nul_is_replaced() {
        assert_eq!(c_string("a\0b").to_str().unwrap(), "a\u{FFFD}b");
    }
}

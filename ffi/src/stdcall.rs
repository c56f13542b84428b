//! `stdcall` entry points for 32-bit Windows hosts that can only declare those (Visual Basic 6, Visual FoxPro,
//! old Delphi): `kuatia_sc_*`, built into `kuatia.dll` on Windows only (docs/windows.md, declared in
//! `include/kuatia_stdcall.h`).
//!
//! Plain types only: NUL-terminated text (`const char *`, UTF-8; ASCII JSON with `\u00f1` escapes passes through
//! any ANSI code page unchanged), 32-bit integers, byte buffers with a length, results copied into buffers the
//! caller owns (`char *out, int32_t cap`), and an opaque signer handle (a pointer, a `Long` in VB6). No kuatia
//! allocation crosses to the host except the signer, freed with `kuatia_sc_signer_free`.
//!
//! Each function returns a `kuatia_status` (as `int32_t`) and, on failure, writes the error into `err` (capacity
//! `err_cap`, may be NULL/0): one line per finding, `CODE at PATH: message`, lines separated by CR LF. A result
//! buffer that is too small is `KUATIA_STATUS_INVALID_ARGUMENT` with the size it needs in the message; issuing again
//! with the same number and security code gives the same document.
//!
//! These are adapters over the C ABI's own functions (same checks, same panic boundary): `extern "system"` is
//! `stdcall` on 32-bit Windows and the platform's C convention on 64-bit Windows. cbindgen skips non-`"C"`
//! functions, so `include/kuatia.h` and `include/kuatia.abi.json` do not list them.
#![allow(clippy::missing_safety_doc)] // each function's contract is in its doc comment and the header

use crate::abi::{
    guard, kuatia_bytes, kuatia_bytes_free, kuatia_error, kuatia_error_count, kuatia_error_finding,
    kuatia_error_free, kuatia_status,
};
use crate::invoice::kuatia_invoice_issue;
use crate::sign::{
    kuatia_signer, kuatia_signer_free, kuatia_signer_from_p12, kuatia_signer_sandbox,
};
use std::ffi::{c_char, CStr};

/// The status a caught panic of the adapter itself returns (the functions it calls have their own boundary).
const PANIC: i32 = kuatia_status::Panic as i32;
/// The status of a bad argument of the adapter (NULL, negative length, too small a buffer).
const INVALID_ARGUMENT: i32 = kuatia_status::InvalidArgument as i32;

/// `(ptr, len)` of a NUL-terminated text; NULL stays NULL (the C function then names the argument).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> (*const u8, usize) {
    if p.is_null() {
        return (std::ptr::null(), 0);
    }
    // SAFETY: NUL-terminated by contract.
    (p.cast(), unsafe { CStr::from_ptr(p) }.to_bytes().len())
}

/// Like [`text`], with NULL and "" both meaning "not given" (VB6's `vbNullString` and `""`).
///
/// # Safety
/// As for [`text`].
unsafe fn optional_text(p: *const c_char) -> (*const u8, usize) {
    // SAFETY: forwarded contract.
    match unsafe { text(p) } {
        (_, 0) => (std::ptr::null(), 0),
        t => t,
    }
}

/// Copies `bytes` and a NUL into `out` (capacity `cap`); the bytes needed (with the NUL) when they do not fit.
///
/// # Safety
/// `out` is NULL or writable for `cap` bytes.
unsafe fn copy_out(bytes: &[u8], out: *mut c_char, cap: i32) -> Result<(), usize> {
    let need = bytes.len() + 1;
    let cap = usize::try_from(cap).unwrap_or(0);
    if out.is_null() || cap < need {
        return Err(need);
    }
    // SAFETY: out has room for cap >= need bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), bytes.len());
        *out.add(bytes.len()) = 0;
    }
    Ok(())
}

/// Writes `message` into the error buffer, cut at a character boundary when it does not fit; always terminated
/// when `cap` > 0.
///
/// # Safety
/// `err` is NULL or writable for `cap` bytes.
unsafe fn write_err(message: &str, err: *mut c_char, cap: i32) {
    let cap = usize::try_from(cap).unwrap_or(0);
    if err.is_null() || cap == 0 {
        return;
    }
    let mut n = message.len().min(cap - 1);
    while !message.is_char_boundary(n) {
        n -= 1;
    }
    // SAFETY: err has room for cap > n bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(message.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

/// The findings of a C-ABI error as text, one `CODE at PATH: message` line each; frees the error.
///
/// # Safety
/// `e` is NULL or a live error from kuatia, not used afterwards.
unsafe fn take_error(e: *mut kuatia_error) -> String {
    let mut lines = Vec::new();
    // SAFETY: e is NULL or live.
    for i in 0..unsafe { kuatia_error_count(e) } {
        let (mut code, mut path, mut message) =
            (std::ptr::null(), std::ptr::null(), std::ptr::null());
        // SAFETY: e is live; the three pointers are writable and stay valid until the error is freed.
        if unsafe { kuatia_error_finding(e, i, &mut code, &mut path, &mut message) } {
            // SAFETY: kuatia's accessors return NUL-terminated strings owned by e (or NULL).
            let field = |p: *const c_char| -> String {
                if p.is_null() {
                    String::new()
                } else {
                    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
                }
            };
            // As core's `Display` of a finding writes it (`CODE at PATH: message`, no ` at` without a path).
            let (code, path, message) = (field(code), field(path), field(message));
            lines.push(if path.is_empty() {
                format!("{code}: {message}")
            } else {
                format!("{code} at {path}: {message}")
            });
        }
    }
    // SAFETY: e is NULL or live, and freed once here.
    unsafe { kuatia_error_free(e) };
    lines.join("\r\n")
}

/// A C-ABI status turned into the adapter's result, its error (if any) written into `err`.
///
/// # Safety
/// `e` is NULL or a live error; `err` is NULL or writable for `err_cap` bytes.
unsafe fn finish(
    status: kuatia_status,
    e: *mut kuatia_error,
    err: *mut c_char,
    err_cap: i32,
) -> i32 {
    if status != kuatia_status::Ok {
        // SAFETY: forwarded contract.
        unsafe { write_err(&take_error(e), err, err_cap) };
    }
    status as i32
}

/// A bad argument of the adapter: `KUATIA_STATUS_INVALID_ARGUMENT`, the error line written into `err`.
///
/// # Safety
/// `err` is NULL or writable for `err_cap` bytes.
unsafe fn bad_argument(arg: &str, why: &str, err: *mut c_char, err_cap: i32) -> i32 {
    let message = format!("{} at {arg}: {why}", kuatia_core::code::INVALID_ARGUMENT);
    // SAFETY: forwarded contract.
    unsafe { write_err(&message, err, err_cap) };
    INVALID_ARGUMENT
}

/// A buffer too small for a result: `KUATIA_STATUS_INVALID_ARGUMENT` with the size needed.
///
/// # Safety
/// `err` is NULL or writable for `err_cap` bytes.
unsafe fn too_small(arg: &str, need: usize, err: *mut c_char, err_cap: i32) -> i32 {
    let why = format!("the result needs {need} bytes (with the NUL); pass a larger buffer");
    // SAFETY: forwarded contract.
    unsafe { bad_argument(arg, &why, err, err_cap) }
}

/// The bytes of a buffer kuatia filled (empty when it was not).
fn filled(b: &kuatia_bytes) -> &[u8] {
    if b.ptr.is_null() {
        return &[];
    }
    // SAFETY: kuatia wrote len bytes at ptr (kuatia_bytes' contract).
    unsafe { std::slice::from_raw_parts(b.ptr, b.len) }
}

/// Copies the library version (`KUATIA_VERSION`) into `out`.
///
/// # Safety
/// `out` is NULL or writable for `cap` bytes.
#[no_mangle]
pub unsafe extern "system" fn kuatia_sc_version(out: *mut c_char, cap: i32) -> i32 {
    guard(PANIC, || {
        // SAFETY: forwarded contract.
        match unsafe { copy_out(env!("CARGO_PKG_VERSION").as_bytes(), out, cap) } {
            Ok(()) => 0,
            Err(_) => INVALID_ARGUMENT,
        }
    })
}

/// The check digit (0-9) of a RUC body (`80069563` gives 1) into `*dv`.
///
/// # Safety
/// `body` is a NUL-terminated string; `dv` is writable; `err` is NULL or writable for `err_cap` bytes.
#[no_mangle]
pub unsafe extern "system" fn kuatia_sc_ruc_dv(
    body: *const c_char,
    dv: *mut i32,
    err: *mut c_char,
    err_cap: i32,
) -> i32 {
    guard(PANIC, || {
        let mut digit = 0u8;
        let mut e = std::ptr::null_mut();
        // SAFETY: contract of this function.
        let (ptr, len) = unsafe { text(body) };
        let status = unsafe { crate::ids::kuatia_ruc_dv(ptr, len, &mut digit, &mut e) };
        if status == kuatia_status::Ok {
            // SAFETY: dv is writable when not NULL.
            match unsafe { dv.as_mut() } {
                Some(slot) => *slot = i32::from(digit),
                None => return unsafe { bad_argument("dv", "must not be NULL", err, err_cap) },
            }
        }
        // SAFETY: e is NULL or live; err per contract.
        unsafe { finish(status, e, err, err_cap) }
    })
}

/// The built-in sandbox signer (TEST ONLY: a self-signed certificate SIFEN refuses) into `*signer`; free it with
/// [`kuatia_sc_signer_free`].
///
/// # Safety
/// `signer` is writable; `err` is NULL or writable for `err_cap` bytes.
#[no_mangle]
pub unsafe extern "system" fn kuatia_sc_signer_sandbox(
    signer: *mut *mut kuatia_signer,
    err: *mut c_char,
    err_cap: i32,
) -> i32 {
    guard(PANIC, || {
        let mut e = std::ptr::null_mut();
        // SAFETY: contract of this function.
        let status = unsafe { kuatia_signer_sandbox(signer, &mut e) };
        unsafe { finish(status, e, err, err_cap) }
    })
}

/// A signer from a PKCS#12 file (`.p12`/`.pfx`, `p12_len` bytes at `p12`) and its password into `*signer`; free it
/// with [`kuatia_sc_signer_free`].
///
/// # Safety
/// `p12` is readable for `p12_len` bytes; `password` is a NUL-terminated string; `signer` is writable; `err` is
/// NULL or writable for `err_cap` bytes.
#[no_mangle]
pub unsafe extern "system" fn kuatia_sc_signer_from_p12(
    p12: *const u8,
    p12_len: i32,
    password: *const c_char,
    signer: *mut *mut kuatia_signer,
    err: *mut c_char,
    err_cap: i32,
) -> i32 {
    guard(PANIC, || {
        let Ok(len) = usize::try_from(p12_len) else {
            return unsafe { bad_argument("p12_len", "must not be negative", err, err_cap) };
        };
        let mut e = std::ptr::null_mut();
        // SAFETY: contract of this function.
        let (pw, pw_len) = unsafe { text(password) };
        let status = unsafe { kuatia_signer_from_p12(p12, len, pw, pw_len, signer, &mut e) };
        unsafe { finish(status, e, err, err_cap) }
    })
}

/// Frees a signer (its key is wiped). Accepts NULL.
///
/// # Safety
/// `signer` is NULL or a signer from this library, not used afterwards.
#[no_mangle]
pub unsafe extern "system" fn kuatia_sc_signer_free(signer: *mut kuatia_signer) {
    // SAFETY: forwarded contract.
    unsafe { kuatia_signer_free(signer) }
}

/// Issues one document like `kuatia_invoice_issue`: the request (JSON of `POST /v1/facturas`), the profile (JSON;
/// NULL or "" is the sandbox profile, TEST ONLY), the signer, `now` (`YYYY-MM-DDThh:mm:ss`, Paraguay time), the
/// document number and a random 9-digit security code (both positive). Copies the signed XML into `xml` and the
/// summary JSON (CDC, number, QR, totals) into `summary`. On failure `err` holds every finding.
///
/// # Safety
/// `request` and `now` are NUL-terminated strings; `profile` is NULL or one; `signer` is a live signer; `xml`,
/// `summary` and `err` are NULL or writable for their capacities.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C function's arguments plus the buffers VB6 passes
pub unsafe extern "system" fn kuatia_sc_invoice_issue(
    request: *const c_char,
    profile: *const c_char,
    signer: *const kuatia_signer,
    now: *const c_char,
    numero: i32,
    codigo_seguridad: i32,
    xml: *mut c_char,
    xml_cap: i32,
    summary: *mut c_char,
    summary_cap: i32,
    err: *mut c_char,
    err_cap: i32,
) -> i32 {
    guard(PANIC, || {
        let Ok(numero) = u32::try_from(numero) else {
            return unsafe { bad_argument("numero", "must not be negative", err, err_cap) };
        };
        let Ok(codigo) = u32::try_from(codigo_seguridad) else {
            return unsafe {
                bad_argument("codigo_seguridad", "must not be negative", err, err_cap)
            };
        };
        let empty = || kuatia_bytes {
            ptr: std::ptr::null_mut(),
            len: 0,
        };
        let (mut out_xml, mut out_json) = (empty(), empty());
        let mut e = std::ptr::null_mut();
        // SAFETY: contract of this function.
        let status = unsafe {
            let (req, req_len) = text(request);
            let (pro, pro_len) = optional_text(profile);
            let (now, now_len) = text(now);
            kuatia_invoice_issue(
                req,
                req_len,
                pro,
                pro_len,
                signer,
                now,
                now_len,
                numero,
                codigo,
                &mut out_xml,
                &mut out_json,
                &mut e,
            )
        };
        let result = if status == kuatia_status::Ok {
            // SAFETY: kuatia filled both buffers; the caller's buffers per contract.
            unsafe {
                match copy_out(filled(&out_xml), xml, xml_cap) {
                    Err(need) => too_small("xml", need, err, err_cap),
                    Ok(()) => match copy_out(filled(&out_json), summary, summary_cap) {
                        Err(need) => too_small("summary", need, err, err_cap),
                        Ok(()) => 0,
                    },
                }
            }
        } else {
            // SAFETY: e is live after a failure; err per contract.
            unsafe { finish(status, e, err, err_cap) }
        };
        // SAFETY: both are kuatia's buffers (or zeroed).
        unsafe {
            kuatia_bytes_free(&mut out_xml);
            kuatia_bytes_free(&mut out_json);
        }
        result
    })
}

//! Helpers shared by the C-ABI tests: result buffers taken and freed, error objects read and freed, the conformance
//! cases, the sandbox signer; `service` holds the set-up of the `kuatia_service` tests.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

pub mod service;

use kuatia::*;
use std::ffi::CStr;
use std::path::PathBuf;
use std::ptr::{null, null_mut};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn zero() -> kuatia_bytes {
    kuatia_bytes {
        ptr: null_mut(),
        len: 0,
    }
}

/// Takes a result buffer: checks the trailing NUL, copies it out and frees it.
pub fn take(mut b: kuatia_bytes) -> Vec<u8> {
    assert!(!b.ptr.is_null());
    let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len + 1) }.to_vec();
    assert_eq!(v.last(), Some(&0), "results are NUL-terminated");
    unsafe { kuatia_bytes_free(&mut b) };
    assert!(b.ptr.is_null() && b.len == 0, "free resets the buffer");
    v[..v.len() - 1].to_vec()
}

pub fn text(b: kuatia_bytes) -> String {
    String::from_utf8(take(b)).unwrap()
}

pub fn cstr(p: *const std::ffi::c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// Code, path and status of an error, then frees it.
pub fn err_parts(err: *mut kuatia_error) -> (kuatia_status, String, String) {
    assert!(
        !err.is_null(),
        "a failing call with err != NULL writes an error"
    );
    let parts = unsafe {
        (
            kuatia_error_status(err),
            cstr(kuatia_error_code(err)),
            cstr(kuatia_error_path(err)),
        )
    };
    unsafe { kuatia_error_free(err) };
    parts
}

pub const NOW: &str = "2025-03-10T10:11:00";

pub fn case(name: &str) -> serde_json::Value {
    let path = root()
        .join("tests/fixtures/cases")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn sandbox() -> *mut kuatia_signer {
    let mut s = null_mut();
    assert_eq!(
        unsafe { kuatia_signer_sandbox(&mut s, null_mut()) },
        kuatia_status::Ok
    );
    s
}

/// What `kuatia_invoice_issue` wrote: its status, the signed XML and the summary (empty unless Ok), the error.
pub struct Issued {
    pub status: kuatia_status,
    pub xml: kuatia_bytes,
    pub summary: kuatia_bytes,
    pub err: *mut kuatia_error,
}

/// `kuatia_invoice_issue` of `req` (no profile) signed by `signer` at `now`, number `numero`, security code `code`.
pub fn issue(
    req: &[u8],
    signer: *const kuatia_signer,
    now: &str,
    numero: u32,
    code: u32,
) -> Issued {
    let (mut xml, mut summary, mut err) = (zero(), zero(), null_mut());
    let now = now.as_bytes();
    let status = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            signer,
            now.as_ptr(),
            now.len(),
            numero,
            code,
            &mut xml,
            &mut summary,
            &mut err,
        )
    };
    Issued {
        status,
        xml,
        summary,
        err,
    }
}

/// `kuatia_invoice_validate` of `req` with an optional profile at `now`: the status, the report and the error.
pub fn validate(
    req: &[u8],
    profile: Option<&[u8]>,
    now: &[u8],
) -> (kuatia_status, kuatia_bytes, *mut kuatia_error) {
    let (mut out, mut err) = (zero(), null_mut());
    let (p, n) = profile.map_or((null(), 0), |p| (p.as_ptr(), p.len()));
    let st = unsafe {
        kuatia_invoice_validate(
            req.as_ptr(),
            req.len(),
            p,
            n,
            now.as_ptr(),
            now.len(),
            &mut out,
            &mut err,
        )
    };
    (st, out, err)
}

/// A signer from a PKCS#12 file or a PEM key and certificate: the status, the signer (NULL unless Ok), the error.
pub fn signer_from(source: SignerSource) -> (kuatia_status, *mut kuatia_signer, *mut kuatia_error) {
    let (mut s, mut err) = (null_mut(), null_mut());
    let st = match source {
        SignerSource::P12(p12, pass) => unsafe {
            kuatia_signer_from_p12(
                p12.as_ptr(),
                p12.len(),
                pass.as_ptr(),
                pass.len(),
                &mut s,
                &mut err,
            )
        },
        SignerSource::Pem(key, cert) => unsafe {
            kuatia_signer_from_pem(
                key.as_ptr(),
                key.len(),
                cert.as_ptr(),
                cert.len(),
                &mut s,
                &mut err,
            )
        },
    };
    (st, s, err)
}

/// Where [`signer_from`] reads a signer: a PKCS#12 file and its password, or a PEM key and certificate.
pub enum SignerSource<'a> {
    P12(&'a [u8], &'a [u8]),
    Pem(&'a [u8], &'a [u8]),
}

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

//! The language of messages: an error's findings and a report's findings rendered from their rules in the language
//! the host asks for, per call (no thread-local or global state: a goroutine changes OS threads). The accessors
//! without a language (`kuatia_error_message`, `kuatia_error_json`, `kuatia_error_finding`) answer in Spanish of
//! Paraguay (`es-PY`), the default; every finding kuatia builds has a rule, so every message can be rendered again.

use crate::abi::{
    call, guard, json_arg, kuatia_bytes, kuatia_error, kuatia_status, out, put, put_json, text_in,
};
use kuatia_core::msg::Lang;
use serde_json::Value;
use std::ffi::{c_char, CStr};

/// The language a C string names (`es`, `es-PY`, `es_PY.UTF-8`, `en`, `en-US`, case insensitive): NULL, invalid
/// UTF-8 or any other tag is Spanish of Paraguay, the default.
///
/// # Safety
/// `lang` is NULL or a NUL-terminated string.
pub(crate) unsafe fn lang_in(lang: *const c_char) -> Lang {
    if lang.is_null() {
        return Lang::default();
    }
    // SAFETY: not NULL and NUL-terminated, by contract.
    let bytes = unsafe { CStr::from_ptr(lang) }.to_bytes();
    std::str::from_utf8(bytes)
        .ok()
        .and_then(Lang::parse)
        .unwrap_or_default()
}

/// Every finding as a JSON array `[{"code","path","message","rule","params"}]` with the messages in `lang` (`"es"`,
/// `"es-PY"`, `"en"`, `"en-US"`, …; NULL or an unknown tag: `es-PY`). `rule` is the stable id of the rule that found
/// the problem (docs/errors.md, "Rules"), `params` its parameters (absent when it has none). Owned by `err`, rendered once per language; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia; `lang` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_json_in(
    err: *const kuatia_error,
    lang: *const c_char,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: NULL or live, by contract.
        let Some(e) = (unsafe { err.as_ref() }) else {
            return std::ptr::null();
        };
        // SAFETY: NULL or NUL-terminated, by contract.
        e.rendered(unsafe { lang_in(lang) }).json.as_ptr()
    })
}

/// Message of the first problem in `lang` (as [`kuatia_error_json_in`]). Owned by `err`; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia; `lang` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_message_in(
    err: *const kuatia_error,
    lang: *const c_char,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: NULL or live, by contract.
        let Some(e) = (unsafe { err.as_ref() }) else {
            return std::ptr::null();
        };
        // SAFETY: NULL or NUL-terminated, by contract.
        e.rendered(unsafe { lang_in(lang) }).message.as_ptr()
    })
}

/// Stable rule id of the first problem (`ruc.check_digit`, docs/errors.md). Owned by `err`; NULL when `err` is NULL.
///
/// # Safety
/// `err` is NULL or a live error from kuatia.
#[no_mangle]
pub unsafe extern "C" fn kuatia_error_rule(err: *const kuatia_error) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: NULL or live, by contract.
        unsafe { err.as_ref() }.map_or(std::ptr::null(), |e| e.rule().as_ptr())
    })
}

/// Renders again in `lang` (as [`kuatia_error_json_in`]) every finding inside a JSON document kuatia returned: a
/// report such as `kuatia_invoice_validate`'s `{"ok","errors":[…]}` or `kuatia_xml_verify`'s, a
/// findings array, or any object holding findings at any depth. A finding is an object with a registered `rule`, its
/// `params` and a `message`; its `message` is replaced (core's `error::localize_value`, the one way every face does
/// it). Writes the document to `out_json`: as read when no message changes, else written again with its keys in
/// sorted order. Fails with `MALFORMED_JSON` when `report_json` is not JSON.
///
/// # Safety
/// `report_json` points to `report_len` readable bytes; `lang` is NULL or a NUL-terminated string; `out_json` is
/// writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_findings_localize(
    report_json: *const u8,
    report_len: usize,
    lang: *const c_char,
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let text = unsafe { text_in(report_json, report_len, "report_json") }?;
        let lang = unsafe { lang_in(lang) };
        let slot = unsafe { out(out_json, "out_json") }?;
        // Text that is not JSON is refused, not echoed; the document is parsed once.
        let mut report: Value = json_arg(text, "report_json")?;
        if kuatia_core::error::localize_value(&mut report, lang) {
            put_json(slot, &report)
        } else {
            put(slot, text);
            Ok(())
        }
    })
}

/// The registry of rules a finding can name, as JSON `[{"rule","code","params":[{"name","kind"}]}]` (core's
/// `rule::ALL`, the list `tests/fixtures/rules.json` records and docs/errors.md documents), into `out_json`: what a
/// host needs to write its own text for a finding from its `rule` and `params`.
///
/// # Safety
/// `out_json` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_rules(
    out_json: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let slot = unsafe { out(out_json, "out_json") }?;
        put(slot, kuatia_core::rule::all_json());
        Ok(())
    })
}

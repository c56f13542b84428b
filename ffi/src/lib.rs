//! C ABI of kuatia: a thin face over `kuatia-core` that only converts types and errors.
//!
//! Conventions (see `include/kuatia.h`, generated from this crate by cbindgen):
//! - every function returns a [`kuatia_status`] (fixed numbers, never renumbered) and takes an optional
//!   `kuatia_error **err`, written only on failure, with the code, message, path and every finding;
//! - inputs are `(const uint8_t *ptr, size_t len)` UTF-8, checked, at most [`KUATIA_MAX_INPUT_LEN`] bytes;
//! - results are owned [`kuatia_bytes`] (NUL-terminated too) freed with [`kuatia_bytes_free`]; out-parameters
//!   are written only on success; every `_free` accepts NULL;
//! - every export runs inside one panic boundary ([`abi`]'s `call`/`guard`), so a bug returns
//!   `KUATIA_STATUS_PANIC` instead of unwinding into C;
//! - no thread-local state: a [`kuatia_signer`] or a [`kuatia_service`] may be shared by threads; everything else
//!   is per call.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
pub mod ids;
pub mod invoice;
pub mod kude;
pub mod lang;
pub mod qr;
#[cfg(feature = "service")]
pub mod service;
pub mod sifen;
pub mod sign;
// `stdcall` entry points for 32-bit Windows hosts (VB6, Visual FoxPro): `kuatia_sc_*`, Windows builds only.
#[cfg(windows)]
pub mod stdcall;

pub use abi::{
    kuatia_bytes, kuatia_bytes_free, kuatia_error, kuatia_error_code, kuatia_error_codes,
    kuatia_error_count, kuatia_error_finding, kuatia_error_free, kuatia_error_json,
    kuatia_error_message, kuatia_error_path, kuatia_error_status, kuatia_status,
    KUATIA_MAX_INPUT_LEN,
};
pub use ids::{kuatia_cdc_build, kuatia_cdc_parse, kuatia_ruc_check, kuatia_ruc_dv};
pub use invoice::{
    kuatia_invoice_issue, kuatia_invoice_numbering_key, kuatia_invoice_preview_xml,
    kuatia_invoice_totals, kuatia_invoice_validate,
};
pub use kude::{kuatia_kude_format, kuatia_kude_pdf};
pub use lang::{
    kuatia_error_json_in, kuatia_error_message_in, kuatia_error_rule, kuatia_findings_localize,
    kuatia_rules,
};
pub use qr::{kuatia_qr_build, kuatia_qr_parse};
#[cfg(feature = "service")]
pub use service::{
    kuatia_service, kuatia_service_create_account, kuatia_service_create_key,
    kuatia_service_due_deliveries, kuatia_service_due_sifen, kuatia_service_free,
    kuatia_service_handle, kuatia_service_new, kuatia_service_report_delivery,
    kuatia_service_report_sifen, kuatia_service_set_production_profile, kuatia_service_tick,
    kuatia_sifen_outcome, KUATIA_SEED_LEN,
};
pub use sifen::{
    kuatia_sifen_describe, kuatia_sifen_describe_in, kuatia_sifen_event_sign,
    kuatia_sifen_parse_response, kuatia_sifen_request,
};
pub use sign::{
    kuatia_signer, kuatia_signer_free, kuatia_signer_from_p12, kuatia_signer_from_pem,
    kuatia_signer_sandbox, kuatia_xml_sign, kuatia_xml_verify,
};

/// The library version (`KUATIA_VERSION`) as a static NUL-terminated string; never freed. It starts with
/// `KUATIA_ABI_VERSION` and a dot, so a program can check that the library it loaded has the ABI it was built for.
#[no_mangle]
pub extern "C" fn kuatia_version() -> *const std::ffi::c_char {
    abi::guard(std::ptr::null(), || {
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
    })
}

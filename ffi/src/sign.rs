//! Signers (opaque handles), XMLDSig signing and verification.

use crate::abi::{
    bytes_in, call, guard, kuatia_bytes, kuatia_error, kuatia_status, opt_text_in, out, put,
    put_json, text_in, Error,
};
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify, SoftwareSigner};

/// A signing key and its certificate. Immutable once created: one signer may be used by any number of threads
/// at the same time (it is `Send + Sync`). Free it with `kuatia_signer_free`, once, after every call that uses it has
/// returned.
#[allow(non_camel_case_types)]
pub struct kuatia_signer {
    pub(crate) inner: SoftwareSigner,
}

fn deliver(slot: &mut *mut kuatia_signer, inner: SoftwareSigner) {
    *slot = Box::into_raw(Box::new(kuatia_signer { inner }));
}

/// Loads a signer from PKCS#12 (`.p12` / `.pfx`) bytes and their UTF-8 password (RSA ≥ 2048 bits). Fails with
/// `KUATIA_STATUS_SIGN_ERROR` and `P12_INVALID`, `P12_WRONG_PASSWORD`, `KEY_UNSUPPORTED`, ... The password is only
/// read during the call; kuatia keeps no copy of it.
///
/// # Safety
/// `p12` points to `p12_len` readable bytes, `password` to `password_len`; `out_signer` is writable; `err` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_signer_from_p12(
    p12: *const u8,
    p12_len: usize,
    password: *const u8,
    password_len: usize,
    out_signer: *mut *mut kuatia_signer,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let der = unsafe { bytes_in(p12, p12_len, "p12") }?;
        let password = unsafe { text_in(password, password_len, "password") }?;
        let slot = unsafe { out(out_signer, "out_signer") }?;
        deliver(slot, SoftwareSigner::from_pkcs12(der, password)?);
        Ok(())
    })
}

/// Loads a signer from an unencrypted PEM private key (`PRIVATE KEY` or `RSA PRIVATE KEY`) and a PEM certificate.
///
/// # Safety
/// `key_pem` and `cert_pem` point to readable bytes of the given lengths; `out_signer` is writable; `err` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_signer_from_pem(
    key_pem: *const u8,
    key_len: usize,
    cert_pem: *const u8,
    cert_len: usize,
    out_signer: *mut *mut kuatia_signer,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let key = unsafe { text_in(key_pem, key_len, "key_pem") }?;
        let cert = unsafe { text_in(cert_pem, cert_len, "cert_pem") }?;
        let slot = unsafe { out(out_signer, "out_signer") }?;
        deliver(slot, SoftwareSigner::from_pem(key, cert)?);
        Ok(())
    })
}

/// TEST ONLY: the public, committed sandbox key and self-signed certificate (RUC 44444401-7). SIFEN rejects its
/// signatures; it exists so tests and the sandbox profile produce reproducible documents.
///
/// # Safety
/// `out_signer` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_signer_sandbox(
    out_signer: *mut *mut kuatia_signer,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let slot = unsafe { out(out_signer, "out_signer") }?;
        deliver(slot, sandbox_test_signer()?);
        Ok(())
    })
}

/// Frees a signer (its key is wiped). Accepts NULL.
///
/// # Safety
/// `signer` is NULL or a signer from kuatia, not yet freed and no longer in use by any thread.
#[no_mangle]
pub unsafe extern "C" fn kuatia_signer_free(signer: *mut kuatia_signer) {
    guard((), || {
        if !signer.is_null() {
            // SAFETY: created by Box::into_raw in `deliver`, freed once by contract.
            drop(unsafe { Box::from_raw(signer) });
        }
    })
}

/// Signs the element whose `Id` attribute equals `id` with an enveloped XMLDSig signature (SIFEN profile:
/// RSA-SHA256, exclusive C14N) and writes the document with the `Signature` inserted after that element.
///
/// # Safety
/// `xml` and `id` point to readable bytes of the given lengths; `signer` is a live signer; `out_xml` is writable;
/// `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_xml_sign(
    xml: *const u8,
    xml_len: usize,
    id: *const u8,
    id_len: usize,
    signer: *const kuatia_signer,
    out_xml: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let xml = unsafe { text_in(xml, xml_len, "xml") }?;
        let id = unsafe { text_in(id, id_len, "id") }?;
        let signer = unsafe { signer.as_ref() }.ok_or_else(|| Error::null("signer"))?;
        let slot = unsafe { out(out_xml, "out_xml") }?;
        put(slot, sign_element(xml, id, &signer.inner)?.xml);
        Ok(())
    })
}

/// Verifies the first XMLDSig signature of `xml` and writes the report as JSON (`valid`, `reference_id`,
/// `digest_ok`, `signature_ok`, `certificate`, `certificate_valid_at`, `error`). An invalid signature is still
/// `KUATIA_STATUS_OK` (the report says why); `*out_valid` tells the verdict. `at` (NULL: not checked) is a Paraguay
/// local time `YYYY-MM-DDThh:mm:ss` at which the certificate must have been valid.
///
/// # Safety
/// `xml` points to `xml_len` readable bytes, `at` is NULL or points to `at_len`; `out_report` and `out_valid` are
/// writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_xml_verify(
    xml: *const u8,
    xml_len: usize,
    at: *const u8,
    at_len: usize,
    out_valid: *mut bool,
    out_report: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let xml = unsafe { text_in(xml, xml_len, "xml") }?;
        let at = match unsafe { opt_text_in(at, at_len, "at") }? {
            None => None,
            Some(t) => Some(kuatia_core::fmt::datetime_at(t, "at").map_err(Error::from)?),
        };
        let valid_slot = unsafe { out(out_valid, "out_valid") }?;
        let slot = unsafe { out(out_report, "out_report") }?;
        let report = verify(xml, at);
        put_json(slot, &report)?;
        *valid_slot = report.valid;
        Ok(())
    })
}

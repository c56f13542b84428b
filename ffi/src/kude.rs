//! The KuDE (printed representation) of a signed DE as PDF.

use crate::abi::{call, kuatia_bytes, kuatia_error, kuatia_status, out, put, text_in};
use kuatia_core::kude::{Formato, KudeOptions};

/// Paper format of the KuDE. The numbers are part of the ABI.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum kuatia_kude_format {
    /// A4 portrait, paginated.
    A4 = 0,
    /// 80 mm receipt roll, one long page.
    Ticket = 1,
}

/// Renders the KuDE of a signed `rDE` (with its `gCamFuFD/dCarQR`, as [`crate::invoice::kuatia_invoice_issue`]
/// writes it) as a PDF. `preview` draws a "not valid" watermark for documents SIFEN has not approved yet.
/// Fails with `INVALID_INPUT` (`MALFORMED_XML`, or `VALIDATION_ERROR.REQUIRED` at `dCarQR` when the QR is missing).
///
/// # Safety
/// `xml` points to `xml_len` readable bytes; `out_pdf` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_kude_pdf(
    xml: *const u8,
    xml_len: usize,
    format: kuatia_kude_format,
    preview: bool,
    out_pdf: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        // SAFETY: contract of this function.
        let xml = unsafe { text_in(xml, xml_len, "xml") }?;
        let slot = unsafe { out(out_pdf, "out_pdf") }?;
        let de = kuatia_core::xml::parse(xml)?;
        let dcarqr = kuatia_core::xml::extract_qr(xml).unwrap_or_default();
        let opts = KudeOptions {
            formato: match format {
                kuatia_kude_format::A4 => Formato::A4,
                kuatia_kude_format::Ticket => Formato::Ticket,
            },
            preview,
            ..KudeOptions::default()
        };
        put(slot, kuatia_core::kude::pdf(&de, &dcarqr, &opts)?);
        Ok(())
    })
}

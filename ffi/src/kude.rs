//! The KuDE (printed representation) of a signed DE as PDF.

use crate::abi::{call, kuatia_bytes, kuatia_error, kuatia_status, out, put, text_in, Error};
use kuatia_core::kude::{Formato, KudeOptions};

/// Paper format of the KuDE. The numbers are part of the ABI; [`kuatia_kude_pdf`] takes them as a `uint32_t` (a C enum
/// is an `int`, and any number may arrive from a binding: an unknown one is an error, not undefined behaviour).
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
/// `format` is a [`kuatia_kude_format`] (0 A4, 1 ticket); another number fails with `INVALID_ARGUMENT` at `format`.
/// Fails with `INVALID_INPUT` (`MALFORMED_XML`, or `VALIDATION_ERROR.REQUIRED` at `dCarQR` when the QR is missing).
///
/// # Safety
/// `xml` points to `xml_len` readable bytes; `out_pdf` is writable; `err` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn kuatia_kude_pdf(
    xml: *const u8,
    xml_len: usize,
    format: u32,
    preview: bool,
    out_pdf: *mut kuatia_bytes,
    err: *mut *mut kuatia_error,
) -> kuatia_status {
    call(err, || {
        let formato = match format {
            f if f == kuatia_kude_format::A4 as u32 => Formato::A4,
            f if f == kuatia_kude_format::Ticket as u32 => Formato::Ticket,
            f => {
                return Err(Error::of(
                    kuatia_status::InvalidArgument,
                    kuatia_core::rule::host_arg_enum(
                        "format",
                        "format",
                        &f.to_string(),
                        &["0 A4", "1 ticket"],
                    ),
                ))
            }
        };
        // SAFETY: contract of this function.
        let xml = unsafe { text_in(xml, xml_len, "xml") }?;
        let slot = unsafe { out(out_pdf, "out_pdf") }?;
        let de = kuatia_core::xml::parse(xml)?;
        let dcarqr = kuatia_core::xml::extract_qr(xml).unwrap_or_default();
        let opts = KudeOptions {
            formato,
            preview,
            ..KudeOptions::default()
        };
        put(slot, kuatia_core::kude::pdf(&de, &dcarqr, &opts)?);
        Ok(())
    })
}

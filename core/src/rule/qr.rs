//! Rules of the QR text `dCarQR` (core/src/qr.rs) and of putting it into the signed document. Catalogs:
//! `core/locales/<lang>/qr.ftl`.

rules! {
    /// The QR text does not start with one of SIFEN's QR base URLs.
    qr_base_url / QR_BASE_URL = "qr.base_url" => INVALID_FORMAT {};
    /// The QR text has fewer than its 10 parameters.
    qr_param_count / QR_PARAM_COUNT = "qr.param_count" => INVALID_FORMAT {};
    /// The QR text has a parameter after `cHashQR`.
    qr_extra_param / QR_EXTRA_PARAM = "qr.extra_param" => INVALID_FORMAT {};
    /// The QR text has another parameter where `name` goes.
    qr_param / QR_PARAM = "qr.param" => INVALID_FORMAT { name: Text = "dTotGralOpe" };
    /// The QR's `Id` is not a 44-character CDC.
    qr_cdc / QR_CDC = "qr.cdc" => INVALID_FORMAT {};
    /// The QR's `cItems` is not a number.
    qr_items / QR_ITEMS = "qr.items" => INVALID_FORMAT {};
    /// The QR's `IdCSC` is not 4 digits.
    qr_csc_id / QR_CSC_ID = "qr.csc_id" => INVALID_FORMAT {};
    /// The QR's `cHashQR` is not 64 lowercase hexadecimal digits.
    qr_hash / QR_HASH = "qr.hash" => INVALID_FORMAT {};
    /// A QR parameter written in hexadecimal (`dFeEmiDE`, `DigestValue`) is not lowercase hex of UTF-8 text.
    qr_hex / QR_HEX = "qr.hex" => INVALID_FORMAT { name: Text = "DigestValue" };
    /// The signed document has no `</rDE>` to put the QR before.
    qr_no_rde / QR_NO_RDE = "qr.no_rde" => MALFORMED_XML {};
}

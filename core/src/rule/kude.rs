//! Rules of the KuDE, the printed form of a document ([`crate::kude`]): its QR and the issuer's logo. Catalogs:
//! `core/locales/<lang>/kude.ftl`.

rules! {
    /// The embedded font of the KuDE cannot be read (a defect of the build, not of the input).
    kude_font / KUDE_FONT = "kude.font" => VALIDATION_ERROR {};
    /// The QR text (`dCarQR`) is missing.
    kude_qr_missing / KUDE_QR_MISSING = "kude.qr_missing" => REQUIRED {};
    /// The QR text cannot be encoded as a QR symbol; `detail` is the encoder's explanation (English).
    kude_qr / KUDE_QR = "kude.qr" => INVALID_VALUE { detail: Text = "data too long" };
    /// The logo is not a JPEG or PNG image kuatia reads; `detail` says what is wrong (English).
    kude_logo / KUDE_LOGO = "kude.logo" => INVALID_VALUE { detail: Text = "truncated PNG header" };
    /// The logo's dimensions are zero or larger than the largest side squared.
    kude_logo_size / KUDE_LOGO_SIZE = "kude.logo_size" => INVALID_VALUE { side: Int = "4096" };
}

//! Rules of signing, key loading, certificates and signature verification ([`crate::sign`]): `sign.*` for keys,
//! signatures and the signed element, `cert.*` for the certificate. A parameter never holds a password or key bytes.
//! Catalogs: `core/locales/<lang>/sign.ftl`.

rules! {
    /// No element carries the `Id` to sign or verify.
    sign_id_missing / SIGN_ID_MISSING = "sign.id_missing" => ELEMENT_NOT_FOUND { id: Text = "rEve1" };
    /// Several elements carry the referenced `Id` (a signature-wrapping trick).
    sign_id_duplicate / SIGN_ID_DUPLICATE = "sign.id_duplicate" => DUPLICATE_ID { count: Int = "2" };
    /// Not a PKCS#12 file, or a structure or algorithm the reader does not support; `detail` says which (English).
    sign_p12_invalid / SIGN_P12_INVALID = "sign.p12_invalid" => P12_INVALID { detail: Text = "unsupported PFX version" };
    /// The password does not open the PKCS#12 file.
    sign_p12_password / SIGN_P12_PASSWORD = "sign.p12_password" => P12_WRONG_PASSWORD {};
    /// The PKCS#12 file holds no private key.
    sign_p12_no_key / SIGN_P12_NO_KEY = "sign.p12_no_key" => P12_NO_PRIVATE_KEY {};
    /// The PKCS#12 file holds no certificate.
    sign_p12_no_cert / SIGN_P12_NO_CERT = "sign.p12_no_cert" => P12_NO_CERTIFICATE {};
    /// A PEM private key cannot be read; `detail` says why (English).
    sign_key_invalid / SIGN_KEY_INVALID = "sign.key_invalid" => KEY_INVALID { detail: Text = "no PEM block" };
    /// The key is not an RSA key of 2048 bits or more; `reason` is a term `sign-key-*` (or a signer's own text).
    sign_key_unsupported / SIGN_KEY_UNSUPPORTED = "sign.key_unsupported" => KEY_UNSUPPORTED { reason: Term = "sign-key-ec" };
    /// The private key does not belong to the certificate.
    sign_key_cert_mismatch / SIGN_KEY_CERT_MISMATCH = "sign.key_cert_mismatch" => KEY_CERT_MISMATCH {};
    /// The signer could not sign; `detail` is the signer's own explanation.
    sign_failed / SIGN_FAILED = "sign.failed" => SIGNATURE_FAILED { detail: Text = "RSA signing failed" };
    /// The document has no XMLDSig `Signature`.
    sign_missing / SIGN_MISSING = "sign.missing" => SIGNATURE_MISSING {};
    /// The `Signature` has no `SignedInfo`.
    sign_signed_info_missing / SIGN_SIGNED_INFO_MISSING = "sign.signed_info_missing" => SIGNATURE_MALFORMED {};
    /// `SignedInfo` does not hold exactly one `Reference`.
    sign_reference_count / SIGN_REFERENCE_COUNT = "sign.reference_count" => SIGNATURE_MALFORMED {};
    /// The `Reference` URI is not `#` and the signed element's `Id`.
    sign_reference_uri / SIGN_REFERENCE_URI = "sign.reference_uri" => SIGNATURE_MALFORMED {};
    /// An element of the `Signature` that holds base64 (`DigestValue`, `SignatureValue`, the certificate) is missing
    /// or is not base64.
    sign_value_missing / SIGN_VALUE_MISSING = "sign.value_missing" => SIGNATURE_MALFORMED { element: Text = "DigestValue" };
    /// An algorithm of the `Signature` (canonicalization, signature, transform, digest) is not supported.
    sign_algorithm / SIGN_ALGORITHM = "sign.algorithm" => UNSUPPORTED_ALGORITHM { element: Text = "DigestMethod", uri: Text = "http://www.w3.org/2000/09/xmldsig#sha1" };
    /// The signed element does not hash to `DigestValue`: it was changed after signing.
    sign_digest / SIGN_DIGEST = "sign.digest" => DIGEST_MISMATCH { id: Text = "rEve1" };
    /// `SignatureValue` does not verify with the certificate's key.
    sign_invalid / SIGN_INVALID = "sign.invalid" => SIGNATURE_INVALID {};
    /// The certificate cannot be read; `detail` says why (English, from the X.509 reader).
    cert_invalid / CERT_INVALID = "cert.invalid" => CERTIFICATE_INVALID { detail: Text = "no PEM block" };
    /// The certificate is not valid yet at the time given (both RFC 3339).
    cert_not_yet_valid / CERT_NOT_YET_VALID = "cert.not_yet_valid" => CERTIFICATE_NOT_YET_VALID { not_before: Text = "2026-01-01T00:00:00-03:00", at: Text = "2025-12-31T10:00:00-03:00" };
    /// The certificate has expired at the time given (both RFC 3339).
    cert_expired / CERT_EXPIRED = "cert.expired" => CERTIFICATE_EXPIRED { not_after: Text = "2025-01-01T00:00:00-03:00", at: Text = "2025-03-10T10:00:00-03:00" };
    /// The certificate carries no RUC in a `serialNumber` of its subject or SubjectAltName.
    cert_ruc_missing / CERT_RUC_MISSING = "cert.ruc_missing" => CERTIFICATE_RUC_MISSING {};
    /// The certificate's RUC is not the emitter's.
    cert_ruc_mismatch / CERT_RUC_MISMATCH = "cert.ruc_mismatch" => CERTIFICATE_RUC_MISMATCH { certificate: Text = "80069563-1", emitter: Text = "44444401-7" };
    /// The certificate's key is not an RSA key, so the signature cannot be verified.
    cert_key_not_rsa / CERT_KEY_NOT_RSA = "cert.key_not_rsa" => UNSUPPORTED_ALGORITHM {};
    /// The certificate's RSA public key is not verified; `reason` is a term `cert-rsa-*`.
    cert_rsa_key / CERT_RSA_KEY = "cert.rsa_key" => CERTIFICATE_INVALID { reason: Term = "cert-rsa-unreadable" };
    /// The certificate's RSA key size is outside what is verified.
    cert_rsa_bits / CERT_RSA_BITS = "cert.rsa_bits" => KEY_UNSUPPORTED { bits: Int = "1024", min: Int = "2048", max: Int = "8192" };
}

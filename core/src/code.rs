//! The one registry of error codes: every code any face of kuatia (Rust, C, WebAssembly, the bindings, the CLI and
//! `kuatia serve`) can return, with what it means. Codes never change meaning once published; faces translate
//! statuses, never codes. [`ALL`] lists them in order; docs/errors.md, the C header and every binding's `codes()` are
//! checked against it by tests.

macro_rules! registry {
    ($( $(#[doc = $doc:literal])+ $name:ident = $value:literal; )+) => {
        $( $(#[doc = $doc])+ pub const $name: &str = $value; )+
        /// Every registered code with its one-line meaning, in registry order.
        pub const ALL: &[(&str, &str)] = &[ $( ($value, concat!($($doc),+)) ),+ ];
    };
}

registry! {
    // Input shape and validation (every face).
    /// A RUC is malformed (not `digits-DV`) or its check digit is wrong.
    INVALID_RUC = "INVALID_RUC";
    /// The stamp (timbrado) is missing, expired, not yet valid or does not cover the document type, establishment or point.
    INVALID_TIMBRADO = "INVALID_TIMBRADO";
    /// A CDC is malformed or its check digit is wrong.
    INVALID_CDC = "INVALID_CDC";
    /// Generic validation failure of a field (the message says which rule).
    VALIDATION_ERROR = "VALIDATION_ERROR";
    /// A required field is absent.
    REQUIRED = "VALIDATION_ERROR.REQUIRED";
    /// A field has the wrong JSON type or cannot be read (e.g. letters where a number goes).
    INVALID_TYPE = "VALIDATION_ERROR.INVALID_TYPE";
    /// A field is not in its allowed set of values (codes, enumerations).
    INVALID_VALUE = "VALIDATION_ERROR.INVALID_VALUE";
    /// A number is out of its allowed range (negative, zero, too many digits or decimals).
    OUT_OF_RANGE = "VALIDATION_ERROR.OUT_OF_RANGE";
    /// A text is too short, too long or has a bad format.
    INVALID_FORMAT = "VALIDATION_ERROR.INVALID_FORMAT";
    /// A field is present where the document type or another field forbids it (or is unknown).
    NOT_ALLOWED = "VALIDATION_ERROR.NOT_ALLOWED";
    /// Fields contradict each other (e.g. payments do not add up to the total, a CDC of another emitter).
    INCONSISTENT = "VALIDATION_ERROR.INCONSISTENT";
    /// The input is not valid JSON (or not UTF-8); the message gives the line and column.
    MALFORMED_JSON = "MALFORMED_JSON";
    /// The input is not well-formed XML or not the expected SIFEN document.
    MALFORMED_XML = "MALFORMED_XML";
    /// The input exceeds a size or count limit.
    TOO_LARGE = "TOO_LARGE";

    // Numbering (every host's document-number store).
    /// The numbering state (file or database) cannot be read or is damaged; it is never reset silently.
    NUMBERING_STATE_CORRUPT = "NUMBERING_STATE_CORRUPT";
    /// The numbering state cannot be written or synced (disk full, read-only, locked); nothing was issued.
    NUMBERING_UNAVAILABLE = "NUMBERING_UNAVAILABLE";
    /// A sequence reached 9 999 999: a new stamp or series is needed.
    NUMBERING_EXHAUSTED = "NUMBERING_EXHAUSTED";
    /// A number was confirmed that was never reserved, or confirmed twice.
    NUMBER_NOT_RESERVED = "NUMBER_NOT_RESERVED";

    // Keys, certificates and signatures.
    /// The input is not a PKCS#12 file or cannot be read.
    P12_INVALID = "P12_INVALID";
    /// The PKCS#12 password is wrong (integrity check or decryption fails).
    P12_WRONG_PASSWORD = "P12_WRONG_PASSWORD";
    /// The PKCS#12 file holds no private key.
    P12_NO_PRIVATE_KEY = "P12_NO_PRIVATE_KEY";
    /// The PKCS#12 file holds no certificate.
    P12_NO_CERTIFICATE = "P12_NO_CERTIFICATE";
    /// A PEM private key cannot be read.
    KEY_INVALID = "KEY_INVALID";
    /// The key is not RSA, or shorter than 2048 bits.
    KEY_UNSUPPORTED = "KEY_UNSUPPORTED";
    /// The private key does not belong to the certificate.
    KEY_CERT_MISMATCH = "KEY_CERT_MISMATCH";
    /// The signer failed to produce a signature (token removed, HSM down).
    SIGNATURE_FAILED = "SIGNATURE_FAILED";
    /// The certificate cannot be parsed.
    CERTIFICATE_INVALID = "CERTIFICATE_INVALID";
    /// The certificate's validity starts after the given time.
    CERTIFICATE_NOT_YET_VALID = "CERTIFICATE_NOT_YET_VALID";
    /// The certificate's validity ended before the given time.
    CERTIFICATE_EXPIRED = "CERTIFICATE_EXPIRED";
    /// The certificate carries no RUC (subject or SubjectAltName serialNumber).
    CERTIFICATE_RUC_MISSING = "CERTIFICATE_RUC_MISSING";
    /// The certificate's RUC is not the emitter's.
    CERTIFICATE_RUC_MISMATCH = "CERTIFICATE_RUC_MISMATCH";
    /// Production issuing needs a certificate and none is loaded.
    CERTIFICATE_MISSING = "CERTIFICATE_MISSING";
    /// The document has no XMLDSig `Signature`.
    SIGNATURE_MISSING = "SIGNATURE_MISSING";
    /// The `Signature` lacks required parts or has bad base64.
    SIGNATURE_MALFORMED = "SIGNATURE_MALFORMED";
    /// The referenced element does not hash to the `DigestValue`.
    DIGEST_MISMATCH = "DIGEST_MISMATCH";
    /// The `SignatureValue` does not verify with the certificate's key.
    SIGNATURE_INVALID = "SIGNATURE_INVALID";
    /// An algorithm or transform outside the SIFEN profile (NT-016).
    UNSUPPORTED_ALGORITHM = "UNSUPPORTED_ALGORITHM";
    /// No element carries the `Id` to sign or verify.
    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND";
    /// Several elements carry the same `Id` (would allow signature-wrapping tricks).
    DUPLICATE_ID = "DUPLICATE_ID";

    // SIFEN web services and events.
    /// The answer is not a SIFEN SOAP message (HTML gateway page, empty body, truncated XML, wrong root...).
    SIFEN_UNEXPECTED_RESPONSE = "SIFEN_UNEXPECTED_RESPONSE";
    /// The answer is a SOAP Fault.
    SIFEN_SOAP_FAULT = "SIFEN_SOAP_FAULT";
    /// A request identifier (`dId`) or event `Id` is out of range.
    SIFEN_INVALID_ID = "SIFEN_INVALID_ID";
    /// The request exceeds SIFEN's message size limit.
    SIFEN_MESSAGE_TOO_LARGE = "SIFEN_MESSAGE_TOO_LARGE";
    /// A document to send has no XMLDSig `Signature`.
    SIFEN_DE_UNSIGNED = "SIFEN_DE_UNSIGNED";
    /// A document to send has no `gCamFuFD/dCarQR` (SIFEN answers 0160).
    SIFEN_DE_WITHOUT_QR = "SIFEN_DE_WITHOUT_QR";
    /// A lot has no document.
    SIFEN_LOT_EMPTY = "SIFEN_LOT_EMPTY";
    /// A lot has more than 50 documents.
    SIFEN_LOT_TOO_MANY = "SIFEN_LOT_TOO_MANY";
    /// A lot mixes emitter RUCs.
    SIFEN_LOT_MIXED_RUC = "SIFEN_LOT_MIXED_RUC";
    /// A lot mixes document types.
    SIFEN_LOT_MIXED_TYPE = "SIFEN_LOT_MIXED_TYPE";
    /// A lot holds the same CDC twice (SIFEN blocks the emitter for it).
    SIFEN_LOT_DUPLICATE_CDC = "SIFEN_LOT_DUPLICATE_CDC";
    /// An event request has no event or more than 15.
    SIFEN_EVENT_COUNT = "SIFEN_EVENT_COUNT";
    /// Two events of one request share an `Id`.
    SIFEN_EVENT_DUPLICATE_ID = "SIFEN_EVENT_DUPLICATE_ID";
    /// An event field breaks its rule (length, range, format, consistency); the message says which.
    SIFEN_EVENT_INVALID = "SIFEN_EVENT_INVALID";
    /// The cancellation window (48 h FE, 168 h others, from approval) has passed.
    SIFEN_CANCEL_WINDOW_EXPIRED = "SIFEN_CANCEL_WINDOW_EXPIRED";
    /// An inutilización range is reversed or longer than 1000 numbers.
    SIFEN_INUTILIZACION_RANGE = "SIFEN_INUTILIZACION_RANGE";
    /// The event is signed by a certificate that is not the emitter's / receiver's.
    SIFEN_EVENT_SIGNER = "SIFEN_EVENT_SIGNER";
    /// A time window of SIFEN (transmission, contingency) is not met.
    SIFEN_OUT_OF_WINDOW = "SIFEN_OUT_OF_WINDOW";
    /// The TLS handshake with SIFEN failed (`kuatia sifen ping`); the message names the cause and the remedy.
    SIFEN_TLS_HANDSHAKE = "SIFEN_TLS_HANDSHAKE";

    // Invoice lifecycle and the `/v1` service.
    /// A state change the lifecycle does not allow (e.g. approving a rejected invoice).
    INVALID_TRANSITION = "INVALID_TRANSITION";
    /// The API key is missing, malformed, unknown or revoked (HTTP 401).
    UNAUTHORIZED = "UNAUTHORIZED";
    /// A live key was used against the sandbox (production keys are never accepted there).
    LIVE_KEY_IN_SANDBOX = "LIVE_KEY_IN_SANDBOX";
    /// A sandbox request lacks the header that marks it as one.
    SANDBOX_HEADER_REQUIRED = "SANDBOX_HEADER_REQUIRED";
    /// No such resource for this account and environment (HTTP 404).
    NOT_FOUND = "NOT_FOUND";
    /// The route exists but not with this HTTP method (HTTP 405).
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED";
    /// A query parameter is unknown or has a bad value (HTTP 400).
    INVALID_QUERY = "INVALID_QUERY";
    /// A request body was sent with a `Content-Type` other than `application/json` (HTTP 415).
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE";
    /// The request did not arrive, or was not answered, within the server's time limits: its body within
    /// `--body-timeout` (HTTP 408), its answer within `--request-timeout` (HTTP 503, retry; a create with the same
    /// `Idempotency-Key` is not repeated).
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT";
    /// A webhook URL names this machine or a private, loopback or link-local address (SSRF); the operator may allow it.
    WEBHOOK_URL_NOT_ALLOWED = "WEBHOOK_URL_NOT_ALLOWED";
    /// The `Idempotency-Key` header is empty or longer than 255 characters.
    INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY";
    /// The `Idempotency-Key` was used before with a different request body (HTTP 409).
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT";
    /// A request with this `Idempotency-Key` is still being processed; retry it in a moment (HTTP 409).
    IDEMPOTENCY_IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS";
    /// `_simulate` sent with a live key: it is only accepted in the sandbox.
    SIMULATE_NOT_ALLOWED = "SIMULATE_NOT_ALLOWED";
    /// The account has no production profile (certificate, stamp, CSC) yet.
    PRODUCTION_NOT_CONFIGURED = "PRODUCTION_NOT_CONFIGURED";
    /// The KuDE cannot be rendered for this invoice (not signed yet, or rejected).
    KUDE_NOT_AVAILABLE = "KUDE_NOT_AVAILABLE";
    /// The signed XML of this invoice does not exist (the document was never signed) (HTTP 409).
    XML_NOT_AVAILABLE = "XML_NOT_AVAILABLE";
    /// Only approved invoices can be cancelled (HTTP 409).
    NOT_CANCELLABLE = "NOT_CANCELLABLE";
    /// A cancellation of this invoice waits for SIFEN's answer (HTTP 409).
    CANCELLATION_PENDING = "CANCELLATION_PENDING";
    /// The host's storage failed; the request was not applied (HTTP 500).
    STORAGE_ERROR = "STORAGE_ERROR";
    /// The host's storage is full, read-only, locked or failing; the request was not applied, retry later (HTTP 503).
    STORAGE_UNAVAILABLE = "STORAGE_UNAVAILABLE";
    /// An unexpected failure of the host; nothing was applied (HTTP 500).
    INTERNAL_ERROR = "INTERNAL_ERROR";

    // The C boundary (and the faces built on it).
    /// A NULL pointer or an out-of-range enum value was passed.
    INVALID_ARGUMENT = "INVALID_ARGUMENT";
    /// A text argument is not valid UTF-8.
    INVALID_UTF8 = "INVALID_UTF8";
    /// A bug of kuatia was caught at the boundary (a panic); please report it.
    PANIC = "PANIC";
}

/// Whether `code` is in the registry.
pub fn is_registered(code: &str) -> bool {
    ALL.iter().any(|(c, _)| *c == code)
}

/// The registry as JSON (`[{"code", "description"}]`), the form every face exposes.
pub fn all_json() -> String {
    let list: Vec<serde_json::Value> = ALL
        .iter()
        .map(|(c, d)| serde_json::json!({"code": c, "description": d.trim()}))
        .collect();
    serde_json::Value::Array(list).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_described() {
        let mut seen = std::collections::HashSet::new();
        for (c, d) in ALL {
            assert!(seen.insert(*c), "{c} registered twice");
            assert!(!d.trim().is_empty(), "{c} has no description");
            assert!(
                c.bytes().all(|b| b.is_ascii_uppercase()
                    || b.is_ascii_digit()
                    || b == b'_'
                    || b == b'.'),
                "{c}"
            );
        }
        assert!(is_registered("INVALID_RUC"));
        assert!(!is_registered("NOPE"));
    }
}

//! Rules of the SIFEN web services ([`crate::sifen`]): time windows, requests and lots, and the reading of SIFEN's
//! answers. The numbers in the texts (0160, 4009) are SIFEN's own response codes. Catalogs:
//! `core/locales/<lang>/sifen.ftl`.

rules! {
    /// A cancellation whose approval time is after now: only an approved document can be cancelled.
    sifen_cancel_before_approval / SIFEN_CANCEL_BEFORE_APPROVAL = "sifen.cancel_before_approval" => SIFEN_CANCEL_WINDOW_EXPIRED {};
    /// The cancellation window of the document type (48 h for an FE, 168 h for the others) has passed.
    sifen_cancel_window / SIFEN_CANCEL_WINDOW = "sifen.cancel_window" => SIFEN_CANCEL_WINDOW_EXPIRED { tipo: Int = "1", hours: Int = "48", elapsed: Int = "50" };
    /// The signing time is later than the transmission (SIFEN 1004).
    sifen_signed_in_future / SIFEN_SIGNED_IN_FUTURE = "sifen.signed_in_future" => SIFEN_OUT_OF_WINDOW {};
    /// Sent more than 72 h after signing: approved with observation 1005 (a warning).
    sifen_late / SIFEN_LATE = "sifen.late" => SIFEN_OUT_OF_WINDOW {};
    /// The emission date is more than 720 h before the transmission (SIFEN D002).
    sifen_emission_too_old / SIFEN_EMISSION_TOO_OLD = "sifen.emission_too_old" => SIFEN_OUT_OF_WINDOW {};
    /// The emission date is more than 120 h after the transmission (SIFEN D002).
    sifen_emission_too_far / SIFEN_EMISSION_TOO_FAR = "sifen.emission_too_far" => SIFEN_OUT_OF_WINDOW {};
    /// A document issued in contingency, whose transmission window SIFEN does not publish (a warning).
    sifen_contingency / SIFEN_CONTINGENCY = "sifen.contingency" => SIFEN_OUT_OF_WINDOW {};
    /// The request id `dId` is out of range.
    sifen_did / SIFEN_DID = "sifen.did" => SIFEN_INVALID_ID { max: Int = "999999999999999", got: Int = "0" };
    /// A request is larger than SIFEN accepts.
    sifen_message_too_large / SIFEN_MESSAGE_TOO_LARGE = "sifen.message_too_large" => SIFEN_MESSAGE_TOO_LARGE { service: Text = "recibe", size: Int = "1500000", max: Int = "1000000" };
    /// A lot too large for a ZIP file.
    sifen_lot_zip / SIFEN_LOT_ZIP = "sifen.lot_zip" => SIFEN_MESSAGE_TOO_LARGE {};
    /// A document to send has no XMLDSig `Signature`.
    sifen_de_unsigned / SIFEN_DE_UNSIGNED = "sifen.de_unsigned" => SIFEN_DE_UNSIGNED { cdc: Text = "CDC-EJEMPLO" };
    /// A document to send has no `gCamFuFD/dCarQR` (SIFEN answers 0160).
    sifen_de_without_qr / SIFEN_DE_WITHOUT_QR = "sifen.de_without_qr" => SIFEN_DE_WITHOUT_QR { cdc: Text = "CDC-EJEMPLO" };
    /// A lot without documents.
    sifen_lot_empty / SIFEN_LOT_EMPTY = "sifen.lot_empty" => SIFEN_LOT_EMPTY {};
    /// A lot with more documents than SIFEN takes (SIFEN 0301).
    sifen_lot_too_many / SIFEN_LOT_TOO_MANY = "sifen.lot_too_many" => SIFEN_LOT_TOO_MANY { max: Int = "50", got: Int = "51" };
    /// A CDC twice in one lot (SIFEN blocks the emitter for it).
    sifen_lot_duplicate_cdc / SIFEN_LOT_DUPLICATE_CDC = "sifen.lot_duplicate_cdc" => SIFEN_LOT_DUPLICATE_CDC { cdc: Text = "CDC-EJEMPLO" };
    /// A lot mixes emitter RUCs.
    sifen_lot_mixed_ruc / SIFEN_LOT_MIXED_RUC = "sifen.lot_mixed_ruc" => SIFEN_LOT_MIXED_RUC { ruc: Text = "80069563-1", lot: Text = "44444401-7" };
    /// A lot mixes document types.
    sifen_lot_mixed_type / SIFEN_LOT_MIXED_TYPE = "sifen.lot_mixed_type" => SIFEN_LOT_MIXED_TYPE { tipo: Int = "5", lot: Int = "1" };
    /// A lot number (`dProtConsLote`) that is not 1 to 28 digits.
    sifen_lot_number / SIFEN_LOT_NUMBER = "sifen.lot_number" => INVALID_FORMAT { got: Text = "12a" };
    /// SIFEN's answer is not the SOAP message expected; `why` is the rule that says why, whose parameters the
    /// finding carries too, and `excerpt` the answer's first characters.
    sifen_unexpected / SIFEN_UNEXPECTED = "sifen.unexpected" => SIFEN_UNEXPECTED_RESPONSE { why: Rule = "sifen.response_no_body", excerpt: Text = "<html><body>Logout</body></html>" };
    /// `sifen.unexpected` when the answer is an HTML page (the SET gateway's logout page: retry later).
    sifen_unexpected_html / SIFEN_UNEXPECTED_HTML = "sifen.unexpected_html" => SIFEN_UNEXPECTED_RESPONSE { why: Rule = "xml.root", excerpt: Text = "<html><body>Logout</body></html>" };
    /// `sifen.unexpected` when the answer is empty.
    sifen_unexpected_empty / SIFEN_UNEXPECTED_EMPTY = "sifen.unexpected_empty" => SIFEN_UNEXPECTED_RESPONSE { why: Rule = "sifen.response_empty" };
    /// The answer is larger than kuatia reads.
    sifen_response_too_large / SIFEN_RESPONSE_TOO_LARGE = "sifen.response_too_large" => SIFEN_UNEXPECTED_RESPONSE { max: Int = "8388608" };
    /// The answer is not UTF-8 from a byte offset on.
    sifen_response_not_utf8 / SIFEN_RESPONSE_NOT_UTF8 = "sifen.response_not_utf8" => SIFEN_UNEXPECTED_RESPONSE { at: Int = "12" };
    /// The answer's body is empty.
    sifen_response_empty / SIFEN_RESPONSE_EMPTY = "sifen.response_empty" => SIFEN_UNEXPECTED_RESPONSE {};
    /// The answer's root element is not a SOAP `Envelope`.
    sifen_response_root / SIFEN_RESPONSE_ROOT = "sifen.response_root" => SIFEN_UNEXPECTED_RESPONSE { name: Text = "html" };
    /// The SOAP `Envelope` has no `Body`.
    sifen_response_no_body / SIFEN_RESPONSE_NO_BODY = "sifen.response_no_body" => SIFEN_UNEXPECTED_RESPONSE {};
    /// The SOAP `Body` is empty.
    sifen_response_body_empty / SIFEN_RESPONSE_BODY_EMPTY = "sifen.response_body_empty" => SIFEN_UNEXPECTED_RESPONSE {};
    /// The body element is not in the SIFEN namespace.
    sifen_response_namespace / SIFEN_RESPONSE_NAMESPACE = "sifen.response_namespace" => SIFEN_UNEXPECTED_RESPONSE { name: Text = "rRetEnviDe" };
    /// The body element is not the answer of any SIFEN service.
    sifen_response_unknown / SIFEN_RESPONSE_UNKNOWN = "sifen.response_unknown" => SIFEN_UNEXPECTED_RESPONSE { name: Text = "rOtro" };
    /// `sifen.response_unknown`, with the response code and message it carries.
    sifen_response_unknown_said / SIFEN_RESPONSE_UNKNOWN_SAID = "sifen.response_unknown_said" => SIFEN_UNEXPECTED_RESPONSE { name: Text = "rOtro", code: Text = "XXXX", said: Text = "XML mal formado" };
    /// An element the answer must have is missing.
    sifen_response_missing / SIFEN_RESPONSE_MISSING = "sifen.response_missing" => SIFEN_UNEXPECTED_RESPONSE { parent: Text = "rRetEnviDe", name: Text = "rProtDe" };
    /// The answer is another service's.
    sifen_response_service / SIFEN_RESPONSE_SERVICE = "sifen.response_service" => SIFEN_UNEXPECTED_RESPONSE { expected: Text = "consulta", got: Text = "recibe" };
    /// `sifen.response_service`, with the response code and message it carries.
    sifen_response_service_said / SIFEN_RESPONSE_SERVICE_SAID = "sifen.response_service_said" => SIFEN_UNEXPECTED_RESPONSE { expected: Text = "consulta", got: Text = "recibe", code: Text = "XXXX", said: Text = "XML mal formado" };
    /// SIFEN answered a SOAP Fault, with its code and reason (SIFEN's text).
    sifen_soap_fault / SIFEN_SOAP_FAULT = "sifen.soap_fault" => SIFEN_SOAP_FAULT { fault: Text = "env:Receiver", reason: Text = "Internal error" };
}

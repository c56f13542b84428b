//! Rules of SIFEN events ([`crate::sifen::event`]): their JSON form, the checks that need no SIFEN, the signer and
//! the signed events of a request. Catalogs: `core/locales/<lang>/event.ftl`.

rules! {
    /// A text field outside its length, or with spaces around it.
    event_length / EVENT_LENGTH = "event.length" => SIFEN_EVENT_INVALID { min: Int = "5", max: Int = "500", got: Int = "3" };
    /// An identity document number that is not 1 to 20 letters, digits or `-`.
    event_doc_number / EVENT_DOC_NUMBER = "event.doc_number" => SIFEN_EVENT_INVALID {};
    /// An identity document type the event does not allow.
    event_doc_type / EVENT_DOC_TYPE = "event.doc_type" => SIFEN_EVENT_INVALID { allowed: List = "1" };
    /// The reception date is earlier than the emission date.
    event_dates / EVENT_DATES = "event.dates" => SIFEN_EVENT_INVALID {};
    /// The event `Id` is out of range.
    event_id / EVENT_ID = "event.id" => SIFEN_INVALID_ID { max: Int = "9999999999" };
    /// The signing time's year is outside 1 to 9999.
    event_year / EVENT_YEAR = "event.year" => SIFEN_EVENT_INVALID {};
    /// An inutilización's stamp number (timbrado) is not 8 digits.
    event_timbrado / EVENT_TIMBRADO = "event.timbrado" => SIFEN_EVENT_INVALID {};
    /// A number outside its range.
    event_range / EVENT_RANGE = "event.range" => SIFEN_EVENT_INVALID { min: Int = "1", max: Int = "999" };
    /// An inutilización's document numbers outside 1 to 9999999.
    event_numbers / EVENT_NUMBERS = "event.numbers" => SIFEN_INUTILIZACION_RANGE {};
    /// An inutilización's range ends before it starts (SIFEN 4068).
    event_range_reversed / EVENT_RANGE_REVERSED = "event.range_reversed" => SIFEN_INUTILIZACION_RANGE { desde: Int = "20", hasta: Int = "10" };
    /// An inutilización's range covers more numbers than one event may (SIFEN 4067).
    event_range_too_long / EVENT_RANGE_TOO_LONG = "event.range_too_long" => SIFEN_INUTILIZACION_RANGE { count: Int = "1001", max: Int = "1000" };
    /// An inutilización's series that is not two capital letters.
    event_serie / EVENT_SERIE = "event.serie" => SIFEN_EVENT_INVALID {};
    /// A nominación's operation type (iTiOpe) that is not 1, 2 or 4.
    event_tipo_operacion / EVENT_TIPO_OPERACION = "event.tipo_operacion" => SIFEN_EVENT_INVALID {};
    /// An unknown country code.
    event_pais / EVENT_PAIS = "event.pais" => SIFEN_EVENT_INVALID { value: Text = "XXX" };
    /// Not an e-mail address.
    event_email / EVENT_EMAIL = "event.email" => SIFEN_EVENT_INVALID {};
    /// An unknown city code.
    event_ciudad / EVENT_CIUDAD = "event.ciudad" => SIFEN_EVENT_INVALID {};
    /// A carrier change without exactly one of the carrier's RUC and identity document.
    event_transportista / EVENT_TRANSPORTISTA = "event.transportista" => SIFEN_EVENT_INVALID {};
    /// A vehicle change without exactly one of the identification number and the plate.
    event_vehiculo / EVENT_VEHICULO = "event.vehiculo" => SIFEN_EVENT_INVALID {};
    /// A total in guaraníes that is negative or has too many digits.
    event_total_gs / EVENT_TOTAL_GS = "event.total_gs" => SIFEN_EVENT_INVALID {};
    /// A partial conformity without its reception date.
    event_parcial / EVENT_PARCIAL = "event.parcial" => SIFEN_EVENT_INVALID {};
    /// An emitter event signed for another RUC than the CDC's emitter (SIFEN 4006).
    event_signer_emitter / EVENT_SIGNER_EMITTER = "event.signer_emitter" => SIFEN_EVENT_SIGNER { event: Text = "rGeVeCan", emitter: Text = "80069563-1", signer: Text = "44444401-7" };
    /// A receiver event that names another receiver than the one it is signed for.
    event_signer_receiver / EVENT_SIGNER_RECEIVER = "event.signer_receiver" => SIFEN_EVENT_SIGNER { receiver: Text = "80069563-1", signer: Text = "44444401-7" };
    /// A receiver event signed by the document's emitter (SIFEN 0143).
    event_signer_is_emitter / EVENT_SIGNER_IS_EMITTER = "event.signer_is_emitter" => SIFEN_EVENT_SIGNER { event: Text = "rGeVeConf", signer: Text = "80069563-1" };
    /// The signing certificate is not the emitter's or receiver's (`role`, a term `event-role-*`); `reason` is the
    /// certificate rule, whose parameters the finding carries too.
    event_signer_certificate / EVENT_SIGNER_CERTIFICATE = "event.signer_certificate" => SIFEN_EVENT_SIGNER { role: Term = "event-role-emitter", reason: Rule = "cert.ruc_missing" };
    /// An event request without events or with more than SIFEN takes.
    event_count / EVENT_COUNT = "event.count" => SIFEN_EVENT_COUNT { max: Int = "15", got: Int = "16" };
    /// Two events of one request share an `Id`.
    event_duplicate_id / EVENT_DUPLICATE_ID = "event.duplicate_id" => SIFEN_EVENT_DUPLICATE_ID { id: Int = "7" };
    /// The event JSON text is larger than kuatia reads.
    event_json_too_large / EVENT_JSON_TOO_LARGE = "event.json_too_large" => TOO_LARGE { size: Int = "1500000", max: Int = "1000000" };
    /// An array where one event was expected.
    event_not_one / EVENT_NOT_ONE = "event.not_one" => INVALID_TYPE {};
    /// Signed events not given as a JSON array.
    event_not_signed_array / EVENT_NOT_SIGNED_ARRAY = "event.not_signed_array" => INVALID_TYPE {};
    /// An event that is not a JSON object; `found` is a term `event-found-*`.
    event_not_object / EVENT_NOT_OBJECT = "event.not_object" => INVALID_TYPE { found: Term = "event-found-list" };
    /// A discriminator (`tipo`, `tipo_cambio`) is missing.
    event_tag_missing / EVENT_TAG_MISSING = "event.tag_missing" => REQUIRED { name: Text = "tipo", allowed: List = "cancelacion" };
    /// A discriminator has an unknown value.
    event_tag_unknown / EVENT_TAG_UNKNOWN = "event.tag_unknown" => INVALID_VALUE { name: Text = "tipo", value: Text = "anulacion", allowed: List = "cancelacion" };
    /// A number given as a string that is not digits.
    event_digits / EVENT_DIGITS = "event.digits" => INVALID_FORMAT {};
    /// A number given as neither a whole number nor a string of digits; `found` is a term `event-found-*`.
    event_number_type / EVENT_NUMBER_TYPE = "event.number_type" => INVALID_TYPE { found: Term = "event-found-object" };
    /// A number above its largest value.
    event_number_max / EVENT_NUMBER_MAX = "event.number_max" => OUT_OF_RANGE { max: Int = "65535" };
    /// A text given as neither a string nor a whole number; `found` is a term `event-found-*`.
    event_string_type / EVENT_STRING_TYPE = "event.string_type" => INVALID_TYPE { found: Term = "event-found-list" };
    /// A receiver without RUC and without a whole identity document.
    event_receptor_document / EVENT_RECEPTOR_DOCUMENT = "event.receptor_document" => REQUIRED {};
    /// A nominated receiver without RUC and without a whole identity document.
    event_identidad_document / EVENT_IDENTIDAD_DOCUMENT = "event.identidad_document" => REQUIRED {};
    /// A taxpayer without its taxpayer type.
    event_tipo_contribuyente / EVENT_TIPO_CONTRIBUYENTE = "event.tipo_contribuyente" => REQUIRED {};
    /// A taxpayer type given for a receiver without RUC.
    event_tipo_contribuyente_not_allowed / EVENT_TIPO_CONTRIBUYENTE_NOT_ALLOWED = "event.tipo_contribuyente_not_allowed" => NOT_ALLOWED {};
    /// An identity document given for a receiver with RUC.
    event_document_not_allowed / EVENT_DOCUMENT_NOT_ALLOWED = "event.document_not_allowed" => NOT_ALLOWED {};
    /// The event id is missing.
    event_id_missing / EVENT_ID_MISSING = "event.id_missing" => REQUIRED {};
    /// The signing time is missing.
    event_fecha_firma_missing / EVENT_FECHA_FIRMA_MISSING = "event.fecha_firma_missing" => REQUIRED {};
    /// A negative number where the event id goes.
    event_id_negative / EVENT_ID_NEGATIVE = "event.id_negative" => INVALID_TYPE {};
    /// A signed event of an unknown kind.
    event_kind_unknown / EVENT_KIND_UNKNOWN = "event.kind_unknown" => INVALID_VALUE { allowed: List = "rGeVeCan" };
    /// A signed inutilización given a CDC.
    event_cdc_not_allowed / EVENT_CDC_NOT_ALLOWED = "event.cdc_not_allowed" => NOT_ALLOWED {};
    /// A signed event of a kind that concerns a CDC, without one.
    event_cdc_required / EVENT_CDC_REQUIRED = "event.cdc_required" => REQUIRED { kind: Text = "rGeVeCan" };
    /// A signed event that is not one `rGesEve` with the expected start and a final `Signature`.
    event_signed_shape / EVENT_SIGNED_SHAPE = "event.signed_shape" => SIFEN_EVENT_INVALID { head: Text = "<rGesEve><rEve Id=\"7\">" };
    /// A signed event with more than one `rGesEve` or `Signature`.
    event_signed_count / EVENT_SIGNED_COUNT = "event.signed_count" => SIFEN_EVENT_INVALID {};
    /// A signed event whose payload is not of the given kind and CDC.
    event_signed_payload / EVENT_SIGNED_PAYLOAD = "event.signed_payload" => SIFEN_EVENT_INVALID { payload: Text = "<gGroupTiEvt><rGeVeInu>" };
    /// A signed event whose signature does not verify; `cause` is the verification's rule, whose parameters the
    /// finding carries too.
    event_signature / EVENT_SIGNATURE = "event.signature" => SIFEN_EVENT_INVALID { cause: Rule = "sign.invalid" };
    /// A signed event whose signature references another element.
    event_signed_reference / EVENT_SIGNED_REFERENCE = "event.signed_reference" => SIFEN_EVENT_INVALID {};
}

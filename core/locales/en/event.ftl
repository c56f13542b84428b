# Rules of SIFEN events (core/src/rule/event.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

# Who must sign (rule event.signer_certificate, parameter `role`).
-event-role-emitter = emitter
-event-role-receiver = receiver

# What a JSON value is (parameter `found`).
-event-found-null = null
-event-found-bool = true/false
-event-found-number = a number
-event-found-text = text
-event-found-list = a list
-event-found-object = an object

event-length = must be { $min } to { $max } characters without outer spaces, got { $got }
event-doc_number = must be 1 to 20 letters, digits or '-'
event-doc_type = identity document type must be one of [{ $allowed }]
event-dates = the reception date cannot be earlier than the emission date
event-id = the event Id must be 1..={ $max }
event-year = year out of range
event-timbrado = the stamp number must be 8 digits
event-range = must be { $min }..={ $max }
event-numbers = document numbers must be 1..=9999999
event-range_reversed = the range ends ({ $hasta }) before it starts ({ $desde }) (SIFEN 4068)
event-range_too_long = the range covers { $count } numbers; at most { $max } per event (SIFEN 4067)
event-serie = the series is two capital letters; omit it when there is none
event-tipo_operacion = iTiOpe must be 1 (B2B), 2 (B2C) or 4 (B2F)
event-pais = unknown country code '{ $value }'
event-email = not an e-mail address
event-ciudad = unknown city code
event-transportista = give either the carrier's RUC or its identity document
event-vehiculo = give either the vehicle identification number or its plate
event-total_gs = must be 0 or more, at most 15 integer digits and 8 decimals
event-parcial = a partial conformity needs the reception date
event-signer_emitter = { $event } is an emitter event: it must be signed by the emitter { $emitter }, not { $signer } (SIFEN 4006)
event-signer_receiver = the event names receiver { $receiver } but is signed for { $signer }
event-signer_is_emitter = { $event } is a receiver event: the emitter { $signer } cannot sign it (SIFEN 0143)
event-signer_certificate = the { $role }'s certificate is required: { $reason }
event-count = an event request carries 1 to { $max } events, got { $got }
event-duplicate_id = event Id { $id } is used twice in one request
event-json_too_large = the event JSON is { $size } bytes; the limit is { $max }
event-not_one = expected one event (a JSON object with "tipo"), found an array
event-not_signed_array = expected a JSON array of signed events ({ "{" }"id","kind","cdc","xml"{ "}" })
event-not_object = an event is a JSON object with "tipo", found { $found }
event-tag_missing = missing "{ $name }": one of { $allowed }
event-tag_unknown = unknown { $name } "{ $value }": expected one of { $allowed }
event-digits = expected digits
event-number_type = expected a whole number or a string of digits, found { $found }
event-number_max = must be 0..={ $max }
event-string_type = expected a string, found { $found }
event-receptor_document = give the receiver's ruc, or tipo_documento and numero
event-identidad_document = give the receiver's ruc and tipo_contribuyente, or tipo_documento and numero
event-tipo_contribuyente = a taxpayer needs tipo_contribuyente (1 persona física, 2 persona jurídica)
event-tipo_contribuyente_not_allowed = only a receiver with RUC has tipo_contribuyente
event-document_not_allowed = a receiver with RUC has no identity document
event-id_missing = missing the event id (1..=9999999999)
event-fecha_firma_missing = missing the signing time, Paraguay local YYYY-MM-DDThh:mm:ss
event-id_negative = must be a whole number, found a negative number
event-kind_unknown = unknown event kind: expected one of { $allowed }
event-cdc_not_allowed = an inutilización concerns no CDC
event-cdc_required = a { $kind } event concerns a CDC
event-signed_shape = not an event as kuatia signs it: it must be one rGesEve starting with { $head } and ending with its Signature
event-signed_count = not an event as kuatia signs it: it must hold exactly one rGesEve and one Signature
event-signed_payload = not an event as kuatia signs it: its payload does not start with { $payload } (kind and cdc must match the XML)
event-signature = not an event as kuatia signs it: its signature does not verify: { $cause }
event-signed_reference = not an event as kuatia signs it: its signature does not verify: the signature references another element

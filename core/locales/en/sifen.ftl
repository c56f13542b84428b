# Rules of the SIFEN web services (core/src/rule/sifen.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

sifen-cancel_before_approval = the approval time is after now: only an approved document can be cancelled
sifen-cancel_window = a document of type { $tipo } can be cancelled within { $hours } h of its approval; { $elapsed } h have passed (SIFEN { $tipo ->
        [1] 4009
       *[other] 4010
    })
sifen-signed_in_future = the signing time is later than now (SIFEN 1004)
sifen-late = sent more than 72 h after signing: SIFEN approves with observation 1005 (extemporaneous, sanctionable)
sifen-emission_too_old = the emission date is more than 720 h (30 days) before the transmission
sifen-emission_too_far = the emission date is more than 120 h (5 days) after the transmission
sifen-contingency = contingency (iTipEmi 2): SIFEN publishes no transmission window and the MT rejects it with 1050 ("not allowed in this stage"); send as soon as SIFEN is reachable
sifen-did = the request id dId must be 1..={ $max }, got { $got }
sifen-message_too_large = the { $service } request is { $size } bytes; SIFEN accepts at most { $max }
sifen-lot_zip = the lot is too large for a ZIP file
sifen-de_unsigned = document { $cdc } has no Signature; sign it before sending
sifen-de_without_qr = document { $cdc } has no gCamFuFD/dCarQR; SIFEN answers 0160 without it (add the QR after signing)
sifen-lot_empty = a lot needs at least one document
sifen-lot_too_many = a lot holds at most { $max } documents, got { $got } (SIFEN answers 0301)
sifen-lot_duplicate_cdc = CDC { $cdc } appears twice in the lot (SIFEN blocks the emitter for it)
sifen-lot_mixed_ruc = emitter RUC { $ruc } differs from the lot's { $lot }
sifen-lot_mixed_type = document type { $tipo } differs from the lot's { $lot }
sifen-lot_number = the lot number must be 1 to 28 digits, got '{ $got }'

sifen-unexpected = SIFEN's answer is not the expected SOAP message: { $why }; the answer starts with: { $excerpt }
sifen-unexpected_html = SIFEN's answer is not the expected SOAP message: { $why }; it is an HTML page (the SET gateway's logout page: retry later); the answer starts with: { $excerpt }
sifen-unexpected_empty = SIFEN's answer is not the expected SOAP message: { $why }; the answer starts with: (empty)
sifen-response_too_large = it is larger than { $max } bytes
sifen-response_not_utf8 = it is not UTF-8 (byte { $at })
sifen-response_empty = the body is empty
sifen-response_root = the root element is { $name } instead of a SOAP Envelope
sifen-response_no_body = the SOAP envelope has no Body
sifen-response_body_empty = the SOAP Body is empty
sifen-response_namespace = the body element { $name } is not in the SIFEN namespace http://ekuatia.set.gov.py/sifen/xsd
sifen-response_unknown = unknown body element { $name }
sifen-response_unknown_said = unknown body element { $name } (it says { $code }: { $said })
sifen-response_missing = { $parent } has no required element { $name }
sifen-response_service = expected the answer of { $expected }, got the answer of { $got }
sifen-response_service_said = expected the answer of { $expected }, got the answer of { $got } saying { $code }: { $said }
sifen-soap_fault = SIFEN answered a SOAP Fault { $fault }: { $reason }

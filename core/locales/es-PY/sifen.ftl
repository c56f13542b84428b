# Reglas de los servicios web de SIFEN (core/src/rule/sifen.rs). El id de un mensaje es el de la regla con `-` en
# lugar de `.`. Los números (0160, 4009) son códigos de respuesta del propio SIFEN; los nombres de los elementos
# (dId, gCamFuFD, dCarQR) y de SOAP (Envelope, Body, Fault) quedan como nombres.

sifen-cancel_before_approval = La fecha de aprobación es posterior a la actual: solo se puede cancelar un documento aprobado
sifen-cancel_window = Un documento de tipo { $tipo } solo puede cancelarse dentro de las { $hours } h siguientes a su aprobación; ya pasaron { $elapsed } h (SIFEN { $tipo ->
        [1] 4009
       *[other] 4010
    })
sifen-signed_in_future = La fecha de firma es posterior a la actual (SIFEN 1004)
sifen-late = Se envía más de 72 h después de la firma: SIFEN lo aprueba con la observación 1005 (transmisión extemporánea, pasible de sanción)
sifen-emission_too_old = La fecha de emisión es anterior en más de 720 h (30 días) a la transmisión
sifen-emission_too_far = La fecha de emisión es posterior en más de 120 h (5 días) a la transmisión
sifen-contingency = Contingencia (iTipEmi 2): SIFEN no publica un plazo de transmisión y el Manual Técnico la rechaza con 1050 («no habilitado en esta etapa»); envíe el documento en cuanto SIFEN esté disponible
sifen-did = El identificador de la solicitud dId debe estar entre 1 y { $max }, y es { $got }
sifen-message_too_large = La solicitud { $service } tiene { $size } bytes; SIFEN acepta como máximo { $max }
sifen-lot_zip = El lote es demasiado grande para un archivo ZIP
sifen-de_unsigned = El documento { $cdc } no tiene firma (Signature); fírmelo antes de enviarlo
sifen-de_without_qr = El documento { $cdc } no tiene gCamFuFD/dCarQR; sin él SIFEN responde 0160 (agregue el QR después de firmar)
sifen-lot_empty = Un lote debe contener al menos un documento
sifen-lot_too_many = Un lote admite como máximo { $max } documentos, y este tiene { $got } (SIFEN responde 0301)
sifen-lot_duplicate_cdc = El CDC { $cdc } aparece dos veces en el lote (SIFEN bloquea al emisor por ello)
sifen-lot_mixed_ruc = El RUC del emisor { $ruc } es distinto del RUC del lote, { $lot }
sifen-lot_mixed_type = El tipo de documento { $tipo } es distinto del tipo del lote, { $lot }
sifen-lot_number = El número de lote debe tener de 1 a 28 dígitos, no '{ $got }'

sifen-unexpected = La respuesta de SIFEN no es el mensaje SOAP esperado. { $why }. La respuesta comienza con: { $excerpt }
sifen-unexpected_html = La respuesta de SIFEN no es el mensaje SOAP esperado. { $why }. Es una página HTML (la página de cierre de sesión del portal de la SET: intente de nuevo más tarde). La respuesta comienza con: { $excerpt }
sifen-unexpected_empty = La respuesta de SIFEN no es el mensaje SOAP esperado. { $why }
sifen-response_too_large = Tiene más de { $max } bytes
sifen-response_not_utf8 = No está en UTF-8 (byte { $at })
sifen-response_empty = El cuerpo está vacío
sifen-response_root = El elemento raíz es { $name } en lugar de un Envelope SOAP
sifen-response_no_body = El Envelope SOAP no tiene Body
sifen-response_body_empty = El Body SOAP está vacío
sifen-response_namespace = El elemento { $name } del cuerpo no está en el espacio de nombres de SIFEN http://ekuatia.set.gov.py/sifen/xsd
sifen-response_unknown = Elemento desconocido en el cuerpo: { $name }
sifen-response_unknown_said = Elemento desconocido en el cuerpo: { $name } (indica { $code }: { $said })
sifen-response_missing = Falta el elemento obligatorio { $name } en { $parent }
sifen-response_service = Se esperaba la respuesta de { $expected }, pero llegó la de { $got }
sifen-response_service_said = Se esperaba la respuesta de { $expected }, pero llegó la de { $got }, que indica { $code }: { $said }
sifen-soap_fault = SIFEN respondió con un SOAP Fault { $fault }: { $reason }

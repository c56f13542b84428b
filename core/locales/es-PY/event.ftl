# Reglas de los eventos de SIFEN (core/src/rule/event.rs). El id de un mensaje es el de la regla con `-` en lugar de
# `.`. Los nombres de los campos del JSON (tipo, ruc, tipo_documento) y de los elementos XML (iTiOpe, rGesEve)
# quedan como nombres.

# Quién debe firmar (regla event.signer_certificate, parámetro `role`).
-event-role-emitter = del emisor
-event-role-receiver = del receptor

# Qué es un valor JSON (parámetro `found`).
-event-found-null = null
-event-found-bool = true/false
-event-found-number = un número
-event-found-text = un texto
-event-found-list = una lista
-event-found-object = un objeto

event-length = Debe tener de { $min } a { $max } caracteres, sin espacios al inicio ni al final, y tiene { $got }
event-doc_number = Debe tener de 1 a 20 letras, dígitos o '-'
event-doc_type = El tipo de documento de identidad debe ser uno de [{ $allowed }]
event-dates = La fecha de recepción no puede ser anterior a la fecha de emisión
event-id = El Id del evento debe estar entre 1 y { $max }
event-year = El año está fuera de rango
event-timbrado = El número de timbrado debe tener 8 dígitos
event-range = Debe estar entre { $min } y { $max }
event-numbers = Los números de documento deben estar entre 1 y 9999999
event-range_reversed = El rango termina ({ $hasta }) antes de empezar ({ $desde }) (SIFEN 4068)
event-range_too_long = El rango abarca { $count } números; un evento admite como máximo { $max } (SIFEN 4067)
event-serie = La serie son dos letras mayúsculas; omítala si no tiene
event-tipo_operacion = El tipo de operación (iTiOpe) debe ser 1 (B2B), 2 (B2C) o 4 (B2F)
event-pais = Código de país desconocido '{ $value }'
event-email = No es una dirección de correo electrónico
event-ciudad = Código de ciudad desconocido
event-transportista = Indique el RUC del transportista o su documento de identidad, uno de los dos
event-vehiculo = Indique el número de identificación del vehículo o su matrícula, uno de los dos
event-total_gs = Debe ser 0 o más, con hasta 15 dígitos enteros y 8 decimales
event-parcial = Una conformidad parcial requiere la fecha de recepción
event-signer_emitter = { $event } es un evento del emisor: debe firmarlo el emisor { $emitter }, no { $signer } (SIFEN 4006)
event-signer_receiver = El evento indica el receptor { $receiver }, pero está firmado para { $signer }
event-signer_is_emitter = { $event } es un evento del receptor: el emisor { $signer } no puede firmarlo (SIFEN 0143)
event-signer_certificate = Se requiere el certificado { $role }. { $reason }
event-count = Una solicitud de eventos lleva de 1 a { $max } eventos, y esta tiene { $got }
event-duplicate_id = El Id de evento { $id } se repite en la misma solicitud
event-json_too_large = El JSON del evento tiene { $size } bytes; el límite es { $max }
event-not_one = Se esperaba un solo evento (un objeto JSON con "tipo"), pero llegó una lista
event-not_signed_array = Se esperaba una lista JSON de eventos firmados ({ "{" }"id","kind","cdc","xml"{ "}" })
event-not_object = Un evento es un objeto JSON con "tipo", pero llegó { $found }
event-tag_missing = Falta "{ $name }": uno de { $allowed }
event-tag_unknown = { $name } desconocido "{ $value }": se esperaba uno de { $allowed }
event-digits = Se esperaban dígitos
event-number_type = Se esperaba un número entero o un texto de dígitos, pero llegó { $found }
event-number_max = Debe estar entre 0 y { $max }
event-string_type = Se esperaba un texto, pero llegó { $found }
event-receptor_document = Indique el `ruc` del receptor, o `tipo_documento` y `numero`
event-identidad_document = Indique el `ruc` y el `tipo_contribuyente` del receptor, o `tipo_documento` y `numero`
event-tipo_contribuyente = Un contribuyente requiere tipo_contribuyente (1 persona física, 2 persona jurídica)
event-tipo_contribuyente_not_allowed = Solo un receptor con RUC tiene tipo_contribuyente
event-document_not_allowed = Un receptor con RUC no lleva documento de identidad
event-id_missing = Falta el id del evento (de 1 a 9999999999)
event-fecha_firma_missing = Falta la fecha y hora de firma, en hora local de Paraguay AAAA-MM-DDThh:mm:ss
event-id_negative = Debe ser un número entero, y es negativo
event-kind_unknown = Tipo de evento desconocido: se esperaba uno de { $allowed }
event-cdc_not_allowed = Una inutilización no se refiere a un CDC
event-cdc_required = Un evento { $kind } se refiere a un CDC
event-signed_shape = No es un evento firmado por kuatia: debe ser un solo rGesEve que empiece con { $head } y termine con su Signature
event-signed_count = No es un evento firmado por kuatia: debe contener exactamente un rGesEve y una Signature
event-signed_payload = No es un evento firmado por kuatia: su contenido no empieza con { $payload } (kind y cdc deben coincidir con el XML)
event-signature = No es un evento firmado por kuatia: su firma no se verifica. { $cause }
event-signed_reference = No es un evento firmado por kuatia: su firma se refiere a otro elemento

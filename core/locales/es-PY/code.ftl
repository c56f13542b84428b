# Reglas de códigos de las tablas de SIFEN y de lugares (core/src/rule/code.rs). El id de un mensaje es el de la
# regla con `-` en lugar de `.`. Cada término es la tabla que nombra un `code.unknown` (su `what`), con los nombres
# del Manual Técnico de SIFEN.

-tipo_documento = tipo de documento electrónico (1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión)
-tipo_emision = tipo de emisión (1 normal, 2 contingencia)
-tipo_transaccion = tipo de transacción (1 a 13)
-indicador_presencia = indicador de presencia (1 a 6, 9)
-condicion_pago = condición de la operación (1 contado, 2 crédito)
-motivo_nota = motivo de emisión de la nota (1 a 8)
-naturaleza_vendedor = naturaleza del vendedor (1 no contribuyente, 2 extranjero)
-documento_tipo_vendedor = tipo de documento de identidad del vendedor (1 a 4)
-motivo_remision = motivo de emisión de la nota de remisión (1 a 14, 99)
-responsable_remision = responsable de la emisión de la nota de remisión (1 a 5)
-tipo_contribuyente = tipo de contribuyente (1 persona física, 2 persona jurídica)
-tipo_operacion = tipo de operación (1 B2B, 2 B2C, 3 B2G, 4 B2F)
-documento_tipo_receptor = tipo de documento de identidad (1 a 6, 9)
-unidad_medida = unidad de medida
-tipo_pago = tipo de pago (1 a 21, 99)
-tarjeta = denominación de la tarjeta (1 a 6, 99)
-tipo_documento_impreso = tipo de documento impreso (1 a 4)
-tipo_constancia = tipo de constancia (1, 2)
-tipo_asociado = tipo de documento asociado (1 electrónico, 2 impreso, 3 constancia)
-tipo_transporte = tipo de transporte (1 propio, 2 tercero)
-modalidad_transporte = modalidad del transporte (1 a 4)
-responsable_flete = responsable del costo del flete (1 a 5)
-documento_tipo_transportista = tipo de documento de identidad (1 a 4)
-geo_departamento = departamento (1 a 20)
-geo_distrito = distrito
-geo_ciudad = ciudad

code-unknown = El valor { $value } no es un código válido de { $what }
code-three_digits = Debe ser un código de tres dígitos, de 001 a 999
code-currency = '{ $value }' no es un código de moneda ISO 4217 que SIFEN acepte
code-country = '{ $value }' no es un código de país ISO 3166 alfa-3 válido
code-incoterm = '{ $value }' no es un Incoterm que SIFEN acepte

geo-ciudad-departamento = La ciudad no pertenece al departamento indicado
geo-distrito-departamento = El distrito no pertenece al departamento indicado
geo-ciudad-distrito = La ciudad no pertenece al distrito indicado
geo-pair = Si indica { $with }, indique también { $field }

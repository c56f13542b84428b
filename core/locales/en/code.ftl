# Rules of codes from SIFEN's tables and of places (core/src/rule/code.rs). A message id is the rule id with `-` for
# `.`. The English texts are the ones kuatia wrote before the catalogs, byte for byte; a term is the table a
# `code.unknown` names (its `what`).

-tipo_documento = document type (1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión)
-tipo_emision = emission type (1 normal, 2 contingencia)
-tipo_transaccion = transaction type (1–13)
-indicador_presencia = presence indicator (1–6, 9)
-condicion_pago = payment condition (1 contado, 2 crédito)
-motivo_nota = note motive (1–8)
-naturaleza_vendedor = seller nature (1 no contribuyente, 2 extranjero)
-documento_tipo_vendedor = seller ID document type (1–4)
-motivo_remision = remission motive (1–14, 99)
-responsable_remision = responsible party (1–5)
-tipo_contribuyente = taxpayer kind (1 física, 2 jurídica)
-tipo_operacion = operation type (1 B2B, 2 B2C, 3 B2G, 4 B2F)
-documento_tipo_receptor = ID document type (1–6, 9)
-unidad_medida = unit of measure code
-tipo_pago = payment type (1–21, 99)
-tarjeta = card brand (1–6, 99)
-tipo_documento_impreso = printed document kind (1–4)
-tipo_constancia = constancia type (1, 2)
-tipo_asociado = associated document kind (1 electrónico, 2 impreso, 3 constancia)
-tipo_transporte = transport type (1 propio, 2 tercero)
-modalidad_transporte = transport mode (1–4)
-responsable_flete = freight responsibility (1–5)
-documento_tipo_transportista = ID document type (1–4)
-geo_departamento = department code (1–20)
-geo_distrito = district code
-geo_ciudad = city code

code-unknown = { $value } is not a valid { $what }
code-three_digits = must be a code from 001 to 999
code-currency = '{ $value }' is not an ISO 4217 currency SIFEN accepts
code-country = '{ $value }' is not an ISO 3166 alpha-3 code
code-incoterm = '{ $value }' is not an Incoterm SIFEN accepts

geo-ciudad-departamento = city does not belong to the department
geo-distrito-departamento = district does not belong to the department
geo-ciudad-distrito = city does not belong to the district
geo-pair = { $field } goes with { $with }

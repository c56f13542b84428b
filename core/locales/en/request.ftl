# Rules of the request as a whole (core/src/rule/request.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte. Terms: the document types (SIFEN's
# names), the cases of `request.required_for` and the entries of `request.too_many`.

-factura = Factura electrónica
-autofactura = Autofactura electrónica
-nota_credito = Nota de crédito electrónica
-nota_debito = Nota de débito electrónica
-nota_remision = Nota de remisión electrónica

-req_presencia_9 = when indicador_presencia is 9
-req_motivo_99 = for motive 99
-req_documento_tipo_9 = for document type 9
-req_pago_99 = for payment type 99
-req_remision = for remission notes
-req_impreso = for a printed document
-req_microproductor = for a microproductor constancia

-pagos = payments
-documentos_asociados = associated documents
-entregas = delivery places
-vehiculos = vehicles

request-not_allowed = not allowed in a { $tipo }
request-required_for = required { $case }
request-too_many = at most { $max } { $what }
request-simulate-production = _simulate is only accepted in the sandbox
request-simulate-unknown = '{ $value }' is not one of approved, rejected, pending, sent
request-unchecked = the request could not be checked
request-fecha-past = emission date { $fecha } is more than 30 days (720 h) in the past
request-fecha-future = emission date { $fecha } is more than 5 days (120 h) in the future
timbrado-not_valid = no stamp (timbrado) of the emitter is valid on { $fecha } for this establishment and point
timbrado-not_covered = no stamp (timbrado) of the emitter covers this document type
request-moneda-autofactura = an autofactura must be in guaraníes (PYG) (NT-012)
request-tipo_cambio-pyg = no exchange rate with guaraníes
request-tipo_cambio-required = exchange rate to PYG is required for { $moneda }
request-descuento_global-range = a percentage from 0 to below 100, at most 8 decimals
request-redondeo-not_allowed = the 50-guaraní rounding applies to PYG documents with totals only
request-motivo-required = a credit/debit note needs its motive (1–8)
request-vendedor-required = an autofactura needs the seller
request-remision-required = a remission note needs motivo and kilometros

credito-required = crédito needs its terms (plazo or cuotas)
credito-plazo-required = a term such as "30 días" is required
credito-cuotas-required = give cantidad_cuotas or the list of cuotas
credito-cuotas-count = differs from the number of cuotas listed
credito-tipo-unknown = '{ $value }' is not plazo or cuota
credito-not_allowed = credit terms only with condicion_pago 2 (crédito)

asociado-required = a { $tipo } must refer to at least one document
asociado-cdc-emisor = this CDC is a document of RUC { $ruc }, not of the emitter { $emisor }: a document can only refer to the emitter's own electronic documents (SIFEN 2439)
asociado-cdc-required = an electronic document is referred to by its CDC
asociado-timbrado-required = a printed document needs its stamp number
asociado-constancia-required = a constancia needs its type (1 no contribuyente, 2 microproductor)

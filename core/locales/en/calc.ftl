# Rules of computing a document (core/src/rule/calc.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

calc-iva_rate = IVA rate { $rate } is not one of 10%, 5% or 0%
calc-afectacion = afectacion_iva { $value } is not one of 1 gravado, 2 exonerado, 3 exento, 4 gravado parcial
calc-iva_required = IVA rate is required (10, 5 or 0)
calc-iva_exempt = an exonerated or exempt item has IVA rate 0, not { $rate }
calc-iva_taxed = a taxed item (gravado or gravado parcial) needs IVA rate 5 or 10
calc-proporcion_required = gravado parcial needs proporcion_iva, the taxed percentage (0 < p < 100)
calc-proporcion = proporcion_iva { $value } does not fit afectacion_iva { $afectacion } (100% gravado, 0% exento/exonerado, between 0% and 100% parcial, ≤ 8 decimals)
calc-tipo_documento = tipo_documento { $value } is not one of 1, 4, 5, 6, 7
calc-item_overflow = amounts are too large to compute exactly
calc-totals_overflow = totals are too large to compute exactly
calc-security_code = the security code must differ from the document number (MT §10.3)

# Rules of the payments (core/src/rule/pagos.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

pagos-bancario-presencia = pago bancario (16) only with indicador_presencia 5 (operación bancaria)
pagos-monto-required = each of several payments needs its amount
pagos-tipo_cambio-required = exchange rate required for a payment in another currency
pagos-tarjeta-not_allowed = card data only for payment types 3 and 4
pagos-cheque-numero = a cheque needs its number
pagos-cheque-banco = a cheque needs its issuing bank

# Reglas de los pagos (core/src/rule/pagos.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`.

pagos-bancario-presencia = El pago bancario (16) solo se admite con indicador_presencia 5 (operación bancaria)
pagos-monto-required = Cuando hay varios pagos, cada uno requiere su monto
pagos-tipo_cambio-required = Un pago en otra moneda requiere su tipo de cambio
pagos-tarjeta-not_allowed = Los datos de tarjeta solo corresponden a los tipos de pago 3 y 4
pagos-cheque-numero = Un pago con cheque requiere el número del cheque
pagos-cheque-banco = Un pago con cheque requiere el banco emisor

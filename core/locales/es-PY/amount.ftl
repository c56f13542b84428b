# Reglas de números y montos (core/src/rule/amount.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`.

amount-negative = No puede ser negativo (se recibió { $got })
amount-zero = Debe ser mayor que cero
amount-decimals = Se admiten como máximo { $max } decimales (se recibió { $got })
amount-integer_digits = Se admiten como máximo { $max } dígitos enteros (se recibió { $got })
amount-range = Debe estar entre { $min } y { $max }
amount-digits = Se admiten como máximo { $max } dígitos

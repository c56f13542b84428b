# Reglas de los identificadores (core/src/rule/ids.rs): RUC y CDC. El id de un mensaje es el de la regla con `-`
# en lugar de `.`. Se trata al lector de usted; los términos son los de la SET (dígito verificador, timbrado).

-ruc-form = un RUC se escribe con su número base, un guion y el dígito verificador, p. ej. 80069563-1

ruc-empty = El RUC está vacío ({ -ruc-form })
ruc-char = El RUC tiene un carácter no válido '{ $ch }' en la posición { $pos } ({ -ruc-form })
ruc-letter = El RUC tiene un carácter no válido '{ $ch }' en la posición { $pos } (solo se admite una letra final, de la A a la D) ({ -ruc-form })
ruc-too_short = El número base del RUC tiene { $len } { $len ->
        [one] carácter
       *[other] caracteres
    }; se requieren al menos { $min } ({ -ruc-form })
ruc-too_long = El número base del RUC tiene { $len } caracteres; se admiten como máximo { $max } ({ -ruc-form })
ruc-leading_zero = El número base del RUC no puede empezar con 0 ({ -ruc-form })
ruc-dv_missing = Falta el dígito verificador del RUC ({ -ruc-form })
ruc-consulta_too_short = La consulta de RUC requiere un número base de al menos { $min } caracteres (esquema tRuc del servicio web; de lo contrario, SIFEN responde 0160), y este tiene { $len } ({ -ruc-form })
ruc-separator_missing = Falta el guion '-' antes del dígito verificador del RUC ({ -ruc-form })
ruc-dv_invalid = El dígito verificador del RUC debe ser un solo dígito del 0 al 9, no "{ $found }" ({ -ruc-form })
ruc-check_digit = El dígito verificador del RUC no corresponde: debería ser { $expected }, no { $got }

cdc-length = El CDC debe tener { $expected } caracteres, y este tiene { $got }
cdc-char = El CDC tiene un carácter no válido '{ $ch }' en la posición { $pos } (se esperaba un dígito)
cdc-ruc_char = El CDC tiene un carácter no válido '{ $ch }' en la posición { $pos } (se esperaba un dígito o una letra de RUC de la A a la D)
cdc-check_digit = El dígito verificador del CDC no corresponde: debería ser { $expected }, no { $got }
cdc-range = El campo { $field } del CDC vale { $value }, fuera del rango de { $min } a { $max }
cdc-date = La fecha "{ $text }" del CDC no es una fecha válida (año de 1 a 9999)
cdc-ruc = El RUC contenido en el CDC no es válido. { $reason }

# Reglas del cálculo de un documento (core/src/rule/calc.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`. Se trata al lector de usted; los términos son los de SIFEN (afectación del IVA, gravado, exento).

calc-iva_rate = La tasa del IVA { $rate } no es válida: debe ser 10 %, 5 % o 0 %
calc-afectacion = La afectación del IVA { $value } no es válida: debe ser 1 (gravado), 2 (exonerado), 3 (exento) o 4 (gravado parcial)
calc-iva_required = La tasa del IVA es obligatoria (10, 5 o 0)
calc-iva_exempt = Un ítem exonerado o exento tiene tasa del IVA 0, no { $rate }
calc-iva_taxed = Un ítem gravado (o gravado parcial) requiere una tasa del IVA de 5 o 10
calc-proporcion_required = Un ítem gravado parcial requiere proporcion_iva, el porcentaje gravado (mayor que 0 y menor que 100)
calc-proporcion = La proporción gravada { $value } no corresponde a la afectación del IVA { $afectacion } (100 % si es gravado, 0 % si es exento o exonerado, entre 0 % y 100 % si es gravado parcial, hasta 8 decimales)
calc-tipo_documento = El tipo de documento { $value } no es válido: debe ser 1, 4, 5, 6 o 7
calc-item_overflow = Los montos son demasiado grandes para calcularlos con exactitud
calc-totals_overflow = Los totales son demasiado grandes para calcularlos con exactitud
calc-security_code = El código de seguridad debe ser distinto del número del documento (MT §10.3)

# Reglas de textos, cadenas de dígitos y fechas (core/src/rule/text.rs). El id de un mensaje es el de la regla con
# `-` en lugar de `.`. La ruta del hallazgo indica el campo; el mensaje no lo repite.

text-blank = No puede estar vacío
text-spaces = No puede empezar ni terminar con espacios
text-length = Debe tener de { $min } a { $max } caracteres; tiene { $got }
text-control = No puede contener caracteres de control (tabulaciones, saltos de línea)
text-noncharacter = No puede contener los caracteres U+FFFE ni U+FFFF (no se admiten en XML)
text-digits = Debe tener de { $min } a { $max } dígitos, sin otros caracteres
text-digits_exact = Debe tener exactamente { $len } dígitos, sin otros caracteres
text-id_number = Debe tener de 1 a 20 letras, dígitos o guiones '-'
text-email = '{ $value }' no es una dirección de correo electrónico válida

date-format = '{ $value }' no es una fecha con el formato AAAA-MM-DD
date-digits = '{ $value }' tiene caracteres que no son dígitos donde deben ir dígitos
date-calendar = '{ $value }' no es una fecha existente del calendario
date-datetime_format = '{ $value }' no es una fecha y hora local con el formato AAAA-MM-DDThh:mm:ss (sin zona horaria)
date-time = '{ $value }' tiene una hora del día no válida

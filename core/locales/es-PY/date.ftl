# Reglas de las fechas y horas escritas como texto (core/src/rule/date.rs). El id de un mensaje es el de la regla con
# `-` en lugar de `.`. Se trata al lector de usted. Los formatos son los de SIFEN (AAAA-MM-DD, sin zona horaria).

date-format = '{ $text }' no es una fecha con el formato AAAA-MM-DD
date-calendar = '{ $text }' no es una fecha del calendario
date-datetime_format = '{ $text }' no es una fecha y hora local con el formato AAAA-MM-DDThh:mm:ss (sin zona horaria)
date-time = '{ $text }' tiene una hora del día que no existe
date-digits = '{ $text }' tiene caracteres que no son dígitos donde van dígitos

# Reglas de la lectura de JSON (core/src/rule/json.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`.
# Se trata al lector de usted. Los términos `must_*` dicen qué debe ser un valor y los `found_*` qué se recibió.

-must_whole_number = debe ser un número entero
-must_number = debe ser un número
-must_text = debe ser texto
-must_text_or_number = debe ser texto o un número
-must_bool = debe ser true o false
-must_object = debe ser un objeto
-must_list = debe ser una lista
-wrong_type = tiene un tipo incorrecto
-found_text = texto
-found_empty_text = texto vacío
-found_number = un número
-found_bool = true/false
-found_null = null
-found_list = una lista
-found_object = un objeto

json-type = El valor { $must }; se recibió { $found }
json-type_any = El valor { $must }
json-body_type = El cuerpo de la solicitud { $must }; se recibió { $found }
json-body_type_any = El cuerpo de la solicitud { $must }
json-not_object = El cuerpo de la solicitud debe ser un objeto JSON
json-value = El valor { $must }
json-range = El valor debe ser un número entero de { $min } a { $max }
json-length = La lista tiene una cantidad incorrecta de elementos
json-variant = El valor debe ser uno de estos: { $allowed }
json-unknown_field = El campo no existe en este lugar
json-duplicate_field = El campo aparece más de una vez
json-missing = El campo es obligatorio
json-invalid = El valor no es válido ({ $detail })
json-unreadable = El valor no se puede leer
json-malformed = El texto no es un JSON válido: error en la línea { $line }, columna { $column } ({ $detail })
json-utf8 = La entrada no es texto UTF-8 válido (byte { $byte })
json-depth = El JSON tiene más de { $max } niveles de anidamiento
json-too_large = La solicitud tiene { $size } bytes; el límite es de { $max }
json-not_number = '{ $text }' no es un número
json-decimal_digits = '{ $text }' no es un número decimal representable (¿demasiados dígitos?)
json-no_value = La entrada se leyó, pero no dio ningún valor
json-whole_number = Se esperaba un número entero igual o mayor que 0, no { $got }
json-digits = Se esperaban como máximo { $max } dígitos, no "{ $got }"
json-code_type = Se esperaba un número o un texto de dígitos, no { $got }
json-too_big = { $value } es demasiado grande
json-date = Se esperaba una fecha con el formato AAAA-MM-DD, no "{ $got }"

# Reglas de la lectura de XML (core/src/rule/xml.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`.
# Los nombres técnicos de XML (CDATA, DOCTYPE, DTD) quedan como nombres.

# Lo que el analizador encontró mal (regla xml.syntax, parámetro `what`).
-xml-lex-ref_unclosed = referencia sin cerrar o vacía
-xml-lex-unclosed_pi = instrucción de procesamiento sin cerrar
-xml-lex-unclosed_end_tag = etiqueta de cierre sin terminar
-xml-lex-end_tag_mismatch = la etiqueta de cierre no corresponde a la de apertura
-xml-lex-end_tag_alone = etiqueta de cierre sin etiqueta de apertura
-xml-lex-unclosed_comment = comentario sin cerrar
-xml-lex-unclosed_cdata = sección CDATA sin cerrar
-xml-lex-unknown_markup = marcado desconocido después de '<!'
-xml-lex-bad_element_name = nombre de elemento no válido
-xml-lex-unclosed_start_tag = etiqueta de apertura sin terminar
-xml-lex-unclosed_attr_value = valor de atributo sin cerrar
-xml-lex-attr_separator = los atributos deben estar separados por espacios
-xml-lex-attr_syntax = sintaxis de atributo no válida
-xml-lex-attr_name = nombre de atributo no válido
-xml-lex-attr_lt = '<' en el valor de un atributo
-xml-lex-attr_ref_unclosed = referencia sin cerrar en el valor de un atributo
-xml-lex-attr_duplicate = atributo repetido

xml-syntax = El XML no está bien formado: { $what } en el byte { $at }
xml-doctype = No se admite DOCTYPE (ni DTD ni declaraciones de entidades)
xml-cdata_outside = Hay una sección CDATA fuera del elemento raíz
xml-text_outside = Hay texto fuera del elemento raíz
xml-unexpected_end = El documento termina antes de tiempo
xml-root_twice = Hay más de un elemento raíz
xml-unbalanced_end = Hay una etiqueta de cierre sin su apertura
xml-prefix_undeclared = El prefijo de espacio de nombres { $prefix } no está declarado
xml-prefix_empty_uri = El prefijo de espacio de nombres { $prefix } está asociado a un URI vacío
xml-entity_undeclared = Entidad no declarada '&{ $name };'
xml-char_ref = Referencia de carácter no válida '&{ $name };'
xml-char_ref_range = La referencia de carácter '&{ $name };' no corresponde a un carácter XML válido
xml-ref_unterminated = Referencia sin terminar
xml-attr_ref_unterminated = Referencia sin terminar en un atributo
xml-attr_lt = '<' en el valor de un atributo
xml-attr_value = Valor de atributo no válido. { $reason }
xml-depth = Hay elementos anidados a más de { $max } niveles
xml-namespaces = Hay más de { $max } declaraciones de espacios de nombres vigentes
xml-too_large = El XML tiene { $size } bytes; el límite es { $max }
xml-reader = El XML no está bien formado en el byte { $at }: { $detail }
xml-attr = Atributo no válido: { $detail }
xml-name_utf8 = El nombre de un elemento no está en UTF-8
xml-no_root = El documento no tiene elemento raíz
xml-root = El elemento raíz debe ser { $want } en el espacio de nombres http://ekuatia.set.gov.py/sifen/xsd, pero es { $name }
xml-malformed = { $reason }
xml-elements = El documento tiene más de { $max } elementos

# La forma que debe tener un valor del DE (regla xml.value, parámetro `what`).
-xml-value-integer = un número entero dentro del rango
-xml-value-decimal = un número decimal
-xml-value-date = una fecha AAAA-MM-DD
-xml-value-datetime = una fecha y hora AAAA-MM-DDThh:mm:ss

xml-utf8 = El XML no está en UTF-8 válido (byte { $at })
xml-element_missing = Falta el elemento obligatorio { $name }
xml-element_empty = El elemento obligatorio { $name } está vacío
xml-value = '{ $value }' no es { $what }
xml-version = La versión de formato (dVerFor) '{ $value }' no es compatible: kuatia lee la versión 150
xml-de_id = El DE no tiene el atributo Id (el CDC)
xml-de_dv = El dígito verificador dDVId '{ $dv }' no es el último dígito del CDC { $cdc }
xml-tipo = El tipo de documento { $tipo } no es uno de los que kuatia procesa (1, 4, 5, 6, 7)
xml-items = Un DE debe tener al menos un gCamItem

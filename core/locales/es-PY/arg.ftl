# Reglas de los errores de argumentos que escriben las interfaces mismas: C y WebAssembly (core/src/rule/arg.rs). El
# id de un mensaje es el de la regla con `-` en lugar de `.`. El nombre de un argumento (`arg`) y los errores del
# sistema (`detail`) quedan como están. Se trata al lector de usted.

host-arg-required = Falta el argumento { $arg }
host-arg-null = El argumento { $arg } no puede ser NULL
host-arg-utf8 = El argumento { $arg } no es UTF-8 válido (desde el byte { $byte })
host-arg-too_large = El argumento { $arg } tiene { $len } bytes; el límite es { $max }
host-arg-length = El argumento { $arg } debe tener { $expected } bytes, no { $got }
host-arg-aliased = Los argumentos { $other } y { $arg } deben ser búferes distintos
host-arg-enum = El argumento { $arg } no admite el valor { $value }; valores admitidos: { $allowed }
host-arg-choice = El argumento { $arg } no admite el valor '{ $value }'; valores admitidos: { $allowed }
host-arg-object = El argumento { $arg } debe ser un objeto
host-arg-pairs = El argumento { $arg } debe ser un objeto de textos o una lista de pares [nombre, valor]
host-arg-json = El argumento { $arg } no se puede escribir como JSON
host-arg-unix_time = El argumento { $arg } ({ $value }) no es una fecha representable: { $detail }
host-arg-unix_format = El argumento { $arg } ({ $value }) no es una fecha representable: { $detail }
host-panic = Error interno (se detuvo un pánico en el límite de la biblioteca); por favor, repórtelo
host-result-json = Error interno al escribir el resultado: { $detail }

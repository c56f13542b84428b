# Reglas de los rechazos que escriben las interfaces mismas: C, WebAssembly, la línea de comandos y los archivos de
# `kuatia serve` (core/src/rule/face.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`. El nombre de
# un argumento (`arg`) y los errores del sistema (`detail`) quedan como están. Se trata al lector de usted.

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
cli-key-not_found = No hay una clave '{ $key_id }' en este directorio de datos
cli-batch-failed = { $failed ->
        [one] Falló { $failed } de { $total } documentos
       *[other] Fallaron { $failed } de { $total } documentos
    }; el primero: { $file }: { $message }
cli-file-read = No se puede leer { $file }: { $detail }
cli-at = La fecha de `--at` '{ $value }' no tiene la forma AAAA-MM-DDThh:mm:ss (hora de Paraguay) ni RFC 3339
storage-file-write = No se pudo escribir { $file }: { $detail }
storage-file-sync = No se pudo asegurar en disco { $file }: { $detail }
numbering-file-corrupt = { $file }: { $detail }; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-sqlite = { $file }: SQLite no puede leerlo ({ $detail }); el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-integrity = { $file }: falla la verificación de integridad de SQLite ({ $detail }); el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-empty = { $file }: el archivo está vacío (truncado); el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-tables = { $file }: faltan las tablas de numeración; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-missing = { $file }: falta el estado mientras { $document } tiene el número { $numero }: un estado nuevo volvería a entregar sus números; no se emitió nada; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-behind = { $file }: el estado está atrasado respecto de los documentos: { $document } tiene el número { $numero } de la serie { $serie } (tipo de documento { $tipo }), pero el próximo número que entregaría el estado es { $next }, así que repetiría un número (una copia parcial, o una copia sin numbering.sqlite3-wal); no se emitió nada; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-state = { $file }: { $reason }; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-legacy_key = { $file }: secuencia desconocida '{ $key }'; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
numbering-file-document = { $file }: este documento no se puede leer ({ $reason }), así que su timbrado es desconocido: muévalo a otro lugar o restáurelo; el estado de la numeración nunca se reinicia: restáurelo junto con su archivo -wal, o reconstrúyalo desde los documentos firmados con kuatia numbering repair --out { $dir }
kude-unsigned = El documento no tiene dCarQR: emítalo (fírmelo) primero
sifen-tls-handshake = Falló la conexión TLS con SIFEN: { $detail }

# Reglas de los rechazos que escriben la línea de comandos y los archivos de `kuatia serve` (core/src/rule/face.rs). El
# id de un mensaje es el de la regla con `-` en lugar de `.`. Los nombres de archivo y los errores del sistema
# (`detail`) quedan como están. Se trata al lector de usted.

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

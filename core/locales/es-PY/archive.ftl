# Reglas del archivo mensual (core/src/rule/archive.rs): escribirlo y verificarlo. El id de un mensaje es el de la
# regla con `-` en lugar de `.`. `file` es el nombre de un miembro del archivo; los errores del sistema (`detail`)
# quedan como están.

archive-document = Documento { $cdc }: { $reason }
archive-not_zip = El archivo no es un zip: { $detail }
archive-member-missing = { $file }: no está en el archivo ({ $detail })
archive-member-unreadable = { $file }: no se puede leer ({ $detail })
archive-member-too_large = { $file }: supera los { $max } bytes
archive-member-digest = { $file }: SHA-256 { $sha256 } ({ $bytes } bytes), el manifiesto dice { $listed_sha256 } ({ $listed_bytes } bytes)
archive-member-unlisted = { $file }: está en el archivo pero no en el manifiesto
archive-index-unlisted = { $file }: no está en el manifiesto
archive-manifest-json = { $file }: { $detail }
archive-manifest-format = El manifiesto tiene el formato '{ $got }'; se esperaba '{ $expected }'
archive-signature = { $file }: { $reason }
archive-signature-reference = { $file }: la firma cubre '{ $id }', no este CDC
archive-signature-invalid = { $file }: la firma no es válida

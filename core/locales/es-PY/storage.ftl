# Reglas de las fallas del almacenamiento del servidor (core/src/rule/storage.rs). El id de un mensaje es el de la
# regla con `-` en lugar de `.`. Se trata al lector de usted.

storage-full = El almacenamiento está lleno; no se modificó nada, reintente la solicitud más tarde
storage-read_only = El almacenamiento es de solo lectura; no se modificó nada, reintente la solicitud más tarde
storage-busy = Otro proceso tiene bloqueado el almacenamiento; no se modificó nada, reintente la solicitud más tarde
storage-io = Falló el dispositivo de almacenamiento; no se modificó nada, reintente la solicitud más tarde
storage-shutting_down = El servicio se está deteniendo; no se modificó nada, reintente la solicitud más tarde
storage-failed = Falló el almacenamiento; no se modificó nada
storage-idempotency-invoice_missing = Falta la factura de esta Idempotency-Key
storage-archive-write = Error al escribir el archivo ({ $what }): { $detail }
storage-numbering-damaged = La base de datos de numeración está dañada ({ $detail }); restáurela desde una copia de seguridad: nunca se reinicia
storage-numbering-write = No se puede escribir en la base de datos de numeración: { $detail }
storage-numbering-read = No se puede leer la base de datos de numeración: { $detail }
storage-numbering-sequence = Una secuencia guardada no se puede decodificar ({ $detail })
storage-numbering-reservation = Una reserva de número guardada no se puede decodificar ({ $detail })

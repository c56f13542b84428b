# Reglas de la numeración y la emisión (core/src/rule/numbering.rs). El id de un mensaje es el de la regla con `-`
# en lugar de `.`. Se trata al lector de usted; los términos son los de la SET (timbrado, establecimiento, punto).

numbering-exhausted = La secuencia { $sequence } llegó a { $max }; se necesita un nuevo timbrado o una nueva serie
numbering-not_reserved = El número { $numero } de la secuencia { $sequence } no está reservado (o ya fue confirmado)
cert-production_required = Los documentos de producción se firman: cargue el certificado P12 del emisor

-estado_pending = pendiente
-estado_sent = enviada
-estado_approved = aprobada
-estado_rejected = rechazada
-estado_cancelled = cancelada
-trigger_submitted = enviada
-trigger_approved = aprobada
-trigger_rejected = rechazada
-trigger_resubmitted = reenviada
-trigger_cancelled = cancelada

sifen-transition = Una factura en estado '{ $from }' no puede ser { $trigger }

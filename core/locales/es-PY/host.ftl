# Reglas de las respuestas que escribe el servidor mismo (core/src/rule/host.rs). El id de un mensaje es el de la
# regla con `-` en lugar de `.`. Se trata al lector de usted.

host-request-timeout = No hubo respuesta en { $seconds } s; reintente (una emisión con la misma Idempotency-Key no se repite)
host-request-body_timeout = El cuerpo de la solicitud no llegó en { $seconds } s
host-request-too_large = El cuerpo de una solicitud no puede superar { $max } bytes
host-internal = Error interno del servidor
host-smtp-from = La dirección del remitente no se puede usar: { $detail }
host-smtp-url = La URL del servidor SMTP no se puede usar: { $detail }
host-smtp-password_in_url = No incluya la contraseña en la URL: escríbala en el campo de contraseña (se guarda sellada)
host-smtp-no_seal_key = Este servidor no guarda contraseñas (no tiene panel.key)
host-smtp-seal = No se pudo sellar la contraseña: { $detail }

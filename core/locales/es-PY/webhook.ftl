# Reglas de las operaciones de webhooks (core/src/rule/webhook.rs). El id de un mensaje es el de la regla con `-` en
# lugar de `.`. Se trata al lector de usted.

webhook-not_found = No existe un webhook con ese id
webhook-delivery-not_found = Este webhook no tiene una entrega con ese id
webhook-url-too_long = Admite como máximo { $max } caracteres
webhook-url-invalid = No es una URL válida: { $detail }
webhook-url-https = La URL del webhook debe usar https://
webhook-url-credentials = La URL de un webhook no puede llevar usuario ni contraseña
webhook-url-port_zero = El puerto 0 no es un puerto al que se pueda conectar
webhook-url-no_host = La URL del webhook no tiene host
webhook-url-not_allowed = La URL del webhook apunta a este equipo o a una dirección privada, de loopback o de enlace local
webhook-events-empty = Indique al menos un tipo de evento
webhook-events-unknown = '{ $value }' no es un tipo de evento ({ $kinds })
webhook-description-too_long = Admite como máximo { $max } caracteres

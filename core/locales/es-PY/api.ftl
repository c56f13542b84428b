# Reglas de las respuestas de la API /v1 (core/src/rule/api.rs): el resumen de un rechazo. El id de un mensaje es el
# de la regla con `-` en lugar de `.`. Se trata al lector de usted.

api-findings = Se encontraron { $count } problemas; vea los detalles
api-finding_at = { $code } en { $path }: { $message }
api-finding = { $code }: { $message }

# Reglas de las respuestas de la API /v1 (core/src/rule/api.rs): el resumen de un rechazo. El id de un mensaje es el
# de la regla con `-` en lugar de `.`. Se trata al lector de usted.

api-findings = { $count ->
        [one] Se encontró 1 problema
       *[other] Se encontraron { $count } problemas
    }; vea los detalles
api-finding_at = { $code } en { $path }: { $message }
api-finding = { $code }: { $message }

## Los rechazos propios del servicio.

api-route-not_found = No existe esa ruta
api-route-method = Use el método { $method }
api-route-methods = Use el método { $first } o { $last }
api-body-media_type = El cuerpo de la solicitud debe ser JSON (Content-Type: application/json), no '{ $media }'
api-auth-missing = Falta el encabezado Authorization: Bearer <clave de API>
api-auth-scheme = El encabezado Authorization debe tener la forma 'Bearer <clave de API>'
api-auth-malformed = La clave de API está mal formada (dk_test_… o dk_live_…)
api-auth-unknown = La clave de API no existe o fue revocada
api-auth-sandbox_header = Las claves de prueba (dk_test_) requieren el encabezado X-Environment: sandbox
api-auth-live_key = Una clave de producción (dk_live_) no se puede usar con X-Environment: el entorno de pruebas acepta claves dk_test_
api-idempotency-key = La Idempotency-Key debe tener de 1 a 255 caracteres
api-idempotency-in_progress = Una solicitud con esta Idempotency-Key todavía se está procesando; reintente en un momento
api-idempotency-conflict = Esta Idempotency-Key ya se usó con otro cuerpo de solicitud
api-query-encoding = Parámetro de consulta '{ $name }': la codificación porcentual no es válida
api-query-unknown = Parámetro de consulta '{ $name }': parámetro desconocido; esta ruta acepta { $takes }
api-query-no_params = Parámetro de consulta '{ $name }': parámetro desconocido; esta ruta no acepta parámetros
api-query-twice = Parámetro de consulta '{ $name }': se indicó dos veces
api-query-range = Parámetro de consulta '{ $name }': debe ser un número entero de 1 a { $max }
api-query-exclusive = Parámetro de consulta '{ $name }': indique per_page o limit, no ambos
api-query-datetime = Parámetro de consulta '{ $name }': debe ser una fecha y hora RFC 3339, por ejemplo 2025-01-31T12:00:00Z
api-query-status = Parámetro de consulta '{ $name }': debe ser uno de pending, sent, approved, rejected, cancelled
api-query-id = Parámetro de consulta '{ $name }': { $why }
api-query-numero = Parámetro de consulta '{ $name }': debe tener la forma EEE-PPP-NNNNNNN, por ejemplo 001-001-0000001
api-query-tipo_documento = Parámetro de consulta '{ $name }': debe ser un código de tipo de documento: 1, 4, 5, 6 o 7
api-query-order = Parámetro de consulta '{ $name }': debe ser asc o desc
api-query-cursor_page = Parámetro de consulta '{ $name }': un recorrido con cursor no acepta page
api-query-cursor_unknown = Parámetro de consulta '{ $name }': no existe una factura con ese id
api-query-month = Parámetro de consulta '{ $name }': debe ser un mes AAAA-MM de 1980-01 a 2107-12, por ejemplo 2026-11
api-query-month_required = Parámetro de consulta '{ $name }': es obligatorio; indique el mes de emisión, AAAA-MM
api-query-archive_limit = Parámetro de consulta '{ $name }': en ese mes se emitieron más de { $limit } documentos y esta interfaz solo entrega archivos más pequeños; `kuatia serve` entrega cualquier mes por partes, y `kuatia archive` lo escribe en el servidor
api-invoice-not_found = No existe una factura con ese id
api-cancel-pending = Una cancelación de esta factura está esperando la respuesta de SIFEN
api-cancel-status = Solo se pueden cancelar facturas aprobadas; esta está en estado '{ $status }'
api-cancel-stored_cdc = El CDC guardado de esta factura no es válido
api-cancel-certificate = Cargue un certificado P12 válido para operar en producción
api-kude-status = El KuDE se entrega solo para facturas aprobadas; esta está en estado '{ $status }'
api-xml-unsigned = Este documento nunca se firmó (entorno de pruebas sin certificado): no existe un XML firmado
api-email-status = Solo se envía por correo una factura aprobada (con su KuDE); esta está en estado '{ $status }'
api-email-invalid = No es una dirección de correo que SIFEN acepte (una sola dirección, de 3 a 80 caracteres, sin espacios)
api-email-missing = El documento no indica el correo del receptor (dEmailRec): indíquelo en `to`
api-email-not_stored = La factura de este mensaje no está guardada
api-email-unsupported = Este servidor no envía correos
api-production-not_configured = Esta cuenta no tiene perfil de producción (certificado, timbrado, CSC); vea la verificación previa (preflight)
api-numbering-unavailable = No se pudo confirmar la numeración: { $detail }
api-internal-no_finding = La emisión falló sin indicar el motivo
api-internal-serialize = No se pudo escribir la respuesta: { $detail }
api-profile-ambiente = Un perfil de producción debe tener ambiente 'produccion'
api-profile-timbrado = Ningún timbrado vigente cubre hoy la factura electrónica (1)
api-profile-first = Cargue primero el perfil de producción de la cuenta: el certificado debe llevar su RUC
api-account-not_found = No existe una cuenta con ese id

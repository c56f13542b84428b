# Reglas de la solicitud en su conjunto (core/src/rule/request.rs). El id de un mensaje es el de la regla con `-` en
# lugar de `.`. Términos: los tipos de documento (nombres de SIFEN), los casos de `request.required_for` y lo que
# cuenta `request.too_many`.

-factura = factura electrónica
-autofactura = autofactura electrónica
-nota_credito = nota de crédito electrónica
-nota_debito = nota de débito electrónica
-nota_remision = nota de remisión electrónica

-req_presencia_9 = cuando indicador_presencia es 9
-req_motivo_99 = para el motivo 99
-req_documento_tipo_9 = para el tipo de documento 9
-req_pago_99 = para el tipo de pago 99
-req_remision = en las notas de remisión
-req_impreso = para un documento impreso
-req_microproductor = para una constancia de microproductor

-pagos = pagos
-documentos_asociados = documentos asociados
-entregas = lugares de entrega
-vehiculos = vehículos

request-not_allowed = No se admite en una { $tipo }
request-required_for = Este dato es obligatorio { $case }
request-too_many = Se admiten como máximo { $max } { $what }
request-simulate-production = _simulate solo se acepta en el ambiente de pruebas
request-simulate-unknown = '{ $value }' no es uno de los valores admitidos: approved, rejected, pending, sent
request-unchecked = No se pudo verificar la solicitud
request-fecha-past = La fecha de emisión, { $fecha }, es de hace más de 30 días (720 horas)
request-fecha-future = La fecha de emisión, { $fecha }, es posterior en más de 5 días (120 horas) a la fecha actual
timbrado-not_valid = Ningún timbrado del emisor está vigente el { $fecha } para este establecimiento y punto de expedición
timbrado-not_covered = Ningún timbrado del emisor habilita este tipo de documento
request-moneda-autofactura = Una autofactura debe emitirse en guaraníes (PYG) (NT-012)
request-tipo_cambio-pyg = No corresponde indicar tipo de cambio para guaraníes
request-tipo_cambio-required = Se requiere el tipo de cambio a guaraníes para { $moneda }
request-descuento_global-range = Debe ser un porcentaje desde 0 hasta menos de 100, con 8 decimales como máximo
request-redondeo-not_allowed = El redondeo a 50 guaraníes solo se aplica a documentos en guaraníes con totales
request-motivo-required = Una nota de crédito o de débito requiere su motivo de emisión (1 a 8)
request-vendedor-required = Una autofactura requiere los datos del vendedor
request-remision-required = Una nota de remisión requiere el motivo y los kilómetros estimados del recorrido

credito-required = Una operación a crédito requiere sus condiciones (plazo o cuotas)
credito-plazo-required = Se requiere un plazo, por ejemplo "30 días"
credito-cuotas-required = Indique cantidad_cuotas o la lista de cuotas
credito-cuotas-count = No coincide con la cantidad de cuotas de la lista
credito-tipo-unknown = '{ $value }' no es plazo ni cuota
credito-not_allowed = Las condiciones de crédito solo corresponden con condicion_pago 2 (crédito)

asociado-required = Una { $tipo } debe hacer referencia al menos a un documento
asociado-cdc-emisor = Este CDC es un documento del RUC { $ruc }, no del emisor { $emisor }: solo se puede hacer referencia a documentos electrónicos propios del emisor (SIFEN 2439)
asociado-cdc-required = Un documento electrónico se indica por su CDC
asociado-timbrado-required = Un documento impreso requiere su número de timbrado
asociado-constancia-required = Una constancia requiere su tipo (1 no contribuyente, 2 microproductor)

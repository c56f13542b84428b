# Reglas del receptor (core/src/rule/receptor.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`.

receptor-b2f-ruc = El tipo de operación B2F (4) corresponde a receptores extranjeros no contribuyentes; quite el RUC
receptor-operacion-no_ruc = Un receptor sin RUC solo puede ser B2C (2) o B2F (4)
receptor-b2f-pais = Un receptor B2F está en el extranjero: el país no puede ser PRY
receptor-pais-foreign = Solo los receptores B2F (extranjeros no contribuyentes) pueden tener un país distinto de PRY
receptor-autofactura-ruc = En una autofactura el receptor es el propio emisor: el RUC debe ser el del emisor
receptor-autofactura-ruc_required = En una autofactura el receptor es el propio emisor: indique el RUC del emisor
receptor-innominado-nota = No se admite un receptor innominado en las notas de crédito, de débito ni de remisión
receptor-innominado-b2f = Un receptor innominado solo se admite en operaciones B2C
receptor-documento-required = Un receptor sin RUC requiere el número de su documento de identidad (o documento_tipo 5, innominado)
receptor-direccion-required = La dirección del receptor es obligatoria en las notas de remisión y en las operaciones B2F
receptor-ciudad-required = Con una dirección en Paraguay, se requieren departamento y ciudad

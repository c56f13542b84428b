# Reglas del transporte (core/src/rule/transporte.rs). El id de un mensaje es el de la regla con `-` en lugar
# de `.`.

transporte-required = Una nota de remisión requiere los datos del transporte
transporte-inicio-required = La fecha de inicio del traslado es obligatoria en las notas de remisión
transporte-salida-required = El lugar de salida es obligatorio en las notas de remisión
transporte-entregas-required = Las notas de remisión requieren al menos un lugar de entrega
transporte-vehiculos-required = Las notas de remisión requieren al menos un vehículo
transporte-vehiculo-matricula = Un vehículo requiere su número de matrícula o de identificación
transporte-transportista-documento = El transportista requiere un RUC o un número de documento de identidad
transporte-transportista-required = El transporte por terceros requiere los datos del transportista y del chofer

# Rules of the transport group (core/src/rule/transporte.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

transporte-required = a remission note needs the transport data
transporte-inicio-required = start date of the transfer is required for remission notes
transporte-salida-required = the departure place is required for remission notes
transporte-entregas-required = at least one delivery place is required for remission notes
transporte-vehiculos-required = at least one vehicle is required for remission notes
transporte-vehiculo-matricula = a vehicle needs its plate or identification number
transporte-transportista-documento = the carrier needs a RUC or an ID document number
transporte-transportista-required = third-party transport needs the carrier and driver

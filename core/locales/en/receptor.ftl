# Rules of the receiver (core/src/rule/receptor.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

receptor-b2f-ruc = B2F (4) is for non-taxpayer foreign receivers; remove the RUC
receptor-operacion-no_ruc = a receiver without RUC can only be B2C (2) or B2F (4)
receptor-b2f-pais = a B2F receiver is abroad: country must not be PRY
receptor-pais-foreign = only B2F (foreign, non-taxpayer) receivers may have a country other than PRY
receptor-autofactura-ruc = in an autofactura the receiver is the emitter itself: RUC must equal the emitter's
receptor-autofactura-ruc_required = in an autofactura the receiver is the emitter: give the emitter's RUC
receptor-innominado-nota = an innominado receiver is not allowed in notes
receptor-innominado-b2f = an innominado receiver is only allowed for B2C
receptor-documento-required = a receiver without RUC needs an ID document number (or documento_tipo 5, innominado)
receptor-direccion-required = the receiver's address is required for remission notes and B2F
receptor-ciudad-required = with an address in Paraguay, departamento and ciudad are required

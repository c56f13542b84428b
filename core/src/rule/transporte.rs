//! Rules of the transport group (`transporte`) of remissions and facturas. Catalogs:
//! `core/locales/<lang>/transporte.ftl`.

rules! {
    /// A remission note lacks its transport group.
    transporte_required / TRANSPORTE_REQUIRED = "transporte.required" => REQUIRED {};
    /// A remission note's transport lacks its start date.
    transporte_inicio_required / TRANSPORTE_INICIO_REQUIRED = "transporte.inicio.required" => REQUIRED {};
    /// A remission note's transport lacks its departure place.
    transporte_salida_required / TRANSPORTE_SALIDA_REQUIRED = "transporte.salida.required" => REQUIRED {};
    /// A remission note's transport has no delivery place.
    transporte_entregas_required / TRANSPORTE_ENTREGAS_REQUIRED = "transporte.entregas.required" => REQUIRED {};
    /// A remission note's transport has no vehicle.
    transporte_vehiculos_required / TRANSPORTE_VEHICULOS_REQUIRED = "transporte.vehiculos.required" => REQUIRED {};
    /// A vehicle has neither plate nor identification number.
    transporte_vehiculo_matricula / TRANSPORTE_VEHICULO_MATRICULA = "transporte.vehiculo.matricula" => REQUIRED {};
    /// The carrier has neither RUC nor identity document number.
    transporte_transportista_documento / TRANSPORTE_TRANSPORTISTA_DOCUMENTO = "transporte.transportista.documento" => REQUIRED {};
    /// Third-party transport of a remission note lacks the carrier.
    transporte_transportista_required / TRANSPORTE_TRANSPORTISTA_REQUIRED = "transporte.transportista.required" => REQUIRED {};
}

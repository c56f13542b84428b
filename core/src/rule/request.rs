//! Rules of the request as a whole: the document type and what it allows, the emission date and stamp, the
//! currency, the credit terms, the adjustments and the associated documents. Catalogs:
//! `core/locales/<lang>/request.ftl`, with the document types as terms.

rules! {
    /// A field is given that this document type does not have; `tipo` is the document type (a catalog term).
    request_not_allowed / REQUEST_NOT_ALLOWED = "request.not_allowed" => NOT_ALLOWED { tipo: Term = "nota_remision" };
    /// A field is missing that another field's value requires; `case` says which (a catalog term).
    request_required_for / REQUEST_REQUIRED_FOR = "request.required_for" => REQUIRED { case: Term = "req_motivo_99" };
    /// A list has more entries than SIFEN accepts; `what` names the entries (a catalog term).
    request_too_many / REQUEST_TOO_MANY = "request.too_many" => TOO_LARGE { max: Int = "99", what: Term = "entregas" };
    /// `_simulate` is given in production.
    request_simulate_production / REQUEST_SIMULATE_PRODUCTION = "request.simulate.production" => SIMULATE_NOT_ALLOWED {};
    /// `_simulate` is not one of the outcomes the sandbox simulates.
    request_simulate_unknown / REQUEST_SIMULATE_UNKNOWN = "request.simulate.unknown" => INVALID_VALUE { value: Text = "ok" };
    /// The request passed no rule and failed none (should not happen).
    request_unchecked / REQUEST_UNCHECKED = "request.unchecked" => VALIDATION_ERROR {};
    /// The emission date is more than 720 hours before now (SIFEN D002).
    request_fecha_past / REQUEST_FECHA_PAST = "request.fecha.past" => OUT_OF_RANGE { fecha: DateTime = "2025-02-01T10:11:00" };
    /// The emission date is more than 120 hours after now (SIFEN D002).
    request_fecha_future / REQUEST_FECHA_FUTURE = "request.fecha.future" => OUT_OF_RANGE { fecha: DateTime = "2025-03-20T08:00:00" };
    /// No stamp of the emitter is valid on the emission date for the establishment and point.
    timbrado_not_valid / TIMBRADO_NOT_VALID = "timbrado.not_valid" => INVALID_TIMBRADO { fecha: Date = "2025-03-10" };
    /// No stamp of the emitter covers the document type.
    timbrado_not_covered / TIMBRADO_NOT_COVERED = "timbrado.not_covered" => INVALID_TIMBRADO {};
    /// An autofactura in another currency than guaraníes (NT-012).
    request_moneda_autofactura / REQUEST_MONEDA_AUTOFACTURA = "request.moneda.autofactura" => NOT_ALLOWED {};
    /// An exchange rate is given for guaraníes.
    request_tipo_cambio_pyg / REQUEST_TIPO_CAMBIO_PYG = "request.tipo_cambio.pyg" => NOT_ALLOWED {};
    /// A document in another currency lacks its exchange rate to guaraníes.
    request_tipo_cambio_required / REQUEST_TIPO_CAMBIO_REQUIRED = "request.tipo_cambio.required" => REQUIRED { moneda: Text = "USD" };
    /// The global discount is not a percentage from 0 to below 100 with at most 8 decimals.
    request_descuento_global_range / REQUEST_DESCUENTO_GLOBAL_RANGE = "request.descuento_global.range" => OUT_OF_RANGE {};
    /// The 50-guaraní rounding is asked for a document without guaraní totals.
    request_redondeo_not_allowed / REQUEST_REDONDEO_NOT_ALLOWED = "request.redondeo.not_allowed" => NOT_ALLOWED {};
    /// A credit or debit note lacks its motive.
    request_motivo_required / REQUEST_MOTIVO_REQUIRED = "request.motivo.required" => REQUIRED {};
    /// An autofactura lacks its seller.
    request_vendedor_required / REQUEST_VENDEDOR_REQUIRED = "request.vendedor.required" => REQUIRED {};
    /// A remission note lacks its remission group.
    request_remision_required / REQUEST_REMISION_REQUIRED = "request.remision.required" => REQUIRED {};
    /// A sale on credit lacks its terms.
    credito_required / CREDITO_REQUIRED = "credito.required" => REQUIRED {};
    /// A credit by term lacks the term.
    credito_plazo_required / CREDITO_PLAZO_REQUIRED = "credito.plazo.required" => REQUIRED {};
    /// A credit in instalments gives neither their number nor their list.
    credito_cuotas_required / CREDITO_CUOTAS_REQUIRED = "credito.cuotas.required" => REQUIRED {};
    /// The number of instalments differs from the instalments listed.
    credito_cuotas_count / CREDITO_CUOTAS_COUNT = "credito.cuotas.count" => INCONSISTENT {};
    /// The kind of credit is neither `plazo` nor `cuota`.
    credito_tipo_unknown / CREDITO_TIPO_UNKNOWN = "credito.tipo.unknown" => INVALID_VALUE { value: Text = "mensual" };
    /// Credit terms are given for a cash sale.
    credito_not_allowed / CREDITO_NOT_ALLOWED = "credito.not_allowed" => NOT_ALLOWED {};
    /// A note or autofactura refers to no document; `tipo` is the document type (a catalog term).
    asociado_required / ASOCIADO_REQUIRED = "asociado.required" => REQUIRED { tipo: Term = "nota_credito" };
    /// An associated CDC is another emitter's document (SIFEN 2439).
    asociado_cdc_emisor / ASOCIADO_CDC_EMISOR = "asociado.cdc.emisor" => INCONSISTENT { ruc: Text = "80069563-1", emisor: Text = "80012345-7" };
    /// An associated electronic document lacks its CDC.
    asociado_cdc_required / ASOCIADO_CDC_REQUIRED = "asociado.cdc.required" => REQUIRED {};
    /// An associated printed document lacks its stamp number.
    asociado_timbrado_required / ASOCIADO_TIMBRADO_REQUIRED = "asociado.timbrado.required" => REQUIRED {};
    /// An associated constancia lacks its type.
    asociado_constancia_required / ASOCIADO_CONSTANCIA_REQUIRED = "asociado.constancia.required" => REQUIRED {};
}

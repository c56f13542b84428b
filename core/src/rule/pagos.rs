//! Rules of the payments (`pagos`). Catalogs: `core/locales/<lang>/pagos.ftl`.

rules! {
    /// A bank payment (16) without the presence indicator 5 (bank operation).
    pagos_bancario_presencia / PAGOS_BANCARIO_PRESENCIA = "pagos.bancario.presencia" => INCONSISTENT {};
    /// One of several payments lacks its amount.
    pagos_monto_required / PAGOS_MONTO_REQUIRED = "pagos.monto.required" => REQUIRED {};
    /// A payment in another currency than the document's lacks its exchange rate.
    pagos_tipo_cambio_required / PAGOS_TIPO_CAMBIO_REQUIRED = "pagos.tipo_cambio.required" => REQUIRED {};
    /// Card data for a payment that is not by card (3, 4).
    pagos_tarjeta_not_allowed / PAGOS_TARJETA_NOT_ALLOWED = "pagos.tarjeta.not_allowed" => NOT_ALLOWED {};
    /// A cheque lacks its number.
    pagos_cheque_numero / PAGOS_CHEQUE_NUMERO = "pagos.cheque.numero" => REQUIRED {};
    /// A cheque lacks its issuing bank.
    pagos_cheque_banco / PAGOS_CHEQUE_BANCO = "pagos.cheque.banco" => REQUIRED {};
}

//! Rules over the computed items and totals: net prices, the totals' digits, the innominado limit, the instalments.
//! Catalogs: `core/locales/<lang>/totals.ftl`.

rules! {
    /// An item's discount plus its share of the global discount (`descuento` per unit, a decimal:
    /// finer than the currency's unit) exceed its unit price.
    totals_descuento_net / TOTALS_DESCUENTO_NET = "totals.descuento.net" => OUT_OF_RANGE { item: Int = "0", descuento: Dec = "1500.5" };
    /// An innominado receiver for a total of 7 000 000 guaraníes or more (NT-024).
    totals_innominado_limit / TOTALS_INNOMINADO_LIMIT = "totals.innominado.limit" => NOT_ALLOWED {};
    /// The grand total has more than 15 integer digits.
    totals_total_digits / TOTALS_TOTAL_DIGITS = "totals.total.digits" => OUT_OF_RANGE {};
    /// The grand total in guaraníes (`dTotalGs`) has more than 15 integer digits.
    totals_total_gs_digits / TOTALS_TOTAL_GS_DIGITS = "totals.total_gs.digits" => OUT_OF_RANGE {};
    /// The instalments plus the down payment do not add up to the grand total.
    totals_cuotas_sum / TOTALS_CUOTAS_SUM = "totals.cuotas.sum" => INCONSISTENT { total: Money = "1100000", moneda: Text = "PYG" };
    /// The down payment is not below the grand total.
    totals_entrega_exceeds / TOTALS_ENTREGA_EXCEEDS = "totals.entrega.exceeds" => OUT_OF_RANGE {};
}

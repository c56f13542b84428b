//! Rules of computing a document (core/src/totals.rs, core/src/document.rs): an item's IVA treatment, the amounts
//! that cannot be computed, and what building the document refuses. Catalogs: `core/locales/<lang>/calc.ftl`.

rules! {
    /// An item's IVA rate is not 10, 5 or 0.
    calc_iva_rate / CALC_IVA_RATE = "calc.iva_rate" => INVALID_VALUE { rate: Percent = "7" };
    /// An item's `afectacion_iva` is not 1 (gravado), 2 (exonerado), 3 (exento) or 4 (gravado parcial).
    calc_afectacion / CALC_AFECTACION = "calc.afectacion" => INVALID_VALUE { value: Int = "5" };
    /// An item has neither an IVA rate nor an `afectacion_iva`.
    calc_iva_required / CALC_IVA_REQUIRED = "calc.iva_required" => REQUIRED {};
    /// An exonerated or exempt item has an IVA rate other than 0.
    calc_iva_exempt / CALC_IVA_EXEMPT = "calc.iva_exempt" => INCONSISTENT { rate: Int = "10" };
    /// A taxed item (gravado or gravado parcial) has no IVA rate 5 or 10.
    calc_iva_taxed / CALC_IVA_TAXED = "calc.iva_taxed" => INCONSISTENT {};
    /// A gravado parcial item has no `proporcion_iva`.
    calc_proporcion_required / CALC_PROPORCION_REQUIRED = "calc.proporcion_required" => REQUIRED {};
    /// An item's `proporcion_iva` does not fit its `afectacion_iva` (100, 0, or between them with at most 8 decimals).
    calc_proporcion / CALC_PROPORCION = "calc.proporcion" => OUT_OF_RANGE { value: Percent = "50", afectacion: Int = "1" };
    /// The document type is none of those kuatia computes (1, 4, 5, 6, 7).
    calc_tipo_documento / CALC_TIPO_DOCUMENTO = "calc.tipo_documento" => INVALID_VALUE { value: Int = "2" };
    /// An item's amounts are too large to compute exactly (28 significant digits).
    calc_item_overflow / CALC_ITEM_OVERFLOW = "calc.item_overflow" => OUT_OF_RANGE {};
    /// The document's totals are too large to compute exactly.
    calc_totals_overflow / CALC_TOTALS_OVERFLOW = "calc.totals_overflow" => OUT_OF_RANGE {};
    /// The security code of the CDC equals the document number (MT §10.3).
    calc_security_code / CALC_SECURITY_CODE = "calc.security_code" => VALIDATION_ERROR {};
}

//! Rules of the receiver (`receptor`): kind of operation, country, identity and address. Catalogs:
//! `core/locales/<lang>/receptor.ftl`.

rules! {
    /// A receiver with RUC is declared B2F, which is for foreign non-taxpayers.
    receptor_b2f_ruc / RECEPTOR_B2F_RUC = "receptor.b2f.ruc" => INCONSISTENT {};
    /// A receiver without RUC is declared B2B or B2G.
    receptor_operacion_no_ruc / RECEPTOR_OPERACION_NO_RUC = "receptor.operacion.no_ruc" => INCONSISTENT {};
    /// A B2F receiver has Paraguay as country.
    receptor_b2f_pais / RECEPTOR_B2F_PAIS = "receptor.b2f.pais" => INCONSISTENT {};
    /// A receiver that is not B2F has a country other than Paraguay.
    receptor_pais_foreign / RECEPTOR_PAIS_FOREIGN = "receptor.pais.foreign" => INCONSISTENT {};
    /// In an autofactura the receiver's RUC is not the emitter's.
    receptor_autofactura_ruc / RECEPTOR_AUTOFACTURA_RUC = "receptor.autofactura.ruc" => INCONSISTENT {};
    /// In an autofactura the receiver (the emitter) lacks its RUC.
    receptor_autofactura_ruc_required / RECEPTOR_AUTOFACTURA_RUC_REQUIRED = "receptor.autofactura.ruc_required" => REQUIRED {};
    /// An innominado receiver in a note.
    receptor_innominado_nota / RECEPTOR_INNOMINADO_NOTA = "receptor.innominado.nota" => NOT_ALLOWED {};
    /// An innominado receiver in a B2F operation.
    receptor_innominado_b2f / RECEPTOR_INNOMINADO_B2F = "receptor.innominado.b2f" => NOT_ALLOWED {};
    /// A receiver without RUC lacks an identity document number.
    receptor_documento_required / RECEPTOR_DOCUMENTO_REQUIRED = "receptor.documento.required" => REQUIRED {};
    /// The receiver's address is missing where it is required (remission notes, B2F).
    receptor_direccion_required / RECEPTOR_DIRECCION_REQUIRED = "receptor.direccion.required" => REQUIRED {};
    /// An address in Paraguay lacks its department and city.
    receptor_ciudad_required / RECEPTOR_CIUDAD_REQUIRED = "receptor.ciudad.required" => REQUIRED {};
}

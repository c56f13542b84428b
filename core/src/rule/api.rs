//! Rules of the `/v1` API's own answers (kuatia-service): the summary line of a refusal made of findings. Catalogs:
//! `core/locales/<lang>/api.ftl`.

rules! {
    /// The summary of a refusal with several findings (each is in `details`).
    api_findings / API_FINDINGS = "api.findings" => VALIDATION_ERROR { count: Int = "3" };
    /// The summary of a refusal with one finding about one field: its code, path and message.
    api_finding_at / API_FINDING_AT = "api.finding_at" => VALIDATION_ERROR { code: Text = "INVALID_RUC", path: Text = "receptor.ruc", message: Text = "El RUC está vacío" };
    /// The summary of a refusal with one finding about the whole request: its code and message.
    api_finding / API_FINDING = "api.finding" => VALIDATION_ERROR { code: Text = "VALIDATION_ERROR", message: Text = "La solicitud está vacía" };
}

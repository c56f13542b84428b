//! Rules of the account panel's own form checks (kuatia-panel: the production profile and certificate forms), which
//! the panel shows in Spanish. Catalogs: `core/locales/<lang>/panel.ftl`.

rules! {
    /// A required field of a form is empty.
    panel_form_required / PANEL_FORM_REQUIRED = "panel.form.required" => REQUIRED {};
    /// A form field that must be a whole number is not one.
    panel_form_whole_number / PANEL_FORM_WHOLE_NUMBER = "panel.form.whole_number" => INVALID_VALUE {};
    /// A form date that is not `YYYY-MM-DD`.
    panel_form_date / PANEL_FORM_DATE = "panel.form.date" => INVALID_FORMAT {};
    /// A line of economic activities that is not `code | description`.
    panel_profile_actividad / PANEL_PROFILE_ACTIVIDAD = "panel.profile.actividad" => INVALID_VALUE {};
    /// A line of stamps that does not have its six `|`-separated parts.
    panel_profile_timbrado / PANEL_PROFILE_TIMBRADO = "panel.profile.timbrado" => INVALID_VALUE {};
    /// A stamp's document types that are not comma-separated numbers.
    panel_profile_tipos / PANEL_PROFILE_TIPOS = "panel.profile.tipos" => INVALID_VALUE {};
    /// The certificate form was sent without a file.
    panel_certificate_no_file / PANEL_CERTIFICATE_NO_FILE = "panel.certificate.no_file" => P12_INVALID {};
    /// The certificate was refused without a finding (a bug).
    panel_certificate_refused / PANEL_CERTIFICATE_REFUSED = "panel.certificate.refused" => CERTIFICATE_INVALID {};
    /// The host could not install a checked certificate; `detail` is its reason (not translated).
    panel_certificate_install / PANEL_CERTIFICATE_INSTALL = "panel.certificate.install" => INTERNAL_ERROR { detail: Text = "the data directory is read-only" };
}

//! The pages of a signed-in session, one file each, and what they share (labels, the 403 and 404 pages, findings).

mod certificate;
#[cfg(feature = "email")]
mod email;
mod invoices;
mod keys;
mod profile;
mod readiness;
mod webhooks;

use crate::html::{esc, notice, page};
use kuatia_core::error::Finding;
use kuatia_service::auth::Environment;
use kuatia_service::{rfc3339, HttpResponse};

pub(crate) fn env_param(v: Option<&str>, default: Environment) -> Environment {
    match v {
        Some("produccion") => Environment::Production,
        Some("sandbox") => Environment::Sandbox,
        _ => default,
    }
}

pub(crate) fn env_label(env: Environment) -> &'static str {
    match env {
        Environment::Sandbox => "Sandbox (pruebas)",
        Environment::Production => "Producción",
    }
}

pub(crate) fn date_of(t: i64) -> String {
    rfc3339(t).get(..10).unwrap_or_default().to_string()
}

pub(crate) fn forbidden() -> HttpResponse {
    page(
        403,
        "Solicitud rechazada",
        None,
        "",
        &notice(
            "error",
            "El formulario no lleva un código de seguridad válido (CSRF). Vuelva a la página, recárguela y envíelo de nuevo. <a href=\"/panel\">Volver al panel</a>",
        ),
    )
}

pub(crate) fn not_found() -> HttpResponse {
    page(
        404,
        "Página no encontrada",
        None,
        "",
        "<p>Esa página no existe. <a href=\"/panel\">Volver al panel</a></p>",
    )
}

/// Spanish text of a finding: its message from the Spanish catalog (the panel is Spanish), with the field it
/// concerns.
pub(crate) fn finding_text(f: &Finding) -> String {
    let message = f.message_in(kuatia_core::msg::Lang::EsPy);
    if f.path.is_empty() {
        message
    } else {
        format!("{message} (campo {})", f.path)
    }
}

/// Spanish text of a refused operation's message (the panel is Spanish): rendered from its rule, as built when it
/// has none.
pub(crate) fn error_text(e: &kuatia_service::ApiError) -> String {
    let mut e = e.clone();
    e.localize(kuatia_core::msg::Lang::EsPy);
    e.message
}

pub(crate) fn findings_html(intro: &str, findings: &[Finding]) -> String {
    let items: String = findings
        .iter()
        .map(|f| {
            format!(
                "<li><code>{}</code>: {}</li>",
                esc(&f.code),
                esc(&finding_text(f))
            )
        })
        .collect();
    notice("error", &format!("<p>{}</p><ul>{items}</ul>", esc(intro)))
}

#[cfg(test)]
mod finding_text_tests {
    use super::*;

    /// The panel is Spanish: a finding with a rule is shown from the Spanish catalog, whatever it was built in.
    #[test]
    fn findings_are_shown_in_spanish() {
        let f = kuatia_core::rule::ruc_check_digit("ruc", 1, 2);
        assert_eq!(
            finding_text(&f),
            "El dígito verificador del RUC no corresponde: debería ser 1, no 2 (campo ruc)"
        );
        let mut english = kuatia_core::rule::json_missing("");
        english.localize(kuatia_core::msg::Lang::En);
        assert_eq!(finding_text(&english), "El campo es obligatorio");
    }

    /// A refusal of the service behind the panel, even one rendered in English, is shown from the Spanish catalog.
    #[test]
    fn refusals_are_shown_in_spanish() {
        let mut e =
            kuatia_service::ApiError::of(409, kuatia_core::rule::api_kude_status("", "pending"));
        assert!(e.localize(kuatia_core::msg::Lang::En));
        assert!(e.message.starts_with("the KuDE"));
        assert_eq!(
            error_text(&e),
            "El KuDE se entrega solo para facturas aprobadas; esta está en estado 'pending'"
        );
        let host = kuatia_service::ApiError::of(500, kuatia_core::rule::storage_failed(""));
        assert_eq!(
            error_text(&host),
            "Falló el almacenamiento; no se modificó nada"
        );
    }
}

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

/// Spanish text of a finding: what the core said, with the field it concerns.
pub(crate) fn finding_text(f: &Finding) -> String {
    if f.path.is_empty() {
        f.message.clone()
    } else {
        format!("{} (campo {})", f.message, f.path)
    }
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

//! The invoice page's "Correo al comprador" block (issue 36): each message the service queued for the buyer (to,
//! subject, status with the reason of a failure, attempts, time), the full text of a captured one (what the buyer
//! would get: subject, body, attachment names), and the "Reenviar" form.

use crate::form::Form;
use crate::html::{csrf_field, esc, notice};
use crate::{caller, Ctx, Session};
use kuatia_service::auth::Environment;
use kuatia_service::email::{self, EmailInput, EmailKind, EmailResource};
use kuatia_service::{HttpResponse, Invoice, Store};

/// A message's status as the block shows it.
pub(crate) fn email_status_label(s: &str) -> &'static str {
    match s {
        email::PENDING => "pendiente",
        email::SENT => "enviado",
        email::FAILED => "fallido",
        email::CAPTURED => "capturado",
        _ => "desconocido",
    }
}

impl<S: Store> Ctx<'_, S> {
    /// The block for `inv`, listed through the service's `email_log`.
    pub(crate) fn email_block(&self, s: &Session, q: &Form, inv: &Invoice) -> String {
        let principal = caller(s, q, Environment::Sandbox);
        let messages = self.svc.email_log(&principal, &inv.id).unwrap_or_default();
        let e = principal.env.as_str();
        let mut rows = String::new();
        let mut captured = String::new();
        for m in &messages {
            let status = match (m.status.as_str(), &m.reason) {
                (email::FAILED, Some(r)) => format!("fallido: {}", esc(r)),
                (st, _) => email_status_label(st).to_string(),
            };
            let when = m
                .log
                .last()
                .map_or(m.created_at.as_str(), |a| a.at.as_str());
            rows.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td><span class=\"badge {}\">{status}</span></td><td>{}</td><td>{}</td></tr>",
                esc(&m.to),
                esc(&m.subject),
                esc(&m.status),
                m.attempts,
                esc(when),
            ));
            if m.status == email::CAPTURED {
                captured.push_str(&captured_text(m, inv));
            }
        }
        let list = if messages.is_empty() {
            "<p class=\"hint\">No hay mensajes para esta factura (el documento no indica correo del receptor, o todavía no fue aprobado).</p>".to_string()
        } else {
            format!("<div class=\"table\"><table><caption class=\"hint\">Mensajes al comprador</caption><thead><tr><th scope=\"col\">Para</th><th scope=\"col\">Asunto</th><th scope=\"col\">Estado</th><th scope=\"col\">Intentos</th><th scope=\"col\">Fecha</th></tr></thead><tbody>{rows}</tbody></table></div>")
        };
        let resend = if inv.status == kuatia_core::lifecycle::Estado::Approved {
            format!(
                "<form method=\"post\" action=\"/panel/facturas/{id}/correo\">{c}<input type=\"hidden\" name=\"entorno\" value=\"{e}\">\
<label for=\"para\">Otra dirección (opcional; por defecto, la del documento)</label><input type=\"email\" id=\"para\" name=\"para\" maxlength=\"80\">\
<button type=\"submit\" class=\"secondary\">Reenviar</button></form>",
                id = esc(&inv.id),
                c = csrf_field(&s.csrf),
            )
        } else {
            String::new()
        };
        format!("<section aria-labelledby=\"correo\"><h2 id=\"correo\">Correo al comprador</h2>{list}{captured}{resend}</section>")
    }

    /// `POST /panel/facturas/{id}/correo`: the service's `resend_email` to `para` (or the document's address), then
    /// the invoice page with what happened.
    pub(crate) fn resend_email_page(
        &mut self,
        s: &Session,
        id: &str,
        form: &Form,
        now: i64,
    ) -> HttpResponse {
        let principal = caller(s, form, Environment::Sandbox);
        let to = form.text("para");
        let input = EmailInput {
            to: (!to.trim().is_empty()).then_some(to),
        };
        let (message, status) = match self.svc.resend_email(&principal, id, input, now) {
            Ok(m) => (
                notice(
                    "ok",
                    &format!(
                        "Mensaje a {}: {}.",
                        esc(&m.to),
                        email_status_label(&m.status)
                    ),
                ),
                200,
            ),
            Err(e) if e.details.is_empty() => {
                (notice("error", &esc(&super::error_text(&e))), e.status)
            }
            Err(e) => (
                super::findings_html("No se pudo reenviar el correo:", &e.details),
                e.status,
            ),
        };
        let mut page = self.invoice_page(s, id, form, &message);
        if page.status == 200 {
            page.status = status;
        }
        page
    }
}

/// The full text of a captured message: what the buyer would get.
fn captured_text(m: &EmailResource, inv: &Invoice) -> String {
    let files = email::attachment_names(m.kind, &inv.cdc, inv.signed);
    let files = if files.is_empty() {
        "ninguno".to_string()
    } else {
        files.iter().map(|f| esc(f)).collect::<Vec<_>>().join(", ")
    };
    let kind = match m.kind {
        EmailKind::Approved => "documento aprobado",
        EmailKind::Cancelled => "aviso de cancelación",
    };
    format!(
        "<details open><summary>Mensaje capturado para {to} ({kind}): lo que recibiría el comprador</summary>\
<dl class=\"facts\"><dt>Asunto</dt><dd>{subject}</dd><dt>Adjuntos</dt><dd>{files}</dd></dl><pre class=\"email-body\">{body}</pre></details>",
        to = esc(&m.to),
        subject = esc(&m.subject),
        body = esc(&m.body),
    )
}

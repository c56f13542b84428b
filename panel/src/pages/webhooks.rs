//! Webhooks of an environment: register (the secret shown once), delete, queue a test event, and each one's latest
//! deliveries.

use super::{env_label, findings_html, not_found};
use crate::form::{self, Form};
use crate::html::{csrf_field, esc, notice};
use crate::{caller, Ctx, Session};
use kuatia_core::lifecycle::EventKind;
use kuatia_service::auth::Environment;
use kuatia_service::webhook::{WebhookInput, EVENT_KINDS};
use kuatia_service::{rfc3339, Host, HttpResponse, Store};
use serde::Deserialize;
use zeroize::Zeroizing;

pub(crate) fn delivery_label(s: &str) -> &'static str {
    match s {
        "pending" => "Pendiente",
        "delivered" => "Entregado",
        "failed" => "Fallido",
        "cancelled" => "Cancelado",
        _ => "Desconocido",
    }
}

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn webhooks_page(
        &self,
        s: &Session,
        q: &Form,
        message: &str,
        now: i64,
    ) -> HttpResponse {
        let principal = caller(s, q, Environment::Production);
        let env = principal.env;
        let mut list = String::new();
        for w in self.svc.list_webhooks(&principal, 1, usize::MAX, now).data {
            let events: Vec<String> = w.events.iter().map(|e| e.as_str().to_string()).collect();
            let (deliveries, total) = self.svc.store.webhook_deliveries(&w.id, 0, 10);
            let mut log = String::new();
            for d in &deliveries {
                let last = d.log.last();
                let answer = last
                    .map(|a| match (a.status, &a.error) {
                        (Some(st), _) => format!("HTTP {st}"),
                        (None, Some(e)) => e.clone(),
                        _ => "—".into(),
                    })
                    .unwrap_or_else(|| "sin intentos".into());
                let kind = serde_json::from_str::<EventKindOnly>(&d.body)
                    .map(|e| e.kind)
                    .unwrap_or_default();
                let when = last
                    .map(|a| rfc3339(a.at))
                    .unwrap_or_else(|| rfc3339(d.first_due_at));
                log.push_str(&format!(
                    "<tr><td class=\"wide\"><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td class=\"wide\">{}</td><td>{}</td></tr>",
                    esc(&d.id), esc(&kind), esc(&when), delivery_label(&d.status), d.attempts, esc(&answer)
                ));
            }
            let log = if deliveries.is_empty() {
                "<p class=\"hint\">Todavía no hubo envíos.</p>".to_string()
            } else {
                format!("<div class=\"table\"><table><caption class=\"hint\">Últimos envíos ({total} en total)</caption><thead><tr><th scope=\"col\" class=\"wide\">Envío</th><th scope=\"col\">Evento</th><th scope=\"col\">Fecha</th><th scope=\"col\">Estado</th><th scope=\"col\" class=\"wide\">Intentos</th><th scope=\"col\">Última respuesta</th></tr></thead><tbody>{log}</tbody></table></div>")
            };
            let forms = format!(
                "<form method=\"post\" action=\"/panel/webhooks/prueba\" class=\"inline\">{c}<input type=\"hidden\" name=\"id\" value=\"{id}\"><input type=\"hidden\" name=\"entorno\" value=\"{e}\"><button type=\"submit\" class=\"secondary\">Enviar evento de prueba</button></form> \
<form method=\"post\" action=\"/panel/webhooks/borrar\" class=\"inline\">{c}<input type=\"hidden\" name=\"id\" value=\"{id}\"><input type=\"hidden\" name=\"entorno\" value=\"{e}\"><button type=\"submit\" class=\"danger\">Eliminar</button></form>",
                c = csrf_field(&s.csrf),
                id = esc(&w.id),
                e = env.as_str()
            );
            list.push_str(&format!(
                "<section aria-label=\"Webhook {}\"><h3><code>{}</code></h3><dl class=\"facts\"><dt>Identificador</dt><dd><code>{}</code></dd><dt>Eventos</dt><dd>{}</dd><dt>Descripción</dt><dd>{}</dd><dt>Creado</dt><dd>{}</dd></dl>{forms}{log}</section>",
                esc(&w.url), esc(&w.url), esc(&w.id), esc(&events.join(", ")), esc(w.description.as_deref().unwrap_or("—")), esc(&w.created_at)
            ));
        }
        if list.is_empty() {
            list = "<p>No hay webhooks registrados en este entorno.</p>".into();
        }
        let other = match env {
            Environment::Production => {
                "<a href=\"/panel/webhooks?entorno=sandbox\">Ver los webhooks del sandbox</a>"
            }
            Environment::Sandbox => {
                "<a href=\"/panel/webhooks?entorno=produccion\">Ver los webhooks de producción</a>"
            }
        };
        let body = format!(
            "{message}<p>Entorno: <strong>{}</strong>. {other}</p><h2>Registrar un webhook</h2><form method=\"post\" action=\"/panel/webhooks\">{}<input type=\"hidden\" name=\"entorno\" value=\"{}\"><label for=\"url\">URL HTTPS que recibirá los eventos</label><input type=\"url\" id=\"url\" name=\"url\" placeholder=\"https://su-sistema.example.com/kuatia\" required>\
<label for=\"descripcion\">Descripción (opcional)</label><input type=\"text\" id=\"descripcion\" name=\"descripcion\">\
<fieldset><legend>Eventos</legend>{events}</fieldset>\
<button type=\"submit\">Registrar webhook</button></form><h2>Webhooks registrados</h2>{list}",
            env_label(env),
            csrf_field(&s.csrf),
            env.as_str(),
            events = event_checkboxes(),
        );
        s.page("Webhooks", "/panel/webhooks", &body)
    }

    pub(crate) fn create_webhook_page(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let principal = caller(s, f, Environment::Production);
        let env = principal.env;
        let input = WebhookInput {
            url: f.text("url"),
            events: f.all("eventos"),
            description: Some(f.text("descripcion")).filter(|d| !d.is_empty()),
        };
        // The API's own registration: the same rules, findings and secret.
        let registered = self.svc.register_webhook(&principal, input, host);
        let now = host.now().unix_timestamp();
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        let e = match registered {
            Ok(hook) => {
                let secret = Zeroizing::new(hook.secret.unwrap_or_default());
                let msg = format!(
                    "{}<label for=\"secreto\">Secreto de firma del webhook</label><input class=\"secret\" id=\"secreto\" type=\"text\" readonly value=\"{}\"> <button type=\"button\" class=\"secondary\" data-copy=\"secreto\">Copiar</button>",
                    notice("warn", "<strong>Webhook registrado. Copie el secreto ahora: no se volverá a mostrar.</strong> Su sistema lo usa para verificar la cabecera <code>Kuatia-Signature</code> de cada evento; guárdelo del lado del servidor."),
                    esc(&secret)
                );
                return self.webhooks_page(s, &q, &msg, now);
            }
            Err(e) => e,
        };
        let msg = if e.details.is_empty() {
            notice("error", &esc(&super::error_text(&e)))
        } else {
            findings_html("No se registró el webhook:", &e.details)
        };
        let mut page = self.webhooks_page(s, &q, &msg, now);
        page.status = 422;
        page
    }

    pub(crate) fn test_webhook(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let principal = caller(s, f, Environment::Production);
        let env = principal.env;
        let now = host.now().unix_timestamp();
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        if self
            .svc
            .send_test_event(&principal, &f.text("id"), host)
            .is_err()
        {
            return not_found();
        }
        self.webhooks_page(
            s,
            &q,
            &notice("ok", "Evento de prueba <code>webhook.test</code> en cola; su resultado aparece en el registro de envíos (recargue la página)."),
            now,
        )
    }

    pub(crate) fn delete_webhook_page(&mut self, s: &Session, f: &Form, now: i64) -> HttpResponse {
        let principal = caller(s, f, Environment::Production);
        let env = principal.env;
        let r = self.svc.delete_webhook(&principal, &f.text("id"));
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        let msg = if r.is_ok() {
            notice("ok", "Webhook eliminado.")
        } else {
            notice("error", "No se encontró ese webhook.")
        };
        self.webhooks_page(s, &q, &msg, now)
    }
}

/// The Spanish label of an event kind (exhaustive: a new kind needs its label here).
fn event_label(kind: EventKind) -> &'static str {
    match kind {
        EventKind::FacturaApproved => "aprobada por SIFEN",
        EventKind::FacturaRejected => "rechazada por SIFEN",
        EventKind::FacturaCancelled => "anulada",
        EventKind::FacturaEmailed => "correo al comprador enviado",
        EventKind::FacturaEmailFailed => "correo al comprador fallido",
    }
}

/// One checkbox per event kind the service accepts ([`EVENT_KINDS`], the list its validation reads); approval and
/// rejection checked.
fn event_checkboxes() -> String {
    EVENT_KINDS
        .iter()
        .map(|&k| {
            let name = k.as_str();
            let id = format!("ev-{}", name.trim_start_matches("factura.").replace('_', "-"));
            let checked = matches!(k, EventKind::FacturaApproved | EventKind::FacturaRejected);
            format!(
                "<div class=\"check\"><input type=\"checkbox\" id=\"{id}\" name=\"eventos\" value=\"{name}\"{}><label for=\"{id}\">{name} ({})</label></div>",
                if checked { " checked" } else { "" },
                event_label(k)
            )
        })
        .collect()
}

/// The `type` of a delivered event's body (`webhook.test`, `factura.approved`, ...).
#[derive(Deserialize)]
struct EventKindOnly {
    #[serde(rename = "type", default)]
    kind: String,
}

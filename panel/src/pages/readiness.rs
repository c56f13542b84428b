//! The start page: the production checklist ([`kuatia_service::Service::preflight`]) and the "RUC enabled" switch.

use crate::html::{csrf_field, esc, notice};
use crate::{Ctx, Session};
use kuatia_service::{Host, HttpResponse, Store};

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn readiness(
        &self,
        s: &Session,
        host: &mut dyn Host,
        message: &str,
    ) -> HttpResponse {
        let checks = self.svc.preflight(&s.account.id, host);
        let done = checks.iter().filter(|c| c.ok).count();
        let mut items = String::new();
        for c in &checks {
            let (title, next) = match c.name.as_str() {
                "sandbox_completed" => ("Flujo de prueba completo", "Emita una factura en el sandbox con una clave <code>dk_test_</code> hasta verla aprobada (sección <a href=\"/panel/facturas\">Facturas</a>)."),
                "production_profile" => ("Perfil de producción", "Cargue RUC, dirección, actividades, timbrados y CSC en <a href=\"/panel/perfil\">Perfil y timbrados</a>."),
                "certificate" => ("Certificado de firma", "Suba su certificado P12 con el RUC del emisor en <a href=\"/panel/certificado\">Certificado</a>."),
                "timbrado" => ("Timbrado vigente", "Agregue en <a href=\"/panel/perfil\">Perfil y timbrados</a> un timbrado vigente que cubra la factura electrónica (tipo 1)."),
                "ruc_enabled" => ("RUC habilitado como facturador electrónico", "Confirme abajo que la SET habilitó su RUC como facturador electrónico (trámite en Marangatu)."),
                "webhooks" => ("Webhooks de producción", "Registre en <a href=\"/panel/webhooks?entorno=produccion\">Webhooks</a> una URL de producción para factura.approved y factura.rejected."),
                "live_key" => ("Clave de producción", "Cree una clave <code>dk_live_</code> en <a href=\"/panel/claves\">Claves API</a> y guárdela solo en su servidor."),
                _ => ("Requisito", ""),
            };
            let (class, state) = if c.ok {
                ("ok", "<span class=\"badge ok\">Listo</span>")
            } else {
                ("bad", "<span class=\"badge bad\">Falta</span>")
            };
            let next = if c.ok {
                String::new()
            } else {
                format!("<p class=\"hint\">{next}</p>")
            };
            items.push_str(&format!(
                "<li class=\"{class}\" data-check=\"{}\">{state} <strong>{title}</strong>{next}</li>",
                esc(&c.name)
            ));
        }
        let enabled = s.account.ruc_enabled;
        let ruc_form = format!(
            "<h2>RUC habilitado</h2><form method=\"post\" action=\"/panel/ruc-habilitado\">{}<div class=\"check\"><input type=\"checkbox\" id=\"habilitado\" name=\"habilitado\" value=\"si\"{}><label for=\"habilitado\">La SET habilitó mi RUC como facturador electrónico</label></div><button type=\"submit\" class=\"secondary\">Guardar</button></form>",
            csrf_field(&s.csrf),
            if enabled { " checked" } else { "" }
        );
        let no_password = self
            .svc
            .store
            .panel_record(&format!("password:{}", s.account.id))
            .is_none();
        let pw = if no_password {
            notice("warn", "Su cuenta no tiene contraseña: <a href=\"/panel/contrasena\">defínala</a> para volver a ingresar sin pedir un enlace nuevo.")
        } else {
            String::new()
        };
        let summary = if done == checks.len() {
            notice(
                "ok",
                "Todo listo: la cuenta cumple los requisitos para emitir en producción.",
            )
        } else {
            format!(
                "<p>{done} de {} requisitos cumplidos para pasar a producción.</p>",
                checks.len()
            )
        };
        let body = format!(
            "{message}{pw}<p>Cuenta <strong>{}</strong> (<code>{}</code>).</p>{summary}<ol class=\"checklist\">{items}</ol>{ruc_form}",
            esc(&s.account.name),
            esc(&s.account.id)
        );
        s.page("Preparación para producción", "/panel", &body)
    }
}

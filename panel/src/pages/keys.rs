//! API keys: the list (prefixes only), creating one (shown once) and revoking one.

use super::{date_of, env_label, env_param, not_found};
use crate::form::Form;
use crate::html::{csrf_field, esc, notice};
use crate::{Ctx, Session};
use kuatia_service::auth::Environment;
use kuatia_service::{Host, HttpResponse, Store};
use zeroize::Zeroizing;

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn keys_page(&self, s: &Session, message: &str, _now: i64) -> HttpResponse {
        let mut rows = String::new();
        for k in s.account.keys.iter().rev() {
            let state = match k.revoked_at {
                Some(t) => format!("Revocada el {}", date_of(t)),
                None => "Activa".into(),
            };
            let action = if k.revoked_at.is_none() {
                format!(
                    "<form method=\"post\" action=\"/panel/claves/revocar\" class=\"inline\">{}<input type=\"hidden\" name=\"clave\" value=\"{}\"><button type=\"submit\" class=\"danger\" aria-label=\"Revocar la clave {}\">Revocar</button></form>",
                    csrf_field(&s.csrf),
                    esc(&k.key_id),
                    esc(&k.prefix())
                )
            } else {
                String::new()
            };
            rows.push_str(&format!(
                "<tr><td><code>{}…</code></td><td>{}</td><td class=\"wide\">{}</td><td>{state}</td><td>{action}</td></tr>",
                esc(&k.prefix()),
                env_label(k.environment),
                if k.created_at > 0 { date_of(k.created_at) } else { "—".into() },
            ));
        }
        let body = format!(
            "{message}<h2>Crear una clave</h2><form method=\"post\" action=\"/panel/claves\">{}<fieldset><legend>Entorno</legend>\
<div class=\"check\"><input type=\"radio\" id=\"env-sandbox\" name=\"entorno\" value=\"sandbox\" checked><label for=\"env-sandbox\">Sandbox (<code>dk_test_</code>): pruebas, SIFEN simulado</label></div>\
<div class=\"check\"><input type=\"radio\" id=\"env-live\" name=\"entorno\" value=\"produccion\"><label for=\"env-live\">Producción (<code>dk_live_</code>): documentos reales ante la SET</label></div></fieldset>\
<button type=\"submit\">Crear clave</button></form>\
<h2>Sus claves</h2><p class=\"hint\">Solo se muestra el comienzo de cada clave: la clave entera se ve una única vez, al crearla.</p><div class=\"table\"><table><thead><tr><th scope=\"col\">Clave</th><th scope=\"col\">Entorno</th><th scope=\"col\" class=\"wide\">Creada</th><th scope=\"col\">Estado</th><th scope=\"col\"><span class=\"skip\">Acciones</span></th></tr></thead><tbody>{rows}</tbody></table></div>",
            csrf_field(&s.csrf)
        );
        s.page("Claves API", "/panel/claves", &body)
    }

    pub(crate) fn create_key_page(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let env = env_param(f.get("entorno"), Environment::Sandbox);
        let Some(key) = self
            .svc
            .create_key(&s.account.id, env, host)
            .map(Zeroizing::new)
        else {
            return not_found();
        };
        let account = self
            .svc
            .store
            .account(&s.account.id)
            .unwrap_or(s.account.clone());
        let s = Session {
            account,
            csrf: s.csrf.clone(),
        };
        let message = format!(
            "{}<label for=\"nueva-clave\">Su nueva clave ({})</label><input class=\"secret\" id=\"nueva-clave\" type=\"text\" readonly value=\"{}\"> <button type=\"button\" class=\"secondary\" data-copy=\"nueva-clave\">Copiar</button>",
            notice("warn", "<strong>Copie la clave ahora: no se volverá a mostrar.</strong> Guárdela del lado del servidor (variables de entorno o un gestor de secretos): nunca en código de navegador, apps móviles ni repositorios. Quien tenga la clave puede emitir documentos en su nombre."),
            env_label(env),
            esc(&key)
        );
        self.keys_page(&s, &message, 0)
    }

    pub(crate) fn revoke_key_page(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let id = f.text("clave");
        // Only a key of the signed-in account: revoke_key finds keys of every account.
        if !s.account.keys.iter().any(|k| k.key_id == id) {
            return not_found();
        }
        let revoked = self.svc.revoke_key(&id, host);
        let account = self
            .svc
            .store
            .account(&s.account.id)
            .unwrap_or(s.account.clone());
        let s = Session {
            account,
            csrf: s.csrf.clone(),
        };
        let msg = match revoked {
            Some((_, k)) => notice(
                "ok",
                &format!(
                    "La clave <code>{}…</code> quedó revocada: ya no autoriza ninguna solicitud.",
                    esc(&k.prefix())
                ),
            ),
            None => notice("error", "No se encontró la clave."),
        };
        self.keys_page(&s, &msg, 0)
    }
}

//! Signing in to the panel: the sign-in page, the one-time link, the account's password (argon2id) and the
//! throttle of failed attempts ([`crate::throttle`]).

use crate::form::{self, Form};
use crate::html::{csrf_field, esc, notice, page};
use crate::{digest, throttle, Ctx, LinkRecord, Session, LINK_TTL, MIN_PASSWORD};
use kuatia_service::{Host, HttpRequest, HttpResponse, Store};
use zeroize::Zeroizing;

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn too_many(now: i64, until: i64) -> HttpResponse {
        let wait = until.saturating_sub(now).max(1);
        let minutes = (wait + 59) / 60;
        let mut r = page(
            429,
            "Demasiados intentos",
            None,
            "",
            &notice(
                "error",
                &format!("Hubo demasiados intentos fallidos de ingreso desde esta conexión. Vuelva a intentarlo en {minutes} minuto{}. Un enlace de ingreso válido funciona siempre: puede pedir uno nuevo con <code>kuatia accounts panel-login</code>.", if minutes == 1 { "" } else { "s" }),
            ),
        );
        r.headers.push(("Retry-After".into(), wait.to_string()));
        r
    }

    pub(crate) fn sign_in_page(&self, status: u16, message: &str) -> HttpResponse {
        let body = format!(
            "{message}<p>Ingrese con el identificador de su cuenta (<code>acct_…</code>) y la contraseña que definió en el panel. La primera vez use el enlace de un solo uso que imprime <code>kuatia accounts panel-login NOMBRE</code>.</p>\
<form method=\"post\" action=\"/panel/ingresar\"><label for=\"cuenta\">Identificador de cuenta</label><input type=\"text\" id=\"cuenta\" name=\"cuenta\" autocomplete=\"username\" required>\
<label for=\"contrasena\">Contraseña</label><input type=\"password\" id=\"contrasena\" name=\"contrasena\" autocomplete=\"current-password\" required>\
<button type=\"submit\">Ingresar</button></form>"
        );
        page(status, "Ingresar al panel", None, "", &body)
    }

    pub(crate) fn link_page(&self, query: &str) -> HttpResponse {
        let q = form::urlencoded(query.as_bytes());
        let token = q.text("token");
        // A GET never consumes the link (mail scanners and previews fetch links): the button does.
        let body = format!(
            "<p>Este enlace de ingreso sirve una sola vez y vence a los {} minutos de creado.</p><form method=\"post\" action=\"/panel/entrar\"><input type=\"hidden\" name=\"token\" value=\"{}\"><button type=\"submit\">Ingresar al panel</button></form>",
            LINK_TTL / 60,
            esc(&token)
        );
        page(200, "Ingreso con enlace de un solo uso", None, "", &body)
    }

    pub(crate) fn link_sign_in(
        &mut self,
        req: &HttpRequest,
        client: Option<std::net::IpAddr>,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let now = host.now().unix_timestamp();
        let source = throttle::Source::of(client);
        let f = form::urlencoded(&req.body);
        let key = format!("link:{}", digest(&f.text("token")));
        let record: Option<LinkRecord> = self.record(&key);
        // Used or not, a presented link is spent.
        if record.is_some() {
            self.delete_record(&key);
        }
        match record {
            // A valid link works from anywhere, whatever others (or this source) tried before: it cannot be guessed.
            Some(r) if r.expires_at > now && self.svc.store.account(&r.account_id).is_some() => {
                self.start_session(&r.account_id, host)
            }
            _ => {
                if let Some(until) = self.throttle.source_refused(source, now) {
                    return Self::too_many(now, until);
                }
                self.throttle.link_failed(source, now);
                self.sign_in_page(
                    401,
                    &notice(
                        "error",
                        "El enlace no es válido: ya se usó, venció o está incompleto. Pida uno nuevo con <code>kuatia accounts panel-login</code>.",
                    ),
                )
            }
        }
    }

    pub(crate) fn password_sign_in(
        &mut self,
        req: &HttpRequest,
        client: Option<std::net::IpAddr>,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let now = host.now().unix_timestamp();
        let source = throttle::Source::of(client);
        let f = form::urlencoded(&req.body);
        let account_id = f.text("cuenta");
        let account = throttle::account_key(&account_id);
        // Refused on this source's own failures only, before the password is even looked at.
        if let Some(until) = self.throttle.password_refused(&account, source, now) {
            return Self::too_many(now, until);
        }
        let password = Zeroizing::new(f.get("contrasena").unwrap_or_default().to_string());
        let hash: Option<String> = self.record(&format!("password:{account_id}"));
        let ok = hash.is_some_and(|h| verify_password(&password, &h));
        if ok && self.svc.store.account(&account_id).is_some() {
            self.throttle.password_ok(&account, source);
            return self.start_session(&account_id, host);
        }
        self.throttle.password_failed(account, source, now);
        self.sign_in_page(
            401,
            &notice("error", "La cuenta o la contraseña no son correctas."),
        )
    }

    pub(crate) fn password_page(&self, s: &Session, message: &str) -> HttpResponse {
        let has: bool = self
            .svc
            .store
            .panel_record(&format!("password:{}", s.account.id))
            .is_some();
        let state = if has {
            "Su cuenta ya tiene contraseña; puede cambiarla."
        } else {
            "Su cuenta todavía no tiene contraseña: defínala para volver a ingresar sin un enlace nuevo."
        };
        let body = format!(
            "{message}<p>{state} Identificador de cuenta para ingresar: <code>{}</code>.</p>\
<form method=\"post\" action=\"/panel/contrasena\">{}<label for=\"nueva\">Contraseña nueva</label><p class=\"hint\" id=\"nueva-ayuda\">Al menos {MIN_PASSWORD} caracteres.</p><input type=\"password\" id=\"nueva\" name=\"nueva\" autocomplete=\"new-password\" minlength=\"{MIN_PASSWORD}\" aria-describedby=\"nueva-ayuda\" required>\
<label for=\"repetir\">Repita la contraseña</label><input type=\"password\" id=\"repetir\" name=\"repetir\" autocomplete=\"new-password\" required><button type=\"submit\">Guardar contraseña</button></form>",
            esc(&s.account.id),
            csrf_field(&s.csrf)
        );
        s.page("Contraseña", "/panel/contrasena", &body)
    }

    pub(crate) fn set_password(
        &mut self,
        s: &Session,
        f: &Form,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let new = Zeroizing::new(f.get("nueva").unwrap_or_default().to_string());
        let again = Zeroizing::new(f.get("repetir").unwrap_or_default().to_string());
        if new.chars().count() < MIN_PASSWORD {
            return self.password_page(
                s,
                &notice(
                    "error",
                    &format!("La contraseña debe tener al menos {MIN_PASSWORD} caracteres."),
                ),
            );
        }
        if *new != *again {
            return self.password_page(s, &notice("error", "Las dos contraseñas no coinciden."));
        }
        let Some(hash) = hash_password(&new, host) else {
            return self.password_page(s, &notice("error", "No se pudo guardar la contraseña."));
        };
        self.put_record(&format!("password:{}", s.account.id), Some(&hash));
        self.password_page(s, &notice("ok", "Contraseña guardada."))
    }
}

/// An argon2id PHC string of a password, salted with 16 bytes of the host's CSPRNG.
pub(crate) fn hash_password(password: &str, host: &mut dyn Host) -> Option<String> {
    use argon2::password_hash::{PasswordHasher, SaltString};
    let mut salt = [0u8; 16];
    for chunk in salt.chunks_mut(4) {
        chunk.copy_from_slice(&host.random_u32().to_le_bytes());
    }
    let salt = SaltString::encode_b64(&salt).ok()?;
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .ok()
        .map(|h| h.to_string())
}

/// Whether a password matches a stored PHC string.
pub(crate) fn verify_password(password: &str, phc: &str) -> bool {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    PasswordHash::new(phc).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

//! The account panel at `/panel`: the web pages where an issuer (an accountant, not a developer) creates and revokes
//! API keys, loads the P12 certificate, edits the emitter profile and its stamps, registers webhooks, follows
//! invoices and sees the production checklist ([`Service::preflight`]). Server-rendered Spanish HTML, one small
//! stylesheet and one small script, both embedded; sans-IO like the rest of [`crate`]: [`Service::handle`]
//! sends every path under `/panel` here.
//!
//! Security rules (all here, none in the host):
//! - Sign-in by a one-time link ([`Service::panel_login_link`], `kuatia accounts panel-login`), valid
//!   [`LINK_TTL`] seconds and only once, or by the account id and a password the holder set (argon2id, PHC string).
//! - Sessions: a random id from the host's CSPRNG in an `HttpOnly; SameSite=Strict` cookie scoped to `/panel`
//!   (`Secure` when [`super::Config::base_url`] is `https://`), stored only as its SHA-256; [`SESSION_TTL`].
//! - Every state-changing form carries the session's CSRF token; a missing or wrong one is 403, and so is any POST
//!   whose `Origin` is another site (sign-in forms included).
//! - Failed sign-ins are counted by source (the client address the host passes to [`Service::handle_step_from`]),
//!   by account and source, and by account ([`throttle`]): a source that fails too often is refused (429) until its
//!   window ends, while a valid link, or a correct password from a source that is not itself refused, always signs
//!   in. Nobody can lock someone else out.
//! - No page shows an existing API key, a webhook secret after its creation, the CSC or the P12 password.

mod form;
mod html;
pub mod throttle;

use super::auth::{self, Environment};
use super::webhook::Delivery;
use super::{random_id, rfc3339, Caller, Host, HttpRequest, HttpResponse, Service, Store};
use form::Form;
use html::{csrf_field, esc, notice, page, redirect};
use kuatia_core::error::Finding;
use kuatia_core::profile::{Actividad, Csc, Emisor, Secret, Timbrado};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

/// Seconds a one-time sign-in link stays valid.
pub const LINK_TTL: i64 = 15 * 60;
/// Seconds a session lasts.
pub const SESSION_TTL: i64 = 8 * 3600;
pub use throttle::{MAX_FAILURES, MAX_SOURCE_FAILURES, THROTTLE_WINDOW};
/// Shortest password accepted.
pub const MIN_PASSWORD: usize = 10;
/// Name of the session cookie.
pub const COOKIE: &str = "kuatia_panel";
/// Days before a certificate's expiry from which the panel warns.
pub const EXPIRY_WARNING_DAYS: i64 = 30;

#[derive(Serialize, Deserialize)]
struct LinkRecord {
    account_id: String,
    expires_at: i64,
}

#[derive(Serialize, Deserialize)]
struct SessionRecord {
    account_id: String,
    csrf: String,
    expires_at: i64,
}

fn digest(secret: &str) -> String {
    auth::hex(&Sha256::digest(secret.as_bytes()))
}

/// A signed-in request: the account and the session's CSRF token.
struct Session {
    account: super::Account,
    csrf: String,
}

impl Session {
    /// A page of the signed-in panel (200, with the account's menu and the sign-out form).
    fn page(&self, title: &str, nav: &str, body: &str) -> HttpResponse {
        page(
            200,
            title,
            Some((&self.account.name, &self.csrf)),
            nav,
            body,
        )
    }
}

fn env_param(v: Option<&str>, default: Environment) -> Environment {
    match v {
        Some("produccion") => Environment::Production,
        Some("sandbox") => Environment::Sandbox,
        _ => default,
    }
}

fn env_label(env: Environment) -> &'static str {
    match env {
        Environment::Sandbox => "Sandbox (pruebas)",
        Environment::Production => "Producción",
    }
}

fn date_of(t: i64) -> String {
    rfc3339(t).get(..10).unwrap_or_default().to_string()
}

fn status_label(s: &str) -> &'static str {
    match s {
        "pending" => "Pendiente",
        "sent" => "Enviada",
        "approved" => "Aprobada",
        "rejected" => "Rechazada",
        "cancelled" => "Anulada",
        _ => "Desconocido",
    }
}

fn delivery_label(s: &str) -> &'static str {
    match s {
        "pending" => "Pendiente",
        "delivered" => "Entregado",
        "failed" => "Fallido",
        "cancelled" => "Cancelado",
        _ => "Desconocido",
    }
}

fn badge(s: &str) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        esc(s),
        status_label(s)
    )
}

fn forbidden() -> HttpResponse {
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

fn not_found() -> HttpResponse {
    page(
        404,
        "Página no encontrada",
        None,
        "",
        "<p>Esa página no existe. <a href=\"/panel\">Volver al panel</a></p>",
    )
}

/// Spanish text of a finding: what the core said, with the field it concerns.
fn finding_text(f: &Finding) -> String {
    if f.path.is_empty() {
        f.message.clone()
    } else {
        format!("{} (campo {})", f.message, f.path)
    }
}

fn findings_html(intro: &str, findings: &[Finding]) -> String {
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

/// The Spanish explanation of a refused certificate, by the core's code.
fn certificate_refusal(f: &Finding) -> String {
    let c = kuatia_core::code::CERTIFICATE_RUC_MISMATCH;
    let text = match f.code.as_str() {
        x if x == kuatia_core::code::P12_WRONG_PASSWORD => {
            "La contraseña no abre este archivo P12. Verifique la contraseña que le dio el prestador de certificación."
        }
        x if x == kuatia_core::code::P12_INVALID => {
            "El archivo no es un certificado P12 (PKCS#12) legible. Suba el archivo .p12 o .pfx que le entregó el prestador."
        }
        x if x == kuatia_core::code::P12_NO_PRIVATE_KEY => {
            "El P12 no contiene la clave privada: no sirve para firmar."
        }
        x if x == kuatia_core::code::P12_NO_CERTIFICATE => "El P12 no contiene ningún certificado.",
        x if x == kuatia_core::code::CERTIFICATE_EXPIRED => {
            "El certificado está vencido. Renuévelo con su prestador de certificación."
        }
        x if x == kuatia_core::code::CERTIFICATE_NOT_YET_VALID => "El certificado todavía no es válido.",
        x if x == c => "El RUC del certificado no es el RUC del emisor de su perfil de producción.",
        x if x == kuatia_core::code::CERTIFICATE_RUC_MISSING => "El certificado no lleva ningún RUC.",
        x if x == kuatia_core::code::PRODUCTION_NOT_CONFIGURED => {
            "Primero cargue el perfil de producción (sección Perfil y timbrados): el certificado debe llevar su RUC."
        }
        x if x == kuatia_core::code::KEY_UNSUPPORTED => {
            "La clave del certificado no es RSA de 2048 bits o más, como exige SIFEN."
        }
        _ => "El certificado no se puede usar.",
    };
    // The core's message names the code first (`CODE: detail`); show the code once.
    let detail = f
        .message
        .strip_prefix(&format!("{}: ", f.code))
        .unwrap_or(&f.message);
    format!(
        "{text} <span class=\"hint\">({}: {})</span>",
        esc(&f.code),
        esc(detail)
    )
}

impl<S: Store> Service<S> {
    /// A one-time sign-in link to the panel for an account (`kuatia accounts panel-login`): valid [`LINK_TTL`]
    /// seconds, once. `None` for an unknown account. Only the token's SHA-256 is stored.
    pub fn panel_login_link(&mut self, account_id: &str, host: &mut dyn Host) -> Option<String> {
        self.store.account(account_id)?;
        let token = random_id(host, "", 43);
        let record = LinkRecord {
            account_id: account_id.to_string(),
            expires_at: host.now().unix_timestamp().saturating_add(LINK_TTL),
        };
        self.put_record(&format!("link:{}", digest(&token)), Some(&json!(record)));
        let base = self.config.base_url.trim_end_matches('/');
        Some(format!("{base}/panel/entrar?token={token}"))
    }

    /// The panel's sign-in throttle (failures by source and account), to give to another engine of the same host.
    pub fn panel_throttle(&self) -> &throttle::Throttles {
        &self.panel_throttle
    }

    /// Makes this service count failed sign-ins in `throttle`, shared with the host's other engines, so that a
    /// client's failures count once whichever engine serves it.
    pub fn set_panel_throttle(&mut self, throttle: throttle::Throttles) {
        self.panel_throttle = throttle;
    }

    fn record<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        serde_json::from_str(&self.store.panel_record(key)?).ok()
    }

    fn put_record(&mut self, key: &str, value: Option<&Value>) {
        let text = value.map(Value::to_string);
        self.store.put_panel_record(key, text.as_deref());
    }

    /// Handles one request under `/panel`.
    pub(super) fn panel(
        &mut self,
        req: &HttpRequest,
        client: Option<std::net::IpAddr>,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let (path, query) = req.path.split_once('?').unwrap_or((req.path.as_str(), ""));
        let path = path.trim_end_matches('/');
        let method = req.method.to_ascii_uppercase();
        let post = method == "POST";
        if !post && method != "GET" && method != "HEAD" {
            let mut r = page(405, "Método no permitido", None, "", "");
            r.headers.push(("Allow".into(), "GET, POST".into()));
            return r;
        }
        if post && cross_origin(req) {
            // Also covers the forms without a session (sign-in), which no CSRF token can protect.
            return forbidden();
        }
        match (path, post) {
            ("/panel/estilo.css", false) => {
                return html::asset("text/css; charset=utf-8", html::CSS)
            }
            ("/panel/panel.js", false) => {
                return html::asset("text/javascript; charset=utf-8", html::JS)
            }
            ("/panel/entrar", false) => return self.link_page(query),
            ("/panel/entrar", true) => return self.link_sign_in(req, client, host),
            ("/panel/ingresar", true) => return self.password_sign_in(req, client, host),
            _ => {}
        }
        let now = host.now().unix_timestamp();
        let Some(session) = self.session(req, now) else {
            if post {
                return forbidden();
            }
            return match path {
                "/panel" => self.sign_in_page(200, ""),
                _ => redirect("/panel"),
            };
        };
        let form = if post {
            let ct = req.header("Content-Type").unwrap_or_default();
            let parsed = if ct.to_ascii_lowercase().starts_with("multipart/form-data") {
                form::multipart(ct, &req.body)
            } else {
                Some(form::urlencoded(&req.body))
            };
            let Some(f) = parsed else {
                return forbidden();
            };
            let sent = f.get("csrf").unwrap_or_default();
            if !auth::ct_eq(sent.as_bytes(), session.csrf.as_bytes()) {
                return forbidden();
            }
            f
        } else {
            Form::default()
        };
        let q = form::urlencoded(query.as_bytes());
        let segments: Vec<&str> = path.split('/').skip(2).collect();
        match (segments.as_slice(), post) {
            ([], false) | ([""], false) => self.readiness(&session, host, ""),
            (["salir"], true) => self.sign_out(req),
            (["ruc-habilitado"], true) => {
                let mut account = session.account.clone();
                account.ruc_enabled = form.get("habilitado") == Some("si");
                self.store.put_account(account);
                redirect("/panel")
            }
            (["contrasena"], false) => self.password_page(&session, ""),
            (["contrasena"], true) => self.set_password(&session, &form, host),
            (["claves"], false) => self.keys_page(&session, "", now),
            (["claves"], true) => self.create_key_page(&session, &form, host),
            (["claves", "revocar"], true) => self.revoke_key_page(&session, &form, host),
            (["certificado"], false) => self.certificate_page(&session, host, ""),
            (["certificado"], true) => self.upload_certificate(&session, &form, host),
            (["perfil"], false) => self.profile_page(&session, None, ""),
            (["perfil"], true) => self.save_profile(&session, &form, host),
            (["webhooks"], false) => self.webhooks_page(&session, &q, "", now),
            (["webhooks"], true) => self.create_webhook_page(&session, &form, host),
            (["webhooks", "prueba"], true) => self.test_webhook(&session, &form, host),
            (["webhooks", "borrar"], true) => self.delete_webhook_page(&session, &form, now),
            (["facturas"], false) => self.invoices_page(&session, query),
            (["facturas", id], false) => self.invoice_page(&session, id, &q),
            (["facturas", id, "kude"], false) => {
                let caller = caller(&session, &q, Environment::Sandbox);
                let mut r = self.kude_route(&caller, id);
                if r.status == 200 {
                    for (k, v) in &mut r.headers {
                        if k == "Content-Disposition" {
                            *v = v.replacen("inline", "attachment", 1);
                        }
                    }
                } else {
                    return self.api_failure(&session, &r);
                }
                r
            }
            (["facturas", id, "xml"], false) => {
                let caller = caller(&session, &q, Environment::Sandbox);
                let r = self.signed_xml_route(&caller, id);
                if r.status != 200 {
                    return self.api_failure(&session, &r);
                }
                r
            }
            _ => not_found(),
        }
    }

    fn api_failure(&self, session: &Session, r: &HttpResponse) -> HttpResponse {
        let v = r.json();
        let msg = v["error"]["message"].as_str().unwrap_or("error");
        page(
            r.status,
            "No disponible",
            Some((&session.account.name, &session.csrf)),
            "",
            &notice("error", &esc(msg)),
        )
    }

    fn session(&mut self, req: &HttpRequest, now: i64) -> Option<Session> {
        let sid = cookie(req)?;
        let key = format!("session:{}", digest(&sid));
        let record: SessionRecord = self.record(&key)?;
        if record.expires_at <= now {
            self.put_record(&key, None);
            return None;
        }
        let account = self.store.account(&record.account_id)?;
        Some(Session {
            account,
            csrf: record.csrf,
        })
    }

    /// Starts a session for an account: the cookie and a redirect to the panel.
    fn start_session(&mut self, account_id: &str, host: &mut dyn Host) -> HttpResponse {
        let sid = random_id(host, "", 43);
        let csrf = random_id(host, "", 32);
        let record = SessionRecord {
            account_id: account_id.to_string(),
            csrf,
            expires_at: host.now().unix_timestamp().saturating_add(SESSION_TTL),
        };
        self.put_record(&format!("session:{}", digest(&sid)), Some(&json!(record)));
        let mut r = redirect("/panel");
        let secure = if self.config.base_url.starts_with("https://") {
            "; Secure"
        } else {
            ""
        };
        r.headers.push((
            "Set-Cookie".into(),
            format!("{COOKIE}={sid}; Path=/panel; HttpOnly; SameSite=Strict; Max-Age={SESSION_TTL}{secure}"),
        ));
        r
    }

    fn sign_out(&mut self, req: &HttpRequest) -> HttpResponse {
        if let Some(sid) = cookie(req) {
            self.put_record(&format!("session:{}", digest(&sid)), None);
        }
        let mut r = redirect("/panel");
        r.headers.push((
            "Set-Cookie".into(),
            format!("{COOKIE}=; Path=/panel; HttpOnly; SameSite=Strict; Max-Age=0"),
        ));
        r
    }

    /// 429 until `until` (the end of the refused source's window).
    fn too_many(now: i64, until: i64) -> HttpResponse {
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

    fn sign_in_page(&self, status: u16, message: &str) -> HttpResponse {
        let body = format!(
            "{message}<p>Ingrese con el identificador de su cuenta (<code>acct_…</code>) y la contraseña que definió en el panel. La primera vez use el enlace de un solo uso que imprime <code>kuatia accounts panel-login NOMBRE</code>.</p>\
<form method=\"post\" action=\"/panel/ingresar\"><label for=\"cuenta\">Identificador de cuenta</label><input type=\"text\" id=\"cuenta\" name=\"cuenta\" autocomplete=\"username\" required>\
<label for=\"contrasena\">Contraseña</label><input type=\"password\" id=\"contrasena\" name=\"contrasena\" autocomplete=\"current-password\" required>\
<button type=\"submit\">Ingresar</button></form>"
        );
        page(status, "Ingresar al panel", None, "", &body)
    }

    fn link_page(&self, query: &str) -> HttpResponse {
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

    fn link_sign_in(
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
            self.put_record(&key, None);
        }
        match record {
            // A valid link works from anywhere, whatever others (or this source) tried before: it cannot be guessed.
            Some(r) if r.expires_at > now && self.store.account(&r.account_id).is_some() => {
                self.start_session(&r.account_id, host)
            }
            _ => {
                if let Some(until) = self.panel_throttle.source_refused(source, now) {
                    return Self::too_many(now, until);
                }
                self.panel_throttle.link_failed(source, now);
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

    fn password_sign_in(
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
        if let Some(until) = self.panel_throttle.password_refused(&account, source, now) {
            return Self::too_many(now, until);
        }
        let password = Zeroizing::new(f.get("contrasena").unwrap_or_default().to_string());
        let hash: Option<String> = self.record(&format!("password:{account_id}"));
        let ok = hash.is_some_and(|h| verify_password(&password, &h));
        if ok && self.store.account(&account_id).is_some() {
            self.panel_throttle.password_ok(&account, source);
            return self.start_session(&account_id, host);
        }
        self.panel_throttle.password_failed(account, source, now);
        self.sign_in_page(
            401,
            &notice("error", "La cuenta o la contraseña no son correctas."),
        )
    }

    fn password_page(&self, s: &Session, message: &str) -> HttpResponse {
        let has: bool = self
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

    fn set_password(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
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
        self.put_record(&format!("password:{}", s.account.id), Some(&json!(hash)));
        self.password_page(s, &notice("ok", "Contraseña guardada."))
    }

    fn readiness(&self, s: &Session, host: &mut dyn Host, message: &str) -> HttpResponse {
        let checks = self.preflight(&s.account.id, host);
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

    fn keys_page(&self, s: &Session, message: &str, _now: i64) -> HttpResponse {
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

    fn create_key_page(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let env = env_param(f.get("entorno"), Environment::Sandbox);
        let Some(key) = self
            .create_key(&s.account.id, env, host)
            .map(Zeroizing::new)
        else {
            return not_found();
        };
        let account = self
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

    fn revoke_key_page(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let id = f.text("clave");
        // Only a key of the signed-in account: revoke_key finds keys of every account.
        if !s.account.keys.iter().any(|k| k.key_id == id) {
            return not_found();
        }
        let revoked = self.revoke_key(&id, host);
        let account = self
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

    fn certificate_page(&self, s: &Session, host: &mut dyn Host, message: &str) -> HttpResponse {
        let now = host.now();
        let info = host
            .signer(&s.account.id, Environment::Production)
            .and_then(|sg| sg.certificate_info().ok());
        let current = match info {
            Some(i) => {
                let days = (i.not_after - now).whole_days();
                let warn = if days < 0 {
                    notice("error", "El certificado está vencido: SIFEN rechaza lo firmado con él. Suba uno nuevo.")
                } else if days <= EXPIRY_WARNING_DAYS {
                    notice("warn", &format!("El certificado vence en {days} días. Renuévelo con su prestador y súbalo aquí antes del vencimiento."))
                } else {
                    String::new()
                };
                let ruc_ok = s
                    .account
                    .production
                    .as_ref()
                    .is_some_and(|p| i.ruc.as_deref() == Some(p.ruc.as_str()));
                format!(
                    "{warn}<dl class=\"facts\"><dt>Titular</dt><dd>{}</dd><dt>RUC</dt><dd>{}{}</dd><dt>Emisor del certificado</dt><dd>{}</dd><dt>Válido desde</dt><dd>{}</dd><dt>Válido hasta</dt><dd>{}</dd><dt>Días hasta el vencimiento</dt><dd data-days=\"{days}\">{days}</dd></dl>",
                    esc(&i.subject),
                    esc(i.ruc.as_deref().unwrap_or("—")),
                    if ruc_ok { " <span class=\"badge ok\">coincide con el emisor</span>" } else { " <span class=\"badge bad\">no es el RUC del perfil de producción</span>" },
                    esc(&i.issuer),
                    esc(&rfc3339(i.not_before.unix_timestamp())),
                    esc(&rfc3339(i.not_after.unix_timestamp())),
                )
            }
            None => "<p>Todavía no hay un certificado de producción para esta cuenta.</p>".into(),
        };
        let body = format!(
            "{message}<h2>Certificado actual</h2>{current}<h2>Subir un certificado P12</h2><p>El archivo <code>.p12</code> o <code>.pfx</code> que le entregó el prestador de certificación, con el RUC de su perfil de producción. La contraseña se guarda cifrada en el servidor para poder firmar; nunca se vuelve a mostrar.</p>\
<form method=\"post\" action=\"/panel/certificado\" enctype=\"multipart/form-data\">{}<label for=\"p12\">Archivo P12</label><input type=\"file\" id=\"p12\" name=\"p12\" accept=\".p12,.pfx,application/x-pkcs12\" required>\
<label for=\"clave-p12\">Contraseña del P12</label><input type=\"password\" id=\"clave-p12\" name=\"contrasena\" autocomplete=\"off\" required><button type=\"submit\">Subir certificado</button></form>",
            csrf_field(&s.csrf)
        );
        s.page("Certificado", "/panel/certificado", &body)
    }

    fn upload_certificate(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let refuse = |this: &Self, host: &mut dyn Host, finding: Finding| {
            let mut r = this.certificate_page(
                s,
                host,
                &notice(
                    "error",
                    &format!(
                        "<p><strong>No se guardó el certificado.</strong> {}</p>",
                        certificate_refusal(&finding)
                    ),
                ),
            );
            r.status = 422;
            r
        };
        let p12 = f.bytes("p12").unwrap_or_default();
        let password = Zeroizing::new(f.get("contrasena").unwrap_or_default().to_string());
        if p12.is_empty() {
            return refuse(
                self,
                host,
                Finding::new(kuatia_core::code::P12_INVALID, "p12", "no file was sent"),
            );
        }
        let signer = match kuatia_core::sign::SoftwareSigner::from_pkcs12(p12, &password) {
            Ok(sg) => sg,
            Err(e) => return refuse(self, host, Finding::new(e.code(), "p12", e.to_string())),
        };
        let info = match self.check_production_certificate(&s.account.id, &signer, host) {
            Ok(i) => i,
            Err(fs) => {
                let first = fs.into_iter().next().unwrap_or_else(|| {
                    Finding::new(kuatia_core::code::CERTIFICATE_INVALID, "p12", "refused")
                });
                return refuse(self, host, first);
            }
        };
        drop(signer);
        if let Err(why) = host.install_certificate(&s.account.id, p12, &password) {
            return refuse(
                self,
                host,
                Finding::new(kuatia_core::code::INTERNAL_ERROR, "p12", why),
            );
        }
        self.certificate_page(
            s,
            host,
            &notice(
                "ok",
                &format!(
                    "Certificado guardado: {} (RUC {}). Las facturas de producción se firmarán con él.",
                    esc(&info.subject),
                    esc(info.ruc.as_deref().unwrap_or("—"))
                ),
            ),
        )
    }

    fn profile_page(&self, s: &Session, draft: Option<&Form>, message: &str) -> HttpResponse {
        let base = s.account.production.clone().unwrap_or_else(|| {
            let mut e = Emisor::sandbox();
            e.ambiente = kuatia_core::profile::Ambiente::Produccion;
            e.timbrados.clear();
            e.csc.secreto = Secret::new("");
            e
        });
        let get = |name: &str, stored: String| match draft {
            Some(f) => esc(&f.text(name)),
            None => esc(&stored),
        };
        let opt = |o: &Option<String>| o.clone().unwrap_or_default();
        let activities: String = base
            .actividades
            .iter()
            .map(|a| format!("{} | {}\n", a.codigo, a.descripcion))
            .collect();
        let stamps: String = base
            .timbrados
            .iter()
            .map(|t| {
                let tipos: Vec<String> = t.tipos_documento.iter().map(u8::to_string).collect();
                format!(
                    "{} | {} | {} | {} | {} | {}\n",
                    t.numero,
                    kuatia_core::fmt::date(t.fecha_inicio),
                    t.fecha_fin.map(kuatia_core::fmt::date).unwrap_or_default(),
                    tipos.join(","),
                    t.establecimiento,
                    t.punto_expedicion
                )
            })
            .collect();
        let field = |id: &str, label: &str, value: String, kind: &str, hint: &str| {
            let hint_html = if hint.is_empty() {
                String::new()
            } else {
                format!("<p class=\"hint\" id=\"{id}-ayuda\">{hint}</p>")
            };
            let described = if hint.is_empty() {
                String::new()
            } else {
                format!(" aria-describedby=\"{id}-ayuda\"")
            };
            format!("<label for=\"{id}\">{label}</label>{hint_html}<input type=\"{kind}\" id=\"{id}\" name=\"{id}\" value=\"{value}\"{described}>")
        };
        let stored_note = if !message.is_empty() {
            String::new()
        } else if s.account.production.is_some() {
            notice(
                "ok",
                "Perfil de producción guardado. Puede modificarlo aquí.",
            )
        } else {
            notice("warn", "Todavía no hay perfil de producción: complete el formulario (parte del contenido es un ejemplo).")
        };
        let csc_hint = if s.account.production.is_some() {
            "Déjelo vacío para conservar el CSC guardado (nunca se muestra)."
        } else {
            "El código de seguridad del contribuyente (32 caracteres) que le entregó la SET."
        };
        let body = format!(
            "{message}{stored_note}<form method=\"post\" action=\"/panel/perfil\">{csrf}\
<fieldset><legend>Contribuyente</legend>{ruc}{razon}{fantasia}\
<label for=\"tipo_contribuyente\">Tipo de contribuyente</label><select id=\"tipo_contribuyente\" name=\"tipo_contribuyente\"><option value=\"1\"{pf}>Persona física</option><option value=\"2\"{pj}>Persona jurídica</option></select>{regimen}</fieldset>\
<fieldset><legend>Dirección y contacto</legend>{dir}{casa}{depto}{distrito}{ciudad}{tel}{email}</fieldset>\
<fieldset><legend>Actividades económicas</legend><label for=\"actividades\">Una por línea: código | descripción</label><textarea id=\"actividades\" name=\"actividades\">{acts}</textarea></fieldset>\
<fieldset><legend>Timbrados</legend><label for=\"timbrados\">Uno por línea: número | inicio AAAA-MM-DD | fin (opcional) | tipos de documento | establecimiento | punto de expedición</label><p class=\"hint\" id=\"timbrados-ayuda\">Ejemplo: <code>12558946 | 2025-01-01 | | 1,4,5 | 001 | 001</code>. Tipos: 1 factura, 4 autofactura, 5 nota de crédito, 6 nota de débito, 7 nota de remisión.</p><textarea id=\"timbrados\" name=\"timbrados\" aria-describedby=\"timbrados-ayuda\">{stamps}</textarea></fieldset>\
<fieldset><legend>CSC (código de seguridad del contribuyente)</legend>{csc_id}<label for=\"csc_secreto\">CSC</label><p class=\"hint\" id=\"csc-ayuda\">{csc_hint}</p><input type=\"password\" id=\"csc_secreto\" name=\"csc_secreto\" autocomplete=\"off\" aria-describedby=\"csc-ayuda\"></fieldset>\
<button type=\"submit\">Guardar perfil</button></form>",
            csrf = csrf_field(&s.csrf),
            ruc = field("ruc", "RUC con dígito verificador", get("ruc", base.ruc.clone()), "text", "Ejemplo: 80069563-1"),
            razon = field("razon_social", "Razón social", get("razon_social", base.razon_social.clone()), "text", ""),
            fantasia = field("nombre_fantasia", "Nombre de fantasía (opcional)", get("nombre_fantasia", opt(&base.nombre_fantasia)), "text", ""),
            pf = if base.tipo_contribuyente == 1 { " selected" } else { "" },
            pj = if base.tipo_contribuyente == 2 { " selected" } else { "" },
            regimen = field("tipo_regimen", "Tipo de régimen (1 a 8, opcional)", get("tipo_regimen", base.tipo_regimen.map(|r| r.to_string()).unwrap_or_default()), "text", ""),
            dir = field("direccion", "Dirección", get("direccion", base.direccion.clone()), "text", ""),
            casa = field("numero_casa", "Número de casa (0 si no tiene)", get("numero_casa", base.numero_casa.to_string()), "text", ""),
            depto = field("departamento", "Código de departamento (1 a 20)", get("departamento", base.departamento.to_string()), "text", ""),
            distrito = field("distrito", "Código de distrito (opcional)", get("distrito", base.distrito.map(|d| d.to_string()).unwrap_or_default()), "text", ""),
            ciudad = field("ciudad", "Código de ciudad", get("ciudad", base.ciudad.to_string()), "text", ""),
            tel = field("telefono", "Teléfono", get("telefono", base.telefono.clone()), "text", ""),
            email = field("email", "Correo electrónico", get("email", base.email.clone()), "email", ""),
            acts = match draft { Some(f) => esc(&f.text("actividades")), None => esc(&activities) },
            stamps = match draft { Some(f) => esc(&f.text("timbrados")), None => esc(&stamps) },
            csc_id = field("csc_id", "Identificador del CSC (4 dígitos)", get("csc_id", base.csc.id.clone()), "text", ""),
        );
        s.page("Perfil del emisor y timbrados", "/panel/perfil", &body)
    }

    fn save_profile(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let (emisor, mut findings) = profile_from_form(f, s.account.production.as_ref());
        if findings.is_empty() {
            // The core's rules for a production profile, as `kuatia accounts set-profile` and the preflight apply them.
            match self.set_production_profile(&s.account.id, emisor, host) {
                Ok(()) => {
                    let account = self
                        .store
                        .account(&s.account.id)
                        .unwrap_or(s.account.clone());
                    let s = Session {
                        account,
                        csrf: s.csrf.clone(),
                    };
                    return self.profile_page(&s, None, &notice("ok", "Perfil guardado."));
                }
                Err(fs) => findings = fs,
            }
        }
        let mut r = self.profile_page(
            s,
            Some(f),
            &findings_html("No se guardó el perfil; corrija lo siguiente:", &findings),
        );
        r.status = 422;
        r
    }

    fn webhooks_page(&self, s: &Session, q: &Form, message: &str, now: i64) -> HttpResponse {
        let env = env_param(q.get("entorno"), Environment::Production);
        let mut list = String::new();
        for w in self.store.webhooks(&s.account.id, env) {
            let events: Vec<String> = w.events.iter().map(|e| e.as_str().to_string()).collect();
            let (deliveries, total) = self.store.webhook_deliveries(&w.id, 0, 10);
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
                let kind = serde_json::from_str::<Value>(&d.body)
                    .ok()
                    .and_then(|v| v["type"].as_str().map(String::from))
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
        let _ = now;
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
<fieldset><legend>Eventos</legend><div class=\"check\"><input type=\"checkbox\" id=\"ev-approved\" name=\"eventos\" value=\"factura.approved\" checked><label for=\"ev-approved\">factura.approved (aprobada por SIFEN)</label></div><div class=\"check\"><input type=\"checkbox\" id=\"ev-rejected\" name=\"eventos\" value=\"factura.rejected\" checked><label for=\"ev-rejected\">factura.rejected (rechazada por SIFEN)</label></div><div class=\"check\"><input type=\"checkbox\" id=\"ev-cancelled\" name=\"eventos\" value=\"factura.cancelled\"><label for=\"ev-cancelled\">factura.cancelled (anulada)</label></div></fieldset>\
<button type=\"submit\">Registrar webhook</button></form><h2>Webhooks registrados</h2>{list}",
            env_label(env),
            csrf_field(&s.csrf),
            env.as_str()
        );
        s.page("Webhooks", "/panel/webhooks", &body)
    }

    fn create_webhook_page(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let env = env_param(f.get("entorno"), Environment::Production);
        let description = Some(f.text("descripcion")).filter(|d| !d.is_empty());
        let body =
            json!({"url": f.text("url"), "events": f.all("eventos"), "description": description});
        let req = HttpRequest {
            method: "POST".into(),
            path: "/v1/webhooks".into(),
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        };
        let caller = Caller {
            account: s.account.clone(),
            env,
        };
        // The API's own registration: the same rules, findings and secret.
        let r = self.create_webhook(&caller, &req, host);
        let v = r.json();
        let now = host.now().unix_timestamp();
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        if r.status == 201 {
            let secret =
                Zeroizing::new(v["data"]["secret"].as_str().unwrap_or_default().to_string());
            let msg = format!(
                "{}<label for=\"secreto\">Secreto de firma del webhook</label><input class=\"secret\" id=\"secreto\" type=\"text\" readonly value=\"{}\"> <button type=\"button\" class=\"secondary\" data-copy=\"secreto\">Copiar</button>",
                notice("warn", "<strong>Webhook registrado. Copie el secreto ahora: no se volverá a mostrar.</strong> Su sistema lo usa para verificar la cabecera <code>Kuatia-Signature</code> de cada evento; guárdelo del lado del servidor."),
                esc(&secret)
            );
            return self.webhooks_page(s, &q, &msg, now);
        }
        let findings: Vec<Finding> =
            serde_json::from_value(v["error"]["details"].clone()).unwrap_or_default();
        let msg = if findings.is_empty() {
            notice(
                "error",
                &esc(v["error"]["message"].as_str().unwrap_or("error")),
            )
        } else {
            findings_html("No se registró el webhook:", &findings)
        };
        let mut page = self.webhooks_page(s, &q, &msg, now);
        page.status = 422;
        page
    }

    fn test_webhook(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let env = env_param(f.get("entorno"), Environment::Production);
        let now = host.now().unix_timestamp();
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        let Some(hook) = self.store.webhook(&s.account.id, env, &f.text("id")) else {
            return not_found();
        };
        let event_id = random_id(host, "evt_", 24);
        let body = json!({"id": event_id, "type": "webhook.test", "created": now, "data": {"webhook_id": hook.id}});
        let delivery = Delivery {
            id: random_id(host, "dlv_", 24),
            account_id: s.account.id.clone(),
            environment: env,
            webhook_id: hook.id.clone(),
            url: hook.url.clone(),
            event_id,
            body: body.to_string(),
            headers: Vec::new(),
            attempts: 0,
            next_attempt_at: now,
            first_due_at: now,
            status: "pending".into(),
            log: Vec::new(),
        };
        self.store.put_delivery(delivery);
        self.webhooks_page(
            s,
            &q,
            &notice("ok", "Evento de prueba <code>webhook.test</code> en cola; su resultado aparece en el registro de envíos (recargue la página)."),
            now,
        )
    }

    fn delete_webhook_page(&mut self, s: &Session, f: &Form, now: i64) -> HttpResponse {
        let env = env_param(f.get("entorno"), Environment::Production);
        let caller = Caller {
            account: s.account.clone(),
            env,
        };
        let r = self.delete_webhook(&caller, &f.text("id"));
        let q = form::urlencoded(format!("entorno={}", env.as_str()).as_bytes());
        let msg = if r.is_ok() {
            notice("ok", "Webhook eliminado.")
        } else {
            notice("error", "No se encontró ese webhook.")
        };
        self.webhooks_page(s, &q, &msg, now)
    }

    fn invoices_page(&self, s: &Session, query: &str) -> HttpResponse {
        let q = form::urlencoded(query.as_bytes());
        let env = env_param(q.get("entorno"), Environment::Sandbox);
        // The API's own list and filters: every parameter but `entorno` goes to it as given.
        let api_query: Vec<&str> = query
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("entorno="))
            .filter(|p| !p.ends_with('='))
            .collect();
        let caller = Caller {
            account: s.account.clone(),
            env,
        };
        let r = self.list_invoices_route(&caller, &api_query.join("&"));
        let v = r.json();
        let mut message = String::new();
        let mut rows = String::new();
        if r.status != 200 {
            message = notice(
                "error",
                &esc(v["error"]["message"].as_str().unwrap_or("error")),
            );
        }
        let empty = Vec::new();
        let data = v["data"].as_array().unwrap_or(&empty);
        for i in data {
            let id = i["id"].as_str().unwrap_or_default();
            let status = i["status"].as_str().unwrap_or_default();
            rows.push_str(&format!(
                "<tr><td><a href=\"/panel/facturas/{id}?entorno={e}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"wide\">{}</td></tr>",
                esc(i["numero"].as_str().unwrap_or_default()),
                esc(i["fecha_emision"].as_str().unwrap_or_default()),
                esc(i["receptor"]["razon_social"].as_str().unwrap_or("—")),
                esc(&amount(&i["total"], &i["moneda"])),
                badge(status),
                esc(i["cdc"].as_str().unwrap_or_default()),
                id = esc(id),
                e = env.as_str(),
            ));
        }
        let total = v["meta"]["total"].as_u64().unwrap_or(0);
        let next = match v["meta"]["next_cursor"].as_str() {
            Some(c) => {
                let mut kept: Vec<String> = query
                    .split('&')
                    .filter(|p| {
                        !p.is_empty()
                            && !p.starts_with("starting_after=")
                            && !p.starts_with("page=")
                    })
                    .map(String::from)
                    .collect();
                kept.push(format!("starting_after={c}"));
                format!(
                    "<p><a href=\"/panel/facturas?{}\">Página siguiente</a></p>",
                    esc(&kept.join("&"))
                )
            }
            None => String::new(),
        };
        let sel = |name: &str, value: &str| {
            if q.get(name) == Some(value) {
                " selected"
            } else {
                ""
            }
        };
        let statuses: String = ["pending", "sent", "approved", "rejected", "cancelled"]
            .iter()
            .map(|st| {
                format!(
                    "<option value=\"{st}\"{}>{}</option>",
                    sel("status", st),
                    status_label(st)
                )
            })
            .collect();
        let noun = if total == 1 { "factura" } else { "facturas" };
        let table = if data.is_empty() {
            "<p>No hay facturas con esos filtros.</p>".to_string()
        } else {
            format!("<div class=\"table\"><table><caption class=\"hint\">{total} {noun}</caption><thead><tr><th scope=\"col\">Número</th><th scope=\"col\">Emisión</th><th scope=\"col\">Receptor</th><th scope=\"col\">Total</th><th scope=\"col\">Estado</th><th scope=\"col\" class=\"wide\">CDC</th></tr></thead><tbody>{rows}</tbody></table></div>{next}")
        };
        let body = format!(
            "{message}<form method=\"get\" action=\"/panel/facturas\"><fieldset><legend>Filtros</legend>\
<label for=\"entorno\">Entorno</label><select id=\"entorno\" name=\"entorno\"><option value=\"sandbox\"{es}>Sandbox (pruebas)</option><option value=\"produccion\"{ep}>Producción</option></select>\
<label for=\"status\">Estado</label><select id=\"status\" name=\"status\"><option value=\"\">Todos</option>{statuses}</select>\
<label for=\"numero\">Número (EEE-PPP-NNNNNNN)</label><input type=\"text\" id=\"numero\" name=\"numero\" value=\"{numero}\">\
<label for=\"cdc\">CDC</label><input type=\"text\" id=\"cdc\" name=\"cdc\" value=\"{cdc}\">\
<label for=\"receptor_ruc\">RUC del receptor</label><input type=\"text\" id=\"receptor_ruc\" name=\"receptor_ruc\" value=\"{rruc}\">\
<label for=\"tipo_documento\">Tipo de documento</label><select id=\"tipo_documento\" name=\"tipo_documento\"><option value=\"\">Todos</option><option value=\"1\"{t1}>1 Factura electrónica</option><option value=\"4\"{t4}>4 Autofactura</option><option value=\"5\"{t5}>5 Nota de crédito</option><option value=\"6\"{t6}>6 Nota de débito</option><option value=\"7\"{t7}>7 Nota de remisión</option></select>\
<label for=\"created_from\">Creadas desde (RFC 3339, p. ej. 2025-01-31T00:00:00-03:00)</label><input type=\"text\" id=\"created_from\" name=\"created_from\" value=\"{cf}\">\
<label for=\"created_to\">Creadas hasta</label><input type=\"text\" id=\"created_to\" name=\"created_to\" value=\"{ct}\">\
<button type=\"submit\">Filtrar</button></fieldset></form>{table}",
            es = sel("entorno", "sandbox"),
            ep = sel("entorno", "produccion"),
            numero = esc(&q.text("numero")),
            cdc = esc(&q.text("cdc")),
            rruc = esc(&q.text("receptor_ruc")),
            cf = esc(&q.text("created_from")),
            ct = esc(&q.text("created_to")),
            t1 = sel("tipo_documento", "1"),
            t4 = sel("tipo_documento", "4"),
            t5 = sel("tipo_documento", "5"),
            t6 = sel("tipo_documento", "6"),
            t7 = sel("tipo_documento", "7"),
        );
        let mut p = s.page("Facturas", "/panel/facturas", &body);
        if r.status != 200 {
            p.status = 400;
        }
        p
    }

    fn invoice_page(&self, s: &Session, id: &str, q: &Form) -> HttpResponse {
        let caller = caller(s, q, Environment::Sandbox);
        let Some(inv) = self
            .store
            .invoice(&s.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return not_found();
        };
        let v = self.invoice_json(&inv);
        let e = caller.env.as_str();
        let errors = if inv.sifen_errors.is_empty() {
            String::new()
        } else {
            let items: String = inv
                .sifen_errors
                .iter()
                .map(|x| {
                    format!(
                        "<li><code>{}</code>: {}{}</li>",
                        esc(&x.code),
                        esc(&x.message),
                        x.field
                            .as_ref()
                            .map(|f| format!(" (campo {})", esc(f)))
                            .unwrap_or_default()
                    )
                })
                .collect();
            notice(
                "error",
                &format!("<p><strong>Motivos del rechazo de SIFEN</strong></p><ul>{items}</ul>"),
            )
        };
        let mut links = String::new();
        if inv.status == kuatia_core::lifecycle::Estado::Approved {
            links.push_str(&format!("<a class=\"button\" href=\"/panel/facturas/{}/kude?entorno={e}\" download>Descargar KuDE (PDF)</a> ", esc(id)));
        }
        if inv.signed {
            links.push_str(&format!("<a class=\"button\" href=\"/panel/facturas/{}/xml?entorno={e}\" download>Descargar XML firmado</a>", esc(id)));
        }
        let field = |k: &str, label: &str| {
            let text = match &v[k] {
                Value::String(t) => t.clone(),
                Value::Null => "—".into(),
                other => other.to_string(),
            };
            format!("<dt>{label}</dt><dd>{}</dd>", esc(&text))
        };
        let tipo_dd = format!(
            "<dt>Tipo de documento</dt><dd>{}</dd>",
            esc(&tipo(inv.tipo_documento))
        );
        let total_dd = format!(
            "<dt>Total</dt><dd>{}</dd>",
            esc(&amount(&v["total"], &v["moneda"]))
        );
        let body = format!(
            "<p>{}</p>{errors}<dl class=\"facts\">{}{}{}{}{}{}<dt>Receptor</dt><dd>{}</dd>{}{}{}</dl><p>{links}</p><p><a href=\"/panel/facturas?entorno={e}\">Volver a la lista</a></p>",
            badge(inv.status.as_str()),
            field("numero", "Número"),
            field("cdc", "CDC"),
            tipo_dd,
            field("fecha_emision", "Fecha de emisión"),
            total_dd,
            field("moneda", "Moneda"),
            esc(&format!("{} {}", v["receptor"]["razon_social"].as_str().unwrap_or("—"), inv.receptor_ruc.as_ref().map(|r| format!("(RUC {r})")).unwrap_or_default())),
            field("protocolo", "Protocolo de SIFEN"),
            field("created_at", "Creada"),
            field("approved_at", "Aprobada"),
        );
        s.page(&format!("Factura {}", inv.numero), "/panel/facturas", &body)
    }
}

/// A document type as people read it: `1 · Factura electrónica`.
fn tipo(code: u8) -> String {
    match kuatia_core::codes::tipo_documento(code) {
        Some(name) => format!("{code} · {name}"),
        None => code.to_string(),
    }
}

/// An amount as the KuDE shows it (`213.000 PYG`, `1.234,50 USD`); the stored text when it is not a number.
fn amount(total: &Value, moneda: &Value) -> String {
    let moneda = moneda.as_str().unwrap_or("");
    match total.as_str() {
        Some(t) => match t.parse::<rust_decimal::Decimal>() {
            Ok(d) => format!(
                "{} {moneda}",
                kuatia_core::fmt::human_amount(d, kuatia_core::fmt::currency_decimals(moneda))
            ),
            Err(_) => format!("{t} {moneda}"),
        },
        None => "—".into(),
    }
}

fn caller(s: &Session, q: &Form, default: Environment) -> Caller {
    Caller {
        account: s.account.clone(),
        env: env_param(q.get("entorno"), default),
    }
}

/// Whether a request says it comes from another site: an `Origin` header whose host is not the `Host` the request
/// was sent to (browsers send `Origin` with every form POST; clients without it are not browsers).
fn cross_origin(req: &HttpRequest) -> bool {
    let Some(origin) = req.header("Origin") else {
        return false;
    };
    let origin_host = origin
        .split_once("://")
        .map(|(_, h)| h.trim_end_matches('/'));
    origin_host.is_none() || origin_host != req.header("Host")
}

/// The session id of the panel cookie.
fn cookie(req: &HttpRequest) -> Option<String> {
    req.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("Cookie"))
        .flat_map(|(_, v)| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty())
}

/// An argon2id PHC string of a password, salted with 16 bytes of the host's CSPRNG.
fn hash_password(password: &str, host: &mut dyn Host) -> Option<String> {
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
fn verify_password(password: &str, phc: &str) -> bool {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    PasswordHash::new(phc).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// The emitter profile of the profile form, and the findings of fields that do not even parse (paths as in the
/// profile's JSON). An empty CSC keeps the stored one.
fn profile_from_form(f: &Form, stored: Option<&Emisor>) -> (Emisor, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut num = |name: &str, required: bool| -> Option<u64> {
        let t = f.text(name);
        if t.is_empty() {
            if required {
                findings.push(Finding::new(
                    kuatia_core::code::REQUIRED,
                    name,
                    "este dato es obligatorio",
                ));
            }
            return None;
        }
        match t.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                findings.push(Finding::new(
                    kuatia_core::code::INVALID_VALUE,
                    name,
                    "debe ser un número entero",
                ));
                None
            }
        }
    };
    let tipo_contribuyente = num("tipo_contribuyente", true)
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(0);
    let tipo_regimen = num("tipo_regimen", false).and_then(|n| u8::try_from(n).ok());
    let numero_casa = num("numero_casa", false)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let departamento = num("departamento", true)
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(0);
    let distrito = num("distrito", false).and_then(|n| u16::try_from(n).ok());
    let ciudad = num("ciudad", true)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let optional = |name: &str| Some(f.text(name)).filter(|t| !t.is_empty());
    let mut actividades = Vec::new();
    for (i, line) in f
        .text("actividades")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        match line.split_once('|') {
            Some((c, d)) => actividades.push(Actividad {
                codigo: c.trim().into(),
                descripcion: d.trim().into(),
            }),
            None => findings.push(Finding::new(
                kuatia_core::code::INVALID_VALUE,
                format!("actividades[{i}]"),
                "escriba código | descripción",
            )),
        }
    }
    let mut timbrados = Vec::new();
    for (i, line) in f
        .text("timbrados")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let path = format!("timbrados[{i}]");
        let [numero, inicio, fin, tipos, est, punto] = parts.as_slice() else {
            findings.push(Finding::new(kuatia_core::code::INVALID_VALUE, path, "escriba número | inicio | fin | tipos | establecimiento | punto (seis partes separadas por |)"));
            continue;
        };
        let date = |t: &str| kuatia_core::fmt::parse_date(t).ok();
        let Some(fecha_inicio) = date(inicio) else {
            findings.push(Finding::new(
                kuatia_core::code::INVALID_FORMAT,
                format!("{path}.fecha_inicio"),
                "fecha AAAA-MM-DD",
            ));
            continue;
        };
        let fecha_fin = if fin.is_empty() {
            None
        } else {
            match date(fin) {
                Some(d) => Some(d),
                None => {
                    findings.push(Finding::new(
                        kuatia_core::code::INVALID_FORMAT,
                        format!("{path}.fecha_fin"),
                        "fecha AAAA-MM-DD",
                    ));
                    continue;
                }
            }
        };
        let tipos: Result<Vec<u8>, _> = tipos.split(',').map(|t| t.trim().parse::<u8>()).collect();
        let Ok(tipos_documento) = tipos else {
            findings.push(Finding::new(
                kuatia_core::code::INVALID_VALUE,
                format!("{path}.tipos_documento"),
                "tipos separados por comas, p. ej. 1,5,6",
            ));
            continue;
        };
        timbrados.push(Timbrado {
            numero: (*numero).into(),
            fecha_inicio,
            fecha_fin,
            tipos_documento,
            establecimiento: (*est).into(),
            punto_expedicion: (*punto).into(),
        });
    }
    let secret = f.text("csc_secreto");
    let secreto = if secret.is_empty() {
        stored.map(|e| e.csc.secreto.clone()).unwrap_or_default()
    } else {
        Secret::new(secret)
    };
    let emisor = Emisor {
        ambiente: kuatia_core::profile::Ambiente::Produccion,
        ruc: f.text("ruc"),
        razon_social: f.text("razon_social"),
        nombre_fantasia: optional("nombre_fantasia"),
        tipo_contribuyente,
        tipo_regimen,
        direccion: f.text("direccion"),
        numero_casa,
        complemento_direccion1: stored.and_then(|e| e.complemento_direccion1.clone()),
        complemento_direccion2: stored.and_then(|e| e.complemento_direccion2.clone()),
        departamento,
        distrito,
        ciudad,
        telefono: f.text("telefono"),
        email: f.text("email"),
        sucursal: stored.and_then(|e| e.sucursal.clone()),
        actividades,
        timbrados,
        csc: Csc {
            id: f.text("csc_id"),
            secreto,
        },
    };
    (emisor, findings)
}

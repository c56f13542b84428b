//! The "Correo" page (issue 36): an account's own SMTP settings for each environment (the sender, the SMTP server,
//! its password sealed by the host and never shown again) and the "Enviar correo de prueba" button.
//!
//! **Settings per environment**, like the webhooks and the profiles: the sandbox's and production's are saved apart
//! (production's never carry a sandbox message, nor the reverse). A message of an account's environment goes through
//! that environment's settings, else through the host's server-wide default (`kuatia serve --smtp-url`), else it is
//! stored `captured`, never sent. The URL is read by the host ([`Host::check_smtp_settings`]: `kuatia serve` reads it
//! as its own `--smtp-url`), which seals the password. A saved password stays only while the server URL stays the
//! same: pointing the settings at another server needs the password again, so a stolen session cannot send the stored
//! password to a server of its choosing.
//!
//! **The test message** is a real SMTP send, which a sans-IO panel cannot make: the host asks
//! [`Panel::email_test_step`] whether a `POST /panel/correo/prueba` ([`is_email_test`]) may send (session, origin,
//! CSRF, the address, and the account's quota of [`TEST_EMAILS`] per [`TEST_EMAIL_WINDOW`] seconds, so the button is
//! no relay), sends the [`EmailTest`] itself outside its store, and shows the [`EmailTestOutcome`] with
//! [`Panel::email_test_page`]. A host that does not intercept the path gets a page saying it sends no test messages.

use crate::form::{self, Form};
use crate::html::{csrf_field, esc, notice};
use crate::pages::{env_label, findings_html, forbidden};
use crate::{caller, cross_origin, Ctx, Panel, Session};
use kuatia_service::auth::{self, Environment};
use kuatia_service::{Host, HttpRequest, HttpResponse, Service, Store};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// Test messages one account may send per [`TEST_EMAIL_WINDOW`] (on each node of a host).
pub const TEST_EMAILS: usize = 5;
/// Seconds over which [`TEST_EMAILS`] are counted.
pub const TEST_EMAIL_WINDOW: i64 = 3600;

/// The test message the panel asks its host to send now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailTest {
    /// The account whose settings carry it.
    pub account_id: String,
    /// The environment whose settings carry it.
    pub env: Environment,
    /// The address the user typed.
    pub to: String,
    /// Subject ([`kuatia_service::email::test_message`]).
    pub subject: String,
    /// Plain-text body.
    pub body: String,
}

/// How the host's test send ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmailTestOutcome {
    /// The SMTP server accepted the message (its reply code, 250).
    Sent {
        /// The reply code.
        code: u16,
    },
    /// The SMTP server answered with a refusal (an `AUTH` refused, a recipient refused, ...).
    Refused {
        /// The reply code (4xx, 5xx).
        code: u16,
        /// The server's reply.
        reply: String,
    },
    /// No answer to act on: connection, TLS, time-out.
    Failed {
        /// What went wrong (never a credential).
        reason: String,
    },
    /// Neither the account's settings for the environment nor a server-wide default.
    NotConfigured,
}

/// What [`Panel::email_test_step`] asks of the host.
#[derive(Debug)]
pub enum EmailTestStep {
    /// Send this message, then show the outcome with [`Panel::email_test_page`].
    Send(EmailTest),
    /// Nothing to send: answer this (a refused form, a spent quota).
    Done(HttpResponse),
}

/// Whether `method path` is the panel's test message (`POST /panel/correo/prueba`), which a host that sends e-mail
/// serves with [`Panel::email_test_step`] and [`Panel::email_test_page`].
pub fn is_email_test(method: &str, path: &str) -> bool {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    method.eq_ignore_ascii_case("POST") && path.trim_end_matches('/') == "/panel/correo/prueba"
}

/// Test messages sent per account in the current window (shared by a panel's clones).
#[derive(Debug, Clone, Default)]
pub(crate) struct TestQuota(Arc<Mutex<HashMap<String, Vec<i64>>>>);

impl TestQuota {
    /// Counts one message of `account` at `now`, or the seconds until the next one is allowed.
    fn take(&self, account: &str, now: i64) -> Result<(), i64> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let live = |t: &i64| now.saturating_sub(*t) < TEST_EMAIL_WINDOW;
        if map.len() > 10_000 {
            map.retain(|_, sent| sent.iter().any(live));
        }
        let sent = map.entry(account.to_string()).or_default();
        sent.retain(live);
        if sent.len() >= TEST_EMAILS {
            let oldest = sent.first().copied().unwrap_or(now);
            return Err(oldest.saturating_add(TEST_EMAIL_WINDOW).saturating_sub(now));
        }
        sent.push(now);
        Ok(())
    }
}

/// A signed-in POST's session and form: origin, session and CSRF checked as every panel form.
fn signed_post<S: Store>(
    ctx: &mut Ctx<'_, S>,
    req: &HttpRequest,
    now: i64,
) -> Result<(Session, Form), HttpResponse> {
    if cross_origin(req) {
        return Err(forbidden());
    }
    let session = ctx.session(req, now).ok_or_else(forbidden)?;
    let ct = req.header("Content-Type").unwrap_or_default();
    let form = if ct.to_ascii_lowercase().starts_with("multipart/form-data") {
        form::multipart(ct, &req.body).ok_or_else(forbidden)?
    } else {
        form::urlencoded(&req.body)
    };
    let sent = form.get("csrf").unwrap_or_default();
    if !auth::ct_eq(sent.as_bytes(), session.csrf.as_bytes()) {
        return Err(forbidden());
    }
    Ok((session, form))
}

impl Panel {
    /// The first half of `POST /panel/correo/prueba`: the form checked (origin, session, CSRF, the address) and the
    /// account's quota counted; the message for the host to send, or the page to answer. Writes nothing but an
    /// expired session's removal.
    pub fn email_test_step<S: Store>(
        &self,
        svc: &mut Service<S>,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> EmailTestStep {
        let now = host.now().unix_timestamp();
        let mut ctx = Ctx {
            svc,
            throttle: &self.throttle,
        };
        let (session, form) = match signed_post(&mut ctx, req, now) {
            Ok(x) => x,
            Err(r) => return EmailTestStep::Done(r),
        };
        let env = caller(&session, &form, Environment::Production).env;
        let to = form.text("para");
        if !(kuatia_core::validate::email_ok(&to) && (3..=80).contains(&to.len())) {
            let msg = notice(
                "error",
                "Escriba una sola dirección de correo válida (de 3 a 80 caracteres, sin espacios).",
            );
            return EmailTestStep::Done(ctx.smtp_page(&session, env, &msg, 422));
        }
        if let Err(wait) = self.test_emails.take(&session.account.id, now) {
            let msg = notice(
                "error",
                &format!(
                    "Ya se enviaron {TEST_EMAILS} correos de prueba en la última hora. Podrá enviar otro en {} minutos.",
                    (wait + 59) / 60
                ),
            );
            let mut page = ctx.smtp_page(&session, env, &msg, 429);
            page.headers.push(("Retry-After".into(), wait.to_string()));
            return EmailTestStep::Done(page);
        }
        let (subject, body) = kuatia_service::email::test_message(&session.account.name, env);
        EmailTestStep::Send(EmailTest {
            account_id: session.account.id.clone(),
            env,
            to,
            subject,
            body,
        })
    }

    /// The second half of `POST /panel/correo/prueba`: the "Correo" page with how the host's send ended.
    pub fn email_test_page<S: Store>(
        &self,
        svc: &mut Service<S>,
        req: &HttpRequest,
        test: &EmailTest,
        outcome: &EmailTestOutcome,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let now = host.now().unix_timestamp();
        let mut ctx = Ctx {
            svc,
            throttle: &self.throttle,
        };
        let Some(session) = ctx.session(req, now) else {
            return forbidden();
        };
        let to = esc(&test.to);
        let (msg, status) = match outcome {
            EmailTestOutcome::Sent { code } => (
                notice("ok", &format!("Correo de prueba enviado a {to}: el servidor SMTP lo aceptó (respuesta {code}).")),
                200,
            ),
            EmailTestOutcome::Refused { code, reply } => (
                notice("error", &format!("El servidor SMTP rechazó el correo de prueba a {to} (respuesta {code}): <code>{}</code>", esc(reply))),
                502,
            ),
            EmailTestOutcome::Failed { reason } => (
                notice("error", &format!("No se pudo enviar el correo de prueba a {to}: <code>{}</code>", esc(reason))),
                502,
            ),
            EmailTestOutcome::NotConfigured => (
                notice("error", "No hay configuración de correo para este entorno ni una por defecto del servidor: guarde la de su cuenta primero."),
                409,
            ),
        };
        ctx.smtp_page(&session, test.env, &msg, status)
    }
}

impl<S: Store> Ctx<'_, S> {
    /// `GET /panel/correo`: the environment's settings, the form, the test button.
    pub(crate) fn smtp_page(
        &self,
        s: &Session,
        env: Environment,
        message: &str,
        status: u16,
    ) -> HttpResponse {
        let current = self.svc.store.smtp_settings(&s.account.id, env);
        let e = env.as_str();
        let other = match env {
            Environment::Production => {
                "<a href=\"/panel/correo?entorno=sandbox\">Ver la configuración del sandbox</a>"
            }
            Environment::Sandbox => {
                "<a href=\"/panel/correo?entorno=produccion\">Ver la configuración de producción</a>"
            }
        };
        let fallback = if self.svc.config.email_outbox {
            "Sin configuración propia, salen por la configuración por defecto de este servidor."
        } else {
            "Sin configuración propia no se envían: este servidor no tiene configuración por defecto, y los mensajes quedan <em>capturados</em> (visibles en la factura, sin enviarse)."
        };
        let (facts, from, url) = match &current {
            Some(c) => (
                format!(
                    "<dl class=\"facts\"><dt>Remitente</dt><dd>{}</dd><dt>Servidor SMTP</dt><dd><code>{}</code></dd><dt>Contraseña</dt><dd>{}</dd><dt>Guardada</dt><dd>{}</dd></dl>\
<form method=\"post\" action=\"/panel/correo/borrar\">{c}<input type=\"hidden\" name=\"entorno\" value=\"{e}\"><button type=\"submit\" class=\"danger\">Eliminar la configuración</button></form>",
                    esc(&c.from),
                    esc(&c.url),
                    if c.sealed_password.is_some() { "guardada cifrada (no se muestra)" } else { "ninguna (sin AUTH)" },
                    esc(&kuatia_service::rfc3339(c.updated_at)),
                    c = csrf_field(&s.csrf),
                ),
                c.from.as_str(),
                c.url.as_str(),
            ),
            None => (
                "<p>Esta cuenta no tiene configuración de correo propia en este entorno.</p>".to_string(),
                "",
                "",
            ),
        };
        let body = format!(
            "{message}<p>Entorno: <strong>{label}</strong>. {other}</p>\
<p>Los correos al comprador de este entorno (documento aprobado con su KuDE y XML, aviso de cancelación) salen por el servidor SMTP de su cuenta. {fallback}</p>\
<h2>Configuración actual</h2>{facts}\
<h2>Guardar la configuración</h2><form method=\"post\" action=\"/panel/correo\">{c}<input type=\"hidden\" name=\"entorno\" value=\"{e}\">\
<label for=\"desde\">Remitente (Nombre &lt;dirección&gt;)</label><input type=\"text\" id=\"desde\" name=\"desde\" value=\"{from}\" placeholder=\"Su Empresa &lt;facturas@su-empresa.com.py&gt;\" required>\
<label for=\"smtp-url\">Servidor SMTP: smtps://usuario@servidor:465 (TLS) o smtp://usuario@servidor:587 (STARTTLS)</label><input type=\"text\" id=\"smtp-url\" name=\"url\" value=\"{url}\" placeholder=\"smtps://facturas%40su-empresa.com.py@smtp.su-empresa.com.py\" required>\
<label for=\"smtp-clave\">Contraseña del servidor SMTP (vacía: se conserva la guardada mientras no cambie el servidor)</label><input type=\"password\" id=\"smtp-clave\" name=\"contrasena\" autocomplete=\"new-password\">\
<button type=\"submit\">Guardar configuración</button></form>\
<h2>Enviar correo de prueba</h2><p class=\"hint\">Un mensaje corto, enviado ahora por la configuración de este entorno (o la del servidor), para comprobarla. Hasta {TEST_EMAILS} por hora.</p>\
<form method=\"post\" action=\"/panel/correo/prueba\">{c}<input type=\"hidden\" name=\"entorno\" value=\"{e}\">\
<label for=\"prueba-para\">Enviar a</label><input type=\"email\" id=\"prueba-para\" name=\"para\" maxlength=\"80\" required>\
<button type=\"submit\" class=\"secondary\">Enviar correo de prueba</button></form>",
            label = env_label(env),
            from = esc(from),
            url = esc(url),
            c = csrf_field(&s.csrf),
        );
        let mut page = s.page("Correo", "/panel/correo", &body);
        page.status = status;
        page
    }

    /// `POST /panel/correo`: the settings checked and the password sealed by the host, then stored.
    pub(crate) fn save_smtp(&mut self, s: &Session, f: &Form, host: &mut dyn Host) -> HttpResponse {
        let env = caller(s, f, Environment::Production).env;
        let (from, url) = (f.text("desde"), f.text("url"));
        let password = Zeroizing::new(f.get("contrasena").unwrap_or_default().to_string());
        let given = (!password.is_empty()).then_some(password.as_str());
        let sealed = match host.check_smtp_settings(&s.account.id, env, &from, &url, given) {
            Ok(sealed) => sealed,
            Err(finding) => {
                let msg = findings_html("No se guardó la configuración de correo:", &[finding]);
                return self.smtp_page(s, env, &msg, 422);
            }
        };
        let current = self.svc.store.smtp_settings(&s.account.id, env);
        // The stored password only for the same server: another server gets none unless typed again.
        let (sealed_password, dropped) = match (sealed, current) {
            (Some(new), _) => (Some(new), false),
            (None, Some(c)) if c.url == url => (c.sealed_password, false),
            (None, Some(c)) => (None, c.sealed_password.is_some()),
            (None, None) => (None, false),
        };
        let settings = kuatia_service::email::SmtpAccountSettings {
            from,
            url,
            sealed_password,
            updated_at: host.now().unix_timestamp(),
        };
        self.svc
            .store
            .put_smtp_settings(&s.account.id, env, Some(&settings));
        let msg = if dropped {
            notice("warn", "Configuración de correo guardada. La contraseña anterior no se conservó porque cambió el servidor SMTP: escríbala de nuevo si el servidor la pide.")
        } else {
            notice("ok", "Configuración de correo guardada.")
        };
        self.smtp_page(s, env, &msg, 200)
    }

    /// `POST /panel/correo/borrar`: the environment's settings removed (its messages go by the default again).
    pub(crate) fn delete_smtp(&mut self, s: &Session, f: &Form) -> HttpResponse {
        let env = caller(s, f, Environment::Production).env;
        self.svc.store.put_smtp_settings(&s.account.id, env, None);
        self.smtp_page(
            s,
            env,
            &notice("ok", "Configuración de correo eliminada."),
            200,
        )
    }
}

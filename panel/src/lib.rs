//! The account panel at `/panel` (crate `kuatia-panel`): the web pages where an issuer (an accountant, not a
//! developer) creates and revokes API keys, loads the P12 certificate, edits the emitter profile and its stamps,
//! registers webhooks, follows invoices and sees the production checklist ([`Service::preflight`]). Server-rendered
//! Spanish HTML, one small stylesheet and one small script, both embedded; sans-IO like the service it runs on: a
//! host sends each request to [`Panel::handle_step`], which answers every path under `/panel` and passes the rest to
//! [`Service::handle_step`].
//!
//! The pages call the service's typed operations ([`Service::register_webhook`], [`Service::list_webhooks`],
//! [`Service::delete_webhook`], [`Service::create_key`], [`Service::preflight`], ...) for a [`Principal`] the session
//! names: no JSON request is made up and no API answer is read back as JSON.
//!
//! Security rules (all here, none in the host):
//! - Sign-in by a one-time link ([`login_link`], `kuatia accounts panel-login`), valid [`LINK_TTL`] seconds and only
//!   once, or by the account id and a password the holder set (argon2id, PHC string).
//! - Sessions: a random id from the host's CSPRNG in an `HttpOnly; SameSite=Strict` cookie scoped to `/panel`
//!   (`Secure` when [`kuatia_service::Config::base_url`] is `https://`), stored only as its SHA-256; [`SESSION_TTL`].
//! - Every state-changing form carries the session's CSRF token; a missing or wrong one is 403, and so is any POST
//!   whose `Origin` is another site (sign-in forms included).
//! - Failed sign-ins are counted by source (the client address the host passes to [`Panel::handle_step`]), by
//!   account and source, and by account ([`throttle`]): a source that fails too often is refused (429) until its
//!   window ends, while a valid link, or a correct password from a source that is not itself refused, always signs
//!   in. Nobody can lock someone else out.
//! - No page shows an existing API key, a webhook secret after its creation, the CSC or the P12 password.
#![forbid(unsafe_code)]

mod form;
mod html;
mod pages;
mod signin;
#[cfg(feature = "email")]
mod smtp;
pub mod throttle;

#[cfg(feature = "email")]
pub use smtp::{
    is_email_test, EmailTest, EmailTestOutcome, EmailTestStep, TEST_EMAILS, TEST_EMAIL_WINDOW,
};

use form::Form;
use html::{page, redirect};
use kuatia_service::auth::{self, Environment};
use kuatia_service::{
    random_id, ApiError, Host, HttpRequest, HttpResponse, Principal, Service, Step, Store,
};
use pages::{env_param, forbidden, not_found};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::net::IpAddr;

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
    account: kuatia_service::Account,
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

/// The account panel of a host: its pages over a [`Service`], and the sign-in throttle it keeps in memory. Clones
/// share the throttle, so a host with several engines gives each a clone and a client's failures count once.
#[derive(Debug, Clone, Default)]
pub struct Panel {
    throttle: throttle::Throttles,
    /// Test messages sent per account ([`smtp`]).
    #[cfg(feature = "email")]
    test_emails: smtp::TestQuota,
}

impl Panel {
    /// A panel with an empty throttle.
    pub fn new() -> Panel {
        Panel::default()
    }

    /// The sign-in throttle (failures by source and account); its clones share one state.
    pub fn throttle(&self) -> &throttle::Throttles {
        &self.throttle
    }

    /// One request of the host, from `client` (the peer address the host accepted it from, by which failed sign-ins
    /// are throttled; `None` makes every client one source): a path under `/panel` is answered here, after the
    /// service's simulated SIFEN is advanced ([`Service::tick_due`]), and anything else goes to
    /// [`Service::handle_step`].
    pub fn handle_step<S: Store>(
        &self,
        svc: &mut Service<S>,
        req: &HttpRequest,
        client: Option<IpAddr>,
        host: &mut dyn Host,
    ) -> Step {
        if !is_panel_path(&req.path) {
            return svc.handle_step(req, host);
        }
        svc.tick_due(host);
        let mut ctx = Ctx {
            svc,
            throttle: &self.throttle,
        };
        Step::Done(ctx.panel(req, client, host))
    }

    /// [`Panel::handle_step`] to the end, as [`Service::handle`] does: a create is signed with the host's signer.
    pub fn handle<S: Store>(
        &self,
        svc: &mut Service<S>,
        req: &HttpRequest,
        client: Option<IpAddr>,
        host: &mut dyn Host,
    ) -> HttpResponse {
        match self.handle_step(svc, req, client, host) {
            Step::Done(response) => response,
            Step::Sign(job) => {
                let signer = host.signer(job.account_id(), job.environment());
                let signed = job.sign(signer);
                svc.finish_create(signed, host)
            }
        }
    }
}

/// Whether a request's path is the panel's: `/panel` or under `/panel/` (a query aside).
pub fn is_panel_path(path: &str) -> bool {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    path == "/panel" || path.starts_with("/panel/")
}

/// Whether `method path` is the panel's month archive download (`GET /panel/archivo`, a query aside).
pub fn is_archive_download(method: &str, path: &str) -> bool {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    method.eq_ignore_ascii_case("GET") && path.trim_end_matches('/') == "/panel/archivo"
}

/// The panel's month archive download (`GET /panel/archivo?mes=YYYY-MM[&entorno=...]`) read without writing: the
/// signed-in account, its environment and the month, for a host that writes the archive itself
/// ([`Service::archive`]: `kuatia serve` streams it from a file, with no limit). `None` for any other request, and for
/// one without a live session or with a malformed month: [`Panel::handle_step`] answers those (a sign-in redirect,
/// the page's notice) exactly as before.
pub fn archive_order<S: Store>(
    svc: &Service<S>,
    req: &HttpRequest,
    now: i64,
) -> Option<kuatia_service::archive::ArchiveOrder> {
    if !is_archive_download(&req.method, &req.path) {
        return None;
    }
    let sid = cookie(req)?;
    let text = svc
        .store
        .panel_record(&format!("session:{}", digest(&sid)))?;
    let record: SessionRecord = serde_json::from_str(&text).ok()?;
    if record.expires_at <= now {
        return None;
    }
    let account = svc.store.account(&record.account_id)?;
    let query = req.path.split_once('?').map_or("", |(_, q)| q);
    let q = form::urlencoded(query.as_bytes());
    let month = kuatia_service::archive::Month::parse(q.get("mes")?)?;
    Some(kuatia_service::archive::ArchiveOrder {
        principal: Principal {
            account,
            env: pages::env_param(q.get("entorno"), Environment::Sandbox),
        },
        month,
    })
}

/// A one-time sign-in link to the panel for an account (`kuatia accounts panel-login`): valid [`LINK_TTL`] seconds,
/// once, under the service's [`kuatia_service::Config::base_url`]. `None` for an unknown account. Only the token's
/// SHA-256 is stored.
pub fn login_link<S: Store>(
    svc: &mut Service<S>,
    account_id: &str,
    host: &mut dyn Host,
) -> Option<String> {
    svc.store.account(account_id)?;
    let token = random_id(host, "", 43);
    let record = LinkRecord {
        account_id: account_id.to_string(),
        expires_at: host.now().unix_timestamp().saturating_add(LINK_TTL),
    };
    put_record(svc, &format!("link:{}", digest(&token)), Some(&record));
    let base = svc.config.base_url.trim_end_matches('/');
    Some(format!("{base}/panel/entrar?token={token}"))
}

/// Stores (`Some`, as JSON) or deletes (`None`) a panel record.
fn put_record<S: Store, T: Serialize>(svc: &mut Service<S>, key: &str, value: Option<&T>) {
    let text = value
        .and_then(|v| serde_json::to_value(v).ok())
        .map(|v| v.to_string());
    svc.store.put_panel_record(key, text.as_deref());
}

/// One request's work: the service and the panel's throttle.
pub(crate) struct Ctx<'a, S: Store> {
    /// The service the pages call.
    pub(crate) svc: &'a mut Service<S>,
    /// Failed sign-ins.
    pub(crate) throttle: &'a throttle::Throttles,
}

impl<S: Store> Ctx<'_, S> {
    pub(crate) fn record<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        serde_json::from_str(&self.svc.store.panel_record(key)?).ok()
    }

    pub(crate) fn put_record<T: Serialize>(&mut self, key: &str, value: Option<&T>) {
        put_record(self.svc, key, value);
    }

    pub(crate) fn delete_record(&mut self, key: &str) {
        put_record::<S, ()>(self.svc, key, None);
    }

    /// Handles one request under `/panel`.
    fn panel(
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
                self.svc.store.put_account(account);
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
            (["facturas", id], false) => self.invoice_page(&session, id, &q, ""),
            #[cfg(feature = "email")]
            (["facturas", id, "correo"], true) => self.resend_email_page(&session, id, &form, now),
            #[cfg(feature = "email")]
            (["correo"], false) => {
                let env = caller(&session, &q, Environment::Production).env;
                self.smtp_page(&session, env, "", 200)
            }
            #[cfg(feature = "email")]
            (["correo"], true) => self.save_smtp(&session, &form, host),
            #[cfg(feature = "email")]
            (["correo", "borrar"], true) => self.delete_smtp(&session, &form),
            #[cfg(feature = "email")]
            (["correo", "prueba"], true) => {
                // A host that sends e-mail serves this path itself (`email_test_step`).
                let env = caller(&session, &form, Environment::Production).env;
                let msg = html::notice(
                    "error",
                    "Este servidor no envía correos de prueba desde el panel.",
                );
                self.smtp_page(&session, env, &msg, 501)
            }
            (["facturas", id, "kude"], false) => {
                match self
                    .svc
                    .kude(&caller(&session, &q, Environment::Sandbox), id)
                {
                    Ok(kude) => download("application/pdf", &kude.file_name, kude.pdf),
                    Err(e) => unavailable(&session, &e),
                }
            }
            (["facturas", id, "xml"], false) => {
                match self
                    .svc
                    .signed_xml(&caller(&session, &q, Environment::Sandbox), id)
                {
                    Ok(xml) => download(
                        "application/xml; charset=utf-8",
                        &xml.file_name,
                        xml.xml.into_bytes(),
                    ),
                    Err(e) => unavailable(&session, &e),
                }
            }
            (["archivo"], false) => {
                let principal = caller(&session, &q, Environment::Sandbox);
                match self
                    .svc
                    .month_archive(&principal, q.get("mes").unwrap_or_default(), now)
                {
                    Ok(a) => download("application/zip", &a.file_name, a.zip),
                    Err(e) => unavailable(&session, &e),
                }
            }
            _ => not_found(),
        }
    }

    pub(crate) fn session(&mut self, req: &HttpRequest, now: i64) -> Option<Session> {
        let sid = cookie(req)?;
        let key = format!("session:{}", digest(&sid));
        let record: SessionRecord = self.record(&key)?;
        if record.expires_at <= now {
            self.delete_record(&key);
            return None;
        }
        let account = self.svc.store.account(&record.account_id)?;
        Some(Session {
            account,
            csrf: record.csrf,
        })
    }

    /// Starts a session for an account: the cookie and a redirect to the panel.
    pub(crate) fn start_session(&mut self, account_id: &str, host: &mut dyn Host) -> HttpResponse {
        let sid = random_id(host, "", 43);
        let csrf = random_id(host, "", 32);
        let record = SessionRecord {
            account_id: account_id.to_string(),
            csrf,
            expires_at: host.now().unix_timestamp().saturating_add(SESSION_TTL),
        };
        self.put_record(&format!("session:{}", digest(&sid)), Some(&record));
        let mut r = redirect("/panel");
        let secure = if self.svc.config.base_url.starts_with("https://") {
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

    pub(crate) fn sign_out(&mut self, req: &HttpRequest) -> HttpResponse {
        if let Some(sid) = cookie(req) {
            self.delete_record(&format!("session:{}", digest(&sid)));
        }
        let mut r = redirect("/panel");
        r.headers.push((
            "Set-Cookie".into(),
            format!("{COOKIE}=; Path=/panel; HttpOnly; SameSite=Strict; Max-Age=0"),
        ));
        r
    }
}

pub(crate) fn caller(s: &Session, q: &Form, default: Environment) -> Principal {
    Principal {
        account: s.account.clone(),
        env: env_param(q.get("entorno"), default),
    }
}

/// Whether a request says it comes from another site: an `Origin` header whose host is not the `Host` the request
/// was sent to (browsers send `Origin` with every form POST; clients without it are not browsers).
pub(crate) fn cross_origin(req: &HttpRequest) -> bool {
    let Some(origin) = req.header("Origin") else {
        return false;
    };
    let origin_host = origin
        .split_once("://")
        .map(|(_, h)| h.trim_end_matches('/'));
    origin_host.is_none() || origin_host != req.header("Host")
}

/// The session id of the panel cookie.
pub(crate) fn cookie(req: &HttpRequest) -> Option<String> {
    req.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("Cookie"))
        .flat_map(|(_, v)| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty())
}

/// The page of an operation the service refused (an invoice that has no KuDE yet, ...), with its status.
fn unavailable(session: &Session, e: &ApiError) -> HttpResponse {
    page(
        e.status,
        "No disponible",
        Some((&session.account.name, &session.csrf)),
        "",
        &html::notice("error", &html::esc(&pages::error_text(e))),
    )
}

/// A file to save (the KuDE, the signed XML): `Content-Disposition: attachment`.
fn download(content_type: &str, file_name: &str, body: Vec<u8>) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: vec![
            ("Content-Type".into(), content_type.into()),
            (
                "Content-Disposition".into(),
                format!("attachment; filename=\"{file_name}\""),
            ),
        ],
        body,
    }
}

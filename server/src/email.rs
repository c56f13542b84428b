//! E-mail to the buyer (issue 36): the SMTP settings of `kuatia serve` (`--smtp-url`, `--smtp-from`, the password
//! from [`PASSWORD_ENV`]) and the worker that sends the outbox's due messages ([`Service::claim_emails`]) and reports
//! each attempt ([`Service::report_email`]). What a message says and carries is the service's
//! ([`kuatia_service::email`]); this module only puts it in MIME and carries it over SMTP.
//!
//! **Never twice.** A message is claimed under a lease (the claim is committed before any connection), sent on a
//! connection of its own, and the SMTP server's acknowledgement of the data (250) is committed as `sent` *before*
//! anything else happens on that connection (before `QUIT`). A crash before the acknowledgement leaves the message
//! to the next claim once the lease ends: the buyer may then get it again only if the server had received it without
//! answering (at-least-once where the server never acknowledged). The one window left is between the server's 250
//! and the commit of `sent` (a store write).
//!
//! [`Service::claim_emails`]: kuatia_service::Service::claim_emails
//! [`Service::report_email`]: kuatia_service::Service::report_email

use crate::engine::{lock, Engine};
use crate::host::Clock;
use kuatia_service::auth::Environment;
use kuatia_service::email::{
    EmailAttachment, EmailAttempt, EmailMessage, EmailOutcome, SmtpAccountSettings,
};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::client::{SmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::transport::smtp::{authentication::Credentials, authentication::Mechanism};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use zeroize::Zeroizing;

/// Environment variable holding the SMTP password of `--smtp-url` (never on the command line, never logged).
pub const PASSWORD_ENV: &str = "KUATIA_SMTP_PASSWORD";

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// `smtps://`: TLS from the first byte (port 465 by default).
    Implicit,
    /// `smtp://` to another machine: `STARTTLS` required (port 587 by default); a server not offering it is an
    /// attempt failed, never a message sent in clear.
    StartTls,
    /// `smtp://` to a loopback address: no TLS (the message never leaves the machine; tests, a local relay).
    PlainLoopback,
}

/// `kuatia serve`'s SMTP settings: where, as whom, from whom.
#[derive(Clone)]
pub struct SmtpSettings {
    /// Server name or address.
    pub host: String,
    /// Server port.
    pub port: u16,
    /// TLS mode, from the URL's scheme and host.
    pub tls: SmtpTls,
    /// User for `AUTH`, when the URL names one.
    pub user: Option<String>,
    /// Its password ([`PASSWORD_ENV`]).
    pub password: Option<Zeroizing<String>>,
    /// `From` of every message (`--smtp-from "Name <addr>"`).
    pub from: Mailbox,
    /// Time limit of each network step (connect, each command's answer).
    pub timeout: Duration,
    /// Whether the server may be at a loopback, private or otherwise inside address: yes for `--smtp-url` (the
    /// operator's); for an account's own settings only with `--allow-private-webhooks` (the webhooks' SSRF policy,
    /// [`kuatia_service::webhook::forbidden_ip`], checked on every address the name resolves to, before connecting).
    pub allow_private: bool,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No password, ever.
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("user", &self.user)
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

/// Whether a host name is this machine (`localhost`, 127.0.0.0/8, `::1`).
fn loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl SmtpSettings {
    /// Reads `--smtp-url smtp[s]://[user@]host[:port]` and `--smtp-from "Name <addr>"`, with the password given
    /// apart ([`PASSWORD_ENV`]). A password inside the URL is refused: a command line is visible to every user of the
    /// machine.
    pub fn parse(url: &str, from: &str, password: Option<String>) -> Result<SmtpSettings, String> {
        // Parsed by the WHATWG parser the webhooks use (`url`), not split by hand: one reading of a URL.
        let parsed = url::Url::parse(url).map_err(|e| format!("--smtp-url: {e}"))?;
        let implicit = match parsed.scheme() {
            "smtps" => true,
            "smtp" => false,
            _ => {
                return Err(
                    "--smtp-url: expected smtp://… (STARTTLS) or smtps://… (implicit TLS)".into(),
                )
            }
        };
        if parsed.password().is_some() {
            return Err(format!(
                "--smtp-url: no password in the URL (the command line is visible to every user); set {PASSWORD_ENV}"
            ));
        }
        if !matches!(parsed.path(), "" | "/")
            || parsed.query().is_some()
            || parsed.fragment().is_some()
        {
            return Err("--smtp-url: only smtp[s]://[user@]host[:port]".into());
        }
        let host = match parsed.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => String::new(),
        };
        if host.is_empty() {
            return Err("--smtp-url: no host".into());
        }
        let port = parsed.port().unwrap_or(if implicit { 465 } else { 587 });
        let user = percent_encoding::percent_decode_str(parsed.username())
            .decode_utf8()
            .map(|u| u.into_owned())
            .map_err(|_| "--smtp-url: the user is not UTF-8".to_string())?;
        let tls = match (implicit, loopback(&host)) {
            (true, _) => SmtpTls::Implicit,
            (false, true) => SmtpTls::PlainLoopback,
            (false, false) => SmtpTls::StartTls,
        };
        let from: Mailbox = from
            .parse()
            .map_err(|e| format!("--smtp-from: not an address like \"Name <addr>\": {e}"))?;
        Ok(SmtpSettings {
            host,
            port,
            tls,
            user: Some(user).filter(|u| !u.is_empty()),
            password: password.map(Zeroizing::new),
            from,
            timeout: Duration::from_secs(30),
            allow_private: true,
        })
    }

    /// The EHLO name: the sender's domain (no hostname lookup).
    fn hello(&self) -> ClientId {
        ClientId::Domain(self.from.email.domain().to_string())
    }
}

/// A refusal of [`SmtpSettings::parse`] as a finding at the panel's field (`from` or `url`); the URL typed is never in
/// it.
pub fn refusal(e: String) -> kuatia_core::Finding {
    use kuatia_core::rule;
    if let Some(detail) = e.strip_prefix("--smtp-from: ") {
        return rule::host_smtp_from("from", detail);
    }
    if e.contains(PASSWORD_ENV) {
        return rule::host_smtp_password_in_url("url");
    }
    rule::host_smtp_url("url", e.strip_prefix("--smtp-url: ").unwrap_or(&e))
}

/// The settings a message of an account's environment goes through: the account's own for that environment (`own`,
/// its password unsealed with `key`; an inside address only when `allow_private`) before the server-wide `default`;
/// `Ok(None)` with neither. An error (settings that no longer parse, a password that does not open with this
/// `panel.key`) names no secret.
pub fn settings_for(
    own: Option<SmtpAccountSettings>,
    key: Option<&[u8; 32]>,
    account_id: &str,
    env: Environment,
    default: Option<&Arc<SmtpSettings>>,
    allow_private: bool,
) -> Result<Option<Arc<SmtpSettings>>, String> {
    let Some(own) = own else {
        return Ok(default.cloned());
    };
    let password = match (&own.sealed_password, key) {
        (None, _) => None,
        (Some(sealed), Some(key)) => Some(crate::panel::unseal(
            key,
            &crate::panel::smtp_context(account_id, env),
            sealed,
        )?),
        (Some(_), None) => {
            return Err(
                "the account's SMTP password is sealed and this server has no panel.key".into(),
            )
        }
    };
    let mut settings = SmtpSettings::parse(&own.url, &own.from, None)
        .map_err(|e| format!("the account's SMTP settings: {e}"))?;
    settings.password = password;
    settings.allow_private = allow_private;
    Ok(Some(Arc::new(settings)))
}

/// The MIME message of `msg`: `multipart/mixed` with the text and the attachments (or the text alone), UTF-8 headers
/// encoded per RFC 2047, `Message-ID` `<eml_…@sender domain>`.
pub fn mime(
    msg: &EmailMessage,
    from: &Mailbox,
    files: Vec<EmailAttachment>,
) -> Result<lettre::Message, String> {
    let to: Mailbox = msg
        .to
        .parse()
        .map_err(|e| format!("invalid_address: {e}"))?;
    let builder = lettre::Message::builder()
        .from(from.clone())
        .to(to)
        .subject(msg.subject.clone())
        .message_id(Some(format!("<{}@{}>", msg.id, from.email.domain())));
    let text = SinglePart::plain(msg.body.clone());
    let built = if files.is_empty() {
        builder.singlepart(text)
    } else {
        let mut parts = MultiPart::mixed().singlepart(text);
        for f in files {
            let kind = ContentType::parse(f.content_type).map_err(|e| e.to_string())?;
            parts = parts.singlepart(Attachment::new(f.file_name).body(f.content, kind));
        }
        builder.multipart(parts)
    };
    built.map_err(|e| format!("invalid_message: {e}"))
}

/// Messages one node sends at once, each on its own connection.
const MAX_IN_FLIGHT: usize = 8;

/// What the worker needs beside the engine.
#[derive(Debug, Clone)]
pub(crate) struct EmailPolicy {
    /// Every how long the outbox is read.
    pub(crate) period: Duration,
    /// Seconds a claimed message stays with this node (longer than one whole send).
    pub(crate) lease: i64,
}

/// The e-mail worker: every `period` claims the due messages and sends each on its own connection (on the blocking
/// pool), reporting every attempt. Each message goes through its account's own settings for its environment, else
/// through `settings` (`--smtp-url`); it runs without a default too, for the accounts that have their own.
pub(crate) async fn email_loop(
    engine: Arc<Mutex<Engine>>,
    settings: Option<Arc<SmtpSettings>>,
    policy: EmailPolicy,
    mut stop: watch::Receiver<bool>,
    clock: Clock,
) {
    let in_flight = Arc::new(Mutex::new(std::collections::HashSet::<String>::new()));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.period) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        // Messages being sent now (one blocking thread each) are at most MAX_IN_FLIGHT: a dead SMTP server holds
        // that many threads for its time-out, not the whole outbox.
        let free =
            MAX_IN_FLIGHT.saturating_sub(in_flight.lock().unwrap_or_else(|p| p.into_inner()).len());
        if free == 0 {
            continue;
        }
        let (e, now, lease) = (engine.clone(), clock.now().unix_timestamp(), policy.lease);
        let claimed = tokio::task::spawn_blocking(move || {
            lock(&e).transact(|svc, _| svc.claim_emails(now, lease, free))
        })
        .await;
        let due = match claimed {
            Ok(Ok(d)) => d,
            Ok(Err(err)) => {
                tracing::error!(error = %err, "claiming due e-mails failed");
                continue;
            }
            Err(_) => continue,
        };
        for m in due {
            {
                let mut f = in_flight.lock().unwrap_or_else(|p| p.into_inner());
                if !f.insert(m.id.clone()) {
                    continue;
                }
            }
            let (engine, settings, clock, in_flight) = (
                engine.clone(),
                settings.clone(),
                clock.clone(),
                in_flight.clone(),
            );
            tokio::task::spawn_blocking(move || {
                send_and_report(&engine, &settings, &clock, &m);
                in_flight
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&m.id);
            });
        }
    }
}

/// Records one attempt in its own transaction.
fn report(engine: &Mutex<Engine>, id: &str, attempt: EmailAttempt) {
    let outcome = attempt.outcome;
    match lock(engine).transact(|svc, host| svc.report_email(id, attempt, host)) {
        Ok(Some(m)) => {
            tracing::info!(email = %id, ?outcome, status = %m.status, attempts = m.attempts, "e-mail attempt")
        }
        Ok(None) => tracing::warn!(email = %id, "reported e-mail is not stored"),
        Err(err) => {
            tracing::error!(error = %err, email = %id, "recording an e-mail attempt failed; it will be retried")
        }
    }
}

/// One attempt at one message: built, sent, and reported (the acknowledgement before `QUIT`).
fn send_and_report(
    engine: &Mutex<Engine>,
    default: &Option<Arc<SmtpSettings>>,
    clock: &Clock,
    m: &EmailMessage,
) {
    let at = clock.now().unix_timestamp();
    let started = Instant::now();
    let attempt = |outcome, code: Option<u16>, detail: Option<String>| EmailAttempt {
        at,
        outcome,
        code,
        detail,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let read = lock(engine).transact(|svc, host| {
        let own = svc.store.smtp_settings(&m.account_id, m.environment);
        let settings = settings_for(
            own,
            host.seal_key(),
            &m.account_id,
            m.environment,
            default.as_ref(),
            svc.config.allow_private_webhooks,
        );
        (svc.email_attachments(m), settings)
    });
    let (message, settings) = match read {
        Ok(f) => f,
        Err(err) => {
            tracing::error!(error = %err, email = %m.id, "reading an e-mail's attachments failed; it will be retried");
            return;
        }
    };
    let settings = match settings {
        Ok(Some(s)) => s,
        // Settings removed since the message was queued, and no default: nothing will ever send it.
        Ok(None) => {
            let detail =
                "no SMTP settings for this account's environment and no server-wide default";
            return report(
                engine,
                &m.id,
                attempt(EmailOutcome::Permanent, None, Some(detail.into())),
            );
        }
        // A password that does not open (another panel.key): retried, in case the key comes back.
        Err(e) => {
            tracing::warn!(email = %m.id, error = %e, "the account's SMTP settings are unusable");
            return report(
                engine,
                &m.id,
                attempt(EmailOutcome::Temporary, None, Some(e)),
            );
        }
    };
    let message = message
        .map_err(|f| format!("attachments: {}", f.message))
        .and_then(|files| mime(m, &settings.from, files));
    let message = match message {
        Ok(x) => x,
        Err(e) => {
            // The address or the stored document cannot make a message: it never will.
            tracing::warn!(email = %m.id, error = %e, "e-mail not built; given up");
            return report(
                engine,
                &m.id,
                attempt(EmailOutcome::Permanent, None, Some(e)),
            );
        }
    };
    let addr = match addresses(&settings) {
        Ok(a) => a,
        Err(e) => {
            // A name that does not resolve may resolve later; one pointing inside is refused for good.
            let outcome = if e.starts_with("resolving ") {
                EmailOutcome::Temporary
            } else {
                EmailOutcome::Permanent
            };
            tracing::warn!(email = %m.id, error = %e, "SMTP server not reachable");
            return report(engine, &m.id, attempt(outcome, None, Some(e)));
        }
    };
    let mut conn = match connect(&settings, &addr) {
        Ok(c) => c,
        Err(e) => {
            let (outcome, code, detail) = classify(&e);
            tracing::warn!(email = %m.id, error = %detail, "SMTP connection failed");
            return report(engine, &m.id, attempt(outcome, code, Some(detail)));
        }
    };
    match conn.send(message.envelope(), &message.formatted()) {
        Ok(r) => {
            // Acknowledged: committed before anything else on this connection.
            let code = Some(u16::from(r.code()));
            report(engine, &m.id, attempt(EmailOutcome::Sent, code, None));
            let _ = conn.quit();
        }
        Err(e) => {
            let (outcome, code, detail) = classify(&e);
            tracing::warn!(email = %m.id, error = %detail, "SMTP refused the message");
            report(engine, &m.id, attempt(outcome, code, Some(detail)));
            conn.abort();
        }
    }
}

/// Time limit of each network step of a test message (the panel waits for it).
const TEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The panel's test message ("Enviar correo de prueba") sent now through `settings` to `to`, on a connection of its
/// own: how it ended, with the server's reply or the error (no credential is ever in them).
pub fn send_test(
    settings: &SmtpSettings,
    to: &str,
    subject: &str,
    body: &str,
) -> kuatia_panel::EmailTestOutcome {
    use kuatia_panel::EmailTestOutcome;
    let mut settings = settings.clone();
    settings.timeout = settings.timeout.min(TEST_TIMEOUT);
    let message = to
        .parse::<Mailbox>()
        .map_err(|e| e.to_string())
        .and_then(|to| {
            lettre::Message::builder()
                .from(settings.from.clone())
                .to(to)
                .subject(subject)
                .singlepart(SinglePart::plain(body.to_string()))
                .map_err(|e| e.to_string())
        });
    let message = match message {
        Ok(m) => m,
        Err(reason) => return EmailTestOutcome::Failed { reason },
    };
    let failed = |e: &lettre::transport::smtp::Error| {
        let (_, code, detail) = classify(e);
        match code {
            Some(code) => EmailTestOutcome::Refused {
                code,
                reply: detail,
            },
            None => EmailTestOutcome::Failed { reason: detail },
        }
    };
    let addr = match addresses(&settings) {
        Ok(a) => a,
        Err(reason) => return EmailTestOutcome::Failed { reason },
    };
    let mut conn = match connect(&settings, &addr) {
        Ok(c) => c,
        Err(e) => return failed(&e),
    };
    match conn.send(message.envelope(), &message.formatted()) {
        Ok(r) => {
            let _ = conn.quit();
            EmailTestOutcome::Sent {
                code: u16::from(r.code()),
            }
        }
        Err(e) => {
            conn.abort();
            failed(&e)
        }
    }
}

/// Where to connect: the addresses the server's name resolves to, every one checked against the SSRF policy unless
/// [`SmtpSettings::allow_private`] (a name pointing inside is refused, not just skipped).
fn addresses(s: &SmtpSettings) -> Result<Vec<std::net::SocketAddr>, String> {
    use std::net::ToSocketAddrs;
    let host = s.host.trim_start_matches('[').trim_end_matches(']');
    let found: Vec<_> = (host, s.port)
        .to_socket_addrs()
        .map_err(|e| format!("resolving {host}: {e}"))?
        .collect();
    if found.is_empty() {
        return Err(format!("resolving {host}: no address"));
    }
    if !s.allow_private
        && found
            .iter()
            .any(|a| kuatia_service::webhook::forbidden_ip(a.ip()))
    {
        return Err(format!(
            "{host} is a loopback, private or otherwise inside address: not allowed for an account's SMTP server"
        ));
    }
    Ok(found)
}

/// A connection ready for `MAIL FROM`: TLS as the settings say, authenticated when there is a user.
fn connect(
    s: &SmtpSettings,
    addr: &[std::net::SocketAddr],
) -> Result<SmtpConnection, lettre::transport::smtp::Error> {
    let hello = s.hello();
    let tls = || TlsParameters::new_rustls(s.host.clone());
    let mut conn = match s.tls {
        SmtpTls::Implicit => {
            SmtpConnection::connect(addr, Some(s.timeout), &hello, Some(&tls()?), None)?
        }
        SmtpTls::StartTls => {
            let mut c = SmtpConnection::connect(addr, Some(s.timeout), &hello, None, None)?;
            // Refused unless offered: lettre's `starttls` is an error when the server does not list STARTTLS.
            c.starttls(&tls()?, &hello)?;
            c
        }
        SmtpTls::PlainLoopback => {
            SmtpConnection::connect(addr, Some(s.timeout), &hello, None, None)?
        }
    };
    if let (Some(user), Some(pass)) = (&s.user, &s.password) {
        let creds = Credentials::new(user.clone(), pass.to_string());
        conn.auth(&[Mechanism::Plain, Mechanism::Login], &creds)?;
    }
    Ok(conn)
}

/// An SMTP error as the attempt the core records: a 5xx reply is permanent, anything else (4xx, network, TLS,
/// timeout) temporary. The detail is the server's reply or the error's text (no credential is ever in it).
fn classify(e: &lettre::transport::smtp::Error) -> (EmailOutcome, Option<u16>, String) {
    let code = e.status().map(u16::from);
    let outcome = if e.is_permanent() {
        EmailOutcome::Permanent
    } else {
        EmailOutcome::Temporary
    };
    let mut detail = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        // lettre's text often already ends with its source's: said once.
        let text = c.to_string();
        if !detail.ends_with(&text) {
            detail.push_str(": ");
            detail.push_str(&text);
        }
        cause = c.source();
    }
    (outcome, code, detail)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{SmtpSettings, SmtpTls};

    /// The account's settings of the message's environment before the default, the password unsealed only for that
    /// account and environment, the SSRF policy applied to them and not to the default; refusals name no secret.
    #[test]
    fn an_accounts_own_settings_come_first_and_open_only_for_it() {
        use kuatia_service::auth::Environment::{Production, Sandbox};
        use std::sync::Arc;
        let key = [9u8; 32];
        let ctx = crate::panel::smtp_context("acct_a", Production);
        let own = kuatia_service::email::SmtpAccountSettings {
            from: "Acme <f@acme.com.py>".into(),
            url: "smtps://mailer@smtp.acme.com.py".into(),
            sealed_password: Some(crate::panel::seal(&key, &ctx, "pw-secreta").unwrap()),
            updated_at: 1,
        };
        let default =
            Arc::new(SmtpSettings::parse("smtp://127.0.0.1:25", "d@kuatia.example", None).unwrap());
        let got = super::settings_for(
            Some(own.clone()),
            Some(&key),
            "acct_a",
            Production,
            Some(&default),
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (got.host.as_str(), got.user.as_deref()),
            ("smtp.acme.com.py", Some("mailer"))
        );
        assert_eq!(
            got.password.as_deref().map(String::as_str),
            Some("pw-secreta")
        );
        assert!(!got.allow_private && default.allow_private);
        // No own settings: the default; neither: none.
        let got = super::settings_for(None, Some(&key), "acct_a", Sandbox, Some(&default), false)
            .unwrap();
        assert!(Arc::ptr_eq(&got.unwrap(), &default));
        assert!(
            super::settings_for(None, Some(&key), "acct_a", Sandbox, None, false)
                .unwrap()
                .is_none()
        );
        // Sealed for production: not the sandbox's, not another account's, not under another key.
        for (acct, env, k) in [
            ("acct_a", Sandbox, key),
            ("acct_b", Production, key),
            ("acct_a", Production, [1u8; 32]),
        ] {
            let e = super::settings_for(Some(own.clone()), Some(&k), acct, env, None, false)
                .unwrap_err();
            assert!(!e.contains("pw-secreta"), "{e}");
        }
        // A loopback server of an account is refused before any connection.
        let mut inside = (*default).clone();
        inside.allow_private = false;
        assert!(super::addresses(&inside)
            .unwrap_err()
            .contains("not allowed"));
        assert!(super::addresses(&default).is_ok());
    }

    #[test]
    fn parser_refusals_become_findings_at_the_panels_fields() {
        let f = super::refusal(SmtpSettings::parse("smtp://u:pw@h", "f@a.py", None).unwrap_err());
        assert_eq!(f.path, "url");
        let en = f.message_in(kuatia_core::msg::Lang::En);
        assert!(
            en.contains("password field") && !f.message.contains("pw@"),
            "{en}"
        );
        let f =
            super::refusal(SmtpSettings::parse("smtp://h", "not an address", None).unwrap_err());
        assert_eq!(f.path, "from");
        assert!(!f.message.starts_with("--smtp"), "{}", f.message);
    }

    #[test]
    fn smtp_urls_pick_the_tls_mode_and_refuse_a_password_inside() {
        let s = SmtpSettings::parse(
            "smtp://mailer%40acme.com.py@smtp.acme.com.py",
            "Acme <f@acme.com.py>",
            Some("pw".into()),
        )
        .unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.tls),
            ("smtp.acme.com.py", 587, SmtpTls::StartTls)
        );
        assert_eq!(s.user.as_deref(), Some("mailer@acme.com.py"));
        assert!(!format!("{s:?}").contains("pw"));
        let s = SmtpSettings::parse("smtps://smtp.acme.com.py", "f@acme.com.py", None).unwrap();
        assert_eq!((s.port, s.tls), (465, SmtpTls::Implicit));
        let s = SmtpSettings::parse("smtp://127.0.0.1:2525", "f@acme.com.py", None).unwrap();
        assert_eq!((s.port, s.tls), (2525, SmtpTls::PlainLoopback));
        let s = SmtpSettings::parse("smtp://[::1]:25", "f@acme.com.py", None).unwrap();
        assert_eq!((s.host.as_str(), s.tls), ("::1", SmtpTls::PlainLoopback));
        assert!(SmtpSettings::parse("smtp://u:secret@h", "f@a.py", None)
            .unwrap_err()
            .contains("KUATIA_SMTP_PASSWORD"));
        assert!(SmtpSettings::parse("http://h", "f@a.py", None).is_err());
        assert!(SmtpSettings::parse("smtp://h:x", "f@a.py", None).is_err());
        assert!(SmtpSettings::parse("smtp://h", "not an address", None).is_err());
    }
}

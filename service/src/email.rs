//! E-mail to the buyer (issue 36) as pure data: the message an approval (or a cancellation) queues for the
//! receiver's `dEmailRec`, its Spanish subject and body built here from the invoice alone (deterministic), its
//! attachments (the KuDE and the signed XML), and the outbox's claim / report discipline. The host only carries the
//! message over SMTP and reports each attempt back ([`crate::Service::report_email`]).
//!
//! The outbox mirrors the webhooks': a message is stored in the transaction that approves the invoice, a worker
//! claims the due ones with a lease ([`crate::Service::claim_emails`]; PostgreSQL reads them `FOR UPDATE SKIP
//! LOCKED`), temporary failures (SMTP 4xx, connection errors) are retried on [`Config::email_retry`], permanent ones
//! (5xx) give up at once with the server's reply kept.
//!
//! [`Config::email_retry`]: crate::Config::email_retry

use crate::{InvoiceRecord, Service, Store};
use kuatia_core::de::DocumentoElectronico;
use kuatia_core::error::Finding;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Default of [`crate::Config::email_retry`]: seconds after the 1st, 2nd, … failed attempt (1 min, 5 min, 30 min,
/// 2 h, 6 h); a message still refused after the last wait is `failed`.
pub const RETRY_SCHEDULE: [i64; 5] = [60, 300, 1_800, 7_200, 21_600];

/// Status of a message still to be sent (or being sent under a lease).
pub const PENDING: &str = "pending";
/// Status of a message the SMTP server acknowledged (250 after the data).
pub const SENT: &str = "sent";
/// Status of a message given up: a permanent refusal (5xx), or the retry schedule ran out.
pub const FAILED: &str = "failed";
/// Status of a message stored and never sent: the host has no SMTP settings (the sandbox without `--smtp-url`).
pub const CAPTURED: &str = "captured";

/// An account's own SMTP settings for one environment (the panel's "Correo" page): the `From` of its messages, the
/// SMTP server (`smtp[s]://[user@]host[:port]`, read by the host exactly as `kuatia serve --smtp-url`), and the
/// password sealed by the host ([`crate::Host::check_smtp_settings`]); opaque here, never shown. The messages of that
/// account and environment go through them before any server-wide default; production's never serve the sandbox.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmtpAccountSettings {
    /// `From` of the messages, `Name <addr>`.
    pub from: String,
    /// The SMTP server, `smtp[s]://[user@]host[:port]` (no password in it).
    pub url: String,
    /// The password for `AUTH`, sealed by the host; `None`: no `AUTH`.
    #[serde(default)]
    pub sealed_password: Option<String>,
    /// Unix time they were last saved.
    pub updated_at: i64,
}

impl std::fmt::Debug for SmtpAccountSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not even the sealed password.
        f.debug_struct("SmtpAccountSettings")
            .field("from", &self.from)
            .field("url", &self.url)
            .field("password", &self.sealed_password.is_some())
            .finish_non_exhaustive()
    }
}

/// Subject and body of the panel's test message ("Enviar correo de prueba"): Spanish, short, naming the account and
/// the environment whose settings carried it.
pub fn test_message(account_name: &str, env: crate::auth::Environment) -> (String, String) {
    let entorno = match env {
        crate::auth::Environment::Sandbox => "sandbox (pruebas)",
        crate::auth::Environment::Production => "producción",
    };
    (
        "Correo de prueba de kuatia".to_string(),
        format!(
            "Este es un mensaje de prueba enviado desde el panel de kuatia para la cuenta \"{}\" (entorno {entorno}).\n\n\
             Si lo recibió, la configuración de correo funciona: los compradores recibirán así sus documentos \
             aprobados (KuDE y XML firmado).\n",
            account_name.trim()
        ),
    )
}

/// Why a message is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EmailKind {
    /// The approved document: KuDE and signed XML attached.
    Approved,
    /// A short notice that the document was cancelled (no attachment).
    Cancelled,
}

/// One message of the outbox, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailMessage {
    /// `eml_…` identifier (also the local part of its `Message-ID`).
    pub id: String,
    /// Account of the invoice.
    pub account_id: String,
    /// Environment of the invoice.
    pub environment: crate::auth::Environment,
    /// Invoice id `fact_…`.
    pub invoice_id: String,
    /// CDC of the invoice (the attachments are named after it).
    pub cdc: String,
    /// Why it is sent.
    pub kind: EmailKind,
    /// The buyer's address (`dEmailRec`, or the one a resend names).
    pub to: String,
    /// Subject (UTF-8; the host encodes it per RFC 2047).
    pub subject: String,
    /// Plain-text body (UTF-8).
    pub body: String,
    /// `pending`, `sent`, `failed` or `captured`.
    pub status: String,
    /// Attempts made.
    pub attempts: u32,
    /// Unix time the next attempt is due (while `pending`; a claim moves it to the end of its lease).
    pub next_attempt_at: i64,
    /// Unix time it was queued.
    pub created_at: i64,
    /// Why it failed, when `failed`: the SMTP server's reply (`550 5.1.1 …`) or the transport error.
    #[serde(default)]
    pub reason: Option<String>,
    /// Every attempt, oldest first.
    #[serde(default)]
    pub log: Vec<EmailAttempt>,
}

/// How an attempt ended, as the host saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EmailOutcome {
    /// The SMTP server acknowledged the data (250).
    Sent,
    /// A temporary failure: a 4xx reply, a connection or TLS error, a timeout. Retried.
    Temporary,
    /// A permanent refusal: a 5xx reply, an address that does not parse. Given up.
    Permanent,
}

/// One attempt at sending a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailAttempt {
    /// Unix time the attempt started.
    pub at: i64,
    /// How it ended.
    pub outcome: EmailOutcome,
    /// The SMTP reply code, when the server answered.
    pub code: Option<u16>,
    /// The server's reply or the transport error, when it failed (never a secret: no password is in it).
    pub detail: Option<String>,
    /// Milliseconds from the start of the attempt to its end.
    pub duration_ms: u64,
}

/// A message as `GET /v1/facturas/{id}/emails` shows it: to whom, what it says, where it stands, every attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EmailResource {
    /// `eml_…` identifier.
    pub id: String,
    /// The invoice.
    pub invoice_id: String,
    /// `approved` (KuDE and signed XML attached) or `cancelled` (a notice).
    pub kind: EmailKind,
    /// The buyer's address.
    pub to: String,
    /// Subject.
    pub subject: String,
    /// Plain-text body.
    pub body: String,
    /// `pending`, `sent`, `failed` or `captured` (no SMTP settings: stored, never sent).
    pub status: String,
    /// Why it failed (the SMTP server's reply), when `failed`; the last temporary failure while `pending`.
    pub reason: Option<String>,
    /// Attempts made.
    pub attempts: u32,
    /// When it was queued, RFC 3339 UTC.
    pub created_at: String,
    /// When the next attempt is due while `pending`, RFC 3339 UTC; else `null`.
    pub next_attempt_at: Option<String>,
    /// Every attempt, oldest first.
    pub log: Vec<EmailAttemptResource>,
}

/// One attempt of a message as its log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EmailAttemptResource {
    /// When it started, RFC 3339 UTC.
    pub at: String,
    /// `sent`, `temporary` (retried) or `permanent` (given up).
    pub outcome: EmailOutcome,
    /// The SMTP reply code, when the server answered.
    pub code: Option<u16>,
    /// The server's reply or the transport error, when it failed.
    pub detail: Option<String>,
    /// Milliseconds from its start to its end.
    pub duration_ms: u64,
}

/// What sends an invoice's e-mail again (`POST /v1/facturas/{id}/email`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EmailInput {
    /// Another address (SIFEN's `tEmail` form, 3 to 80 characters); default: the document's `dEmailRec`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(min = 3, max = 80)))]
    pub to: Option<String>,
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailAttachment {
    /// `<CDC>.pdf` or `<CDC>.xml`.
    pub file_name: String,
    /// `application/pdf` or `application/xml`.
    pub content_type: &'static str,
    /// The bytes.
    pub content: Vec<u8>,
}

/// Subject and body of the message for `record` (its DE read back from the signed XML): Spanish, built from the
/// invoice only, so the same invoice always gives the same text.
pub fn compose(
    kind: EmailKind,
    record: &InvoiceRecord,
    de: &DocumentoElectronico,
) -> (String, String) {
    let tipo = de.timbrado.tipo_documento.descripcion();
    let emisor = de.emisor.razon_social.trim();
    let receptor = de.receptor.razon_social.trim();
    let total = match (&record.total, &record.moneda) {
        (Some(t), Some(m)) => format!("{t} {m}"),
        (Some(t), None) => t.clone(),
        _ => "-".to_string(),
    };
    match kind {
        EmailKind::Approved => (
            format!("{tipo} {} de {emisor}", record.numero),
            format!(
                "Estimado/a {receptor}:\n\n\
                 {emisor} le envía su {tipo} N.º {numero}, aprobada por la SET (SIFEN).\n\n\
                 Total: {total}\n\
                 CDC: {cdc}\n\n\
                 Puede consultar el documento en el sitio de la SET:\n{qr}\n\n\
                 Se adjuntan la representación gráfica (KuDE, {cdc}.pdf) y el documento electrónico firmado \
                 ({cdc}.xml).\n",
                numero = record.numero,
                cdc = record.cdc,
                qr = record.qr,
            ),
        ),
        EmailKind::Cancelled => (
            format!("Cancelación de {tipo} {} de {emisor}", record.numero),
            format!(
                "Estimado/a {receptor}:\n\n\
                 {emisor} le informa que su {tipo} N.º {numero} fue cancelada ante la SET (SIFEN) y ya no tiene \
                 validez.\n\n\
                 CDC: {cdc}\n\n\
                 Puede consultar el documento en el sitio de la SET:\n{qr}\n",
                numero = record.numero,
                cdc = record.cdc,
                qr = record.qr,
            ),
        ),
    }
}

/// The names of the files a message of `kind` carries for the document `cdc` (`signed`: its XML is signed): for an
/// approval `<CDC>.pdf` (the KuDE) and, when signed, `<CDC>.xml`; none for a cancellation notice. What
/// [`Service::email_attachments`] attaches, named without building the PDF (the panel shows a captured message's).
pub fn attachment_names(kind: EmailKind, cdc: &str, signed: bool) -> Vec<String> {
    match kind {
        EmailKind::Approved if signed => vec![format!("{cdc}.pdf"), format!("{cdc}.xml")],
        EmailKind::Approved => vec![format!("{cdc}.pdf")],
        EmailKind::Cancelled => Vec::new(),
    }
}

/// The id of an invoice's `n`-th message (from 0): `eml_`, 24 hex digits of SHA-256 of the invoice id, then `n` in 8 hex
/// digits, so an invoice's messages sort by id in the order they were queued (the stores list them by `created_at`,
/// then id: messages of one second stay in order). Derived, not drawn from the host's generator, so queuing a message
/// leaves every other id of the service as it was.
fn message_id(invoice_id: &str, n: usize) -> String {
    let digest = Sha256::digest(invoice_id.as_bytes());
    format!("eml_{}{n:08x}", crate::auth::hex(&digest[..12]))
}

impl EmailMessage {
    /// The message as the API shows it.
    pub fn resource(&self) -> EmailResource {
        EmailResource {
            id: self.id.clone(),
            invoice_id: self.invoice_id.clone(),
            kind: self.kind,
            to: self.to.clone(),
            subject: self.subject.clone(),
            body: self.body.clone(),
            status: self.status.clone(),
            reason: self.reason.clone(),
            attempts: self.attempts,
            created_at: crate::rfc3339(self.created_at),
            next_attempt_at: (self.status == PENDING).then(|| crate::rfc3339(self.next_attempt_at)),
            log: self
                .log
                .iter()
                .map(|a| EmailAttemptResource {
                    at: crate::rfc3339(a.at),
                    outcome: a.outcome,
                    code: a.code,
                    detail: a.detail.clone(),
                    duration_ms: a.duration_ms,
                })
                .collect(),
        }
    }

    /// Records one attempt: `sent` when acknowledged, `failed` with the reason on a permanent refusal or once
    /// `retry` ran out, else the next attempt after its wait. A message no longer `pending` (sent, failed) only logs
    /// the attempt: a late report never undoes a result.
    pub fn record(&mut self, attempt: EmailAttempt, retry: &[i64]) {
        self.attempts = self.attempts.saturating_add(1);
        let (at, outcome) = (attempt.at, attempt.outcome);
        let reason = match (attempt.code, &attempt.detail) {
            (Some(c), Some(d)) => format!("{c} {d}"),
            (Some(c), None) => c.to_string(),
            (None, Some(d)) => d.clone(),
            (None, None) => "unknown".to_string(),
        };
        self.log.push(attempt);
        if self.status != PENDING {
            return;
        }
        match outcome {
            EmailOutcome::Sent => {
                self.status = SENT.into();
                self.reason = None;
            }
            EmailOutcome::Permanent => {
                self.status = FAILED.into();
                self.reason = Some(reason);
            }
            EmailOutcome::Temporary => {
                let wait = usize::try_from(self.attempts - 1)
                    .ok()
                    .and_then(|i| retry.get(i));
                match wait {
                    Some(w) => {
                        self.next_attempt_at = at.saturating_add(*w);
                        self.reason = Some(reason);
                    }
                    None => {
                        self.status = FAILED.into();
                        self.reason = Some(reason);
                    }
                }
            }
        }
    }
}

impl<S: Store> Service<S> {
    /// Queues the message of `kind` for an invoice whose DE names a receiver e-mail (`dEmailRec`); nothing for one
    /// without. Called where the invoice's event is emitted, so the message is stored in the same transaction as the
    /// approval (or cancellation). `captured` at once when the host sends nothing: no server-wide default
    /// ([`crate::Config::email_outbox`]) and no settings of the account's environment ([`SmtpAccountSettings`]).
    #[cfg_attr(not(feature = "email"), allow(dead_code))]
    pub(crate) fn queue_email(&mut self, kind: EmailKind, record: &InvoiceRecord, ts: i64) {
        // A record read for its state only carries no XML: read whole.
        let whole;
        let record = if record.xml.is_empty() {
            match self.store.invoice(&record.account_id, &record.id) {
                Some(r) => {
                    whole = r;
                    &whole
                }
                None => return,
            }
        } else {
            record
        };
        // Most documents name no e-mail: no parse for them.
        if !record.xml.contains("<dEmailRec>") {
            return;
        }
        let Ok(de) = kuatia_core::xml::parse(&record.xml) else {
            return;
        };
        let Some(to) = de.receptor.email.clone().filter(|e| !e.trim().is_empty()) else {
            return;
        };
        self.queue_email_to(kind, record, &de, to.trim().to_string(), ts);
    }

    /// Stores one message of `kind` for `record` to `to`: the one place a message is made.
    pub(crate) fn queue_email_to(
        &mut self,
        kind: EmailKind,
        record: &InvoiceRecord,
        de: &DocumentoElectronico,
        to: String,
        ts: i64,
    ) -> EmailMessage {
        let (subject, body) = compose(kind, record, de);
        // Sent when the host has a server-wide default or the account its own settings for this environment.
        let status = if self.config.email_outbox
            || self
                .store
                .smtp_settings(&record.account_id, record.environment)
                .is_some()
        {
            PENDING
        } else {
            CAPTURED
        };
        let msg = EmailMessage {
            id: message_id(&record.id, self.store.invoice_emails(&record.id).len()),
            account_id: record.account_id.clone(),
            environment: record.environment,
            invoice_id: record.id.clone(),
            cdc: record.cdc.clone(),
            kind,
            to,
            subject,
            body,
            status: status.into(),
            attempts: 0,
            next_attempt_at: ts,
            created_at: ts,
            reason: None,
            log: Vec::new(),
        };
        self.store.put_email(msg.clone());
        msg
    }

    /// The messages to send now, each leased to the caller: its stored next attempt moves to `now + lease`, so other
    /// workers sharing the store skip it until the attempt is reported or the lease ends. Call it inside the
    /// transaction that stores the leases (PostgreSQL locks the rows read, `SKIP LOCKED`, so two nodes never claim
    /// one message). A worker that dies before the SMTP server acknowledged leaves the message to the next claim
    /// after the lease (at-least-once there); the host records an acknowledgement before anything else.
    /// At most `limit` are claimed (the caller's free sending slots); the others stay due, unleased.
    pub fn claim_emails(&mut self, now: i64, lease: i64, limit: usize) -> Vec<EmailMessage> {
        let mut due = self.store.due_emails(now);
        due.truncate(limit);
        for m in &due {
            let mut leased = m.clone();
            leased.next_attempt_at = now.saturating_add(lease.max(1));
            self.store.put_email(leased);
        }
        due
    }

    /// Records one attempt at sending a message (see [`EmailMessage::record`]); the message as stored after it. The
    /// message settling emits `factura.emailed` (sent) or `factura.email_failed` (given up) to the webhooks that ask
    /// for them, in the same transaction.
    pub fn report_email(
        &mut self,
        id: &str,
        attempt: EmailAttempt,
        host: &mut dyn crate::Host,
    ) -> Option<EmailMessage> {
        let mut m = self.store.email(id)?;
        let (was, at) = (m.status.clone(), attempt.at);
        m.record(attempt, &self.config.email_retry);
        self.store.put_email(m.clone());
        let event = match m.status.as_str() {
            SENT => Some(kuatia_core::lifecycle::EventKind::FacturaEmailed),
            FAILED => Some(kuatia_core::lifecycle::EventKind::FacturaEmailFailed),
            _ => None,
        };
        if let (Some(kind), true) = (event, was == PENDING) {
            if let Some(record) = self.store.invoice_state(&m.account_id, &m.invoice_id) {
                self.emit(&record, &[kind], host, at);
            }
        }
        Some(m)
    }

    /// The files a message carries: for an approval the KuDE (`<CDC>.pdf`) and the signed XML (`<CDC>.xml`), read
    /// from the stored invoice; none for a cancellation notice.
    pub fn email_attachments(&self, msg: &EmailMessage) -> Result<Vec<EmailAttachment>, Finding> {
        if msg.kind != EmailKind::Approved {
            return Ok(Vec::new());
        }
        let Some(inv) = self.store.invoice(&msg.account_id, &msg.invoice_id) else {
            return Err(kuatia_core::rule::api_email_not_stored("invoice_id"));
        };
        let de = kuatia_core::xml::parse(&inv.xml)?;
        let pdf = kuatia_core::kude::pdf::pdf(&de, &inv.qr, &Default::default())?;
        let mut names = attachment_names(msg.kind, &inv.cdc, inv.signed).into_iter();
        let mut files = Vec::new();
        if let Some(file_name) = names.next() {
            files.push(EmailAttachment {
                file_name,
                content_type: "application/pdf",
                content: pdf,
            });
        }
        if let Some(file_name) = names.next() {
            files.push(EmailAttachment {
                file_name,
                content_type: "application/xml",
                content: inv.xml.into_bytes(),
            });
        }
        Ok(files)
    }

    /// The messages of one of the principal's invoices, oldest first (`GET /v1/facturas/{id}/emails`); 404 for an
    /// invoice of another account or environment.
    pub fn email_log(
        &self,
        principal: &crate::Principal,
        invoice_id: &str,
    ) -> Result<Vec<EmailResource>, crate::ApiError> {
        let mine = self
            .store
            .invoice_state(&principal.account.id, invoice_id)
            .is_some_and(|i| i.environment == principal.env);
        if !mine {
            return Err(crate::ApiError::of(
                404,
                kuatia_core::rule::api_invoice_not_found(""),
            ));
        }
        Ok(self
            .store
            .invoice_emails(invoice_id)
            .iter()
            .map(EmailMessage::resource)
            .collect())
    }

    /// Queues one of the principal's approved invoices' message again (`POST /v1/facturas/{id}/email`), to
    /// `input.to` or to the document's `dEmailRec`: a new message (new id, its own attempts), `captured` when the host
    /// sends nothing. 404 unknown invoice; 409 `KUDE_NOT_AVAILABLE` unless approved (the message carries the KuDE);
    /// 422 `VALIDATION_ERROR` with `VALIDATION_ERROR.INVALID_FORMAT` at `to` for an address SIFEN would refuse,
    /// or `VALIDATION_ERROR.REQUIRED` at `to` when the document names none.
    pub fn resend_email(
        &mut self,
        principal: &crate::Principal,
        invoice_id: &str,
        input: EmailInput,
        now: i64,
    ) -> Result<EmailResource, crate::ApiError> {
        let Some(record) = self
            .store
            .invoice(&principal.account.id, invoice_id)
            .filter(|i| i.environment == principal.env)
        else {
            return Err(crate::ApiError::of(
                404,
                kuatia_core::rule::api_invoice_not_found(""),
            ));
        };
        if record.status != kuatia_core::lifecycle::Estado::Approved {
            return Err(crate::ApiError::of(
                409,
                kuatia_core::rule::api_email_status("", &record.status.to_string()),
            ));
        }
        let de = kuatia_core::xml::parse(&record.xml).map_err(|f| crate::ApiError::of(500, f))?;
        let to = match input.to.map(|t| t.trim().to_string()) {
            Some(t) if kuatia_core::validate::email_ok(&t) && (3..=80).contains(&t.len()) => t,
            Some(_) => {
                return Err(crate::ApiError::findings(&[
                    kuatia_core::rule::api_email_invalid("to"),
                ]))
            }
            None => match de.receptor.email.clone().filter(|e| !e.trim().is_empty()) {
                Some(e) => e.trim().to_string(),
                None => {
                    return Err(crate::ApiError::findings(&[
                        kuatia_core::rule::api_email_missing("to"),
                    ]))
                }
            },
        };
        let msg = self.queue_email_to(EmailKind::Approved, &record, &de, to, now);
        Ok(msg.resource())
    }

    /// `POST /v1/facturas/{id}/email`: [`Service::resend_email`] of the JSON body (an empty body is `{}`), 202.
    #[cfg(feature = "email")]
    pub(crate) fn resend_email_route(
        &mut self,
        principal: &crate::Principal,
        invoice_id: &str,
        body: &[u8],
        now: i64,
    ) -> crate::HttpResponse {
        let input = if body.iter().all(u8::is_ascii_whitespace) {
            Ok(EmailInput::default())
        } else {
            crate::http::json_body::<EmailInput>(body)
        };
        match input {
            Ok(input) => {
                crate::http::answer(202, self.resend_email(principal, invoice_id, input, now))
            }
            Err(r)
                if self
                    .store
                    .invoice_state(&principal.account.id, invoice_id)
                    .is_some_and(|i| i.environment == principal.env) =>
            {
                r
            }
            Err(_) => {
                crate::ApiError::of(404, kuatia_core::rule::api_invoice_not_found("")).response()
            }
        }
    }

    /// The messages of one invoice, oldest first.
    pub fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage> {
        self.store.invoice_emails(invoice_id)
    }
}

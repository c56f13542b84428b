//! `POST /v1/facturas` in three phases, so that a host can sign without holding its store (the signature is most of a
//! create's time): [`Service::handle_step`] (with the store: authentication, idempotency, the check, a reserved
//! number), [`CreateJob::sign`] (no store: the DE, its signature, the QR) and [`Service::finish_create`] (with the
//! store again: the record, the number's confirmation, webhooks, the idempotent reply). [`Service::handle`] runs the
//! three in a row, so every host answers a create the same way. [`Service::create_invoice`] is the same pipeline
//! typed, in one call, for in-process hosts.

use super::{
    apply_to, auth, body_api_error, issue_api_error, paraguay, random_id, receptor_ruc, refuse,
    rule, sandbox_approval, sandbox_rejection, transmit, Environment, Estado, Host, HttpRequest,
    HttpResponse, InvoiceRecord, SeedCodes, Service, Store, StoreNumbering, Trigger,
    REPLAYED_HEADER,
};
use crate::resource::DocumentParts;
use crate::resource::Invoice;
use crate::{localize, request_lang, Lang};
use crate::{ApiError, IdempotentReply, Principal};
use kuatia_core::invoice::FacturaRequest;
use kuatia_core::issue::{IssueError, Pending, Prepared, Stage, Ticket};
use kuatia_core::lifecycle::EventKind;
use kuatia_core::numbering::{Numbering, Reserved};
use kuatia_core::sign::Signer;
use kuatia_core::validate::Simulate;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;

/// How many keys of each kind one [`Service::sweep_idempotency`] changes at most (one transaction's worth).
pub const IDEMPOTENCY_SWEEP_BATCH: usize = 500;

/// What [`Service::handle_step`] leaves to do.
#[derive(Debug)]
pub enum Step {
    /// The answer.
    Done(HttpResponse),
    /// A create with its number reserved: sign it ([`CreateJob::sign`]) with the signer of its account and
    /// environment, then hand it to [`Service::finish_create`].
    Sign(Box<CreateJob>),
}

/// An idempotency key of one account environment.
type KeyOf = (String, Environment, String);

/// The idempotency keys of creates being signed: a second request with one of them is told to retry (409) rather than
/// reserve a second number for the same invoice.
#[derive(Debug, Clone, Default)]
pub(crate) struct InProgressKeys(Arc<Mutex<HashSet<KeyOf>>>);

impl InProgressKeys {
    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<KeyOf>> {
        // A set of keys stays consistent whatever panicked while it was held.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks `key` in progress, `None` when it already is.
    fn claim(&self, key: KeyOf) -> Option<InProgress> {
        self.set().insert(key.clone()).then(|| InProgress {
            keys: self.clone(),
            key,
        })
    }
}

/// A claimed key, released when the create ends whichever way (answered, failed, or dropped with a rolled-back
/// transaction).
#[derive(Debug)]
struct InProgress {
    keys: InProgressKeys,
    key: KeyOf,
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.keys.set().remove(&self.key);
    }
}

/// The request's `Idempotency-Key` with the hashes of its body: the one stored with an answer is [`canonical_hash`];
/// rows stored before it (the hex SHA-256 of the raw bytes, without the prefix) still compare with `raw_hash`.
#[derive(Debug, Clone)]
struct Idempotency {
    key: String,
    body_hash: String,
    raw_hash: String,
}

impl Idempotency {
    fn new(key: &str, body: &[u8]) -> Idempotency {
        Idempotency {
            key: key.to_string(),
            body_hash: canonical_hash(body),
            raw_hash: auth::hex(&Sha256::digest(body)),
        }
    }

    /// Whether a stored hash is this request's: the same parsed JSON (or, for a row of an earlier version, the same
    /// bytes).
    fn same_request(&self, stored: &str) -> bool {
        if stored.starts_with(CANONICAL_PREFIX) {
            stored == self.body_hash
        } else {
            stored == self.raw_hash
        }
    }
}

/// Marks a stored hash of the canonical JSON (an earlier version stored the bare hex hash of the raw bytes).
const CANONICAL_PREFIX: &str = "c1:";

/// The hash an idempotent answer is stored with: `c1:` and the hex SHA-256 of the body's canonical JSON (objects'
/// keys sorted, no whitespace, strings re-escaped one way, numbers as written: `1000` and `1000.0` are different
/// requests, `1e3` a third), so the same request pretty-printed or with its keys in another order is the same
/// request. A body that is not JSON hashes its raw bytes (under another prefix, so it never equals a JSON body's).
fn canonical_hash(body: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(v) => {
            let mut out = String::with_capacity(body.len());
            canonical(&v, &mut out);
            format!(
                "{CANONICAL_PREFIX}{}",
                auth::hex(&Sha256::digest(out.as_bytes()))
            )
        }
        Err(_) => format!("{CANONICAL_PREFIX}raw:{}", auth::hex(&Sha256::digest(body))),
    }
}

/// Writes `v` as canonical JSON: keys sorted by their UTF-8 bytes whatever order the map keeps, no whitespace.
fn canonical(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(x, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        // Scalars as serde_json writes them: numbers keep their text (`arbitrary_precision`).
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// A create refused before its signature, and whether a retry with its key gets the same answer (see
/// [`Service::remember`]).
struct Refused {
    /// Boxed: an error is large, and a `Result` carries it on every path.
    error: Box<ApiError>,
    /// The answer depends only on the request (its body, in the key's account and environment): a body that does
    /// not read as a request, `_simulate` in production.
    body_only: bool,
}

impl Refused {
    /// An answer a later retry must evaluate again: it depends on the account (its profile, certificate, the clock
    /// against its stamp, its numbering).
    fn state(error: ApiError) -> Refused {
        Refused {
            error: Box::new(error),
            body_only: false,
        }
    }

    /// An answer that depends only on the request.
    fn body(error: ApiError) -> Refused {
        Refused {
            error: Box::new(error),
            body_only: true,
        }
    }
}

/// A create that passed everything needing the store, its number reserved, waiting for its signature. Owns what
/// signing needs (the request checked once, its certificate checked, its number), so it can move to another thread.
#[derive(Debug)]
pub struct CreateJob {
    prepared: Prepared<'static>,
    reserved: Reserved,
    codes: u32,
    job: JobContext,
}

/// What a create keeps from its first phase to its last, besides the document: who asked, how to answer.
#[derive(Debug)]
struct JobContext {
    account_id: String,
    env: Environment,
    idempotency: Option<Idempotency>,
    /// The language the answer is written in (the request's `Accept-Language`).
    lang: Lang,
    now: OffsetDateTime,
    simulate: Option<String>,
    id: String,
    base_url: String,
    _claim: Option<InProgress>,
}

impl CreateJob {
    /// The account whose signer signs it.
    pub fn account_id(&self) -> &str {
        &self.job.account_id
    }

    /// The environment whose signer signs it.
    pub fn environment(&self) -> Environment {
        self.job.env
    }

    /// Builds, signs (or, in the sandbox without a signer, simulates) and completes the document with its reserved
    /// number, then its record and the 201 answer. Pure: touches no store, so any number of jobs can be signed at
    /// once. Nothing is validated again; a signer other than the one checked when the number was reserved has its
    /// certificate checked here.
    pub fn sign(self, signer: Option<&dyn Signer>) -> SignedCreate {
        let CreateJob {
            prepared,
            reserved,
            codes,
            job,
        } = self;
        let outcome = prepared
            .issue_reserved(reserved, signer, &mut SeedCodes(codes))
            .map(|pending| job.created(pending, signer.is_some()));
        SignedCreate { job, outcome }
    }
}

impl JobContext {
    /// The stored record of a signed document, its simulated steps applied, and the 201 answer.
    fn created(&self, pending: Pending, signed: bool) -> Created {
        let (issued, ticket) = pending.into_parts();
        let ts = self.now.unix_timestamp();
        let d = &issued.documento;
        let mut record = InvoiceRecord {
            id: self.id.clone(),
            account_id: self.account_id.clone(),
            environment: self.env,
            status: Estado::Pending,
            cdc: issued.cdc.clone(),
            numero: issued.numero.clone(),
            tipo_documento: d.timbrado.tipo_documento.code(),
            fecha_emision: kuatia_core::fmt::datetime(d.fecha_emision),
            total: d
                .totales
                .as_ref()
                .map(|t| kuatia_core::fmt::dec(t.total_general)),
            moneda: d.operacion_comercial.as_ref().map(|o| o.moneda.clone()),
            simulate: self.simulate.clone(),
            sifen_errors: Vec::new(),
            protocolo: None,
            xml: issued.xml,
            qr: issued.qr,
            signed,
            created_at: ts,
            updated_at: ts,
            tipo_emision: d.operacion.tipo_emision,
            sent_at: None,
            receptor_ruc: receptor_ruc(&d.receptor),
            approved_at: None,
            cancellation: None,
            // Production documents go to SIFEN (see `transmit`); the sandbox's SIFEN is simulated by `tick`.
            transmission: match self.env {
                Environment::Production => transmit::Transmission::start(ts),
                Environment::Sandbox => transmit::Transmission::default(),
            },
        };
        let steps = match self.simulate.as_deref() {
            Some("approved") => vec![Trigger::Submitted, sandbox_approval(&record)],
            Some("rejected") => vec![sandbox_rejection(false)],
            Some("sent") => vec![Trigger::Submitted],
            _ => vec![],
        };
        let mut events = Vec::new();
        for step in &steps {
            // The documented machine accepts these sequences from `pending`; an error here would be a bug of ours.
            events.extend(apply_to(&mut record, step, ts).unwrap_or_default());
        }
        let parts = DocumentParts::of(issued.documento);
        let invoice = Invoice::of(&self.base_url, record.clone(), Some(Arc::new(parts)));
        Created {
            record,
            events,
            ticket,
            invoice,
        }
    }
}

/// A signed document ready to store: its record, the webhook events of its simulated steps, its number, the invoice
/// the create answers.
#[derive(Debug)]
struct Created {
    record: InvoiceRecord,
    events: Vec<EventKind>,
    ticket: Ticket,
    invoice: Invoice,
}

/// A create after [`CreateJob::sign`], for [`Service::finish_create`].
#[derive(Debug)]
pub struct SignedCreate {
    job: JobContext,
    outcome: Result<Created, IssueError>,
}

impl SignedCreate {
    /// The invoice this create answers once [`Service::finish_create`] stores it (201); `None` when signing failed.
    pub fn invoice(&self) -> Option<&Invoice> {
        self.outcome.as_ref().ok().map(|c| &c.invoice)
    }
}

impl<S: Store> Service<S> {
    /// `POST /v1/facturas` up to the signature: an idempotent replay, a conflict or a refused request is answered
    /// here (the replies a create stores are stored); anything else gets its number reserved.
    pub(super) fn create_step(
        &mut self,
        caller: &super::Caller,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> Step {
        let mut idempotency = None;
        let mut claim = None;
        if let Some(key) = req.header("Idempotency-Key") {
            if key.is_empty() || key.len() > 255 {
                return Step::Done(refuse(400, rule::api_idempotency_key("")));
            }
            let idem = Idempotency::new(key, &req.body);
            if let Some(r) = self.replay(&caller.account.id, caller.env, &idem) {
                return Step::Done(r);
            }
            claim =
                self.in_progress
                    .claim((caller.account.id.clone(), caller.env, idem.key.clone()));
            if claim.is_none() {
                return Step::Done(refuse(409, rule::api_idempotency_in_progress("")));
            }
            idempotency = Some(idem);
        }
        match self.reserve(caller, req, host) {
            Ok(mut job) => {
                job.job.idempotency = idempotency;
                job.job.lang = request_lang(req);
                job.job._claim = claim;
                Step::Sign(job)
            }
            Err(refused) => {
                let response = refused.error.response();
                let now = host.now();
                self.remember(
                    &caller.account.id,
                    caller.env,
                    idempotency.as_ref(),
                    &response,
                    None,
                    refused.body_only,
                    now,
                );
                Step::Done(response)
            }
        }
    }

    /// The answer to a kept idempotency key: the same request gets the first answer again (byte for byte inside the
    /// replay window; after it, the invoice it created as it is now, with the first answer's status), another
    /// request a conflict.
    fn replay(
        &self,
        account_id: &str,
        env: Environment,
        idem: &Idempotency,
    ) -> Option<HttpResponse> {
        let kept = self.store.idempotent(account_id, env, &idem.key)?;
        if !idem.same_request(&kept.body_hash) {
            return Some(refuse(409, rule::api_idempotency_conflict("")));
        }
        let mut replay = match (kept.response, kept.invoice_id) {
            (Some(first), _) => first,
            (None, Some(id)) => match self.store.invoice(account_id, &id) {
                Some(record) => self.invoice_resource(record).response(kept.status),
                // Invoices are never deleted; a key whose invoice is missing is a broken store, not a new request.
                None => return Some(refuse(500, rule::storage_idempotent_invoice(""))),
            },
            // Never stored: a refusal keeps its answer until the whole key goes.
            (None, None) => return None,
        };
        replay.headers.push((REPLAYED_HEADER.into(), "true".into()));
        Some(replay)
    }

    /// Keeps the reply of a keyed create for its retries (docs/api.md, "Idempotency"): an answer that created
    /// something (2xx: the key and its invoice as long as the invoice, the answer itself for the replay window), and
    /// a 400 or 422 that depends only on the request (`body_only`: the body does not read as a request, `_simulate`
    /// in production; for the replay window). Never an answer a retry should evaluate again: one that depends on the
    /// account's state (no production profile, its certificate, its stamp and the clock, an exhausted sequence) or a
    /// failure of ours (5xx).
    #[allow(clippy::too_many_arguments)]
    fn remember(
        &mut self,
        account_id: &str,
        env: Environment,
        idem: Option<&Idempotency>,
        response: &HttpResponse,
        invoice_id: Option<&str>,
        body_only: bool,
        now: OffsetDateTime,
    ) {
        if let Some(idem) = idem {
            let keep = (200..300).contains(&response.status)
                || (body_only && matches!(response.status, 400 | 422));
            if keep {
                self.store.put_idempotent(
                    account_id,
                    env,
                    &idem.key,
                    IdempotentReply {
                        body_hash: idem.body_hash.clone(),
                        status: response.status,
                        invoice_id: invoice_id.map(String::from),
                        stored_at: now.unix_timestamp(),
                        response: Some(response.clone()),
                    },
                );
            }
        }
    }

    /// The idempotency sweep (docs/operations.md, "Idempotency keys"), at `now` (hosts call it from their
    /// background tick): drops the first answers of keys older than [`crate::Config::idempotency_window`] (a retry
    /// then gets the invoice rebuilt) and forgets kept refusals as old, at most [`IDEMPOTENCY_SWEEP_BATCH`] of each
    /// kind. Whether a full batch was swept (call again: more may be due).
    pub fn sweep_idempotency(&mut self, now: i64) -> bool {
        let before = now.saturating_sub(self.config.idempotency_window.max(0));
        self.store
            .expire_idempotent(before, IDEMPOTENCY_SWEEP_BATCH)
            >= IDEMPOTENCY_SWEEP_BATCH
    }

    /// The body of a create read as a request, then [`Service::reserve_request`].
    fn reserve(
        &mut self,
        caller: &super::Caller,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> Result<Box<CreateJob>, Refused> {
        match kuatia_core::invoice::read_request_bytes(&req.body) {
            Ok(request) => self.reserve_request(caller, request, host),
            // Every shape finding, and the rules' over the fields that read (with the profile, when there is one).
            // A body that does not read is refused whatever the account: the answer is replayed (its rule findings
            // are those of the first try).
            Err(unread) => {
                let findings = match caller.account.profile(caller.env) {
                    Some(emisor) => {
                        let now = paraguay(host.now());
                        unread.with_rules(|r| kuatia_core::validate::validate(r, emisor, now))
                    }
                    None => unread.findings,
                };
                Err(Refused::body(body_api_error(findings)))
            }
        }
    }

    /// The stages of the issuing pipeline before the document is built: check, certificate, a reserved number. The
    /// one path of every create, the route's and [`Service::create_invoice`]'s.
    fn reserve_request(
        &mut self,
        caller: &Principal,
        request: FacturaRequest,
        host: &mut dyn Host,
    ) -> Result<Box<CreateJob>, Refused> {
        let production = caller.env == Environment::Production;
        if let Some(f) =
            kuatia_core::validate::check_simulate(request.simulate.as_deref(), production)
        {
            return Err(Refused::body(ApiError::findings(&[f])));
        }
        let Some(emisor) = caller.account.profile(caller.env).cloned() else {
            return Err(Refused::state(ApiError::of(
                422,
                rule::api_production_not_configured(""),
            )));
        };
        let now = host.now();
        let codes = host.random_u32();
        let simulate = request.simulate.clone();
        // The one issuing pipeline (check → certificate → number → DE → signature → QR), its check and certificate
        // done here, once: the prepared document owns its request and profile and moves to the signing thread. The
        // sandbox without a signer gets the unsigned simulation. `_simulate` changes nothing here (its rule was
        // applied above, by the caller's environment): only SIFEN is simulated, below.
        let prepared = kuatia_core::issue::prepare_with(
            Cow::Owned(emisor),
            Cow::Owned(request),
            host.signer(&caller.account.id, caller.env),
            paraguay(now),
            Simulate::Applied { production },
        )
        .map_err(|e| Refused::state(issue_api_error(e)))?;
        let key = prepared.key().clone();
        let numero = StoreNumbering {
            store: &mut self.store,
            account_id: &caller.account.id,
            env: caller.env,
        }
        .reserve(&key)
        .map_err(|f| Refused::state(issue_api_error(IssueError::at(Stage::Numbering)(f.into()))))?;
        Ok(Box::new(CreateJob {
            prepared,
            reserved: Reserved::new(key, numero),
            codes,
            job: JobContext {
                account_id: caller.account.id.clone(),
                env: caller.env,
                idempotency: None,
                lang: Lang::default(),
                now,
                simulate,
                id: random_id(host, "fact_", 24),
                base_url: self.config.base_url.clone(),
                _claim: None,
            },
        }))
    }

    /// Issues an invoice for the principal in-process (for hosts that authenticated their user themselves: a panel,
    /// an ERP embedding the service, tests): the pipeline of `POST /v1/facturas`, once (the check, the certificate,
    /// a reserved number, the signature with the host's signer of the principal's account and environment on this
    /// thread, then the record, the number's confirmation, webhooks and the sandbox's `_simulate` steps). Refused
    /// requests get the error the route answers (code, status, every finding in `details`). There is no idempotency
    /// key: HTTP idempotency (`Idempotency-Key`) belongs to the route; a host retrying this call issues a second
    /// invoice.
    pub fn create_invoice(
        &mut self,
        principal: &Principal,
        request: FacturaRequest,
        host: &mut dyn Host,
    ) -> Result<Invoice, ApiError> {
        let job = self
            .reserve_request(principal, request, host)
            .map_err(|r| *r.error)?;
        let signed = job.sign(host.signer(&principal.account.id, principal.env));
        let SignedCreate { job, outcome } = signed;
        self.complete(&job, outcome, host)
    }

    /// Stores a signed create ([`CreateJob::sign`]) and answers it: 201 with the invoice, or the answer to a failed
    /// signature (its number stays reserved: a listed gap, never reused).
    pub fn finish_create(&mut self, signed: SignedCreate, host: &mut dyn Host) -> HttpResponse {
        let SignedCreate { job, outcome } = signed;
        // Another node may have answered the same key meanwhile: its reply stands, this number stays a gap.
        if let Some(idem) = &job.idempotency {
            if let Some(mut r) = self.replay(&job.account_id, job.env, idem) {
                localize(&mut r, job.lang);
                return r;
            }
        }
        let created = self.complete(&job, outcome, host);
        let response = match &created {
            Ok(invoice) => invoice.response(201),
            Err(e) => e.response(),
        };
        self.remember(
            &job.account_id,
            job.env,
            job.idempotency.as_ref(),
            &response,
            created.as_ref().ok().map(|i| i.id.as_str()),
            false,
            job.now,
        );
        let mut response = response;
        localize(&mut response, job.lang);
        response
    }

    /// The end of every create: a signed document stored ([`Service::store_created`]), or the error of its failed
    /// signature (its number stays reserved: a listed gap, never reused).
    fn complete(
        &mut self,
        job: &JobContext,
        outcome: Result<Created, IssueError>,
        host: &mut dyn Host,
    ) -> Result<Invoice, ApiError> {
        self.store_created(job, outcome.map_err(issue_api_error)?, host)
    }

    /// Stores a signed document's record, confirms its number and queues its webhooks: the created invoice, or 503
    /// when its number cannot be confirmed.
    fn store_created(
        &mut self,
        job: &JobContext,
        created: Created,
        host: &mut dyn Host,
    ) -> Result<Invoice, ApiError> {
        let Created {
            record,
            events,
            ticket,
            invoice,
        } = created;
        let ts = job.now.unix_timestamp();
        self.store.insert_invoice(record.clone());
        let confirmed = ticket.confirm(&mut StoreNumbering {
            store: &mut self.store,
            account_id: &job.account_id,
            env: job.env,
        });
        if let Err(e) = confirmed {
            let why = e.findings.0.first().map_or("", |f| f.message.as_str());
            return Err(ApiError::of(503, rule::api_numbering_unavailable("", why)));
        }
        self.schedule(&record);
        self.emit(&record, &events, host, ts);
        if job.env == Environment::Sandbox && record.status == Estado::Approved {
            if let Some(mut account) = self.store.account(&job.account_id) {
                if !account.sandbox_completed {
                    account.sandbox_completed = true;
                    self.store.put_account(account);
                }
            }
        }
        // The buyer's message queued with an approval at creation (`emit`) shows at once.
        Ok(self.with_email(invoice))
    }
}

// Jobs move to the threads that sign them.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<CreateJob>();
    send::<SignedCreate>();
};

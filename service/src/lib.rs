//! The user's e-invoicing service (`/v1`, spec `service-api.md`) as a sans-IO state machine: requests in, responses
//! out, over a [`Store`] and a [`Host`] (clock, randomness, signer). An ERP can run it in-process, a browser can run
//! the whole sandbox offline, and `kuatia serve` puts it behind HTTP.
//!
//! Routes (docs/api.md): `GET/POST /v1/facturas`, `GET /v1/facturas/:id`, `GET /v1/facturas/:id/kude`,
//! `GET/POST /v1/webhooks`, `GET/DELETE /v1/webhooks/:id`, `POST /v1/webhooks/:id/rotate`,
//! `POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver`,
//! `GET /v1/health`, `GET /v1/openapi.json` (the OpenAPI 3.1 document, docs/openapi.json).
//! Envelope `{ok, data, meta{page,per_page,total}, error{code,message,details}}`.
//!
//! The crate `kuatia-service` (issue 30): the domain (validation, the DE, signing, numbering) is `kuatia-core`;
//! this crate is the engine of the API on top of it, with no I/O of its own.
#![forbid(unsafe_code)]

#[cfg(feature = "archive")]
pub mod archive;
pub mod auth;
pub mod conformance;
mod create;
mod document;
pub mod email;
pub mod storage;
pub mod store;
pub mod transmit;
#[cfg(feature = "ts")]
pub mod ts;
pub mod webhook;

mod accounts;
mod cancel;
mod http;
mod invoices;
#[cfg(feature = "schema")]
pub mod openapi;
mod preflight;
mod record;
mod resource;
mod router;
mod sandbox;
mod webhooks;

pub use accounts::{production_profile_findings, Principal};
pub use cancel::CancelInput;
pub use http::{
    error_body_with_request_id, localize, request_lang, ApiError, HttpRequest, HttpResponse,
    RequestHead, REPLAYED_HEADER,
};
pub use invoices::{InvoiceFilter, Kude, ListOrder, SignedXml};
pub use preflight::Check;
#[cfg(any(feature = "ts", feature = "schema"))]
pub use resource::InvoiceShape;
pub use resource::{
    Deleted, Invoice, InvoiceCancellation, InvoiceDocument, InvoiceEmail, InvoiceEmisor,
    InvoiceTimbrado, InvoiceTransmission, ListMeta, Page,
};
#[cfg(feature = "openapi-doc")]
pub use router::OPENAPI_JSON;
pub use router::{lookup_id, route_template};
use {accounts::*, http::*, sandbox::*};

use auth::{parse_key, Environment};
use kuatia_core::error::{code, Finding};
use kuatia_core::lifecycle::{transition, Estado, EventKind, SifenError, Trigger};
use kuatia_core::msg::{self, Lang};
use kuatia_core::numbering::Gap;
use kuatia_core::rule;
use kuatia_core::sign::Signer;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
pub use store::{
    Account, Cancellation, CancellationStatus, IdempotentReply, InvoiceQuery, InvoiceRecord,
    MemoryStore, Store, StoreNumbering,
};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};
use webhook::{
    Delivery, DeliveryResource, EventData, EventPayload, Webhook, WebhookInput, WebhookResource,
};

pub use create::{CreateJob, SignedCreate, Step, IDEMPOTENCY_SWEEP_BATCH};

/// What the host provides: the clock, a CSPRNG, and the signer of an account's environment.
pub trait Host {
    /// The current time (UTC).
    fn now(&mut self) -> OffsetDateTime;
    /// A uniformly random `u32` from a CSPRNG (ids, security codes, keys, secrets).
    fn random_u32(&mut self) -> u32;
    /// The signer (P12, token) of an account in an environment; `None` when there is none (a browser sandbox).
    fn signer(&self, account_id: &str, env: Environment) -> Option<&dyn Signer>;
    /// Keeps a production P12 the core has checked (the account panel's upload) so that it signs the account's
    /// production documents from now on and after a restart; the password must be kept secret. Hosts that keep no
    /// certificates say why (the default).
    fn install_certificate(
        &mut self,
        _account_id: &str,
        _p12: &[u8],
        _password: &str,
    ) -> Result<(), String> {
        Err("this host does not keep certificates".into())
    }
    /// Checks an account's SMTP settings typed in the panel (`from`: `Name <addr>`; `url`:
    /// `smtp[s]://[user@]host[:port]`, read as the host reads its own server-wide setting) and seals `password` for
    /// the store ([`email::SmtpAccountSettings::sealed_password`]; `None` in, `None` out). A refusal is a finding at
    /// `from`, `url` or `password`, never carrying the password. Hosts that send no e-mail refuse (the default).
    fn check_smtp_settings(
        &mut self,
        _account_id: &str,
        _env: Environment,
        _from: &str,
        _url: &str,
        _password: Option<&str>,
    ) -> Result<Option<String>, Finding> {
        Err(rule::api_email_unsupported("url"))
    }
}

/// `u32` values drawn from SHA-256 in counter mode over a host-supplied seed: `SHA-256(seed || counter_le64)`, eight
/// values per block. For hosts that can hand the core a CSPRNG seed per call but not a callback (C, WebAssembly): as
/// unpredictable as the seed, and reproducible in tests.
#[derive(Debug, Clone)]
pub struct SeedRng {
    seed: [u8; 32],
    counter: u64,
    block: [u8; 32],
    used: usize,
}

impl SeedRng {
    /// A generator over a 32-byte seed from the host's CSPRNG.
    pub fn new(seed: [u8; 32]) -> SeedRng {
        SeedRng {
            seed,
            counter: 0,
            block: [0; 32],
            used: 32,
        }
    }

    /// The next value.
    pub fn next_u32(&mut self) -> u32 {
        if self.used + 4 > self.block.len() {
            let mut h = Sha256::new();
            h.update(self.seed);
            h.update(self.counter.to_le_bytes());
            self.block = h.finalize().into();
            self.counter = self.counter.wrapping_add(1);
            self.used = 0;
        }
        let mut word = [0u8; 4];
        if let Some(chunk) = self.block.get(self.used..self.used + 4) {
            word.copy_from_slice(chunk);
        }
        self.used += 4;
        u32::from_le_bytes(word)
    }
}

/// Configuration of the service. In JSON every field is optional (defaults below); unknown fields are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SandboxConfig"))]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Absolute base URL clients use (`https://api.example.com`), for `kude_url`.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub base_url: String,
    /// Sandbox: seconds from creation until the simulated SIFEN receives an invoice (`pending → sent`).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sandbox_send_after: i64,
    /// Sandbox: seconds from creation until the simulated SIFEN answers (`sent → approved/rejected`).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sandbox_answer_after: i64,
    /// Largest `per_page` of list endpoints.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_per_page: usize,
    /// Production: one synchronous `recibe` per document, or lots.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sifen_mode: transmit::SifenMode,
    /// Production, lot mode: seconds from a lot's reception to its first query, and between queries (GMP: ≥ 600).
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sifen_lot_poll_after: i64,
    /// Production: seconds a handed-out SIFEN job may stay unreported before its invoices are queried by CDC;
    /// longer than the host's request timeout.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sifen_lease: i64,
    /// Production: seconds to wait after the 1st, 2nd, ... failed SIFEN attempt in a row; the last repeats.
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub sifen_retry: Vec<i64>,
    /// Operator setting: accept webhook URLs naming this machine or private, loopback or link-local addresses
    /// (refused by default: SSRF). Not a setting of the in-browser sandbox, which delivers nothing.
    #[cfg_attr(feature = "ts", ts(skip))]
    pub allow_private_webhooks: bool,
    /// Seconds a webhook's previous secret keeps signing deliveries after a rotation (both secrets sign meanwhile).
    #[cfg_attr(feature = "ts", ts(skip))]
    pub webhook_secret_grace: i64,
    /// Seconds an `Idempotency-Key`'s first answer is kept byte for byte (docs/operations.md, "Idempotency keys");
    /// after it a retry gets the invoice as it is then, and the key itself stays as long as the invoice.
    #[cfg_attr(feature = "ts", ts(skip))]
    pub idempotency_window: i64,
    /// Most documents an archive built in memory holds ([`Service::month_archive`]: `GET /v1/archivo` through
    /// [`Service::handle`], the panel's download); `kuatia serve` streams the route from a file instead, with no limit.
    #[cfg(feature = "archive")]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub archive_limit: usize,
    /// Whether the host sends e-mail to buyers (`kuatia serve --smtp-url`): messages are queued `pending` for its
    /// worker. Off: every message is stored `captured`, never sent (the sandbox, a host without SMTP settings).
    /// A fact about the host, set in its code, never read from a JSON configuration: a host configured from JSON
    /// (the C ABI's in-process service) has no mail worker, and its messages would wait `pending` forever.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub email_outbox: bool,
    /// Seconds to wait after the 1st, 2nd, … temporary e-mail failure; past the last, the message is `failed`.
    #[cfg_attr(feature = "ts", ts(skip))]
    pub email_retry: Vec<i64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base_url: "http://127.0.0.1:8080".into(),
            sandbox_send_after: 2,
            sandbox_answer_after: 5,
            max_per_page: 100,
            sifen_mode: transmit::SifenMode::Sync,
            sifen_lot_poll_after: 600,
            sifen_lease: 300,
            sifen_retry: transmit::RETRY_SCHEDULE.to_vec(),
            allow_private_webhooks: false,
            webhook_secret_grace: DEFAULT_WEBHOOK_SECRET_GRACE,
            idempotency_window: DEFAULT_IDEMPOTENCY_WINDOW,
            #[cfg(feature = "archive")]
            archive_limit: archive::API_ARCHIVE_LIMIT,
            email_outbox: false,
            email_retry: email::RETRY_SCHEDULE.to_vec(),
        }
    }
}

/// Default of [`Config::webhook_secret_grace`]: 24 hours.
pub const DEFAULT_WEBHOOK_SECRET_GRACE: i64 = 86_400;

/// Default of [`Config::idempotency_window`]: 24 hours.
pub const DEFAULT_IDEMPOTENCY_WINDOW: i64 = 86_400;

/// Receiver RUC bodies the simulated SIFEN treats as unknown, so a sandbox rejection can be provoked on purpose
/// (like a payment sandbox's test card numbers): `88888801-5` and `80000005-6`.
pub const SANDBOX_REJECTED_RUCS: [&str; 2] = ["88888801", "80000005"];

/// `sifen_errors[].code` of the simulated rejection of an unknown receiver RUC. Sandbox codes start with `SBX-` so they
/// are never mistaken for SIFEN's own codes (SIFEN.md documents no code for this check, only the D-group range).
pub const SANDBOX_CODE_RUC: &str = "SBX-RUC-RECEPTOR";
/// `sifen_errors[].code` of a rejection asked for with `_simulate: rejected`.
pub const SANDBOX_CODE_SIMULATED: &str = "SBX-SIMULATED";

/// The service: a store, a configuration, and pure request handling.
#[derive(Debug, Clone, Default)]
pub struct Service<S: Store> {
    /// Persistence.
    pub store: S,
    /// Settings.
    pub config: Config,
    /// The latest clock reading [`Service::due_deliveries`] has seen, to notice a clock that steps back.
    latest_now: std::cell::Cell<i64>,
    /// When the simulated SIFEN next has an invoice to move (see [`Service::tick_due`]).
    next_tick: i64,
    /// The clock reading of the last tick.
    ticked_at: i64,
    /// `(due, account, invoice)` of the simulated steps this service knows of.
    schedule: std::collections::BTreeSet<(i64, String, String)>,
    /// Whether `schedule` was built from the store (by a full tick) yet.
    scheduled: bool,
    /// Idempotency keys of creates between [`Service::handle_step`] and [`Service::finish_create`].
    in_progress: create::InProgressKeys,
    /// The resource parts of recently read invoices' signed XML.
    documents: document::Parts,
}

/// Paraguay has kept UTC-3 all year since October 2024.
fn paraguay(now: OffsetDateTime) -> PrimitiveDateTime {
    let local = UtcOffset::from_hms(-3, 0, 0)
        .map(|o| now.to_offset(o))
        .unwrap_or(now);
    PrimitiveDateTime::new(
        local.date(),
        local.time().replace_nanosecond(0).unwrap_or(local.time()),
    )
}

/// A Unix time as RFC 3339 UTC (`2025-01-31T12:00:00Z`); empty when out of range.
pub fn rfc3339(t: i64) -> String {
    OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// `prefix` and `len` characters of `[0-9A-Za-z]` from the host's CSPRNG (ids, tokens, secrets).
pub fn random_id(host: &mut dyn Host, prefix: &str, len: usize) -> String {
    const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(prefix.len() + len);
    s.push_str(prefix);
    while s.len() < prefix.len() + len {
        for b in host.random_u32().to_le_bytes() {
            if b < 248 && s.len() < prefix.len() + len {
                s.push(char::from(ALPHABET[usize::from(b % 62)]));
            }
        }
    }
    s
}

/// How many simulated invoices one [`Service::tick_due`] moves at most: a request's share of the simulation. Small:
/// the invoices created within one second all become due in the same second, and moving them in the first requests
/// after it made those requests (and in a server, the whole commit group they share) wait; eight a request spread
/// them over the second while still moving several times what creates add (two steps each).
pub const TICK_BATCH: usize = 8;

impl<S: Store> Service<S> {
    /// A service over `store` with `config`.
    pub fn new(store: S, config: Config) -> Self {
        Service {
            store,
            config,
            latest_now: std::cell::Cell::new(i64::MIN),
            next_tick: i64::MIN,
            ticked_at: i64::MIN,
            schedule: std::collections::BTreeSet::new(),
            scheduled: false,
            in_progress: create::InProgressKeys::default(),
            documents: document::Parts::default(),
        }
    }
}

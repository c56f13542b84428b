//! The user's e-invoicing service (`/v1`, spec `service-api.md`) as a sans-IO state machine: requests in, responses
//! out, over a [`Store`] and a [`Host`] (clock, randomness, signer). An ERP can run it in-process, a browser can run
//! the whole sandbox offline, and `kuatia serve` puts it behind HTTP.
//!
//! Routes (docs/api.md): `GET/POST /v1/facturas`, `GET /v1/facturas/:id`, `GET /v1/facturas/:id/kude`,
//! `GET/POST /v1/webhooks`, `GET/DELETE /v1/webhooks/:id`, `POST /v1/webhooks/:id/rotate`,
//! `POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver`,
//! `GET /v1/health`. Envelope `{ok, data, meta{page,per_page,total}, error{code,message,details}}`.
//!
//! The crate `kuatia-service` (issue 30): the domain (validation, the DE, signing, numbering) is `kuatia-core`;
//! this crate is the engine of the API on top of it, with no I/O of its own.
#![forbid(unsafe_code)]

pub mod auth;
mod create;
mod document;
#[cfg(feature = "panel")]
pub mod panel;
pub mod storage;
pub mod store;
pub mod transmit;
#[cfg(feature = "ts")]
pub mod ts;
pub mod webhook;

use auth::{parse_key, Environment};
use kuatia_core::error::{code, Finding};
use kuatia_core::lifecycle::{transition, Estado, EventKind, SifenError, Trigger};
use kuatia_core::sign::Signer;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
pub use store::{
    Account, Cancellation, CancellationStatus, InvoiceQuery, InvoiceRecord, MemoryStore, Store,
    StoreNumbering,
};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};
use webhook::{Delivery, EventData, EventPayload, Webhook};

pub use create::{CreateJob, SignedCreate, Step};

/// An HTTP request as the host received it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with optional query string, e.g. `/v1/facturas?page=2`.
    pub path: String,
    /// Headers (names case-insensitive).
    pub headers: Vec<(String, String)>,
    /// Raw body.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The request line and headers of a request whose body travels apart (C and WebAssembly hosts pass raw bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestHead {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with optional query string.
    pub path: String,
    /// Headers as `[name, value]` pairs.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
}

impl RequestHead {
    /// The full request with its body.
    pub fn with_body(self, body: Vec<u8>) -> HttpRequest {
        HttpRequest {
            method: self.method,
            path: self.path,
            headers: self.headers,
            body,
        }
    }
}

/// The response the host must send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpResponse {
    /// HTTP status code.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes (JSON, or the KuDE PDF). Serialized as a string when it is UTF-8 (stored idempotent answers are
    /// JSON: a string is a quarter of the size of an array of numbers), else as an array of bytes; both are read.
    #[serde(with = "body_serde")]
    pub body: Vec<u8>,
}

/// [`HttpResponse::body`] as a string when it is text.
mod body_serde {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(body) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.collect_seq(body),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Body;
        impl<'de> Visitor<'de> for Body {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of bytes")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Vec<u8>, E> {
                Ok(v.as_bytes().to_vec())
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Vec<u8>, E> {
                Ok(v.into_bytes())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_any(Body)
    }
}

impl HttpResponse {
    /// The body as JSON (for tests and hosts that inspect answers).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// First header with this name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

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
        }
    }
}

/// Default of [`Config::webhook_secret_grace`]: 24 hours.
pub const DEFAULT_WEBHOOK_SECRET_GRACE: i64 = 86_400;

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
    /// Failed panel sign-ins by source and account (in memory, bounded).
    #[cfg(feature = "panel")]
    panel_throttle: panel::throttle::Throttles,
}

/// One item of the production-readiness check (spec §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable name of the prerequisite.
    pub name: String,
    /// Whether it is met.
    pub ok: bool,
    /// What to do when it is not.
    pub message: String,
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

fn rfc3339(t: i64) -> String {
    OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn random_id(host: &mut dyn Host, prefix: &str, len: usize) -> String {
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

/// `{"ok":true,"data":<invoice>}`: the resource's base with the document's fields spliced in already serialized
/// (`members`, from [`document::Fields::members`]; empty when the XML could not be read). The one writer of an
/// invoice's answer: a create's 201 and every lookup.
fn invoice_body(status: u16, base: &Value, members: &str) -> HttpResponse {
    let mut body = Vec::with_capacity(4096);
    body.extend_from_slice(br#"{"ok":true,"data":"#);
    // Writing a Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut body, base);
    if !members.is_empty() {
        // The base is a non-empty object: its closing brace gives way to the members.
        body.pop();
        body.push(b',');
        body.extend_from_slice(members.as_bytes());
        body.push(b'}');
    }
    body.push(b'}');
    json_response(status, body)
}

/// The 201 of a create: the resource from its record and its document (the pipeline's own, not re-parsed), with
/// links under `base_url`.
fn created_response(
    base_url: &str,
    inv: &InvoiceRecord,
    de: &kuatia_core::de::DocumentoElectronico,
) -> HttpResponse {
    invoice_body(
        201,
        &resource_base(base_url, inv),
        &document::Fields::of(de).members(),
    )
}

/// The invoice resource without the parts read from its signed XML ([`document::Fields`]).
fn resource_base(base_url: &str, inv: &InvoiceRecord) -> Value {
    let base = base_url.trim_end_matches('/');
    let mut v = json!({
        "id": inv.id,
        "status": inv.status,
        "cdc": inv.cdc,
        "numero": inv.numero,
        "kude_url": format!("{base}/v1/facturas/{}/kude", inv.id),
        "xml_url": inv.signed.then(|| format!("{base}/v1/facturas/{}/xml", inv.id)),
        "tipo_documento": inv.tipo_documento,
        "fecha_emision": inv.fecha_emision,
        "tipo_emision": inv.tipo_emision,
        "total": inv.total,
        "moneda": inv.moneda,
        "qr": inv.qr,
        "signed": inv.signed,
        "created_at": rfc3339(inv.created_at),
        "updated_at": rfc3339(inv.updated_at),
        "sent_at": inv.sent_at.map(rfc3339),
        "approved_at": inv.approved_at.map(rfc3339),
    });
    if inv.status == Estado::Rejected {
        v["sifen_errors"] = json!(inv.sifen_errors);
    }
    if let Some(p) = &inv.protocolo {
        v["protocolo"] = json!(p);
    }
    if let Some(t) = transmit::transmission_json(&inv.transmission) {
        v["transmission"] = t;
    }
    if let Some(c) = &inv.cancellation {
        v["cancellation"] = json!({
            "status": c.status,
            "motivo": c.motivo,
            "requested_at": rfc3339(c.requested_at),
            "error": c.error,
        });
    }
    v
}

/// The invoice id of a status lookup (`GET /v1/facturas/{id}`, what [`Service::lookup`] answers), `None` for any
/// other request: lets a host send only lookups to its read connections, before touching them.
pub fn lookup_id(req: &HttpRequest) -> Option<&str> {
    if !req.method.eq_ignore_ascii_case("GET") {
        return None;
    }
    let path = req
        .path
        .split_once('?')
        .map_or(req.path.as_str(), |(p, _)| p);
    match route_segments(path)[..] {
        ["v1", "facturas", id] => Some(id),
        _ => None,
    }
}

/// The segments of a route's path after the leading `/` (a trailing `/` ignored): `["v1", "facturas", id]`.
fn route_segments(path: &str) -> Vec<&str> {
    path.trim_end_matches('/').split('/').skip(1).collect()
}

fn respond(status: u16, body: &Value) -> HttpResponse {
    json_response(status, serde_json::to_vec(body).unwrap_or_default())
}

/// An answer whose body is JSON text already written.
fn json_response(status: u16, body: Vec<u8>) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![(
            "Content-Type".into(),
            "application/json; charset=utf-8".into(),
        )],
        body,
    }
}

fn ok(status: u16, data: Value) -> HttpResponse {
    respond(status, &json!({"ok": true, "data": data}))
}

fn err(status: u16, code: &str, message: &str) -> HttpResponse {
    respond(
        status,
        &json!({"ok": false, "error": {"code": code, "message": message}}),
    )
}

/// The answer to a body that could not be read: unreadable JSON or an oversized body is 400, a readable body whose
/// fields are wrong 422 with every finding (the same classification for every route: core's JSON reader).
fn body_error(findings: Vec<Finding>) -> HttpResponse {
    match findings.first() {
        Some(f) if f.code == code::MALFORMED_JSON || f.code == code::TOO_LARGE => {
            err(400, &f.code, &f.message)
        }
        _ => findings_response(&findings),
    }
}

/// A request body as JSON text to read: an absent (empty) body reads as `{}`, so that the answer names the fields
/// it needs (a cancel without a body: `motivo` is required) rather than where the text ended. Not for a create: its
/// body is the request every face validates, and empty text is `MALFORMED_JSON` on every face (the adversarial
/// table, `tests/adversarial/json.json`).
fn body_json(body: &[u8]) -> &[u8] {
    if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    }
}

/// Reads a JSON request body into `T`, with every shape finding (see [`body_error`]).
fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, HttpResponse> {
    kuatia_core::shape::read_bytes(body_json(body), "").map_err(|u| body_error(u.findings))
}

/// The answer to a failed issue, by stage: the request's findings and certificate problems are 422, an exhausted
/// sequence 422, a store that cannot number 503, a failed signer 502.
fn issue_error(e: kuatia_core::issue::IssueError) -> HttpResponse {
    use kuatia_core::issue::Stage;
    let first = e.findings.0.first().cloned().unwrap_or_else(|| {
        Finding::new(code::INTERNAL_ERROR, "", "issuing failed without a finding")
    });
    match e.stage {
        Stage::Check => findings_response(&e.findings.0),
        Stage::Certificate => err(422, &first.code, &first.message),
        Stage::Numbering if first.code == code::NUMBERING_EXHAUSTED => {
            err(422, &first.code, &first.message)
        }
        Stage::Numbering | Stage::Confirm => err(503, &first.code, &first.message),
        // Signing our own well-formed output fails only with a broken signer (token removed, HSM down).
        _ => err(502, &first.code, &first.message),
    }
}

/// The 400 answer naming a query parameter and what it must be.
fn bad_query(name: &str, why: &str) -> HttpResponse {
    err(
        400,
        code::INVALID_QUERY,
        &format!("query parameter '{name}': {why}"),
    )
}

/// A positive integer parameter up to `max`.
fn positive(name: &str, v: &str, max: usize) -> Result<usize, HttpResponse> {
    v.parse::<usize>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| bad_query(name, &format!("an integer from 1 to {max}")))
}

/// `%XX`-decodes a query component (`+` stays `+`: RFC 3339 offsets carry it).
fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = char::from(bytes.next()?).to_digit(16)?;
            let lo = char::from(bytes.next()?).to_digit(16)?;
            out.push(u8::try_from(hi * 16 + lo).ok()?);
        } else {
            out.push(b);
        }
    }
    String::from_utf8(out).ok()
}

/// The decoded pairs of a query string; 400 `INVALID_QUERY` naming a parameter that is unknown, repeated or not
/// decodable, so a misspelt filter never silently returns everything.
fn query_pairs(query: &str, allowed: &[&str]) -> Result<Vec<(String, String)>, HttpResponse> {
    let mut out: Vec<(String, String)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(k), Some(v)) = (percent_decode(k), percent_decode(v)) else {
            return Err(bad_query(k, "bad percent-encoding"));
        };
        if !allowed.contains(&k.as_str()) {
            let takes = match allowed {
                [] => "none".to_string(),
                _ => allowed.join(", "),
            };
            return Err(bad_query(
                &k,
                &format!("unknown parameter; this route takes {takes}"),
            ));
        }
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(bad_query(&k, "given twice"));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// The 400 answer to a query parameter a route does not take, for the routes that take none (the lists check their
/// own parameters): a misspelt parameter is never silently ignored.
fn unknown_query(segments: &[&str], method: &str, query: &str) -> Option<HttpResponse> {
    match (segments, method) {
        (["v1", "facturas"], "GET")
        | (["v1", "webhooks"], "GET")
        | (["v1", "webhooks", _, "deliveries"], _) => None,
        _ => query_pairs(query, &[]).err(),
    }
}

/// How many simulated invoices one [`Service::tick_due`] moves at most: a request's share of the simulation. Small:
/// the invoices created within one second all become due in the same second, and moving them in the first requests
/// after it made those requests (and in a server, the whole commit group they share) wait; eight a request spread
/// them over the second while still moving several times what creates add (two steps each).
pub const TICK_BATCH: usize = 8;

/// Header set on a response replayed for a repeated `Idempotency-Key` (the first response, unchanged otherwise).
pub const REPLAYED_HEADER: &str = "Idempotent-Replayed";

/// The 415 answer to a request body declared as anything but JSON (`application/json` or `application/*+json`,
/// parameters such as `charset` allowed). A body without `Content-Type` is read as JSON: in-process hosts (C,
/// WebAssembly, the bindings) pass no headers.
fn unsupported_media_type(req: &HttpRequest) -> Option<HttpResponse> {
    let declared = req.header("Content-Type")?;
    let media = declared
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let json = media == "application/json"
        || (media.starts_with("application/") && media.ends_with("+json"));
    (!json).then(|| {
        err(
            415,
            code::UNSUPPORTED_MEDIA_TYPE,
            &format!("request bodies must be JSON (Content-Type: application/json), not '{media}'"),
        )
    })
}

/// The security code of one document, drawn from the host's generator once.
struct SeedCodes(u32);

impl kuatia_core::cdc::SecurityCodeSource for SeedCodes {
    fn next_u32(&mut self) -> u32 {
        // security_code re-draws only when the code equals the number; vary it then.
        let v = self.0;
        self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        v
    }
}

fn findings_response(findings: &[Finding]) -> HttpResponse {
    // The summary code is the most specific one the spec names (INVALID_TIMBRADO, INVALID_RUC), else VALIDATION_ERROR.
    let summary = [
        code::INVALID_TIMBRADO,
        code::INVALID_RUC,
        code::SIMULATE_NOT_ALLOWED,
        code::WEBHOOK_URL_NOT_ALLOWED,
    ]
    .into_iter()
    .find(|c| findings.iter().any(|f| f.code == *c))
    .unwrap_or(code::VALIDATION_ERROR);
    let message = match findings.len() {
        1 => findings.first().map(|f| f.to_string()).unwrap_or_default(),
        n => format!("{n} problems found; see details"),
    };
    respond(
        422,
        &json!({"ok": false, "error": {"code": summary, "message": message, "details": findings}}),
    )
}

/// What makes an emitter profile fit for an account's production environment, as findings (the preflight's
/// `production_profile` and `timbrado` checks, and what `kuatia accounts set-profile` refuses): `ambiente` must be
/// `produccion`, the RUC valid, and an active stamp must cover factura electrónica (1) at `now`.
pub fn production_profile_findings(
    emisor: &kuatia_core::profile::Emisor,
    now: PrimitiveDateTime,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if emisor.ambiente != kuatia_core::profile::Ambiente::Produccion {
        out.push(Finding::new(
            code::INVALID_VALUE,
            "ambiente",
            "a production profile must have ambiente 'produccion'",
        ));
    }
    if let Err(e) = kuatia_core::ruc::Ruc::parse(&emisor.ruc) {
        out.push(Finding::new(code::INVALID_RUC, "ruc", e.to_string()));
    }
    if emisor.timbrado_for(1, None, None, now.date()).is_none() {
        out.push(Finding::new(
            code::INVALID_TIMBRADO,
            "timbrados",
            "no active stamp (timbrado) covers factura electrónica (1) today",
        ));
    }
    out
}

/// The authenticated caller of a request.
struct Caller {
    account: Account,
    env: Environment,
}

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
            #[cfg(feature = "panel")]
            panel_throttle: panel::throttle::Throttles::default(),
        }
    }

    /// Creates an account with the built-in sandbox profile and returns it with a new sandbox key (shown once).
    pub fn create_account(&mut self, name: &str, host: &mut dyn Host) -> (Account, String) {
        let id = random_id(host, "acct_", 16);
        let (key, mut stored) = auth::new_key(Environment::Sandbox, &mut || host.random_u32());
        let now = host.now().unix_timestamp();
        stored.created_at = now;
        let account = Account {
            created_at: now,
            id,
            name: name.to_string(),
            sandbox: kuatia_core::profile::Emisor::sandbox(),
            production: None,
            sandbox_completed: false,
            ruc_enabled: false,
            keys: vec![stored],
        };
        self.store.put_account(account.clone());
        (account, key)
    }

    /// Adds a key of `env` to an account; returns the key (shown once) or `None` for an unknown account.
    pub fn create_key(
        &mut self,
        account_id: &str,
        env: Environment,
        host: &mut dyn Host,
    ) -> Option<String> {
        let mut account = self.store.account(account_id)?;
        let (key, mut stored) = auth::new_key(env, &mut || host.random_u32());
        stored.created_at = host.now().unix_timestamp();
        account.keys.push(stored);
        self.store.put_account(account);
        Some(key)
    }

    /// Revokes a key by its public id (the 8 characters after `dk_test_`/`dk_live_`, or the whole prefix): from the
    /// next request on it authenticates nothing. Returns the owning account and the revoked key, `None` for an
    /// unknown id; revoking a revoked key keeps its first revocation time.
    pub fn revoke_key(
        &mut self,
        key_id: &str,
        host: &mut dyn Host,
    ) -> Option<(String, auth::StoredKey)> {
        let key_id = key_id
            .strip_prefix(auth::TEST_PREFIX)
            .or_else(|| key_id.strip_prefix(auth::LIVE_PREFIX))
            .unwrap_or(key_id);
        let (account_id, _) = self.store.find_key(key_id)?;
        let mut account = self.store.account(&account_id)?;
        let now = host.now().unix_timestamp();
        let key = account.keys.iter_mut().find(|k| k.key_id == key_id)?;
        key.revoked_at.get_or_insert(now);
        let revoked = key.clone();
        self.store.put_account(account);
        Some((account_id, revoked))
    }

    /// Stores an account's production emitter profile once it passes [`production_profile_findings`].
    pub fn set_production_profile(
        &mut self,
        account_id: &str,
        emisor: kuatia_core::profile::Emisor,
        host: &mut dyn Host,
    ) -> Result<(), Vec<Finding>> {
        let Some(mut account) = self.store.account(account_id) else {
            return Err(vec![Finding::new(
                code::NOT_FOUND,
                "account",
                "no account with that id",
            )]);
        };
        let findings = production_profile_findings(&emisor, paraguay(host.now()));
        if !findings.is_empty() {
            return Err(findings);
        }
        account.production = Some(emisor);
        self.store.put_account(account);
        Ok(())
    }

    /// Checks a certificate for an account's production environment with the issuing pipeline's rules
    /// ([`kuatia_core::issue::check_signer`]: valid now, carrying the production profile's RUC); the profile comes first.
    pub fn check_production_certificate(
        &self,
        account_id: &str,
        signer: &dyn Signer,
        host: &mut dyn Host,
    ) -> Result<kuatia_core::sign::CertificateInfo, Vec<Finding>> {
        let Some(account) = self.store.account(account_id) else {
            return Err(vec![Finding::new(
                code::NOT_FOUND,
                "account",
                "no account with that id",
            )]);
        };
        let Some(profile) = account.production.as_ref() else {
            return Err(vec![Finding::new(
                code::PRODUCTION_NOT_CONFIGURED,
                "account",
                "set the account's production profile first: the certificate must carry its RUC",
            )]);
        };
        kuatia_core::issue::check_signer(profile, signer, paraguay(host.now())).map_err(|f| f.0)?;
        signer
            .certificate_info()
            .map_err(|e| vec![Finding::new(e.code(), "certificate", e.to_string())])
    }

    /// Handles one request. Also advances the simulated SIFEN of the sandbox to the host's current time.
    pub fn handle(&mut self, req: &HttpRequest, host: &mut dyn Host) -> HttpResponse {
        match self.handle_step(req, host) {
            Step::Done(response) => response,
            Step::Sign(job) => {
                let signer = host.signer(job.account_id(), job.environment());
                let signed = job.sign(signer);
                self.finish_create(signed, host)
            }
        }
    }

    /// [`Service::handle`] up to the signature: every request but a create is answered ([`Step::Done`]); a create
    /// stops with its number reserved ([`Step::Sign`]), so that a host can sign it without holding its store, then
    /// finish it with [`Service::finish_create`].
    pub fn handle_step(&mut self, req: &HttpRequest, host: &mut dyn Host) -> Step {
        self.handle_step_from(req, None, host)
    }

    /// [`Service::handle_step`] of a request from `client`, the peer address the host accepted it from: the panel
    /// throttles failed sign-ins by it. `None` makes every client one source.
    pub fn handle_step_from(
        &mut self,
        req: &HttpRequest,
        client: Option<std::net::IpAddr>,
        host: &mut dyn Host,
    ) -> Step {
        self.tick_due(host);
        let (path, query) = req.path.split_once('?').unwrap_or((req.path.as_str(), ""));
        #[cfg(feature = "panel")]
        if path == "/panel" || path.starts_with("/panel/") {
            return Step::Done(self.panel(req, client, host));
        }
        #[cfg(not(feature = "panel"))]
        let _ = client;
        let segments = route_segments(path);
        let method = req.method.to_ascii_uppercase();
        let route: (&[&str], &str) = (&segments, method.as_str());
        let allowed: &[&str] = match segments.as_slice() {
            ["v1", "health"] => &["GET"],
            ["v1", "facturas"] | ["v1", "webhooks"] => &["GET", "POST"],
            ["v1", "webhooks", _] => &["GET", "DELETE"],
            ["v1", "webhooks", _, "rotate"]
            | ["v1", "webhooks", _, "deliveries", _, "redeliver"] => &["POST"],
            ["v1", "facturas", _]
            | ["v1", "facturas", _, "kude"]
            | ["v1", "facturas", _, "xml"]
            | ["v1", "webhooks", _, "deliveries"] => &["GET"],
            ["v1", "facturas", _, "cancel"] => &["POST"],
            ["v1", "numbering", "gaps"] => &["GET"],
            _ => return Step::Done(err(404, code::NOT_FOUND, "no such route")),
        };
        if !allowed.contains(&route.1) {
            let mut r = err(
                405,
                code::METHOD_NOT_ALLOWED,
                &format!("use {}", allowed.join(" or ")),
            );
            r.headers.push(("Allow".into(), allowed.join(", ")));
            return Step::Done(r);
        }
        if segments.as_slice() == ["v1", "health"] {
            // For load balancers: no key, and nothing about the accounts, the data or the build.
            return Step::Done(ok(200, json!({"status": "ok"})));
        }
        let caller = match self.authenticate(req) {
            Ok(c) => c,
            Err(r) => return Step::Done(r),
        };
        if method == "POST" {
            if let Some(r) = unsupported_media_type(req) {
                return Step::Done(r);
            }
        }
        if let Some(r) = unknown_query(&segments, route.1, query) {
            return Step::Done(r);
        }
        Step::Done(match (segments.as_slice(), route.1) {
            (["v1", "facturas"], "POST") => return self.create_step(&caller, req, host),
            (["v1", "facturas"], _) => self.list_invoices(&caller, query),
            (["v1", "facturas", id], _) => self.invoice_lookup(&caller, id),
            (["v1", "facturas", id, "kude"], _) => self.kude(&caller, id),
            (["v1", "facturas", id, "xml"], _) => self.signed_xml(&caller, id),
            (["v1", "facturas", id, "cancel"], _) => self.cancel(&caller, id, req, host),
            (["v1", "webhooks"], "POST") => self.create_webhook(&caller, req, host),
            (["v1", "webhooks", id, "deliveries"], _) => self.deliveries(&caller, id, query),
            (["v1", "webhooks", id], "DELETE") => self.delete_webhook(&caller, id),
            (["v1", "webhooks", id], _) => {
                match self.store.webhook(&caller.account.id, caller.env, id) {
                    Some(w) => ok(200, w.public_json(host.now().unix_timestamp())),
                    None => err(404, code::NOT_FOUND, "no webhook with that id"),
                }
            }
            (["v1", "webhooks", id, "rotate"], _) => self.rotate_webhook(&caller, id, host),
            (["v1", "webhooks", id, "deliveries", delivery, "redeliver"], _) => {
                self.redeliver(&caller, id, delivery, host)
            }
            (["v1", "numbering", "gaps"], _) => {
                match self.store.number_gaps(&caller.account.id, caller.env) {
                    Ok(gaps) => {
                        let total = gaps.len();
                        respond(
                            200,
                            &json!({"ok": true, "data": gaps, "meta": {"total": total}}),
                        )
                    }
                    Err(f) => err(503, &f.code, &f.message),
                }
            }
            (["v1", "webhooks"], _) => self.list_webhooks(&caller, query, host),
            _ => err(404, code::NOT_FOUND, "no such route"),
        })
    }

    /// `GET /v1/facturas/{id}` of an authenticated caller.
    fn invoice_lookup(&self, caller: &Caller, id: &str) -> HttpResponse {
        match self.store.invoice_state(&caller.account.id, id) {
            Some(inv) if inv.environment == caller.env => {
                // The signed XML is read only while its parts are not cached.
                self.documents.get_or_load(&inv, || {
                    self.store
                        .invoice(&caller.account.id, id)
                        .map(|full| full.xml)
                });
                self.invoice_response(200, &inv)
            }
            _ => err(404, code::NOT_FOUND, "no invoice with that id"),
        }
    }

    /// Answers a status lookup (`GET /v1/facturas/{id}`) exactly as [`Service::handle`] would, without writing
    /// anything and without advancing the simulated SIFEN: for hosts that serve lookups from read-only connections
    /// beside their writer. `None` for every other request (it goes through [`Service::handle`]). The host calls it
    /// only while its writer's simulated SIFEN has nothing due ([`Service::tick_window`]), so the answer is the one
    /// `handle` would give.
    pub fn lookup(&self, req: &HttpRequest) -> Option<HttpResponse> {
        let id = lookup_id(req)?;
        let query = req.path.split_once('?').map_or("", |(_, q)| q);
        Some(match self.authenticate(req) {
            Ok(caller) => match query_pairs(query, &[]) {
                Ok(_) => self.invoice_lookup(&caller, id),
                Err(r) => r,
            },
            Err(r) => r,
        })
    }

    /// Forgets the simulated SIFEN's schedule, so the next tick walks every invoice in flight and rebuilds it. For
    /// hosts whose store rolled back writes this service made: the schedule may then name moves that were undone.
    pub fn reschedule(&mut self) {
        self.scheduled = false;
    }

    /// `(since, until)`: from the clock reading of the last tick up to (not including) the next due simulated step
    /// of this service's schedule, the times at which ticking would move nothing (`None` before the first tick).
    pub fn tick_window(&self) -> Option<(i64, i64)> {
        self.scheduled.then_some((self.ticked_at, self.next_tick))
    }

    fn authenticate(&self, req: &HttpRequest) -> Result<Caller, HttpResponse> {
        let unauthorized = |m: &str| {
            let mut r = err(401, code::UNAUTHORIZED, m);
            r.headers.push(("WWW-Authenticate".into(), "Bearer".into()));
            r
        };
        let Some(value) = req.header("Authorization") else {
            return Err(unauthorized("missing Authorization: Bearer <API key>"));
        };
        // The scheme is case-insensitive (RFC 9110 §11.1): `bearer`, `BEARER` and `Bearer` are one.
        let key = value
            .trim()
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("Bearer"))
            .map(|(_, k)| k.trim());
        let Some(key) = key else {
            return Err(unauthorized(
                "the Authorization header must be 'Bearer <API key>'",
            ));
        };
        let Some(parsed) = parse_key(key) else {
            return Err(unauthorized("malformed API key (dk_test_… or dk_live_…)"));
        };
        let found = self.store.find_key(parsed.key_id).filter(|(_, stored)| {
            stored.environment == parsed.environment && auth::key_matches(parsed.full, stored)
        });
        let Some((account_id, stored)) = found.filter(|(_, k)| k.revoked_at.is_none()) else {
            return Err(unauthorized("unknown or revoked API key"));
        };
        let Some(account) = self.store.account(&account_id) else {
            return Err(unauthorized("unknown or revoked API key"));
        };
        let sandbox_header = req.header("X-Environment");
        match (stored.environment, sandbox_header) {
            (Environment::Sandbox, Some(h)) if h.eq_ignore_ascii_case("sandbox") => {}
            (Environment::Sandbox, _) => {
                return Err(err(
                    400,
                    code::SANDBOX_HEADER_REQUIRED,
                    "sandbox keys (dk_test_) require the header X-Environment: sandbox",
                ))
            }
            (Environment::Production, None) => {}
            (Environment::Production, Some(_)) => {
                return Err(err(
                    400,
                    code::LIVE_KEY_IN_SANDBOX,
                    "a production key (dk_live_) must not be used with X-Environment: the sandbox takes dk_test_ keys",
                ))
            }
        }
        Ok(Caller {
            account,
            env: stored.environment,
        })
    }

    /// The invoice resource (docs/api.md, "Invoice"): the record's state plus the document as issued, read from the
    /// stored XML (the one source of truth of what was signed and sent: receiver, items with their computed values,
    /// totals and IVA, currency and rate).
    fn invoice_json(&self, inv: &InvoiceRecord) -> Value {
        let mut v = self.invoice_base(inv);
        if let (Some(parts), Value::Object(m)) = (self.documents.get(inv), &mut v) {
            m.extend(parts.fields.iter().map(|(k, x)| (k.clone(), x.clone())));
        }
        v
    }

    /// `{"ok":true,"data":<invoice>}` for a status lookup, the document's parts spliced in already serialized
    /// (the same resource as [`Service::invoice_json`], without re-parsing or re-serializing the signed XML's parts).
    fn invoice_response(&self, status: u16, inv: &InvoiceRecord) -> HttpResponse {
        let parts = self.documents.get(inv);
        invoice_body(
            status,
            &self.invoice_base(inv),
            parts.as_ref().map_or("", |p| p.members.as_str()),
        )
    }

    /// The invoice resource without the parts read from its signed XML ([`document::Fields`]).
    fn invoice_base(&self, inv: &InvoiceRecord) -> Value {
        resource_base(&self.config.base_url, inv)
    }

    /// `page` and `per_page` of a list query (defaults 1 and 20; `limit` is `per_page`), or the 400 answer.
    fn paging(&self, pairs: &[(String, String)]) -> Result<(usize, usize), HttpResponse> {
        let mut page = 1usize;
        let mut per_page = None;
        for (k, v) in pairs {
            match k.as_str() {
                "page" => page = positive(k, v, usize::MAX)?,
                "per_page" | "limit" => {
                    if per_page.is_some() {
                        return Err(bad_query(k, "give per_page or limit, not both"));
                    }
                    per_page = Some(positive(k, v, self.config.max_per_page)?);
                }
                _ => {}
            }
        }
        Ok((page, per_page.unwrap_or(20)))
    }

    /// The filters, order and page of `GET /v1/facturas` (docs/api.md, "Listing invoices").
    fn invoice_query(
        &self,
        caller: &Caller,
        pairs: &[(String, String)],
    ) -> Result<(InvoiceQuery, Option<usize>), HttpResponse> {
        let (page, limit) = self.paging(pairs)?;
        // The page number: `page`'s, the one a cursor carries, or none for a bare invoice id as cursor.
        let mut at_page = Some(page);
        let mut q = InvoiceQuery {
            limit,
            offset: (page - 1).saturating_mul(limit),
            ..InvoiceQuery::default()
        };
        for (k, v) in pairs {
            let time = || {
                OffsetDateTime::parse(v, &time::format_description::well_known::Rfc3339)
                    .map(OffsetDateTime::unix_timestamp)
                    .map_err(|_| bad_query(k, "an RFC 3339 date-time such as 2025-01-31T12:00:00Z"))
            };
            match k.as_str() {
                "status" => {
                    q.status = Some(serde_json::from_value(json!(v)).map_err(|_| {
                        bad_query(k, "one of pending, sent, approved, rejected, cancelled")
                    })?)
                }
                "created_from" => q.created_from = Some(time()?),
                "created_to" => q.created_to = Some(time()?),
                "cdc" => {
                    kuatia_core::cdc::Cdc::parse(v).map_err(|e| bad_query(k, &e.to_string()))?;
                    q.cdc = Some(v.clone());
                }
                "numero" => {
                    let digits =
                        |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_digit());
                    let parts: Vec<&str> = v.split('-').collect();
                    let ok = matches!(parts.as_slice(), [e, p, n] if digits(e, 3) && digits(p, 3) && digits(n, 7));
                    if !ok {
                        return Err(bad_query(k, "EEE-PPP-NNNNNNN, e.g. 001-001-0000001"));
                    }
                    q.numero = Some(v.clone());
                }
                "receptor_ruc" => {
                    kuatia_core::ruc::Ruc::parse(v).map_err(|e| bad_query(k, &e.to_string()))?;
                    q.receptor_ruc = Some(v.clone());
                }
                "tipo_documento" => {
                    let t = v
                        .parse::<u8>()
                        .ok()
                        .filter(|t| kuatia_core::de::TipoDocumento::from_code(*t).is_some())
                        .ok_or_else(|| bad_query(k, "a document type code: 1, 4, 5, 6 or 7"))?;
                    q.tipo_documento = Some(t);
                }
                "order" => {
                    q.ascending = match v.as_str() {
                        "asc" => true,
                        "desc" => false,
                        _ => return Err(bad_query(k, "asc or desc")),
                    }
                }
                "starting_after" => {
                    if pairs.iter().any(|(k, _)| k == "page") {
                        return Err(bad_query(k, "a cursor walk takes no page"));
                    }
                    let mine = |id: &str| {
                        self.store
                            .invoice(&caller.account.id, id)
                            .is_some_and(|i| i.environment == caller.env)
                    };
                    // `meta.next_cursor` is `<id>.<page>` (the page it opens); a bare invoice id says no page.
                    let (id, cursor_page) = if mine(v) {
                        (v.as_str(), None)
                    } else {
                        match v
                            .rsplit_once('.')
                            .and_then(|(id, p)| Some((id, p.parse::<usize>().ok()?)))
                        {
                            Some((id, p)) if p >= 2 && mine(id) => (id, Some(p)),
                            _ => return Err(bad_query(k, "no invoice with that id")),
                        }
                    };
                    q.starting_after = Some(id.to_string());
                    at_page = cursor_page;
                }
                _ => {}
            }
        }
        Ok((q, at_page))
    }

    fn list_invoices(&self, caller: &Caller, query: &str) -> HttpResponse {
        const PARAMS: &[&str] = &[
            "page",
            "per_page",
            "limit",
            "starting_after",
            "order",
            "status",
            "created_from",
            "created_to",
            "cdc",
            "numero",
            "receptor_ruc",
            "tipo_documento",
        ];
        let (mut q, page) =
            match query_pairs(query, PARAMS).and_then(|pairs| self.invoice_query(caller, &pairs)) {
                Ok(q) => q,
                Err(r) => return r,
            };
        let per_page = q.limit;
        // One row more than asked says whether there is a next page.
        q.limit = per_page.saturating_add(1);
        let (mut items, total) = self.store.list_invoices(&caller.account.id, caller.env, &q);
        let has_more = items.len() > per_page;
        items.truncate(per_page);
        // The cursor carries the number of the page it opens, so every page of a walk reports its own.
        let next_cursor = has_more
            .then(|| {
                items.last().map(|i| match page {
                    Some(p) => format!("{}.{}", i.id, p.saturating_add(1)),
                    None => i.id.clone(),
                })
            })
            .flatten();
        let data: Vec<Value> = items.iter().map(|i| self.invoice_json(i)).collect();
        respond(
            200,
            &json!({"ok": true, "data": data, "meta": {
                "page": page, "per_page": per_page, "total": total,
                "has_more": has_more, "next_cursor": next_cursor,
            }}),
        )
    }

    /// `GET /v1/webhooks`: the caller's webhooks, a page at a time (`page`, `per_page` or `limit`, as the lists).
    fn list_webhooks(&self, caller: &Caller, query: &str, host: &mut dyn Host) -> HttpResponse {
        let (page, per_page) = match query_pairs(query, &["page", "per_page", "limit"])
            .and_then(|pairs| self.paging(&pairs))
        {
            Ok(p) => p,
            Err(r) => return r,
        };
        let now = host.now().unix_timestamp();
        let all = self.store.webhooks(&caller.account.id, caller.env);
        let total = all.len();
        let offset = (page - 1).saturating_mul(per_page);
        let list: Vec<Value> = all
            .iter()
            .skip(offset)
            .take(per_page)
            .map(|w| w.public_json(now))
            .collect();
        let has_more = offset.saturating_add(list.len()) < total;
        respond(
            200,
            &json!({"ok": true, "data": list, "meta": {
                "page": page, "per_page": per_page, "total": total, "has_more": has_more,
            }}),
        )
    }

    /// The delivery log of one of the caller's webhooks, newest first.
    /// A deleted webhook's log stays readable: its deliveries are kept (the pending ones cancelled), and they name
    /// their account and environment.
    fn deliveries(&self, caller: &Caller, webhook_id: &str, query: &str) -> HttpResponse {
        let exists = self
            .store
            .webhook(&caller.account.id, caller.env, webhook_id)
            .is_some();
        let deleted_with_log = || {
            let (first, _) = self.store.webhook_deliveries(webhook_id, 0, 1);
            first
                .first()
                .is_some_and(|d| d.account_id == caller.account.id && d.environment == caller.env)
        };
        if !exists && !deleted_with_log() {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        }
        let (page, per_page) = match query_pairs(query, &["page", "per_page", "limit"])
            .and_then(|pairs| self.paging(&pairs))
        {
            Ok(p) => p,
            Err(r) => return r,
        };
        let offset = (page - 1).saturating_mul(per_page);
        let (items, total) = self.store.webhook_deliveries(webhook_id, offset, per_page);
        let data: Vec<Value> = items.iter().map(webhook::delivery_json).collect();
        respond(
            200,
            &json!({"ok": true, "data": data, "meta": {"page": page, "per_page": per_page, "total": total}}),
        )
    }

    /// Applies a SIFEN outcome (reported by the host's SIFEN client) to an invoice, storing it and queueing webhooks.
    pub fn apply(
        &mut self,
        account_id: &str,
        invoice_id: &str,
        trigger: &Trigger,
        host: &mut dyn Host,
    ) -> Result<Estado, Finding> {
        let mut record = self
            .store
            .invoice_for_update(account_id, invoice_id)
            .ok_or_else(|| Finding::new(code::NOT_FOUND, "id", "no invoice with that id"))?;
        let ts = host.now().unix_timestamp();
        let events = apply_to(&mut record, trigger, ts)?;
        if record.status.is_final() {
            record.transmission = transmit::Transmission::default();
        }
        self.store.update_invoice(record.clone());
        self.emit(&record, &events, host, ts);
        Ok(record.status)
    }

    /// Advances the simulated SIFEN: sandbox invoices without `_simulate` go `pending → sent` after
    /// `sandbox_send_after` seconds and are answered after `sandbox_answer_after` seconds (rejected when the receiver
    /// RUC is one of [`SANDBOX_REJECTED_RUCS`] with [`SANDBOX_CODE_RUC`], approved otherwise).
    pub fn tick(&mut self, host: &mut dyn Host) {
        let now = host.now().unix_timestamp();
        self.tick_all(now, host);
    }

    /// [`Service::tick`] for what is due by this service's own schedule: the invoices in flight it created or saw
    /// at its last full [`Service::tick`], at most [`TICK_BATCH`] of them per call (the rest at the next call), so a
    /// request never walks every invoice in flight. Invoices other engines over the same store created are found by
    /// the next full [`Service::tick`], which hosts run periodically.
    pub fn tick_due(&mut self, host: &mut dyn Host) {
        let now = host.now().unix_timestamp();
        // A clock that stepped back may make invoices "created in the future" due at once: see them all.
        if now < self.ticked_at || !self.scheduled {
            self.tick_all(now, host);
            return;
        }
        if now < self.next_tick {
            return;
        }
        let mut moved = 0;
        while moved < TICK_BATCH {
            let Some(first) = self
                .schedule
                .first()
                .filter(|(due, _, _)| *due <= now)
                .cloned()
            else {
                break;
            };
            self.schedule.remove(&first);
            let (_, account_id, id) = first;
            // An entry is a hint: the invoice may have moved meanwhile (cancelled, another engine's tick).
            if let Some(record) = self
                .store
                .invoice_for_update(&account_id, &id)
                .filter(InvoiceRecord::is_simulated_in_flight)
            {
                self.tick_one(record, now, host);
                moved += 1;
            }
        }
        self.next_tick = self.schedule.first().map_or(i64::MAX, |(due, _, _)| *due);
        self.ticked_at = now;
    }

    /// When the simulated SIFEN next moves `record` (`None`: it does not).
    fn simulated_step_at(&self, record: &InvoiceRecord) -> Option<i64> {
        if !record.is_simulated_in_flight() {
            return None;
        }
        let after = match record.status {
            Estado::Pending => self.config.sandbox_send_after,
            _ => self.config.sandbox_answer_after,
        };
        Some(record.created_at.saturating_add(after))
    }

    /// Puts `record`'s next simulated step in the schedule, if it has one.
    fn schedule(&mut self, record: &InvoiceRecord) {
        if let Some(at) = self.simulated_step_at(record) {
            self.schedule
                .insert((at, record.account_id.clone(), record.id.clone()));
            self.next_tick = self.next_tick.min(at);
        }
    }

    /// Every invoice in flight, moved when due; rebuilds the schedule from what the store holds.
    fn tick_all(&mut self, now: i64, host: &mut dyn Host) {
        self.schedule.clear();
        self.next_tick = i64::MAX;
        for record in self.store.simulated_in_flight() {
            self.tick_one(record, now, host);
        }
        self.scheduled = true;
        self.ticked_at = now;
    }

    /// Moves one invoice in flight if its step is due, and schedules its next step.
    fn tick_one(&mut self, mut record: InvoiceRecord, now: i64, host: &mut dyn Host) {
        // Created "after" now: the clock stepped back since. Its age is unknown, so the simulation does not wait
        // (waiting for the clock to catch up would stall it for as long as the step).
        let age = if record.created_at > now {
            i64::MAX
        } else {
            now - record.created_at
        };
        let before = record.status;
        let mut events = Vec::new();
        if record.status == Estado::Pending && age >= self.config.sandbox_send_after {
            events.extend(apply_to(&mut record, &Trigger::Submitted, now).unwrap_or_default());
        }
        if record.status == Estado::Sent && age >= self.config.sandbox_answer_after {
            let trigger = if rejected_receiver(&record.xml) {
                sandbox_rejection(true)
            } else {
                sandbox_approval(&record)
            };
            events.extend(apply_to(&mut record, &trigger, now).unwrap_or_default());
        }
        if record.status != before {
            self.store.update_invoice(record.clone());
            self.emit(&record, &events, host, now);
            if record.status == Estado::Approved {
                // The simulated approval completes the sandbox flow too (spec §1 prerequisite 1), not only an
                // approval asked for with `_simulate`.
                if let Some(mut account) = self.store.account(&record.account_id) {
                    if !account.sandbox_completed {
                        account.sandbox_completed = true;
                        self.store.put_account(account);
                    }
                }
            }
        }
        self.schedule(&record);
    }

    fn emit(&mut self, record: &InvoiceRecord, events: &[EventKind], host: &mut dyn Host, ts: i64) {
        for kind in events {
            let event_id = random_id(host, "evt_", 24);
            let payload = EventPayload {
                id: event_id.clone(),
                kind: *kind,
                created: ts,
                data: EventData {
                    id: record.id.clone(),
                    status: record.status.to_string(),
                    cdc: record.cdc.clone(),
                },
            };
            let body = serde_json::to_string(&payload).unwrap_or_default();
            for hook in self.store.webhooks(&record.account_id, record.environment) {
                if !hook.events.contains(kind) {
                    continue;
                }
                let delivery = Delivery {
                    id: random_id(host, "dlv_", 24),
                    account_id: record.account_id.clone(),
                    environment: record.environment,
                    webhook_id: hook.id.clone(),
                    url: hook.url.clone(),
                    event_id: event_id.clone(),
                    headers: Vec::new(),
                    body: body.clone(),
                    attempts: 0,
                    next_attempt_at: ts,
                    first_due_at: ts,
                    status: "pending".into(),
                    log: Vec::new(),
                };
                self.store.put_delivery(delivery);
            }
        }
    }

    /// Deliveries the host must POST now (pending and due, [`webhook::is_due`]: a clock that stepped back holds none),
    /// with their headers signed at `now`.
    pub fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        // After the clock steps back, deliveries scheduled by the later clock are looked at too
        // (up to the latest time seen), and [`webhook::is_due`] decides.
        let latest = self.latest_now.get().max(now);
        self.latest_now.set(latest);
        let mut due = self.store.due_deliveries(latest);
        due.retain(|d| webhook::is_due(d, now));
        // A delivery whose webhook was deleted is never sent (deleting cancels them; this covers a race).
        due.retain_mut(|d| {
            let Some(hook) = self
                .store
                .webhook(&d.account_id, d.environment, &d.webhook_id)
            else {
                return false;
            };
            d.headers = vec![
                ("Content-Type".into(), "application/json".into()),
                (
                    webhook::SIGNATURE_HEADER.into(),
                    webhook::signature_header_multi(&hook.signing_secrets(now), now, &d.body),
                ),
            ];
            true
        });
        due
    }

    /// Records the outcome of one delivery attempt: delivered, or the next retry on the backoff schedule
    /// ([`webhook::RETRY_SCHEDULE`]), or `failed` once the schedule is exhausted.
    pub fn report_delivery(&mut self, delivery_id: &str, success: bool) -> Option<Delivery> {
        let at = self.store.delivery(delivery_id)?.next_attempt_at;
        let attempt = webhook::Attempt {
            at,
            status: None,
            error: (!success).then(|| "request".to_string()),
            duration_ms: 0,
        };
        // A host that reports only success or failure: the log keeps no HTTP status or duration.
        self.report_attempt(delivery_id, attempt)
    }

    /// Records one attempt with what the host saw (HTTP status, error class, duration) in the delivery's log, then
    /// as [`Service::report_delivery`]: delivered on a 2xx, else the next retry or `failed`.
    pub fn report_attempt(
        &mut self,
        delivery_id: &str,
        attempt: webhook::Attempt,
    ) -> Option<Delivery> {
        let mut d = self.store.delivery(delivery_id)?;
        d.attempts += 1;
        let success = attempt.succeeded();
        d.log.push(attempt);
        if d.status != "pending" {
            // Cancelled (its webhook was deleted) while this attempt was in flight: logged, never retried.
        } else if success {
            d.status = "delivered".into();
        } else {
            let next = usize::try_from(d.attempts - 1)
                .ok()
                .and_then(|i| webhook::RETRY_SCHEDULE.get(i));
            match next {
                Some(delay) => d.next_attempt_at = d.first_due_at + delay,
                None => d.status = "failed".into(),
            }
        }
        d.headers.clear();
        self.store.put_delivery(d.clone());
        Some(d)
    }

    fn kude(&self, caller: &Caller, id: &str) -> HttpResponse {
        let Some(inv) = self
            .store
            .invoice(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        if inv.status != Estado::Approved {
            return err(
                409,
                code::KUDE_NOT_AVAILABLE,
                &format!(
                    "the KuDE is delivered only for approved invoices; this one is '{}'",
                    inv.status
                ),
            );
        }
        let de = match kuatia_core::xml::parse(&inv.xml) {
            Ok(d) => d,
            Err(f) => return err(500, &f.code, &f.message),
        };
        match kuatia_core::kude::pdf::pdf(&de, &inv.qr, &kuatia_core::kude::KudeOptions::default())
        {
            Ok(bytes) => HttpResponse {
                status: 200,
                headers: vec![
                    ("Content-Type".into(), "application/pdf".into()),
                    (
                        "Content-Disposition".into(),
                        format!("inline; filename=\"{}.pdf\"", inv.cdc),
                    ),
                ],
                body: bytes,
            },
            Err(f) => err(500, &f.code, &f.message),
        }
    }

    /// `GET /v1/facturas/:id/xml`: the signed `rDE` as stored and sent to SIFEN, which the issuer must keep and give
    /// the buyer. 409 for a document that was never signed (a sandbox without a signer).
    fn signed_xml(&self, caller: &Caller, id: &str) -> HttpResponse {
        let Some(inv) = self
            .store
            .invoice(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        if !inv.signed {
            return err(
                409,
                code::XML_NOT_AVAILABLE,
                "this document was never signed (a sandbox without a certificate): there is no signed XML",
            );
        }
        HttpResponse {
            status: 200,
            headers: vec![
                (
                    "Content-Type".into(),
                    "application/xml; charset=utf-8".into(),
                ),
                (
                    "Content-Disposition".into(),
                    format!("attachment; filename=\"{}.xml\"", inv.cdc),
                ),
            ],
            body: inv.xml.into_bytes(),
        }
    }

    /// `POST /v1/facturas/:id/cancel {motivo}`: cancels an approved invoice within SIFEN's window (48 h for an FE,
    /// 168 h for the other types, from the approval). Sandbox: at once. Production: the signed cancellation event
    /// goes to SIFEN (`transmit`); the invoice becomes `cancelled` when SIFEN registers it (202 meanwhile).
    fn cancel(
        &mut self,
        caller: &Caller,
        id: &str,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> HttpResponse {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Body {
            motivo: String,
        }
        let Some(mut record) = self
            .store
            .invoice_for_update(&caller.account.id, id)
            .filter(|i| i.environment == caller.env)
        else {
            return err(404, code::NOT_FOUND, "no invoice with that id");
        };
        let body: Body = match json_body(&req.body) {
            Ok(b) => b,
            Err(r) => return r,
        };
        if record.cancellation.as_ref().map(|c| c.status) == Some(CancellationStatus::Pending) {
            return err(
                409,
                code::CANCELLATION_PENDING,
                "a cancellation of this invoice is waiting for SIFEN's answer",
            );
        }
        if record.status != Estado::Approved {
            return err(
                409,
                code::NOT_CANCELLABLE,
                &format!(
                    "only approved invoices can be cancelled; this one is '{}'",
                    record.status
                ),
            );
        }
        let now_utc = host.now();
        let now = paraguay(now_utc);
        let ts = now_utc.unix_timestamp();
        let approved = record.approved_at.unwrap_or(record.updated_at);
        let approved = OffsetDateTime::from_unix_timestamp(approved)
            .map(paraguay)
            .unwrap_or(now);
        if let Err(f) =
            kuatia_core::sifen::deadline::check_cancel_window(record.tipo_documento, approved, now)
        {
            return findings_response(&[f]);
        }
        let Ok(cdc) = kuatia_core::cdc::Cdc::parse(&record.cdc) else {
            return err(500, code::INVALID_CDC, "the stored CDC does not parse");
        };
        let input = kuatia_core::sifen::event::EventoInput {
            id: transmit::event_id(host),
            fecha_firma: now,
            evento: kuatia_core::sifen::event::Evento::Cancelacion {
                cdc,
                motivo: body.motivo.clone(),
            },
        };
        let rules = kuatia_core::sifen::event::validate(&input);
        if !rules.is_empty() {
            // The event's own paths (`motivo`) are the request's.
            return findings_response(&rules);
        }
        let mut cancellation = Cancellation {
            status: CancellationStatus::Pending,
            motivo: body.motivo,
            requested_at: ts,
            event_id: None,
            xml: None,
            error: None,
        };
        match caller.env {
            Environment::Sandbox => {
                record.cancellation = Some(cancellation);
                let events = apply_to(&mut record, &Trigger::Cancelled, ts).unwrap_or_default();
                self.store.update_invoice(record.clone());
                self.emit(&record, &events, host, ts);
                ok(200, self.invoice_json(&record))
            }
            Environment::Production => {
                let emisor = caller.account.profile(caller.env);
                let ruc = emisor.and_then(|e| kuatia_core::ruc::Ruc::parse(&e.ruc).ok());
                let (Some(ruc), Some(signer)) = (ruc, host.signer(&caller.account.id, caller.env))
                else {
                    return err(
                        422,
                        code::CERTIFICATE_MISSING,
                        "load a valid P12 certificate for production",
                    );
                };
                let signed = match kuatia_core::sifen::event::sign_event(&input, &ruc, signer) {
                    Ok(s) => s,
                    Err(fs) => return findings_response(&fs.0),
                };
                cancellation.event_id = Some(signed.id);
                cancellation.xml = Some(signed.xml);
                record.cancellation = Some(cancellation);
                record.transmission = transmit::Transmission {
                    next: transmit::Step::SendEvent,
                    due_at: ts,
                    ..transmit::Transmission::default()
                };
                self.store.update_invoice(record.clone());
                ok(202, self.invoice_json(&record))
            }
        }
    }

    fn create_webhook(
        &mut self,
        caller: &Caller,
        req: &HttpRequest,
        host: &mut dyn Host,
    ) -> HttpResponse {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Body {
            url: String,
            events: Vec<String>,
            #[serde(default)]
            description: Option<String>,
        }
        let body: Body = match json_body(&req.body) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let checked = match webhook::check_registration(
            &body.url,
            &body.events,
            body.description.as_deref(),
            self.config.allow_private_webhooks,
        ) {
            Ok(c) => c,
            Err(fs) => return findings_response(&fs),
        };
        let secret = random_id(host, "whsec_", 32);
        let hook = Webhook {
            id: random_id(host, "wh_", 24),
            url: checked.url,
            events: checked.events,
            description: body.description,
            created_at: rfc3339(host.now().unix_timestamp()),
            secret: Some(secret),
            previous_secret: None,
            previous_secret_expires_at: None,
        };
        self.store
            .insert_webhook(&caller.account.id, caller.env, hook.clone());
        ok(201, json!(hook))
    }

    /// `DELETE /v1/webhooks/:id`: the webhook stops receiving events at once; its pending deliveries are
    /// `cancelled` (the log keeps them).
    fn delete_webhook(&mut self, caller: &Caller, id: &str) -> HttpResponse {
        if !self
            .store
            .delete_webhook(&caller.account.id, caller.env, id)
        {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        }
        let mut offset = 0;
        loop {
            let (page, _) = self.store.webhook_deliveries(id, offset, 100);
            if page.is_empty() {
                break;
            }
            offset += page.len();
            for mut d in page {
                if d.status == "pending" {
                    d.status = "cancelled".into();
                    self.store.put_delivery(d);
                }
            }
        }
        ok(200, json!({"id": id, "deleted": true}))
    }

    /// `POST /v1/webhooks/:id/rotate`: a new secret (shown once, in this answer); the previous one keeps signing
    /// deliveries, beside the new one, for [`Config::webhook_secret_grace`] seconds, so receivers can switch without
    /// losing an event. A second rotation within the grace period drops the oldest secret.
    fn rotate_webhook(&mut self, caller: &Caller, id: &str, host: &mut dyn Host) -> HttpResponse {
        let Some(mut hook) = self.store.webhook(&caller.account.id, caller.env, id) else {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        };
        let now = host.now().unix_timestamp();
        let expires = now.saturating_add(self.config.webhook_secret_grace.max(0));
        let secret = random_id(host, "whsec_", 32);
        hook.previous_secret = hook.secret.replace(secret.clone());
        hook.previous_secret_expires_at = Some(expires);
        self.store
            .update_webhook(&caller.account.id, caller.env, hook.clone());
        let mut v = hook.public_json(now);
        v["secret"] = json!(secret);
        v["previous_secret_expires_at"] = json!(rfc3339(expires));
        ok(200, v)
    }

    /// `POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver`: the same event (same `evt_` id and body) queued
    /// again to the webhook's URL as a new delivery, due at once and signed when sent, with its own retries.
    fn redeliver(
        &mut self,
        caller: &Caller,
        webhook_id: &str,
        delivery_id: &str,
        host: &mut dyn Host,
    ) -> HttpResponse {
        let Some(hook) = self
            .store
            .webhook(&caller.account.id, caller.env, webhook_id)
        else {
            return err(404, code::NOT_FOUND, "no webhook with that id");
        };
        let Some(original) = self.store.delivery(delivery_id).filter(|d| {
            d.webhook_id == hook.id
                && d.account_id == caller.account.id
                && d.environment == caller.env
        }) else {
            return err(
                404,
                code::NOT_FOUND,
                "no delivery with that id for this webhook",
            );
        };
        let now = host.now().unix_timestamp();
        let delivery = Delivery {
            id: random_id(host, "dlv_", 24),
            url: hook.url,
            headers: Vec::new(),
            attempts: 0,
            next_attempt_at: now,
            first_due_at: now,
            status: "pending".into(),
            log: Vec::new(),
            ..original
        };
        self.store.put_delivery(delivery.clone());
        ok(202, webhook::delivery_json(&delivery))
    }

    /// Production readiness of an account (spec §1): what is missing before live traffic.
    pub fn preflight(&self, account_id: &str, host: &mut dyn Host) -> Vec<Check> {
        let mut out = Vec::new();
        let account = self.store.account(account_id);
        let check = |name: &str, ok: bool, message: &str| Check {
            name: name.into(),
            ok,
            message: message.into(),
        };
        let Some(account) = account else {
            return vec![check("account", false, "unknown account")];
        };
        out.push(check(
            "sandbox_completed",
            account.sandbox_completed,
            "complete one sandbox flow up to an approved invoice",
        ));
        let now = paraguay(host.now());
        let profile = account.production.as_ref();
        let findings = profile.map(|p| production_profile_findings(p, now));
        let passes = |paths: &[&str]| {
            findings
                .as_ref()
                .is_some_and(|fs| fs.iter().all(|f| !paths.contains(&f.path.as_str())))
        };
        out.push(check(
            "production_profile",
            passes(&["ambiente", "ruc"]),
            "load the production emitter profile (RUC, address, activities, stamps, CSC)",
        ));
        let cert_ok = match (profile, host.signer(account_id, Environment::Production)) {
            (Some(p), Some(s)) => kuatia_core::issue::check_signer(p, s, now).is_ok(),
            _ => false,
        };
        out.push(check(
            "certificate",
            cert_ok,
            "load a valid P12 certificate carrying the emitter's RUC",
        ));
        out.push(check(
            "timbrado",
            passes(&["timbrados"]),
            "an active stamp (timbrado) must cover factura electrónica (1)",
        ));
        out.push(check(
            "ruc_enabled",
            account.ruc_enabled,
            "the RUC must be enabled for the authority's API programme",
        ));
        let hooks = self.store.webhooks(account_id, Environment::Production);
        let covers = |k: EventKind| hooks.iter().any(|h| h.events.contains(&k));
        out.push(check(
            "webhooks",
            covers(EventKind::FacturaApproved) && covers(EventKind::FacturaRejected),
            "register a production webhook for factura.approved and factura.rejected",
        ));
        let live_key = account
            .keys
            .iter()
            .any(|k| k.environment == Environment::Production);
        out.push(check(
            "live_key",
            live_key,
            "create a dk_live_ key and keep it server-side (never in front-end code)",
        ));
        out
    }
}

/// Moves a record through the state machine, keeping the trigger's data (reasons, authorization number).
fn apply_to(
    record: &mut InvoiceRecord,
    trigger: &Trigger,
    ts: i64,
) -> Result<Vec<EventKind>, Finding> {
    let (to, events) = transition(record.status, trigger)
        .map_err(|e| Finding::new(e.code(), "status", e.to_string()))?;
    record.status = to;
    record.updated_at = ts;
    match trigger {
        Trigger::Submitted => record.sent_at = Some(ts),
        Trigger::Rejected { errors } => record.sifen_errors = errors.clone(),
        Trigger::Approved { protocolo } => {
            record.protocolo = protocolo.clone();
            record.approved_at = Some(ts);
        }
        Trigger::Cancelled => {
            if let Some(c) = &mut record.cancellation {
                c.status = CancellationStatus::Approved;
            }
        }
        _ => {}
    }
    Ok(events)
}

/// `RUC-DV` of a receiver that has one.
fn receptor_ruc(r: &kuatia_core::de::ReceptorDoc) -> Option<String> {
    match (&r.ruc, r.dv) {
        (Some(ruc), Some(dv)) => Some(format!("{ruc}-{dv}")),
        _ => None,
    }
}

fn sandbox_approval(record: &InvoiceRecord) -> Trigger {
    // A deterministic, clearly fake authorization number derived from the CDC.
    let digits: String = record.cdc.chars().rev().take(10).collect();
    Trigger::Approved {
        protocolo: Some(format!("SBX{digits}")),
    }
}

fn sandbox_rejection(unknown_receiver: bool) -> Trigger {
    let error = if unknown_receiver {
        SifenError {
            code: SANDBOX_CODE_RUC.into(),
            message: "RUC del receptor inexistente o inactivo (rechazo simulado del sandbox)"
                .into(),
            field: Some("receptor.ruc".into()),
        }
    } else {
        SifenError {
            code: SANDBOX_CODE_SIMULATED.into(),
            message: "Rechazo simulado con _simulate: rejected".into(),
            field: None,
        }
    };
    Trigger::Rejected {
        errors: vec![error],
    }
}

fn rejected_receiver(xml: &str) -> bool {
    SANDBOX_REJECTED_RUCS
        .iter()
        .any(|r| xml.contains(&format!("<dRucRec>{r}</dRucRec>")))
}

#[cfg(test)]
mod body_serde_tests {
    #![allow(clippy::unwrap_used)]
    use super::HttpResponse;

    #[test]
    fn a_stored_answer_reads_back_in_both_forms() {
        let text = HttpResponse {
            status: 201,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"ok":true,"data":{"id":"fact_1","x":"\u00f1"}}"#.to_vec(),
        };
        let json = serde_json::to_string(&text).unwrap();
        assert!(json.contains(r#""body":"{\"ok\":true"#), "{json}");
        assert_eq!(serde_json::from_str::<HttpResponse>(&json).unwrap(), text);
        // Stored by earlier versions: the body as an array of numbers.
        let old = r#"{"status":201,"headers":[],"body":[123,125]}"#;
        assert_eq!(
            serde_json::from_str::<HttpResponse>(old).unwrap().body,
            b"{}"
        );
        let binary = HttpResponse {
            status: 200,
            headers: vec![],
            body: vec![0xff, 0x00, 0x25],
        };
        let json = serde_json::to_string(&binary).unwrap();
        assert_eq!(serde_json::from_str::<HttpResponse>(&json).unwrap(), binary);
    }
}

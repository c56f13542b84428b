//! Webhooks as pure data: registration rules, the event payload, the signature header and the retry schedule.
//! The host performs the HTTP POST and reports the outcome back with [`super::Service::report_delivery`].

use hmac::{Hmac, Mac};
use kuatia_core::lifecycle::EventKind;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

mod target;
pub use target::*;

/// Name of the signature header on every delivery.
pub const SIGNATURE_HEADER: &str = "Kuatia-Signature";
/// Seconds after the first attempt at which each retry is due (backoff: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h).
pub const RETRY_SCHEDULE: [i64; 7] = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400];
/// Default tolerance when verifying a signature timestamp, in seconds.
pub const DEFAULT_TOLERANCE: i64 = 300;

/// A registered webhook as returned by the API (`secret` only on creation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "WebhookCreated")
)]
pub struct Webhook {
    /// `wh_…` identifier.
    pub id: String,
    /// HTTPS address receiving the events.
    pub url: String,
    /// Event kinds delivered to it.
    pub events: Vec<EventKind>,
    /// Free-text label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Creation time, RFC 3339 UTC.
    pub created_at: String,
    /// Signing secret `whsec_…`; shown once in the creation (or rotation) response, never again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// The secret replaced by the last rotation, still signing deliveries until `previous_secret_expires_at`
    /// (stored only: answers never carry it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Never in an answer (see above).
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub previous_secret: Option<String>,
    /// Unix time the previous secret stops signing deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    // Never in an answer (see above).
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub previous_secret_expires_at: Option<i64>,
}

impl Webhook {
    /// The secrets that sign a delivery at `now`: the current one, then the previous one during its grace period.
    pub fn signing_secrets(&self, now: i64) -> Vec<&str> {
        let mut out: Vec<&str> = self.secret.as_deref().into_iter().collect();
        if let (Some(p), Some(until)) = (&self.previous_secret, self.previous_secret_expires_at) {
            if now < until {
                out.push(p);
            }
        }
        out
    }

    /// The webhook as answers show it: no secret, and the end of a rotation's grace period while it runs.
    pub fn resource(&self, now: i64) -> WebhookResource {
        WebhookResource {
            id: self.id.clone(),
            url: self.url.clone(),
            events: self.events.clone(),
            description: self.description.clone(),
            created_at: self.created_at.clone(),
            previous_secret_expires_at: self
                .previous_secret_expires_at
                .filter(|t| self.previous_secret.is_some() && now < *t)
                .map(super::rfc3339),
            secret: None,
        }
    }
}

/// What registers a webhook (`POST /v1/webhooks`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WebhookInput {
    /// HTTPS endpoint.
    pub url: String,
    /// Event names (`factura.approved`, …).
    pub events: Vec<String>,
    /// Free-text label.
    #[serde(default)]
    pub description: Option<String>,
}

/// A webhook as the API shows it (`GET /v1/webhooks/{id}`, the list, a rotation): its secret only in the answer
/// of a rotation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Webhook"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WebhookResource {
    /// `wh_…` identifier.
    pub id: String,
    /// HTTPS endpoint.
    pub url: String,
    /// Event kinds delivered to it.
    pub events: Vec<EventKind>,
    /// Free-text label (`null` when none).
    pub description: Option<String>,
    /// Creation time, RFC 3339 UTC.
    pub created_at: String,
    /// When the previous secret stops signing, RFC 3339 UTC, while a rotation's grace period runs; else `null`.
    pub previous_secret_expires_at: Option<String>,
    /// The new signing secret `whsec_…`, in the answer of a rotation only (shown once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub secret: Option<String>,
}

/// The JSON body POSTed to a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EventPayload {
    /// Event id `evt_…` (the same across retries: receivers deduplicate on it).
    pub id: String,
    /// Event kind, e.g. `factura.approved`.
    #[serde(rename = "type")]
    pub kind: EventKind,
    /// Unix time the event was created.
    pub created: i64,
    /// The invoice concerned.
    pub data: EventData,
}

/// `data` of an event: the invoice's id, status and CDC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EventData {
    /// Invoice id `fact_…`.
    pub id: String,
    /// Invoice status after the event.
    pub status: String,
    /// CDC.
    pub cdc: String,
}

/// One HTTP call the host must make (or retry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SandboxDelivery"))]
pub struct Delivery {
    /// Delivery id `dlv_…`, used to report the outcome.
    pub id: String,
    /// Account of the invoice.
    pub account_id: String,
    /// Environment of the invoice.
    pub environment: super::auth::Environment,
    /// The webhook it goes to.
    pub webhook_id: String,
    /// Target URL.
    pub url: String,
    /// The event id.
    pub event_id: String,
    /// Exact JSON body to POST.
    pub body: String,
    /// Headers to send: `Content-Type` and the signature header (filled by `due_deliveries`, signed at that time).
    pub headers: Vec<(String, String)>,
    /// Attempts already made.
    pub attempts: u32,
    /// Unix time the next attempt is due.
    pub next_attempt_at: i64,
    /// Unix time of the first attempt's due date (the schedule counts from it).
    pub first_due_at: i64,
    /// `pending`, `delivered` or `failed` (gave up after the schedule).
    pub status: String,
    /// Every attempt made, oldest first.
    #[serde(default)]
    pub log: Vec<Attempt>,
}

/// One delivery attempt as the host reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "SandboxDeliveryAttempt")
)]
pub struct Attempt {
    /// Unix time the attempt started.
    pub at: i64,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why it failed, when it did: `http_status` (answered, not 2xx), `timeout`, `connect`, `forbidden_address`
    /// (an inside address, refused before connecting), `invalid_url` (the stored URL does not parse), `request` (any
    /// other transport failure).
    pub error: Option<String>,
    /// Milliseconds from the start of the attempt to the answer or the failure (0 when refused before connecting).
    pub duration_ms: u64,
}

impl Attempt {
    /// Whether the receiver took the event: no error, and a 2xx status when one is known.
    pub fn succeeded(&self) -> bool {
        self.error.is_none() && self.status.is_none_or(|s| (200..300).contains(&s))
    }
}

/// A delivery as the delivery log shows it (`GET /v1/webhooks/{id}/deliveries`, a redelivery): what was sent, to
/// where, and how it went (no headers: they carry the signature of one attempt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WebhookDelivery"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeliveryResource {
    /// `dlv_…` identifier.
    pub id: String,
    /// The webhook it went to.
    pub webhook_id: String,
    /// `evt_…`: the same across retries and redeliveries (receivers deduplicate on it).
    pub event_id: String,
    /// The event's kind (`null` if its stored body does not read).
    #[serde(rename = "type")]
    pub kind: Option<EventKind>,
    /// Target URL.
    pub url: String,
    /// `pending`, `delivered`, `failed` (the schedule ran out) or `cancelled` (its webhook was deleted).
    pub status: String,
    /// Attempts made.
    pub attempts: u32,
    /// When its first attempt was due, RFC 3339 UTC.
    pub created_at: String,
    /// When the next attempt is due while `pending`, RFC 3339 UTC; else `null`.
    pub next_attempt_at: Option<String>,
    /// The body POSTed (`null` if it does not read).
    pub payload: Option<EventPayload>,
    /// Every attempt, oldest first.
    pub log: Vec<AttemptResource>,
}

/// One attempt of a delivery as its log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "WebhookDeliveryAttempt")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AttemptResource {
    /// When it started, RFC 3339 UTC.
    pub at: String,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why it failed, when it did (see [`Attempt::error`]).
    pub error: Option<String>,
    /// Milliseconds to the answer or the failure.
    pub duration_ms: u64,
}

impl Delivery {
    /// The delivery as its log shows it.
    pub fn resource(&self) -> DeliveryResource {
        let payload: Option<EventPayload> = serde_json::from_str(&self.body).ok();
        DeliveryResource {
            id: self.id.clone(),
            webhook_id: self.webhook_id.clone(),
            event_id: self.event_id.clone(),
            kind: payload.as_ref().map(|p| p.kind),
            url: self.url.clone(),
            status: self.status.clone(),
            attempts: self.attempts,
            created_at: super::rfc3339(self.first_due_at),
            next_attempt_at: (self.status == "pending")
                .then(|| super::rfc3339(self.next_attempt_at)),
            payload,
            // Times as RFC 3339, like every other time of the API (the stored attempt keeps its Unix time).
            log: self
                .log
                .iter()
                .map(|a| AttemptResource {
                    at: super::rfc3339(a.at),
                    status: a.status,
                    error: a.error.clone(),
                    duration_ms: a.duration_ms,
                })
                .collect(),
        }
    }
}

/// Signature header value: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub fn signature_header(secret: &str, timestamp: i64, body: &str) -> String {
    format!(
        "t={timestamp},v1={}",
        super::auth::hex(&mac(secret, timestamp, body))
    )
}

/// Whether a pending delivery is due at `now`: its next attempt time has come, or the clock stepped back past its
/// last attempt (or its creation, before any): a wait measured from a time the clock has not reached yet is over, so
/// a step back never holds a delivery for the length of the step. The attempt made then is logged at `now`, which
/// ends the exception: the next one waits its back-off again.
pub fn is_due(d: &Delivery, now: i64) -> bool {
    let last = d.log.last().map_or(d.first_due_at, |a| a.at);
    d.next_attempt_at <= now || last > now
}

/// Signature header signed with several secrets (a rotation's grace period): `t=<unix>,v1=<mac1>,v1=<mac2>`;
/// [`verify_signature`] accepts the header when any `v1` matches the receiver's secret.
pub fn signature_header_multi(secrets: &[&str], timestamp: i64, body: &str) -> String {
    let mut out = format!("t={timestamp}");
    for s in secrets {
        out.push_str(",v1=");
        out.push_str(&super::auth::hex(&mac(s, timestamp, body)));
    }
    out
}

fn mac(secret: &str, timestamp: i64, body: &str) -> Vec<u8> {
    // HMAC accepts keys of any length, so construction cannot fail; an empty MAC would simply never verify.
    let Ok(mut m) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return Vec::new();
    };
    m.update(timestamp.to_string().as_bytes());
    m.update(b".");
    m.update(body.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// Why a delivered payload's signature was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// The header is not `t=…,v1=…`.
    Malformed,
    /// The timestamp is outside the tolerance (replay protection).
    Expired,
    /// No `v1` value matches.
    Mismatch,
}

/// Verifies a delivery on the receiving side: the header, the raw body, the secret, the receiver's clock.
pub fn verify_signature(
    secret: &str,
    header: &str,
    body: &str,
    now: i64,
    tolerance: i64,
) -> Result<(), SignatureError> {
    let mut t = None;
    let mut sigs = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => t = v.parse::<i64>().ok(),
            Some(("v1", v)) => sigs.push(v),
            _ => {}
        }
    }
    let t = t.ok_or(SignatureError::Malformed)?;
    if sigs.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if (now - t).abs() > tolerance {
        return Err(SignatureError::Expired);
    }
    let expected = super::auth::hex(&mac(secret, t, body));
    if sigs
        .iter()
        .any(|s| super::auth::ct_eq(s.as_bytes(), expected.as_bytes()))
    {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

impl<S: super::Store> super::Service<S> {
    /// The deliveries to POST now, as [`super::Service::due_deliveries`], each leased to the caller: its stored next
    /// attempt moves to `now + lease`, so other workers sharing the store skip it until the attempt is reported or the
    /// lease ends. A worker that dies mid-POST leaves the delivery to another one after the lease, and the receiver
    /// may then see the event again, under the same event id (at-least-once). Call it inside the transaction that
    /// stores the leases; `lease` should outlast one POST and its report. `take` says which of the due deliveries
    /// the caller starts now (its own limits: what is in flight, per endpoint); the others stay due, unleased.
    pub fn claim_deliveries(
        &mut self,
        now: i64,
        lease: i64,
        mut take: impl FnMut(&Delivery) -> bool,
    ) -> Vec<Delivery> {
        let mut due = self.due_deliveries(now);
        due.retain(|d| take(d));
        for d in &due {
            let mut leased = d.clone();
            leased.headers.clear();
            leased.next_attempt_at = now.saturating_add(lease.max(1));
            self.store.put_delivery(leased);
        }
        due
    }
}

#[cfg(test)]
mod tests;

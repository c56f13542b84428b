//! Webhooks as pure data: registration rules, the event payload, the signature header and the retry schedule.
//! The host performs the HTTP POST and reports the outcome back with [`super::Service::report_delivery`].

use hmac::{Hmac, Mac};
use kuatia_core::lifecycle::EventKind;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Name of the signature header on every delivery.
pub const SIGNATURE_HEADER: &str = "Kuatia-Signature";
/// Seconds after the first attempt at which each retry is due (backoff: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h).
pub const RETRY_SCHEDULE: [i64; 7] = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400];
/// Default tolerance when verifying a signature timestamp, in seconds.
pub const DEFAULT_TOLERANCE: i64 = 300;

/// A registered webhook as returned by the API (`secret` only on creation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    pub previous_secret: Option<String>,
    /// Unix time the previous secret stops signing deliveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    pub fn public_json(&self, now: i64) -> serde_json::Value {
        let grace = self
            .previous_secret_expires_at
            .filter(|t| self.previous_secret.is_some() && now < *t)
            .map(super::rfc3339);
        serde_json::json!({
            "id": self.id,
            "url": self.url,
            "events": self.events,
            "description": self.description,
            "created_at": self.created_at,
            "previous_secret_expires_at": grace,
        })
    }
}

/// The JSON body POSTed to a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// A delivery as the delivery log shows it: what was sent, to where, and how it went (no headers: they carry the
/// signature of one attempt).
pub fn delivery_json(d: &Delivery) -> serde_json::Value {
    let event: serde_json::Value = serde_json::from_str(&d.body).unwrap_or(serde_json::Value::Null);
    serde_json::json!({
        "id": d.id,
        "webhook_id": d.webhook_id,
        "event_id": d.event_id,
        "type": event.get("type"),
        "url": d.url,
        "status": d.status,
        "attempts": d.attempts,
        "created_at": super::rfc3339(d.first_due_at),
        "next_attempt_at": (d.status == "pending").then(|| super::rfc3339(d.next_attempt_at)),
        "payload": event,
        // Times as RFC 3339, like every other time of the API (the stored attempt keeps its Unix time).
        "log": d.log.iter().map(|a| serde_json::json!({
            "at": super::rfc3339(a.at),
            "status": a.status,
            "error": a.error,
            "duration_ms": a.duration_ms,
        })).collect::<Vec<_>>(),
    })
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

/// Whether an address is one a webhook must not reach (SSRF): loopback, private (RFC 1918, IPv6 ULA), link-local,
/// site-local, shared (100.64/10), unspecified, `0/8`, reserved (`240/4`), broadcast, multicast, benchmarking,
/// IETF protocol (`192.0.0/24`) or documentation ranges, and IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4) when
/// the IPv4 address is refused. The
/// registration checks literal addresses with it, and the host checks every address a name resolves to before each
/// delivery (so a name that later points inside is refused too).
pub fn forbidden_ip(ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || a >= 240
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (18..20).contains(&b))
                || (a == 192 && b == 0 && v4.octets()[2] == 0)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_ip(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            let first = seg[0];
            // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address: refused when it is refused.
            let [_, _, _, _, _, _, _, _, _, _, _, _, w, x, y, z] = v6.octets();
            if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return forbidden_ip(IpAddr::V4([w, x, y, z].into()));
            }
            if first == 0x2002 {
                let [_, _, p, q, r, t, ..] = v6.octets();
                return forbidden_ip(IpAddr::V4([p, q, r, t].into()));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first & 0xffc0) == 0xfec0
                || first == 0x2001 && seg[1] == 0x0db8
                || seg[..6] == [0, 0, 0, 0, 0, 0]
        }
    }
}

/// Longest webhook URL accepted, in bytes.
pub const MAX_URL_LEN: usize = 2048;

/// The host of a webhook URL as the WHATWG URL parser reads it (the parser `reqwest` uses to connect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetHost {
    /// An IP literal, in whatever form the URL wrote it (`127.1`, `0x7f000001`, `[::ffff:7f00:1]`…).
    Ip(std::net::IpAddr),
    /// A name (lowercase ASCII, IDNA applied; a trailing dot kept), resolved by the host at delivery.
    Domain(String),
}

impl TargetHost {
    /// Whether this host names this machine or an inside address without resolving it: `localhost` and its
    /// subdomains (RFC 6761 reserves them to loopback, with or without a trailing dot) and the literal addresses
    /// [`forbidden_ip`] refuses. A name that resolves inside is the host's to refuse, at each delivery.
    pub fn forbidden(&self) -> bool {
        match self {
            TargetHost::Ip(ip) => forbidden_ip(*ip),
            TargetHost::Domain(d) => {
                let name = d.trim_end_matches('.').to_ascii_lowercase();
                name == "localhost" || name.ends_with(".localhost")
            }
        }
    }

    /// Whether this host is this machine by name or loopback literal (`localhost`, `127.0.0.0/8`, `::1`).
    pub fn is_loopback(&self) -> bool {
        match self {
            TargetHost::Ip(std::net::IpAddr::V6(v6)) => {
                v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
            }
            TargetHost::Ip(ip) => ip.is_loopback(),
            TargetHost::Domain(d) => d.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
        }
    }
}

/// A webhook URL parsed once by the WHATWG rules (the `url` crate, which `reqwest` itself uses): https, a host, a
/// port, no user name or password. The host POSTs to [`WebhookTarget::url`], so what was checked is what is reached.
#[cfg(feature = "url")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookTarget {
    url: url::Url,
    host: TargetHost,
}

#[cfg(feature = "url")]
impl WebhookTarget {
    /// Parses a webhook URL; every reason it is not a usable https URL is a finding (path `url`).
    pub fn parse(raw: &str) -> Result<WebhookTarget, Vec<kuatia_core::Finding>> {
        use kuatia_core::error::code;
        let bad = |m: String| kuatia_core::Finding::new(code::INVALID_FORMAT, "url", m);
        if raw.len() > MAX_URL_LEN {
            return Err(vec![bad(format!("at most {MAX_URL_LEN} characters"))]);
        }
        let violations = std::cell::RefCell::new(Vec::new());
        let record = |v: url::SyntaxViolation| violations.borrow_mut().push(v.description());
        let parsed = url::Url::options()
            .syntax_violation_callback(Some(&record))
            .parse(raw);
        let url = match parsed {
            Ok(u) => u,
            Err(e) => return Err(vec![bad(format!("not a valid URL: {e}"))]),
        };
        let mut out = Vec::new();
        if url.scheme() != "https" {
            out.push(bad("the webhook URL must use https://".into()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            out.push(bad(
                "a webhook URL may not carry a user name or password".into()
            ));
        }
        // What the parser had to repair (a backslash, a space, an unencoded character) is refused rather than
        // guessed at: the URL must mean one thing to every reader.
        let mut seen = violations.take();
        seen.dedup();
        for v in seen {
            out.push(bad(format!("not a valid URL: {v}")));
        }
        if url.port() == Some(0) {
            out.push(bad("port 0 is not a port to connect to".into()));
        }
        let host = match url.host() {
            Some(url::Host::Ipv4(v4)) => Some(TargetHost::Ip(v4.into())),
            Some(url::Host::Ipv6(v6)) => Some(TargetHost::Ip(v6.into())),
            Some(url::Host::Domain(d)) if !d.is_empty() => Some(TargetHost::Domain(d.to_string())),
            _ => None,
        };
        match host {
            Some(host) if out.is_empty() => Ok(WebhookTarget { url, host }),
            None => {
                out.push(bad("the webhook URL has no host".into()));
                Err(out)
            }
            Some(_) => Err(out),
        }
    }

    /// Parses a webhook URL and, unless `allow_private`, refuses one whose host names this machine or an inside
    /// address ([`TargetHost::forbidden`]) with `WEBHOOK_URL_NOT_ALLOWED`.
    pub fn check(
        raw: &str,
        allow_private: bool,
    ) -> Result<WebhookTarget, Vec<kuatia_core::Finding>> {
        let t = WebhookTarget::parse(raw)?;
        if !allow_private && t.host.forbidden() {
            return Err(vec![not_allowed()]);
        }
        Ok(t)
    }

    /// The parsed URL, to connect to.
    pub fn url(&self) -> &url::Url {
        &self.url
    }

    /// The URL as the parser serializes it (stored and shown as the webhook's `url`).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The parsed host.
    pub fn host(&self) -> &TargetHost {
        &self.host
    }

    /// The same URL over plain `http://` when the host is this machine (a loopback literal or `localhost`): the
    /// only downgrade a test server (`insecure_webhooks_http`) may make.
    pub fn loopback_http(&self) -> Option<url::Url> {
        if !self.host.is_loopback() {
            return None;
        }
        let mut u = self.url.clone();
        // https and http are both special schemes with a host, so the change is accepted; the port is kept.
        let port = u.port_or_known_default();
        u.set_scheme("http").ok()?;
        u.set_port(port).ok()?;
        Some(u)
    }
}

/// The finding of a URL refused by the SSRF rules.
fn not_allowed() -> kuatia_core::Finding {
    kuatia_core::Finding::new(
        kuatia_core::error::code::WEBHOOK_URL_NOT_ALLOWED,
        "url",
        "the webhook URL names this machine or a private, loopback or link-local address",
    )
}

/// Checks a webhook URL without the `url` crate (the browser build, whose sandbox delivers nothing and whose size
/// budget has no room for the WHATWG parser's IDNA tables): only URLs in a plain form the WHATWG parser reads the
/// same way are accepted — lowercase-able ASCII host of letters, digits, `-` and `.` (or a dotted-quad IPv4 or
/// bracketed IPv6 literal), an optional decimal port, no user info, no backslash, no percent-encoding in the host,
/// only RFC 3986 characters after it. Anything else is refused as invalid. Returns the URL to store and its host.
#[cfg(any(not(feature = "url"), test))]
fn check_plain(
    raw: &str,
    allow_private: bool,
) -> Result<(String, TargetHost), Vec<kuatia_core::Finding>> {
    use kuatia_core::error::code;
    let bad = |m: &str| vec![kuatia_core::Finding::new(code::INVALID_FORMAT, "url", m)];
    if raw.len() > MAX_URL_LEN {
        return Err(bad("at most 2048 characters"));
    }
    let Some(rest) = raw.strip_prefix("https://") else {
        return Err(bad("the webhook URL must use https://"));
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let tail_ok = tail
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%#".contains(&b));
    if !tail_ok {
        return Err(bad(
            "not a valid URL: only plain ASCII URL characters are accepted",
        ));
    }
    let (name, port) = match authority.strip_prefix('[') {
        Some(inner) => match inner.split_once(']') {
            Some((v6, "")) => (v6, None),
            Some((v6, rest)) => match rest.strip_prefix(':') {
                Some(p) => (v6, Some(p)),
                None => return Err(bad("not a valid URL: invalid host")),
            },
            None => return Err(bad("not a valid URL: invalid IPv6 address")),
        },
        None => match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        },
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
            match p.parse::<u16>() {
                Ok(0) | Err(_) => return Err(bad("not a valid URL: invalid port number")),
                Ok(443) => None,
                Ok(n) => Some(n),
            }
        }
        Some(_) => return Err(bad("not a valid URL: invalid port number")),
    };
    let host = if authority.starts_with('[') {
        match name.parse::<std::net::Ipv6Addr>() {
            Ok(ip) => TargetHost::Ip(ip.into()),
            Err(_) => return Err(bad("not a valid URL: invalid IPv6 address")),
        }
    } else {
        let lower = name.to_ascii_lowercase();
        let labels_ok = !lower.is_empty()
            && lower
                .strip_suffix('.')
                .unwrap_or(&lower)
                .split('.')
                .all(|l| {
                    !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                });
        if !labels_ok {
            return Err(bad("not a valid URL: invalid host"));
        }
        // The WHATWG parser reads a host whose last label is a number (decimal, 0x…) as an IPv4 address in one
        // of its many forms; only the plain dotted quad is accepted here.
        let last = lower.rsplit('.').next().unwrap_or_default();
        let numeric = last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x");
        match lower.parse::<std::net::Ipv4Addr>() {
            Ok(ip) => TargetHost::Ip(ip.into()),
            Err(_) if numeric => return Err(bad("not a valid URL: invalid IPv4 address")),
            Err(_) => TargetHost::Domain(lower),
        }
    };
    if !allow_private && host.forbidden() {
        return Err(vec![not_allowed()]);
    }
    let shown = match &host {
        TargetHost::Ip(std::net::IpAddr::V6(v6)) => format!("[{v6}]"),
        TargetHost::Ip(v4) => v4.to_string(),
        TargetHost::Domain(d) => d.clone(),
    };
    let port = port.map(|p| format!(":{p}")).unwrap_or_default();
    let tail = if tail.starts_with('/') {
        tail.to_string()
    } else {
        format!("/{tail}")
    };
    Ok((format!("https://{shown}{port}{tail}"), host))
}

/// A checked registration: the URL to store (as the parser serializes it) and the event kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The webhook URL, normalized.
    pub url: String,
    /// The event kinds, without duplicates.
    pub events: Vec<EventKind>,
}

/// Checks a registration body; returns the cleaned fields or every finding. The URL is parsed once
/// ([`WebhookTarget::check`]); unless `allow_private`, a URL naming this machine or an inside address is refused.
pub fn check_registration(
    url: &str,
    events: &[String],
    description: Option<&str>,
    allow_private: bool,
) -> Result<Registration, Vec<kuatia_core::Finding>> {
    use kuatia_core::error::code;
    let mut out = Vec::new();
    #[cfg(feature = "url")]
    let checked = WebhookTarget::check(url, allow_private).map(|t| t.as_str().to_string());
    #[cfg(not(feature = "url"))]
    let checked = check_plain(url, allow_private).map(|(u, _)| u);
    let url = match checked {
        Ok(u) => u,
        Err(fs) => {
            out.extend(fs);
            String::new()
        }
    };
    let mut kinds = Vec::new();
    if events.is_empty() {
        out.push(kuatia_core::Finding::new(
            code::REQUIRED,
            "events",
            "list at least one event kind",
        ));
    }
    for (i, e) in events.iter().enumerate() {
        match EventKind::parse(e) {
            Some(k) if !kinds.contains(&k) => kinds.push(k),
            Some(_) => {}
            None => out.push(kuatia_core::Finding::new(
                code::INVALID_VALUE,
                format!("events[{i}]"),
                format!("'{e}' is not an event kind (factura.approved, factura.rejected, factura.cancelled)"),
            )),
        }
    }
    if let Some(d) = description {
        if d.chars().count() > 500 {
            out.push(kuatia_core::Finding::new(
                code::INVALID_FORMAT,
                "description",
                "at most 500 characters",
            ));
        }
    }
    if out.is_empty() {
        Ok(Registration { url, events: kinds })
    } else {
        Err(out)
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
mod claim_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::auth::Environment;
    use crate::{Config, MemoryStore, Service, Store};

    fn delivery(id: &str, due: i64) -> Delivery {
        Delivery {
            id: id.into(),
            account_id: "acct".into(),
            environment: Environment::Sandbox,
            webhook_id: "wh_1".into(),
            url: "https://example.com/hook".into(),
            event_id: format!("evt_{id}"),
            headers: Vec::new(),
            body: "{}".into(),
            attempts: 0,
            next_attempt_at: due,
            first_due_at: due,
            status: "pending".into(),
            log: Vec::new(),
        }
    }

    #[test]
    fn a_claimed_delivery_is_leased_and_the_others_stay_due() {
        let mut svc = Service::new(MemoryStore::default(), Config::default());
        svc.store.insert_webhook(
            "acct",
            Environment::Sandbox,
            Webhook {
                id: "wh_1".into(),
                url: "https://example.com/hook".into(),
                events: vec![EventKind::FacturaApproved],
                description: None,
                created_at: "2025-01-01T00:00:00Z".into(),
                secret: Some("whsec_x".into()),
                previous_secret: None,
                previous_secret_expires_at: None,
            },
        );
        svc.store.put_delivery(delivery("dlv_a", 100));
        svc.store.put_delivery(delivery("dlv_b", 100));
        let taken = svc.claim_deliveries(200, 30, |d| d.id == "dlv_a");
        assert_eq!(taken.len(), 1);
        assert!(!taken[0].headers.is_empty(), "handed out signed");
        // Leased: not due again until the lease ends; the one not taken is still due.
        let due: Vec<String> = svc.due_deliveries(200).into_iter().map(|d| d.id).collect();
        assert_eq!(due, vec!["dlv_b".to_string()]);
        assert_eq!(svc.store.delivery("dlv_a").unwrap().next_attempt_at, 230);
        assert!(svc.store.delivery("dlv_a").unwrap().headers.is_empty());
        // A worker that never reports: after the lease, the same delivery (same event id) is due again.
        let again = svc.claim_deliveries(230, 30, |_| true);
        assert!(again
            .iter()
            .any(|d| d.id == "dlv_a" && d.event_id == "evt_dlv_a"));
        // A report after the lease counts from the first due time, as always.
        let d = svc
            .report_attempt(
                "dlv_a",
                Attempt {
                    at: 231,
                    status: Some(500),
                    error: Some("http_status".into()),
                    duration_ms: 1,
                },
            )
            .unwrap();
        assert_eq!(d.next_attempt_at, 100 + RETRY_SCHEDULE[0]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Environment;

    fn delivery(first_due_at: i64) -> Delivery {
        Delivery {
            id: "dlv_1".into(),
            account_id: "acct_1".into(),
            environment: Environment::Sandbox,
            webhook_id: "wh_1".into(),
            url: "https://example.com/hook".into(),
            event_id: "evt_1".into(),
            headers: Vec::new(),
            body: "{}".into(),
            attempts: 0,
            next_attempt_at: first_due_at,
            first_due_at,
            status: "pending".into(),
            log: Vec::new(),
        }
    }

    #[test]
    fn a_clock_stepping_back_never_holds_a_delivery() {
        // New: due at once, whatever the clock says.
        let mut d = delivery(10_000);
        assert!(is_due(&d, 10_000));
        assert!(is_due(&d, 10_000 - 3600));
        // One failed attempt at 10 000, retry at +60 s: not due before, due after.
        d.attempts = 1;
        d.next_attempt_at = 10_060;
        d.log.push(Attempt {
            at: 10_000,
            status: None,
            error: Some("connect".into()),
            duration_ms: 1,
        });
        assert!(!is_due(&d, 10_030));
        assert!(is_due(&d, 10_060));
        // The clock stepped back an hour: due once (the wait started at a time not reached yet) ...
        assert!(is_due(&d, 10_000 - 3600));
        // ... and once that attempt is logged, the back-off counts again.
        d.log.push(Attempt {
            at: 10_000 - 3600,
            status: None,
            error: Some("connect".into()),
            duration_ms: 1,
        });
        d.next_attempt_at = 10_300;
        assert!(!is_due(&d, 10_000 - 3590));
    }
}

#[cfg(all(test, feature = "url"))]
mod url_tests {
    #![allow(clippy::unwrap_used)]
    use super::{check_plain, check_registration, TargetHost, WebhookTarget};
    use kuatia_core::error::code;

    const NOT_ALLOWED: &str = code::WEBHOOK_URL_NOT_ALLOWED;
    const INVALID: &str = code::INVALID_FORMAT;

    /// Every way of writing an inside address the old hand splitter let through (issue 34), the classic SSRF lists,
    /// and what each must be refused as.
    fn refused() -> Vec<(String, &'static str)> {
        let mut t: Vec<(String, &str)> = [
            // The bypasses.
            ("https://127.0.0.1%2e:8443/", NOT_ALLOWED),
            ("https://%31%32%37.0.0.1:8443/", NOT_ALLOWED),
            (
                "https://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}:8443/",
                NOT_ALLOWED,
            ),
            ("https://127.0.0.1:8443\\@93.184.215.14/", INVALID),
            ("https://127.1/", NOT_ALLOWED),
            ("https://2130706433/", NOT_ALLOWED),
            ("https://0x7f000001/", NOT_ALLOWED),
            ("https://0/", NOT_ALLOWED),
            // Numeric forms.
            ("https://0177.0.0.1/", NOT_ALLOWED),
            ("https://0x7f.0.0.1/", NOT_ALLOWED),
            ("https://0x7f.1/", NOT_ALLOWED),
            ("https://127.000.000.001/", NOT_ALLOWED),
            ("https://017700000001/", NOT_ALLOWED),
            ("https://127.0.0.1./", NOT_ALLOWED),
            ("https://0.0.0.0/", NOT_ALLOWED),
            ("https://255.255.255.255/", NOT_ALLOWED),
            ("https://224.0.0.1/", NOT_ALLOWED),
            ("https://240.0.0.1/", NOT_ALLOWED),
            // IPv6 and IPv4 inside IPv6.
            ("https://[::1]/", NOT_ALLOWED),
            ("https://[0:0:0:0:0:0:0:1]:8443/", NOT_ALLOWED),
            ("https://[::]/", NOT_ALLOWED),
            ("https://[::ffff:127.0.0.1]/", NOT_ALLOWED),
            ("https://[::ffff:7f00:1]/", NOT_ALLOWED),
            ("https://[::ffff:a9fe:a9fe]/", NOT_ALLOWED),
            ("https://[::127.0.0.1]/", NOT_ALLOWED),
            ("https://[64:ff9b::7f00:1]/", NOT_ALLOWED),
            ("https://[2002:7f00:1::]/", NOT_ALLOWED),
            ("https://[fd00::1]/", NOT_ALLOWED),
            ("https://[fe80::1]/", NOT_ALLOWED),
            ("https://[fec0::1]/", NOT_ALLOWED),
            ("https://[ff02::1]/", NOT_ALLOWED),
            // Private, link-local, shared ranges.
            ("https://10.0.0.1/", NOT_ALLOWED),
            ("https://10.255.255.254:8443/hook", NOT_ALLOWED),
            ("https://172.16.0.1/", NOT_ALLOWED),
            ("https://172.31.255.255/", NOT_ALLOWED),
            ("https://192.168.1.10/", NOT_ALLOWED),
            ("https://169.254.169.254/latest/meta-data/", NOT_ALLOWED),
            ("https://100.64.0.1/", NOT_ALLOWED),
            ("https://100.127.255.254/", NOT_ALLOWED),
            // Names.
            ("https://localhost/", NOT_ALLOWED),
            ("https://localhost./", NOT_ALLOWED),
            ("https://localhost../", NOT_ALLOWED),
            ("https://LOCALHOST/", NOT_ALLOWED),
            ("https://sub.localhost/", NOT_ALLOWED),
            ("https://Sub.LocalHost.:8443/", NOT_ALLOWED),
            ("https://%6c%6f%63%61%6c%68%6f%73%74/", NOT_ALLOWED),
            (
                "https://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
                NOT_ALLOWED,
            ),
            // `@`, `\`, `#`, `?` tricks: the host is what the WHATWG parser says, and user info is refused.
            ("https://93.184.215.14@127.0.0.1/", INVALID),
            ("https://127.0.0.1:8443@93.184.215.14/", INVALID),
            ("https://user:pass@example.com/", INVALID),
            ("https://user@example.com/", INVALID),
            ("https://127.0.0.1#@93.184.215.14/", NOT_ALLOWED),
            ("https://127.0.0.1?@93.184.215.14/", NOT_ALLOWED),
            ("https:\\\\127.0.0.1/", INVALID),
            ("https:/127.0.0.1/", INVALID),
            ("https:127.0.0.1/", INVALID),
            (" https://127.0.0.1/", INVALID),
            ("https://127.0.0.1\t/", INVALID),
            // Not valid URLs at all.
            ("https://example.com:99999/", INVALID),
            ("https://example.com:0/", INVALID),
            ("https://exa mple.com/", INVALID),
            ("https://example.com/a b", INVALID),
            ("https://\"><script>alert(1)</script>", INVALID),
            ("https://example.com/\"><script>", INVALID),
            ("https://999.0.0.1/", INVALID),
            ("https://[::1/", INVALID),
            ("http://example.com/", INVALID),
            ("ftp://example.com/", INVALID),
            ("javascript:alert(1)", INVALID),
            ("https://", INVALID),
            ("https:///x", INVALID),
            ("", INVALID),
            ("not a url", INVALID),
        ]
        .into_iter()
        .map(|(u, c)| (u.to_string(), c))
        .collect();
        t.push((format!("https://example.com/{}", "a".repeat(2048)), INVALID));
        t
    }

    /// Public https URLs, and how they are stored.
    const ACCEPTED: [(&str, &str); 7] = [
        (
            "https://erp.example.com/hook",
            "https://erp.example.com/hook",
        ),
        ("https://ERP.Example.com", "https://erp.example.com/"),
        ("https://93.184.215.14/hook", "https://93.184.215.14/hook"),
        (
            "https://api.example.com:8443/k?x=1#f",
            "https://api.example.com:8443/k?x=1#f",
        ),
        ("https://api.example.com:443/k", "https://api.example.com/k"),
        (
            "https://[2606:2800:220:1:248:1893:25c8:1946]/x",
            "https://[2606:2800:220:1:248:1893:25c8:1946]/x",
        ),
        (
            "https://xn--andut-3saw.example/h",
            "https://xn--andut-3saw.example/h",
        ),
    ];

    #[test]
    fn registration_refuses_every_inside_or_invalid_url() {
        let events = vec!["factura.approved".to_string()];
        let mut wrong = Vec::new();
        for (url, want) in refused() {
            match check_registration(&url, &events, None, false) {
                Ok(r) => wrong.push(format!("{url:?}: accepted as {}", r.url)),
                Err(fs) => {
                    if fs.iter().any(|f| f.path != "url") {
                        wrong.push(format!("{url:?}: a finding off the url: {fs:?}"));
                    }
                    if !fs.iter().any(|f| f.code == want) {
                        wrong.push(format!("{url:?}: want {want}, got {fs:?}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn registration_accepts_public_urls_as_the_parser_writes_them() {
        let events = vec!["factura.approved".to_string()];
        for (url, stored) in ACCEPTED {
            let r = check_registration(url, &events, None, false)
                .unwrap_or_else(|fs| panic!("{url}: {fs:?}"));
            assert_eq!(r.url, stored, "{url}");
        }
        // IDNA: a Unicode name is stored in its ASCII form, the one resolved.
        let r = check_registration("https://\u{f1}andut\u{ed}.example/h", &events, None, false)
            .unwrap();
        assert_eq!(r.url, "https://xn--andut-3saw.example/h");
        // A public name with a trailing dot is a public name.
        assert!(check_registration("https://example.com./h", &events, None, false).is_ok());
    }

    #[test]
    fn the_operator_may_allow_inside_addresses_but_never_invalid_urls() {
        let events = vec!["factura.approved".to_string()];
        for (url, want) in refused() {
            let r = check_registration(&url, &events, None, true);
            match want {
                NOT_ALLOWED => assert!(r.is_ok(), "{url:?}: {r:?}"),
                _ => assert!(r.is_err(), "{url:?}: {r:?}"),
            }
        }
    }

    #[test]
    fn all_findings_come_at_once() {
        let e = check_registration(
            "http://u@x.example/",
            &["nope".into()],
            Some(&"d".repeat(501)),
            false,
        )
        .err()
        .unwrap();
        let paths: Vec<&str> = e.iter().map(|f| f.path.as_str()).collect();
        assert!(
            paths.contains(&"url")
                && paths.contains(&"events[0]")
                && paths.contains(&"description"),
            "{e:?}"
        );
        assert!(e.iter().filter(|f| f.path == "url").count() >= 2, "{e:?}");
    }

    #[test]
    fn the_parsed_host_is_the_one_connected_to() {
        let t = WebhookTarget::parse("https://127.0.0.1%2e:8443/").unwrap();
        assert_eq!(t.host(), &TargetHost::Ip([127, 0, 0, 1].into()));
        assert_eq!(t.url().port(), Some(8443));
        let t = WebhookTarget::parse("https://Example.COM./x").unwrap();
        assert_eq!(t.host(), &TargetHost::Domain("example.com.".into()));
        assert!(!t.host().forbidden());
    }

    /// The browser build's plain check accepts a subset of what the WHATWG parser accepts, reading the same host and
    /// port, and refuses everything in the table too.
    #[test]
    fn the_plain_check_of_the_browser_build_agrees_with_the_parser() {
        for (url, want) in refused() {
            assert!(check_plain(&url, false).is_err(), "{url:?}");
            if let Ok((stored, host)) = check_plain(&url, true) {
                assert_eq!(want, NOT_ALLOWED, "{url:?}");
                let t = WebhookTarget::parse(&url).unwrap();
                assert_eq!(t.host(), &host, "{url:?}");
                assert_eq!(
                    WebhookTarget::parse(&stored).unwrap().url().port(),
                    t.url().port(),
                    "{url:?}"
                );
            }
        }
        for (url, stored) in ACCEPTED {
            let (s, host) = check_plain(url, false).unwrap_or_else(|e| panic!("{url}: {e:?}"));
            assert_eq!(s, stored, "{url}");
            assert_eq!(WebhookTarget::parse(url).unwrap().host(), &host, "{url}");
        }
    }
}

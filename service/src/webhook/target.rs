//! Where a webhook may point: the URL policy of a registration (https only, no credentials, no private, loopback or
//! link-local address, a length bound) and [`WebhookTarget`], the parsed URL the host connects to.

use super::*;

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
        use kuatia_core::rule;
        let bad = |detail: &str| rule::webhook_url_invalid("url", detail);
        if raw.len() > MAX_URL_LEN {
            return Err(vec![rule::webhook_url_too_long("url", MAX_URL_LEN)]);
        }
        let violations = std::cell::RefCell::new(Vec::new());
        let record = |v: url::SyntaxViolation| violations.borrow_mut().push(v.description());
        let parsed = url::Url::options()
            .syntax_violation_callback(Some(&record))
            .parse(raw);
        let url = match parsed {
            Ok(u) => u,
            Err(e) => return Err(vec![bad(&e.to_string())]),
        };
        let mut out = Vec::new();
        if url.scheme() != "https" {
            out.push(rule::webhook_url_https("url"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            out.push(rule::webhook_url_credentials("url"));
        }
        // What the parser had to repair (a backslash, a space, an unencoded character) is refused rather than
        // guessed at: the URL must mean one thing to every reader.
        let mut seen = violations.take();
        seen.dedup();
        for v in seen {
            out.push(bad(v));
        }
        if url.port() == Some(0) {
            out.push(rule::webhook_url_port_zero("url"));
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
                out.push(rule::webhook_url_no_host("url"));
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
    kuatia_core::rule::webhook_url_not_allowed("url")
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
    use kuatia_core::rule;
    let bad = |detail: &str| vec![rule::webhook_url_invalid("url", detail)];
    if raw.len() > MAX_URL_LEN {
        return Err(vec![rule::webhook_url_too_long("url", MAX_URL_LEN)]);
    }
    let Some(rest) = raw.strip_prefix("https://") else {
        return Err(vec![rule::webhook_url_https("url")]);
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
                None => return Err(bad("invalid host")),
            },
            None => return Err(bad("invalid IPv6 address")),
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
                Ok(0) | Err(_) => return Err(bad("invalid port number")),
                Ok(443) => None,
                Ok(n) => Some(n),
            }
        }
        Some(_) => return Err(bad("invalid port number")),
    };
    let host = if authority.starts_with('[') {
        match name.parse::<std::net::Ipv6Addr>() {
            Ok(ip) => TargetHost::Ip(ip.into()),
            Err(_) => return Err(bad("invalid IPv6 address")),
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
            return Err(bad("invalid host"));
        }
        // The WHATWG parser reads a host whose last label is a number (decimal, 0x…) as an IPv4 address in one
        // of its many forms; only the plain dotted quad is accepted here.
        let last = lower.rsplit('.').next().unwrap_or_default();
        let numeric = last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x");
        match lower.parse::<std::net::Ipv4Addr>() {
            Ok(ip) => TargetHost::Ip(ip.into()),
            Err(_) if numeric => return Err(bad("invalid IPv4 address")),
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

/// The event kinds a webhook may ask for: what [`check_registration`] accepts, in the order forms list them (the
/// panel's webhook form offers exactly these).
pub const EVENT_KINDS: &[EventKind] = &EventKind::ALL;

/// [`EVENT_KINDS`] as the refusal of an unknown kind lists them.
const KINDS_TEXT: &str =
    "factura.approved, factura.rejected, factura.cancelled, factura.emailed, factura.email_failed";

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
        out.push(kuatia_core::rule::webhook_events_empty("events"));
    }
    for (i, e) in events.iter().enumerate() {
        match EVENT_KINDS.iter().copied().find(|k| k.as_str() == e) {
            Some(k) if !kinds.contains(&k) => kinds.push(k),
            Some(_) => {}
            // A literal (no list built at run time: the browser build's size); a test checks it names each kind.
            None => out.push(kuatia_core::rule::webhook_events_unknown(
                format!("events[{i}]"),
                e,
                KINDS_TEXT,
            )),
        }
    }
    if let Some(d) = description {
        if d.chars().count() > 500 {
            out.push(kuatia_core::rule::webhook_description_too_long(
                "description",
                500,
            ));
        }
    }
    if out.is_empty() {
        Ok(Registration { url, events: kinds })
    } else {
        Err(out)
    }
}

#[cfg(all(test, feature = "url"))]
mod tests;

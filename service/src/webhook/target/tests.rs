//! The URL policy against the WHATWG parser and the plain form.
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
    let r =
        check_registration("https://\u{f1}andut\u{ed}.example/h", &events, None, false).unwrap();
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
        paths.contains(&"url") && paths.contains(&"events[0]") && paths.contains(&"description"),
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

/// The one list of event kinds: every kind of the core, accepted by the registration, named by its refusal.
#[test]
fn every_event_kind_is_offered_accepted_and_named() {
    use super::{EVENT_KINDS, KINDS_TEXT};
    assert_eq!(EVENT_KINDS, kuatia_core::lifecycle::EventKind::ALL);
    let names: Vec<&str> = EVENT_KINDS.iter().map(|k| k.as_str()).collect();
    assert_eq!(KINDS_TEXT, names.join(", "));
    let all: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let r = check_registration("https://example.com/h", &all, None, false).unwrap();
    assert_eq!(r.events, EVENT_KINDS);
}

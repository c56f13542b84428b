//! The wire snapshot (service/tests/api_golden.rs) with the account panel in front of the service, as `kuatia serve`
//! runs them: the panel's own cases (`tests/fixtures/api/panel_*.json`: sign-in, redirects, session pages, CSRF) and
//! every `/v1` case, which the panel passes to the service untouched, byte for byte as committed. (The included
//! file's own test, the service alone, runs here too.) After an intended change of a panel page,
//! `KUATIA_BLESS=1 cargo test -p kuatia-panel --test golden` rewrites the `panel_*` fixtures; review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../service/tests/api_golden.rs"]
mod api_golden;

use api_golden::Recorder;
use kuatia_panel::Panel;
use kuatia_service::HttpRequest;

#[test]
fn the_panel_and_the_service_behind_it_answer_as_committed() {
    let record = || {
        let panel = Panel::new();
        api_golden::record_with(
            Box::new(move |svc, req, host| panel.handle(svc, req, None, host)),
            panel_cases,
        )
    };
    let cases = record();
    assert_eq!(cases, record(), "two runs of the scenario differ");
    if std::env::var_os("KUATIA_BLESS").is_some() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/api");
        for (case, text) in cases.iter().filter(|(c, _)| c.starts_with("panel_")) {
            std::fs::write(dir.join(format!("{case}.json")), text).unwrap();
        }
        return;
    }
    let produced: Vec<String> = cases.keys().cloned().collect();
    assert!(produced.iter().any(|c| c.starts_with("panel_")));
    assert_eq!(
        api_golden::committed_cases(),
        produced,
        "the fixture files differ from the scenario's cases"
    );
    let drifted = api_golden::drifted(&cases);
    assert!(
        drifted.is_empty(),
        "answers differ from tests/fixtures/api/ for {drifted:?}"
    );
}

/// The panel's sign-in, redirects and session pages.
fn panel_cases(r: &mut Recorder, account: &str) {
    r.send("panel_sign_in_page", "GET", "/panel", &[], b"");
    r.send(
        "panel_no_session_redirect",
        "GET",
        "/panel/facturas",
        &[],
        b"",
    );
    r.send("panel_put_405", "PUT", "/panel", &[], b"");
    r.send(
        "panel_post_no_session_403",
        "POST",
        "/panel/salir",
        &[],
        b"",
    );
    let link = kuatia_panel::login_link(&mut r.svc, account, &mut r.host).unwrap();
    let token = link.split("token=").nth(1).unwrap().to_string();
    r.send(
        "panel_link_page",
        "GET",
        &format!("/panel/entrar?token={token}"),
        &[],
        b"",
    );
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let (status, _, headers) = r.send(
        "panel_link_sign_in",
        "POST",
        "/panel/entrar",
        &form,
        format!("token={token}").as_bytes(),
    );
    assert_eq!(status, 303);
    let set = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Set-Cookie"))
        .unwrap();
    let cookie = set.1.split(';').next().unwrap().to_string();
    let with_cookie = [("Cookie", cookie.as_str())];
    r.send("panel_readiness", "GET", "/panel", &with_cookie, b"");
    r.send(
        "panel_facturas",
        "GET",
        "/panel/facturas",
        &with_cookie,
        b"",
    );
    r.send(
        "panel_webhooks",
        "GET",
        "/panel/webhooks?entorno=sandbox",
        &with_cookie,
        b"",
    );
    r.send(
        "panel_unknown_page",
        "GET",
        "/panel/nope",
        &with_cookie,
        b"",
    );
    let page = Panel::new().handle(
        &mut r.svc,
        &HttpRequest {
            method: "GET".into(),
            path: "/panel".into(),
            headers: vec![("Cookie".into(), cookie.clone())],
            body: vec![],
        },
        None,
        &mut r.host,
    );
    let page = String::from_utf8(page.body).unwrap();
    let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
    let csrf = page[at..].split('"').next().unwrap().to_string();
    let posted = [
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    r.send(
        "panel_post_bad_csrf_403",
        "POST",
        "/panel/ruc-habilitado",
        &posted,
        b"csrf=nope&habilitado=si",
    );
    r.send(
        "panel_ruc_enabled_redirect",
        "POST",
        "/panel/ruc-habilitado",
        &posted,
        format!("csrf={csrf}&habilitado=si").as_bytes(),
    );
    r.send(
        "panel_sign_out_redirect",
        "POST",
        "/panel/salir",
        &posted,
        format!("csrf={csrf}").as_bytes(),
    );
}

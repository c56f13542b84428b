//! The account panel in-process (the HTTP face is server/tests/panel.rs): the certificate page's expiry warning and
//! the refusal of an expired certificate, with the test clock moved to the test certificate's last days; sign-in
//! throttling by client address that no outsider can turn against an account (issue 34).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../service/tests/common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::profile::{Ambiente, Emisor};
use kuatia_panel::Panel;
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service};

/// A host's service with the panel in front of it, as `kuatia serve` runs them.
struct Site {
    svc: Service<MemoryStore>,
    panel: Panel,
}

impl Site {
    /// A request from no particular client (one source).
    fn handle(&mut self, req: &HttpRequest, host: &mut TestHost) -> HttpResponse {
        self.panel.handle(&mut self.svc, req, None, host)
    }
}

const P12: &[u8] = include_bytes!("../../tests/fixtures/certs/sandbox.p12");

fn request(method: &str, path: &str, cookie: &str, body: Vec<u8>, ct: &str) -> HttpRequest {
    HttpRequest {
        method: method.into(),
        path: path.into(),
        headers: vec![
            ("Cookie".into(), cookie.into()),
            ("Content-Type".into(), ct.into()),
        ],
        body,
    }
}

fn text(r: &HttpResponse) -> String {
    String::from_utf8(r.body.clone()).unwrap()
}

/// A service with one account (production profile of the test certificate's RUC) and a signed-in session at `at`.
fn signed_in(at: time::OffsetDateTime) -> (Site, TestHost, String, String) {
    let mut host = TestHost::new();
    host.now = at;
    let mut svc = Site {
        svc: Service::new(
            MemoryStore::default(),
            Config {
                base_url: "https://panel.example.test".into(),
                ..Config::default()
            },
        ),
        panel: Panel::new(),
    };
    let (account, _) = svc.svc.create_account("Estudio", &mut host);
    let mut profile = Emisor::sandbox();
    profile.ambiente = Ambiente::Produccion;
    let mut a = kuatia_service::Store::account(&svc.svc.store, &account.id).unwrap();
    a.production = Some(profile);
    kuatia_service::Store::put_account(&mut svc.svc.store, a);
    let link = kuatia_panel::login_link(&mut svc.svc, &account.id, &mut host).unwrap();
    let token = link.split("token=").nth(1).unwrap();
    let r = svc.handle(
        &request(
            "POST",
            "/panel/entrar",
            "",
            format!("token={token}").into_bytes(),
            "application/x-www-form-urlencoded",
        ),
        &mut host,
    );
    assert_eq!(r.status, 303);
    let set = r.header("Set-Cookie").unwrap();
    // Served over https: the cookie is Secure.
    assert!(
        set.contains("; Secure") && set.contains("HttpOnly") && set.contains("SameSite=Strict")
    );
    let cookie = set.split(';').next().unwrap().to_string();
    let page = text(&svc.handle(&request("GET", "/panel", &cookie, vec![], ""), &mut host));
    let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
    let csrf = page[at..].split('"').next().unwrap().to_string();
    (svc, host, cookie, csrf)
}

fn upload(svc: &mut Site, host: &mut TestHost, cookie: &str, csrf: &str) -> HttpResponse {
    let mut body = format!(
        "--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n--b\r\nContent-Disposition: form-data; name=\"contrasena\"\r\n\r\nkuatia-test\r\n--b\r\nContent-Disposition: form-data; name=\"p12\"; filename=\"c.p12\"\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(P12);
    body.extend_from_slice(b"\r\n--b--\r\n");
    svc.handle(
        &request(
            "POST",
            "/panel/certificado",
            cookie,
            body,
            "multipart/form-data; boundary=b",
        ),
        host,
    )
}

#[test]
fn certificate_page_warns_from_30_days_before_expiry() {
    // The test certificate is valid until 2054-01-01T00:00:00Z.
    let (mut svc, mut host, cookie, csrf) =
        signed_in(time::macros::datetime!(2053-12-10 12:00 UTC));
    let page = text(&svc.handle(
        &request("GET", "/panel/certificado", &cookie, vec![], ""),
        &mut host,
    ));
    // TestHost signs production with the test certificate: 21 days left.
    assert!(page.contains("data-days=\"21\""), "{page}");
    assert!(page.contains("vence en 21 días"), "{page}");
    // The host keeps no certificates: an accepted upload still says so, in Spanish, and nothing is claimed stored.
    let r = upload(&mut svc, &mut host, &cookie, &csrf);
    assert_eq!(r.status, 422);
    assert!(text(&r).contains("No se guardó el certificado"));

    let (mut svc, mut host, cookie, _) = signed_in(time::macros::datetime!(2053-11-01 12:00 UTC));
    let page = text(&svc.handle(
        &request("GET", "/panel/certificado", &cookie, vec![], ""),
        &mut host,
    ));
    assert!(!page.contains("vence en"), "{page}");
}

#[test]
fn an_expired_certificate_is_refused() {
    let (mut svc, mut host, cookie, csrf) =
        signed_in(time::macros::datetime!(2054-02-01 12:00 UTC));
    let r = upload(&mut svc, &mut host, &cookie, &csrf);
    assert_eq!(r.status, 422);
    let page = text(&r);
    assert!(page.contains("El certificado está vencido"), "{page}");
    assert!(page.contains("CERTIFICATE_EXPIRED"), "{page}");
    // The CSRF token is checked before anything else.
    let r = svc.handle(
        &request(
            "POST",
            "/panel/certificado",
            &cookie,
            b"--b--\r\n".to_vec(),
            "multipart/form-data; boundary=b",
        ),
        &mut host,
    );
    assert_eq!(r.status, 403);
}

/// A form POST under `/panel` from a client address.
fn post_from(
    svc: &mut Site,
    host: &mut TestHost,
    client: &str,
    path: &str,
    body: String,
) -> HttpResponse {
    let req = request(
        "POST",
        path,
        "",
        body.into_bytes(),
        "application/x-www-form-urlencoded",
    );
    match svc
        .panel
        .handle_step(&mut svc.svc, &req, Some(client.parse().unwrap()), host)
    {
        kuatia_service::Step::Done(r) => r,
        kuatia_service::Step::Sign(_) => panic!("a panel request is never a create"),
    }
}

/// Issue 34: an outsider's failures (bogus links, wrong passwords, no authentication) from one address refuse that
/// address, never another's valid link or correct password.
#[test]
fn nobody_locks_someone_else_out() {
    let (mut svc, mut host, cookie, csrf) = signed_in(time::OffsetDateTime::now_utc());
    let (a, b) = ("198.51.100.7", "203.0.113.9");
    // The account's password, set in its session.
    let r = svc.handle(
        &request(
            "POST",
            "/panel/contrasena",
            &cookie,
            format!("nueva=contrasena-larga&repetir=contrasena-larga&csrf={csrf}").into_bytes(),
            "application/x-www-form-urlencoded",
        ),
        &mut host,
    );
    assert!(text(&r).contains("Contraseña guardada"), "{}", text(&r));
    let account = kuatia_service::Store::accounts(&svc.svc.store)[0]
        .id
        .clone();

    // 20 bogus links from A: A is refused, with a page that tells the truth.
    for i in 0..20 {
        let r = post_from(
            &mut svc,
            &mut host,
            a,
            "/panel/entrar",
            format!("token=bogus{i}"),
        );
        assert_eq!(r.status, 401);
    }
    let refused = post_from(
        &mut svc,
        &mut host,
        a,
        "/panel/entrar",
        "token=bogus".into(),
    );
    assert_eq!(refused.status, 429);
    assert!(text(&refused).contains("enlace de ingreso válido funciona siempre"));
    let retry: i64 = refused.header("Retry-After").unwrap().parse().unwrap();
    assert!(retry > 0 && retry <= kuatia_panel::THROTTLE_WINDOW);
    // B's valid link works, and so would a valid link presented by A.
    for client in [b, a] {
        let link = kuatia_panel::login_link(&mut svc.svc, &account, &mut host).unwrap();
        let token = link.split("token=").nth(1).unwrap();
        let r = post_from(
            &mut svc,
            &mut host,
            client,
            "/panel/entrar",
            format!("token={token}"),
        );
        assert_eq!(r.status, 303, "{client}: {}", text(&r));
    }

    // Wrong passwords from C (a fresh source): C is refused after 5, even with the right password; B signs in.
    let c = "192.0.2.33";
    let wrong = format!("cuenta={account}&contrasena=adivinanza");
    let right = format!("cuenta={account}&contrasena=contrasena-larga");
    for _ in 0..5 {
        let r = post_from(&mut svc, &mut host, c, "/panel/ingresar", wrong.clone());
        assert_eq!(r.status, 401);
    }
    assert_eq!(
        post_from(&mut svc, &mut host, c, "/panel/ingresar", right.clone()).status,
        429
    );
    assert_eq!(
        post_from(&mut svc, &mut host, b, "/panel/ingresar", right.clone()).status,
        303
    );

    // Many sources guessing (the account is under attack): each new source gets fewer guesses, B still signs in.
    for n in 0..20u8 {
        let src = format!("192.0.2.{}", 100 + n);
        for _ in 0..2 {
            let r = post_from(&mut svc, &mut host, &src, "/panel/ingresar", wrong.clone());
            assert_eq!(r.status, 401);
        }
    }
    let late = post_from(
        &mut svc,
        &mut host,
        "192.0.2.200",
        "/panel/ingresar",
        wrong.clone(),
    );
    assert_eq!(late.status, 401);
    let late = post_from(
        &mut svc,
        &mut host,
        "192.0.2.200",
        "/panel/ingresar",
        wrong.clone(),
    );
    assert_eq!(late.status, 401);
    let late = post_from(
        &mut svc,
        &mut host,
        "192.0.2.200",
        "/panel/ingresar",
        wrong.clone(),
    );
    assert_eq!(
        late.status, 429,
        "2 guesses per source while the account is under attack"
    );
    assert_eq!(
        post_from(&mut svc, &mut host, b, "/panel/ingresar", right).status,
        303
    );
}

/// The invoice pages over the service's invoices: a sandbox invoice issued through the API (the panel passes `/v1`
/// on) shows in the list and on its page with the receiver as issued; once approved its KuDE and signed XML
/// download as attachments; a KuDE not yet available is a page with the service's reason, an unknown id a 404.
#[test]
fn invoice_pages_show_the_document_and_download_it() {
    let (mut svc, mut host, cookie, _) = signed_in(time::OffsetDateTime::now_utc());
    let account = kuatia_service::Store::accounts(&svc.svc.store)[0]
        .id
        .clone();
    let key = svc
        .svc
        .create_key(
            &account,
            kuatia_service::auth::Environment::Sandbox,
            &mut host,
        )
        .unwrap();
    let body = serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    let created = svc.handle(
        &HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {key}")),
                ("X-Environment".into(), "sandbox".into()),
                ("Content-Type".into(), "application/json".into()),
            ],
            body: body.to_string().into_bytes(),
        },
        &mut host,
    );
    assert_eq!(created.status, 201, "{}", text(&created));
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let get = |svc: &mut Site, host: &mut TestHost, path: &str| {
        svc.handle(&request("GET", path, &cookie, vec![], ""), host)
    };

    // Pending: no KuDE yet, and the page says why with the service's status.
    let kude = format!("/panel/facturas/{id}/kude?entorno=sandbox");
    let r = get(&mut svc, &mut host, &kude);
    assert_eq!(r.status, 409);
    assert!(text(&r).contains("No disponible"), "{}", text(&r));

    host.advance(10);
    let list = text(&get(&mut svc, &mut host, "/panel/facturas?entorno=sandbox"));
    assert!(
        list.contains(&format!("/panel/facturas/{id}?entorno=sandbox")),
        "{list}"
    );
    assert!(
        list.contains("Cliente Ejemplo S.A.") && list.contains("1.100.000 PYG"),
        "{list}"
    );
    let page = text(&get(
        &mut svc,
        &mut host,
        &format!("/panel/facturas/{id}?entorno=sandbox"),
    ));
    assert!(page.contains("Aprobada"), "{page}");
    assert!(
        page.contains("Cliente Ejemplo S.A. (RUC 80069563-1)"),
        "{page}"
    );
    assert!(
        page.contains("Descargar KuDE (PDF)") && page.contains("Descargar XML firmado"),
        "{page}"
    );

    let r = get(&mut svc, &mut host, &kude);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("application/pdf"));
    assert!(r
        .header("Content-Disposition")
        .unwrap()
        .starts_with("attachment; filename=\""));
    assert!(r.body.starts_with(b"%PDF-"));
    let r = get(
        &mut svc,
        &mut host,
        &format!("/panel/facturas/{id}/xml?entorno=sandbox"),
    );
    assert_eq!(r.status, 200);
    assert!(r
        .header("Content-Disposition")
        .unwrap()
        .starts_with("attachment; filename=\""));
    assert!(text(&r).contains("<rDE"));

    // The month's archive for the accountant: the invoices page offers it; it is the service's zip, which verifies.
    assert!(list.contains("Descargar archivo del mes"), "{list}");
    let local = host.now - time::Duration::hours(3);
    let month = format!("{:04}-{:02}", local.year(), u8::from(local.month()));
    let r = get(
        &mut svc,
        &mut host,
        &format!("/panel/archivo?entorno=sandbox&mes={month}"),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.header("Content-Type"), Some("application/zip"));
    let check =
        kuatia_service::archive::check::check_archive(std::io::Cursor::new(r.body.clone()), None);
    assert!(check.valid && check.signatures == 1, "{check:?}");
    let r = get(
        &mut svc,
        &mut host,
        "/panel/archivo?entorno=sandbox&mes=2026-13",
    );
    assert_ne!(r.status, 200);
    assert!(text(&r).contains("AAAA-MM"), "{}", text(&r));
    // What `kuatia serve` streams instead: the session's account and environment and the month, read without
    // writing; nothing for a bad month or no session (the panel answers those), nor for another page.
    let now = host.now.unix_timestamp();
    let order = |path: &str, cookie: &str| {
        kuatia_panel::archive_order(&svc.svc, &request("GET", path, cookie, vec![], ""), now)
    };
    let o = order(
        &format!("/panel/archivo?entorno=sandbox&mes={month}"),
        &cookie,
    )
    .unwrap();
    assert_eq!(
        (o.principal.env, o.month.to_string(), o.file_name()),
        (
            kuatia_service::auth::Environment::Sandbox,
            month.clone(),
            format!("kuatia-{month}.zip")
        )
    );
    assert!(order("/panel/archivo?entorno=sandbox&mes=2026-13", &cookie).is_none());
    assert!(order(&format!("/panel/archivo?mes={month}"), "kp_session=nope").is_none());
    assert!(order(&format!("/panel/facturas?mes={month}"), &cookie).is_none());

    // The list's filters are the API's, with its checks; a page of one links to the next by the API's cursor.
    let r = get(
        &mut svc,
        &mut host,
        "/panel/facturas?entorno=sandbox&numero=12",
    );
    assert_eq!(r.status, 400);
    assert!(text(&r).contains("EEE-PPP-NNNNNNN"), "{}", text(&r));
    assert!(!text(&r).contains(&id));
    let second = svc.handle(
        &HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {key}")),
                ("X-Environment".into(), "sandbox".into()),
                ("Content-Type".into(), "application/json".into()),
            ],
            body: body.to_string().into_bytes(),
        },
        &mut host,
    );
    assert_eq!(second.status, 201);
    let first_page = text(&get(
        &mut svc,
        &mut host,
        "/panel/facturas?entorno=sandbox&per_page=1",
    ));
    assert!(first_page.contains("2 facturas"), "{first_page}");
    assert!(first_page.contains("Página siguiente"), "{first_page}");
    assert!(
        !first_page.contains(&format!("/panel/facturas/{id}?")),
        "newest first: {first_page}"
    );
    let next = first_page
        .split("<a href=\"/panel/facturas?")
        .nth(1)
        .unwrap();
    let next = next.split('"').next().unwrap().replace("&amp;", "&");
    assert!(next.contains("starting_after="), "{next}");
    let last_page = text(&get(
        &mut svc,
        &mut host,
        &format!("/panel/facturas?{next}"),
    ));
    assert!(
        last_page.contains(&format!("/panel/facturas/{id}?")),
        "{last_page}"
    );
    assert!(!last_page.contains("Página siguiente"), "{last_page}");

    // Another environment or an unknown id: not found.
    let r = get(
        &mut svc,
        &mut host,
        &format!("/panel/facturas/{id}?entorno=produccion"),
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        get(&mut svc, &mut host, "/panel/facturas/fact_nope").status,
        404
    );
}

/// The invoice page's "Correo al comprador" block (issue 36): a sandbox service without SMTP settings captures the
/// buyer's message on approval, and the page shows it whole (subject, body with the CDC, the attachment names);
/// "Reenviar" with the session's CSRF token queues another message to another address, a bad address is the
/// service's 422 on the page, and a wrong CSRF token is refused.
#[cfg(feature = "email")]
#[test]
fn invoice_page_shows_the_captured_email_and_resends_it() {
    let (mut svc, mut host, cookie, csrf) = signed_in(time::OffsetDateTime::now_utc());
    let account = kuatia_service::Store::accounts(&svc.svc.store)[0]
        .id
        .clone();
    let key = svc
        .svc
        .create_key(
            &account,
            kuatia_service::auth::Environment::Sandbox,
            &mut host,
        )
        .unwrap();
    let body = serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "compras@cliente.com.py"},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    });
    let created = svc.handle(
        &HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {key}")),
                ("X-Environment".into(), "sandbox".into()),
                ("Content-Type".into(), "application/json".into()),
            ],
            body: body.to_string().into_bytes(),
        },
        &mut host,
    );
    assert_eq!(created.status, 201, "{}", text(&created));
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let cdc = created.json()["data"]["cdc"].as_str().unwrap().to_string();
    let path = format!("/panel/facturas/{id}?entorno=sandbox");

    // Not approved yet: nothing queued, and no "Reenviar" (only an approved document is e-mailed).
    let page = text(&svc.handle(&request("GET", &path, &cookie, vec![], ""), &mut host));
    assert!(page.contains("Correo al comprador"), "{page}");
    assert!(page.contains("No hay mensajes"), "{page}");
    assert!(!page.contains(">Reenviar<"), "{page}");

    host.advance(10);
    let approved = text(&svc.handle(&request("GET", &path, &cookie, vec![], ""), &mut host));
    let page = &approved;
    assert!(page.contains("Aprobada"), "{page}");
    assert!(page.contains("compras@cliente.com.py"), "{page}");
    assert!(page.contains(">capturado<"), "{page}");
    assert!(
        page.contains("Mensaje capturado para compras@cliente.com.py"),
        "{page}"
    );
    assert!(page.contains(&format!("CDC: {cdc}")), "{page}");
    assert!(
        page.contains(&format!("{cdc}.pdf, {cdc}.xml")),
        "attachment names: {page}"
    );
    assert!(page.contains(">Reenviar<"), "{page}");

    let form = "application/x-www-form-urlencoded";
    let post = |svc: &mut Site, host: &mut TestHost, body: String| {
        svc.handle(
            &request(
                "POST",
                &format!("/panel/facturas/{id}/correo"),
                &cookie,
                body.into_bytes(),
                form,
            ),
            host,
        )
    };
    let r = post(
        &mut svc,
        &mut host,
        "csrf=nope&entorno=sandbox&para=otro%40cliente.com.py".to_string(),
    );
    assert_eq!(r.status, 403);
    let r = post(
        &mut svc,
        &mut host,
        format!("csrf={csrf}&entorno=sandbox&para=no+es+correo"),
    );
    assert_eq!(r.status, 422, "{}", text(&r));
    assert!(
        text(&r).contains("<code>VALIDATION_ERROR.INVALID_FORMAT</code>"),
        "{}",
        text(&r)
    );
    // A second later (the stores list an invoice's messages by creation second, then id).
    host.advance(1);
    let r = post(
        &mut svc,
        &mut host,
        format!("csrf={csrf}&entorno=sandbox&para=otro%40cliente.com.py"),
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let page = text(&r);
    assert!(
        page.contains("Mensaje a otro@cliente.com.py: capturado."),
        "{page}"
    );
    assert_eq!(page.matches("Mensaje capturado para").count(), 2, "{page}");
    let log = svc
        .svc
        .email_log(
            &kuatia_service::Principal {
                account: kuatia_service::Store::account(&svc.svc.store, &account).unwrap(),
                env: kuatia_service::auth::Environment::Sandbox,
            },
            &id,
        )
        .unwrap();
    let to: Vec<&str> = log.iter().map(|m| m.to.as_str()).collect();
    assert_eq!(to, ["compras@cliente.com.py", "otro@cliente.com.py"]);
    assert!(log.iter().all(|m| m.status == "captured"));
    // The page showed the service's own subject and body, whole.
    assert!(
        approved.contains(&format!("<dd>{}</dd>", log[0].subject)),
        "{approved}"
    );
    // (the SIFEN query link's `&` escaped as HTML text)
    let body = log[0].body.replace('&', "&amp;");
    assert!(
        log[0].body.contains(&cdc) && approved.contains(&body),
        "{approved}"
    );
}

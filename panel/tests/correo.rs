//! The panel's "Correo" page in-process (issue 36; the real SMTP sends are server/tests/email_accounts.rs): each
//! environment's SMTP settings saved apart, the password never shown and kept only for the same server, the test
//! button's checks (CSRF, address, the account's quota) and its outcomes, and the webhook form offering every event
//! kind the service accepts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../service/tests/common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::sign::Signer;
use kuatia_core::Finding;
use kuatia_panel::{EmailTestOutcome, EmailTestStep, Panel, TEST_EMAILS};
use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, HttpResponse, MemoryStore, Service, Store};

/// The test host, with SMTP settings checked as a host that sends e-mail would: `smtp[s]://` only, and the password
/// "sealed" (reversed, marked) so the test can tell it was sealed and not stored as typed.
struct MailHost(TestHost);

impl Host for MailHost {
    fn now(&mut self) -> time::OffsetDateTime {
        self.0.now()
    }
    fn random_u32(&mut self) -> u32 {
        self.0.random_u32()
    }
    fn signer(&self, account_id: &str, env: Environment) -> Option<&dyn Signer> {
        self.0.signer(account_id, env)
    }
    fn check_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        from: &str,
        url: &str,
        password: Option<&str>,
    ) -> Result<Option<String>, Finding> {
        if !url.starts_with("smtp://") && !url.starts_with("smtps://") {
            return Err(kuatia_core::rule::host_smtp_url(
                "url",
                "expected smtp://… or smtps://…",
            ));
        }
        assert!(from.contains('@'));
        Ok(password.map(|p| {
            format!(
                "sealed:{account_id}/{}:{}",
                env.as_str(),
                p.chars().rev().collect::<String>()
            )
        }))
    }
}

struct Site {
    svc: Service<MemoryStore>,
    panel: Panel,
    host: MailHost,
    cookie: String,
    csrf: String,
    account: String,
}

const FORM: &str = "application/x-www-form-urlencoded";

fn request(method: &str, path: &str, cookie: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: method.into(),
        path: path.into(),
        headers: vec![
            ("Cookie".into(), cookie.into()),
            ("Content-Type".into(), FORM.into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn text(r: &HttpResponse) -> String {
    String::from_utf8(r.body.clone()).unwrap()
}

impl Site {
    fn new(email_outbox: bool) -> Site {
        let mut host = MailHost(TestHost::new());
        let mut svc = Service::new(
            MemoryStore::default(),
            Config {
                base_url: "https://panel.example.test".into(),
                email_outbox,
                ..Config::default()
            },
        );
        let (account, _) = svc.create_account("Estudio Contable", &mut host);
        let panel = Panel::new();
        let link = kuatia_panel::login_link(&mut svc, &account.id, &mut host).unwrap();
        let token = link.split("token=").nth(1).unwrap();
        let r = panel.handle(
            &mut svc,
            &request("POST", "/panel/entrar", "", &format!("token={token}")),
            None,
            &mut host,
        );
        let cookie = r
            .header("Set-Cookie")
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        let page = text(&panel.handle(
            &mut svc,
            &request("GET", "/panel", &cookie, ""),
            None,
            &mut host,
        ));
        let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
        let csrf = page[at..].split('"').next().unwrap().to_string();
        Site {
            svc,
            panel,
            host,
            cookie,
            csrf,
            account: account.id,
        }
    }

    fn get(&mut self, path: &str) -> HttpResponse {
        let req = request("GET", path, &self.cookie, "");
        self.panel.handle(&mut self.svc, &req, None, &mut self.host)
    }

    /// A form POST with the session's CSRF token first.
    fn post(&mut self, path: &str, fields: &str) -> HttpResponse {
        let req = request(
            "POST",
            path,
            &self.cookie,
            &format!("csrf={}&{fields}", self.csrf),
        );
        self.panel.handle(&mut self.svc, &req, None, &mut self.host)
    }

    fn settings(&self, env: Environment) -> Option<kuatia_service::email::SmtpAccountSettings> {
        self.svc.store.smtp_settings(&self.account, env)
    }
}

#[test]
fn each_environment_keeps_its_own_settings_and_the_password_is_never_shown() {
    let mut site = Site::new(false);
    let page = text(&site.get("/panel/correo"));
    assert!(
        page.contains("<a href=\"/panel/correo\" aria-current=\"page\">Correo</a>"),
        "{page}"
    );
    assert!(
        page.contains("no tiene configuración de correo propia"),
        "{page}"
    );
    assert!(
        page.contains("no se envían: este servidor no tiene configuración por defecto"),
        "{page}"
    );
    assert!(page.contains("Enviar correo de prueba"), "{page}");

    // Refused by the host: nothing stored, the finding shown at its field.
    let r = site.post(
        "/panel/correo",
        "entorno=produccion&desde=Acme+%3Cf%40acme.com.py%3E&url=http%3A%2F%2Fh&contrasena=s3cr3t-Clave",
    );
    assert_eq!(r.status, 422, "{}", text(&r));
    assert!(text(&r).contains("(campo url)"), "{}", text(&r));
    assert!(!text(&r).contains("s3cr3t-Clave"));
    assert!(site.settings(Environment::Production).is_none());

    let r = site.post(
        "/panel/correo",
        "entorno=produccion&desde=Acme+%3Cf%40acme.com.py%3E&url=smtps%3A%2F%2Fmailer%40smtp.acme.com.py&contrasena=s3cr3t-Clave",
    );
    assert_eq!(r.status, 200, "{}", text(&r));
    let page = text(&r);
    assert!(page.contains("Configuración de correo guardada."), "{page}");
    assert!(page.contains("smtps://mailer@smtp.acme.com.py"), "{page}");
    assert!(page.contains("guardada cifrada (no se muestra)"), "{page}");
    assert!(
        !page.contains("s3cr3t-Clave") && !page.contains("evalC-t3rc3s"),
        "{page}"
    );
    let stored = site.settings(Environment::Production).unwrap();
    assert_eq!(
        stored.sealed_password.as_deref(),
        Some(format!("sealed:{}/production:evalC-t3rc3s", site.account).as_str())
    );
    assert!(!format!("{stored:?}").contains("evalC"));
    // Production's settings are not the sandbox's.
    assert!(site.settings(Environment::Sandbox).is_none());
    let sandbox = text(&site.get("/panel/correo?entorno=sandbox"));
    assert!(
        sandbox.contains("no tiene configuración de correo propia"),
        "{sandbox}"
    );

    // A blank password keeps the sealed one for the same server...
    let r = site.post(
        "/panel/correo",
        "entorno=produccion&desde=Acme+Facturas+%3Cf%40acme.com.py%3E&url=smtps%3A%2F%2Fmailer%40smtp.acme.com.py&contrasena=",
    );
    assert_eq!(r.status, 200);
    let kept = site.settings(Environment::Production).unwrap();
    assert_eq!(kept.sealed_password, stored.sealed_password);
    assert_eq!(kept.from, "Acme Facturas <f@acme.com.py>");
    // ...and never follows the settings to another server.
    let r = site.post(
        "/panel/correo",
        "entorno=produccion&desde=Acme+%3Cf%40acme.com.py%3E&url=smtps%3A%2F%2Fmailer%40otro.example.com&contrasena=",
    );
    assert!(
        text(&r).contains("La contraseña anterior no se conservó"),
        "{}",
        text(&r)
    );
    assert_eq!(
        site.settings(Environment::Production)
            .unwrap()
            .sealed_password,
        None
    );

    // CSRF like every form; deleting works per environment.
    let req = request(
        "POST",
        "/panel/correo/borrar",
        &site.cookie,
        "csrf=nope&entorno=produccion",
    );
    assert_eq!(
        site.panel
            .handle(&mut site.svc, &req, None, &mut site.host)
            .status,
        403
    );
    assert!(site.settings(Environment::Production).is_some());
    let r = site.post("/panel/correo/borrar", "entorno=produccion");
    assert!(text(&r).contains("Configuración de correo eliminada."));
    assert!(site.settings(Environment::Production).is_none());
}

#[test]
fn an_account_with_sandbox_settings_queues_its_sandbox_messages_to_be_sent() {
    let mut site = Site::new(false);
    let queue = |site: &mut Site| {
        let key = site
            .svc
            .create_key(&site.account, Environment::Sandbox, &mut site.host)
            .unwrap();
        let body = serde_json::json!({
            "tipo_documento": 1,
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente S.A.", "email": "compras@cliente.com.py"},
            "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 110000, "iva": 10}],
            "condicion_pago": 1
        });
        let r = site.panel.handle(
            &mut site.svc,
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
            None,
            &mut site.host,
        );
        assert_eq!(r.status, 201, "{}", text(&r));
        let id = r.json()["data"]["id"].as_str().unwrap().to_string();
        // The simulated SIFEN approves it a few seconds later (moved by the next panel request).
        site.host.0.advance(10);
        site.get("/panel");
        let emails = site.svc.invoice_emails(&id);
        assert_eq!(emails.len(), 1, "{emails:?}");
        emails[0].status.clone()
    };
    // Production's settings never make a sandbox message leave.
    site.post(
        "/panel/correo",
        "entorno=produccion&desde=Acme+%3Cf%40acme.com.py%3E&url=smtps%3A%2F%2Fsmtp.acme.com.py",
    );
    assert_eq!(queue(&mut site), "captured");
    site.post(
        "/panel/correo",
        "entorno=sandbox&desde=Acme+%3Cf%40acme.com.py%3E&url=smtp%3A%2F%2F127.0.0.1%3A2525",
    );
    assert_eq!(queue(&mut site), "pending");
}

#[test]
fn the_test_button_checks_the_form_and_the_quota_and_shows_the_outcome() {
    let mut site = Site::new(true);
    let step = |site: &mut Site, body: String| {
        let req = request("POST", "/panel/correo/prueba", &site.cookie, &body);
        site.panel
            .email_test_step(&mut site.svc, &req, &mut site.host)
    };
    assert!(kuatia_panel::is_email_test(
        "POST",
        "/panel/correo/prueba?x=1"
    ));
    assert!(!kuatia_panel::is_email_test("GET", "/panel/correo/prueba"));

    match step(&mut site, "csrf=nope&para=a%40b.com".into()) {
        EmailTestStep::Done(r) => assert_eq!(r.status, 403),
        s => panic!("{s:?}"),
    }
    let csrf = site.csrf.clone();
    match step(&mut site, format!("csrf={csrf}&para=no+es+correo")) {
        EmailTestStep::Done(r) => {
            assert_eq!(r.status, 422);
            assert!(text(&r).contains("dirección de correo válida"));
        }
        s => panic!("{s:?}"),
    }
    let body = format!("csrf={csrf}&entorno=sandbox&para=yo%40acme.com.py");
    let EmailTestStep::Send(test) = step(&mut site, body.clone()) else {
        panic!("not sent")
    };
    assert_eq!(
        (test.account_id.as_str(), test.env, test.to.as_str()),
        (
            site.account.as_str(),
            Environment::Sandbox,
            "yo@acme.com.py"
        )
    );
    assert_eq!(test.subject, "Correo de prueba de kuatia");
    assert!(
        test.body.contains("Estudio Contable") && test.body.contains("sandbox"),
        "{}",
        test.body
    );

    let req = request("POST", "/panel/correo/prueba", &site.cookie, &body);
    let show = |site: &mut Site, outcome: EmailTestOutcome| {
        site.panel
            .email_test_page(&mut site.svc, &req, &test, &outcome, &mut site.host)
    };
    let r = show(&mut site, EmailTestOutcome::Sent { code: 250 });
    assert_eq!(r.status, 200);
    assert!(
        text(&r).contains("Correo de prueba enviado a yo@acme.com.py"),
        "{}",
        text(&r)
    );
    assert!(
        text(&r).contains("Entorno: <strong>Sandbox"),
        "{}",
        text(&r)
    );
    let r = show(
        &mut site,
        EmailTestOutcome::Refused {
            code: 550,
            reply: "550 5.1.1 <no such user>".into(),
        },
    );
    assert_eq!(r.status, 502);
    assert!(
        text(&r).contains("rechazó el correo de prueba"),
        "{}",
        text(&r)
    );
    assert!(
        text(&r).contains("550 5.1.1 &lt;no such user&gt;"),
        "{}",
        text(&r)
    );
    let r = show(&mut site, EmailTestOutcome::NotConfigured);
    assert_eq!(r.status, 409);

    // The account's quota: TEST_EMAILS an hour (one spent above), then 429 with the wait.
    for _ in 1..TEST_EMAILS {
        assert!(matches!(
            step(&mut site, body.clone()),
            EmailTestStep::Send(_)
        ));
    }
    match step(&mut site, body.clone()) {
        EmailTestStep::Done(r) => {
            assert_eq!(r.status, 429);
            assert_eq!(r.header("Retry-After"), Some("3600"));
        }
        s => panic!("{s:?}"),
    }
    site.host.0.advance(3600);
    assert!(matches!(step(&mut site, body), EmailTestStep::Send(_)));

    // A host that does not serve the test itself says so.
    let r = site.post("/panel/correo/prueba", "para=yo%40acme.com.py");
    assert_eq!(r.status, 501);
    assert!(text(&r).contains("no envía correos de prueba"));
}

#[test]
fn the_webhook_form_offers_every_event_kind_the_service_accepts() {
    let mut site = Site::new(false);
    let page = text(&site.get("/panel/webhooks"));
    for kind in kuatia_service::webhook::EVENT_KINDS {
        assert!(
            page.contains(&format!("name=\"eventos\" value=\"{}\"", kind.as_str())),
            "{kind:?}: {page}"
        );
    }
    assert!(page.contains("value=\"factura.email_failed\""), "{page}");
}

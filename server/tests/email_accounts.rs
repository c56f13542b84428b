//! An account's own SMTP settings (issue 36) through `kuatia serve`'s panel over real HTTP, against real SMTP servers
//! on loopback (aiosmtpd, tests/smtp/fake_smtp.py): the account's messages and its test message go through ITS
//! server, authenticated with the password it typed (sealed in the store, unsealed only to send), not through the
//! server-wide default; production's settings never carry a sandbox message; the test button shows the server's
//! acceptance, its refusal with the reply, or the connection error, never the password.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../tests/smtp/fake.rs"]
mod fake;

use common::api::{config, factura, Api};
use common::{temp_dir, wait_for};
use fake::FakeSmtp;
use kuatia_server::email::SmtpSettings;
use kuatia_server::{start, RunningServer};
use kuatia_service::auth::Environment;
use kuatia_service::Store;

const LOGIN: &str = "mailer@acme.com.py";
const PASSWORD: &str = "cl4ve Secreta+ñ";
const OWN_FROM: &str = "Acme S.A. <facturas@acme.com.py>";

async fn serve(default: &FakeSmtp, dir: &std::path::Path) -> RunningServer {
    let mut c = config(dir);
    c.smtp = Some(
        SmtpSettings::parse(&default.url(), "Servidor <avisos@kuatia.example>", None).unwrap(),
    );
    c.email_interval = std::time::Duration::from_millis(100);
    start(c).await.unwrap()
}

/// Form encoding of a value.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A signed-in panel session over HTTP.
struct Browser {
    http: reqwest::Client,
    base: String,
    cookie: String,
    csrf: String,
}

impl Browser {
    async fn sign_in(server: &RunningServer) -> Browser {
        let id = server.account_id.clone();
        let link = server
            .with_engine(|e| e.transact(|svc, host| kuatia_panel::login_link(svc, &id, host)))
            .unwrap()
            .unwrap();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .unwrap();
        let base = format!("http://{}", server.addr);
        let token = link.split("token=").nth(1).unwrap();
        let r = http
            .post(format!("{base}/panel/entrar"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(format!("token={token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303);
        let cookie = r.headers()["set-cookie"].to_str().unwrap();
        let cookie = cookie.split(';').next().unwrap().to_string();
        let page = http
            .get(format!("{base}/panel/correo"))
            .header("Cookie", &cookie)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
        let csrf = page[at..].split('"').next().unwrap().to_string();
        Browser {
            http,
            base,
            cookie,
            csrf,
        }
    }

    async fn post(&self, path: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let mut body = format!("csrf={}", self.csrf);
        for (k, v) in fields {
            body.push_str(&format!("&{k}={}", enc(v)));
        }
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    /// Saves the settings of `env` (`entorno`: `sandbox` or `produccion`).
    async fn save(&self, entorno: &str, url: &str, password: &str) -> String {
        let (status, page) = self
            .post(
                "/panel/correo",
                &[
                    ("entorno", entorno),
                    ("desde", OWN_FROM),
                    ("url", url),
                    ("contrasena", password),
                ],
            )
            .await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Configuración de correo guardada"), "{page}");
        page
    }

    async fn test_email(&self, entorno: &str) -> (u16, String) {
        self.post(
            "/panel/correo/prueba",
            &[("entorno", entorno), ("para", "yo@acme.com.py")],
        )
        .await
    }
}

/// A sandbox invoice approved and its one message settled (`sent` or given up).
async fn mailed_invoice(server: &RunningServer) -> kuatia_service::email::EmailMessage {
    let (code, v) = Api::sandbox(server)
        .post("/v1/facturas", &factura(Some("approved")))
        .await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    wait_for(&format!("the e-mail of {id} settling"), || async {
        let msgs = server.with_engine(|e| e.service.invoice_emails(&id));
        match msgs.as_slice() {
            [m] if m.status != "pending" => Ok(m.clone()),
            _ => Err(format!("{msgs:?}")),
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_sends_through_its_own_server_with_its_sealed_password() {
    let dir = temp_dir("email-own");
    let default = FakeSmtp::start(&dir.join("default"), &[]);
    let own = FakeSmtp::start_with(&dir.join("own"), &[], Some(&format!("{LOGIN}:{PASSWORD}")));
    let server = serve(&default, &dir.join("data")).await;
    let browser = Browser::sign_in(&server).await;
    let own_url = format!("smtp://{}@127.0.0.1:{}", enc(LOGIN), own.port);
    let page = browser.save("sandbox", &own_url, PASSWORD).await;
    assert!(page.contains("guardada cifrada"), "{page}");
    assert!(
        !page.contains("Secreta"),
        "the password is never shown back"
    );
    // Stored sealed, never as typed.
    let account = server.account_id.clone();
    let stored = server
        .with_engine(|e| {
            e.service
                .store
                .smtp_settings(&account, Environment::Sandbox)
        })
        .unwrap();
    let sealed = stored.sealed_password.clone().unwrap();
    assert!(
        sealed.starts_with("sealed:v1:") && !sealed.contains("Secreta"),
        "{sealed}"
    );

    // The test button: a real send through the account's server, AUTH with the password typed.
    let (status, page) = browser.test_email("sandbox").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Correo de prueba enviado a yo@acme.com.py"),
        "{page}"
    );
    assert!(page.contains("(respuesta 250)"), "{page}");
    assert!(
        own.log().contains(&format!("AUTH {LOGIN} {PASSWORD} ok")),
        "{:?}",
        own.log()
    );
    let accepted = own.accepted();
    assert_eq!(accepted.len(), 1, "{:?}", own.log());
    let p = fake::parse_message(&accepted[0], &dir.join("files"));
    assert_eq!(p["subject"], "Correo de prueba de kuatia", "{p}");
    assert!(
        p["from"].as_str().unwrap().contains("facturas@acme.com.py"),
        "{p}"
    );
    assert_eq!(p["to"], "yo@acme.com.py");

    // The buyer's message of a sandbox invoice: the account's server, not the default.
    let m = mailed_invoice(&server).await;
    assert_eq!((m.status.as_str(), m.attempts), ("sent", 1), "{m:?}");
    assert_eq!(own.accepted().len(), 2, "{:?}", own.log());
    assert!(default.accepted().is_empty(), "{:?}", default.log());
    let p = fake::parse_message(&own.accepted()[1], &dir.join("files2"));
    assert!(
        p["from"].as_str().unwrap().contains("facturas@acme.com.py"),
        "{p}"
    );

    // Production's settings never carry a sandbox message: with only those, the sandbox goes by the default.
    let (status, _) = browser
        .post("/panel/correo/borrar", &[("entorno", "sandbox")])
        .await;
    assert_eq!(status, 200);
    browser.save("produccion", &own_url, PASSWORD).await;
    let m = mailed_invoice(&server).await;
    assert_eq!(m.status, "sent", "{m:?}");
    assert_eq!(default.accepted().len(), 1, "{:?}", default.log());
    assert_eq!(own.accepted().len(), 2, "{:?}", own.log());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_button_shows_the_refusal_or_the_connection_error_never_the_password() {
    let dir = temp_dir("email-own-refused");
    let default = FakeSmtp::start(&dir.join("default"), &[]);
    let own = FakeSmtp::start_with(
        &dir.join("own"),
        &["p550"],
        Some(&format!("{LOGIN}:{PASSWORD}")),
    );
    let server = serve(&default, &dir.join("data")).await;
    let browser = Browser::sign_in(&server).await;
    let own_url = format!("smtp://{}@127.0.0.1:{}", enc(LOGIN), own.port);

    // A wrong password: the server's 535, not the password.
    browser.save("sandbox", &own_url, "no-es-la-Clave").await;
    let (status, page) = browser.test_email("sandbox").await;
    assert_eq!(status, 502, "{page}");
    assert!(page.contains("rechazó el correo de prueba"), "{page}");
    assert!(page.contains("(respuesta 535)"), "{page}");
    assert!(!page.contains("no-es-la-Clave"), "{page}");
    assert!(
        own.log()
            .contains(&format!("AUTH {LOGIN} no-es-la-Clave bad")),
        "{:?}",
        own.log()
    );

    // The right password, a recipient the server refuses: its 550 and its reason.
    browser.save("sandbox", &own_url, PASSWORD).await;
    let (status, page) = browser.test_email("sandbox").await;
    assert_eq!(status, 502, "{page}");
    assert!(page.contains("(respuesta 550)"), "{page}");
    assert!(page.contains("No such user here"), "{page}");
    assert!(own.accepted().is_empty());

    // Nobody listening: the connection error.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    browser
        .save("sandbox", &format!("smtp://127.0.0.1:{port}"), "")
        .await;
    let (status, page) = browser.test_email("sandbox").await;
    assert_eq!(status, 502, "{page}");
    assert!(
        page.contains("No se pudo enviar el correo de prueba"),
        "{page}"
    );
    assert!(default.accepted().is_empty(), "{:?}", default.log());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_cannot_point_its_smtp_server_inside_the_host() {
    let dir = temp_dir("email-own-inside");
    let mut c = config(&dir);
    // The webhooks' SSRF policy applies to an account's SMTP server too (the operator's `--smtp-url` is exempt).
    c.allow_private_webhooks = false;
    let server = start(c).await.unwrap();
    let browser = Browser::sign_in(&server).await;
    browser.save("sandbox", "smtp://127.0.0.1:2525", "").await;
    let (status, page) = browser.test_email("sandbox").await;
    assert_eq!(status, 502, "{page}");
    assert!(page.contains("not allowed for an account"), "{page}");
    server.shutdown().await;
}

//! `kuatia serve` end to end, e-mail to the buyer (issue 36), against a real SMTP server on loopback (aiosmtpd):
//! one message per approval with the KuDE and the signed XML, read back by Python's MIME parser and checked by qpdf
//! and xmlsec1; a 451 then 250 gives exactly one delivery; a 550 is given up with the server's reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../tests/smtp/fake.rs"]
mod fake;

use common::api::{config, factura, Api};
use common::{temp_dir, wait_for};
use fake::FakeSmtp;
use kuatia_server::email::SmtpSettings;
use kuatia_server::{start, RunningServer};
use kuatia_service::email::EmailMessage;
use serde_json::json;

const FROM: &str = "Empresa de Prueba <facturas@empresa.com.py>";

async fn serve_with(smtp: &FakeSmtp, dir: &std::path::Path) -> RunningServer {
    let mut c = config(dir);
    c.smtp = Some(SmtpSettings::parse(&smtp.url(), FROM, None).unwrap());
    c.email_interval = std::time::Duration::from_millis(100);
    // A retry one second after a temporary refusal (the default waits a minute).
    c.email_retry = vec![1];
    start(c).await.unwrap()
}

/// Waits until the invoice's only message is no longer `pending`; that message.
async fn settled(server: &RunningServer, id: &str) -> EmailMessage {
    wait_for(&format!("the e-mail of {id} settling"), || async {
        let msgs = server.with_engine(|e| e.service.invoice_emails(id));
        match msgs.as_slice() {
            [m] if m.status != "pending" => Ok(m.clone()),
            _ => Err(format!("{msgs:?}")),
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_invoice_is_mailed_once_with_its_kude_and_signed_xml() {
    let dir = temp_dir("email-ok");
    let smtp = FakeSmtp::start(&dir.join("spool"), &[]);
    let server = serve_with(&smtp, &dir.join("data")).await;
    let api = Api::sandbox(&server);
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let cdc = v["data"]["cdc"].as_str().unwrap().to_string();
    let numero = v["data"]["numero"].as_str().unwrap().to_string();
    let m = settled(&server, &id).await;
    assert_eq!((m.status.as_str(), m.attempts), ("sent", 1), "{m:?}");
    assert_eq!(m.log[0].code, Some(250));
    assert_eq!(smtp.data_lines().len(), 1, "{:?}", smtp.log());
    let accepted = smtp.accepted();
    assert_eq!(accepted.len(), 1);

    let files = dir.join("files");
    let p = fake::parse_message(&accepted[0], &files);
    assert_eq!(p["defects"], json!([]), "{p}");
    assert_eq!(p["content_type"], "multipart/mixed");
    // The subject is UTF-8 ("electrónica"): on the wire only ASCII (RFC 2047 words), decoded back by the parser.
    assert_eq!(p["raw_subject_ascii"], true);
    let subject = p["subject"].as_str().unwrap();
    assert!(
        subject.starts_with(&format!("Factura electrónica {numero} de ")),
        "{subject}"
    );
    assert!(
        p["from"]
            .as_str()
            .unwrap()
            .contains("facturas@empresa.com.py"),
        "{p}"
    );
    assert_eq!(p["to"], "cliente@example.com");
    assert!(p["message_id"].as_str().unwrap().contains(&m.id), "{p}");
    let text = p["text"].as_str().unwrap();
    assert!(text.contains(&format!("CDC: {cdc}")), "{text}");
    assert!(
        text.contains("https://ekuatia.set.gov.py/consultas"),
        "{text}"
    );
    let names: Vec<&str> = p["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["filename"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec![format!("{cdc}.pdf"), format!("{cdc}.xml")]);
    assert_eq!(p["attachments"][0]["content_type"], "application/pdf");
    assert_eq!(p["attachments"][1]["content_type"], "application/xml");
    fake::qpdf_check(&files.join(format!("{cdc}.pdf"))).unwrap();
    fake::xmlsec_verify(&files.join(format!("{cdc}.xml"))).unwrap();
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_temporary_refusal_is_retried_and_delivered_exactly_once() {
    let dir = temp_dir("email-451");
    let smtp = FakeSmtp::start(&dir.join("spool"), &["t451"]);
    let server = serve_with(&smtp, &dir.join("data")).await;
    let api = Api::sandbox(&server);
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let m = settled(&server, v["data"]["id"].as_str().unwrap()).await;
    assert_eq!((m.status.as_str(), m.attempts), ("sent", 2), "{m:?}");
    assert_eq!(m.log[0].code, Some(451));
    assert_eq!(m.log[1].code, Some(250));
    let data = smtp.data_lines();
    assert_eq!(data.len(), 2, "{data:?}");
    assert!(
        data[0].ends_with(" t451") && data[1].ends_with(" ok"),
        "{data:?}"
    );
    assert_eq!(smtp.accepted().len(), 1);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_refusal_is_given_up_with_the_reason() {
    let dir = temp_dir("email-550");
    let smtp = FakeSmtp::start(&dir.join("spool"), &["p550"]);
    let server = serve_with(&smtp, &dir.join("data")).await;
    let api = Api::sandbox(&server);
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let m = settled(&server, v["data"]["id"].as_str().unwrap()).await;
    assert_eq!((m.status.as_str(), m.attempts), ("failed", 1), "{m:?}");
    let reason = m.reason.clone().unwrap();
    assert!(
        reason.starts_with("550 ") && reason.contains("No such user"),
        "{reason}"
    );
    assert_eq!(smtp.data_lines().len(), 1);
    assert!(smtp.accepted().is_empty());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_smtp_settings_the_message_is_captured_not_sent() {
    let dir = temp_dir("email-captured");
    let server = start(config(&dir)).await.unwrap();
    let api = Api::sandbox(&server);
    let (code, v) = api.post("/v1/facturas", &factura(Some("approved"))).await;
    assert_eq!(code, 201, "{v}");
    let id = v["data"]["id"].as_str().unwrap();
    let msgs = server.with_engine(|e| e.service.invoice_emails(id));
    assert_eq!(msgs.len(), 1);
    assert_eq!((msgs[0].status.as_str(), msgs[0].attempts), ("captured", 0));
    server.shutdown().await;
}

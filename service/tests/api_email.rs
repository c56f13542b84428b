//! E-mail to the buyer in the sans-IO service (issue 36): the message an approval queues, its Spanish content and
//! attachments, the captured status without an outbox, the claim's lease and the report's transitions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, factura, Answer};
use kuatia_service::email::{
    EmailAttempt, EmailKind, EmailOutcome, CAPTURED, FAILED, PENDING, SENT,
};
use kuatia_service::Store;

fn attempt(
    at: i64,
    outcome: EmailOutcome,
    code: Option<u16>,
    detail: Option<&str>,
) -> EmailAttempt {
    EmailAttempt {
        at,
        outcome,
        code,
        detail: detail.map(String::from),
        duration_ms: 3,
    }
}

#[test]
fn an_approval_captures_the_buyers_message_when_the_host_sends_none() {
    let mut c = client();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let inv = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json()["data"].clone();
    let cdc = inv["cdc"].as_str().unwrap().to_string();
    let numero = inv["numero"].as_str().unwrap().to_string();
    let msgs = c.svc.invoice_emails(&id);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    let m = &msgs[0];
    assert_eq!(m.status, CAPTURED);
    assert_eq!(m.kind, EmailKind::Approved);
    assert_eq!(m.to, "cliente@example.com");
    assert!(m.id.starts_with("eml_"));
    assert!(
        m.subject
            .starts_with(&format!("Factura electrónica {numero} de ")),
        "{}",
        m.subject
    );
    assert!(m.body.contains(&format!("CDC: {cdc}")), "{}", m.body);
    assert!(m.body.contains("Total: 1100000 PYG"), "{}", m.body);
    assert!(
        m.body.contains("https://ekuatia.set.gov.py/consultas"),
        "{}",
        m.body
    );
    // Never claimed: a captured message is not sent.
    let now = c.host.now.unix_timestamp();
    assert!(c.svc.claim_emails(now + 10, 60, usize::MAX).is_empty());
    let files = c.svc.email_attachments(m).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.file_name.as_str()).collect();
    assert_eq!(names, vec![format!("{cdc}.pdf"), format!("{cdc}.xml")]);
    assert!(files[0].content.starts_with(b"%PDF-"));
    assert!(String::from_utf8_lossy(&files[1].content).contains("<Signature"));
}

#[test]
fn a_document_without_a_receiver_email_queues_nothing() {
    let mut c = client();
    let mut body = factura(Some("approved"));
    body["receptor"].as_object_mut().unwrap().remove("email");
    let id = c.sandbox("POST", "/v1/facturas", Some(body)).id();
    assert!(c.svc.invoice_emails(&id).is_empty());
}

#[test]
fn the_outbox_leases_retries_and_gives_up_with_the_reason() {
    let mut c = client();
    c.svc.config.email_outbox = true;
    let a = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let b = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let now = c.host.now.unix_timestamp();
    let claimed = c.svc.claim_emails(now, 30, usize::MAX);
    assert_eq!(claimed.len(), 2);
    assert!(claimed.iter().all(|m| m.status == PENDING));
    // Leased: not claimed again while the lease runs, claimed again once it ended (the sender died).
    assert!(c.svc.claim_emails(now + 29, 30, usize::MAX).is_empty());
    let again = c.svc.claim_emails(now + 30, 30, usize::MAX);
    assert_eq!(again.len(), 2);

    let ma = c.svc.invoice_emails(&a).remove(0);
    let mb = c.svc.invoice_emails(&b).remove(0);
    // A (451 then 250): one retry after the first wait, then sent; a late failure report does not undo it.
    let r = c
        .svc
        .report_email(
            &ma.id,
            attempt(
                now + 30,
                EmailOutcome::Temporary,
                Some(451),
                Some("4.3.0 try later"),
            ),
            &mut c.host,
        )
        .unwrap();
    assert_eq!(r.status, PENDING);
    assert_eq!(r.next_attempt_at, now + 30 + 60);
    assert!(c
        .svc
        .claim_emails(now + 89, 30, usize::MAX)
        .iter()
        .all(|m| m.id != ma.id));
    let retry = c.svc.claim_emails(now + 90, 30, usize::MAX);
    assert!(retry.iter().any(|m| m.id == ma.id));
    let r = c
        .svc
        .report_email(
            &ma.id,
            attempt(now + 90, EmailOutcome::Sent, Some(250), None),
            &mut c.host,
        )
        .unwrap();
    assert_eq!(
        (r.status.as_str(), r.attempts, r.reason.clone()),
        (SENT, 2, None)
    );
    let r = c
        .svc
        .report_email(
            &ma.id,
            attempt(now + 95, EmailOutcome::Temporary, None, Some("connect")),
            &mut c.host,
        )
        .unwrap();
    assert_eq!(r.status, SENT);
    assert!(c
        .svc
        .claim_emails(now + 100_000, 30, usize::MAX)
        .iter()
        .all(|m| m.id != ma.id));

    // B (550): given up at once, the server's reply kept.
    let r = c
        .svc
        .report_email(
            &mb.id,
            attempt(
                now + 30,
                EmailOutcome::Permanent,
                Some(550),
                Some("5.1.1 no such user"),
            ),
            &mut c.host,
        )
        .unwrap();
    assert_eq!(r.status, FAILED);
    assert_eq!(r.reason.as_deref(), Some("550 5.1.1 no such user"));
    assert_eq!(c.svc.store.email(&mb.id).unwrap().status, FAILED);
}

#[test]
fn temporary_failures_stop_after_the_schedule() {
    let mut c = client();
    c.svc.config.email_outbox = true;
    c.svc.config.email_retry = vec![1, 2];
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let m = c.svc.invoice_emails(&id).remove(0);
    let now = c.host.now.unix_timestamp();
    let t = |n| attempt(now + n, EmailOutcome::Temporary, None, Some("connect"));
    assert_eq!(
        c.svc
            .report_email(&m.id, t(0), &mut c.host)
            .unwrap()
            .next_attempt_at,
        now + 1
    );
    assert_eq!(
        c.svc
            .report_email(&m.id, t(1), &mut c.host)
            .unwrap()
            .next_attempt_at,
        now + 3
    );
    let last = c.svc.report_email(&m.id, t(3), &mut c.host).unwrap();
    assert_eq!(
        (last.status.as_str(), last.reason.as_deref()),
        (FAILED, Some("connect"))
    );
}

#[test]
fn the_email_log_route_lists_an_invoices_messages() {
    let mut c = client();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let r = c.sandbox("GET", &format!("/v1/facturas/{id}/emails"), None);
    assert_eq!(r.status, 200);
    let v = r.json();
    let list = v["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
    assert_eq!(list[0]["status"], "captured");
    assert_eq!(list[0]["kind"], "approved");
    assert_eq!(list[0]["to"], "cliente@example.com");
    assert_eq!(list[0]["invoice_id"], id.as_str());
    assert!(list[0]["next_attempt_at"].is_null());
    assert!(list[0].get("account_id").is_none());
    // Another account's key, or an unknown id: 404.
    let r = c.sandbox("GET", "/v1/facturas/fact_nope/emails", None);
    assert_eq!(r.code(), (404, serde_json::json!("NOT_FOUND")));
    let live = c.live_key();
    let r = c.with_key(
        "GET",
        &format!("/v1/facturas/{id}/emails"),
        None,
        &live,
        false,
    );
    assert_eq!(r.status, 404);
}

#[test]
fn a_resend_queues_a_new_message_to_the_same_or_another_address() {
    let mut c = client();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let path = format!("/v1/facturas/{id}/email");
    let r = c.sandbox("POST", &path, Some(serde_json::json!({})));
    assert_eq!(r.status, 202, "{:?}", r.json());
    assert_eq!(r.json()["data"]["to"], "cliente@example.com");
    let r = c.sandbox(
        "POST",
        &path,
        Some(serde_json::json!({"to": "compras@cliente.com.py"})),
    );
    assert_eq!(r.status, 202, "{:?}", r.json());
    let resent = r.json()["data"].clone();
    assert_eq!(resent["to"], "compras@cliente.com.py");
    assert_eq!(resent["status"], "captured");
    let all = c.svc.invoice_emails(&id);
    assert_eq!(all.len(), 3);
    let mut ids: Vec<&str> = all.iter().map(|m| m.id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3, "every message its own id");
    assert_eq!(all[2].subject, all[0].subject);

    let r = c.sandbox(
        "POST",
        &path,
        Some(serde_json::json!({"to": "not an address"})),
    );
    assert_eq!(r.code(), (422, serde_json::json!("VALIDATION_ERROR")));
    let detail = r.json()["error"]["details"][0].clone();
    assert_eq!(detail["path"], "to");
    assert_eq!(detail["code"], "VALIDATION_ERROR.INVALID_FORMAT");
    let r = c.sandbox(
        "POST",
        "/v1/facturas/fact_nope/email",
        Some(serde_json::json!({})),
    );
    assert_eq!(r.status, 404);
    // Not approved yet: 409.
    let pending = c.sandbox("POST", "/v1/facturas", Some(factura(None))).id();
    let r = c.sandbox(
        "POST",
        &format!("/v1/facturas/{pending}/email"),
        Some(serde_json::json!({})),
    );
    assert_eq!(r.code(), (409, serde_json::json!("KUDE_NOT_AVAILABLE")));
    // No address anywhere: 422 at `to`.
    let mut body = factura(Some("approved"));
    body["receptor"].as_object_mut().unwrap().remove("email");
    let bare = c.sandbox("POST", "/v1/facturas", Some(body)).id();
    let r = c.sandbox(
        "POST",
        &format!("/v1/facturas/{bare}/email"),
        Some(serde_json::json!({})),
    );
    assert_eq!(r.code(), (422, serde_json::json!("VALIDATION_ERROR")));
    assert_eq!(
        r.json()["error"]["details"][0]["code"],
        "VALIDATION_ERROR.REQUIRED"
    );
}

/// Messages of one invoice queued in the same second list in the order they were queued, and the invoice's `email` is
/// the last one: the stores break ties of `created_at` by id, so the ids of an invoice's messages sort by their
/// number. (Ids hashed from `<invoice>/<n>` listed a resend before the approval's message about half the time, and
/// the invoice's `email` then showed the older one.)
#[test]
fn resends_in_the_same_second_list_in_order_and_the_latest_is_the_invoices() {
    let mut c = client();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let path = format!("/v1/facturas/{id}/email");
    let to = [
        "a@example.com",
        "b@example.com",
        "c@example.com",
        "d@example.com",
    ];
    for t in to {
        let r = c.sandbox("POST", &path, Some(serde_json::json!({"to": t})));
        assert_eq!(r.status, 202, "{:?}", r.json());
    }
    let all = c.svc.invoice_emails(&id);
    assert!(
        all.iter().all(|m| m.created_at == all[0].created_at),
        "one second"
    );
    let listed: Vec<&str> = all.iter().map(|m| m.to.as_str()).collect();
    assert_eq!(listed, [&["cliente@example.com"][..], &to[..]].concat());
    let r = c.sandbox("GET", &format!("{path}s"), None);
    let ids: Vec<String> = r.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, all.iter().map(|m| m.id.clone()).collect::<Vec<_>>());
    let inv = c.sandbox("GET", &format!("/v1/facturas/{id}"), None).json();
    assert_eq!(inv["data"]["email"]["to"], "d@example.com");
}

#[test]
fn a_claim_takes_at_most_its_limit_and_leaves_the_rest_due() {
    let mut c = client();
    c.svc.config.email_outbox = true;
    for _ in 0..3 {
        c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    }
    let now = c.host.now.unix_timestamp();
    assert_eq!(c.svc.claim_emails(now, 30, 2).len(), 2);
    assert_eq!(c.svc.claim_emails(now, 30, 2).len(), 1);
    assert!(c.svc.claim_emails(now, 30, 2).is_empty());
    assert!(c.svc.claim_emails(now, 30, 0).is_empty());
}

#[test]
fn a_settled_message_emits_emailed_or_email_failed_to_the_webhooks_asking() {
    let mut c = client();
    c.svc.config.email_outbox = true;
    let hook = serde_json::json!({"url": "https://erp.example/m", "events": ["factura.emailed", "factura.email_failed"]});
    assert_eq!(c.sandbox("POST", "/v1/webhooks", Some(hook)).status, 201);
    let a = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let b = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let now = c.host.now.unix_timestamp();
    assert!(
        c.svc.due_deliveries(now).is_empty(),
        "no event before an outcome"
    );
    let (ma, mb) = (
        c.svc.invoice_emails(&a).remove(0),
        c.svc.invoice_emails(&b).remove(0),
    );
    let t = attempt(now, EmailOutcome::Temporary, Some(451), None);
    c.svc.report_email(&ma.id, t, &mut c.host).unwrap();
    assert!(c.svc.due_deliveries(now).is_empty(), "a retry is no event");
    let sent = attempt(now, EmailOutcome::Sent, Some(250), None);
    c.svc.report_email(&ma.id, sent, &mut c.host).unwrap();
    let refused = attempt(now, EmailOutcome::Permanent, Some(550), None);
    c.svc.report_email(&mb.id, refused, &mut c.host).unwrap();
    // A late report on a settled message emits nothing more.
    let late = attempt(now, EmailOutcome::Sent, Some(250), None);
    c.svc.report_email(&mb.id, late, &mut c.host).unwrap();
    let mut got: Vec<(String, String)> = c
        .svc
        .due_deliveries(now)
        .iter()
        .map(|d| {
            let p: serde_json::Value = serde_json::from_str(&d.body).unwrap();
            (
                p["type"].as_str().unwrap().to_string(),
                p["data"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        ("factura.email_failed".to_string(), b.clone()),
        ("factura.emailed".to_string(), a.clone()),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn a_cancellation_queues_a_short_notice_without_attachments() {
    let mut c = client();
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let body = serde_json::json!({"motivo": "Error en el monto facturado"});
    let r = c.sandbox("POST", &format!("/v1/facturas/{id}/cancel"), Some(body));
    assert_eq!(r.status, 200, "{:?}", r.json());
    let msgs = c.svc.invoice_emails(&id);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    // Queued in the same second as the approval's: found by kind (ties are listed by id).
    let notice = msgs
        .iter()
        .find(|m| m.kind == EmailKind::Cancelled)
        .unwrap();
    assert!(
        notice
            .subject
            .starts_with("Cancelación de Factura electrónica "),
        "{}",
        notice.subject
    );
    assert!(notice.body.contains("fue cancelada"), "{}", notice.body);
    assert!(c.svc.email_attachments(notice).unwrap().is_empty());
}

/// The invoice resource's `email` (issue 36): `null` without a receiver e-mail or before anything was queued, then
/// the latest message (`captured` from the sandbox without an outbox, at once in the create answer), and with an
/// outbox `failed` with the SMTP reply as `reason` and the attempt's time as `updated_at`.
#[test]
fn the_invoice_resource_shows_its_latest_email() {
    let mut c = client();
    let mut body = factura(Some("approved"));
    body["receptor"].as_object_mut().unwrap().remove("email");
    let none = c.sandbox("POST", "/v1/facturas", Some(body));
    assert!(none.json()["data"]["email"].is_null(), "{:?}", none.json());
    let pending = c.sandbox("POST", "/v1/facturas", Some(factura(None)));
    assert!(pending.json()["data"]["email"].is_null());

    let created = c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    let email = created.json()["data"]["email"].clone();
    assert_eq!(email["status"], "captured", "{email}");
    assert_eq!(email["to"], "cliente@example.com");
    assert!(email.get("reason").is_none(), "{email}");
    let id = created.id();
    let got = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(got.json()["data"]["email"], email);

    c.svc.config.email_outbox = true;
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let now = c.host.now.unix_timestamp();
    let got = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(got.json()["data"]["email"]["status"], "pending");
    let m = c.svc.claim_emails(now, 30, usize::MAX).remove(0);
    c.svc.report_email(
        &m.id,
        attempt(
            now + 7,
            EmailOutcome::Permanent,
            Some(550),
            Some("5.1.1 no such user"),
        ),
        &mut c.host,
    );
    let got = c.sandbox("GET", &format!("/v1/facturas/{id}"), None);
    let email = got.json()["data"]["email"].clone();
    assert_eq!(email["status"], "failed", "{email}");
    assert_eq!(email["reason"], "550 5.1.1 no such user");
    assert_eq!(
        email["updated_at"],
        kuatia_service::rfc3339(now + 7).as_str()
    );
    // The list shows the same.
    let list = c.sandbox("GET", "/v1/facturas", None);
    let row = list.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id.as_str())
        .cloned()
        .unwrap();
    assert_eq!(row["email"], email);
}

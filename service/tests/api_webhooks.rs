//! The service's webhooks, driven like an HTTP client would: fan-out, signature, retries, the delivery log, get,
//! rotate, redeliver, delete and the paged list.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, factura, signature, Answer};
use kuatia_service::webhook::{
    verify_signature, SignatureError, DEFAULT_TOLERANCE, RETRY_SCHEDULE, SIGNATURE_HEADER,
};
use kuatia_service::Store;
use serde_json::{json, Value};

#[test]
fn webhooks_fan_out_sign_and_retry() {
    let mut c = client();
    let bad = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "http://x.example/hook", "events": ["factura.paid"]})),
    );
    assert_eq!(bad.status, 422);
    let paths: Vec<Value> = bad.json()["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].clone())
        .collect();
    assert_eq!(paths, vec![json!("url"), json!("events[0]")]);

    let approved = c.sandbox("POST", "/v1/webhooks", Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"], "description": "ERP"})));
    assert_eq!(approved.status, 201);
    let hook = approved.json()["data"].clone();
    let secret = hook["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let rejected = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/r", "events": ["factura.rejected"]})),
    );
    assert_eq!(rejected.status, 201);
    // Listing never shows secrets again.
    let list = c.sandbox("GET", "/v1/webhooks", None).json();
    assert_eq!(list["meta"]["total"], json!(2));
    assert!(list["data"][0].get("secret").is_none());

    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(
        due.len(),
        1,
        "only the approved-subscribed hook receives factura.approved"
    );
    let d = &due[0];
    assert_eq!(d.url, "https://erp.example/a");
    let payload: Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(payload["type"], json!("factura.approved"));
    assert_eq!(payload["data"]["id"], json!(id));
    assert_eq!(payload["data"]["status"], json!("approved"));
    assert!(payload["id"].as_str().unwrap().starts_with("evt_"));
    let header = d
        .headers
        .iter()
        .find(|(k, _)| k == SIGNATURE_HEADER)
        .unwrap()
        .1
        .clone();
    assert_eq!(
        verify_signature(&secret, &header, &d.body, now, DEFAULT_TOLERANCE),
        Ok(())
    );
    assert_eq!(
        verify_signature("whsec_wrong", &header, &d.body, now, DEFAULT_TOLERANCE),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(
            &secret,
            &header,
            &d.body.replace("approved", "rejected"),
            now,
            DEFAULT_TOLERANCE
        ),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(&secret, &header, &d.body, now + 3600, DEFAULT_TOLERANCE),
        Err(SignatureError::Expired)
    );
    assert_eq!(
        verify_signature(&secret, "garbage", &d.body, now, DEFAULT_TOLERANCE),
        Err(SignatureError::Malformed)
    );

    // Failure → retry on the backoff schedule; success → delivered; exhausted → failed.
    let r = c.svc.report_delivery(&d.id, false).unwrap();
    assert_eq!(
        (r.status.as_str(), r.next_attempt_at),
        ("pending", now + RETRY_SCHEDULE[0])
    );
    assert!(c.svc.due_deliveries(now).is_empty());
    assert_eq!(c.svc.due_deliveries(now + RETRY_SCHEDULE[0]).len(), 1);
    for _ in 0..RETRY_SCHEDULE.len() {
        c.svc.report_delivery(&d.id, false);
    }
    assert_eq!(
        c.svc.store.delivery(&d.id).map(|d| d.status),
        Some("failed".into())
    );

    // A rejection reaches only the rejected-subscribed hook.
    let mut body = factura(Some("rejected"));
    body["receptor"]["ruc"] = json!("4554737-8");
    c.sandbox("POST", "/v1/facturas", Some(body));
    let due: Vec<_> = c
        .svc
        .due_deliveries(now)
        .into_iter()
        .filter(|d| d.url.ends_with("/r"))
        .collect();
    assert_eq!(due.len(), 1);
}

#[test]
fn the_delivery_log_shows_each_webhooks_attempts() {
    let mut c = client();
    let hook = c.approved_hook();
    let log = c.sandbox("GET", &format!("/v1/webhooks/{hook}/deliveries"), None);
    assert_eq!(log.status, 200);
    assert_eq!(log.json()["data"], json!([]));
    assert_eq!(log.json()["meta"]["total"], json!(0));
    for _ in 0..3 {
        c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    }
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 3);
    c.svc.report_delivery(&due[0].id, true);
    c.svc.report_delivery(&due[1].id, false);
    let log = c
        .sandbox(
            "GET",
            &format!("/v1/webhooks/{hook}/deliveries?per_page=2"),
            None,
        )
        .json();
    assert_eq!(log["meta"]["total"], json!(3));
    assert_eq!(log["data"].as_array().unwrap().len(), 2);
    let all = c
        .sandbox("GET", &format!("/v1/webhooks/{hook}/deliveries"), None)
        .json()["data"]
        .clone();
    let by_id = |id: &str| {
        all.as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == json!(id))
            .unwrap()
            .clone()
    };
    let delivered = by_id(&due[0].id);
    assert_eq!(delivered["status"], "delivered");
    assert_eq!(delivered["attempts"], 1);
    assert_eq!(delivered["type"], "factura.approved");
    assert_eq!(delivered["next_attempt_at"], Value::Null);
    assert!(
        delivered.get("headers").is_none(),
        "no signature in the log"
    );
    let retrying = by_id(&due[1].id);
    assert_eq!(retrying["status"], "pending");
    assert_eq!(retrying["attempts"], 1);
    assert!(retrying["next_attempt_at"].is_string());
    assert_eq!(retrying["payload"]["data"]["status"], "approved");
    // Another account cannot read it; an unknown webhook is 404.
    let (_, other) = c.svc.create_account("Otra empresa", &mut c.host);
    let path = format!("/v1/webhooks/{hook}/deliveries");
    let r = c.with_key("GET", &path, None, &other, true);
    assert_eq!(r.status, 404);
    let r = c.sandbox("GET", "/v1/webhooks/wh_nope/deliveries", None);
    assert_eq!(r.status, 404);
    let r = c.sandbox("POST", &format!("/v1/webhooks/{hook}/deliveries"), None);
    assert_eq!(r.status, 405);
    let r = c.sandbox(
        "GET",
        &format!("/v1/webhooks/{hook}/deliveries?per_page=0"),
        None,
    );
    assert_eq!(r.status, 400);
}

#[test]
fn webhook_get_rotate_redeliver_delete() {
    let mut c = client();
    let created = c.sandbox(
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "https://erp.example/a", "events": ["factura.approved"]})),
    );
    assert_eq!(created.status, 201);
    let id = created.id();
    let old = created.json()["data"]["secret"]
        .as_str()
        .unwrap()
        .to_string();

    // GET: the webhook without its secret.
    let got = c.sandbox("GET", &format!("/v1/webhooks/{id}"), None);
    assert_eq!(got.status, 200);
    let got = got.json()["data"].clone();
    assert_eq!(got["url"], "https://erp.example/a");
    assert!(got.get("secret").is_none() && got["previous_secret_expires_at"].is_null());
    assert_eq!(c.sandbox("GET", "/v1/webhooks/wh_nope", None).status, 404);

    // Rotation: a new secret, shown once; both sign deliveries during the grace period (24 h by default).
    let rotated = c.sandbox("POST", &format!("/v1/webhooks/{id}/rotate"), None);
    assert_eq!(rotated.status, 200);
    let new = rotated.json()["data"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(new.starts_with("whsec_") && new != old);
    let listed = c.sandbox("GET", "/v1/webhooks", None).json();
    assert!(listed["data"][0].get("secret").is_none());
    assert!(listed["data"][0].get("previous_secret").is_none());
    assert!(listed["data"][0]["previous_secret_expires_at"].is_string());
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    let header = signature(&due[0]);
    assert_eq!(header.matches("v1=").count(), 2, "{header}");
    for s in [&old, &new] {
        assert_eq!(
            verify_signature(s, &header, &due[0].body, now, DEFAULT_TOLERANCE),
            Ok(())
        );
    }
    // After the grace period only the new secret signs.
    let later = now + 86_400;
    let header = signature(&c.svc.due_deliveries(later)[0]);
    assert_eq!(header.matches("v1=").count(), 1, "{header}");
    assert_eq!(
        verify_signature(&old, &header, &due[0].body, later, DEFAULT_TOLERANCE),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        verify_signature(&new, &header, &due[0].body, later, DEFAULT_TOLERANCE),
        Ok(())
    );

    // Manual redelivery: the same event as a new delivery, due at once.
    let first = due[0].clone();
    c.svc.report_delivery(&first.id, true);
    assert!(c.svc.due_deliveries(now).is_empty());
    let again = c.sandbox(
        "POST",
        &format!("/v1/webhooks/{id}/deliveries/{}/redeliver", first.id),
        None,
    );
    assert_eq!(again.status, 202, "{:?}", again.json());
    let again = again.json()["data"].clone();
    assert_eq!(again["event_id"], json!(first.event_id));
    assert_eq!(again["status"], "pending");
    assert_ne!(again["id"], json!(first.id));
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].body, first.body);
    let log = c
        .sandbox("GET", &format!("/v1/webhooks/{id}/deliveries"), None)
        .json();
    assert_eq!(log["meta"]["total"], 2);
    assert_eq!(
        c.sandbox(
            "POST",
            &format!("/v1/webhooks/{id}/deliveries/dlv_nope/redeliver"),
            None
        )
        .status,
        404
    );
    assert_eq!(
        c.sandbox("PUT", &format!("/v1/webhooks/{id}"), None).status,
        405
    );

    // Deletion: pending deliveries are cancelled and no new event reaches it.
    let deleted = c.sandbox("DELETE", &format!("/v1/webhooks/{id}"), None);
    assert_eq!(deleted.status, 200);
    assert!(c.svc.due_deliveries(now).is_empty());
    assert_eq!(
        c.svc.store.delivery(due[0].id.as_str()).unwrap().status,
        "cancelled"
    );
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    assert!(c.svc.due_deliveries(now + 1_000_000).is_empty());
    assert_eq!(
        c.sandbox("GET", &format!("/v1/webhooks/{id}"), None).status,
        404
    );
    assert_eq!(
        c.sandbox("DELETE", &format!("/v1/webhooks/{id}"), None)
            .status,
        404
    );
}

/// Issue 34 #7: `GET /v1/webhooks` pages like the other lists.
#[test]
fn the_webhook_list_is_paged() {
    let mut c = client();
    let mut ids = Vec::new();
    for i in 0..3 {
        let r = c.sandbox(
            "POST",
            "/v1/webhooks",
            Some(
                json!({"url": format!("https://erp.example/{i}"), "events": ["factura.approved"]}),
            ),
        );
        assert_eq!(r.status, 201, "{:?}", r.json());
        ids.push(r.json()["data"]["id"].clone());
    }
    let first = c.sandbox("GET", "/v1/webhooks?per_page=2", None).json();
    assert_eq!(first["data"].as_array().unwrap().len(), 2, "{first}");
    assert_eq!(
        (
            &first["meta"]["page"],
            &first["meta"]["per_page"],
            &first["meta"]["total"]
        ),
        (&json!(1), &json!(2), &json!(3))
    );
    assert_eq!(first["meta"]["has_more"], true);
    let second = c
        .sandbox("GET", "/v1/webhooks?per_page=2&page=2", None)
        .json();
    assert_eq!(second["data"].as_array().unwrap().len(), 1, "{second}");
    assert_eq!(second["meta"]["page"], 2);
    assert_eq!(second["meta"]["has_more"], false);
    let mut seen: Vec<Value> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["data"].as_array().unwrap())
        .map(|w| w["id"].clone())
        .collect();
    seen.sort_by_key(|v| v.to_string());
    ids.sort_by_key(|v| v.to_string());
    assert_eq!(seen, ids);
    let r = c.sandbox("GET", "/v1/webhooks?per_page=0", None);
    assert_eq!(r.status, 400);
}

/// Issue 34 #7: the delivery log's times are RFC 3339, and a deleted webhook's log stays readable (by its account
/// only).
#[test]
fn the_delivery_log_is_rfc3339_and_outlives_its_webhook() {
    let mut c = client();
    let hook = c.approved_hook();
    c.sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))));
    let now = c.host.now.unix_timestamp();
    let due = c.svc.due_deliveries(now);
    assert_eq!(due.len(), 1);
    c.svc.report_delivery(&due[0].id, false);
    let path = format!("/v1/webhooks/{hook}/deliveries");
    let log = c.sandbox("GET", &path, None).json();
    let at = log["data"][0]["log"][0]["at"].as_str().unwrap().to_string();
    time::OffsetDateTime::parse(&at, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert_eq!(log["data"][0]["log"][0]["error"], "request");

    assert_eq!(
        c.sandbox("DELETE", &format!("/v1/webhooks/{hook}"), None)
            .status,
        200
    );
    let after = c.sandbox("GET", &path, None);
    assert_eq!(after.status, 200, "{:?}", after.json());
    assert_eq!(after.json()["data"][0]["id"], json!(due[0].id));
    assert_eq!(after.json()["data"][0]["status"], "cancelled");
    let (_, other) = c.svc.create_account("Otra empresa", &mut c.host);
    assert_eq!(c.with_key("GET", &path, None, &other, true).status, 404);
    assert_eq!(
        c.sandbox("GET", &format!("/v1/webhooks/{hook}"), None)
            .status,
        404
    );
}

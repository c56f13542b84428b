//! The typed operations answer what their `/v1` routes answer: the same resource, the same page, the same error
//! (the routes are a thin mapping over them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_service::auth::Environment;
use kuatia_service::webhook::WebhookInput;
use kuatia_service::{Config, HttpRequest, MemoryStore, Service};
use serde_json::{json, Value};

fn call(
    svc: &mut Service<MemoryStore>,
    host: &mut TestHost,
    key: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Value {
    let req = HttpRequest {
        method: method.into(),
        path: path.into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
    };
    svc.handle(&req, host).json()
}

#[test]
fn typed_webhook_operations_answer_what_the_routes_answer() {
    let mut host = TestHost::new();
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (account, key) = svc.create_account("Tipos", &mut host);
    for i in 0..3 {
        let created = call(
            &mut svc,
            &mut host,
            &key,
            "POST",
            "/v1/webhooks",
            Some(
                json!({"url": format!("https://erp.example/{i}"), "events": ["factura.approved"]}),
            ),
        );
        assert_eq!(created["ok"], json!(true), "{created}");
    }
    let p = svc.principal(&account.id, Environment::Sandbox).unwrap();
    let now = host.now.unix_timestamp();

    let page = svc.list_webhooks(&p, 1, 2, now);
    let listed = call(
        &mut svc,
        &mut host,
        &key,
        "GET",
        "/v1/webhooks?per_page=2",
        None,
    );
    assert_eq!(serde_json::to_value(&page.data).unwrap(), listed["data"]);
    assert_eq!(serde_json::to_value(&page.meta).unwrap(), listed["meta"]);
    assert_eq!((page.meta.total, page.meta.has_more), (3, Some(true)));

    let id = page.data[0].id.clone();
    let one = svc.webhook(&p, &id, now).unwrap();
    let got = call(
        &mut svc,
        &mut host,
        &key,
        "GET",
        &format!("/v1/webhooks/{id}"),
        None,
    );
    assert_eq!(serde_json::to_value(&one).unwrap(), got["data"]);

    let mut missing = svc.webhook(&p, "wh_nope", now).unwrap_err();
    // A typed host writes the error for its reader, as the route does (Spanish by default).
    assert!(missing.localize(kuatia_core::msg::Lang::EsPy));
    let answer = missing.response();
    assert_eq!(answer.status, 404);
    assert_eq!(
        answer.json(),
        call(
            &mut svc,
            &mut host,
            &key,
            "GET",
            "/v1/webhooks/wh_nope",
            None
        )
    );

    let deleted = svc.delete_webhook(&p, &id).unwrap();
    assert_eq!((deleted.id.as_str(), deleted.deleted), (id.as_str(), true));
    assert_eq!(svc.delete_webhook(&p, &id).unwrap_err().status, 404);
    assert_eq!(svc.list_webhooks(&p, 1, 20, now).meta.total, 2);

    // Another environment of the same account sees none of them.
    let live = svc.principal(&account.id, Environment::Production).unwrap();
    assert_eq!(svc.list_webhooks(&live, 1, 20, now).meta.total, 0);
    assert!(svc.principal("acct_nope", Environment::Sandbox).is_none());

    let gaps = svc.number_gaps(&p).unwrap();
    let routed = call(&mut svc, &mut host, &key, "GET", "/v1/numbering/gaps", None);
    assert_eq!(serde_json::to_value(&gaps).unwrap(), routed["data"]);

    // Registration: the typed refusal is the route's 422, every finding in details; a registration shows its secret.
    let bad = WebhookInput {
        url: "http://10.0.0.1/x".into(),
        events: vec!["factura.nope".into()],
        description: None,
    };
    let mut refused = svc.register_webhook(&p, bad, &mut host).unwrap_err();
    assert!(
        refused.status == 422 && refused.details.len() >= 2,
        "{refused:?}"
    );
    let routed = call(
        &mut svc,
        &mut host,
        &key,
        "POST",
        "/v1/webhooks",
        Some(json!({"url": "http://10.0.0.1/x", "events": ["factura.nope"]})),
    );
    assert!(refused.localize(kuatia_core::msg::Lang::EsPy));
    assert_eq!(refused.response().json(), routed);
    let input = WebhookInput {
        url: "https://erp.example/typed".into(),
        events: vec!["factura.approved".into()],
        description: Some("ERP".into()),
    };
    let hook = svc.register_webhook(&p, input, &mut host).unwrap();
    assert!(hook.secret.as_deref().unwrap().starts_with("whsec_"));
    assert_eq!(
        svc.webhook(&p, &hook.id, now).unwrap().url,
        "https://erp.example/typed"
    );
}

#[test]
fn a_test_event_is_queued_signed_and_logged_like_any_event() {
    let mut host = TestHost::new();
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (account, key) = svc.create_account("Prueba", &mut host);
    let p = svc.principal(&account.id, Environment::Sandbox).unwrap();
    let input = WebhookInput {
        url: "https://erp.example/hook".into(),
        events: vec!["factura.approved".into()],
        description: None,
    };
    let hook = svc.register_webhook(&p, input, &mut host).unwrap();

    let queued = svc.send_test_event(&p, &hook.id, &mut host).unwrap();
    assert_eq!(
        (queued.webhook_id.as_str(), queued.status.as_str()),
        (hook.id.as_str(), "pending")
    );
    assert!(
        queued.event_id.starts_with("evt_") && queued.id.starts_with("dlv_"),
        "{queued:?}"
    );

    // Due now, to the webhook's URL, signed, with the shape of every event and the webhook named in `data`.
    let now = host.now.unix_timestamp();
    let due = svc.due_deliveries(now);
    assert_eq!(due.len(), 1, "{due:?}");
    assert_eq!(
        (due[0].id.as_str(), due[0].url.as_str()),
        (queued.id.as_str(), "https://erp.example/hook")
    );
    let body: Value = serde_json::from_str(&due[0].body).unwrap();
    assert_eq!(body["type"], "webhook.test");
    assert_eq!(body["id"], queued.event_id.as_str());
    assert_eq!(body["created"], now);
    assert_eq!(body["data"], json!({"webhook_id": hook.id}));
    assert!(
        due[0]
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("Kuatia-Signature")),
        "{:?}",
        due[0].headers
    );

    // The webhook's delivery log lists it, as the route answers it.
    let log = call(
        &mut svc,
        &mut host,
        &key,
        "GET",
        &format!("/v1/webhooks/{}/deliveries", hook.id),
        None,
    );
    assert_eq!(log["data"][0]["id"], queued.id.as_str(), "{log}");

    // Another environment's principal, or an unknown id, finds no webhook.
    let live = svc.principal(&account.id, Environment::Production).unwrap();
    assert_eq!(
        svc.send_test_event(&live, &hook.id, &mut host)
            .unwrap_err()
            .status,
        404
    );
    assert_eq!(
        svc.send_test_event(&p, "wh_nope", &mut host)
            .unwrap_err()
            .status,
        404
    );
    assert_eq!(svc.due_deliveries(now).len(), 1);
}

//! The typed invoice and delivery operations (`create_invoice`, `invoice`, `list_invoices` with an `InvoiceFilter`,
//! `kude`, `signed_xml`, `cancel_invoice`, `rotate_webhook`, `deliveries`, `redeliver`) called directly, and checked
//! against what their `/v1` routes answer: the same resource (the invoice byte for byte), the same page, the same
//! error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::invoice::FacturaRequest;
use kuatia_core::lifecycle::{Estado, EventKind};
use kuatia_service::auth::Environment;
use kuatia_service::webhook::WebhookInput;
use kuatia_service::{
    CancelInput, Config, HttpRequest, HttpResponse, InvoiceFilter, ListOrder, MemoryStore,
    Principal, Service,
};
use serde_json::{json, Value};

struct World {
    svc: Service<MemoryStore>,
    host: TestHost,
    key: String,
    p: Principal,
}

impl World {
    fn new() -> World {
        let mut host = TestHost::new();
        let config = Config {
            base_url: "https://api.example.test".into(),
            ..Config::default()
        };
        let mut svc = Service::new(MemoryStore::default(), config);
        let (account, key) = svc.create_account("Tipos", &mut host);
        let p = svc.principal(&account.id, Environment::Sandbox).unwrap();
        World { svc, host, key, p }
    }

    fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> HttpResponse {
        let req = HttpRequest {
            method: method.into(),
            path: path.into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {}", self.key)),
                ("X-Environment".into(), "sandbox".into()),
            ],
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        };
        self.svc.handle(&req, &mut self.host)
    }

    /// Creates an invoice (`_simulate` as given) and returns its id.
    fn create(&mut self, simulate: Option<&str>) -> String {
        let r = self.call("POST", "/v1/facturas", Some(factura(simulate)));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        r.json()["data"]["id"].as_str().unwrap().to_string()
    }
}

/// A create's body (`_simulate` as given).
fn factura(simulate: Option<&str>) -> Value {
    let mut body = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 2, "precio_unitario": 550000, "iva": 10}],
        "condicion_pago": 1
    });
    if let Some(s) = simulate {
        body["_simulate"] = json!(s);
    }
    body
}

/// A body read as the typed request `create_invoice` takes.
fn request(body: &Value) -> FacturaRequest {
    kuatia_core::invoice::parse_request(&body.to_string()).unwrap()
}

/// The `data` member of an answer written by `{"ok":true,"data":…}`, as the bytes it holds.
fn data_bytes(r: &HttpResponse) -> &[u8] {
    let body = r.body.as_slice();
    let inner = body
        .strip_prefix(br#"{"ok":true,"data":"#)
        .expect("an invoice answer");
    inner.strip_suffix(b"}").unwrap()
}

#[test]
fn a_typed_invoice_serializes_to_the_bytes_of_its_lookup() {
    let mut w = World::new();
    let id = w.create(Some("approved"));
    let invoice = w.svc.invoice(&w.p, &id).unwrap();
    assert_eq!(invoice.status, Estado::Approved);
    let doc = invoice.document().expect("the signed XML reads");
    assert_eq!(doc.items.len(), 1);
    assert_eq!(doc.emisor.ruc.split('-').count(), 2);
    // Serializing the typed resource writes exactly what the lookup splices from its cached members.
    let routed = w.call("GET", &format!("/v1/facturas/{id}"), None);
    assert_eq!(routed.status, 200);
    assert_eq!(
        serde_json::to_string(&invoice).unwrap(),
        String::from_utf8(data_bytes(&routed).to_vec()).unwrap()
    );

    let missing = w.svc.invoice(&w.p, "fact_nope").unwrap_err();
    assert_eq!(missing.status, 404);
    let routed = w.call("GET", "/v1/facturas/fact_nope", None);
    assert_eq!(spanish(&missing), routed.body);
    // Another environment of the same account has none of them.
    let live = w
        .svc
        .principal(&w.p.account.id, Environment::Production)
        .unwrap();
    assert_eq!(w.svc.invoice(&live, &id).unwrap_err().status, 404);
}

#[test]
fn typed_lists_page_and_filter_as_the_route() {
    let mut w = World::new();
    let first = w.create(Some("approved"));
    let _second = w.create(Some("rejected"));
    let third = w.create(Some("approved"));

    let filter = InvoiceFilter {
        status: Some(Estado::Approved),
        limit: Some(1),
        ..InvoiceFilter::default()
    };
    assert_eq!(filter.to_query(), "?limit=1&status=approved");
    let page = w.svc.list_invoices(&w.p, &filter).unwrap();
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.data[0].id, third, "newest first");
    assert_eq!(
        (page.meta.page, page.meta.total, page.meta.has_more),
        (Some(1), 2, Some(true))
    );
    let routed = w.call("GET", &format!("/v1/facturas{}", filter.to_query()), None);
    assert_eq!(serde_json::to_value(&page).unwrap(), {
        let mut v = routed.json();
        v.as_object_mut().unwrap().remove("ok");
        v
    });

    // The cursor of the page opens the next one, which reports its own number.
    let cursor = page.meta.next_cursor.clone().flatten().unwrap();
    let next = InvoiceFilter {
        starting_after: Some(cursor),
        ..filter.clone()
    };
    let page2 = w.svc.list_invoices(&w.p, &next).unwrap();
    assert_eq!(page2.data[0].id, first);
    assert_eq!(
        (page2.meta.page, page2.meta.has_more, page2.meta.next_cursor),
        (Some(2), Some(false), Some(None))
    );

    // The query string reads into the same filter, and ascending order turns the list round.
    let read = InvoiceFilter::from_query(&filter.to_query()[1..], 100).unwrap();
    assert_eq!(read, filter);
    let asc = InvoiceFilter {
        order: Some(ListOrder::Asc),
        ..InvoiceFilter::default()
    };
    assert_eq!(w.svc.list_invoices(&w.p, &asc).unwrap().data[0].id, first);

    // A bad value built in Rust is refused as the route refuses it in a query string.
    for (bad, query) in [
        (
            InvoiceFilter {
                cdc: Some("123".into()),
                ..InvoiceFilter::default()
            },
            "cdc=123",
        ),
        (
            InvoiceFilter {
                limit: Some(101),
                ..InvoiceFilter::default()
            },
            "limit=101",
        ),
        (
            InvoiceFilter {
                page: Some(2),
                starting_after: Some(first.clone()),
                ..InvoiceFilter::default()
            },
            &format!("page=2&starting_after={first}"),
        ),
        (
            InvoiceFilter {
                starting_after: Some("fact_nope".into()),
                ..InvoiceFilter::default()
            },
            "starting_after=fact_nope",
        ),
    ] {
        let typed = w.svc.list_invoices(&w.p, &bad).unwrap_err();
        assert_eq!(typed.status, 400, "{typed:?}");
        let routed = w.call("GET", &format!("/v1/facturas?{query}"), None);
        assert_eq!(spanish(&typed), routed.body, "{query}");
    }
    assert_eq!(
        InvoiceFilter::from_query("colour=red", 100)
            .unwrap_err()
            .code,
        "INVALID_QUERY"
    );
}

#[test]
fn typed_kude_xml_and_cancel_answer_what_the_routes_answer() {
    let mut w = World::new();
    let approved = w.create(Some("approved"));
    let pending = w.create(None);

    let kude = w.svc.kude(&w.p, &approved).unwrap();
    assert!(kude.pdf.starts_with(b"%PDF-"));
    let routed = w.call("GET", &format!("/v1/facturas/{approved}/kude"), None);
    assert_eq!(routed.body, kude.pdf);
    assert_eq!(
        routed.header("Content-Disposition"),
        Some(format!("inline; filename=\"{}\"", kude.file_name).as_str())
    );
    let refused = w.svc.kude(&w.p, &pending).unwrap_err();
    assert_eq!(
        (refused.status, refused.code.as_str()),
        (409, "KUDE_NOT_AVAILABLE")
    );

    let xml = w.svc.signed_xml(&w.p, &approved).unwrap();
    assert!(xml.xml.contains("<Signature"), "signed by the test host");
    let invoice = w.svc.invoice(&w.p, &approved).unwrap();
    assert_eq!(xml.file_name, format!("{}.xml", invoice.cdc));
    let routed = w.call("GET", &format!("/v1/facturas/{approved}/xml"), None);
    assert_eq!(routed.body, xml.xml.as_bytes());

    // Cancelling: a bad reason is the route's 422; then the sandbox cancels at once.
    let short = CancelInput {
        motivo: "no".into(),
    };
    let refused = w
        .svc
        .cancel_invoice(&w.p, &approved, short, &mut w.host)
        .unwrap_err();
    assert_eq!(refused.status, 422);
    let routed = w.call(
        "POST",
        &format!("/v1/facturas/{approved}/cancel"),
        Some(json!({"motivo": "no"})),
    );
    assert_eq!(spanish(&refused), routed.body);
    let input = CancelInput {
        motivo: "Error en los datos del receptor".into(),
    };
    let cancelled = w
        .svc
        .cancel_invoice(&w.p, &approved, input.clone(), &mut w.host)
        .unwrap();
    assert_eq!(cancelled.status, Estado::Cancelled);
    assert_eq!(
        cancelled.cancellation.as_ref().unwrap().motivo,
        input.motivo
    );
    assert_eq!(cancelled, w.svc.invoice(&w.p, &approved).unwrap());
    let again = w
        .svc
        .cancel_invoice(&w.p, &approved, input, &mut w.host)
        .unwrap_err();
    assert_eq!(
        (again.status, again.code.as_str()),
        (409, "NOT_CANCELLABLE")
    );
    let unknown = CancelInput {
        motivo: "Error en los datos".into(),
    };
    let missing = w
        .svc
        .cancel_invoice(&w.p, "fact_nope", unknown, &mut w.host)
        .unwrap_err();
    assert_eq!(missing.status, 404);
}

#[test]
fn typed_rotation_deliveries_and_redelivery() {
    let mut w = World::new();
    let input = WebhookInput {
        url: "https://erp.example/hook".into(),
        events: vec!["factura.approved".into()],
        description: None,
    };
    let hook = w.svc.register_webhook(&w.p, input, &mut w.host).unwrap();
    let invoice = w.create(Some("approved"));

    let page = w.svc.deliveries(&w.p, &hook.id, 1, 20).unwrap();
    assert_eq!(page.data.len(), 1);
    let delivery = &page.data[0];
    assert_eq!(delivery.kind, Some(EventKind::FacturaApproved));
    assert_eq!(delivery.payload.as_ref().unwrap().data.id, invoice);
    assert_eq!(
        (page.meta.has_more, page.meta.next_cursor.clone()),
        (None, None)
    );
    let routed = w.call("GET", &format!("/v1/webhooks/{}/deliveries", hook.id), None);
    let mut expected = routed.json();
    expected.as_object_mut().unwrap().remove("ok");
    assert_eq!(serde_json::to_value(&page).unwrap(), expected);

    let again = w
        .svc
        .redeliver(&w.p, &hook.id, &delivery.id, &mut w.host)
        .unwrap();
    assert_ne!(again.id, delivery.id);
    assert_eq!(
        (again.event_id.as_str(), again.status.as_str()),
        (delivery.event_id.as_str(), "pending")
    );
    assert_eq!(
        w.svc.deliveries(&w.p, &hook.id, 1, 20).unwrap().meta.total,
        2
    );
    let missing = w
        .svc
        .redeliver(&w.p, &hook.id, "dlv_nope", &mut w.host)
        .unwrap_err();
    assert_eq!(missing.status, 404);
    assert_eq!(
        w.svc.deliveries(&w.p, "wh_nope", 1, 20).unwrap_err().status,
        404
    );

    let rotated = w.svc.rotate_webhook(&w.p, &hook.id, &mut w.host).unwrap();
    let secret = rotated.secret.clone().unwrap();
    assert!(secret.starts_with("whsec_") && Some(&secret) != hook.secret.as_ref());
    assert!(rotated.previous_secret_expires_at.is_some());
    // Shown once: reading the webhook shows no secret, and the grace period's end.
    let now = w.host.now.unix_timestamp();
    let read = w.svc.webhook(&w.p, &hook.id, now).unwrap();
    assert_eq!(read.secret, None);
    assert_eq!(
        read.previous_secret_expires_at,
        rotated.previous_secret_expires_at
    );
    assert_eq!(
        w.svc
            .rotate_webhook(&w.p, "wh_nope", &mut w.host)
            .unwrap_err()
            .status,
        404
    );
}

#[test]
fn a_typed_create_is_the_routes_create() {
    // Two services with the same deterministic host: one creates through the route, the other in-process.
    let mut routed = World::new();
    let mut typed = World::new();
    for simulate in [Some("approved"), None, Some("rejected")] {
        let answer = routed.call("POST", "/v1/facturas", Some(factura(simulate)));
        assert_eq!(
            answer.status,
            201,
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
        let invoice = typed
            .svc
            .create_invoice(&typed.p, request(&factura(simulate)), &mut typed.host)
            .unwrap();
        let written = serde_json::to_string(&invoice).unwrap();
        assert_eq!(written.as_bytes(), data_bytes(&answer), "{simulate:?}");
        // The invoice it returns is the one a lookup reads afterwards, byte for byte.
        let lookup = typed.call("GET", &format!("/v1/facturas/{}", invoice.id), None);
        assert_eq!(lookup.status, 200);
        assert_eq!(written.as_bytes(), data_bytes(&lookup), "{simulate:?}");
        assert_eq!(invoice, typed.svc.invoice(&typed.p, &invoice.id).unwrap());
        assert!(invoice.document().is_some(), "signed by the test host");
    }
    let listed = typed
        .svc
        .list_invoices(&typed.p, &InvoiceFilter::default())
        .unwrap();
    assert_eq!(listed.meta.total, 3);
    assert_eq!(listed.data[2].status, Estado::Approved);
    assert_eq!(listed.data[0].status, Estado::Rejected);
}

#[test]
fn a_refused_typed_create_is_the_routes_error() {
    let mut w = World::new();
    let mut bad_ruc = factura(None);
    bad_ruc["receptor"]["ruc"] = json!("80069563-2");
    let mut no_items = factura(None);
    no_items["items"] = json!([]);
    let mut both = bad_ruc.clone();
    both["items"] = json!([]);
    let mut bad_stamp = factura(None);
    bad_stamp["establecimiento"] = json!("999");
    for (name, body, code) in [
        ("bad RUC", &bad_ruc, "INVALID_RUC"),
        ("no items", &no_items, "VALIDATION_ERROR"),
        ("both", &both, "INVALID_RUC"),
        ("no stamp", &bad_stamp, "INVALID_TIMBRADO"),
    ] {
        let typed = w
            .svc
            .create_invoice(&w.p, request(body), &mut w.host)
            .unwrap_err();
        let routed = w.call("POST", "/v1/facturas", Some(body.clone()));
        assert_eq!((typed.status, typed.code.as_str()), (422, code), "{name}");
        assert!(!typed.details.is_empty(), "{name}");
        assert_eq!(routed.status, typed.status, "{name}");
        assert_eq!(routed.json()["error"]["code"], typed.code, "{name}");
        // The route writes its refusal in the reader's language (Spanish without Accept-Language); the typed
        // operation leaves that to its host.
        let mut typed = typed;
        let in_spanish = typed.localize(kuatia_core::msg::Lang::EsPy);
        assert!(
            in_spanish,
            "{name}: every finding of these refusals has a rule"
        );
        assert_eq!(spanish(&typed), routed.body, "{name}");
    }
    assert_eq!(
        w.svc
            .list_invoices(&w.p, &InvoiceFilter::default())
            .unwrap()
            .meta
            .total,
        0,
        "nothing issued"
    );
}

#[test]
fn a_typed_create_in_production_needs_a_profile() {
    let mut w = World::new();
    let live_key = w
        .svc
        .create_key(&w.p.account.id, Environment::Production, &mut w.host)
        .unwrap();
    let live = w
        .svc
        .principal(&w.p.account.id, Environment::Production)
        .unwrap();
    let refused = w
        .svc
        .create_invoice(&live, request(&factura(None)), &mut w.host)
        .unwrap_err();
    assert_eq!(
        (refused.status, refused.code.as_str()),
        (422, "PRODUCTION_NOT_CONFIGURED")
    );
    let routed = w.svc.handle(
        &HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![("Authorization".into(), format!("Bearer {live_key}"))],
            body: factura(None).to_string().into_bytes(),
        },
        &mut w.host,
    );
    assert_eq!(spanish(&refused), routed.body);
    // `_simulate` is the sandbox's: refused in production before the profile is looked at, as the route does.
    let simulated = w
        .svc
        .create_invoice(&live, request(&factura(Some("approved"))), &mut w.host)
        .unwrap_err();
    assert_eq!(
        (simulated.status, simulated.code.as_str()),
        (422, "SIMULATE_NOT_ALLOWED")
    );
}

/// The answer a typed host writes for a typed error, in the route's default language (Spanish of Paraguay): text that
/// has no rule yet stays as built, as the route leaves it.
fn spanish(e: &kuatia_service::ApiError) -> Vec<u8> {
    let mut e = e.clone();
    e.localize(kuatia_core::msg::Lang::EsPy);
    e.response().body
}

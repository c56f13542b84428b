//! The service's HTTP surface, driven like an HTTP client would: every status and error code, auth and body
//! hygiene, query parameters, cursor pages, and every shape error of a body at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use client::{client, details, factura, Answer};
use kuatia_service::HttpRequest;
use serde_json::{json, Value};

#[test]
fn status_and_error_codes() {
    let mut c = client();
    let key = c.key.clone();
    // 401: missing, malformed, unknown.
    assert_eq!(
        c.call("GET", "/v1/facturas", None, &[], None, true).status,
        401
    );
    assert_eq!(
        c.with_key("GET", "/v1/facturas", None, "nope", true).json()["error"]["code"],
        json!("UNAUTHORIZED")
    );
    let unknown = format!("dk_test_{}", "A".repeat(40));
    assert_eq!(
        c.with_key("GET", "/v1/facturas", None, &unknown, true)
            .status,
        401
    );
    // A test key without the sandbox header.
    let r = c.with_key("GET", "/v1/facturas", None, &key, false);
    assert_eq!(r.code(), (400, json!("SANDBOX_HEADER_REQUIRED")));
    // Routes and methods.
    assert_eq!(c.sandbox("GET", "/v1/nothing", None).status, 404);
    assert_eq!(c.sandbox("GET", "/v2/facturas", None).status, 404);
    let r = c.sandbox("DELETE", "/v1/facturas", None);
    assert_eq!((r.status, r.header("Allow")), (405, Some("GET, POST")));
    assert_eq!(
        c.sandbox("GET", "/v1/facturas/fact_doesnotexist", None)
            .status,
        404
    );
    // Empty list.
    let l = c.sandbox("GET", "/v1/facturas", None).json();
    assert_eq!(
        (
            l["data"].clone(),
            l["meta"]["total"].clone(),
            l["meta"]["page"].clone()
        ),
        (json!([]), json!(0), json!(1))
    );
    // Malformed JSON → 400; validation → 422 with every finding.
    let key2 = c.key.clone();
    let bad = HttpRequest {
        method: "POST".into(),
        path: "/v1/facturas".into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key2}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: b"{\"tipo_documento\":".to_vec(),
    };
    let r = c.svc.handle(&bad, &mut c.host);
    assert_eq!(r.code(), (400, json!("MALFORMED_JSON")));
    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("80069563-2");
    body["items"][0]["iva"] = json!(12);
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], json!("INVALID_RUC"));
    assert_eq!(r.json()["error"]["details"].as_array().unwrap().len(), 2);
    let mut body = factura(None);
    body["establecimiento"] = json!("009");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.code(), (422, json!("INVALID_TIMBRADO")));
    // ... and the same with _simulate: it simulates SIFEN only, never the stamp, establishment or point (issue 14).
    let mut body = factura(Some("approved"));
    body["establecimiento"] = json!("009");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.code(), (422, json!("INVALID_TIMBRADO")));
    assert_eq!(c.sandbox("GET", "/v1/health", None).status, 200);
}

/// Issue 16: the auth scheme is case-insensitive, a non-JSON body is 415, a replay says so, health says nothing else.
#[test]
fn http_hygiene_in_the_core() {
    let mut c = client();
    let key = c.key.clone();
    let auth = format!("bearer {key}");
    let r = c.call(
        "GET",
        "/v1/facturas",
        None,
        &[("Authorization", &auth)],
        None,
        true,
    );
    assert_eq!(r.status, 200);
    let r = c.call(
        "POST",
        "/v1/facturas",
        Some(factura(Some("approved"))),
        &[("Content-Type", "text/plain")],
        Some(&key),
        true,
    );
    assert_eq!(r.code(), (415, json!("UNSUPPORTED_MEDIA_TYPE")));
    let idem = [
        ("Content-Type", "application/json"),
        ("Idempotency-Key", "k-1"),
    ];
    // The first answer, then its replay: the same invoice.
    let mut ids = vec![];
    for replayed in [None, Some("true")] {
        let r = c.call(
            "POST",
            "/v1/facturas",
            Some(factura(Some("approved"))),
            &idem,
            Some(&key),
            true,
        );
        assert_eq!((r.status, r.header("Idempotent-Replayed")), (201, replayed));
        ids.push(r.id());
    }
    assert_eq!(ids[0], ids[1]);
    let h = c.call("GET", "/v1/health", None, &[], None, false);
    assert_eq!(h.json(), json!({"ok": true, "data": {"status": "ok"}}));
}

/// Issue 34 #7: every route refuses a query parameter it does not take (400 `INVALID_QUERY` naming it), the
/// read-only lookup beside the writer too.
#[test]
fn unknown_query_parameters_are_refused_on_every_route() {
    let mut c = client();
    let inv = c.sandbox("POST", "/v1/facturas", Some(factura(None))).id();
    let hook = c.approved_hook();
    for (method, path, body) in [
        ("GET", format!("/v1/facturas/{inv}?foo=1"), None),
        ("GET", format!("/v1/facturas/{inv}/kude?foo=1"), None),
        ("GET", format!("/v1/facturas/{inv}/xml?foo"), None),
        ("GET", "/v1/webhooks?foo=1".to_string(), None),
        ("GET", format!("/v1/webhooks/{hook}?foo=1"), None),
        ("GET", "/v1/numbering/gaps?foo=1".to_string(), None),
        ("POST", "/v1/facturas?foo".to_string(), Some(factura(None))),
        (
            "POST",
            format!("/v1/facturas/{inv}/cancel?foo=1"),
            Some(json!({"motivo": "Error en el monto facturado"})),
        ),
    ] {
        let r = c.sandbox(method, &path, body);
        assert_eq!(r.status, 400, "{method} {path}: {:?}", r.json());
        assert_eq!(r.json()["error"]["code"], "INVALID_QUERY", "{path}");
        assert!(
            r.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("'foo'"),
            "{path}: {:?}",
            r.json()
        );
    }
    // Nothing was created by the refused create.
    assert_eq!(
        c.sandbox("GET", "/v1/facturas", None).json()["meta"]["total"],
        json!(1)
    );
    // The lookup beside the writer answers as `handle`.
    let key = c.key.clone();
    let req = HttpRequest {
        method: "GET".into(),
        path: format!("/v1/facturas/{inv}?foo=1"),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: Vec::new(),
    };
    let r = c.svc.lookup(&req).unwrap();
    assert_eq!(r.status, 400);
    // The routes still answer without the parameter.
    assert_eq!(
        c.sandbox("GET", &format!("/v1/facturas/{inv}"), None)
            .status,
        200
    );
}

/// Issue 34 #7: every page of a cursor walk reports its own `meta.page` (the cursor carries it).
#[test]
fn cursor_pages_report_their_page() {
    let mut c = client();
    c.create_many(5, None);
    let mut path = "/v1/facturas?limit=2".to_string();
    let mut pages = Vec::new();
    let mut ids = Vec::new();
    loop {
        let v = c.sandbox("GET", &path, None).json();
        pages.push(v["meta"]["page"].clone());
        ids.extend(
            v["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].clone()),
        );
        match v["meta"]["next_cursor"].as_str() {
            Some(cursor) => path = format!("/v1/facturas?limit=2&starting_after={cursor}"),
            None => break,
        }
    }
    assert_eq!(pages, [json!(1), json!(2), json!(3)]);
    assert_eq!(ids.len(), 5);
    // A bare invoice id still works as a cursor; it says no page.
    let bare = ids[1].as_str().unwrap();
    let v = c
        .sandbox(
            "GET",
            &format!("/v1/facturas?limit=2&starting_after={bare}"),
            None,
        )
        .json();
    assert_eq!(v["data"][0]["id"], ids[2]);
    assert_eq!(v["meta"]["page"], Value::Null);
    // A cursor of an unknown invoice is refused, with or without a page.
    for bad in [
        "fact_nope.2",
        "fact_nope",
        &format!("{bare}.x"),
        &format!("{bare}.1"),
    ] {
        let r = c.sandbox("GET", &format!("/v1/facturas?starting_after={bad}"), None);
        assert_eq!(r.status, 400, "{bad}");
    }
}

/// Issue 34 #7: a RUC with a space inside (`80069563 -1`) is refused by the API, as by every face (one parser).
#[test]
fn a_ruc_with_a_space_inside_is_refused() {
    let mut c = client();
    let mut body = factura(None);
    body["receptor"]["ruc"] = json!("80069563 -1");
    let r = c.sandbox("POST", "/v1/facturas", Some(body));
    assert_eq!(r.status, 422, "{:?}", r.json());
    assert_eq!(r.json()["error"]["code"], "INVALID_RUC");
    let r = c.sandbox("GET", "/v1/facturas?receptor_ruc=80069563%20-1", None);
    assert_eq!(r.status, 400);
}

/// Issue 34 #4: every shape error of a body at once, next to the rules' findings, on the create, cancel and webhook
/// routes; no serde words (`u8`, `struct`, `EOF`).
#[test]
fn every_shape_error_of_a_body_at_once() {
    let mut c = client();
    let p = |c: &str, p: &str| (c.to_string(), p.to_string());
    let r = c.sandbox(
        "POST",
        "/v1/facturas",
        Some(
            json!({"tipo_documento": 1, "receptor": {"ruc": "80069563-1"},
                    "items": [{"descripcion": "a", "cantidad": 1, "precio_unitario": 1000}]}),
        ),
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.REQUIRED", "receptor.razon_social"),
            p("VALIDATION_ERROR.REQUIRED", "items[0].iva")
        ]
    );
    let r = c.sandbox(
        "POST",
        "/v1/facturas",
        Some(json!({"tipo_documento": 99, "receptor": {"ruc": "80069563-2", "razon_social": "Cliente"},
                    "items": [{"descripcion": "", "cantidad": -1, "precio_unitario": "abc", "iva": 7}]})),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["code"], json!("INVALID_RUC"));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "items[0].precio_unitario"),
            p("VALIDATION_ERROR.INVALID_VALUE", "tipo_documento"),
            p("INVALID_RUC", "receptor.ruc"),
            p("VALIDATION_ERROR.REQUIRED", "items[0].descripcion"),
            p("VALIDATION_ERROR.OUT_OF_RANGE", "items[0].cantidad"),
            p("VALIDATION_ERROR.INVALID_VALUE", "items[0].iva"),
        ]
    );
    let mut typed = factura(None);
    typed["tipo_documento"] = json!("1");
    let r = c.sandbox("POST", "/v1/facturas", Some(typed));
    assert_eq!(r.status, 422);
    let f = &r.json()["error"]["details"][0];
    assert_eq!(
        (f["path"].clone(), f["message"].clone()),
        (
            json!("tipo_documento"),
            json!("El valor debe ser un número entero; se recibió texto")
        )
    );
    for body in ["null", "[]", "1"] {
        let mut req = HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers: vec![
                ("Authorization".into(), format!("Bearer {}", c.key)),
                ("X-Environment".into(), "sandbox".into()),
            ],
            body: body.as_bytes().to_vec(),
        };
        let r = c.svc.handle(&req, &mut c.host);
        assert_eq!(r.status, 422, "{body}");
        let f = &r.json()["error"]["details"][0];
        assert_eq!(
            (f["path"].clone(), f["message"].clone()),
            (
                json!(""),
                json!("El cuerpo de la solicitud debe ser un objeto JSON")
            ),
            "{body}"
        );
        // A repeated key: at the path of the repetition, not the root.
        req.body = br#"{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo"},"items":[{"descripcion":"a","cantidad":1,"precio_unitario":1000,"iva":10,"cantidad":2}]}"#.to_vec();
        let r = c.svc.handle(&req, &mut c.host);
        assert_eq!(
            details(&r),
            [p("VALIDATION_ERROR.NOT_ALLOWED", "items[0].cantidad")]
        );
    }
    // Cancel: no body, `{}`, a wrong type, an unknown field.
    let id = c
        .sandbox("POST", "/v1/facturas", Some(factura(Some("approved"))))
        .id();
    let cancel = format!("/v1/facturas/{id}/cancel");
    for body in [None, Some(json!({}))] {
        let r = c.sandbox("POST", &cancel, body.clone());
        assert_eq!(r.status, 422, "{body:?}");
        let f = &r.json()["error"]["details"][0];
        assert_eq!(
            (f["code"].clone(), f["path"].clone(), f["message"].clone()),
            (
                json!("VALIDATION_ERROR.REQUIRED"),
                json!("motivo"),
                json!("El campo es obligatorio")
            ),
            "{body:?}"
        );
    }
    let r = c.sandbox("POST", &cancel, Some(json!({"motivo": 5, "x": 1})));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "motivo"),
            p("VALIDATION_ERROR.NOT_ALLOWED", "x")
        ]
    );
    // Webhook registration: both fields at once.
    let r = c.sandbox("POST", "/v1/webhooks", Some(json!({"url": 1})));
    assert_eq!(
        details(&r),
        [
            p("VALIDATION_ERROR.INVALID_TYPE", "url"),
            p("VALIDATION_ERROR.REQUIRED", "events")
        ]
    );
}

/// An empty create body is `MALFORMED_JSON` (400), as the same empty text is on every face (the adversarial table);
/// only the routes whose body names what they need (cancel: `motivo`) read an absent body as `{}`.
#[test]
fn an_empty_create_body_is_malformed_json_as_on_every_face() {
    let mut c = client();
    let r = c.create_raw("", "empty-1", None);
    assert_eq!(r.code(), (400, json!("MALFORMED_JSON")), "{:?}", r.json());
}

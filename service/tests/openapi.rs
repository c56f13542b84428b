//! `GET /v1/openapi.json` (feature `openapi-doc`): the committed OpenAPI document, without an API key, through the
//! route table (405 with `Allow` for another method, like every route). docs/openapi.json's drift from the route
//! table and the types is scripts/ffi-check.sh's; its validity and the server's conformance to it are
//! scripts/api-fuzz.sh's.
#![cfg(feature = "openapi-doc")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_service::{Config, HttpRequest, MemoryStore, Service, OPENAPI_JSON};

fn get(svc: &mut Service<MemoryStore>, method: &str, path: &str) -> kuatia_service::HttpResponse {
    let req = HttpRequest {
        method: method.into(),
        path: path.into(),
        headers: vec![],
        body: vec![],
    };
    svc.handle(&req, &mut TestHost::new())
}

#[test]
fn the_document_is_served_without_a_key() {
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let r = get(&mut svc, "GET", "/v1/openapi.json");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("Content-Type"),
        Some("application/json; charset=utf-8")
    );
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json"))
            .unwrap();
    assert_eq!(std::str::from_utf8(&r.body).unwrap(), committed);
    assert_eq!(OPENAPI_JSON, committed);
    let doc = r.json();
    assert_eq!(doc["openapi"], "3.1.0");
    // The document describes itself, and every other route of the table.
    assert_eq!(
        doc["paths"]["/v1/openapi.json"]["get"]["operationId"],
        "openapi"
    );
    assert_eq!(
        doc["paths"]["/v1/facturas"]["post"]["operationId"],
        "createInvoice"
    );

    let post = get(&mut svc, "POST", "/v1/openapi.json");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("Allow"), Some("GET"));
    // Like the health check, it answers before the key and query checks.
    assert_eq!(get(&mut svc, "GET", "/v1/openapi.json?x=1").status, 200);
}

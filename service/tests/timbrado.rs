//! INVALID_TIMBRADO (issue 2, the user's spec §7): a stamp that expired before the emission date, one that has not
//! started yet, and one that does not cover the document type — each refused with the code and its JSON path by
//! `validate`, by `issue`, and by the service (`POST /v1/facturas` → 422 INVALID_TIMBRADO with every finding).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/client.rs"]
mod client;
#[path = "common/host.rs"]
mod host;

use host::TestHost;
use kuatia_core::cdc::FixedSecurityCode;
use kuatia_core::error::Finding;
use kuatia_core::invoice::{parse_request, FacturaRequest};
use kuatia_core::issue::{issue, MemoryNumbering};
use kuatia_core::profile::{Ambiente, Emisor, Timbrado};
use kuatia_core::sign::sandbox_test_signer;
use kuatia_core::validate::validate;
use kuatia_service::auth::Environment;
use kuatia_service::{Config, HttpRequest, HttpResponse, MemoryStore, Service, Store};
use serde_json::{json, Value};
use time::macros::{date, datetime};
use time::{Date, PrimitiveDateTime};

/// The emission time of every case: 2025-03-10 10:11 in Asunción (13:11 UTC).
const NOW: PrimitiveDateTime = datetime!(2025-03-10 10:11:00);

/// The sandbox profile with a single stamp.
fn profile(inicio: Date, fin: Option<Date>, tipos: &[u8]) -> Emisor {
    let mut e = Emisor::sandbox();
    e.timbrados = vec![Timbrado {
        numero: "12558946".into(),
        fecha_inicio: inicio,
        fecha_fin: fin,
        tipos_documento: tipos.to_vec(),
        establecimiento: "001".into(),
        punto_expedicion: "001".into(),
    }];
    e
}

fn expired() -> Emisor {
    profile(
        date!(2024 - 01 - 01),
        Some(date!(2025 - 03 - 09)),
        &[1, 4, 5, 6, 7],
    )
}

fn not_started() -> Emisor {
    profile(date!(2025 - 03 - 11), None, &[1, 4, 5, 6, 7])
}

fn factura_only() -> Emisor {
    profile(date!(2024 - 01 - 01), None, &[1])
}

fn factura() -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

/// A credit note for the same receiver (the type the `factura_only` stamp does not cover).
fn nota_credito() -> Value {
    json!({
        "tipo_documento": 5, "motivo": 2,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "documentos_asociados": [{"cdc": "01444444017001001000000122025031011234567890"}],
        "items": [{"descripcion": "Devolución", "cantidad": 1, "precio_unitario": 110000, "iva": 10}]
    })
}

fn req(v: &Value) -> FacturaRequest {
    parse_request(&v.to_string()).unwrap()
}

/// Exactly one finding, INVALID_TIMBRADO at `tipo_documento`, with `why` in its message.
fn assert_only_invalid_timbrado(findings: &[Finding], why: &str) {
    assert_eq!(
        findings
            .iter()
            .map(|f| (f.code.as_str(), f.path.as_str()))
            .collect::<Vec<_>>(),
        [("INVALID_TIMBRADO", "tipo_documento")],
        "{findings:?}"
    );
    assert!(
        findings[0]
            .message_in(kuatia_core::msg::Lang::En)
            .contains(why),
        "{findings:?}"
    );
}

/// (profile, request, words of the expected message) for the three cases.
fn cases() -> Vec<(&'static str, Emisor, Value, &'static str)> {
    vec![
        ("expired", expired(), factura(), "valid on 10/03/2025"),
        (
            "not yet started",
            not_started(),
            factura(),
            "valid on 10/03/2025",
        ),
        (
            "type not covered",
            factura_only(),
            nota_credito(),
            "covers this document type",
        ),
    ]
}

#[test]
fn validate_refuses_each_stamp_problem_with_its_path() {
    for (name, emisor, body, why) in cases() {
        let findings = validate(&req(&body), &emisor, NOW);
        assert_only_invalid_timbrado(&findings, why);
        // The same request is valid with the built-in profile: the stamp is the only problem.
        assert_eq!(
            validate(&req(&body), &Emisor::sandbox(), NOW),
            vec![],
            "{name}"
        );
    }
}

#[test]
fn stamp_validity_bounds_are_inclusive_days_of_the_emission_date() {
    let fe = req(&factura());
    // Last day of the stamp and first day of the stamp: valid.
    let last_day = profile(date!(2024 - 01 - 01), Some(date!(2025 - 03 - 10)), &[1]);
    assert_eq!(validate(&fe, &last_day, NOW), vec![]);
    let first_day = profile(date!(2025 - 03 - 10), None, &[1]);
    assert_eq!(validate(&fe, &first_day, NOW), vec![]);
    // The emission date (`fecha`), not the clock, decides: issued on 03-10 for an emission dated 03-08,
    // with a stamp that starts on 03-09.
    let mut dated = factura();
    dated["fecha"] = json!("2025-03-08T09:00:00");
    let from_9 = profile(date!(2025 - 03 - 09), None, &[1]);
    assert_only_invalid_timbrado(&validate(&req(&dated), &from_9, NOW), "valid on 08/03/2025");
    // ... and an emission dated 03-12 (within the 5 days ahead) is past a stamp that ended on 03-11.
    dated["fecha"] = json!("2025-03-12T09:00:00");
    let until_11 = profile(date!(2024 - 01 - 01), Some(date!(2025 - 03 - 11)), &[1]);
    assert_only_invalid_timbrado(
        &validate(&req(&dated), &until_11, NOW),
        "valid on 12/03/2025",
    );
    // A second stamp that covers the type and date is picked instead of the expired one.
    let mut two = expired();
    two.timbrados.push(Timbrado {
        numero: "12558947".into(),
        fecha_inicio: date!(2025 - 03 - 01),
        fecha_fin: None,
        tipos_documento: vec![1],
        establecimiento: "001".into(),
        punto_expedicion: "001".into(),
    });
    assert_eq!(validate(&fe, &two, NOW), vec![]);
}

#[test]
fn issue_refuses_each_stamp_problem_before_numbering_or_signing() {
    let signer = sandbox_test_signer().unwrap();
    for (_, emisor, body, why) in cases() {
        let mut numbering = MemoryNumbering::default();
        let err = issue(
            &emisor,
            &req(&body),
            &signer,
            NOW,
            &mut FixedSecurityCode(123_456_789),
            &mut numbering,
        )
        .unwrap_err();
        assert_only_invalid_timbrado(&err.0, why);
    }
}

// ------------------------------------------------------------------------------------------------
// Through the service

/// A service with one account whose sandbox (and, when `production`, live) profile is `emisor`.
struct Client {
    svc: Service<MemoryStore>,
    host: TestHost,
    test_key: String,
    live_key: String,
}

fn client(emisor: &Emisor) -> Client {
    let mut host = TestHost::new();
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (account, test_key) = svc.create_account("Empresa de prueba", &mut host);
    let live_key = svc
        .create_key(&account.id, Environment::Production, &mut host)
        .unwrap();
    let mut acc = svc.store.account(&account.id).unwrap();
    acc.sandbox = emisor.clone();
    // The production profile: same stamps, the emitter RUC of the sandbox certificate (valid until 2054).
    let mut prod = emisor.clone();
    prod.ambiente = Ambiente::Produccion;
    acc.production = Some(prod);
    svc.store.put_account(acc);
    Client {
        svc,
        host,
        test_key,
        live_key,
    }
}

impl Client {
    fn post(&mut self, body: &Value, sandbox: bool) -> HttpResponse {
        let key = if sandbox {
            &self.test_key
        } else {
            &self.live_key
        };
        let mut headers = vec![("Authorization".to_string(), format!("Bearer {key}"))];
        if sandbox {
            headers.push(("X-Environment".to_string(), "sandbox".to_string()));
        }
        let req = HttpRequest {
            method: "POST".into(),
            path: "/v1/facturas".into(),
            headers,
            body: body.to_string().into_bytes(),
        };
        self.svc.handle(&req, &mut self.host)
    }
}

/// 422 INVALID_TIMBRADO whose details are exactly the one finding at `tipo_documento`.
fn assert_422_invalid_timbrado(r: &HttpResponse, name: &str) {
    let body = r.json();
    assert_eq!(r.status, 422, "{name}: {body}");
    assert_eq!(body["ok"], json!(false), "{name}");
    assert_eq!(
        body["error"]["code"],
        json!("INVALID_TIMBRADO"),
        "{name}: {body}"
    );
    let details = client::details(r);
    assert_eq!(
        details,
        [("INVALID_TIMBRADO".to_string(), "tipo_documento".to_string())],
        "{name}: {body}"
    );
}

#[test]
fn post_facturas_answers_422_invalid_timbrado_in_sandbox_and_production() {
    for (name, emisor, body, _) in cases() {
        let mut c = client(&emisor);
        assert_422_invalid_timbrado(&c.post(&body, true), &format!("{name} (sandbox)"));
        assert_422_invalid_timbrado(&c.post(&body, false), &format!("{name} (production)"));
        // Nothing was stored or numbered.
        for sandbox in [true, false] {
            let key = if sandbox { &c.test_key } else { &c.live_key };
            let mut headers = vec![("Authorization".to_string(), format!("Bearer {key}"))];
            if sandbox {
                headers.push(("X-Environment".to_string(), "sandbox".to_string()));
            }
            let list = c.svc.handle(
                &HttpRequest {
                    method: "GET".into(),
                    path: "/v1/facturas".into(),
                    headers,
                    body: vec![],
                },
                &mut c.host,
            );
            assert_eq!(list.json()["meta"]["total"], json!(0), "{name}");
        }
        // The same body with a valid stamp is created (the stamp was the only problem).
        let mut ok = client(&Emisor::sandbox());
        assert_eq!(ok.post(&body, true).status, 201, "{name}");
    }
}

#[test]
fn simulate_simulates_sifen_not_the_stamp() {
    // Issue 14: `_simulate` only simulates SIFEN's answer; an expired stamp is refused exactly as without it (the
    // built-in sandbox profile's stamps are always valid, so the spec's sandbox flow never meets INVALID_TIMBRADO).
    let mut c = client(&expired());
    let mut body = factura();
    body["_simulate"] = json!("approved");
    let r = c.post(&body, true);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("INVALID_TIMBRADO"))
    );
    let mut ok = client(&Emisor::sandbox());
    let r = ok.post(&body, true);
    assert_eq!(r.status, 201, "{}", r.json());
    assert_eq!(r.json()["data"]["status"], json!("approved"));
}

//! Requests shared by the totals and validation tests (totals.rs, validate_table.rs): the spec's sandbox example and
//! SIFEN.md §3.6's four items, a fixed issue time, and parsing shortcuts.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::de::TipoDocumento;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::invoice::{parse_request, parse_request_bytes};
use kuatia_core::profile::Emisor;
use kuatia_core::totals::compute;
use kuatia_core::validate::{validate, validate_json};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;

pub fn now() -> time::PrimitiveDateTime {
    kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap()
}

pub fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

pub fn req(v: Value) -> kuatia_core::invoice::FacturaRequest {
    parse_request(&v.to_string()).unwrap()
}

/// The spec's own sandbox request (service-api.md §2.2).
pub fn spec_example() -> Value {
    json!({
        "tipo_documento": 1,
        "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

/// The four items of SIFEN.md §3.6 (xmlgen reference results).
pub fn four_items() -> Value {
    json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "1234567-9", "razon_social": "Receptor de Prueba"},
        "items": [
            {"codigo": "A-10", "descripcion": "A diez", "cantidad": 2, "precio_unitario": 55000, "iva": 10},
            {"codigo": "B-05", "descripcion": "B cinco", "cantidad": 3, "precio_unitario": 21000, "iva": 5},
            {"codigo": "C-EX", "descripcion": "C exento", "cantidad": 1, "precio_unitario": 50000, "iva": 0},
            {"codigo": "D-GP", "descripcion": "D parcial", "cantidad": 1, "precio_unitario": 20500, "iva": 10,
             "afectacion_iva": 4, "proporcion_iva": 30}
        ]
    })
}

//! Totals against the worked examples of SIFEN.md §3.6, and validation against a table of bad inputs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::de::TipoDocumento;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::invoice::{parse_request, parse_request_bytes};
use kuatia_core::profile::Emisor;
use kuatia_core::totals::compute;
use kuatia_core::validate::{validate, validate_json};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;

fn now() -> time::PrimitiveDateTime {
    kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap()
}

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn req(v: Value) -> kuatia_core::invoice::FacturaRequest {
    parse_request(&v.to_string()).unwrap()
}

/// The spec's own sandbox request (service-api.md §2.2).
fn spec_example() -> Value {
    json!({
        "tipo_documento": 1,
        "_simulate": "approved",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.", "email": "cliente@example.com"},
        "items": [{"descripcion": "Servicio de consultoría", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
}

/// The four items of SIFEN.md §3.6 (xmlgen reference results).
fn four_items() -> Value {
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

#[test]
fn sifen_3_6_reference_items_and_totals() {
    let c = compute(&req(four_items())).unwrap();
    let ivas: Vec<_> = c.items.iter().map(|i| i.iva.clone().unwrap()).collect();
    assert_eq!(ivas[0].base_gravada, d("100000"));
    assert_eq!(ivas[0].liquidacion, d("10000"));
    assert_eq!(ivas[1].base_gravada, d("60000"));
    assert_eq!(ivas[1].liquidacion, d("3000"));
    assert_eq!(ivas[2].base_gravada, d("0"));
    assert_eq!(ivas[3].base_gravada, d("5970.87378641"));
    assert_eq!(ivas[3].liquidacion, d("597.08737864"));
    assert_eq!(ivas[3].base_exenta, d("13932.03883495"));
    for (item, iva) in c
        .items
        .iter()
        .zip(&ivas)
        .filter(|(_, iva)| matches!(iva.afectacion, 1 | 4))
    {
        // E735 + E736 + E737 = V within the 8-decimal rounding of each term.
        let sum = iva.base_gravada + iva.liquidacion + iva.base_exenta;
        assert!((sum - item.valor.as_ref().unwrap().total).abs() <= d("0.00000002"));
    }
    let t = c.totales.unwrap();
    assert_eq!(t.sub_exenta, Some(d("63932")));
    assert_eq!(t.sub_exonerada, Some(d("0")));
    assert_eq!(t.sub_5, Some(d("63000")));
    assert_eq!(t.sub_10, Some(d("116568")));
    assert_eq!(t.total_operacion, d("243500"));
    assert_eq!(t.redondeo, d("0"));
    assert_eq!(t.total_general, d("243500"));
    assert_eq!(t.iva_5, Some(d("3000")));
    assert_eq!(t.iva_10, Some(d("10597")));
    assert_eq!(t.total_iva, Some(d("13597")));
    assert_eq!(t.base_gravada_5, Some(d("60000")));
    assert_eq!(t.base_gravada_10, Some(d("105971")));
    assert_eq!(t.total_base_gravada, Some(d("165971")));
    assert_eq!(t.liq_iva_10, Some(d("0")));
}

#[test]
fn sifen_3_6_usd_example() {
    let v = json!({
        "tipo_documento": 1, "moneda": "USD", "tipo_cambio": "7300.5",
        "receptor": {"ruc": "80069563-1", "razon_social": "Importadora Ñandutí S.A."},
        "items": [{"descripcion": "Licencia anual", "cantidad": 1.5, "precio_unitario": 123.45, "iva": 10}]
    });
    let c = compute(&req(v)).unwrap();
    let item = &c.items[0];
    assert_eq!(item.valor.as_ref().unwrap().total_bruto, d("185.18"));
    assert_eq!(item.iva.as_ref().unwrap().base_gravada, d("168.34545455"));
    assert_eq!(item.iva.as_ref().unwrap().liquidacion, d("16.83454546"));
    let t = c.totales.unwrap();
    assert_eq!(t.sub_10, Some(d("185.18")));
    assert_eq!(t.iva_10, Some(d("16.83")));
    assert_eq!(t.base_gravada_10, Some(d("168.35")));
    assert_eq!(t.total_general, d("185.18"));
    assert_eq!(t.total_guaranies, Some(d("1351907")));
}

#[test]
fn sedeco_rounding_to_50_guaranies() {
    for (amount, redondeo, total) in [
        ("107437", "37", "107400"),
        ("47789", "39", "47750"),
        ("50000", "0", "50000"),
    ] {
        let v = json!({
            "tipo_documento": 1, "redondeo": true,
            "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo"},
            "items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": amount, "iva": 10}]
        });
        let t = compute(&req(v)).unwrap().totales.unwrap();
        assert_eq!(t.redondeo, d(redondeo), "{amount}");
        assert_eq!(t.total_general, d(total), "{amount}");
        assert_eq!(t.total_operacion, d(amount));
        // IVA stays computed on the unrounded amounts, as the reference implementations do.
        assert_eq!(
            t.iva_10,
            Some(kuatia_core::fmt::round(d(amount) / d("11"), 0))
        );
    }
}

#[test]
fn discounts_item_and_global() {
    let v = json!({
        "tipo_documento": 1, "descuento_global": 10,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo"},
        "items": [{"descripcion": "x", "cantidad": 2, "precio_unitario": 11000, "descuento": 1000, "iva": 10}]
    });
    let c = compute(&req(v)).unwrap();
    let val = c.items[0].valor.clone().unwrap();
    assert_eq!(val.total_bruto, d("22000"));
    assert_eq!(val.descuento_global, d("1100"));
    assert_eq!(val.porcentaje_descuento, Some(d("9.09090909")));
    // (11000 - 1000 - 1100) × 2
    assert_eq!(val.total, d("17800"));
    let t = c.totales.unwrap();
    assert_eq!(t.total_descuento, d("2000"));
    assert_eq!(t.total_descuento_global, d("2200"));
    assert_eq!(t.descuento_total, d("4200"));
    assert_eq!(t.total_general, d("17800"));
    assert_eq!(t.porcentaje_descuento_total, d("10"));
}

#[test]
fn exonerado_and_autofactura_and_remision() {
    let v = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo"},
        "items": [{"descripcion": "libro", "cantidad": 3, "precio_unitario": 1000, "iva": 0, "afectacion_iva": 2}]
    });
    let t = compute(&req(v)).unwrap().totales.unwrap();
    assert_eq!(t.sub_exonerada, Some(d("3000")));
    assert_eq!(t.total_iva, Some(d("0")));

    let afe = json!({
        "tipo_documento": 4,
        "receptor": {"ruc": "44444401-7", "razon_social": "Empresa de Prueba"},
        "items": [{"descripcion": "maíz", "cantidad": 10, "precio_unitario": 1500}]
    });
    let t = compute(&req(afe)).unwrap().totales.unwrap();
    assert_eq!(t.total_operacion, d("15000"));
    assert_eq!(t.sub_10, None);
    assert_eq!(t.total_iva, None);

    let nre = json!({
        "tipo_documento": 7,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo"},
        "items": [{"descripcion": "cajas", "cantidad": 10}]
    });
    assert!(compute(&req(nre)).unwrap().totales.is_none());
}

#[test]
fn spec_example_is_valid_and_builds() {
    let r = req(spec_example());
    let e = Emisor::sandbox();
    assert_eq!(validate(&r, &e, now()), vec![]);
    let de = build(
        &r,
        &e,
        IssueContext {
            now: now(),
            numero: 1,
            codigo_seguridad: 123456789,
        },
    )
    .unwrap();
    assert_eq!(de.timbrado.tipo_documento, TipoDocumento::Factura);
    assert_eq!(de.cdc, "01444444017001001000000122025031011234567890");
    assert_eq!(de.totales.unwrap().total_iva, Some(d("100000")));
    assert_eq!(de.receptor.tipo_contribuyente, Some(2));
    assert_eq!(de.condicion.unwrap().pagos[0].monto, d("1100000"));
}

/// One bad input per row: (mutation of the spec example, expected code, expected path).
#[test]
fn table_of_bad_inputs() {
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({"items": []}), "VALIDATION_ERROR.REQUIRED", "items"),
        (
            json!({"items": [{"descripcion": "x", "cantidad": -1, "precio_unitario": 1, "iva": 10}]}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "items[0].cantidad",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": 0, "precio_unitario": 1, "iva": 10}]}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "items[0].cantidad",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": 1, "iva": 12}]}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "items[0].iva",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": -5, "iva": 10}]}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "items[0].precio_unitario",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": "1e20", "iva": 10}]}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "items[0].precio_unitario",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": "0.123456789", "precio_unitario": 1, "iva": 10}]}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "items[0].cantidad",
        ),
        (
            json!({"items": [{"descripcion": "  ", "cantidad": 1, "precio_unitario": 1, "iva": 10}]}),
            "VALIDATION_ERROR.REQUIRED",
            "items[0].descripcion",
        ),
        (
            json!({"items": [{"descripcion": "x", "cantidad": 1, "precio_unitario": 1, "iva": 10, "unidad_medida": 1}]}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "items[0].unidad_medida",
        ),
        (
            json!({"receptor": {"ruc": "80069563-2", "razon_social": "Cliente Ejemplo"}}),
            "INVALID_RUC",
            "receptor.ruc",
        ),
        (
            json!({"receptor": {"ruc": "8006956A-1", "razon_social": "Cliente Ejemplo"}}),
            "INVALID_RUC",
            "receptor.ruc",
        ),
        (
            json!({"receptor": {"ruc": "abc", "razon_social": "Cliente Ejemplo"}}),
            "INVALID_RUC",
            "receptor.ruc",
        ),
        (
            json!({"receptor": {"ruc": "80069563-1", "razon_social": "Cli"}}),
            "VALIDATION_ERROR.INVALID_FORMAT",
            "receptor.razon_social",
        ),
        (
            json!({"receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "email": "no-arroba"}}),
            "VALIDATION_ERROR.INVALID_FORMAT",
            "receptor.email",
        ),
        (
            json!({"receptor": {"razon_social": "Cliente sin RUC"}}),
            "VALIDATION_ERROR.REQUIRED",
            "receptor.documento_numero",
        ),
        (
            json!({"tipo_documento": 2}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "tipo_documento",
        ),
        (
            json!({"tipo_documento": 5}),
            "VALIDATION_ERROR.REQUIRED",
            "motivo",
        ),
        (
            json!({"condicion_pago": 3}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "condicion_pago",
        ),
        (
            json!({"condicion_pago": 2}),
            "VALIDATION_ERROR.REQUIRED",
            "credito",
        ),
        (
            json!({"moneda": "USD"}),
            "VALIDATION_ERROR.REQUIRED",
            "tipo_cambio",
        ),
        (
            json!({"moneda": "ABC", "tipo_cambio": 1}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "moneda",
        ),
        (
            json!({"_simulate": "explode"}),
            "VALIDATION_ERROR.INVALID_VALUE",
            "_simulate",
        ),
        (
            json!({"fecha": "2025-03-10 10:11"}),
            "VALIDATION_ERROR.INVALID_FORMAT",
            "fecha",
        ),
        (
            json!({"fecha": "2024-01-01T00:00:00"}),
            "VALIDATION_ERROR.OUT_OF_RANGE",
            "fecha",
        ),
        (
            json!({"establecimiento": "0001"}),
            "VALIDATION_ERROR.INVALID_FORMAT",
            "establecimiento",
        ),
        (
            json!({"_simulate": null, "establecimiento": "002"}),
            "INVALID_TIMBRADO",
            "tipo_documento",
        ),
        (
            json!({"redondeo": true, "moneda": "USD", "tipo_cambio": 7000}),
            "VALIDATION_ERROR.NOT_ALLOWED",
            "redondeo",
        ),
    ];
    let e = Emisor::sandbox();
    for (patch, code, path) in cases {
        let mut v = spec_example();
        for (k, val) in patch.as_object().unwrap() {
            if val.is_null() {
                v.as_object_mut().unwrap().remove(k);
            } else {
                v[k] = val.clone();
            }
        }
        let report = validate_json(&v.to_string(), &e, now());
        assert!(!report.ok, "{patch} should be invalid");
        assert!(
            report
                .errors
                .iter()
                .any(|f| f.code == code && f.path == path),
            "{patch}: expected {code} at {path}, got {:?}",
            report.errors
        );
    }
}

#[test]
fn every_finding_is_reported_at_once() {
    let v = json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-2", "razon_social": "X", "email": "bad"},
        "items": [
            {"descripcion": "ok", "cantidad": 1, "precio_unitario": 1000, "iva": 10},
            {"descripcion": "", "cantidad": 0, "precio_unitario": 1000, "iva": 7}
        ],
        "condicion_pago": 9
    });
    let report = validate_json(&v.to_string(), &Emisor::sandbox(), now());
    let paths: Vec<&str> = report.errors.iter().map(|f| f.path.as_str()).collect();
    for p in [
        "receptor.ruc",
        "receptor.razon_social",
        "receptor.email",
        "items[1].descripcion",
        "items[1].cantidad",
        "items[1].iva",
        "condicion_pago",
    ] {
        assert!(paths.contains(&p), "missing {p} in {paths:?}");
    }
}

#[test]
fn shape_errors_carry_the_json_path() {
    let e = Emisor::sandbox();
    let cases = [
        (
            r#"{"tipo_documento":1,"receptor":{"ruc":"80069563-1","razon_social":"Cliente"},"items":[{"descripcion":"x","cantidad":"abc","precio_unitario":1,"iva":10}]}"#,
            "VALIDATION_ERROR.INVALID_TYPE",
            "items[0].cantidad",
        ),
        (
            r#"{"tipo_documento":"uno","receptor":{"razon_social":"Cliente"},"items":[]}"#,
            "VALIDATION_ERROR.INVALID_TYPE",
            "tipo_documento",
        ),
        (
            r#"{"tipo_documento":1,"items":[]}"#,
            "VALIDATION_ERROR.REQUIRED",
            "",
        ),
        (
            r#"{"tipo_documento":1,"receptor":{"razon_social":"Cliente","rucc":"1"},"items":[]}"#,
            "VALIDATION_ERROR.NOT_ALLOWED",
            "receptor.rucc",
        ),
        (r#"{"tipo_documento":1,"#, "MALFORMED_JSON", ""),
        (
            r#"{"tipo_documento":1,"receptor":{"razon_social":"Cliente"},"items":[{"descripcion":"x","cantidad":1e999999,"precio_unitario":1,"iva":10}]}"#,
            "VALIDATION_ERROR.INVALID_TYPE",
            "items[0].cantidad",
        ),
    ];
    for (json, code, path) in cases {
        let r = validate_json(json, &e, now());
        assert!(!r.ok);
        assert_eq!(
            (r.errors[0].code.as_str(), r.errors[0].path.as_str()),
            (code, path),
            "{json} → {:?}",
            r.errors
        );
    }
    let deep = "[".repeat(100_000);
    assert_eq!(
        validate_json(&deep, &e, now()).errors[0].code,
        "MALFORMED_JSON"
    );
    assert_eq!(
        parse_request_bytes(b"{\"tipo_documento\":\xff}")
            .unwrap_err()
            .code,
        "MALFORMED_JSON"
    );
}

#[test]
fn ten_thousand_items_are_refused_without_panic() {
    let mut v = spec_example();
    let item = json!({"descripcion": "x", "cantidad": 1, "precio_unitario": 1, "iva": 10});
    v["items"] = Value::Array(vec![item; 10_000]);
    let r = validate_json(&v.to_string(), &Emisor::sandbox(), now());
    assert!(r
        .errors
        .iter()
        .any(|f| f.code == "TOO_LARGE" && f.path == "items"));
}

#[test]
fn huge_numbers_never_panic() {
    let e = Emisor::sandbox();
    for amount in [
        "79228162514264337593543950335",
        "-79228162514264337593543950335",
        "0.0000000000000000000000000001",
        "1e28",
        "99999999999999999999",
    ] {
        let mut v = spec_example();
        v["items"] = json!([
            {"descripcion": "x", "cantidad": amount, "precio_unitario": amount, "iva": 10},
            {"descripcion": "y", "cantidad": amount, "precio_unitario": amount, "iva": 5}
        ]);
        let r = validate_json(&v.to_string(), &e, now());
        assert!(!r.ok, "{amount}");
        let _ = compute(&req(spec_example()));
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Totals add up: the grand total equals the sum of item totals, and the taxed subtotals contain their IVA.
        #[test]
        fn totals_add_up(items in proptest::collection::vec((1u32..1000, 0u64..10_000_000, 0usize..4), 1..30)) {
            let rates = [10, 5, 0, 10];
            let v = json!({
                "tipo_documento": 1,
                "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo"},
                "items": items.iter().map(|(q, p, r)| {
                    let mut it = json!({"descripcion": "x", "cantidad": q, "precio_unitario": p, "iva": rates[*r]});
                    if *r == 3 { it["afectacion_iva"] = json!(4); it["proporcion_iva"] = json!(40); }
                    it
                }).collect::<Vec<_>>()
            });
            let c = compute(&req(v)).unwrap();
            let t = c.totales.unwrap();
            let sum: Decimal = c.items.iter().map(|i| i.valor.as_ref().unwrap().total).sum();
            // Never loses a guaraní beyond the rounding of the four subtotals.
            prop_assert!((t.total_general - sum).abs() <= d("2"));
            prop_assert_eq!(t.total_general, t.sub_exenta.unwrap() + t.sub_exonerada.unwrap() + t.sub_5.unwrap() + t.sub_10.unwrap());
            prop_assert_eq!(t.total_iva.unwrap(), t.iva_5.unwrap() + t.iva_10.unwrap());
            prop_assert!(t.base_gravada_10.unwrap() + t.iva_10.unwrap() <= t.sub_10.unwrap() + d("1"));
        }
    }
}

//! Issue 32, lane R1: every finding of validation names its rule with typed parameters, keeps its code, path and
//! English text, and renders in Spanish from the catalogs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/requests.rs"]
mod requests;

use kuatia_core::msg::Lang;
use kuatia_core::profile::Emisor;
use kuatia_core::rule::{Param, UNCLASSIFIED};
use kuatia_core::validate::validate_json;
use kuatia_core::Finding;
use requests::*;
use serde_json::{json, Value};

fn findings(v: Value) -> Vec<Finding> {
    validate_json(&v.to_string(), &Emisor::sandbox(), now()).errors
}

fn merged(patch: Value) -> Value {
    let mut v = spec_example();
    for (k, x) in patch.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn one<'f>(fs: &'f [Finding], path: &str) -> &'f Finding {
    fs.iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no finding at {path}: {fs:?}"))
}

/// One expected finding: path, rule, code, parameters, English and Spanish message.
type Case<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a [(&'a str, &'a str)],
    &'a str,
    &'a str,
);

fn text(p: &Param) -> String {
    p.text().into_owned()
}

/// Shared checks become shared rules with typed parameters; the English message is the one kuatia always wrote and
/// the Spanish one comes from the es-PY catalog.
#[test]
fn validation_findings_name_their_rule_and_render_in_spanish() {
    let fs = findings(merged(json!({
        "moneda": "USD",
        "condicion_pago": 3,
        "_simulate": "maybe",
        "receptor": {"ruc": "80069563-1", "razon_social": "Cli", "email": "no-arroba", "departamento": 1},
        "items": [{"descripcion": "x", "cantidad": -1, "precio_unitario": 1, "iva": 10}]
    })));
    let cases: [Case; 7] = [
        (
            "condicion_pago",
            "code.unknown",
            "VALIDATION_ERROR.INVALID_VALUE",
            &[("value", "3"), ("what", "condicion_pago")],
            "3 is not a valid payment condition (1 contado, 2 crédito)",
            "El valor 3 no es un código válido de condición de la operación (1 contado, 2 crédito)",
        ),
        (
            "tipo_cambio",
            "request.tipo_cambio.required",
            "VALIDATION_ERROR.REQUIRED",
            &[("moneda", "USD")],
            "exchange rate to PYG is required for USD",
            "Se requiere el tipo de cambio a guaraníes para USD",
        ),
        (
            "_simulate",
            "request.simulate.unknown",
            "VALIDATION_ERROR.INVALID_VALUE",
            &[("value", "maybe")],
            "'maybe' is not one of approved, rejected, pending, sent",
            "'maybe' no es uno de los valores admitidos: approved, rejected, pending, sent",
        ),
        (
            "receptor.razon_social",
            "text.length",
            "VALIDATION_ERROR.INVALID_FORMAT",
            &[("min", "4"), ("max", "255"), ("got", "3")],
            "must have 4 to 255 characters, has 3",
            "Debe tener de 4 a 255 caracteres; tiene 3",
        ),
        (
            "receptor.email",
            "text.email",
            "VALIDATION_ERROR.INVALID_FORMAT",
            &[("value", "no-arroba")],
            "'no-arroba' is not a valid e-mail address",
            "'no-arroba' no es una dirección de correo electrónico válida",
        ),
        (
            "receptor.ciudad",
            "geo.pair",
            "VALIDATION_ERROR.REQUIRED",
            &[("field", "ciudad"), ("with", "departamento")],
            "ciudad goes with departamento",
            "Si indica departamento, indique también ciudad",
        ),
        (
            "items[0].cantidad",
            "amount.negative",
            "VALIDATION_ERROR.OUT_OF_RANGE",
            &[("got", "-1")],
            "must not be negative (got -1)",
            "No puede ser negativo (se recibió -1)",
        ),
    ];
    for (path, rule, code, params, en, es) in cases {
        let f = one(&fs, path);
        assert_eq!((f.rule.as_ref(), f.code.as_str()), (rule, code), "{f}");
        let got: Vec<(&str, String)> = f.params.iter().map(|(n, v)| (n, text(v))).collect();
        let want: Vec<(&str, String)> = params.iter().map(|(n, v)| (*n, v.to_string())).collect();
        assert_eq!(got, want, "{f}");
        assert_eq!(f.message_in(Lang::En), en);
        assert_eq!(f.message_in(Lang::EsPy), es);
    }
    // On the wire a finding gains its rule and parameters.
    let wire = serde_json::to_value(one(&fs, "condicion_pago")).unwrap();
    assert_eq!(
        wire,
        json!({"code": "VALIDATION_ERROR.INVALID_VALUE", "path": "condicion_pago",
               "message": one(&fs, "condicion_pago").message_in(Lang::EsPy),
               "rule": "code.unknown", "params": {"value": "3", "what": "condicion_pago"}})
    );
}

/// Amounts are written as Paraguay writes them, with the currency where it is known; the document type is a
/// translated term.
#[test]
fn amounts_and_document_types_are_formatted_per_language() {
    let fs = findings(merged(json!({
        "condicion_pago": 2,
        "credito": {"tipo": "cuota", "cuotas": [{"monto": 100000}], "entrega": 1}
    })));
    let f = one(&fs, "credito.cuotas");
    assert_eq!(f.rule, "totals.cuotas.sum");
    assert_eq!(
        f.message_in(Lang::En),
        "instalments plus down payment must add up to the total Gs. 1,100,000"
    );
    assert_eq!(
        f.message_in(Lang::EsPy),
        "Las cuotas más la entrega inicial deben sumar el total de Gs. 1.100.000"
    );

    let fs = findings(merged(json!({"tipo_documento": 7, "condicion_pago": 1})));
    let f = one(&fs, "condicion_pago");
    assert_eq!(f.rule, "request.not_allowed");
    assert_eq!(
        f.message_in(Lang::En),
        "not allowed in a Nota de remisión electrónica"
    );
    assert_eq!(
        f.message_in(Lang::EsPy),
        "No se admite en una nota de remisión electrónica"
    );
    let f = one(&fs, "transporte");
    assert_eq!(f.rule, "transporte.required");
    assert_eq!(
        f.message_in(Lang::EsPy),
        "Una nota de remisión requiere los datos del transporte"
    );
}

/// No finding of the rules of validation is built from a free sentence any more: a table of requests that break
/// rules of every group gives only registered rules.
#[test]
fn no_validation_finding_is_unclassified() {
    let bad = [
        json!({"tipo_documento": 9}),
        json!({"tipo_documento": 7, "remision": {"motivo": 99, "kilometros": 0, "responsable": 9},
               "transporte": {"tipo": 2, "modalidad": 9, "incoterm": "XXX", "inicio": "2025-02-30",
                              "pais_destino": "ZZZ", "vehiculos": [{"tipo": "Camión", "marca": "M"}],
                              "entregas": []}}),
        json!({"tipo_documento": 5, "receptor": {"razon_social": "Cliente", "documento_tipo": 5},
               "documentos_asociados": [{"tipo": 2, "timbrado": "12", "establecimiento": "1"},
                                        {"tipo": 3, "tipo_constancia": 2}, {"tipo": 1}, {"tipo": 7}]}),
        json!({"tipo_documento": 4}),
        json!({"fecha": "2025-03-10 10:00", "establecimiento": "1000", "punto": "x", "tipo_emision": 3,
               "indicador_presencia": 9, "descuento_global": 100, "moneda": "USD", "tipo_cambio": 0,
               "redondeo": true}),
        json!({"fecha": "2024-01-01T00:00:00"}),
        json!({"fecha": "2025-03-10T25:00:00"}),
        json!({"pagos": [{"tipo": 16, "moneda": "EUR"}, {"tipo": 2, "tarjeta": 1}, {"tipo": 99, "monto": -1}],
               "condicion_pago": 2, "credito": {"tipo": "mensual"}}),
        json!({"receptor": {"razon_social": " Cliente", "tipo_operacion": 1, "pais": "ARG", "numero_casa": 1000000,
                            "departamento": 1, "ciudad": 99999, "telefono": "12"}}),
        json!({"receptor": {"ruc": "80069563-1", "razon_social": "Cliente", "tipo_operacion": 4}}),
        json!({"items": []}),
        json!({"items": [{"descripcion": "x", "cantidad": "0.123456789", "iva": 10, "pais_origen": "XX",
                          "unidad_medida": 1}]}),
    ];
    let mut rules = std::collections::BTreeSet::new();
    for v in bad {
        let fs = findings(merged(v.clone()));
        assert!(!fs.is_empty(), "{v}");
        for f in fs {
            assert_ne!(f.rule, UNCLASSIFIED, "{f} for {v}");
            rules.insert(f.rule.to_string());
        }
    }
    assert!(rules.len() >= 40, "{rules:?}");
}

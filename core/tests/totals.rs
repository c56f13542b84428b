//! Totals against the worked examples of SIFEN.md §3.6 (VAT bases and amounts, rounding, discounts, exempt and
//! special documents), and the spec's example building a valid document.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/requests.rs"]
mod requests;

use kuatia_core::de::TipoDocumento;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::profile::Emisor;
use kuatia_core::totals::compute;
use kuatia_core::validate::validate;
use requests::*;
use serde_json::json;

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

//! Validated once through the C face (issue 30): `kuatia_invoice_issue` runs validation, the stamp choice and the
//! certificate check exactly once, counted by kuatia-core's `probe` feature (enabled for these tests only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{issue, sandbox, text, Issued, NOW};
use kuatia::*;
use kuatia_core::probe::{self, Counts};

#[test]
fn kuatia_invoice_issue_runs_each_decision_once() {
    let signer = sandbox();
    let req = serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string();
    probe::take();
    let Issued {
        status: st,
        xml,
        summary: json,
        ..
    } = issue(req.as_bytes(), signer, NOW, 7, 123_456_789);
    let counts = probe::take();
    unsafe { kuatia_signer_free(signer) };
    assert_eq!(st, kuatia_status::Ok);
    assert!(text(xml).contains("<dNumDoc>0000007</dNumDoc>"));
    // The summary keeps its five members.
    let summary: serde_json::Value = serde_json::from_str(&text(json)).unwrap();
    let mut keys: Vec<&str> = summary
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["cdc", "digest_value", "fecha_emision", "numero", "qr"]
    );
    assert_eq!(summary["numero"], "001-001-0000007");
    assert_eq!(
        counts,
        Counts {
            validate: 1,
            stamp: 1,
            certificate: 1
        }
    );
}

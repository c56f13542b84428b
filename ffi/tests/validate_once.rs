//! Validated once through the C face (issue 30): `kuatia_invoice_issue` runs validation, the stamp choice and the
//! certificate check exactly once, counted by kuatia-core's `probe` feature (enabled for these tests only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kuatia::*;
use kuatia_core::probe::{self, Counts};
use std::ptr::{null, null_mut};

fn zero() -> kuatia_bytes {
    kuatia_bytes {
        ptr: null_mut(),
        len: 0,
    }
}

/// A result buffer's text, freed.
fn text(mut b: kuatia_bytes) -> String {
    assert!(!b.ptr.is_null());
    let v = unsafe { std::slice::from_raw_parts(b.ptr, b.len) }.to_vec();
    unsafe { kuatia_bytes_free(&mut b) };
    String::from_utf8(v).unwrap()
}

const NOW: &str = "2025-03-10T10:11:00";

#[test]
fn kuatia_invoice_issue_runs_each_decision_once() {
    let mut signer = null_mut();
    assert_eq!(
        unsafe { kuatia_signer_sandbox(&mut signer, null_mut()) },
        kuatia_status::Ok
    );
    let req = serde_json::json!({
        "tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
        "items": [{"descripcion": "Servicio", "cantidad": 1, "precio_unitario": 1100000, "iva": 10}],
        "condicion_pago": 1
    })
    .to_string();
    let (mut xml, mut json) = (zero(), zero());
    let mut err = null_mut();
    probe::take();
    let st = unsafe {
        kuatia_invoice_issue(
            req.as_ptr(),
            req.len(),
            null(),
            0,
            signer,
            NOW.as_ptr(),
            NOW.len(),
            7,
            123_456_789,
            &mut xml,
            &mut json,
            &mut err,
        )
    };
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

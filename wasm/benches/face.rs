//! The face's `check` path natively (JSON text in: parse, validate, totals; JSON text out), the like-for-like
//! baseline for the WebAssembly figure that `bindings/node/bench/check.mjs` measures.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// The 3-item request of `core/benches/invoice.rs`, as JSON text.
pub fn request(items: usize) -> String {
    let rates = [10, 5, 0];
    let items: Vec<_> = (0..items)
        .map(|i| {
            serde_json::json!({"codigo": format!("P-{i}"), "descripcion": format!("Producto número {i} con ñandutí"),
                "cantidad": 1 + i % 7, "precio_unitario": 10_000 + i * 137, "iva": rates[i % 3]})
        })
        .collect();
    serde_json::json!({"tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Ñandutí Comercial S.A.", "email": "compras@nanduti.com.py"},
        "items": items})
    .to_string()
}

fn benches(c: &mut Criterion) {
    let now = kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap();
    let text = request(3);
    c.bench_function("face_check_3_items", |b| {
        b.iter(|| {
            black_box(
                kuatia_wasm::face::check(
                    black_box(&text),
                    None,
                    Some("2025-03-10T10:11:00"),
                    || now,
                    kuatia_core::msg::Lang::EsPy,
                )
                .unwrap(),
            )
        })
    });
}

criterion_group!(name = group; config = Criterion::default(); targets = benches);
criterion_main!(group);

//! DE XML hot paths: writing a 3-item and a 100-item invoice (target: 3 items ≤ 10 µs) and parsing one back.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kuatia_core::de::DocumentoElectronico;
use kuatia_core::document::{build, IssueContext};
use kuatia_core::invoice::parse_request;
use kuatia_core::profile::Emisor;
use kuatia_core::xml::{parse, write};
use time::macros::datetime;

fn invoice(items: usize) -> DocumentoElectronico {
    let rates = [10, 5, 0];
    let lines: Vec<String> = (0..items)
        .map(|i| {
            format!(
                r#"{{"codigo": "P-{i}", "descripcion": "Producto número {i} con descripción", "cantidad": {},
                    "precio_unitario": 12500.5, "iva": {}}}"#,
                i % 7 + 1,
                rates[i % 3]
            )
        })
        .collect();
    let json = format!(
        r#"{{"tipo_documento": 1, "receptor": {{"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A.",
            "email": "compras@cliente.com.py"}}, "items": [{}]}}"#,
        lines.join(",")
    );
    let req = parse_request(&json).unwrap();
    let ctx = IssueContext {
        now: datetime!(2025-03-10 10:11:00),
        numero: 1,
        codigo_seguridad: 123_456_789,
    };
    build(&req, &Emisor::sandbox(), ctx).unwrap()
}

fn bench_xml(c: &mut Criterion) {
    let three = invoice(3);
    let hundred = invoice(100);
    let three_xml = write(&three);
    c.bench_function("xml_write_3_items", |b| b.iter(|| write(black_box(&three))));
    c.bench_function("xml_write_100_items", |b| {
        b.iter(|| write(black_box(&hundred)))
    });
    c.bench_function("xml_parse_3_items", |b| {
        b.iter(|| parse(black_box(&three_xml)))
    });
}

criterion_group!(benches, bench_xml);
criterion_main!(benches);

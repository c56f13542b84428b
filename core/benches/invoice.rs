//! Benchmarks of the invoice pipeline: validate + totals (3 and 100 items), build, and the full `issue`
//! (validate, number, build, XML, sign, QR) against one raw RSA-2048 signature of the same backend in the same run.
//!
//! Targets (issue #2, #3): validate+totals of 3 items ≤ 5 µs; full issue ≤ 1.25 × raw RSA signature.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use kuatia_core::cdc::FixedSecurityCode;
use kuatia_core::issue::{issue, MemoryNumbering};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::{sandbox_test_signer, Signer};
use std::hint::black_box;

fn request(items: usize) -> kuatia_core::invoice::FacturaRequest {
    let rates = [10, 5, 0];
    let items: Vec<_> = (0..items)
        .map(|i| {
            serde_json::json!({"codigo": format!("P-{i}"), "descripcion": format!("Producto número {i} con ñandutí"),
                "cantidad": 1 + i % 7, "precio_unitario": 10_000 + i * 137, "iva": rates[i % 3]})
        })
        .collect();
    let v = serde_json::json!({"tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Ñandutí Comercial S.A.", "email": "compras@nanduti.com.py"},
        "items": items});
    kuatia_core::invoice::parse_request(&v.to_string()).unwrap()
}

fn benches(c: &mut Criterion) {
    // Reading a create request (what every face does first: the batch's reader thread, the server's writer).
    let text = serde_json::to_string(&request(3)).unwrap();
    c.bench_function("parse_request_3_items", |b| {
        b.iter(|| black_box(kuatia_core::invoice::parse_request(black_box(&text)).unwrap()))
    });
    let emisor = Emisor::sandbox();
    let now = kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap();
    for n in [3usize, 100] {
        let req = request(n);
        c.bench_function(&format!("validate_totals_{n}_items"), |b| {
            b.iter(|| {
                let f = kuatia_core::validate::validate(black_box(&req), &emisor, now);
                let t = kuatia_core::totals::compute(black_box(&req)).unwrap();
                black_box((f, t))
            })
        });
    }
    let signer = sandbox_test_signer().unwrap();
    let digest = [7u8; 32];
    c.bench_function("rsa2048_raw_sign", |b| {
        b.iter(|| black_box(signer.sign_rsa_sha256(black_box(&digest)).unwrap()))
    });
    let req = request(3);
    c.bench_function("issue_3_items", |b| {
        let mut numbering = MemoryNumbering::default();
        b.iter(|| {
            let i = issue(
                &emisor,
                black_box(&req),
                &signer,
                now,
                &mut FixedSecurityCode(123_456_789),
                &mut numbering,
            );
            black_box(i.unwrap())
        })
    });
}

criterion_group!(name = group; config = Criterion::default(); targets = benches);
criterion_main!(group);

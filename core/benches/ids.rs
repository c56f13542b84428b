//! Identifier hot paths: RUC check digit and parse, CDC build and parse (targets: DV ≤ 50 ns, CDC build ≤ 200 ns).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kuatia_core::cdc::{Cdc, CdcFields};
use kuatia_core::ruc::{check_digit, Ruc};
use time::{Date, Month};

fn bench_ids(c: &mut Criterion) {
    c.bench_function("ruc_dv", |b| b.iter(|| check_digit(black_box("80069563"))));
    c.bench_function("ruc_parse", |b| {
        b.iter(|| Ruc::parse(black_box("80069563-1")))
    });

    let fields = CdcFields {
        tipo_documento: 1,
        ruc: Ruc::parse("80069563-1").unwrap(),
        establecimiento: 1,
        punto: 1,
        numero: 1,
        tipo_contribuyente: 2,
        fecha: Date::from_calendar_date(2022, Month::August, 14).unwrap(),
        tipo_emision: 1,
        codigo_seguridad: 123_456_789,
    };
    c.bench_function("cdc_build", |b| b.iter(|| Cdc::build(black_box(&fields))));
    c.bench_function("cdc_parse", |b| {
        b.iter(|| Cdc::parse(black_box("01800695631001001000000122022081411234567891")))
    });
}

criterion_group!(benches, bench_ids);
criterion_main!(benches);

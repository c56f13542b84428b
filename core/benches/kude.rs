//! KuDE benchmarks: layout and full PDF (layout + font subsetting + deflate) of a 10-item FE, A4 and ticket.
//!
//! Targets (issue): A4 PDF ≤ 1 ms, ticket PDF ≤ 0.5 ms, file ≤ 60 KB. The sizes are printed once, and so is
//! the CPU time per PDF from the thread's scheduler statistics (Linux), which, unlike criterion's wall-clock
//! figures, stays meaningful when other jobs load the machine.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use kuatia_core::document::{build, IssueContext};
use kuatia_core::kude::{self, Formato, KudeOptions};
use kuatia_core::profile::Emisor;
use kuatia_core::qr::{self, Ambiente, QrInput, QrReceptor};
use std::hint::black_box;

fn document() -> (kuatia_core::de::DocumentoElectronico, String) {
    let rates = [10, 5, 0];
    let items: Vec<_> = (0..10)
        .map(|i| {
            serde_json::json!({"codigo": format!("P-{i}"), "descripcion": format!("Producto número {i} con ñandutí y g̃uaraní"),
                "cantidad": 1 + i % 7, "precio_unitario": 10_000 + i * 137, "iva": rates[i % 3]})
        })
        .collect();
    let v = serde_json::json!({"tipo_documento": 1,
        "receptor": {"ruc": "80069563-1", "razon_social": "Ñandutí Comercial S.A.", "email": "compras@nanduti.com.py"},
        "items": items});
    let req = kuatia_core::invoice::parse_request(&v.to_string()).unwrap();
    let now = kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap();
    let de = build(
        &req,
        &Emisor::sandbox(),
        IssueContext {
            now,
            numero: 1,
            codigo_seguridad: 123456789,
        },
    )
    .unwrap();
    let fecha = kuatia_core::fmt::datetime(de.fecha_emision);
    let t = de.totales.as_ref().unwrap();
    let (total, iva) = (
        kuatia_core::fmt::dec(t.total_general),
        kuatia_core::fmt::dec(t.total_iva.unwrap_or_default()),
    );
    let qr = qr::build(&QrInput {
        cdc: &de.cdc,
        fecha_emision: &fecha,
        receptor: QrReceptor::Ruc("80069563"),
        total: &total,
        total_iva: &iva,
        items: de.items.len(),
        digest_value: "hWnQ8gJ2mXOdWj3Y0m0cHcBr2vwlA3x0yRzS6L9E3ZE=",
        csc_id: "0001",
        csc: "ABCD0000000000000000000000000000",
        ambiente: Ambiente::Test,
    });
    (de, qr)
}

fn benches(c: &mut Criterion) {
    let (de, qr) = document();
    // The first PDF of a process also parses the fonts and compresses them for embedding.
    let t = std::time::Instant::now();
    black_box(kude::pdf(&de, &qr, &KudeOptions::default()).unwrap());
    println!(
        "kude: first PDF of the process (fonts prepared) took {:?}",
        t.elapsed()
    );
    c.bench_function("kude_qr_encode", |b| {
        b.iter(|| {
            black_box(
                qrcode::QrCode::with_error_correction_level(
                    black_box(qr.as_bytes()),
                    qrcode::EcLevel::M,
                )
                .unwrap(),
            )
        })
    });
    for (name, formato) in [("a4", Formato::A4), ("ticket", Formato::Ticket)] {
        let opts = KudeOptions {
            formato,
            ..Default::default()
        };
        let bytes = kude::pdf(&de, &qr, &opts).unwrap();
        println!("kude {name}: 10-item FE PDF is {} bytes", bytes.len());
        if let Some(start) = cpu_ns() {
            const N: u64 = 500;
            for _ in 0..N {
                black_box(kude::pdf(black_box(&de), &qr, &opts).unwrap());
            }
            if let Some(end) = cpu_ns() {
                println!(
                    "kude {name}: {:.0} µs CPU per PDF",
                    (end - start) as f64 / N as f64 / 1000.0
                );
            }
        }
        c.bench_function(&format!("kude_layout_{name}_10_items"), |b| {
            b.iter(|| black_box(kude::layout(black_box(&de), &qr, &opts).unwrap()))
        });
        c.bench_function(&format!("kude_pdf_{name}_10_items"), |b| {
            b.iter(|| black_box(kude::pdf(black_box(&de), &qr, &opts).unwrap()))
        });
    }
}

/// On-CPU time of this thread in nanoseconds (first field of `/proc/thread-self/schedstat`).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

criterion_group!(kude_benches, benches);
criterion_main!(kude_benches);

//! Overhead of the C ABI: the same work through the `extern "C"` functions and through the core directly.
//!
//! `issue`: the spec's sandbox request, issued from its JSON text with the sandbox signer. The Rust side parses the
//! request and calls `core::issue`; the C side also checks UTF-8, writes the summary JSON and copies the XML into
//! owned buffers (then frees them). `cdc_parse` shows the fixed per-call cost on a tiny operation (both sides build
//! the same JSON).
//!
//! The machine is shared, so besides criterion's sequential groups a paired run alternates one Rust and one C-ABI
//! call per round and reports the medians and minimums of both (load drifts hit both sides alike).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use kuatia::*;
use kuatia_core::cdc::{Cdc, FixedSecurityCode};
use kuatia_core::issue::{issue, numbering_key, MemoryNumbering};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::sandbox_test_signer;
use std::hint::black_box;
use std::ptr::{null, null_mut};

const NOW: &str = "2025-03-10T10:11:00";

fn request() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/cases/fe_spec_example.json"
    );
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    case["request"].to_string()
}

fn zero() -> kuatia_bytes {
    kuatia_bytes {
        ptr: null_mut(),
        len: 0,
    }
}

fn issue_rust(req: &str, signer: &kuatia_core::sign::SoftwareSigner) -> usize {
    let emisor = Emisor::sandbox();
    let now = kuatia_core::fmt::parse_datetime(NOW).unwrap();
    let parsed = kuatia_core::invoice::parse_request(black_box(req)).unwrap();
    let key = numbering_key(&parsed, &emisor, now).unwrap();
    let issued = issue(
        &emisor,
        &parsed,
        signer,
        now,
        &mut FixedSecurityCode(123_456_789),
        &mut MemoryNumbering::starting_at(key, 1),
    )
    .unwrap();
    black_box(issued.xml.len())
}

fn issue_c(req: &str, handle: *const kuatia_signer) -> usize {
    let (mut xml, mut json) = (zero(), zero());
    let st = unsafe {
        kuatia_invoice_issue(
            black_box(req.as_ptr()),
            req.len(),
            null(),
            0,
            handle,
            NOW.as_ptr(),
            NOW.len(),
            1,
            123_456_789,
            &mut xml,
            &mut json,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let n = xml.len;
    unsafe {
        kuatia_bytes_free(&mut xml);
        kuatia_bytes_free(&mut json);
    }
    black_box(n)
}

/// Alternates the two sides `rounds` times; prints median and minimum per call of each and the overhead.
fn paired(name: &str, rounds: usize, mut rust: impl FnMut(), mut c_abi: impl FnMut()) {
    let (mut r, mut c) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        rust();
        r.push(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        c_abi();
        c.push(t.elapsed().as_secs_f64());
    }
    r.sort_by(f64::total_cmp);
    c.sort_by(f64::total_cmp);
    let (rm, cm) = (r[rounds / 2], c[rounds / 2]);
    eprintln!(
        "paired {name}: rust median {:.2} µs min {:.2} µs | C ABI median {:.2} µs min {:.2} µs | overhead median {:+.1} % min {:+.1} %",
        rm * 1e6,
        r[0] * 1e6,
        cm * 1e6,
        c[0] * 1e6,
        (cm / rm - 1.0) * 100.0,
        (c[0] / r[0] - 1.0) * 100.0
    );
}

fn bench(c: &mut Criterion) {
    let req = request();
    let signer = sandbox_test_signer().unwrap();
    let mut handle = null_mut();
    assert_eq!(
        unsafe { kuatia_signer_sandbox(&mut handle, null_mut()) },
        kuatia_status::Ok
    );
    paired(
        "issue",
        2000,
        || {
            issue_rust(&req, &signer);
        },
        || {
            issue_c(&req, handle);
        },
    );
    let mut g = c.benchmark_group("issue");
    g.bench_function("rust", |b| b.iter(|| issue_rust(&req, &signer)));
    g.bench_function("c_abi", |b| b.iter(|| issue_c(&req, handle)));
    g.finish();
    unsafe { kuatia_signer_free(handle) };

    let emisor = Emisor::sandbox();
    let now = kuatia_core::fmt::parse_datetime(NOW).unwrap();
    let mut g = c.benchmark_group("validate");
    g.bench_function("rust", |b| b.iter(|| validate_rust(&req, &emisor, now)));
    g.bench_function("c_abi", |b| b.iter(|| validate_c(&req)));
    g.finish();
    paired(
        "validate",
        50_000,
        || {
            validate_rust(&req, &emisor, now);
        },
        || {
            validate_c(&req);
        },
    );

    let cdc = "01444444017001001000000122025031011234567890";
    let mut g = c.benchmark_group("cdc_parse");
    g.bench_function("rust", |b| b.iter(|| cdc_rust(cdc)));
    g.bench_function("c_abi", |b| b.iter(|| cdc_c(cdc)));
    g.finish();
    paired(
        "cdc_parse",
        200_000,
        || {
            cdc_rust(cdc);
        },
        || {
            cdc_c(cdc);
        },
    );
}

fn validate_rust(req: &str, emisor: &Emisor, now: time::PrimitiveDateTime) -> usize {
    let report = kuatia_core::validate::validate_json(black_box(req), emisor, now);
    black_box(serde_json::to_vec(&report).unwrap().len())
}

fn validate_c(req: &str) -> usize {
    let mut out = zero();
    let st = unsafe {
        kuatia_invoice_validate(
            black_box(req.as_ptr()),
            req.len(),
            null(),
            0,
            NOW.as_ptr(),
            NOW.len(),
            &mut out,
            null_mut(),
        )
    };
    assert_eq!(st, kuatia_status::Ok);
    let n = out.len;
    unsafe { kuatia_bytes_free(&mut out) };
    black_box(n)
}

/// The JSON `kuatia_cdc_parse` returns, built in Rust.
#[derive(serde::Serialize)]
struct Parsed {
    cdc: Cdc,
    grouped: String,
    dv: u8,
    #[serde(flatten)]
    fields: kuatia_core::cdc::CdcFields,
}

fn cdc_rust(cdc: &str) -> usize {
    let parsed = Cdc::parse(black_box(cdc)).unwrap();
    let out = Parsed {
        cdc: parsed,
        grouped: parsed.grouped(),
        dv: parsed.dv(),
        fields: parsed.fields(),
    };
    black_box(serde_json::to_vec(&out).unwrap().len())
}

fn cdc_c(cdc: &str) -> usize {
    let mut out = zero();
    let st = unsafe { kuatia_cdc_parse(black_box(cdc.as_ptr()), cdc.len(), &mut out, null_mut()) };
    assert_eq!(st, kuatia_status::Ok);
    let n = out.len;
    unsafe { kuatia_bytes_free(&mut out) };
    black_box(n)
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Throughput of the service through `handle`: create (validate + issue + sign + store) and status lookup, and in the
//! same run `issue` alone on the same request: creating through the service must cost at most `issue` + 10 %
//! (issue 14: the service runs the one pipeline, nothing twice).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kuatia_core::sign::{sandbox_test_signer, Signer, SoftwareSigner};
use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, MemoryStore, Service};
use std::hint::black_box;
use time::OffsetDateTime;

struct BenchHost {
    now: OffsetDateTime,
    state: u64,
    signer: SoftwareSigner,
}

impl Host for BenchHost {
    fn now(&mut self) -> OffsetDateTime {
        self.now
    }
    fn random_u32(&mut self) -> u32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state >> 16) as u32
    }
    fn signer(&self, _: &str, _: Environment) -> Option<&dyn Signer> {
        Some(&self.signer)
    }
}

fn request(key: &str, method: &str, path: &str, body: &str) -> HttpRequest {
    HttpRequest {
        method: method.into(),
        path: path.into(),
        headers: vec![
            ("Authorization".into(), format!("Bearer {key}")),
            ("X-Environment".into(), "sandbox".into()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn benches(c: &mut Criterion) {
    let mut host = BenchHost {
        now: OffsetDateTime::from_unix_timestamp(1_741_612_260).unwrap(),
        state: 88_172_645_463_325_252,
        signer: sandbox_test_signer().unwrap(),
    };
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (_, key) = svc.create_account("bench", &mut host);
    let body = r#"{"tipo_documento":1,"_simulate":"approved","receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo S.A."},
        "items":[{"descripcion":"Servicio","cantidad":1,"precio_unitario":1100000,"iva":10},
                 {"descripcion":"Yerba mate","cantidad":3,"precio_unitario":21000,"iva":5},
                 {"descripcion":"Libro","cantidad":1,"precio_unitario":80000,"iva":0}]}"#;
    let create = request(&key, "POST", "/v1/facturas", body);
    let first = svc.handle(&create, &mut host).json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let get = request(&key, "GET", &format!("/v1/facturas/{first}"), "");

    let mut g = c.benchmark_group("api");
    g.throughput(Throughput::Elements(1));
    let emisor = kuatia_core::profile::Emisor::sandbox();
    let now = kuatia_core::fmt::parse_datetime("2025-03-10T10:11:00").unwrap();
    let signer = sandbox_test_signer().unwrap();
    g.bench_function("issue_3_items", |b| {
        let mut numbering = kuatia_core::numbering::MemoryNumbering::default();
        b.iter(|| {
            // The request is parsed from the same JSON text each time, as the service does.
            let req = kuatia_core::invoice::parse_request(black_box(body)).unwrap();
            let issued = kuatia_core::issue::issue(
                &emisor,
                &req,
                &signer,
                now,
                &mut || 123_456_789u32,
                &mut numbering,
            );
            black_box(issued.unwrap())
        })
    });
    g.bench_function("create_3_items", |b| {
        b.iter(|| black_box(svc.handle(black_box(&create), &mut host)))
    });
    g.bench_function("status_lookup", |b| {
        b.iter(|| black_box(svc.handle(black_box(&get), &mut host)))
    });
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);

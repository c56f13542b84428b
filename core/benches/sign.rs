//! Signing benchmarks: raw RSA-2048 (the floor), `sign_element` of a ~4 KB DE, and verification with its own floor,
//! one raw RSA-2048 public-key verification in aws-lc (issue #15: verify ≤ 50 µs natively): `verify` (the free
//! function, which reads the certificate every time) and `verify_kept` (a `Verifier` kept across documents, which
//! has read this certificate before).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify, Signer, Verifier};

mod sample;
use sample::sample_rde;

fn benches(c: &mut Criterion) {
    let signer = sandbox_test_signer().unwrap();
    let xml = sample_rde();
    let id = "01444444017001001000000122025031011234567890";
    let digest = [7u8; 32];
    c.bench_function("rsa_raw_sign", |b| {
        b.iter(|| signer.sign_rsa_sha256(black_box(&digest)).unwrap())
    });
    c.bench_function("sign_element", |b| {
        b.iter(|| sign_element(black_box(&xml), id, &signer).unwrap())
    });
    // The non-RSA part of signing: C14N, SHA-256, base64, SignedInfo and output assembly.
    let fake = FixedSigner(signer.certificate_der().to_vec());
    c.bench_function("sign_element_without_rsa", |b| {
        b.iter(|| sign_element(black_box(&xml), id, &fake).unwrap())
    });
    let signed = sign_element(&xml, id, &signer).unwrap();
    c.bench_function("verify", |b| {
        b.iter(|| verify(black_box(&signed.xml), None))
    });
    let mut kept = Verifier::new();
    c.bench_function("verify_kept", |b| {
        b.iter(|| kept.verify(black_box(&signed.xml), None))
    });
    // The floor of `verify`: the RSA-2048 public-key operation alone (aws-lc, key parsing included, as in verify).
    let (_, cert) =
        x509_parser::parse_x509_certificate(signer.certificate_der()).expect("certificate");
    let public = cert.public_key().subject_public_key.data.to_vec();
    let raw_sig = signer.sign_rsa_sha256(&digest).unwrap();
    c.bench_function("rsa2048_raw_verify", |b| {
        b.iter(|| {
            aws_lc_rs::signature::UnparsedPublicKey::new(
                &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
                black_box(&public),
            )
            .verify(&digest, black_box(&raw_sig))
            .unwrap()
        })
    });
    c.bench_function("quick_xml_parse_only", |b| {
        b.iter(|| parse_only(black_box(&xml)))
    });
    c.bench_function("c14n_de", |b| {
        b.iter(|| {
            kuatia_core::sign::c14n::canonicalize_element(
                black_box(&xml),
                id,
                &kuatia_core::sign::c14n::Method::EXCLUSIVE,
            )
            .unwrap()
        })
    });
}

/// A signer that returns a constant, to time everything but the RSA operation.
struct FixedSigner(Vec<u8>);

impl Signer for FixedSigner {
    fn certificate_der(&self) -> &[u8] {
        &self.0
    }
    fn sign_rsa_sha256(&self, _data: &[u8]) -> Result<Vec<u8>, kuatia_core::sign::SignError> {
        Ok(vec![0x5a; 256])
    }
}

fn parse_only(xml: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut n = 0;
    while !matches!(
        reader.read_event(),
        Ok(quick_xml::events::Event::Eof) | Err(_)
    ) {
        n += 1;
    }
    n
}

criterion_group!(sign, benches);
criterion_main!(sign);

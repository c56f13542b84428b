//! The verification benchmark's work and its parts, timed as the minimum over batches of 50 calls: on a shared
//! machine the minimum moves far less with load than criterion's mean (docs/benchmarks.md, "Verification profile").
//!
//! `cargo run --release -p kuatia-core --example verify_min -- MODE [CALLS]`, MODE one of `verify` (the free
//! function), `kept` (a kept `Verifier`), `raw` (one RSA-2048 verification in aws-lc, key parsing included), `c14n`
//! (exclusive C14N of the DE, parse included), `x509`, `certinfo`, `sha`, `b64`; CALLS defaults to 20 000.
#![allow(missing_docs, clippy::unwrap_used)]
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify};

#[path = "../benches/sample/mod.rs"]
mod sample;
use sample::sample_rde;

fn main() {
    let signer = sandbox_test_signer().unwrap();
    let xml = sample_rde();
    let id = "01444444017001001000000122025031011234567890";
    let signed = sign_element(&xml, id, &signer).unwrap();
    let what = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    use kuatia_core::sign::Signer as _;
    let der = signer.certificate_der().to_vec();
    let b64text = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &der);
    let canon = kuatia_core::sign::c14n::canonicalize_element(
        &xml,
        id,
        &kuatia_core::sign::c14n::Method::EXCLUSIVE,
    )
    .unwrap();
    let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
    let public = cert.public_key().subject_public_key.data.to_vec();
    let digest = [7u8; 32];
    let raw_sig = signer.sign_rsa_sha256(&digest).unwrap();
    let mut kept = kuatia_core::sign::Verifier::new();
    let mut ok = 0;
    let mut best = f64::MAX;
    for _ in 0..n / 50 {
        let t = std::time::Instant::now();
        for _ in 0..50 {
            match what.as_str() {
                "c14n" => {
                    ok += kuatia_core::sign::c14n::canonicalize_element(
                        std::hint::black_box(&xml),
                        id,
                        &kuatia_core::sign::c14n::Method::EXCLUSIVE,
                    )
                    .unwrap()
                    .len()
                }
                "none" => {}
                "kept" => ok += kept.verify(std::hint::black_box(&signed.xml), None).valid as usize,
                "x509" => {
                    ok += x509_parser::parse_x509_certificate(std::hint::black_box(&der))
                        .unwrap()
                        .1
                        .raw_serial()
                        .len()
                }
                "certinfo" => {
                    ok += kuatia_core::sign::certificate_info(std::hint::black_box(&der))
                        .unwrap()
                        .subject
                        .len()
                }
                "sha" => {
                    ok += sha2::Digest::finalize(sha2::Digest::chain_update(
                        <sha2::Sha256 as sha2::Digest>::new(),
                        std::hint::black_box(&canon),
                    ))[0] as usize
                }
                "b64" => {
                    ok += base64::Engine::decode(
                        &base64::engine::general_purpose::STANDARD,
                        std::hint::black_box(&b64text),
                    )
                    .unwrap()
                    .len()
                }
                "raw" => {
                    ok += aws_lc_rs::signature::UnparsedPublicKey::new(
                        &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
                        std::hint::black_box(&public),
                    )
                    .verify(&digest, &raw_sig)
                    .is_ok() as usize
                }
                _ => ok += verify(std::hint::black_box(&signed.xml), None).valid as usize,
            }
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / 50.0);
    }
    println!("{what}: min {best:.2} µs per call ({ok})");
}

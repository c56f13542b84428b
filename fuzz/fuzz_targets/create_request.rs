//! Arbitrary bytes as a create request: parse, validate, compute totals, build the DE and write its XML; no panic.
//! A request that validates must also sign (sandbox TEST-ONLY key) into a document our verifier accepts and that
//! parses back.
//! Run: `cargo +nightly fuzz run create_request` (seeds: the requests of tests/fixtures/cases, see scripts/reliability.sh).
#![no_main]

use kuatia_core::document::{build, IssueContext};
use kuatia_core::profile::Emisor;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use time::macros::datetime;

fn signer() -> &'static kuatia_core::sign::SoftwareSigner {
    static S: OnceLock<kuatia_core::sign::SoftwareSigner> = OnceLock::new();
    S.get_or_init(|| kuatia_core::sign::sandbox_test_signer().expect("built-in test signer"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(req) = kuatia_core::invoice::parse_request_bytes(data) else {
        return;
    };
    let emisor = Emisor::sandbox();
    let now = datetime!(2025-03-10 10:11:00);
    let valid = kuatia_core::validate::validate(&req, &emisor, now).is_empty();
    let _ = kuatia_core::totals::compute(&req);
    let ctx = IssueContext {
        now,
        numero: 1,
        codigo_seguridad: 123_456_789,
    };
    if let Ok(de) = build(&req, &emisor, ctx) {
        let xml = kuatia_core::xml::write(&de);
        // What we write, we read back.
        assert!(
            kuatia_core::xml::parse(&xml).is_ok(),
            "written DE does not parse"
        );
        if valid {
            let issued = kuatia_core::issue::sign_document(de, &emisor, signer())
                .expect("a valid request signs");
            let report = kuatia_core::sign::verify(&issued.xml, Some(now));
            assert!(report.valid, "signed document does not verify: {report:?}");
            assert!(kuatia_core::xml::parse(&issued.xml).is_ok());
        } else {
            let _ = kuatia_core::issue::simulate_unsigned(de, &emisor);
        }
    }
});

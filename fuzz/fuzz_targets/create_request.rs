//! Arbitrary bytes as a create request: parse, validate, compute totals, build the DE and write its XML; no panic.
//! Run: `cargo +nightly fuzz run create_request` (seeds: the requests of tests/fixtures/cases, see scripts/reliability.sh).
#![no_main]

use kuatia_core::document::{build, IssueContext};
use kuatia_core::profile::Emisor;
use libfuzzer_sys::fuzz_target;
use time::macros::datetime;

fuzz_target!(|data: &[u8]| {
    let Ok(req) = kuatia_core::invoice::parse_request_bytes(data) else {
        return;
    };
    let emisor = Emisor::sandbox();
    let now = datetime!(2025-03-10 10:11:00);
    let _ = kuatia_core::validate::validate(&req, &emisor, now);
    let _ = kuatia_core::totals::compute(&req);
    let ctx = IssueContext {
        now,
        numero: 1,
        codigo_seguridad: 123_456_789,
    };
    if let Ok(de) = build(&req, &emisor, ctx) {
        let xml = kuatia_core::xml::write(&de);
        let _ = kuatia_core::issue::simulate_unsigned(de, &emisor);
        // What we write, we read back.
        assert!(
            kuatia_core::xml::parse(&xml).is_ok(),
            "written DE does not parse"
        );
    }
});

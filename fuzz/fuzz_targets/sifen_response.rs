//! Feeds arbitrary bytes to the SIFEN answer parsers: they must return a result or an error, never panic.
//! Run: `cargo +nightly fuzz run sifen_response -- -max_total_time=60` (seeds: core/tests/sifen_samples).
#![no_main]

use kuatia_core::sifen::response::{parse_for, parse_response};
use kuatia_core::sifen::Service;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = parse_response(data) {
        let _ = r.action();
    }
    let _ = parse_for(Service::ConsultaLote, data);
});

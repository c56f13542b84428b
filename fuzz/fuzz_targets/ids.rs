//! Arbitrary text as a RUC and a CDC: parse, and a parsed value must print and re-parse to itself.
#![no_main]

use kuatia_core::cdc::Cdc;
use kuatia_core::ruc::Ruc;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(ruc) = Ruc::parse(&text) {
        let again = Ruc::parse(&ruc.to_string());
        assert_eq!(again.ok(), Some(ruc), "a parsed RUC re-parses to itself");
    }
    if let Ok(cdc) = Cdc::parse(&text) {
        let again = Cdc::parse(cdc.as_str()).map(|c| c.as_str().to_string());
        assert_eq!(again.ok().as_deref(), Some(cdc.as_str()));
        let _ = cdc.fields();
        let _ = cdc.grouped();
    }
});

//! Arbitrary bytes as an rDE: `xml::parse_bytes` returns a document or a finding; a parsed document writes back out.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(de) = kuatia_core::xml::parse_bytes(data) {
        let _ = kuatia_core::xml::write(&de);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = kuatia_core::sign::verify(text, None);
    }
});

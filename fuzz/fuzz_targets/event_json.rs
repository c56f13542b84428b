//! Arbitrary bytes as event JSON (`sifen::event::input_from_json` / `inputs_from_json`): an answer, never a panic.
//! An event that reads and validates must sign (sandbox TEST-ONLY key, emitter events) into XML our verifier
//! accepts inside its group (`group_xml`), and reading is deterministic: the same text gives the same event.
//! Seeds: `fuzz/corpus/event_json` (one event of each kind).
#![no_main]

use kuatia_core::ruc::Ruc;
use kuatia_core::sifen::event::{self, Firmante};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use time::macros::datetime;

fn signer() -> &'static kuatia_core::sign::SoftwareSigner {
    static S: OnceLock<kuatia_core::sign::SoftwareSigner> = OnceLock::new();
    S.get_or_init(|| kuatia_core::sign::sandbox_test_signer().expect("built-in test signer"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let many = event::json::inputs_from_json(text, Some(datetime!(2025-03-10 10:11:00)));
    let Ok(input) = event::json::input_from_json(text) else {
        return;
    };
    assert_eq!(
        event::json::input_from_json(text).ok(),
        Some(input.clone()),
        "reading is not deterministic"
    );
    // One event object is also a batch of one (its fecha_firma is given, so the default does not apply).
    assert_eq!(
        many.ok(),
        Some(vec![input.clone()]),
        "inputs_from_json disagrees with input_from_json"
    );
    if !event::validate(&input).is_empty() || !matches!(input.evento.firmante(), Firmante::Emisor) {
        return;
    }
    let ruc: Ruc = "44444401-7".parse().expect("sandbox RUC");
    if let Ok(signed) = event::sign_event(&input, &ruc, signer()) {
        // An event is signed for its place in the group (whose namespace it inherits): verify it there.
        let group = event::group_xml(std::slice::from_ref(&signed)).expect("one signed event groups");
        let report = kuatia_core::sign::verify(&group, None);
        assert!(report.valid, "signed event does not verify: {report:?}");
        assert_eq!(signed.id, input.id);
    }
});

//! Arbitrary bytes as a PKCS#12 file: the first byte picks a password, the rest is the file; errors only, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

const PASSWORDS: [&str; 3] = ["", "kuatia-test", "Zq7!Secr3t-P12-pa55word-kuatia"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, der)) = data.split_first() else {
        return;
    };
    let password = PASSWORDS[usize::from(pick) % PASSWORDS.len()];
    let _ = kuatia_core::sign::SoftwareSigner::from_pkcs12(der, password);
});

//! Arbitrary method, path, headers and body into the sans-IO API service with a memory store: always an answer.
#![no_main]

use kuatia_service::auth::Environment;
use kuatia_service::{Config, Host, HttpRequest, MemoryStore, Service};
use kuatia_core::sign::Signer;
use libfuzzer_sys::fuzz_target;
use time::OffsetDateTime;

struct FuzzHost(u32);

impl Host for FuzzHost {
    fn now(&mut self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_741_612_260).unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }
    fn random_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }
    fn signer(&self, _account: &str, _env: Environment) -> Option<&dyn Signer> {
        None
    }
}

const METHODS: [&str; 6] = ["GET", "POST", "PUT", "DELETE", "OPTIONS", "get"];

fuzz_target!(|data: &[u8]| {
    // Layout: method selector, then `path\nheader: value\n...\n\nbody`; the key is real half of the time so
    // the fuzzer reaches the authenticated handlers.
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let mut host = FuzzHost(u32::from(sel));
    let mut svc = Service::new(MemoryStore::default(), Config::default());
    let (_account, key) = svc.create_account("fuzz", &mut host);
    let text = String::from_utf8_lossy(rest);
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let path = lines.next().unwrap_or("/").to_string();
    let mut headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect();
    if sel & 0x80 != 0 {
        headers.push(("Authorization".into(), format!("Bearer {key}")));
    }
    let req = HttpRequest {
        method: METHODS[usize::from(sel) % METHODS.len()].into(),
        path,
        headers,
        body: body.as_bytes().to_vec(),
    };
    let first = svc.handle(&req, &mut host);
    assert!((100..600).contains(&first.status));
    // A second identical request exercises the idempotency and listing paths over a non-empty store.
    let _ = svc.handle(&req, &mut host);
    svc.tick(&mut host);
});

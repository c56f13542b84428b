//! `issue` of one request through the Rust core alone, timed call by call: the Rust side of the binding
//! benchmarks (`bindings/php/bench/bench.php` runs it between its own rounds, so both sides see the same machine
//! load). The work is that of `benches/ffi_overhead.rs`'s `issue_rust`: parse the JSON text, find the numbering
//! key, validate, number, build, sign (sandbox signer) and QR-complete.
//!
//! Usage: `issue_loop REQUEST_JSON_FILE NOW ROUNDS` (`NOW` as `YYYY-MM-DDThh:mm:ss`, number 1, security code
//! 123456789); prints the CDC on the first line, then one line with every call's time in
//! nanoseconds, space-separated.

use kuatia_core::cdc::FixedSecurityCode;
use kuatia_core::issue::{issue, numbering_key, MemoryNumbering};
use kuatia_core::profile::Emisor;
use kuatia_core::sign::sandbox_test_signer;
use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, now, rounds] = args.as_slice() else {
        return Err("usage: issue_loop REQUEST_JSON_FILE NOW ROUNDS".into());
    };
    let req = std::fs::read_to_string(file)?;
    let rounds: usize = rounds.parse()?;
    let now = kuatia_core::fmt::parse_datetime(now).map_err(|e| format!("{e:?}"))?;
    let signer = sandbox_test_signer().map_err(|e| format!("{e:?}"))?;
    let emisor = Emisor::sandbox();
    let mut cdc = String::new();
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        let parsed =
            kuatia_core::invoice::parse_request(black_box(&req)).map_err(|e| format!("{e:?}"))?;
        let key = numbering_key(&parsed, &emisor, now).map_err(|e| e.to_string())?;
        let issued = issue(
            &emisor,
            &parsed,
            &signer,
            now,
            &mut FixedSecurityCode(123_456_789),
            &mut MemoryNumbering::starting_at(key, 1),
        )
        .map_err(|e| format!("{e:?}"))?;
        black_box(issued.xml.len());
        times.push(t.elapsed().as_nanos().to_string());
        cdc = issued.cdc.clone();
    }
    println!("{cdc}");
    println!("{}", times.join(" "));
    Ok(())
}

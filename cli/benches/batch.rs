//! Benchmark of `kuatia issue --batch` (issue #15: ≤ 1.5 × one raw RSA-2048 signature per invoice with `-j 1`, files
//! and numbering included; `-j 2` ≥ 1.8 × the throughput of `-j 1`), with its baseline measured in the same run:
//! raw RSA-2048 signatures (aws-lc, the same test key) on one thread, and on two threads to show how much of a second
//! core the machine gives right now. Baseline, `-j 1` and `-j 2` alternate round by round so machine load weighs on
//! them alike; each batch issues into a fresh `--out`. Writes `target/batch-report.json` (read by scripts/bench.sh)
//! and prints PASS/MISS lines.
//!
//! `KUATIA_BATCH_N` (default 2000) sets the invoices per batch, `KUATIA_BATCH_ROUNDS` (default 3) the rounds.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const TARGET_RATIO: f64 = 1.5;
const TARGET_SPEEDUP: f64 = 1.8;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Microseconds per raw signature, `n` signatures spread over `threads` threads (wall time / n).
fn raw_signatures(n: usize, threads: usize) -> f64 {
    let signer = kuatia_core::sign::sandbox_test_signer().unwrap();
    use kuatia_core::sign::Signer as _;
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 0..threads {
            let signer = &signer;
            s.spawn(move || {
                let digest = [k as u8; 32];
                for _ in 0..n / threads {
                    std::hint::black_box(signer.sign_rsa_sha256(&digest).unwrap());
                }
            });
        }
    });
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// Microseconds per invoice of one `kuatia issue --batch` process (wall time / n), into a fresh `out` (new each run,
/// all removed at the end: removing the last run's 2 000 files just before would make the file system skip over
/// freshly deleted inodes at every file it creates, a cost of the benchmark, not of issuing).
fn batch(input: &Path, out: &Path, jobs: &str, n: usize) -> f64 {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(["issue", "--batch"])
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(["-j", jobs, "--at", "2025-03-10T10:11:00"])
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    assert!(o.status.success(), "batch -j {jobs} failed");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"].as_u64(), Some(n as u64), "every invoice issued");
    us
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let n = env_or("KUATIA_BATCH_N", 2000);
    let rounds = env_or("KUATIA_BATCH_ROUNDS", 3);
    let dir = target.join("batch-bench");
    let _ = std::fs::remove_dir_all(&dir);
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let example = std::fs::read_to_string(root.join("examples/factura.json")).unwrap();
    for i in 0..n {
        std::fs::write(input.join(format!("f{i:05}.json")), &example).unwrap();
    }
    let mut runs = 0;
    let mut out = || {
        runs += 1;
        dir.join(format!("out{runs}"))
    };
    // Warm-up: the binary, the page cache of the inputs, the CPU's clocks.
    batch(&input, &out(), "1", n);

    let (mut raw1, mut raw2, mut j1, mut j2) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        raw1.push(raw_signatures(n, 1));
        j1.push(batch(&input, &out(), "1", n));
        raw2.push(raw_signatures(n, 2));
        j2.push(batch(&input, &out(), "2", n));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let ratios: Vec<f64> = j1.iter().zip(&raw1).map(|(j, r)| j / r).collect();
    let speedups: Vec<f64> = j1.iter().zip(&j2).map(|(a, b)| a / b).collect();
    let raw_speedups: Vec<f64> = raw1.iter().zip(&raw2).map(|(a, b)| a / b).collect();
    let ratio = median(ratios);
    let speedup = median(speedups);
    let raw_speedup = median(raw_speedups);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(String::from));
    let report = serde_json::json!({
        "invoices": n,
        "rounds": rounds,
        "raw_sign_us": round(median(raw1.clone())),
        "raw_sign_2_threads_us": round(median(raw2.clone())),
        "raw_sign_2_threads_speedup": round(raw_speedup),
        "j1_us_per_invoice": round(median(j1.clone())),
        "j2_us_per_invoice": round(median(j2.clone())),
        "j1_over_raw_sign": round(ratio),
        "j2_speedup_over_j1": round(speedup),
        "target_j1_over_raw_sign": TARGET_RATIO,
        "target_j2_speedup": TARGET_SPEEDUP,
        "ok_j1": ratio <= TARGET_RATIO,
        "ok_j2": speedup >= TARGET_SPEEDUP,
        "load_before_end": load,
    });
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("batch-report.json"),
        serde_json::to_string_pretty(&report).unwrap() + "\n",
    )
    .unwrap();
    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" };
    println!(
        "{} kuatia issue --batch -j 1, {n} invoices: {} µs per invoice = {} × one raw RSA-2048 signature ({} µs, same run) ≤ {TARGET_RATIO}",
        verdict(ratio <= TARGET_RATIO),
        report["j1_us_per_invoice"],
        report["j1_over_raw_sign"],
        report["raw_sign_us"],
    );
    println!(
        "{} -j 2: {} µs per invoice, {} × the throughput of -j 1 ≥ {TARGET_SPEEDUP} (raw signatures on 2 threads: {} ×, what this machine gives now)",
        verdict(speedup >= TARGET_SPEEDUP),
        report["j2_us_per_invoice"],
        report["j2_speedup_over_j1"],
        report["raw_sign_2_threads_speedup"],
    );
}

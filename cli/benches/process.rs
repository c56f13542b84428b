//! Whole-process benchmark of `kuatia issue examples/factura.json` (issue #15: ≤ 10 ms wall, median of 20 runs),
//! measured in the same run as its baseline: `openssl dgst -sha256 -sign` of the same file with the same RSA-2048
//! key, also as a whole process. Both commands alternate, so machine load weighs on them alike. Writes
//! `target/process-report.json` (read by scripts/bench.sh) and prints one PASS/MISS line; exits 1 on a miss when
//! `KUATIA_BENCH_STRICT=1`.
//!
//! `KUATIA_PROCESS_RUNS` (default 20) sets the runs per command; two unmeasured warm-up runs of each come first.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const TARGET_MS: f64 = 10.0;

/// User + system CPU time of all waited-for children so far, in milliseconds.
fn children_cpu_ms() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(ru.ru_utime) + ms(ru.ru_stime)
}

/// Runs `cmd` to completion with output discarded; returns (wall ms, CPU ms).
fn time_once(cmd: &mut Command) -> (f64, f64) {
    let cpu0 = children_cpu_ms();
    let t = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let wall = t.elapsed().as_secs_f64() * 1e3;
    assert!(status.success(), "{cmd:?} failed: {status}");
    (wall, children_cpu_ms() - cpu0)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

struct Series {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Series {
    fn json(&mut self) -> serde_json::Value {
        let cpu_mean = self.cpu.iter().sum::<f64>() / self.cpu.len() as f64;
        let min = self.wall.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.wall.iter().copied().fold(0.0, f64::max);
        serde_json::json!({
            "runs": self.wall.len(),
            "wall_median_ms": round(median(&mut self.wall)),
            "wall_min_ms": round(min),
            "wall_max_ms": round(max),
            "cpu_mean_ms": round(cpu_mean),
        })
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn main() {
    // `cargo bench` passes --bench (and filters); this benchmark has no options of its own.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let input = root.join("examples/factura.json");
    let key = root.join("tests/fixtures/certs/sandbox.key.pem");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let out = target.join("process-bench");
    let _ = std::fs::remove_dir_all(&out);
    let runs: usize = std::env::var("KUATIA_PROCESS_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);

    let kuatia = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kuatia"));
        c.arg("issue")
            .arg(&input)
            .arg("--out")
            .arg(&out)
            .args(["--at", "2025-03-10T10:11:00"]);
        c
    };
    let openssl = || {
        let mut c = Command::new("openssl");
        c.args(["dgst", "-sha256", "-sign"])
            .arg(&key)
            .arg("-out")
            .arg(target.join("process-bench.sig"))
            .arg(&input);
        c
    };
    let have_openssl = Command::new("openssl")
        .arg("version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());

    for _ in 0..2 {
        time_once(&mut kuatia());
        if have_openssl {
            time_once(&mut openssl());
        }
    }
    let mut k = Series {
        wall: Vec::new(),
        cpu: Vec::new(),
    };
    let mut o = Series {
        wall: Vec::new(),
        cpu: Vec::new(),
    };
    for _ in 0..runs {
        let (w, c) = time_once(&mut kuatia());
        k.wall.push(w);
        k.cpu.push(c);
        if have_openssl {
            let (w, c) = time_once(&mut openssl());
            o.wall.push(w);
            o.cpu.push(c);
        }
    }
    let kj = k.json();
    let oj = have_openssl.then(|| o.json());
    let median_ms = kj["wall_median_ms"].as_f64().unwrap();
    let ok = median_ms <= TARGET_MS;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(String::from));
    let report = serde_json::json!({
        "kuatia_issue": kj,
        "openssl_dgst_sign": oj,
        "target_wall_median_ms": TARGET_MS,
        "ok": ok,
        "load_before_end": load,
    });
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("process-report.json"),
        serde_json::to_string_pretty(&report).unwrap() + "\n",
    )
    .unwrap();
    let base = oj
        .as_ref()
        .map(|o| {
            format!(
                "; openssl dgst -sign: median {} ms, CPU {} ms",
                o["wall_median_ms"], o["cpu_mean_ms"]
            )
        })
        .unwrap_or_else(|| "; openssl not found, no baseline".into());
    println!(
        "{} kuatia issue as a process ≤ {TARGET_MS} ms wall: median {median_ms} ms of {runs}, CPU {} ms{base}",
        if ok { "PASS" } else { "MISS" },
        kj["cpu_mean_ms"],
    );
    if !ok && std::env::var("KUATIA_BENCH_STRICT").as_deref() == Ok("1") {
        std::process::exit(1);
    }
}

//! Set-up of the batch and numbering tests: a directory of requests, `kuatia issue --batch` run or spawned, and the
//! numbers found in an `--out` directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The example request every batch is made of.
pub const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/factura.json");

/// The example request, parsed.
pub fn example() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap()
}

/// A directory `name` under `dir` holding `n` copies of the example request (`f000.json`, `f001.json`, ...).
pub fn batch_dir(dir: &Path, name: &str, n: usize) -> PathBuf {
    let example = std::fs::read_to_string(EXAMPLE).unwrap();
    requests_dir(dir, name, (0..n).map(|_| example.clone()))
}

/// A directory `name` under `dir` holding one request file per item of `bodies` (`f000.json`, `f001.json`, ...).
pub fn requests_dir(dir: &Path, name: &str, bodies: impl IntoIterator<Item = String>) -> PathBuf {
    let input = dir.join(name);
    std::fs::create_dir_all(&input).unwrap();
    for (i, body) in bodies.into_iter().enumerate() {
        std::fs::write(input.join(format!("f{i:03}.json")), body).unwrap();
    }
    input
}

/// Runs `kuatia issue --batch INPUT --out OUT -j JOBS` plus `extra`: (exit code, stdout JSON, stderr).
pub fn run_batch(
    input: &Path,
    out: &Path,
    jobs: &str,
    extra: &[&str],
) -> (i32, serde_json::Value, String) {
    let mut args = vec![
        "issue",
        "--batch",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-j",
        jobs,
    ];
    args.extend_from_slice(extra);
    super::run(&args, None)
}

/// `kuatia issue --batch INPUT --out OUT -j JOBS` as a child process, its output discarded unless `piped`.
pub fn spawn_batch(input: &Path, out: &Path, jobs: &str, piped: bool) -> Child {
    let io = || if piped { Stdio::piped() } else { Stdio::null() };
    Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args([
            "issue",
            "--batch",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-j",
            jobs,
        ])
        .stdout(io())
        .stderr(io())
        .spawn()
        .unwrap()
}

/// The numbering gaps `kuatia numbering gaps --out OUT` lists, as its JSON answer.
pub fn gaps_json(out: &Path) -> serde_json::Value {
    let (code, v, stderr) =
        super::run(&["numbering", "gaps", "--out", out.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stderr}");
    v
}

/// The numbers listed as gaps in `out`.
pub fn gaps(out: &Path) -> BTreeSet<u32> {
    gaps_json(out)["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["numero"].as_u64().unwrap() as u32)
        .collect()
}

/// The number (`dNumDoc`) inside a CDC: positions 18–24 (1-based) of the 44 digits.
pub fn numero_of(cdc: &str) -> u32 {
    cdc[17..24].parse().unwrap()
}

/// Numbers of the documents in `out` (from the `<cdc>.xml` names), checking none appears twice.
pub fn documents(out: &Path) -> BTreeSet<u32> {
    let mut seen = BTreeMap::new();
    for e in std::fs::read_dir(out).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if let Some(cdc) = name.strip_suffix(".xml") {
            let n = numero_of(cdc);
            assert!(
                seen.insert(n, cdc.to_string()).is_none(),
                "number {n} used twice"
            );
        }
    }
    seen.into_keys().collect()
}

//! Runs the built `kuatia` binary for the CLI integration tests; `batch` and `serve` hold the set-up of the batch and
//! numbering tests and of the tests of a running `kuatia serve`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod batch;
pub mod serve;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for something that must happen before calling it a hang. Generous on purpose: tests wait on
/// the event itself, never on a wall-clock bound, so this only turns a hang into a clear failure.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

/// Polls `done` (every millisecond: a test may race a child process to its next step) until it holds, failing with
/// `what` at the [`HANG_GUARD`].
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + HANG_GUARD;
    while !done() {
        assert!(
            Instant::now() < deadline,
            "hang guard ({HANG_GUARD:?}): {what} never happened"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs `kuatia` with `args`, feeding `stdin` when given.
pub fn kuatia(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kuatia"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Runs and returns (exit code, parsed stdout JSON or Null, stderr).
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, Value, String) {
    let out = kuatia(args, stdin);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&stdout).unwrap()
    };
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap(), json, stderr)
}

/// A fresh temporary directory, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// Creates it under the system temp dir.
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("kuatia-cli-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

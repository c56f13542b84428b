//! Runs the built `kuatia` binary for the CLI integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

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

//! Set-up of the tests of a running `kuatia serve` child process: start it, read the address and sandbox key it
//! prints, signal it, and wait for its exit under the hang guard.

use super::wait_until;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};

/// A `kuatia serve` child with its first stdout line read.
pub struct Serve {
    pub child: Child,
    /// The rest of its stdout (the stop document comes there).
    pub out: BufReader<ChildStdout>,
    /// `host:port` it listens on.
    pub addr: String,
    /// The sandbox key it created (empty when the data directory had one already).
    pub key: String,
}

/// Starts `cmd` (a `kuatia serve` command line, possibly behind `sh -c`) with stdout piped, and reads the
/// `{"listening": ..., "sandbox_key": ...}` line it prints once ready.
pub fn start(mut cmd: Command) -> Serve {
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let started: serde_json::Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("kuatia serve's first line {line:?}: {e}"));
    Serve {
        child,
        out,
        addr: started["listening"].as_str().unwrap().to_string(),
        key: started["sandbox_key"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

/// `kuatia serve --addr 127.0.0.1:0 --data DIR`, stderr discarded.
pub fn command(data: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kuatia"));
    cmd.args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(data)
        .stderr(Stdio::null());
    cmd
}

impl Serve {
    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let term = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(term.success());
    }

    /// Waits for the exit (under the hang guard).
    pub fn wait_exit(&mut self) -> ExitStatus {
        let mut status = None;
        wait_until("an exit after SIGTERM", || {
            status = self.child.try_wait().unwrap();
            status.is_some()
        });
        status.unwrap()
    }
}

//! The real SMTP server of the e-mail tests (tests/smtp/fake_smtp.py, aiosmtpd in the pinned environment of
//! scripts/smtp-venv.sh) as a child process on a loopback port, its log and spool, and the independent checks of a
//! received message: Python's `email` parser (tests/smtp/check_message.py), `qpdf --check`, `xmlsec1 --verify`.
//! Included with `#[path]` by server/tests/email.rs and cli/tests/cli_email.rs.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The environment's python (made or checked by scripts/smtp-venv.sh, idempotent).
pub fn python() -> String {
    let out = Command::new("bash")
        .arg(root().join("scripts/smtp-venv.sh"))
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "scripts/smtp-venv.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A running fake SMTP server; killed on drop.
pub struct FakeSmtp {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its spool: `log.txt` and the accepted messages `<n>.eml`.
    pub spool: PathBuf,
}

impl FakeSmtp {
    /// Starts it with the actions of its successive messages (`ok`, `t451`, `p550`, `hang-data`, `hang-quit`).
    pub fn start(spool: &Path, actions: &[&str]) -> FakeSmtp {
        FakeSmtp::start_with(spool, actions, None)
    }

    /// [`FakeSmtp::start`] requiring `AUTH` with `login:password` (`FAKE_SMTP_AUTH`; attempts in its log).
    pub fn start_with(spool: &Path, actions: &[&str], auth: Option<&str>) -> FakeSmtp {
        let mut command = Command::new(python());
        command
            .arg(root().join("tests/smtp/fake_smtp.py"))
            .arg(spool)
            .arg(actions.join(","))
            .stdout(Stdio::piped());
        if let Some(auth) = auth {
            command.env("FAKE_SMTP_AUTH", auth);
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("fake SMTP server's first line: {line:?}"))
            .parse()
            .unwrap();
        FakeSmtp {
            child,
            port,
            spool: spool.to_path_buf(),
        }
    }

    /// `smtp://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The lines of its log so far.
    pub fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.spool.join("log.txt"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// The `DATA` lines of its log (one per end of data received).
    pub fn data_lines(&self) -> Vec<String> {
        self.log()
            .into_iter()
            .filter(|l| l.starts_with("DATA "))
            .collect()
    }

    /// The messages it accepted (250), in order.
    pub fn accepted(&self) -> Vec<PathBuf> {
        let mut n: Vec<(u32, PathBuf)> = std::fs::read_dir(&self.spool)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter_map(|e| {
                        let p = e.path();
                        let stem = p.file_stem()?.to_str()?.parse().ok()?;
                        (p.extension()? == "eml").then_some((stem, p))
                    })
                    .collect()
            })
            .unwrap_or_default();
        n.sort();
        n.into_iter().map(|(_, p)| p).collect()
    }
}

impl Drop for FakeSmtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A received message read by Python's `email` package; its attachments written under `out`.
pub fn parse_message(eml: &Path, out: &Path) -> Value {
    let o = Command::new(python())
        .arg(root().join("tests/smtp/check_message.py"))
        .arg(eml)
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `qpdf --check` of a PDF: its output on failure.
pub fn qpdf_check(pdf: &Path) -> Result<(), String> {
    let o = Command::new("qpdf")
        .arg("--check")
        .arg(pdf)
        .output()
        .expect("qpdf is required (Debian qpdf; .ci/run installs it)");
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stdout).into_owned())
    }
}

/// `xmlsec1 --verify` of a signed DE (the sandbox certificate is self-signed: `--insecure` skips its chain).
pub fn xmlsec_verify(xml: &Path) -> Result<(), String> {
    let o = Command::new("xmlsec1")
        .args(["--verify", "--id-attr:Id", "DE", "--insecure"])
        .arg(xml)
        .output()
        .expect("xmlsec1 is required (Debian xmlsec1; .ci/run installs it)");
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

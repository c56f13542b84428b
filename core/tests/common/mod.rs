//! Helpers shared by the integration tests: the independent verifiers (xmllint with the official XSDs, xmlsec1).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The official schemas vendored in `reference/sifen/xsd` (see its `SOURCE.md`), made usable offline through the
/// committed XML catalog `reference/sifen/catalog.xml` (nothing written, nothing left behind).
pub struct Schemas {
    dir: PathBuf,
    catalog: PathBuf,
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates a fresh directory under the system temp dir.
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("kuatia-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    /// Writes `content` to `name` inside the directory and returns its path.
    pub fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::File::create(&p)
            .unwrap()
            .write_all(content)
            .unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file or folder of the official SIFEN files vendored in the repository (`reference/sifen/<sub>`: `xsd`, `wsdl`,
/// `catalogos`, `catalog.xml`). Every crate of the workspace sits one level below the root, so the path is the same from each.
pub fn reference_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../reference/sifen")
        .join(sub)
}

impl Schemas {
    /// Locates the vendored XSDs and their catalog (fails clearly when one is missing).
    pub fn new() -> Schemas {
        let dir = reference_dir("xsd");
        let catalog = reference_dir("catalog.xml");
        for need in [dir.join("siRecepDE_v150.xsd"), catalog.clone()] {
            assert!(
                need.is_file(),
                "{} is missing from the repository (the vendored SIFEN files, reference/sifen/SOURCE.md)",
                need.display()
            );
        }
        Schemas {
            dir: dir.canonicalize().unwrap(),
            catalog: catalog.canonicalize().unwrap(),
        }
    }

    /// Validates `xml` against the schema file `schema` with xmllint; Err carries xmllint's message.
    pub fn validate(&self, xml: &str, schema: &str) -> Result<(), String> {
        let tmp = TempDir::new("doc");
        let doc = tmp.file("doc.xml", xml.as_bytes());
        let out = Command::new("xmllint")
            .env("XML_CATALOG_FILES", &self.catalog)
            .args(["--noout", "--nonet", "--schema"])
            .arg(self.dir.join(schema))
            .arg(&doc)
            .output()
            .expect("xmllint is required (Debian libxml2-utils; .ci/run installs it)");
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Validates several files against `schema` in one xmllint run; Err carries xmllint's messages.
    pub fn validate_files(&self, files: &[PathBuf], schema: &str) -> Result<(), String> {
        let out = Command::new("xmllint")
            .env("XML_CATALOG_FILES", &self.catalog)
            .args(["--noout", "--nonet", "--schema"])
            .arg(self.dir.join(schema))
            .args(files)
            .output()
            .expect("xmllint is required (Debian libxml2-utils; .ci/run installs it)");
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.success() && log.matches(" validates").count() == files.len() {
            Ok(())
        } else {
            Err(log)
        }
    }
}

/// Verifies the enveloped signature of a DE (`Id` attribute on `DE`) or event (`rEve`) with xmlsec1.
pub fn xmlsec_verify(xml: &str) -> Result<(), String> {
    let tmp = TempDir::new("sig");
    let doc = tmp.file("signed.xml", xml.as_bytes());
    let out = Command::new("xmlsec1")
        .args([
            "--verify",
            "--id-attr:Id",
            "DE",
            "--id-attr:Id",
            "rEve",
            "--insecure",
        ])
        .arg(&doc)
        .output()
        .expect("xmlsec1 is required (Debian xmlsec1; .ci/run installs it)");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

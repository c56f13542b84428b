//! Helpers shared by the integration tests: the independent verifiers (xmllint with the official XSDs, xmlsec1).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The official schemas in `../shared/sifen/xsd`, made usable offline through an XML catalog.
pub struct Schemas {
    dir: PathBuf,
    catalog: PathBuf,
    _tmp: TempDir,
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates a fresh directory under the system temp dir.
    pub fn new(tag: &str) -> TempDir {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("kuatia-{tag}-{}-{n}", std::process::id()));
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

impl Schemas {
    /// Locates the shared XSDs (fails clearly when `../shared` is missing) and writes the catalog.
    pub fn new() -> Schemas {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/sifen/xsd");
        assert!(
            dir.join("siRecepDE_v150.xsd").exists(),
            "the official XSDs are expected in {} (shared/ beside the project)",
            dir.display()
        );
        let dir = dir.canonicalize().unwrap();
        let tmp = TempDir::new("xsd");
        let prefix = format!("file://{}/", dir.display());
        let catalog = tmp.file(
            "catalog.xml",
            format!(
                r#"<?xml version="1.0"?><catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog"><rewriteURI uriStartString="https://ekuatia.set.gov.py/sifen/xsd/" rewritePrefix="{prefix}"/><rewriteSystem systemIdStartString="https://ekuatia.set.gov.py/sifen/xsd/" rewritePrefix="{prefix}"/></catalog>"#
            )
            .as_bytes(),
        );
        Schemas {
            dir,
            catalog,
            _tmp: tmp,
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

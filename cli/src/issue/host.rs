//! The host side of issuing shared by one document and a batch: the CSPRNG, the numbering file, durable writes, the
//! signing key.

use super::args::IssueArgs;
use crate::output::Outcome;
use kuatia_core::cdc::SecurityCodeSource;
use kuatia_core::sign::{sandbox_test_signer, SoftwareSigner};
use kuatia_server::numbering::SqliteNumbering;
use std::path::Path;
use zeroize::Zeroizing;

/// Security codes from the operating system's CSPRNG.
pub(crate) struct OsRandom;

impl SecurityCodeSource for OsRandom {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        // On the (never seen) failure of the OS generator, fall back to the clock's nanoseconds: still not
        // sequential, and the core re-draws if it equals the document number.
        if getrandom::fill(&mut b).is_err() {
            return std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(1);
        }
        u32::from_le_bytes(b)
    }
}

/// Opens the numbering store of an output directory (created if missing): `<out>/numbering.sqlite3`.
pub(crate) fn open_numbering(out: &Path) -> Result<SqliteNumbering, Outcome> {
    std::fs::create_dir_all(out)
        .map_err(|e| Outcome::unreadable(format!("{}: cannot create: {e}", out.display())))?;
    SqliteNumbering::open(out).map_err(|f| Outcome::error(&f))
}

/// Writes a document durably before its number is confirmed: a temporary file, synced, renamed into place, and the
/// directory synced, so a crash leaves either the whole document or a listed gap.
pub(crate) fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let tmp = path.with_extension("xml.partial");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

pub(crate) fn load_signer(args: &IssueArgs) -> Result<(SoftwareSigner, bool), Outcome> {
    match (&args.p12, &args.password_env) {
        (Some(path), Some(var)) => {
            let bytes = std::fs::read(path).map_err(|e| {
                Outcome::unreadable(format!("{}: cannot read: {e}", path.display()))
            })?;
            let password = Zeroizing::new(std::env::var(var).map_err(|_| {
                Outcome::unreadable(format!("environment variable {var} is not set"))
            })?);
            let signer = SoftwareSigner::from_pkcs12(&bytes, &password)
                .map_err(|e| Outcome::error(&e.to_finding("p12")))?;
            Ok((signer, false))
        }
        _ => sandbox_test_signer()
            .map(|s| (s, true))
            .map_err(|e| Outcome::unreadable(format!("built-in test certificate: {e}"))),
    }
}

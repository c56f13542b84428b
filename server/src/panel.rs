//! The host's part of the account panel (`/panel`, whose pages, sessions and rules are the crate [`kuatia_panel`]):
//! keeping the P12 certificates uploaded through it.
//!
//! The password of an uploaded P12 must survive a restart, so `kuatia serve` can sign with it: it is sealed with
//! ChaCha20-Poly1305 under the data directory's server key (`panel.key`, 32 random bytes, mode 0600, created on first
//! start) with the account id as associated data, and stored beside the P12 in the `certificates` table as
//! `sealed:v1:<hex nonce ‖ ciphertext>` where `kuatia accounts set-p12` stores the name of an environment variable.
//! A copy of the database alone does not open the P12; the database together with `panel.key` does.
//!
//! An account's own SMTP password (the panel's "Correo" page, issue 36) is sealed the same way, under the same key,
//! with [`smtp_context`] (account and environment) as associated data: it opens only for the account and environment
//! it was saved for, never as a P12 password or the other environment's.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use kuatia_service::auth::hex;
use std::path::Path;
use zeroize::Zeroizing;

/// File name of the server key in the data directory.
pub const KEY_FILE: &str = "panel.key";
/// Prefix of a sealed password in the `password_env` column.
pub const SEALED_PREFIX: &str = "sealed:v1:";

/// The data directory's server key, created on first use (mode 0600).
pub fn server_key(data_dir: &Path) -> Result<Zeroizing<[u8; 32]>, String> {
    let path = data_dir.join(KEY_FILE);
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut key = Zeroizing::new([0u8; 32]);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let bytes = Zeroizing::new(bytes);
            if bytes.len() != 32 {
                return Err(format!("{}: not a 32-byte key", path.display()));
            }
            key.copy_from_slice(&bytes);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A node over PostgreSQL may have no data directory yet: it holds only this key.
            create_private_dir(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
            getrandom::fill(key.as_mut()).map_err(|e| format!("OS random generator: {e}"))?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let mut file = options.open(&path).map_err(fail)?;
            std::io::Write::write_all(&mut file, key.as_ref()).map_err(fail)?;
            file.sync_all().map_err(fail)?;
        }
        Err(e) => return Err(fail(e)),
    }
    Ok(key)
}

/// Creates `dir` (and its parents) if missing, the last one with mode 0700.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// The associated data of an account's SMTP password for one environment ([`seal`]'s `account_id`).
pub fn smtp_context(account_id: &str, env: kuatia_service::auth::Environment) -> String {
    format!("{account_id}/smtp/{}", env.as_str())
}

/// Seals a password (a P12's, an SMTP server's) for an account (the associated data: the account id, or
/// [`smtp_context`]).
pub fn seal(key: &[u8; 32], account_id: &str, password: &str) -> Result<String, String> {
    let mut nonce = [0u8; 12];
    getrandom::fill(&mut nonce).map_err(|e| format!("OS random generator: {e}"))?;
    let cipher = ChaCha20Poly1305::new(Key::from_slice(key));
    let sealed = cipher
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: password.as_bytes(),
                aad: account_id.as_bytes(),
            },
        )
        .map_err(|_| "sealing the password failed".to_string())?;
    Ok(format!("{SEALED_PREFIX}{}{}", hex(&nonce), hex(&sealed)))
}

/// Opens a password sealed by [`seal`] for the same account.
pub fn unseal(key: &[u8; 32], account_id: &str, sealed: &str) -> Result<Zeroizing<String>, String> {
    let bad =
        || "the sealed password does not open with this data directory's panel.key".to_string();
    let bytes = unhex(sealed.strip_prefix(SEALED_PREFIX).ok_or_else(bad)?).ok_or_else(bad)?;
    if bytes.len() < 12 {
        return Err(bad());
    }
    let (nonce, ct) = bytes.split_at(12);
    let cipher = ChaCha20Poly1305::new(Key::from_slice(key));
    let plain = Zeroizing::new(
        cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ct,
                    aad: account_id.as_bytes(),
                },
            )
            .map_err(|_| bad())?,
    );
    String::from_utf8(plain.to_vec())
        .map(Zeroizing::new)
        .map_err(|_| bad())
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A certificate the core accepted through the panel, waiting to be written in the request's transaction.
pub struct Installed {
    /// The account.
    pub account_id: String,
    /// The P12 as uploaded.
    pub p12: Vec<u8>,
    /// The sealed password.
    pub sealed: String,
    /// Subject, for listings.
    pub subject: String,
    /// End of validity (RFC 3339), for listings.
    pub not_after: String,
}

impl std::fmt::Debug for Installed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installed")
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

/// Writes the certificates installed during a request into the store (same transaction as the request).
pub fn persist(svc: &mut kuatia_service::Service<crate::Backend>, host: &mut crate::SystemHost) {
    for c in host.take_installed() {
        svc.store
            .put_certificate(&c.account_id, &c.p12, &c.sealed, &c.subject, &c.not_after);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn sealed_passwords_open_only_with_their_key_and_account() {
        let key = [7u8; 32];
        let s = super::seal(&key, "acct_a", "kuatia-test").unwrap();
        assert!(!s.contains("kuatia-test"));
        assert_eq!(
            super::unseal(&key, "acct_a", &s).unwrap().as_str(),
            "kuatia-test"
        );
        assert!(super::unseal(&key, "acct_b", &s).is_err());
        assert!(super::unseal(&[8u8; 32], "acct_a", &s).is_err());
        assert!(super::unseal(&key, "acct_a", "sealed:v1:zz").is_err());
        // An SMTP password opens only for its account and environment, never as the P12's.
        use kuatia_service::auth::Environment::{Production, Sandbox};
        let smtp = super::seal(&key, &super::smtp_context("acct_a", Production), "pw").unwrap();
        let open = |ctx: &str| super::unseal(&key, ctx, &smtp).map(|p| p.to_string());
        assert_eq!(
            open(&super::smtp_context("acct_a", Production)).unwrap(),
            "pw"
        );
        assert!(open(&super::smtp_context("acct_a", Sandbox)).is_err());
        assert!(open("acct_a").is_err());
    }
}

//! API keys: `dk_test_…` (sandbox) and `dk_live_…` (production), stored as SHA-256 hashes, compared in constant time.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Environment of a key and of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// `dk_test_` keys, `X-Environment: sandbox`, simulated SIFEN.
    Sandbox,
    /// `dk_live_` keys, no environment header, real SIFEN.
    Production,
}

impl Environment {
    /// Its name as serialized and stored (`sandbox`, `production`).
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Sandbox => "sandbox",
            Environment::Production => "production",
        }
    }
}

/// Prefix of sandbox keys.
pub const TEST_PREFIX: &str = "dk_test_";
/// Prefix of production keys.
pub const LIVE_PREFIX: &str = "dk_live_";
/// Length of the lookup id that follows the prefix (public part, used to find the stored hash).
pub const KEY_ID_LEN: usize = 8;
/// Length of the secret part after the id.
pub const SECRET_LEN: usize = 32;

/// A stored key: its public id, environment and SHA-256 of the whole key. The key itself is never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredKey {
    /// The 8-character public id (after the prefix).
    pub key_id: String,
    /// Sandbox or production.
    pub environment: Environment,
    /// Lowercase hex SHA-256 of the full key.
    pub hash: String,
    /// Unix time of creation (0 for keys stored before it was kept).
    #[serde(default)]
    pub created_at: i64,
    /// Unix time of the revocation: a revoked key authenticates nothing, at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<i64>,
}

impl StoredKey {
    /// The key's public prefix as listings show it (`dk_test_` or `dk_live_` and the 8-character id): enough to
    /// recognise a key, nothing to use it.
    pub fn prefix(&self) -> String {
        let p = match self.environment {
            Environment::Sandbox => TEST_PREFIX,
            Environment::Production => LIVE_PREFIX,
        };
        format!("{p}{}", self.key_id)
    }
}

/// A key split into its parts after a syntax check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    /// Environment given by the prefix.
    pub environment: Environment,
    /// Public id.
    pub key_id: &'a str,
    /// The full key text.
    pub full: &'a str,
}

/// Checks the syntax `dk_(test|live)_<8 id chars><32 secret chars>` (base62).
pub fn parse_key(key: &str) -> Option<ParsedKey<'_>> {
    let (environment, rest) = if let Some(r) = key.strip_prefix(TEST_PREFIX) {
        (Environment::Sandbox, r)
    } else {
        (Environment::Production, key.strip_prefix(LIVE_PREFIX)?)
    };
    if rest.len() != KEY_ID_LEN + SECRET_LEN || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some(ParsedKey {
        environment,
        key_id: rest.get(..KEY_ID_LEN)?,
        full: key,
    })
}

/// Lowercase hex SHA-256 of a key.
pub fn hash_key(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

/// Makes a new key from 40 random base62 characters supplied by the host's CSPRNG (`random` yields bytes).
pub fn new_key(environment: Environment, random: &mut dyn FnMut() -> u32) -> (String, StoredKey) {
    const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let prefix = match environment {
        Environment::Sandbox => TEST_PREFIX,
        Environment::Production => LIVE_PREFIX,
    };
    let mut key = String::with_capacity(prefix.len() + KEY_ID_LEN + SECRET_LEN);
    key.push_str(prefix);
    while key.len() < prefix.len() + KEY_ID_LEN + SECRET_LEN {
        // Rejection sampling keeps the characters uniform (248 = 4 × 62).
        let r = random();
        for byte in r.to_le_bytes() {
            if byte < 248 && key.len() < prefix.len() + KEY_ID_LEN + SECRET_LEN {
                key.push(char::from(ALPHABET[usize::from(byte % 62)]));
            }
        }
    }
    let key_id = key
        .get(prefix.len()..prefix.len() + KEY_ID_LEN)
        .unwrap_or_default()
        .to_string();
    let stored = StoredKey {
        key_id,
        environment,
        hash: hash_key(&key),
        created_at: 0,
        revoked_at: None,
    };
    (key, stored)
}

/// Constant-time equality of two byte strings of equal length (length itself is not secret: hashes are fixed-size).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `key` matches the stored hash (constant time over the hashes).
pub fn key_matches(key: &str, stored: &StoredKey) -> bool {
    ct_eq(hash_key(key).as_bytes(), stored.hash.as_bytes())
}

/// Lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}
